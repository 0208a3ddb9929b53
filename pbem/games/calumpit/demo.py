"""``pbem demo calumpit``: a whole referee game of Calumpit Bridge by email
(:class:`pbem.engine.contract.DemoScript`).  Amy commands the Americans,
Ken is the Japanese player and umpire, both played by
:class:`pbem.games.calumpit.bot.CalumpitBot`.  The dice differ from run to
run, so the orders are made for the position each message finds.  The game
ends by the victory conditions: Ken reports the Japanese at the bridge once
no American rifle unit stands; Amy ends the game (``end``) when the Japanese
force is destroyed or all retreating, or after turn ``last_turn``."""

from __future__ import annotations

from typing import Any, Sequence

from pbem.engine.contract import DemoPlayer, DemoScript
from pbem.engine.machine import Event
from pbem.games.calumpit import GAME
from pbem.games.calumpit.bot import CalumpitBot
from pbem.games.calumpit.events import ROUTINE as NO_CARD

#: events of every turn, counted in the progress lines but not printed
ROUTINE = ("DIRECT FIRE", "INDIRECT FIRE", "SAVING THROWS", "HAND-GRENADES", "HAND-TO-HAND", "TANK FIRE ACTIONS",
           "MOVEMENT", "MORALE", "SEQUENCE", "AMMO", "VISIBILITY/SPOTTING")


def _events(match: Any, events: Sequence[Event]) -> str:
    """Progress: the turn, how many events (fire, morale, ...), and the cards,
    the Joker's demolition and the victory conditions (a turn with no card
    says nothing)."""
    lines = [f": turn {match.replay.state.turn}, {len(events)} event(s)"]
    for event in events:
        if event.rule not in ROUTINE and not event.text.endswith(NO_CARD):
            text = event.sentence()
            lines.append(f"\n  {text if len(text) <= 160 else text[:157] + '...'}")
    return "".join(lines)


def script(last_turn: int = 8) -> DemoScript:
    bot = CalumpitBot(GAME, last_turn=last_turn)

    def orders(match: Any, side: str, seq: int) -> tuple[dict[str, Any], None]:
        return (bot.join_orders() if seq == 1 else bot.play(match)), None

    return DemoScript("Calumpit Bridge, refereed by pbem, both sides played by its bot until the victory "
                      "conditions end it",
                      DemoPlayer("amy", "Amy (American, demo)", "american"),
                      DemoPlayer("ken", "Ken (Japanese and umpire, demo)", "japanese"),
                      orders, _events, last_line=lambda match: match.replay.state.verdict or "the game is over")
