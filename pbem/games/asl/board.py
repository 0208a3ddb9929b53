"""ASL board hex coordinates: ``X2``, ``AA1``, ``4P5``, ``yGG10``.

An ASL geomorphic board has 33 hexrows (columns) lettered ``A`` .. ``Z`` then
``AA`` .. ``GG``, each a vertical column of flat-topped hexes.  Hexrows ``A``,
``C``, ``E`` ... (even index counting ``A`` as 0) hold hexes 1-10; hexrows
``B``, ``D`` ... ``Z``, ``BB`` ... hold 0-10, the 0 and 10 being the half hexes
on the long edges, so those hexrows sit half a hex lower.  The excerpt's
Dare-Death example uses exactly this numbering (``Z0``, ``Y1``, ``AA1``), and
its moves fix the adjacency: from ``Y1`` the squad may enter ``Y2`` or ``X1``,
both adjacent to ``X2``.

Inside, a hex is a cube :class:`~pbem.engine.hexes.Hex` via the ``odd-q``
offset layout (hexrow index as the column, hex number as the row), so
neighbours, distances and paths are the engine's own.

Several boards make a :class:`BoardConfig`: a grid of board names, each row
of the grid below the previous one, each board to the right of the one
before.  Neighbouring boards share their edge half hexes: ``GG5`` of a board
is ``A5`` of the board to its right, ``B10`` of a board is ``B0`` of the board
below.  Boards are taken as printed (not rotated); a rotated board's hexes
must be renamed by the players.

>>> board = BoardConfig.single()
>>> sorted(board.label(h) for h in board.parse("Y1").neighbours() if board.contains(h))
['X0', 'X1', 'Y2', 'Z0', 'Z1']
>>> board.distance("Z0", "X2")
3
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from pbem.engine.hexes import Hex, Layout
from pbem.errors import InputError

#: Hexrow letters in order: A..Z, then AA..GG (index 0..32).
HEXROWS: tuple[str, ...] = tuple(chr(c) for c in range(ord("A"), ord("Z") + 1)) + tuple(
    chr(c) * 2 for c in range(ord("A"), ord("G") + 1)
)
LAST_COLUMN = len(HEXROWS) - 1  # 32 (GG)
LAST_ROW = 10
LAYOUT = Layout("odd-q")
LABEL = re.compile(r"^(?P<board>[0-9]+[a-z]?|[a-z]+)?(?P<col>[A-Z]{1,2})(?P<row>[0-9]{1,2})$")
BOARD_NAME = re.compile(r"^([0-9]+[a-z]?|[a-z]+)$")


def column_index(letters: str) -> int:
    """``"A"`` -> 0, ``"Z"`` -> 25, ``"AA"`` -> 26, ``"GG"`` -> 32."""
    try:
        return HEXROWS.index(letters)
    except ValueError:
        raise InputError(f"hexrow {letters!r} is not one of A-Z, AA-GG") from None


def rows_of(col: int) -> range:
    """The hex numbers of hexrow ``col`` on one board: 1-10, or 0-10 for the
    hexrows with half hexes on the long edges (B, D, ... Z, BB ... FF)."""
    return range(0, LAST_ROW + 1) if col % 2 else range(1, LAST_ROW + 1)


@dataclass(frozen=True)
class BoardConfig:
    """The boards in play, as rows of board names (top row first).

    ``BoardConfig.single()`` is one unnamed board: hexes are written without a
    board prefix (``X2``).  With several boards every hex needs its board's
    name (``4X2``); with one named board the prefix is optional.
    """

    rows: tuple[tuple[str, ...], ...] = (("",),)
    _where: dict[str, tuple[int, int]] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.rows or not all(self.rows) or len({len(r) for r in self.rows}) != 1:
            raise InputError("boards: give one or more rows of board names, all rows the same length")
        for i, row in enumerate(self.rows):
            for j, name in enumerate(row):
                if name and not BOARD_NAME.match(name):
                    raise InputError(f"boards: {name!r} is not a board name like '4', '12a' or 'y'")
                if name in self._where:
                    raise InputError(f"boards: board {name!r} is listed twice")
                self._where[name] = (i, j)
        if len(self._where) > 1 and "" in self._where:
            raise InputError("boards: with several boards each needs a name")

    @classmethod
    def single(cls, name: str = "") -> "BoardConfig":
        return cls(((name,),))

    @classmethod
    def from_value(cls, value: object) -> "BoardConfig":
        """From a position's ``boards`` value: ``"y"``, ``["y", "z"]`` (side by
        side) or ``[["y"], ["z"]]`` (one above the other)."""
        if value is None or value == "":
            return cls.single()
        if isinstance(value, str):
            return cls.single(value)
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            return cls((tuple(value),))
        if isinstance(value, list) and value and all(
            isinstance(r, list) and all(isinstance(v, str) for v in r) for r in value
        ):
            return cls(tuple(tuple(r) for r in value))
        raise InputError(f"boards: {value!r} is not a board name, a list of names, or rows of names", field="boards")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for row in self.rows for name in row)

    def to_json(self) -> list[list[str]]:
        return [list(r) for r in self.rows]

    # -- parsing and printing ---------------------------------------------
    def parse(self, text: str) -> Hex:
        """The hex ``text`` names; :class:`InputError` quoting it otherwise."""
        if not isinstance(text, str):
            raise InputError(f"hex {text!r} is not a string like 'X2' or '4P5'")
        m = LABEL.match(text.strip())
        if not m:
            raise InputError(f"hex {text!r} is not an ASL hex like 'X2', 'AA1' or '4P5' (board, hexrow A-GG, number)")
        board = m.group("board") or ""
        names = self.names
        if not board:
            if len(names) > 1:
                raise InputError(f"hex {text!r}: name its board ({', '.join(names)}), e.g. '{names[0]}{text}'")
            board = names[0]
        elif board not in self._where:
            if names == ("",):
                raise InputError(f"hex {text!r}: board {board!r} is not in play; this position names no boards")
            raise InputError(f"hex {text!r}: board {board!r} is not in play (boards: {', '.join(names)})")
        letters, row = m.group("col"), int(m.group("row"))
        if letters not in HEXROWS:
            raise InputError(f"hex {text!r}: hexrow {letters!r} is not one of A-Z, AA-GG")
        col = column_index(letters)
        if row not in rows_of(col):
            first = rows_of(col)[0]
            raise InputError(f"hex {text!r}: hexrow {letters} holds hexes {first}-{LAST_ROW}")
        i, j = self._where[board]
        return LAYOUT.to_hex(j * LAST_COLUMN + col, i * LAST_ROW + row)

    def label(self, h: Hex) -> str:
        """The name of ``h`` on the first board (reading order) that holds it."""
        gcol, grow = LAYOUT.to_offset(h)
        for i, row in enumerate(self.rows):
            for j, name in enumerate(row):
                col, r = gcol - j * LAST_COLUMN, grow - i * LAST_ROW
                if 0 <= col <= LAST_COLUMN and r in rows_of(col):
                    return f"{name}{HEXROWS[col]}{r}"
        raise InputError(f"hex {h} is on none of the boards in play")

    def contains(self, h: Hex) -> bool:
        try:
            self.label(h)
        except InputError:
            return False
        return True

    # -- geometry -----------------------------------------------------------
    def _hex(self, h: Hex | str) -> Hex:
        return self.parse(h) if isinstance(h, str) else h

    def adjacent(self, a: Hex | str, b: Hex | str) -> bool:
        return self._hex(a).is_adjacent(self._hex(b))

    def distance(self, a: Hex | str, b: Hex | str) -> int:
        """Range in hexes."""
        return self._hex(a).distance(self._hex(b))

    def neighbours(self, h: Hex | str) -> tuple[Hex, ...]:
        """The adjacent hexes that are on the boards in play."""
        return tuple(n for n in self._hex(h).neighbours() if self.contains(n))


def components(hexes: Iterable[Hex]) -> list[set[Hex]]:
    """The hexes grouped into sets joined through adjacent hexes of the set
    (one set = contiguous)."""
    todo = set(hexes)
    groups: list[set[Hex]] = []
    while todo:
        start = todo.pop()
        group, frontier = {start}, [start]
        while frontier:
            h = frontier.pop()
            for n in h.neighbours():
                if n in todo:
                    todo.discard(n)
                    group.add(n)
                    frontier.append(n)
        groups.append(group)
    return groups


def sorted_labels(board: BoardConfig, hexes: Sequence[Hex] | set[Hex]) -> list[str]:
    """Labels in board order (hexrow, then number) for messages."""
    return [board.label(h) for h in sorted(hexes, key=lambda h: LAYOUT.to_offset(h))]
