"""Shell completion (click's ``shell_complete``): game names, sides and game
directories.  Enable it the way click says, e.g. for bash::

    eval "$(_PBEM_COMPLETE=bash_source pbem)"

Each function takes ``(ctx, param, incomplete)`` and returns what may stand
there.  None of them fails: a completion that cannot load a game offers
nothing rather than an error in the middle of a command line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from click.shell_completion import CompletionItem


def game_names(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """The installed games (``pbem new --game``, ``pbem demo GAME``, ``pbem data add GAME``)."""
    from pbem.engine import installed

    return [CompletionItem(name) for name in sorted(installed.available()) if name.startswith(incomplete)]


def _sides_given(value: Any) -> list[str]:
    if isinstance(value, (list, tuple)):
        return [str(s) for s in value]
    return [s.strip() for s in str(value or "").split(",") if s.strip()]


def side_names(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """The sides of the game on the command line (``--as``): those ``--sides``
    names if given, else the ``--game``'s own; every installed game's while
    no game is given yet."""
    from pbem.engine import registry

    named = _sides_given(ctx.params.get("sides"))
    if named:
        found = named
    else:
        chosen = ctx.params.get("game_name")
        names = [chosen] if chosen else sorted(registry.available())
        found = []
        for name in names:
            try:
                found += [s for s in registry.get(name).sides if s not in found]
            except Exception:  # noqa: BLE001 - a game that cannot load has no sides to offer
                continue
    return [CompletionItem(side) for side in found if side.startswith(incomplete)]


def game_directories(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """The game directories pbem knows (those started or joined with your
    key, as ``pbem status`` lists them) that begin with what is typed --
    relative to the current directory where they are inside it -- and
    otherwise the shell's own completion of directories."""
    from pbem.cli.base import keystore

    try:
        places = keystore().game_places()
    except Exception:  # noqa: BLE001 - no keystore, or an unreadable one: the shell completes directories
        places = []
    here = Path.cwd()
    shown: list[str] = []
    for place in places:
        try:
            text = str(place.relative_to(here))
        except ValueError:
            text = str(place)
        if text.startswith(incomplete) and text not in shown and place.is_dir():
            shown.append(text)
    if not shown:
        return [CompletionItem(incomplete, type="dir")]
    return [CompletionItem(text) for text in sorted(shown)]
