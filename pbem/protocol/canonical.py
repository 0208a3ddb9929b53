"""Canonical JSON (docs/protocol.md §3.1): the exact bytes a turn file signs.

Sorted keys, no whitespace, integers only (no floats), ASCII keys, strings
escaped as ``json.dumps(ensure_ascii=True)`` does.  For the value space pbem
uses (objects, arrays, strings, integers, booleans, null) the output equals
RFC 8785 (JCS) except that non-ASCII characters in *values* are \\u-escaped, so
the bytes are pure ASCII and survive any mail transport.

``decode`` is strict: it accepts only bytes that ``encode`` would produce from
the parsed value, so there is exactly one byte string per body.
"""

from __future__ import annotations

import json
from typing import Any

from pbem.errors import IntegrityError, InputError
from pbem.protocol.limits import MAX_DEPTH, MAX_INT_DIGITS, MAX_STRING, SECTION

MAX_INT = 2**53 - 1  # safe in every JSON implementation


class LimitError(InputError):
    """A value over one of the protocol's limits (docs/protocol.md 12): a
    string too long, nesting too deep, an integer literal too long."""


def _check(value: Any, where: str, depth: int = 1) -> None:
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, str):
        if len(value) > MAX_STRING and where != "$.sealed":  # the sealed store has a limit of its own
            raise LimitError(f"a string of {len(value):,} characters at {where}; at most {MAX_STRING:,} ({SECTION})")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as err:  # "\ud800": JSON can escape it, but it is no Unicode text (protocol 3.1)
            raise InputError(f"canonical JSON: a lone surrogate U+{ord(value[err.start]):04X} in the string at {where}; "
                             f"strings must be Unicode scalar values") from None
        return
    if isinstance(value, int):
        if not -MAX_INT <= value <= MAX_INT:
            raise InputError(f"canonical JSON: integer {value} at {where} is out of range")
        return
    if isinstance(value, float):
        raise InputError(f"canonical JSON: float {value!r} at {where}; only integers are allowed")
    if isinstance(value, (list, tuple, dict)) and depth > MAX_DEPTH:
        raise LimitError(f"JSON nested {depth} deep at {where}; at most {MAX_DEPTH} ({SECTION})")
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            _check(item, f"{where}[{i}]", depth + 1)
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str) or not key.isascii():
                raise InputError(f"canonical JSON: key {key!r} at {where} is not an ASCII string")
            if len(key) > MAX_STRING:
                raise LimitError(f"a key of {len(key):,} characters at {where}; at most {MAX_STRING:,} ({SECTION})")
            _check(item, f"{where}.{key}", depth + 1)
        return
    raise InputError(f"canonical JSON: {type(value).__name__} at {where} cannot be encoded")


def encode(value: Any) -> bytes:
    """The canonical bytes of ``value``."""
    _check(value, "$")
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False).encode(
        "ascii"
    )


def _no_floats(text: str) -> Any:
    raise ValueError(f"float {text}")


class _Refused(ValueError):
    """Raised while parsing, in pbem's words (a ValueError for json to pass on)."""


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:  # before int() converts it: Python's own limit would speak otherwise
        raise _Refused(f"an integer of {len(text.lstrip('-')):,} digits; at most {MAX_INT_DIGITS} ({SECTION})")
    return int(text)


def decode(data: bytes) -> Any:
    """Parse canonical bytes; anything non-canonical is an IntegrityError."""
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError as err:
        raise IntegrityError(f"message body is not canonical JSON: byte 0x{data[err.start]:02x} at offset "
                             f"{err.start} is not ASCII (canonical JSON is pure ASCII, docs/protocol.md 3.1)") from None
    try:
        value = json.loads(text, parse_float=_no_floats, parse_constant=_no_floats, parse_int=_integer,
                           object_pairs_hook=_unique_keys)
    except _Refused as err:
        raise IntegrityError(f"message body: {err}") from None
    except json.JSONDecodeError as err:
        said = err.msg.removesuffix(" at")  # json's "Invalid control character at"
        raise IntegrityError(f"message body is not canonical JSON (at offset {err.pos}: "
                             f"{said[:1].lower()}{said[1:]})") from None
    except ValueError as err:
        raise IntegrityError(f"message body is not canonical JSON: {err}") from None
    except RecursionError:
        raise IntegrityError(f"message body: JSON nested too deeply; at most {MAX_DEPTH} ({SECTION})") from None
    try:
        again = encode(value)
    except LimitError as err:
        raise IntegrityError(f"message body: {err}") from None
    except InputError as err:
        raise IntegrityError(f"message body is not canonical JSON: {err}") from err
    if again != data:
        raise IntegrityError("message body is valid JSON but not in canonical form")
    return value


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {key!r}")
        result[key] = value
    return result
