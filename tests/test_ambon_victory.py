"""Ambon victory (3.0-3.2) and the optional rules' VP (14.0): each test cites
the rule it checks.  Every number is read from the data files, never
restated, except the calibration that data/README.md states."""

from __future__ import annotations

import itertools

import pytest

from pbem.engine.machine import replace
from pbem.games.ambon import GAME
from pbem.games.ambon.state import REMOVED
from pbem.games.ambon.victory import may_surrender, victory_band, victory_points

DATA = GAME.data
M = GAME.map
AWARDS = DATA.turns["vp_awards"]
CLASSES = DATA.turns["key_location_classes"]
ALL_KEYS = [M.label(h) for h in M.key_locations]


def position(**doc):
    doc.setdefault("turn", 10)
    doc.setdefault("phase", "recovery")
    return GAME.scenario_state(doc)


def total(state):
    return victory_points(DATA, state)[0]


BASE = position()  # no unit eliminated, every key location still Allied


def delta(state):
    return total(state) - total(BASE)


def track(hexlabel):
    return M.key_locations[M.hex(hexlabel)].vp


# --------------------------------------------------------------------------- 3.0 eliminated units


def test_3_0_plus_1_per_non_hq_allied_unit_eliminated():
    """3.0: "+1 VP for each non-HQ Allied unit in the eliminated-units box"."""
    state = position(positions={"NEI-2.A": "eliminated", "AUS-B": "eliminated", "NEI-Art": "eliminated", "AUS-C": "0812"})
    assert delta(state) == 3 * AWARDS["allied_unit_eliminated"] == 3
    assert ("non-HQ Allied units eliminated: NEI-2.A, NEI-Art, AUS-B (3 x +1)", 3) in victory_points(DATA, state)[1]


def test_3_0_detachments_and_dummies_do_not_count():
    """3.0: "(detachments do not count)"; a revealed dummy is removed from the
    game (7.2), never eliminated."""
    state = position(concealed={"X1": "eliminated", "X2": "eliminated", "X3": "0713"},
                     revealed={"X1": "detachment", "X3": "dummy"})
    state = state.with_piece(replace(state.piece("X3"), where=REMOVED))
    assert delta(state) == 0


def test_3_0_plus_3_per_allied_hq_eliminated():
    state = position(positions={"NEI-HQ": "eliminated", "AUS-HQ": "eliminated"})
    assert delta(state) == 2 * AWARDS["allied_hq_eliminated"] == 6


def test_3_0_minus_2_per_non_hq_japanese_unit_eliminated():
    state = position(positions={"3.A": "eliminated", "Kure-MG": "eliminated", "3.D": "eliminated"})
    assert delta(state) == 3 * AWARDS["japanese_unit_eliminated"] == -6


def test_3_0_minus_5_per_japanese_hq_eliminated():
    state = position(positions={"228-HQ": "eliminated", "Kure-HQ": "eliminated"})
    assert delta(state) == 2 * AWARDS["japanese_hq_eliminated"] == -10


def test_3_0_minus_5_per_beachhead_the_allies_captured():
    state = replace(BASE, lost_beachheads=("0713", "1402"))
    assert delta(state) == 2 * AWARDS["beachhead_captured"] == -10


# --------------------------------------------------------------------------- 3.0 key locations


@pytest.mark.parametrize("hexlabel, turn", [("1809", 1), ("1809", 7), ("0812", 10), ("1402", 1), ("1114", 9)])
def test_3_0_key_location_scores_the_track_value_of_the_turn_taken(hexlabel, turn):
    """3.0: "The faster a key location is controlled, the more VP it is
    worth. [...] To the left of the turn track, the VP awarded for
    controlling a key location on that turn is printed." Taking it replaces
    the penalty for Allied control at the end."""
    state = position(control={hexlabel: turn})
    cls = next(c for c in CLASSES.values() if hexlabel in c["hexes"])
    assert delta(state) == track(hexlabel)[turn - 1] - cls["uncontrolled_at_end"]
    name = M.key_locations[M.hex(hexlabel)].name
    assert (f"{name} ({hexlabel}) taken on turn {turn}", track(hexlabel)[turn - 1]) in victory_points(DATA, state)[1]


def test_3_0_allied_control_at_game_end_is_a_penalty():
    """3.0: "Allied control of it at game end, becomes a penalty" -- each
    class's uncontrolled_at_end (turns.toml)."""
    expected = sum(c["uncontrolled_at_end"] * len(c["hexes"]) for c in CLASSES.values())
    assert total(BASE) == expected < 0
    assert ("Paso (1809) held by the Allies at the end", CLASSES["double"]["uncontrolled_at_end"]) in victory_points(DATA, BASE)[1]


# --------------------------------------------------------------------------- 3.2 surrender


def test_3_2_surrender_bonus_and_no_vp_for_locations_the_allies_hold():
    """3.2: "the Japanese gain a 5 VP bonus, but gain no VP (positive or
    negative) for key locations the Allies still control at that point.
    Allied units remaining on the map are not eliminated and so do not count
    for VP." Locations the Japanese hold still score."""
    state = position(turn=8, phase="japanese-landing", control={"1809": 4}, positions={"NEI-HQ": "1611", "AUS-HQ": "1215"})
    state = replace(state, surrendered=True)
    points, lines = victory_points(DATA, state)
    assert points == AWARDS["allied_surrender"] + track("1809")[3] == 5 + 7
    assert ("the Allies surrendered (3.2)", 5) in lines
    assert ("Laha (0812) held by the Allies at their surrender (3.2: no VP)", 0) in lines


def test_3_2_may_surrender_at_the_start_of_turn_8_with_an_hq_on_the_map():
    """3.2: "At the start of turn 8 [...], if at least one Allied HQ unit
    remains on the map, the Allied player may surrender." """
    assert may_surrender(DATA, position(turn=8, phase="japanese-landing", positions={"AUS-HQ": "1215", "NEI-HQ": "eliminated"}))
    assert not may_surrender(DATA, position(turn=8, phase="japanese-landing", positions={"AUS-HQ": "eliminated", "NEI-HQ": "eliminated"}))
    assert not may_surrender(DATA, position(turn=7, phase="japanese-landing", positions={"AUS-HQ": "1215"}))
    assert not may_surrender(DATA, position(turn=9, phase="japanese-landing", positions={"AUS-HQ": "1215"}))
    assert not may_surrender(DATA, position(turn=8, phase="japanese-movement", positions={"AUS-HQ": "1215"}))
    done = replace(position(turn=8, phase="japanese-landing", positions={"AUS-HQ": "1215"}), surrendered=True)
    assert not may_surrender(DATA, done)


# --------------------------------------------------------------------------- 14.0 optional rules


@pytest.mark.parametrize("rule", ["14.1", "14.2", "14.3", "14.4"])
def test_14_0_each_optional_rule_adjusts_the_vp(rule):
    """14.1 -2, 14.2 -3, 14.3 -6, 14.4 +5 (turns.toml [optional_rules])."""
    state = replace(BASE, options=(rule,))
    assert delta(state) == DATA.turns["optional_rules"][rule]["vp"] == {"14.1": -2, "14.2": -3, "14.3": -6, "14.4": 5}[rule]


def test_14_0_optional_rules_add_up():
    state = replace(BASE, options=("14.1", "14.2", "14.3", "14.4"))
    assert delta(state) == -2 - 3 - 6 + 5


def test_3_0_vp_awarded_during_play_are_added():
    state = replace(BASE, vp_events=(("an award outside the final tally", 2),))
    assert delta(state) == 2


# --------------------------------------------------------------------------- 3.0 victory bands


@pytest.mark.parametrize("points, band", [
    (-40, "Decisive Allied victory"), (10, "Decisive Allied victory"), (11, "Allied victory"),
    (20, "Allied victory"), (21, "Draw"), (30, "Draw"), (31, "Japanese victory"),
    (50, "Japanese victory"), (51, "Decisive Japanese victory"), (99, "Decisive Japanese victory"),
])
def test_3_0_victory_band_edges(points, band):
    """3.0: "10 VP or less: decisive Allied victory [...] 11–20 VP: Allied
    victory; 21–30 VP: draw; 31–50 VP: Japanese victory; 51 VP or more:
    decisive Japanese victory"."""
    assert victory_band(DATA, points) == band


# --------------------------------------------------------------------------- 3.0 the historical calibration


def historical(**captured_changes):
    cal = DATA.turns["calibration"]["historical"]
    captured = {**cal["captured"], **captured_changes}
    captured = {h: t for h, t in captured.items() if t is not None}
    positions = {u: "eliminated" for u in cal["allied_eliminated"] + cal["japanese_eliminated"]}
    state = position(control=captured, positions=positions)
    return replace(state, surrendered=cal["surrendered"])


def test_3_0_historical_timeline_scores_the_readme_draw():
    """3.0: "To win, the Japanese player must do better than history did."
    data/README.md: the historical timeline scores 24, a draw."""
    cal = DATA.turns["calibration"]["historical"]
    assert cal["beachheads_captured"] == 0
    points, lines = victory_points(DATA, historical())
    assert points == 24
    assert victory_band(DATA, points) == cal["expected_band"] == "Draw"
    assert sum(vp for why, vp in lines if "taken on turn" in why) == 14


def test_3_0_historical_alternatives_are_all_draws():
    """data/README.md: Paso and Ambon fell on 31 January, turn 3 or 4: the four
    combinations score 24, 25, 25, 26."""
    alts = DATA.turns["calibration"]["historical"]["captured_alternatives"]
    scores = sorted(total(historical(**dict(zip(alts, turns, strict=False)))) for turns in itertools.product(*alts.values()))
    assert scores == [24, 25, 25, 26]
    assert {victory_band(DATA, s) for s in scores} == {"Draw"}


def test_3_0_better_than_history_wins_worse_loses():
    """data/README.md: Laha on turn 5 instead of 9 scores 32 (Japanese
    victory); Laha held to the end scores 20 (Allied victory)."""
    assert total(historical(**{"0812": 5})) == 32
    assert victory_band(DATA, 32) == "Japanese victory"
    assert total(historical(**{"0812": None})) == 20
    assert victory_band(DATA, 20) == "Allied victory"
