"""One game's directory: ``NNNN-SIDE.pbem`` message files, written atomically.

* A message file is written to a temporary file in the same directory,
  flushed to disk, then *linked* to its final name: ``os.link`` fails if the
  name exists, so a message file is never overwritten and never half-written.
* ``lock()`` takes an exclusive advisory lock on ``.pbem.lock`` so two
  ``pbem`` processes never write the same game at once.
"""

from __future__ import annotations

import contextlib
import operator
import os
import re
import tempfile
import time
from functools import partial
from pathlib import Path
from stat import S_ISREG
from typing import Iterator

from pbem.errors import BusyError, InputError, IntegrityError, UsageError
from pbem.protocol.limits import MAX_INPUT_BYTES, input_too_large
from pbem.util.filelock import OPEN_FLAGS, try_lock

FILE_RE = re.compile(r"^([0-9]{4})-([A-Za-z][A-Za-z0-9_-]*)\.pbem$")  # ASCII digits: "٠٠٠٠" is no seq
LOCK_NAME = ".pbem.lock"
_MODE, _SIZE = operator.attrgetter("st_mode"), operator.attrgetter("st_size")
_SEQ = operator.itemgetter(slice(0, 4))
_HELD: set[Path] = set()  # the game directories whose lock this process holds
STALE_TMP = 60.0  # seconds after which a ".tmp-*" file in a game directory is a killed writer's leftover


def message_name(seq: int, side: str) -> str:
    return f"{seq:04d}-{side}.pbem"


def atomic_create(path: Path, data: bytes, *, mode: int = 0o644) -> None:
    """Create ``path`` with ``data``; fail if it exists; never leave a partial file."""
    path = Path(path)
    if path.exists():
        raise UsageError(f"{path} already exists; a message file is never overwritten")
    try:
        _write_new(path, data, mode)
    except OSError as err:
        raise InputError(f"cannot write {path}: {err.strerror or err}") from err


def _write_new(path: Path, data: bytes, mode: int) -> None:
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        try:
            os.link(tmp, path)
        except FileExistsError as err:
            raise UsageError(f"{path} already exists; a message file is never overwritten") from err
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    with contextlib.suppress(OSError):
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def _still_there(names: list[str], fd: int) -> tuple[list[str], list[os.stat_result]]:
    """The names of ``names`` still in the directory ``fd``, and their stats."""
    kept, stats = [], []
    for name in names:
        with contextlib.suppress(FileNotFoundError):
            stats.append(os.stat(name, dir_fd=fd))
            kept.append(name)
    return kept, stats


class GameDirectory:
    """The files of one game, as one player keeps them."""

    def __init__(self, path: str | os.PathLike[str]):
        self.path = Path(path)

    def exists(self) -> bool:
        """Whether the directory holds a message file (its name is enough:
        the files are read and checked by whatever loads them)."""
        if not self.path.is_dir():
            return False
        with os.scandir(self.path) as entries:
            return any(FILE_RE.match(entry.name) for entry in entries)

    def message_files(self) -> list[tuple[int, str, Path]]:
        """``(seq, side, path)`` of every message file, by seq."""
        return [(seq, side, self.path / name) for seq, side, name, _ in self.message_entries()]

    def message_entries(self, *, duplicates: bool = False) -> list[tuple[int, str, str, os.stat_result]]:
        """``(seq, side, file name, stat)`` of every message file, by seq (one
        directory scan; the stat is what a replay checkpoint compares).  Two
        files for one seq are an IntegrityError unless ``duplicates`` (verify
        reads both: two signed versions of a message are the proof of
        equivocation, docs/protocol.md 8)."""
        if not self.path.is_dir():
            return []
        match, listed = FILE_RE.match, os.listdir(self.path)
        if self.path in _HELD:
            # Holding the lock, a temporary file here older than STALE_TMP was
            # left by a writer that was killed before linking it: never a
            # message, remove it.  A younger one may be a live writer's that
            # does not take this lock (pbem watch's journal, DIR/mail.toml).
            stale = time.time() - STALE_TMP
            for name in listed:
                if name.startswith(".tmp-"):
                    with contextlib.suppress(OSError):
                        if os.stat(self.path / name).st_mtime < stale:
                            os.unlink(self.path / name)
        names = sorted(filter(match, listed))  # by seq, then side (NNNN-SIDE)
        fd = os.open(self.path, os.O_RDONLY)
        try:  # one stat a file, the part that grows with the game: kept to C-level maps
            try:
                stats = list(map(partial(os.stat, dir_fd=fd), names))
            except FileNotFoundError:  # one was removed while listing: leave it out
                names, stats = _still_there(names, fd)
        finally:
            os.close(fd)
        if not all(map(S_ISREG, map(_MODE, stats))):  # a FIFO would hang the read, a device flood it
            name = next(n for n, st in zip(names, stats, strict=True) if not S_ISREG(st.st_mode))
            raise IntegrityError(f"{self.path / name}: not a regular file; a message file is one (a FIFO, "
                                 f"a device or a link to one is refused unread)")
        if stats and max(map(_SIZE, stats)) > MAX_INPUT_BYTES:  # a sparse giant too
            name, st = next((n, st) for n, st in zip(names, stats, strict=True) if st.st_size > MAX_INPUT_BYTES)
            raise IntegrityError(input_too_large(str(self.path / name), st.st_size))
        seqs = list(map(int, map(_SEQ, names)))
        found = list(zip(seqs, [name[5:-5] for name in names], names, stats, strict=True))
        if not duplicates and len(set(seqs)) != len(found):
            dup = next(a[0] for a, b in zip(found, found[1:], strict=False) if a[0] == b[0])
            raise IntegrityError(f"{self.path}: two files for message {dup:04d}")
        return found

    def require(self) -> list[tuple[int, str, Path]]:
        return [(seq, side, self.path / name) for seq, side, name, _ in self.require_entries()]

    def require_any(self) -> None:
        """Refuse a directory that holds no message file (reading as little as
        it can: a directory with pbem's lock file is one pbem wrote to)."""
        if (self.path / LOCK_NAME).is_file():
            return
        if self.path.is_dir():
            with os.scandir(self.path) as entries:
                if any(FILE_RE.match(entry.name) for entry in entries):
                    return
        self.require_entries()  # raises, saying what to do

    def require_entries(self) -> list[tuple[int, str, str, os.stat_result]]:
        files = self.message_entries()
        if not files:
            raise UsageError(
                f"{self.path} holds no pbem game (no NNNN-SIDE.pbem files); to accept a proposal: "
                f"pbem join FILE --dir {self.path}; to restore a game from its mail: pbem import {self.path} MAIL..."
            )
        return files

    def write_message(self, seq: int, side: str, text: str) -> Path:
        self.path.mkdir(parents=True, exist_ok=True)
        path = self.path / message_name(seq, side)
        atomic_create(path, text.encode("utf-8"))
        return path

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Exclusive lock for a writing command; :class:`BusyError` if another holds it
        (:mod:`pbem.util.filelock`: Linux, macOS and Windows)."""
        self.path.mkdir(parents=True, exist_ok=True)
        try:  # never through a link: a planted .pbem.lock -> elsewhere would create or open a file there
            fd = os.open(self.path / LOCK_NAME, OPEN_FLAGS, 0o600)
        except OSError as err:
            raise IntegrityError(f"{self.path / LOCK_NAME}: cannot take the game's lock ({err.strerror}); it must be "
                                 f"a regular file of this directory, not a link") from err
        try:
            if not try_lock(fd):
                raise BusyError(f"{self.path} is in use by another pbem process; try again when it has finished")
            _HELD.add(self.path)  # its listing removes what a killed writer left
            try:
                yield
            finally:
                _HELD.discard(self.path)
        finally:
            os.close(fd)
