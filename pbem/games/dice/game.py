"""The ``dice`` game: what two players of *any* wargame need from an email
dice server, and more -- declared rolls nobody can bias or preview, and
sealed notes opened later.

Orders (TOML ``[[order]]`` tables with a ``type``):

``roll``   ``dice = "2d6+1"``, ``note = "attack on the bridge"`` (dice.roll)
``seal``   ``slot = "ambush"``, ``text = "..."`` (dice.seal)
``reveal`` ``slot = "ambush"`` (dice.reveal)
``end``    ends the game; the opponent's reply closes it (dice.end)

and a ``[standing]`` table, ``key-rolls = "auto"`` (or ``"off"``, the
default): the side's ``pbem watch`` keys the opponent's rolls by itself
(dice.standing, :class:`pbem.engine.standing.KeysRolls`).

The wire format of its orders and the grammar of its dice are in
docs/protocol.md 6.5; rule ids cited in errors name the order kinds above.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
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
    Sealed,
    illegal,
    replace,
)
from pbem.engine import notes
from pbem.engine.standing import KeysRolls, StandingTable
from pbem.engine.later import dice_due, match_roll
from pbem.engine.orders import typed_orders
from pbem.errors import InputError
from pbem.games.dice import template
from pbem.games.dice.boardview import board_view
from pbem.games.dice.expression import CURRENT, PLAIN, RULES, DiceExpression

if TYPE_CHECKING:
    from pbem.engine.boardview import BoardView

MAX_NOTE = 200
DEFAULT_SIDES = ("first", "second")
SIDE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,31}", re.ASCII)  # docs/protocol.md 3.3: it names the message files
ORDER_FIELDS = {
    "roll": {"type", "dice", "note"},
    "seal": {"type", "slot", "text"},
    "reveal": {"type", "slot"},
    "end": {"type"},
}


@dataclass(frozen=True)
class Roll:
    seq: int
    index: int
    side: str
    dice: str
    note: str
    values: tuple[tuple[int, ...] | None, ...]
    key_seq: int
    expression: DiceExpression  # ``dice`` parsed, once, when the roll is declared

    @property
    def label(self) -> str:
        return f"{self.seq}.{self.index}"

    @property
    def resolved(self) -> bool:
        return all(v is not None for v in self.values)

    @property
    def total(self) -> int | None:
        return self.expression.total([v for v in self.values if v is not None]) if self.resolved else None


@dataclass(frozen=True)
class DiceState:
    sides: tuple[str, str]
    # how many rolls are resolved: the rolls themselves are the replay's
    # record (its roll history, the events), so the state does not grow
    # with the game
    resolved: int = 0
    pending: tuple[Roll, ...] = ()  # declared, waiting for dice: only these are looked at per step
    notes: tuple[notes.Note, ...] = ()
    ending_by: str | None = None
    over: bool = False
    orders_in_message: int = 0
    standing: StandingTable = StandingTable()  # each side's key-rolls (dice.standing)
    keying: bool = False  # the last message needs keying (pbem.engine.standing.needs_keying)


def _text(order: Mapping[str, Any], name: str, where: str, limit: int, *, required: bool = True) -> str:
    value = order.get(name, "" if not required else None)
    if value is None:
        raise InputError(f"{where}: field {name!r} is required", field=name)
    if not isinstance(value, str):
        raise InputError(f"{where}: field {name!r} must be a string, got {value!r}", field=name)
    if len(value) > limit:
        raise InputError(f"{where}: field {name!r} is longer than {limit} characters", field=name)
    return value


def results_of(roll: Roll) -> list[dict[str, Any]]:
    """Each term's results read from its dice (a d66's 3, 5 is 35) and, for a
    keep-highest / keep-lowest term, which count: ``[{"results": [6, 2, 5, 1],
    "kept": [True, True, True, False]}]`` (docs/protocol.md 6.5)."""
    out = []
    for term, values in zip(roll.expression.terms, roll.values, strict=True):
        found = tuple(values or ())
        out.append({"results": list(term.results(found)), "kept": list(term.kept(found))})
    return out


def _pending_term(pending: Sequence[Roll], label: str) -> tuple[int, int] | None:
    """(position in ``pending``, term) of the term labelled ``ROLL/TERM``
    (``SEQ.INDEX/TERM``, docs/protocol.md 6.5) while it is unrolled; None
    when no such term is due.  ``pending`` is in the order declared, that is
    by (seq, index): a bisection finds the roll, so that rolling every term
    of a message costs time linear in its terms, not quadratic."""
    name, slash, term = label.rpartition("/")
    seq, dot, index = name.partition(".")
    if not (slash and dot and all(p.isascii() and p.isdigit() for p in (seq, index, term))):
        return None
    key = (int(seq), int(index))
    i = bisect.bisect_left(pending, key, key=lambda roll: (roll.seq, roll.index))
    if i == len(pending) or pending[i].label != name:  # "02.1" is no label: never a leading zero
        return None
    t = int(term)
    if str(t) != term or t >= len(pending[i].values) or pending[i].values[t] is not None:
        return None
    return i, t


def side_names(options: Mapping[str, Any]) -> tuple[str, str]:
    """The two sides a proposal's ``options.sides`` names (``pbem new
    --sides german,soviet``), in order; ``first``, ``second`` without it
    (docs/protocol.md 6.5).  A name is 1-32 letters, digits, ``_`` or ``-``
    starting with a letter (it names the message files), and the two differ
    even ignoring case (a file system may not tell ``German`` from ``german``)."""
    given = options.get("sides")
    if given is None:
        return DEFAULT_SIDES
    where = "options.sides (--sides)"
    if not isinstance(given, list) or len(given) != 2 or not all(isinstance(s, str) for s in given):
        raise InputError(f"{where}: expected two side names, e.g. german,soviet; got {given!r}", field="sides")
    for name in given:
        if not SIDE_NAME.fullmatch(name):
            raise InputError(f"{where}: side name {name[:40]!r} is not 1-32 letters, digits, '_' or '-' starting with "
                             f"a letter (it names the message files)", field="sides")
    if given[0].lower() == given[1].lower():
        raise InputError(f"{where}: the two sides are both called {given[0]!r} (ignoring case); name two different "
                         f"sides", field="sides")
    return given[0], given[1]


class DiceGame(notes.EndedByOrder, KeysRolls, Dispatching):
    """Declared, verifiable rolls and sealed notes (sides ``first``,
    ``second`` unless message 0 names others).

    ``version`` is the dice rules a game's message 0 pins
    (:data:`pbem.games.dice.expression.RULES`): a game proposed with rules
    ``1`` keeps reading ``d66`` and ``d100`` as one die of 66 and 100 faces;
    :meth:`for_terms` builds the game a message 0 is played with."""

    name: ClassVar[str] = "dice"
    end_rule: ClassVar[str] = "dice.end"
    standing_rule: ClassVar[str] = "dice.standing"
    version: str
    sides: tuple[str, str]

    def __init__(self, version: str = CURRENT, sides: tuple[str, str] = DEFAULT_SIDES):
        if version not in RULES:
            raise InputError(f"dice rules version {version!r}: this pbem knows {', '.join(RULES)}", field="module_version")
        self.version = version
        self.sides = sides

    def __repr__(self) -> str:
        return f"DiceGame(version={self.version!r}, sides={self.sides!r})"

    # ------------------------------------------------------------------ data and setup

    def for_terms(self, version: str, options: Mapping[str, Any]) -> "DiceGame":
        """The game a message 0 pinning dice rules ``version`` and
        ``options`` is played with (:class:`pbem.engine.contract.Terms`):
        those rules (``self`` for a version this pbem does not know, which
        the caller then refuses) and the sides ``options.sides`` names."""
        sides = side_names(options)
        if version not in RULES or (version, sides) == (self.version, self.sides):
            return self
        return DiceGame(version, sides)

    def ruleset_files(self) -> Sequence[tuple[str, bytes]]:
        return [("dice/version", self.version.encode())]

    def decisions(self, state: Any, side: str) -> tuple[str, ...]:
        """Every message may declare rolls, seal or reveal notes, or end the
        game: each one is the player's (pbem watch writes only the closing
        one) -- but the answer to a message that needs keying, when the
        player's ``key-rolls = "auto"`` leaves it to their machine: it keys
        the dice and declares nothing (dice.standing)."""
        if self.keys_by_itself(state, side):
            return ()
        return ("your rolls, notes and reveals, or the end (dice.roll, dice.seal, dice.reveal, dice.end)",)

    def initial_state(self, setup: Mapping[str, Any]) -> DiceState:
        if setup.get("rules"):
            raise InputError(f"the dice game has no optional rules (got {', '.join(map(str, setup['rules']))})")
        sides = side_names(setup)
        if sides != self.sides:
            raise InputError(f"options.sides names {', '.join(sides)}; this dice game is played by "
                             f"{', '.join(self.sides)}", field="sides")
        return DiceState(sides=self.sides)

    # ------------------------------------------------------------------ orders

    def parse_orders(self, document: Mapping[str, Any], side: str) -> ParsedOrders:
        """Read an orders document (syntax only; legality is ``apply``'s)."""
        public: list[dict[str, Any]] = []
        seals: dict[str, str] = {}
        reveals: list[str] = []
        ends = False
        standing = self.standing_order(document)
        if standing is not None:
            public.append(standing)
        for number, kind, order in typed_orders(document, ORDER_FIELDS, top_level=("order", "standing")):
            where = f"order {number}"
            extra = set(order) - ORDER_FIELDS[kind]
            if extra:
                raise InputError(f"{where} ({kind}): unknown field(s) {', '.join(sorted(extra))}", field=sorted(extra)[0])
            if ends:
                raise InputError(f"{where}: no order may follow 'end'", rule="dice.end")
            if kind == "roll":
                dice = _text(order, "dice", where, 64)
                DiceExpression.parse(dice, field=f"{where}: dice", rules=self.version)
                public.append({"type": "roll", "dice": dice, "note": _text(order, "note", where, MAX_NOTE, required=False)})
            elif kind in ("seal", "reveal"):
                notes.read_note_order(kind, order, where, seals, reveals)
            else:
                public.append({"type": "end"})
                ends = True
        return ParsedOrders(public=tuple(public), seals=seals, reveals=tuple(reveals), ends_game=ends)

    # ------------------------------------------------------------------ the state machine

    def _order(self, state: DiceState, action: Ordered) -> tuple[DiceState, list[Event]]:
        order = action.order
        kind = order.get("type")
        self._closing_check(state, action.side, f"a {kind!r} order")
        if kind == "roll" and set(order) == ORDER_FIELDS["roll"]:
            if not isinstance(order["dice"], str) or not isinstance(order["note"], str):
                raise illegal("dice.roll", f"roll order {action.index} has mistyped fields")
            try:
                expr = DiceExpression.parse(order["dice"], rules=self.version)
            except InputError as err:
                raise illegal("dice.roll", str(err)) from err
            roll = Roll(
                action.seq, action.index, action.side, expr.text, order["note"], (None,) * len(expr.terms), action.seq,
                expr,
            )
            event = Event(
                "dice.roll",
                f"{action.side} declares {expr.text}" + (f" for {roll.note!r}" if roll.note else "")
                + f"; keyed by message {action.seq:04d}, resolved when the reply arrives",
                {"label": roll.label, "dice": expr.text, "note": roll.note},
            )
            return replace(state, pending=state.pending + (roll,)), [event]
        if kind == "end" and set(order) == ORDER_FIELDS["end"]:
            return self._end(state, action.side)
        if kind == "standing":
            return self._standing(state, action.side, order)
        raise illegal("dice.orders", f"order {action.index} in message {action.seq:04d} is not a valid dice order: {dict(order)!r}")

    def _rolled(self, state: DiceState, action: DiceRolled) -> tuple[DiceState, list[Event]]:
        found = _pending_term(state.pending, action.label)
        if found is None:  # not due: match_roll says so, with the labels that are
            due = match_roll(dice_due(self.awaiting(state)), action, "dice.roll")
            found = _pending_term(state.pending, due.label)
            if found is None:
                raise illegal("dice.roll", f"no roll labelled {action.label!r} is due")
        i, t = found
        roll = state.pending[i]
        term = roll.expression.terms[t]
        due = DiceDue(action.label, term.dice, term.die, roll.key_seq, roll.note)
        match_roll(((due, due),), action, "dice.roll")  # the number of dice and every value
        values = roll.values[:t] + (tuple(action.values),) + roll.values[t + 1 :]
        new = replace(roll, values=values)
        pending = state.pending[:i] + (new,) + state.pending[i + 1 :]
        events = []
        if new.resolved:
            pending = state.pending[:i] + state.pending[i + 1 :]
            shown = new.expression.shown(list(new.values))
            events.append(
                Event(
                    "dice.roll",
                    f"{new.side} rolled {new.dice}" + (f" for {new.note!r}" if new.note else "")
                    + f": {shown} (keyed by message {new.key_seq:04d})",
                    {"label": new.label, "dice": new.dice, "values": [list(v) for v in new.values],
                     "results": results_of(new), "modifier": new.expression.modifier, "total": new.total},
                )
            )
            return replace(state, resolved=state.resolved + 1, pending=pending), events
        return replace(state, pending=pending), events

    def _sealed(self, state: DiceState, action: Sealed) -> tuple[DiceState, list[Event]]:
        self._closing_check(state, action.side, "a new sealed note")
        sealed = notes.seal(state.notes, action.side, action.slot, action.seq, "dice.seal")
        event = Event("dice.seal", f"{action.side} seals a note in slot {action.slot!r}", {"slot": action.slot})
        return replace(state, notes=sealed), [event]

    def _opened(self, state: DiceState, action: Opened) -> tuple[DiceState, list[Event]]:
        opened, note = notes.open_note(state.notes, action.side, action.slot, action.value, action.seq, "dice.reveal")
        event = Event(
            "dice.reveal",
            f"{action.side} reveals slot {action.slot!r} (sealed in message {note.sealed_in:04d}): {action.value!r}",
            {"slot": action.slot, "value": action.value},
        )
        return replace(state, notes=opened), [event]

    def _message_end(self, state: DiceState, action: MessageEnd) -> tuple[DiceState, list[Event]]:
        return self._closed(self._keying(state, action.seq, self.awaiting(state)), action.side)

    # ------------------------------------------------------------------ queries

    def awaiting(self, state: DiceState) -> tuple[DiceDue, ...]:
        due = []
        for roll in state.pending:
            for t, term in enumerate(roll.expression.terms):
                if roll.values[t] is None:
                    due.append(DiceDue(f"{roll.label}/{t}", term.dice, term.die, roll.key_seq, roll.note))
        return tuple(due)

    def describe_roll(self, state: DiceState, due: DiceDue, values: tuple[int, ...] | None = None,
                      events: Sequence[Event] = ()) -> dict[str, Any] | None:
        """The declared roll a dice group ``ROLL/TERM`` is a term of
        (:class:`pbem.engine.contract.DescribesRolls`): ``1d20+1d4-2`` is two
        groups and a modifier; its total once its last group is rolled, and
        for a roll not simply summed (a d66, a d%, a kept term) the result as
        the events write it, dropped dice marked: ``6 + 2 + 5 (dropped 1) = 13``."""
        found = _pending_term(state.pending, due.label)
        if found is None:
            return None
        i, t = found
        roll = state.pending[i]
        label, expr = roll.label, roll.expression
        described: dict[str, Any] = {"roll": label, "expression": expr.text, "sign": expr.terms[t].sign,
                                     "modifiers": [("", expr.modifier)] if expr.modifier else []}
        if values is not None:
            rolled = roll.values[:t] + (tuple(values),) + roll.values[t + 1 :]
            if all(v is not None for v in rolled):
                known = [v for v in rolled if v is not None]
                described["total"] = expr.total(known)
                if any(term.kind != PLAIN or term.keep for term in expr.terms):  # not simply its dice summed
                    described["shown"] = expr.shown(known)
        return described

    def orders_template(self, state: DiceState, side: str, secrets: Mapping[str, str]) -> Any:
        """The game's part of ``pbem orders DIR``: the order types with
        examples, the notes still sealed, the rolls pending
        (:mod:`pbem.games.dice.template`)."""
        return template.sections(self, state, side, secrets)

    def board_view(self, view: Mapping[str, Any]) -> "BoardView":
        """What the renderers draw of ``view`` (:mod:`pbem.games.dice.boardview`)."""
        return board_view(self.sides, view)

    def view(self, state: DiceState, side: str | None, secrets: Mapping[str, str] | None = None) -> dict[str, Any]:
        secrets = secrets or {}
        notes = []
        for note in state.notes:
            item = {"slot": note.slot, "side": note.side, "sealed_in": note.sealed_in, "revealed_in": note.revealed_in}
            if note.value is not None:
                item["value"] = note.value
            elif side == note.side and note.slot in secrets:
                item["value"] = secrets[note.slot]
                item["private"] = True
            notes.append(item)
        pending = [
            {
                "label": r.label,
                "side": r.side,
                "dice": r.dice,
                "note": r.note,
                "values": [list(v) if v is not None else None for v in r.values],
                "key_seq": r.key_seq,
            }
            for r in state.pending
        ]
        # the rolls done are the replay's record (pbem log, show --json's "rolls"): a view
        # counts them, and so reads none of them however long the game
        return {
            "game": self.name,
            "sides": list(state.sides),
            "rolls_declared": state.resolved + len(state.pending),
            "pending_rolls": pending,
            "notes": notes,
            "ending_by": state.ending_by,
            "over": state.over,
        }

    def audit(self, state: DiceState, stores: Mapping[str, Mapping[str, str]]) -> list[str]:
        """Game-level hidden-setup checks at audit: none beyond the protocol's."""
        return []
