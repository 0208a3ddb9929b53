"""The game registry: every game, shipped or not, is found by its entry
points, declared once in its distribution's metadata (pyproject.toml for
the games pbem ships):

* ``pbem.games``: the game object (``name = "module:attribute"``);
* ``pbem.frontends``: its frontend module (:mod:`pbem.engine.contract`:
  Dialogue, Demo), by game name;
* ``pbem.commands``: its CLI commands (Commands), by game name.

A game name that arrives in a message (message 0's ``setup.module``) is
never imported as it stands: it must be a registered game, the target of
one (``pbem.games.asl:GAME``), or a ``module:attribute`` the local user
trusts in ``$PBEM_GAMES`` (space- or comma-separated).  Only the local
user's own ``--game module:attribute`` (``local=True``) loads any module,
from the current directory too, like ``flask --app``.  Otherwise a
message could make ``pbem verify`` run code it names.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any, Callable

from pbem.engine import contract
from pbem.engine.installed import (
    TRUST_ENV,
    available,
    commands,
    entry_points,
    frontends,
    lazy_game,
    load_target,
    registered_name,
    trusted_targets,
)
from pbem.errors import DataError, UsageError

# what is installed (pbem.engine.installed) is asked of the registry too
__all__ = ["TRUST_ENV", "available", "commands", "entry_points", "frontend", "frontends", "get", "lazy_game",
           "load_target", "registered_name", "trusted_targets"]


def get(name: str, data_dir: str | None = None, *, local: bool = False) -> Any:
    """The game registered as ``name`` (or given as ``module:attribute``),
    with its data directory overridden by ``data_dir`` if given.  Without
    ``local`` (a name that came in a message), only registered games and
    ``$PBEM_GAMES`` targets load (see the module docstring)."""
    games = available()
    name_as_registered = registered_name(name)
    if name in games:
        game = load_target(games[name])
    elif name_as_registered in games:
        game = load_target(games[name_as_registered])
    elif ":" in name and not local and name not in trusted_targets():
        raise DataError(
            f"game module {name!r} is not an installed pbem game, and pbem never imports code a message names; "
            f"install the game (entry point group pbem.games) or, if you trust the module, add it to ${TRUST_ENV}"
        )
    elif ":" in name:
        if os.getcwd() not in sys.path:  # like `flask --app`: modules beside you load
            sys.path.append(os.getcwd())
        try:
            game = load_target(name)
        except (ImportError, AttributeError) as err:
            raise UsageError(f"cannot load game {name!r}: {err}") from err
    elif not games:
        raise UsageError(f"unknown game {name!r}: no pbem game is installed (the entry points of group pbem.games "
                         f"are missing: install pbem with pip install -e . or pip install pbem)")
    else:
        raise UsageError(f"unknown game {name!r}; available: {', '.join(sorted(games))}")

    if not isinstance(game, contract.Game):
        raise UsageError(f"{name!r} is not a pbem game: it has no {', '.join(contract.lacking(game))} "
                         f"(see pbem.engine.contract)")
    if data_dir is not None:
        try:
            cls: Callable[..., Any] = type(game)  # the game's class: its constructor is its own
            game = cls(data_dir=data_dir)
        except TypeError as err:
            raise UsageError(f"game {name!r} has no data files to override with --data") from err
    return game


# --------------------------------------------------------------------------- frontends

def frontend(name: str) -> Any | None:
    """The frontend of the game called ``name`` (a game's ``name``), or None.

    Only registered frontends load: a frontend is code the local user
    installed, never one a message names."""
    target = frontends().get(name)
    if target is None:
        return None
    module, _, attr = target.partition(":")
    loaded = importlib.import_module(module)
    return getattr(loaded, attr) if attr else loaded
