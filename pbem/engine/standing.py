"""Standing instructions (docs/architecture.md, "Who decides"): answers to routine decisions given in
advance, so that a game turn needs as few emails as the dice invariant allows.

A side's standing instructions map a decision *kind* (``"advance"``,
``"retreat"``, ``"loss"``, ``"hq-support"`` ...) to an answer.  Games declare
the kinds they accept and their legal values; orders set them with a
``[standing]`` table (``advance = "always"``), and they stay in force until
changed.  When the engine would ask a side a question, :meth:`StandingTable.get` gives
the pre-declared reply, which the game maps onto the options open then.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from pbem.errors import InputError

@dataclass(frozen=True)
class StandingTable:
    """Every side's standing instructions: frozen and hashable, for game state."""

    entries: tuple[tuple[str, str, str], ...] = ()  # (side, kind, answer), sorted

    def get(self, side: str, kind: str) -> str | None:
        """``side``'s standing answer to decisions of ``kind``, or None (ask)."""
        return next((answer for s, k, answer in self.entries if s == side and k == kind), None)

    def updated(self, side: str, instructions: Mapping[str, str]) -> "StandingTable":
        """A new table with ``side``'s ``instructions`` replacing its old ones of the same kinds."""
        kept = [(s, k, a) for s, k, a in self.entries if not (s == side and k in instructions)]
        return StandingTable(tuple(sorted(kept + [(side, k, a) for k, a in instructions.items()])))

    def of(self, side: str) -> dict[str, str]:
        return {k: a for s, k, a in self.entries if s == side}


def parse(document: Mapping[str, Any], kinds: Mapping[str, tuple[str, ...] | None]) -> dict[str, str]:
    """The ``[standing]`` table of an orders document, checked against the
    game's ``kinds`` (kind -> accepted answers, or None for free text such as
    a loss order); errors name the field."""
    table = document.get("standing", {})
    if not isinstance(table, Mapping):
        raise InputError("standing: must be a table, e.g. [standing] advance = \"always\"", field="standing")
    out = {}
    for kind, value in table.items():
        if kind not in kinds:
            raise InputError(
                f"standing.{kind}: unknown standing instruction (this game has {', '.join(sorted(kinds)) or 'none'})",
                field=f"standing.{kind}",
            )
        accepted = kinds[kind]
        if accepted is None and isinstance(value, str) and len(value) <= 500:
            out[kind] = value
            continue
        if not isinstance(value, str) or accepted is None or value not in accepted:
            raise InputError(
                f"standing.{kind}: {value!r} is not one of {', '.join(kinds[kind] or ('a text',))}", field=f"standing.{kind}"
            )
        out[kind] = value
    return out
