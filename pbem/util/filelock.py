"""An exclusive lock on an open file that never waits: ``flock`` on Linux
and macOS, ``msvcrt.locking`` on Windows.

Both are advisory between pbem processes and released when the file is
closed or the process ends, so a killed pbem never leaves a game locked.
On Windows the lock covers the file's first byte (``msvcrt`` locks byte
ranges, and an empty file's first byte may be locked)."""

from __future__ import annotations

import os
import sys

#: how the lock file is opened: never through a link where the system can say so (not on Windows)
OPEN_FLAGS = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)


def try_lock(fd: int) -> bool:
    """Take an exclusive lock on ``fd`` at once: True if taken, False if
    another process holds it."""
    if sys.platform == "win32":
        import msvcrt

        try:
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:  # held by another process (EACCES / EDEADLOCK)
            return False
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True
