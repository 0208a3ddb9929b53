"""Game registry: games register under the ``pbem.games`` entry-point group.

Built-in games are found even when the package metadata is absent (running
from a source tree); third-party games only through entry points.

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
from typing import Any, Callable

from pbem.errors import UsageError

BUILTIN = {
    "dice": "pbem.games.dice:GAME",
    "ambon": "pbem.games.ambon:GAME",
    "calumpit": "pbem.games.calumpit:GAME",
    "asl": "pbem.games.asl:GAME",
}


def _load(target: str) -> Any:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def available() -> dict[str, str]:
    """Game name -> 'module:attribute', built-ins and entry points."""
    found = dict(BUILTIN)
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
    import os
    import sys

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
    import os
    import re

    return {t for t in re.split(r"[\s,]+", os.environ.get(TRUST_ENV, "")) if ":" in t}


def registered_name(name: str) -> str:
    """The registered name of a game given by name or by its target (else ``name``)."""
    if name in BUILTIN:
        return name
    games = available()
    if name in games:
        return name
    return next((n for n, target in games.items() if target == name), name)


def get(name: str, data_dir: str | None = None, *, local: bool = False) -> Any:
    """The game registered as ``name`` (or given as ``module:attribute``),
    with its data directory overridden by ``data_dir`` if given.  Without
    ``local`` (a name that came in a message), only registered games and
    ``$PBEM_GAMES`` targets load (see the module docstring)."""
    games = dict(BUILTIN) if name in BUILTIN else available()  # entry points only for other games
    name_as_registered = registered_name(name)
    if name in games:
        game = _load(games[name])
    elif name_as_registered in games:
        game = _load(games[name_as_registered])
    elif ":" in name and not local and name not in trusted_targets():
        from pbem.errors import DataError

        raise DataError(
            f"game module {name!r} is not an installed pbem game, and pbem never imports code a message names; "
            f"install the game (entry point group pbem.games) or, if you trust the module, add it to ${TRUST_ENV}"
        )
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
    from pbem.engine import contract

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

#: each built-in game's frontend (pbem.engine.contract: CLI commands, terminal dialogue, demo)
BUILTIN_FRONTENDS = {
    "dice": "pbem.games.dice.cli",
    "ambon": "pbem.games.ambon.cli",
    "calumpit": "pbem.games.calumpit.cli",
    "asl": "pbem.games.asl.cli",
}

#: each built-in game's CLI commands (pbem.engine.contract.Commands)
BUILTIN_COMMANDS = {
    "ambon": "pbem.games.ambon.cli:register",
    "calumpit": "pbem.games.calumpit.cli:register",
    "asl": "pbem.games.asl.cli:register",
}

#: the game ``pbem demo`` plays when none is named
DEFAULT_DEMO = "ambon"


def frontends() -> dict[str, str]:
    """Game name -> its frontend's target (``module`` or ``module:attribute``),
    built-ins and the ``pbem.frontends`` entry points."""
    found = dict(BUILTIN_FRONTENDS)
    for name, value in entry_points("pbem.frontends"):
        found.setdefault(name, value)
    return found


def commands() -> list[Any]:
    """Every installed game's :class:`~pbem.engine.contract.Commands` (built-ins
    and the ``pbem.commands`` entry points): what ``pbem``'s command list
    imports, and all it imports of the games."""
    found = dict(BUILTIN_COMMANDS)
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
    import sys

    def __getattr__(name: str) -> Any:
        if name not in ("GAME", cls):
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        game_class = getattr(importlib.import_module(module), cls)
        namespace = vars(sys.modules[package])
        namespace.setdefault("GAME", game_class())
        namespace[cls] = game_class
        return namespace[name]

    return __getattr__
