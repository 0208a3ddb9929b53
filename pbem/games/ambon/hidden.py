"""Ambon's hidden slots (4.1, 14.2) and the reveals the rules demand.

The slots: each concealed piece (``X1``..), each mine marker (``M1``..) --
the Allied player's -- and the Japanese Second Wave note (14.2).  This
module records what is sealed, what is published and what is owed; what a
reveal *does* to the position is :mod:`pbem.games.ambon.reveals`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from pbem.engine.machine import Event, Opened, Sealed, illegal, replace
from pbem.games.ambon import setup
from pbem.games.ambon.state import ALLIED, JAPANESE, SETUP_ALLIED, SETUP_JAPANESE, AmbonState, Reveal

if TYPE_CHECKING:
    from pbem.games.ambon.data import AmbonData

#: What each kind of slot may be revealed as (4.1); the 14.2 note is free text, checked when placed.
SLOT_VALUES = {"X": ("dummy", "detachment"), "M": ("real", "dummy")}


def slot_owner(data: "AmbonData", slot: str) -> str | None:
    if slot in data.concealed_slots or slot in data.mine_slots:
        return ALLIED
    if slot == setup.SECOND_WAVE_SLOT:
        return JAPANESE
    return None


def sealed(data: "AmbonData", state: AmbonState, action: Sealed) -> AmbonState:
    """4.1, 14.2: a slot is sealed by its owner in the owner's setup phase."""
    owner = slot_owner(data, action.slot)
    if owner != action.side:
        raise illegal("4.1", f"{action.side} cannot seal slot {action.slot!r}")
    phase = SETUP_ALLIED if owner == ALLIED else SETUP_JAPANESE
    if state.phase != phase:
        raise illegal("4.1", f"slot {action.slot!r} is sealed during the {phase} phase, not {state.phase}")
    if action.slot == setup.SECOND_WAVE_SLOT and not state.option("14.2"):
        raise illegal("14.2", "a Second Wave note is sealed only with optional rule 14.2")
    return replace(state, sealed=state.sealed + ((action.side, action.slot),))


def published(data: "AmbonData", state: AmbonState, action: Opened) -> AmbonState:
    """A reveal made: checked against what the slot can be, and published."""
    if slot_owner(data, action.slot) != action.side:
        raise illegal("4.1", f"{action.side} has no slot {action.slot!r} to reveal")
    allowed = SLOT_VALUES.get(action.slot[0], ())
    if action.slot != setup.SECOND_WAVE_SLOT and action.value not in allowed:
        raise illegal("4.1", f"{action.slot} is revealed as {action.value!r}, which it cannot be")
    if state.opened(action.slot) is not None:
        raise illegal("4.1", f"{action.slot} is already revealed")
    return replace(state, published=state.published + ((action.slot, action.value),))


def owe(state: AmbonState, reveals: Sequence[Reveal]) -> tuple[AmbonState, list[Event]]:
    """Reveals the rules demand now, recorded as owed.  One already
    published (a referee's, or the owner's own in this message) takes effect
    at the next settling (:func:`pbem.games.ambon.reveals.settle`); the
    others are answered by the owner's next message."""
    events: list[Event] = []
    for reveal in reveals:
        if state.owes(reveal.slot):
            continue
        state = replace(state, owed=state.owed + (reveal,))
        if state.opened(reveal.slot) is None:
            events.append(Event(reveal.rule, f"{reveal.slot} must be revealed ({reveal.why})", {"slot": reveal.slot}))
    return state, events


def awaited_by(data: "AmbonData", state: AmbonState, side: str) -> list[str]:
    """Concealed units whose reveal the other side owes ``side`` and has not
    yet published (8.0, 7.2): they are made in the other side's next message."""
    return [r.slot for r in state.owed
            if r.side != side and r.slot in data.concealed_slots and state.opened(r.slot) is None]


def unapplied(data: "AmbonData", state: AmbonState, slot: str) -> bool:
    """A published slot whose reveal has not yet changed the position."""
    if slot in data.mine_slots:
        return state.mine(slot).status == "hidden"
    if slot in data.concealed_slots:
        return state.piece(slot).concealed
    return slot == setup.SECOND_WAVE_SLOT and not state.second_wave_note
