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
import re
import sys
from typing import Any, Callable

from pbem.engine import contract
from pbem.errors import DataError, UsageError


def _load(target: str) -> Any:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def available() -> dict[str, str]:
    """Game name -> 'module:attribute', from the ``pbem.games`` entry points."""
    found: dict[str, str] = {}
    for name, value in entry_points("pbem.games"):
        found.setdefault(name, value)
    return found


def entry_points(group: str) -> list[tuple[str, str]]:
    """(name, value) of every entry point in ``group`` of the installed
    distributions, in ``sys.path`` order.

    What :func:`importlib.metadata.entry_points` finds, read from each
    ``*.dist-info`` / ``*.egg-info`` folder's ``entry_points.txt`` on
    ``sys.path`` -- without importing :mod:`importlib.metadata` (about 25 ms,
    the better part of ``pbem --help``, which lists every game's commands)."""
    found: list[tuple[str, str]] = []
    seen: set[str] = set()
    header = f"[{group}]"
    for folder in sys.path:
        try:
            names = sorted(os.listdir(folder or "."))
        except OSError:
            continue
        for entry in names:
            if not entry.endswith((".dist-info", ".egg-info")):
                continue
            project = entry.rpartition(".")[0].partition("-")[0].lower().replace("_", "-")
            if project in seen:  # the first of a distribution on sys.path is the one imported
                continue
            seen.add(project)
            try:
                with open(os.path.join(folder or ".", entry, "entry_points.txt"), encoding="utf-8") as f:
                    text = f.read()
            except OSError:
                continue
            section = None
            for line in text.splitlines():
                line = line.strip()
                if not line or line.startswith(("#", ";")):
                    continue
                if line.startswith("["):
                    section = line
                elif section == header and "=" in line:
                    name, _, value = line.partition("=")
                    found.append((name.strip(), value.strip()))
    return found


TRUST_ENV = "PBEM_GAMES"


def trusted_targets() -> set[str]:
    """``module:attribute`` targets the local user trusts beyond the registered games."""
    return {t for t in re.split(r"[\s,]+", os.environ.get(TRUST_ENV, "")) if ":" in t}


def registered_name(name: str) -> str:
    """The registered name of a game given by name or by its target (else ``name``)."""
    games = available()
    if name in games:
        return name
    return next((n for n, target in games.items() if target == name), name)


def get(name: str, data_dir: str | None = None, *, local: bool = False) -> Any:
    """The game registered as ``name`` (or given as ``module:attribute``),
    with its data directory overridden by ``data_dir`` if given.  Without
    ``local`` (a name that came in a message), only registered games and
    ``$PBEM_GAMES`` targets load (see the module docstring)."""
    games = available()
    name_as_registered = registered_name(name)
    if name in games:
        game = _load(games[name])
    elif name_as_registered in games:
        game = _load(games[name_as_registered])
    elif ":" in name and not local and name not in trusted_targets():
        raise DataError(
            f"game module {name!r} is not an installed pbem game, and pbem never imports code a message names; "
            f"install the game (entry point group pbem.games) or, if you trust the module, add it to ${TRUST_ENV}"
        )
    elif ":" in name:
        if os.getcwd() not in sys.path:  # like `flask --app`: modules beside you load
            sys.path.append(os.getcwd())
        try:
            game = _load(name)
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

def frontends() -> dict[str, str]:
    """Game name -> its frontend's target (``module`` or ``module:attribute``),
    from the ``pbem.frontends`` entry points."""
    found: dict[str, str] = {}
    for name, value in entry_points("pbem.frontends"):
        found.setdefault(name, value)
    return found


def commands() -> list[Any]:
    """Every installed game's :class:`~pbem.engine.contract.Commands` (the
    ``pbem.commands`` entry points): what ``pbem``'s command list imports,
    and all it imports of the games."""
    found: dict[str, str] = {}
    for name, value in entry_points("pbem.commands"):
        found.setdefault(name, value)
    return [_load(target) for target in found.values()]


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


def lazy_game(package: str, module: str, cls: str) -> Any:
    """A ``__getattr__`` for a game's package: ``GAME`` (one instance of
    ``module.cls``) and ``cls`` load the rules on first use, so importing the
    package -- for its frontend, to list ``pbem``'s commands -- stays cheap."""
    def __getattr__(name: str) -> Any:
        if name not in ("GAME", cls):
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        game_class = getattr(importlib.import_module(module), cls)
        namespace = vars(sys.modules[package])
        namespace.setdefault("GAME", game_class())
        namespace[cls] = game_class
        return namespace[name]

    return __getattr__
