"""A simple, deterministic Ambon player: the house side of solo games and
both sides of ``pbem demo``.

It plays legal, plausible orders, not good ones: the Japanese land every
First Wave box, march on the nearest key location they do not hold and
attack at 2:1 or better; the Allies hold their ground, counter-attack at 3:1
or better and answer every decision by standing instructions.  Every order
is tried on the position before it is kept, so the bot never sends an
illegal one.

Given a seeded ``random.Random`` (``AmbonBot(game, rng)``) it makes random
legal choices instead, for the played-game property tests
(tests/ambon_played.py): a random setup (concealed identities, mines, the
Japanese boxes, the 14.2 note), random standing instructions (some left
unset, some changed during the game), postponed landings (6.0), open
decisions answered at random or left open (11.1 HQ support, 3.2
surrender, 11.4 advances), 14.1 defensive bombardments, moves and attacks
left out or aimed elsewhere, attacks at other odds and with HQ support,
voluntary reveals (13.1), and now and then an empty message.  Without one
it plays exactly as before: its orders are the demo's and the templates'
examples, but for the Allied identities (4.1), which it always draws itself.
"""

from __future__ import annotations

import random
import re
from fractions import Fraction
from typing import Any, Mapping

from pbem.engine.machine import DecisionDue, Ordered, Sealed
from pbem.engine.paths import cheapest_path, reachable
from pbem.errors import PbemError
from pbem.games.ambon import battle, bombardment, combat, landing, movement, orders
from pbem.games.ambon.order.attack import Attack
from pbem.games.ambon.order.bombard import Bombard
from pbem.games.ambon.order.move import Move
from pbem.games.ambon.setup import BATTALIONS, KURE, REGIMENTAL_ARTILLERY, REGIMENTAL_HQ
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

#: the bot's own choices (11.3 included: pbem chooses nothing for a player,
#: so a bot says how it takes its losses and where it retreats)
STANDING = {
    ALLIED: {"hq-support": "always", "surrender": "never", "retreat": "retreat", "losses": "protect-hq",
             "retreat-to": "toward-friends"},
    JAPANESE: {"advance": "always", "losses": "protect-hq", "retreat": "retreat", "retreat-to": "toward-friends"},
}
#: every routine question answered in advance (docs/architecture.md, "Who decides"): what a player
#: who leaves `pbem watch` the most to do sets (docs/watch.md's figure)
EVERY_STANDING = {
    ALLIED: {"hq-support": "always", "advance": "always", "surrender": "never", "retreat": "retreat",
             "losses": "protect-hq", "retreat-to": "toward-friends"},
    JAPANESE: {"hq-support": "always", "advance": "always", "retreat": "retreat", "losses": "protect-hq",
               "retreat-to": "toward-friends"},
}
MIN_ODDS = {JAPANESE: Fraction(2), ALLIED: Fraction(3)}

#: with a choice policy: the answers a standing instruction may be given
#: (None: left unset, so the decision is asked), per side (STANDING_KINDS in game.py)
RANDOM_STANDING = {
    ALLIED: {"hq-support": ("always", "never", None, None), "advance": ("always", "never", None),
             "retreat": ("retreat", "hit", None), "surrender": ("never", None),
             "losses": ("protect-hq", None), "retreat-to": ("toward-friends", None)},
    JAPANESE: {"hq-support": ("always", "never", None), "advance": ("always", "never", None),
               "retreat": ("retreat", "hit", None), "losses": ("protect-hq", None),
               "retreat-to": ("toward-friends", None)},
}


class AmbonBot:
    """``rng``: a seeded choice policy (module docstring); None plays the
    deterministic orders of the demo and the templates, with the standing
    instructions ``standing`` (side -> kind -> answer; :data:`STANDING`)."""

    def __init__(self, game: Any, rng: random.Random | None = None,
                 standing: Mapping[str, Mapping[str, str]] | None = None):
        self.game = game
        self.data = game.data
        self.rng = rng
        self.setup_rng = rng if rng is not None else random.Random()  # 4.1's identities: never the data's example
        self.identities: dict[str, str] = {}  # the concealed pieces' identities it drew (its own secret)
        self.standing = STANDING if standing is None else standing  # set in the setup (without rng)

    @property
    def _rng(self) -> random.Random:
        """The choice policy's generator: only its methods draw from it."""
        assert self.rng is not None, "only a bot with a choice policy makes random choices"
        return self.rng

    # ------------------------------------------------------------------ entry

    def orders(self, state: AmbonState, side: str, seq: int) -> dict[str, Any]:
        """The orders document for ``side``'s message ``seq``."""
        doc: dict[str, Any] = {"order": []}
        if self.rng is not None:
            if self.game.is_over(state):
                return doc  # the closing message carries no orders
            if state.phase not in (SETUP_ALLIED, SETUP_JAPANESE) and self.rng.random() < 0.04:
                return doc  # now and then an empty message: the rules must carry on without orders
        if state.phase in (SETUP_ALLIED, SETUP_JAPANESE):
            doc["standing"] = dict(self.standing[side]) if self.rng is None else self._random_standing(side)
        elif self.rng is not None and self.rng.random() < 0.05:
            doc["standing"] = self._changed_standing(side)
            # the message's standing instructions come before its orders (and may
            # settle an open choice at once): the orders are tried in the position they will meet
            for public in self.game.parse_orders({"standing": doc["standing"]}, side).public:
                state, _ = self.game.apply(state, Ordered(side, seq, 0, public))
        if state.phase == SETUP_ALLIED and side == ALLIED:
            doc["order"] += [self._historical_allied_setup()] if self.rng is None else self._random_allied_setup(state)
            return doc
        if state.phase == SETUP_JAPANESE and side == JAPANESE:
            doc["order"] += [{"setup": "historical"}] if self.rng is None else self._random_japanese_setup(state)
            state = self._try_all(state, side, seq, doc)
            self._extend(state, side, seq, doc, self._landings, skip=0.05)  # the land orders start turn 1
            return doc
        if self.rng is not None:
            state = self._extend(state, side, seq, doc, self._decisions(side))
            state = self._extend(state, side, seq, doc, self._defensive_bombardments(side))
        else:  # 11.3 choices its standing instructions did not make (a game it joined mid-way): its own policy
            state = self._extend(state, side, seq, doc, self._plain_losses(side))
        if self.rng is not None:
            state = self._extend(state, side, seq, doc, self._voluntary_reveals(side), skip=0.0)
        if state.phase == LANDING and side == JAPANESE and not state.landings:
            state = self._extend(state, side, seq, doc, self._landings, skip=0.05)
            if any("land" in o for o in doc["order"]):  # their results decide the moves: wait for them
                return doc
        if state.phasing != side or state.closing:
            return doc
        mine = (J_MOVEMENT, J_BOMBARDMENT, J_COMBAT) if side == JAPANESE else (A_MOVEMENT, A_BOMBARDMENT, A_COMBAT)
        if state.phase not in mine and not (side == JAPANESE and state.phase == LANDING):
            return doc
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

    def _historical_allied_setup(self) -> dict[str, Any]:
        """4.1: the scenario's setup with the identities the bot draws itself
        (its own ``random.Random``, seeded by the operating system: a demo's
        concealed pieces and mines are as secret as a player's), spelled out
        in the order as a player writes them (``identities``, ``mines``)."""
        drawn = orders.draw(self.data, {"order": [{"setup": "historical", "shuffle": True}]}, ALLIED, self.setup_rng)
        return drawn["order"][0]

    # ------------------------------------------------------------------ trying orders

    def _try(self, state: AmbonState, side: str, seq: int, index: int, order: dict[str, Any]) -> AmbonState | None:
        try:
            parsed = self.game.parse_orders({"order": [order]}, side)
            for slot in sorted(parsed.seals):  # as the message will: its commitments come first
                state, _ = self.game.apply(state, Sealed(side, slot, seq))
            for public in parsed.public:
                state, _ = self.game.apply(state, Ordered(side, seq, index, public))
            return state
        except PbemError:
            return None

    def _try_all(self, state: AmbonState, side: str, seq: int, doc: dict[str, Any]) -> AmbonState:
        for i, order in enumerate(doc["order"]):
            state = self._try(state, side, seq, i, order) or state
        return state

    def _extend(self, state: AmbonState, side: str, seq: int, doc: dict[str, Any], candidates,
                skip: float = 0.15) -> AmbonState:
        """Try each candidate order on the position left by the previous ones.
        A candidate may be a function of that position (decided when its turn comes).
        With a choice policy, each is left out with probability ``skip``; a
        candidate may be a list of orders, the first legal one kept."""
        for order in candidates(state):
            if callable(order):
                order = order(state)
                if order is None:
                    continue
            if self.rng is not None and self.rng.random() < skip:
                continue
            if isinstance(order, list):  # alternatives, best first
                for choice in order:
                    new = self._try(state, side, seq, len(doc["order"]), choice)
                    if new is not None:
                        doc["order"].append(choice)
                        state = new
                        break
                continue
            new = self._try(state, side, seq, len(doc["order"]), order)
            if new is not None:
                doc["order"].append(order)
                state = new
        return state

    # ------------------------------------------------------------------ phases

    def _landings(self, state: AmbonState) -> list[dict[str, Any]]:
        """6.0: a landing from every First Wave box holding units; with a
        choice policy some are postponed ("the Japanese player may always
        postpone a landing to the following turn")."""
        boxes = [lane.first_wave for lane in self.data.lanes.values() if state.at(lane.first_wave)]
        if self.rng is None:
            return [{"land": box} for box in boxes]
        return [{"postpone" if self.rng.random() < 0.2 else "land": box} for box in boxes]

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
            if side == ALLIED and here in gmap.key_locations and (self.rng is None or self.rng.random() < 0.8):
                return None  # hold the key locations
            objectives = self._objectives(current, side)
            left = movement.allowance(self.data, piece) - piece.spent
            if not objectives or left <= 0:
                return None
            goal = min(objectives, key=lambda o: (here.distance(o), gmap.label(o)))
            if self.rng is not None and self.rng.random() < 0.3:
                goal = self.rng.choice(sorted(objectives, key=lambda o: (here.distance(o), gmap.label(o)))[:3])
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
            return Move.along(piece.id, [gmap.label(h) for h in path.hexes])

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
                    yield Bombard.at(unit.id, target.id)
                    break

        return lambda current: list(generate(current))

    def _attacks(self, state: AmbonState, side: str):
        gmap = self.data.map
        least = MIN_ODDS[side] if self.rng is None else self.rng.choice((Fraction(1), Fraction(3, 2), Fraction(2), Fraction(3)))

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
                        yield Attack.on(where, [attackers[0].id])
                    continue
                if self.rng is not None and len(attackers) > 1 and self.rng.random() < 0.3:
                    attackers = self.rng.sample(attackers, self.rng.randint(1, len(attackers) - 1))
                attack = sum((self.data.spec(p).combat for p in attackers), Fraction(0))
                defence = combat.defence_strength(self.data, current, defenders)
                if defence and attack / defence >= least:
                    used.update(p.id for p in attackers)
                    order = Attack.on(where, [p.id for p in attackers])
                    if self.rng is None:
                        yield order
                        continue
                    hqs = [p.id for p in current.on_map(side) if self.data.spec(p).hq]
                    self.rng.shuffle(hqs)
                    yield [{**order, "hq": hq} for hq in hqs if self.rng.random() < 0.5] + [order]

        return lambda current: list(generate(current))

    # ------------------------------------------------------------------ a choice policy (rng)

    def _random_standing(self, side: str) -> dict[str, str]:
        """Standing instructions for the setup message: each kind set to a
        random answer or left unset (asked when it comes up)."""
        chosen = {kind: self._rng.choice(answers) for kind, answers in RANDOM_STANDING[side].items()}
        return {kind: answer for kind, answer in chosen.items() if answer is not None}

    def _changed_standing(self, side: str) -> dict[str, str]:
        """One standing instruction changed during the game (set ones cannot be unset)."""
        kind = self._rng.choice(sorted(RANDOM_STANDING[side]))
        return {kind: self._rng.choice([a for a in RANDOM_STANDING[side][kind] if a is not None])}

    def _random_allied_setup(self, state: AmbonState) -> list[dict[str, Any]]:
        """4.1 with the scenario's open placements, the concealed pieces on
        random beaches (at most 3 pieces a coastal hex, the remaining NEI
        companies counted) with random identities, and the mine markers in
        random boxes with random identities."""
        scen = self.data.scenario
        allied = scen["allied"]
        orders: list[dict[str, Any]] = [{"place": u, "hex": h} for u, h in allied["placements"].items()]
        for rule, table in scen.get("optional", {}).items():
            if state.option(rule):
                orders += [{"place": u, "hex": h} for u, h in table.get("placements", {}).items()]
        most = int(self.data.value("concealed_per_coastal_hex"))
        beaches = sorted({lane.target for lane in self.data.lanes.values()} | set(allied["concealed"].values()))
        room = {h: most - sum(1 for u, w in allied["placements"].items() if w == h and u in self.data.nei_companies
                              and self.data.map.hex(h) in self.data.map.coastal) for h in beaches}
        identities = [kind for kind, n in self.data.identities.items() for _ in range(n)]
        self._rng.shuffle(identities)
        for slot, identity in zip(self.data.concealed_slots, identities, strict=True):
            where = self._rng.choice([h for h in beaches if room[h] > 0])
            room[where] -= 1
            orders.append({"conceal": slot, "hex": where, "is": identity})
            self.identities[slot] = identity
        boxes = sorted(b for b, spec in self.data.map.boxes.items() if spec.kind == "mines")
        kinds = [kind for kind, n in self.data.mine_kinds.items() for _ in range(n)]
        self._rng.shuffle(kinds)
        orders += [{"mine": m, "box": self._rng.choice(boxes), "is": kind} for m, kind in zip(self.data.mine_slots, kinds, strict=True)]
        return orders

    def _random_japanese_setup(self, state: AmbonState) -> list[dict[str, Any]]:
        """4.2 (and 14.2): all of Kure 1 Special in one First Wave box, a
        battalion with the regimental HQ in another, the other two battalions
        in two Second Wave boxes -- or off-map, their beaches in the sealed
        note (14.2) -- and 228-Art with one of the battalions in a box."""
        lanes = sorted(self.data.lanes.values(), key=lambda lane: lane.id)
        kure, first = self._rng.sample(lanes, 2)
        battalions = sorted(BATTALIONS)
        self._rng.shuffle(battalions)
        lead, *rest = battalions
        boxes: dict[str, list[str]] = {kure.first_wave: list(KURE), first.first_wave: [REGIMENTAL_HQ, *BATTALIONS[lead]]}
        orders: list[dict[str, Any]] = []
        second = self._rng.sample(lanes, 2)
        if state.option("14.2"):
            orders.append({"second_wave": " ".join(f"{b}:{lane.id}" for b, lane in zip(rest, second, strict=True))})
        else:
            for b, lane in zip(rest, second, strict=True):
                boxes[lane.second_wave] = list(BATTALIONS[b])
        with_battalion = [first.first_wave] + ([] if state.option("14.2") else [lane.second_wave for lane in second])
        boxes[self._rng.choice(with_battalion)].append(REGIMENTAL_ARTILLERY)
        return [{"wave": box, "units": units} for box, units in boxes.items()] + orders

    def _decisions(self, side: str):
        """Open decisions of ``side`` (game.awaiting): answered at random, or
        left open (the rules then decline the support, fight on, stay put)."""

        def generate(current: AmbonState):
            for due in self.game.awaiting(current):
                if not isinstance(due, DecisionDue) or due.side != side or self._rng.random() < 0.25:
                    continue
                target = _decision_target(due)
                where = {"target": target} if target else {}
                if due.kind == "hq-support":  # an HQ more often than not, "none" now and then
                    hqs = [o for o in due.options if o != "none"]
                    yield {"support": self._rng.choice(hqs) if hqs and self._rng.random() < 0.6 else "none", **where}
                elif due.kind == "surrender":
                    yield {"surrender": "yes" if self._rng.random() < 0.3 else "no"}
                elif due.kind == "advance":
                    units = [u for u in due.options if self._rng.random() < 0.6]
                    yield {"advance": units, **where}
                elif due.kind == "losses":
                    yield from self._losses(current, target)
                elif due.kind == "retreat":  # 14.3: a forced retreat's hex
                    yield {"retreat": "retreat", "to": self._rng.choice(due.options), **where}

        return lambda current: list(generate(current))

    def _plain_losses(self, side: str):
        """11.3: the deterministic bot's answer to an open choice of ``side``:
        the protect-hq policy's units, retreating toward friends."""

        def generate(current: AmbonState):
            for due in self.game.awaiting(current):
                if isinstance(due, DecisionDue) and due.side == side and due.kind == "losses":
                    yield from self._answer_losses(current, _decision_target(due), None)
                elif isinstance(due, DecisionDue) and due.side == side and due.kind == "retreat" and due.options:
                    target = _decision_target(due)
                    yield {"retreat": "retreat", "to": due.options[0], **({"target": target} if target else {})}

        return lambda current: list(generate(current))

    def _losses(self, current: AmbonState, target: str):
        """11.3: a random answer (:meth:`_answer_losses` with the bot's rng)."""
        return self._answer_losses(current, target, self.rng)

    def _answer_losses(self, current: AmbonState, target: str, rng: random.Random | None):
        """11.3: a random answer to an open choice of losses and retreat: the
        units taking the hits in random order, a random answer to an r and
        random retreat hexes among those 11.3 allows (tried: one that does
        not settle the choice is dropped, and the choice asked again)."""
        fought = next((x for x in current.battles if x.target == target), None)
        if fought is not None:
            choices = battle.open_choices(self.data, current, fought)
            b = fought.fight
        else:
            ashore = next(x for x in current.landing_combats if x.fight and x.fight.target == target)
            choices = landing.open_choices(self.data, current, ashore)
            b = ashore.fight
        assert b is not None, "an open choice of losses belongs to a fight"
        units = list(choices["units"])
        if choices["hits"]:
            if rng is not None:
                rng.shuffle(units)
            pieces = [current.piece(u) for u in units]
            order = " ".join(units) if rng is not None else combat.PROTECT_HQ
            victims = combat.choose_victims(self.data, pieces, choices["hits"], standing=order)
            names = [u for u, why in victims or () if why != combat.NO_CHOICE]
            if names:
                yield {"losses": names, "target": target}
        if b.waiting != b.side and choices["retreat"]:
            hexes = sorted({h for found in choices["hexes"].values() for h in found})
            if rng is not None:
                rng.shuffle(hexes)
            else:  # each unit's first (the hex 11.3 prefers, toward friends)
                hexes = list(dict.fromkeys(found[0] for found in choices["hexes"].values() if found))
            answer = "hit" if choices["retreat"] == "r" and rng is not None and rng.random() < 0.3 else "retreat"
            yield {"retreat": answer, "target": target, **({"to": " ".join(hexes)} if hexes else {})}

    def _defensive_bombardments(self, side: str):
        """14.1: in the enemy's Combat Phase, once its combats are declared,
        the defender's artillery may bombard (tried; refused ones are dropped)."""

        def generate(current: AmbonState):
            if not current.option("14.1") or current.phase not in (J_COMBAT, A_COMBAT) \
                    or current.phasing != other(side) or self._rng.random() < 0.3:
                return
            for unit in bombardment.artillery_units(self.data, current, side):
                targets = sorted(current.on_map(other(side)), key=lambda p: p.id)
                self._rng.shuffle(targets)
                yield [Bombard.at(unit.id, t.id) for t in targets]

        return lambda current: list(generate(current))

    def _voluntary_reveals(self, side: str):
        """13.1: now and then the Allies reveal a concealed piece of their own accord."""

        def generate(current: AmbonState):
            if side != ALLIED or self._rng.random() > 0.03:
                return
            concealed = sorted(p.id for p in current.on_map(ALLIED) if p.concealed)
            if current.ruling("13.1") == "detachment":  # the ruling: only a detachment is revealed of one's accord
                concealed = [pid for pid in concealed if self.identities.get(pid) == "detachment"]
            if concealed:
                yield {"reveal": self._rng.choice(concealed)}

        return lambda current: list(generate(current))


def _decision_target(due: DecisionDue) -> str:
    """The hex a decision is about ("support the defence of 1609?"), or ""."""
    found = re.search(r"\b(\d{4})\b", due.prompt)
    return found.group(1) if found else ""
