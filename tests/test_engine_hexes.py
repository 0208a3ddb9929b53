"""Hex grid: known answers (Ambon's odd-q grid from ambon-notes.md) and round trips."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem.engine.hexes import (
    DIRECTIONS,
    OFFSET_LAYOUTS,
    Grid,
    Hex,
    Hexside,
    Layout,
    distance,
    hex_range,
    line,
    ring,
)
from pbem.errors import InputError

AMBON = Grid(Layout("odd-q"), columns=(1, 30), rows=(1, 30))


def labels(grid, hexes):
    return [grid.label(h) for h in hexes]


def H(text, grid=AMBON):
    return grid.parse(text)


# --------------------------------------------------------------------------- Ambon's grid (8.0, 15.0)


def test_ambon_8_0_hex_1609_has_exactly_these_neighbours():
    assert set(labels(AMBON, H("1609").neighbours())) == {"1508", "1509", "1608", "1610", "1708", "1709"}


@pytest.mark.parametrize(
    "a, b, adjacent",
    [
        ("1507", "1508", True),   # 15.0: 3.C moves 1507 -> 1508
        ("1508", "1608", True),   # 15.0: 3.C halved for being next to 1608
        ("1509", "1608", False),  # 15.0: 3.A and 3.B are not halved
        ("1708", "1608", True),   # 15.0: HQ in 1708 supports 1608
        ("1708", "1609", True),
        ("1708", "1809", True),   # Paso
        ("1410", "1509", True),   # ambon-notes: 1410 is adjacent to 1509...
        ("1310", "1509", False),  # ...1310 is not (the 15.0 misprint)
    ],
)
def test_ambon_15_0_adjacencies(a, b, adjacent):
    assert H(a).is_adjacent(H(b)) is adjacent
    assert (H(a).distance(H(b)) == 1) is adjacent


def test_odd_q_parity_rule_from_the_notes():
    # even column c: neighbours in c+-1 are rows r-1 and r; odd column: r and r+1
    assert set(labels(AMBON, H("1609").neighbours())) >= {"1508", "1509", "1708", "1709"}
    assert set(labels(AMBON, H("1509").neighbours())) == {"1409", "1410", "1508", "1510", "1609", "1610"}


@pytest.mark.parametrize(
    "offset, neighbours_of_0303",
    [
        # derived by hand from each layout's definition
        ("odd-q", {"0203", "0204", "0302", "0304", "0403", "0404"}),
        ("even-q", {"0202", "0203", "0302", "0304", "0402", "0403"}),
        ("odd-r", {"0302", "0402", "0203", "0403", "0304", "0404"}),
        ("even-r", {"0202", "0302", "0203", "0403", "0204", "0304"}),
    ],
)
def test_neighbours_in_each_layout(offset, neighbours_of_0303):
    grid = Grid(Layout(offset), (1, 9), (1, 9))
    assert set(labels(grid, grid.parse("0303").neighbours())) == neighbours_of_0303


# --------------------------------------------------------------------------- distance, ring, range, line


@pytest.mark.parametrize(
    "a, b, d",
    [("1609", "1609", 0), ("1507", "1609", 2), ("0101", "0501", 4), ("0101", "0106", 5), ("0101", "0606", 7), ("1310", "1509", 2)],
)
def test_distance_known_answers(a, b, d):
    assert distance(H(a), H(b)) == d == H(b).distance(H(a))


def test_ring_known_answers():
    assert ring(H("1010"), 0) == (H("1010"),)
    # starts at direction 4 (lower left) and walks counter-clockwise
    assert labels(AMBON, ring(H("1010"), 1)) == ["0910", "1011", "1110", "1109", "1009", "0909"]
    r2 = ring(H("1010"), 2)
    assert len(r2) == 12 and len(set(r2)) == 12
    assert all(H("1010").distance(h) == 2 for h in r2)
    # by hand: 2 in the same column, 2 in each odd column beside it, 3 in each even column two away
    assert set(labels(AMBON, r2)) == {
        "1008", "1012", "0908", "0911", "1108", "1111", "0809", "0810", "0811", "1209", "1210", "1211",
    }
    with pytest.raises(InputError):
        ring(H("1010"), -1)


def test_range_counts_and_members():
    for n in range(5):
        within = hex_range(H("1010"), n)
        assert len(within) == 1 + 3 * n * (n + 1)
        assert all(H("1010").distance(h) <= n for h in within)
    assert set(hex_range(H("1609"), 1)) == {H("1609"), *H("1609").neighbours()}
    assert H("1609").within(2) == hex_range(H("1609"), 2)


def test_line_known_answers():
    # straight down a column
    assert labels(AMBON, line(H("1601"), H("1605"))) == ["1601", "1602", "1603", "1604", "1605"]
    # along a row of an odd-q map: exactly between two hexes in even columns,
    # the nudge always picks the lower one
    assert labels(AMBON, line(H("0101"), H("0501"))) == ["0101", "0202", "0301", "0402", "0501"]
    assert labels(AMBON, line(H("0101"), H("0101"))) == ["0101"]
    # worked by hand in cube coordinates: 1609 = (16, 1, -17), 1912 = (19, 3, -22)
    assert labels(AMBON, line(H("1609"), H("1912"))) == ["1609", "1709", "1710", "1811", "1812", "1912"]
    assert labels(AMBON, line(H("1609"), H("1910"))) == ["1609", "1709", "1810", "1910"]


# --------------------------------------------------------------------------- hexsides


def test_hexside_is_an_unordered_pair():
    a, b = H("1609"), H("1709")
    assert Hexside(a, b) == Hexside(b, a)
    assert hash(Hexside(a, b)) == hash(Hexside(b, a))
    assert len({Hexside(a, b), Hexside(b, a)}) == 1
    side = Hexside(b, a)
    assert side.other(a) == b and side.other(b) == a
    assert a in side and H("1610") not in side


def test_hexside_of_non_adjacent_hexes_raises():
    with pytest.raises(InputError, match="not adjacent"):
        Hexside(H("1509"), H("1608"))
    with pytest.raises(InputError, match="not adjacent"):
        Hexside(H("1609"), H("1609"))
    with pytest.raises(InputError, match="'1310' and '1509' are not adjacent"):
        AMBON.hexside("1310", "1509")
    assert AMBON.hexside("1410", "1509") == Hexside(H("1509"), H("1410"))


# --------------------------------------------------------------------------- numbering


@pytest.mark.parametrize(
    "text, message",
    [
        ("16O9", "hex number '16O9' is not CCRR (4 digits, e.g. '0101')"),
        ("160", "hex number '160' is not CCRR"),
        ("16090", "hex number '16090' is not CCRR"),
        ("", "hex number '' is not CCRR"),
        ("١٦٠٩", "is not CCRR"),  # Arabic-Indic digits are not hex numbers
        (1609, "hex number 1609 is not a string"),
    ],
)
def test_bad_numbers_are_quoted(text, message):
    with pytest.raises(InputError) as err:
        AMBON.parse(text)
    assert message in str(err.value)


def test_off_the_map_is_quoted_with_the_extent():
    grid = Grid(Layout("odd-q"), (1, 20), (1, 20))
    with pytest.raises(InputError) as err:
        grid.parse("2101")
    assert str(err.value) == "hex '2101' is off the map (columns 01-20, rows 01-20)"
    with pytest.raises(InputError, match="'0000' is off the map"):
        grid.parse("0000")
    assert grid.parse(" 2020 ") == grid.layout.to_hex(20, 20)


def test_bad_layout():
    with pytest.raises(InputError, match="'odd-x' is not one of odd-q, even-q, odd-r, even-r"):
        Layout("odd-x")


def test_cube_coordinates_must_sum_to_zero():
    with pytest.raises(InputError, match=r"\(1, 1, 1\) do not sum to 0"):
        Hex(1, 1, 1)
    assert Hex.axial(2, -5) == Hex(2, -5, 3)


def test_grid_hexes_and_neighbours_on_the_map():
    grid = Grid(Layout("odd-q"), (1, 6), (1, 6))
    hexes = list(grid.hexes())
    assert len(hexes) == 36 and len(set(hexes)) == 36
    assert labels(grid, hexes[:3]) == ["0101", "0102", "0103"]
    assert set(labels(grid, grid.neighbours(grid.parse("0101")))) == {"0102", "0201", "0202"}


def test_three_digit_numbers():
    grid = Grid(Layout("odd-q", 3, 3), (1, 120), (1, 120))
    h = grid.parse("101099")
    assert grid.label(h) == "101099"
    assert set(labels(grid, h.neighbours())) == {"100099", "100100", "101098", "101100", "102099", "102100"}


# --------------------------------------------------------------------------- round trips (hypothesis)

offsets = st.sampled_from(OFFSET_LAYOUTS)
numbers = st.integers(min_value=0, max_value=99)


@given(offsets, numbers, numbers)
def test_numbering_round_trip(offset, col, row):
    lay = Layout(offset)
    text = lay.number(col, row)
    h = lay.parse(text)
    assert lay.label(h) == text
    assert lay.to_offset(h) == (col, row)


@given(offsets, st.integers(-200, 200), st.integers(-200, 200))
def test_cube_round_trip(offset, q, r):
    lay = Layout(offset)
    h = Hex.axial(q, r)
    assert lay.to_hex(*lay.to_offset(h)) == h


@given(offsets, st.integers(2, 97), st.integers(2, 97))
def test_neighbours_follow_the_parity_rule(offset, col, row):
    """Each layout's printed-map rule, stated independently of the cube maths."""
    lay = Layout(offset)
    if offset.endswith("-q"):
        shoved = (col % 2 == 1) == offset.startswith("odd")
        side_rows = (row, row + 1) if shoved else (row - 1, row)
        expected = {(col, row - 1), (col, row + 1)} | {(c, r) for c in (col - 1, col + 1) for r in side_rows}
    else:
        shoved = (row % 2 == 1) == offset.startswith("odd")
        side_cols = (col, col + 1) if shoved else (col - 1, col)
        expected = {(col - 1, row), (col + 1, row)} | {(c, r) for r in (row - 1, row + 1) for c in side_cols}
    assert {lay.to_offset(n) for n in lay.to_hex(col, row).neighbours()} == expected


hexes = st.builds(Hex.axial, st.integers(-30, 30), st.integers(-30, 30))


@given(hexes, hexes)
def test_line_is_connected_and_as_long_as_the_distance(a, b):
    path = line(a, b)
    assert path[0] == a and path[-1] == b
    assert len(path) == a.distance(b) + 1
    assert all(x.distance(y) == 1 for x, y in zip(path, path[1:], strict=False))
    assert line(a, b) == path  # deterministic


@given(hexes, st.integers(0, 6))
def test_ring_and_range_agree(center, radius):
    ring_hexes = ring(center, radius)
    assert len(ring_hexes) == max(1, 6 * radius)
    assert set(ring_hexes) == {h for h in hex_range(center, radius) if center.distance(h) == radius}
    assert all(x.distance(y) == 1 for x, y in zip(ring_hexes, ring_hexes[1:], strict=False)) or radius == 0


@given(hexes, st.integers(0, 5))
def test_direction_to_inverts_neighbour(h, d):
    assert h.direction_to(h.neighbour(d)) == d
    assert DIRECTIONS[d] + DIRECTIONS[(d + 3) % 6] == Hex(0, 0, 0)


# --------------------------------------------------------------------------- geometry for pictures


@pytest.mark.parametrize("offset", OFFSET_LAYOUTS)
def test_pixel_geometry(offset):
    lay = Layout(offset)
    a = lay.to_hex(5, 5)
    for b in a.neighbours():
        (ax, ay), (bx, by) = lay.center(a, 10), lay.center(b, 10)
        assert math.isclose(math.hypot(ax - bx, ay - by), 10 * math.sqrt(3))
        p, q = lay.edge(Hexside(a, b), 10)
        # the edge's ends are corners of both hexes
        for point in (p, q):
            assert any(math.isclose(point[0], x, abs_tol=1e-9) and math.isclose(point[1], y, abs_tol=1e-9) for x, y in lay.corners(b, 10))
    corners = lay.corners(a, 10)
    top = min(y for _, y in corners)
    flat_top_edge = sum(1 for _, y in corners if math.isclose(y, top))
    assert flat_top_edge == (2 if lay.flat_top else 1)
