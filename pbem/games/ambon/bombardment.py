"""Bombardment (10.0), with the optional rules 14.1 (defensive bombardment)
and 14.3 (reinforced artillery): pure functions, dice given as arguments.

10.0: "In a single bombardment, one artillery-type unit targets one enemy
unit (note: it does not target the whole stack). Each artillery unit may
bombard only once per turn. [...] If the result is less than or equal to the
bombardment strength, the target unit is disrupted. Otherwise, there is no
effect. You may not bombard a unit that is already disrupted, a detachment,
a concealed dummy, an HQ, or a beachhead (but see optional rule 14.3)."

Rules decisions (the reasons are in each function's docstring):

- A disrupted artillery-type unit may bombard, with the bombardment strength
  of its disrupted (back) face.
- Every concealed piece is an illegal target without 14.3 (the Japanese
  cannot tell a concealed detachment from a concealed dummy, and 10.0 forbids
  both).  With 14.3 a concealed piece may be targeted; a hit means it must be
  revealed (a dummy is then removed; a detachment, now a revealed detachment
  hit by bombardment, must retreat).
- 14.1 defensive bombardment counts against the same once-per-turn allowance
  (``Piece.bombarded``): 14.1 says "apply the normal bombardment rules
  (10.0)", and 10.0 allows one bombardment per unit per turn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pbem.engine.machine import Event, illegal, replace
from pbem.errors import IllegalOrderError
from pbem.games.ambon import movement
from pbem.games.ambon.sequence import BOMBARDMENT_PHASES, COMBAT_PHASES, other, phasing_side
from pbem.games.ambon.state import AmbonState, Piece

if TYPE_CHECKING:
    from pbem.games.ambon.data import AmbonData



def artillery_units(data: "AmbonData", state: AmbonState, side: str) -> list[Piece]:
    """10.0: "Artillery, anti-aircraft guns, and anti-tank guns are
    artillery-type units." ``side``'s artillery-type units on the map."""
    return [p for p in state.on_map(side) if not p.concealed and data.spec(p).artillery]


def able_to_bombard(data: "AmbonData", state: AmbonState, side: str, *, defensive: bool = False) -> list[str]:
    """10.0: ``side``'s artillery-type units that may bombard some enemy unit
    now (``defensive``: by 14.1, in the enemy's Combat Phase)."""
    able = []
    for unit in artillery_units(data, state, side):
        for target in state.on_map(other(side)):
            try:
                check_bombardment(data, state, unit.id, target.id, defensive=defensive)
            except IllegalOrderError:
                continue
            able.append(unit.id)
            break
    return able


def is_detachment(data: "AmbonData", piece: Piece) -> bool:
    """A revealed detachment (a concealed piece is handled on its own)."""
    return not piece.concealed and (piece.identity == "detachment" or data.spec(piece).kind == "detachment")


def check_bombardment(
    data: "AmbonData", state: AmbonState, unit_id: str, target_id: str, *, defensive: bool = False
) -> None:
    """Raise an IllegalOrderError naming why ``unit_id`` may not bombard
    ``target_id`` now; return None when it may.

    10.0: "During your Bombardment Phase, you may bombard enemy units within
    range using your artillery-type units." 14.1: "After all combats have
    been declared during the enemy's Combat Phase, each of the defender's
    artillery-type units may bombard once." So an ordinary bombardment is
    made by the side whose Bombardment Phase it is; a ``defensive`` one (only
    with 14.1) by the side that is not phasing, during a Combat Phase.

    2.2.1: "Range is measured in hexes, not counting the firing unit's own hex
    but counting the target hex", that is, the hex distance is at most the
    range.

    Disrupted artillery: 10.0 does not forbid it, 11.0 lets disrupted units
    attack, 2.2.1 gives the back face "reduced" values, and 12.0 reads the
    "bombardment strength" of a disrupted unit. So a disrupted artillery-type
    unit may bombard with the strength on its back.

    6.3: "Japanese units that make an opposed landing may not move, bombard,
    or attack during that same turn."
    """
    # -- who fires, and when
    if not state.has_piece(unit_id):
        raise illegal("10.0", f"there is no piece {unit_id!r} to bombard with{state.did_you_mean(unit_id)}")
    unit = state.piece(unit_id)
    if unit.concealed or not data.spec(unit).artillery:
        raise illegal("10.0", f"{unit_id} is not an artillery-type unit and cannot bombard")
    if not unit.on_map:
        raise illegal("10.0", f"{unit_id} is not on the map ({unit.where}) and cannot bombard")
    if defensive:
        if not state.option("14.1"):
            raise illegal("14.1", f"{unit_id} cannot bombard defensively: optional rule 14.1 is not in use")
        if state.phase not in COMBAT_PHASES or phasing_side(state.phase) == unit.side:
            raise illegal("14.1", f"{unit_id} may bombard defensively only during the enemy's Combat Phase")
    elif state.phase not in BOMBARDMENT_PHASES or phasing_side(state.phase) != unit.side:
        raise illegal("10.0", f"{unit_id} may bombard only during its own side's Bombardment Phase, not in {state.phase}")
    if unit.bombarded:
        raise illegal("10.0", f"{unit_id} has already bombarded this turn (each artillery unit bombards once per turn)")
    if unit.penalty == "opposed":
        raise illegal("6.3", f"{unit_id} made an opposed landing this turn and may not bombard")
    strength = data.spec(unit).bombard
    if strength <= 0:
        raise illegal("10.0", f"{unit_id} has no bombardment strength{' while disrupted' if unit.disrupted else ''}")
    # -- what it fires at
    if not state.has_piece(target_id):
        if target_id in state.beachheads or target_id in state.lost_beachheads:
            raise illegal("10.0", f"the beachhead in {target_id} cannot be bombarded: a bombardment targets one enemy unit")
        raise illegal("10.0", f"there is no piece {target_id!r} to bombard{state.did_you_mean(target_id)}")
    target = state.piece(target_id)
    if target.side == unit.side:
        raise illegal("10.0", f"{unit_id} cannot bombard {target_id}: it is not an enemy unit")
    if not target.on_map:
        raise illegal("10.0", f"{target_id} is not on the map ({target.where}) and cannot be bombarded")
    reinforced = state.option("14.3")
    if target.concealed:
        if not reinforced:
            raise illegal("10.0", f"{target_id} is a concealed piece (a detachment or a concealed dummy) and cannot be bombarded")
    elif data.spec(target).hq:
        raise illegal("10.0", f"{target_id} is an HQ and cannot be bombarded")
    elif is_detachment(data, target):
        if not reinforced:
            raise illegal("10.0", f"{target_id} is a detachment and cannot be bombarded (only with optional rule 14.3)")
    elif target.disrupted and not reinforced:
        raise illegal("10.0", f"{target_id} is already disrupted and cannot be bombarded (only with optional rule 14.3)")
    gmap = data.map
    distance = gmap.hex(unit.where).distance(gmap.hex(target.where))
    reach = data.spec(unit).range
    if distance > reach:
        raise illegal(
            "10.0",
            f"{target_id} in {target.where} is {distance} hexes from {unit_id} in {unit.where}: out of its range {reach}",
        )


def bombardment_drms(data: "AmbonData", state: AmbonState, target: Piece) -> list[tuple[str, int]]:
    """10.0: "+1: the target unit is in a mountain hex; -1: the target unit is
    in a hex under functional overstacking; -2: the target unit is in a hex
    under physical overstacking." Values from charts.toml [values]."""
    drms: list[tuple[str, int]] = []
    if data.map.terrain_at(data.map.hex(target.where)) == "mountain":
        drms.append(("target in a mountain hex", int(data.value("bombard_drm_mountain"))))
    level = movement.overstacking(data, state, target.where)
    if level == "functional":
        drms.append(("target hex functionally overstacked", int(data.value("bombard_drm_functional_overstack"))))
    elif level == "physical":
        drms.append(("target hex physically overstacked", int(data.value("bombard_drm_physical_overstack"))))
    return drms


def resolve_bombardment(
    data: "AmbonData", state: AmbonState, unit_id: str, target_id: str, roll: int, *, defensive: bool = False
) -> tuple[AmbonState, list[Event], list[str]]:
    """10.0: "roll one die and compare the result to the bombarding unit's
    bombardment strength. If the result is less than or equal to the
    bombardment strength, the target unit is disrupted. Otherwise, there is
    no effect."

    14.3: "Disrupted units and revealed detachments may be targeted by
    bombardment. If the bombardment hits, those units must retreat. If a
    concealed unit is hit by bombardment, it must be revealed."

    Returns the new state (the firing unit marked ``bombarded``), the events,
    and the ids of the units that must retreat, which the caller moves (11.3's
    retreat restrictions apply; there is no option to take a hit instead).
    A concealed piece hit under 14.3 is NOT changed here: the event's data
    carries ``{"reveal": id}`` and the id is in the retreat list; the caller
    owes the reveal (rule "14.3"); a dummy is then removed, a detachment
    retreats.

    A bombardment declared on a target that another bombardment of the same
    batch has since made illegal (10.0: "You may not bombard a unit that is
    already disrupted", or eliminated, or revealed a dummy) has no effect:
    "Players may declare and resolve bombarding units and their targets in
    any order", and a player who declares several in one message, before
    any is resolved, takes that risk.
    """
    if not 1 <= roll <= 6:
        raise illegal("10.0", f"a bombardment roll is one d6, not {roll}")
    rule = "14.1" if defensive else "10.0"
    try:
        check_bombardment(data, state, unit_id, target_id, defensive=defensive)
    except IllegalOrderError as err:
        why = str(err).removeprefix(f"{err.rule}: ")
        state = state.with_piece(replace(state.piece(unit_id), bombarded=True))
        return state, [Event(rule, f"{unit_id}'s bombardment of {target_id}: roll {roll} -> no effect, the target "
                                   f"can no longer be bombarded ({why})",
                             {"unit": unit_id, "target": target_id, "roll": roll, "result": "no effect"})], []
    unit, target = state.piece(unit_id), state.piece(target_id)
    strength = data.spec(unit).bombard
    drms = bombardment_drms(data, state, target)
    modified = roll + sum(v for _, v in drms)
    shown = f"roll {roll}" + "".join(f", {v:+d} {why}" for why, v in drms) + (f" = {modified}" if drms else "")
    head = f"{unit_id} bombards {target_id} in {target.where}: {shown} (bombardment {strength}) -> "
    state = state.with_piece(replace(unit, bombarded=True))
    info = {"unit": unit_id, "target": target_id, "roll": roll, "modified": modified, "strength": strength,
            "drms": [list(d) for d in drms]}
    if modified > strength:
        return state, [Event(rule, head + "no effect", {**info, "result": "no effect"})], []
    if target.concealed:
        return state, [Event("14.3", head + f"hit: {target_id} must be revealed (a detachment must then retreat)",
                             {**info, "result": "reveal", "reveal": target_id})], [target_id]
    if target.disrupted or is_detachment(data, target):
        return state, [Event("14.3", head + f"hit: {target_id} must retreat", {**info, "result": "retreat"})], [target_id]
    state = state.with_piece(replace(target, disrupted=True))
    return state, [Event(rule, head + f"{target_id} is disrupted", {**info, "result": "disrupted"})], []
