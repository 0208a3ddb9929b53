"""The new bot's evaluation: what a combat is worth before it is declared,
and how much each hex matters.

:func:`battle_odds` computes a combat's odds the way the engine will
(11.0-11.2 and 9.0: every halving -- an attacker in the EZOC of a defender
nobody attacks, functional overstacking of attacker or defender, physical
overstacking -- the column shifts of terrain, rivers and Paso's fortified
hexsides, the DRMs of towns, HQ support and special defenders), using the
engine's own functions on a trial position that holds every combat
planned, so the EZOC test sees the whole plan.

:func:`outcome` reads the CRT over the six faces of the die (the exact
distribution, no sampling): expected hits each way and the chance the
defenders must leave (an ``R``, or an ``r`` they will not refuse with a
hit).  :func:`attack_value` turns that into points the search compares.
Concealed defenders are what the attacker cannot know: the engine counts
them as detachments, and the value of hitting one is weighted by the
chance that it is real, from what the side has seen (:func:`dummy_chance`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Iterable

from pbem.engine.machine import replace
from pbem.errors import PbemError
from pbem.games.ambon import battle, combat, movement
from pbem.games.ambon.state import ALLIED, JAPANESE, AmbonState, Battle, other

#: the phases of each side's Combat Phase (the trial position is put there)
COMBAT_PHASE = {JAPANESE: "japanese-combat", ALLIED: "allied-combat"}


@dataclass(frozen=True)
class Outcome:
    attacker_hits: float
    defender_hits: float
    clear: float  # chance the defending hex is emptied (retreat or elimination)
    odds: Any


def trial(state: AmbonState, side: str, plan: Iterable[tuple[str, tuple[str, ...], str]]) -> AmbonState:
    """The position in ``side``'s Combat Phase with ``plan`` declared
    (target, attackers, hq)."""
    battles = tuple(Battle(target=t, side=side, attackers=tuple(a), attacker_hq=hq,
                           defenders=tuple(p.id for p in state.at(t) if p.side != side)) for t, a, hq in plan)
    return replace(state, phase=COMBAT_PHASE[side], closing=False, battles=battles)


def battle_odds(data: Any, state: AmbonState, side: str, target: str, attackers: tuple[str, ...], hq: str,
                plan: Iterable[tuple[str, tuple[str, ...], str]] = (), defender_hq: bool = False) -> Any:
    """11.0-11.2, 9.0: the combat's odds as the engine will compute them."""
    everything = [(t, a, h) for t, a, h in plan if t != target] + [(target, attackers, hq)]
    pos = trial(state, side, everything)
    b = next(x for x in pos.battles if x.target == target)
    attack, _ = battle.attack_strength(data, pos, b)
    defenders = [p for p in pos.at(target) if p.side != side]
    return combat.odds(data, pos, attack, defenders, target, across=[pos.piece(u).where for u in attackers],
                       hq={"attacker": bool(hq), "defender": defender_hq})


def outcome(data: Any, odds: Any, defenders: list[Any], refuse_r: float = 0.5) -> Outcome:
    """The CRT read over the six faces of the die (11.0, 11.3)."""
    if odds.defence == 0:  # 11.1: lone HQs are eliminated without a ratio
        return Outcome(0.0, float(len(defenders)), 1.0, odds)
    a_hits = d_hits = clear = 0.0
    capacity = combat.capacity(data, defenders) if defenders else 0
    for die in range(1, 7):
        a, d, r = combat.parse_result(combat.roll_on_crt(data, odds, die).result)
        a_hits += a / 6
        d_hits += d / 6
        if d >= capacity:
            clear += 1 / 6
        elif r == "R":
            clear += 1 / 6
        elif r == "r":
            clear += (1 - refuse_r) / 6
            d_hits += refuse_r / 6
    return Outcome(a_hits, d_hits, clear, odds)


def dummy_chance(data: Any, state: AmbonState, own: dict[str, str] | None = None) -> float:
    """The chance a concealed Allied piece still unrevealed is a dummy, from
    what the Japanese have seen: the dummies and detachments revealed so far
    (4.1: four of each)."""
    total = dict(data.identities)
    seen = {"dummy": 0, "detachment": 0}
    hidden = 0
    for p in state.pieces:
        if p.id in data.concealed_slots:
            if p.concealed and p.on_map:
                hidden += 1
            elif p.identity in seen:
                seen[p.identity] += 1
    left_dummies = max(0, total.get("dummy", 0) - seen["dummy"])
    left = left_dummies + max(0, total.get("detachment", 0) - seen["detachment"])
    return left_dummies / left if left else 0.0


def piece_value(data: Any, piece: Any, p_dummy: float = 0.0) -> float:
    """What eliminating ``piece`` is worth to its enemy (3.0's VP, plus the
    strength it takes off the board)."""
    if piece.side == ALLIED and piece.concealed:
        return (1 - p_dummy) * 0.6
    spec = data.spec(piece)
    if spec.dummy or piece.identity == "dummy":
        return 0.0
    if spec.kind == "detachment" or piece.identity == "detachment":
        return 0.6
    if piece.side == ALLIED:
        return 3.5 if spec.hq else 1.0 + float(spec.combat) / 6
    return 5.5 if spec.hq else 2.0 + float(spec.combat) / 6


def hit_cost(data: Any, pieces: list[Any], p_dummy: float = 0.0) -> float:
    """The mean cost of one hit on ``pieces``: a hit disrupts a fresh unit
    (half its value back when it recovers) or eliminates a disrupted or
    one-hit one (11.3)."""
    units = [p for p in pieces if not data.spec(p).hq] or pieces
    if not units:
        return 0.0
    cheapest = min(units, key=lambda p: piece_value(data, p, p_dummy) * (1.0 if p.disrupted or combat.one_hit_kills(data, p) else 0.45))
    factor = 1.0 if cheapest.disrupted or combat.one_hit_kills(data, cheapest) or cheapest.concealed else 0.45
    return piece_value(data, cheapest, p_dummy) * factor


def hex_value(data: Any, state: AmbonState, side: str, where: str) -> float:
    """What taking (or keeping) the hex ``where`` is worth to ``side``: a
    key location's VP for the turn (3.0), a beachhead (6.5)."""
    gmap = data.map
    h = gmap.hex(where)
    value = 0.0
    location = gmap.key_locations.get(h)
    if location is not None:
        turn = min(state.turn, len(location.vp))
        now = location.vp[turn - 1]
        at_end = location.vp[-1]
        # held at the end it counts as taken late (3.0): the swing of taking it now
        value += max(1.0, now - at_end + 2) if side == JAPANESE else max(1.0, float(location.vp[0]) / 2)
    if where in state.beachheads:
        value += 5.0 if side == ALLIED else 1.0
    return value


def attack_value(data: Any, state: AmbonState, side: str, target: str, attackers: tuple[str, ...], hq: str,
                 plan=(), p_dummy: float = 0.0, aggression: float = 1.0) -> tuple[float, Outcome] | None:
    """The expected worth of a combat to the attacker (None: not legal)."""
    defenders = [p for p in state.at(target) if p.side != side]
    if defenders and all(data.spec(p).hq for p in defenders):  # 11.1: attacked alone, eliminated
        gain = sum(piece_value(data, p) for p in defenders) + hex_value(data, state, side, target) + 0.3
        return aggression * gain, Outcome(0.0, float(len(defenders)), 1.0, None)
    try:
        odds = battle_odds(data, state, side, target, attackers, hq, plan)
    except (PbemError, StopIteration, ZeroDivisionError):
        return None
    defenders = [p for p in state.at(target) if p.side != side]
    mine = [state.piece(u) for u in attackers]
    out = outcome(data, odds, defenders)
    gain = out.defender_hits * hit_cost(data, defenders, p_dummy) + out.clear * (
        hex_value(data, state, side, target) + 0.3)
    loss = out.attacker_hits * hit_cost(data, mine)
    if hq:
        loss += 0.05  # the HQ is spent for this phase
    return aggression * gain - loss, out


def stack_count(data: Any, state: AmbonState, where: str) -> Fraction:
    """9.0: what the pieces in ``where`` count against the stacking limit."""
    return movement.stacking_count(data, list(state.at(where)))


def enemy_adjacent(data: Any, state: AmbonState, side: str, where: str) -> list[Any]:
    """The enemy pieces next to ``where`` (not across an all-sea hexside)."""
    gmap = data.map
    h = gmap.hex(where)
    return [p for p in state.on_map(other(side)) if gmap.hex(p.where).is_adjacent(h)
            and not gmap.has("all_sea", gmap.hex(p.where), h)]
