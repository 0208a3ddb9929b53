"""Reading a TOML file a user wrote (orders, positions, settings): every
fault -- missing, unreadable, not UTF-8, not TOML -- is an InputError that
names the file (and the line, where TOML says which)."""

from __future__ import annotations

import os
from typing import Any

from pbem.errors import InputError


def read(path: str | os.PathLike[str]) -> dict[str, Any]:
    import tomllib

    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError as err:
        raise InputError(f"cannot read {os.fspath(path)}: {err.strerror or err}") from err
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        raise InputError(f"{os.fspath(path)}: not UTF-8 text (byte {err.start}, line {line}); save it as UTF-8") from err
    try:
        return tomllib.loads(text.removeprefix("\ufeff"))
    except tomllib.TOMLDecodeError as err:
        raise InputError(f"{os.fspath(path)}: not valid TOML: {err}") from err
