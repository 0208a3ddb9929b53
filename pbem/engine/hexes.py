"""Hex grids: cube coordinates inside, wargame ``CCRR`` numbering at the edges.

Inside the engine a hex is a :class:`Hex` in cube coordinates ``(q, r, s)``
with ``q + r + s == 0``; every algorithm (neighbours, distance, ring, range,
line, paths) works on those.  Printed maps number their hexes ``CCRR``
(column, row) on an *offset* grid; a :class:`Layout` converts between the two,
and a :class:`Grid` adds the map's extent.  The four offset layouts:

``odd-q``   flat-topped hexes in vertical columns, odd columns shoved down
            (Ambon: 1609 touches 1508 1509 1608 1610 1708 1709)
``even-q``  flat-topped, even columns shoved down
``odd-r``   pointy-topped hexes in horizontal rows, odd rows shoved right
``even-r``  pointy-topped, even rows shoved right

Parity is that of the *printed* column or row number, so ``"1609"`` is column
16 (even) whatever the first column of the map is.

>>> grid = Grid(Layout("odd-q"), columns=(1, 20), rows=(1, 20))
>>> sorted(grid.label(h) for h in grid.parse("1609").neighbours())
['1508', '1509', '1608', '1610', '1708', '1709']
>>> grid.parse("1507").distance(grid.parse("1609"))
2
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterator

from pbem.errors import InputError

__all__ = [
    "DIRECTIONS",
    "OFFSET_LAYOUTS",
    "Grid",
    "Hex",
    "Hexside",
    "Layout",
    "distance",
    "hex_range",
    "line",
    "ring",
]

OFFSET_LAYOUTS: tuple[str, ...] = ("odd-q", "even-q", "odd-r", "even-r")


# --------------------------------------------------------------------------- Hex


@dataclass(frozen=True, order=True)
class Hex:
    """One hex in cube coordinates; ``q + r + s`` must be 0.

    Hexes order by ``(q, r, s)``, which the path finder uses to break ties
    deterministically.  ``Hex.axial(q, r)`` builds one from two coordinates.
    """

    q: int
    r: int
    s: int

    def __post_init__(self) -> None:
        q, r, s = self.q, self.r, self.s
        if type(q) is int and type(r) is int and type(s) is int and q + r + s == 0:
            return  # the fast path: hex arithmetic makes millions of these
        for name in ("q", "r", "s"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise InputError(f"cube coordinate {name}={value!r} is not an integer")
        if self.q + self.r + self.s != 0:
            raise InputError(
                f"cube coordinates ({self.q}, {self.r}, {self.s}) do not sum to 0"
            )

    @classmethod
    def axial(cls, q: int, r: int) -> Hex:
        """The hex at axial ``(q, r)``; ``s`` follows."""
        return cls(q, r, -q - r)

    # -- arithmetic -------------------------------------------------------
    def __add__(self, other: Hex) -> Hex:
        return Hex(self.q + other.q, self.r + other.r, self.s + other.s)

    def __sub__(self, other: Hex) -> Hex:
        return Hex(self.q - other.q, self.r - other.r, self.s - other.s)

    def scale(self, k: int) -> Hex:
        """This vector ``k`` times."""
        return Hex(self.q * k, self.r * k, self.s * k)

    # -- adjacency --------------------------------------------------------
    def neighbour(self, direction: int) -> Hex:
        """The adjacent hex in ``direction`` (0..5, see :data:`DIRECTIONS`)."""
        return self + DIRECTIONS[direction % 6]

    def neighbours(self) -> tuple[Hex, ...]:
        """The six adjacent hexes, in direction order 0..5."""
        return tuple(self + d for d in DIRECTIONS)

    def is_adjacent(self, other: Hex) -> bool:
        """True when ``other`` shares a hexside with this hex."""
        return abs(self.q - other.q) + abs(self.r - other.r) + abs(self.s - other.s) == 2

    def direction_to(self, other: Hex) -> int:
        """The direction (0..5) of adjacent hex ``other``; InputError if not adjacent."""
        try:
            return DIRECTIONS.index(other - self)
        except ValueError:
            raise InputError(f"{other} is not adjacent to {self}") from None

    # -- metric -----------------------------------------------------------
    def length(self) -> int:
        """Distance from the origin."""
        return (abs(self.q) + abs(self.r) + abs(self.s)) // 2

    def distance(self, other: Hex) -> int:
        """Number of hex steps between this hex and ``other``."""
        return (abs(self.q - other.q) + abs(self.r - other.r) + abs(self.s - other.s)) // 2

    def ring(self, radius: int) -> tuple[Hex, ...]:
        """The hexes exactly ``radius`` away, see :func:`ring`."""
        return ring(self, radius)

    def within(self, radius: int) -> tuple[Hex, ...]:
        """The hexes at most ``radius`` away, see :func:`hex_range`."""
        return hex_range(self, radius)

    def line_to(self, other: Hex) -> tuple[Hex, ...]:
        """The hexes on the straight line to ``other``, see :func:`line`."""
        return line(self, other)

    def __str__(self) -> str:
        return f"({self.q}, {self.r}, {self.s})"


#: The six unit vectors, counter-clockwise from "east" in axial terms.  For
#: flat-topped layouts direction 0 is lower-right, 1 upper-right, 2 up, 3
#: upper-left, 4 lower-left, 5 down.
DIRECTIONS: tuple[Hex, ...] = (
    Hex(1, 0, -1),
    Hex(1, -1, 0),
    Hex(0, -1, 1),
    Hex(-1, 0, 1),
    Hex(-1, 1, 0),
    Hex(0, 1, -1),
)


def distance(a: Hex, b: Hex) -> int:
    """Number of hex steps from ``a`` to ``b``."""
    return a.distance(b)


def ring(center: Hex, radius: int) -> tuple[Hex, ...]:
    """The ``6 * radius`` hexes exactly ``radius`` from ``center`` (radius 0: the
    center itself).  Starts at ``center + radius * DIRECTIONS[4]`` and walks
    counter-clockwise, so the order is fixed."""
    if radius < 0:
        raise InputError(f"ring radius {radius} is negative")
    if radius == 0:
        return (center,)
    out: list[Hex] = []
    h = center + DIRECTIONS[4].scale(radius)
    for direction in range(6):
        for _ in range(radius):
            out.append(h)
            h = h.neighbour(direction)
    return tuple(out)


def hex_range(center: Hex, radius: int) -> tuple[Hex, ...]:
    """Every hex at most ``radius`` from ``center``, sorted (``1 + 3r(r+1)`` of them)."""
    if radius < 0:
        raise InputError(f"range radius {radius} is negative")
    out = []
    for dq in range(-radius, radius + 1):
        for dr in range(max(-radius, -dq - radius), min(radius, -dq + radius) + 1):
            out.append(Hex(center.q + dq, center.r + dr, center.s - dq - dr))
    return tuple(sorted(out))


def _round(q: float, r: float, s: float) -> Hex:
    """The hex containing fractional cube point ``(q, r, s)``."""
    rq, rr, rs = round(q), round(r), round(s)
    dq, dr, ds = abs(rq - q), abs(rr - r), abs(rs - s)
    if dq > dr and dq > ds:
        rq = -rr - rs
    elif dr > ds:
        rr = -rq - rs
    else:
        rs = -rq - rr
    return Hex(int(rq), int(rr), int(rs))


# A line running exactly along a hexside would hit ties; nudging both ends by
# the same tiny vector breaks them the same way every time.
_NUDGE = (1e-6, 2e-6, -3e-6)


def line(a: Hex, b: Hex) -> tuple[Hex, ...]:
    """The ``distance + 1`` hexes a straight line from ``a``'s centre to ``b``'s
    passes through, ``a`` first and ``b`` last.

    Where the line runs exactly along hexsides both ends are nudged by the same
    fixed epsilon, so the result is deterministic (and the line from ``b`` to
    ``a`` is not necessarily the reverse)."""
    n = a.distance(b)
    aq, ar, as_ = a.q + _NUDGE[0], a.r + _NUDGE[1], a.s + _NUDGE[2]
    bq, br, bs = b.q + _NUDGE[0], b.r + _NUDGE[1], b.s + _NUDGE[2]
    if n == 0:
        return (a,)
    out = []
    for i in range(n + 1):
        t = i / n
        out.append(_round(aq + (bq - aq) * t, ar + (br - ar) * t, as_ + (bs - as_) * t))
    return tuple(out)


# --------------------------------------------------------------------------- Hexside


@dataclass(frozen=True, order=True, init=False)
class Hexside:
    """The edge between two adjacent hexes: an unordered pair.

    ``Hexside(a, b) == Hexside(b, a)``; ``a`` is always the smaller hex.
    Constructing one from hexes that are not adjacent raises
    :class:`~pbem.errors.InputError`.
    """

    a: Hex
    b: Hex

    def __init__(self, a: Hex, b: Hex):
        if not a.is_adjacent(b):
            raise InputError(f"{a} and {b} are not adjacent: no hexside between them")
        lo, hi = (a, b) if a < b else (b, a)
        object.__setattr__(self, "a", lo)
        object.__setattr__(self, "b", hi)

    @property
    def hexes(self) -> tuple[Hex, Hex]:
        return (self.a, self.b)

    def other(self, h: Hex) -> Hex:
        """The hex across this hexside from ``h``."""
        if h == self.a:
            return self.b
        if h == self.b:
            return self.a
        raise InputError(f"{h} is not on hexside {self}")

    def __contains__(self, h: object) -> bool:
        return h == self.a or h == self.b

    def __str__(self) -> str:
        return f"{self.a}|{self.b}"


# --------------------------------------------------------------------------- numbering


_SQRT3 = math.sqrt(3.0)


@dataclass(frozen=True)
class Layout:
    """How ``CCRR`` numbers map to hexes: the offset kind and digit widths.

    ``Layout("odd-q")`` is the common wargame layout.  Converts in both
    directions for any hex whose column and row fit the digit widths; a
    :class:`Grid` adds the map's extent.
    """

    offset: str = "odd-q"
    col_digits: int = 2
    row_digits: int = 2

    def __post_init__(self) -> None:
        if self.offset not in OFFSET_LAYOUTS:
            raise InputError(
                f"hex layout {self.offset!r} is not one of {', '.join(OFFSET_LAYOUTS)}"
            )
        if self.col_digits < 1 or self.row_digits < 1:
            raise InputError("hex numbers need at least one digit for column and row")

    @property
    def flat_top(self) -> bool:
        """True for the column layouts (``-q``): flat-topped hexes."""
        return self.offset.endswith("-q")

    @property
    def _odd(self) -> bool:
        return self.offset.startswith("odd")

    # -- offset <-> cube --------------------------------------------------
    def to_hex(self, col: int, row: int) -> Hex:
        """The hex at offset ``(col, row)``."""
        offset = self.offset
        if offset.endswith("-q"):  # flat_top
            shove = (col - (col & 1)) // 2 if offset.startswith("odd") else (col + (col & 1)) // 2
            return Hex(col, row - shove, shove - col - row)
        shove = (row - (row & 1)) // 2 if offset.startswith("odd") else (row + (row & 1)) // 2
        return Hex(col - shove, row, shove - col - row)

    def to_offset(self, h: Hex) -> tuple[int, int]:
        """The offset ``(col, row)`` of ``h``."""
        if self.flat_top:
            q = h.q
            shove = (q - (q & 1)) // 2 if self._odd else (q + (q & 1)) // 2
            return q, h.r + shove
        r = h.r
        shove = (r - (r & 1)) // 2 if self._odd else (r + (r & 1)) // 2
        return h.q + shove, r

    # -- text <-> hex -----------------------------------------------------
    def example(self) -> str:
        """A well-formed number, for error messages (``"0101"``)."""
        return "0" * (self.col_digits - 1) + "1" + "0" * (self.row_digits - 1) + "1"

    def split(self, text: str) -> tuple[int, int]:
        """``"1609"`` -> ``(16, 9)``; InputError quoting ``text`` otherwise."""
        if not isinstance(text, str):
            raise InputError(f"hex number {text!r} is not a string like {self.example()!r}")
        digits = text.strip()
        if not (len(digits) == self.col_digits + self.row_digits and digits.isascii() and digits.isdigit()):
            raise InputError(
                f"hex number {text!r} is not CCRR "
                f"({self.col_digits + self.row_digits} digits, e.g. {self.example()!r})"
            )
        return int(digits[: self.col_digits]), int(digits[self.col_digits :])

    def parse(self, text: str) -> Hex:
        """The hex numbered ``text`` (syntax only, no extent check)."""
        return self.to_hex(*self.split(text))

    def number(self, col: int, row: int) -> str:
        """``(16, 9)`` -> ``"1609"``."""
        if not (0 <= col < 10**self.col_digits and 0 <= row < 10**self.row_digits):
            raise InputError(f"column {col}, row {row} cannot be written as a hex number")
        return f"{col:0{self.col_digits}d}{row:0{self.row_digits}d}"

    def label(self, h: Hex) -> str:
        """The ``CCRR`` number of ``h``."""
        return self.number(*self.to_offset(h))

    # -- geometry (for pictures) ------------------------------------------
    def center(self, h: Hex, size: float) -> tuple[float, float]:
        """Pixel centre of ``h`` for hexes of circumradius ``size`` (y down)."""
        if self.flat_top:
            return size * 1.5 * h.q, size * _SQRT3 * (h.r + h.q / 2)
        return size * _SQRT3 * (h.q + h.r / 2), size * 1.5 * h.r

    def corners(self, h: Hex, size: float) -> tuple[tuple[float, float], ...]:
        """The six pixel corners of ``h``."""
        cx, cy = self.center(h, size)
        start = 0.0 if self.flat_top else 30.0
        return tuple(
            (
                cx + size * math.cos(math.radians(start + 60 * i)),
                cy + size * math.sin(math.radians(start + 60 * i)),
            )
            for i in range(6)
        )

    def edge(self, side: Hexside, size: float) -> tuple[tuple[float, float], tuple[float, float]]:
        """The two pixel end points of the edge ``side`` draws along."""
        bx, by = self.center(side.b, size)
        corners = sorted(self.corners(side.a, size), key=lambda p: (p[0] - bx) ** 2 + (p[1] - by) ** 2)
        return corners[0], corners[1]


@dataclass(frozen=True)
class Grid:
    """A :class:`Layout` plus the map's extent: first and last column and row.

    ``Grid(Layout("odd-q"), columns=(1, 20), rows=(1, 20))``.  ``parse``
    checks both the syntax and that the hex is on the map.
    """

    layout: Layout
    columns: tuple[int, int]
    rows: tuple[int, int]

    def __post_init__(self) -> None:
        (c0, c1), (r0, r1) = self.columns, self.rows
        if c0 > c1 or r0 > r1:
            raise InputError(f"empty grid: columns {self.columns}, rows {self.rows}")
        # both corners must be writable as numbers
        self.layout.number(c0, r0)
        self.layout.number(c1, r1)

    @property
    def width(self) -> int:
        return self.columns[1] - self.columns[0] + 1

    @property
    def height(self) -> int:
        return self.rows[1] - self.rows[0] + 1

    def extent(self) -> str:
        """``"columns 01-20, rows 01-20"`` for messages."""
        lay = self.layout
        c = f"{self.columns[0]:0{lay.col_digits}d}-{self.columns[1]:0{lay.col_digits}d}"
        r = f"{self.rows[0]:0{lay.row_digits}d}-{self.rows[1]:0{lay.row_digits}d}"
        return f"columns {c}, rows {r}"

    def contains(self, h: Hex) -> bool:
        """True when ``h`` is on the map."""
        col, row = self.layout.to_offset(h)
        return self.columns[0] <= col <= self.columns[1] and self.rows[0] <= row <= self.rows[1]

    __contains__ = contains

    def parse(self, text: str) -> Hex:
        """The hex numbered ``text``; InputError quoting it when malformed or off the map."""
        col, row = self.layout.split(text)
        if not (self.columns[0] <= col <= self.columns[1] and self.rows[0] <= row <= self.rows[1]):
            raise InputError(f"hex {text!r} is off the map ({self.extent()})")
        return self.layout.to_hex(col, row)

    def label(self, h: Hex) -> str:
        """The ``CCRR`` number of ``h`` (which may lie off the map)."""
        return self.layout.label(h)

    def hexes(self) -> Iterator[Hex]:
        """Every hex on the map, column by column, row by row."""
        for col in range(self.columns[0], self.columns[1] + 1):
            for row in range(self.rows[0], self.rows[1] + 1):
                yield self.layout.to_hex(col, row)

    def neighbours(self, h: Hex) -> tuple[Hex, ...]:
        """The neighbours of ``h`` that are on the map."""
        return tuple(n for n in h.neighbours() if self.contains(n))

    def hexside(self, a: str, b: str) -> Hexside:
        """The hexside between hexes numbered ``a`` and ``b``."""
        ha, hb = self.parse(a), self.parse(b)
        if not ha.is_adjacent(hb):
            raise InputError(f"hexes {a!r} and {b!r} are not adjacent: no hexside between them")
        return Hexside(ha, hb)
