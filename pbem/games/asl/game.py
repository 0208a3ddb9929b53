"""ASL Starter Kit Expansion Pack #2: a play-by-email assistant.

pbem does not adjudicate ASL.  It gives two ASL players what their tools lack
by email: DR and dr that neither can bias or preview, secret Dare-Death
designations nobody can read or change, and the excerpt's Berserk and Human
Wave conditions checked against the position they describe.

Sides ``allied`` and ``axis`` (ASL's own); each declares its nationality in a
``setup`` order.  Orders (TOML ``[[order]]`` tables with a ``type``; the
sections of pbem/games/asl/README.md are the rule ids ``asl.*``)::

    type = "setup"      nationality = "chinese"                    (asl.setup)
                        squads = { A = "3-3-7", B = "4-4-7" }      the squads, public
                        dare_death = ["A"]                         8.5.2, sealed: one slot per
                                                                   eligible squad, never in clear
    type = "phase"      phase = "MPh"  player_turn = "axis"  turn = 2   where the turn record stands
                                                                   (asl.phase; module version 3)
    type = "DR"         purpose = "1MC for A"   drm = 1            2d6, colored die first (asl.DR); version 3:
                        phase, player_turn, turn (optional)        stamped with the turn record's point
    type = "dr"         purpose = "Leader Creation"                1d6 (asl.dr)
    type = "berserk"    units = ["A"]  target = "J"  leader = "8-0"   8.5.2 and the Berserk box,
                                                                   against the file's [position]
    type = "human-wave" units = [...]  (or hexes = [...])          8.5.1, against [position]
    type = "seal"       slot = "hip"  text = "..."                 a sealed note (asl.seal)
    type = "reveal"     slot = "hip"                               (asl.reveal)
    type = "dare-death" squad = "C"  purpose = "CC in X2"          8.5.2: reveal C's designation
    type = "end"                                                   (asl.end)

and a ``[standing]`` table, ``key-rolls = "auto"`` (or ``"off"``, the
default): the side's ``pbem watch`` keys the opponent's DR and dr by itself
(asl.standing, :class:`pbem.engine.standing.KeysRolls`).

A squad's Dare-Death designation is revealed when it goes Berserk, or when
its owner claims it with a ``dare-death`` order (8.5.2's CC benefits hold
whether Berserk or not): either order makes the reveal due, and the owner's
client adds it to the same message.  Rolls are keyed by the message that
declares them, so their author learns them only from the reply (docs/protocol.md §6.3).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Mapping, Sequence

from pbem.engine.machine import (
    Dispatching,
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
from pbem.engine import notes
from pbem.engine.standing import KeysRolls, StandingTable
from pbem.engine.history import History
from pbem.engine.later import dice_due, match_roll
from pbem.engine.orders import typed_orders
from pbem.errors import InputError
from pbem.games.asl import berserk, clock, dare_death, human_wave, template
from pbem.games.asl.boardview import board_view
from pbem.games.asl.clock import Clock
from pbem.games.asl.data import AslData, load
from pbem.games.asl.position import parse_position, unit_ids
from pbem.games.asl.terms import ALLIED, AXIS, MAX_PURPOSE

if TYPE_CHECKING:
    from pbem.engine.boardview import BoardView

SQUAD_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$")
DICE = {"DR": 2, "dr": 1}
#: the module versions this pbem plays (message 0's ``module_version``; docs/protocol.md §3.4):
#: "2" games keep their rolls as they were declared, unstamped; "3" stamps each
#: DR/dr with the turn record's point (asl.phase)
RULES = ("2", "3")
CURRENT = "3"
ORDER_FIELDS = {  # order type: (required fields, optional fields)
    "setup": (("nationality",), ("squads", "dare_death")),
    "DR": (("purpose",), ("drm", *clock.FIELDS)),
    "dr": (("purpose",), ("drm", *clock.FIELDS)),
    "phase": (("phase",), ("player_turn", "turn")),
    "berserk": (("units", "target"), ("leader",)),
    "human-wave": ((), ("units", "hexes")),
    "seal": (("slot", "text"), ()),
    "reveal": (("slot",), ()),
    "dare-death": (("squad",), ("purpose",)),
    "end": ((), ()),
}
#: module version 2's orders: a roll is a purpose and a drm, and there is no phase order
ORDER_FIELDS_2 = {**{k: v for k, v in ORDER_FIELDS.items() if k != "phase"},
                  "DR": (("purpose",), ("drm",)), "dr": (("purpose",), ("drm",))}
DOUBLES = {1: "snake eyes", 6: "boxcars"}  # 1-1 and 6-6: the Original DR 2 and 12


def doubles_name(values: Sequence[int] | None) -> str | None:
    """``"snake eyes"`` (1-1), ``"boxcars"`` (6-6), ``"doubles"``, or None
    (not a DR, not rolled, or not doubles)."""
    if values is None or len(values) != 2 or values[0] != values[1]:
        return None
    return DOUBLES.get(values[0], "doubles")


# --------------------------------------------------------------------------- state


@dataclass(frozen=True)
class Roll:
    seq: int
    index: int
    side: str
    kind: str  # "DR" | "dr"
    purpose: str
    drm: int
    values: tuple[int, ...] | None = None
    when: Clock | None = None  # the turn record's point it was declared at (module version 3)

    @property
    def label(self) -> str:
        return f"{self.seq}.{self.index}"

    @property
    def doubles(self) -> str | None:
        return doubles_name(self.values) if self.kind == "DR" else None

    def dice(self) -> str:
        """The dice as ``pbem log`` shows them: ``"colored 4 + white 5 + 1 = 10"``,
        ``"colored 6 + white 6 = 12, boxcars"``; ``"5 + 3 = 8"`` for a dr."""
        if self.values is None:
            return "pending"
        text = f"colored {self.values[0]} + white {self.values[1]}" if self.kind == "DR" else str(self.values[0])
        if self.drm:
            text += f" {'-' if self.drm < 0 else '+'} {abs(self.drm)}"
        if self.kind == "DR" or self.drm:
            text += f" = {sum(self.values) + self.drm}"
        return text + (f", {self.doubles}" if self.doubles else "")

    def stamped(self) -> str:
        """``"DR 9 (colored 4, white 5), snake eyes ..."``: :meth:`shown`
        naming snake eyes and boxcars (module version 3's events)."""
        text = self.shown()
        if self.doubles and self.doubles != "doubles":
            text = text.replace(", doubles", f", {self.doubles} (doubles)", 1)
        return text

    @property
    def total(self) -> int | None:
        return sum(self.values) if self.values is not None else None

    def shown(self) -> str:
        """``"DR 9 (colored 4, white 5)"``, the final value with a drm, doubles."""
        if self.values is None:
            return f"{self.kind} pending"
        if self.kind == "DR":
            colored, white = self.values
            text = f"DR {self.total} (colored {colored}, white {white})"
            if colored == white:
                text += ", doubles"
        else:
            text = f"dr {self.total}"
        if self.drm:
            text += f"; {self.drm:+d} {'DRM' if self.kind == 'DR' else 'drm'}: final {sum(self.values) + self.drm}"
        return text


@dataclass(frozen=True)
class Setup:
    side: str
    seq: int
    nationality: str
    squads: tuple[tuple[str, str], ...]  # (id, counter ID)
    eligible: tuple[str, ...]  # squads that may be Dare-Death (8.5.2)


@dataclass(frozen=True)
class Owed:
    side: str
    slot: str
    rule: str
    why: str


@dataclass(frozen=True)
class Declared:
    """A Berserk declaration or a Human Wave, as recorded."""

    seq: int
    side: str
    kind: str  # "berserk" | "human-wave"
    units: tuple[str, ...]
    hexes: tuple[str, ...]  # the units' hexes
    target: str = ""
    leader: str = ""


@dataclass(frozen=True)
class AslState:
    setups: tuple[Setup, ...] = ()
    slots: tuple[notes.Note, ...] = ()
    # the rolls made, in the order declared (a History: a replay checkpoint keeps
    # them pickled), and those declared and waiting for their dice
    done: History = field(default_factory=History)
    pending: tuple[Roll, ...] = ()
    declared: tuple[Declared, ...] = ()
    owed: tuple[Owed, ...] = ()
    ending_by: str | None = None
    standing: StandingTable = StandingTable()  # each side's key-rolls (asl.standing)
    keying: bool = False  # the last message needs keying (pbem.engine.standing.needs_keying)
    clock: Clock | None = None  # the turn record's point (asl.phase): None until the players name one

    @property
    def rolls(self) -> tuple[Roll, ...]:
        """Every roll declared, in order (the pending ones are the newest)."""
        return tuple(self.done) + self.pending
    over: bool = False

    def setup_of(self, side: str) -> Setup | None:
        return next((s for s in self.setups if s.side == side), None)

    def slot(self, side: str, slot: str) -> notes.Note | None:
        return notes.find(self.slots, side, slot)


# --------------------------------------------------------------------------- parsing helpers


def _text(order: Mapping[str, Any], name: str, where: str, limit: int) -> str:
    value = order.get(name)
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{where}: field {name!r} must be a non-empty string, got {value!r}", field=name)
    if len(value) > limit:
        raise InputError(f"{where}: field {name!r} is longer than {limit} characters", field=name)
    return value.strip()


def _int(order: Mapping[str, Any], name: str, where: str) -> int:
    value = order.get(name, 0)
    if not isinstance(value, int) or isinstance(value, bool) or not -20 <= value <= 20:
        raise InputError(f"{where}: field {name!r} must be a whole number from -20 to 20, got {value!r}", field=name)
    return value


class AslGame(notes.EndedByOrder, KeysRolls, Dispatching):
    """The ASL assistant: verifiable DR/dr, sealed Dare-Death designations,
    Berserk and Human Wave checks (sides ``allied``, ``axis``)."""

    name: ClassVar[str] = "asl"
    end_rule: ClassVar[str] = "asl.end"
    standing_rule: ClassVar[str] = "asl.standing"
    # 2: the audit fixes of 2026-11-29 (dare-death order, RF dates, HS check);
    # 3: each DR/dr stamped with the player turn and phase (asl.phase)
    version: str
    sides: ClassVar[tuple[str, str]] = (ALLIED, AXIS)

    def __init__(self, data_dir: str | Path | None = None, version: str = CURRENT):
        if version not in RULES:
            raise InputError(f"asl module version {version!r}: this pbem plays {', '.join(RULES)}", field="module_version")
        self.data_dir = data_dir
        self.version = version

    def __repr__(self) -> str:
        return f"AslGame(data_dir={self.data_dir!r}, version={self.version!r})"

    def for_terms(self, version: str, options: Mapping[str, Any]) -> "AslGame":
        """The game a message 0 pinning ``module_version = version`` is
        played with (:class:`pbem.engine.contract.Terms`): a version 2 game
        keeps its unstamped rolls and their orders; ``self`` for a version
        this pbem does not know, which the caller then refuses."""
        if version not in RULES or version == self.version:
            return self
        return AslGame(self.data_dir, version)

    @property
    def stamps_rolls(self) -> bool:
        """Module version 3 on: a DR/dr carries the player turn and phase."""
        return self.version != "2"

    @cached_property
    def data(self) -> AslData:
        return load(self.data_dir)

    # ------------------------------------------------------------------ data and setup

    def ruleset_files(self) -> Sequence[tuple[str, bytes]]:
        return [("asl/version", self.version.encode())] + [(f"asl/{n}", b) for n, b in self.data.files]

    def initial_state(self, setup: Mapping[str, Any]) -> AslState:
        return AslState()

    # ------------------------------------------------------------------ orders (syntax)

    def parse_orders(self, document: Mapping[str, Any], side: str) -> ParsedOrders:
        """Read an orders document; ``[position]`` feeds the berserk and
        human-wave orders.  Dare-Death designations become seals here."""
        position = None
        if "position" in document:
            position = parse_position(document["position"], self.data, allow_dare_death=False)
        public: list[dict[str, Any]] = []
        seals: dict[str, str] = {}
        reveals: list[str] = []
        ends = False
        standing = self.standing_order(document)
        if standing is not None:
            public.append(standing)
        fields = ORDER_FIELDS if self.stamps_rolls else ORDER_FIELDS_2
        for number, kind, order in typed_orders(document, fields, top_level=("order", "position", "standing")):
            required, optional = fields[kind]
            where = f"order {number} ({kind})"
            extra = sorted(set(order) - {"type", *required, *optional})
            missing = [k for k in required if k not in order]
            if extra or missing:
                what = [f"unknown field {k!r}" for k in extra] + [f"missing field {k!r}" for k in missing]
                raise InputError(f"{where}: {', '.join(what)}", field=(extra + missing)[0])
            if ends:
                raise InputError(f"{where}: no order may follow 'end'", rule="asl.end")
            if kind == "setup":
                item, sealed = self._parse_setup(order, where)
                public.append(item)
                for slot in sealed:
                    if slot in seals:
                        raise InputError(f"{where}: a second setup in one message", field="type")
                seals.update(sealed)
            elif kind in DICE:
                public.append({"type": kind, "purpose": _text(order, "purpose", where, MAX_PURPOSE),
                               "drm": _int(order, "drm", where), **clock.read_fields(order, where, self.sides)})
            elif kind == "phase":
                public.append({"type": kind, **clock.read_fields(order, where, self.sides)})
            elif kind in ("berserk", "human-wave"):
                if position is None:
                    raise InputError(f"{where}: describe the position in a [position] table of the orders file",
                                     field="position")
                item = {"type": kind, "position": position.to_json()}
                if kind == "berserk":
                    item["units"] = list(unit_ids(order["units"], where))
                    item["target"] = _text(order, "target", where, 32)
                    item["leader"] = _text(order, "leader", where, 32) if "leader" in order else ""
                    named = item["units"] + [item["target"]] + ([item["leader"]] if item["leader"] else [])
                else:
                    if ("units" in order) == ("hexes" in order):
                        raise InputError(f"{where}: give either units = [...] or hexes = [...]", field="units")
                    key = "units" if "units" in order else "hexes"
                    item[key] = list(unit_ids(order[key], where, key))
                    if key == "hexes":
                        item["hexes"] = [position.board.label(position.board.parse(h)) for h in item["hexes"]]
                    named = item.get("units", [])
                for uid in named:
                    try:
                        position.unit(uid)
                    except InputError as err:
                        raise InputError(f"{where}: {err}", field="units") from None
                public.append(item)
            elif kind == "dare-death":
                public.append({"type": kind, "squad": _text(order, "squad", where, 32),
                               "purpose": _text(order, "purpose", where, MAX_PURPOSE) if "purpose" in order else ""})
            elif kind in ("seal", "reveal"):
                named = order.get("slot")
                squad = dare_death.squad_of(named.strip()) if kind == "reveal" and isinstance(named, str) else None
                if squad and isinstance(named, str):
                    raise InputError(f"{where}: slot {named.strip()!r} holds squad {squad}'s Dare-Death designation: reveal it "
                                     f"with a dare-death order (squad = \"{squad}\"), which the opponent reads (8.5.2)",
                                     field="slot")
                notes.read_note_order(kind, order, where, seals, reveals, reserved=dare_death.SLOT_PREFIX,
                                      reserved_for="hold Dare-Death designations")
            else:
                public.append({"type": "end"})
                ends = True
        return ParsedOrders(public=tuple(public), seals=seals, reveals=tuple(reveals), ends_game=ends)

    def _parse_setup(self, order: Mapping[str, Any], where: str) -> tuple[dict[str, Any], dict[str, str]]:
        try:
            nat = self.data.nationality(_text(order, "nationality", where, 32))
        except InputError as err:
            raise InputError(f"{where}: {err}" if not str(err).startswith(where) else str(err), field="nationality") from None
        roster = dare_death.roster_types(order.get("squads", {}), where)
        for sid, type_ in roster.items():
            if not SQUAD_RE.match(sid):
                raise InputError(f"{where}: squad id {sid!r} must be 1-32 letters, digits, '_', '.' or '-'", field="squads")
            if nat.dare_death and nat.counter(type_, "squad") is None:
                squads = ", ".join(c.type for c in nat.counters if c.kind == "squad")
                raise InputError(f"{where}: squad {sid} is a {type_!r}, not a {nat.name} squad ({squads})", field="squads")
        chosen = order.get("dare_death", [])
        if not isinstance(chosen, list) or not all(isinstance(c, str) for c in chosen):
            raise InputError(f"{where}: dare_death must be a list of squad ids like [\"A\"]", field="dare_death")
        if len(set(chosen)) != len(chosen):
            raise InputError(f"{where}: dare_death names a squad twice", field="dare_death")
        if chosen and not nat.dare_death:
            raise illegal("8.5.2", f"Dare-Death Squads are {self.data.nationality('chinese').name}; a {nat.name} side designates none")
        eligible = dare_death.eligible(nat, roster) if nat.dare_death else []
        for sid in chosen:
            if sid not in roster:
                raise InputError(f"{where}: dare_death names {sid!r}, which is not among the squads declared", field="dare_death")
            if sid not in eligible:
                raise illegal("8.5.2", f"{sid} is a {roster[sid]}: only non-{'/'.join(nat.dare_death_excluded)} squads may be Dare-Death Squads")
        seals = {dare_death.slot(sid): dare_death.sealed_value(sid in chosen) for sid in eligible}
        return {"type": "setup", "nationality": nat.id, "squads": dict(roster)}, seals

    # ------------------------------------------------------------------ the state machine

    def _order(self, state: AslState, action: Ordered) -> tuple[AslState, list[Event]]:
        order, side = action.order, action.side
        kind = order.get("type")
        self._closing_check(state, side, f"a {kind!r} order")
        try:
            if kind == "setup":
                return self._setup(state, action)
            if kind in DICE:
                return self._declare_roll(state, action)
            if kind == "phase" and self.stamps_rolls:
                return self._phase(state, action)
            if kind == "berserk":
                return self._berserk(state, action)
            if kind == "human-wave":
                return self._human_wave(state, action)
            if kind == "dare-death":
                return self._dare_death(state, action)
            if kind == "end" and set(order) == {"type"}:
                return self._end(state, side)
            if kind == "standing":
                return self._standing(state, side, order)
        except InputError as err:  # a malformed public order in a received file
            raise illegal("asl.orders", f"order {action.index} in message {action.seq:04d}: {err}") from err
        except (KeyError, TypeError, ValueError) as err:
            raise illegal("asl.orders", f"order {action.index} in message {action.seq:04d} is malformed: {dict(order)!r}") from err
        raise illegal("asl.orders", f"order {action.index} in message {action.seq:04d} is not a valid ASL order: {dict(order)!r}")

    # -- setup -------------------------------------------------------------------
    def _setup(self, state: AslState, action: Ordered) -> tuple[AslState, list[Event]]:
        side, order = action.side, action.order
        if set(order) - {"type", "nationality", "squads"}:
            raise InputError(f"unknown setup field(s) {', '.join(sorted(set(order) - {'type', 'nationality', 'squads'}))}")
        if (done := state.setup_of(side)) is not None:
            raise illegal("asl.setup", f"{side} has already set up (message {done.seq:04d})")
        nat = self.data.nationality(order["nationality"])
        roster = dare_death.roster_types(order.get("squads", {}), "setup")
        eligible = dare_death.eligible(nat, roster) if nat.dare_death else []
        sealed_here = {s.slot for s in state.slots if s.side == side and s.sealed_in == action.seq and s.slot.startswith(dare_death.SLOT_PREFIX)}
        wanted = {dare_death.slot(e) for e in eligible}
        if sealed_here != wanted:
            missing, extra = sorted(wanted - sealed_here), sorted(sealed_here - wanted)
            what = ([f"no designation sealed for {', '.join(missing)}"] if missing else []) + (
                [f"designations sealed for {', '.join(extra)}, which are not eligible squads"] if extra else [])
            raise illegal("8.5.2", f"one designation must be sealed per eligible squad: {'; '.join(what)}")
        setup = Setup(side, action.seq, nat.id, tuple(roster.items()), tuple(eligible))
        text = f"{side} sets up as {nat.name}"
        if roster:
            text += f": {len(roster)} squads declared ({', '.join(f'{k} {v}' for k, v in roster.items())})"
        if nat.dare_death:
            q = dare_death.quota(len(eligible), int(self.data.dare_death["percent"]))
            text += (f"; {len(eligible)} may be Dare-Death Squads, one sealed designation each -- "
                     f"10% rounded up is {q} (or none), which ones stays secret")
        data = {"nationality": nat.id, "squads": dict(roster), "eligible": list(eligible)}
        return replace(state, setups=state.setups + (setup,)), [Event("asl.setup", text, data)]

    # -- dice --------------------------------------------------------------------
    def _when(self, state: AslState, action: Ordered) -> tuple[AslState, list[Event]]:
        """The turn record's point an order stands at (asl.phase): the state
        with it, and an event when the order moves it."""
        order = action.order
        given = clock.read_fields({k: order[k] for k in clock.FIELDS if k in order},
                                  f"order {action.index + 1} of message {action.seq:04d}", self.sides)
        where = f"order {action.index + 1} ({order['type']}) of message {action.seq:04d}"
        now = clock.advance(state.clock, given, action.seq, where)
        if now.same_point(state.clock):
            return state, []
        text = f"{action.side}: the game is now at {now.text()} ({clock.PHASES[now.phase]})"
        return replace(state, clock=now), [Event(clock.RULE, text, now.to_json())]

    def _phase(self, state: AslState, action: Ordered) -> tuple[AslState, list[Event]]:
        if set(action.order) - {"type", *clock.FIELDS}:
            raise InputError("a phase order names phase, player_turn and turn only")
        new, events = self._when(state, action)
        if not events:
            assert new.clock is not None
            events = [Event(clock.RULE, f"{action.side}: the game is still at {new.clock.text()}", new.clock.to_json())]
        return new, events

    def _declare_roll(self, state: AslState, action: Ordered) -> tuple[AslState, list[Event]]:
        order = action.order
        stamps = set(clock.FIELDS) & set(order) if self.stamps_rolls else set()
        if set(order) - stamps != {"type", "purpose", "drm"} or not isinstance(order["purpose"], str) or not order["purpose"]:
            raise InputError("a roll needs a purpose and a drm")
        drm = order["drm"]
        if not isinstance(drm, int) or isinstance(drm, bool):
            raise InputError("drm must be a whole number")
        events: list[Event] = []
        if self.stamps_rolls:
            state, events = self._when(state, action)
        roll = Roll(action.seq, action.index, action.side, order["type"], order["purpose"], drm, when=state.clock)
        rule = f"asl.{roll.kind}"
        at = f" in {roll.when.text()}" if roll.when is not None else ""
        text = (f"{action.side} declares a {roll.kind}{at} for {roll.purpose!r}" + (f" ({drm:+d})" if drm else "")
                + f"; keyed by message {action.seq:04d}, resolved when the reply arrives")
        data: dict[str, Any] = {"label": roll.label, "dice": roll.kind, "purpose": roll.purpose}
        if roll.when is not None:
            data.update(turn=roll.when.turn, player_turn=roll.when.player_turn, phase=roll.when.phase)
        return replace(state, pending=state.pending + (roll,)), events + [Event(rule, text, data)]

    def _rolled(self, state: AslState, action: DiceRolled) -> tuple[AslState, list[Event]]:
        at = {roll.label: i for i, roll in enumerate(state.pending)}
        due = match_roll(dice_due(self.awaiting(state)), action, "asl.DR",
                         dice_rule=lambda d: f"asl.{state.pending[at[d.label]].kind}")
        i = at[due.label]
        new = replace(state.pending[i], values=tuple(action.values))
        # rolls keyed by a message are all made before the next is applied: ``done`` stays in declaration order
        done, pending = state.done.appended(new), state.pending[:i] + state.pending[i + 1 :]
        if new.when is None:  # module version 2: the event as it always read (the files' summaries quote it)
            text = f"{new.side}'s {new.kind} for {new.purpose!r}: {new.shown()} (keyed by message {new.seq:04d})"
        else:
            text = (f"{new.side}'s {new.kind} in {new.when.short()} for {new.purpose!r}: {new.stamped()} "
                    f"(keyed by message {new.seq:04d})")
        data = {"label": new.label, "dice": new.kind, "purpose": new.purpose, "values": list(new.values),
                "total": new.total, "drm": new.drm, "final": new.total + new.drm}
        if new.kind == "DR":
            data.update(colored=new.values[0], white=new.values[1], doubles=new.values[0] == new.values[1])
        if new.when is not None:
            data.update(turn=new.when.turn, player_turn=new.when.player_turn, phase=new.when.phase,
                        doubles_name=new.doubles)
        return replace(state, done=done, pending=pending), [Event(f"asl.{new.kind}", text, data)]

    # -- sealed slots ------------------------------------------------------------
    def _sealed(self, state: AslState, action: Sealed) -> tuple[AslState, list[Event]]:
        self._closing_check(state, action.side, "a new sealed value")
        slots = notes.seal(state.slots, action.side, action.slot, action.seq, "asl.seal")
        events = []
        if dare_death.squad_of(action.slot) is None:
            events.append(Event("asl.seal", f"{action.side} seals a note in slot {action.slot!r}", {"slot": action.slot}))
        return replace(state, slots=slots), events

    def _opened(self, state: AslState, action: Opened) -> tuple[AslState, list[Event]]:
        slots, slot = notes.open_note(state.slots, action.side, action.slot, action.value, action.seq, "asl.reveal")
        squad = dare_death.squad_of(action.slot)
        if squad is not None:
            try:
                designated = dare_death.read_value(action.value, f"the designation of {squad}: ")
            except InputError as err:
                raise illegal("8.5.2", str(err)) from err
            text = (f"{action.side} reveals squad {squad}'s designation (sealed in message {slot.sealed_in:04d}): "
                    f"{action.value.strip()!r} -- " + ("a Dare-Death Squad" if designated else "not a Dare-Death Squad"))
            event = Event("8.5.2", text, {"squad": squad, "dare_death": designated})
        else:
            event = Event("asl.reveal", f"{action.side} reveals slot {action.slot!r} (sealed in message {slot.sealed_in:04d}): "
                          f"{action.value!r}", {"slot": action.slot, "value": action.value})
        owed = tuple(o for o in state.owed if not (o.side == action.side and o.slot == action.slot))
        return replace(state, slots=slots, owed=owed), [event]

    # -- a designation revealed by its owner ------------------------------------------
    def _dare_death(self, state: AslState, action: Ordered) -> tuple[AslState, list[Event]]:
        """8.5.2: "Dare-Death MMC enter into and resolve Hand-to-Hand CC as if
        they were Japanese ... each non-Hand-to-Hand CC attack against
        Infantry in which an unpinned Dare-Death MMC participates receives an
        extra -1 DRM" -- Berserk or not, so the owner may reveal a squad's
        designation to claim it.  The order makes the reveal due in the same
        message; the reveal shows the sealed value, "dare-death" or
        "regular", so a claim cannot be bluffed."""
        side, order = action.side, action.order
        if set(order) != {"type", "squad", "purpose"} or not isinstance(order["squad"], str) \
                or not isinstance(order["purpose"], str):
            raise InputError("a dare-death order names a squad and a purpose (may be empty)")
        squad, purpose = order["squad"], order["purpose"]
        setup = state.setup_of(side)
        if setup is None:
            raise illegal("asl.setup", f"{side} must set up (declare a nationality and squads) first")
        roster = dict(setup.squads)
        if squad not in roster:
            raise illegal("8.5.2", f"squad {squad!r} was not declared at setup "
                                   f"(message {setup.seq:04d}: {', '.join(roster) or 'no squads'})")
        if squad not in setup.eligible:
            nat = self.data.nationality(setup.nationality)
            if not nat.dare_death:
                raise illegal("8.5.2", f"Dare-Death Squads are Chinese; a {nat.name} side has none")
            raise illegal("8.5.2", f"{squad} is a {roster[squad]}, which has no Dare-Death designation: only "
                                   f"non-{'/'.join(nat.dare_death_excluded)} squads may be Dare-Death Squads")
        slot_id = dare_death.slot(squad)
        slot = state.slot(side, slot_id)
        if slot is None:  # pragma: no cover - the setup seals one slot per eligible squad
            raise illegal("8.5.2", f"no designation was sealed for squad {squad}")
        why = f" for {purpose!r}" if purpose else ""
        claimed = {"squad": squad, "purpose": purpose}
        if slot.value is None:
            owed = () if any(o.side == side and o.slot == slot_id for o in state.owed) else (
                Owed(side, slot_id, "8.5.2", f"{side} claims {squad}'s designation"),)
            text = (f"{side} claims squad {squad}'s Dare-Death designation (8.5.2){why}; "
                    f"the sealed value is revealed in this message")
            return replace(state, owed=state.owed + owed), [Event("8.5.2", text, claimed)]
        if slot.revealed_in != action.seq:
            designated = dare_death.read_value(slot.value)
            raise illegal("8.5.2", f"squad {squad}'s designation was already revealed in message {slot.revealed_in:04d} ("
                                   + ("a Dare-Death Squad" if designated else "not a Dare-Death Squad") + ")")
        designated = dare_death.read_value(slot.value)
        d = self.data.dare_death
        if designated:
            outcome = (f"the claim holds: its MMC (or its surviving HS) may enter Hand-to-Hand CC as if "
                       f"{d['hand_to_hand_as'].title()} (8.1.8.4), and each non-Hand-to-Hand CC attack vs Infantry in "
                       f"which one takes part unpinned gets {d['cc_drm']} DRM")
        else:
            outcome = f"the claim fails: {squad} is not a Dare-Death Squad"
        text = (f"{side} claims squad {squad}'s Dare-Death designation (8.5.2){why}: the sealed value is "
                f"{slot.value.strip()!r} -- {outcome}")
        return state, [Event("8.5.2", text, {**claimed, "dare_death": designated})]

    # -- Berserk and Human Wave ----------------------------------------------------
    def _position(self, state: AslState, action: Ordered, rule: str):
        setup = state.setup_of(action.side)
        if setup is None:
            raise illegal("asl.setup", f"{action.side} must set up (declare a nationality and squads) first")
        position = parse_position(action.order["position"], self.data, allow_dare_death=False)
        if position.nationality != setup.nationality:
            raise illegal(rule, f"the position is described for the {position.nationality}, but {action.side} is {setup.nationality}")
        return setup, position

    def _berserk(self, state: AslState, action: Ordered) -> tuple[AslState, list[Event]]:
        side, order = action.side, action.order
        setup, position = self._position(state, action, "8.5.2")
        nat = self.data.nationality(setup.nationality)
        if not nat.dare_death:
            raise illegal("8.5.2", f"only Dare-Death Squads go Berserk; {nat.name} has none")
        units, target, leader = list(order["units"]), order["target"], order.get("leader") or None
        roster = dict(setup.squads)
        dd: dict[str, bool] = {}
        owed: list[Owed] = []
        for uid in units:
            u = position.unit(uid)
            if u.squad not in roster:
                raise illegal("8.5.2", f"{u.name}: squad {u.squad!r} was not declared at setup "
                              f"(message {setup.seq:04d}: {', '.join(roster) or 'no squads'})")
            if u.kind == "squad" and roster[u.squad] != u.type:
                raise illegal("8.5.2", f"{u.name}: squad {u.squad} was declared a {roster[u.squad]} at setup")
            dd[u.squad] = self._designated(state, setup, u.squad)
            slot_id = dare_death.slot(u.squad)
            sealed = state.slot(side, slot_id)
            unrevealed = u.squad in setup.eligible and (sealed is None or sealed.value is None)
            if unrevealed and not any(o.side == side and o.slot == slot_id for o in (*state.owed, *owed)):
                owed.append(Owed(side, slot_id, "8.5.2", f"{u.id} goes Berserk"))
        earlier = [d for d in state.declared if d.seq == action.seq and d.kind == "berserk" and d.side == side]
        decls = [berserk.Declaration(d.units, d.target, d.leader or None) for d in earlier]
        decls.append(berserk.Declaration(tuple(units), target, leader))
        squads = {position.unit(uid).squad for d in decls for uid in d.units}
        for sq in squads - set(dd):  # declared by an earlier order of this message
            dd[sq] = self._designated(state, setup, sq)
        squad_types = {sq: roster[sq] for sq in squads if sq in roster}  # 8.5.2: a HS is its squad's HS
        results, problems = berserk.check_declarations(position, decls, self.data, dare_death=dd, squad_types=squad_types)
        failures = [c.text for r in results for c in r.failures] + [c.text for c in problems if not c.ok]
        if failures:
            raise illegal("8.5.2", "; ".join(dict.fromkeys(failures)))
        t = position.unit(target)
        record = Declared(action.seq, side, "berserk", tuple(units), tuple(position.unit(u).at for u in units), target, leader or "")
        names = ", ".join(position.unit(u).name for u in units)
        text = f"{side}: {names} " + ("goes" if len(units) == 1 else "go") + f" Berserk, target {t.name}"
        if leader:
            text += f"; leader {leader} goes Berserk too and Charges the same target"
        if owed:
            text += f"; the Dare-Death designation of {', '.join(o.slot[len(dare_death.SLOT_PREFIX):] for o in owed)} is revealed now"
        events = [Event("8.5.2", text, {"units": units, "target": target, "leader": leader or ""})]
        for uid in units:
            for c in berserk.effects(position, uid, target, self.data):
                events.append(Event(c.rule, f"{uid}: {c.text}"))
        return replace(state, declared=state.declared + (record,), owed=state.owed + tuple(owed)), events

    @staticmethod
    def _designated(state: AslState, setup: Setup, squad: str) -> bool:
        """Is ``squad`` a Dare-Death Squad, as far as this message goes: never
        if not eligible; its designation once revealed; else as claimed (True),
        for the reveal that this same message owes decides."""
        if squad not in setup.eligible:
            return False
        slot = state.slot(setup.side, dare_death.slot(squad))
        return dare_death.read_value(slot.value) if slot is not None and slot.value is not None else True

    def _human_wave(self, state: AslState, action: Ordered) -> tuple[AslState, list[Event]]:
        rule = self.data.human_wave["rule"]
        _, position = self._position(state, action, rule)
        order = action.order
        result = human_wave.check(position, self.data, units=order.get("units"), hexes=order.get("hexes"))
        if not result.valid:
            raise illegal(rule, "not a valid Human Wave: " + "; ".join(c.text for c in result.failures))
        record = Declared(action.seq, action.side, "human-wave", result.units, result.hexes)
        text = (f"{action.side} conducts a Human Wave (treated like a Banzai Charge, 8.1.8.6): {result.mmc} MMC "
                f"({', '.join(result.units)}) in {' '.join(result.hexes)}")
        return replace(state, declared=state.declared + (record,)), [Event(rule, text, result.to_json())]

    # -- end of a message ------------------------------------------------------------
    def _message_end(self, state: AslState, action: MessageEnd) -> tuple[AslState, list[Event]]:
        setup = state.setup_of(action.side)
        stray = [s.slot for s in state.slots if s.side == action.side and s.sealed_in == action.seq
                 and s.slot.startswith(dare_death.SLOT_PREFIX) and (setup is None or setup.seq != action.seq)]
        if stray:
            raise illegal("8.5.2", f"Dare-Death designations are sealed only with the setup (8.5.2: \"during setup\"): {', '.join(stray)}")
        return self._closed(self._keying(state, action.seq, self.awaiting(state)), action.side)

    # ------------------------------------------------------------------ queries

    def decisions(self, state: AslState, side: str) -> tuple[str, ...]:
        """pbem does not keep the ASL position, so every message is the
        player's (pbem watch writes only the closing one) -- but the answer
        to a message that needs keying, when the player's ``key-rolls =
        "auto"`` leaves it to their machine: it keys the DR and dr and
        declares nothing (asl.standing)."""
        if self.keys_by_itself(state, side):
            return ()
        return ("your orders: DR and dr, Berserk and Human Wave declarations, Dare-Death claims, notes, or the end "
                "(asl.DR, asl.dr, 8.5.1, 8.5.2, asl.seal, asl.end)",)

    def awaiting(self, state: AslState) -> tuple[Any, ...]:
        due: list[Any] = [RevealDue(o.side, o.slot, o.rule) for o in state.owed]
        for roll in state.pending:
            if roll.values is None:
                at = f" {roll.when.short()}" if roll.when is not None else ""
                due.append(DiceDue(roll.label, DICE[roll.kind], 6, roll.seq, f"{roll.kind}{at}: {roll.purpose}"))
        return tuple(due)

    def describe_roll(self, state: AslState, due: DiceDue, values: tuple[int, ...] | None = None,
                      events: Sequence[Event] = ()) -> dict[str, Any] | None:
        """A DR or dr with its DRM (asl.DR, asl.dr): ``DR+1: 4 + 5 + 1 = 10``,
        the final DR (:class:`pbem.engine.contract.DescribesRolls`)."""
        roll = next((r for r in state.pending if r.label == due.label), None)
        if roll is None:
            return None
        found: dict[str, Any] = {"expression": roll.kind + (f"{roll.drm:+d}" if roll.drm else ""),
                                 "modifiers": [("DRM" if roll.kind == "DR" else "drm", roll.drm)] if roll.drm else []}
        if values is not None:
            found["total"] = sum(values) + roll.drm
            found["shown"] = replace(roll, values=tuple(values)).dice()
        return found

    def orders_template(self, state: AslState, side: str, secrets: Mapping[str, str]) -> Any:
        """The game's part of ``pbem orders DIR``: the setup before a side
        has set up, then the rolls, declarations, claims, notes and the end
        (:mod:`pbem.games.asl.template`)."""
        return template.sections(self, state, side, secrets)

    def board_view(self, view: Mapping[str, Any]) -> "BoardView":
        """What the renderers draw of ``view`` (:mod:`pbem.games.asl.boardview`)."""
        return board_view(self.sides, view)

    def view(self, state: AslState, side: str | None, secrets: Mapping[str, str] | None = None) -> dict[str, Any]:
        """What ``side`` may see: designations only its own (from ``secrets``)
        or once revealed."""
        secrets = secrets or {}
        sides = {}
        for s in state.setups:
            squads = []
            for sid, type_ in s.squads:
                item: dict[str, Any] = {"id": sid, "type": type_, "eligible": sid in s.eligible}
                slot = state.slot(s.side, dare_death.slot(sid))
                if slot is not None:
                    if slot.value is not None:
                        item["dare_death"] = dare_death.read_value(slot.value)
                        item["revealed_in"] = slot.revealed_in
                    elif side == s.side and slot.slot in secrets:
                        item["dare_death"] = dare_death.read_value(secrets[slot.slot])
                        item["private"] = True
                    else:
                        item["dare_death"] = "sealed"
                squads.append(item)
            entry: dict[str, Any] = {"nationality": s.nationality, "set_up_in": s.seq, "squads": squads}
            if s.eligible:
                entry["dare_death_quota"] = dare_death.quota(len(s.eligible), int(self.data.dare_death["percent"]))
            sides[s.side] = entry
        notes = []
        for slot in state.slots:
            item = {"slot": slot.slot, "side": slot.side, "sealed_in": slot.sealed_in, "revealed_in": slot.revealed_in}
            if slot.value is not None:
                item["value"] = slot.value.strip()
            elif side == slot.side and slot.slot in secrets:
                item["value"] = secrets[slot.slot].strip()
                item["private"] = True
            notes.append(item)
        rolls = []
        for r in state.rolls:
            item = {"label": r.label, "side": r.side, "dice": r.kind, "note": r.purpose, "purpose": r.purpose,
                    "drm": r.drm, "values": [list(r.values) if r.values is not None else None],
                    "total": r.total, "shown": r.shown(), "key_seq": r.seq,
                    "final": None if r.total is None else r.total + r.drm,
                    "turn": r.when.turn if r.when else None, "player_turn": r.when.player_turn if r.when else None,
                    "phase": r.when.phase if r.when else None}
            if r.kind == "DR" and r.values is not None:
                item.update(colored=r.values[0], white=r.values[1], doubles=r.doubles)
            rolls.append(item)
        declared = [{"seq": d.seq, "side": d.side, "kind": d.kind, "units": list(d.units), "hexes": list(d.hexes),
                     "target": d.target, "leader": d.leader} for d in state.declared]
        return {
            "game": self.name,
            "sides": sides,
            "rolls": rolls,
            "notes": notes,
            "declared": declared,
            "owed": [{"side": o.side, "slot": o.slot, "rule": o.rule, "why": o.why} for o in state.owed],
            "clock": state.clock.to_json() if state.clock is not None else None,
            # what `pbem status` lists: the Game Turn (if kept), the Player Turn and phase
            "turn": state.clock.turn if state.clock is not None else None,
            "phase": f"{state.clock.player_turn} {state.clock.phase}" if state.clock is not None else None,
            "module_version": self.version,
            "ending_by": state.ending_by,
            "over": state.over,
        }

    # ------------------------------------------------------------------ hidden-setup checks

    def check_seals(self, state: AslState, side: str, store: Mapping[str, str]) -> list[str]:
        """The owner's client checks its Dare-Death designations before
        sending them: well formed, and 10% rounded up (or none) of the
        eligible squads, one slot each (8.5.2)."""
        if not any(s.startswith(dare_death.SLOT_PREFIX) for s in store):
            return []
        return dare_death.check_store(store, int(self.data.dare_death["percent"]))

    def audit(self, state: AslState, stores: Mapping[str, Mapping[str, str]]) -> list[str]:
        """After the game: each Chinese side's sealed designations obeyed
        8.5.2 -- one per eligible squad declared at setup, 10% rounded up or
        none -- and every squad that went Berserk was a Dare-Death Squad."""
        problems = []
        for setup in state.setups:
            nat = self.data.nationality(setup.nationality)
            if not nat.dare_death:
                continue
            store = stores.get(setup.side, {})
            found = dare_death.check_store(store, int(self.data.dare_death["percent"]), squads=setup.eligible)
            problems += [f"{setup.side}: {p}" for p in found]
        # Every squad that went Berserk had its designation revealed, and
        # checked, in the message declaring it; the protocol's audit has
        # rechecked each of those reveals against the sealed stores.
        return problems
