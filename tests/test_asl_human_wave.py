"""Human Wave (8.5.1) on ASL board hex coordinates: a valid wave, then each
condition failing alone -- six MMC, three or more hexes, a contiguous chain,
an average of two MMC per hex, no hex adjacent to an enemy unit."""

from __future__ import annotations

import pytest

from pbem.errors import InputError
from pbem.games.asl import human_wave
from pbem.games.asl.data import load
from pbem.games.asl.position import parse_position

DATA = load()


def wave_position(placement: dict[str, list[str]], enemies: dict[str, str] | None = None, **extra):
    """Chinese units per hex (counter IDs), enemy units by hex."""
    units = []
    for hexname, types in placement.items():
        for i, t in enumerate(types):
            units.append({"id": f"{hexname}-{i}", "type": t, "hex": hexname})
    for i, (hexname, t) in enumerate((enemies or {"B9": "4-4-8"}).items()):
        units.append({"id": f"J{i}", "type": t, "hex": hexname, "enemy": True})
    return parse_position({"unit": units, **extra}, DATA)


VALID = {"P4": ["3-3-7", "3-3-7"], "P5": ["3-3-7", "3-3-6", "8-0"], "P6": ["4-4-7", "1-2-7"]}


def check(position, **kw):
    if not kw:
        kw = {"units": [u.id for u in position.friendly()]}
    return human_wave.check(position, DATA, **kw)


def failing(result) -> str:
    return " | ".join(c.text for c in result.failures)


def test_8_5_1_valid_wave():
    result = check(wave_position(VALID))
    assert result.valid, failing(result)
    assert result.mmc == 6 and result.hexes == ("P4", "P5", "P6")
    assert result.summary() == "a valid Human Wave: 6 MMC in P4 P5 P6"


def test_8_5_1_valid_wave_by_hexes_and_in_a_bent_chain():
    result = check(wave_position(VALID), hexes=["P4", "P5", "P6"])
    assert result.valid and len(result.units) == 7
    bent = {"P4": ["3-3-7", "3-3-7"], "Q5": ["3-3-7", "3-3-7"], "R5": ["3-3-7", "3-3-7"]}
    assert check(wave_position(bent)).valid


def test_8_5_1_chinese_infantry_only():
    # Japanese squads are not on a chart pbem holds: the position must say what they are
    with pytest.raises(InputError, match="'4-4-8' is not on the Japanese chart"):
        wave_position({"P4": ["4-4-8"] * 2, "P5": ["4-4-8"] * 2, "P6": ["4-4-8"] * 2}, nationality="japanese")
    units = [{"id": f"S{i}", "type": "4-4-8", "kind": "squad", "hex": h} for i, h in enumerate(["P4", "P4", "P5", "P5", "P6", "P6"])]
    result = check(parse_position({"nationality": "japanese", "unit": units}, DATA))
    assert not result.valid and failing(result) == "Japanese Infantry may not: Human Wave is a Chinese rule"


def test_8_5_1_fails_with_fewer_than_six_mmc():
    """Three hexes at two MMC each already make six, so fewer than six MMC
    always breaks the average too."""
    short = {"P4": ["3-3-7", "3-3-7"], "P5": ["3-3-7", "8-0"], "P6": ["3-3-7", "3-3-7"]}
    result = check(wave_position(short))
    assert not result.valid
    assert failing(result) == "5 MMC; at least 6 | an average of 5/3 = 1.67 MMC per hex; at least 2"


def test_8_5_1_fails_with_fewer_than_three_hexes():
    result = check(wave_position({"P4": ["3-3-7"] * 3, "P5": ["3-3-7"] * 3}))
    assert not result.valid and failing(result) == "2 hexes; a chain of 3 or more"


def test_8_5_1_fails_when_not_contiguous():
    result = check(wave_position({"P4": ["3-3-7"] * 2, "P5": ["3-3-7"] * 2, "P7": ["3-3-7"] * 2}))
    assert not result.valid and failing(result) == "the hexes are not a contiguous chain: P4 P5 | P7"


def test_8_5_1_fails_below_two_mmc_per_hex_on_average():
    result = check(wave_position({"P4": ["3-3-7"] * 3, "P5": ["3-3-7"], "P6": ["3-3-7"], "P7": ["3-3-7", "8-0"]}))
    assert not result.valid and failing(result) == "an average of 6/4 = 1.5 MMC per hex; at least 2"
    # a hex holding only a leader is a hex of the wave
    assert check(wave_position({"P4": ["3-3-7"] * 3, "P5": ["3-3-7"] * 3, "P6": ["8-0"]})).valid
    leaders = check(wave_position({"P4": ["3-3-7"] * 3, "P5": ["3-3-7"] * 3, "P6": ["8-0"], "P7": ["8-1"]}))
    assert not leaders.valid and failing(leaders) == "an average of 6/4 = 1.5 MMC per hex; at least 2"


def test_8_5_1_fails_when_a_hex_is_adjacent_to_an_enemy_unit():
    result = check(wave_position(VALID, {"Q6": "4-4-8"}))
    assert not result.valid
    assert failing(result) == "P5 is adjacent to J0 (4-4-8 in Q6); P6 is adjacent to J0 (4-4-8 in Q6)"


def test_8_5_1_fails_when_a_hex_holds_an_enemy_unit():
    result = check(wave_position(VALID, {"P5": "4-4-8"}), hexes=["P4", "P5", "P6"])
    assert not result.valid and "P5 holds J0 (4-4-8 in P5)" in failing(result)


def test_8_5_1_only_infantry_and_no_empty_hex():
    p = wave_position(VALID)
    units = [u.id for u in p.friendly()] + ["J0"]
    assert "only friendly Infantry take part: not J0" in failing(check(p, units=units))
    result = check(p, hexes=["P4", "P5", "P6", "P7"])
    assert not result.valid and "no friendly unit in P7" in failing(result)
    with pytest.raises(InputError, match="either its units or its hexes"):
        human_wave.check(p, DATA)


def test_8_5_1_across_two_boards():
    units = [{"id": f"S{i}", "type": "3-3-7", "hex": h} for i, h in enumerate(["yFF5", "yFF5", "zA5", "zA5", "zB5", "zB5"])]
    p = parse_position({"boards": ["y", "z"], "unit": units}, DATA)
    result = check(p)
    assert result.valid, failing(result)
    assert result.hexes == ("yFF5", "yGG5", "zB5")  # zA5 is yGG5


# --------------------------------------------------------------------------- in a game


def test_8_5_1_human_wave_order_in_a_game():
    from pbem.engine.machine import Ordered
    from pbem.errors import IllegalOrderError
    from pbem.games.asl import GAME

    setup = GAME.parse_orders({"order": [{"type": "setup", "nationality": "chinese"}]}, "allied")
    state, _ = GAME.apply(GAME.initial_state({}), Ordered("allied", 1, 0, dict(setup.public[0])))
    units = [{"id": f"S{i}", "type": "3-3-7", "hex": h} for i, h in enumerate(["P4", "P4", "P5", "P5", "P6", "P6"])]
    units.append({"id": "J", "type": "4-4-8", "hex": "T9", "enemy": True})
    orders = {"position": {"unit": units}, "order": [{"type": "human-wave", "hexes": ["P4", "P5", "P6"]}]}
    parsed = GAME.parse_orders(orders, "allied")
    state2, events = GAME.apply(state, Ordered("allied", 3, 0, dict(parsed.public[0])))
    assert events[0].rule == "8.5.1" and "6 MMC (S0, S1, S2, S3, S4, S5) in P4 P5 P6" in events[0].text
    assert GAME.view(state2, None)["declared"][0]["kind"] == "human-wave"
    units[-1]["hex"] = "Q6"
    parsed = GAME.parse_orders({**orders, "position": {"unit": units}}, "allied")
    with pytest.raises(IllegalOrderError, match="8.5.1: not a valid Human Wave: P5 is adjacent to J"):
        GAME.apply(state, Ordered("allied", 3, 0, dict(parsed.public[0])))
    with pytest.raises(InputError, match="no unit 'S9'"):
        GAME.parse_orders({**orders, "order": [{"type": "human-wave", "units": ["S9"]}]}, "allied")
    japanese = GAME.parse_orders({"order": [{"type": "setup", "nationality": "japanese"}]}, "axis")
    jstate, _ = GAME.apply(GAME.initial_state({}), Ordered("axis", 1, 0, dict(japanese.public[0])))
    with pytest.raises(IllegalOrderError, match="described for the chinese, but axis is japanese"):
        GAME.apply(jstate, Ordered("axis", 3, 0, dict(parsed.public[0])))
