"""``pbem demo`` (Ambon): a whole game, both sides played by pbem's bot
(:mod:`pbem.games.ambon.bot`) -- every message signed, every die fair,
every reveal checked (:class:`pbem.engine.contract.DemoScript`)."""

from __future__ import annotations

from typing import Any, Sequence

from pbem.engine.contract import DemoPlayer, DemoScript
from pbem.engine.machine import Event
from pbem.games.ambon import GAME
from pbem.games.ambon.bot import AmbonBot


def script(**options: Any) -> DemoScript:
    bot = AmbonBot(GAME, **options)

    def orders(match: Any, side: str, seq: int) -> tuple[dict[str, Any], None]:
        return bot.orders(match.replay.state, side, seq), None

    def describe(match: Any, events: Sequence[Event]) -> str:
        state = match.replay.state
        return f": turn {state.turn}, {state.phase}, {len(events)} events"

    return DemoScript("Ambon, both sides played by pbem's simple bot",
                      DemoPlayer("kenji", "Kenji (Japanese, demo)", "japanese"),
                      DemoPlayer("jack", "Jack (Allied, demo)", "allied"),
                      orders, describe, highlight=("3.0", "3.2"))
