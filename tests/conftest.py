"""Shared fixtures: identities, keystores and a CLI runner per player."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.protocol.keys import Identity


@pytest.fixture
def ann() -> Identity:
    return Identity.from_seed(bytes(range(32)), "ann")


@pytest.fixture
def bob() -> Identity:
    return Identity.from_seed(bytes(range(32, 64)), "bob")


@pytest.fixture
def eve() -> Identity:
    return Identity.from_seed(bytes(range(64, 96)), "eve")


@dataclass
class Player:
    """One player at the command line: their PBEM_HOME and game directory."""

    name: str
    home: Path
    game: Path
    passphrase: str | None = None

    def run(self, *args: str, input: str | None = None, **env: str):
        environ = {"PBEM_HOME": str(self.home), "COLUMNS": "200"}
        if self.passphrase is not None:
            environ["PBEM_PASSPHRASE"] = self.passphrase
        environ.update(env)
        result = CliRunner().invoke(main, [str(a) for a in args], env=environ, input=input, catch_exceptions=False)
        return result

    def pub(self) -> Path:
        return self.home / "identity.pub"


@pytest.fixture
def players(tmp_path: Path) -> tuple[Player, Player]:
    a = Player("ann", tmp_path / "home-ann", tmp_path / "ann")
    b = Player("bob", tmp_path / "home-bob", tmp_path / "bob")
    for p in (a, b):
        result = p.run("key", "new", "--name", p.name, "--no-passphrase")
        assert result.exit_code == 0, result.output
    return a, b


def last_line(output: str) -> Path:
    return Path(output.strip().splitlines()[-1])


def write_orders(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@pytest.fixture
def started(players, tmp_path):
    """A dice game with messages 0 and 1 exchanged; ann (first) to move."""
    a, b = players
    r = a.run("new", a.game, "--game", "dice", "--as", "first", "--opponent", b.pub())
    assert r.exit_code == 0, r.output
    r = b.run("join", last_line(r.output), "--dir", b.game)
    assert r.exit_code == 0, r.output
    r = a.run("receive", a.game, last_line(r.output))
    assert r.exit_code == 0, r.output
    return a, b


def exchange(sender, receiver, tmp_path: Path, orders: str = "") -> Path:
    """sender plays ``orders``; receiver imports the message; return its path."""
    path = tmp_path / f"orders-{sender.name}-{len(list(tmp_path.glob('orders-*')))}.toml"
    path.write_text(orders or "")
    r = sender.run("play", sender.game, "--orders", path)
    assert r.exit_code == 0, r.output
    sent = last_line(r.output)
    r = receiver.run("receive", receiver.game, sent)
    assert r.exit_code == 0, r.output
    return sent


def dicts_of(value: Any) -> Iterator[dict]:
    """Every dict nested in ``value`` (a view, a JSON document), itself first."""
    if isinstance(value, dict):
        yield value
        for v in value.values():
            yield from dicts_of(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from dicts_of(v)
