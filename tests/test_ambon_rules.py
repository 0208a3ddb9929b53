"""Ambon I: setup, sequence, landings, movement, ZOC, stacking and control --
each test cites the rule it checks.  Positions are built with the game's
referee scenarios; dice are given, as at a table."""

from __future__ import annotations

import pytest

from ambon_example import HISTORICAL_ALLIED, IDENTITIES, MINES
from pbem.engine import referee
from pbem.engine.machine import MessageEnd, Opened, Ordered, RevealDue, Sealed, replace
from pbem.errors import IllegalOrderError, InputError
from pbem.games.ambon import GAME, movement, setup
from pbem.games.ambon.state import ALLIED, ELIMINATED, JAPANESE, REMOVED

M = GAME.map
SECRET = {**IDENTITIES, **MINES}  # the scenario file's example (tests/ambon_example.py)


def position(**doc):
    return GAME.scenario_state(doc)


def play(state, side, orders, dice=(), secrets=None, end=True):
    return referee.adjudicate(GAME, state, side, {"order": orders}, list(dice), secrets=secrets or {}, end_turn=end)


def texts(result):
    return [e.text for e in result.events]


def hexes(labels):
    return {M.hex(h) for h in labels}


# --------------------------------------------------------------------------- 8.0 zones of control


def test_8_0_example_zoc_of_the_unit_in_1609():
    state = position(positions={"NEI-2.B": "1609"})
    zone = movement.zoc_of(GAME.data, state, ALLIED)
    assert zone == hexes(["1508", "1509", "1608", "1708"])  # not 1610 (sea), not 1709 (all-sea hexside)


def test_8_0_hq_has_no_zoc_disrupted_unit_keeps_it():
    state = position(positions={"NEI-HQ": "1609", "AUS-B": "1508"}, disrupted=["AUS-B"])
    zone = movement.zoc_of(GAME.data, state, ALLIED)
    assert M.hex("1708") not in zone  # only the HQ is next to it
    assert hexes(["1408", "1409", "1507"]) <= zone  # the disrupted company's ZOC


def test_8_0_concealed_pieces_exert_zoc_and_are_revealed_when_a_japanese_zoc_reaches_them():
    state = position(phase="japanese-movement", turn=2, positions={"3.A": "1507"}, concealed={"X1": "1609"})
    assert M.hex("1608") in movement.zoc_of(GAME.data, state, ALLIED)
    result = play(state, JAPANESE, [{"move": "3.A: 1507 1608"}], secrets={"X1": "dummy"}, end=False)
    # 1 road + 1 to enter the concealed piece's ZOC; then it must be revealed
    assert "3.A moves 1507 1608 for 1.5 MP (3.5 MP left)" in texts(result)
    assert "X1 in 1609 is revealed: a dummy, removed from the game" in texts(result)
    assert result.state.piece("X1").where == REMOVED


def test_8_0_the_reveal_is_owed_by_the_allies_until_they_make_it():
    state = position(phase="japanese-movement", turn=2, positions={"3.A": "1507"}, concealed={"X1": "1609"})
    state, events = GAME.apply(state, Ordered(JAPANESE, 6, 0, {"type": "move", "unit": "3.A", "path": ["1507", "1608"]}))
    assert RevealDue(ALLIED, "X1", "8.0") in GAME.awaiting(state)
    state, events = GAME.apply(state, MessageEnd(JAPANESE, 6))
    assert state.phase == "japanese-movement"  # the phase cannot end while a reveal is owed
    state, events = GAME.apply(state, Opened(ALLIED, "X1", "detachment", 7))
    assert [e.text for e in events][0] == "X1 in 1609 is revealed: a detachment"
    # the movement phase goes on (8.0 Comment); the Japanese act next (test_ambon_entering.py)
    assert not GAME.awaiting(state) and state.phase == "japanese-movement" and GAME.active_side(state) == JAPANESE


# --------------------------------------------------------------------------- 7.0 movement, 15.0 costs


def test_15_0_3A_moves_1410_to_1509_for_5_mp():
    """15.0 (reading its '1310' as 1410, see ambon-notes): rough 2 + river 1 +
    leave EZOC 1 + enter EZOC 1.  ASSUMPTION: the example names no Allied unit
    next to 1410, yet charges 1 MP to leave an EZOC; this test puts one (an
    NEI company) in 1310 (not 1409, which would halve 3.A and 3.B in the combat that follows)."""
    state = position(
        phase="japanese-movement", turn=2,
        positions={"3.A": "1410", "3.B": "1509", "NEI-2.B": "1609", "AUS-B": "1608", "NEI-1.A": "1310"},
        concealed={"X2": "1609"}, revealed={"X2": "detachment"}, disrupted=["AUS-B"],
    )
    result = play(state, JAPANESE, [{"move": "3.A: 1410 1509"}], end=False)
    assert texts(result)[0] == "3.A moves 1410 1509 for 5 MP"
    assert result.state.piece("3.A").where == "1509" and result.state.piece("3.A").spent == 10


def test_15_0_3C_moves_1507_to_1508_for_5_mp():
    """15.0: mountain 3 + leave EZOC 1 + enter EZOC 1 (AUS B, disrupted, in 1608)."""
    state = position(phase="japanese-movement", turn=2, positions={"3.C": "1507", "AUS-B": "1608"}, disrupted=["AUS-B"])
    result = play(state, JAPANESE, [{"move": "3.C: 1507 1508"}], end=False)
    assert texts(result)[0] == "3.C moves 1507 1508 for 5 MP"


def test_7_0_no_minimum_move_dutch_artillery_cannot_enter_a_mountain():
    state = position(phase="allied-movement", turn=2, positions={"NEI-Art": "1507"})
    with pytest.raises(IllegalOrderError, match=r"7\.0: NEI-Art has 2 MP left; entering 1508 \(mountain\) costs 3"):
        play(state, ALLIED, [{"move": "NEI-Art: 1507 1508"}], end=False)


def test_7_0_road_is_half_an_mp_and_a_river_adds_one_even_on_a_road():
    state = position(phase="japanese-movement", turn=2, positions={"3.A": "1309"})
    result = play(state, JAPANESE, [{"move": "3.A: 1309 1409 1509"}], end=False)
    assert texts(result)[0] == "3.A moves 1309 1409 1509 for 2 MP (3 MP left)"  # road 0.5 + (road 0.5 + river 1)


def test_7_0_trail_costs_1_whatever_the_terrain():
    state = position(phase="allied-movement", turn=2, positions={"NEI-1.A": "0812"})
    result = play(state, ALLIED, [{"move": "NEI-1.A: 0812 0712"}], end=False)
    assert texts(result)[0] == "NEI-1.A moves 0812 0712 for 1 MP (3 MP left)"


def test_7_0_sea_and_all_sea_hexsides_cannot_be_crossed():
    state = position(phase="allied-movement", turn=2, positions={"NEI-2.B": "1708"})
    with pytest.raises(IllegalOrderError, match="7.0: NEI-2.B cannot enter 1709: an all-sea hexside"):
        play(state, ALLIED, [{"move": "NEI-2.B: 1708 1709"}], end=False)
    state = position(phase="allied-movement", turn=2, positions={"NEI-2.B": "1609"})
    with pytest.raises(IllegalOrderError, match="cannot enter 1610: sea"):
        play(state, ALLIED, [{"move": "NEI-2.B: 1609 1610"}], end=False)


def test_7_0_enemy_hexes_cannot_be_entered():
    state = position(phase="allied-movement", turn=2, positions={"NEI-2.B": "1708", "3.A": "1608"})
    with pytest.raises(IllegalOrderError, match="cannot enter 1608: an enemy unit is there"):
        play(state, ALLIED, [{"move": "NEI-2.B: 1708 1608"}], end=False)


@pytest.mark.parametrize("penalty, rule", [("no-move", "6.2"), ("opposed", "6.3")])
def test_6_2_6_3_landing_markers_forbid_movement(penalty, rule):
    state = position(phase="japanese-movement", turn=1, positions={"3.A": "0713"}, penalties={"3.A": penalty})
    with pytest.raises(IllegalOrderError, match=f"{rule}: 3.A landed this turn"):
        play(state, JAPANESE, [{"move": "3.A: 0713 0813"}], end=False)


def test_6_2_minus_2_mp_marker():
    state = position(phase="japanese-movement", turn=1, positions={"Kure-1": "2106"}, penalties={"Kure-1": "-2mp"})
    assert movement.allowance(GAME.data, state.piece("Kure-1")) == 2 * 3  # 5 MP - 2


def test_7_1_turn_1_only_allied_units_near_the_japanese_move():
    state = position(phase="allied-movement", turn=1, positions={"3.A": "0713", "AUS-D": "0813", "NEI-1.D": "1016"})
    result = play(state, ALLIED, [{"move": "AUS-D: 0813 0812"}], end=False)
    assert result.state.piece("AUS-D").where == "0812"
    with pytest.raises(IllegalOrderError, match="7.1: on turn 1 only Allied units within 4 land hexes"):
        play(state, ALLIED, [{"move": "NEI-1.D: 1016 1015"}], end=False)
    later = position(phase="allied-movement", turn=2, positions={"3.A": "0713", "NEI-1.D": "1016"})
    assert play(later, ALLIED, [{"move": "NEI-1.D: 1016 1015"}], end=False).state.piece("NEI-1.D").where == "1015"


def test_7_1_distance_counts_land_hexes_only():
    # 1709 is next to 1609 across an all-sea hexside: over land it is 3 hexes away (1609-1708-1809-1709)
    near = movement.land_distance_from(GAME.data, [M.hex("1609")], 4)
    assert near[M.hex("1709")] == 3


# --------------------------------------------------------------------------- 7.2 concealed movement


def test_7_2_concealed_piece_entering_a_japanese_zoc_reveals_at_once_dummy_removed():
    state = position(phase="allied-movement", turn=2, positions={"3.A": "1508"}, concealed={"X1": "1708"})
    result = play(state, ALLIED, [{"move": "X1: 1708 1608 1507"}], secrets={"X1": "dummy"}, end=False)
    assert "X1 in 1608 is revealed: a dummy, removed from the game" in texts(result)
    assert result.state.piece("X1").where == REMOVED  # its move ends there


def test_7_2_revealed_detachment_goes_on_moving():
    state = position(phase="allied-movement", turn=2, positions={"3.A": "1508"}, concealed={"X1": "1708"})
    result = play(state, ALLIED, [{"move": "X1: 1708 1608 1507"}], secrets={"X1": "detachment"}, end=False)
    assert "X1 in 1608 is revealed: a detachment" in texts(result)
    assert result.state.piece("X1").where == "1507" and not result.state.piece("X1").concealed


def test_7_2_a_dummy_cannot_retake_a_key_location_a_detachment_can():
    base = dict(phase="allied-movement", turn=3, concealed={"X1": "1708"}, control={"1809": 2})
    result = play(position(**base), ALLIED, [{"move": "X1: 1708 1809"}], secrets={"X1": "dummy"}, end=False)
    assert "X1 in 1809 is revealed: a dummy, removed from the game" in texts(result)
    assert result.state.controller("1809") == JAPANESE
    result = play(position(**base), ALLIED, [{"move": "X1: 1708 1809"}], secrets={"X1": "detachment"}, end=False)
    assert "X1 retakes Paso (1809) for the Allies" in texts(result)
    assert result.state.controller("1809") == ALLIED


def test_7_2_6_5_concealed_detachment_entering_a_beachhead_captures_it():
    state = position(phase="allied-movement", turn=3, concealed={"X1": "0813"}, beachheads=["0713"],
                     positions={"2.A": "fw-laha"})
    result = play(state, ALLIED, [{"move": "X1: 0813 0713"}], secrets={"X1": "detachment"}, end=False)
    assert "the Allies capture the beachhead on 0713; it can never be a beachhead again" in texts(result)
    assert "2.A could still land there and are eliminated" in texts(result)
    assert result.state.piece("2.A").where == ELIMINATED and "0713" in result.state.lost_beachheads
    dummy = play(state, ALLIED, [{"move": "X1: 0813 0713"}], secrets={"X1": "dummy"}, end=False)
    assert dummy.state.beachheads == ("0713",)  # 7.2: the beachhead itself is unaffected


# --------------------------------------------------------------------------- 3.1 control


def test_3_1_control_by_entering_kept_after_leaving_retaken_by_an_allied_unit():
    state = position(phase="japanese-movement", turn=3, positions={"2.A": "1708"})
    result = play(state, JAPANESE, [{"move": "2.A: 1708 1809 1709"}], end=False)
    assert "2.A takes Paso (1809) on turn 3" in texts(result)
    assert result.state.controller("1809") == JAPANESE  # it left, control stays (3.1)
    state = position(phase="allied-movement", turn=3, positions={"NEI-2.A": "1708"}, control={"1809": 3})
    result = play(state, ALLIED, [{"move": "NEI-2.A: 1708 1809"}], end=False)
    assert result.state.controller("1809") == ALLIED


def test_3_1_zoc_alone_does_not_control():
    state = position(phase="japanese-movement", turn=3, positions={"2.A": "1608"})
    result = play(state, JAPANESE, [{"move": "2.A: 1608 1708"}], end=False)  # next to Paso
    assert result.state.controller("1809") == ALLIED


# --------------------------------------------------------------------------- 9.0 stacking


def test_9_0_stacking_counts_hqs_free_and_detachments_half():
    state = position(positions={"NEI-1.A": "0812", "NEI-Art": "0812", "NEI-AA": "0812", "NEI-HQ": "0812"},
                     concealed={"X1": "0812"})
    assert movement.stacking_count(GAME.data, state.at("0812")) == 3 + 0 + 0.5
    assert movement.overstacking(GAME.data, state, "0812") == "functional"


def test_9_0_laha_historical_setup_is_over_stacked_and_limits():
    state = position(positions={"NEI-1.A": "0812", "NEI-Art": "0812", "NEI-AA": "0812", "AUS-C": "0812"})
    assert movement.overstacking(GAME.data, state, "0812") == "functional"  # 4.1: "set up over-stacked"
    three = position(positions={"NEI-1.A": "0812", "NEI-Art": "0812", "NEI-AA": "0812"})
    assert movement.overstacking(GAME.data, three, "0812") == ""
    seven = position(positions={u: "1809" for u in ["NEI-1.A", "NEI-1.B", "NEI-1.C", "NEI-1.D", "NEI-2.A", "NEI-2.B", "NEI-2.C"]})
    assert movement.overstacking(GAME.data, seven, "1809") == "physical"


# --------------------------------------------------------------------------- 6.0-6.5 landings


def landing_position(**extra):
    doc = dict(phase="japanese-landing", turn=1, positions={u: "fw-liang" for u in setup.KURE})
    doc.update(extra)
    return position(**doc)


@pytest.mark.parametrize("die, expected", [(1, "landing delayed"), (2, "no movement this turn"), (4, "-2 MP this turn")])
def test_6_2_unopposed_landing_table(die, expected):
    state = position(phase="japanese-landing", turn=1, positions={"3.A": "fw-hitu-lama", "3.B": "fw-hitu-lama"})
    result = play(state, JAPANESE, [{"land": "fw-hitu-lama"}], dice=[die], end=False)
    assert any(expected in t for t in texts(result))
    where = result.state.piece("3.A").where
    assert where == ("fw-hitu-lama" if die == 1 else "1402")


def test_6_2_modifiers_kure_plus_1_and_turn_4_plus_1():
    result = play(landing_position(turn=4), JAPANESE, [{"land": "fw-liang"}], dice=[1], end=False)
    assert "landing on 2106: roll 1 +1 (Kure 1 Special landing) +1 (turn 4) = 3 -> landing succeeds, no movement this turn" in texts(result)


def test_6_1_mine_check_reveals_the_lane_box_and_real_mines_subtract():
    state = position(phase="japanese-landing", turn=1, positions={"3.A": "fw-laha"},
                     mines={"M1": "mine-1", "M2": "mine-1", "M3": "mine-1", "M4": "mine-2"})
    result = play(state, JAPANESE, [{"land": "fw-laha"}], dice=[6], secrets=SECRET, end=False)
    revealed = [t for t in texts(result) if t.startswith("mine marker")]
    assert revealed == ["mine marker M1 in mine-1 is revealed: real", "mine marker M2 in mine-1 is revealed: real",
                        "mine marker M3 in mine-1 is revealed: dummy"]
    assert "landing on 0713: roll 6 -2 (2 real mine(s)) = 4 -> landing succeeds, -2 MP this turn" in texts(result)
    assert result.state.mine("M4").status == "hidden"  # another lane's box: not revealed


def test_6_3_dummies_on_the_beach_make_it_unopposed():
    state = landing_position(concealed={"X1": "2106", "X2": "2106"})
    result = play(state, JAPANESE, [{"land": "fw-liang"}], dice=[3], secrets={"X1": "dummy", "X2": "dummy"}, end=False)
    assert "landing on 2106: unopposed, 0 real mine(s); one die is due" in texts(result)


def test_6_3_opposed_landing_table_and_artillery_stays_behind():
    state = position(phase="japanese-landing", turn=1, positions={"2.A": "fw-amahusu", "2.B": "fw-amahusu", "2.D": "fw-amahusu",
                                                          "NEI-1.B": "1213"})
    result = play(state, JAPANESE, [{"land": "fw-amahusu"}], dice=[6, 6], end=False)
    assert any("landing combat at 1 attacker CS" in t for t in texts(result))
    assert result.state.piece("2.D").where == "fw-amahusu"  # 6.3: artillery may not land against opposition


def test_6_3_delayed_opposed_landing():
    state = position(phase="japanese-landing", turn=1, positions={"2.A": "fw-amahusu", "NEI-1.B": "1213"})
    result = play(state, JAPANESE, [{"land": "fw-amahusu"}], dice=[1], end=False)
    assert "landing on 1213: roll 1 -> landing delayed; the units stay in fw-amahusu" in texts(result)


def test_6_0_postponement_and_unknown_boxes():
    state = landing_position()
    result = play(state, JAPANESE, [{"postpone": "fw-liang"}])
    assert "the landing from fw-liang is postponed to the next turn" in texts(result)
    assert result.state.piece("Kure-1").where == "fw-liang"
    with pytest.raises(IllegalOrderError, match="6.0: 'sw-liang' is not a First Wave box"):
        play(state, JAPANESE, [{"land": "sw-liang"}])


def test_6_4_second_wave_moves_up_unless_a_non_artillery_unit_remains_and_mines_are_swept():
    state = position(phase="japanese-landing", turn=1, positions={"3.A": "fw-laha", "3.D": "fw-laha", "2.A": "sw-laha",
                                                           "1.A": "fw-hitu-lama", "1.B": "sw-hitu-lama"},
                     mines={"M1": "mine-1", "M2": "mine-1", "M3": "mine-1"})
    # Laha lands (3.D, artillery, stays); Hitu Lama is postponed: its second wave waits
    result = play(state, JAPANESE, [{"land": "fw-laha"}, {"postpone": "fw-hitu-lama"}], dice=[6], secrets=SECRET)
    assert "2.A move up to fw-laha" in texts(result)
    assert "the Second Wave in sw-hitu-lama waits: 1.A is still in fw-hitu-lama" in texts(result)
    assert "minesweeping in mine-1: the dummy marker M3, the real marker M1 removed" in texts(result)
    assert [m.status for m in result.state.mines if m.box == "mine-1"] == ["real"]


def test_6_5_beachhead_on_landing_and_allied_capture_eliminates_units_still_to_land():
    result = play(landing_position(), JAPANESE, [{"land": "fw-liang"}], dice=[5], end=False)
    assert result.state.beachheads == ("2106",)
    state = position(phase="allied-movement", turn=2, positions={"NEI-3.A": "2105", "1.A": "sw-liang"}, beachheads=["2106"])
    result = play(state, ALLIED, [{"move": "NEI-3.A: 2105 2106"}], end=False)
    assert result.state.piece("1.A").where == ELIMINATED and result.state.lost_beachheads == ("2106",)


# --------------------------------------------------------------------------- 15.0's landings, whole


def historical_turn_1():
    """Setup as in 15.0; the Allied example secret (dummies at Liang,
    detachments and 2 real + 1 dummy mines at Laha)."""
    state = GAME.initial_state({})
    for seq, side, orders in ((1, ALLIED, [HISTORICAL_ALLIED]), (2, JAPANESE, [{"setup": "historical"}])):
        parsed = GAME.parse_orders({"order": orders}, side)
        for slot in parsed.seals:
            state, _ = GAME.apply(state, Sealed(side, slot, seq))
        for i, order in enumerate(parsed.public):
            state, _ = GAME.apply(state, Ordered(side, seq, i, order))
        state, _ = GAME.apply(state, MessageEnd(side, seq))
    return state


def test_15_0_landings_liang_and_laha():
    """15.0's landings; the players' 11.3 choices ("remove one detachment",
    "retreats the detachment to hex 0813", a Japanese unit disrupted) are
    their standing instructions."""
    state = historical_turn_1()
    state = replace(state, standing=state.standing.updated(ALLIED, {"losses": "X3", "retreat": "retreat", "retreat-to": "0813"})
                    .updated(JAPANESE, {"losses": "3.A"}))
    assert state.phase == "japanese-landing" and state.turn == 1
    result = play(state, JAPANESE, [{"land": "fw-liang"}, {"land": "fw-laha"}], dice=[3, 5, 3], secrets=SECRET)
    t = texts(result)
    # Liang: the concealed units were dummies -> unopposed, +1 Kure, 3 -> 4: -2 MP, beachhead
    assert "X1 in 2106 is revealed: a dummy, removed from the game" in t
    assert "landing on 2106: roll 3 +1 (Kure 1 Special landing) = 4 -> landing succeeds, -2 MP this turn" in t
    assert "beachhead established on 2106" in t
    # Laha: 2 real + 1 dummy mine, two detachments -> opposed, -2, 5 -> 3: landing combat at half CS
    assert "landing on 0713: roll 5 -2 (2 real mine(s)) = 3 -> landing combat at 1/2 attacker CS" in t
    # 3 x 6/2 = 9 against two detachments (2): 4.5:1 -> 4:1, roll 3 -> 1/1r
    # 15.0: "the Japanese CS total is (6/2 x 3) = 9; the Dutch defense strength is 2"
    assert "landing combat on 0713 at 1/2 CS: 9 against 2 = 4:1; roll 3 -> 1/1r; counted: 228-HQ 0 (an HQ: no CF, 2.2.1) + " \
           "3.A 6 x 1/2 + 3.B 6 x 1/2 + 3.C 6 x 1/2 = 9 (3.D: artillery, ignored, 6.3) against X3 1 + X4 1 = 2" in t
    assert "Allied hit: X3 is eliminated (standing instruction)" in t
    assert any(x.startswith("X4 retreats to 0813") for x in t)
    assert "Japanese hit: 3.A is disrupted (standing instruction)" in t
    assert any(x.startswith("228-HQ, 3.A, 3.B, 3.C land on 0713") for x in t)
    s = result.state
    assert {s.piece(u).penalty for u in ("228-HQ", "3.A", "3.B", "3.C")} == {"opposed"}
    assert s.piece("3.D").where == "fw-laha" and s.piece("X4").where == "0813"
    assert s.beachheads == ("2106", "0713")


# --------------------------------------------------------------------------- 4.1, 4.2 setup


def allied_setup(state=None, changes=None, seals=None):
    state = state or GAME.initial_state({})
    parsed = GAME.parse_orders({"order": [HISTORICAL_ALLIED]}, ALLIED)
    for slot in seals if seals is not None else parsed.seals:
        state, _ = GAME.apply(state, Sealed(ALLIED, slot, 1))
    for i, order in enumerate(parsed.public):
        order = dict(order)
        key = order.get("unit") or order.get("piece")
        if changes and key in changes:
            order["hex"] = changes[key]
        state, _ = GAME.apply(state, Ordered(ALLIED, 1, i, order))
    return GAME.apply(state, MessageEnd(ALLIED, 1))[0]


def test_4_1_historical_setup_is_legal():
    assert allied_setup().phase == "setup-japanese"


@pytest.mark.parametrize("changes, message", [
    ({"AUS-D": "0812"}, r"south of Laha \(0813\): AUS D Company: AUS-D is in 0812"),
    ({"AUS-Eng": "1016"}, "within 1 hex of 1215: AUS HQ, B Company and Engineers: AUS-Eng"),
    ({"NEI-2.A": "1708"}, r"Paso \(1809\): 3 NEI companies: 1809 holds 2"),
    ({"NEI-3.A": "1608"}, "a remaining NEI company may set up only on a coastal hex"),
    ({"X5": "2106"}, "2106 holds 3 dummies"),
])
def test_4_1_setup_requirements(changes, message):
    if "X5" in changes:
        changes = {"X5": "2106", "X6": "2106"}
        message = "2106 holds 4 dummies, detachments and remaining NEI companies; at most 3"
    with pytest.raises(IllegalOrderError, match="4.1: " + message):
        allied_setup(changes=changes)


def test_4_1_identities_must_be_sealed_in_the_setup_message():
    with pytest.raises(IllegalOrderError, match="4.1: the identities of X8 must be sealed"):
        allied_setup(seals=[s for s in setup.CONCEALED + setup.MINES if s != "X8"])


def test_4_1_concealed_pieces_go_on_coastal_hexes_only():
    with pytest.raises(IllegalOrderError, match="4.1: concealed piece X1 must be placed on a coastal hex, not 1508"):
        GAME.apply(GAME.initial_state({}), Ordered(ALLIED, 1, 0, {"type": "conceal", "piece": "X1", "hex": "1508"}))


def test_4_1_the_owner_checks_4_dummies_4_detachments_5_real_3_dummy_mines():
    good = {**SECRET}
    assert setup.check_secrets(GAME.data, ALLIED, good, ()) == []
    bad = {**good, "X1": "detachment", "M3": "real"}
    problems = setup.check_secrets(GAME.data, ALLIED, bad, ())
    assert problems[0].startswith("4.1: X1-X8 must be exactly 4 dummies and 4 detachments")
    assert problems[1].startswith("4.1: M1-M8 must be exactly 5 real and 3 dummy mines")


def japanese_setup(boxes):
    state = allied_setup()
    for i, (box, units) in enumerate(boxes.items()):
        state, _ = GAME.apply(state, Ordered(JAPANESE, 2, i, {"type": "wave", "box": box, "units": units}))
    return GAME.apply(state, MessageEnd(JAPANESE, 2))[0]


HISTORICAL_BOXES = {box: list(units) for box, units in GAME.data.scenario["japanese"]["boxes"].items()}


def test_4_2_historical_japanese_setup_starts_turn_1():
    state = japanese_setup(HISTORICAL_BOXES)
    assert (state.phase, state.turn) == ("japanese-landing", 1)


@pytest.mark.parametrize("move, message", [
    (("Kure-MG", "fw-laha"), "all Kure 1 Special units must be in one First Wave box"),
    (("228-HQ", "fw-liang"), "the regimental HQ must be in a First Wave box other than Kure's"),
    (("1.A", "sw-ambon"), "the 1st/nd/rd battalion's four units must stay together"),
])
def test_4_2_japanese_setup_rules(move, message):
    boxes = {b: [u for u in us if u != move[0]] for b, us in HISTORICAL_BOXES.items()}
    boxes.setdefault(move[1], []).append(move[0])
    with pytest.raises(IllegalOrderError, match="4.2: " + message.replace("(", r"\(")):
        japanese_setup(boxes)


def test_4_2_second_wave_battalions_in_separate_boxes():
    boxes = {b: list(us) for b, us in HISTORICAL_BOXES.items()}
    boxes["sw-hitu-lama"] = [u for u in boxes["sw-hitu-lama"]] + boxes.pop("sw-laha")
    with pytest.raises(IllegalOrderError, match="4.2: the two other battalions go one per Second Wave box"):
        japanese_setup(boxes)


# --------------------------------------------------------------------------- 14.2, 5.0


def test_14_2_second_wave_note_sealed_then_revealed_in_turn_1_recovery():
    state = allied_setup(GAME.initial_state({"rules": ["14.2"]}))
    orders = [{"wave": "fw-liang", "units": list(setup.KURE)},
              {"wave": "fw-laha", "units": ["228-HQ", "3.A", "3.B", "3.C", "3.D", "228-Art"]},
              {"second_wave": "1:hitu-lama 2:laha"}]
    parsed = GAME.parse_orders({"order": orders}, JAPANESE)
    assert parsed.seals == {"second-wave": "1:hitu-lama 2:laha"}
    assert {"type": "second-wave", "battalions": ["1", "2"]} in parsed.public  # which battalions: public
    assert "hitu-lama" not in str(parsed.public)  # where they land: sealed
    state, _ = GAME.apply(state, Sealed(JAPANESE, "second-wave", 2))
    for i, order in enumerate(parsed.public):
        state, _ = GAME.apply(state, Ordered(JAPANESE, 2, i, order))
    state, _ = GAME.apply(state, MessageEnd(JAPANESE, 2))
    assert state.phase == "japanese-landing" and state.piece("1.A").where == "off-map"
    # skip to the end of the Allied combat phase of turn 1: recovery owes the note
    from pbem.engine.machine import replace
    state = replace(state, phase="allied-combat", landings=())
    state, events = GAME.apply(state, MessageEnd(ALLIED, 9))
    assert RevealDue(JAPANESE, "second-wave", "14.2") in GAME.awaiting(state)
    assert "turn 1: the Japanese may not make recovery checks" in [e.text for e in events]
    state, events = GAME.apply(state, Opened(JAPANESE, "second-wave", "1:hitu-lama 2:laha", 10))
    # 6.4 as on turn 1: Hitu Lama's First Wave box is empty, Laha's still holds the 3rd Battalion
    assert state.piece("1.A").where == "fw-hitu-lama" and state.piece("2.C").where == "sw-laha"
    assert state.turn == 2 and state.phase == "japanese-landing"


def test_14_2_note_syntax_is_checked():
    with pytest.raises(InputError, match="order 1 \\(second_wave\\): 14.2: note entry .4:laha. is not BATTALION:LANE"):
        GAME.parse_orders({"order": [{"second_wave": "4:laha 1:liang"}]}, JAPANESE)


def test_5_0_orders_out_of_phase_are_refused():
    state = position(phase="allied-movement", turn=2, positions={"3.A": "1508", "NEI-2.B": "1708"})
    with pytest.raises(IllegalOrderError, match="5.0: order 1: a move order belongs to the japanese-movement phase; "
                                                 "it is the allied-movement phase"):
        GAME.apply(state, Ordered(JAPANESE, 5, 0, {"type": "move", "unit": "3.A", "path": ["1508", "1608"]}))
    with pytest.raises(IllegalOrderError, match="5.0: order 1: a land order is the japanese player's"):
        GAME.apply(state, Ordered(ALLIED, 5, 0, {"type": "land", "box": "fw-liang"}))


def test_5_0_a_japanese_message_covers_its_remaining_phases():
    state = position(phase="japanese-movement", turn=2, positions={"3.A": "1508"})
    state, _ = GAME.apply(state, MessageEnd(JAPANESE, 4))
    assert state.phase == "allied-movement"


def test_order_syntax_errors_name_the_field():
    with pytest.raises(InputError, match="order 1: give exactly one of"):
        GAME.parse_orders({"order": [{"hex": "1609"}]}, ALLIED)
    with pytest.raises(InputError, match="order 1 \\(conceal\\): is = 'decoy' must be one of dummy, detachment"):
        GAME.parse_orders({"order": [{"conceal": "X1", "hex": "0713", "is": "decoy"}]}, ALLIED)
    with pytest.raises(InputError, match="order 1 \\(move\\): move must read 'UNIT: HEX HEX ...'"):
        GAME.parse_orders({"order": [{"move": "3.A 1410 1509"}]}, JAPANESE)
    with pytest.raises(InputError, match="off the map"):
        GAME.parse_orders({"order": [{"move": "3.A: 1410 9999"}]}, JAPANESE)


def test_14_4_the_two_extra_units_set_up_within_1_hex_of_1215():
    state = allied_setup(GAME.initial_state({"rules": ["14.4"]}))
    assert state.phase == "setup-japanese"
    assert {state.piece(u).where for u in ("AUS-AT", "AUS-2/11")} <= {"1215", "1115", "1214", "1216", "1315", "1314", "1114", "1116"}
    with pytest.raises(IllegalOrderError, match="14.4: AUS-AT must set up within 1 hex of 1215"):
        allied_setup(GAME.initial_state({"rules": ["14.4"]}), changes={"AUS-AT": "1016"})
    plain = allied_setup()  # without 14.4 the two units are not in the game
    assert not plain.has_piece("AUS-AT")
