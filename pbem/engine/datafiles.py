"""The one way a game finds its data files: the shipped directory, with an
override directory (``--data DIR``, an installed data set) whose same-named
files replace the shipped ones and whose other files are added.  The same
errors for every game: a directory that is not one, a required file missing.
"""

from __future__ import annotations

import weakref
from pathlib import Path
from typing import Any, Iterable

from pbem.errors import DataError


def _toml_files(directory: Path) -> dict[str, tuple[Path, bytes]]:
    out: dict[str, tuple[Path, bytes]] = {}
    for path in sorted(directory.rglob("*.toml")):
        rel = path.relative_to(directory)
        if any(part.startswith(".") for part in rel.parts) or not path.is_file():
            continue
        try:
            out[rel.as_posix()] = (path, path.read_bytes())
        except OSError as err:
            raise DataError(f"{path}: cannot read: {err.strerror}") from err
    return out


def data_file_names(directory: str | Path) -> list[str]:
    """The data files of ``directory`` the loader reads (every ``*.toml``
    below it, sub-directories too, none hidden), as ``/``-separated names."""
    return sorted(_toml_files(Path(directory)))


def data_files(shipped: str | Path, override: str | Path | None = None,
               required: Iterable[str] = (), exclude: Iterable[str] = ()) -> dict[str, tuple[Path, bytes]]:
    """``name -> (path, bytes)`` of every ``*.toml`` of ``shipped`` (names
    relative to it, ``/``-separated), ``override``'s replacing and adding.
    ``exclude``: names that are not data (a game's rulings, which message 0
    pins itself): left out, and refused in ``override``."""
    base = Path(shipped)
    if not base.is_dir():
        raise DataError(f"{base}: not a data directory")
    exclude = tuple(exclude)
    files = {name: found for name, found in _toml_files(base).items() if name not in exclude}
    if override is not None:
        over = Path(override)
        if not over.is_dir():
            raise DataError(f"{over}: --data is not a directory")
        extra = _toml_files(over)
        for name in exclude:
            if name in extra:
                raise DataError(f"{extra[name][0]}: {name} is not a data file a data set may replace: "
                                f"the game's rulings are chosen when a game is proposed (pbem new --ruling)")
        files.update(extra)
    for name in required:
        if name not in files:
            where = f"{base}" + (f" or {override}" if override is not None else "")
            raise DataError(f"{where}: missing data file {name}")
    return files


#: the override directory each game object built with one reads, beside the shipped data
_SOURCES: "weakref.WeakKeyDictionary[Any, Path]" = weakref.WeakKeyDictionary()


def note_source(game: Any, directory: Path) -> None:
    """Record that ``game`` reads the override directory ``directory`` (an installed data set)."""
    _SOURCES[game] = directory


def source_of(game: Any) -> Path | None:
    """The override directory ``game`` reads (None: the shipped data only)."""
    return _SOURCES.get(game)
