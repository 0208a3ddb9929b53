"""Calumpit Bridge's frontend (:mod:`pbem.engine.contract`): ``pbem solo
calumpit --dir DIR`` (the workflow is :mod:`pbem.games.calumpit.solo`), the
terminal dialogue of ``pbem play`` and the demo game.

Found through the ``pbem.frontends`` entry point; imports only click and
:mod:`pbem.cli.base` at its top, so listing ``pbem``'s commands stays fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from pbem.cli.base import handles_errors, load_identity


def register(main: click.Group) -> None:
    """Add ``pbem solo calumpit`` to ``main`` (creating the ``solo`` group if
    needed); calling it twice changes nothing."""
    solo = main.commands.get("solo")
    if solo is None:
        solo = click.Group("solo", help="Play a game alone at the terminal; pbem plays the other side.")
        main.add_command(solo)
    if isinstance(solo, click.Group) and "calumpit" not in solo.commands:
        solo.add_command(calumpit)


def _echo(text: str) -> None:
    """Print what solo play says: events and the position, control
    characters visible (:func:`pbem.render.literal.visible`)."""
    from pbem.render.literal import visible

    click.echo(visible(text, newlines=True))


def _ask(prompt: str) -> str | None:
    try:
        return click.prompt(prompt, default="", show_default=False)
    except click.exceptions.Abort:
        return None


@click.command("calumpit")
@click.option("--dir", "directory", required=True, type=click.Path(file_okay=False),
              help="The solo game's directory (created; run again to resume).")
@handles_errors
def calumpit(directory: str) -> None:
    """Play Calumpit Bridge alone: you command the Americans at your table;
    pbem is the umpire (event cards, Japanese attack generation, every dice
    table) and plays the Japanese.

    The house's Japanese, each turn: the units the JAGT brings advance from
    the Jungle line (40 inches up their road from the bridge; the source has
    no map) down the road toward the bridge; they fire at the American
    units they have seen firing (a unit is seen when it fires; your fire
    order's range says where it is), close in and assault when the
    HAND-TO-HAND odds favour it, take their morale checks, fall back, rout,
    rally or withdraw as their morale and the cards say, and the house
    reports the Japanese at the bridge when they reach it (they win). It
    prints each of its orders with why; move its figures on your table as
    it says. Its dice, like yours, are the protocol's.

    Type one order per line, e.g. ``fire weapon=rifle range=30 figures=12
    terrain=open unit=1-SQD`` (1-SQD is one of your squads from the start;
    add target=ID to name a Japanese unit once the events have put it on the
    table, e.g. target=J-INF-1: the house then sees your unit); ``done``
    sends your orders and ends your part of the turn, ``send`` sends them
    without ending it, ``end`` ends the game, ``help`` lists every order,
    ``help ORDER`` (e.g. ``help move``) gives that order's fields, their
    allowed values and an example, ``show`` the position, ``quit`` stops
    (the game is kept; run the command again to resume).

    Example: pbem solo calumpit --dir ~/games/calumpit-1
    """
    from pbem.games.calumpit import solo

    solo.run(Path(directory), load_identity(), _ask, _echo)


def ask_orders(match: Any) -> dict[str, Any]:
    """Calumpit orders typed at the terminal, for ``pbem play DIR`` without
    ``--orders`` (the same lines as in solo play)."""
    from pbem.errors import UsageError
    from pbem.games.calumpit import solo

    orders = solo.ask_orders(match, _ask, _echo)
    if orders is None:
        raise UsageError("stopped: no message written")
    return {"order": orders}


# --------------------------------------------------------------------------- pbem demo calumpit


def demo(**options: Any) -> Any:
    from pbem.games.calumpit.demo import script

    return script(**options)
