"""A simple, deterministic Ambon player: the house side of solo games and
both sides of ``pbem demo``.

It plays legal, plausible orders, not good ones: the Japanese land every
First Wave box, march on the nearest key location they do not hold and
attack at 2:1 or better; the Allies hold their ground, counter-attack at 3:1
or better and answer every decision by standing instructions.  Every order
is tried on the position before it is kept, so the bot never sends an
illegal one.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from pbem.engine.machine import Ordered
from pbem.engine.paths import cheapest_path, reachable
from pbem.errors import PbemError
from pbem.games.ambon import bombardment, combat, movement
from pbem.games.ambon.state import (
    A_BOMBARDMENT,
    A_COMBAT,
    A_MOVEMENT,
    ALLIED,
    J_BOMBARDMENT,
    J_COMBAT,
    J_MOVEMENT,
    JAPANESE,
    LANDING,
    SETUP_ALLIED,
    SETUP_JAPANESE,
    AmbonState,
    other,
)

STANDING = {
    ALLIED: {"hq-support": "always", "surrender": "never", "retreat": "retreat"},
    JAPANESE: {"advance": "always"},
}
MIN_ODDS = {JAPANESE: Fraction(2), ALLIED: Fraction(3)}


class AmbonBot:
    def __init__(self, game: Any):
        self.game = game
        self.data = game.data

    # ------------------------------------------------------------------ entry

    def orders(self, state: AmbonState, side: str, seq: int) -> dict[str, Any]:
        """The orders document for ``side``'s message ``seq``."""
        doc: dict[str, Any] = {"order": []}
        if state.phase in (SETUP_ALLIED, SETUP_JAPANESE):
            doc["standing"] = dict(STANDING[side])
        if state.phase == SETUP_ALLIED and side == ALLIED:
            doc["order"].append({"setup": "historical"})
            return doc
        if state.phase == SETUP_JAPANESE and side == JAPANESE:
            doc["order"].append({"setup": "historical"})
            state = self._try_all(state, side, seq, doc)
            self._extend(state, side, seq, doc, self._landings)  # the land orders start turn 1
            return doc
        if state.phase == LANDING and side == JAPANESE and not state.landings:
            self._extend(state, side, seq, doc, self._landings)
            if doc["order"]:  # their results decide the moves: wait for them
                return doc
        if state.phasing != side or state.closing:
            return doc
        mine = (J_MOVEMENT, J_BOMBARDMENT, J_COMBAT) if side == JAPANESE else (A_MOVEMENT, A_BOMBARDMENT, A_COMBAT)
        if state.phase not in mine and not (side == JAPANESE and state.phase == LANDING):
            return doc
        state = self._try_all(state, side, seq, doc)
        if state.phase in (LANDING, mine[0]):
            state = self._extend(state, side, seq, doc, self._moves(state, side, seq))
        if state.phase in (LANDING,) + mine[:2]:
            state = self._extend(state, side, seq, doc, self._bombardments(state, side))
            # stop after bombarding: its result decides the attacks (next message)
            if any(o.get("bombard") for o in doc["order"]):
                return doc
        if state.phase in (LANDING,) + mine:
            self._extend(state, side, seq, doc, self._attacks(state, side))
        return doc

    # ------------------------------------------------------------------ trying orders

    def _try(self, state: AmbonState, side: str, seq: int, index: int, order: dict[str, Any]) -> AmbonState | None:
        try:
            parsed = self.game.parse_orders({"order": [order]}, side)
            for public in parsed.public:
                state, _ = self.game.apply(state, Ordered(side, seq, index, public))
            return state
        except PbemError:
            return None

    def _try_all(self, state: AmbonState, side: str, seq: int, doc: dict[str, Any]) -> AmbonState:
        for i, order in enumerate(doc["order"]):
            state = self._try(state, side, seq, i, order) or state
        return state

    def _extend(self, state: AmbonState, side: str, seq: int, doc: dict[str, Any], candidates) -> AmbonState:
        """Try each candidate order on the position left by the previous ones.
        A candidate may be a function of that position (decided when its turn comes)."""
        for order in candidates(state):
            if callable(order):
                order = order(state)
                if order is None:
                    continue
            new = self._try(state, side, seq, len(doc["order"]), order)
            if new is not None:
                doc["order"].append(order)
                state = new
        return state

    # ------------------------------------------------------------------ phases

    def _landings(self, state: AmbonState) -> list[dict[str, Any]]:
        return [{"land": lane.first_wave} for lane in self.data.lanes.values() if state.at(lane.first_wave)]

    def _objectives(self, state: AmbonState, side: str) -> list[Any]:
        gmap = self.data.map
        if side == JAPANESE:
            targets = [h for h in gmap.key_locations if state.controller(gmap.label(h)) != JAPANESE]
            return targets or [gmap.hex(p.where) for p in state.on_map(ALLIED)]
        return [gmap.hex(h) for h, _ in state.control] + [gmap.hex(b) for b in state.beachheads]

    def _moves(self, state: AmbonState, side: str, seq: int):
        """One move per unit toward the nearest objective, keeping stacks at 3;
        the Allies move only to retake what is near."""
        gmap = self.data.map

        def next_order(current: AmbonState, piece_id: str) -> dict[str, Any] | None:
            piece = current.piece(piece_id)
            spec = self.data.spec(piece)
            restricted = self.data.turn(current.turn).allied_move_restricted  # 7.1
            if not piece.on_map or (side == ALLIED and (spec.hq or restricted)):
                return None
            here = gmap.hex(piece.where)
            if side == ALLIED and here in gmap.key_locations:
                return None  # hold the key locations
            objectives = self._objectives(current, side)
            left = movement.allowance(self.data, piece) - piece.spent
            if not objectives or left <= 0:
                return None
            goal = min(objectives, key=lambda o: (here.distance(o), gmap.label(o)))
            if side == ALLIED and here.distance(goal) > 4:
                return None
            cost = movement.movement_cost(self.data, current, side)
            options = reachable(here, left, cost)
            limit = self.data.value("stacking_limit")  # 9.0
            full = lambda h: len([p for p in current.at(gmap.label(h)) if not self.data.spec(p).hq]) >= limit  # noqa: E731
            choices = [h for h in options if h == here or not full(h)]
            best = min(choices, key=lambda h: (h.distance(goal), options[h], gmap.label(h)))
            if best == here:
                return None
            path = cheapest_path(here, best, cost, allowance=left)
            if path is None:
                return None
            return {"move": f"{piece.id}: " + " ".join(gmap.label(h) for h in path.hexes)}

        def generate(current: AmbonState):
            for piece_id in sorted(p.id for p in current.on_map(side)):
                yield lambda st, pid=piece_id: next_order(st, pid)

        return generate

    def _bombardments(self, state: AmbonState, side: str):
        def generate(current: AmbonState):
            for unit in bombardment.artillery_units(self.data, current, side):
                for target in sorted(current.on_map(other(side)), key=lambda p: p.id):
                    try:
                        bombardment.check_bombardment(self.data, current, unit.id, target.id)
                    except PbemError:
                        continue
                    yield {"bombard": unit.id, "target": target.id}
                    break

        return lambda current: list(generate(current))

    def _attacks(self, state: AmbonState, side: str):
        gmap = self.data.map

        def generate(current: AmbonState):
            used: set[str] = set()
            for where in sorted({p.where for p in current.on_map(other(side))}):
                defenders = [p for p in current.at(where) if p.side != side]
                t = gmap.hex(where)
                attackers = [
                    p for p in current.on_map(side)
                    if p.id not in used and gmap.hex(p.where).is_adjacent(t) and not gmap.has("all_sea", gmap.hex(p.where), t)
                    and not self.data.spec(p).hq and not self.data.spec(p).artillery and p.penalty != "opposed"
                ]
                if not attackers or all(self.data.spec(d).hq for d in defenders):
                    if attackers and defenders:
                        used.add(attackers[0].id)
                        yield {"attack": where, "with": [attackers[0].id]}
                    continue
                attack = sum((self.data.spec(p).combat for p in attackers), Fraction(0))
                defence = combat.defence_strength(self.data, current, defenders)
                if defence and attack / defence >= MIN_ODDS[side]:
                    used.update(p.id for p in attackers)
                    yield {"attack": where, "with": [p.id for p in attackers]}

        return lambda current: list(generate(current))
