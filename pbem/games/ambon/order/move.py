"""``move``: one unit's move in its side's Movement Phase (7.0-9.0), along
the path the player gives or the cheapest legal path to a destination."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from pbem.engine.contract import Section
from pbem.engine.machine import Event, Ordered, illegal, replace
from pbem.engine.paths import format_mp, reachable, validate_path
from pbem.errors import InputError
from pbem.games.ambon import entering, hidden, movement, reveals
from pbem.games.ambon.order.base import Parts, PhaseOrder, hexlabel
from pbem.games.ambon.sequence import OWN_PHASES, Phase
from pbem.games.ambon.state import ALLIED, other

if TYPE_CHECKING:
    from pbem.games.ambon.data import AmbonData
    from pbem.games.ambon.state import AmbonState


class Move(PhaseOrder):
    """7.0: ``"3.A: 1410 1509"`` (the path, from the unit's hex) or
    ``"3.A to 1509"`` or ``"3.A to Laha"`` (the destination, a hex number
    or a place's name: the cheapest legal path is found when the order is
    applied, :func:`pbem.games.ambon.movement.path_to`)."""

    verb = "move"
    types = ("move",)
    forms = (('move = "3.A: 1410 1509"', "your Movement Phase: the path", "7.0"),
             ('move = "3.A to 1509"  /  move = "3.A to Laha"', "your Movement Phase: the cheapest legal path", "7.0"))
    rules = ("7.0", "7.1", "7.2", "8.0")
    typed_forms = ('move 3.A: 1410 1509 | move 3.A to 1509   7.0 (a path, or the cheapest one there)',)

    @staticmethod
    def along(unit: str, path: list[str]) -> dict[str, Any]:
        """The table of ``unit``'s move along ``path`` (hex labels, from its hex): ``move = "3.A: 1410 1509"``."""
        return {"move": f"{unit}: " + " ".join(path)}

    def line(self, words: list[str]) -> dict[str, Any]:
        """``move 3.A: 1410 1509`` or ``move 3.A 1410 1509`` (the path), ``move 3.A to 1509`` (the destination)."""
        if len(words) < 2 or ":" in " ".join(words) or words[1] == "to":
            return {"move": " ".join(words)}
        return {"move": f"{words[0]}: {' '.join(words[1:])}"}

    def parse(self, data: "AmbonData", side: str, order: Mapping[str, Any], where: str, parts: Parts) -> None:
        value = order["move"]
        text = value if isinstance(value, str) else ""
        unit, sep, path = text.partition(":")
        if sep and unit.strip() and path.split():
            parts.public.append({"type": "move", "unit": unit.strip(), "path": [hexlabel(data, h, where) for h in path.split()]})
            return
        unit, to, goal = text.partition(" to ")
        if not sep and to and unit.strip() and goal.strip() and not (goal.strip()[:1].isdigit() and len(goal.split()) > 1):
            goal = goal.strip()
            if not goal[:1].isdigit():  # a place's name: "3.A to Laha"
                try:
                    goal = data.map.label(data.map.place(goal))
                except InputError as err:
                    raise InputError(f"{where}: {err}", field="move") from err
            parts.public.append({"type": "move", "unit": unit.strip(), "to": hexlabel(data, goal, where)})
            return
        raise InputError(f"{where}: move must read 'UNIT: HEX HEX ...' (the path) or 'UNIT to HEX' (the destination), "
                         f"got {value!r}", field="move")

    def phase(self, side: str) -> Phase:
        return OWN_PHASES[side][0]

    def effect(self, data: "AmbonData", state: "AmbonState", action: Ordered) -> tuple["AmbonState", list[Event]]:
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

    def offer(self, game: Any, state: "AmbonState", side: str, out: Any, **context: Any) -> None:
        """7.0-9.0: the units that may move, their MP left and the hexes they reach."""
        data, gmap = game.data, game.map
        cost = movement.movement_cost(data, state, side)
        restricted = side == ALLIED and data.turn(state.turn).allied_move_restricted  # 7.1
        turn1 = movement.turn1_movers(data, state) if restricted else None
        rows, notes, held = [], [], []
        for p in sorted(state.on_map(side), key=lambda p: p.id):
            if p.penalty in ("no-move", "opposed"):
                held.append(f"{p.id} ({'6.3 opposed landing' if p.penalty == 'opposed' else '6.2 No Move'})")
                continue
            if turn1 is not None and p.id not in turn1:
                continue
            if p.moved and state.ruling("7.0") == "one-leg" and (p.id, state.turn) not in state.halted:
                held.append(f"{p.id} (moved: 7.0 ruling one-leg)")
                continue
            left = movement.allowance(data, p) - p.spent
            if left <= 0:
                continue
            here = gmap.hex(p.where)
            reach = {gmap.label(h): c for h, c in reachable(here, left, cost).items() if h != here}
            if not reach:
                continue
            rows.append({"unit": p.id, "where": p.where, "left_half_mp": left, "reachable": reach})
            shown = [f"{h} ({format_mp(c)})" for h, c in sorted(reach.items(), key=lambda kv: (-kv[1], kv[0]))[:8]]
            more = len(reach) - len(shown)
            notes.append(f"  {p.id} in {p.where}: {format_mp(left)} left; reaches {len(reach)} hexes, farthest "
                         + ", ".join(shown) + (f" and {more} more" if more > 0 else ""))
        if turn1 is not None:
            notes.append("7.1: on turn 1 only Allied units within 4 land hexes of a Japanese unit may move")
        if held:
            notes.append("may not move: " + ", ".join(held))
        out.choices["moves"] = rows
        if rows or held:
            notes.insert(0, 'move = "UNIT: HEX HEX ..." -- the path from the unit\'s hex, one hex per step (7.0);')
            notes.insert(1, '  or move = "UNIT to HEX" -- pbem takes the cheapest legal path there (ties: fewer hexes)')
            out.sections.append(Section("Movement (7.0-9.0): your units that may move", notes))
