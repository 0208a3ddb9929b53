"""The board as an SVG picture that opens in any browser.

Hexes are drawn as hexagons (flat-topped for ``-q`` layouts, pointy-topped
for ``-r``) filled with their terrain colour and numbered; roads and trails as
lines from hex centre to hex centre across their hexsides; rivers, all-sea
and fortified hexsides as lines along the hex edge; towns and key locations
as symbols; counters as labelled squares in their side's colour, a stack as
offset squares with the top one uppermost and its size in the corner.  Boxes
are drawn beside the map with their contents (``<g class="box"
data-box="ID">``), and a legend below: first the holding boxes that only the
view names (Ambon's ``off-map``, 14.2), outlined dashed, then the map's own
off-map boxes.  A key of ``stacks`` that is not a hex number is a box, never
parsed as a hex (:func:`pbem.render.hexmap.is_box`).

The document is built with :mod:`xml.etree.ElementTree`, so every label is
escaped and the result is well-formed XML.  ``stacks`` is the structure the
terminal map takes (see :mod:`pbem.render.hexmap`).
"""

from __future__ import annotations

import math
import textwrap
import xml.etree.ElementTree as ET
from typing import Any, Mapping, Sequence

from pbem.engine.mapdata import GameMap
from pbem.render.hexmap import Stacks, boxes_of, check_stacks, ink_for, is_box, side_palette, sides_in

__all__ = ["board_svg"]

SVG_NS = "http://www.w3.org/2000/svg"

_LINE_STYLES = {
    # feature: (stroke, width factor, dasharray, drawn along the edge?)
    "river": ("#2b6cb0", 0.16, None, True),
    "all_sea": ("#123a6b", 0.20, "4 3", True),
    "fortified": ("#5b2c06", 0.14, "2 2", True),
    "road": ("#8b5a2b", 0.12, None, False),
    "trail": ("#8b5a2b", 0.08, "5 3", False),
}


def _f(x: float) -> str:
    """A coordinate with at most two decimals and no trailing zeros."""
    text = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


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
) -> str:
    """The SVG text of ``gmap`` with ``stacks`` on it.

    ``size`` is the hex circumradius in pixels; ``side_colours`` maps side ids
    to ``#rrggbb`` (others get a fixed palette); ``box_names`` box ids to
    captions."""
    stacks = stacks or {}
    check_stacks(gmap, stacks)
    lay = gmap.layout
    sides = list(side_colours or {}) + [s for s in sides_in(stacks) if s not in (side_colours or {})]
    colours = side_palette(sides, side_colours)
    names = dict(side_names or {})

    hexes = list(gmap.hexes())
    xs = [x for h in hexes for x, _ in lay.corners(h, size)]
    ys = [y for h in hexes for _, y in lay.corners(h, size)]
    margin = size * 0.5
    top = size * 1.2 if (title or gmap.name) else margin
    ox, oy = margin - min(xs), top - min(ys)
    map_w, map_h = max(xs) - min(xs), max(ys) - min(ys)

    def at(h) -> tuple[float, float]:
        x, y = lay.center(h, size)
        return x + ox, y + oy

    root = ET.Element("svg", {"xmlns": SVG_NS, "version": "1.1", "font-family": "Helvetica, Arial, sans-serif"})
    ET.SubElement(root, "title").text = title or gmap.name or "board"
    ET.SubElement(root, "rect", {"x": "0", "y": "0", "width": "100%", "height": "100%", "fill": "#fbfaf5"})
    if title or gmap.name:
        ET.SubElement(root, "text", {"x": _f(margin), "y": _f(size * 0.8), "font-size": _f(size * 0.5), "font-weight": "bold"}).text = title or gmap.name

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

    # hex features and numbers ----------------------------------------------
    g = ET.SubElement(root, "g", {"id": "features"})
    for h in hexes:
        x, y = at(h)
        if h in gmap.key_locations:
            ET.SubElement(g, "polygon", {"points": _star(x - size * 0.62, y, size * 0.2), "fill": "#f1c40f", "stroke": "#7d6608", "stroke-width": "0.8"})
        elif h in gmap.towns:
            s = size * 0.2
            ET.SubElement(g, "rect", {"x": _f(x - size * 0.62 - s / 2), "y": _f(y - s / 2), "width": _f(s), "height": _f(s), "fill": "#444444"})
    place_of = {h: name for name, h in gmap.places.items()}
    for h, kl in gmap.key_locations.items():
        place_of.setdefault(h, kl.name)
    for h in hexes:
        x, y = at(h)
        ink = ink_for(gmap.terrain_types[gmap.terrain_at(h)].colour)
        if numbers:
            ET.SubElement(g, "text", {
                "x": _f(x), "y": _f(y - size * 0.55), "font-size": _f(size * 0.28),
                "text-anchor": "middle", "fill": ink, "opacity": "0.8", "class": "hexnumber",
            }).text = gmap.label(h)
        if h in place_of:
            ET.SubElement(g, "text", {
                "x": _f(x), "y": _f(y + size * 0.82), "font-size": _f(size * 0.24),
                "text-anchor": "middle", "fill": ink, "font-style": "italic",
            }).text = place_of[h]

    # counters ------------------------------------------------------------
    g = ET.SubElement(root, "g", {"id": "counters"})
    for where, items in stacks.items():
        if not items or is_box(gmap, where):
            continue
        x, y = at(gmap.hex(where))
        _stack(g, x, y, size * 0.72, items, colours)

    # boxes, beside the map: holding boxes first, then the map's own ----------------
    box_x = margin + map_w + size * 0.6
    per_row = 4
    cs, gap = size * 0.8, size * 0.2  # a counter in a box, and the space between two
    box_w = gap + per_row * (cs + gap)
    caption_size = size * 0.3
    chars = max(8, int((box_w - 2 * gap) / (caption_size * 0.56)))  # bold Helvetica: about 0.55 em a character
    box_y = top
    drawn = boxes_of(gmap, stacks, box_names, empty=True)
    if drawn:
        g = ET.SubElement(root, "g", {"id": "boxes"})
    for box in drawn:
        lines = textwrap.wrap(box.caption + (f" -> {box.target}" if box.target else ""), chars) or [box.id]
        head = gap + len(lines) * caption_size * 1.2 + gap * 0.5
        rows = max(1, math.ceil(len(box.items) / per_row))
        h_box = head + rows * (cs + gap)
        bg = ET.SubElement(g, "g", {"class": "box", "data-box": box.id})
        rect = {"x": _f(box_x), "y": _f(box_y), "width": _f(box_w), "height": _f(h_box), "fill": "#eeeeee",
                "stroke": "#555555"}
        if not box.listed:
            rect.update({"fill": "#f6f1e2", "stroke-dasharray": "5 3", "stroke-width": "1.5"})
        ET.SubElement(bg, "rect", rect)
        caption = ET.SubElement(bg, "text", {"x": _f(box_x + gap), "y": _f(box_y + gap + caption_size),
                                             "font-size": _f(caption_size), "font-weight": "bold", "class": "caption"})
        if len(lines) == 1:
            caption.text = lines[0]
        else:  # wrapped to the box's width, a line a tspan
            for i, line in enumerate(lines):
                ET.SubElement(caption, "tspan", {"x": _f(box_x + gap), "dy": "0" if i == 0 else _f(caption_size * 1.2)}).text = line
        for i, it in enumerate(box.items):
            cx = box_x + gap + (i % per_row) * (cs + gap) + cs / 2
            cy = box_y + head + (i // per_row) * (cs + gap) + cs / 2
            _stack(bg, cx, cy, cs, [it], colours)
        box_y += h_box + size * 0.3
    total_w = (box_x + box_w + margin) if drawn else (margin * 2 + map_w)
    total_h = max(top + map_h + margin, box_y)

    # legend ----------------------------------------------------------------
    if legend:
        g = ET.SubElement(root, "g", {"id": "legend", "font-size": _f(size * 0.32)})
        ly = total_h + size * 0.2
        lx = margin
        row_h = size * 0.6
        widest = 0.0
        for tt in gmap.terrain_types.values():
            ET.SubElement(g, "rect", {"x": _f(lx), "y": _f(ly), "width": _f(size * 0.5), "height": _f(size * 0.4), "fill": tt.colour, "stroke": "#555555"})
            ET.SubElement(g, "text", {"x": _f(lx + size * 0.65), "y": _f(ly + size * 0.35)}).text = tt.label
            lx += size * 0.9 + len(tt.label) * size * 0.2
            widest = max(widest, lx)
        ly += row_h
        lx = margin
        for feature in ("road", "trail", "river", "all_sea", "fortified"):
            if not gmap.hexsides.get(feature):
                continue
            stroke, width, dash, _ = _LINE_STYLES[feature]
            attrs = {"x1": _f(lx), "y1": _f(ly + size * 0.2), "x2": _f(lx + size * 0.6), "y2": _f(ly + size * 0.2), "stroke": stroke, "stroke-width": _f(size * width)}
            if dash:
                attrs["stroke-dasharray"] = dash
            ET.SubElement(g, "line", attrs)
            name = feature.replace("_", "-")
            ET.SubElement(g, "text", {"x": _f(lx + size * 0.75), "y": _f(ly + size * 0.32)}).text = name
            lx += size * 1.0 + len(name) * size * 0.2
            widest = max(widest, lx)
        if colours:
            ly += row_h
            lx = margin
            for side, colour in colours.items():
                ET.SubElement(g, "rect", {"x": _f(lx), "y": _f(ly), "width": _f(size * 0.4), "height": _f(size * 0.4), "fill": colour, "stroke": "#222222"})
                label = names.get(side, side)
                ET.SubElement(g, "text", {"x": _f(lx + size * 0.55), "y": _f(ly + size * 0.35)}).text = label
                lx += size * 0.9 + len(label) * size * 0.2
                widest = max(widest, lx)
        total_h = ly + row_h + margin
        total_w = max(total_w, widest + margin)

    root.set("width", _f(total_w))
    root.set("height", _f(total_h))
    root.set("viewBox", f"0 0 {_f(total_w)} {_f(total_h)}")
    ET.indent(root, space=" ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _star(cx: float, cy: float, r: float) -> str:
    pts = []
    for i in range(10):
        rad = r if i % 2 == 0 else r * 0.45
        a = math.radians(-90 + 36 * i)
        pts.append(f"{_f(cx + rad * math.cos(a))},{_f(cy + rad * math.sin(a))}")
    return " ".join(pts)


def _stack(g: ET.Element, x: float, y: float, s: float, items: Sequence[Mapping[str, Any]], colours: Mapping[str, str]) -> None:
    """Draw ``items`` (top first) as offset squares centred near ``(x, y)``."""
    shown = list(items)[:4]
    off = s * 0.08
    n = len(shown)
    sg = ET.SubElement(g, "g", {"class": "stack"})
    ET.SubElement(sg, "title").text = ", ".join(
        str(it["label"]) + (f" ({it['marker']})" if it.get("marker") else "") for it in items
    )
    for depth in range(n - 1, -1, -1):  # bottom first, top unit last
        it = shown[depth]
        side = it.get("side")
        fill = colours.get(side, "#777777") if side else "#f4d03f"
        cx = x - s / 2 + (n - 1 - depth) * off - (n - 1) * off / 2
        cy = y - s / 2 + (n - 1 - depth) * off - (n - 1) * off / 2 + s * 0.05
        attrs = {"x": _f(cx), "y": _f(cy), "width": _f(s * 0.92), "height": _f(s * 0.92), "rx": _f(s * 0.08),
                 "fill": fill, "stroke": "#111111", "stroke-width": "0.8", "class": "counter" if side else "marker"}
        if side:
            attrs["data-side"] = str(side)
        ET.SubElement(sg, "rect", attrs)
        if depth == 0:
            ink = ink_for(fill)
            label = str(it["label"])
            attrs = {"x": _f(cx + s * 0.46), "y": _f(cy + s * 0.52), "font-size": _f(s * 0.32),
                     "font-weight": "bold", "text-anchor": "middle", "fill": ink}
            if len(label) * s * 0.32 * 0.6 > s * 0.84:  # wider than the counter: condensed to fit, not shrunk
                attrs.update({"textLength": _f(s * 0.84), "lengthAdjust": "spacingAndGlyphs"})
            ET.SubElement(sg, "text", attrs).text = label
            if it.get("marker"):
                ET.SubElement(sg, "text", {
                    "x": _f(cx + s * 0.46), "y": _f(cy + s * 0.8), "font-size": _f(s * 0.2),
                    "text-anchor": "middle", "fill": ink,
                }).text = str(it["marker"])
            if len(items) > 1:
                ET.SubElement(sg, "text", {
                    "x": _f(cx + s * 0.86), "y": _f(cy + s * 0.24), "font-size": _f(s * 0.2),
                    "text-anchor": "end", "fill": ink, "class": "count",
                }).text = str(len(items))
