"""Replacing a file whole or not at all: a temporary file in the same
directory, flushed (and, when durability matters, synced), then renamed over
the target.  Readers see the old file or the new one, never a part; a killed
writer leaves at most a ``.tmp-*`` file, which the game directory's next
writer removes once it is a minute old (a younger one may be a live
writer's).  (Message files are never replaced: see
:func:`pbem.match.directory.atomic_create`.)"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def replace(path: str | os.PathLike[str], data: bytes, *, mode: int = 0o644, durable: bool = True,
            parents: bool = False) -> None:
    """Write ``data`` to ``path`` atomically; raises OSError (nothing changed).
    ``parents``: make the missing directories, private (0700) when the file
    is (a ``mode`` with no group or other bits, e.g. a keystore's 0600)."""
    path = Path(path)
    if parents:
        path.parent.mkdir(mode=0o777 if mode & 0o077 else 0o700, parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    if durable:
        sync_directory(path.parent)


def sync_directory(directory: str | os.PathLike[str]) -> None:
    """Make a rename durable where the platform allows opening a directory."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
