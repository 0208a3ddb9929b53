"""Replay a verified transcript through its game (DESIGN 3, 4.3, 4.4).

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
from typing import Any

from pbem.engine import contract
from pbem.engine.machine import DiceDue, DiceRolled, Event, MessageEnd, Opened, Ordered, RevealDue, Sealed
from pbem.errors import HiddenInfoError, IllegalOrderError, IntegrityError
from pbem.engine.history import History
from pbem.protocol.dice import dice_key, roll
from pbem.protocol.transcript import Transcript


@dataclass(frozen=True)
class RollRecord:
    """One roll with its provenance: what ``pbem log`` shows and verify recomputes."""

    label: str
    purpose: str
    count: int
    sides: int
    values: tuple[int, ...]
    key_seq: int  # message whose D_m keyed it
    author: str  # side that wrote message key_seq
    partner_seq: int  # message whose chain value completed the key
    provisional: bool  # partner value not yet published

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "purpose": self.purpose,
            "dice": f"{self.count}d{self.sides}",
            "values": list(self.values),
            "keyed_by": self.key_seq,
            "keyed_by_author": self.author,
            "completed_by": self.partner_seq,
            "provisional": self.provisional,
        }


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
        return self.game.is_over(self.state)


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
    while True:
        due = [d for d in game.awaiting(state) if isinstance(d, DiceDue) and d.key_seq == seq]
        if not due:
            return state, events, records
        for d in due:
            values = roll(key, d.label, d.count, d.sides)
            state, new = game.apply(state, DiceRolled(d.label, values))
            events.extend(new)
            records.append(RollRecord(d.label, d.purpose, d.count, d.sides, values, seq, msg.side, seq + 1, provisional))


def replay(game: Any, transcript: Transcript, *, next_value: bytes | None = None) -> Replay:
    """Run the whole transcript through ``game``.

    ``next_value`` is the local player's next chain value, given only when the
    local player is the recipient of the last message: it keys that message's
    dice provisionally (the recipient computes them on receipt, DESIGN 4.3).
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
            rolls += records
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
        rolls += records
    result.state, result.base = state, base
    result.pending = tuple(d for d in game.awaiting(state) if isinstance(d, DiceDue))
    return result
