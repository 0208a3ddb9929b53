"""What is installed: the games, frontends and CLI commands their
distributions declare as entry points (pyproject.toml for the games pbem
ships), read without importing a game's rules or the engine's contract --
``pbem --help`` lists every game's commands from here -- and the
``$PBEM_GAMES`` targets the local user trusts.  Loading a game by name,
with the checks a name from a message needs, is :mod:`pbem.engine.registry`.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from typing import Any


def load_target(target: str) -> Any:
    """The object a ``module:attribute`` target names, its module imported."""
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
    return [load_target(target) for target in found.values()]


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
