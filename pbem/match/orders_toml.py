"""Write an orders document as TOML (``[[order]]`` tables, a ``[standing]``
table): the format players write by hand, produced by bots and templates.
Only the value kinds orders use are supported: strings, integers, booleans
and lists of those."""

from __future__ import annotations

import json
from typing import Any, Mapping


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a TOML basic string
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    raise TypeError(f"orders TOML cannot hold {type(value).__name__}")


def _key(key: str) -> str:
    return key if key.replace("-", "").replace("_", "").isalnum() else json.dumps(key)


def dump_orders(document: Mapping[str, Any], comment: str = "") -> str:
    lines = [f"# {line}" for line in comment.splitlines()]
    for order in document.get("order", []):
        lines += ["", "[[order]]"] + [f"{_key(k)} = {_value(v)}" for k, v in order.items()]
    standing = document.get("standing")
    if standing:
        lines += ["", "[standing]"] + [f"{_key(k)} = {_value(v)}" for k, v in standing.items()]
    return "\n".join(lines).lstrip("\n") + "\n"
