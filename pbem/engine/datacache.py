"""Parsed data files kept between runs (issue 15): what TOML parsing makes of
a data file, so that loading a game parses each of its files once, not at
every command.

An entry is the document parsed from one file's bytes, named by the SHA-256
of those bytes and the Python version (``tomllib`` is Python's): it is read
only for exactly those bytes, so it holds exactly what parsing them gives.
The files themselves are still read at every load, and the ruleset a game
pins (:mod:`pbem.engine.ruleset`) is always the hash of the real files.

Entries are JSON, so reading one runs no code; a document JSON cannot hold
exactly (a date, an infinite number) is not kept.  They live in the user's
own cache directory -- ``$PBEM_HOME/parsed`` when that is set, else the
platform's (``~/.cache/pbem/parsed``) -- a folder of mode 0700 with files
of mode 0600; a folder another user owns or could write is neither read nor
written.  An entry that does not read back as a document is a miss, a
failed write only leaves the cache as it was, and the newest
:data:`KEPT` entries are kept: deleting the cache is always safe.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pbem.errors import InputError

FOLDER = "parsed"
KEPT = 128
_FORMAT = b"pbem-parsed-toml-v1\x00"  # a new version whenever pbem.util.tomlfile.parse reads bytes otherwise


def parse(raw: bytes, label: str, error: type[InputError]) -> tuple[str, dict[str, Any]]:
    """``(text, document)`` of the TOML bytes ``raw``, as
    :func:`pbem.util.tomlfile.parse` gives them (faults raise ``error``
    naming ``label``), from the cache when it holds them."""
    import json

    folder = cache_folder()
    entry = folder / f"{_digest(raw)}.json" if folder is not None else None
    if entry is not None:
        try:
            text = raw.decode("utf-8")
            document = json.loads(entry.read_bytes())
            if isinstance(document, dict):
                return text, document
        except (OSError, ValueError):  # no entry, or not one we wrote: parse
            pass
    from pbem.util.tomlfile import parse as parse_toml

    text, document = parse_toml(raw, label, error)
    if entry is not None:
        _keep(entry, document)
    return text, document


def cache_folder() -> Path | None:
    """The folder of the entries, made if need be; None when there is none
    the user alone may write."""
    home = os.environ.get("PBEM_HOME")
    if home:  # beside the keystore, never making it
        folder = Path(home, FOLDER)
    else:
        import platformdirs

        folder = platformdirs.user_cache_path("pbem") / FOLDER
    try:
        st = os.stat(folder)
    except FileNotFoundError:  # the first load makes it
        try:
            if not home:
                folder.parent.mkdir(parents=True, exist_ok=True)
            folder.mkdir(mode=0o700, exist_ok=True)
            st = os.stat(folder)
        except OSError:
            return None
    except OSError:
        return None
    if hasattr(os, "getuid") and (st.st_uid != os.getuid() or st.st_mode & 0o022):
        return None  # another user's folder, or one others could write into
    return folder


def _digest(raw: bytes) -> str:
    import hashlib

    return hashlib.sha256(_FORMAT + sys.version.encode() + b"\x00" + raw).hexdigest()


def _keep(entry: Path, document: dict[str, Any]) -> None:
    """Write ``document`` as the entry ``entry`` if JSON holds it exactly,
    then remove the oldest entries beyond :data:`KEPT`."""
    import json

    from pbem.util.atomicfile import replace

    try:
        data = json.dumps(document, allow_nan=False).encode()  # a date or an infinity raise: not kept
    except (TypeError, ValueError):
        return
    try:
        replace(entry, data, mode=0o600, durable=False)
        entries = [(p.stat().st_mtime_ns, p) for p in entry.parent.glob("*.json")]
    except OSError:
        return
    for _, old in sorted(entries)[:-KEPT]:
        try:
            old.unlink()
        except OSError:
            pass
