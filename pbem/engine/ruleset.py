"""The ruleset hash: which data files a game was played with (message 0 pins it).

Kept apart from :mod:`pbem.engine.mapdata` so that verifying a game that has
no map (the dice game) does not import the map machinery.
"""

from __future__ import annotations

import hashlib
from typing import Iterable

from pbem.errors import InputError


def ruleset_hash(files: Iterable[tuple[str, bytes]]) -> str:
    """SHA-256 (hex) identifying a ruleset: over the files sorted by name, each
    as ``len(name) ‖ name ‖ len(bytes) ‖ bytes`` (name length 4 bytes, data
    length 8 bytes, big-endian; names UTF-8), so no two different file sets
    hash alike.  The same construction as :func:`pbem.match.session.ruleset_hash`
    over a game's ``ruleset_files()``."""
    h = hashlib.sha256()
    seen: set[str] = set()
    for fname, blob in sorted(files):
        if fname in seen:
            raise InputError(f"data file {fname!r} listed twice")
        seen.add(fname)
        raw = fname.encode("utf-8")
        h.update(len(raw).to_bytes(4, "big"))
        h.update(raw)
        h.update(len(blob).to_bytes(8, "big"))
        h.update(blob)
    return h.hexdigest()
