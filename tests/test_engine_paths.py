"""Movement in half-MP: cheapest paths, reachable hexes, a player's explicit path."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem.engine.hexes import Grid, Hex, Layout
from pbem.engine.paths import (
    IllegalPathError,
    Path,
    StepCost,
    cheapest_path,
    format_mp,
    half_mp,
    parse_path,
    reachable,
    step_cost,
    validate_path,
)
from pbem.errors import IllegalOrderError, InputError

GRID = Grid(Layout("odd-q"), columns=(1, 20), rows=(1, 20))
H = GRID.parse

# A corner of Ambon as far as 15.0 describes it (ambon-notes.md): 1508 mountain,
# 1509 rough, a river between 1410 and 1509, 1610 sea.  MP costs are halves.
TERRAIN = {H("1508"): ("mountain", 6), H("1509"): ("rough", 4), H("1610"): ("sea", None)}
RIVERS = {frozenset({H("1410"), H("1509")})}


def ambon_cost(ezoc: frozenset[Hex] = frozenset()):
    def cost(a: Hex, b: Hex):
        if not GRID.contains(b):
            return None
        name, price = TERRAIN.get(b, ("open", 2))
        if price is None:
            return StepCost.blocked(name)
        parts = [(name, price)]
        if frozenset({a, b}) in RIVERS:
            parts.append(("river", 2))
        if a in ezoc:
            parts.append(("leave EZOC", 2))
        if b in ezoc:
            parts.append(("enter EZOC", 2))
        return StepCost.of(*parts)

    return cost


def uniform(halves: int = 2):
    return lambda a, b: halves if GRID.contains(b) else None


# --------------------------------------------------------------------------- half-MP


@pytest.mark.parametrize("value, halves", [(0, 0), (1, 2), (0.5, 1), (2.5, 5), ("1.5", 3), (3, 6)])
def test_half_mp(value, halves):
    assert half_mp(value) == halves


@pytest.mark.parametrize("value", [0.3, "x", -1, True, None, "1/3"])
def test_half_mp_rejects(value):
    with pytest.raises(InputError) as err:
        half_mp(value)
    assert repr(value) in str(err.value)


@pytest.mark.parametrize("halves, text", [(0, "0 MP"), (1, "0.5 MP"), (4, "2 MP"), (5, "2.5 MP"), (-3, "-1.5 MP")])
def test_format_mp(halves, text):
    assert format_mp(halves) == text
    assert format_mp(halves, unit=False) == text[:-3]


def test_step_cost_reasons():
    assert StepCost.of(("mountain", 6)) == StepCost(6, "mountain", (("mountain", 6),))
    bill = StepCost.of(("rough", 4), ("river", 2), ("leave EZOC", 2), ("enter EZOC", 2))
    assert bill.halves == 10 and bill.reason == "rough 2 + river 1 + leave EZOC 1 + enter EZOC 1"
    assert StepCost.of(("road", 1)).reason == "road"
    assert StepCost.blocked("all sea").halves is None and not StepCost.blocked("x").allowed
    a, b = H("0101"), H("0102")
    assert step_cost(lambda x, y: 3, a, b) == StepCost(3)
    assert step_cost(lambda x, y: None, a, b).halves is None
    with pytest.raises(TypeError):
        step_cost(lambda x, y: 1.5, a, b)
    with pytest.raises(ValueError):
        step_cost(lambda x, y: -1, a, b)


# --------------------------------------------------------------------------- explicit paths (7.0, 15.0)


def test_design_example_message():
    """architecture: the error names the rule, the unit, the MP left,
    the hex, its terrain and its cost."""
    with pytest.raises(IllegalPathError) as err:
        validate_path("3.A", "1410 1509 1508", half_mp(5), ambon_cost(), grid=GRID)
    e = err.value
    assert str(e) == "7.0: 3.A has 2 MP left; entering 1508 (mountain) costs 3 (step 2 of 1410 1509 1508)"
    assert isinstance(e, IllegalOrderError) and e.exit_code == 1 and e.rule == "7.0"
    assert (e.unit, e.step, e.hex, e.reason, e.needed, e.left) == ("3.A", 2, "1508", "mountain", 6, 4)


def test_15_0_three_c_pays_five_mp_into_1508():
    """15.0: 3.C moves 1507 -> 1508 for 5 MP = 3 mountain + 1 leave EZOC + 1 enter EZOC."""
    ezoc = frozenset({H("1507"), H("1508")})
    path = validate_path("3.C", ["1507", "1508"], half_mp(5), ambon_cost(ezoc), grid=GRID)
    assert path.cost == 10 and path.steps == (10,)
    with pytest.raises(IllegalPathError) as err:
        validate_path("3.C", ["1507", "1508"], half_mp(4), ambon_cost(ezoc), grid=GRID)
    assert str(err.value) == (
        "7.0: 3.C has 4 MP left; entering 1508 (mountain 3 + leave EZOC 1 + enter EZOC 1) costs 5 (step 1 of 1507 1508)"
    )


def test_15_0_three_a_from_1410_not_1310():
    """15.0 says 3.A moves 1310 -> 1509; 1310 is not adjacent to 1509 on the
    odd-q grid (ambon-notes.md), so the test assumes the misprint for 1410:
    2 rough + 1 river + 1 leave EZOC + 1 enter EZOC = 5 MP."""
    ezoc = frozenset({H("1410"), H("1509")})
    path = validate_path("3.A", "1410 1509", half_mp(5), ambon_cost(ezoc), grid=GRID)
    assert path == Path((H("1410"), H("1509")), (10,))
    with pytest.raises(IllegalPathError) as err:
        validate_path("3.A", "1310 1509", half_mp(5), ambon_cost(ezoc), grid=GRID)
    assert str(err.value) == "7.0: 3.A cannot move from 1310 to 1509: not adjacent to 1310 (step 1 of 1310 1509)"


def test_cannot_enter_names_the_reason():
    with pytest.raises(IllegalPathError) as err:
        validate_path("2.B", "1609 1610", 10, ambon_cost(), grid=GRID)
    assert str(err.value) == "7.0: 2.B cannot enter 1610: sea (step 1 of 1609 1610)"
    with pytest.raises(IllegalPathError) as err:
        validate_path("2.B", "0101 0102", 10, lambda a, b: None, grid=GRID)
    assert "cannot enter 0102: cannot be entered" in str(err.value)


def test_repeated_hex_and_bad_numbers():
    with pytest.raises(IllegalPathError, match="cannot move from 0101 to 0101: the same hex again"):
        validate_path("X", "0101 0101", 10, uniform(), grid=GRID)
    with pytest.raises(InputError, match="hex number '01O2' is not CCRR"):
        validate_path("X", "0101 01O2", 10, uniform(), grid=GRID)
    with pytest.raises(InputError, match="'2101' is off the map"):
        validate_path("X", "2001 2101", 10, uniform(), grid=GRID)
    with pytest.raises(InputError, match="enters no hex"):
        validate_path("X", "0101", 10, uniform(), grid=GRID)


def test_custom_rule_and_exact_allowance():
    path = validate_path("R1", [H("0101"), H("0102"), H("0103")], 4, uniform(), grid=GRID, rule="9.9")
    assert path.cost == 4 and path.end == H("0103")
    with pytest.raises(IllegalPathError) as err:
        validate_path("R1", [H("0101"), H("0102"), H("0103")], 3, uniform(), grid=GRID, rule="9.9")
    assert str(err.value) == "9.9: R1 has 0.5 MP left; entering 0103 costs 1 (step 2 of 0101 0102 0103)"


def test_validate_path_without_grid_uses_cube_coordinates():
    with pytest.raises(IllegalPathError, match=r"cannot move from \(0, 0, 0\) to \(2, -1, -1\)"):
        validate_path("X", [Hex(0, 0, 0), Hex(2, -1, -1)], 10, lambda a, b: 2)


@pytest.mark.parametrize("text", ["1410 1509", "1410-1509", "1410, 1509", "1410 -> 1509", ["1410", "1509"]])
def test_parse_path(text):
    assert parse_path(text, GRID) == (H("1410"), H("1509"))


def test_parse_path_empty():
    with pytest.raises(InputError, match="path '' names no hexes"):
        parse_path("", GRID)


# --------------------------------------------------------------------------- searches


def test_cheapest_path_goes_round_the_mountain_and_breaks_ties_by_hex():
    # 1507 and 1509 share only 1508: through it costs 3 + 2 = 5 MP.  Round it,
    # 1408 1409 and 1608 1609 both cost 1 + 1 + 2 = 4 MP in three steps; the
    # tie goes to the smaller hexes (column 14 before 16).
    found = cheapest_path(H("1507"), H("1509"), ambon_cost())
    assert [GRID.label(h) for h in found.hexes] == ["1507", "1408", "1409", "1509"]
    assert found.steps == (2, 2, 4) and found.cost == 8
    # with the allowance for the short way only, still no 5 MP route under 4 MP
    assert cheapest_path(H("1507"), H("1509"), ambon_cost(), allowance=7) is None


def test_cheapest_path_prefers_fewer_steps_at_equal_cost():
    # 0101 -> 0103 costs 2 MP straight down (2 steps) and also 2 MP by
    # 0202 (0.5) and 0203 (0.5) then 0103 (1) in 3 steps: the shorter wins
    cheap = {H("0202"), H("0203")}

    def cost(a, b):
        if not GRID.contains(b):
            return None
        return 1 if b in cheap else 2

    found = cheapest_path(H("0101"), H("0103"), cost)
    assert validate_path("U", "0101 0202 0203 0103", 4, cost, grid=GRID).cost == 4
    assert found.cost == 4
    assert [GRID.label(h) for h in found.hexes] == ["0101", "0102", "0103"]


def test_cheapest_path_is_deterministic():
    a = cheapest_path(H("0505"), H("0909"), uniform())
    assert a == cheapest_path(H("0505"), H("0909"), uniform())
    assert len(a) == H("0505").distance(H("0909")) + 1


def test_cheapest_path_prefers_a_cheaper_longer_route():
    road = {H("0102"), H("0202"), H("0302"), H("0402")}

    def cost(a, b):
        if not GRID.contains(b):
            return None
        return 1 if a in road and b in road else 4

    found = cheapest_path(H("0102"), H("0402"), cost)
    assert [GRID.label(h) for h in found.hexes] == ["0102", "0202", "0302", "0402"] and found.cost == 3


def test_cheapest_path_none_when_walled_off_or_over_allowance():
    wall = set(H("0505").neighbours())
    cost = lambda a, b: None if (b in wall or not GRID.contains(b)) else 2  # noqa: E731
    assert cheapest_path(H("0101"), H("0505"), cost) is None
    assert cheapest_path(H("0101"), H("0104"), uniform(), allowance=5) is None
    assert cheapest_path(H("0101"), H("0104"), uniform(), allowance=6).cost == 6
    assert cheapest_path(H("0101"), H("0101"), uniform()) == Path((H("0101"),), ())


def test_reachable_known_answer():
    got = reachable(H("1010"), 4, uniform())
    assert set(got) == set(H("1010").within(2))
    assert got[H("1010")] == 0 and got[H("1011")] == 2 and got[H("1012")] == 4
    # corner of the map: only the on-map hexes
    corner = reachable(H("0101"), 2, uniform())
    assert {GRID.label(h) for h in corner} == {"0101", "0102", "0201", "0202"}


def test_reachable_no_spend_all_rule():
    """7.0: a unit with 2 MP cannot enter a 3 MP mountain hex at all."""
    got = reachable(H("1507"), half_mp(2), ambon_cost())
    assert H("1508") not in got and H("1610") not in got
    assert got[H("1608")] == 2


@given(st.integers(2, 19), st.integers(2, 19), st.integers(2, 19), st.integers(2, 19))
def test_cheapest_uniform_path_has_distance_length(c1, r1, c2, r2):
    a, b = GRID.layout.to_hex(c1, r1), GRID.layout.to_hex(c2, r2)
    found = cheapest_path(a, b, uniform())
    assert found.cost == 2 * a.distance(b)
    assert validate_path("U", found.hexes, found.cost, uniform()) == found if len(found) > 1 else True
