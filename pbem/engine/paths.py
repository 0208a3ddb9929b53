"""Movement: costs in integer half-MP, cheapest paths, reachable hexes, and the
check of a path a player wrote ("3.A: 1410 1509").

Movement points are counted in **half-MP** (``int``) so that a road's 0.5 MP
needs no floats: 1 MP is ``2``, a road step ``1``.  :func:`half_mp` converts a
printed value, :func:`format_mp` prints one back (``5 -> "2.5 MP"``).

A game describes terrain through one callback, ``cost(from_hex, to_hex)``,
returning what it costs to step from one hex into an adjacent one:

* an ``int`` -- the half-MP price;
* ``None`` -- the hex cannot be entered (sea, off the map, an enemy stack);
* a :class:`StepCost` -- either of the above with the reason spelled out, so
  error messages can say *why*.  ``StepCost.of(("mountain", 6), ("enter EZOC",
  2))`` adds parts up; ``StepCost.blocked("all sea")`` forbids the step.

The callback must return ``None`` for hexes off the map, or the searches
below would walk on forever.

>>> from pbem.engine.hexes import Grid, Layout
>>> grid = Grid(Layout("odd-q"), columns=(1, 20), rows=(1, 20))
>>> def cost(a, b):
...     return StepCost.of(("mountain", 6)) if grid.label(b) == "1508" else 2
>>> try:
...     validate_path("3.C", "1507 1508", 4, cost, grid=grid)
... except IllegalPathError as err:
...     print(err)
7.0: 3.C has 2 MP left; entering 1508 (mountain) costs 3 (step 1 of 1507 1508)
>>> validate_path("3.C", "1507 1508", 6, cost, grid=grid).cost
6
"""

from __future__ import annotations

import heapq
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Iterable, Sequence, Union

from pbem.engine.hexes import Grid, Hex
from pbem.errors import IllegalOrderError, InputError

__all__ = [
    "CostFn",
    "IllegalPathError",
    "Path",
    "StepCost",
    "cheapest_path",
    "format_mp",
    "half_mp",
    "parse_path",
    "reachable",
    "step_cost",
    "validate_path",
]


# --------------------------------------------------------------------------- half-MP


def half_mp(value: int | float | str | Fraction) -> int:
    """Half-MP units for a printed MP value: ``1 -> 2``, ``0.5 -> 1``, ``"2.5" -> 5``.

    Raises :class:`~pbem.errors.InputError` quoting the value when it is not a
    non-negative multiple of 0.5."""
    if isinstance(value, bool):
        raise InputError(f"movement points {value!r} is not a number")
    try:
        exact = Fraction(value) * 2 if not isinstance(value, float) else Fraction(str(value)) * 2
    except (TypeError, ValueError):
        raise InputError(f"movement points {value!r} is not a number") from None
    if exact.denominator != 1 or exact < 0:
        raise InputError(f"movement points {value!r} is not a non-negative multiple of 0.5")
    return int(exact)


def format_mp(halves: int, unit: bool = True) -> str:
    """``5 -> "2.5 MP"``, ``4 -> "2 MP"``; ``unit=False`` drops the " MP"."""
    whole, half = divmod(abs(halves), 2)
    text = ("-" if halves < 0 else "") + str(whole) + (".5" if half else "")
    return f"{text} MP" if unit else text


# --------------------------------------------------------------------------- step costs


@dataclass(frozen=True)
class StepCost:
    """The price of one step (``halves``, ``None`` = cannot enter) and why.

    ``reason`` names what was paid for: ``"mountain"`` or ``"rough 2 + river 1"``.
    ``parts`` keeps the itemised bill, in half-MP.
    """

    halves: int | None
    reason: str = ""
    parts: tuple[tuple[str, int], ...] = ()

    @classmethod
    def of(cls, *parts: tuple[str, int]) -> StepCost:
        """The sum of named ``(what, half-MP)`` parts.

        One part reads as just its name (``"mountain"``); several read as an
        itemised sum (``"rough 2 + river 1 + enter EZOC 1"``, in MP)."""
        if not parts:
            return cls(0, "", ())
        if len(parts) == 1:
            reason = parts[0][0]
        else:
            reason = " + ".join(f"{name} {format_mp(h, unit=False)}" for name, h in parts)
        return cls(sum(h for _, h in parts), reason, tuple(parts))

    @classmethod
    def blocked(cls, reason: str) -> StepCost:
        """A step that cannot be made, because of ``reason``."""
        return cls(None, reason, ())

    @property
    def allowed(self) -> bool:
        return self.halves is not None


CostResult = Union[int, None, StepCost]
#: ``cost(from_hex, to_hex)``: half-MP, ``None`` (cannot enter) or a :class:`StepCost`.
CostFn = Callable[[Hex, Hex], CostResult]


def step_cost(cost: CostFn, a: Hex, b: Hex) -> StepCost:
    """Call ``cost(a, b)`` and normalise the answer to a :class:`StepCost`."""
    result = cost(a, b)
    if isinstance(result, StepCost):
        value = result
    elif result is None:
        return StepCost(None, "")
    elif isinstance(result, int) and not isinstance(result, bool):
        value = StepCost(result, "")
    else:
        raise TypeError(f"cost callback returned {result!r}; expected int, None or StepCost")
    if value.halves is not None and value.halves < 0:
        raise ValueError(f"cost callback returned a negative cost {value.halves} for {a} -> {b}")
    return value


def _cost_int(cost: CostFn, a: Hex, b: Hex) -> int | None:
    return step_cost(cost, a, b).halves


# --------------------------------------------------------------------------- searches


@dataclass(frozen=True)
class Path:
    """A route: ``hexes`` from start to end and the half-MP ``steps`` paid
    entering each hex after the first."""

    hexes: tuple[Hex, ...]
    steps: tuple[int, ...]

    @property
    def cost(self) -> int:
        """Total half-MP."""
        return sum(self.steps)

    @property
    def start(self) -> Hex:
        return self.hexes[0]

    @property
    def end(self) -> Hex:
        return self.hexes[-1]

    def __len__(self) -> int:
        return len(self.hexes)


def _dijkstra(
    start: Hex, cost: CostFn, allowance: int | None, goal: Hex | None
) -> tuple[dict[Hex, int], dict[Hex, Hex]]:
    """Best known cost and predecessor of every hex settled.

    Ties: the frontier is ordered by (cost, number of steps, hex), so among
    equally cheap routes the one with fewer steps wins, then the one through
    the smaller hex -- the same answer on every machine."""
    best: dict[Hex, int] = {start: 0}
    steps: dict[Hex, int] = {start: 0}
    came: dict[Hex, Hex] = {}
    done: set[Hex] = set()
    frontier: list[tuple[int, int, Hex]] = [(0, 0, start)]
    while frontier:
        d, n, h = heapq.heappop(frontier)
        if h in done:
            continue
        done.add(h)
        if h == goal:
            break
        for nb in h.neighbours():
            if nb in done:
                continue
            c = _cost_int(cost, h, nb)
            if c is None:
                continue
            nd = d + c
            if allowance is not None and nd > allowance:
                continue
            key = (nd, n + 1, nb)
            old = best.get(nb)
            if old is None or (nd, n + 1) < (old, steps[nb]) or (
                (nd, n + 1) == (old, steps[nb]) and h < came[nb]
            ):
                best[nb], steps[nb], came[nb] = nd, n + 1, h
                heapq.heappush(frontier, key)
    return {h: best[h] for h in done}, came


def cheapest_path(start: Hex, goal: Hex, cost: CostFn, *, allowance: int | None = None) -> Path | None:
    """The cheapest route from ``start`` to ``goal`` (Dijkstra), or ``None``.

    With ``allowance`` (half-MP) no route costing more is considered.  Ties are
    broken deterministically: fewer steps first, then smaller hexes."""
    settled, came = _dijkstra(start, cost, allowance, goal)
    if goal not in settled:
        return None
    hexes = [goal]
    while hexes[-1] != start:
        hexes.append(came[hexes[-1]])
    hexes.reverse()
    stepcosts = tuple(settled[b] - settled[a] for a, b in zip(hexes, hexes[1:], strict=False))
    return Path(tuple(hexes), stepcosts)


def reachable(start: Hex, allowance: int, cost: CostFn) -> dict[Hex, int]:
    """Every hex that can be reached from ``start`` spending at most
    ``allowance`` half-MP, with its cheapest cost (``start`` itself costs 0).

    A step that costs more than what is left cannot be made at all (no
    "spend all remaining MP to move one more hex")."""
    settled, _ = _dijkstra(start, cost, allowance, None)
    return dict(sorted(settled.items(), key=lambda kv: (kv[1], kv[0])))


# --------------------------------------------------------------------------- explicit paths


class IllegalPathError(IllegalOrderError):
    """A player's path breaks a movement rule.

    Besides the message, carries the failure as data: ``unit``, ``step``
    (1-based), ``hex`` (its label), ``reason`` and, when the allowance ran out,
    ``needed`` and ``left`` in half-MP."""

    def __init__(
        self,
        message: str,
        *,
        rule: str,
        unit: str,
        step: int,
        hex: str,
        reason: str,
        needed: int | None = None,
        left: int | None = None,
    ):
        super().__init__(message, rule=rule, field="path")
        self.unit, self.step, self.hex, self.reason = unit, step, hex, reason
        self.needed, self.left = needed, left


def parse_path(text: str | Sequence[str], grid: Grid) -> tuple[Hex, ...]:
    """The hexes of a written path: ``"1410 1509"``, ``"1410-1509"``,
    ``"1410, 1509"`` or a list of numbers.  InputError quotes a bad number or
    an empty path."""
    if isinstance(text, str):
        words = [w for w in re.split(r"[\s,\-–>→]+", text) if w]
    else:
        words = list(text)
    if not words:
        raise InputError(f"path {text!r} names no hexes")
    return tuple(grid.parse(w) for w in words)


def validate_path(
    unit_label: str,
    hexes: Sequence[Hex | str],
    allowance: int,
    cost: CostFn,
    *,
    grid: Grid | None = None,
    rule: str = "7.0",
) -> Path:
    """Check a path a player gave for ``unit_label`` step by step.

    ``hexes`` starts with the hex the unit stands in; strings are parsed with
    ``grid`` (which also writes the hex numbers in messages).  ``allowance`` is
    the unit's movement allowance in half-MP.  Returns the :class:`Path` with
    what each step cost, or raises :class:`IllegalPathError` citing ``rule``
    for the first step that fails: a hex repeated or not adjacent, a hex that
    cannot be entered, or one that costs more than the MP left::

        7.0: 3.A has 2 MP left; entering 1508 (mountain) costs 3 (step 2 of 1410 1509 1508)
    """
    if isinstance(hexes, str):
        if grid is None:
            raise InputError(f"path {hexes!r} needs a grid to read hex numbers")
        route = parse_path(hexes, grid)
    else:
        route = tuple(_as_hex(h, grid) for h in hexes)
    if len(route) < 2:
        raise InputError(f"{unit_label}: path {_written(route, grid)!r} enters no hex; give the start hex and at least one more")

    def name(h: Hex) -> str:
        return grid.label(h) if grid is not None else str(h)

    where = _written(route, grid)
    left = allowance
    paid: list[int] = []
    for i, (a, b) in enumerate(zip(route, route[1:], strict=False), start=1):
        tail = f"(step {i} of {where})"
        if grid is not None and not grid.contains(b):
            raise IllegalPathError(
                f"{unit_label} cannot enter {name(b)}: off the map {tail}",
                rule=rule, unit=unit_label, step=i, hex=name(b), reason="off the map",
            )
        if not a.is_adjacent(b):
            why = "the same hex again" if a == b else f"not adjacent to {name(a)}"
            raise IllegalPathError(
                f"{unit_label} cannot move from {name(a)} to {name(b)}: {why} {tail}",
                rule=rule, unit=unit_label, step=i, hex=name(b), reason=why,
            )
        sc = step_cost(cost, a, b)
        if sc.halves is None:
            why = sc.reason or "cannot be entered"
            raise IllegalPathError(
                f"{unit_label} cannot enter {name(b)}: {why} {tail}",
                rule=rule, unit=unit_label, step=i, hex=name(b), reason=why,
            )
        if sc.halves > left:
            what = f" ({sc.reason})" if sc.reason else ""
            raise IllegalPathError(
                f"{unit_label} has {format_mp(left)} left; entering {name(b)}{what} "
                f"costs {format_mp(sc.halves, unit=False)} {tail}",
                rule=rule, unit=unit_label, step=i, hex=name(b), reason=sc.reason or "too costly",
                needed=sc.halves, left=left,
            )
        left -= sc.halves
        paid.append(sc.halves)
    return Path(route, tuple(paid))


def _as_hex(h: Hex | str, grid: Grid | None) -> Hex:
    if isinstance(h, Hex):
        return h
    if grid is None:
        raise InputError(f"hex {h!r} needs a grid to be read")
    return grid.parse(h)


def _written(route: Iterable[Hex], grid: Grid | None) -> str:
    return " ".join(grid.label(h) if grid is not None else str(h) for h in route)
