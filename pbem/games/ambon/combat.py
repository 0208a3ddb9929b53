"""Combat (11.0-11.4) -- the core the landing combat of 6.3 uses.

Odds are exact fractions rounded in the defender's favour; the CRT, its
shifts and DRMs are data (``charts.toml``).  Results read ``A/D`` hits with an
optional ``r`` (retreat or take an extra hit) or ``R`` (must retreat).

Who takes a hit is the owner's decision (11.3: "the owning player chooses
which unit takes the hit"), made after the die.  pbem never makes it for
them: it is decided by the owner's answer in a message (``losses = [...]``),
or by the owner's standing instruction ``losses`` -- units in the order they
take hits, ending, if the owner wants one, with a named policy -- or it is
no choice at all (one unit left, or hits enough to eliminate every unit).
Otherwise the combat waits for the owner's message (:mod:`.battle`).  Every
hit's event says which of these decided it.

The one named loss policy, :data:`PROTECT_HQ` (``losses = "protect-hq"``):
a hit goes first to a unit one hit eliminates that is worth no VP (a
detachment), then disrupts the strongest undisrupted unit, then eliminates
the weakest disrupted one, and eliminates an HQ only when no other unit is
left to take it (an HQ is worth +3 or -5 VP, 3.0).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import ceil, floor
from typing import TYPE_CHECKING, Sequence

from pbem.engine.machine import Event, illegal, replace
from pbem.games.ambon import movement
from pbem.games.ambon.state import ELIMINATED, AmbonState, Piece

if TYPE_CHECKING:
    from pbem.games.ambon.data import AmbonData


@dataclass(frozen=True)
class Odds:
    attack: Fraction
    defence: Fraction
    column: str  # the ratio after rounding, before shifts; with the column it reads when the table has none (read_column)
    final: str  # the column read, after shifts and clamping
    shifts: tuple[tuple[str, int], ...]
    drms: tuple[tuple[str, int], ...]

    @property
    def drm(self) -> int:
        return sum(v for _, v in self.drms)


def ratio_column(attack: Fraction, defence: Fraction) -> tuple[int, int]:
    """11.0: the ratio reduced to n:1 or 1:n, rounded in the defender's favour."""
    if defence <= 0:
        raise illegal("11.0", "the defenders have no combat strength")
    if attack >= defence:
        return floor(attack / defence), 1
    return 1, ceil(defence / attack) if attack > 0 else 99


def column_name(ratio: tuple[int, int]) -> str:
    return f"{ratio[0]}:{ratio[1]}"


def clamp_column(data: "AmbonData", ratio: tuple[int, int]) -> str:
    columns = data.charts.table("crt").columns
    value = Fraction(ratio[0], ratio[1])
    best = columns[0]
    for col in columns:
        a, b = (int(x) for x in col.split(":"))
        if Fraction(a, b) <= value:
            best = col
    return best


@dataclass(frozen=True)
class Term:
    """One unit's part in a combat's strength: its printed CF and the CF
    counted, with why they differ (each halving, in words citing the rule)."""

    unit: str
    printed: Fraction
    counted: Fraction
    why: tuple[str, ...] = ()

    def data(self) -> dict:
        return {"unit": self.unit, "cf": str(self.printed), "counted": str(self.counted), "why": list(self.why)}


def counted(terms: list[Term]) -> str:
    """``"3.A 6 + 3.B 6 + 3.C 3 (6 halved) = 15"``: the units a strength counts."""
    parts = [f"{t.unit} 0 (an HQ: no CF, 2.2.1)" if not t.printed else
             f"{t.unit} {fmt(t.counted)}" + (f" ({fmt(t.printed)} halved)" if t.counted * 2 == t.printed and t.why
                                             else f" ({fmt(t.printed)} made {fmt(t.counted)})" if t.why else "")
             for t in terms]
    return " + ".join(parts) + f" = {fmt(sum((t.counted for t in terms), Fraction(0)))}"


def defence_terms(data: "AmbonData", state: AmbonState, pieces: list[Piece]) -> list[Term]:
    """9.0: functional overstacking halves every CF; physical makes each 1 --
    each CF: an HQ has none (2.2.1, 11.1 "HQ units have no CF") and gets none."""
    level = movement.overstacking(data, state, pieces[0].where) if pieces else ""
    terms = []
    for p in pieces:
        printed = cf = data.spec(p).combat
        why: tuple[str, ...] = ()
        if level == "functional":
            cf *= data.value("functional_overstack_factor")
            why = (f"{p.id} halved (functional overstacking, 9.0)",) if printed else ()
        elif level == "physical" and not data.spec(p).hq:
            cf = Fraction(data.value("physical_overstack_cf"))
            why = (f"{p.id} counts {fmt(cf)} (physical overstacking, 9.0)",)
        terms.append(Term(p.id, printed, cf, why))
    return terms


def defence_strength(data: "AmbonData", state: AmbonState, pieces: list[Piece]) -> Fraction:
    """9.0: the defenders' CF (:func:`defence_terms`)."""
    return sum((t.counted for t in defence_terms(data, state, pieces)), Fraction(0))


def odds(
    data: "AmbonData",
    state: AmbonState,
    attack: Fraction,
    defenders: list[Piece],
    target: str,
    *,
    across: Sequence[str] = (),
    hq: dict[str, bool] | None = None,
) -> Odds:
    """The CRT column and DRMs of a combat against ``target`` (11.0-11.2).
    ``across`` lists the hexes the attackers attack from (empty for a landing)."""
    gmap, v = data.map, data.value
    defence = defence_strength(data, state, defenders)
    ratio = ratio_column(attack, defence)
    t = gmap.hex(target)
    shifts = []
    if gmap.terrain_at(t) == "mountain":
        shifts.append(("defender in a mountain hex (11.2)", int(v("crt_shift_mountain"))))
    sides = [gmap.hexside_features(gmap.hex(a), t) for a in across]
    if sides and all("river" in f for f in sides):
        shifts.append(("all attackers across a river (11.2)", int(v("crt_shift_river"))))
    if sides and gmap.places.get("Paso") == t and any("fortified" in f for f in sides):
        shifts.append(("across Paso's fortified hexside (11.2)", int(v("crt_shift_fortified"))))
    column, final = read_column(data, state, ratio, sum(s for _, s in shifts))
    drms = []
    if t in gmap.towns:
        drms.append(("attacking a town (11.2)", int(v("crt_drm_town"))))
    hq = hq or {}
    if hq.get("attacker"):
        drms.append(("attacker's HQ support (11.1)", int(v("crt_drm_hq_attacker"))))
    if hq.get("defender"):
        drms.append(("defender's HQ support (11.1)", int(v("crt_drm_hq_defender"))))
    special = [p for p in defenders if data.spec(p).defend_drm]
    if special:
        drms.append((f"{special[0].id} defends (11.0)", data.spec(special[0]).defend_drm))
    return Odds(attack, defence, column, final, tuple(shifts), tuple(drms))


def read_column(data: "AmbonData", state: AmbonState, ratio: tuple[int, int], steps: int) -> tuple[str, str]:
    """11.0, 11.2: the column a ratio reads after ``steps`` column shifts
    (negative: left), and the ratio as the combat's event shows it -- with
    the column it reads and why, when the table has no column for it.

    Odds beyond the table (above its last column, below its first) are read
    as the game's 11.2 ruling says: ``clamp-then-shift`` -- "once the column
    to use on the CRT is determined [...] defender terrain may shift the
    column": the ratio reads the table's last (first) column, which the
    shifts then move (9:1 -> the 6:1 column, mountain -1 -> 5:1);
    ``shift-then-clamp`` -- "shift the combat ratio one column left": the
    ratio shifts first, counting columns beyond the table as 7:1, 8:1 ...
    (1:4, 1:5 ... below), and the shifted ratio is read (9:1 -1 = 8:1 -> the
    6:1 column)."""
    crt = data.charts.table("crt")
    columns = list(crt.columns)
    name = column_name(ratio)
    base = clamp_column(data, ratio)
    top, bottom = (tuple(int(x) for x in c.split(":")) for c in (columns[-1], columns[0]))
    beyond = 0  # columns beyond the table's edge: > 0 above the last, < 0 below the first
    if ratio[1] == 1 and top[1] == 1 and ratio[0] > top[0]:
        beyond = ratio[0] - top[0]
    elif ratio[0] == 1 and bottom[0] == 1 and ratio[1] > bottom[1]:
        beyond = -(ratio[1] - bottom[1])
    edge = "the highest" if beyond > 0 else "the lowest"
    if not beyond:
        shown = name if name == base else f"{name} -> the {base} column"
        return shown, crt.shift(base, steps) if steps else base
    if not steps or state.ruling("11.2") == "clamp-then-shift":
        return f"{name} -> the {base} column ({edge})", crt.shift(base, steps) if steps else base
    at = (len(columns) - 1 + beyond if beyond > 0 else beyond) + steps  # the shifted ratio's place, off the table or on it
    if at >= len(columns):
        shifted = f"{top[0] + at - (len(columns) - 1)}:1"
    elif at < 0:
        shifted = f"1:{bottom[1] - at}"
    else:
        shifted = columns[at]
    final = columns[max(0, min(len(columns) - 1, at))]
    read = f", the {final} column ({edge})" if shifted != final else ""
    return f"{name} (beyond the table: 11.2 ruling shift-then-clamp, {name} {steps:+d} = {shifted}{read})", final


def fmt(value: Fraction) -> str:
    """A combat strength as the rulebook writes it: 9, 4.5."""
    return str(value.numerator) if value.denominator == 1 else f"{float(value):g}"


@dataclass(frozen=True)
class Roll:
    """A combat die read on the CRT: what 11.0 says to compute, and its text."""

    odds: Odds
    die: int
    total: int
    result: str

    @property
    def hits(self) -> tuple[int, int, str]:
        return parse_result(self.result)

    def describe(self) -> str:
        o = self.odds
        return (
            f"{fmt(o.attack)} against {fmt(o.defence)} = {o.column}"
            + "".join(f", {why} {s:+d}" for why, s in o.shifts)
            + (f" -> {o.final}" if o.shifts else "")
            + f"; roll {self.die}" + "".join(f" {v:+d} ({why})" for why, v in o.drms)
            + (f" = {self.total}" if o.drms else "")
            + f" -> {self.result}"
        )

    def data(self) -> dict:
        return {"attack": str(self.odds.attack), "defence": str(self.odds.defence), "column": self.odds.final,
                "roll": self.die, "drms": [list(d) for d in self.odds.drms], "total": self.total, "result": self.result}


def roll_on_crt(data: "AmbonData", odds: Odds, die: int) -> Roll:
    """11.0: the modified die read in the (shifted) column."""
    total = die + odds.drm
    return Roll(odds, die, total, lookup(data, odds.final, total))


def parse_result(text: str) -> tuple[int, int, str]:
    """``"1/1r"`` -> (attacker hits, defender hits, retreat ``""``/``r``/``R``)."""
    a, _, d = text.partition("/")
    retreat = d[-1] if d and d[-1] in "rR" else ""
    return int(a), int(d.rstrip("rR")), retreat


def lookup(data: "AmbonData", column: str, roll: int) -> str:
    return data.charts.table("crt").result(column, roll)


# --------------------------------------------------------------------------- applying results (11.3)


def one_hit_kills(data: "AmbonData", piece: Piece) -> bool:
    """11.3: "An HQ or a detachment is eliminated by a single hit"
    (counters.toml ``one_hit``; a concealed piece counts as a detachment)."""
    return data.spec(piece).one_hit


#: the named loss policy (module docstring); a standing ``losses`` may end with it
PROTECT_HQ = "protect-hq"
LOSS_POLICIES = (PROTECT_HQ,)

#: how each hit was decided, as its event says
BY_ANSWER, BY_STANDING, NO_CHOICE = "owner's choice", "standing instruction", "no choice"


def policy_order(data: "AmbonData", pieces: list[Piece]) -> list[Piece]:
    """:data:`PROTECT_HQ`: who takes the next hit -- a detachment first, then
    the strongest undisrupted unit, then the weakest disrupted one, an HQ last."""

    def key(p: Piece) -> tuple:
        spec = data.spec(p)
        if spec.hq:
            return (3, p.id)
        if one_hit_kills(data, p):
            return (0, p.id)
        if not p.disrupted:
            return (1, -spec.combat, p.id)
        return (2, spec.combat, p.id)

    return sorted(pieces, key=key)


def hit_order(data: "AmbonData", pieces: list[Piece], preference: str = "") -> list[Piece]:
    """Who takes the next hit under a standing loss order: the units it names
    (an undisrupted one before any disrupted one, then in the order named),
    then -- when it ends with :data:`PROTECT_HQ` -- the policy's order.  Units
    it does not name are left out unless it ends with the policy."""
    words = preference.split()
    listed = [w for w in words if w not in LOSS_POLICIES]
    named = sorted((p for p in pieces if p.id in listed), key=lambda p: (p.disrupted, listed.index(p.id)))
    if words and words[-1] == PROTECT_HQ:
        return named + [p for p in policy_order(data, pieces) if p.id not in listed]
    return named


def capacity(data: "AmbonData", pieces: list[Piece]) -> int:
    """11.3: the hits that eliminate every one of ``pieces``."""
    return sum(1 if p.disrupted or one_hit_kills(data, p) else 2 for p in pieces)


def has_choice(data: "AmbonData", pieces: list[Piece], hits: int) -> bool:
    """Whether the owner has anything to choose: hits to take, more than one
    unit to take them and not so many that every unit is eliminated anyway."""
    return hits > 0 and len(pieces) > 1 and hits < capacity(data, pieces)


def _hit(p: Piece, data: "AmbonData") -> Piece:
    if p.disrupted or one_hit_kills(data, p):
        return replace(p, where=ELIMINATED, disrupted=False)
    return replace(p, disrupted=True)


def choose_victims(data: "AmbonData", pieces: list[Piece], hits: int, *, answer: list[str] | None = None,
                   standing: str | None = None, where: str = "") -> list[tuple[str, str]] | None:
    """11.3: the unit each of ``hits`` goes to, with what decided it
    (:data:`BY_ANSWER`, :data:`BY_STANDING`, :data:`NO_CHOICE`) -- or None
    when the owner has not decided a hit that is theirs to decide.

    ``answer``: the owner's ``losses`` order, the units in the order they take
    the hits (a unit named twice takes two); only hits with a choice use it,
    and it must name exactly those.  Without one, ``standing`` (the owner's
    standing ``losses``) decides the hits it covers."""
    alive = {p.id: p for p in pieces if p.where != ELIMINATED}
    out: list[tuple[str, str]] = []
    names = list(answer) if answer is not None else None
    for n in range(hits):
        left = list(alive.values())
        if not left:
            break
        if not has_choice(data, left, hits - n):
            victim, why = policy_order(data, left)[0].id, NO_CHOICE
        elif names is not None:
            if not names:
                raise illegal("11.3", f"losses{where}: {hits} hits, and the order names the units of only "
                                      f"{len(out)}: name one unit for each hit that is yours to choose "
                                      f"(of {', '.join(sorted(alive))})")
            victim, why = names.pop(0), BY_ANSWER
            if victim not in alive:
                raise illegal("11.3", f"losses{where}: {victim!r} is not one of the units that can take this hit "
                                      f"({', '.join(sorted(alive))})")
        else:
            ranked = hit_order(data, left, standing or "")
            if not ranked:
                return None
            victim, why = ranked[0].id, BY_STANDING
        out.append((victim, why))
        hit = _hit(alive[victim], data)
        if hit.where == ELIMINATED:
            del alive[victim]
        else:
            alive[victim] = hit
    if names:
        raise illegal("11.3", f"losses{where}: {', '.join(names)} named for more hits than there are to choose "
                              f"({hits} in all)")
    return out


def take_hits(state: AmbonState, data: "AmbonData", victims: list[tuple[str, str]], who: str) -> tuple[AmbonState, list[Event], list[str]]:
    """11.3: each hit disrupts its unit, or eliminates a disrupted one (an HQ
    or a detachment dies to one hit); every event says what decided it."""
    events: list[Event] = []
    dead: list[str] = []
    for uid, why in victims:
        victim = state.piece(uid)
        hit = _hit(victim, data)
        state = state.with_piece(hit)
        done = "eliminated" if hit.where == ELIMINATED else "disrupted"
        if hit.where == ELIMINATED:
            dead.append(uid)
        marked = "" if why == NO_CHOICE else f" ({why})"  # a hit nobody could give elsewhere carries no mark
        events.append(Event("11.3", f"{who} hit: {uid} is {done}{marked}", {"unit": uid, "decided": why}))
    return state, events, dead


def extra_hit(data: "AmbonData", state: AmbonState, piece: Piece, who: str) -> tuple[AmbonState, list[Event]]:
    """11.3's extra hit a unit takes itself (a retreat into an EZOC, a retreat
    refused or impossible): nobody's choice.  Hits with a choice of units go
    through :func:`choose_victims`."""
    piece = state.piece(piece.id)
    if piece.where == ELIMINATED:
        return state, []
    state, events, _ = take_hits(state, data, [(piece.id, NO_CHOICE)], who)
    return state, events
