"""The board in a terminal: a hex grid drawn as text, stacks keyed by letter.

Flat-topped layouts (``-q``) are drawn as a honeycomb, two lines a hex::

     _____       _____
    /0501~\\_____/0701:\\      hex number, then the terrain's symbol
    \\[a]3!/0601~\\_(b)_/      the stack in the hex: [a] or (b)...
    /0502~\\_____/0702.\\

Pointy-topped layouts (``-r``) as bricks, every other row half a hex to the
right, so that neighbours touch as on the printed map.

Each stack gets a key (``a``-``z``, then ``A``-``Z``, then two letters) and
its contents are listed under the map with their full labels, so that the
map stays readable at 80 columns.  The brackets round the key tell the sides
apart without colour (mail, pipes, ``NO_COLOR``): ``[a]`` the first side,
``(a)`` the second, ``<a>`` and ``|a|`` a third and fourth, ``{a}`` a hex
with markers only.  After the key: the number of units when more than one,
then marks -- a flagged hex's mark (:class:`~pbem.engine.boardview.Flag`),
the character of each of the units' marks (the legend's ``glyph``, else the
mark's first letter), ``+`` markers under the units.  :func:`map_legend`
explains every mark drawn, in the words of the board's legend.

What is drawn is a :class:`~pbem.engine.boardview.BoardView`: the game
says what its counters' marks mean; nothing here knows a game.  Its boxes
(the map's own and the holding boxes the map does not list) are listed under
the stacks, those holding counters.

Which part of the map is drawn is a :class:`Window`: :func:`window_for`
picks the columns that fit the width round the hexes to look at (the last
events'), ``around`` a hex with a radius, or the whole map.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from rich.console import Group
from rich.style import Style
from rich.text import Text

from pbem.engine.boardview import BoardView, Counter, glyph_of
from pbem.engine.mapdata import GameMap
from pbem.errors import InputError

__all__ = [
    "Keyed", "Window", "box_caption", "draw_grid", "ink_for", "key_stacks", "flow", "map_legend", "header_line",
    "render_map", "side_palette", "sides_of", "stack_list", "window_for", "words",
]

CELL = 5  # characters inside a hex
_PALETTE = ("#b03a2e", "#2e5fa8", "#3c8d40", "#8e44ad", "#d68910", "#17a589")
_MARKER_BG = "#f4d03f"
BRACKETS = ("[]", "()", "<>", "||")  # by the side's place in the game's list
MARKERS_ONLY = "{}"
_EDGE = Style(color="grey50")
_KEYS = string.ascii_lowercase + string.ascii_uppercase
ELSEWHERE = 5  # stacks off the drawn part listed in full; more are only named


def side_palette(sides: Sequence[str], colours: Mapping[str, str] | None = None) -> dict[str, str]:
    """A colour per side: the given ones, others from a fixed palette in order."""
    colours = dict(colours or {})
    out = {}
    spare = iter(c for c in _PALETTE if c not in colours.values())
    for s in sides:
        out[s] = colours.get(s) or next(spare, "#777777")
    return out


def ink_for(bg: str) -> str:
    """Black or white, whichever reads better on ``bg`` (#rrggbb)."""
    r, g, b = (int(bg[i : i + 2], 16) for i in (1, 3, 5))
    return "black" if (0.299 * r + 0.587 * g + 0.114 * b) > 140 else "white"


def sides_of(board: BoardView) -> list[str]:
    """The board's sides in its order, then any other side a counter names, alphabetically."""
    seen = [s.id for s in board.sides]
    counters = [c for st in board.stacks for c in st.counters] + [c for b in board.boxes for c in b.counters]
    return seen + sorted({c.side for c in counters if c.side and c.side not in seen})


def header_line(board: BoardView, sep: str = " -- ") -> str:
    """What a board's header says of the position: the game, then its header items."""
    return sep.join([board.game, *(item.text() for item in board.header)])


def box_caption(gmap: GameMap, where: str, name: str) -> str:
    """A box's caption: the board's name for it, else the map's, else its id."""
    return name or (gmap.boxes[where].name if where in gmap.boxes else where)


def words(counter: Counter) -> str:
    """A counter in words: its label, then what it is (its tooltip)."""
    return counter.label + (f" {counter.tooltip}" if counter.tooltip else "")


# --------------------------------------------------------------------------- stacks


@dataclass(frozen=True)
class Keyed:
    """The counters of one hex, with the key that stands for them on the map."""

    where: str
    key: str
    units: tuple[Counter, ...]
    markers: tuple[Counter, ...]
    flag: str = ""  # why the hex is flagged ("" when not)
    marks: tuple[tuple[str, str], ...] = ()  # (glyph, what it means), most important first

    @property
    def side(self) -> str | None:
        """The top unit's side (None: markers only)."""
        return self.units[0].side if self.units else None


def _marks(board: BoardView, units: Sequence[Counter], markers: Sequence[Counter],
           flag: tuple[str, str] | None) -> tuple[tuple[str, str], ...]:
    """A stack's marks and what each means: its flag, the units' marks,
    markers under the units."""
    found: dict[str, str] = {}
    if flag is not None:
        mark, why = flag
        entry = board.entry(mark)
        found[glyph_of(board, mark)] = entry.meaning if entry is not None else why
    for unit in units:
        for mark in unit.marks:
            entry = board.entry(mark)
            found.setdefault(glyph_of(board, mark), entry.meaning if entry is not None else mark)
    if units and markers:
        found.setdefault("+", "markers under the units")
    return tuple(found.items())


def _key(n: int) -> str:
    if n < len(_KEYS):
        return _KEYS[n]
    n -= len(_KEYS)
    return _KEYS[n // len(_KEYS) % len(_KEYS)] + _KEYS[n % len(_KEYS)]


def key_stacks(board: BoardView) -> list[Keyed]:
    """The stacks in hexes, keyed in hex-number order (column, then row), so
    that a key is found in the list where the hex number sorts.  InputError
    quoting a stack that is in no hex of the map."""
    assert board.map is not None
    flags = {f.where: (f.mark, f.why) for f in board.flags}
    stacks = sorted((st for st in board.stacks if st.counters), key=lambda st: st.where)
    out = []
    for n, st in enumerate(stacks):
        board.map.hex(st.where)
        units = tuple(c for c in st.counters if c.side)
        markers = tuple(c for c in st.counters if not c.side)
        flag = flags.get(st.where)
        out.append(Keyed(st.where, _key(n), units, markers, flag[1] if flag else "", _marks(board, units, markers, flag)))
    return out


def _bracket(stack_side: str | None, sides: Sequence[str]) -> str:
    if stack_side is None:
        return MARKERS_ONLY
    try:
        return BRACKETS[list(sides).index(stack_side) % len(BRACKETS)]
    except ValueError:
        return BRACKETS[-1]


def _tag(stack: Keyed, sides: Sequence[str], cell: int) -> str:
    """What the hex shows of ``stack``: bracketed key, count, marks (fits ``cell``)."""
    tag = _keyed(stack, sides)
    if len(stack.units) > 1:
        tag += str(len(stack.units)) if len(stack.units) < 10 else "+"
    return (tag + "".join(mark for mark, _ in stack.marks))[:cell]


# --------------------------------------------------------------------------- window


@dataclass(frozen=True)
class Window:
    """The columns and rows drawn, and why."""

    c0: int
    c1: int
    r0: int
    r1: int
    whole: bool  # the whole map
    why: str = ""  # e.g. "round the last events (1509, 1609)"

    def caption(self, gmap: GameMap) -> str:
        lay, (c0, c1), (r0, r1) = gmap.layout, gmap.grid.columns, gmap.grid.rows
        cols = f"columns {self.c0:0{lay.col_digits}d}-{self.c1:0{lay.col_digits}d} of {c0:0{lay.col_digits}d}-{c1:0{lay.col_digits}d}"
        if (self.r0, self.r1) == (r0, r1):
            return f"{cols}, every row"
        return f"{cols}, rows {self.r0:0{lay.row_digits}d}-{self.r1:0{lay.row_digits}d} of {r0:0{lay.row_digits}d}-{r1:0{lay.row_digits}d}"


def _cell_width(gmap: GameMap) -> int:
    return max(CELL, gmap.layout.col_digits + gmap.layout.row_digits + 1)


def columns_that_fit(gmap: GameMap, width: int) -> int:
    step = _cell_width(gmap) + 1
    shift = 0 if gmap.layout.flat_top else step // 2
    return max(1, (width - 1 - shift) // step)


def window_for(gmap: GameMap, width: int, *, focus: Iterable[str] = (), around: str | None = None,
               radius: int | None = None, full: bool = False, why: str = "") -> Window:
    """The part of the map to draw in ``width`` characters.

    ``full``: all of it, whatever the width.  ``around`` (a hex number):
    ``radius`` columns and rows each way (as many columns as fit when no
    radius is given, every row).  Otherwise as many columns as fit, centred
    on the ``focus`` hexes (``why`` says what they are) or, without any, on
    the middle of the map; every row."""
    grid, lay = gmap.grid, gmap.layout
    (c0, c1), (r0, r1) = grid.columns, grid.rows
    if radius is not None and radius < 0:
        raise InputError(f"--radius {radius}: must be 0 or more")
    if full:
        return Window(c0, c1, r0, r1, True, "the whole map")
    fits = columns_that_fit(gmap, width)
    if around is not None:
        gmap.hex(around)  # InputError for a hex off the map
        col, row = lay.split(around)
        why = f"around {around}"
        if radius is not None:
            lo_r, hi_r = max(r0, row - radius), min(r1, row + radius)
            half = min(radius, (fits - 1) // 2)
            return _columns(gmap, col - half, col + half, lo_r, hi_r, why + f", radius {radius}")
        return _centred(gmap, col, fits, why)
    spots = [lay.split(where) for where in focus]
    if spots:
        cols = [c for c, _ in spots]
        return _centred(gmap, (min(cols) + max(cols) + 1) // 2, fits, why)
    return _centred(gmap, (c0 + c1 + 1) // 2, fits, why)


def _centred(gmap: GameMap, col: int, fits: int, why: str) -> Window:
    lo = col - (fits - 1) // 2
    return _columns(gmap, lo, lo + fits - 1, *gmap.grid.rows, why)


def _columns(gmap: GameMap, lo: int, hi: int, r0: int, r1: int, why: str) -> Window:
    """Columns ``lo``-``hi`` (and rows ``r0``-``r1``), slid inside the map."""
    (c0, c1), rows = gmap.grid.columns, gmap.grid.rows
    span = min(hi - lo, c1 - c0)
    lo = max(c0, min(lo, c1 - span))
    return Window(lo, lo + span, r0, r1, (lo, lo + span) == (c0, c1) and (r0, r1) == rows, why)


# --------------------------------------------------------------------------- drawing


class _Canvas:
    """Lines of characters, each with a style (None: plain)."""

    def __init__(self, height: int, width: int):
        self.chars = [[" "] * width for _ in range(height)]
        self.styles: list[list[Style | None]] = [[None] * width for _ in range(height)]

    def put(self, y: int, x: int, text: str, style: Style | None) -> None:
        chars, styles = self.chars[y], self.styles[y]
        for i, ch in enumerate(text):
            chars[x + i] = ch
            styles[x + i] = style

    def lines(self) -> "Lines":
        runs = []
        for chars, styles in zip(self.chars, self.styles, strict=True):
            line, out, start = "".join(chars).rstrip(), [], 0
            for x in range(1, len(line) + 1):
                if x == len(line) or styles[x] is not styles[start]:
                    out.append((line[start:x], styles[start]))
                    start = x
            runs.append(out)
        return Lines(runs)


class Lines:
    """Lines of styled runs, drawn as they are: no wrapping, no markup (a
    grid of thousands of runs costs Text's machinery tens of milliseconds)."""

    def __init__(self, runs: list[list[tuple[str, Style | None]]]):
        self.runs = runs

    def __rich_console__(self, console: Any, options: Any) -> Iterable[Any]:
        from rich.segment import Segment

        line_end = Segment.line()
        for line in self.runs:
            for text, style in line:
                yield Segment(text, style)
            yield line_end

    def __rich_measure__(self, console: Any, options: Any) -> Any:
        from rich.measure import Measurement

        width = max((sum(len(text) for text, _ in line) for line in self.runs), default=0)
        return Measurement(width, width)


def draw_grid(gmap: GameMap, stacks: Sequence[Keyed], window: Window, sides: Sequence[str],
              colours: Mapping[str, str]) -> Lines:
    """The hexes of ``window`` with the stacks' tags, as text with styles."""
    lay = gmap.layout
    cell = _cell_width(gmap)
    step = cell + 1
    flat, odd = lay.flat_top, lay.offset.startswith("odd")
    n_cols, n_rows = window.c1 - window.c0 + 1, window.r1 - window.r0 + 1
    if flat:
        height, width = 2 * n_rows + 2, n_cols * step + 1
    else:
        height, width = 2 * n_rows, n_cols * step + 1 + step // 2
    canvas = _Canvas(height, width)
    by_hex = {stack.where: stack for stack in stacks}
    terrain_style = {name: Style(color=ink_for(t.colour), bgcolor=t.colour) for name, t in gmap.terrain_types.items()}
    side_style: dict[str | None, Style] = {side: Style(color=ink_for(colour), bgcolor=colour, bold=True) for side, colour in colours.items()}
    marker_style = Style(color="black", bgcolor=_MARKER_BG, bold=True)
    fill = "_"  # the hex's lower edge, where no tag covers it
    for col in range(window.c0, window.c1 + 1):
        for row in range(window.r0, window.r1 + 1):
            h = lay.to_hex(col, row)
            if not gmap.contains(h):
                continue
            x, y = (col - window.c0) * step, 2 * (row - window.r0)
            if flat:
                y += 1
                if (col % 2 == 1) == odd:
                    y += 1
                if row == window.r0:
                    canvas.put(y - 1, x + 1, "_" * cell, _EDGE)
                left, right = "/\\", "\\/"
            else:
                if (row % 2 == 1) == odd:
                    x += step // 2
                left, right = "||", "||"
            terrain = gmap.terrain_at(h)
            style = terrain_style[terrain]
            label = gmap.label(h)
            canvas.put(y, x, left[0], _EDGE)
            canvas.put(y, x + 1, f"{label:<{cell - 1}}"[: cell - 1] + gmap.terrain_types[terrain].symbol, style)
            canvas.put(y, x + cell + 1, left[1], _EDGE)
            canvas.put(y + 1, x, right[0], _EDGE)
            canvas.put(y + 1, x + cell + 1, right[1], _EDGE)
            glyph = "*" if h in gmap.key_locations else "#" if h in gmap.towns else ""
            stack = by_hex.get(label)
            if stack is None:
                canvas.put(y + 1, x + 1, glyph.center(cell, fill), style)
                continue
            tag = _tag(stack, sides, cell)
            ink = side_style.get(stack.side, marker_style)  # markers only (side None): the marker's colours
            canvas.put(y + 1, x + 1, tag, ink)
            canvas.put(y + 1, x + 1 + len(tag), (glyph + fill * cell)[: cell - len(tag)], style)
    return canvas.lines()


def place_names(gmap: GameMap) -> dict[str, str]:
    """Hex number -> the name printed there (key locations, then places)."""
    names = {gmap.label(h): k.name for h, k in gmap.key_locations.items()}
    for name, h in gmap.places.items():
        names.setdefault(gmap.label(h), name)
    return names



def stack_list(gmap: GameMap, stacks: Sequence[Keyed], sides: Sequence[str], colours: Mapping[str, str],
               width: int, only: Iterable[str] | None = None) -> Text:
    """One line a stack: key, hex number (and name), every counter in words,
    and why the hex is flagged.  ``only``: the hex numbers drawn; a stack
    elsewhere says how to see it, or, when more than ``ELSEWHERE`` are
    elsewhere, they are named on one line."""
    names = place_names(gmap)
    shown = set(only) if only is not None else None
    off = [stack for stack in stacks if shown is not None and stack.where not in shown]
    brief = len(off) > ELSEWHERE
    out = Text()
    lines = 0
    for stack in stacks:
        if brief and stack in off:
            continue
        if lines:
            out.append("\n")
        lines += 1
        place = f" {names[stack.where]}" if stack.where in names else ""
        parts = [words(c) for c in stack.units + stack.markers]
        parts = [part + "," for part in parts[:-1]] + parts[-1:]
        if stack.flag:
            parts.append(f"-- {stack.marks[0][0]} {stack.flag}")
        if shown is not None and stack.where not in shown:
            parts.append(f"-- not drawn: --around {stack.where}")
        ink = Style(color=colours[stack.side], bold=True) if stack.side is not None and stack.side in colours else Style(bold=True)
        flow(out, f"{_keyed(stack, sides)} {stack.where}{place}:", parts, width, indent=6, head_style=ink)
    if brief:
        out.append("\n" if lines else "")
        flow(out, f"Elsewhere ({len(off)} stacks; --full draws them):",
              [f"{_keyed(stack, sides)} {stack.where}" for stack in off], width)
    return out


def _keyed(stack: Keyed, sides: Sequence[str]) -> str:
    bracket = _bracket(stack.side, sides)  # two characters
    return f"{bracket[0]}{stack.key}{bracket[1]}"


def flow(out: Text, head: str, chips: Sequence[str], width: int, *, sep: str = " ", indent: int = 2,
          styles: Sequence[Style | None] = (), head_style: Style | None = None) -> None:
    """``head`` (bold), then ``chips`` separated by ``sep``, wrapped to ``width``."""
    out.append(head, head_style or Style(bold=True))
    used = len(head)
    for i, chip in enumerate(chips):
        gap = " " if i == 0 else sep
        if used + len(gap) + len(chip) > width and used > len(head):
            out.append("\n" + " " * indent)
            used, gap = indent, ""
        out.append(gap)
        out.append(chip, styles[i] if i < len(styles) else None)
        used += len(gap) + len(chip)



def _box_lines(board: BoardView, sides: Sequence[str], colours: Mapping[str, str], width: int) -> Text:
    """The boxes that hold counters, one a line: caption (and the hex it
    is aimed at), then each counter in words, bracketed by its side."""
    assert board.map is not None
    gmap = board.map
    out = Text()
    for box in (b for b in board.boxes if b.counters):
        if out.plain:
            out.append("\n")
        chips = [words(c).join(_bracket(c.side, sides)) for c in box.counters]
        styles = [Style(color=colours[c.side]) if c.side is not None and c.side in colours else None for c in box.counters]
        target = gmap.boxes[box.where].target if box.where in gmap.boxes else None
        aimed = f" (-> {gmap.label(target)})" if target is not None else ""
        flow(out, f"{box_caption(gmap, box.where, box.name)}{aimed}:", chips, width, styles=styles)
    return out


def map_legend(board: BoardView, stacks: Sequence[Keyed], sides: Sequence[str], colours: Mapping[str, str],
               width: int = 80) -> Text:
    """What every glyph and mark on the drawn map means."""
    assert board.map is not None
    gmap, names = board.map, board.side_names()
    t = Text()
    t.append("Terrain:", style="bold")
    for i, tt in enumerate(gmap.terrain_types.values()):
        t.append("  " if i else " ")
        t.append(f" {tt.symbol} ", style=Style(color=ink_for(tt.colour), bgcolor=tt.colour))
        t.append(f" {tt.label}")
    t.append("\nHexes:  ", style="bold")
    t.append(" * key location  # town")
    t.append("\nSides:  ", style="bold")
    chips = [(f"{_bracket(side, sides)[0]}a{_bracket(side, sides)[1]}", names.get(side, side),
              Style(color=ink_for(colours[side]), bgcolor=colours[side], bold=True) if side in colours else None)
             for side in sides]
    if any(stack.side is None for stack in stacks):
        chips.append(("{a}", "markers only", Style(color="black", bgcolor=_MARKER_BG, bold=True)))
    for i, (chip, what, style) in enumerate(chips):
        t.append("  " if i else " ")
        t.append(chip, style=style)
        t.append(f" {what}")
    used: dict[str, str] = {}
    if any(len(stack.units) > 1 for stack in stacks):
        used["2-9"] = "units in the stack"
    flagged = {glyph_of(board, f.mark) for f in board.flags}
    for stack in stacks:
        for mark, what in stack.marks:
            used.setdefault(mark, what)
    order = sorted(used, key=lambda m: (0 if m == "2-9" else 1 if m in flagged else 3 if m == "+" else 2, m))
    if used:
        t.append("\n")
        flow(t, "Marks:", [f"{mark} {used[mark]}" for mark in order], width, sep="  ")
    return t


def render_map(
    board: BoardView,
    *,
    window: Window | tuple[str, str] | None = None,
    width: int = 120,
    title: str | None = None,
    legend: bool = True,
    focus: Iterable[str] = (),
) -> Group:
    """A rich renderable of ``board``'s map with its stacks on it: the
    caption saying which part is drawn, the grid, the list of stacks drawn,
    the boxes holding counters, and the legend.

    ``window``: a :class:`Window`, or ``("0101", "1010")`` (top-left and
    bottom-right hex numbers); without one, as many columns as fit in
    ``width`` round the ``focus`` hexes."""
    if board.map is None:
        raise InputError(f"the {board.game} board has no map to draw")
    gmap = board.map
    keyed = key_stacks(board)
    sides = sides_of(board)
    colours = side_palette(sides, board.side_colours())
    if isinstance(window, tuple):
        window = _window_between(gmap, *window)
    elif window is None:
        window = window_for(gmap, width, focus=focus)
    parts: list[Any] = []
    head = title or gmap.name
    if head:
        parts.append(Text(head, style="bold"))
    if not window.whole:
        caption = f"showing {window.caption(gmap)}" + (f", {window.why}" if window.why else "") + "."
        if len(caption) > width and window.why:  # the reason on a line of its own
            caption = f"showing {window.caption(gmap)},\n{window.why}."
        parts.append(Text(caption + "\nThe whole map: --full; another part: --around HEX [--radius N].", style="italic"))
    parts.append(draw_grid(gmap, keyed, window, sides, colours))
    drawn = [s.where for s in keyed if _inside(gmap, window, s.where)]
    if keyed:
        parts.append(stack_list(gmap, keyed, sides, colours, width, only=drawn))
    boxes = _box_lines(board, sides, colours, width)
    if boxes.plain:
        parts.append(boxes)
    if legend:
        parts.append(map_legend(board, [s for s in keyed if s.where in drawn], sides, colours, width))
    return Group(*parts)


def _inside(gmap: GameMap, window: Window, where: str) -> bool:
    col, row = gmap.layout.split(where)
    return window.c0 <= col <= window.c1 and window.r0 <= row <= window.r1


def _window_between(gmap: GameMap, top_left: str, bottom_right: str) -> Window:
    lay = gmap.layout
    for w in (top_left, bottom_right):
        gmap.hex(w)
    (c0, r0), (c1, r1) = lay.split(top_left), lay.split(bottom_right)
    if c0 > c1 or r0 > r1:
        raise InputError(f"window {(top_left, bottom_right)!r} must go from the top-left to the bottom-right hex")
    (g0, g1), (h0, h1) = gmap.grid.columns, gmap.grid.rows
    return Window(c0, c1, r0, r1, (c0, c1, r0, r1) == (g0, g1, h0, h1))
