"""The new Ambon player, for either side: candidate orders
(:mod:`.candidates`), valued by an evaluation (:mod:`.evaluate`) and chosen
by a search (:mod:`.search`).  It reuses the simple bot's machinery for
trying orders on the position (:class:`~.baseline.AmbonBot`: every order is
tried before it is kept, so it never sends an illegal one) and replaces its
choices.

Its inputs are the side's view only: the position (no sealed value of either
side before its reveal), the side's own sealed values and a seed.
"""

from __future__ import annotations

import hashlib
import random
from fractions import Fraction
from typing import Any, Mapping

from pbem.engine.machine import DecisionDue, Ordered, replace
from pbem.engine.paths import cheapest_path, reachable
from pbem.games.ambon import bombardment, movement, orders, victory
from pbem.games.ambon.bot import evaluate, search
from pbem.games.ambon.bot.baseline import AmbonBot, _decision_target
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

#: standing instructions: the routine answers (11.1 support as defender,
#: 11.3 losses and retreats); 11.4 advances and 3.2 surrender are left
#: unset, so the rules ask and the bot decides each one
STANDING = {
    JAPANESE: {"hq-support": "always", "losses": "protect-hq", "retreat": "retreat", "retreat-to": "toward-friends"},
    ALLIED: {"hq-support": "always", "losses": "protect-hq", "retreat": "retreat", "retreat-to": "toward-friends"},
}

#: 4.2 landing plans (Kure 1 Special's lane, the first battalion's lane with
#: the regimental HQ and the artillery, the two Second Wave lanes) and their
#: weights; the seed picks one, and which battalion goes where.  Measured
#: against the baseline and a passive Allied player, the bay landings near
#: Laha and Ambon (mines and all) beat the open-sea beaches, which are far
#: from the key locations.
PLANS = (
    (("laha", "ambon", ("batu-song", "hitu-lama")), 4),
    (("laha", "batu-song", ("ambon", "hitu-lama")), 1),
    (("laha", "ambon", ("hitu-lama", "batu-song")), 2),
)

THRESHOLD = {JAPANESE: 0.0, ALLIED: 0.1}
AGGRESSION = {JAPANESE: 1.15, ALLIED: 1.0}


class Player(AmbonBot):
    """``side``'s player, seeded by ``seed``, thinking at ``level`` (1-3)."""

    def __init__(self, game: Any, side: str, *, seed: bytes, level: int = 2):
        super().__init__(game, None, STANDING)
        self.side, self.level = side, level
        self.seed = bytes(seed)
        self.setup_rng = random.Random(hashlib.sha256(b"pbem ambon bot setup\x00" + self.seed).digest())
        self.own: dict[str, str] = {}

    # ------------------------------------------------------------------ entry

    def orders(self, state: AmbonState, side: str | None = None, seq: int = 0,
               own: Mapping[str, str] | None = None) -> dict[str, Any]:
        side = side or self.side
        self.own = dict(own or {})
        doc: dict[str, Any] = {"order": []}
        if self.game.is_over(state):
            return doc  # the closing message carries no orders
        if state.phase in (SETUP_ALLIED, SETUP_JAPANESE):
            doc["standing"] = dict(STANDING[side])
            for public in self.game.parse_orders({"standing": doc["standing"]}, side).public:
                state, _ = self.game.apply(state, Ordered(side, seq, 0, public))
        if state.phase == SETUP_ALLIED and side == ALLIED:
            doc["order"] += [self._allied_setup()]
            return doc
        if state.phase == SETUP_JAPANESE and side == JAPANESE:
            doc["order"] += self._japanese_setup(state)
            state = self._try_all(state, side, seq, doc)
            self._extend(state, side, seq, doc, self._landings)
            return doc
        state = self._extend(state, side, seq, doc, self._answers(side))
        state = self._extend(state, side, seq, doc, self._defensive(side))
        if state.phase == LANDING and side == JAPANESE and not state.landings:
            state = self._extend(state, side, seq, doc, self._landings)
            if any("land" in o for o in doc["order"]):
                return doc  # their results decide the moves
        if state.phasing != side or state.closing:
            return doc
        mine = (J_MOVEMENT, J_BOMBARDMENT, J_COMBAT) if side == JAPANESE else (A_MOVEMENT, A_BOMBARDMENT, A_COMBAT)
        if state.phase not in mine and not (side == JAPANESE and state.phase == LANDING):
            return doc
        if state.phase in (LANDING, mine[0]):
            state = self._extend(state, side, seq, doc, self._moves(state, side, seq))
        if state.phase in (LANDING,) + mine[:2]:
            before = len(doc["order"])
            state = self._extend(state, side, seq, doc, self._bombard(side))
            if len(doc["order"]) > before:
                return doc  # 10.0: the bombardments' results decide the attacks (next message)
        if state.phase in (LANDING,) + mine:
            self._extend(state, side, seq, doc, self._attack(side))
        return doc

    # ------------------------------------------------------------------ setup (4.1, 4.2, 14.2)

    def _allied_setup(self) -> dict[str, Any]:
        """4.1: the scenario's hexes; the concealed pieces' and the mines'
        identities drawn from the bot's seed."""
        drawn = orders.draw(self.data, {"order": [{"setup": "historical", "shuffle": True}]}, ALLIED, self.setup_rng)
        return drawn["order"][0]

    def _japanese_setup(self, state: AmbonState) -> list[dict[str, Any]]:
        """4.2 (and 14.2): one of :data:`PLANS`, chosen by the seed, the
        battalions' order shuffled by it."""
        rng = self.setup_rng
        kure, first, second = rng.choices([p for p, _ in PLANS], weights=[w for _, w in PLANS])[0]
        lanes = self.data.lanes
        battalions = sorted(BATTALIONS)
        rng.shuffle(battalions)
        lead, *rest = battalions
        boxes: dict[str, list[str]] = {lanes[kure].first_wave: list(KURE),
                                       lanes[first].first_wave: [REGIMENTAL_HQ, *BATTALIONS[lead], REGIMENTAL_ARTILLERY]}
        out: list[dict[str, Any]] = []
        if state.option("14.2"):
            out.append({"second_wave": " ".join(f"{b}:{lane}" for b, lane in zip(rest, second, strict=True))})
        else:
            for b, lane in zip(rest, second, strict=True):
                boxes[lanes[lane].second_wave] = list(BATTALIONS[b])
        return [{"wave": box, "units": units} for box, units in boxes.items()] + out

    def _landings(self, state: AmbonState) -> list[dict[str, Any]]:
        """6.0, 6.1: land from every First Wave box, but postpone a landing
        into a bay whose mine box holds two or more mines known to be real
        (revealed, 6.4) while the +1 of turn 4 is still to come."""
        found = []
        for lane in self.data.lanes.values():
            if not state.at(lane.first_wave):
                continue
            known_real = sum(1 for m in state.mines if m.box == lane.mine_box and m.status == "real") if lane.mine_box else 0
            found.append({"postpone" if known_real >= 2 and state.turn < 3 else "land": lane.first_wave})
        return found

    # ------------------------------------------------------------------ decisions (11.1, 11.3, 11.4, 3.2)

    def _answers(self, side: str):
        def generate(current: AmbonState):
            for due in self.game.awaiting(current):
                if not isinstance(due, DecisionDue) or due.side != side:
                    continue
                target = _decision_target(due)
                where = {"target": target} if target else {}
                if due.kind == "hq-support":
                    hqs = [o for o in due.options if o != "none"]
                    yield {"support": hqs[0] if hqs else "none", **where}
                elif due.kind == "surrender":
                    yield {"surrender": "yes" if self._surrender_pays(current) else "no"}
                elif due.kind == "advance":
                    yield {"advance": self._advancing(current, side, target, list(due.options)), **where}
                elif due.kind == "losses":
                    yield from self._answer_losses(current, target, None)
                elif due.kind == "retreat" and due.options:
                    yield {"retreat": "retreat", "to": due.options[0], **where}

        return lambda current: list(generate(current))

    def _surrender_pays(self, state: AmbonState) -> bool:
        """3.2: surrender when the VP it gives now are fewer than the VP the
        position is heading for: today's total with every key location the
        Allies hold still held at the end, less what the Japanese are likely
        to take from here (each threatened one counts as lost)."""
        now = victory.victory_points(self.data, replace(state, surrendered=True))[0]
        later = victory.victory_points(self.data, state)[0]
        threatened = sum(1 for h in self.data.map.key_locations
                         if state.controller(self.data.map.label(h)) != JAPANESE
                         and any(self.data.map.hex(p.where).distance(h) <= 2 for p in state.on_map(JAPANESE)))
        return now < later + 2 * threatened - 3

    def _advancing(self, state: AmbonState, side: str, target: str, units: list[str]) -> list[str]:
        """11.4: advance up to the stacking limit (9.0: never into
        overstacking), the Allies only to retake a key location or a
        beachhead; never leaving an HQ alone next to an enemy unit."""
        if not target:
            return []
        gmap = self.data.map
        limit = self.data.value("stacking_limit")
        valuable = gmap.hex(target) in gmap.key_locations or target in state.beachheads
        if side == ALLIED and not valuable:
            return []
        chosen: list[str] = []
        count = evaluate.stack_count(self.data, state, target)
        for uid in sorted(units, key=lambda u: (state.piece(u).disrupted, u)):
            p = state.piece(uid)
            if self.data.spec(p).hq or self.data.spec(p).artillery:
                continue
            share = movement.stacking_count(self.data, [p])
            if count + share > limit:
                continue
            if self._last_guard(state, p, chosen):
                continue
            chosen.append(uid)
            count += share
            if side == ALLIED and len(chosen) >= 1:
                break
        return chosen

    def _last_guard(self, state: AmbonState, piece: Any, leaving: list[str]) -> bool:
        """Would ``piece`` leaving its hex leave an HQ there alone next to an
        enemy unit (11.1: attacked alone, it is eliminated), or a beachhead
        empty with an Allied unit near (6.5: one entering it, by a move or
        a retreat, captures it)?"""
        here = [p for p in state.at(piece.where) if p.side == piece.side]
        guards = [p for p in here if not self.data.spec(p).hq and p.id != piece.id and p.id not in leaving]
        if guards:
            return False
        if any(self.data.spec(p).hq for p in here) and evaluate.enemy_adjacent(self.data, state, piece.side, piece.where):
            return True
        if piece.side == JAPANESE and piece.where in state.beachheads:
            gmap = self.data.map
            h = gmap.hex(piece.where)
            return any(gmap.hex(p.where).distance(h) <= 3 for p in state.on_map(ALLIED) if not self.data.spec(p).hq)
        return False

    # ------------------------------------------------------------------ movement (7.0-9.0)

    def _moves(self, state: AmbonState, side: str, seq: int):
        data, gmap = self.data, self.data.map
        limit = data.value("stacking_limit")

        def goals(current: AmbonState) -> list[tuple[Any, float]]:
            found = []
            for h in gmap.key_locations:
                label = gmap.label(h)
                held = current.controller(label) == JAPANESE
                if side == JAPANESE and not held:
                    found.append((h, evaluate.hex_value(data, current, side, label)))
                elif side == ALLIED and held:
                    found.append((h, evaluate.hex_value(data, current, side, label) + 1))
            if side == ALLIED:
                found += [(gmap.hex(b), 5.0) for b in current.beachheads
                          if not [p for p in current.at(b) if p.side == JAPANESE]]
            if side == JAPANESE:  # 6.5: an empty beachhead with an Allied unit near is re-manned
                for b in current.beachheads:
                    bh = gmap.hex(b)
                    if not [p for p in current.at(b) if p.side == JAPANESE] and any(
                            gmap.hex(p.where).distance(bh) <= 2 for p in current.on_map(ALLIED) if not data.spec(p).hq):
                        found.append((bh, 6.0))
            if side == JAPANESE and not found:
                found = [(gmap.hex(p.where), 1.0) for p in current.on_map(ALLIED)]
            return found

        def need(current: AmbonState, t: Any) -> int:
            """How many units a goal calls for: enough for 3:1 against what holds it."""
            held = [p for p in current.at(gmap.label(t)) if p.side != side]
            strength = float(evaluate.combat.defence_strength(data, current, held)) if held else 0.0
            return 1 + int(strength * 3 / 5 + 0.5)

        def room(current: AmbonState, h: Any, piece: Any) -> bool:
            count = movement.stacking_count(data, [p for p in current.at(gmap.label(h)) if p.id != piece.id])
            return count + movement.stacking_count(data, [piece]) <= limit

        def guarding(current: AmbonState, piece: Any) -> bool:
            """A unit that holds what it stands on: a key location, a
            beachhead (6.5) or an HQ's hex with an enemy near."""
            where = piece.where
            h = gmap.hex(where)
            enemy = [p for p in current.on_map(other(side)) if gmap.hex(p.where).distance(h) <= 3
                     and not (p.concealed and side == JAPANESE and False)]
            friends = [p for p in current.at(where) if p.side == side and not data.spec(p).hq and p.id != piece.id]
            if self._last_guard(current, piece, []):
                return True
            key = h in gmap.key_locations or where in current.beachheads
            if side == ALLIED:
                if key and len(friends) < (2 if where in ("1412", "1809", "0812") else 1):
                    return True
                return key and bool(enemy) and len(friends) < 2
            return key and bool(enemy) and not friends

        def dest(current: AmbonState, piece: Any) -> dict[str, Any] | None:
            spec = data.spec(piece)
            if not piece.on_map or piece.penalty in ("no-move", "opposed"):
                return None
            left = movement.allowance(data, piece) - piece.spent
            if left <= 0:
                return None
            here = gmap.hex(piece.where)
            cost = movement.movement_cost(data, current, side)
            options = reachable(here, left, cost)
            jzoc = movement.zoc_of(data, current, JAPANESE) if side == ALLIED else frozenset()
            if piece.concealed:
                return self._concealed_move(current, piece, options, jzoc, cost, left)
            excess = self._excess(current, piece)
            if excess:  # 9.0: a unit beyond the limit steps out of the overstacked hex
                best = min((h for h in options if h != here and room(current, h, piece) and h not in jzoc),
                           key=lambda h: (bool(evaluate.enemy_adjacent(data, current, side, gmap.label(h))),
                                          h.distance(here) > 2, not [p for p in current.at(gmap.label(h)) if p.side == side],
                                          h.distance(here), options[h], gmap.label(h)), default=here)
            elif spec.hq:
                best = self._hq_hex(current, side, piece, options)
            elif spec.artillery:
                if self._last_guard(current, piece, []):
                    return None
                best = self._gun_hex(current, side, piece, options, room)
            else:
                if guarding(current, piece):
                    return None
                targets = goals(current)
                if not targets:
                    return None

                def aim(h: Any) -> tuple[float, Any]:
                    """The best goal seen from ``h``: near, valuable, not yet claimed by others."""
                    return min((h.distance(t) * 2 - (v - 4.0 * max(0, claims.get(t, 0) - need(current, t) + 1)) / 3,
                                gmap.label(t)) for t, v in targets)

                def score(h: Any) -> tuple:
                    return (aim(h)[0], options[h], gmap.label(h))

                allowed = [h for h in options if h == here or (
                    room(current, h, piece) and not (side == ALLIED and h in jzoc and h not in [t for t, _ in targets]))]
                best = min(allowed, key=score)
                goal = gmap.hex(aim(best)[1])
                claims[goal] = claims.get(goal, 0) + 1
                if side == ALLIED:
                    near = min(here.distance(t) for t, _ in targets)
                    if near > 8:
                        best = here
            if best is None or best == here:
                return None
            path = cheapest_path(here, best, cost, allowance=left)
            if path is None:
                return None
            return Move.along(piece.id, [gmap.label(h) for h in path.hexes])

        claims: dict[Any, int] = {}  # goal -> units already sent its way this phase

        def generate(current: AmbonState):
            claims.clear()
            ids = sorted(p.id for p in current.on_map(side))
            rank = lambda pid: (data.spec(current.piece(pid)).hq or data.spec(current.piece(pid)).artillery, pid)  # noqa: E731
            for pid in sorted(ids, key=rank):
                yield lambda st, pid=pid: dest(st, st.piece(pid))

        return generate

    def _excess(self, state: AmbonState, piece: Any) -> bool:
        """9.0: is ``piece`` one of the weakest units beyond the stacking
        limit of its hex (functional overstacking halves every CF there)?"""
        data = self.data
        here = [p for p in state.at(piece.where) if p.side == piece.side and not data.spec(p).hq]
        over = movement.stacking_count(data, here) - data.value("stacking_limit")
        if over <= 0 or data.spec(piece).hq:
            return False
        weakest = sorted(here, key=lambda p: (float(data.spec(p).combat) if not data.spec(p).artillery else 0.5,
                                              not p.disrupted, p.id))
        out: list[str] = []
        count: Fraction | int = 0
        for p in weakest:
            if count >= over:
                break
            out.append(p.id)
            count += movement.stacking_count(data, [p])
        return piece.id in out

    def _concealed_move(self, state: AmbonState, piece: Any, options: dict[Any, int], jzoc, cost, left) -> dict | None:
        """7.2, 8.0: a concealed piece the bot knows (its own store) to be a
        detachment may go and take an empty beachhead (6.5, 7.2) on its
        last step, never through a Japanese ZOC on the way; a dummy never
        moves into one (it would be revealed and removed) -- it holds its beach."""
        if self.own.get(piece.id) != "detachment":
            return None
        gmap = self.data.map
        for b in sorted(state.beachheads):
            bh = gmap.hex(b)
            if bh not in options or [p for p in state.at(b) if p.side == JAPANESE]:
                continue
            path = cheapest_path(gmap.hex(piece.where), bh, cost, allowance=left)
            if path is None or any(h in jzoc for h in path.hexes[1:-1]):
                continue
            return Move.along(piece.id, [gmap.label(h) for h in path.hexes])
        return None

    def _hq_hex(self, state: AmbonState, side: str, piece: Any, options: dict[Any, int]) -> Any:
        """An HQ goes to the friendly stack with the most combat units in
        its reach, the nearer the front the better -- never alone next to an
        enemy unit (it would be eliminated if attacked, 11.1)."""
        data, gmap = self.data, self.data.map
        here = gmap.hex(piece.where)
        enemies = [gmap.hex(p.where) for p in state.on_map(other(side))]

        def score(h: Any) -> tuple:
            friends = [p for p in state.at(gmap.label(h)) if p.side == side and not data.spec(p).hq and p.id != piece.id]
            adjacent = any(e.is_adjacent(h) for e in enemies)
            if not friends and adjacent:
                return (1e9, 0, "")
            front = min((e.distance(h) for e in enemies), default=9)
            if side == ALLIED:  # the Allied HQs (3 VP each, 3.0) stay with friends, out of reach
                return (-min(len(friends), 3) * 2 + (4 if adjacent else 0) + (2 if front <= 2 else 0), options[h], gmap.label(h))
            return (-len(friends) * 2 + max(0, front - data.spec(piece).command_range), options[h], gmap.label(h))

        best = min(options, key=score)
        return best if score(best) < score(here) else here

    def _gun_hex(self, state: AmbonState, side: str, piece: Any, options: dict[Any, int], room) -> Any:
        """Artillery: within range of an enemy unit, not next to one, with friends."""
        data, gmap = self.data, self.data.map
        here = gmap.hex(piece.where)
        enemies = [gmap.hex(p.where) for p in state.on_map(other(side)) if not data.spec(p).hq]
        reach = data.spec(piece).range or 1

        def score(h: Any) -> tuple:
            if h != here and not room(state, h, piece):
                return (1e9, 0, "")
            near = min((e.distance(h) for e in enemies), default=9)
            friends = sum(1 for p in state.at(gmap.label(h)) if p.side == side and p.id != piece.id)
            return (abs(near - min(reach, 2)) * 2 - min(friends, 2) + (3 if near <= 1 else 0), options[h], gmap.label(h))

        if side == ALLIED and gmap.hex(piece.where) in gmap.key_locations:
            return here  # the Allied guns hold Laha
        best = min(options, key=score)
        return best if score(best) < score(here) else here

    # ------------------------------------------------------------------ bombardment (10.0, 14.1, 14.3)

    def _bombard(self, side: str):
        """10.0: each gun fires at the enemy unit whose disruption helps most:
        one in a hex the side can attack, the strongest there."""

        def generate(current: AmbonState):
            for unit in self._guns(current, side):
                yield self._targets(current, side, unit)

        return lambda current: list(generate(current))

    def _guns(self, state: AmbonState, side: str) -> list[Any]:
        return [u for u in bombardment.artillery_units(self.data, state, side) if not u.bombarded]

    def _targets(self, state: AmbonState, side: str, unit: Any) -> list[dict[str, Any]]:
        data, gmap = self.data, self.data.map
        here, reach = gmap.hex(unit.where), data.spec(unit).range
        mine = [p for p in state.on_map(side) if not data.spec(p).hq and not data.spec(p).artillery]

        def score(t: Any) -> tuple:
            th = gmap.hex(t.where)
            near = sum(1 for p in mine if gmap.hex(p.where).is_adjacent(th))
            return (-near, -float(data.spec(t).combat), t.disrupted, t.id)

        targets = [t for t in state.on_map(other(side)) if gmap.hex(t.where).distance(here) <= reach
                   and not data.spec(t).hq and not t.disrupted]
        return [Bombard.at(unit.id, t.id) for t in sorted(targets, key=score)]

    def _defensive(self, side: str):
        """14.1: in the enemy's Combat Phase, once its combats are declared,
        the guns fire at the strongest attacker."""

        def generate(current: AmbonState):
            if not current.option("14.1") or current.phase not in (J_COMBAT, A_COMBAT) or current.phasing != other(side):
                return
            if not current.battles:
                return
            attackers = {u for b in current.battles for u in b.attackers}
            for unit in self._guns(current, side):
                gmap = self.data.map
                here = gmap.hex(unit.where)
                targets = sorted((current.piece(u) for u in attackers),
                                 key=lambda t: (-float(self.data.spec(t).combat), t.disrupted, t.id))
                yield [Bombard.at(unit.id, t.id) for t in targets
                       if gmap.hex(t.where).distance(here) <= self.data.spec(unit).range]

        return lambda current: list(generate(current))

    # ------------------------------------------------------------------ combat (11.0-11.2)

    def _attack(self, side: str):
        def generate(current: AmbonState):
            p_dummy = evaluate.dummy_chance(self.data, current) if side == JAPANESE else 0.0
            plan = search.plan_attacks(self.data, current, side, self.level, threshold=THRESHOLD[side],
                                       p_dummy=p_dummy, aggression=AGGRESSION[side])
            for target, units, hq in plan:
                order = Attack.on(target, list(units))
                yield [{**order, "hq": hq}, order] if hq else order

        return lambda current: list(generate(current))
