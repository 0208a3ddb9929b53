"""The board picture: rich terminal map and SVG, fed from the test game's view."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from rich.console import Console

from engine_game.game import GAME, State
from pbem.engine.machine import Ordered, apply_all
from pbem.engine.mapdata import load_map
from pbem.render.hexmap import render_map
from pbem.render.svg import board_svg
from pbem.errors import InputError

SVG = "{http://www.w3.org/2000/svg}"
COLOURS = {s.id: s.colour for s in GAME.counters.sides.values()}
NAMES = {s.id: s.name for s in GAME.counters.sides.values()}


def after_red_moves() -> State:
    state = GAME.initial_state({})
    parsed = GAME.parse_orders(
        {"order": [{"move": "R1: 0202 0302 0402"}, {"move": "R2: 0203 0303 0404"}, {"attack": "0504", "with": ["R2"]}]}, "red"
    )
    state, _ = apply_all(GAME, state, [Ordered("red", 2, i, o) for i, o in enumerate(parsed.public)])
    return state


def terminal_text(renderable, width: int = 120) -> str:
    console = Console(record=True, width=width, color_system="truecolor", file=open("/dev/null", "w"))
    console.print(renderable)
    return console.export_text()


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


# --------------------------------------------------------------------------- terminal


BOARD = """\
Test Strip - turn 1
      0201.       0401.       0601.
0101.       0301.       0501.
      0202*       0402.       0602.
0102.       0302. R1    0502*
      0203.       0403f B2    0603.
0103.       0303f       0503.
      0204.       0404.       0604.
0104.       0304f R2    0504!
      0205~       0405. B1    0605.
0105.       0305~       0505.
      0206.       0406.       0606.
0106.       0306.       0506.

Terrain:  .  clear   f  forest   ~  lake
Hexes:   * key location  # town  ! markers under units
Sides:       Red      Blue
Stacks:  below each hex number: top unit, first letter of its marker, number of units
Landing box (-> 0101):  R3
"""


def test_terminal_board_known_answer():
    view = GAME.view(after_red_moves(), None)
    text = terminal_text(render_map(GAME.map, view["stacks"], side_colours=COLOURS, side_names=NAMES, title="Test Strip - turn 1"))
    assert "\n".join(line.rstrip() for line in text.splitlines()) + "\n" == BOARD


def test_terminal_board_has_colours():
    view = GAME.view(after_red_moves(), None)
    console = Console(record=True, width=120, color_system="truecolor", file=open("/dev/null", "w"))
    console.print(render_map(GAME.map, view["stacks"], side_colours=COLOURS))
    ansi = console.export_text(styles=True)
    assert "48;2;111;154;82" in ansi  # forest #6f9a52 as a background
    assert "48;2;176;58;46" in ansi  # red's #b03a2e behind R1


def test_stack_cell_shows_marker_and_count():
    stacks = {"0303": [{"label": "3.A", "side": "jp", "marker": "disrupted"}, {"label": "3.B", "side": "jp"}]}
    text = terminal_text(render_map(GAME.map, stacks, legend=False))
    assert "3.Ad2" in text
    text = terminal_text(render_map(GAME.map, {"0101": [{"label": "beachhead"}]}, legend=False))
    assert "beach" in text


def test_twenty_by_twenty_fits_in_120_columns():
    gmap = load_map(big_map("odd-q"))
    text = terminal_text(render_map(gmap, {"1010": [{"label": "X1", "side": "a"}]}))
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 120
    assert "2020" in text and "0101" in text and "showing" not in text
    assert len([line for line in lines if "1010" in line]) == 1


def test_pointy_twenty_columns_pan():
    gmap = load_map(big_map("odd-r"))
    text = terminal_text(render_map(gmap))
    assert max(len(line) for line in text.splitlines()) <= 120
    assert "showing 0101-1920 of columns 01-20, rows 01-20; pan with window=" in text
    assert "2001" not in text
    text = terminal_text(render_map(gmap, window=("1101", "2005")))
    assert "showing 1101-2005" in text and "2005" in text and "1006" not in text and "2006" not in text


def test_bad_stacks_and_windows_are_quoted():
    with pytest.raises(InputError, match="hex '0909' is off the map"):
        render_map(GAME.map, {"0909": [{"label": "X"}]})
    with pytest.raises(InputError, match="has no 'label'"):
        render_map(GAME.map, {"0101": [{"side": "red"}]})
    with pytest.raises(InputError, match="window"):
        render_map(GAME.map, window=("0505", "0101"))


# --------------------------------------------------------------------------- SVG


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg.encode("utf-8"))


def test_svg_is_valid_xml_with_the_whole_board(tmp_path):
    view = GAME.view(after_red_moves(), None)
    svg = board_svg(GAME.map, view["stacks"], side_colours=COLOURS, side_names=NAMES)
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

    assert top_corners(board_svg(GAME.map)) == 2  # odd-q: flat top
    assert top_corners(board_svg(load_map(big_map("even-r", 4)))) == 1  # pointy top


def test_svg_escapes_labels():
    svg = board_svg(GAME.map, {"0303": [{"label": "<&>\"'", "side": "x", "marker": "]]>"}]}, title="a < b & c")
    root = parse(svg)
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "<&>\"'" in texts and "]]>" in texts and "a < b & c" in texts
    assert "<&>" not in svg.replace("&lt;&amp;&gt;", "")


def test_svg_river_runs_along_the_shared_edge():
    root = parse(board_svg(GAME.map, numbers=False, legend=False))
    river = root.find(f"{SVG}g[@id='hexsides']/{SVG}g[@class='river']")
    terrain = {p.find(f"{SVG}title").text.split()[0]: p.get("points") for p in root.find(f"{SVG}g[@id='terrain']")}
    corners = lambda label: {tuple(round(float(v), 1) for v in pt.split(",")) for pt in terrain[label].split()}  # noqa: E731
    shared = corners("0303") & corners("0403")
    line = river.findall(f"{SVG}line")[0]
    ends = {(round(float(line.get("x1")), 1), round(float(line.get("y1")), 1)), (round(float(line.get("x2")), 1), round(float(line.get("y2")), 1))}
    assert len(shared) == 2 and ends == shared
