"""Ambon II in the sequence of play: bombardment, combat and recovery phases
driven by orders and dice (15.0 end to end), supply on turn 7, surrender at
the start of turn 8, the end of the game with its VP tally (3.0)."""

from __future__ import annotations

import pytest

from pbem.engine import referee
from pbem.engine.machine import DecisionDue, MessageEnd, Ordered, replace
from pbem.errors import IllegalOrderError
from pbem.games.ambon import GAME
from pbem.games.ambon.state import ALLIED, JAPANESE

# 15.0, "several turns later": the start of the Japanese Movement Phase
START = dict(
    turn=3, phase="japanese-movement", disrupted=["AUS-B", "NEI-2.C"],
    positions={"3.A": "1410", "3.B": "1509", "3.C": "1507", "3.D": "1507",
               "NEI-2.B": "1609", "AUS-B": "1608", "NEI-HQ": "1708", "NEI-2.C": "1809", "NEI-1.A": "1310"},
    concealed={"X2": "1609"}, revealed={"X2": "detachment"},
)
JAPANESE_TURN = {
    "order": [
        {"move": "3.A: 1410 1509"},
        {"move": "3.C: 1507 1508"},
        {"bombard": "3.D", "target": "NEI-2.B"},
        {"attack": "1609", "with": ["3.A", "3.B", "3.C"]},
    ],
    "standing": {"advance": "always", "losses": "3.C"},
}


def texts(result):
    return [e.text for e in result.events]


def test_15_0_the_japanese_turn_and_the_recovery_phase():
    """The whole example: movement (5 MP each), bombardment (3: no effect),
    combat (15 vs 4, HQ -1, 4 -> 3: 1/1r), recovery (AUS B recovers on a 2,
    Dutch 2.C fails on 4 -> 3).  ASSUMPTIONS: as in the movement test, an NEI
    company in 1310 gives 3.A the EZOC it leaves; NEI-1.A stays out of the
    fight.  Japanese dice are given in the order the rules ask for them."""
    state = GAME.scenario_state(START)
    state = replace(state, standing=state.standing.updated(ALLIED, {"hq-support": "always", "losses": "X2",
                                                                    "retreat": "retreat"}))
    j = referee.adjudicate(GAME, state, JAPANESE, JAPANESE_TURN, [3, 4], seq=4)
    t = texts(j)
    assert "3.A moves 1410 1509 for 5 MP" in t and "3.C moves 1507 1508 for 5 MP" in t
    assert "3.D bombards NEI-2.B in 1609: roll 3 (bombardment 2) -> no effect" in t
    assert any(x.startswith("combat at 1609: 15 against 4 = 3:1; roll 4 -1 (defender's HQ support (11.1)) = 3 -> 1/1r") for x in t)
    assert "NEI-2.B retreats to 1708" in t and "3.A, 3.B advance into 1609 (standing instruction)" in t
    assert j.state.phase == "allied-movement"
    # the Allied turn passes; the Recovery Phase rolls for every disrupted unit
    a = referee.adjudicate(GAME, j.state, ALLIED, {"order": []}, [6, 4, 2], seq=5)
    t = texts(a)
    assert "recovery checks for 3.C, NEI-2.C, AUS-B" in t
    s = a.state
    assert s.piece("3.C").disrupted  # "3.C in hex 1508 remains disrupted"
    assert not s.piece("AUS-B").disrupted  # +1 EZOC -1 HQ: a 2 recovers
    assert s.piece("NEI-2.C").disrupted  # HQ -1: 4 -> 3 still exceeds its CS
    assert s.turn == 4 and s.phase == "japanese-landing"


def test_10_0_bombardment_belongs_to_the_bombardment_phase_and_is_once_per_turn():
    state = GAME.scenario_state(dict(turn=3, phase="japanese-movement", positions={"3.D": "1507", "NEI-2.B": "1609", "NEI-2.A": "1708"}))
    twice = {"order": [{"bombard": "3.D", "target": "NEI-2.B"}, {"bombard": "3.D", "target": "NEI-2.A"}]}
    with pytest.raises(IllegalOrderError, match="10.0: 3.D"):
        referee.adjudicate(GAME, state, JAPANESE, twice, [6, 6])
    late = GAME.scenario_state(dict(turn=3, phase="allied-movement", positions={"3.D": "1507", "NEI-2.B": "1609"}))
    with pytest.raises(IllegalOrderError, match="5.0"):
        referee.adjudicate(GAME, late, JAPANESE, {"order": [{"bombard": "3.D", "target": "NEI-2.B"}]}, [6])


def test_14_1_defensive_bombardment_is_resolved_before_the_combat():
    state = GAME.scenario_state(dict(turn=3, phase="japanese-combat", options=["14.1"],
                                     positions={"3.A": "1509", "NEI-2.B": "1609", "NEI-Art": "1708"}))
    for i, order in enumerate(GAME.parse_orders({"order": [{"attack": "1609", "with": ["3.A"]}]}, JAPANESE).public):
        state, _ = GAME.apply(state, Ordered(JAPANESE, 6, i, order))
    state, _ = GAME.apply(state, MessageEnd(JAPANESE, 6))
    # the defender answers before any die: it may fire defensively (14.1), so
    # the combat's die is keyed by the Allied message, not the declaring one;
    # no HQ can support 1609, so no empty HQ question is asked
    assert [d.kind for d in GAME.awaiting(state) if isinstance(d, DecisionDue)] == []
    assert [(d.label, d.key_seq) for d in GAME.awaiting(state)] == [("combat 1609", 7)]
    assert "a defensive bombardment by NEI-Art (14.1)" in GAME.decisions(state, ALLIED)
    order = GAME.parse_orders({"order": [{"bombard": "NEI-Art", "target": "3.A"}]}, ALLIED).public[0]
    state, events = GAME.apply(state, Ordered(ALLIED, 7, 0, order))
    assert events[0].text == "NEI-Art defensively bombards 3.A; one die is due"
    state, _ = GAME.apply(state, MessageEnd(ALLIED, 7))
    labels = [d.label for d in GAME.awaiting(state)]
    assert labels == ["bombard NEI-Art", "combat 1609"]  # bombardment first


def test_14_1_not_in_use_no_defensive_fire():
    state = GAME.scenario_state(dict(turn=3, phase="japanese-combat", positions={"3.A": "1509", "NEI-2.B": "1609", "NEI-Art": "1708"}))
    with pytest.raises(IllegalOrderError, match="10.0: allied may bombard only in its own Bombardment Phase"):
        GAME.apply(state, Ordered(ALLIED, 7, 0, {"type": "bombard", "unit": "NEI-Art", "target": "3.A"}))


def test_13_0_supply_check_at_the_end_of_turn_7():
    state = GAME.scenario_state(dict(turn=7, phase="allied-combat", beachheads=["1402"],
                                     positions={"3.A": "1608", "2.A": "1015", "NEI-1.D": "1114", "NEI-1.C": "1412"}))
    state, events = GAME.apply(state, MessageEnd(ALLIED, 20))
    t = [e.text for e in events]
    assert "supply check (end of turn 7)" in t
    assert state.piece("2.A").oos and state.piece("2.A").disrupted
    assert not state.piece("3.A").oos  # Hitu Lama's road leads to its beachhead
    # 2.A's roads and trails to Hitu Lama all pass Eri (1114) or Ambon (1412), held by the Allies
    assert state.turn == 8


def test_3_2_surrender_decision_at_the_start_of_turn_8():
    state = GAME.scenario_state(dict(turn=7, phase="allied-combat", beachheads=["1402"],
                                     positions={"3.A": "1608", "NEI-HQ": "1611"}, control={"1809": 4}))
    state, events = GAME.apply(state, MessageEnd(ALLIED, 20))
    assert "turn 8 begins: the Allies may surrender" in [e.text for e in events]
    assert DecisionDue(ALLIED, "surrender", "surrender at the start of turn 8?", ("yes", "no"), rule="3.2") in GAME.awaiting(state)
    over, events = GAME.apply(state, Ordered(ALLIED, 21, 0, {"type": "surrender", "answer": "yes"}))
    assert GAME.is_over(over)
    final = events[-1]
    # +5 for the surrender, Paso's track value for turn 4; Allied-held key locations score nothing (3.2)
    paso_turn_4 = GAME.map.key_locations[GAME.map.hex("1809")].vp[3]
    assert final.rule == "3.0" and final.data["vp"] == 5 + paso_turn_4
    going, events = GAME.apply(state, Ordered(ALLIED, 21, 0, {"type": "surrender", "answer": "no"}))
    assert not GAME.is_over(going) and "the Allies fight on" in [e.text for e in events]


def test_3_0_the_game_ends_after_turn_10_with_the_vp_tally():
    state = GAME.scenario_state(dict(turn=10, phase="allied-combat", positions={"3.A": "1809", "NEI-HQ": "1611"},
                                     control={"1809": 4}))
    state, events = GAME.apply(state, MessageEnd(ALLIED, 40))
    assert GAME.is_over(state)
    final = events[-1]
    assert final.rule == "3.0" and final.text.startswith(f"the Japanese score {final.data['vp']} VP: ")
    paso = [v for w, v in final.data["breakdown"] if "Paso" in w]
    assert paso == [GAME.map.key_locations[GAME.map.hex("1809")].vp[3]]


def test_3_2_a_surrender_decision_left_open_is_declined_and_the_game_goes_on():
    """A new user's game stalled for good when the Allies sent a message
    without answering: like an unanswered HQ support, it counts as 'no'."""
    state = GAME.scenario_state(dict(turn=7, phase="allied-combat", beachheads=["1402"],
                                     positions={"3.A": "1608", "NEI-HQ": "1611"}, control={"1809": 4}))
    state, _ = GAME.apply(state, MessageEnd(ALLIED, 20))
    assert state.surrender_offered
    state, events = GAME.apply(state, MessageEnd(JAPANESE, 21))  # the Japanese cannot answer for them
    assert state.surrender_offered
    state, events = GAME.apply(state, MessageEnd(ALLIED, 22))  # an Allied message with no answer
    assert not state.surrender_offered and not GAME.is_over(state)
    assert "the Allies fight on (the surrender decision was left open)" in [e.text for e in events]
    assert not [a for a in GAME.awaiting(state) if isinstance(a, DecisionDue) and a.kind == "surrender"]


def test_3_0_the_result_of_a_finished_game_in_words():
    state = GAME.scenario_state(dict(turn=10, phase="allied-combat", positions={"3.A": "1809", "NEI-HQ": "1611"},
                                     control={"1809": 4}))
    assert GAME.result(state) == []
    over, events = GAME.apply(state, MessageEnd(ALLIED, 40))
    lines = GAME.result(over)
    final = events[-1]
    assert lines[0].startswith(f"The Japanese score {final.data['vp']} VP: ") and lines[0].endswith("(3.0).")
    assert any("Paso" in line for line in lines[1:])


def test_4_2_a_unit_left_unplaced_is_named():
    from pbem.games.ambon import setup as ambon_setup

    state = GAME.initial_state({})
    with pytest.raises(IllegalOrderError, match=r"4\.2: .* not placed: every Japanese unit sets up in a box"):
        ambon_setup.check_japanese_setup(GAME.data, state)


def test_15_0_the_japanese_turn_through_the_referee_command():
    """`pbem adjudicate` resolves 15.0's combat: the position carries the
    Allies' standing HQ support (11.1), so no decision is left open."""
    from pathlib import Path

    from click.testing import CliRunner

    from pbem.cli import main

    examples = Path(__file__).parent.parent / "examples" / "ambon"
    r = CliRunner().invoke(main, ["adjudicate", "--game", "ambon", "--scenario", str(examples / "position-15-0.toml"),
                                  "--orders", str(examples / "orders-15-0-japanese-turn.toml"), "--dice", "3,4"],
                           env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    for line in ("3.D bombards NEI-2.B in 1609: roll 3 (bombardment 2) -> no effect",
                 "NEI-HQ supports the defence of 1609 (standing instruction)",
                 "combat at 1609: 15 against 4 = 3:1; roll 4 -1 (defender's HQ support (11.1)) = 3 -> 1/1r",
                 "NEI-2.B retreats to 1708", "attacker hit: 3.C is disrupted", "3.A, 3.B advance into 1609"):
        assert line in r.output, line
