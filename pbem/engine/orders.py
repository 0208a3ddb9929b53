"""Reading an orders document's ``[[order]]`` tables (syntax only): the part
every game with typed orders shares."""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from pbem.errors import InputError
from pbem.protocol.limits import MAX_ORDERS



def typed_orders(
    document: Mapping[str, Any], kinds: Mapping[str, Any], *, top_level: tuple[str, ...] = ("order",)
) -> Iterator[tuple[int, str, Mapping[str, Any]]]:
    """``(number, type, table)`` for each ``[[order]]`` of ``document``; an
    unknown top-level key, a non-table or an unknown ``type`` is an
    InputError naming the order and the field."""
    unknown = sorted(set(document) - set(top_level))
    if unknown:
        raise InputError(
            f"orders: unknown top-level key(s) {', '.join(unknown)}; use {' and '.join(f'[{k}]' if k != 'order' else '[[order]]' for k in top_level)}",
            field=unknown[0],
        )
    orders = document.get("order", [])
    if not isinstance(orders, list):
        raise InputError("orders: 'order' must be an array of tables ([[order]])", field="order")
    if len(orders) > MAX_ORDERS:
        raise InputError(f"orders: {len(orders)} orders in one message; at most {MAX_ORDERS}", field="order")
    for number, order in enumerate(orders, 1):
        if not isinstance(order, Mapping):
            raise InputError(f"order {number}: must be a table", field="order")
        kind = order.get("type")
        if kind is None:
            raise InputError(f"order {number}: missing field 'type' (one of {', '.join(kinds)})", field="type")
        if not isinstance(kind, str) or kind not in kinds:
            raise InputError(f"order {number}: unknown type {kind!r} (expected one of {', '.join(kinds)})", field="type")
        yield number, kind, order
