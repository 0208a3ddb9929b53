"""Ambon's orders applied to the position: each parsed order goes to the
kind that applies it (:data:`pbem.games.ambon.order.BY_TYPE`), which checks
it against the rules and returns the new state and its events.  A kind
given in a phase of its side's own reaches that phase first
(:class:`pbem.games.ambon.order.base.PhaseOrder`, :func:`phases.reach`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pbem.engine.machine import Event, Ordered, illegal
from pbem.games.ambon.order import BY_TYPE
from pbem.games.ambon.state import AmbonState

if TYPE_CHECKING:
    from pbem.games.ambon.data import AmbonData


def ordered(data: "AmbonData", state: AmbonState, action: Ordered) -> tuple[AmbonState, list[Event]]:
    """Apply one order of ``action.side``."""
    kind = action.order.get("type")
    applies = BY_TYPE.get(kind) if isinstance(kind, str) else None
    if applies is None:
        raise illegal("5.0", f"order {action.index + 1}: {kind!r} is not an Ambon order")
    return applies.apply(data, state, action)
