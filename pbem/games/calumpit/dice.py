"""Dice for a task: rules code asks for named rolls; missing ones become due.

A task's algorithm is a plain function that asks ``dice.roll(name, count,
sides)`` whenever it needs dice.  The first time, the roll is not there:
:class:`NeedDice` stops the run and the engine declares a
:class:`~pbem.engine.machine.DiceDue` labelled ``TASK/NAME``.  When the dice
arrive the algorithm runs again from the start with one more roll known,
until it completes.  Since only the task at the head of the queue runs and
nothing else changes the state meanwhile, every run asks the same questions
in the same order: the algorithm reads like the rule text, and the dice it
uses are exactly those the protocol (or a referee) supplied.
"""

from __future__ import annotations

from typing import Mapping

from pbem.errors import IntegrityError


class NeedDice(Exception):
    """The algorithm needs a roll it does not have yet."""

    def __init__(self, name: str, count: int, sides: int, purpose: str):
        super().__init__(name)
        self.name = name
        self.count = count
        self.sides = sides
        self.purpose = purpose


class Dice:
    """The rolls a task has received so far: name -> (sides, values)."""

    def __init__(self, rolled: Mapping[str, tuple[int, tuple[int, ...]]] | None = None):
        self._rolled = dict(rolled or {})
        self.used: list[tuple[str, tuple[int, ...]]] = []

    def roll(self, name: str, count: int, sides: int, purpose: str = "") -> tuple[int, ...]:
        """``count`` dice of ``sides`` faces named ``name`` (``()`` if count is 0)."""
        if count <= 0:
            return ()
        if name not in self._rolled:
            raise NeedDice(name, count, sides, purpose or name)
        got_sides, values = self._rolled[name]
        if got_sides != sides or len(values) != count:
            raise IntegrityError(
                f"roll {name!r} was made as {len(values)}d{got_sides} but the rules now ask for {count}d{sides}"
            )
        self.used.append((name, values))
        return values

    def one(self, name: str, sides: int, purpose: str = "") -> int:
        return self.roll(name, 1, sides, purpose)[0]
