"""Sealed notes in game state (docs/protocol.md §7): which side sealed which slot in
which message, and what it opened to.  The values stay out of the state until
opened; the owner's client overlays its own in ``view``.  Shared by every game
that seals named slots (dice, ASL)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Mapping

from pbem.engine.contract import Section
from pbem.engine.machine import Event, illegal, replace
from pbem.errors import InputError

SLOT_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
MAX_TEXT = 4000


@dataclass(frozen=True)
class Note:
    side: str
    slot: str
    sealed_in: int
    value: str | None = None
    revealed_in: int | None = None


def find(notes: tuple[Note, ...], side: str, slot: str) -> Note | None:
    return next((n for n in notes if n.side == side and n.slot == slot), None)


def seal(notes: tuple[Note, ...], side: str, slot: str, seq: int, rule: str) -> tuple[Note, ...]:
    """``notes`` with ``side``'s new ``slot``; sealing a slot twice breaks ``rule``."""
    if find(notes, side, slot) is not None:
        raise illegal(rule, f"{side} already sealed slot {slot!r}")
    return notes + (Note(side, slot, seq),)


def open_note(notes: tuple[Note, ...], side: str, slot: str, value: str, seq: int, rule: str) -> tuple[tuple[Note, ...], Note]:
    """``notes`` with the slot opened, and the note as it was sealed."""
    note = find(notes, side, slot)
    if note is None:
        raise illegal(rule, f"{side} has no sealed slot {slot!r}")
    if note.value is not None:
        raise illegal(rule, f"slot {slot!r} is already revealed")
    return tuple(replace(n, value=value, revealed_in=seq) if n is note else n for n in notes), note


def closing_check(ending_by: str | None, side: str, what: str, rule: str) -> None:
    """After one side ended the game, the other's closing message carries reveals only."""
    if ending_by is not None:
        raise illegal(rule, f"{ending_by} ended the game: {side}'s closing message may carry reveals only, not {what}")


class EndedByOrder:
    """The ending the games without an end of their own share (dice, ASL):
    a side's ``end`` order ends the game, the other side's next message
    closes it -- reveals only -- and nothing follows.  The state has
    ``over`` and ``ending_by``; ``end_rule`` is the rule the events cite.
    Mixed in before :class:`pbem.engine.machine.Dispatching`."""

    end_rule: ClassVar[str]
    dispatch: Callable[[Any, Any], tuple[Any, list[Event]]]  # Dispatching's, later in the MRO

    def apply(self, state: Any, action: Any) -> tuple[Any, list[Event]]:
        if state.over:
            raise illegal(self.end_rule, "the game is over; no further action is possible")
        return self.dispatch(state, action)

    def _closing_check(self, state: Any, side: str, what: str) -> None:
        closing_check(state.ending_by, side, what, self.end_rule)

    def _end(self, state: Any, side: str) -> tuple[Any, list[Event]]:
        event = Event(self.end_rule, f"{side} ends the game; the reply closes it and both secrets are revealed")
        return replace(state, ending_by=side), [event]

    def _closed(self, state: Any, side: str) -> tuple[Any, list[Event]]:
        """At the end of ``side``'s message: the reply to an ``end`` closes the game."""
        if state.ending_by is not None and state.ending_by != side:
            return replace(state, over=True), [Event(self.end_rule, f"{side} closes the game")]
        return state, []

    def is_over(self, state: Any) -> bool:
        over: bool = state.over
        return over

    def is_ending(self, state: Any) -> bool:
        return state.ending_by is not None


# --------------------------------------------------------------------------- orders


def _string(order: Mapping[str, Any], name: str, where: str, limit: int) -> str:
    value = order.get(name)
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{where}: field {name!r} must be a non-empty string, got {value!r}", field=name)
    if len(value) > limit:
        raise InputError(f"{where}: field {name!r} is longer than {limit} characters", field=name)
    return value


def slot_name(order: Mapping[str, Any], where: str, reserved: str = "", reserved_for: str = "are the game's own") -> str:
    """The ``slot`` of a seal or reveal order; names starting ``reserved``
    belong to the game's own slots."""
    slot = _string(order, "slot", where, 64).strip()
    if not SLOT_RE.match(slot):
        raise InputError(
            f"{where}: slot {slot!r} must be 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit",
            field="slot",
        )
    if reserved and slot.startswith(reserved):
        raise InputError(f"{where}: slot names starting {reserved!r} {reserved_for}", field="slot")
    return slot


def read_note_order(kind: str, order: Mapping[str, Any], where: str, seals: dict[str, str], reveals: list[str],
                    reserved: str = "", reserved_for: str = "are the game's own") -> None:
    """A ``seal`` (``slot``, ``text``) or ``reveal`` (``slot``) order: the text
    goes to ``seals`` (never into the public body), the slot to ``reveals``."""
    slot = slot_name(order, where, reserved, reserved_for)
    if kind == "reveal":
        reveals.append(slot)
        return
    if slot in seals:
        raise InputError(f"{where}: slot {slot!r} is sealed twice in these orders", field="slot")
    seals[slot] = _string(order, "text", where, MAX_TEXT)


def note_sections(module: str, used: set[str], mine: list[Any], secrets: Mapping[str, str],
                  reserved: str = "") -> list[Section]:
    """The orders-template sections every game with sealed notes shares:
    sealing a new note, and revealing each of yours still sealed (its text
    shown to you alone)."""
    slot = next(f"note-{i}" for i in range(1, 1000) if f"note-{i}" not in used)
    sections = [Section(
        f"Sealed notes ({module}.seal): only you can read one until you reveal it",
        [f"slot: a new name (letters, digits, '_', '.', '-'{reserved}); text: what you commit to now"]
        + ([f"slots you have used: {', '.join(sorted(used))}"] if used else []),
        [{"type": "seal", "slot": slot, "text": "what only you should know for now"}],
    )]
    if mine:
        sections.append(Section(
            f"Reveals ({module}.reveal): your notes still sealed",
            [f"  {n.slot} (sealed in {n.sealed_in:04d})" + (f": {secrets[n.slot]!r} [only you see this]"
                                                            if n.slot in secrets else "") for n in mine],
            [{"type": "reveal", "slot": n.slot} for n in mine],
        ))
    return sections
