"""The house's Japanese in ``pbem solo calumpit``: the Japanese player,
played by pbem, as the rules have it ("the players must execute actions
when required to by the rules").

JAPANESE ENTRANCE: "Japanese units enter as dictated by the charts below and
will advance from the Jungle line down one of the roads until engaged by the
enemy or an enemy unit is visible".  Each message of the house:

* a unit going back goes back: a retreat falls back one full move and then
  stands again; a rout runs a full move to the rear each turn and takes a
  morale check to rally; a withdrawing unit (the breakoff, Hearts Jack,
  Queen, King) moves back each turn until it is back past the Jungle line,
  and is then off board;
* a unit that took fire pbem did not check (rounds called on it that put no
  figure in a burst) takes its morale check ("Morale is checked anytime a
  unit takes fire");
* a unit not engaged advances down the road toward the bridge (MOVEMENT, on
  the road);
* an engaged unit fights the nearest American unit it can see: it assaults
  (HAND-TO-HAND) when the unit is in sure reach -- no more than the least
  move it can roll -- and the tables favour the assault; it closes in while
  the assault would be favoured, firing on the move if a hit is still
  possible with the -10 (DIRECT FIRE MODIFIERS); otherwise it halts and
  fires.  A tank presses on down the road while no American tank is in
  sight.  A charging unit (failed morale) and a Banzai charge (Hearts Ace)
  go in whatever the odds;
* its tank guns fire at the American tanks it can see; it reports each
  American vehicle they knocked out, and each of its own an American gun
  knocked out;
* it fires no shot that only a natural 20 could hit;
* once a steady unit has come down the road to the bridge, the house
  reports the Japanese at the bridge (VICTORY CONDITIONS: the Japanese win);
* ``done``.

pbem cannot see the table, so the house keeps the Japanese side of it from
the record alone (:class:`Table`): the source has no map, so the house's
table puts the Jungle line ``JUNGLE_LINE`` inches up each road from the
bridge; each unit's distance from the bridge is that, less the inches of
its moves (the MOVEMENT events: the dice say how far), plus those of its
moves back.  An American unit is visible when it fires ("A unit is spotted
if it fires or moves within enemy line-of-sight"): its fire order's
``range`` -- measured on the table by the American player -- says where it
is, and it stays seen for that turn and the next.  An American who neither
fires nor moves is never seen, as the rules have it.  The Americans stand
in foxholes (their saving throws) unless the table says otherwise.

Everything the house decides follows from the game's record: the same
transcript gives the same orders, and every die is the protocol's -- the
orders that roll, keyed by the house's message like any player's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pbem.games.calumpit import tables as t
from pbem.games.calumpit.bot import _Plan, knocked_out
from pbem.games.calumpit.state import (
    AMERICAN,
    JAPANESE,
    RETREATING,
    WITHDRAWING,
    CalumpitState,
    Unit,
)

#: inches from the bridge to the Jungle line, up each road: the source has no
#: map, so this is the house's table (set yours so, or tell the house nothing)
JUNGLE_LINE = 40
#: an American unit that fired is seen in that turn and the next
SEEN_TURNS = 2
#: the MOVEMENT row each kind of unit moves by (guns and artillery come with trucks)
MOVE_KIND = {"infantry": "infantry", "hq": "infantry", "engineer": "infantry", "patrol": "infantry",
             "tank": "tank", "artillery": "vehicle", "gun": "vehicle", "hmg": "heavy", "mortar": "heavy"}
#: kinds that fire rifles
RIFLES = ("infantry", "hq", "engineer", "patrol")
#: statuses that go forward; pinned units neither move nor fire
STEADY = ("active", "charge", "banzai")
CHARGING = ("charge", "banzai")
#: where the Americans stand: their saving throws and morale position
AMERICAN_COVER = "foxhole"
#: HAND-TO-HAND modifiers of a Japanese assault (charging with the bayonet)
ASSAULT = "bayonet charging"
#: assault when the chance it goes the Japanese way is at least this
FAVOURED = 0.5
#: an assault goes in from the jungle beside the road (from the road, in the
#: open, the attackers' morale check is +10: the tables never favour it)
ASSAULT_FROM = "jungle"
#: closer than this to the enemy, a unit closing in leaves the road for the jungle
DEPLOY = 10


@dataclass
class Post:
    """A Japanese unit on the house's table."""

    uid: str
    road: str
    inches: float  # from the bridge, along its road
    terrain: str = "road"  # where it stands: "road", or "jungle" once it has deployed off the road
    moved_back: int = -1  # the message whose move back was its last (a retreat's one full move)
    set_up: bool = False  # a card set it up where it is (Diamonds 9's battery): it does not advance


@dataclass
class Sighting:
    """An American unit seen firing: where it was, in inches from the bridge
    along the road of the unit it fired at (negative: across the bridge)."""

    uid: str
    road: str
    inches: float
    turn: int


@dataclass
class Table:
    """The Japanese side of the table, kept from the record."""

    posts: dict[str, Post] = field(default_factory=dict)
    seen: dict[str, Sighting] = field(default_factory=dict)
    fired_at: dict[str, int] = field(default_factory=dict)  # Japanese unit -> last turn an American fired at it
    rallied: dict[str, bool] = field(default_factory=dict)  # a routed unit's last rally check passed
    shelled: dict[str, int] = field(default_factory=dict)  # Japanese unit -> the American message that called rounds on it
    turn: int = 0

    def distance(self, post: Post, seen: Sighting) -> float:
        """Inches between a Japanese unit and an American one: along the road,
        or through the bridge from another road."""
        if seen.road == post.road:
            return abs(post.inches - seen.inches)
        return post.inches + abs(seen.inches)


def read_table(match: Any) -> Table:
    """The house's table after the record of ``match``: a pure function of
    the transcript and its dice."""
    state: CalumpitState = match.replay.state
    transcript = match.transcript
    table = Table()
    statuses: dict[str, str] = {}
    by_seq: dict[int, list[Any]] = {}
    for seq, event in match.replay.events:
        by_seq.setdefault(seq, []).append(event)
    withdraw_rules = {c.rule for c in match.game.data.cards.values() for e in c.effects if e["kind"] == "withdraw"}
    banzai_rules = {c.rule for c in match.game.data.cards.values() for e in c.effects if e["kind"] == "banzai"}
    roads: dict[int, str] = {}
    count = len(transcript)
    for seq in range(count + 1):
        before = dict(statuses)  # as the house saw them when it wrote message seq - 1 (with its own status orders)
        if seq >= 1 and transcript.side_of(seq - 1) == JAPANESE and seq - 1 < count:
            for order in transcript.messages[seq - 1].body.get("orders", []):
                if order.get("type") == "status":
                    before[order["unit"]] = order["status"]
        for event in by_seq.get(seq, []):
            data = event.data or {}
            if event.rule == "SEQUENCE" and "turn" in data and event.text.endswith("begins"):
                table.turn = data["turn"]
                statuses = {u: ("active" if s == "pinned" else s) for u, s in statuses.items()}
            elif event.rule == "JAGT":
                roads[data["force"]] = data["road"]
                for uid in data.get("units", []):
                    table.posts[uid] = Post(uid, data["road"], JUNGLE_LINE)
                    statuses[uid] = "active"
            elif "unit" in data and "side" in data and data.get("side") == JAPANESE and event.rule != "JAGT":
                # a card brings a Japanese unit: at the Jungle line, or set up the inches it says from it
                table.posts[data["unit"]] = Post(data["unit"], "the road", JUNGLE_LINE - data.get("inches", 0),
                                                 set_up="inches" in data)
                statuses[data["unit"]] = "active"
            elif event.rule == "MOVEMENT" and data.get("unit") in table.posts and seq >= 1 \
                    and transcript.side_of(seq - 1) == JAPANESE:
                post = table.posts[data["unit"]]
                going_back = before.get(post.uid, "active") in RETREATING
                post.inches += data["inches"] if going_back else -data["inches"]
                post.terrain = "jungle" if data.get("terrain") == "jungle" else "road"
                if going_back:
                    post.moved_back = seq - 1
            changed: dict[str, str] = {}
            if "unit" in data and "status" in data:
                changed[data["unit"]] = data["status"]
            if event.rule == "JAPANESE ENTRANCE" and "withdrawing" in data:
                changed.update({uid: WITHDRAWING for uid in data["withdrawing"]})
            if event.rule in withdraw_rules and "units" in data:
                changed.update({uid: WITHDRAWING for uid in data["units"]})
            if event.rule in banzai_rules and "units" in data:
                changed.update({uid: "banzai" for uid in data["units"]})
            for uid, status in changed.items():
                if status in RETREATING and statuses.get(uid) != status and uid in table.posts:
                    table.posts[uid].moved_back = -1  # going back from now on: its moves back are counted anew
                    table.rallied.pop(uid, None)
                statuses[uid] = status
            if event.rule == "MORALE" and data.get("unit") in table.posts and "passed" in data:
                table.rallied[data["unit"]] = bool(data["passed"])
        if seq < count and transcript.side_of(seq) == AMERICAN:
            _american_message(table, transcript.messages[seq].body.get("orders", []), seq, state)
    return table


def _american_message(table: Table, orders: list[dict[str, Any]], seq: int, state: CalumpitState) -> None:
    """What an American message shows the house: its units that fire are
    seen where their range puts them; rounds called on a Japanese unit."""
    for order in orders:
        kind = order.get("type")
        target = order.get("target") or order.get("defender")
        if kind in ("fire", "tankfire", "grenade") and target in table.posts:
            post = table.posts[target]
            table.fired_at[target] = table.turn
            shooter = order.get("unit")
            if shooter and "range" in order:
                table.seen[shooter] = Sighting(shooter, post.road, post.inches - order["range"], table.turn)
        elif kind == "melee" and order.get("attacker") in table.posts:
            table.fired_at[order["attacker"]] = table.turn
            post = table.posts[order["attacker"]]
            table.seen[order["defender"]] = Sighting(order["defender"], post.road, post.inches, table.turn)
        elif kind == "melee" and order.get("defender") in table.posts:
            post = table.posts[order["defender"]]
            table.fired_at[post.uid] = table.turn
            table.seen[order["attacker"]] = Sighting(order["attacker"], post.road, post.inches, table.turn)
        elif kind in ("indirect", "call"):
            for uid in table.posts:
                if uid in str(order.get("at", "")).split() or f"({uid})" in str(order.get("at", "")):
                    table.shelled[uid] = seq
                    table.fired_at[uid] = table.turn
        elif kind == "burst" and order.get("unit") in table.shelled:
            table.shelled.pop(order["unit"])  # its morale is checked with the burst


# --------------------------------------------------------------------------- the odds


def pass_chance(grade: int, modifier: int, sides: int = 20) -> float:
    """Morale: the chance a D20 + ``modifier`` is at most ``grade``."""
    return max(0, min(sides, grade - modifier)) / sides


def pair_chance(difference: int, sides: int = 6) -> float:
    """HAND-TO-HAND: the chance a figure with ``difference`` more on its D6
    wins its pair (a tie rolls again)."""
    wins = sum(1 for x in range(1, sides + 1) for y in range(1, sides + 1) if x + difference > y)
    losses = sum(1 for x in range(1, sides + 1) for y in range(1, sides + 1) if x + difference < y)
    return wins / (wins + losses) if wins + losses else 0.5


def assault_odds(data: Any, attacker: Unit, attacker_in: str, defender: Unit, defender_in: str) -> float:
    """The chance an assault goes the Japanese way: the defender fails its
    morale check (+5, no fight: it retreats or routs), or both pass and a
    pair is won (the modifiers of :data:`ASSAULT` against the defender's)."""
    tb = data.tables
    h2h = tb["hand_to_hand"]
    defend = pass_chance(defender.grade, t.morale_modifier(tb, defender_in, defender.officer, h2h["defender_morale"]))
    attack = pass_chance(attacker.grade, t.morale_modifier(tb, attacker_in, attacker.officer, h2h["attacker_morale"]))
    mods = h2h["modifiers"]
    mine = sum(mods[w] for w in ASSAULT.split())
    theirs = (mods["foxhole"] if defender_in == "foxhole" else 0) + (mods["american"] if defender.nationality == "us" else 0)
    return (1 - defend) + defend * attack * pair_chance(mine - theirs, h2h["die_sides"])


# --------------------------------------------------------------------------- the house


@dataclass
class Step:
    """One order of the house, with why it gives it."""

    order: dict[str, Any]
    why: str


class House:
    """The house's Japanese player: :meth:`orders` for the match's next
    message, :meth:`steps` for the same orders with the reason of each."""

    def __init__(self, game: Any):
        self.game = game

    def orders(self, match: Any) -> dict[str, Any]:
        return {"order": [step.order for step in self.steps(match)]}

    def steps(self, match: Any) -> list[Step]:
        state: CalumpitState = match.replay.state
        if match.replay.over or state.over or state.ending_by:
            return []
        seq = len(match.transcript)
        plan = _Steps(self.game, state, seq)
        for uid in knocked_out(match):
            plan.offer({"type": "loss", "unit": uid, "men": 1}, f"the house's tank gun knocked out a vehicle of {uid}")
        for uid, shooter in own_vehicles_lost(match):
            plan.offer({"type": "loss", "unit": uid, "men": 1},
                       f"{shooter}'s hit knocked out one of {uid}'s vehicles (engine or fire): it is lost")
        table = read_table(match)
        at_bridge = [p for uid, p in table.posts.items() if p.inches <= 0 and _steady(state, uid)]
        if at_bridge:
            who = ", ".join(p.uid for p in at_bridge)
            plan.offer({"type": "report", "japanese_at_bridge": True},
                       f"{who} came down the road to the bridge (VICTORY CONDITIONS)")
            return plan.steps
        if JAPANESE not in state.done:
            self._go_back(plan, state, table, seq)
            self._morale(plan, state, table, seq)
            self._advance(plan, state, table)
            plan.offer({"type": "done"}, "every Japanese unit has moved and fired")
        return plan.steps

    # ------------------------------------------------------------------ going back, morale

    def _go_back(self, plan: _Steps, state: CalumpitState, table: Table, seq: int) -> None:
        for uid, post in table.posts.items():
            unit = state.unit(uid)
            if unit is None or not unit.in_action or unit.status not in RETREATING:
                continue
            kind = MOVE_KIND.get(unit.kind)
            if unit.status == WITHDRAWING:
                if post.inches >= JUNGLE_LINE:
                    plan.offer({"type": "status", "unit": uid, "status": "offboard"},
                               f"{uid} is back past the Jungle line ({_in(post.inches)} from the bridge): off board")
                elif kind:
                    plan.offer({"type": "move", "kind": kind, "terrain": "road", "unit": uid},
                               f"{uid} withdraws up the road ({_in(post.inches)} from the bridge)")
            elif unit.status == "retreat":
                if post.moved_back >= 0:
                    plan.offer({"type": "status", "unit": uid, "status": "active"},
                               f"{uid} has fallen back its full move: it stands again")
                elif kind:
                    plan.offer({"type": "move", "kind": kind, "terrain": "road", "unit": uid},
                               f"{uid} retreats: one full move away from the enemy")
            elif unit.status == "rout":
                if table.rallied.get(uid) and post.moved_back >= 0:
                    plan.offer({"type": "status", "unit": uid, "status": "active"}, f"{uid} passed its morale check: rallied")
                    continue
                if kind:
                    plan.offer({"type": "move", "kind": kind, "terrain": "road", "unit": uid},
                               f"{uid} is routed: a full move to the rear")
                plan.offer({"type": "morale", "unit": uid, "position": post.terrain},
                           f"{uid} tries to rally (a morale check)")

    def _morale(self, plan: _Steps, state: CalumpitState, table: Table, seq: int) -> None:
        for uid, called in table.shelled.items():
            unit = state.unit(uid)
            # rounds called on it two messages ago, and the American's next message put none of its figures in a burst
            if unit is not None and unit.in_action and called == seq - 3:
                plan.offer({"type": "morale", "unit": uid, "position": table.posts[uid].terrain},
                           f"{uid} took fire (rounds called on it): Morale is checked anytime a unit takes fire")

    # ------------------------------------------------------------------ forward

    def _advance(self, plan: _Steps, state: CalumpitState, table: Table) -> None:
        tb = self.game.data.tables
        # the Americans seen lately that still stand, by id, in the order they were seen
        enemies = {s.uid: u for s in table.seen.values()
                   if table.turn - s.turn < SEEN_TURNS and (u := _standing_american(state, s.uid)) is not None}
        seen = [table.seen[uid] for uid in enemies]
        for uid, post in table.posts.items():
            unit = state.unit(uid)
            if unit is None or not unit.in_action or unit.status not in STEADY or unit.kind == "sniper":
                continue
            kind = None if post.set_up else MOVE_KIND.get(unit.kind)
            targets = sorted(seen, key=lambda s: (table.distance(post, s), s.uid))
            soft = [s for s in targets if enemies[s.uid].kind != "tank"]
            armour = [s for s in targets if enemies[s.uid].kind == "tank"]
            engaged = table.fired_at.get(uid, -9) >= table.turn - 1 or bool(targets)
            american_armour = [a for a in armour if table.distance(post, a) <= tb["tank_fire"]["columns"][-1]]
            # a tank presses on while nothing it sees can hurt it; a charge goes on whatever it sees
            pressing = unit.kind == "tank" and engaged and (unit.status in CHARGING or not american_armour)
            if unit.kind in ("tank", "gun") and american_armour:
                self._tank_gun(plan, unit, enemies[american_armour[0].uid],
                               round(table.distance(post, american_armour[0])), moving=pressing and kind is not None)
            if not engaged or not (soft if unit.kind != "tank" or not armour else targets):
                if kind:
                    plan.offer({"type": "move", "kind": kind, "terrain": "road", "unit": uid},
                               f"{uid} advances down the road toward the bridge ({_in(post.inches)} from it)"
                               + ("" if not engaged else ": no American it can fire at is in sight"))
                continue
            target = soft[0] if soft else targets[0]
            enemy = enemies[target.uid]
            distance = table.distance(post, target)
            charging = unit.status in CHARGING
            can_assault = unit.kind in RIFLES and enemy.kind != "tank" and kind is not None
            odds = assault_odds(self.game.data, unit, ASSAULT_FROM, enemy, AMERICAN_COVER)
            if can_assault and kind is not None and post.terrain == ASSAULT_FROM \
                    and distance <= _least_move(tb, kind, post.terrain) \
                    and (charging or odds >= FAVOURED):
                pairs = max(1, min(unit.figures, enemy.figures))
                why = f"{odds:.0%} the assault goes the Japanese way" if not charging else f"{uid} is {unit.status}ing"
                if plan.offer({"type": "move", "kind": kind, "terrain": post.terrain, "unit": uid},
                              f"{uid} closes the last {_in(distance)} to {enemy.id}, sure to reach it"):
                    plan.offer({"type": "melee", "attacker": uid, "defender": enemy.id,
                                "pairs": [f"{ASSAULT} vs {AMERICAN_COVER}"] * pairs,
                                "attacker_in": post.terrain, "defender_in": AMERICAN_COVER},
                               f"{uid} assaults {enemy.id} ({why})")
                continue
            if (charging or pressing) and kind and not can_assault:
                plan.offer({"type": "move", "kind": kind, "terrain": "road", "unit": uid},
                           f"{uid} {'charges' if charging else 'presses on'} down the road ({_in(post.inches)} from "
                           f"the bridge)" + ("" if charging else ": no American tank in sight"))
                self._fire(plan, unit, enemy, round(distance), moving=True)
                continue
            if can_assault and (charging or odds >= FAVOURED):
                terrain = "road" if distance > DEPLOY else ASSAULT_FROM
                how = "down the road" if terrain == "road" else "through the jungle beside the road"
                plan.offer({"type": "move", "kind": kind, "terrain": terrain, "unit": uid},
                           (f"{uid} charges {enemy.id} ({_in(distance)} away) {how}" if charging else
                            f"{uid} closes in on {enemy.id} ({_in(distance)} away) {how}: an assault would go "
                            f"the Japanese way {odds:.0%}"))
                self._fire(plan, unit, enemy, round(distance), moving=True)
            else:
                self._fire(plan, unit, enemy, round(distance), moving=False, halted=True)

    def _fire(self, plan: _Steps, unit: Unit, enemy: Unit, distance: int, moving: bool, halted: bool = False) -> None:
        tb = self.game.data.tables
        if unit.kind in RIFLES:
            weapon, extra = "rifle", {"figures": unit.figures}
        elif unit.kind == "tank":
            weapon, extra = "lmg", {"targets": min(3, enemy.figures)}
        else:
            return
        needed = t.hit_number(tb, weapon, distance) + (10 if moving else 0)
        if needed >= 20:  # out of reach: only a natural 20 would hit
            return
        plan.offer({"type": "fire", "weapon": weapon, "range": distance, "terrain": AMERICAN_COVER, "unit": unit.id,
                    "target": enemy.id, **extra, **({"moving": True} if moving else {})},
                   f"{unit.id} {'halts and ' if halted else ''}fires at {enemy.id}, seen firing {distance} inches "
                   f"away" + (" (on the move)" if moving else ""))

    def _tank_gun(self, plan: _Steps, unit: Unit, enemy: Unit, distance: int, moving: bool = False) -> None:
        gun = "ija-47mm" if unit.target == "japanese-medium" else "ija-37mm"
        plan.offer({"type": "tankfire", "gun": gun, "range": distance, "unit": unit.id, "target": enemy.id,
                    "vehicle": "stuart", **({"moving_shooter": True} if moving else {})},
                   f"{unit.id}'s gun fires at {enemy.id}, {distance} inches away" + (" (on the move)" if moving else ""))


class _Steps(_Plan):
    """The orders of one message, each tried on the position, with why."""

    def __init__(self, game: Any, state: CalumpitState, seq: int):
        super().__init__(game, state, JAPANESE, seq)
        self.steps: list[Step] = []

    def offer(self, order: dict[str, Any], why: str = "") -> bool:
        if not super().offer(order):
            return False
        self.steps.append(Step(self.kept[-1], why))
        return True


def own_vehicles_lost(match: Any) -> list[tuple[str, str]]:
    """(Japanese unit, American shooter) for each American tank-gun shot in
    the American's last message whose hit knocked out the engine or set the
    vehicle on fire: one of the house's vehicles is lost (as the bot reports
    the enemy's, :func:`pbem.games.calumpit.bot.knocked_out`).  The shots'
    dice were keyed by that message and rolled by this one: their events
    are listed under this message, one per ``tankfire`` order, in order."""
    seq = len(match.transcript)
    if seq < 2 or match.transcript.side_of(seq - 1) != AMERICAN:
        return []
    shots = [o for o in match.transcript.messages[seq - 1].body.get("orders", []) if o.get("type") == "tankfire"]
    results = [e for s, e in match.replay.events if s == seq and e.rule == "TANK FIRE ACTIONS"]
    if len(shots) != len(results):
        return []
    state = match.replay.state
    return [(o["target"], o.get("unit") or "an American gun") for o, e in zip(shots, results, strict=True)
            if o.get("target") and (state.unit(o["target"]) is not None and state.unit(o["target"]).side == JAPANESE)
            and e.data.get("hit") and (e.data.get("engine") or e.data.get("fire"))]


def _steady(state: CalumpitState, uid: str) -> bool:
    unit = state.unit(uid)
    return unit is not None and unit.in_action and unit.status in STEADY and unit.kind != "sniper"


def _standing_american(state: CalumpitState, uid: str) -> Unit | None:
    """The American unit ``uid`` if it is in action and not falling back, else None."""
    unit = state.unit(uid)
    standing = unit is not None and unit.side == AMERICAN and unit.in_action and unit.status not in RETREATING
    return unit if standing else None


def _least_move(tables: Any, kind: str, terrain: str) -> float:
    spec = tables["movement"]["kinds"][kind]
    return t.movement(tables, kind, terrain, [1] * spec["dice"])


def _in(inches: float) -> str:
    return t.inches(max(0, inches))
