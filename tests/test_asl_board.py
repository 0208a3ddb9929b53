"""ASL board hex coordinates: names, adjacency on the board's grid, several
boards -- known answers from the excerpt's Dare-Death Example, and round trips."""

from __future__ import annotations

import pytest

from pbem.errors import InputError
from pbem.games.asl.board import HEXROWS, BoardConfig, components, rows_of

BOARD = BoardConfig.single()


def names(hexes) -> list[str]:
    return sorted(BOARD.label(h) for h in hexes)


def test_hexrows_are_a_to_z_then_aa_to_gg():
    assert len(HEXROWS) == 33 and HEXROWS[0] == "A" and HEXROWS[25] == "Z" and HEXROWS[26:] == (
        "AA", "BB", "CC", "DD", "EE", "FF", "GG")


def test_half_hex_rows_0_only_on_the_shifted_hexrows():
    assert list(rows_of(25)) == list(range(0, 11))  # Z0 exists (the example's Z0)
    assert list(rows_of(26)) == list(range(1, 11))  # AA1 is the first AA hex
    BOARD.parse("Z0")
    with pytest.raises(InputError, match="hexrow AA holds hexes 1-10"):
        BOARD.parse("AA0")


def test_dare_death_example_adjacency_known_answers():
    """A in Z0 enters Y1; from Y1 both Y2 and X1 lead into X2; D in AA1 and the
    8-0 in Z0 are adjacent; E in X3 advances into X2."""
    assert BOARD.adjacent("Z0", "Y1")
    assert BOARD.adjacent("Y1", "Y2") and BOARD.adjacent("Y1", "X1")
    assert BOARD.adjacent("Y2", "X2") and BOARD.adjacent("X1", "X2")
    assert not BOARD.adjacent("Y1", "X2")
    assert BOARD.adjacent("X3", "X2")
    assert BOARD.adjacent("AA1", "Z0")
    assert not BOARD.adjacent("Z0", "Z2")
    assert BOARD.distance("Z0", "X2") == 3
    assert names(BOARD.neighbours("Y2")) == ["X1", "X2", "Y1", "Y3", "Z1", "Z2"]
    assert names(BOARD.neighbours("X2")) == ["W2", "W3", "X1", "X3", "Y2", "Y3"]


def test_edges_have_fewer_neighbours():
    assert names(BOARD.neighbours("A1")) == ["A2", "B0", "B1"]
    assert names(BOARD.neighbours("GG10")) == ["FF10", "FF9", "GG9"]


def test_every_hex_name_round_trips():
    count = 0
    for col, letters in enumerate(HEXROWS):
        for row in rows_of(col):
            assert BOARD.label(BOARD.parse(f"{letters}{row}")) == f"{letters}{row}"
            count += 1
    assert count == 17 * 10 + 16 * 11


@pytest.mark.parametrize("text, message", [
    ("X", "not an ASL hex"),
    ("2X", "not an ASL hex"),
    ("AB3", "not one of A-Z, AA-GG"),
    ("HH3", "not one of A-Z, AA-GG"),
    ("X11", "holds hexes 0-10"),
    ("4X2", "board '4' is not in play"),
])
def test_bad_hex_names_are_quoted(text, message):
    with pytest.raises(InputError, match=message) as err:
        BOARD.parse(text)
    assert repr(text) in str(err.value)


def test_boards_side_by_side_share_the_edge_half_hexes():
    config = BoardConfig.from_value(["y", "z"])
    assert config.parse("yGG5") == config.parse("zA5")
    assert config.label(config.parse("zA5")) == "yGG5"
    assert config.adjacent("yFF5", "zA5") and config.distance("yFF5", "zB5") == 2
    with pytest.raises(InputError, match="name its board"):
        config.parse("X2")


def test_boards_one_above_the_other_share_the_long_edge_half_hexes():
    config = BoardConfig.from_value([["4"], ["5"]])
    assert config.parse("4B10") == config.parse("5B0")
    assert config.adjacent("4A10", "5A1")
    assert config.distance("4A9", "5A2") == 3


def test_one_named_board_needs_no_prefix():
    config = BoardConfig.from_value("y")
    assert config.parse("X2") == config.parse("yX2")


@pytest.mark.parametrize("value", [[], [["y"], ["z", "w"]], ["y", "y"], "Y!", [["4", ""]]])
def test_bad_board_configurations(value):
    with pytest.raises(InputError):
        BoardConfig.from_value(value)


def test_components_join_through_adjacent_hexes():
    hexes = [BOARD.parse(h) for h in ("P4", "P5", "P6", "R4")]
    groups = sorted(names(g) for g in components(hexes))
    assert groups == [["P4", "P5", "P6"], ["R4"]]
