"""Setup (4.0-4.2, 14.2, 14.4): what each side places where, and the checks
that the finished setup obeys the rules.

The Allied player's concealed pieces ``X1``-``X8`` (4 dummies, 4 detachments)
and mine markers ``M1``-``M8`` (5 real, 3 dummy) are public positions whose
identities are sealed slots; only the Allied client and, after the game, the
audit ever see them.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Mapping

from pbem.engine.machine import illegal
from pbem.games.ambon.state import ALLIED, JAPANESE, OFF_MAP, AmbonState

if TYPE_CHECKING:
    from pbem.games.ambon.data import AmbonData

# The slots of the shipped data (8 concealed pieces, 5 real + 3 dummy mines).
# The rules read the data's own -- AmbonData.concealed_slots, .mine_slots,
# .identities (counters.toml's concealable counters) and .mine_kinds
# (charts.toml real_mines, dummy_mines) -- so printed data with other counts
# is played as printed; these names remain for callers without a game at hand.
CONCEALED = tuple(f"X{i}" for i in range(1, 9))
MINES = tuple(f"M{i}" for i in range(1, 9))
IDENTITIES = {"dummy": 4, "detachment": 4}  # 4.1
MINE_KINDS = {"real": 5, "dummy": 3}  # 4.1
SECOND_WAVE_SLOT = "second-wave"
KURE = ("Kure-HQ", "Kure-1", "Kure-2", "Kure-3", "Kure-MG")
BATTALIONS = {n: tuple(f"{n}.{c}" for c in "ABCD") for n in "123"}
REGIMENTAL_HQ = "228-HQ"
REGIMENTAL_ARTILLERY = "228-Art"

# 4.1, fixed and "within 1 hex" placements: (rule text, anchor hex, radius, units named, NEI companies)
ALLIED_REQUIREMENTS = (
    ("Halong (1611): NEI HQ and 1 NEI company", "1611", 0, ("NEI-HQ",), 1),
    ("Eri (1114): AUS A Company and 1 NEI company", "1114", 0, ("AUS-A",), 1),
    ("Latuhalat (1016): 1 NEI company", "1016", 0, (), 1),
    ("within 1 hex of 1215: AUS HQ, B Company and Engineers", "1215", 1, ("AUS-HQ", "AUS-B", "AUS-Eng"), 0),
    ("Paso (1809): 3 NEI companies", "1809", 0, (), 3),
    ("Laha (0812): 1 NEI company, NEI artillery, NEI anti-aircraft, AUS C Company", "0812", 0,
     ("NEI-Art", "NEI-AA", "AUS-C"), 1),
    ("south of Laha (0813): AUS D Company", "0813", 0, ("AUS-D",), 0),
)
PASO_RING = ("within 1 hex of Paso: 1 NEI company", "1809", 1, 1)
ANCHOR_14_4 = "1215"  # 14.4: the two optional units set up within 1 hex of it


def span(slots: tuple[str, ...]) -> str:
    """``"X1-X8"``: a run of slots, as messages name it."""
    return f"{slots[0]}-{slots[-1]}" if slots else "none"


def named_units() -> list[tuple[str, str, tuple[str, ...]]]:
    """(rule, side, unit ids) of every unit these rules name: AmbonData checks
    on load that counters.toml has them."""
    found: list[tuple[str, str, tuple[str, ...]]] = [("4.2", JAPANESE, KURE + (REGIMENTAL_HQ, REGIMENTAL_ARTILLERY))]
    found += [("4.2", JAPANESE, units) for units in BATTALIONS.values()]
    found += [("4.1", ALLIED, units) for _, _, _, units, _ in ALLIED_REQUIREMENTS]
    return found


def named_hexes() -> list[tuple[str, str]]:
    """(rule, hex) of every hex these rules name, checked on load."""
    return [("4.1", anchor) for _, anchor, *_ in ALLIED_REQUIREMENTS + (PASO_RING,)] + [("14.4", ANCHOR_14_4)]


def optional_units(data: "AmbonData", rule: str) -> list[str]:
    """The counters in play only with optional rule ``rule`` (counters.toml ``optional_rule``)."""
    return [u.id for u in data.counters.units if u.front["optional_rule"] == rule]


def allied_units(data: "AmbonData", options: tuple[str, ...]) -> list[str]:
    """The Allied units on the map at the start: not the concealable pieces
    (they are the sealed slots), and a counter of an optional rule (14.4's
    two) only with that rule (counters.toml ``concealable``, ``optional_rule``)."""
    return [u.id for u in data.counters.of_side(ALLIED)
            if not u.front["concealable"] and u.front["optional_rule"] in ("",) + tuple(options)]


def _whole(rule: str, text: str) -> Exception:
    """A setup check's refusal: about the setup as a whole, not one order."""
    return illegal(rule, text, whole=True)


def check_allied_setup(data: "AmbonData", state: AmbonState) -> None:
    """4.1 (and 14.4): raise an IllegalOrderError naming every requirement
    the finished Allied setup breaks (:func:`allied_setup_problems`), one
    line each.  It is about the setup as a whole (``whole``): no single
    order is blamed, so a message with one misplaced unit is told of that
    unit only (issue 26)."""
    problems = allied_setup_problems(data, state)
    if problems:
        text = problems[0] if len(problems) == 1 else (
            f"the Allied setup breaks {len(problems)} requirements:\n" + "\n".join(f"  {p}" for p in problems))
        raise illegal("4.1", text, whole=True)


def allied_setup_problems(data: "AmbonData", state: AmbonState) -> list[str]:
    """4.1 (and 14.4): every requirement the finished Allied setup breaks,
    in words, each mistake once: a requirement that follows from another
    one broken (the NEI companies left over when one is missing, a unit not
    placed at all) is not listed again."""
    gmap = data.map
    problems: list[str] = []
    placed = {p.id: p.where for p in state.pieces if p.side == ALLIED}
    unplaced = [unit for unit in allied_units(data, state.options) if not placed.get(unit, "")[:1].isdigit()]
    if unplaced:
        problems.append(f"{', '.join(unplaced)} {'has' if len(unplaced) == 1 else 'have'} not been placed")
    within = lambda anchor, radius: {  # noqa: E731
        gmap.label(h) for h in gmap.hex(anchor).within(radius) if gmap.contains(h)
    }
    nei = Counter(where for unit, where in placed.items() if unit in data.nei_companies and where[:1].isdigit())
    surplus = Counter(nei)
    counted = not any(unit in data.nei_companies for unit in unplaced)  # the companies' counts mean something
    for text, anchor, radius, units, companies in ALLIED_REQUIREMENTS:
        area = within(anchor, radius)
        for unit in units:
            if unit not in unplaced and placed.get(unit) not in area:
                problems.append(f"{text}: {unit} is in {placed.get(unit)}")
        if companies:
            if nei[anchor] < companies and counted:
                problems.append(f"{text}: {anchor} holds {nei[anchor]} NEI companies")
                counted = False  # the rest of the companies' checks would only repeat it
            surplus[anchor] -= companies
    if "14.4" in state.options:
        area = within(ANCHOR_14_4, 1)
        for unit in optional_units(data, "14.4"):
            if unit not in unplaced and placed.get(unit) not in area:
                problems.append(f"14.4: {unit} must set up within 1 hex of {ANCHOR_14_4}, not {placed.get(unit)}")
    text, anchor, radius, companies = PASO_RING
    ring = [h for h in sorted(within(anchor, radius)) if surplus[h] > 0]
    # take the ring's company where it cannot count as a coastal "remaining" one
    ring.sort(key=lambda h: gmap.hex(h) in gmap.coastal)
    if counted and not ring:
        problems.append(f"{text}: none is placed there")
        counted = False
    if ring:
        surplus[ring[0]] -= companies
    remaining = len(data.nei_companies) - sum(
        c for *_, c in ALLIED_REQUIREMENTS
    ) - companies
    inland = [where for where, count in surplus.items() if count > 0 and gmap.hex(where) not in gmap.coastal]
    if counted and inland:
        problems += [f"a remaining NEI company may set up only on a coastal hex, not {where}" for where in inland]
    elif counted and sum(c for c in surplus.values() if c > 0) != remaining:
        problems.append(f"the {remaining} remaining NEI companies must set up on coastal hexes")
    concealed: Counter[str] = Counter()
    for pid in data.concealed_slots:
        where = placed.get(pid, "")
        if not where[:1].isdigit() or gmap.hex(where) not in gmap.coastal:
            problems.append(f"concealed piece {pid} must be placed on a coastal hex, not {where or 'nowhere'}")
        else:
            concealed[where] += 1
    most = data.value("concealed_per_coastal_hex")
    for where, count in concealed.items():
        pieces = count + max(0, surplus[where])
        if pieces > most:
            problems.append(f"{where} holds {pieces} dummies, detachments and remaining NEI companies; at most {most}")
    for mine in state.mines:
        box = data.map.boxes.get(mine.box)
        if box is None or box.kind != "mines":
            problems.append(f"mine marker {mine.id} must be in a mine box, not {mine.box or 'nowhere'}")
    sealed = {slot for side, slot in state.sealed if side == ALLIED}
    missing = [slot for slot in data.concealed_slots + data.mine_slots if slot not in sealed]
    if missing:
        problems.append(f"the identities of {', '.join(missing)} must be sealed in the setup message")
    return problems


def check_japanese_setup(data: "AmbonData", state: AmbonState) -> None:
    """4.2 (and 14.2): Kure all in one First Wave box; one battalion with the
    regimental HQ in another; the two other battalions one per Second Wave
    box (or off-map under 14.2, their beaches in the sealed note)."""
    boxes = data.map.boxes
    where = {p.id: p.where for p in state.pieces if p.side == JAPANESE}
    kind = lambda box: boxes[box].kind if box in boxes else box  # noqa: E731
    unplaced = sorted(u for u, w in where.items() if not w)
    if unplaced:
        raise _whole("4.2", f"{', '.join(unplaced)} {'is' if len(unplaced) == 1 else 'are'} not placed: "
                             f"every Japanese unit sets up in a box (wave = BOX, units = [...])")
    kure_boxes = {where[u] for u in KURE}
    if len(kure_boxes) != 1 or kind(next(iter(kure_boxes))) != "first-wave":
        raise _whole("4.2", f"all Kure 1 Special units must be in one First Wave box, not {', '.join(sorted(kure_boxes))}")
    kure_box = next(iter(kure_boxes))
    hq_box = where[REGIMENTAL_HQ]
    if kind(hq_box) != "first-wave" or hq_box == kure_box:
        raise _whole("4.2", f"the regimental HQ must be in a First Wave box other than Kure's ({kure_box}), not {hq_box}")
    first, second = None, []
    for n, units in BATTALIONS.items():
        spots = {where[u] for u in units}
        if len(spots) != 1:
            raise _whole("4.2", f"the {n}st/nd/rd battalion's four units must stay together, not in {', '.join(sorted(spots))}")
        spot = next(iter(spots))
        if spot == hq_box:
            if first is not None:
                raise _whole("4.2", f"only one battalion lands with the regimental HQ in {hq_box}")
            first = n
        elif kind(spot) == "second-wave" or (spot == OFF_MAP and state.option("14.2")):
            second.append(spot)
        else:
            raise _whole("4.2", f"battalion {n} must be with the regimental HQ or in a Second Wave box, not {spot}")
    if first is None:
        raise _whole("4.2", f"one battalion must be placed with the regimental HQ in {hq_box}")
    if state.option("14.2"):
        if second != [OFF_MAP, OFF_MAP]:
            raise _whole("14.2", "the two Second Wave battalions are kept off-map; their beaches go in the sealed note")
        if (JAPANESE, SECOND_WAVE_SLOT) not in state.sealed:
            raise _whole("14.2", "the Second Wave beaches must be sealed in a note (second_wave = {...})")
    elif len(set(second)) != 2:
        raise _whole("4.2", "the two other battalions go one per Second Wave box, in separate boxes")
    art = where[REGIMENTAL_ARTILLERY]
    battalion_spots = {where[f"{n}.A"] for n in BATTALIONS}
    if art not in battalion_spots:
        raise _whole("4.2", f"228-Art must set up with one of the 228th's battalions, not in {art}")


def check_secrets(data: "AmbonData", side: str, store: Mapping[str, str], options: tuple[str, ...]) -> list[str]:
    """4.1 / 14.2: what a side's sealed values must satisfy (checked by the
    owner's client before sending, and by the audit after the game): as many
    dummies and detachments as counters.toml has, as many real and dummy
    mines as charts.toml says."""
    problems = []
    if side == ALLIED:
        slots, want = data.concealed_slots, {k: n for k, n in data.identities.items() if n}
        kinds = Counter(store.get(slot) for slot in slots)
        if dict(kinds) != want:
            problems.append(f"4.1: {span(slots)} must be exactly {data.identities['dummy']} dummies and "
                            f"{data.identities['detachment']} detachments, are {dict(kinds)}")
        slots, want = data.mine_slots, {k: n for k, n in data.mine_kinds.items() if n}
        mines = Counter(store.get(slot) for slot in slots)
        if dict(mines) != want:
            problems.append(f"4.1: {span(slots)} must be exactly {data.mine_kinds['real']} real and "
                            f"{data.mine_kinds['dummy']} dummy mines, are {dict(mines)}")
    elif "14.2" in options and SECOND_WAVE_SLOT not in store:
        problems.append("14.2: the Second Wave note is missing")
    return problems


def parse_second_wave_note(data: "AmbonData", note: str) -> dict[str, str]:
    """14.2: ``"1:hitu-lama 2:laha"`` -> battalion -> lane, checked."""
    plan = {}
    for part in note.split():
        battalion, _, lane = part.partition(":")
        if battalion not in BATTALIONS or lane not in data.lanes:
            raise illegal("14.2", f"note entry {part!r} is not BATTALION:LANE (lanes: {', '.join(data.lanes)})")
        plan[battalion] = lane
    if len(plan) != 2 or len(set(plan.values())) != 2:
        raise illegal("14.2", f"the note must name two battalions and two different beaches: {note!r}")
    return plan
