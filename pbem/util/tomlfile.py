"""Reading a TOML file a user wrote (orders, positions, settings, game data):
every fault -- missing, unreadable, not UTF-8, not TOML -- is an error that
names the file (and the byte or line, where known).

Writing TOML (orders documents, templates, mail settings): :func:`dumps` for
a document, :func:`key` and :func:`value` for one key or value,
:func:`comment_text` for the text of a comment.  Strings and
keys are rendered by ``tomli_w`` (quoting and escaping: quotes, backslashes,
every control character, DEL); only the layout is ours, that of the orders
players write by hand -- each value on one line (arrays ``[a, b]``, inline
tables ``{ k = v }``), ``[table]`` and ``[[array of tables]]`` sections
separated by a blank line."""

from __future__ import annotations

import os
import sys
import tomllib
from typing import Any, Mapping

import tomli_w

from pbem.errors import InputError


def parse(raw: bytes, label: str, error: type[InputError] = InputError) -> tuple[str, dict[str, Any]]:
    """``(text, document)`` of TOML bytes; faults raise ``error`` naming ``label``."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        raise error(f"{label}: not UTF-8 text (byte {err.start}, line {line}); save it as UTF-8") from err
    try:
        return text, tomllib.loads(text.removeprefix("\ufeff"))
    except tomllib.TOMLDecodeError as err:
        raise error(f"{label}: not valid TOML: {err}") from err
    except ValueError:  # Python's own limit on the digits of an integer, met while converting one
        raise error(f"{label}: an integer with more than {sys.get_int_max_str_digits():,} digits; "
                    f"no game needs one") from None
    except RecursionError:
        raise error(f"{label}: arrays or tables nested too deeply to read") from None


def read(path: str | os.PathLike[str]) -> dict[str, Any]:
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError as err:
        raise InputError(f"cannot read {os.fspath(path)}: {err.strerror or err}") from err
    return parse(raw, os.fspath(path))[1]


# --------------------------------------------------------------------------- writing


def key(name: str) -> str:
    """``name`` as a TOML key: bare (``move``, ``A-1``) where TOML allows, else a
    quoted string (``"Kure 1"``, ``""``, non-ASCII)."""
    return tomli_w.dumps({name: 0}).removesuffix(" = 0\n")


def value(item: Any) -> str:
    """``item`` as a TOML value on one line: a string, integer, float, boolean or
    date by ``tomli_w``; a list or tuple ``[a, b]``; a mapping an inline table
    ``{ k = v }`` (``{}`` empty).  Other types raise ``TypeError``."""
    if isinstance(item, Mapping):
        return "{ " + ", ".join(f"{key(k)} = {value(v)}" for k, v in item.items()) + " }" if item else "{}"
    if isinstance(item, (list, tuple)):
        return "[" + ", ".join(value(v) for v in item) + "]"

    return tomli_w.dumps({"v": item}).removeprefix("v = ").removesuffix("\n")


def comment_text(text: str) -> str:
    """``text`` fit to follow ``#`` in a TOML comment: the characters a comment
    may not hold (control characters but tab, DEL -- a line feed too) spelled as
    escapes, ``\\u007f``."""
    return "".join(f"\\u{ord(c):04x}" if (c < " " and c != "\t") or c == "\x7f" else c for c in text)


def _tables(item: Any) -> bool:
    """An array of tables: a non-empty list of mappings."""
    return isinstance(item, (list, tuple)) and bool(item) and all(isinstance(t, Mapping) for t in item)


def dumps(document: Mapping[str, Any]) -> str:
    """TOML text of ``document``: its plain values first (``k = v``), then a
    ``[k]`` section for each mapping and a ``[[k]]`` section for each element of
    a list of mappings, a blank line before each section; values within a
    section on one line (see :func:`value`).  ``""`` for an empty document."""
    lines = [f"{key(k)} = {value(v)}" for k, v in document.items() if not isinstance(v, Mapping) and not _tables(v)]
    for name, item in document.items():
        if isinstance(item, Mapping):
            lines += ["", f"[{key(name)}]"] + [f"{key(k)} = {value(v)}" for k, v in item.items()]
        elif _tables(item):
            for table in item:
                lines += ["", f"[[{key(name)}]]"] + [f"{key(k)} = {value(v)}" for k, v in table.items()]
    return "\n".join(lines).lstrip("\n") + "\n" if lines else ""
