"""Dice that arrive later: how a game declares them and takes them in.

A game's engine never rolls: it declares the dice it needs as
:class:`~pbem.engine.machine.DiceDue` in ``awaiting(state)``, and they arrive
later, keyed by a message that was not yet written when they became due, as a
:class:`~pbem.engine.machine.DiceRolled` action.  This module is what every
game shares for that:

:func:`match_roll`
    takes an arriving :class:`DiceRolled` against what is due -- the label
    must be due, the number of dice and every value must fit -- and returns
    what the game paired with that :class:`DiceDue` (a resolve function, an
    index, ...).  Every game refuses bad dice with the same words, citing its
    own rule.
:func:`dice_due`
    the :class:`DiceDue` among a game's ``awaiting(state)``, for
    :func:`match_roll` when that is the game's list of rolls due.
:class:`Dice` and :class:`NeedDice`
    for a game whose rules are written as plain functions asking for named
    rolls.  Such a function asks ``dice.roll(name, count, sides)`` whenever
    it needs dice.  The first time, the roll is not there: :class:`NeedDice`
    stops the run and the game declares a :class:`DiceDue` for it (the
    Calumpit Bridge game labels it ``TASK/NAME``).  When the dice arrive the
    function runs again from the start with one more roll known, until it
    completes.  As long as nothing else changes the state meanwhile (only the
    work at the head of a queue runs), every run asks the same questions in
    the same order: the function reads like the rule text, and the dice it
    uses are exactly those the protocol (or a referee) supplied.
"""

from __future__ import annotations

from typing import Callable, Iterable, Iterator, Mapping, TypeVar

from pbem.engine.machine import DiceDue, DiceRolled, illegal
from pbem.errors import IntegrityError

T = TypeVar("T")


def match_roll(
    due: Iterable[tuple[DiceDue, T]],
    action: DiceRolled,
    rule: str,
    *,
    dice_rule: Callable[[T], str] | None = None,
) -> T:
    """What ``due`` pairs with the :class:`DiceDue` labelled ``action.label``,
    once the dice fit it.

    ``due`` is every roll due now, in order, each with what the game needs to
    apply it; the first with the label is taken.  Raises
    :class:`~pbem.errors.IllegalOrderError` citing ``rule`` when no roll with
    that label is due, and citing ``dice_rule(paired)`` (default ``rule``)
    when the number of values is not ``count`` or a value is not in
    ``1..sides``.
    """
    labels: list[str] = []
    for d, paired in due:
        if d.label != action.label:
            labels.append(d.label)
            continue
        values = tuple(action.values)
        cite = dice_rule(paired) if dice_rule is not None else rule
        if len(values) != d.count:
            rolled = "1 die was" if len(values) == 1 else f"{len(values)} dice were"
            raise illegal(cite, f"roll {d.label!r} is {d.count}d{d.sides}, but {rolled} rolled: {list(values)}")
        for v in values:
            if not 1 <= v <= d.sides:
                raise illegal(cite, f"roll {d.label!r} is {d.count}d{d.sides}, but {v} is not between 1 and "
                                    f"{d.sides}: {list(values)}")
        return paired
    due_now = f"due: {', '.join(map(repr, labels))}" if labels else "no roll is due"
    raise illegal(rule, f"no roll labelled {action.label!r} is due ({due_now})")


def dice_due(awaited: Iterable[object]) -> Iterator[tuple[DiceDue, DiceDue]]:
    """The :class:`DiceDue` among ``awaited`` (a game's ``awaiting(state)``),
    in order, each paired with itself: ``match_roll(dice_due(game.awaiting(s)),
    action, rule)`` returns the :class:`DiceDue` the dice are for."""
    for item in awaited:
        if isinstance(item, DiceDue):
            yield item, item


class NeedDice(Exception):
    """The algorithm needs a roll it does not have yet."""

    def __init__(self, name: str, count: int, sides: int, purpose: str):
        super().__init__(name)
        self.name = name
        self.count = count
        self.sides = sides
        self.purpose = purpose


class Dice:
    """The rolls an algorithm has received so far: name -> (sides, values)."""

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
