"""Game registry: games register under the ``pbem.games`` entry-point group.

Built-in games are found even when the package metadata is absent (running
from a source tree); third-party games only through entry points.
"""

from __future__ import annotations

import importlib
from typing import Any

from pbem.errors import UsageError

BUILTIN = {"dice": "pbem.games.dice:GAME"}


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


def get(name: str) -> Any:
    """The game registered as ``name``."""
    games = available()
    if name not in games:
        raise UsageError(f"unknown game {name!r}; available: {', '.join(sorted(games))}")
    return _load(games[name])
