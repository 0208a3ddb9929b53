"""What results do to the state: units arriving, losses and morale grades,
statuses, the Japanese breakoff and the victory conditions."""

from __future__ import annotations

import dataclasses
from typing import Any

from pbem.engine.machine import Event
from pbem.games.calumpit import tables as t
from pbem.games.calumpit.data import CalumpitData, UnitType
from pbem.games.calumpit.state import (
    AMERICAN,
    ELIMINATED,
    JAPANESE,
    RETREATING,
    WITHDRAWING,
    CalumpitState,
    Force,
    Unit,
)

replace = dataclasses.replace
STATUS_WORDS = {"retreat": "retreating", "rout": "routed", "charge": "charging", "banzai": "in a Banzai charge",
                "offboard": "off board"}


def new_unit(data: CalumpitData, ut: UnitType, uid: str, **extra: Any) -> Unit:
    return Unit(
        id=uid,
        side=ut.side,
        nationality=ut.nationality,
        kind=ut.kind,
        name=ut.name,
        figures=ut.figures,
        grade=data.tables["morale"]["start_grade"],
        ammo=data.ammo_for(ut),
        officer=ut.officer,
        type=ut.key,
        target=ut.target,
        **extra,
    )


def next_id(state: CalumpitState, prefix: str) -> tuple[CalumpitState, str]:
    n = state.counter(prefix) + 1
    while state.unit(f"{prefix}-{n}") is not None:
        n += 1
    return state.with_counter(prefix, n), f"{prefix}-{n}"


def arrive(data: CalumpitData, state: CalumpitState, ut: UnitType, **extra: Any) -> tuple[CalumpitState, Unit]:
    state, uid = next_id(state, ut.prefix)
    unit = new_unit(data, ut, uid, **extra)
    return state.with_unit(unit), unit


# --------------------------------------------------------------------------- losses and morale


def losses(data: CalumpitData, state: CalumpitState, uid: str, men: int, rule: str, *, weapons: int = 0,
           sergeants: int = 0) -> tuple[CalumpitState, list[Event], int]:
    """Men lost KIA or WIA (and squad weapons, sergeants): figures and MORALE
    GRADE fall; a unit with no figures left is eliminated.  Returns the men
    actually lost (never more than the unit had)."""
    unit = state.unit(uid)
    if unit is None or not unit.in_action:
        return state, [], 0
    men = min(men, unit.figures)
    drop = t.grade_loss(data.tables, men, weapons, sergeants)
    if not men and not drop:
        return state, [], 0
    unit = replace(unit, figures=unit.figures - men, grade=unit.grade - drop)
    events: list[Event] = []
    if unit.figures == 0:
        unit = replace(unit, status=ELIMINATED)
        events.append(Event(rule, f"{uid} is eliminated", {"unit": uid, "status": ELIMINATED}))
    state = state.with_unit(unit)
    if unit.status == ELIMINATED:
        state, more = breakoff_check(data, state)
        events += more
    return state, events, men


def set_status(data: CalumpitData, state: CalumpitState, uid: str, status: str, rule: str,
               why: str = "") -> tuple[CalumpitState, list[Event]]:
    unit = state.unit(uid)
    if unit is None or unit.status == status:
        return state, []
    state = state.with_unit(replace(unit, status=status))
    events = [Event(rule, f"{uid} is now {STATUS_WORDS.get(status, status)}" + (f" ({why})" if why else ""),
                    {"unit": uid, "status": status})]
    if status == ELIMINATED:
        state, more = breakoff_check(data, state)
        events += more
    return state, events


def morale_outcome(data: CalumpitData, state: CalumpitState, uid: str, result: str, rule: str) -> tuple[CalumpitState, list[Event]]:
    """A failed morale test's result becomes the unit's status."""
    return set_status(data, state, uid, result, rule, data.morale_result_text(result))


# --------------------------------------------------------------------------- JAPANESE ENTRANCE: breakoff


def force_units(state: CalumpitState, number: int) -> list[Unit]:
    return [u for u in state.units if u.force == number]


def breakoff_check(data: CalumpitData, state: CalumpitState) -> tuple[CalumpitState, list[Event]]:
    """"If more than half the attacking units are eliminated the entire force
    will breakoff the action and withdraw." """
    force = state.force
    if force is None:
        return state, []
    units = force_units(state, force.number)
    gone = sum(1 for u in units if u.status == ELIMINATED)
    b = data.attack["breakoff"]
    if not units or gone * b["denominator"] <= len(units) * b["numerator"]:
        return state, []
    forces = tuple(replace(f, broken_off=True) if f.number == force.number else f for f in state.forces)
    state = replace(state, forces=forces)
    leaving = [u.id for u in units if u.in_action]
    state = state.with_units(replace(u, status=WITHDRAWING) for u in units if u.in_action)
    text = (f"{gone} of the {len(units)} units of Japanese attacking force {force.number} are eliminated: "
            f"the force breaks off the action and withdraws" + (f" ({', '.join(leaving)})" if leaving else "")
            + "; the game goes on")
    return state, [Event("JAPANESE ENTRANCE", text, {"force": force.number, "eliminated": gone, "units": len(units), "withdrawing": leaving})]


def fieldable(data: CalumpitData, state: CalumpitState, unit_type: str) -> bool:
    """A JAT unit type can be fielded while fewer than its force-pool count are in action."""
    in_action = sum(1 for u in state.units if u.side == JAPANESE and u.type == unit_type and u.in_action)
    return in_action < data.force_pool[unit_type]


def join_force(state: CalumpitState, road: str) -> tuple[CalumpitState, Force]:
    force = state.force
    if force is None:
        force = Force(len(state.forces) + 1, road)
        state = replace(state, forces=state.forces + (force,))
    return state, force


# --------------------------------------------------------------------------- VICTORY CONDITIONS


def japanese_force_spent(state: CalumpitState) -> str:
    """"The American win if the Japanese force is destroyed or all
    retreating": "" or which.  Retreating is any way of going back: a failed
    morale's retreat or rout, a withdrawal (breakoff, Hearts Jack, Queen,
    King), a unit gone off board; the eliminated count with them."""
    attackers = [u for u in state.units if u.side == JAPANESE]
    if not attackers:
        return ""
    if all(u.status == ELIMINATED for u in attackers):
        return "destroyed"
    if all(u.status == ELIMINATED or u.status in RETREATING for u in attackers):
        return "all retreating"
    return ""


def decisive(state: CalumpitState) -> tuple[str, str]:
    """The victory conditions that end the game: (winner, why) or ("", "")."""
    if state.fact("japanese_at_bridge") == "yes":
        return JAPANESE, "the Japanese reached the bridge"
    north = state.fact("americans") in ("north", "both")
    if all(b.down for b in state.bridges) and north:
        return JAPANESE, "both bridges are destroyed with Americans on the North bank"
    road = state.bridge("road")
    if state.fact("americans") == "south" and road.down:
        return AMERICAN, f"the Americans escaped to the South bank and {road.name} is destroyed"
    return "", ""


def victory_check(state: CalumpitState) -> tuple[CalumpitState, list[Event]]:
    if state.over:
        return state, []
    winner, why = decisive(state)
    if not winner:
        return state, []
    verdict = f"{winner.capitalize()} victory: {why}"
    state = replace(state, over=True, winner=winner, verdict=verdict, tasks=(), pending=None)
    return state, [Event("VICTORY CONDITIONS", verdict + "; the game is over", {"winner": winner, "why": why})]


def verdict_at_end(state: CalumpitState) -> tuple[str, str]:
    """When a side ends the game: who the victory conditions favour now."""
    spent = japanese_force_spent(state)
    if spent:
        return AMERICAN, f"the Japanese force is {spent}"
    return "", "no victory condition holds"
