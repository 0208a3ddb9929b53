"""The board in a terminal: a hex map drawn with rich.

Each hex is a cell two lines high and five characters wide::

    1609f      hex number, then a glyph: * key location, # town,
    3.Ad2      otherwise the terrain symbol; below, the stack

The stack line shows the top unit's label (3 characters), the first letter
of its status marker (``d`` for disrupted) and how many units share the hex,
on the owning side's colour.  A hex holding only markers shows the first
marker's label; a ``!`` in the glyph slot means markers lie under units.
Flat-topped layouts (``-q``) shift every other column half a cell down,
pointy-topped ones (``-r``) every other row half a cell right, so neighbours
touch as on the printed map.  Twenty columns fit in 120 characters; larger
maps are panned with ``window``.

``stacks`` is what any game's view can give: hex number (or box id) ->
counters, top first, each a mapping with ``label``, ``side`` (absent or
None for a marker such as a beachhead) and optionally ``marker`` (a status
shown on the unit, e.g. ``"disrupted"``).

A key is a hex when it starts with a digit (and must then be a hex of the
map); any other key is a **box** drawn beside the map, never parsed as a
hex: one of the map's off-map boxes (landing boxes, a turn track...) or a
holding box the map does not list, such as Ambon's ``"off-map"`` (14.2:
the Second Wave battalions before their sealed note is revealed).  A
holding box is captioned by its key, or by ``box_names`` (box id ->
caption; a view may give one as ``view["box_names"]``).  The terminal lists
every box that holds counters below the legend, holding boxes first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from rich.console import Group
from rich.style import Style
from rich.text import Text

from pbem.engine.hexes import Hex
from pbem.engine.mapdata import GameMap
from pbem.errors import InputError

__all__ = ["Box", "Stacks", "boxes_of", "check_stacks", "ink_for", "is_box", "render_map", "side_palette", "sides_in"]

Stacks = Mapping[str, Sequence[Mapping[str, Any]]]

CELL = 5  # characters of content per hex
GAP = 1  # blank column between cells
_PALETTE = ("#b03a2e", "#2e5fa8", "#3c8d40", "#8e44ad", "#d68910", "#17a589")
_MARKER_BG = "#f4d03f"


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


def _cell_width(gmap: GameMap) -> int:
    return max(CELL, gmap.layout.col_digits + gmap.layout.row_digits + 1)


def _window(gmap: GameMap, window: tuple[str, str] | None, width: int) -> tuple[int, int, int, int, bool]:
    """First/last column and row to draw, and whether the map was cut to fit."""
    grid = gmap.grid
    if window is not None:
        (c0, r0), (c1, r1) = (grid.layout.split(w) for w in window)
        for w in window:
            grid.parse(w)
        if c0 > c1 or r0 > r1:
            raise InputError(f"window {window!r} must go from the top-left to the bottom-right hex")
    else:
        (c0, c1), (r0, r1) = grid.columns, grid.rows
    step = _cell_width(gmap) + GAP
    shift = 0 if gmap.layout.flat_top else step // 2
    fits = max(1, (width - shift + GAP) // step)
    cut = c1 - c0 + 1 > fits
    if cut:
        c1 = c0 + fits - 1
    return c0, c1, r0, r1, cut


def render_map(
    gmap: GameMap,
    stacks: Stacks | None = None,
    *,
    side_colours: Mapping[str, str] | None = None,
    side_names: Mapping[str, str] | None = None,
    window: tuple[str, str] | None = None,
    width: int = 120,
    title: str | None = None,
    legend: bool = True,
    box_names: Mapping[str, str] | None = None,
) -> Group:
    """A rich renderable of ``gmap`` with ``stacks`` on it, and a legend
    with the boxes that hold counters.

    ``window = ("0101", "1010")`` draws only that rectangle (top-left and
    bottom-right hex numbers); without it the whole map is drawn when it fits
    in ``width`` characters, else as many columns as fit, and the caption says
    which.  ``side_colours`` maps side ids to ``#rrggbb``; ``box_names`` box
    ids to captions."""
    stacks = stacks or {}
    check_stacks(gmap, stacks)
    lay = gmap.layout
    c0, c1, r0, r1, cut = _window(gmap, window, width)
    sides = list(side_colours or {}) + [s for s in sides_in(stacks) if s not in (side_colours or {})]
    colours = side_palette(sides, side_colours)

    flat = lay.flat_top
    odd = lay.offset.startswith("odd")
    cell = _cell_width(gmap)
    step = cell + GAP
    n_cols, n_rows = c1 - c0 + 1, r1 - r0 + 1
    height = 2 * n_rows + (1 if flat else 0)
    line_width = n_cols * step - GAP + (0 if flat else step // 2)
    # a canvas of (char, style) cells
    canvas: list[list[tuple[str, Style | None]]] = [[(" ", None)] * line_width for _ in range(height)]

    def put(y: int, x: int, text: str, style: Style) -> None:
        for i, ch in enumerate(text):
            canvas[y][x + i] = (ch, style)

    for col in range(c0, c1 + 1):
        for row in range(r0, r1 + 1):
            h = lay.to_hex(col, row)
            if not gmap.contains(h):
                continue
            x = (col - c0) * step
            y = 2 * (row - r0)
            if flat and (col % 2 == 1) == odd:
                y += 1
            if not flat and (row % 2 == 1) == odd:
                x += step // 2
            _draw_cell(gmap, h, stacks.get(gmap.label(h), ()), colours, put, y, x, cell)

    body = Text(no_wrap=True, overflow="crop")
    for y, line in enumerate(canvas):
        if y:
            body.append("\n")
        run, run_style = "", None
        for ch, style in line:
            if style is not run_style and run:
                body.append(run, run_style or "")
                run = ""
            run_style = style
            run += ch
        body.append(run.rstrip() if run_style is None else run, run_style or "")

    parts: list[Any] = []
    head = title or gmap.name
    if head:
        parts.append(Text(head, style="bold"))
    shown = f"{lay.number(c0, r0)}-{lay.number(c1, r1)}"
    if cut or window is not None:
        parts.append(Text(f"showing {shown} of {gmap.grid.extent()}" + ("; pan with window=" if cut else ""), style="italic"))
    parts.append(body)
    if legend:
        parts.append(_legend(gmap, stacks, colours, side_names or {}, box_names, width))
    return Group(*parts)


def _draw_cell(
    gmap: GameMap, h: Hex, items: Sequence[Mapping[str, Any]], colours: Mapping[str, str], put, y: int, x: int, cell: int
) -> None:
    terrain = gmap.terrain_types[gmap.terrain_at(h)]
    bg = terrain.colour
    base = Style(color=ink_for(bg), bgcolor=bg)
    units = [it for it in items if it.get("side")]
    markers = [it for it in items if not it.get("side")]
    if units and markers:
        glyph = "!"
    elif h in gmap.key_locations:
        glyph = "*"
    elif h in gmap.towns:
        glyph = "#"
    else:
        glyph = terrain.symbol
    put(y, x, gmap.label(h), base)
    put(y, x + cell - 1, glyph, base + Style(bold=True))
    if units:
        top = units[0]
        side_bg = colours.get(top["side"], "#777777")
        marker = str(top.get("marker") or "")[:1].lower() or " "
        count = len(units)
        count_ch = " " if count == 1 else (str(count) if count < 10 else "+")
        text = f"{str(top['label'])[: cell - 2]:<{cell - 2}}{marker}{count_ch}"
        put(y + 1, x, text, Style(color=ink_for(side_bg), bgcolor=side_bg, bold=True))
    elif markers:
        text = f"{str(markers[0]['label'])[:cell]:<{cell}}"
        put(y + 1, x, text, Style(color="black", bgcolor=_MARKER_BG, italic=True))
    else:
        put(y + 1, x, " " * cell, base)


def _legend(gmap: GameMap, stacks: Stacks, colours: Mapping[str, str], names: Mapping[str, str],
            box_names: Mapping[str, str] | None = None, width: int = 120) -> Text:
    t = Text()
    t.append("Terrain: ", style="bold")
    for i, tt in enumerate(gmap.terrain_types.values()):
        if i:
            t.append("  ")
        t.append(f" {tt.symbol} ", style=Style(color=ink_for(tt.colour), bgcolor=tt.colour))
        t.append(f" {tt.label}")
    t.append("\nHexes:   ", style="bold")
    t.append("* key location  # town  ! markers under units")
    if colours:
        t.append("\nSides:   ", style="bold")
        for i, (side, colour) in enumerate(colours.items()):
            if i:
                t.append("  ")
            t.append("   ", style=Style(bgcolor=colour))
            t.append(f" {names.get(side, side)}")
    t.append("\nStacks:  ", style="bold")
    t.append("below each hex number: top unit, first letter of its marker, number of units")
    for box in boxes_of(gmap, stacks, box_names):  # a line each, its counters wrapped to ``width``
        head = f"{box.caption}{f' (-> {box.target})' if box.target else ''}: "
        t.append(f"\n{head}", style="bold")
        used = len(head)
        for i, it in enumerate(box.items):
            side = it.get("side")
            bg = colours.get(side, "#777777") if side else _MARKER_BG
            marker = f" ({it['marker']})" if it.get("marker") else ""
            chip = f" {it['label']}{marker} "
            if i and used + 1 + len(chip) > width:
                t.append("\n  ")
                used = 2
            elif i:
                t.append(" ")
                used += 1
            t.append(chip, style=Style(color=ink_for(bg), bgcolor=bg))
            used += len(chip)
    return t
