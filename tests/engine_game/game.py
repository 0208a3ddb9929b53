"""A tiny hex-and-counter game that proves the engine end to end.

Its rulebook, all of it (rule numbers are what events and errors cite):

3.0 Sequence.  Sides alternate, first side first; a side's message is its
    turn (messages 0 and 1, the proposal and its acceptance, are not turns).  After the second side's turn the game turn advances; the game ends
    after the scenario's last turn or when a side has no unit left.
7.0 Movement.  A unit moves once per turn along a path of adjacent hexes,
    paying the terrain cost of each hex entered (charts ``terrain_costs``);
    along a road or trail hexside it pays the road or trail price instead;
    crossing a river costs 1 MP more.  It may not enter lake hexes or enemy
    units' hexes, nor spend more than its movement allowance.  Units in an
    off-map box do not move in this game.
8.0 Zones of control.  Entering a hex adjacent to an enemy unit costs 1 MP more.
9.0 Combat.  Units adjacent to an enemy hex may attack it together, each once
    per turn.  Odds = attack strength : defence strength, rounded in the
    defender's favour to a CRT column; below the first column no attack.  One
    die is rolled (keyed by the message that ordered the attack).
9.1 Results.  AF/DF: every attacker/defender flips (a flipped unit is
    eliminated); EX: both; AE/DE: every attacker/defender is eliminated.
9.3 Advance.  When a combat empties the defender's hex, the attacker may
    advance any unflipped surviving attackers into it: a decision, answered
    by the next ``advance`` order or at once by a standing instruction
    (``[standing] advance = "always" | "never"``).
9.2 Shifts.  One column left if the defender is in forest or a town, and one
    left if any attacker attacks across a fortified hexside.

Orders (``[[order]]`` tables of the orders document)::

    [[order]]
    move = "R1: 0202 0302 0402"

    [[order]]
    attack = "0504"
    with = ["R2"]

    [[order]]
    advance = ["R2"]        # answers an open 9.3 decision ([] = stay)

    [standing]
    advance = "always"      # or "never": 9.3 answered in advance
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, ClassVar, Mapping, Sequence

from pbem.engine.hexes import Hex
from pbem.engine.machine import (
    Action,
    DecisionDue,
    DiceDue,
    DiceRolled,
    Event,
    MessageEnd,
    Opened,
    Ordered,
    ParsedOrders,
    Sealed,
    illegal,
    replace,
)
from pbem.engine import standing as standing_orders
from pbem.engine.mapdata import DataSet, load_dataset
from pbem.engine.paths import StepCost, format_mp, half_mp, validate_path
from pbem.errors import InputError

DATA = Path(__file__).parent / "data"
#: decision kinds a side may answer in advance (9.3)
STANDING_KINDS = {"advance": ("always", "never")}
#: messages 0 and 1 (proposal and acceptance) carry no turn
SETUP_MESSAGES = 2

# --------------------------------------------------------------------------- state


@dataclass(frozen=True)
class UnitState:
    """Where a unit is (hex number or off-map box id) and how it stands."""

    id: str
    side: str
    where: str
    flipped: bool = False
    eliminated: bool = False
    moved: bool = False
    attacked: bool = False


@dataclass(frozen=True)
class Combat:
    """A declared attack waiting for its die."""

    label: str
    target: str
    attackers: tuple[str, ...]
    defenders: tuple[str, ...]
    column: str
    key_seq: int


@dataclass(frozen=True)
class Advance:
    """An open 9.3 decision: ``side`` may advance ``candidates`` into ``target``."""

    side: str
    target: str
    candidates: tuple[str, ...]


@dataclass(frozen=True)
class State:
    turn: int
    last_turn: int
    active: str
    units: tuple[UnitState, ...]
    pending: tuple[Combat, ...] = ()
    over: bool = False
    advance: Advance | None = None
    standing: standing_orders.StandingTable = standing_orders.StandingTable()

    def unit(self, unit_id: str) -> UnitState:
        for u in self.units:
            if u.id == unit_id:
                return u
        raise illegal("7.0", f"no unit {unit_id!r}")

    def at(self, where: str) -> tuple[UnitState, ...]:
        """Units (not eliminated) in a hex or box."""
        return tuple(u for u in self.units if u.where == where and not u.eliminated)

    def with_unit(self, new: UnitState) -> State:
        return replace(self, units=tuple(new if u.id == new.id else u for u in self.units))


# --------------------------------------------------------------------------- the game


class EngineTestGame:
    """The test game; ``EngineTestGame(data_dir=...)`` overrides its data."""

    name: ClassVar[str] = "engine-test"
    version: ClassVar[str] = "1"
    sides: ClassVar[tuple[str, str]] = ("red", "blue")

    def __init__(self, data_dir: str | Path | None = None):
        self.data: DataSet = load_dataset(DATA, override=data_dir)
        self.map = self.data.map
        self.counters = self.data.counters
        self.charts = self.data.charts
        self.scenario = tomllib.loads(self.data.file("scenario.toml").decode("utf-8"))

    # -- contract -------------------------------------------------------
    def ruleset_files(self) -> Sequence[tuple[str, bytes]]:
        return self.data.files()

    def initial_state(self, setup: Mapping[str, Any]) -> State:
        scen = self.scenario["scenario"]
        positions = {**self.scenario["positions"], **dict(setup.get("positions", {}))}
        units = []
        for u in self.counters.units:
            if u.id not in positions:
                raise InputError(f"scenario places no unit {u.id!r}")
            where = positions[u.id]
            if where not in self.map.boxes:
                self.map.hex(where)  # InputError quoting it when bad
            units.append(UnitState(u.id, u.side, where))
        return State(
            turn=1,
            last_turn=int(setup.get("turns", scen["turns"])),
            active=scen["first"],
            units=tuple(units),
        )

    def scenario_state(self, document: Mapping[str, Any]) -> State:
        """A position from a scenario document (referee mode):
        ``[positions]``, optional ``flipped = [...]``, ``turn``, ``active``."""
        known = {"positions", "flipped", "turn", "active", "scenario"}
        unknown = sorted(set(document) - known)
        if unknown:
            raise InputError(f"scenario: unknown key(s) {', '.join(unknown)}", field=unknown[0])
        positions = document.get("positions", {})
        if not isinstance(positions, Mapping):
            raise InputError("scenario: [positions] must be a table of UNIT = \"HEX\"", field="positions")
        state = self.initial_state({"positions": dict(positions)})
        for uid in document.get("flipped", []):
            state = state.with_unit(replace(state.unit(uid), flipped=True))
        active = document.get("active", state.active)
        if active not in self.sides:
            raise InputError(f"scenario: active = {active!r} is not a side ({', '.join(self.sides)})", field="active")
        return replace(state, turn=int(document.get("turn", 1)), active=active)

    def active_side(self, state: State) -> str:
        return state.active

    def parse_orders(self, document: Mapping[str, Any], side: str) -> ParsedOrders:
        orders = document.get("order", [])
        if not isinstance(orders, list):
            raise InputError("'order' must be an array of [[order]] tables", field="order")
        public = []
        for i, o in enumerate(orders):
            where = f"order[{i}]"
            if not isinstance(o, Mapping):
                raise InputError(f"{where} is not a table", field=where)
            if "move" in o:
                text = o["move"]
                if set(o) != {"move"} or not isinstance(text, str) or ":" not in text:
                    raise InputError(f"{where}: move must read 'UNIT: HEX HEX ...', got {text!r}", field=where)
                unit, path = (part.strip() for part in text.split(":", 1))
                hexes = path.split()
                for h in hexes:
                    self.map.layout.split(h)  # syntax only; InputError quotes it
                public.append({"kind": "move", "unit": unit, "path": hexes})
            elif "attack" in o:
                target, with_ = o.get("attack"), o.get("with")
                if set(o) != {"attack", "with"} or not isinstance(target, str) or not isinstance(with_, list):
                    raise InputError(f"{where}: attack needs attack = 'HEX' and with = ['UNIT', ...]", field=where)
                self.map.layout.split(target)
                public.append({"kind": "attack", "target": target, "with": [str(w) for w in with_]})
            elif "advance" in o:
                units = o["advance"]
                if set(o) != {"advance"} or not isinstance(units, list) or not all(isinstance(u, str) for u in units):
                    raise InputError(f"{where}: advance must be a list of unit ids, e.g. advance = [\"R2\"]", field=where)
                public.append({"kind": "advance", "units": list(units)})
            else:
                raise InputError(f"{where}: expected 'move', 'attack' or 'advance', got keys {sorted(o)}", field=where)
        instructions = standing_orders.parse(document, STANDING_KINDS)
        if instructions:
            public.insert(0, {"kind": "standing", **instructions})
        unknown = sorted(set(document) - {"order", "standing"})
        if unknown:
            raise InputError(f"unknown top-level key(s) {', '.join(unknown)}", field=unknown[0])
        return ParsedOrders(public=tuple(public))

    def apply(self, state: State, action: Action) -> tuple[State, list[Event]]:
        if state.over and isinstance(action, Ordered):
            raise illegal("3.0", "the game is over")
        if isinstance(action, Ordered) and action.order.get("kind") == "standing":
            return self._standing(state, action)
        if isinstance(action, Ordered) and action.order.get("kind") == "advance":
            return self._advance(state, action)
        if isinstance(action, Ordered) and state.advance is not None and state.advance.side == action.side:
            raise illegal("9.3", f"first answer the advance into {state.advance.target} (an 'advance' order)")
        if isinstance(action, Ordered):
            if action.side != state.active:
                raise illegal("3.0", f"it is {state.active}'s turn, not {action.side}'s")
            owed = [c.label for c in state.pending if c.key_seq != action.seq]
            if owed:
                raise illegal("9.0", f"dice are due first: {', '.join(owed)}")
            kind = action.order.get("kind")
            if kind == "move":
                return self._move(state, action)
            if kind == "attack":
                return self._attack(state, action)
            raise illegal("3.0", f"unknown order kind {kind!r}")
        if isinstance(action, DiceRolled):
            return self._resolve(state, action)
        if isinstance(action, MessageEnd):
            return self._end(state, action)
        if isinstance(action, (Opened, Sealed)):
            raise illegal("3.0", "this game has no hidden information")
        raise illegal("3.0", f"unknown action {action!r}")

    def awaiting(self, state: State) -> tuple[DiceDue | DecisionDue, ...]:
        due: list[DiceDue | DecisionDue] = [
            DiceDue(c.label, 1, 6, c.key_seq, purpose=f"combat at {c.target} ({c.column})")
            for c in state.pending
        ]
        if state.advance is not None:
            a = state.advance
            due.append(DecisionDue(a.side, "advance", f"advance into {a.target}?", a.candidates, rule="9.3"))
        return tuple(due)

    # -- standing instructions and 9.3 advance -------------------------------
    def _standing(self, state: State, action: Ordered) -> tuple[State, list[Event]]:
        instructions = {k: v for k, v in action.order.items() if k != "kind"}
        try:
            standing_orders.parse({"standing": instructions}, STANDING_KINDS)
        except InputError as err:
            raise illegal("9.3", str(err)) from err
        table = state.standing.updated(action.side, instructions)
        said = ", ".join(f"{k} = {v}" for k, v in sorted(instructions.items()))
        return replace(state, standing=table), [Event("9.3", f"{action.side} standing instructions: {said}")]

    def _advance(self, state: State, action: Ordered) -> tuple[State, list[Event]]:
        decision = state.advance
        if decision is None or decision.side != action.side:
            raise illegal("9.3", f"{action.side} has no advance to decide")
        units = list(action.order["units"])
        wrong = [u for u in units if u not in decision.candidates]
        if wrong:
            raise illegal("9.3", f"{wrong[0]} may not advance into {decision.target} (may: {', '.join(decision.candidates)})")
        if units and any(u.side != action.side for u in state.at(decision.target)):
            raise illegal("9.3", f"{decision.target} is no longer empty of enemies")
        return self._do_advance(replace(state, advance=None), decision, units)

    def _do_advance(self, state: State, decision: Advance, units: list[str], why: str = "") -> tuple[State, list[Event]]:
        for uid in units:
            state = state.with_unit(replace(state.unit(uid), where=decision.target))
        text = f"{', '.join(units)} advance into {decision.target}" if units else f"no unit advances into {decision.target}"
        return state, [Event("9.3", text + why, {"target": decision.target, "units": units})]

    def _offer_advance(self, state: State, combat: Combat) -> tuple[State, list[Event]]:
        if state.at(combat.target):
            return state, []
        survivors = tuple(
            uid for uid in combat.attackers
            if not state.unit(uid).eliminated and not state.unit(uid).flipped
        )
        if not survivors:
            return state, []
        side = state.unit(survivors[0]).side
        decision = Advance(side, combat.target, survivors)
        rule = state.standing.get(side, "advance")
        if rule == "always":
            return self._do_advance(state, decision, list(survivors), " (standing instruction)")
        if rule == "never":
            return self._do_advance(state, decision, [], " (standing instruction)")
        return replace(state, advance=decision), [
            Event("9.3", f"{side} may advance {', '.join(survivors)} into {combat.target}; {side} decides")
        ]

    def board_view(self, view: Mapping[str, Any]) -> Any:
        """The board: the view's stacks on the map, its turn and whose move."""
        from dataclasses import replace as with_

        from pbem.engine.boardview import HeaderItem, Row, from_stacks, sides_of

        sides = self.counters.sides.values()
        header = [HeaderItem("turn", str(view["turn"])),
                  HeaderItem("", "game over" if view["over"] else f"{view['active'].capitalize()} to act")]
        board = from_stacks(self.name, sides_of([s.id for s in sides], {s.id: s.name for s in sides},
                                               {s.id: s.colour for s in sides}),
                           self.map, view["stacks"], header=tuple(header))
        rows = [Row(u["side"], u["id"], (("type", u["type"]), ("where", u["where"]),
                                          *((k, str(v)) for k, v in u.items() if k not in ("id", "side", "type", "where", "flipped"))),
                    ("disrupted",) if u["flipped"] else ()) for u in view["units"]]
        return with_(board, rows=tuple(rows))

    def view(self, state: State, side: str | None, secrets: Mapping[str, str] | None = None) -> dict[str, Any]:
        units = []
        stacks: dict[str, list[dict[str, Any]]] = {}
        for u in state.units:
            if u.eliminated:
                continue
            counter = self.counters.unit(u.id)
            values = dict(counter.values(u.flipped))
            units.append({"id": u.id, "side": u.side, "type": counter.type, "where": u.where, "flipped": u.flipped, **values})
            item: dict[str, Any] = {"label": u.id, "side": u.side}
            if u.flipped:
                item["marker"] = "disrupted"
            stacks.setdefault(u.where, []).append(item)
        for c in state.pending:
            stacks.setdefault(c.target, []).append({"label": "combat", "marker": c.column})
        out: dict[str, Any] = {
            "game": self.name,
            "turn": state.turn,
            "active": state.active,
            "over": state.over,
            "units": units,
            "eliminated": [u.id for u in state.units if u.eliminated],
            "stacks": stacks,
            "dice_due": [c.label for c in state.pending],
            "decision": (
                {"side": state.advance.side, "kind": "advance", "target": state.advance.target,
                 "options": list(state.advance.candidates)}
                if state.advance else None
            ),
        }
        if side is not None:
            out["side"] = side
            out["your_turn"] = side == state.active and not state.over
            out["can_move"] = [u.id for u in state.units if u.side == side and not (u.eliminated or u.moved) and u.where not in self.map.boxes] if out["your_turn"] else []
        return out

    def is_over(self, state: State) -> bool:
        return state.over and not state.pending

    # -- 7.0 / 8.0 movement ------------------------------------------------
    def enemy_hexes(self, state: State, side: str) -> frozenset[Hex]:
        return frozenset(
            self.map.hex(u.where) for u in state.units
            if u.side != side and not u.eliminated and u.where not in self.map.boxes
        )

    def movement_cost(self, state: State, side: str):
        """The 7.0/8.0 cost callback for ``side``'s units in ``state``."""
        gmap, charts = self.map, self.charts
        enemies = self.enemy_hexes(state, side)
        zoc = frozenset(n for e in enemies for n in e.neighbours())
        move = charts.movement

        def cost(a: Hex, b: Hex) -> StepCost | None:
            if not gmap.contains(b):
                return None
            terrain = gmap.terrain_at(b)
            base = charts.terrain_cost(terrain)
            if base is None:
                return StepCost.blocked(terrain)
            if b in enemies:
                return StepCost.blocked("an enemy unit is there")
            feats = gmap.hexside_features(a, b)
            if "road" in feats:
                parts = [("road", move["road"])]
            elif "trail" in feats:
                parts = [("trail", move["trail"])]
            else:
                parts = [(terrain, base)]
            if "river" in feats:
                parts.append(("river", move["river"]))
            if b in zoc:
                parts.append(("enemy ZOC", move["enter_zoc"]))
            return StepCost.of(*parts)

        return cost

    def _move(self, state: State, action: Ordered) -> tuple[State, list[Event]]:
        order = action.order
        unit = state.unit(order["unit"])
        if unit.side != action.side or unit.eliminated:
            raise illegal("7.0", f"{unit.id} is not a unit of {action.side} on the map")
        if unit.moved:
            raise illegal("7.0", f"{unit.id} has already moved this turn")
        if unit.where in self.map.boxes:
            raise illegal("7.0", f"{unit.id} is in the {self.map.boxes[unit.where].name} and cannot move")
        path = list(order["path"])
        if not path or path[0] != unit.where:
            raise illegal("7.0", f"{unit.id}'s path must start in its hex {unit.where}, not {path[0] if path else 'nowhere'!r}")
        allowance = half_mp(self.counters.unit(unit.id).values(unit.flipped)["move"])
        route = validate_path(unit.id, path, allowance, self.movement_cost(state, unit.side), grid=self.map.grid, rule="7.0")
        end = self.map.label(route.end)
        new = replace(unit, where=end, moved=True)
        event = Event(
            "7.0",
            f"{unit.id} moves {' '.join(path)} for {format_mp(route.cost)} of {format_mp(allowance)}",
            {"unit": unit.id, "path": path, "cost_half_mp": route.cost},
        )
        return state.with_unit(new), [event]

    # -- 9.0 combat --------------------------------------------------------
    def odds_column(self, attack: Fraction | int, defence: Fraction | int) -> str | None:
        """9.0: the CRT column for these strengths, rounded in the defender's
        favour; None below the first column."""
        ratio = Fraction(attack) / Fraction(defence)
        best = None
        for col in self.charts.table("crt").columns:
            a, b = col.split(":")
            if Fraction(int(a), int(b)) <= ratio:
                best = col
        return best

    def _attack(self, state: State, action: Ordered) -> tuple[State, list[Event]]:
        order, side = action.order, action.side
        target = order["target"]
        target_hex = self.map.hex(target)
        defenders = tuple(u for u in state.at(target) if u.side != side)
        if not defenders:
            raise illegal("9.0", f"no enemy unit in {target} to attack")
        if any(c.target == target for c in state.pending):
            raise illegal("9.0", f"{target} is already attacked")
        if not order["with"]:
            raise illegal("9.0", f"the attack on {target} names no attacker")
        attackers = []
        for uid in order["with"]:
            u = state.unit(uid)
            if u.side != side or u.eliminated:
                raise illegal("9.0", f"{uid} is not a unit of {side} on the map")
            if u.attacked or uid in (a.id for a in attackers):
                raise illegal("9.0", f"{uid} has already attacked this turn")
            if u.where in self.map.boxes or not self.map.hex(u.where).is_adjacent(target_hex):
                raise illegal("9.0", f"{uid} in {u.where} is not adjacent to {target}")
            attackers.append(u)
        strength = lambda us: sum(self.counters.unit(u.id).values(u.flipped)["combat"] for u in us)  # noqa: E731
        att, dfn = strength(attackers), strength(defenders)
        column = self.odds_column(att, dfn)
        if column is None:
            raise illegal("9.0", f"odds {att}:{dfn} are below the CRT's first column")
        table, values = self.charts.table("crt"), self.charts.values
        shifts = []
        terrain = self.map.terrain_at(target_hex)
        if f"column_shift_{terrain}" in values:
            shifts.append((f"defender in {terrain}", int(values[f"column_shift_{terrain}"])))
        if target_hex in self.map.towns:
            shifts.append(("defender in a town", int(values["column_shift_town"])))
        if any(self.map.has("fortified", self.map.hex(u.where), target_hex) for u in attackers):
            shifts.append(("across a fortified hexside", int(values["column_shift_fortified"])))
        final = table.shift(column, sum(s for _, s in shifts))
        label = f"m{action.seq}.{action.index} attack {target}"
        combat = Combat(label, target, tuple(u.id for u in attackers), tuple(u.id for u in defenders), final, action.seq)
        marked = state
        for u in attackers:
            marked = marked.with_unit(replace(u, attacked=True))
        why = "".join(f", {'left' if s < 0 else 'right'} {abs(s)} ({what})" for what, s in shifts)
        text = (
            f"{', '.join(combat.attackers)} ({att}) attack {', '.join(combat.defenders)} in {target} ({dfn}): "
            + (f"{column}{why} -> {final}" if shifts else f"at {final}")
            + "; one die is due"
        )
        return replace(marked, pending=marked.pending + (combat,)), [
            Event("9.0", text, {"label": label, "column": final, "attack": att, "defence": dfn})
        ]

    def _resolve(self, state: State, action: DiceRolled) -> tuple[State, list[Event]]:
        combat = next((c for c in state.pending if c.label == action.label), None)
        if combat is None:
            raise illegal("9.0", f"no die is due for {action.label!r}")
        if len(action.values) != 1 or not 1 <= action.values[0] <= 6:
            raise illegal("9.0", f"{action.label}: expected one d6, got {action.values!r}")
        roll = action.values[0]
        result = self.charts.table("crt").result(combat.column, roll)
        hit = {
            "-": ((), ""),
            "AF": (combat.attackers, "flip"),
            "DF": (combat.defenders, "flip"),
            "EX": (combat.attackers + combat.defenders, "flip"),
            "AE": (combat.attackers, "eliminate"),
            "DE": (combat.defenders, "eliminate"),
        }[result]
        fates = []
        new = replace(state, pending=tuple(c for c in state.pending if c.label != action.label))
        for uid in hit[0]:
            u = new.unit(uid)
            if hit[1] == "eliminate" or u.flipped:
                new = new.with_unit(replace(u, eliminated=True))
                fates.append(f"{uid} eliminated")
            else:
                new = new.with_unit(replace(u, flipped=True))
                fates.append(f"{uid} flipped")
        events = [Event(
            "9.1",
            f"combat at {combat.target}: {combat.column}, roll {roll} -> "
            + (f"{result}: {', '.join(fates)}" if fates else "no effect"),
            {"label": combat.label, "roll": roll, "result": result},
        )]
        new, more = self._offer_advance(new, combat)
        events += more
        for side in self.sides:
            if not any(u.side == side and not u.eliminated for u in new.units):
                new = replace(new, over=True)
                events.append(Event("3.0", f"{side} has no unit left; the game is over"))
        return new, events

    # -- 3.0 sequence --------------------------------------------------------
    def _end(self, state: State, action: MessageEnd) -> tuple[State, list[Event]]:
        if state.over or action.side != state.active or action.seq < SETUP_MESSAGES:
            return state, []
        first, second = self.scenario["scenario"]["first"], next(s for s in self.sides if s != self.scenario["scenario"]["first"])
        fresh = tuple(replace(u, moved=False, attacked=False) for u in state.units)
        if state.active == first:
            return replace(state, active=second, units=fresh), [Event("3.0", f"{first}'s turn {state.turn} ends; {second} moves")]
        if state.turn >= state.last_turn:
            return replace(state, units=fresh, over=True), [Event("3.0", f"turn {state.turn} was the last; the game is over")]
        nxt = state.turn + 1
        return replace(state, turn=nxt, active=first, units=fresh), [Event("3.0", f"turn {state.turn} ends; turn {nxt} begins, {first} moves")]


GAME = EngineTestGame()
