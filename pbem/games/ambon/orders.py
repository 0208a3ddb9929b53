"""Ambon's orders as players write them: the syntax, checked without the
position (parsing is separate from legality: docs/architecture.md).

Orders are ``[[order]]`` tables, one verb each, and ``[standing]``
instructions (docs/architecture.md, "Who decides"), :data:`STANDING_KINDS`.
Each kind's syntax is its own, in :mod:`pbem.games.ambon.order` (the
registry :data:`~pbem.games.ambon.order.KINDS`): :data:`ORDER_FORMS` (which
every orders template lists too) and :data:`VERBS` are read from it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from pbem.engine.machine import ParsedOrders
from pbem.errors import InputError
from pbem.games.ambon import order
from pbem.games.ambon.order import standing
from pbem.games.ambon.order.setup import IDENTITY_TABLES, draw, drawn_identities, historical

if TYPE_CHECKING:
    from pbem.games.ambon.data import AmbonData

#: every order as a player writes it: (the TOML, who gives it, its rules)
ORDER_FORMS = order.FORMS
#: verb: (required fields, optional fields)
VERBS = {verb: (kind.required, kind.optional) for verb, kind in order.KINDS.items()}
STANDING_KINDS = standing.KINDS


def parse_orders(data: "AmbonData", document: Mapping[str, Any], side: str) -> ParsedOrders:
    """An orders document (``[[order]]`` tables, one verb each, and
    ``[standing]``) checked for syntax, not yet against the position."""
    unknown = sorted(set(document) - {"order", "standing"})
    if unknown:
        raise InputError(f"orders: unknown top-level key(s) {', '.join(unknown)}", field=unknown[0])
    parts = order.Parts()
    order.STANDING.parse(data, side, document, "standing", parts)
    listed = document.get("order", [])
    if not isinstance(listed, list):
        raise InputError("orders: 'order' must be an array of tables ([[order]])", field="order")
    errors: list[InputError] = []
    for i, table in enumerate(listed):  # every order checked, each on its own: all the mistakes at once
        try:
            order.parse_order(data, side, i, table, parts)
        except InputError as err:
            errors.append(err)
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise InputError(f"{len(errors)} orders are wrong:\n" + "\n".join(f"  {err}" for err in errors), field=errors[0].field)
    return ParsedOrders(public=tuple(parts.public), seals=parts.seals, reveals=tuple(parts.reveals))


__all__ = ["IDENTITY_TABLES", "ORDER_FORMS", "STANDING_KINDS", "VERBS", "draw", "drawn_identities", "historical",
           "parse_orders"]
