"""The Road to Bataan: The Delay at Calumpit Bridge -- pbem as the referee of
a miniatures game.

pbem cannot see the table: the players measure distances and say what is
where; pbem rolls every die, reads every table, runs the event decks and
the Japanese attack generation, and keeps the score (figures, MORALE GRADE,
ammunition, bridges, the victory conditions).

Sides
    ``american``  the American/Philippine defenders (US Army, Philippine
                  Scouts, Philippine Army)
    ``japanese``  the Japanese player -- or the umpire, who also plays the
                  allied roles the event cards call for.  In ``pbem solo
                  calumpit`` the house plays this side.
Any side may give any order: the source has the "Japanese" players take
allied roles when a card says so, and an umpire acts for both.  The log
shows who gave each order.  The one exception is a card's draw (Spades 4):
only the player the card names draws it.

The turn (SEQUENCE): turn 1 begins at the end of message 0 with its event
check.  Then the sides alternate messages; each message carries that side's
orders (moves, fire, ...).  When a side has moved and fired all its units it
gives ``done``; when both have, the turn ends: the end-of-turn event check,
then the next turn's start check, the barrages due and the snipers' shots.

Dice (docs/protocol.md §6.3): every roll an order needs becomes due when the order is
applied and is keyed by the message that carried it -- the author's own
orders are the only decisions those dice resolve.  Rolls that depend on
facts only the table shows (which figures are inside a burst, who is on the
bridge for the Joker) are separate orders, so their dice are keyed by the
message that reported the facts.  Orders are resolved in order, one task at
a time; the event checks come after the message's orders.

Orders (``[[order]]`` tables with a ``type``; see ``orders.ORDERS``)::

    move       kind = "infantry" terrain = "jungle" unit = "1-SQD"
    fire       weapon = "rifle" range = 30 figures = 12 terrain = "foxhole" target = "J-INF-1"
    save       hits = 2 terrain = "woods" unit = "2-SQD"
    indirect   weapon = "stokes" unit = "MORTAR" at = "the tree line"
    burst      weapon = "mortar" figures = 4 terrain = "open" unit = "J-INF-1"
    grenade    range = 5 figures = 3 target = "J-INF-1"
    tankfire   gun = "us-37mm" range = 25 target = "J-LT-1" moving_target = true
    melee      attacker = "J-INF-1" defender = "2-SQD" pairs = ["charging bayonet vs foxhole", "vs foxhole"]
    morale     unit = "3-SQD" position = "open" officer = true
    loss       unit = "2-SQD" men = 1 sergeants = 1
    status     unit = "J-LT-1" status = "eliminated"
    ammo       unit = "ARTY" rounds = 10
    add        unit = "PA-2" side = "american" nationality = "pa" kind = "infantry" figures = 12
    spot       kind = "tank" in_los = false distance = 20
    report     japanese_at_bridge = false americans = "north" destroyed = "rail"
    demolition bridge = "road" japanese_within_6 = true officer = true
    call       mission = "H9" at = "the cross roads"
    draw       deck = "red"                      (condition = false: the card's condition does not hold)
    sniped     sniper = "J-SNP-1" terrain = "woods"   (a card sniper's shot: save if hit, then morale)
    spotter    result = "attack" at = "the village square"   (or "driven-off", "shot-down")
    done / end

Rule ids in events and errors are the rule text's section names (DIRECT
FIRE, SAVING THROWS, INDIRECT FIRE, HAND-GRENADES, HAND-TO-HAND, MORALE,
TANK FIRE ACTIONS, AMMO, VISIBILITY/SPOTTING, MOVEMENT, EVENT CARDS, JAGT,
JAPANESE ENTRANCE, VICTORY CONDITIONS, SEQUENCE) and the cards' names
("Diamonds 6", "Hearts Jack", "Joker").
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, ClassVar, Mapping, Sequence

from pbem.engine import contract
from pbem.engine.later import Dice, NeedDice, dice_due, match_roll
from pbem.engine.machine import (
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
)
from pbem.errors import InputError, PbemError
from pbem.games.calumpit import effects, events, orders, rules, template
from pbem.games.calumpit.boardview import board_view
from pbem.games.calumpit.data import NATIONALITIES, CalumpitData
from pbem.games.calumpit.state import (
    AMERICAN,
    JAPANESE,
    SIDES,
    STATUSES,
    Barrage,
    Bridge,
    CalumpitState,
    DrawDue,
    Force,
    Mission,
    Pending,
    Sniped,
    Spotter,
    Task,
    canonical,
)

if TYPE_CHECKING:
    from pbem.engine.boardview import BoardView

replace = dataclasses.replace


class CalumpitGame:
    """Referee for *The Road to Bataan: The Delay at Calumpit Bridge*."""

    name: ClassVar[str] = "calumpit"
    version: ClassVar[str] = "2"  # 2: the audit fixes of 2026-11-29 (rules adjudicate differently)
    sides: ClassVar[tuple[str, str]] = (AMERICAN, JAPANESE)

    def __init__(self, data_dir: str | None = None):
        self.data = CalumpitData(data_dir)
        tb = self.data.tables
        self.choices: dict[str, tuple[str, ...]] = {
            "move_kinds": tuple(tb["movement"]["kinds"]),
            "move_terrains": tuple(tb["movement"]["terrains"]),
            "weapons": tuple(tb["direct_fire"]["weapons"]),
            "terrains": tuple(tb["terrain"]),
            "indirect": tuple(tb["indirect_fire"]["weapons"]),
            "bursts": tuple(tb["bursts"]),
            "guns": tuple(tb["tank_fire"]["guns"]),
            "tank_targets": tuple(tb["tank_fire"]["targets"]),
            "nationalities": NATIONALITIES,
            "statuses": STATUSES,
            "bridges": tuple(self.data.bridges),
        }
        self.modifiers: tuple[str, ...] = tuple(tb["hand_to_hand"]["modifiers"])

    # ------------------------------------------------------------------ contract

    def ruleset_files(self) -> Sequence[tuple[str, bytes]]:
        return self.data.files()

    def initial_state(self, setup: Mapping[str, Any]) -> CalumpitState:
        rules_given = setup.get("rules", [])
        if rules_given:
            raise InputError(f"Calumpit Bridge has no optional rules (got {', '.join(map(str, rules_given))})")
        units = tuple(effects.new_unit(self.data, ut, uid) for uid, ut in self.data.american)
        bridges = tuple(Bridge(bid, spec["name"]) for bid, spec in self.data.bridges.items())
        return CalumpitState(units=units, bridges=bridges, red=self.data.decks["red"], black=self.data.decks["black"])

    def scenario_state(self, doc: Mapping[str, Any]) -> CalumpitState:
        """A position for referee mode and tests (``pbem adjudicate``)::

            turn = 3                       # default 1 (started, event checks done)
            done = ["japanese"]
            removed = ["D2", "S4"]         # cards already drawn
            red = ["H3", "JR"]             # or: exactly the cards left in a deck
            demolition = "owed"
            grenades = 48
            may_draw = ["red"]             # or [{deck = "red", side = "american", card = "S4", condition = "..."}]
            [units.J-INF-1]                # a unit (new, or changes to a scenario unit)
            side = "japanese"  nationality = "japanese"  kind = "infantry"  figures = 30
            grade = 17  status = "active"  force = 1  ammo = 12  type = "infantry"
            [bridges.road]  hits = 1  status = "damaged"
            [facts]  americans = "north"
            [[missions]] id = "H9" ...     (Mission fields)
            [[barrages]] name = "D2" ...   (Barrage fields)
        """
        known = {"turn", "done", "removed", "red", "black", "demolition", "grenades", "may_draw", "units", "bridges",
                 "facts", "missions", "barrages", "phones", "co_movement", "forces", "sniped", "spotters"}
        unknown = sorted(set(doc) - known)
        if unknown:
            raise InputError(f"scenario: unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})", field=unknown[0])
        state = self.initial_state({})
        removed = set(doc.get("removed", []))
        for cid in removed:
            if cid not in self.data.cards:
                raise InputError(f"scenario: removed card {cid!r} is not a card", field="removed")
        decks = {}
        for deck in ("red", "black"):
            cards = doc.get(deck)
            if cards is None:
                cards = [c for c in self.data.decks[deck] if c not in removed]
            for cid in cards:
                if cid not in self.data.decks[deck]:
                    raise InputError(f"scenario: {cid!r} is not a card of the {deck} deck", field=deck)
            decks[deck] = tuple(c for c in self.data.decks[deck] if c in set(cards))
        fields = {f.name: f.type for f in dataclasses.fields(state.units[0])}
        for uid, spec in _table(doc, "units").items():
            spec = _table({uid: spec}, uid, f"units.{uid}")
            bad = sorted(set(spec) - set(fields))
            if bad:
                raise InputError(f"scenario: units.{uid}: unknown field(s) {', '.join(bad)}", field=f"units.{uid}")
            for name, value in spec.items():
                kind = bool if "bool" in fields[name] else int if "int" in fields[name] else str
                if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                    raise InputError(f"scenario: units.{uid}.{name} must be {kind.__name__}, got {value!r}",
                                     field=f"units.{uid}.{name}")
            unit = state.unit(uid)
            if unit is None:
                missing = [k for k in ("side", "nationality", "kind", "figures") if k not in spec]
                if missing:
                    raise InputError(f"scenario: units.{uid}: new units need {', '.join(missing)}", field=f"units.{uid}")
                unit = effects.Unit(id=uid, name=spec.get("name", uid), side=spec["side"], nationality=spec["nationality"],
                                    kind=spec["kind"], figures=spec["figures"])
            state = state.with_unit(replace(unit, **{k: v for k, v in spec.items() if k != "id"}))
        for bid, spec in _table(doc, "bridges").items():
            if bid not in self.data.bridges or not isinstance(spec, dict) or set(spec) - {"hits", "status"}:
                raise InputError(f"scenario: bridges.{bid}: a bridge ({', '.join(self.data.bridges)}) with hits and status",
                                 field=f"bridges.{bid}")
            state = state.with_bridge(replace(state.bridge(bid), **spec))
        for name, value in doc.get("facts", {}).items():
            state = state.with_fact(name, value)
        try:
            records = {name: tuple(cls(**item) for item in doc.get(name, []))
                       for name, cls in (("missions", Mission), ("barrages", Barrage), ("forces", Force),
                                         ("sniped", Sniped), ("spotters", Spotter))}
            draws = tuple(DrawDue(item) if isinstance(item, str) else DrawDue(**item) for item in doc.get("may_draw", []))
        except TypeError as err:
            raise InputError(f"scenario: may_draw, missions, barrages, forces, sniped or spotters: {err}") from err
        for d in draws:
            if d.deck not in ("red", "black") or d.side not in SIDES:
                raise InputError(f"scenario: may_draw: {d.deck!r} by {d.side!r}: a deck (red, black) and a side "
                                 f"({', '.join(SIDES)})", field="may_draw")
        return replace(
            state,
            turn=int(doc.get("turn", 1)),
            done=tuple(sorted(doc.get("done", []))),
            red=decks["red"],
            black=decks["black"],
            demolition=doc.get("demolition", ""),
            grenades=int(doc.get("grenades", 0)),
            may_draw=draws,
            phones=doc.get("phones", "in service"),
            co_movement=int(doc.get("co_movement", 0)),
            missions=records["missions"],
            barrages=records["barrages"],
            forces=records["forces"],
            sniped=records["sniped"],
            spotters=records["spotters"],
            drawn=tuple((c, 0, "scenario") for c in sorted(removed)),
        )

    def active_side(self, state: CalumpitState) -> str:
        return AMERICAN

    def is_over(self, state: CalumpitState) -> bool:
        return state.over

    def is_ending(self, state: CalumpitState) -> bool:
        return bool(state.ending_by)

    def audit(self, state: CalumpitState, stores: Mapping[str, Mapping[str, str]]) -> list[str]:
        """Nothing is hidden in Calumpit Bridge: nothing to audit beyond the protocol."""
        return []

    # ------------------------------------------------------------------ orders

    def parse_orders(self, document: Mapping[str, Any], side: str) -> ParsedOrders:
        public = orders.parse_document(document, self.choices, self.modifiers)
        ends = any(o["type"] == "end" for o in public)
        return ParsedOrders(public=tuple(public), ends_game=ends)

    def parse_line(self, line: str) -> dict[str, Any]:
        """One order typed on a line (solo play), normalised."""
        return orders.parse_order(orders.parse_line(line), "order", self.choices, self.modifiers)

    # ------------------------------------------------------------------ the state machine

    def apply(self, state: CalumpitState, action: Any) -> tuple[CalumpitState, list[Event]]:
        if isinstance(action, Ordered):
            return self._ordered(state, action)
        if isinstance(action, DiceRolled):
            return self._rolled(state, action)
        if isinstance(action, MessageEnd):
            if state.over:
                return state, []
            task = Task(f"{action.seq:04d}.end", "message-end", action.side, action.seq, "{}")
            return self._pump(replace(state, seq=action.seq, tasks=state.tasks + (task,)))
        if isinstance(action, (Sealed, Opened)):
            raise illegal("SEQUENCE", "Calumpit Bridge has no sealed values: the event decks are drawn lazily")
        raise TypeError(f"unknown action {action!r}")

    def _ordered(self, state: CalumpitState, action: Ordered) -> tuple[CalumpitState, list[Event]]:
        where = f"order {action.index + 1} of message {action.seq:04d}"
        if state.over:
            raise illegal("VICTORY CONDITIONS", f"{where}: the game is over ({state.verdict})")
        if state.ending_by:
            raise illegal("VICTORY CONDITIONS", f"{where}: {state.ending_by} ended the game; the reply carries no orders")
        try:
            order = orders.parse_order(action.order, where, self.choices, self.modifiers)
        except InputError as err:
            raise illegal("SEQUENCE", f"not a valid Calumpit order: {err}") from err
        if order != dict(action.order):
            raise illegal("SEQUENCE", f"{where} is not in normal form: {dict(action.order)!r}")
        rules.CHECKS[order["type"]](self.data, state, action.side, order, rules.queued_adds(state))
        if order["type"] == "end":  # at once: the message that ends the game carries its author's secret
            return rules.run_end(self.data, replace(state, seq=action.seq), action.side, order, Dice())
        task = Task(f"{action.seq:04d}.{action.index}", order["type"], action.side, action.seq, canonical(order))
        return self._pump(replace(state, seq=action.seq, tasks=state.tasks + (task,)))

    def _rolled(self, state: CalumpitState, action: DiceRolled) -> tuple[CalumpitState, list[Event]]:
        match_roll(dice_due(self.awaiting(state)), action, "SEQUENCE")
        due = state.pending  # the one roll Calumpit ever awaits
        assert due is not None
        head = state.tasks[0]
        head = replace(head, rolled=head.rolled + ((due.name, due.sides, tuple(action.values)),))
        return self._pump(replace(state, pending=None, tasks=(head,) + state.tasks[1:]))

    def _pump(self, state: CalumpitState) -> tuple[CalumpitState, list[Event]]:
        """Run the tasks in order until one needs dice (or none is left)."""
        out: list[Event] = []
        while state.tasks and state.pending is None and not state.over:
            task = state.tasks[0]
            dice = Dice({name: (sides, values) for name, sides, values in task.rolled})
            try:
                new, evs = self._run(state, task, dice)
            except NeedDice as need:
                pending = Pending(f"{task.id}/{need.name}", need.count, need.sides, task.key_seq, need.purpose, need.name)
                return replace(state, pending=pending), out
            except PbemError:
                raise
            new = replace(new, tasks=new.tasks[1:])
            new, more = effects.victory_check(new)
            out += evs + more
            state = new
        return state, out

    def _run(self, state: CalumpitState, task: Task, dice: Dice) -> tuple[CalumpitState, list[Event]]:
        if task.kind == "message-end":
            return events.message_end(self.data, state, dice, task.side)
        return rules.RUNS[task.kind](self.data, state, task.side, task.args, dice)

    # ------------------------------------------------------------------ queries

    def awaiting(self, state: CalumpitState) -> tuple[Any, ...]:
        due: list[Any] = []
        if state.pending is not None:
            p = state.pending
            due.append(DiceDue(p.label, p.count, p.sides, p.key_seq, p.purpose))
        if state.over:
            return tuple(due)
        if state.demolition == "owed":
            due.append(DecisionDue(AMERICAN, "demolition", "the engineers attempt to blow the bridge: give a demolition "
                                   "order with the modifiers as they stand on the table", rule="Joker"))
        # what an order already in the queue will settle is no longer awaited
        ordered = [task for task in state.tasks if task.kind in ("draw", "sniped", "spotter")]

        def settled(kind: str, **args: Any) -> bool:
            task = next((t for t in ordered if t.kind == kind and all(t.args.get(k) == v for k, v in args.items())), None)
            if task is not None:
                ordered.remove(task)
            return task is not None

        for d in state.may_draw:
            if settled("draw", deck=d.deck):
                continue
            card = self.data.card(d.card) if d.card in self.data.cards else None
            due.append(DecisionDue(
                d.side, "draw", (f"{card.name}: " if card else "") + (f"{d.condition}, " if d.condition else "")
                + f"draw a {d.deck} card (or report that the condition does not hold)",
                (f'draw deck = "{d.deck}"', f'draw deck = "{d.deck}" condition = false'),
                rule=card.rule if card else "EVENT CARDS"))
        for s in state.sniped:
            if settled("sniped", sniper=s.sniper):
                continue
            target = state.unit(s.unit) if s.unit else None
            who = s.unit or "the unit it fired at"
            what = f"{who} rolls the hit figure's saving throw, then checks morale" if s.hit else f"{who} checks morale"
            due.append(DecisionDue(
                target.side if target is not None else AMERICAN, "sniped",
                f"{s.sniper} {'hit' if s.hit else 'missed'} {s.target} in turn {s.turn}: {what} -- give a sniped "
                f"order with the target's terrain (Morale is checked anytime a unit takes fire)", rule="MORALE"))
        for sp in state.spotters:
            if settled("spotter"):
                continue
            due.append(DecisionDue(
                JAPANESE, "spotter", f"the spotter aircraft circles: {sp.condition}, the Japanese make the artillery "
                f"attack on {sp.target} (spotter order, result = attack); or it is driven off or shot down",
                ("attack", "driven-off", "shot-down"), rule=sp.rule))
        return tuple(due)

    def orders_template(self, state: CalumpitState, side: str, secrets: Mapping[str, str]) -> Any:
        """The game's part of ``pbem orders DIR``: the order types with their
        fields and allowed values, the units, what is owed, example orders
        (:mod:`pbem.games.calumpit.template`)."""
        return template.sections(self, state, side, secrets)

    def board_view(self, view: Mapping[str, Any]) -> "BoardView":
        """What the renderers draw of ``view`` (:mod:`pbem.games.calumpit.boardview`)."""
        return board_view(self.sides, contract.side_colours(self), view)

    def view(self, state: CalumpitState, side: str | None, secrets: Mapping[str, str] | None = None) -> dict[str, Any]:
        """Everything is public; every side and a spectator see the same."""
        spent = effects.japanese_force_spent(state)
        return {
            "game": self.name,
            "turn": state.turn,
            "done": list(state.done),
            "over": state.over,
            "ending_by": state.ending_by,
            "winner": state.winner,
            "verdict": state.verdict,
            "decks": {"red": len(state.red), "black": len(state.black)},
            "drawn": [{"card": c, "name": self.data.card(c).name, "turn": turn, "when": when} for c, turn, when in state.drawn],
            "units": [
                {"id": u.id, "side": u.side, "name": u.name, "nationality": u.nationality, "kind": u.kind,
                 "figures": u.figures, "grade": u.grade, "status": u.status,
                 **({"ammo": u.ammo} if u.ammo is not None else {}), **({"force": u.force} if u.force else {})}
                for u in state.units
            ],
            "bridges": [{"id": b.id, "name": b.name, "hits": b.hits, "status": b.status} for b in state.bridges],
            "phones": state.phones,
            "grenades": state.grenades,
            "may_draw": [{"deck": d.deck, "side": d.side, "card": d.card, "condition": d.condition}
                         for d in state.may_draw],
            "sniped": [{"sniper": s.sniper, "target": s.target, "unit": s.unit, "hit": s.hit, "turn": s.turn}
                       for s in state.sniped],
            "spotters": [{"card": sp.card, "condition": sp.condition, "turn": sp.turn} for sp in state.spotters],
            "demolition": state.demolition,
            "missions": [{"id": m.id, "name": m.name, "calls_left": m.calls_left, "last_turn": m.last_turn}
                         for m in state.missions],
            "barrages": [{"name": b.name, "target": b.target, "rounds": b.rounds, "first_turn": b.first_turn,
                          "turns_left": b.turns_left} for b in state.barrages],
            "forces": [{"number": f.number, "road": f.road, "broken_off": f.broken_off} for f in state.forces],
            "facts": dict(state.facts),
            "victory": {"american_condition": spent, "decisive": effects.decisive(state)[1]},
            "pending": state.pending.label if state.pending else None,
        }

    def summary(self, state: CalumpitState) -> list[str]:
        """A few lines for a terminal: turn, units, bridges, what is on call."""
        lines = [f"turn {state.turn}" + (f", done: {', '.join(state.done)}" if state.done else "")
                 + f"; cards left: red {len(state.red)}, black {len(state.black)}"]
        for side in SIDES:
            units = [u for u in state.units if u.side == side and u.in_action]
            if units:
                lines.append(f"{side}: " + ", ".join(
                    f"{u.id} {u.figures}f g{u.grade}" + (f" {u.status}" if u.status != "active" else "")
                    + (f" ammo {u.ammo}" if u.ammo is not None else "") for u in units))
        lines.append("bridges: " + ", ".join(f"{b.name} {b.status}" for b in state.bridges)
                     + f"; phones {state.phones}")
        if state.missions:
            lines.append("on call: " + ", ".join(f"{m.id} {m.name} ({m.calls_left} left)" for m in state.missions))
        if state.demolition == "owed":
            lines.append("the engineers must attempt the demolition (demolition order)")
        for d in state.may_draw:
            lines.append(f"the {d.side} player must draw a {d.deck} card" + (f" {d.condition}" if d.condition else "")
                         + " (draw order; condition = false if it does not hold)")
        for s in state.sniped:
            lines.append(f"{s.sniper}'s {'hit' if s.hit else 'miss'} on {s.unit or s.target}: its "
                         + ("save and morale check are" if s.hit else "morale check is") + " owed (sniped order)")
        for sp in state.spotters:
            lines.append(f"a spotter aircraft circles: {sp.condition}, the Japanese attack (spotter order)")
        spent = effects.japanese_force_spent(state)
        if spent:
            lines.append(f"American victory condition holds: the Japanese force is {spent}")
        if state.verdict:
            lines.append(state.verdict)
        return lines


def _table(doc: Mapping[str, Any], name: str, where: str = "") -> dict[str, Any]:
    value = doc.get(name, {})
    if not isinstance(value, dict):
        raise InputError(f"scenario: {where or name} must be a table", field=where or name)
    return value
