"""Finished demo games, played once per test session and shared by the
hostile-input test modules (tamper matrix, secrets scan).

Playing the Ambon demo takes a few seconds, so it is built once and cached
here; the modules that use it must treat its directories as read-only and
copy them before changing anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pbem.protocol.keystore import Keystore

_CACHE: dict[str, Any] = {}


@dataclass(frozen=True)
class DemoGame:
    """A finished demo game: its root directory, each player's game
    directory and identity, and what the demo reported."""

    root: Path
    dirs: dict[str, Path]  # player name -> game directory
    identities: dict[str, Any]  # player name -> Identity
    sides: dict[str, str]  # player name -> side
    report: Any

    def messages(self, name: str | None = None) -> list[Path]:
        """The message files of one player's directory, in order."""
        directory = self.dirs[name or next(iter(self.dirs))]
        return sorted(directory.glob("[0-9][0-9][0-9][0-9]-*.pbem"))


def _identities(root: Path, names: tuple[str, ...]) -> dict[str, Any]:
    return {name: Keystore(root / name / "keystore").load(lambda: None) for name in names}


def _demo(factory: pytest.TempPathFactory, game: str, run: Any, sides: dict[str, str]) -> DemoGame:
    """Play the ``game`` demo once per test session (``run(root)``), verified with --audit."""
    if game not in _CACHE:
        root = factory.mktemp(f"{game}-demo")
        report = run(root)
        assert report.verify.ok and report.logs_agree, report.verify.problems
        names = tuple(sides)
        _CACHE[game] = DemoGame(root, {name: root / name / "game" for name in names}, _identities(root, names),
                                dict(sides), report)
    return _CACHE[game]


def ambon_game(factory: pytest.TempPathFactory) -> DemoGame:
    """The Ambon demo (kenji plays japanese, jack allied), verified with --audit."""
    from pbem.app import demo

    return _demo(factory, "ambon", lambda root: demo.run(root, "ambon"), {"kenji": "japanese", "jack": "allied"})


def dice_game(factory: pytest.TempPathFactory) -> DemoGame:
    """The dice demo (ann plays first, bob second): rolls, a sealed note
    revealed in message 0004, ``end`` and the closing reply."""
    from pbem.app import demo

    return _demo(factory, "dice", lambda root: demo.run(root, "dice"), {"ann": "first", "bob": "second"})
