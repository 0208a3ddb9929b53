"""The board in a terminal: a hex grid drawn as text, stacks keyed by letter.

Flat-topped layouts (``-q``) are drawn as a honeycomb, two lines a hex::

     _____       _____
    /0501~\\_____/0701:\\      hex number, then the terrain's symbol
    \\[a]3!/0601~\\_(b)_/      the stack in the hex: [a] or (b)...
    /0502~\\_____/0702.\\

Pointy-topped layouts (``-r``) as bricks, every other row half a hex to the
right, so that neighbours touch as on the printed map.

Each stack gets a key (``a``-``z``, then ``A``-``Z``, then two letters) and
its contents are listed under the map with their full ids, so that the map
stays readable at 80 columns.  The brackets round the key tell the sides
apart without colour (mail, pipes, ``NO_COLOR``): ``[a]`` the first side,
``(a)`` the second, ``<a>`` and ``|a|`` a third and fourth, ``{a}`` a hex
with markers only (a beachhead).  After the key: the number of units when
more than one, then marks -- ``!`` overstacked, the first letter of a
unit's status marker (``d`` disrupted, ``o`` OOS...), ``?`` concealed,
``+`` markers under the units.  :func:`map_legend` explains every mark drawn.

``stacks`` is what any game's view can give: hex number (or box id) ->
counters, top first, each a mapping with ``label``, ``side`` (absent or
None for a marker such as a beachhead) and optionally ``marker`` (a status
shown on the unit, e.g. ``"disrupted"``) and ``concealed`` (True).  A view
may add ``overstacked`` (hex number -> why, e.g. "functional overstacking
(9.0)") and ``marker_names`` (marker -> what it means, with its rule).

A key is a hex when it starts with a digit (and must then be a hex of the
map); any other key is a **box** drawn beside the map, never parsed as a
hex: one of the map's off-map boxes (landing boxes, a turn track...) or a
holding box the map does not list, such as Ambon's ``"off-map"`` (14.2:
the Second Wave battalions before their sealed note is revealed).  A
holding box is captioned by its key, or by ``box_names`` (box id ->
caption).  The boxes that hold counters are listed under the stacks,
holding boxes first.

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

from pbem.engine.mapdata import GameMap
from pbem.errors import InputError

__all__ = [
    "Box", "Stack", "Stacks", "Window", "boxes_of", "check_stacks", "draw_grid", "ink_for", "is_box", "key_stacks",
    "flow", "map_legend", "position_bits", "unit_status", "render_map", "side_palette", "sides_in", "stack_list", "window_for",
]

Stacks = Mapping[str, Sequence[Mapping[str, Any]]]

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


def sides_in(stacks: Stacks) -> list[str]:
    seen: list[str] = []
    for items in stacks.values():
        for it in items:
            s = it.get("side")
            if s and s not in seen:
                seen.append(s)
    return sorted(seen)


def is_box(gmap: GameMap, where: str) -> bool:
    """True when the key ``where`` of ``stacks`` names a box (one of the
    map's off-map boxes, or a holding box such as ``"off-map"``), False for a
    hex number -- anything starting with a digit, which must be a hex of the
    map (InputError quoting it otherwise)."""
    if not isinstance(where, str) or not where.strip():
        raise InputError(f"stack key {where!r} is neither a hex number nor a box id")
    if where in gmap.boxes or not where[:1].isdigit():
        return True
    gmap.hex(where)
    return False


def check_stacks(gmap: GameMap, stacks: Stacks) -> None:
    """InputError quoting any key of ``stacks`` that starts with a digit but
    is not a hex of the map, or a counter without a label."""
    for where, items in stacks.items():
        is_box(gmap, where)
        for it in items:
            if not isinstance(it, Mapping) or not isinstance(it.get("label"), str):
                raise InputError(f"counter {it!r} in {where!r} has no 'label'")


@dataclass(frozen=True)
class Box:
    """A box drawn beside the map, with the counters in it (top first)."""

    id: str
    caption: str
    items: tuple[Mapping[str, Any], ...]
    listed: bool  # one of the map's off-map boxes; False: a holding box only the view names
    target: str = ""  # the hex number it is aimed at ("" if none)


def boxes_of(gmap: GameMap, stacks: Stacks, box_names: Mapping[str, str] | None = None, *,
             empty: bool = False) -> list[Box]:
    """The boxes to draw: the holding boxes of ``stacks`` (keys that are no
    hex and not on the map's list) in the order of ``stacks``, then the map's
    own boxes in the map's order -- those without counters only when
    ``empty``.  Captions: ``box_names``, else the box's name (a holding box:
    its id)."""
    names = dict(box_names or {})
    found = [Box(where, names.get(where, where), tuple(items), False)
             for where, items in stacks.items() if items and where not in gmap.boxes and is_box(gmap, where)]
    for box in gmap.boxes.values():
        items = tuple(stacks.get(box.id, ()))
        if items or empty:
            target = gmap.label(box.target) if box.target is not None else ""
            found.append(Box(box.id, names.get(box.id, box.name), items, True, target))
    return found


def position_bits(game: str, view: Mapping[str, Any], names: Mapping[str, str] | None = None) -> list[str]:
    """What a board's header says of the position: the game, ``turn N``,
    the phase, ``game over`` or who acts (``names``: side -> name), the VP."""
    names = names or {}
    bits = [game]
    if view.get("turn") is not None:
        bits.append(f"turn {view['turn']}")
    if view.get("phase"):
        bits.append(f"phase {view['phase']}")
    if view.get("over"):
        bits.append("game over")
    elif view.get("active"):
        bits.append(f"{names.get(view['active'], view['active'])} to act")
    if isinstance(view.get("vp"), int):
        bits.append(f"VP {view['vp']:+d}")
    return bits


# --------------------------------------------------------------------------- stacks


Marker = tuple[str, str, str]  # a status marker's mark on the map, its short and its long description


def marker_of(marker: str, marker_names: Mapping[str, Any] | None) -> Marker:
    """``(mark, short, long)`` of a status marker: from ``marker_names``
    (marker -> ``[mark, short, long]``, or a description), else its own
    first letter and name."""
    spec = (marker_names or {}).get(marker)
    if isinstance(spec, (list, tuple)) and len(spec) == 3:
        mark, short, long = (str(x) for x in spec)
        return mark[:1] or marker[:1].lower(), short, long
    words = str(spec) if spec else marker
    return marker[:1].lower(), words, words


def unit_status(unit: Mapping[str, Any], marker_names: Mapping[str, Any] | None) -> list[str]:
    """An order-of-battle entry's status in words: disrupted, OOS, and its
    penalty marker's short name (:func:`marker_of`)."""
    penalty = marker_of(str(unit["status"]), marker_names)[1] if unit.get("status") else ""
    return [s for s in ("disrupted" if unit.get("flipped") else "", "OOS" if unit.get("oos") else "", penalty) if s]


@dataclass(frozen=True)
class Stack:
    """The counters of one hex, with the key that stands for them on the map."""

    where: str
    key: str
    units: tuple[Mapping[str, Any], ...]
    markers: tuple[Mapping[str, Any], ...]
    overstacked: str = ""  # why, from the view ("" when not)
    marks: tuple[tuple[str, str], ...] = ()  # (mark, what it means), most important first

    @property
    def side(self) -> str | None:
        """The top unit's side (None: markers only)."""
        return self.units[0].get("side") if self.units else None


def _marks(units: Sequence[Mapping[str, Any]], markers: Sequence[Mapping[str, Any]], overstacked: str,
           marker_names: Mapping[str, Any] | None) -> tuple[tuple[str, str], ...]:
    """A stack's marks and what each means: overstacked, the units' status
    markers (:func:`marker_of`), concealed, markers under the units."""
    found: dict[str, str] = {}
    if overstacked:
        found["!"] = "overstacked"
    for unit in units:
        if unit.get("marker"):
            mark, _, long = marker_of(str(unit["marker"]), marker_names)
            found.setdefault(mark, long)
    if any(unit.get("concealed") for unit in units):
        found.setdefault("?", "concealed")
    if units and markers:
        found.setdefault("+", "markers under the units")
    return tuple(found.items())


def _key(n: int) -> str:
    if n < len(_KEYS):
        return _KEYS[n]
    n -= len(_KEYS)
    return _KEYS[n // len(_KEYS) % len(_KEYS)] + _KEYS[n % len(_KEYS)]


def key_stacks(gmap: GameMap, stacks: Stacks, overstacked: Mapping[str, str] | None = None,
               marker_names: Mapping[str, Any] | None = None) -> list[Stack]:
    """The stacks in hexes, keyed in hex-number order (column, then row), so
    that a key is found in the list where the hex number sorts."""
    check_stacks(gmap, stacks)
    overstacked = overstacked or {}
    hexes = sorted(where for where, items in stacks.items() if items and not is_box(gmap, where))
    out = []
    for n, where in enumerate(hexes):
        items = stacks[where]
        units = tuple(it for it in items if it.get("side"))
        markers = tuple(it for it in items if not it.get("side"))
        why = str(overstacked.get(where, ""))
        out.append(Stack(where, _key(n), units, markers, why, _marks(units, markers, why, marker_names)))
    return out


def _bracket(stack_side: str | None, sides: Sequence[str]) -> str:
    if stack_side is None:
        return MARKERS_ONLY
    try:
        return BRACKETS[list(sides).index(stack_side) % len(BRACKETS)]
    except ValueError:
        return BRACKETS[-1]


def _tag(stack: Stack, sides: Sequence[str], cell: int) -> str:
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


def draw_grid(gmap: GameMap, stacks: Sequence[Stack], window: Window, sides: Sequence[str],
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


def _unit_words(item: Mapping[str, Any], marker_names: Mapping[str, Any]) -> str:
    """A counter in words: its id and status, or what a marker is."""
    if not item.get("side") and item.get("marker", item["label"]) == item["label"]:
        return marker_of(str(item["label"]), marker_names)[1]
    bits = []
    if item.get("concealed"):
        bits.append("concealed" + (f": {item['identity']}" if item.get("identity") else ""))
    marker = item.get("marker")
    if marker:
        bits.append(marker_of(str(marker), marker_names)[1])
    return str(item["label"]) + (f" {', '.join(bits)}" if bits else "")


def place_names(gmap: GameMap) -> dict[str, str]:
    """Hex number -> the name printed there (key locations, then places)."""
    names = {gmap.label(h): k.name for h, k in gmap.key_locations.items()}
    for name, h in gmap.places.items():
        names.setdefault(gmap.label(h), name)
    return names


def stack_list(gmap: GameMap, stacks: Sequence[Stack], sides: Sequence[str], colours: Mapping[str, str],
               width: int, marker_names: Mapping[str, str] | None = None, only: Iterable[str] | None = None) -> Text:
    """One line a stack: key, hex number (and name), every counter by its
    full id with its status, and why the hex is overstacked.  ``only``: the
    hex numbers drawn; a stack elsewhere says how to see it, or, when more
    than ``ELSEWHERE`` are elsewhere, they are named on one line."""
    marker_names = marker_names or {}
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
        parts = [_unit_words(u, marker_names) for u in stack.units] + [_unit_words(m, marker_names) for m in stack.markers]
        parts = [part + "," for part in parts[:-1]] + parts[-1:]
        if stack.overstacked:
            parts.append(f"-- ! {stack.overstacked}")
        if shown is not None and stack.where not in shown:
            parts.append(f"-- not drawn: --around {stack.where}")
        ink = Style(color=colours[stack.side], bold=True) if stack.side is not None and stack.side in colours else Style(bold=True)
        flow(out, f"{_keyed(stack, sides)} {stack.where}{place}:", parts, width, indent=6, head_style=ink)
    if brief:
        out.append("\n" if lines else "")
        flow(out, f"Elsewhere ({len(off)} stacks; --full draws them):",
              [f"{_keyed(stack, sides)} {stack.where}" for stack in off], width)
    return out


def _keyed(stack: Stack, sides: Sequence[str]) -> str:
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


def _box_lines(gmap: GameMap, stacks: Stacks, sides: Sequence[str], colours: Mapping[str, str],
               box_names: Mapping[str, str] | None, width: int, marker_names: Mapping[str, str]) -> Text:
    out = Text()
    for i, box in enumerate(boxes_of(gmap, stacks, box_names)):
        if i:
            out.append("\n")
        chips = [_unit_words(it, marker_names).join(_bracket(it.get("side"), sides)) for it in box.items]
        styles = [Style(color=colours[it["side"]]) if it.get("side") in colours else None for it in box.items]
        flow(out, f"{box.caption}{f' (-> {box.target})' if box.target else ''}:", chips, width, styles=styles)
    return out


def map_legend(gmap: GameMap, stacks: Sequence[Stack], sides: Sequence[str], colours: Mapping[str, str],
               names: Mapping[str, str], width: int = 80) -> Text:
    """What every glyph and mark on the drawn map means."""
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
    for i, (chip, words, style) in enumerate(chips):
        t.append("  " if i else " ")
        t.append(chip, style=style)
        t.append(f" {words}")
    used: dict[str, str] = {}
    if any(len(stack.units) > 1 for stack in stacks):
        used["2-9"] = "units in the stack"
    for stack in stacks:
        for mark, what in stack.marks:
            used.setdefault(mark, what)
    first, last = ("2-9", "!"), ("?", "+")  # counts and overstacking first, the markers, then these
    order = sorted(used, key=lambda m: (first.index(m) if m in first else 2 + last.index(m) if m in last else 2, m))
    if used:
        t.append("\n")
        flow(t, "Marks:", [f"{mark} {used[mark]}" for mark in order], width, sep="  ")
    return t


def render_map(
    gmap: GameMap,
    stacks: Stacks | None = None,
    *,
    side_colours: Mapping[str, str] | None = None,
    side_names: Mapping[str, str] | None = None,
    window: Window | tuple[str, str] | None = None,
    width: int = 120,
    title: str | None = None,
    legend: bool = True,
    box_names: Mapping[str, str] | None = None,
    overstacked: Mapping[str, str] | None = None,
    marker_names: Mapping[str, str] | None = None,
    focus: Iterable[str] = (),
) -> Group:
    """A rich renderable of ``gmap`` with ``stacks`` on it: the caption
    saying which part is drawn, the grid, the list of stacks drawn, the
    boxes holding counters, and the legend.

    ``window``: a :class:`Window`, or ``("0101", "1010")`` (top-left and
    bottom-right hex numbers); without one, as many columns as fit in
    ``width`` round the ``focus`` hexes.  ``side_colours`` maps side ids to
    ``#rrggbb``; ``box_names`` box ids to captions."""
    stacks = stacks or {}
    keyed = key_stacks(gmap, stacks, overstacked, marker_names)
    sides = list(side_colours or {}) + [s for s in sides_in(stacks) if s not in (side_colours or {})]
    colours = side_palette(sides, side_colours)
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
        parts.append(stack_list(gmap, keyed, sides, colours, width, marker_names, only=drawn))
    boxes = _box_lines(gmap, stacks, sides, colours, box_names, width, marker_names or {})
    if boxes.plain:
        parts.append(boxes)
    if legend:
        parts.append(map_legend(gmap, [s for s in keyed if s.where in drawn], sides, colours, side_names or {}, width))
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
