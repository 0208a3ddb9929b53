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
@click.option("--as", "side", type=click.Choice(["japanese", "allied"]),
              help="Your side; the house plays the other.  A new game needs it (or --both); a game that goes on "
                   "remembers it.")
@click.option("--both", is_flag=True, help="You give both sides' orders; the house keeps the Allied hidden facts.")
@click.option("--level", type=click.IntRange(1, 3),
              help="How much the house thinks: 1 quick, 2 standard, 3 deep.  Default: 2; a game keeps its level.")
@click.option("--rule", "rules", multiple=True, help="A new game's optional rule (repeatable), e.g. 14.2.")
@click.option("--ruling", "rulings", multiple=True, metavar="RULE=READING",
              help="A new game's reading of a disputed rule (repeatable), as pbem new takes it.")
@click.option("--rulings", "preset", metavar="PRESET", help="A new game's named set of readings, e.g. tournament.")
@handles_errors
def solo_ambon(directory: str, side: str | None, both: bool, level: int | None, rules: tuple[str, ...],
               rulings: tuple[str, ...], preset: str | None) -> None:
    """Ambon solo, against the house.  With --as japanese or --as allied
    you play that side and the house plays the other, from its own side's
    view only (it never reads your concealed identities, mines or 14.2
    note).  With --both you give both sides' orders, and the house decides
    which Allied concealed pieces are dummies and which mines are real, and
    reveals them only when the rules do.

    Before each prompt you are shown what happened since your last message
    (the house's landings, bombardments, combats and reveals); each order
    you type is tried at once and answered with its effect; an empty line
    ends the message and asks before it is signed.  A message that decides
    nothing is sent by itself.  Stop with 'quit' and run the same command
    to resume.  Verify with `pbem verify DIR/game/mine`.

    \b
    Example: pbem solo ambon --dir ~/games/ambon-solo --as allied
             pbem solo ambon --dir ~/games/ambon-14 --as japanese --rule 14.2 --level 3
    """
    from pbem.cli import parse_options, parse_rulings
    from pbem.errors import UsageError
    from pbem.games.ambon.solo import Solo
    from pbem.render import board
    from pbem.render.literal import literal

    if both and side:
        raise UsageError(f"--both and --as {side}: give one (--both: you give both sides' orders)", field="as")
    out = console()

    def show(game, view, you) -> None:
        board.print_board(out, game, view, you=you)

    game = Solo(Path(directory), load_identity(), ask=_line,
                say=lambda text: out.print(literal(text, newlines=True), soft_wrap=not out.is_terminal), show=show,
                side="both" if both else side, level=level, options=parse_options(rules),
                rulings=parse_rulings(rulings), preset=preset)
    try:
        game.run()
    except click.Abort:  # end of input or Ctrl-C: every message written so far stays
        click.echo(f"\nstopped; resume with: pbem solo ambon --dir {directory}")
    except SystemExit:
        click.echo(f"stopped; resume with: pbem solo ambon --dir {directory}")


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
