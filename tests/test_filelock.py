"""Issue 30: the game's lock is portable -- flock on Linux and macOS,
msvcrt.locking on Windows (pbem.util.filelock)."""

from __future__ import annotations

import os
import subprocess
import sys
import types

import pytest

from pbem.errors import BusyError
from pbem.match.directory import GameDirectory
from pbem.util import filelock


def test_a_second_process_is_refused_while_a_command_holds_the_lock(tmp_path):
    game = GameDirectory(tmp_path / "game")
    with game.lock():
        held = subprocess.run([sys.executable, "-c", (
            "import sys; from pbem.match.directory import GameDirectory\n"
            "from pbem.errors import BusyError\n"
            f"try:\n    GameDirectory({str(tmp_path / 'game')!r}).lock().__enter__()\n"
            "except BusyError as e:\n    print('busy:', e); sys.exit(0)\nsys.exit(1)")],
            capture_output=True, text=True)
    assert held.returncode == 0 and "in use by another pbem process" in held.stdout
    with game.lock():  # released with the command: taken again at once
        pass


@pytest.mark.skipif(sys.platform == "win32", reason="the real msvcrt is tested on Windows below")
def test_the_windows_path_locks_the_first_byte_without_waiting(tmp_path, monkeypatch):
    """On Windows the lock is msvcrt.locking(fd, LK_NBLCK, 1) at offset 0; a
    lock another process holds (OSError) is a refusal, not a wait."""
    calls = []
    held = {"by_other": False}

    def locking(fd, mode, nbytes):
        calls.append((os.lseek(fd, 0, os.SEEK_CUR), mode, nbytes))
        if held["by_other"]:
            raise PermissionError(13, "Permission denied")

    fake = types.SimpleNamespace(locking=locking, LK_NBLCK=2)
    monkeypatch.setitem(sys.modules, "msvcrt", fake)
    monkeypatch.setattr(sys, "platform", "win32")
    fd = os.open(tmp_path / "lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        os.write(fd, b"x")  # the position is moved on: the lock must still start at byte 0
        assert filelock.try_lock(fd) is True
        held["by_other"] = True
        assert filelock.try_lock(fd) is False
    finally:
        os.close(fd)
    assert calls == [(0, 2, 1), (0, 2, 1)]


@pytest.mark.skipif(sys.platform != "win32", reason="runs on Windows only")
def test_on_windows_a_held_lock_refuses_a_second_command(tmp_path):  # pragma: no cover - Windows
    game = GameDirectory(tmp_path / "game")
    with game.lock():
        with pytest.raises(BusyError):
            with GameDirectory(tmp_path / "game").lock():
                pass
