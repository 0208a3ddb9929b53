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


def begin(a, b, game: str = "dice", side: str = "first") -> None:
    """``a`` proposes ``game`` playing ``side``, ``b`` joins, ``a`` receives
    the joining message: messages 0 and 1 exchanged, ``a`` to move."""
    r = a.run("new", a.game, "--game", game, "--as", side, "--opponent", b.pub())
    assert r.exit_code == 0, r.output
    r = b.run("join", last_line(r.output), "--dir", b.game)
    assert r.exit_code == 0, r.output
    r = a.run("receive", a.game, last_line(r.output))
    assert r.exit_code == 0, r.output


@pytest.fixture
def started(players, tmp_path):
    """A dice game with messages 0 and 1 exchanged; ann (first) to move."""
    a, b = players
    begin(a, b)
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


@dataclass
class SshAgent:
    """A private ssh-agent (``ssh-agent -D -a SOCK``) for one test, and how to add keys to it."""

    socket: Path
    folder: Path
    process: Any

    def env(self) -> dict[str, str]:
        import os

        return {**os.environ, "SSH_AUTH_SOCK": str(self.socket)}

    def add(self, identity: Identity, name: str = "key") -> Path:
        """``ssh-add`` the key of ``identity`` (written to a 0600 file, as ssh-add requires)."""
        import os
        import subprocess

        path = self.folder / name
        path.write_bytes(identity.to_openssh_private())
        os.chmod(path, 0o600)
        (self.folder / f"{name}.pub").write_text(identity.public.openssh() + "\n")
        if identity.name:  # the comment the agent lists it with: else ssh-add lists the file's path
            subprocess.run(["ssh-keygen", "-q", "-c", "-C", identity.name, "-f", str(path)], check=True,
                           capture_output=True, timeout=30)
        subprocess.run(["ssh-add", "-q", str(path)], env=self.env(), check=True, capture_output=True, timeout=30)
        return path

    def remove_all(self) -> None:
        import subprocess

        subprocess.run(["ssh-add", "-D"], env=self.env(), check=True, capture_output=True, timeout=30)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)


@pytest.fixture
def ssh_agent() -> Iterator[SshAgent]:
    """A private ssh-agent on a socket of its own, stopped after the test; skipped without OpenSSH's binaries."""
    import shutil
    import subprocess
    import tempfile
    import time

    if not all(shutil.which(tool) for tool in ("ssh-agent", "ssh-add", "ssh-keygen")):
        pytest.skip("OpenSSH's ssh-agent, ssh-add and ssh-keygen are not installed")
    folder = Path(tempfile.mkdtemp(prefix="pbem-agent-"))  # short: a Unix socket's path has ~100 bytes at most
    socket = folder / "agent.sock"
    process = subprocess.Popen(["ssh-agent", "-D", "-a", str(socket)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    agent = SshAgent(socket, folder, process)
    try:
        deadline = time.monotonic() + 10
        while not socket.exists():
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.skip("ssh-agent did not start")
            time.sleep(0.02)
        yield agent
    finally:
        agent.stop()
        shutil.rmtree(folder, ignore_errors=True)
