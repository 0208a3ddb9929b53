"""Ambon's orders applied to the position: one handler per order, each
checking the order against the rules and returning the new state and its
events.  The phase an order belongs to comes first (:func:`phases.reach`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Mapping

from pbem.engine.machine import Event, Ordered, illegal, replace
from pbem.engine.paths import format_mp, validate_path
from pbem.games.ambon import battle, bombardment, entering, hidden, landing, movement, phases, reveals, setup
from pbem.games.ambon.sequence import OWN_PHASES, Phase, phasing_side
from pbem.games.ambon.state import (
    ALLIED,
    JAPANESE,
    OFF_MAP,
    AmbonState,
    Bombardment,
    CombatStage,
    other,
)

if TYPE_CHECKING:
    from pbem.games.ambon.data import AmbonData

Handler = Callable[["AmbonData", AmbonState, Ordered], "tuple[AmbonState, list[Event]]"]


def ordered(data: "AmbonData", state: AmbonState, action: Ordered) -> tuple[AmbonState, list[Event]]:
    """Apply one order of ``action.side``."""
    order = action.order
    kind = order.get("type")
    side = action.side
    if kind == "standing":
        instructions = {k: v for k, v in order.items() if k != "type"}
        said = ", ".join(f"{k} = {v}" for k, v in sorted(instructions.items()))
        return replace(state, standing=state.standing.updated(side, instructions)), [
            Event("standing", f"{side} standing instructions: {said}")
        ]
    if kind == "support":
        if side == ALLIED and landing.awaiting_support(data, state):
            return landing.decide_support(data, state, order["hq"], order.get("target"), action.seq)
        return battle.decide_support(data, state, side, order["hq"], order.get("target"), action.seq)
    if kind == "advance":
        return battle.advance(data, state, side, list(order["units"]), order.get("target"))
    if kind == "retreat" and any(state.piece(r.unit).side == side for r in state.pending_retreats):
        return _bombarded_retreat(data, state, side, order)
    if kind in ("losses", "retreat"):  # 11.3: an owner's answer to a landing combat's or a combat's results
        answer = landing.answer if landing.awaiting_choice(state, side) else battle.answer
        if kind == "losses":
            return answer(data, state, side, "losses", " ".join(order["units"]), order.get("target"))
        return answer(data, state, side, "retreat", order["answer"], order.get("target"), {"to": order.get("to", "")})
    if kind == "surrender":
        return _surrender(data, state, side, order["answer"])
    if kind == "bombard":
        state, events = _bombard(data, state, action)
        return replace(state, acted=True), events
    entry = HANDLERS.get(kind) if isinstance(kind, str) else None
    if entry is None or not isinstance(kind, str):  # (entry is None for every kind not a str)
        raise illegal("5.0", f"order {action.index + 1}: {kind!r} is not an Ambon order")
    phase_of, handler = entry
    phase = phase_of(side)
    if phasing_side(phase) != side:
        raise illegal("5.0", f"order {action.index + 1}: a {kind} order is the {phasing_side(phase)} player's")
    state, events = phases.reach(data, state, phase, side, action.index, kind)
    state, more = handler(data, state, action)
    return replace(state, acted=True), events + more


def _bombarded_retreat(data: "AmbonData", state: AmbonState, side: str, order: Mapping[str, Any]) -> tuple[AmbonState, list[Event]]:
    """14.3: the owner's hex for a unit a bombardment hit (``retreat =
    "retreat"  to = HEX``, ``target`` = the unit's hex when several wait)."""
    from pbem.games.ambon import rolls

    waiting = [state.piece(r.unit) for r in state.pending_retreats if state.piece(r.unit).side == side
               and (order.get("target") is None or state.piece(r.unit).where == order["target"])]
    if len(waiting) != 1:
        raise illegal("14.3", "say which unit's retreat this answers (target = its hex): retreats waiting from "
                              + ", ".join(state.piece(r.unit).where for r in state.pending_retreats))
    if order["answer"] != "retreat" or not order.get("to"):
        raise illegal("14.3", f"{waiting[0].id} must retreat (14.3: no extra hit can refuse it): "
                              f"retreat = \"retreat\"  to = HEX")
    state, events = rolls.forced_retreat(data, state, waiting[0], order["to"])
    return state, [Event("14.3", f"{side} chooses where {waiting[0].id} retreats from {waiting[0].where}: "
                                 f"{order['to']}")] + events


def _place(data: "AmbonData", state: AmbonState, action: Ordered) -> tuple[AmbonState, list[Event]]:
    unit, where = action.order["unit"], action.order["hex"]
    option = action.order.get("option")
    if option is not None and not state.option(str(option)):
        return state, []  # a placement for an optional rule not in use
    if unit in data.concealed_slots or not state.has_piece(unit) or state.piece(unit).side != ALLIED:
        raise illegal("4.1", f"{unit!r} is not an Allied unit in this game")
    if data.map.terrain_at(data.map.hex(where)) == movement.SEA:
        raise illegal("4.1", f"{unit} cannot set up in the sea hex {where}")
    return state.with_piece(replace(state.piece(unit), where=where)), []


def _conceal(data: "AmbonData", state: AmbonState, action: Ordered) -> tuple[AmbonState, list[Event]]:
    pid, where = action.order["piece"], action.order["hex"]
    if pid not in data.concealed_slots:
        raise illegal("4.1", f"{pid!r} is not a concealed piece ({setup.span(data.concealed_slots)})")
    if data.map.hex(where) not in data.map.coastal:
        raise illegal("4.1", f"concealed piece {pid} must be placed on a coastal hex, not {where}")
    return state.with_piece(replace(state.piece(pid), where=where)), []


def _mine(data: "AmbonData", state: AmbonState, action: Ordered) -> tuple[AmbonState, list[Event]]:
    marker, box = action.order["marker"], action.order["box"]
    if box not in data.map.boxes or data.map.boxes[box].kind != "mines":
        mine_boxes = [b for b, spec in data.map.boxes.items() if spec.kind == "mines"]
        raise illegal("4.1", f"mine marker {marker} must go in a mine box ({', '.join(mine_boxes)}), not {box!r}")
    return state.with_mine(replace(state.mine(marker), box=box)), []


def _wave(data: "AmbonData", state: AmbonState, action: Ordered) -> tuple[AmbonState, list[Event]]:
    box, units = action.order["box"], action.order["units"]
    spec = data.map.boxes.get(box)
    if spec is None or spec.kind not in ("first-wave", "second-wave"):
        raise illegal("4.2", f"{box!r} is not a First or Second Wave box")
    pieces = []
    for unit in units:
        if not state.has_piece(unit) or state.piece(unit).side != JAPANESE:
            raise illegal("4.2", f"{unit!r} is not a Japanese unit")
        pieces.append(replace(state.piece(unit), where=box))
    return state.with_pieces(pieces), []


def _second_wave(data: "AmbonData", state: AmbonState, action: Ordered) -> tuple[AmbonState, list[Event]]:
    """14.2: the two Second Wave battalions stay off-map; their beaches are in the sealed note."""
    if not state.option("14.2"):
        raise illegal("14.2", "the Second Wave is kept off-map only with optional rule 14.2")
    battalions = action.order.get("battalions", [])
    if len(battalions) != 2 or any(b not in setup.BATTALIONS for b in battalions):
        raise illegal("14.2", f"two battalions go in the Second Wave note, not {battalions!r}")
    pieces = [replace(state.piece(u), where=OFF_MAP) for b in battalions for u in setup.BATTALIONS[b]]
    return state.with_pieces(pieces), [
        Event("14.2", f"battalions {' and '.join(battalions)} are kept off-map; their beaches are in a sealed note")
    ]


def _bombard(data: "AmbonData", state: AmbonState, action: Ordered) -> tuple[AmbonState, list[Event]]:
    """10.0 (and 14.1 defensive bombardment in the enemy's Combat Phase)."""
    side, unit, target = action.side, action.order["unit"], action.order["target"]
    enemy_combat = OWN_PHASES[other(side)][2]
    defensive = state.phase == enemy_combat
    events: list[Event] = []
    if defensive:
        if not state.option("14.1"):
            raise illegal("10.0", f"{side} may bombard only in its own Bombardment Phase (14.1 is not in use)")
        if not state.battles or any(b.stage is CombatStage.DECLARED for b in state.battles):
            raise illegal("14.1", "defensive bombardment comes after all combats have been declared")
        if not battle.defensive_window(state, action.seq):
            raise illegal("14.1", "defensive bombardment is resolved before the combat ratio is calculated: "
                                  "it belongs in the message that answers the declarations")
    else:
        state, events = phases.reach(data, state, OWN_PHASES[side][1], side, action.index, "bombard")
    if any(b.unit == unit for b in state.bombardments):
        raise illegal("10.0", f"{unit} already bombards this turn")
    bombardment.check_bombardment(data, state, unit, target, defensive=defensive)
    state = replace(state, bombardments=state.bombardments + (Bombardment(unit, target, action.seq, defensive),))
    return state, events + [Event("14.1" if defensive else "10.0",
                                  f"{unit} {'defensively ' if defensive else ''}bombards {target}; one die is due")]


def _surrender(data: "AmbonData", state: AmbonState, side: str, answer: str) -> tuple[AmbonState, list[Event]]:
    """3.2: the Allied decision at the start of turn 8 (turns.toml: the
    turn whose phases begin with the surrender option)."""
    if side != ALLIED or not state.surrender_offered:
        raise illegal("3.2", "no surrender decision is open")
    state = replace(state, surrender_offered=False)
    if answer == "no":
        return state, [Event("3.2", "the Allies fight on")] + phases.landing_begins(data, state)
    state = replace(state, surrendered=True)
    return phases.game_over(data, state, [Event("3.2", f"the Allies surrender at the start of turn {state.turn}; the game ends")])


def _land(data: "AmbonData", state: AmbonState, action: Ordered) -> tuple[AmbonState, list[Event]]:
    return landing.start(data, state, action.order["box"], action.seq)


def _postpone(data: "AmbonData", state: AmbonState, action: Ordered) -> tuple[AmbonState, list[Event]]:
    return landing.postpone(data, state, action.order["box"])


def _move(data: "AmbonData", state: AmbonState, action: Ordered) -> tuple[AmbonState, list[Event]]:
    """7.0-7.2, 8.0: move one unit along a path the player gives, or the
    cheapest legal path to the destination the player gives
    (:func:`movement.path_to`).

    8.0: when a Japanese unit's ZOC reaches a concealed unit, "it is
    immediately revealed"; the Allies make the reveal in their next
    message, so the Japanese unit stops there, and no Japanese unit moves
    until the reveal is made (its identity decides what the ZOC costs).
    The Movement Phase then goes on (:func:`phases.progress`): "The Japanese
    unit may continue moving with its remaining MP".

    7.0: "A unit may spend MP until it has none left."  As the game's 7.0
    ruling reads it: ``legs``, a unit may be given several move orders in
    one Movement Phase while it has MP left; ``one-leg``, one move order a
    unit a phase -- a unit that has moved this turn may not move again,
    except one stopped by an 8.0 reveal, which goes on (8.0 Comment)."""
    unit_id, goal = action.order["unit"], action.order.get("to")
    side = action.side
    if not state.has_piece(unit_id):
        raise illegal("7.0", f"there is no unit {unit_id!r}{state.did_you_mean(unit_id)}")
    piece = state.piece(unit_id)
    if piece.side != side or not piece.on_map:
        raise illegal("7.0", f"{unit_id} is not a {side} unit on the map")
    waiting = hidden.awaited_by(data, state, side)
    if waiting:
        raise illegal("8.0", f"{unit_id} cannot move yet: {', '.join(waiting)} must be revealed first "
                             f"(the {other(side).capitalize()} player reveals in the next message; the Movement Phase then goes on)")
    halted = (unit_id, state.turn) in state.halted
    if piece.moved and not halted and state.ruling("7.0") == "one-leg":
        raise illegal("7.0", f"{unit_id} has moved this Movement Phase; this game's 7.0 ruling is one-leg: one "
                             f"move order a unit a phase (only a unit stopped by a reveal, 8.0, goes on)")
    state = replace(state, halted=tuple(h for h in state.halted if h[1] == state.turn and h[0] != unit_id))
    if piece.penalty in ("no-move", "opposed"):
        rule = "6.3" if piece.penalty == "opposed" else "6.2"
        raise illegal(rule, f"{unit_id} landed this turn under a {'No Move' if rule == '6.2' else 'opposed landing'} marker and may not move")
    if side == ALLIED and data.turn(state.turn).allied_move_restricted \
            and unit_id not in movement.turn1_movers(data, state):
        raise illegal("7.1", f"on turn {state.turn} only Allied units within "
                             f"{data.value('turn1_allied_move_radius')} land hexes of a Japanese unit may move; "
                             f"{unit_id} in {piece.where} is not")
    left = movement.allowance(data, piece) - piece.spent
    path = list(action.order["path"]) if goal is None else movement.path_to(data, state, unit_id, goal, left)
    if path[0] != piece.where:
        raise illegal("7.0", f"{unit_id}'s path must start in its hex {piece.where}, not {path[0]}")
    route = validate_path(
        unit_id, path, left, movement.movement_cost(data, state, side), grid=data.map.grid, rule="7.0"
    )
    events: list[Event] = []
    spent = piece.spent
    walked = [path[0]]
    for h, paid in zip(route.hexes[1:], route.steps, strict=True):
        where = data.map.label(h)
        spent += paid
        walked.append(where)
        state = state.with_piece(replace(state.piece(unit_id), where=where, spent=spent, moved=True))
        state, more = entering.entered(data, state, state.piece(unit_id), where)
        events += more
        state, more = reveals.settle(data, state)  # a reveal already published (a referee's) takes effect now
        events += more
        if not state.piece(unit_id).on_map:
            break  # 7.2: a dummy revealed on the way is removed; its move ends
        if hidden.awaited_by(data, state, side):
            break  # 8.0: the reveal comes first
    paid = spent - piece.spent
    moved = Event("7.0", f"{unit_id} moves {' '.join(walked)} for {format_mp(paid)}"
                  + (f" ({format_mp(left - paid)} left)" if left - paid else "")
                  + (f", the cheapest path to {goal}" if goal is not None else ""),
                  {"unit": unit_id, "path": walked, "cost_half_mp": paid})
    events.insert(0, moved)
    waiting = hidden.awaited_by(data, state, side)
    if waiting and state.piece(unit_id).on_map and len(walked) < len(path):
        rest = f"; it may move on with its remaining {format_mp(left - paid)}" if left - paid else ""
        state = replace(state, halted=state.halted + ((unit_id, state.turn),))
        events.append(Event("8.0", f"{unit_id} stops in {walked[-1]} until {', '.join(waiting)} "
                                   f"{'is' if len(waiting) == 1 else 'are'} revealed (8.0){rest}"))
    return state, events


def _attack(data: "AmbonData", state: AmbonState, action: Ordered) -> tuple[AmbonState, list[Event]]:
    return battle.declare(data, state, action.side, dict(action.order), action.seq)


def _fixed(phase: Phase) -> Callable[[str], Phase]:
    return lambda side: phase


#: order type -> (the phase it belongs to, for the side giving it; its handler)
HANDLERS: dict[str, tuple[Callable[[str], Phase], Handler]] = {
    "place": (_fixed(Phase.SETUP_ALLIED), _place),
    "conceal": (_fixed(Phase.SETUP_ALLIED), _conceal),
    "mine": (_fixed(Phase.SETUP_ALLIED), _mine),
    "wave": (_fixed(Phase.SETUP_JAPANESE), _wave),
    "second-wave": (_fixed(Phase.SETUP_JAPANESE), _second_wave),
    "land": (_fixed(Phase.LANDING), _land),
    "postpone": (_fixed(Phase.LANDING), _postpone),
    "move": (lambda side: OWN_PHASES[side][0], _move),
    "attack": (lambda side: OWN_PHASES[side][2], _attack),
}
