"""The board as an SVG picture that opens in any browser.

Hexes are drawn as hexagons (flat-topped for ``-q`` layouts, pointy-topped
for ``-r``) filled with their terrain colour and numbered; roads and trails as
lines from hex centre to hex centre across their hexsides; rivers, all-sea
and fortified hexsides as lines along the hex edge; a key location as a star
right of the hex centre, a town as a small square left of it.  Counters are
squares in their side's colour with a second, non-colour cue for the side
(the corner shape: rounded for the first side, square for the second, cut and
notched for further ones); a stack is offset squares with the top one
uppermost and its size in a badge on its corner.  Boxes are drawn beside the
map with their contents (``<g class="box" data-box="ID">``), in the board's
order: a holding box the map does not list outlined dashed.  A flagged hex
is outlined.  A header above the map states the position (game, header
items, verdict) and a legend below explains every glyph and mark.

What is drawn is a :class:`~pbem.engine.boardview.BoardView`; a counter's
marks are drawn as the board's legend says (:data:`~pbem.engine.boardview.Look`):

``badge``    its text on a strip along the counter's foot (the legend
             entry's ``tone`` the strip's colour)
``hatched``  hatched over (the counter's reverse face)
``crossed``  crossed out
``hidden``   face down: "?" on its strip, or to its owner its ``secret``
             (with the dashed ring of what only this view's player sees)

Nothing here knows a game: the legend's words are the board's.

Every label fits its counter or box: text is monospace (the family is pinned,
``MONO``), so its width is known -- at most ``EM`` of the font size a
character -- and each label is set at the largest size that fits, split in
two at a separator when that is larger, a box title wrapped to two lines
or, failing that, shortened (the full title in the box's tooltip).  A text
that must fit names its container (``data-in`` = the id of the rectangle);
the HTML page checks each against it in the browser
(:mod:`pbem.render.html`).

The document is built with :mod:`xml.etree.ElementTree`, so every label is
escaped, and its control characters are made visible (``\\x1b``), so the
result is well-formed XML.  No element is transformed: every
coordinate is in the picture's own units (``viewBox`` ``0 0 W H``).
"""

from __future__ import annotations

import math
import re
import textwrap
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from pbem.engine.boardview import BoardView, Box, Counter, Look
from pbem.engine.mapdata import GameMap
from pbem.errors import InputError
from pbem.render.literal import visible
from pbem.render.hexmap import box_caption, header_line, ink_for, side_palette, sides_of

__all__ = ["EM", "MONO", "board_header", "board_svg", "fit_label", "text_width"]

SVG_NS = "http://www.w3.org/2000/svg"
#: the font of every text: monospace, so that a label's width is known
MONO = "'DejaVu Sans Mono', 'Liberation Mono', 'Courier New', monospace"
#: the advance of one character, in em, rounded up (DejaVu Sans Mono and
#: Liberation Mono: 0.60; their bold faces the same)
EM = 0.62
#: the distance between the baselines of two lines, in em
LINE = 1.2

_LINE_STYLES = {
    # feature: (stroke, width factor, dasharray, drawn along the edge?)
    "river": ("#2b6cb0", 0.16, None, True),
    "all_sea": ("#123a6b", 0.20, "4 3", True),
    "fortified": ("#5b2c06", 0.14, "2 2", True),
    "road": ("#8b5a2b", 0.12, None, False),
    "trail": ("#8b5a2b", 0.08, "5 3", False),
}
_MARKER_FILL = "#f4d03f"
_PRIVATE = "#e0a800"
_FLAG = "#d0021b"
_SHAPES = ("rounded", "square", "cut", "notched")  # the non-colour cue of side 0, 1, 2, 3 (then again)


def _f(x: float) -> str:
    """A coordinate with at most two decimals and no trailing zeros."""
    text = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


# --------------------------------------------------------------------------- fitting text


def text_width(text: str, font_size: float) -> float:
    """The most ``text`` can measure in :data:`MONO` at ``font_size``."""
    return len(text) * EM * font_size


def _split(text: str) -> list[str]:
    """``text`` in two lines, cut after a separator nearest its middle
    (a space is dropped), else in the middle."""
    best: tuple[int, list[str]] | None = None
    for i, ch in enumerate(text[:-1]):
        if ch in "-:./ ":
            parts = [text[: i + 1].rstrip(), text[i + 1 :].lstrip()]
            if all(parts):
                longest = max(len(p) for p in parts)
                if best is None or longest < best[0]:
                    best = (longest, parts)
    half = (len(text) + 1) // 2
    if best is None or best[0] > half + 1:
        return [text[:half], text[half:]]
    return best[1]


def fit_label(text: str, width: float, height: float, max_size: float) -> tuple[list[str], float]:
    """The lines and font size to write ``text`` within ``width`` x ``height``:
    one line, or two cut at a separator, whichever is larger; at most
    ``max_size``."""
    def size_of(lines: list[str]) -> float:
        return min(max_size, width / (max(len(line) for line in lines) * EM), height / (len(lines) * LINE))

    best = ([text], size_of([text]))
    if len(text) > 2:
        two = _split(text)
        if size_of(two) > best[1] * 1.05:
            best = (two, size_of(two))
    return best


def _caption_lines(caption: str, chars: int, lines: int = 2) -> list[str]:
    """A box title in at most ``lines`` lines of ``chars``: wrapped; else
    without its parentheses; else cut short with an ellipsis."""
    wrapped = textwrap.wrap(caption, chars, break_on_hyphens=False) or [caption[:chars]]
    if len(wrapped) <= lines and all(len(w) <= chars for w in wrapped):
        return wrapped
    short = re.sub(r"\s*\([^)]*\)", "", caption)
    wrapped = textwrap.wrap(short, chars, break_on_hyphens=False) or [short[:chars]]
    if len(wrapped) <= lines and all(len(w) <= chars for w in wrapped):
        return wrapped
    head = [w[:chars] for w in wrapped[: lines - 1]]
    rest = " ".join(wrapped[lines - 1 :])
    return head + [rest[: chars - 1] + "\u2026"]



# --------------------------------------------------------------------------- the header


def board_header(board: BoardView) -> list[str]:
    """The header of a board drawn alone: game and header items, and the verdict's first line."""
    return [header_line(board, " | "), *board.verdict[:1]]


# --------------------------------------------------------------------------- the drawing


@dataclass
class _Picture:
    root: ET.Element
    size: float
    colours: Mapping[str, str]
    shapes: Mapping[str, str]
    board: BoardView
    used: set[str] = field(default_factory=set)  # what was drawn ("private", "stack"), for the legend
    markers: dict[str, None] = field(default_factory=dict)  # labels of the markers drawn
    serial: int = 0

    def id(self) -> str:
        self.serial += 1
        return f"pb-{self.serial}"

    def look(self, mark: str) -> Look:
        entry = self.board.entry(mark)
        return entry.look if entry is not None else "badge"

    def text(self, parent: ET.Element, x: float, y: float, lines: Sequence[str], font_size: float, *,
             container: str | None = None, anchor: str = "start", cls: str | None = None,
             **attrs: str) -> ET.Element:
        """``lines`` from baseline ``y``, each ``LINE`` em below the last;
        ``container`` the id of the rectangle it must stay within."""
        a = {"x": _f(x), "y": _f(y), "font-size": _f(font_size)}
        if anchor != "start":
            a["text-anchor"] = anchor
        if cls:
            a["class"] = cls
        if container:
            a["data-in"] = container
        a.update(attrs)
        el = ET.SubElement(parent, "text", a)
        if len(lines) == 1:
            el.text = lines[0]
        else:
            for i, line in enumerate(lines):
                ET.SubElement(el, "tspan", {"x": _f(x), "dy": "0" if i == 0 else _f(font_size * LINE)}).text = line
        return el


def board_svg(
    board: BoardView,
    *,
    size: float = 32.0,
    title: str | None = None,
    numbers: bool = True,
    legend: bool = True,
    header: Sequence[str] = (),
) -> str:
    """The SVG text of ``board``: its map with the stacks on it, its boxes,
    flagged hexes outlined, and the legend.

    ``size`` is the hex circumradius in pixels; ``header`` the lines under
    the title (the first in bold).  InputError quoting a stack or flag in no
    hex of the map."""
    if board.map is None:
        raise InputError(f"the {board.game} board has no map to draw")
    gmap = board.map
    over = {gmap.label(gmap.hex(f.where)): f.why for f in board.flags}
    for st in board.stacks:
        gmap.hex(st.where)
    lay = gmap.layout
    sides = sides_of(board)
    colours = side_palette(sides, board.side_colours())
    names = board.side_names()
    shapes = {s: _SHAPES[i % len(_SHAPES)] for i, s in enumerate(colours)}

    hexes = list(gmap.hexes())
    xs = [x for h in hexes for x, _ in lay.corners(h, size)]
    ys = [y for h in hexes for _, y in lay.corners(h, size)]
    margin = size * 0.5
    map_w, map_h = max(xs) - min(xs), max(ys) - min(ys)

    # boxes: their sizes first, to know the picture's width ---------------------
    cs, gap, pad = size * 0.9, size * 0.2, size * 0.2  # a counter in a box, between two, inside the frame
    per_row = 5
    box_w = 2 * pad + per_row * cs + (per_row - 1) * gap
    caption_size = size * 0.3
    chars = int((box_w - 2 * pad) / (EM * caption_size))
    laid: list[tuple[Box, list[str], float]] = []
    for box in board.boxes:
        lines = _caption_lines(_box_title(gmap, box), chars)
        rows = max(1, math.ceil(len(box.counters) / per_row))
        laid.append((box, lines, pad + len(lines) * caption_size * LINE + pad * 0.5 + rows * (cs + gap) - gap + pad))
    # in as few columns as keep them within the map's height, about as tall as each other
    needed = sum(e[2] + gap for e in laid)
    per_column = needed / max(1, math.ceil(needed / map_h)) if laid else 0
    columns: list[list[tuple[Box, list[str], float]]] = []
    height = 0.0
    for entry in laid:
        if not columns or (height + entry[2] / 2 > per_column and columns[-1]):
            columns.append([])
            height = 0.0
        columns[-1].append(entry)
        height += entry[2] + gap
    boxes_w = len(columns) * (box_w + gap * 2)
    total_w = margin * 2 + map_w + (size * 0.4 + boxes_w if columns else 0)
    total_w = max(total_w, size * 18)

    # the title and the header ------------------------------------------------
    title = title or gmap.name or "board"
    head_lines: list[tuple[str, bool]] = []
    head_size = size * 0.36
    head_chars = max(20, int((total_w - 2 * margin) / (EM * head_size)))
    for i, line in enumerate(header):
        indent = len(line) - len(line.lstrip())
        for j, part in enumerate(textwrap.wrap(line.strip(), head_chars - indent - 2) or [""]):
            head_lines.append((" " * (indent + (2 if j else 0)) + part, i == 0))
    title_size = min(size * 0.5, (total_w - 2 * margin) / (len(title) * EM))
    top = (margin + title_size * LINE + len(head_lines) * head_size * LINE + (size * 0.3 if head_lines else 0)
           + size * 0.2)
    ox, oy = margin - min(xs), top - min(ys)

    def at(h) -> tuple[float, float]:
        x, y = lay.center(h, size)
        return x + ox, y + oy

    root = ET.Element("svg", {"xmlns": SVG_NS, "version": "1.1", "font-family": MONO})
    pic = _Picture(root, size, colours, shapes, board)
    ET.SubElement(root, "title").text = title
    _defs(root)
    ET.SubElement(root, "rect", {"id": "pb-board", "x": "0", "y": "0", "width": "100%", "height": "100%",
                                              "fill": "#fbfaf5"})
    g = ET.SubElement(root, "g", {"id": "header"})
    y = margin + title_size
    pic.text(g, margin, y, [title], title_size, container="pb-board", cls="title", **{"font-weight": "bold"})
    y += size * 0.15
    for line, bold in head_lines:
        y += head_size * LINE
        attrs = {"font-weight": "bold"} if bold else {}
        pic.text(g, margin, y, [line], head_size, container="pb-board", cls="status", **attrs,
                 **{"{http://www.w3.org/XML/1998/namespace}space": "preserve"})

    # terrain -------------------------------------------------------------
    g = ET.SubElement(root, "g", {"id": "terrain", "stroke": "#555555", "stroke-width": _f(max(0.5, size / 40))})
    for h in hexes:
        tt = gmap.terrain_types[gmap.terrain_at(h)]
        pts = " ".join(f"{_f(x + ox)},{_f(y + oy)}" for x, y in lay.corners(h, size))
        poly = ET.SubElement(g, "polygon", {"points": pts, "fill": tt.colour, "class": f"terrain-{tt.name}"})
        ET.SubElement(poly, "title").text = f"{gmap.label(h)} {tt.label}"

    # hexsides: edges first, then roads over them ------------------------------
    g = ET.SubElement(root, "g", {"id": "hexsides", "fill": "none", "stroke-linecap": "round"})
    for feature in ("river", "all_sea", "fortified", "road", "trail"):
        stroke, width, dash, along = _LINE_STYLES[feature]
        attrs = {"stroke": stroke, "stroke-width": _f(size * width), "class": feature}
        if dash:
            attrs["stroke-dasharray"] = dash
        fg = ET.SubElement(g, "g", attrs)
        for side in sorted(gmap.hexsides.get(feature, ())):
            if along:
                (x1, y1), (x2, y2) = lay.edge(side, size)
                x1, y1, x2, y2 = x1 + ox, y1 + oy, x2 + ox, y2 + oy
            else:
                (x1, y1), (x2, y2) = at(side.a), at(side.b)
            ET.SubElement(fg, "line", {"x1": _f(x1), "y1": _f(y1), "x2": _f(x2), "y2": _f(y2)})

    # flagged hexes -------------------------------------------------------------
    if over:
        g = ET.SubElement(root, "g", {"id": "flagged", "fill": "none", "stroke": _FLAG,
                                      "stroke-width": _f(size * 0.12), "stroke-dasharray": _f(size * 0.25)})
        for label, why in over.items():
            h = gmap.hex(label)
            cx, cy = at(h)
            corners = [(cx + (x + ox - cx) * 0.88, cy + (y + oy - cy) * 0.88) for x, y in lay.corners(h, size)]
            pts = " ".join(f"{_f(x)},{_f(y)}" for x, y in corners)
            poly = ET.SubElement(g, "polygon", {"points": pts, "class": "flagged", "data-hex": label})
            ET.SubElement(poly, "title").text = f"{label}: {why}"

    # hex features and numbers ----------------------------------------------
    g = ET.SubElement(root, "g", {"id": "features"})
    for h in hexes:
        x, y = at(h)
        if h in gmap.towns:
            _town(g, x - size * 0.72, y + size * 0.12, size * 0.2)
        if h in gmap.key_locations:
            _star(g, x + size * 0.72, y + size * 0.12, size * 0.18)
    place_of = {h: name for name, h in gmap.places.items()}
    for h, kl in gmap.key_locations.items():
        place_of.setdefault(h, kl.name)
    for h in hexes:
        x, y = at(h)
        ink = ink_for(gmap.terrain_types[gmap.terrain_at(h)].colour)
        if numbers:
            pic.text(g, x, y - size * 0.5, [gmap.label(h)], size * 0.26, anchor="middle", cls="hexnumber",
                     fill=ink, opacity="0.8")
        if h in place_of:
            pic.text(g, x, y + size * 0.8, [place_of[h]], size * 0.22, anchor="middle", cls="place", fill=ink,
                     **{"font-style": "italic"})

    # counters ------------------------------------------------------------
    g = ET.SubElement(root, "g", {"id": "counters"})
    for st in board.stacks:
        if not st.counters:
            continue
        x, y = at(gmap.hex(st.where))
        _stack(pic, g, x, y + size * 0.12, size * 0.9, st.counters)

    # boxes, beside the map: holding boxes first, then the map's own ----------------
    if columns:
        g = ET.SubElement(root, "g", {"id": "boxes"})
    box_x = margin + map_w + size * 0.4
    for column in columns:
        box_y = top
        for box, lines, h_box in column:
            _box(pic, g, gmap, box, lines, box_x, box_y, box_w, h_box, caption_size, cs, gap, pad, per_row)
            box_y += h_box + gap
        box_x += box_w + gap * 2
    total_h = max(top + map_h + margin, top + max((sum(e[2] + gap for e in c) for c in columns), default=0) + margin)

    # legend ----------------------------------------------------------------
    if legend:
        total_h = _legend(pic, gmap, names, over, margin, total_h, total_w - 2 * margin)

    root.set("width", _f(total_w))
    root.set("height", _f(total_h))
    root.set("viewBox", f"0 0 {_f(total_w)} {_f(total_h)}")
    _visible_texts(root)
    ET.indent(root, space=" ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"



def _visible_texts(root: ET.Element) -> None:
    """Every text and attribute of the picture as written, its control
    characters made visible (:func:`pbem.render.literal.visible`): a unit's
    or a box's name from a data set or a view cannot make the XML ill-formed
    (XML 1.0 has no ESC, not even as ``&#27;``)."""
    for element in root.iter():
        if element.text:
            element.text = visible(element.text, newlines=True)
        if element.tail:
            element.tail = visible(element.tail, newlines=True)
        for name, value in element.attrib.items():
            element.set(name, visible(value, newlines=True))



def _box_title(gmap: GameMap, box: Box) -> str:
    target = gmap.boxes[box.where].target if box.where in gmap.boxes else None
    return box_caption(gmap, box.where, box.name) + (f" -> {gmap.label(target)}" if target is not None else "")


def _short(text: str) -> str:
    """A text short enough for a counter's strip (at most 5 characters)."""
    return text if len(text) <= 5 else text[:5]


def _kind(gmap: GameMap, box: Box) -> str:
    return gmap.boxes[box.where].kind if box.where in gmap.boxes else "holding"


def _defs(root: ET.Element) -> None:
    defs = ET.SubElement(root, "defs")
    pat = ET.SubElement(defs, "pattern", {"id": "pb-hatch", "width": "5", "height": "5",
                                          "patternUnits": "userSpaceOnUse", "patternTransform": "rotate(45)"})
    ET.SubElement(pat, "line", {"x1": "0", "y1": "0", "x2": "0", "y2": "5", "stroke": "#000000",
                                "stroke-opacity": "0.45", "stroke-width": "2"})


def _star(g: ET.Element, cx: float, cy: float, r: float) -> None:
    pts = []
    for i in range(10):
        rad = r if i % 2 == 0 else r * 0.45
        a = math.radians(-90 + 36 * i)
        pts.append(f"{_f(cx + rad * math.cos(a))},{_f(cy + rad * math.sin(a))}")
    ET.SubElement(g, "polygon", {"points": " ".join(pts), "fill": "#f1c40f", "stroke": "#7d6608", "stroke-width": "0.8",
                                 "class": "key-location"})


def _town(g: ET.Element, cx: float, cy: float, s: float) -> None:
    ET.SubElement(g, "rect", {"x": _f(cx - s / 2), "y": _f(cy - s / 2), "width": _f(s), "height": _f(s),
                              "fill": "#444444", "class": "town"})


def _shape(g: ET.Element, shape: str, x: float, y: float, s: float, attrs: dict[str, str]) -> ET.Element:
    """A counter's outline: the side's non-colour cue."""
    if shape == "rounded":
        return ET.SubElement(g, "rect", {"x": _f(x), "y": _f(y), "width": _f(s), "height": _f(s), "rx": _f(s * 0.28),
                                         **attrs})
    if shape == "square":
        return ET.SubElement(g, "rect", {"x": _f(x), "y": _f(y), "width": _f(s), "height": _f(s), **attrs})
    c = s * 0.22
    if shape == "cut":  # the top-right corner cut off
        pts = [(x, y), (x + s - c, y), (x + s, y + c), (x + s, y + s), (x, y + s)]
    else:  # notched: a notch in the top edge
        pts = [(x, y), (x + s * 0.4, y), (x + s / 2, y + c), (x + s * 0.6, y), (x + s, y), (x + s, y + s), (x, y + s)]
    return ET.SubElement(g, "polygon", {"points": " ".join(f"{_f(a)},{_f(b)}" for a, b in pts), **attrs})



def _tip(c: Counter) -> str:
    """A counter's tooltip: its label and what it is in words."""
    return c.label + (f" ({c.tooltip})" if c.tooltip else "")


def _stack(pic: _Picture, g: ET.Element, x: float, y: float, s: float, items: Sequence[Counter]) -> None:
    """Draw ``items`` (top first) as offset squares centred near ``(x, y)``."""
    shown = list(items)[:4]
    off = s * 0.07
    n = len(shown)
    sg = ET.SubElement(g, "g", {"class": "stack"})
    ET.SubElement(sg, "title").text = ", ".join(_tip(c) for c in items)
    for c in items[1:]:  # under the top counter: in the tooltip, and explained in the legend
        if not c.side and not c.marks:
            pic.markers[c.label] = None
    for depth in range(n - 1, -1, -1):  # bottom first, top unit last
        cx = x - s / 2 + (n - 1 - depth) * off - (n - 1) * off / 2
        cy = y - s / 2 + (n - 1 - depth) * off - (n - 1) * off / 2
        _counter(pic, sg, shown[depth], cx, cy, s, top=depth == 0)
    if len(items) > 1:
        pic.used.add("stack")
        cx = x + s / 2 + (n - 1) * off / 2
        cy = y - s / 2 + (n - 1) * off / 2
        r = s * 0.2
        badge = pic.id()
        ET.SubElement(sg, "circle", {"cx": _f(cx), "cy": _f(cy), "r": _f(r), "fill": "#ffffff", "stroke": "#111111",
                                     "stroke-width": "0.8", "id": badge, "class": "count-badge"})
        count = str(len(items))
        lines, fs = fit_label(count, r * 1.5, r * 1.5, r * 1.2)
        pic.text(sg, cx, cy + fs * 0.36, lines, fs, container=badge, anchor="middle", cls="count",
                 **{"font-weight": "bold"})


def _counter(pic: _Picture, g: ET.Element, c: Counter, x: float, y: float, s: float, *,
             top: bool = True) -> None:
    """One counter, its top-left corner at ``(x, y)``; only the top one of a
    stack carries its label and marks."""
    side = c.side
    looks = [(m, pic.look(m)) for m in c.marks]
    if side:
        fill, shape, cls = c.tone or pic.colours.get(side, "#777777"), pic.shapes.get(side, "square"), "counter"
    else:
        fill, shape, cls = c.tone or _MARKER_FILL, "square", "marker"
    attrs = {"fill": fill, "stroke": "#111111", "stroke-width": "0.8", "class": cls}
    if side:
        attrs["data-side"] = str(side)
    if not top:
        _shape(g, shape, x, y, s, attrs)
        return
    rid = pic.id()
    attrs["id"] = rid
    if c.private or c.secret:
        pic.used.add("private")
        ring = s * 0.1
        _shape(g, shape, x - ring, y - ring, s + 2 * ring, {"fill": "none", "stroke": _PRIVATE, "class": "private",
                                                               "stroke-width": _f(s * 0.08), "stroke-dasharray": _f(s * 0.12)})
    _shape(g, shape, x, y, s, attrs)
    if any(look == "hatched" for _, look in looks):
        _shape(g, shape, x, y, s, {"fill": "url(#pb-hatch)", "stroke": "none", "class": "hatched"})
    if any(look == "crossed" for _, look in looks):
        k = s * 0.12
        for (x1, y1), (x2, y2) in (((x + k, y + k), (x + s - k, y + s - k)), ((x + s - k, y + k), (x + k, y + s - k))):
            ET.SubElement(g, "line", {"x1": _f(x1), "y1": _f(y1), "x2": _f(x2), "y2": _f(y2), "stroke": "#b00000",
                                      "stroke-width": _f(s * 0.05), "stroke-opacity": "0.45", "class": "crossed"})
    strip, strip_fill = "", "#ffffff"
    hidden = next((m for m, look in looks if look == "hidden"), None)
    badge = next((m for m, look in looks if look == "badge"), None)
    if hidden is not None:
        strip = _short(c.secret).upper() if c.secret else "?"
    elif badge is not None:
        strip = _short(badge)
        entry = pic.board.entry(badge)
        strip_fill = entry.tone if entry is not None and entry.tone else "#ffffff"
    if not side and not c.marks:
        pic.markers[c.label] = None
    inner = s * 0.84
    if strip:
        sh = s * 0.3
        sid = pic.id()
        ET.SubElement(g, "rect", {"x": _f(x + s * 0.08), "y": _f(y + s - sh - s * 0.06), "width": _f(s * 0.84),
                                  "height": _f(sh), "fill": strip_fill, "stroke": "none", "id": sid, "class": "strip"})
        fs = min(sh * 0.8, s * 0.8 / (len(strip) * EM))
        pic.text(g, x + s / 2, y + s - s * 0.06 - sh / 2 + fs * 0.36, [strip], fs, container=sid, anchor="middle",
                 cls="strip-text", fill=ink_for(strip_fill), **{"font-weight": "bold"})
        area_top, area_h = y + s * 0.08, s - sh - s * 0.18
    else:
        area_top, area_h = y + s * 0.08, s * 0.84
    lines, fs = fit_label(c.label, inner, area_h, s * 0.42)
    base = area_top + (area_h - len(lines) * fs * LINE) / 2 + fs * LINE / 2 + fs * 0.36
    pic.text(g, x + s / 2, base, lines, fs, container=rid, anchor="middle", cls="label", fill=ink_for(fill),
             **{"font-weight": "bold"})


def _box(pic: _Picture, g: ET.Element, gmap: GameMap, box: Box, lines: list[str], x: float, y: float, w: float,
         h: float, caption_size: float, cs: float, gap: float, pad: float, per_row: int) -> None:
    kind = _kind(gmap, box)
    bg = ET.SubElement(g, "g", {"class": "box", "data-box": box.where, "data-kind": kind})
    ET.SubElement(bg, "title").text = _box_title(gmap, box)
    rid = pic.id()
    rect = {"x": _f(x), "y": _f(y), "width": _f(w), "height": _f(h), "fill": box.tone or "#eeeeee",
            "stroke": "#555555", "id": rid}
    if box.where not in gmap.boxes:
        rect.update({"fill": box.tone or "#f6f1e2", "stroke-dasharray": "5 3", "stroke-width": "1.5"})
    ET.SubElement(bg, "rect", rect)
    pic.text(bg, x + pad, y + pad + caption_size * 0.85, lines, caption_size, container=rid, cls="caption",
             **{"font-weight": "bold"})
    head = pad + len(lines) * caption_size * LINE + pad * 0.5
    if not box.counters:
        pic.text(bg, x + pad, y + head + cs / 2 + caption_size * 0.36, ["(empty)"], caption_size, container=rid,
                 cls="empty", fill="#777777", **{"font-style": "italic"})
    for i, c in enumerate(box.counters):
        cx = x + pad + (i % per_row) * (cs + gap) + cs / 2
        cy = y + head + (i // per_row) * (cs + gap) + cs / 2
        _stack(pic, bg, cx, cy, cs, [c])


_SAMPLE_WORDS = {"hatched": "hatched: ", "crossed": "crossed out: ", "hidden": "", "badge": ""}


def _legend(pic: _Picture, gmap: GameMap, names: Mapping[str, str], flagged: Mapping[str, str],
            x0: float, y0: float, width: float) -> float:
    """The legend below the map and boxes, in a frame ``width`` wide from
    ``(x0, y0)``: every glyph, and every mark of the board's legend; returns
    the picture's height."""
    size = pic.size
    fs = size * 0.3
    sw = size * 0.7  # a swatch
    row_h = sw + size * 0.3
    first = next(iter(pic.colours), None)
    entries: list[tuple[Any, str]] = []

    def sample(text: str, counter: Counter) -> None:
        entries.append((("counter", counter), text))

    for tt in gmap.terrain_types.values():
        entries.append((("terrain", tt.colour), tt.label))
    for feature in ("road", "trail", "river", "all_sea", "fortified"):
        if gmap.hexsides.get(feature):
            edge = " hexside" if feature in ("all_sea", "fortified") else ""
            entries.append((("line", feature), feature.replace("_", "-") + edge))
    if gmap.key_locations:
        entries.append((("star",), "key location (VP)"))
    if gmap.towns:
        entries.append((("town",), "town"))
    for side in pic.colours:
        sample(f"{names.get(side, side)} unit ({pic.shapes[side]} corners)", Counter("A1", side))
    entries.append((("stack", None), "stack: top unit, number of counters"))
    if "private" in pic.used:
        sample("dashed ring: only you see this", Counter("A1", first, private=True))
    for label in pic.markers:
        entry = pic.board.entry(label)
        sample(f"marker: {entry.meaning if entry is not None else label}", Counter(label))
    for entry in pic.board.legend:
        if entry.mark in pic.markers:
            continue
        if entry.look == "outline":
            for why in sorted(set(flagged.values())) or [""]:
                entries.append((("flag",), f"{entry.meaning}: {why}" if why else entry.meaning))
            continue
        words = _SAMPLE_WORDS[entry.look] + (f"{_short(entry.mark)}: " if entry.look == "badge" else "")
        sample(words + entry.meaning, entry.sample or Counter("A1", first, (entry.mark,)))

    g = ET.SubElement(pic.root, "g", {"id": "legend"})
    frame = pic.id()
    top = y0 + size * 0.2
    rect = ET.SubElement(g, "rect", {"x": _f(x0), "y": _f(top), "width": _f(width), "height": "0", "fill": "#ffffff",
                                     "stroke": "#999999", "id": frame})
    pic.text(g, x0 + size * 0.25, top + size * 0.25 + fs, ["Legend"], fs * 1.1, container=frame, cls="legend-title",
             **{"font-weight": "bold"})
    x, y = x0 + size * 0.25, top + size * 0.5 + fs * 1.3
    limit = int((width - sw - size * 1.2) / (EM * fs))
    for swatch, label in entries:
        label = label if len(label) <= limit else label[: limit - 1] + "\u2026"
        w = (sw + size * 0.25 if swatch else 0) + text_width(label, fs) + size * 0.6
        if x + w > x0 + width and x > x0 + size * 0.25:
            x, y = x0 + size * 0.25, y + row_h
        if swatch:
            sg = ET.SubElement(g, "g", {"class": "swatch"})
            _swatch(pic, sg, swatch, x, y, sw)
            for el in sg.iter():  # a sample, not a counter of the position
                if (kind := el.get("class")) in ("counter", "marker", "stack"):
                    el.set("class", "sample-" + kind)
        tx = x + (sw + size * 0.25 if swatch else 0)
        pic.text(g, tx, y + sw / 2 + fs * 0.36, [label], fs, container=frame, cls="legend-label")
        x += w
    bottom = y + row_h + size * 0.1
    rect.set("height", _f(bottom - top))
    return bottom + size * 0.5


def _swatch(pic: _Picture, g: ET.Element, swatch: tuple[Any, ...], x: float, y: float, s: float) -> None:
    kind = swatch[0]
    if kind == "terrain":
        ET.SubElement(g, "rect", {"x": _f(x), "y": _f(y + s * 0.1), "width": _f(s), "height": _f(s * 0.8),
                                  "fill": swatch[1], "stroke": "#555555"})
    elif kind == "line":
        stroke, width, dash, _ = _LINE_STYLES[swatch[1]]
        attrs = {"x1": _f(x), "y1": _f(y + s / 2), "x2": _f(x + s), "y2": _f(y + s / 2), "stroke": stroke,
                 "stroke-width": _f(pic.size * width)}
        if dash:
            attrs["stroke-dasharray"] = dash
        ET.SubElement(g, "line", attrs)
    elif kind == "star":
        _star(g, x + s / 2, y + s / 2, s * 0.45)
    elif kind == "town":
        _town(g, x + s / 2, y + s / 2, s * 0.45)
    elif kind == "flag":
        pts = [(x + s / 2 * (1 + math.cos(math.radians(a))), y + s / 2 * (1 + math.sin(math.radians(a))))
               for a in range(0, 360, 60)]
        ET.SubElement(g, "polygon", {"points": " ".join(f"{_f(a)},{_f(b)}" for a, b in pts), "fill": "#ece3a8",
                                     "stroke": _FLAG, "stroke-width": _f(pic.size * 0.1),
                                     "stroke-dasharray": _f(pic.size * 0.2)})
    elif kind == "stack":
        side = next(iter(pic.colours), None)
        _stack(pic, g, x + s * 0.45, y + s * 0.55, s * 0.85,
               [Counter("A1", side), Counter("A2", side)])
    else:
        _counter(pic, g, swatch[1], x, y, s)

