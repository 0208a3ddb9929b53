"""Reading a TOML file a user wrote (orders, positions, settings, game data):
every fault -- missing, unreadable, not UTF-8, not TOML -- is an error that
names the file (and the byte or line, where known)."""

from __future__ import annotations

import os
from typing import Any

from pbem.errors import InputError


def parse(raw: bytes, label: str, error: type[InputError] = InputError) -> tuple[str, dict[str, Any]]:
    """``(text, document)`` of TOML bytes; faults raise ``error`` naming ``label``."""
    import tomllib

    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        raise error(f"{label}: not UTF-8 text (byte {err.start}, line {line}); save it as UTF-8") from err
    try:
        return text, tomllib.loads(text.removeprefix("\ufeff"))
    except tomllib.TOMLDecodeError as err:
        raise error(f"{label}: not valid TOML: {err}") from err


def read(path: str | os.PathLike[str]) -> dict[str, Any]:
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError as err:
        raise InputError(f"cannot read {os.fspath(path)}: {err.strerror or err}") from err
    return parse(raw, os.fspath(path))[1]
