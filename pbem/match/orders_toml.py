"""Write an orders document as TOML (``[[order]]`` tables, a ``[standing]``
table): the format players write by hand, produced by bots and templates.
The TOML itself is written by :mod:`pbem.util.tomlfile` (``tomli_w``)."""

from __future__ import annotations

from typing import Any, Mapping

from pbem.util import tomlfile


def dump_orders(document: Mapping[str, Any], comment: str = "") -> str:
    """``document``'s orders (``[[order]]`` tables) and standing instructions
    (a ``[standing]`` table, if any) as TOML, below ``comment`` as ``# `` lines
    (characters a comment may not hold spelled as escapes)."""
    parts: dict[str, Any] = {}
    if document.get("order"):
        parts["order"] = list(document["order"])
    if document.get("standing"):
        parts["standing"] = dict(document["standing"])
    head = "".join(f"# {tomlfile.comment_text(line)}\n" for line in comment.splitlines())
    body = tomlfile.dumps(parts)
    return (head + "\n" + body if head and body else head + body) or "\n"
