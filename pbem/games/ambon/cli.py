"""Ambon's frontend (:mod:`pbem.engine.contract`): ``pbem solo ambon``, the
terminal dialogue of ``pbem play`` and the demo game.

Found through the ``pbem.frontends`` entry point; imports only click and
:mod:`pbem.cli.base` at its top, so listing ``pbem``'s commands stays fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from pbem.cli.base import console, handles_errors, load_identity


def _line(prompt: str) -> str:
    """One typed line after ``prompt`` (which ends as it should: "japanese> ")."""
    return click.prompt(prompt, default="", show_default=False, prompt_suffix="")


def register(main: click.Group) -> None:
    """Add ``pbem solo ambon`` to ``main``'s ``solo`` group; twice changes nothing."""
    solo = main.commands.get("solo")
    if isinstance(solo, click.Group) and "ambon" not in solo.commands:
        solo.add_command(solo_ambon)


@click.command("ambon")
@click.option("--dir", "directory", required=True, type=click.Path(file_okay=False), help="The solo game's directory.")
@handles_errors
def solo_ambon(directory: str) -> None:
    """Ambon solo: you give both sides' orders; the house (its own key in
    DIR/house) decides which Allied concealed pieces are dummies and which
    mines are real, and reveals them only when the rules do.  Stop with
    'quit' and run the same command to resume.  Verify with
    `pbem verify DIR/game/mine`.

    Example: pbem solo ambon --dir ~/games/ambon-solo
    """
    from pbem.games.ambon.solo import Solo
    from pbem.render import board
    from pbem.render.literal import literal

    out = console()

    def show(match) -> None:
        board.print_board(out, match.game, match.view(), you="solo")

    game = Solo(Path(directory), load_identity(), ask=_line, say=lambda text: out.print(literal(text, newlines=True), soft_wrap=not out.is_terminal), show=show)
    try:
        game.run()
    except click.Abort:  # end of input or Ctrl-C: every message written so far stays
        click.echo(f"\nstopped; resume with: pbem solo ambon --dir {directory}")


def ask_orders(match: Any) -> dict[str, Any]:
    """``pbem play DIR`` without ``--orders``: typed lines, each checked on the
    position (:func:`pbem.games.ambon.solo.prompt_orders`)."""
    from pbem.errors import UsageError
    from pbem.games.ambon.solo import prompt_orders

    orders = prompt_orders(match, ask=_line, say=click.echo)
    if orders is None:
        raise UsageError("stopped: no message written")
    return orders


def demo(**options: Any) -> Any:
    from pbem.games.ambon.demo import script

    return script(**options)
