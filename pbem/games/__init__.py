"""Game registry: games register under the ``pbem.games`` entry-point group.

Built-in games are found even when the package metadata is absent (running
from a source tree); third-party games only through entry points.
"""

from __future__ import annotations

import importlib
from typing import Any

from pbem.errors import UsageError

BUILTIN = {
    "dice": "pbem.games.dice:GAME",
    "ambon": "pbem.games.ambon:GAME",
    "calumpit": "pbem.games.calumpit:GAME",
    "asl": "pbem.games.asl:GAME",
}


GAME_CONTRACT = ("name", "version", "sides", "initial_state", "apply", "parse_orders")


def _load(target: str) -> Any:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def available() -> dict[str, str]:
    """Game name -> 'module:attribute', built-ins and entry points."""
    found = dict(BUILTIN)
    from importlib.metadata import entry_points

    for ep in entry_points(group="pbem.games"):
        found.setdefault(ep.name, ep.value)
    return found


def get(name: str, data_dir: str | None = None) -> Any:
    """The game registered as ``name`` (or given as ``module:attribute``),
    with its data directory overridden by ``data_dir`` if given."""
    games = dict(BUILTIN) if name in BUILTIN else available()  # entry points only for other games
    if name in games:
        game = _load(games[name])
    elif ":" in name:
        import os
        import sys

        if os.getcwd() not in sys.path:  # like `flask --app`: modules beside you load
            sys.path.append(os.getcwd())
        try:
            game = _load(name)
        except (ImportError, AttributeError) as err:
            raise UsageError(f"cannot load game {name!r}: {err}") from err
    else:
        raise UsageError(f"unknown game {name!r}; available: {', '.join(sorted(games))}")
    lacking = [a for a in GAME_CONTRACT if not hasattr(game, a)]
    if lacking:
        raise UsageError(f"{name!r} is not a pbem game: it has no {', '.join(lacking)} (see pbem.engine.machine)")
    if data_dir is not None:
        try:
            game = type(game)(data_dir=data_dir)
        except TypeError as err:
            raise UsageError(f"game {name!r} has no data files to override with --data") from err
    return game
