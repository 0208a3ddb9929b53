"""Which data a game is played with (docs/architecture.md, "Rules as data").

A game's rules read data files: the map, counters, charts and tables.  pbem
ships a set for each game (for Ambon a *reconstruction*: the printed map,
counters, CRT and TEC are not public).  Players who own the printed game can
play with its values instead, as **installed data sets** kept in the
keystore::

    $PBEM_HOME/data/<game>/<name>/*.toml     files replacing the shipped ones of the same name

Message 0 pins the *ruleset hash* of the data the proposer chose (the shipped
set, or ``pbem new --data``); every later load looks for the data that hash
to the pin -- the shipped set first, then any directory given on the command
line, then every installed set -- so both players, and anyone verifying,
adjudicate with the same numbers, and nobody can swap a chart mid-game.

``pbem data add GAME DIR`` installs a set (checked by loading it: a bad file
is refused with its file, line and key), ``pbem data list`` shows each set's
hash to compare with an opponent's.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from pbem import __version__
from pbem.engine import registry
from pbem.engine.datafiles import data_file_names, note_source
from pbem.engine.ruleset import ruleset_hash
from pbem.errors import DataError, UsageError
from pbem.protocol.keystore import home_dir

SHIPPED = "shipped"
DATA_DIR = "data"


@dataclass(frozen=True)
class DataSet:
    """One set of data for a game: the shipped one (``path`` None) or an
    installed or given directory."""

    game: str
    name: str
    path: Path | None
    ruleset: str

    def describe(self) -> str:
        if self.path is None:
            return f"shipped with pbem: {self.ruleset}"
        return f"{self.name} ({self.path}): {self.ruleset}"


def root(game: str, home: str | os.PathLike[str] | None = None) -> Path:
    """Where a player's installed data sets for ``game`` live."""
    return (Path(home) if home is not None else home_dir()) / DATA_DIR / game


def installed(game: str, home: str | os.PathLike[str] | None = None) -> list[Path]:
    """The installed data set directories for ``game``, by name."""
    base = root(game, home)
    if not base.is_dir():
        return []
    return sorted(p for p in base.iterdir() if p.is_dir() and not p.name.startswith("."))


def build(game: str, data: str | os.PathLike[str] | None = None, home: str | os.PathLike[str] | None = None,
          *, local: bool = False) -> Any:
    """The game with ``data``: None for the shipped set, a directory, or the
    name of an installed set.  ``local``: the game name is the local user's
    own (see :func:`pbem.engine.registry.get`), not one a message named."""

    if data is None:
        return registry.get(game, local=local)
    path = Path(data)
    if not path.is_dir():
        named = root(game, home) / str(data)
        if os.sep in str(data) or not named.is_dir():
            known = ", ".join(p.name for p in installed(game, home)) or "none installed"
            raise UsageError(f"--data {data}: neither a directory nor an installed {game} data set ({known})")
        path = named
    built = registry.get(game, str(path), local=local)
    note_source(built, path)
    return built


def ruleset_of(game_obj: Any) -> str:
    return ruleset_hash(game_obj.ruleset_files())


def for_ruleset(
    game: str,
    pinned: str,
    extra: Iterable[str | os.PathLike[str]] = (),
    home: str | os.PathLike[str] | None = None,
    proposed_with: str | None = None,
    terms: Callable[[Any], Any] = lambda built: built,
) -> Any:
    """The game built with the data whose ruleset hash is ``pinned``: the
    shipped set, then each of ``extra``, then each installed set.
    ``proposed_with``: the pbem version that wrote message 0 (named in the
    error when it differs from this one: the shipped data may have changed).
    ``terms``: the game a built one is played with under message 0's terms
    (:func:`pbem.engine.contract.game_for_terms`: an older module version's
    rules), whose files are the ones hashed."""
    shipped = terms(build(game))
    tried = [DataSet(game, SHIPPED, None, ruleset_of(shipped))]
    if tried[0].ruleset == pinned:
        return shipped
    for path in [*(Path(p) for p in extra), *installed(game, home)]:
        candidate = terms(build(game, path, home))
        found = DataSet(game, path.name, path, ruleset_of(candidate))
        if found.ruleset == pinned:
            return candidate
        tried.append(found)

    if proposed_with and proposed_with != __version__:
        way_out = (f"message 0000 was written by pbem {proposed_with} and this is pbem {__version__}: if the game was "
                   f"proposed with the shipped data, play it with pbem {proposed_with}, or install that version's "
                   f"data files: pbem data add {game} DIR")
    else:
        way_out = f"ask your opponent for the data they chose and install it: pbem data add {game} DIR"
    raise DataError(
        f"message 0000 pins {game} data {pinned[:16]}..., which this pbem does not have: "
        + "; ".join(f"the shipped data hash to {t.ruleset[:16]}..." if t.path is None
                    else f"{t.path} hashes to {t.ruleset[:16]}..." for t in tried)
        + f". To go on, {way_out}"
    )


def describe_all(game: str, home: str | os.PathLike[str] | None = None) -> list[DataSet]:
    """The shipped set and every installed set of ``game``, with their hashes."""
    sets = [DataSet(game, SHIPPED, None, ruleset_of(build(game)))]
    for path in installed(game, home):
        sets.append(DataSet(game, path.name, path, ruleset_of(build(game, path, home))))
    return sets


def install(
    game: str,
    source: str | os.PathLike[str],
    name: str | None = None,
    home: str | os.PathLike[str] | None = None,
) -> tuple[DataSet, bool]:
    """Check ``source`` (a directory of data files) by loading the game with
    it, and copy its files into the keystore as the set ``name`` (default: the
    first 12 digits of its ruleset hash).  Returns the set and whether it was
    new (installing the same files again changes nothing)."""
    source = Path(source)
    if not source.is_dir():
        raise UsageError(f"{source}: not a directory of data files")

    # what the loader reads (and the hash covers: sub-directories' files too) and the notes beside them
    files = sorted(set(data_file_names(source))
                   | {p.name for p in source.iterdir() if p.is_file() and not p.name.startswith(".")})
    if not files:
        raise UsageError(f"{source}: holds no data files")
    ruleset = ruleset_of(build(game, source))  # a bad file is refused here, naming file, line and key
    if ruleset == ruleset_of(build(game)):
        names = ", ".join(files)
        raise UsageError(f"{source}: changes nothing of the shipped {game} data (none of {names} "
                         f"replaces a file the game reads with different contents); nothing installed")
    if name is None:
        name = ruleset[:12]
    if not name.replace("-", "").replace("_", "").isalnum() or name == SHIPPED:
        raise UsageError(f"--name {name!r}: use letters, digits, - and _ (and not {SHIPPED!r})")
    dest = root(game, home) / name
    if dest.exists():
        existing = ruleset_of(build(game, dest))
        if existing == ruleset:
            return DataSet(game, name, dest, ruleset), False
        raise UsageError(f"an installed {game} data set is already called {name!r} (hash {existing[:16]}...); choose another --name")

    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = dest.parent / f".tmp-{name}-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(mode=0o700)
    try:
        for rel in files:  # sub-directories too: the ruleset hash covers them (issue 27 m8)
            (staging / rel).parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            shutil.copyfile(source / rel, staging / rel)
        os.rename(staging, dest)  # whole or not at all
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return DataSet(game, name, dest, ruleset), True
