"""Crash safety (testing, issue 9): nothing on disk is lost or half-written.

* A write interrupted at any point -- simulated in process (``os.link``
  failing between the temporary file and its final name) and by killing a
  real ``pbem play`` process with SIGKILL at chosen points of the write --
  leaves the game directory valid (``pbem verify`` passes, every message file
  is whole) and resumable (the next ``play`` or ``receive`` works).
* A message file is never half-written and never overwritten.
* Two ``pbem`` processes never write one game directory at once: the second
  is refused by the lock ("in use by another pbem process", exit status 2).
"""

from __future__ import annotations

import errno
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import Player, last_line

from pbem.cli import main

from pbem.errors import PbemError, UsageError
from pbem.match import session
from pbem.match.directory import GameDirectory, atomic_create
from pbem.protocol.keystore import Keystore
from pbem.protocol.message import SignedMessage

ROLL = '[[order]]\ntype = "roll"\ndice = "2d6"\nnote = "fire"\n'
IN_USE = "is in use by another pbem process"

# A child process that plays ann's next message and dies (SIGKILL: no
# cleanup, no finally) at a chosen point of writing the message file.
CHILD = r"""
import os, signal, sys
point, directory, orders = sys.argv[1:4]

def die(*_args, **_kwargs):
    os.kill(os.getpid(), signal.SIGKILL)

real_link, real_unlink, real_fdopen = os.link, os.unlink, os.fdopen
if point == "mid-write":          # half of the text written to the temporary file
    class Half:
        def __init__(self, handle): self.handle = handle
        def __enter__(self): return self
        def __exit__(self, *exc): return False
        def write(self, data):
            self.handle.write(data[: len(data) // 2]); self.handle.flush(); die()
        def __getattr__(self, name): return getattr(self.handle, name)
    os.fdopen = lambda fd, *a, **k: Half(real_fdopen(fd, *a, **k))
elif point == "before-fsync":     # the temporary file written, not yet synced
    os.fsync = die
elif point == "before-link":      # synced, not yet given its name
    os.link = die
elif point == "after-link":       # named; the temporary file not yet removed
    def link(src, dst, *a, **k):
        real_link(src, dst, *a, **k); die()
    os.link = link
elif point == "after-unlink":     # everything but the directory fsync
    def unlink(path, *a, **k):
        real_unlink(path, *a, **k); die()
    os.unlink = unlink
elif point.startswith("hold-until:"):  # hold the lock until a file appears (concurrency test)
    import time
    from pbem.match import session
    real_load, go = session.load, point.partition(":")[2]
    def load(*a, **k):
        print("holding the lock", flush=True)
        deadline = time.monotonic() + 60
        while not os.path.exists(go) and time.monotonic() < deadline:
            time.sleep(0.01)
        return real_load(*a, **k)
    session.load = load
elif point != "none":
    raise SystemExit(f"unknown point {point}")
from pbem.cli import main
main(["play", directory, "--orders", orders])
"""
POINTS = ("mid-write", "before-fsync", "before-link", "after-link", "after-unlink")
WRITTEN = {"after-link", "after-unlink"}  # the message exists when the process dies


def child(point: str, player: Player, directory: Path, orders: Path, **popen) -> subprocess.Popen:
    env = {**os.environ, "PBEM_HOME": str(player.home), "COLUMNS": "200"}
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, point, str(directory), str(orders)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen,
    )


def messages(directory: Path) -> list[Path]:
    return [path for _, _, path in GameDirectory(directory).message_files()]


def assert_valid(player: Player, directory: Path) -> None:
    """Every message file is whole (exactly one complete block) and the game verifies."""
    for path in messages(directory):
        text = path.read_text()
        assert text.endswith("-----END PBEM MESSAGE-----\n"), path
        assert len(SignedMessage.all_from_text(text, source=path.name)) == 1
    r = player.run("verify", directory)
    assert r.exit_code == 0, r.output


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.startswith(".tmp-"))


def orders_file(tmp_path: Path, text: str = ROLL) -> Path:
    path = tmp_path / f"orders-{len(list(tmp_path.glob('orders-*')))}.toml"
    path.write_text(text)
    return path


def at(player: Player, game: Path) -> Player:
    return Player(player.name, player.home, game, player.passphrase)


# --------------------------------------------------------------------------- interrupted in process


def test_link_failing_writes_nothing_and_the_game_resumes(started, tmp_path, monkeypatch):
    a, b = started
    before = {p.name: p.read_bytes() for p in a.game.iterdir()}
    identity = Keystore(a.home).load(lambda: None)

    def broken(*_args, **_kwargs):
        raise OSError(errno.EIO, "simulated crash between the temporary file and its name")

    monkeypatch.setattr(os, "link", broken)
    with pytest.raises(PbemError, match="simulated crash"):
        session.play(a.game, identity, {"order": [{"type": "roll", "dice": "2d6", "note": "fire"}]})
    monkeypatch.undo()
    assert {p.name: p.read_bytes() for p in a.game.iterdir()} == before  # nothing new, no temporary file
    assert_valid(a, a.game)
    r = a.run("play", a.game, "--orders", orders_file(tmp_path))
    assert r.exit_code == 0, r.output
    assert b.run("receive", b.game, last_line(r.output)).exit_code == 0
    assert_valid(b, b.game)


def test_join_interrupted_between_its_two_files_resumes_with_play(players, tmp_path, monkeypatch):
    """``join`` writes message 0 then message 1; a crash in between leaves the
    proposal alone in the directory, and ``play`` writes message 1 from there."""
    a, b = players
    r = a.run("new", a.game, "--game", "dice", "--as", "first", "--opponent", b.pub())
    proposal = last_line(r.output)
    real_link, calls = os.link, []

    def second_link_fails(src, dst, *args, **kwargs):
        calls.append(dst)
        if len(calls) == 2:
            raise OSError(errno.EIO, "simulated crash")
        return real_link(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "link", second_link_fails)
    with pytest.raises(PbemError):
        session.join_game(proposal, b.game, Keystore(b.home).load(lambda: None))
    monkeypatch.undo()
    assert [p.name for p in messages(b.game)] == ["0000-first.pbem"] and not leftovers(b.game)
    assert_valid(b, b.game)
    r = b.run("play", b.game, "--orders", orders_file(tmp_path, ""))
    assert r.exit_code == 0, r.output
    assert last_line(r.output).name == "0001-second.pbem"
    r = a.run("receive", a.game, last_line(r.output))
    assert r.exit_code == 0, r.output


# --------------------------------------------------------------------------- killed


def test_a_killed_play_leaves_a_valid_resumable_game(started, tmp_path):
    """ann's `pbem play` killed at every point of the write, each on its own
    copy of both game directories (the processes run side by side)."""
    a, b = started
    orders = orders_file(tmp_path)
    runs = {}
    for point in POINTS:
        mine, theirs = tmp_path / f"{point}-ann", tmp_path / f"{point}-bob"
        shutil.copytree(a.game, mine)
        shutil.copytree(b.game, theirs)
        runs[point] = (child(point, a, mine, orders), at(a, mine), at(b, theirs))
    for point, (proc, me, them) in runs.items():
        proc.wait(timeout=60)
        assert proc.returncode == -signal.SIGKILL, (point, proc.returncode, proc.stderr.read())
        # valid: whole files only, the game verifies
        names = [p.name for p in messages(me.game)]
        expected = ["0000-first.pbem", "0001-second.pbem"] + (["0002-first.pbem"] if point in WRITTEN else [])
        assert names == expected, point
        assert_valid(me, me.game)
        # the only trace of an unfinished write is an unnamed temporary file
        assert len(leftovers(me.game)) == (0 if point == "after-unlink" else 1), point
        # resumable
        if point in WRITTEN:
            # the message was complete: it can be sent, and is never written twice
            sent = me.game / "0002-first.pbem"
            text = sent.read_bytes()
            r = me.run("play", me.game, "--orders", orders)
            assert r.exit_code == 2 and "not your turn" in r.output, (point, r.output)
            assert sent.read_bytes() == text
        else:
            r = me.run("play", me.game, "--orders", orders)
            assert r.exit_code == 0, (point, r.output)
            sent = last_line(r.output)
        r = them.run("receive", them.game, sent)
        assert r.exit_code == 0, (point, r.output)
        assert_valid(them, them.game)


@pytest.mark.slow
def test_play_killed_at_random_moments(started, tmp_path):
    a, b = started
    orders = orders_file(tmp_path)
    rng = random.Random(9)
    for attempt in range(20):
        mine, theirs = tmp_path / f"r{attempt}-ann", tmp_path / f"r{attempt}-bob"
        shutil.copytree(a.game, mine)
        shutil.copytree(b.game, theirs)
        proc = child("none", a, mine, orders)
        time.sleep(rng.uniform(0.05, 2.0))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        me, them = at(a, mine), at(b, theirs)
        assert_valid(me, mine)
        if len(messages(mine)) == 2:
            r = me.run("play", mine, "--orders", orders)
            assert r.exit_code == 0, r.output
        r = them.run("receive", theirs, mine / "0002-first.pbem")
        assert r.exit_code == 0, r.output


# --------------------------------------------------------------------------- never overwritten, never half-written


def test_a_message_file_is_never_overwritten(tmp_path):
    target = tmp_path / "0003-second.pbem"
    target.write_bytes(b"the original")
    with pytest.raises(UsageError, match="never overwritten"):
        atomic_create(target, b"another text")
    assert target.read_bytes() == b"the original"
    with pytest.raises(UsageError, match="never overwritten"):
        GameDirectory(tmp_path).write_message(3, "second", "another text")
    assert target.read_bytes() == b"the original" and not leftovers(tmp_path)


def test_a_writer_losing_the_race_for_a_name_overwrites_nothing(tmp_path, monkeypatch):
    """Another process creates the file between the existence check and the
    link: os.link refuses, the first file stays as it was."""
    target = tmp_path / "0004-first.pbem"
    real_link = os.link

    def other_writer_first(src, dst, *args, **kwargs):
        Path(dst).write_bytes(b"written by the other process")
        return real_link(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "link", other_writer_first)
    with pytest.raises(UsageError, match="never overwritten"):
        atomic_create(target, b"mine")
    assert target.read_bytes() == b"written by the other process"
    assert not leftovers(tmp_path)


def test_a_message_file_appears_whole_or_not_at_all(tmp_path, monkeypatch):
    """Whatever a reader sees under the final name is the complete text: the
    name is given only after the text is written and synced."""
    target = tmp_path / "0005-second.pbem"
    data = b"x" * 200_000
    seen = []
    real_link = os.link

    def observe(src, dst, *args, **kwargs):
        seen.append((Path(dst).exists(), Path(src).read_bytes() == data))
        return real_link(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "link", observe)
    atomic_create(target, data)
    assert seen == [(False, True)]
    assert target.read_bytes() == data and not leftovers(tmp_path)


# --------------------------------------------------------------------------- the lock

HOLD = (
    "import fcntl, os, sys\n"
    "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)\n"
    "fcntl.flock(fd, fcntl.LOCK_EX)\n"
    "print('locked', flush=True)\n"
    "sys.stdin.read()\n"
)


def test_a_game_locked_by_another_process_is_refused(started, tmp_path):
    a, b = started
    orders = orders_file(tmp_path)
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(a.game / ".pbem.lock")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        before = sorted(a.game.iterdir())
        r = a.run("play", a.game, "--orders", orders)
        assert r.exit_code == 2, r.output
        assert IN_USE in r.output
        assert sorted(a.game.iterdir()) == before
        assert a.run("verify", a.game).exit_code == 0  # reading needs no lock
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    r = a.run("play", a.game, "--orders", orders)
    assert r.exit_code == 0, r.output


def test_receive_into_a_locked_game_is_refused(started, tmp_path):
    a, b = started
    r = a.run("play", a.game, "--orders", orders_file(tmp_path))
    sent = last_line(r.output)
    holding = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with GameDirectory(b.game).lock():
            holding.set()
            release.wait(30)

    thread = threading.Thread(target=hold)
    thread.start()
    try:
        assert holding.wait(30)
        r = b.run("receive", b.game, sent)
        assert r.exit_code == 2 and IN_USE in r.output, r.output
        assert not (b.game / sent.name).exists()
    finally:
        release.set()
        thread.join()
    assert b.run("receive", b.game, sent).exit_code == 0


def test_two_plays_at_once_write_one_message(started, tmp_path):
    """Two real `pbem play` processes on one directory: the second, started
    while the first holds the lock, is refused; exactly one 0002 exists."""
    a, _ = started
    orders = orders_file(tmp_path)
    go = tmp_path / "go"
    first = child(f"hold-until:{go}", a, a.game, orders)
    try:
        assert first.stdout.readline().strip() == "holding the lock"
        second = child("none", a, a.game, orders)
        out, err = second.communicate(timeout=60)
        assert second.returncode == 2, out + err
        assert IN_USE in err
    finally:
        go.touch()
        first.wait(timeout=60)
    assert first.returncode == 0, first.stderr.read()
    assert [p.name for p in messages(a.game)][-1] == "0002-first.pbem"
    assert_valid(a, a.game)


# --------------------------------------------------------------------------- a failing disk


def test_a_failing_disk_is_an_error_not_a_traceback(started, tmp_path, monkeypatch):
    """A write that fails (disk full, I/O error, read-only directory) is an
    error naming the file, exit status 2 -- not an OSError traceback -- and
    leaves nothing behind."""
    a, _ = started

    def full(*_args, **_kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "link", full)
    result = CliRunner().invoke(main, ["play", str(a.game), "--orders", str(orders_file(tmp_path))],
                                env={"PBEM_HOME": str(a.home)})
    assert isinstance(result.exception, SystemExit) and result.exit_code == 2, repr(result.exception)
    assert "0002-first.pbem" in result.output
    assert not (a.game / "0002-first.pbem").exists() and not leftovers(a.game)
