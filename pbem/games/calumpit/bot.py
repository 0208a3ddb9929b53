"""A simple Calumpit Bridge player for ``pbem demo calumpit``: it plays
both the American defenders and the Japanese player (the umpire), giving
legal, plausible orders for whatever position the dice have made.

pbem cannot see the table, so the bot also stands in for the table: it says
how far the enemy is (closer every turn), what terrain the targets are in
and what is owed (the Joker's demolition, a card's draw, a card sniper's
save and morale check, the spotter aircraft).  Each turn:

* it answers what is owed by its side;
* it reports as a loss each enemy vehicle its tank guns knocked out (engine
  or fire) in its last message: pbem reads the hit effects, the table says
  what they leave of the tank (:func:`knocked_out`);
* every unit of its side that can fire does, at the enemy unit with the
  most figures (rifles, the HMG, mortars and artillery with a burst on the
  target, tank guns -- and the American 75s over open sights -- at enemy
  tanks); units going back are let go; the Americans call the fire
  missions on call; the Japanese infantry moves up;
* ``done``.

The game ends by its rules: the Japanese player reports that the Japanese
have reached the bridge (a Japanese victory, at once) when no American
rifle unit stands any more; the Americans end the game (``end``: the
victory conditions decide) as soon as the Japanese force is destroyed or
all retreating (an American victory), or once ``last_turn`` is over (the
victory conditions decide: no decision, if neither holds).

Every order is tried on the position before it is kept, as the engine will
check it when the message is applied, so the bot never sends an illegal
order.
"""

from __future__ import annotations

from typing import Any

from pbem.engine.machine import Ordered
from pbem.errors import PbemError
from pbem.games.calumpit import effects
from pbem.games.calumpit.state import AMERICAN, JAPANESE, RETREATING, CalumpitState, Unit

#: statuses in which a unit neither moves nor fires of its own will
SHAKEN = ("pinned", "retreat", "rout", "withdrawing")
#: kinds of unit that fire rifles
RIFLES = ("infantry", "hq", "engineer")
#: the terrain each side's units stand in (their saving throws)
COVER = {AMERICAN: "foxhole", JAPANESE: "jungle"}
#: message 0001: the Japanese advance guard, already in contact (as in
#: examples/calumpit/1-japanese-join.toml), then done for turn 1
JOIN: dict[str, list[dict[str, Any]]] = {"order": [
    {"type": "add", "unit": "J-COY", "name": "advance guard company", "side": JAPANESE,
     "nationality": "japanese", "kind": "infantry", "figures": 20},
    {"type": "done"},
]}


class CalumpitBot:
    def __init__(self, game: Any, last_turn: int = 8):
        self.game = game
        self.last_turn = last_turn

    # ------------------------------------------------------------------ entry

    def join_orders(self) -> dict[str, Any]:
        """Message 0001's orders (the Japanese player's)."""
        return {"order": [dict(o) for o in JOIN["order"]]}

    def play(self, match: Any) -> dict[str, Any]:
        """The orders for the next message of ``match`` (a
        :class:`pbem.match.session.Match` whose player is to write it)."""
        seq = len(match.transcript)
        return self.orders(match.replay.state, match.player.side, seq, knocked_out(match))

    def orders(self, state: CalumpitState, side: str, seq: int, knocked: tuple[str, ...] = ()) -> dict[str, Any]:
        """The orders document for ``side``'s message ``seq`` (empty for a
        closing message); ``knocked``: the enemy units that lost a vehicle
        to this side's tank guns since its last message."""
        if state.over or state.ending_by:
            return {}
        plan = _Plan(self.game, state, side, seq)
        for uid in knocked:
            plan.offer({"type": "loss", "unit": uid, "men": 1})
        if side == AMERICAN and (effects.japanese_force_spent(state) or state.turn > self.last_turn):
            plan.offer({"type": "report", "japanese_at_bridge": False})
            plan.offer({"type": "end"})
            return plan.document()
        if side == JAPANESE and not _standing(state, AMERICAN, RIFLES):
            plan.offer({"type": "report", "japanese_at_bridge": True})  # the victory conditions end it at once
            return plan.document()
        self._owed(plan, state, side)
        if side not in state.done:
            self._fight(plan, state, side)
            plan.offer({"type": "done"})
        return plan.document()

    # ------------------------------------------------------------------ what is owed

    def _owed(self, plan: "_Plan", state: CalumpitState, side: str) -> None:
        if side == AMERICAN and state.demolition == "owed":
            for bridge in state.bridges:
                if bridge.status != "destroyed" and plan.offer({"type": "demolition", "bridge": bridge.id}):
                    break
        for due in state.may_draw:
            if due.side == side:
                plan.offer({"type": "draw", "deck": due.deck})
        mine = _standing(state, side) or [u for u in state.units if u.side == side and u.in_action]
        for shot in state.sniped:
            hit = state.unit(shot.unit) if shot.unit else None
            if (hit.side if hit is not None else AMERICAN) != side:
                continue
            order = {"type": "sniped", "sniper": shot.sniper, "terrain": COVER[side]}
            if not plan.offer(order):
                for unit in mine:  # the unit the card names is gone: the shot hit another
                    if plan.offer({**order, "unit": unit.id}):
                        break
        if side == JAPANESE:
            for _ in state.spotters:
                plan.offer({"type": "spotter", "result": "attack"})

    # ------------------------------------------------------------------ moving and firing

    def _fight(self, plan: "_Plan", state: CalumpitState, side: str) -> None:
        enemy = side_of_other(side)
        # units going back are let go (the American victory wants them all retreating): steady ones first,
        # then the pinned
        targets = sorted([u for u in state.units if u.side == enemy and u.in_action and u.status not in RETREATING],
                         key=lambda u: (u.status in SHAKEN, u.kind == "tank", -u.figures, u.id))
        soft = [u for u in targets if u.kind != "tank"]
        armour = [u for u in targets if u.kind == "tank"]
        distance = max(12, 42 - 6 * state.turn)  # inches: the Japanese close in every turn
        terrain = COVER[enemy]
        shooters = _standing(state, side)
        if side == AMERICAN and soft:
            for mission in state.missions:
                if mission.calls_left > 0:
                    plan.offer({"type": "call", "mission": mission.id, "at": f"{soft[0].name} ({soft[0].id})"})
                    break
        if side == JAPANESE:
            mover = next((u for u in shooters if u.kind == "infantry"), None)
            if mover is not None:
                plan.offer({"type": "move", "kind": "infantry", "terrain": "jungle", "unit": mover.id})
        for n, unit in enumerate(shooters):
            target = soft[n % len(soft)] if soft else None
            at = {"target": target.id} if target is not None else {}
            if unit.kind in RIFLES and unit.figures > 0 and target is not None:
                plan.offer({"type": "fire", "weapon": "rifle", "range": distance, "figures": unit.figures,
                            "terrain": terrain, "unit": unit.id, **at})
            elif unit.kind == "hmg" and target is not None:
                plan.offer({"type": "fire", "weapon": "hmg", "range": distance, "targets": min(4, target.figures),
                            "terrain": terrain, "unit": unit.id, **at})
            elif unit.kind == "artillery" and side == AMERICAN and armour:  # the 75s over open sights
                self._tank_gun(plan, state, unit, armour, min(distance, 40))
            elif unit.kind in ("mortar", "artillery") and target is not None:
                self._bombard(plan, unit, target, terrain)
            elif unit.kind in ("tank", "gun") and (armour or side == JAPANESE):
                self._tank_gun(plan, state, unit, armour, min(distance, 40))

    def _bombard(self, plan: "_Plan", unit: Unit, target: Unit, terrain: str) -> None:
        weapon = "artillery" if unit.kind == "artillery" else "stokes" if unit.side == AMERICAN else "mortar"
        spec = self.game.data.tables["indirect_fire"]["weapons"][weapon]
        rounds = min(spec["rounds"] - unit.fired, spec["rounds"] if unit.ammo is None else unit.ammo)
        if rounds <= 0:
            return
        fired = plan.offer({"type": "indirect", "weapon": weapon, "rounds": rounds, "unit": unit.id,
                            "at": f"{target.name} ({target.id})"})
        if fired:  # the table counts the figures inside the bursts: a few of the target's
            plan.offer({"type": "burst", "weapon": weapon, "figures": min(3, target.figures), "terrain": terrain,
                        "unit": target.id})

    def _tank_gun(self, plan: "_Plan", state: CalumpitState, unit: Unit, armour: list[Unit], distance: int) -> None:
        if unit.side == AMERICAN:
            gun = "us-75mm" if unit.kind == "artillery" else "us-37mm"
            plan.offer({"type": "tankfire", "gun": gun, "range": distance, "unit": unit.id, "target": armour[0].id})
            return
        stuarts = [u for u in state.units if u.side == AMERICAN and u.kind == "tank" and u.in_action]
        if stuarts:
            gun = "ija-47mm" if unit.target == "japanese-medium" else "ija-37mm"
            plan.offer({"type": "tankfire", "gun": gun, "range": distance, "unit": unit.id,
                        "target": stuarts[0].id, "vehicle": "stuart"})


def knocked_out(match: Any) -> tuple[str, ...]:
    """The target of each tank-gun shot in the player's last message whose
    hit knocked out the engine or set the vehicle on fire: one vehicle lost.
    The shots' dice were keyed by that message and computed by the reply,
    so their events are listed under the reply, one per ``tankfire`` order,
    in the orders' order."""
    seq = len(match.transcript)
    if seq < 3 or match.transcript.side_of(seq - 2) != match.player.side:
        return ()
    shots = [o for o in match.transcript.messages[seq - 2].body.get("orders", []) if o.get("type") == "tankfire"]
    results = [e for s, e in match.replay.events if s == seq - 1 and e.rule == "TANK FIRE ACTIONS"]
    if len(shots) != len(results):
        return ()
    return tuple(o["target"] for o, e in zip(shots, results, strict=True)
                 if o.get("target") and e.data.get("hit") and (e.data.get("engine") or e.data.get("fire")))


def side_of_other(side: str) -> str:
    return JAPANESE if side == AMERICAN else AMERICAN


def _standing(state: CalumpitState, side: str, kinds: tuple[str, ...] = ()) -> list[Unit]:
    """``side``'s units in action and steady (of ``kinds``, if given)."""
    return [u for u in state.units if u.side == side and u.in_action and u.status not in SHAKEN
            and (not kinds or u.kind in kinds)]


class _Plan:
    """The orders of one message, each tried on the position as it is kept."""

    def __init__(self, game: Any, state: CalumpitState, side: str, seq: int):
        self.game, self.state, self.side, self.seq = game, state, side, seq
        self.kept: list[dict[str, Any]] = []

    def offer(self, order: dict[str, Any]) -> bool:
        try:
            (parsed,) = self.game.parse_orders({"order": [order]}, self.side).public
            state, _ = self.game.apply(self.state, Ordered(self.side, self.seq, len(self.kept), parsed))
        except PbemError:
            return False
        self.state = state
        self.kept.append(dict(parsed))
        return True

    def document(self) -> dict[str, Any]:
        return {"order": list(self.kept)}
