"""The board picture: rich terminal map and SVG, fed from the test game's view."""

from __future__ import annotations

import xml.etree.ElementTree as ET


from engine_game.game import GAME, State
from pbem.engine.boardview import from_stacks, sides_of
from pbem.engine.machine import Ordered, apply_all
from pbem.engine.mapdata import load_map
from pbem.render.svg import board_svg

SVG = "{http://www.w3.org/2000/svg}"
COLOURS = {s.id: s.colour for s in GAME.counters.sides.values()}
NAMES = {s.id: s.name for s in GAME.counters.sides.values()}


def board_of(gmap, stacks=None, colours=None, names=None, box_names=None):
    """The board of ``stacks`` ({where: [{label, side?, marker?}]}) on ``gmap``, the sides those of ``colours``."""
    return from_stacks("test", sides_of(list(colours or {}), names, colours), gmap, stacks or {}, box_names=box_names)


def after_red_moves() -> State:
    state = GAME.initial_state({})
    parsed = GAME.parse_orders(
        {"order": [{"move": "R1: 0202 0302 0402"}, {"move": "R2: 0203 0303 0404"}, {"attack": "0504", "with": ["R2"]}]}, "red"
    )
    state, _ = apply_all(GAME, state, [Ordered("red", 2, i, o) for i, o in enumerate(parsed.public)])
    return state


def big_map(layout: str, n: int = 20) -> bytes:
    return f"""
[map]
name = "Big"
layout = "{layout}"
columns = [1, {n}]
rows = [1, {n}]
default_terrain = "clear"
[terrain.clear]
[terrain.hill]
colour = "#b59a6a"
[hexes]
hill = ["0202", "{n:02d}{n:02d}"]
""".encode()


# The terminal board: tests/test_terminal_board.py


# --------------------------------------------------------------------------- SVG


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg.encode("utf-8"))


def test_svg_is_valid_xml_with_the_whole_board(tmp_path):
    view = GAME.view(after_red_moves(), None)
    svg = board_svg(board_of(GAME.map, view["stacks"], COLOURS, NAMES))
    (tmp_path / "board.svg").write_text(svg)  # what `pbem show --svg` writes
    root = ET.parse(tmp_path / "board.svg").getroot()
    assert root.tag == f"{SVG}svg" and root.get("viewBox").startswith("0 0 ")
    terrain = root.find(f"{SVG}g[@id='terrain']")
    hexes = terrain.findall(f"{SVG}polygon")
    assert len(hexes) == 36
    assert sum(1 for p in hexes if p.get("fill") == "#7fb2dd") == 2  # the two lake hexes
    numbers = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "hexnumber"]
    assert sorted(numbers) == sorted(GAME.map.label(h) for h in GAME.map.hexes())
    sides = root.find(f"{SVG}g[@id='hexsides']")
    count = {g.get("class"): len(g.findall(f"{SVG}line")) for g in sides}
    assert count == {"river": 4, "all_sea": 0, "fortified": 1, "road": 3, "trail": 2}
    counters = [r for r in root.iter(f"{SVG}rect") if r.get("class") == "counter"]
    assert sorted(r.get("data-side") for r in counters) == ["blue", "blue", "red", "red", "red"]  # R3 in the landing box
    labels = {t.text for t in root.iter(f"{SVG}text")}
    assert {"R1", "R2", "B1", "B2", "R3", "Landing box -> 0101", "Redtown", "Bluetown"} <= labels
    # the combat marker lies under B1; the stack's tooltip lists it
    tips = {t.text for g in root.iter(f"{SVG}g") if g.get("class") == "stack" for t in g.findall(f"{SVG}title")}
    assert "B1, combat (2:1)" in tips


def test_svg_hexagons_are_flat_or_pointy():
    def top_corners(svg: str) -> int:
        poly = parse(svg).find(f"{SVG}g[@id='terrain']/{SVG}polygon")
        ys = [float(p.split(",")[1]) for p in poly.get("points").split()]
        assert len(ys) == 6
        return sum(1 for y in ys if abs(y - min(ys)) < 0.01)

    assert top_corners(board_svg(board_of(GAME.map))) == 2  # odd-q: flat top
    assert top_corners(board_svg(board_of(load_map(big_map("even-r", 4))))) == 1  # pointy top


def test_svg_escapes_labels():
    svg = board_svg(board_of(GAME.map, {"0303": [{"label": "<&>\"'", "side": "x", "marker": "]]>"}]}), title="a < b & c")
    root = parse(svg)
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "<&>\"'" in texts and "]]>" in texts and "a < b & c" in texts
    assert "<&>" not in svg.replace("&lt;&amp;&gt;", "")


def test_svg_river_runs_along_the_shared_edge():
    root = parse(board_svg(board_of(GAME.map), numbers=False, legend=False))
    river = root.find(f"{SVG}g[@id='hexsides']/{SVG}g[@class='river']")
    terrain = {p.find(f"{SVG}title").text.split()[0]: p.get("points") for p in root.find(f"{SVG}g[@id='terrain']")}
    corners = lambda label: {tuple(round(float(v), 1) for v in pt.split(",")) for pt in terrain[label].split()}  # noqa: E731
    shared = corners("0303") & corners("0403")
    line = river.findall(f"{SVG}line")[0]
    ends = {(round(float(line.get("x1")), 1), round(float(line.get("y1")), 1)), (round(float(line.get("x2")), 1), round(float(line.get("y2")), 1))}
    assert len(shared) == 2 and ends == shared
