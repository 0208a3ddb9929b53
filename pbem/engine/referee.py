"""Referee mode (``pbem adjudicate``): apply one side's orders to a position
with dice given by hand -- physical dice rolled at a table, or the rolls of a
rulebook example.

The same pure state machine as a game by email; only the source of the dice
differs.  Every awaited :class:`~pbem.engine.machine.DiceDue` takes the next
``count`` values from the list, in the order the engine asks for them.  Too
few dice, a value off the die, or dice left over are input errors that name
the roll.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from pbem.engine.machine import DiceDue, DiceRolled, Event, MessageEnd, Opened, Ordered, RevealDue
from pbem.errors import InputError


@dataclass
class RefereeResult:
    state: Any
    events: list[Event]
    rolls: list[tuple[str, tuple[int, ...]]] = field(default_factory=list)


def parse_dice(text: str) -> list[int]:
    """``"3,5, 6"`` -> ``[3, 5, 6]``; the field is named on error."""
    values = []
    for i, part in enumerate(p.strip() for p in text.split(",") if p.strip()):
        if not part.isdigit():
            raise InputError(f"--dice: value {i + 1} {part!r} is not a whole number (give e.g. --dice 3,5,6)", field="dice")
        values.append(int(part))
    return values


def adjudicate(
    game: Any,
    state: Any,
    side: str,
    orders: Mapping[str, Any],
    dice: Sequence[int],
    *,
    seq: int = 2,
    end_turn: bool = True,
    secrets: Mapping[str, str] | None = None,
) -> RefereeResult:
    """Apply ``side``'s ``orders`` to ``state``, feeding ``dice`` as awaited
    and answering reveals from ``secrets`` (what the referee knows)."""
    parsed = game.parse_orders(orders, side)
    known: Mapping[str, str] = secrets or {}
    queue = list(dice)
    result = RefereeResult(state, [])

    def feed() -> None:
        while True:
            for r in game.awaiting(result.state):
                if isinstance(r, RevealDue):
                    if r.slot not in known:
                        raise InputError(f"the rules demand the reveal of {r.slot} ({r.rule}); the scenario's [secret] must say what it is", field="secret")
                    result.state, events = game.apply(result.state, Opened(r.side, r.slot, known[r.slot], seq))
                    result.events += events
            due = [d for d in game.awaiting(result.state) if isinstance(d, DiceDue)]
            if not due:
                return
            d = due[0]
            if len(queue) < d.count:
                used = len(dice) - len(queue)
                raise InputError(
                    f"--dice: {d.label!r} ({d.purpose or 'roll'}) needs {d.count}d{d.sides}, "
                    f"but only {len(queue)} of the {len(dice)} dice given are left ({used} used)",
                    field="dice",
                )
            values = tuple(queue[: d.count])
            del queue[: d.count]
            bad = [v for v in values if not 1 <= v <= d.sides]
            if bad:
                raise InputError(f"--dice: {bad[0]} is not a result of a d{d.sides} (for {d.label!r})", field="dice")
            result.state, events = game.apply(result.state, DiceRolled(d.label, values))
            result.events += events
            result.rolls.append((d.label, values))

    feed()
    for index, order in enumerate(parsed.public):
        # An order that itself demands a reveal (a concealed unit moving into a
        # ZOC...) is replayed with the opening published first, as a player's
        # client does (the reveal then takes effect where the rules say).
        before, opened = result.state, []
        while True:
            state, events = game.apply(before, Ordered(side, seq, index, order))
            demanded = [
                r for r in game.awaiting(state)
                if isinstance(r, RevealDue) and r.side == side and r.slot in known and r.slot not in opened
            ]
            if not demanded:
                break
            for r in demanded:
                before, more = game.apply(before, Opened(r.side, r.slot, known[r.slot], seq))
                result.events += more
                opened.append(r.slot)
        result.state = state
        result.events += events
        feed()
    if end_turn:
        result.state, events = game.apply(result.state, MessageEnd(side, seq))
        result.events += events
        feed()
    if queue:
        raise InputError(
            f"--dice: {len(queue)} die/dice left unused ({', '.join(map(str, queue))}); "
            f"the orders needed {len(dice) - len(queue)}",
            field="dice",
        )
    return result
