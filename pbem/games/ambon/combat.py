"""Combat (11.0-11.4) -- the core the landing combat of 6.3 uses.

Odds are exact fractions rounded in the defender's favour; the CRT, its
shifts and DRMs are data (``charts.toml``).  Results read ``A/D`` hits with an
optional ``r`` (retreat or take an extra hit) or ``R`` (must retreat).

Who chooses which unit takes a hit, and whether to retreat or take the extra
hit, and where to retreat, is the owner's decision (11.3), made after the
die.  Owners give it in advance as standing instructions (``losses = "3.C
3.A"``, ``retreat = "retreat" | "hit"``, ``retreat-to = "1708 1607"``); what
they leave open is answered by a DOCUMENTED
DEFAULT POLICY rather than by another email: a hit goes first to a unit one hit
eliminates and that is worth no VP (a detachment), then disrupts the
strongest undisrupted unit, then eliminates the weakest disrupted one; an
``r`` is answered by retreating; a retreat goes to the legal hex 11.3
prefers, ties broken toward friendly units, then by hex number.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import ceil, floor
from typing import TYPE_CHECKING

from pbem.engine.machine import Event, illegal, replace
from pbem.games.ambon import movement
from pbem.games.ambon.state import ELIMINATED, AmbonState, Piece

if TYPE_CHECKING:
    from pbem.games.ambon.data import AmbonData


@dataclass(frozen=True)
class Odds:
    attack: Fraction
    defence: Fraction
    column: str  # after rounding, before shifts
    final: str  # after shifts and clamping
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


def defence_strength(data: "AmbonData", state: AmbonState, pieces: list[Piece]) -> Fraction:
    """9.0: functional overstacking halves every CF; physical makes each 1 --
    each CF: an HQ has none (2.2.1, 11.1 "HQ units have no CF") and gets none."""
    level = movement.overstacking(data, state, pieces[0].where) if pieces else ""
    total = Fraction(0)
    for p in pieces:
        cf = data.spec(p).combat
        if level == "functional":
            cf *= data.value("functional_overstack_factor")
        elif level == "physical" and not data.spec(p).hq:
            cf = Fraction(data.value("physical_overstack_cf"))
        total += cf
    return total


def odds(
    data: "AmbonData",
    state: AmbonState,
    attack: Fraction,
    defenders: list[Piece],
    target: str,
    *,
    across: list[str] = (),
    hq: dict[str, bool] | None = None,
) -> Odds:
    """The CRT column and DRMs of a combat against ``target`` (11.0-11.2).
    ``across`` lists the hexes the attackers attack from (empty for a landing)."""
    gmap, v = data.map, data.value
    defence = defence_strength(data, state, defenders)
    ratio = ratio_column(attack, defence)
    column = clamp_column(data, ratio)
    t = gmap.hex(target)
    shifts = []
    if gmap.terrain_at(t) == "mountain":
        shifts.append(("defender in a mountain hex (11.2)", int(v("crt_shift_mountain"))))
    sides = [gmap.hexside_features(gmap.hex(a), t) for a in across]
    if sides and all("river" in f for f in sides):
        shifts.append(("all attackers across a river (11.2)", int(v("crt_shift_river"))))
    if sides and gmap.places.get("Paso") == t and any("fortified" in f for f in sides):
        shifts.append(("across Paso's fortified hexside (11.2)", int(v("crt_shift_fortified"))))
    final = data.charts.table("crt").shift(column, sum(s for _, s in shifts)) if shifts else column
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
    return Odds(attack, defence, column_name(ratio), final, tuple(shifts), tuple(drms))


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


def hit_order(data: "AmbonData", pieces: list[Piece], preference: str = "") -> list[Piece]:
    """Who takes the next hit: the owner's standing loss order first (the
    units it names, an undisrupted one before any disrupted one), then the
    default policy (module docstring)."""
    listed = preference.split()

    def key(p: Piece) -> tuple:
        if p.id in listed:
            return (-2 if not p.disrupted else -1, listed.index(p.id))
        spec = data.spec(p)
        if one_hit_kills(data, p) and not spec.hq:
            return (0, p.id)
        if not p.disrupted and not spec.hq:
            return (1, -spec.combat, p.id)
        return (2, spec.combat, p.id)

    return sorted(pieces, key=key)


def apply_hits(data: "AmbonData", state: AmbonState, pieces: list[Piece], hits: int, who: str) -> tuple[AmbonState, list[Event], list[str]]:
    """11.3: each hit disrupts a unit, or eliminates a disrupted one (an HQ or
    a detachment dies to one hit).  Returns the ids eliminated."""
    events: list[Event] = []
    dead: list[str] = []
    for _ in range(hits):
        alive = [state.piece(p.id) for p in pieces if state.piece(p.id).where != ELIMINATED]
        if not alive:
            break
        victim = hit_order(data, alive, state.standing.get(alive[0].side, "losses") or "")[0]
        if victim.disrupted or one_hit_kills(data, victim):
            state = state.with_piece(replace(victim, where=ELIMINATED, disrupted=False))
            dead.append(victim.id)
            events.append(Event("11.3", f"{who} hit: {victim.id} is eliminated", {"unit": victim.id}))
        else:
            state = state.with_piece(replace(victim, disrupted=True))
            events.append(Event("11.3", f"{who} hit: {victim.id} is disrupted", {"unit": victim.id}))
    return state, events, dead
