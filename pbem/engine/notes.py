"""Sealed notes in game state (DESIGN 4.4): which side sealed which slot in
which message, and what it opened to.  The values stay out of the state until
opened; the owner's client overlays its own in ``view``.  Shared by every game
that seals named slots (dice, ASL)."""

from __future__ import annotations

from dataclasses import dataclass

from pbem.engine.machine import illegal, replace


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
