"""Ambon: Burning Sun & Little Seagulls -- the rules as a pure state machine.

Sides ``japanese`` and ``allied``.  A message by the phasing side carries its
orders for the current phase and, in order, for its following phases; the
phase pointer moves forward as orders of a later phase appear and at the end
of the message, and stops wherever the rules need the other side (a reveal)
or dice keyed by a later message (DESIGN 4.3).  The other side's messages
carry the reveals it owes, its decisions, or nothing.

Orders (``[[order]]`` tables; one verb each)::

    place = "AUS-HQ"      hex = "1215"                  # 4.1 Allied setup
    conceal = "X1"        hex = "0913"  is = "dummy"    # 4.1, identity sealed
    mine = "M1"           box = "mine-1" is = "real"    # 4.1, identity sealed
    wave = "fw-laha"      units = ["3.A", ...]          # 4.2 Japanese setup
    second_wave = "1:hitu-lama 2:laha"                  # 14.2, sealed note
    setup = "historical"                                # the scenario file's setup
    land = "fw-laha"  /  postpone = "fw-liang"          # 6.0
    move = "3.A: 1410 1509"                             # 7.0
    reveal = "X3"                                       # 13.1 (voluntary)
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping, Sequence

from pbem.engine.machine import (
    DecisionDue,
    DiceDue,
    DiceRolled,
    Event,
    MessageEnd,
    Opened,
    Ordered,
    ParsedOrders,
    RevealDue,
    Sealed,
    illegal,
    replace,
)
from pbem.engine.paths import format_mp, validate_path
from pbem.errors import IllegalOrderError, InputError
from pbem.games.ambon import battle, bombardment, landing, movement, recovery, setup, supply, victory
from pbem.games.ambon.data import OPTIONAL_RULES, AmbonData
from pbem.games.ambon.state import (
    A_BOMBARDMENT,
    A_COMBAT,
    A_MOVEMENT,
    ALLIED,
    ELIMINATED,
    GAME_OVER,
    J_BOMBARDMENT,
    J_COMBAT,
    J_MOVEMENT,
    JAPANESE,
    LANDING,
    OFF_MAP,
    PHASE_SIDE,
    PHASES,
    RECOVERY,
    REMOVED,
    SETUP_ALLIED,
    SETUP_JAPANESE,
    SUPPLY,
    AmbonState,
    Mine,
    Piece,
    Reveal,
    other,
)

OPTIONS = OPTIONAL_RULES
VERBS = {  # verb: (required fields, optional fields)
    "place": (("hex",), ()),
    "conceal": (("hex", "is"), ()),
    "mine": (("box", "is"), ()),
    "wave": (("units",), ()),
    "second_wave": ((), ()),
    "setup": ((), ()),
    "land": ((), ()),
    "postpone": ((), ()),
    "move": ((), ()),
    "attack": (("with",), ("hq",)),
    "bombard": (("target",), ()),
    "surrender": ((), ()),
    "support": ((), ("target",)),
    "advance": ((), ("target",)),
    "reveal": ((), ()),
}
STANDING_KINDS = {
    "hq-support": ("always", "never"),  # 11.1: support the defence whenever an HQ can
    "advance": ("always", "never"),  # 11.4: advance every eligible attacker into an emptied hex
    "retreat": ("retreat", "hit"),  # 11.3: answer an "r" result
    "retreat-to": None,  # 11.3: hexes to retreat into, in order of preference, when 11.3 leaves a choice: "1708 1607"
    "surrender": ("never",),  # 3.2: fight on at the start of turn 8 (turns.toml) without being asked
    "losses": None,  # 11.3: units in the order they take hits, e.g. "3.C 3.A"
}
ORDER_PHASE = {
    "place": SETUP_ALLIED,
    "conceal": SETUP_ALLIED,
    "mine": SETUP_ALLIED,
    "wave": SETUP_JAPANESE,
    "second-wave": SETUP_JAPANESE,
    "land": LANDING,
    "postpone": LANDING,
}


def _where(index: int, verb: str) -> str:
    return f"order {index + 1} ({verb})"


class AmbonGame:
    """Full adjudication of Ambon (this module: setup, sequence of play,
    landings, movement, zones of control, stacking, control)."""

    name: ClassVar[str] = "ambon"
    version: ClassVar[str] = "2"  # 2: the audit fixes of 2026-11-29 (advance, retreat, landings, recovery, 8.0 moves)
    sides: ClassVar[tuple[str, str]] = (JAPANESE, ALLIED)
    side_colours: ClassVar[dict[str, str]] = {JAPANESE: "#c8a165", ALLIED: "#3b6fb6"}

    def __init__(self, data_dir: str | None = None):
        self.data = AmbonData(data_dir)
        self.map = self.data.map

    # ------------------------------------------------------------------ contract

    def ruleset_files(self) -> Sequence[tuple[str, bytes]]:
        return self.data.files()

    def initial_state(self, setup_options: Mapping[str, Any]) -> AmbonState:
        options = tuple(sorted(setup_options.get("rules", [])))
        unknown = [o for o in options if o not in OPTIONS]
        if unknown:
            raise InputError(f"unknown optional rule(s) {', '.join(unknown)}; Ambon's are {', '.join(OPTIONS)}")
        pieces = [Piece(u, ALLIED, "") for u in setup.allied_units(self.data, options)]
        pieces += [Piece(x, ALLIED, "", concealed=True) for x in self.data.concealed_slots]
        pieces += [Piece(u, JAPANESE, "") for u in self.data.unit_ids(JAPANESE)]
        mines = tuple(Mine(m, "") for m in self.data.mine_slots)
        return AmbonState(turn=self.data.first_turn, phase=SETUP_ALLIED, pieces=tuple(pieces), mines=mines,
                          options=options)

    def scenario_state(self, doc: Mapping[str, Any]) -> AmbonState:
        """A position for referee mode and tests (``pbem adjudicate``)::

            turn = 2
            phase = "japanese-movement"
            options = ["14.2"]
            disrupted = ["AUS-B"]
            beachheads = ["0713"]
            [positions]   "3.A" = "1410"       (units not listed are not in play)
            [concealed]   X1 = "1409"          (identity unknown to the Japanese)
            [revealed]    X2 = "detachment"    (a concealed piece already revealed)
            [secret]      X1 = "detachment"    (what the referee knows: answers reveals)
            [mines]       M1 = "mine-1"
            [penalties]   "3.A" = "-2mp"
            [control]     "1809" = 3           (Japanese-held key location: turn taken)
            [standing.allied] hq-support = "always"  (a side's standing instructions, DESIGN 4.3:
                                                  the answers the other side's decisions need)
        """
        known = {"turn", "phase", "options", "disrupted", "beachheads", "positions", "concealed", "secret",
                 "mines", "penalties", "control", "revealed", "standing"}
        unknown = sorted(set(doc) - known)
        if unknown:
            raise InputError(f"scenario: unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})", field=unknown[0])

        def table(key: str) -> Mapping[str, Any]:
            value = doc.get(key, {})
            if not isinstance(value, Mapping) or not all(isinstance(v, (str, int)) for v in value.values()):
                raise InputError(f"scenario: [{key}] must be a table of names to strings", field=key)
            return value

        def names(key: str) -> list[str]:
            value = doc.get(key, [])
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise InputError(f"scenario: {key} must be a list of strings", field=key)
            return value

        def number(key: str, value: Any) -> int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise InputError(f"scenario: {key} = {value!r} must be a whole number", field=key)
            return value

        options = names("options")
        state = self.initial_state({"rules": options})
        phase = doc.get("phase", J_MOVEMENT)
        if phase not in PHASES:
            raise InputError(f"scenario: phase {phase!r} is not one of {', '.join(PHASES)}", field="phase")
        pieces = {p.id: replace(p, where="") for p in state.pieces}

        def piece(key: str, pid: str, concealed: bool | None = None) -> Piece:
            if pid not in pieces or (concealed is not None and pieces[pid].concealed != concealed):
                what = f"a concealed piece ({setup.span(self.data.concealed_slots)})" if concealed else "a unit of this game"
                raise InputError(f"scenario: [{key}] {pid!r} is not {what}", field=key)
            return pieces[pid]

        for key, concealed in (("positions", False), ("concealed", True)):
            for pid, where in table(key).items():
                if not isinstance(where, str):
                    raise InputError(f"scenario: [{key}] {pid} = {where!r}: give a hex or box as a string", field=key)
                if where[:1].isdigit():
                    self.map.hex(where)
                elif where not in self.map.boxes and where not in (ELIMINATED, OFF_MAP):
                    raise InputError(f"scenario: {pid} is placed in {where!r}, neither a hex nor a box", field=key)
                pieces[pid] = replace(piece(key, pid, concealed), where=where)
        for pid, identity in table("revealed").items():
            if identity not in ("detachment", "dummy"):
                raise InputError(f"scenario: [revealed] {pid} = {identity!r}: detachment or dummy", field="revealed")
            pieces[pid] = replace(piece("revealed", pid, True), concealed=False, identity=identity)
        for pid in names("disrupted"):
            pieces[pid] = replace(piece("disrupted", pid), disrupted=True)
        for pid, penalty in table("penalties").items():
            if penalty not in ("no-move", "opposed") and movement.mp_penalty(penalty) is None:
                raise InputError(f"scenario: [penalties] {pid} = {penalty!r}: -2mp (any -Nmp), no-move or opposed",
                                 field="penalties")
            pieces[pid] = replace(piece("penalties", pid), penalty=penalty)
        mines_at = table("mines")
        for marker in mines_at:
            if marker not in self.data.mine_slots:
                raise InputError(f"scenario: [mines] {marker!r} is not a mine marker "
                                 f"({setup.span(self.data.mine_slots)})", field="mines")
        for hexlabel in names("beachheads"):
            self.map.hex(hexlabel)
        control = tuple((self.map.label(self.map.hex(h)), number("control", t)) for h, t in table("control").items())
        turn = number("turn", doc.get("turn", self.data.first_turn))
        if not self.data.first_turn <= turn <= self.data.last_turn:
            raise InputError(f"scenario: turn {turn} is not on the turn track "
                             f"({self.data.first_turn}-{self.data.last_turn})", field="turn")
        standing = state.standing
        given = doc.get("standing", {})
        if not isinstance(given, Mapping):
            raise InputError("scenario: [standing] must hold one table per side, e.g. [standing.allied]", field="standing")
        for side, instructions in given.items():
            if side not in self.sides or not isinstance(instructions, Mapping):
                raise InputError(f"scenario: [standing.{side}]: a table per side ({', '.join(self.sides)})",
                                 field="standing")
            for order in self.parse_orders({"standing": dict(instructions)}, side).public:
                standing = standing.updated(side, {k: v for k, v in order.items() if k != "type"})
        return replace(
            state,
            turn=turn,
            phase=phase,
            pieces=tuple(pieces.values()),
            mines=tuple(Mine(m, str(mines_at.get(m, ""))) for m in self.data.mine_slots),
            beachheads=tuple(names("beachheads")),
            control=control,
            sealed=tuple((ALLIED, slot) for slot in self.data.concealed_slots + self.data.mine_slots),
            standing=standing,
        )

    def scenario_secrets(self, doc: Mapping[str, Any]) -> dict[str, str]:
        """What the referee knows of the hidden pieces: used to answer reveals."""
        return dict(doc.get("secret", {}))

    def is_over(self, state: AmbonState) -> bool:
        return state.phase == GAME_OVER

    def active_side(self, state: AmbonState) -> str:
        return PHASE_SIDE.get(state.phase) or ALLIED

    # ------------------------------------------------------------------ orders (syntax)

    def parse_orders(self, document: Mapping[str, Any], side: str) -> ParsedOrders:
        unknown = sorted(set(document) - {"order", "standing"})
        if unknown:
            raise InputError(f"orders: unknown top-level key(s) {', '.join(unknown)}", field=unknown[0])
        from pbem.engine import standing

        instructions = standing.parse(document, STANDING_KINDS)
        if "retreat-to" in instructions:
            try:
                hexes = [self.map.label(self.map.hex(h)) for h in instructions["retreat-to"].split()]
            except InputError as err:
                raise InputError(f"standing.retreat-to: {err} (give hexes in order of preference, e.g. \"1708 1607\")",
                                 field="standing.retreat-to") from err
            instructions["retreat-to"] = " ".join(hexes)
        orders = document.get("order", [])
        if not isinstance(orders, list):
            raise InputError("orders: 'order' must be an array of tables ([[order]])", field="order")
        public: list[dict[str, Any]] = []
        seals: dict[str, str] = {}
        reveals: list[str] = []
        for i, order in enumerate(orders):
            if not isinstance(order, Mapping):
                raise InputError(f"order {i + 1}: must be a table", field="order")
            verbs = [k for k in order if k in VERBS]
            if len(verbs) != 1:
                raise InputError(
                    f"order {i + 1}: give exactly one of {', '.join(VERBS)} (got {', '.join(sorted(order)) or 'nothing'})",
                    field="order",
                )
            verb = verbs[0]
            where = _where(i, verb)
            extra = set(order) - {verb} - set(VERBS[verb][0]) - set(VERBS[verb][1])
            missing = [k for k in VERBS[verb][0] if k not in order]
            if extra or missing:
                raise InputError(
                    f"{where}: " + ", ".join([f"unknown field {k!r}" for k in sorted(extra)] + [f"missing field {k!r}" for k in missing]),
                    field=(sorted(extra) + missing)[0],
                )
            value = order[verb]
            if verb not in ("second_wave", "advance") and not isinstance(value, str):
                raise InputError(f"{where}: {verb} must be a string, got {value!r}", field=verb)
            if verb == "place":
                public.append({"type": "place", "unit": value, "hex": self._hexlabel(order["hex"], where)})
            elif verb == "conceal":
                self._slot_value(order["is"], ("dummy", "detachment"), where)
                public.append({"type": "conceal", "piece": value, "hex": self._hexlabel(order["hex"], where)})
                seals[value] = order["is"]
            elif verb == "mine":
                self._slot_value(order["is"], ("real", "dummy"), where)
                public.append({"type": "mine", "marker": value, "box": str(order["box"])})
                seals[value] = order["is"]
            elif verb == "wave":
                units = order["units"]
                if not isinstance(units, list) or not all(isinstance(u, str) for u in units):
                    raise InputError(f"{where}: units must be a list of unit ids", field="units")
                public.append({"type": "wave", "box": value, "units": list(units)})
            elif verb == "second_wave":
                if not isinstance(value, str):
                    raise InputError(f"{where}: second_wave must read like \"1:hitu-lama 2:laha\"", field=verb)
                try:
                    plan = setup.parse_second_wave_note(self.data, value)
                except IllegalOrderError as err:
                    raise InputError(f"{where}: {err}", field=verb) from err
                public.append({"type": "second-wave", "battalions": sorted(plan)})
                seals[setup.SECOND_WAVE_SLOT] = value
            elif verb == "setup":
                if value != "historical":
                    raise InputError(f"{where}: the only setup shortcut is \"historical\"", field=verb)
                more, more_seals = self._historical(side)
                public += more
                seals.update(more_seals)
            elif verb in ("land", "postpone"):
                public.append({"type": verb, "box": value})
            elif verb == "move":
                unit, sep, path = value.partition(":")
                hexes = path.split()
                if not sep or not unit.strip() or not hexes:
                    raise InputError(f"{where}: move must read 'UNIT: HEX HEX ...', got {value!r}", field=verb)
                public.append({"type": "move", "unit": unit.strip(), "path": [self._hexlabel(h, where) for h in hexes]})
            elif verb == "reveal":
                reveals.append(value)
            elif verb == "support":
                public.append({"type": "support", "hq": value, **({"target": self._hexlabel(order["target"], where)} if "target" in order else {})})
            elif verb == "attack":
                units = order["with"]
                if not isinstance(units, list) or not all(isinstance(u, str) for u in units):
                    raise InputError(f"{where}: with must be a list of unit ids", field="with")
                hq = order.get("hq", "")
                if not isinstance(hq, str):
                    raise InputError(f"{where}: hq must be an HQ's id", field="hq")
                public.append({"type": "attack", "target": self._hexlabel(value, where), "with": list(units), "hq": hq})
            elif verb == "bombard":
                target = order["target"]
                if not isinstance(target, str):
                    raise InputError(f"{where}: target must be a unit id", field="target")
                public.append({"type": "bombard", "unit": value, "target": target})
            elif verb == "surrender":
                if value not in ("yes", "no"):
                    raise InputError(f"{where}: surrender = \"yes\" or \"no\"", field=verb)
                public.append({"type": "surrender", "answer": value})
            elif verb == "advance":
                if not isinstance(value, list) or not all(isinstance(u, str) for u in value):
                    raise InputError(f"{where}: advance must be a list of unit ids ([] to stay)", field=verb)
                public.append({"type": "advance", "units": list(value), **({"target": self._hexlabel(order["target"], where)} if "target" in order else {})})
        if instructions:
            public.insert(0, {"type": "standing", **instructions})
        return ParsedOrders(public=tuple(public), seals=seals, reveals=tuple(reveals))

    def _hexlabel(self, text: Any, where: str) -> str:
        if not isinstance(text, str):
            raise InputError(f"{where}: hex must be a string like \"1609\", got {text!r}", field="hex")
        try:
            return self.map.label(self.map.hex(text))
        except InputError as err:
            raise InputError(f"{where}: {err}", field="hex") from err

    @staticmethod
    def _slot_value(value: Any, allowed: tuple[str, ...], where: str) -> None:
        if value not in allowed:
            raise InputError(f"{where}: is = {value!r} must be one of {', '.join(allowed)}", field="is")

    def _historical(self, side: str) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """The scenario file's setup for ``side`` as explicit orders (and, for
        the Allies, the example identities as seals)."""
        scen = self.data.scenario
        public: list[dict[str, Any]] = []
        seals: dict[str, str] = {}
        if side == ALLIED:
            allied = scen["allied"]
            for unit, hexlabel in allied["placements"].items():
                public.append({"type": "place", "unit": unit, "hex": hexlabel})
            for rule, table in scen.get("optional", {}).items():  # e.g. 14.4's two units, placed only with the rule
                for unit, hexlabel in table.get("placements", {}).items():
                    public.append({"type": "place", "unit": unit, "hex": hexlabel, "option": rule})
            secret = scen.get("secret", {})
            for piece, hexlabel in allied["concealed"].items():
                public.append({"type": "conceal", "piece": piece, "hex": hexlabel})
                seals[piece] = secret["concealed"][piece]
            for marker, box in allied["mines"].items():
                public.append({"type": "mine", "marker": marker, "box": box})
                seals[marker] = secret["mines"][marker]
        else:
            for box, units in scen["japanese"]["boxes"].items():
                public.append({"type": "wave", "box": box, "units": list(units)})
        return public, seals

    # ------------------------------------------------------------------ the state machine

    def apply(self, state: AmbonState, action: Any) -> tuple[AmbonState, list[Event]]:
        if state.phase == GAME_OVER and not isinstance(action, MessageEnd):
            raise illegal("5.0", "the game is over")
        if isinstance(action, Sealed):
            state, events = self._sealed(state, action)
        elif isinstance(action, Opened):
            state, events = self._opened(replace(state, seq=action.seq), action)
        elif isinstance(action, Ordered):
            state, events = self._ordered(replace(state, seq=action.seq), action)
        elif isinstance(action, DiceRolled):
            state, events = self._rolled(state, action)
        elif isinstance(action, MessageEnd):
            state, events = self._message_end(replace(state, seq=action.seq), action)
        else:
            raise TypeError(f"unknown action {action!r}")
        state, more = self._progress(state)
        return state, events + more

    def awaiting(self, state: AmbonState) -> tuple[Any, ...]:
        due: list[Any] = [RevealDue(r.side, r.slot, r.rule) for r in state.owed]
        for l in state.landings:
            if l.stage == "roll":
                due.append(DiceDue(landing.label(l), 1, 6, l.key_seq, f"landing on {self.data.lanes[l.lane].target}"))
        lc = state.landing_combat
        if lc is not None and lc.stage == "support":
            target = self.data.lanes[lc.lane].target
            options = tuple(landing.supporting_hqs(self.data, state, ALLIED, target)) + ("none",)
            due.append(DecisionDue(ALLIED, "hq-support", f"support the defence of {target}?", options, rule="11.1"))
        elif lc is not None:
            due.append(DiceDue(landing.combat_label(lc), 1, 6, lc.key_seq, f"landing combat on {self.data.lanes[lc.lane].target}"))
        for unit, target, key, defensive in state.bombardments:
            due.append(DiceDue(f"bombard {unit}", 1, 6, key, f"{unit} bombards {target}"))
        for pid, key in state.recoveries:
            due.append(DiceDue(f"recovery {pid}", 1, 6, key, f"recovery check of {pid}"))
        if state.surrender_offered:
            due.append(DecisionDue(ALLIED, "surrender", f"surrender at the start of turn {state.turn}?", ("yes", "no"),
                                   rule="3.2"))
        for b in state.battles:
            if b.stage == "support":
                options = tuple(battle.support_options(self.data, state, b)) + ("none",)
                due.append(DecisionDue(other(b.side), "hq-support", f"support the defence of {b.target}?", options, rule="11.1"))
            elif b.stage == "roll":
                due.append(DiceDue(battle.label(b), 1, 6, b.key_seq, f"combat at {b.target}"))
            elif b.stage == "advance":
                options = tuple(battle.advance_candidates(self.data, state, b))
                due.append(DecisionDue(b.side, "advance", f"advance into {b.target}?", options, rule="11.4"))
        return tuple(due)

    def orders_template(self, state: AmbonState, side: str, secrets: Mapping[str, str]) -> Any:
        """The game's part of ``pbem orders DIR``: reveals owed, open
        decisions, setup, landings, movement, bombardment targets, attacks
        and their odds, the bot's example orders
        (:mod:`pbem.games.ambon.template`)."""
        from pbem.games.ambon import template

        return template.sections(self, state, side, secrets)

    # ------------------------------------------------------------------ hidden information

    def _slot_owner(self, slot: str) -> str | None:
        if slot in self.data.concealed_slots or slot in self.data.mine_slots:
            return ALLIED
        if slot == setup.SECOND_WAVE_SLOT:
            return JAPANESE
        return None

    def _sealed(self, state: AmbonState, action: Sealed) -> tuple[AmbonState, list[Event]]:
        owner = self._slot_owner(action.slot)
        if owner != action.side:
            raise illegal("4.1", f"{action.side} cannot seal slot {action.slot!r}")
        phase = SETUP_ALLIED if owner == ALLIED else SETUP_JAPANESE
        if state.phase != phase:
            raise illegal("4.1", f"slot {action.slot!r} is sealed during the {phase} phase, not {state.phase}")
        if action.slot == setup.SECOND_WAVE_SLOT and not state.option("14.2"):
            raise illegal("14.2", "a Second Wave note is sealed only with optional rule 14.2")
        return replace(state, sealed=state.sealed + ((action.side, action.slot),)), []

    def _opened(self, state: AmbonState, action: Opened) -> tuple[AmbonState, list[Event]]:
        owner = self._slot_owner(action.slot)
        if owner != action.side:
            raise illegal("4.1", f"{action.side} has no slot {action.slot!r} to reveal")
        allowed = {"X": ("dummy", "detachment"), "M": ("real", "dummy")}.get(action.slot[0])
        if action.slot != setup.SECOND_WAVE_SLOT and action.value not in (allowed or ()):
            raise illegal("4.1", f"{action.slot} is revealed as {action.value!r}, which it cannot be")
        if state.opened(action.slot) is not None:
            raise illegal("4.1", f"{action.slot} is already revealed")
        state = replace(state, published=state.published + ((action.slot, action.value),))
        if state.owes(action.slot):
            return self._apply_reveal(state, action.slot)
        return state, []

    def _owe(self, state: AmbonState, reveals: Sequence[Reveal]) -> tuple[AmbonState, list[Event]]:
        """Reveals the rules demand now: made at once if already published in
        this message, else owed (answered by the owner's next message)."""
        events: list[Event] = []
        for reveal in reveals:
            if state.owes(reveal.slot):
                continue
            state = replace(state, owed=state.owed + (reveal,))
            if state.opened(reveal.slot) is not None:
                state, more = self._apply_reveal(state, reveal.slot)
                events += more
            else:
                events.append(Event(reveal.rule, f"{reveal.slot} must be revealed ({reveal.why})", {"slot": reveal.slot}))
        return state, events

    def _apply_reveal(self, state: AmbonState, slot: str) -> tuple[AmbonState, list[Event]]:
        state, events = self._reveal(state, slot)
        if state.pending_hits:
            state, more = battle.settle_hits(self.data, state)
            events += more
        return state, events

    def _reveal(self, state: AmbonState, slot: str) -> tuple[AmbonState, list[Event]]:
        value = state.opened(slot)
        reveal = next((r for r in state.owed if r.slot == slot), None)
        rule = reveal.rule if reveal else "13.1"
        state = replace(state, owed=tuple(r for r in state.owed if r.slot != slot))
        if slot in self.data.mine_slots:
            mine = state.mine(slot)
            state = state.with_mine(replace(mine, status=value))
            state, more = landing.ready(self.data, state, state.seq)
            return state, [
                Event(rule, f"mine marker {slot} in {mine.box} is revealed: {value}", {"slot": slot, "value": value})
            ] + more
        if slot == setup.SECOND_WAVE_SLOT:
            return self._place_second_wave(state, value)
        piece = state.piece(slot)
        if value == "dummy":
            state = state.with_piece(replace(piece, where=REMOVED, concealed=False, identity="dummy"))
            state, more = landing.ready(self.data, state, state.seq)
            return state, [Event(rule, f"{slot} in {piece.where} is revealed: a dummy, removed from the game",
                                 {"slot": slot, "value": value})] + more
        state = state.with_piece(replace(piece, concealed=False, identity="detachment"))
        events = [Event(rule, f"{slot} in {piece.where} is revealed: a detachment", {"slot": slot, "value": value})]
        state, more = self._entered(state, state.piece(slot), piece.where)  # 7.2: effects of its move
        state, more2 = landing.ready(self.data, state, state.seq)
        return state, events + more + more2

    def _place_second_wave(self, state: AmbonState, note: str) -> tuple[AmbonState, list[Event]]:
        """14.2: the note is revealed in the turn-1 Recovery Phase; the two
        battalions are placed.

        Where: where the rules would have had them by now without 14.2.  A
        Second Wave battalion moves up to its lane's First Wave box at the end
        of the turn-1 landings unless a non-artillery unit is still there
        (6.4), and lands on turn 2.  14.2 only keeps the beach secret, so each
        battalion is placed where that turn-1 6.4 step would have put it --
        the First Wave box if no non-artillery unit is in it (the boxes have
        not changed since the landings), else the Second Wave box -- and the
        note does not delay the landing by a turn.

        6.5: "Any Japanese units still scheduled to land in that hex are all
        eliminated" when the Allies capture a beachhead.  A battalion whose
        note names a beach the Allies captured before the note was revealed
        was scheduled to land there: it is eliminated now, when that becomes
        known (the sealed note cannot be read earlier)."""
        plan = setup.parse_second_wave_note(self.data, note)
        pieces = []
        events = [Event("14.2", f"the Second Wave note is revealed: {note}; the battalions are placed")]
        for battalion, lane_id in sorted(plan.items()):
            lane = self.data.lanes[lane_id]
            units = setup.BATTALIONS[battalion]
            if lane.target in state.lost_beachheads:
                pieces += [replace(state.piece(u), where=ELIMINATED) for u in units]
                events.append(Event("6.5", f"{', '.join(units)} were to land on {lane.target}, a beachhead the Allies "
                                           f"captured: they are eliminated"))
                continue
            blocking = [p for p in state.at(lane.first_wave) if not self.data.spec(p).artillery]
            box = lane.second_wave if blocking else lane.first_wave
            pieces += [replace(state.piece(u), where=box) for u in units]
            events.append(Event("6.4", f"{', '.join(units)} are placed in {box}"
                                + (f" ({blocking[0].id} is still in {lane.first_wave})" if blocking else
                                   " (as the turn-1 Second Wave step would have moved them up)")))
        state = replace(state.with_pieces(pieces), second_wave_note=note)
        return state, events

    # ------------------------------------------------------------------ orders (rules)

    def _ordered(self, state: AmbonState, action: Ordered) -> tuple[AmbonState, list[Event]]:
        order = action.order
        kind = order.get("type")
        side = action.side
        events: list[Event] = []
        if kind == "standing":
            instructions = {k: v for k, v in order.items() if k != "type"}
            said = ", ".join(f"{k} = {v}" for k, v in sorted(instructions.items()))
            return replace(state, standing=state.standing.updated(side, instructions)), [
                Event("DESIGN 4.3", f"{side} standing instructions: {said}")
            ]
        if kind == "support":
            if state.landing_combat is not None and state.landing_combat.stage == "support" and side == ALLIED:
                return landing.decide_support(self.data, state, order["hq"], action.seq)
            return battle.decide_support(self.data, state, side, order["hq"], order.get("target"), action.seq)
        if kind == "advance":
            return battle.advance(self.data, state, side, list(order["units"]), order.get("target"), self._entered)
        if kind == "surrender":
            return self._surrender(state, side, order["answer"])
        if kind == "bombard":
            return self._bombard(state, action)
        if kind == "attack":
            phase = J_COMBAT if side == JAPANESE else A_COMBAT
            state, events = self._reach(state, phase, side, action.index, kind)
            state, more = battle.declare(self.data, state, side, dict(order), action.seq)
            return state, events + more
        target_phase = ORDER_PHASE.get(kind)
        if kind == "move":
            target_phase = J_MOVEMENT if side == JAPANESE else A_MOVEMENT
        if target_phase is None:
            raise illegal("5.0", f"order {action.index + 1}: {kind!r} is not an Ambon order")
        if PHASE_SIDE[target_phase] != side:
            raise illegal("5.0", f"order {action.index + 1}: a {kind} order is the {PHASE_SIDE[target_phase]} player's")
        state, events = self._reach(state, target_phase, side, action.index, kind)
        handler = getattr(self, "_" + kind.replace("-", "_"))
        state, more = handler(state, action)
        return state, events + more

    def _reach(self, state: AmbonState, phase: str, side: str, index: int, kind: str) -> tuple[AmbonState, list[Event]]:
        """Move the phase pointer forward to ``phase`` for ``side``'s order,
        ending the phases between (5.0), if nothing blocks them."""
        events: list[Event] = []
        if PHASES.index(phase) < PHASES.index(state.phase) if state.phase in PHASES else True:
            raise illegal("5.0", f"order {index + 1}: a {kind} order belongs to the {phase} phase; it is the {state.phase} phase")
        while state.phase != phase:
            if PHASE_SIDE.get(state.phase) != side:
                raise illegal("5.0", f"order {index + 1}: it is the {state.phase} phase, not yet {phase}")
            blocker = self._blocker(state)
            if blocker:
                raise illegal("5.0", f"order {index + 1}: the {state.phase} phase cannot end yet: {blocker}")
            state, more = self._end_phase(state)
            events += more
        return state, events

    def _place(self, state: AmbonState, action: Ordered) -> tuple[AmbonState, list[Event]]:
        unit, where = action.order["unit"], action.order["hex"]
        option = action.order.get("option")
        if option is not None and not state.option(str(option)):
            return state, []  # a placement for an optional rule not in use
        if unit in self.data.concealed_slots or not state.has_piece(unit) or state.piece(unit).side != ALLIED:
            raise illegal("4.1", f"{unit!r} is not an Allied unit in this game")
        if self.map.terrain_at(self.map.hex(where)) == movement.SEA:
            raise illegal("4.1", f"{unit} cannot set up in the sea hex {where}")
        return state.with_piece(replace(state.piece(unit), where=where)), []

    def _conceal(self, state: AmbonState, action: Ordered) -> tuple[AmbonState, list[Event]]:
        pid, where = action.order["piece"], action.order["hex"]
        if pid not in self.data.concealed_slots:
            raise illegal("4.1", f"{pid!r} is not a concealed piece ({setup.span(self.data.concealed_slots)})")
        if self.map.hex(where) not in self.map.coastal:
            raise illegal("4.1", f"concealed piece {pid} must be placed on a coastal hex, not {where}")
        return state.with_piece(replace(state.piece(pid), where=where)), []

    def _mine(self, state: AmbonState, action: Ordered) -> tuple[AmbonState, list[Event]]:
        marker, box = action.order["marker"], action.order["box"]
        if box not in self.map.boxes or self.map.boxes[box].kind != "mines":
            mine_boxes = [b for b, spec in self.map.boxes.items() if spec.kind == "mines"]
            raise illegal("4.1", f"mine marker {marker} must go in a mine box ({', '.join(mine_boxes)}), not {box!r}")
        return state.with_mine(replace(state.mine(marker), box=box)), []

    def _wave(self, state: AmbonState, action: Ordered) -> tuple[AmbonState, list[Event]]:
        box, units = action.order["box"], action.order["units"]
        spec = self.map.boxes.get(box)
        if spec is None or spec.kind not in ("first-wave", "second-wave"):
            raise illegal("4.2", f"{box!r} is not a First or Second Wave box")
        pieces = []
        for unit in units:
            if not state.has_piece(unit) or state.piece(unit).side != JAPANESE:
                raise illegal("4.2", f"{unit!r} is not a Japanese unit")
            pieces.append(replace(state.piece(unit), where=box))
        return state.with_pieces(pieces), []

    def _second_wave(self, state: AmbonState, action: Ordered) -> tuple[AmbonState, list[Event]]:
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

    def _bombard(self, state: AmbonState, action: Ordered) -> tuple[AmbonState, list[Event]]:
        """10.0 (and 14.1 defensive bombardment in the enemy's Combat Phase)."""
        side, unit, target = action.side, action.order["unit"], action.order["target"]
        enemy_combat = A_COMBAT if side == JAPANESE else J_COMBAT
        defensive = state.phase == enemy_combat
        events: list[Event] = []
        if defensive:
            if not state.option("14.1"):
                raise illegal("10.0", f"{side} may bombard only in its own Bombardment Phase (14.1 is not in use)")
            if not state.battles or any(b.stage == "declared" for b in state.battles):
                raise illegal("14.1", "defensive bombardment comes after all combats have been declared")
        else:
            state, events = self._reach(state, J_BOMBARDMENT if side == JAPANESE else A_BOMBARDMENT, side, action.index, "bombard")
        if any(u == unit for u, *_ in state.bombardments):
            raise illegal("10.0", f"{unit} already bombards this turn")
        bombardment.check_bombardment(self.data, state, unit, target, defensive=defensive)
        state = replace(state, bombardments=state.bombardments + ((unit, target, action.seq, defensive),))
        return state, events + [Event("14.1" if defensive else "10.0",
                                      f"{unit} {'defensively ' if defensive else ''}bombards {target}; one die is due")]

    def _surrender(self, state: AmbonState, side: str, answer: str) -> tuple[AmbonState, list[Event]]:
        """3.2: the Allied decision at the start of turn 8 (turns.toml: the
        turn whose phases begin with the surrender option)."""
        if side != ALLIED or not state.surrender_offered:
            raise illegal("3.2", "no surrender decision is open")
        state = replace(state, surrender_offered=False)
        if answer == "no":
            return state, [Event("3.2", "the Allies fight on")]
        state = replace(state, surrendered=True)
        return self._game_over(state, [Event("3.2", f"the Allies surrender at the start of turn {state.turn}; the game ends")])

    def _land(self, state: AmbonState, action: Ordered) -> tuple[AmbonState, list[Event]]:
        return landing.start(self.data, state, action.order["box"], action.seq)

    def _postpone(self, state: AmbonState, action: Ordered) -> tuple[AmbonState, list[Event]]:
        box = action.order["box"]
        lane = self.data.lane_of_box(box)
        if lane is None or lane.first_wave != box or not state.at(box):
            raise illegal("6.0", f"{box!r} is not a First Wave box holding units")
        return state, [Event("6.0", f"the landing from {box} is postponed to the next turn")]

    def _move(self, state: AmbonState, action: Ordered) -> tuple[AmbonState, list[Event]]:
        """7.0-7.2, 8.0: move one unit along a path the player gives.

        8.0: when a Japanese unit's ZOC reaches a concealed unit, "it is
        immediately revealed"; the Allies make the reveal in their next
        message, so the Japanese unit stops there, and no Japanese unit moves
        until the reveal is made (its identity decides what the ZOC costs).
        The Movement Phase then goes on (:meth:`_progress`): "The Japanese
        unit may continue moving with its remaining MP"."""
        unit_id, path = action.order["unit"], list(action.order["path"])
        side = action.side
        if not state.has_piece(unit_id):
            raise illegal("7.0", f"there is no unit {unit_id!r}")
        piece = state.piece(unit_id)
        if piece.side != side or not piece.on_map:
            raise illegal("7.0", f"{unit_id} is not a {side} unit on the map")
        waiting = self._reveals_awaited(state, side)
        if waiting:
            raise illegal("8.0", f"{unit_id} cannot move yet: {', '.join(waiting)} must be revealed first "
                                 f"(the {other(side).capitalize()} player reveals in the next message; the Movement Phase then goes on)")
        if piece.penalty in ("no-move", "opposed"):
            rule = "6.3" if piece.penalty == "opposed" else "6.2"
            raise illegal(rule, f"{unit_id} landed this turn under a {'No Move' if rule == '6.2' else 'opposed landing'} marker and may not move")
        if side == ALLIED and self.data.turn(state.turn).allied_move_restricted \
                and unit_id not in movement.turn1_movers(self.data, state):
            raise illegal("7.1", f"on turn {state.turn} only Allied units within "
                                 f"{self.data.value('turn1_allied_move_radius')} land hexes of a Japanese unit may move; "
                                 f"{unit_id} in {piece.where} is not")
        if path[0] != piece.where:
            raise illegal("7.0", f"{unit_id}'s path must start in its hex {piece.where}, not {path[0]}")
        left = movement.allowance(self.data, piece) - piece.spent
        route = validate_path(
            unit_id, path, left, movement.movement_cost(self.data, state, side), grid=self.map.grid, rule="7.0"
        )
        events: list[Event] = []
        spent = piece.spent
        walked = [path[0]]
        for h, paid in zip(route.hexes[1:], route.steps):
            where = self.map.label(h)
            spent += paid
            walked.append(where)
            state = state.with_piece(replace(state.piece(unit_id), where=where, spent=spent, moved=True))
            state, more = self._entered(state, state.piece(unit_id), where)
            events += more
            if not state.piece(unit_id).on_map:
                break  # 7.2: a dummy revealed on the way is removed; its move ends
            if self._reveals_awaited(state, side):
                break  # 8.0: the reveal comes first
        paid = spent - piece.spent
        moved = Event("7.0", f"{unit_id} moves {' '.join(walked)} for {format_mp(paid)}"
                      + (f" ({format_mp(left - paid)} left)" if left - paid else ""),
                      {"unit": unit_id, "path": walked, "cost_half_mp": paid})
        events.insert(0, moved)
        waiting = self._reveals_awaited(state, side)
        if waiting and state.piece(unit_id).on_map and len(walked) < len(path):
            rest = f"; it may move on with its remaining {format_mp(left - paid)}" if left - paid else ""
            events.append(Event("8.0", f"{unit_id} stops in {walked[-1]} until {', '.join(waiting)} "
                                       f"{'is' if len(waiting) == 1 else 'are'} revealed (8.0){rest}"))
        return state, events

    def _reveals_awaited(self, state: AmbonState, side: str) -> list[str]:
        """Concealed units whose reveal the other side owes ``side`` (8.0,
        7.2): they are made in the other side's next message."""
        return [r.slot for r in state.owed if r.side != side and r.slot in self.data.concealed_slots]

    def _entered(self, state: AmbonState, piece: Piece, where: str) -> tuple[AmbonState, list[Event]]:
        """What happens when ``piece`` enters ``where`` -- by movement (7.0),
        landing (6.2, 6.3), advance after combat (11.4) or retreat (11.3) --
        or is revealed there: 8.0 and 7.2 reveals, 3.1 control, 6.5
        beachheads.  The one place these effects live (battle.Enter).

        8.0: a Japanese unit's ZOC reaching a concealed unit reveals it; "HQ
        units have no ZOC", so a Japanese HQ reveals nothing.  3.1: any unit,
        an HQ too ("HQs are units", 2.2.1), takes control of a key location."""
        events: list[Event] = []
        h = self.map.hex(where)
        if piece.side == JAPANESE:
            reach = [
                p for p in state.on_map(ALLIED)
                if p.concealed and self._zoc_reaches(h, self.map.hex(p.where))
            ] if movement.exerts_zoc(self.data, piece) else []
            state, more = self._owe(state, [Reveal(p.id, "8.0", f"{piece.id}'s ZOC reaches {p.where}") for p in reach])
            events += more
            if h in self.map.key_locations and state.controller(where) != JAPANESE:
                state = replace(state, control=state.control + ((where, state.turn),))
                events.append(Event("3.1", f"{piece.id} takes {self.map.key_locations[h].name} ({where}) on turn {state.turn}"))
            if where in [lane.target for lane in self.data.lanes.values()]:
                state, more = landing.place_beachhead(state, where)
                events += more
            return state, events
        # Allied
        if piece.concealed:
            reasons = []
            if h in movement.zoc_of(self.data, state, JAPANESE):
                reasons.append(Reveal(piece.id, "7.2", f"entered a Japanese ZOC at {where}"))
            elif where in state.beachheads:
                reasons.append(Reveal(piece.id, "7.2", f"entered the beachhead at {where}"))
            elif h in self.map.key_locations and state.controller(where) == JAPANESE:
                reasons.append(Reveal(piece.id, "7.2", f"entered the Japanese-held key location {where}"))
            return self._owe(state, reasons)
        if piece.identity == "dummy":
            return state, events
        if where in state.beachheads:
            state, more = landing.capture_beachhead(self.data, state, where)
            events += more
        if h in self.map.key_locations and state.controller(where) == JAPANESE:
            state = replace(state, control=tuple(c for c in state.control if c[0] != where))
            events.append(Event("3.1", f"{piece.id} retakes {self.map.key_locations[h].name} ({where}) for the Allies"))
        return state, events

    def _zoc_reaches(self, source: Any, target: Any) -> bool:
        return (
            source.is_adjacent(target)
            and self.map.terrain_at(target) != movement.SEA
            and not self.map.has("all_sea", source, target)
        )

    # ------------------------------------------------------------------ dice

    def _rolled(self, state: AmbonState, action: DiceRolled) -> tuple[AmbonState, list[Event]]:
        if len(action.values) != 1 or not 1 <= action.values[0] <= 6:
            raise illegal("5.0", f"{action.label}: expected one d6, got {action.values}")
        die = action.values[0]
        for unit, target, key, defensive in state.bombardments:
            if action.label == f"bombard {unit}":
                return self._bombarded(state, unit, target, defensive, die)
        for pid, key in state.recoveries:
            if action.label == f"recovery {pid}":
                state = replace(state, recoveries=tuple(r for r in state.recoveries if r[0] != pid))
                return recovery.resolve_recovery(self.data, state, pid, die)
        for b in state.battles:
            if b.stage == "roll" and battle.label(b) == action.label:
                return battle.resolve(self.data, state, b, die, self._entered)
        lc = state.landing_combat
        if lc is not None and lc.stage == "roll" and landing.combat_label(lc) == action.label:
            state, events, landed = landing.resolve_combat(self.data, state, die, self._entered)
            return self._landed(state, events, landed)
        for l in state.landings:
            if l.stage == "roll" and landing.label(l) == action.label:
                state, events, landed = landing.resolve(self.data, state, l, die)
                return self._landed(state, events, landed)
        raise illegal("5.0", f"no roll labelled {action.label!r} is due")

    def _bombarded(self, state: AmbonState, unit: str, target: str, defensive: bool, die: int) -> tuple[AmbonState, list[Event]]:
        state = replace(state, bombardments=tuple(b for b in state.bombardments if b[0] != unit))
        state, events, forced = bombardment.resolve_bombardment(self.data, state, unit, target, die, defensive=defensive)
        for pid in forced:  # 14.3: a concealed unit hit is revealed; a disrupted one or a detachment retreats
            piece = state.piece(pid)
            if piece.concealed:
                state, more = self._owe(state, [Reveal(pid, "14.3", f"hit by {unit}'s bombardment")])
            else:
                state, more = battle.retreat_units(self.data, state, [piece], "R", frozenset(), enter=self._entered)
            events += more
        return state, events

    def _landed(self, state: AmbonState, events: list[Event], landed: list[str]) -> tuple[AmbonState, list[Event]]:
        """Units that came ashore enter their hex: 3.1, 6.5, 8.0 -- each of
        them, since an HQ among them projects no ZOC (8.0)."""
        for pid in landed:
            piece = state.piece(pid)
            state, more = self._entered(state, piece, piece.where)
            events = events + more
        return state, events

    # ------------------------------------------------------------------ the sequence of play (5.0)

    def _blocker(self, state: AmbonState) -> str:
        if state.owed:
            return f"{state.owed[0].side} owes the reveal of {', '.join(r.slot for r in state.owed)}"
        rolling = [l for l in state.landings if l.stage in ("reveals", "roll")]
        if rolling:
            return f"the landing from {self.data.lanes[rolling[0].lane].first_wave} is not resolved"
        if state.landing_combat is not None:
            return f"the landing combat from {self.data.lanes[state.landing_combat.lane].first_wave} is not resolved"
        if state.bombardments:
            return f"{state.bombardments[0][0]}'s bombardment is not resolved"
        if state.recoveries:
            return "recovery checks are not resolved"
        if state.surrender_offered:
            return "the Allies have not decided whether to surrender (3.2)"
        if state.pending_hits:
            return f"{state.pending_hits[0][0]}'s extra retreat hit waits for reveals"
        open_battles = [b for b in state.battles if b.stage != "done"]
        if open_battles:
            b = open_battles[0]
            return f"the combat at {b.target} is not resolved" if b.stage != "advance" else f"{b.side} has not decided the advance into {b.target}"
        return ""

    def _message_end(self, state: AmbonState, action: MessageEnd) -> tuple[AmbonState, list[Event]]:
        events: list[Event] = []
        if state.surrender_offered and action.side == ALLIED:
            # 3.2: a decision left open is declined, as an unanswered HQ support is (the game cannot stall)
            state = replace(state, surrender_offered=False)
            events.append(Event("3.2", "the Allies fight on (the surrender decision was left open)"))
        # 13.1: reveals made without a rule demanding them take effect now
        for slot, _ in state.published:
            if self._slot_owner(slot) == action.side and self._unapplied(state, slot):
                state, more = self._apply_reveal(state, slot)
                events += more
        if state.phase in (J_COMBAT, A_COMBAT):
            if PHASE_SIDE[state.phase] == action.side:
                state = battle.close_advances(state, action.side)
                if any(b.stage == "declared" for b in state.battles):
                    state, more = battle.open_support(self.data, state, action.seq, self._entered)
                    events += more
            else:
                state, more = battle.decline_open_support(state, action.side, action.seq)
                events += more
        if action.seq < 1 or PHASE_SIDE.get(state.phase) != action.side:
            return state, events
        if state.phase in (J_MOVEMENT, A_MOVEMENT) and self._reveals_awaited(state, action.side):
            # 8.0: the phase waits for the reveals, then goes on (see _progress)
            return replace(state, movement_paused=True), events
        state = replace(state, closing=True)
        while True:
            if self._blocker(state):
                return state, events
            ended = state.phase
            state, more = self._end_phase(state)
            events += more
            if PHASE_SIDE.get(state.phase) != action.side or ended in (SETUP_ALLIED, SETUP_JAPANESE):
                return state, events  # a setup message never passes the turn's first phase
            state = replace(state, closing=True)

    def _unapplied(self, state: AmbonState, slot: str) -> bool:
        if slot in self.data.mine_slots:
            return state.mine(slot).status == "hidden"
        if slot in self.data.concealed_slots:
            return state.piece(slot).concealed
        return slot == setup.SECOND_WAVE_SLOT and not state.second_wave_note

    def _progress(self, state: AmbonState) -> tuple[AmbonState, list[Event]]:
        """A closing phase whose blockers have cleared ends; automatic phases run."""
        events: list[Event] = []
        if state.movement_paused and not self._blocker(state):
            state, more = self._resume_movement(state)
            events += more
        while state.phase != GAME_OVER and (state.closing or state.phase not in PHASE_SIDE):
            if self._blocker(state):
                break
            state, more = self._end_phase(state)
            events += more
        return state, events

    def _resume_movement(self, state: AmbonState) -> tuple[AmbonState, list[Event]]:
        """8.0 Comment: "The dummy is then revealed and removed. The Japanese
        unit may continue moving with its remaining MP."  Once the reveals a
        movement message waited for are made, the Movement Phase goes on: the
        phasing side's next message may move again (a unit that stopped at
        the reveal with the MP it has left) or end the phase.  If none of its
        units could still move, the phase ends as it would have."""
        state = replace(state, movement_paused=False)
        side = PHASE_SIDE[state.phase]
        movers = movement.units_able_to_move(self.data, state, side)
        if not movers:
            return replace(state, closing=True), []
        return state, [Event("8.0", f"the reveals are made: the {side.capitalize()} Movement Phase goes on "
                                    f"({', '.join(movers)} may still move)")]

    def _end_phase(self, state: AmbonState) -> tuple[AmbonState, list[Event]]:
        """End the current phase and open the next (5.0)."""
        phase = state.phase
        events: list[Event] = []
        if phase == SETUP_ALLIED:
            setup.check_allied_setup(self.data, state)
            events.append(Event("4.1", "the Allied setup is complete"))
            return replace(state, phase=SETUP_JAPANESE, closing=False), events
        if phase == SETUP_JAPANESE:
            setup.check_japanese_setup(self.data, state)
            events.append(Event("4.2", f"the Japanese setup is complete; turn {state.turn} begins"))
            return self._open(replace(state, closing=False), LANDING, events)
        if phase == LANDING:
            state, more = landing.sweep(self.data, state)
            return self._open(state, J_MOVEMENT, events + more)
        if phase in (J_MOVEMENT, A_MOVEMENT):
            state = state.with_pieces(replace(p, spent=0) for p in state.pieces if p.spent)
        if phase in (J_COMBAT, A_COMBAT):
            state = replace(state, battles=())
        following = {
            J_MOVEMENT: J_BOMBARDMENT,
            J_BOMBARDMENT: J_COMBAT,
            J_COMBAT: A_MOVEMENT,
            A_MOVEMENT: A_BOMBARDMENT,
            A_BOMBARDMENT: A_COMBAT,
            A_COMBAT: RECOVERY,
        }
        if phase in following:
            return self._open(state, following[phase], events)
        if phase == RECOVERY:
            return self._end_recovery(state, events)
        if phase == SUPPLY:
            return self._next_turn(state, events)
        raise illegal("5.0", f"no phase follows {phase}")

    def _open(self, state: AmbonState, phase: str, events: list[Event]) -> tuple[AmbonState, list[Event]]:
        state = replace(state, phase=phase, closing=False)
        turn = self.data.turn(state.turn)
        if phase == A_MOVEMENT and turn.allied_move_restricted:
            radius = self.data.value("turn1_allied_move_radius")
            events.append(Event("7.1", f"turn {turn.number}: only Allied units within {radius} land hexes of a "
                                       f"Japanese unit may move"))
        if phase == LANDING and victory.may_surrender(self.data, state):
            if state.standing.get(ALLIED, "surrender") == "never":
                events.append(Event("3.2", "the Allies fight on (standing instruction)"))
            else:
                state = replace(state, surrender_offered=True)
                events.append(Event("3.2", f"turn {turn.number} begins: the Allies may surrender"))
        if phase == RECOVERY:
            if not turn.japanese_recovery:
                events.append(Event("12.0", f"turn {state.turn}: the Japanese may not make recovery checks"))
            due = [p for side in self.sides for p in recovery.recovery_candidates(self.data, state, side)]
            state = replace(state, recoveries=tuple((p.id, state.seq) for p in due))
            if due:
                events.append(Event("12.0", f"recovery checks for {', '.join(p.id for p in due)}"))
            if state.turn == self.data.first_turn and state.option("14.2"):  # 14.2: "the Recovery Phase of turn 1"
                state, more = self._owe(state, [Reveal(setup.SECOND_WAVE_SLOT, "14.2", f"turn-{state.turn} Recovery Phase",
                                                       JAPANESE)])
                events += more
        return state, events

    def _end_recovery(self, state: AmbonState, events: list[Event]) -> tuple[AmbonState, list[Event]]:
        if self.data.turn(state.turn).supply_check:
            state, more = supply.supply_check(self.data, state)
            return replace(state, phase=SUPPLY, closing=False), events + [
                Event("13.0", f"supply check (end of turn {state.turn})")] + more
        return self._next_turn(state, events)

    def _game_over(self, state: AmbonState, events: list[Event]) -> tuple[AmbonState, list[Event]]:
        """3.0: the Japanese VP total and its band."""
        state = replace(state, phase=GAME_OVER, closing=False, surrender_offered=False)
        total, breakdown = victory.victory_points(self.data, state)
        band = victory.victory_band(self.data, total)
        parts = "; ".join(f"{why} {vp:+d}" for why, vp in breakdown if vp)
        events.append(Event("3.0", f"the Japanese score {total} VP: {band}" + (f" ({parts})" if parts else ""),
                            {"vp": total, "band": band, "breakdown": [[w, v] for w, v in breakdown]}))
        return state, events

    def _next_turn(self, state: AmbonState, events: list[Event]) -> tuple[AmbonState, list[Event]]:
        if state.turn >= self.data.last_turn:
            events.append(Event("3.0", f"turn {state.turn} was the last; the game is over"))
            return self._game_over(state, events)
        fresh = [replace(p, penalty="", moved=False, attacked=False, bombarded=False, spent=0) for p in state.pieces]
        state = replace(state.with_pieces(fresh), turn=state.turn + 1)
        events.append(Event("5.0", f"turn {state.turn} begins"))
        return self._open(state, LANDING, events)

    # ------------------------------------------------------------------ views

    def result(self, state: AmbonState) -> list[str]:
        """3.0: the outcome of a finished game, in words (empty while it goes on)."""
        if state.phase != GAME_OVER:
            return []
        total, breakdown = victory.victory_points(self.data, state)
        lines = [f"The Japanese score {total} VP: {victory.victory_band(self.data, total)} (3.0)."]
        if state.surrendered:
            lines.append(f"The Allies surrendered at the start of turn {state.turn} (3.2).")
        lines += [f"  {why}: {vp:+d}" for why, vp in breakdown if vp]
        return lines

    def view(self, state: AmbonState, side: str | None, secrets: Mapping[str, str] | None = None) -> dict[str, Any]:
        secrets = secrets or {}
        own = side == ALLIED
        units = []
        stacks: dict[str, list[dict[str, Any]]] = {}
        for p in state.pieces:
            if p.where in ("", REMOVED):
                continue
            item: dict[str, Any] = {"id": p.id, "side": p.side, "where": p.where, "flipped": p.disrupted}
            if p.concealed:
                item["type"] = "concealed"
                if own and p.id in secrets:
                    item["identity"] = secrets[p.id]
                    item["private"] = True
            else:
                spec = self.data.spec(p)
                item.update(type=spec.kind, combat=str(spec.combat), move=format_mp(spec.move, unit=False))
                if p.identity:
                    item["identity"] = p.identity
            if p.penalty:
                item["status"] = p.penalty
            if p.oos:
                item["oos"] = True  # 13.0: the OOS marker (2.2.2)
            if p.where == ELIMINATED:
                continue
            units.append(item)
            marker = "OOS" if p.oos else "disrupted" if p.disrupted else (p.penalty or "")
            label = p.id if not p.concealed else ("?" if not (own and p.id in secrets) else f"{p.id}:{secrets[p.id][:3]}")
            stacks.setdefault(p.where, []).append({"label": label, "side": p.side, **({"marker": marker} if marker else {})})
        for b in state.beachheads:
            stacks.setdefault(b, []).append({"label": "beachhead", "marker": "beachhead"})
        mines = []
        for m in state.mines:
            if m.box in ("", REMOVED):
                continue
            shown = m.status if m.status != "hidden" else ("hidden" if not own else f"hidden ({secrets.get(m.id, '?')})")
            mines.append({"id": m.id, "box": m.box, "status": shown})
        return {
            "game": self.name,
            "turn": state.turn,
            "phase": state.phase,
            "active": PHASE_SIDE.get(state.phase),
            "over": state.phase == GAME_OVER,
            "options": list(state.options),
            "units": units,
            "eliminated": [p.id for p in state.pieces if p.where == ELIMINATED],
            "stacks": stacks,
            "mines": mines,
            "beachheads": list(state.beachheads),
            "control": [{"hex": h, "turn": t} for h, t in state.control],
            "owed": [{"slot": r.slot, "side": r.side, "rule": r.rule, "why": r.why} for r in state.owed],
            "vp": victory.victory_points(self.data, state)[0],
        }

    def check_seals(self, state: AmbonState, side: str, store: Mapping[str, str]) -> list[str]:
        """The owner's client checks its sealed values before sending (4.1, 14.2)."""
        relevant = (state.phase == SETUP_ALLIED and side == ALLIED) or (state.phase == SETUP_JAPANESE and side == JAPANESE)
        return setup.check_secrets(self.data, side, store, state.options) if relevant else []

    def audit(self, state: AmbonState, stores: Mapping[str, Mapping[str, str]]) -> list[str]:
        """After the game: the hidden setup obeyed 4.1 (and 14.2)."""
        problems = []
        for side in self.sides:
            problems += setup.check_secrets(self.data, side, stores.get(side, {}), state.options)
        return problems
