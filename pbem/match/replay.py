"""Replay a verified transcript through its game (DESIGN 3, 4.3, 4.4).

For each message *m*: its commitments become :class:`Sealed` actions, its
checked reveals :class:`Opened`, its public orders :class:`Ordered`, then
:class:`MessageEnd`.  Dice the engine declares due with ``key_seq == m`` are
derived from ``D_m`` -- the author's chain value in *m* and the recipient's in
*m+1* -- and fed back as :class:`DiceRolled` before message *m+1* is applied.
When *m* is the last message, only its recipient can key them (with the value
it will reveal next): ``next_value``; the results are then *provisional* until
that value is published.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pbem.engine import contract
from pbem.engine.machine import DiceDue, DiceRolled, Event, MessageEnd, Opened, Ordered, RevealDue, Sealed
from pbem.errors import HiddenInfoError, IllegalOrderError, IntegrityError
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


@dataclass
class Replay:
    game: Any
    transcript: Transcript
    state: Any
    events: list[tuple[int, Event]] = field(default_factory=list)
    rolls: list[RollRecord] = field(default_factory=list)
    pending: tuple[DiceDue, ...] = ()

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
    state = game.initial_state(transcript.setup.get("options", {}))
    result = Replay(game, transcript, state)
    count = len(transcript)
    for seq in range(count):
        side = transcript.messages[seq].side
        try:
            state, events = apply_message(game, state, actions_for(transcript, seq), seq, side)
        except IllegalOrderError as err:
            wrapped = IllegalOrderError(f"message {seq:04d} by {side}: {err}", field=err.field)
            wrapped.rule = err.rule  # the rule the order broke, for callers that read it
            raise wrapped from err
        result.events += [(seq, e) for e in events]
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
        partner = transcript.chain_values[seq + 1] if seq + 1 < count else next_value
        if partner is not None:
            state, events, records = resolve_dice(game, state, transcript, seq, partner, seq + 1 >= count)
            # what the dice decide becomes known with the message that completes
            # their key: the events are listed under it (their rolls keep key_seq)
            result.events += [(seq + 1, e) for e in events]
            result.rolls += records
    result.state = state
    result.pending = tuple(d for d in game.awaiting(state) if isinstance(d, DiceDue))
    return result
