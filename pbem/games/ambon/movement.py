"""Movement (7.0-7.2), zones of control (8.0) and stacking (9.0): pure
functions over an :class:`~pbem.games.ambon.state.AmbonState`.

All MP arithmetic is in integer half-MP (road 0.5 MP = 1).
"""

from __future__ import annotations

import re
from collections import deque
from fractions import Fraction
from typing import TYPE_CHECKING

from pbem.engine.hexes import Hex
from pbem.engine.machine import illegal
from pbem.engine.paths import StepCost, cheapest_path, format_mp, half_mp
from pbem.games.ambon.state import ALLIED, JAPANESE, AmbonState, Piece, other

if TYPE_CHECKING:
    from pbem.games.ambon.data import AmbonData

SEA = "sea"


# --------------------------------------------------------------------------- 8.0 zones of control


def exerts_zoc(data: "AmbonData", piece: Piece) -> bool:
    """8.0: every combat unit exerts a ZOC, disrupted or not; HQs do not;
    concealed detachments and dummies do (until a dummy is revealed)."""
    return piece.on_map and data.spec(piece).zoc


def zoc_of(data: "AmbonData", state: AmbonState, side: str) -> frozenset[Hex]:
    """8.0: the hexes in the ZOC of ``side``'s units: the six neighbours of
    each, except sea hexes and hexes across an all-sea hexside."""
    gmap = data.map
    zone: set[Hex] = set()
    for piece in state.on_map(side):
        if exerts_zoc(data, piece):
            zone.update(data.zoc_reach(gmap.hex(piece.where)))
    return frozenset(zone)


def zoc_sources(data: "AmbonData", state: AmbonState, side: str, target: Hex) -> tuple[Piece, ...]:
    """The pieces of ``side`` whose ZOC covers ``target`` (8.0)."""
    gmap = data.map
    return tuple(
        p for p in state.on_map(side) if exerts_zoc(data, p) and target in data.zoc_reach(gmap.hex(p.where))
    )


# --------------------------------------------------------------------------- 7.0 movement costs


def mp_penalty(penalty: str) -> int | None:
    """6.2: the half-MP a landing marker ``-Nmp`` takes away (``"-2mp"`` ->
    4); None for any other marker.  The number is the landing table's
    (charts.toml ``[tables.unopposed_landing]``): the result names its marker."""
    match = re.fullmatch(r"-(\d+(?:\.5)?)mp", penalty)
    return half_mp(match.group(1)) if match else None


def allowance(data: "AmbonData", piece: Piece) -> int:
    """7.0 and 6.2: the movement allowance in half-MP this phase (0 under a
    No Move or opposed-landing marker, N MP less under a -N MP marker: the
    -2 MP of 6.2)."""
    if piece.penalty in ("no-move", "opposed"):
        return 0
    mp = data.spec(piece).move
    less = mp_penalty(piece.penalty)
    if less is not None:
        mp = max(0, mp - less)
    return mp


def units_able_to_move(data: "AmbonData", state: AmbonState, side: str) -> list[str]:
    """7.0: ``side``'s units that could still enter a neighbouring hex with
    the MP they have left this phase (no landing marker forbidding it)."""
    cost = movement_cost(data, state, side)
    found = []
    for piece in state.on_map(side):
        left = allowance(data, piece) - piece.spent
        if left <= 0:
            continue
        here = data.map.hex(piece.where)
        if any((step := cost(here, n)).halves is not None and step.halves <= left for n in here.neighbours()):
            found.append(piece.id)
    return sorted(found)


def occupied_by(state: AmbonState, side: str) -> dict[str, list[Piece]]:
    found: dict[str, list[Piece]] = {}
    for p in state.on_map(side):
        found.setdefault(p.where, []).append(p)
    return found


def movement_cost(data: "AmbonData", state: AmbonState, side: str):
    """The 7.0/8.0 step-cost callback for ``side``'s units: terrain, road
    (0.5 MP) and trail (1 MP) along their hexsides, +1 MP across a river
    (even on a road), +1 MP to enter an EZOC and +1 MP to leave one; sea,
    all-sea hexsides and enemy-occupied hexes cannot be entered."""
    # The callback depends only on the enemy's pieces on the map; while a side
    # moves, AmbonState.with_piece keeps that tuple, so one callback serves a
    # whole movement phase instead of one per order (linear, not quadratic).
    enemy = state.on_map(other(side))
    cached = data.movement_costs.get(side)
    if cached is not None and cached[0] is enemy:
        return cached[1]
    gmap, charts = data.map, data.charts
    move = charts.movement
    ezoc = zoc_of(data, state, other(side))
    enemies = {gmap.hex(h) for h in occupied_by(state, other(side))}

    def cost(a: Hex, b: Hex) -> StepCost:
        if not gmap.contains(b):
            return StepCost.blocked("off the map")
        terrain = gmap.terrain_at(b)
        base = charts.terrain_cost(terrain)
        if base is None:
            return StepCost.blocked(terrain)
        features = gmap.hexside_features(a, b)
        if "all_sea" in features:
            return StepCost.blocked("an all-sea hexside")
        if b in enemies:
            return StepCost.blocked("an enemy unit is there")
        if "road" in features:
            parts = [("road", move["road"])]
        elif "trail" in features:
            parts = [("trail", move["trail"])]
        else:
            parts = [(terrain, base)]
        if "river" in features:
            parts.append(("river", move["river"]))
        if a in ezoc:
            parts.append(("leave EZOC", move["leave_zoc"]))
        if b in ezoc:
            parts.append(("enter EZOC", move["enter_zoc"]))
        return StepCost.of(*parts)

    data.movement_costs[side] = (enemy, cost)
    return cost


# --------------------------------------------------------------------------- 7.1 turn-1 restriction


def land_distance_from(data: "AmbonData", starts: list[Hex], limit: int) -> dict[Hex, int]:
    """7.1: hexes within ``limit`` of ``starts`` counting land hexes only
    (paths over land, never across sea or an all-sea hexside)."""
    gmap = data.map
    dist = {h: 0 for h in starts}
    queue = deque(starts)
    while queue:
        h = queue.popleft()
        if dist[h] == limit:
            continue
        for n in h.neighbours():
            if n in dist or not gmap.contains(n) or gmap.terrain_at(n) == SEA or gmap.has("all_sea", h, n):
                continue
            dist[n] = dist[h] + 1
            queue.append(n)
    return dist


def turn1_movers(data: "AmbonData", state: AmbonState) -> frozenset[str]:
    """7.1: on turn 1 (turns.toml ``allied_move_restricted``) only Allied
    units within 4 land hexes (charts.toml ``turn1_allied_move_radius``) of a
    Japanese unit may move: those units."""
    japanese = [data.map.hex(p.where) for p in state.on_map(JAPANESE)]
    near = land_distance_from(data, japanese, data.value("turn1_allied_move_radius"))
    return frozenset(p.id for p in state.on_map(ALLIED) if data.map.hex(p.where) in near)


# --------------------------------------------------------------------------- 9.0 stacking


def stacking_count(data: "AmbonData", pieces: tuple[Piece, ...] | list[Piece]) -> Fraction:
    """9.0: units in a hex for stacking: HQs free, detachments 0.5."""
    return sum((data.spec(p).stacking for p in pieces), Fraction(0))


def overstacking(data: "AmbonData", state: AmbonState, where: str) -> str:
    """9.0: ``""`` (up to 3), ``"functional"`` (more than 3, up to 6) or
    ``"physical"`` (more than 6): charts.toml ``stacking_limit`` and
    ``physical_overstack``."""
    count = stacking_count(data, [p for p in state.at(where)])
    if count > data.value("physical_overstack"):
        return "physical"
    if count > data.value("stacking_limit"):
        return "functional"
    return ""


def overstacking_warnings(data: "AmbonData", before: AmbonState, after: AmbonState, side: str) -> list[str]:
    """9.0: the hexes holding ``side``'s units that a message would leave
    overstacked -- among those whose pieces it changes -- each with its
    units (HQs not counted, detachments and concealed pieces 0.5), their
    count and the penalty:
    ``9.0: 2007 would hold 4 units (Kure-1, Kure-2, Kure-3, Kure-MG; Kure-HQ
    not counted): functionally overstacked, every CF halved``.
    Concealed pieces count as the state counts them (:meth:`AmbonData.spec`)."""

    def by_hex(state: AmbonState) -> dict[str, tuple[str, ...]]:
        found: dict[str, list[str]] = {}
        for p in state.on_map():
            found.setdefault(p.where, []).append(p.id)
        return {where: tuple(sorted(ids)) for where, ids in found.items()}

    then, now = by_hex(before), by_hex(after)
    warnings = []
    for where in sorted(h for h, ids in now.items() if ids != then.get(h)):
        pieces = after.at(where)
        level = overstacking(data, after, where)
        if not level or not any(p.side == side for p in pieces):
            continue
        weights = [(p.id, data.spec(p).stacking) for p in pieces]
        counted = [pid if weight == 1 else f"{pid} as {_units(weight)}" for pid, weight in weights if weight]
        free = [pid for pid, weight in weights if not weight]
        count = stacking_count(data, pieces)
        units = ", ".join(counted) + (f"; {', '.join(free)} not counted" if free else "")
        if level == "functional":
            factor = Fraction(data.value("functional_overstack_factor"))
            what = "functionally overstacked, every CF " + ("halved" if factor == Fraction(1, 2) else f"times {factor}")
        else:
            what = f"physically overstacked, no unit may attack and every CF is {data.value('physical_overstack_cf')}"
        warnings.append(f"9.0: {where} would hold {_units(count)} unit{'' if count == 1 else 's'} ({units}): {what}")
    return warnings


def _units(count: Fraction) -> str:
    """A stacking count in words: ``4``, ``3.5``."""
    return str(int(count)) if count.denominator == 1 else f"{float(count):g}"


def path_to(data: "AmbonData", state: AmbonState, unit_id: str, goal: str, left: int) -> list[str]:
    """7.0: the cheapest legal path of ``unit_id`` from its hex to ``goal``
    with ``left`` half-MP, by the costs of :func:`movement_cost` (terrain,
    roads and trails, rivers, EZOC; sea, all-sea hexsides and enemy units
    barred).  Ties: fewer hexes entered, then the engine's fixed order of
    hexes (:func:`pbem.engine.paths.cheapest_path`), the same on every
    machine.  An unreachable goal is illegal, saying what the cheapest path
    costs and the MP the unit has left."""
    piece, gmap = state.piece(unit_id), data.map
    start, end = gmap.hex(piece.where), gmap.hex(goal)
    if start == end:
        raise illegal("7.0", f"{unit_id} is already in {goal}")
    cost = movement_cost(data, state, piece.side)
    found = cheapest_path(start, end, cost, allowance=left)
    if found is not None:
        return [gmap.label(h) for h in found.hexes]
    best = cheapest_path(start, end, cost)
    if best is None:
        raise illegal("7.0", f"{unit_id} in {piece.where} has no legal path to {goal} "
                             "(sea, all-sea hexsides and enemy units bar every way)")
    raise illegal("7.0", f"{unit_id} cannot reach {goal}: the cheapest path "
                         f"({' '.join(gmap.label(h) for h in best.hexes)}) costs {format_mp(best.cost)}, "
                         f"and {unit_id} has {format_mp(left)} left")
