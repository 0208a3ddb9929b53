"""Replay a verified transcript through its game (docs/architecture.md; docs/protocol.md §6, §7).

For each message *m*: its commitments become :class:`Sealed` actions, its
checked reveals :class:`Opened`, its public orders :class:`Ordered`, then
:class:`MessageEnd`.  Dice the engine declares due with ``key_seq == m`` are
derived from ``D_m`` -- the author's chain value in *m* and the recipient's in
*m+1* -- and fed back as :class:`DiceRolled` before message *m+1* is applied.
When *m* is the last message, only its recipient can key them (with the value
it will reveal next): ``next_value``; the results are then *provisional* until
that value is published.

:func:`extend` applies only what is new: a :class:`Replay` keeps the state
after its last message *before* that message's dice were keyed
(``base``), so the next message's chain value keys them for real and the
replay goes on from there.  :func:`replay` is :func:`extend` from nothing,
so both give the same result by construction.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from pbem.engine import contract
from pbem.engine.machine import DiceDue, DiceRolled, Event, MessageEnd, Opened, Ordered, RevealDue, Sealed, replace
from pbem.errors import HiddenInfoError, IllegalOrderError, IntegrityError
from pbem.engine.history import History
from pbem.protocol.dice import dice_key, roll
from pbem.protocol.transcript import Transcript


@dataclass(frozen=True)
class RollRecord:
    """One dice group rolled, with its provenance: what verify recomputes.
    ``roll`` .. ``total`` say which declared roll it is part of and how that
    roll reads (:class:`pbem.engine.contract.DescribesRolls`); :func:`declared_rolls` puts a
    roll's groups together, as ``pbem log`` shows them."""

    label: str
    purpose: str
    count: int
    sides: int
    values: tuple[int, ...]
    key_seq: int  # message whose D_m keyed it
    author: str  # side that wrote message key_seq
    partner_seq: int  # message whose chain value completed the key
    provisional: bool  # partner value not yet published
    roll: str = ""  # the declared roll's label ("": the group is the roll)
    expression: str = ""  # the declared roll as written ("": NdS)
    sign: int = 1  # the group's sign in the roll's sum
    modifiers: tuple[tuple[str, int], ...] = ()  # (why, value) added to the dice
    total: int | None = None  # the declared roll's total, where the game computes one
    shown: str = ""  # the roll's result as the game writes it ("": its dice summed)
    declared: int = 0  # which declared roll of the game it is part of, from 0 (:func:`numbered`)

    @property
    def dice(self) -> str:
        return f"{self.count}d{self.sides}"

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "purpose": self.purpose,
            "dice": self.dice,
            "values": list(self.values),
            "keyed_by": self.key_seq,
            "keyed_by_author": self.author,
            "completed_by": self.partner_seq,
            "provisional": self.provisional,
            "roll": self.roll or self.label,
            "expression": self.expression or self.dice,
            "sign": self.sign,
            "modifier": sum(m for _, m in self.modifiers),
            "modifiers": [{"why": why, "value": m} for why, m in self.modifiers],
            "total": self.total,
        }


@dataclass(frozen=True)
class Term:
    """One dice group of a declared roll: its sign, its dice, their values
    (None: not rolled yet)."""

    sign: int
    count: int
    sides: int
    values: tuple[int, ...] | None

    def to_json(self) -> dict[str, Any]:
        return {"dice": f"{self.count}d{self.sides}", "sign": self.sign,
                "values": None if self.values is None else list(self.values)}


@dataclass(frozen=True)
class DeclaredRoll:
    """A roll as its players declared and read it -- each term, the
    modifiers, the total -- made of one or more dice groups:
    ``2d6+1: 2 + 2 + 1 = 5``, ``1d20+1d4-2: 17 + 3 - 2 = 18``,
    ``2d6+1: pending (keyed by 0005)``."""

    label: str
    author: str
    purpose: str
    expression: str
    terms: tuple[Term, ...]
    modifiers: tuple[tuple[str, int], ...]
    total: int | None
    key_seq: int
    partner_seq: int
    provisional: bool
    pending: bool
    written: str = ""  # the result as the game writes it (DescribesRolls' ``shown``), e.g. with dropped dice marked

    @property
    def modifier(self) -> int:
        return sum(m for _, m in self.modifiers)

    @property
    def groups(self) -> int:
        return len(self.terms)

    @property
    def why(self) -> str:
        """The modifiers that have a reason: ``"+1 attacking a town (11.2)"``."""
        return "; ".join(f"{m:+d} {why}" for why, m in self.modifiers if why)

    def result(self) -> str:
        """``2 + 2 + 1 = 5``; ``pending (keyed by 0005)``; ``15, 3, 20`` for
        dice the game reads one by one."""
        if self.pending:
            return f"pending (keyed by {self.key_seq:04d})"
        if self.written:
            return self.written
        parts = [(t.sign, v) for t in self.terms for v in t.values or ()]
        parts += [(1 if m >= 0 else -1, abs(m)) for _, m in self.modifiers if m]
        if self.total is None and not any(m for _, m in self.modifiers):
            return ", ".join(("-" if s < 0 else "") + str(v) for s, v in parts)
        text = "".join((("-" if s < 0 else "") if i == 0 else f" {'+' if s > 0 else '-'} ") + str(v)
                       for i, (s, v) in enumerate(parts))
        if self.total is not None and len(parts) > 1:
            text += f" = {self.total}"
        return text

    def shown(self) -> str:
        return f"{self.expression}: {self.result()}"

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "by": self.author,
            "purpose": self.purpose,
            "expression": self.expression,
            "terms": [t.to_json() for t in self.terms],
            "modifier": self.modifier,
            "modifiers": [{"why": why, "value": m} for why, m in self.modifiers],
            "total": self.total,
            "shown": self.shown(),
            "keyed_by": self.key_seq,
            "completed_by": self.partner_seq,
            "provisional": self.provisional,
            "pending": self.pending,
        }


def describe(game: Any, state: Any, due: DiceDue, values: tuple[int, ...] | None = None,
             events: Sequence[Event] = ()) -> tuple[str, str, int, tuple[tuple[str, int], ...], int | None, str]:
    """(roll label, expression, sign, modifiers, total, shown) of the group ``due``,
    as the game describes it (:class:`pbem.engine.contract.DescribesRolls`) or as a roll of its own."""
    return _described(game.describe_roll(state, due, values, events) if isinstance(game, contract.DescribesRolls)
                      else None, due)


def _described(found: Mapping[str, Any] | None, due: DiceDue
               ) -> tuple[str, str, int, tuple[tuple[str, int], ...], int | None, str]:
    """:func:`describe`'s answer from what the game's ``describe_roll`` said (``found``)."""
    if found is None:
        return due.label, f"{due.count}d{due.sides}", 1, (), None, ""
    modifiers = tuple((str(why), int(m)) for why, m in found.get("modifiers", ()))
    total = found.get("total")
    return (str(found.get("roll", due.label)), str(found.get("expression", f"{due.count}d{due.sides}")),
            -1 if found.get("sign", 1) < 0 else 1, modifiers, None if total is None else int(total),
            str(found.get("shown", "")))


def _same_roll(r: RollRecord, previous: RollRecord) -> bool:
    """``r`` is a later group of the declared roll ``previous`` is part of."""
    return bool(r.roll) and r.roll == previous.roll and r.key_seq == previous.key_seq


def numbered(records: Sequence[RollRecord], previous: RollRecord | None) -> list[RollRecord]:
    """``records`` (the next groups rolled after ``previous``, None: the
    first) with the number of the declared roll each is part of, so that
    how many rolls came before one is known without reading them."""
    out = []
    for r in records:
        number = 0 if previous is None else previous.declared + (0 if _same_roll(r, previous) else 1)
        previous = replace(r, declared=number) if r.declared != number else r
        out.append(previous)
    return out


def declared_rolls(records: Iterable[RollRecord]) -> list[DeclaredRoll]:
    """The rolls ``records`` (oldest first) make, each of its groups together."""
    out: list[DeclaredRoll] = []
    group: list[RollRecord] = []

    def close() -> None:
        if group:
            last = group[-1]
            terms = tuple(Term(r.sign, r.count, r.sides, r.values) for r in group)
            out.append(DeclaredRoll(last.roll or last.label, last.author, last.purpose, last.expression or last.dice,
                                    terms, last.modifiers, last.total, last.key_seq, last.partner_seq,
                                    last.provisional, False, last.shown))
            group.clear()

    for r in records:
        if group and not _same_roll(r, group[-1]):
            close()
        group.append(r)
    close()
    return out


def pending_rolls(replay: "Replay", key_seq: int | None = None) -> list[DeclaredRoll]:
    """The rolls whose dice ``replay`` awaits (those keyed by ``key_seq``, if
    given), each of its groups together."""
    out: list[DeclaredRoll] = []
    for d in replay.pending:
        if key_seq is not None and d.key_seq != key_seq:
            continue
        label, expression, sign, modifiers, _, _ = describe(replay.game, replay.state, d)
        term = Term(sign, d.count, d.sides, None)
        if out and out[-1].label == label and out[-1].key_seq == d.key_seq and label != d.label:
            out[-1] = replace(out[-1], terms=out[-1].terms + (term,))
            continue
        author = replay.transcript.messages[d.key_seq].side
        out.append(DeclaredRoll(label, author, d.purpose, expression, (term,), modifiers, None, d.key_seq,
                                d.key_seq + 1, False, True))
    return out


def counted(rolls: Sequence[DeclaredRoll], verb: str = "", rest: str = "") -> str:
    """What the players declared, then the dice groups if they differ:
    ``counted(rolls, "await", " the reply")`` is ``"2 declared rolls await
    the reply (3 dice groups)"`` or ``"1 declared roll awaits the reply"``."""
    groups, one = sum(r.groups for r in rolls), len(rolls) == 1
    text = f"{len(rolls)} declared roll{'' if one else 's'}" + (f" {verb}{'s' if one else ''}" if verb else "") + rest
    return text + (f" ({groups} dice group{'' if groups == 1 else 's'})" if groups != len(rolls) else "")


@dataclass(frozen=True)
class Base:
    """Where :func:`extend` goes on from: the state after the replay's last
    message, before its dice were keyed, and how many events and rolls came
    before those dice."""

    state: Any
    events: int
    rolls: int


@dataclass
class Replay:
    game: Any
    transcript: Transcript
    state: Any
    events: History = field(default_factory=History)  # (seq, event), oldest first
    rolls: History = field(default_factory=History)  # RollRecord, oldest first
    pending: tuple[DiceDue, ...] = ()
    base: Base | None = None  # None: nothing replayed yet (state is the initial state)

    @property
    def next_seq(self) -> int:
        return len(self.transcript)

    @property
    def next_side(self) -> str:
        return self.transcript.side_of(self.next_seq)

    @property
    def over(self) -> bool:
        over: bool = self.game.is_over(self.state)
        return over


def actions_for(transcript: Transcript, seq: int, orders: list[Any] | None = None) -> list[Any]:
    """The engine actions message ``seq`` stands for."""
    msg = transcript.messages[seq]
    side = msg.side
    actions: list[Any] = [Sealed(side, slot, seq) for slot in sorted(msg.body["commitments"])]
    for item in msg.body["reveals"]:
        actions.append(Opened(side, item["slot"], item["value"], seq))
    public = msg.body.get("orders", []) if orders is None else orders
    if not isinstance(public, list):
        raise IntegrityError(f"message {seq:04d}: 'orders' must be a list")
    for index, order in enumerate(public):
        if not isinstance(order, dict):
            raise IntegrityError(f"message {seq:04d}: order {index} is not an object")
        actions.append(Ordered(side, seq, index, order))
    actions.append(MessageEnd(side, seq))
    return actions


def apply_message(game: Any, state: Any, actions: list[Any], seq: int, side: str) -> tuple[Any, list[Event]]:
    """Apply one message's actions.  Every reveal its author owes by the end
    of it -- owed before, or demanded by its own orders -- must be in it."""
    events: list[Event] = []
    for action in actions:
        state, new = game.apply(state, action)
        events.extend(new)
    still = sorted(a.slot for a in game.awaiting(state) if isinstance(a, RevealDue) and a.side == side)
    if still:
        raise HiddenInfoError(f"message {seq:04d}: {side} owed the reveal of {', '.join(still)} and did not make it")
    return state, events


def resolve_dice(
    game: Any, state: Any, transcript: Transcript, seq: int, partner_value: bytes, provisional: bool
) -> tuple[Any, list[Event], list[RollRecord]]:
    """Feed every roll keyed by message ``seq``."""
    msg = transcript.messages[seq]
    key = dice_key(transcript.game, seq, msg.digest, transcript.chain_values[seq], partner_value)
    events: list[Event] = []
    records: list[RollRecord] = []
    describes = isinstance(game, contract.DescribesRolls)  # once: a Protocol check reads the whole class
    while True:
        due = [d for d in game.awaiting(state) if isinstance(d, DiceDue) and d.key_seq == seq]
        if not due:
            break
        for d in due:
            values = roll(key, d.label, d.count, d.sides)
            before = state
            state, new = game.apply(state, DiceRolled(d.label, values))
            events.extend(new)
            label, expression, sign, modifiers, total, shown = _described(
                game.describe_roll(before, d, values, new) if describes else None, d)
            records.append(RollRecord(d.label, d.purpose, d.count, d.sides, values, seq, msg.side, seq + 1, provisional,
                                      "" if label == d.label else label, expression, sign, modifiers, total, shown))
    # a roll's total is known with its last group: every group of it carries it
    totals: dict[str, int | None] = {}
    for i in reversed(range(len(records))):
        r = records[i]
        if r.roll:
            total = totals.setdefault(r.roll, r.total)
            if total != r.total:
                records[i] = replace(r, total=total)
    return state, events, records


def replay(game: Any, transcript: Transcript, *, next_value: bytes | None = None) -> Replay:
    """Run the whole transcript through ``game``.

    ``next_value`` is the local player's next chain value, given only when the
    local player is the recipient of the last message: it keys that message's
    dice provisionally (the recipient computes them on receipt, docs/protocol.md §6.3).
    """
    start = Replay(game, transcript, game.initial_state(transcript.setup.get("options", {})))
    return extend(start, transcript, next_value=next_value)


def extend(previous: Replay, transcript: Transcript, *, next_value: bytes | None = None) -> Replay:
    """``previous`` (a replay of a prefix of ``transcript``) carried on to the
    end of ``transcript``: the messages after the prefix are applied, nothing
    before them is (``next_value`` as for :func:`replay`).  ``previous`` is
    left as it was."""
    game = previous.game
    done = len(previous.transcript) if previous.base is not None else 0
    count = len(transcript)
    if done > count or any(transcript.messages[i].digest != previous.transcript.messages[i].digest
                           for i in (done - 1,) if i >= 0):
        raise IntegrityError("a replay can only be extended by the messages that follow it")
    if previous.base is None:
        state, events, rolls = previous.state, History(), History()
    else:
        state = previous.base.state
        events, rolls = previous.events.truncated(previous.base.events), previous.rolls.truncated(previous.base.rolls)
    result = Replay(game, transcript, state, events, rolls)
    base = previous.base
    for seq in range(done, count):
        if seq > 0:  # the last message's dice, keyed now by this message's chain value
            state, new, records = resolve_dice(game, state, transcript, seq - 1, transcript.chain_values[seq], False)
            events += [(seq, e) for e in new]
            rolls += numbered(records, rolls[-1] if rolls else None)
        side = transcript.messages[seq].side
        try:
            state, new = apply_message(game, state, actions_for(transcript, seq), seq, side)
        except IllegalOrderError as err:
            wrapped = IllegalOrderError(f"message {seq:04d} by {side}: {err}", field=err.field)
            wrapped.rule = err.rule  # the rule the order broke, for callers that read it
            raise wrapped from err
        events += [(seq, e) for e in new]
        if "secret" in transcript.messages[seq].body and not (
            game.is_over(state) or contract.is_ending(game, state)
        ):
            raise IntegrityError(
                f"message {seq:04d}: {side} reveals its per-game secret while the game goes on; "
                f"only closing messages may"
            )
        stale = [d for d in game.awaiting(state) if isinstance(d, DiceDue) and d.key_seq < seq]
        if stale:
            raise IntegrityError(f"message {seq:04d}: dice {stale[0].label!r} keyed by an earlier message are unresolved")
        base = Base(state, len(events), len(rolls))
    if count and next_value is not None:  # keyed provisionally: only the recipient can, until it writes its reply
        state, new, records = resolve_dice(game, state, transcript, count - 1, next_value, True)
        # what the dice decide becomes known with the message that completes
        # their key: the events are listed under it (their rolls keep key_seq)
        events += [(count, e) for e in new]
        rolls += numbered(records, rolls[-1] if rolls else None)
    result.state, result.base = state, base
    result.pending = tuple(d for d in game.awaiting(state) if isinstance(d, DiceDue))
    return result
