"""Hostile files in a game directory (issue 27 m5): a local attacker who can
write the game directory plants a message file that is not a file pbem can
read -- a FIFO (the read would wait forever), a link to /dev/zero (an
endless read), a sparse giant.  Each is refused unread, naming the file,
and the commands end at once.  The game is the recorded one
(examples/ambon/full-game), read as a spectator."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

MESSAGES = Path(__file__).parent.parent / "examples" / "ambon" / "full-game" / "messages"


@pytest.fixture
def game(tmp_path) -> Path:
    where = tmp_path / "g"
    where.mkdir()
    for path in sorted(MESSAGES.glob("000[0-9]-*.pbem")):  # messages 0000-0009; 0010 is allied's
        shutil.copy(path, where)
    return where


def pbem(*args: str, home: Path) -> subprocess.CompletedProcess:
    """The real command in a process of its own: a hang is a timeout, not a stuck test run."""
    code = "import sys; from pbem.cli import main; sys.exit(main())"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=30,
                          env={**os.environ, "PBEM_HOME": str(home), "COLUMNS": "200"})


@pytest.mark.parametrize("command", ["log", "show", "verify"])
def test_a_fifo_named_like_a_message_file_is_refused_unread(game, tmp_path, command):
    os.mkfifo(game / "0010-allied.pbem")
    r = pbem(command, str(game), home=tmp_path / "home")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "0010-allied.pbem: not a regular file" in r.stdout + r.stderr


def test_pbem_status_lists_a_game_with_a_fifo_as_not_verifying(game, tmp_path):
    os.mkfifo(game / "0010-allied.pbem")
    import json

    r = pbem("status", str(game), "--json", home=tmp_path / "home")
    (listed,) = json.loads(r.stdout)["games"]
    assert r.returncode == 0 and listed["fails_verification"]
    assert listed["error"].endswith("0010-allied.pbem: not a regular file; a message file is one (a FIFO, a device "
                                    "or a link to one is refused unread)")


def test_a_link_to_dev_zero_named_like_a_message_file_is_refused_unread(game, tmp_path):
    (game / "0010-allied.pbem").symlink_to("/dev/zero")
    r = pbem("log", str(game), home=tmp_path / "home")
    assert r.returncode == 1 and "0010-allied.pbem: not a regular file" in r.stderr


def test_a_sparse_giant_named_like_a_message_file_is_refused_unread(game, tmp_path):
    with open(game / "0010-allied.pbem", "wb") as handle:
        handle.truncate(1 << 30)  # 1 GiB of nothing, on no disk
    r = pbem("log", str(game), home=tmp_path / "home")
    assert r.returncode == 1 and "0010-allied.pbem is 1,024.0 MiB; pbem reads at most 32 MiB" in r.stderr


def test_a_lock_file_planted_as_a_link_is_not_followed(tmp_path):
    """Issue 27 nit: ``.pbem.lock`` as a link to a file elsewhere made a
    writing command create (or open) that file: the lock is taken only on a
    file of the game directory itself."""
    from pbem.errors import IntegrityError
    from pbem.match.directory import GameDirectory

    game = tmp_path / "g"
    game.mkdir()
    target = tmp_path / "elsewhere" / "victim"
    target.parent.mkdir()
    (game / ".pbem.lock").symlink_to(target)
    with pytest.raises(IntegrityError, match=r"\.pbem\.lock: cannot take the game's lock .*not a link"):
        with GameDirectory(game).lock():
            pass
    assert not target.exists()


def test_an_outbox_planted_as_a_link_is_not_written_through(players, tmp_path):
    """Issue 27 nit: DIR/outbox as a link to a directory elsewhere made
    `pbem mail` write the email there; it is refused, naming the link."""
    a, b = players
    r = a.run("new", a.game, "--game", "dice", "--as", "first", "--opponent", b.pub())
    assert r.exit_code == 0, r.output
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (a.game / "outbox").symlink_to(elsewhere)
    r = a.run("mail", a.game, "--to", "bob@example.org", "--from", "ann@example.org")
    assert r.exit_code == 1, r.output
    assert "outbox is a link; pbem writes the game's emails only into a directory of the game itself" in r.output
    assert not list(elsewhere.iterdir())
