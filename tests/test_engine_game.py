"""The engine end to end through the test game (tests/engine_game): load its
data, move with ZOC costs, a fixed-dice attack, views, replay."""

from __future__ import annotations

import dataclasses

import pytest

from engine_game.game import EngineTestGame, GAME, State
from pbem.engine.contract import Game
from pbem.engine.machine import DiceDue, DiceRolled, MessageEnd, Opened, Ordered, apply_all
from pbem.engine.paths import IllegalPathError
from pbem.errors import IllegalOrderError, InputError


def orders(side: str, seq: int, *docs: dict) -> list[Ordered]:
    parsed = GAME.parse_orders({"order": list(docs)}, side)
    return [Ordered(side, seq, i, o) for i, o in enumerate(parsed.public)]


def where(state: State) -> dict[str, str]:
    return {u.id: u.where for u in state.units if not u.eliminated}


@pytest.fixture
def start() -> State:
    return GAME.initial_state({})


# a whole first turn: red moves two units and attacks, blue answers
SCRIPT = [
    *orders("red", 2, {"move": "R1: 0202 0302 0402"}, {"move": "R2: 0203 0303 0404"}, {"attack": "0504", "with": ["R2"]}),
    MessageEnd("red", 2),
    DiceRolled("m2.2 attack 0504", (4,)),
    *orders("blue", 3, {"attack": "0402", "with": ["B2"]}),
    MessageEnd("blue", 3),
    DiceRolled("m3.0 attack 0402", (1,)),
]


def test_the_game_implements_the_protocol():
    assert isinstance(GAME, Game)
    assert GAME.sides == ("red", "blue")
    assert [n for n, _ in GAME.ruleset_files()] == ["charts.toml", "counters.toml", "map.toml", "scenario.toml"]


def test_ruleset_hash_is_the_one_message_0_pins():
    from pbem.match.session import ruleset_hash

    assert GAME.data.ruleset_hash() == ruleset_hash(GAME)


def test_initial_state(start):
    assert where(start) == {"R1": "0202", "R2": "0203", "R3": "landing", "B1": "0504", "B2": "0502"}
    assert (start.turn, start.active, start.pending, start.over) == (1, "red", (), False)
    assert GAME.awaiting(start) == ()
    with pytest.raises(InputError, match="hex '0909' is off the map"):
        GAME.initial_state({"positions": {"R1": "0909"}})


# --------------------------------------------------------------------------- 7.0 / 8.0 movement


def test_move_along_the_road_into_enemy_zoc(start):
    # 0302 by road 0.5; 0402 by road 0.5 + 1 for B2's ZOC (8.0) = 2 MP of 4
    state, events = apply_all(GAME, start, orders("red", 2, {"move": "R1: 0202 0302 0402"}))
    assert where(state)["R1"] == "0402"
    assert [e.sentence() for e in events] == ["[7.0] R1 moves 0202 0302 0402 for 2 MP of 4 MP"]
    assert events[0].data["cost_half_mp"] == 4
    assert state.unit("R1").moved


def test_move_across_a_river_into_zoc(start):
    # 0303 forest 2; 0404 clear 1 + river 1 + B1's ZOC 1 = 5 MP of 6
    state, events = apply_all(GAME, start, orders("red", 2, {"move": "R2: 0203 0303 0404"}))
    assert events[0].text == "R2 moves 0203 0303 0404 for 5 MP of 6 MP"
    cost = GAME.movement_cost(start, "red")
    step = cost(GAME.map.hex("0303"), GAME.map.hex("0404"))
    assert (step.halves, step.reason) == (6, "clear 1 + river 1 + enemy ZOC 1")


@pytest.mark.parametrize(
    "order, message",
    [
        ({"move": "R1: 0202 0302 0402 0403"},
         "7.0: R1 has 2 MP left; entering 0403 (forest 2 + enemy ZOC 1) costs 3 (step 3 of 0202 0302 0402 0403)"),
        ({"move": "R2: 0203 0204 0205"}, "7.0: R2 cannot enter 0205: lake (step 2 of 0203 0204 0205)"),
        ({"move": "R2: 0203 0403"}, "7.0: R2 cannot move from 0203 to 0403: not adjacent to 0203 (step 1 of 0203 0403)"),
        ({"move": "R1: 0202 0302 0402 0502"}, "7.0: R1 cannot enter 0502: an enemy unit is there (step 3 of 0202 0302 0402 0502)"),
        ({"move": "R1: 0203 0303"}, "7.0: R1's path must start in its hex 0202, not '0203'"),
        ({"move": "B1: 0504 0505"}, "7.0: B1 is not a unit of red on the map"),
        ({"move": "R3: landing 0101"}, None),  # a box id is not a hex number: syntax error
    ],
)
def test_illegal_moves_leave_the_state_alone(start, order, message):
    before = dataclasses.replace(start)
    if message is None:
        with pytest.raises(InputError, match="hex number 'landing' is not CCRR"):
            orders("red", 2, order)
        return
    with pytest.raises(IllegalOrderError) as err:
        apply_all(GAME, start, orders("red", 2, order))
    assert str(err.value) == message
    assert start == before


def test_path_errors_are_typed(start):
    with pytest.raises(IllegalPathError) as err:
        apply_all(GAME, start, orders("red", 2, {"move": "R1: 0202 0302 0402 0403"}))
    assert (err.value.step, err.value.hex, err.value.needed, err.value.left) == (3, "0403", 6, 4)


def test_move_once_and_only_in_your_turn(start):
    state, _ = apply_all(GAME, start, orders("red", 2, {"move": "R1: 0202 0302"}))
    with pytest.raises(IllegalOrderError, match="7.0: R1 has already moved this turn"):
        apply_all(GAME, state, orders("red", 2, {"move": "R1: 0302 0402"}))
    with pytest.raises(IllegalOrderError, match="3.0: it is red's turn, not blue's"):
        apply_all(GAME, state, orders("blue", 3, {"move": "B1: 0504 0505"}))


# --------------------------------------------------------------------------- 9.0 combat with fixed dice


def test_attack_awaits_one_die_keyed_by_its_message(start):
    state, events = apply_all(GAME, start, SCRIPT[:3])
    assert events[-1].sentence() == "[9.0] R2 (6) attack B1 in 0504 (3): at 2:1; one die is due"
    assert GAME.awaiting(state) == (DiceDue("m2.2 attack 0504", 1, 6, 2, purpose="combat at 0504 (2:1)"),)
    assert state.unit("R2").attacked


def test_fixed_dice_attack_exchange(start):
    state, events = apply_all(GAME, start, SCRIPT[:5])
    # CRT 2:1, roll 4 -> EX: both sides flip
    assert events[-1].sentence() == "[9.1] combat at 0504: 2:1, roll 4 -> EX: R2 flipped, B1 flipped"
    assert state.unit("R2").flipped and state.unit("B1").flipped
    assert GAME.awaiting(state) == ()
    # flipped units use their back values
    assert GAME.view(state, "red")["units"][1] == {
        "id": "R2", "side": "red", "type": "armour", "where": "0404", "flipped": True, "combat": 3, "move": 4,
    }


def test_shifts_town_and_fortified_hexside(start):
    state, _ = apply_all(GAME, start, SCRIPT[:5])
    # B2 (6) against R1 (3) in clear 0402: 2:1, and B2 attacks across the
    # fortified hexside 0402|0502 (9.2 shifts for any attacker across it): 1:1
    state, events = apply_all(GAME, state, orders("blue", 3, {"attack": "0402", "with": ["B2"]}))
    assert events[0].text == "B2 (6) attack R1 in 0402 (3): 2:1, left 1 (across a fortified hexside) -> 1:1; one die is due"
    # and red attacking Bluetown across it: 3:6 = 1:2, two shifts left stay at 1:2
    state, events = apply_all(GAME, start, orders("red", 2, {"move": "R1: 0202 0302 0402"}, {"attack": "0502", "with": ["R1"]}))
    assert events[1].text == (
        "R1 (3) attack B2 in 0502 (6): 1:2, left 1 (defender in a town), left 1 (across a fortified hexside) -> 1:2; one die is due"
    )
    state, events = GAME.apply(state, DiceRolled("m2.1 attack 0502", (4,)))
    assert events[0].text == "combat at 0502: 1:2, roll 4 -> AE: R1 eliminated"
    assert state.unit("R1").eliminated


@pytest.mark.parametrize(
    "attack, strength, column",
    [((9, 2), "4.5:1", "4:1"), ((6, 3), "2:1", "2:1"), ((5, 3), "1.67:1", "1:1"), ((3, 6), "1:2", "1:2"), ((2, 6), "1:3", None), ((30, 1), "30:1", "4:1")],
)
def test_odds_round_in_the_defenders_favour(attack, strength, column):
    assert GAME.odds_column(*attack) == column


@pytest.mark.parametrize(
    "action, message",
    [
        (DiceRolled("m9.9 attack 0101", (3,)), "9.0: no die is due for 'm9.9 attack 0101'"),
        (DiceRolled("m2.2 attack 0504", (7,)), "9.0: m2.2 attack 0504: expected one d6, got (7,)"),
        (DiceRolled("m2.2 attack 0504", (1, 2)), "9.0: m2.2 attack 0504: expected one d6, got (1, 2)"),
        (Opened("red", "slot", "x", 2), "3.0: this game has no hidden information"),
    ],
)
def test_bad_dice_and_actions(start, action, message):
    state, _ = apply_all(GAME, start, SCRIPT[:4])
    with pytest.raises(IllegalOrderError) as err:
        GAME.apply(state, action)
    assert str(err.value) == message


def test_orders_of_the_next_message_wait_for_the_dice(start):
    state, _ = apply_all(GAME, start, SCRIPT[:4])
    with pytest.raises(IllegalOrderError, match="9.0: dice are due first: m2.2 attack 0504"):
        apply_all(GAME, state, orders("blue", 3, {"move": "B2: 0502 0503"}))


@pytest.mark.parametrize(
    "order, message",
    [
        ({"attack": "0403", "with": ["R1"]}, "9.0: no enemy unit in 0403 to attack"),
        ({"attack": "0504", "with": ["R1"]}, "9.0: R1 in 0202 is not adjacent to 0504"),
        ({"attack": "0504", "with": ["B2"]}, "9.0: B2 is not a unit of red on the map"),
        ({"attack": "0504", "with": []}, "9.0: the attack on 0504 names no attacker"),
    ],
)
def test_illegal_attacks(start, order, message):
    with pytest.raises(IllegalOrderError) as err:
        apply_all(GAME, start, orders("red", 2, order))
    assert str(err.value) == message


def test_attack_below_the_table(start):
    # a flipped R1 (1) against B2 (6): 1:6 is below the first column, 1:2
    weak = dataclasses.replace(start, units=tuple(dataclasses.replace(u, flipped=True) if u.id == "R1" else u for u in start.units))
    weak, _ = apply_all(GAME, weak, orders("red", 2, {"move": "R1: 0202 0302 0402"}))
    with pytest.raises(IllegalOrderError, match=r"9.0: odds 1:6 are below the CRT's first column"):
        apply_all(GAME, weak, orders("red", 2, {"attack": "0502", "with": ["R1"]}))


# --------------------------------------------------------------------------- 3.0 sequence, views


def test_turns_pass_and_the_game_ends(start):
    # messages 0 and 1 (proposal, acceptance) are setup: no turn passes
    state, events = apply_all(GAME, start, [MessageEnd("blue", 0), MessageEnd("red", 1)])
    assert (state, events) == (start, [])
    state, events = apply_all(GAME, start, [MessageEnd("red", 2), MessageEnd("blue", 3)])
    assert [e.sentence() for e in events] == [
        "[3.0] red's turn 1 ends; blue moves",
        "[3.0] turn 1 ends; turn 2 begins, red moves",
    ]
    assert (state.turn, state.active) == (2, "red")
    # a message of the side not on turn changes nothing
    assert GAME.apply(state, MessageEnd("blue", 4)) == (state, [])
    for seq in range(4, 8):
        state, events = GAME.apply(state, MessageEnd(state.active, seq))
    assert events[-1].text == "turn 3 was the last; the game is over"
    assert GAME.is_over(state)
    with pytest.raises(IllegalOrderError, match="3.0: the game is over"):
        apply_all(GAME, state, orders("red", 8, {"move": "R1: 0202 0302"}))


def test_views_per_side_and_spectator(start):
    state, _ = apply_all(GAME, start, SCRIPT[:4])
    red, blue, nobody = (GAME.view(state, s) for s in ("red", "blue", None))
    assert red["units"] == blue["units"] == nobody["units"]  # nothing is hidden in this game
    assert (red["side"], red["your_turn"], blue["your_turn"]) == ("red", False, True)
    assert blue["can_move"] == ["B1", "B2"] and red["can_move"] == []
    assert "side" not in nobody and "can_move" not in nobody
    assert nobody["dice_due"] == ["m2.2 attack 0504"]
    assert nobody["stacks"]["0504"] == [{"label": "B1", "side": "blue"}, {"label": "combat", "marker": "2:1"}]
    assert nobody["stacks"]["landing"] == [{"label": "R3", "side": "red"}]


def test_parse_orders_syntax_errors():
    with pytest.raises(InputError, match="order\\[0\\]: move must read 'UNIT: HEX HEX ...', got 'R1 0202 0302'"):
        GAME.parse_orders({"order": [{"move": "R1 0202 0302"}]}, "red")
    with pytest.raises(InputError, match="hex number '02O2' is not CCRR"):
        GAME.parse_orders({"order": [{"move": "R1: 02O2 0302"}]}, "red")
    with pytest.raises(InputError, match="order\\[0\\]: expected 'move', 'attack' or 'advance'"):
        GAME.parse_orders({"order": [{"charge": "0504"}]}, "red")
    with pytest.raises(InputError, match="attack needs attack = 'HEX'"):
        GAME.parse_orders({"order": [{"attack": "0504"}]}, "red")
    parsed = GAME.parse_orders({"order": [{"move": "R1: 0202 0302"}, {"attack": "0504", "with": ["R2"]}]}, "red")
    assert parsed.public == (
        {"kind": "move", "unit": "R1", "path": ["0202", "0302"]},
        {"kind": "attack", "target": "0504", "with": ["R2"]},
    )


# --------------------------------------------------------------------------- replay


def test_replay_gives_identical_states(start):
    first, events1 = apply_all(GAME, GAME.initial_state({}), SCRIPT)
    second, events2 = apply_all(GAME, GAME.initial_state({}), SCRIPT)
    assert first == second and hash(first) == hash(second)
    assert [e.to_json() for e in events1] == [e.to_json() for e in events2]
    # a fresh game object from the same data replays the same way
    third, _ = apply_all(EngineTestGame(), EngineTestGame().initial_state({}), SCRIPT)
    assert third == first
    # states are frozen
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.turn = 9  # type: ignore[misc]
    assert [e.sentence() for e in events1[-2:]] == [
        "[3.0] turn 1 ends; turn 2 begins, red moves",
        "[9.1] combat at 0402: 1:1, roll 1 -> no effect",
    ]
    assert (first.turn, first.active) == (2, "red")
    assert where(first)["R1"] == "0402" and not first.unit("R1").flipped


def test_applying_does_not_change_the_input_state(start):
    snapshot = dataclasses.replace(start)
    apply_all(GAME, start, SCRIPT)
    assert start == snapshot


def test_data_override_changes_the_rules(tmp_path):
    charts = (EngineTestGame().data.file("charts.toml")).decode().replace("enter_zoc = 1 ", "enter_zoc = 2 ")
    (tmp_path / "charts.toml").write_text(charts)
    game = EngineTestGame(data_dir=tmp_path)
    assert game.data.ruleset_hash() != GAME.data.ruleset_hash()
    state, events = apply_all(game, game.initial_state({}), [
        Ordered("red", 2, 0, {"kind": "move", "unit": "R1", "path": ["0202", "0302", "0402"]})
    ])
    assert events[0].text == "R1 moves 0202 0302 0402 for 3 MP of 4 MP"
