"""``pbem demo dice``: a short dice game exercising every dice-game order --
rolls each turn, a sealed note revealed later, ``end`` and the closing
reply (:class:`pbem.engine.contract.DemoScript`)."""

from __future__ import annotations

from typing import Any, Sequence

from pbem.engine.contract import DemoPlayer, DemoScript
from pbem.engine.machine import Event

#: the orders of messages 2, 3, ...: (author, orders)
SCRIPT: list[tuple[str, list[dict[str, Any]]]] = [
    ("first", [{"type": "roll", "dice": "2d6", "note": "artillery on the ridge"},
               {"type": "seal", "slot": "ambush", "text": "2nd platoon waits in the orchard at 1509"}]),
    ("second", [{"type": "roll", "dice": "1d10+2", "note": "recovery check"},
                {"type": "roll", "dice": "d20", "note": "morale"}]),
    ("first", [{"type": "reveal", "slot": "ambush"},
               {"type": "roll", "dice": "3d6", "note": "ambush fire"}]),
    ("second", [{"type": "roll", "dice": "2d6-1", "note": "counter-attack"}]),
    ("first", [{"type": "end"}]),
    ("second", []),
]


def _orders(match: Any, side: str, seq: int) -> tuple[dict[str, Any], None]:
    if seq == 1:
        return {}, None
    author, orders = SCRIPT[seq - 2]
    if author != side:
        raise AssertionError(f"dice demo: message {seq:04d} is {side}'s, the script has it {author}'s")
    return ({"order": orders} if orders else {}), None


def _events(match: Any, events: Sequence[Event]) -> str:
    return "".join(f"\n  {e.sentence()}" for e in events)


def script(**options: Any) -> DemoScript:
    if options:
        raise TypeError(f"the dice demo takes no options: {', '.join(options)}")
    return DemoScript("a short dice game: rolls, a sealed note, the end",
                      DemoPlayer("ann", "Ann (demo)", "first"), DemoPlayer("bob", "Bob (demo)", "second"),
                      _orders, _events)
