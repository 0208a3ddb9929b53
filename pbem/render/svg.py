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
map with their contents (``<g class="box" data-box="ID">``): first the
holding boxes that only the view names (Ambon's ``off-map``, 14.2), outlined
dashed, then the map's own off-map boxes (landing boxes, mine boxes, the
eliminated-units box).  A header above the map states the position (game,
turn, phase, whose move, VP, verdict) and a legend below explains every
glyph and mark.

A counter of ``stacks`` is a mapping with ``label`` and optionally
``side`` (absent or None: a marker, such as a beachhead), ``marker`` (a status
word shown in the tooltip), and the marks this module draws:

``disrupted``  hatched over (a flipped unit)
``oos``        an "OOS" strip along its foot (out of supply; Ambon 13.0)
``status``     any other status (a movement penalty...) on the strip
``concealed``  its identity hidden: "?" on its strip, or to its owner
               its ``identity`` (with the dashed ring of ``private``)
``private``    what only this view's player sees: a dashed ring around it
``eliminated`` crossed out (in the eliminated-units box)
``mine``       a mine marker: "hidden" (face down; to its owner what it is,
               ``known``), "real" or "dummy"
``marks``      further marks of the game, listed in the tooltip

:func:`board_stacks` makes those from a game's view (its ``units``,
``eliminated`` and ``mines``); :func:`view_header` the header lines.

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
from typing import Any, Iterable, Mapping, Sequence

from pbem.engine.mapdata import GameMap
from pbem.errors import InputError
from pbem.render.literal import visible
from pbem.render.hexmap import position_bits, Box, Stacks, boxes_of, check_stacks, ink_for, is_box, side_palette, sides_in

__all__ = ["EM", "MONO", "board_stacks", "board_svg", "fit_label", "text_width", "view_header"]

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
_UNKNOWN_FILL = "#c4c4c4"  # an eliminated unit whose side the view does not give
_MINE_FILL = {"hidden": "#3b3b3b", "real": "#b22222", "dummy": "#f2f2f2"}
_PRIVATE = "#e0a800"
_OVERSTACK = "#d0021b"
_SHAPES = ("rounded", "square", "cut", "notched")  # the non-colour cue of side 0, 1, 2, 3 (then again)
_SHORT = {"disrupted": "DISR", "beachhead": "BEACH", "no-move": "NO MV", "opposed": "OPPSD", "detachment": "DET"}


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


# --------------------------------------------------------------------------- from a view


def board_stacks(gmap: GameMap, view: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The counters to draw from a game's ``view``: its ``stacks``, each unit
    counter given the marks of its entry in ``units`` (the same side's
    counters of a hex in the same order), the ``eliminated`` units in the
    map's eliminated-units box (kind ``eliminated``; else a holding box
    ``eliminated``) and the ``mines`` markers in their boxes.  ``eliminated``
    holds unit ids or ``{id, side}``; ``mines`` ``{id, box, status}`` with
    status ``hidden``, ``hidden (real)`` (the owner's view), ``real`` or
    ``dummy``.  InputError quoting a malformed entry."""
    given = view.get("stacks") or {}
    if not isinstance(given, Mapping):
        raise InputError(f"view 'stacks' must map hexes and boxes to counters, got {type(given).__name__}")
    check_stacks(gmap, given)
    stacks = {where: [dict(it) for it in items] for where, items in given.items()}
    units = view.get("units") or []
    for where, items in stacks.items():
        here = [u for u in units if isinstance(u, Mapping) and u.get("where") == where]
        counters = [it for it in items if it.get("side")]
        if len(here) != len(counters) or any(u.get("side") != it["side"] for u, it in zip(here, counters, strict=True)):
            continue  # not the view's own order: draw the counters as given
        for unit, it in zip(here, counters, strict=True):
            _marks_of(unit, it)
    gone = view.get("eliminated") or []
    if gone:
        box = next((b.id for b in gmap.boxes.values() if b.kind == "eliminated"), "eliminated")
        there = stacks.setdefault(box, [])
        drawn = {it["label"] for it in there}
        sides = view.get("eliminated_sides") or {}
        for entry in gone:
            if isinstance(entry, str):
                uid, side = entry, sides.get(entry)
            elif isinstance(entry, Mapping) and isinstance(entry.get("id"), str):
                uid, side = entry["id"], entry.get("side")
            else:
                raise InputError(f"view 'eliminated': {entry!r} is neither a unit id nor {{id, side}}")
            if uid not in drawn:
                there.append({"label": uid, "side": side, "eliminated": True, "marker": "eliminated"})
    for m in view.get("mines") or []:
        if not isinstance(m, Mapping) or not all(isinstance(m.get(k), str) for k in ("id", "box", "status")):
            raise InputError(f"view 'mines': {m!r} is not {{id, box, status}}")
        if not is_box(gmap, m["box"]):
            raise InputError(f"view 'mines': marker {m['id']} is in hex {m['box']!r}; mine markers lie in boxes")
        status = m["status"]
        known = re.fullmatch(r"hidden \((\w+)\)", status)
        item = {"label": m["id"], "marker": status, "mine": "hidden" if status.startswith("hidden") else status}
        if known:
            item.update(known=known.group(1), private=True)
        stacks.setdefault(m["box"], []).append(item)
    return stacks


def _marks_of(unit: Mapping[str, Any], item: dict[str, Any]) -> None:
    if unit.get("flipped") or unit.get("disrupted"):
        item.setdefault("disrupted", True)
    if unit.get("oos"):
        item.setdefault("oos", True)
    if unit.get("status"):
        item.setdefault("status", str(unit["status"]))
    if unit.get("type") == "concealed" or unit.get("concealed"):
        item.setdefault("concealed", True)
    if unit.get("private"):
        item.setdefault("private", True)
    if unit.get("marks"):
        item.setdefault("marks", [str(m) for m in unit["marks"]])


def view_header(view: Mapping[str, Any], game: str | None = None) -> list[str]:
    """The header of a board drawn from ``view`` alone: game, turn, phase,
    whose move, VP, and the verdict when the view holds one."""
    lines = [" | ".join(position_bits(str(game or view.get("game") or "game"), view))]
    if view.get("verdict"):
        lines.append(str(view["verdict"]))
    return lines


# --------------------------------------------------------------------------- the drawing


@dataclass
class _Picture:
    root: ET.Element
    size: float
    colours: Mapping[str, str]
    shapes: Mapping[str, str]
    marker_names: Mapping[str, tuple[str, str]]  # marker -> (short, long)
    used: set[str] = field(default_factory=set)  # marks drawn, for the legend
    markers: dict[str, None] = field(default_factory=dict)  # marker-counter labels drawn
    statuses: dict[str, None] = field(default_factory=dict)  # strip texts drawn
    serial: int = 0

    def id(self) -> str:
        self.serial += 1
        return f"pb-{self.serial}"

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
    gmap: GameMap,
    stacks: Stacks | None = None,
    *,
    side_colours: Mapping[str, str] | None = None,
    side_names: Mapping[str, str] | None = None,
    size: float = 32.0,
    title: str | None = None,
    numbers: bool = True,
    legend: bool = True,
    box_names: Mapping[str, str] | None = None,
    header: Sequence[str] = (),
    overstacked: Mapping[str, str] | Iterable[str] | None = None,
    marker_names: Mapping[str, Any] | None = None,
) -> str:
    """The SVG text of ``gmap`` with ``stacks`` on it.

    ``size`` is the hex circumradius in pixels; ``side_colours`` maps side ids
    to ``#rrggbb`` (others get a fixed palette); ``box_names`` box ids to
    captions; ``header`` the lines under the title (the first in bold);
    ``overstacked`` the hex numbers outlined as overstacked, or hex number
    -> why (Ambon 9.0; None: the game does not say); ``marker_names`` what
    each status marker means, marker -> ``[mark, short, long]`` or a
    description (the legend lists them all)."""
    stacks = stacks or {}
    check_stacks(gmap, stacks)
    over = {} if overstacked is None else {gmap.label(gmap.hex(h)): why for h, why in _hexes_why(overstacked).items()}
    lay = gmap.layout
    sides = list(side_colours or {}) + [s for s in sides_in(stacks) if s not in (side_colours or {})]
    colours = side_palette(sides, side_colours)
    names = dict(side_names or {})
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
    drawn = boxes_of(gmap, stacks, box_names, empty=True)
    laid: list[tuple[Box, list[str], float]] = []
    for box in drawn:
        full = box.caption + (f" -> {box.target}" if box.target else "")
        lines = _caption_lines(full, chars)
        rows = max(1, math.ceil(len(box.items) / per_row))
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
    pic = _Picture(root, size, colours, shapes, _names_of(marker_names))
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

    # overstacked hexes (Ambon 9.0) ---------------------------------------------
    if overstacked is not None:
        g = ET.SubElement(root, "g", {"id": "overstacked", "fill": "none", "stroke": _OVERSTACK,
                                      "stroke-width": _f(size * 0.12), "stroke-dasharray": _f(size * 0.25)})
        for label, why in over.items():
            h = gmap.hex(label)
            cx, cy = at(h)
            corners = [(cx + (x + ox - cx) * 0.88, cy + (y + oy - cy) * 0.88) for x, y in lay.corners(h, size)]
            pts = " ".join(f"{_f(x)},{_f(y)}" for x, y in corners)
            poly = ET.SubElement(g, "polygon", {"points": pts, "class": "overstack", "data-hex": label})
            ET.SubElement(poly, "title").text = f"{label}: {why or 'overstacked'}"

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
    for where, items in stacks.items():
        if not items or is_box(gmap, where):
            continue
        x, y = at(gmap.hex(where))
        _stack(pic, g, x, y + size * 0.12, size * 0.9, items)

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
        mines = any(_kind(gmap, b) == "mines" for b in drawn)
        total_h = _legend(pic, gmap, names, None if overstacked is None else over, mines, margin, total_h,
                          total_w - 2 * margin)

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


def _hexes_why(value: Mapping[str, str] | Iterable[str]) -> dict[str, str]:
    if isinstance(value, Mapping):
        found = {h: str(why) for h, why in value.items()}
    elif isinstance(value, str) or not isinstance(value, Iterable):
        raise InputError(f"overstacked: {value!r} must be a list of hex numbers or hex number -> why")
    else:
        found = {h: "" for h in value}
    bad = [h for h in found if not isinstance(h, str) or not h[:1].isdigit()]
    if bad:
        raise InputError(f"overstacked: {bad[0]!r} is not a hex number")
    return found


def _names_of(marker_names: Mapping[str, Any] | None) -> dict[str, tuple[str, str]]:
    """marker -> (short, long) from a view's ``marker_names``."""
    if marker_names is None:
        return {}
    if not isinstance(marker_names, Mapping):
        raise InputError(f"marker_names: {marker_names!r} must map markers to [mark, short, long] or a description")
    found = {}
    for marker, spec in marker_names.items():
        if isinstance(spec, (list, tuple)) and len(spec) == 3:
            found[str(marker)] = (str(spec[1]), str(spec[2]))
        elif isinstance(spec, str):
            found[str(marker)] = (str(marker), spec)
        else:
            raise InputError(f"marker_names: {marker!r} = {spec!r}: give [mark, short, long] or a description")
    return found


def _short(pic: "_Picture", word: str) -> str:
    """A status word short enough for a counter's strip (at most 5 characters)."""
    short = pic.marker_names.get(word, (word, ""))[0]
    for candidate in (short, word):
        if len(candidate) <= 5:
            return candidate
    return _SHORT.get(word, word[:5])


def _kind(gmap: GameMap, box: Box) -> str:
    return gmap.boxes[box.id].kind if box.listed else "holding"


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


def _tip(pic: "_Picture", it: Mapping[str, Any]) -> str:
    """A counter's tooltip: its label, marker and every mark, in words."""
    text = str(it["label"]) + (f" ({it['marker']})" if it.get("marker") else "")
    marker = str(it.get("marker", "")).lower()
    extra = [m for m in ("disrupted", "concealed", "eliminated") if it.get(m) and m != marker]
    if it.get("oos") and marker != "oos":
        extra.append("OOS")
    if it.get("status") and it["status"] != it.get("marker"):
        extra.append(str(it["status"]))
    secret = it.get("known") or (it.get("identity") if it.get("concealed") else None)
    if secret:
        extra.append(f"{secret}, only you see this")
    elif it.get("private"):
        extra.append("only you see this")
    extra += [str(m) for m in it.get("marks", ())]
    return text + (f" [{'; '.join(extra)}]" if extra else "")


def _stack(pic: _Picture, g: ET.Element, x: float, y: float, s: float, items: Sequence[Mapping[str, Any]]) -> None:
    """Draw ``items`` (top first) as offset squares centred near ``(x, y)``."""
    shown = list(items)[:4]
    off = s * 0.07
    n = len(shown)
    sg = ET.SubElement(g, "g", {"class": "stack"})
    ET.SubElement(sg, "title").text = ", ".join(_tip(pic, it) for it in items)
    for it in items[1:]:  # under the top counter: in the tooltip, and explained in the legend
        if not it.get("side") and not it.get("mine") and not it.get("eliminated"):
            pic.markers[str(it.get("marker") or it["label"])] = None
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


def _counter(pic: _Picture, g: ET.Element, it: Mapping[str, Any], x: float, y: float, s: float, *,
             top: bool = True) -> None:
    """One counter, its top-left corner at ``(x, y)``; only the top one of a
    stack carries its label and marks."""
    side = it.get("side")
    mine = it.get("mine")
    marker = str(it["marker"]) if it.get("marker") else ""
    if mine:
        fill, shape, cls = _MINE_FILL.get(mine, _MINE_FILL["hidden"]), "square", "marker mine"
    elif side:
        fill, shape, cls = pic.colours.get(side, "#777777"), pic.shapes.get(side, "square"), "counter"
    elif it.get("eliminated"):
        fill, shape, cls = _UNKNOWN_FILL, "square", "counter"
        pic.used.add("eliminated-grey")
    else:
        fill, shape, cls = _MARKER_FILL, "square", "marker"
    attrs = {"fill": fill, "stroke": "#111111", "stroke-width": "0.8", "class": cls}
    if side:
        attrs["data-side"] = str(side)
    if not top:
        _shape(g, shape, x, y, s, attrs)
        return
    rid = pic.id()
    attrs["id"] = rid
    secret = it.get("known") or (it.get("identity") if it.get("concealed") else None)
    if it.get("private") or secret:
        pic.used.add("private")
        ring = s * 0.1
        _shape(g, shape, x - ring, y - ring, s + 2 * ring, {"fill": "none", "stroke": _PRIVATE, "class": "private",
                                                               "stroke-width": _f(s * 0.08), "stroke-dasharray": _f(s * 0.12)})
    _shape(g, shape, x, y, s, attrs)
    disrupted = side and (it.get("disrupted") or marker.lower() == "disrupted")
    if disrupted:
        pic.used.add("disrupted")
        _shape(g, shape, x, y, s, {"fill": "url(#pb-hatch)", "stroke": "none", "class": "disrupted"})
    if it.get("eliminated"):
        pic.used.add("eliminated")
        k = s * 0.12
        for (x1, y1), (x2, y2) in (((x + k, y + k), (x + s - k, y + s - k)), ((x + s - k, y + k), (x + k, y + s - k))):
            ET.SubElement(g, "line", {"x1": _f(x1), "y1": _f(y1), "x2": _f(x2), "y2": _f(y2), "stroke": "#b00000",
                                      "stroke-width": _f(s * 0.05), "stroke-opacity": "0.45", "class": "eliminated"})
    strip, strip_fill = "", "#ffffff"
    if mine:
        pic.used.add(f"mine-{mine}" + ("-known" if it.get("known") else ""))
        strip = _short(pic, str(it.get("known") or mine)).upper() if (it.get("known") or mine != "hidden") else "?"
        strip_fill = "#ffffff" if mine != "dummy" else "#d9d9d9"
    elif it.get("concealed"):
        pic.used.add("concealed")
        strip = _short(pic, str(secret)).upper() if secret else "?"
    elif side and (it.get("oos") or marker.upper() == "OOS"):
        strip, strip_fill = "OOS", "#c0392b"
        pic.used.add("marker:OOS")
    elif side and (it.get("status") or (marker and not disrupted and not it.get("eliminated"))):
        word = str(it.get("status") or marker)
        strip = _short(pic, word)
        pic.used.add(f"marker:{word}")
        pic.statuses[word] = None
    elif not side and not mine and not it.get("eliminated"):
        pic.markers[marker or str(it["label"])] = None
        pic.used.add(f"marker:{marker or it['label']}")
    if disrupted:
        pic.used.add("marker:disrupted")
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
    label = str(it["label"])
    if not side and not mine and not it.get("eliminated") and marker == label:
        label = _short(pic, label) if len(label) > 9 else label
    lines, fs = fit_label(label, inner, area_h, s * 0.42)
    base = area_top + (area_h - len(lines) * fs * LINE) / 2 + fs * LINE / 2 + fs * 0.36
    pic.text(g, x + s / 2, base, lines, fs, container=rid, anchor="middle", cls="label", fill=ink_for(fill),
             **{"font-weight": "bold"})


def _box(pic: _Picture, g: ET.Element, gmap: GameMap, box: Box, lines: list[str], x: float, y: float, w: float,
         h: float, caption_size: float, cs: float, gap: float, pad: float, per_row: int) -> None:
    kind = _kind(gmap, box)
    bg = ET.SubElement(g, "g", {"class": "box", "data-box": box.id, "data-kind": kind})
    ET.SubElement(bg, "title").text = box.caption + (f" -> {box.target}" if box.target else "")
    rid = pic.id()
    rect = {"x": _f(x), "y": _f(y), "width": _f(w), "height": _f(h), "fill": "#eeeeee", "stroke": "#555555", "id": rid}
    if not box.listed:
        rect.update({"fill": "#f6f1e2", "stroke-dasharray": "5 3", "stroke-width": "1.5"})
    elif kind == "eliminated":
        rect.update({"fill": "#f3e3e3"})
    elif kind == "mines":
        rect.update({"fill": "#e3e8ef"})
    ET.SubElement(bg, "rect", rect)
    pic.text(bg, x + pad, y + pad + caption_size * 0.85, lines, caption_size, container=rid, cls="caption",
             **{"font-weight": "bold"})
    head = pad + len(lines) * caption_size * LINE + pad * 0.5
    if not box.items:
        pic.text(bg, x + pad, y + head + cs / 2 + caption_size * 0.36, ["(empty)"], caption_size, container=rid,
                 cls="empty", fill="#777777", **{"font-style": "italic"})
    for i, it in enumerate(box.items):
        cx = x + pad + (i % per_row) * (cs + gap) + cs / 2
        cy = y + head + (i // per_row) * (cs + gap) + cs / 2
        _stack(pic, bg, cx, cy, cs, [it])


def _legend(pic: _Picture, gmap: GameMap, names: Mapping[str, str], overstack: Mapping[str, str] | None,
            mines: bool, x0: float, y0: float, width: float) -> float:
    """The legend below the map and boxes, in a frame ``width`` wide from
    ``(x0, y0)``: every glyph and mark; returns the picture's height."""
    size = pic.size
    fs = size * 0.3
    sw = size * 0.7  # a swatch
    row_h = sw + size * 0.3
    first = next(iter(pic.colours), None)
    meaning = {m: long for m, (_, long) in pic.marker_names.items()}
    entries: list[tuple[Any, str]] = []

    def sample(text: str, **counter: Any) -> None:
        entries.append((("counter", {"label": "A1", "side": first, **counter}), text))

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
        sample(f"{names.get(side, side)} unit ({pic.shapes[side]} corners)", side=side)
    entries.append((("stack", None), "stack: top unit, number of counters"))
    sample("concealed: identity hidden (?)", concealed=True)
    if "private" in pic.used:
        sample("dashed ring: only you see this", private=True)
    sample("hatched: " + meaning.get("disrupted", "disrupted"), disrupted=True)
    sample("OOS: " + meaning.get("OOS", "out of supply"), oos=True)
    listed = {"disrupted", "OOS"}
    for word in pic.statuses:
        sample(f"{_short(pic, word)}: {meaning.get(word, word)}", status=word)
        listed.add(word)
    for label in pic.markers:
        sample(f"marker: {meaning.get(label, label)}", label=label, marker=label, side=None)
        listed.add(label)
    if overstack is not None:
        for why in sorted(set(overstack.values())) or [""]:
            entries.append((("overstack",), f"overstacked hex: {why}" if why else "overstacked hex"))
    if mines or any(u.startswith("mine-") for u in pic.used):
        sample("mine marker, hidden", label="M1", mine="hidden", side=None)
        if any(u.endswith("-known") for u in pic.used):
            sample("hidden mine: what it is (only you)", label="M1", mine="hidden", known="real", side=None)
        sample("mine revealed: real", label="M1", mine="real", side=None)
        sample("mine revealed: dummy", label="M1", mine="dummy", side=None)
    if "eliminated" in pic.used or any(b.kind == "eliminated" for b in gmap.boxes.values()):
        sample("crossed out: eliminated", eliminated=True)
    if "eliminated-grey" in pic.used:
        sample("grey: eliminated, side not given", eliminated=True, side=None)
    for marker, (short, long) in pic.marker_names.items():  # the game's other markers, none on the board now
        if marker not in listed:
            entries.append((None, f"{short}: {long}"))

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
                if (kind := el.get("class")) in ("counter", "marker", "marker mine", "stack"):
                    el.set("class", "sample-" + kind.replace(" ", "-"))
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
    elif kind == "overstack":
        pts = [(x + s / 2 * (1 + math.cos(math.radians(a))), y + s / 2 * (1 + math.sin(math.radians(a))))
               for a in range(0, 360, 60)]
        ET.SubElement(g, "polygon", {"points": " ".join(f"{_f(a)},{_f(b)}" for a, b in pts), "fill": "#ece3a8",
                                     "stroke": _OVERSTACK, "stroke-width": _f(pic.size * 0.1),
                                     "stroke-dasharray": _f(pic.size * 0.2)})
    elif kind == "stack":
        side = next(iter(pic.colours), None)
        _stack(pic, g, x + s * 0.45, y + s * 0.55, s * 0.85,
               [{"label": "A1", "side": side}, {"label": "A2", "side": side}])
    else:
        _counter(pic, g, swatch[1], x, y, s)
