"""Calumpit Bridge: the EVENTS cards with their sub-rolls, the JAGT and the
JAT, the breakoff, fire missions, barrages and the VICTORY CONDITIONS --
fixed dice through the referee."""

from __future__ import annotations

import pytest

from pbem.engine.referee import adjudicate
from pbem.errors import IllegalOrderError
from pbem.games.calumpit import GAME


def run(orders, dice, scenario=None, side="american", end_turn=False):
    return adjudicate(GAME, GAME.scenario_state(scenario or {}), side, {"order": orders}, dice, end_turn=end_turn)


def draw(card, dice, scenario=None):
    """Draw ``card`` (the only one left in its deck) with an order, feeding its dice."""
    deck = GAME.data.card(card).deck
    return run([{"type": "draw", "deck": deck}], dice, {"may_draw": [deck], deck: [card], **(scenario or {})})


def sentences(result):
    return [e.sentence() for e in result.events]


def text(result):
    return "\n".join(sentences(result))


def data_of(result, rule):
    return [e.data for e in result.events if e.rule == rule]


def next_turn(state, dice, orders=()):
    """Both sides done: the end-of-turn and start-of-turn checks (and what follows)."""
    from dataclasses import replace

    state = replace(state, done=("japanese",))
    return adjudicate(GAME, state, "american", {"order": [*orders, {"type": "done"}]}, dice)


NO_CARD = [1, 4]  # an event check of 5: no card


# --------------------------------------------------------------------------- Diamonds


def test_diamonds_6_strafes_the_road_north_from_the_village():
    r = draw("D6", [17])
    assert ("[Diamonds 6] Japanese fighters strafe the road from the village 27 inches to the north (D20+10: 17+10), "
            "2 passes") in text(r)
    assert data_of(r, "Diamonds 6")[-1]["inches"] == 27


def test_diamonds_2_bombards_the_cross_roads_now_and_next_turn():
    dirs, dists = [1, 2, 3, 4, 5, 6], [10, 9, 8, 7, 6, 5]
    r = draw("D2", dirs + dists)
    assert '6 rounds fall on the cross roads (burst radius 2"): 10" at 1 o\'clock, 9" at 2 o\'clock' in text(r)
    assert "1 more turn(s) of 6 rounds follow" in text(r)
    (barrage,) = r.state.barrages
    assert barrage.first_turn == 2 and barrage.turns_left == 1
    r2 = next_turn(r.state, NO_CARD + NO_CARD + dirs + dists)
    assert r2.state.turn == 2 and r2.state.barrages == ()
    assert "6 rounds fall on the cross roads" in text(r2) and "the last of them" in text(r2)


def test_diamonds_4_two_direct_hits_and_the_engineer_explosives():
    # along the bridge (12 o'clock, 3") and at the centre (3 o'clock, 1"): two direct hits; D20 20: it explodes
    dirs, dists = [12, 3, 6, 5, 5, 5], [3, 1, 9, 4, 8, 10]
    r = draw("D4", dirs + dists + [20, 3])
    assert r.state.bridge("rail").status == "destroyed"
    assert "2 direct hit(s) on the Rail Road bridge; D20 20, 3: the engineer explosives go off and the bridge explodes" in text(r)
    r = draw("D4", dirs + dists + [5, 7])
    assert r.state.bridge("rail").status == "disabled" and r.state.bridge("rail").hits == 2
    r = draw("D5", [1] * 6 + [9] * 6)
    assert r.state.bridge("road").status == "intact" and "no direct hit on the Road bridge" in text(r)


def test_diamonds_9_horse_drawn_battery_sets_up():
    r = draw("D9", [13])
    unit = r.state.unit("J-BTY-1")
    assert unit.kind == "artillery" and unit.ammo == 160  # forty rounds per gun, four guns (reconstruction)
    assert "setting up 23 inches from the jungle edge" in text(r)


def test_diamonds_10_bombers_drop_d20_bombs():
    r = draw("D10", [3, 12, 6, 9, 1, 20, 7])
    assert ('high level bombers drop 3 bombs on the center of the village (burst radius 2", burst order weapon bomb): '
            '1" at 12 o\'clock, 20" at 6 o\'clock, 7" at 9 o\'clock') in text(r)


def test_diamonds_queen_sniper_fires_one_shot_a_turn_until_eliminated():
    r = draw("DQ", [14, 9, 15])
    assert "a Japanese sniper (J-SNP-1) opens fire on the depot from 14 inches at 9 o'clock" in text(r)
    assert "J-SNP-1 fires at the depot: D20 15: a figure is hit" in text(r)
    r2 = next_turn(r.state, NO_CARD + NO_CARD + [1])
    assert "J-SNP-1 fires at the depot: D20 1: a miss" in text(r2)
    r3 = adjudicate(GAME, r2.state, "american", {"order": [{"type": "status", "unit": "J-SNP-1", "status": "eliminated"}]}, [])
    r4 = next_turn(r3.state, NO_CARD + NO_CARD)
    assert "J-SNP-1 fires" not in text(r4)


def test_diamonds_3_bombards_the_cross_roads_now_and_next_turn():
    dirs, dists = [2, 4, 6, 8, 10, 12], [1, 3, 5, 7, 9, 10]
    r = draw("D3", dirs + dists)
    assert '6 rounds fall on the cross roads (burst radius 2"): 1" at 2 o\'clock, 3" at 4 o\'clock' in text(r)
    (barrage,) = r.state.barrages
    assert (barrage.name, barrage.first_turn, barrage.turns_left, barrage.rounds) == ("D3", 2, 1, 6)
    r2 = next_turn(r.state, NO_CARD + NO_CARD + dirs + dists)
    assert "6 rounds fall on the cross roads" in text(r2) and r2.state.barrages == ()


@pytest.mark.parametrize("card, die, start, inches, toward", [
    ("D7", 3, "the village", 13, "south"),
    ("D8", 20, "the bridge", 30, "north"),
])
def test_diamonds_7_and_8_strafe_the_road(card, die, start, inches, toward):
    r = draw(card, [die])
    assert (f"[{GAME.data.card(card).name}] Japanese fighters strafe the road from {start} {inches} inches to the "
            f"{toward} (D20+10: {die}+10), 2 passes: a figure on the road is hit on a D6 of 4, 5, 6, one within 2 "
            f"inches of it on 1, 2") in text(r)
    assert data_of(r, GAME.data.card(card).name)[-1] == {"start": start, "toward": toward, "inches": inches, "passes": 2}


def test_diamonds_jack_bombers_drop_d20_bombs_on_the_rail_head():
    r = draw("DJ", [2, 5, 11, 3, 4])  # D20 2 bombs; D12 directions 5 11; D20 distances 3 4
    assert ('high level bombers drop 2 bombs on the center of the rail head (burst radius 2", burst order weapon '
            'bomb): 3" at 5 o\'clock, 4" at 11 o\'clock') in text(r)
    assert data_of(r, "Diamonds Jack")[-1]["bombs"] == 2


@pytest.mark.parametrize("card, target, unit", [("DK", "the artillery section", "ARTY"),
                                                ("DA", "the Headquarters section", "HQ")])
def test_diamonds_king_and_ace_snipers_open_fire(card, target, unit):
    r = draw(card, [6, 2, 17])
    assert f"a Japanese sniper (J-SNP-1) opens fire on {target} from 6 inches at 2 o'clock" in text(r)
    assert f"J-SNP-1 fires at {target}: D20 17: a figure is hit -- {unit} rolls its saving throw" in text(r)
    assert r.state.unit("J-SNP-1").aim == unit
    r2 = next_turn(r.state, NO_CARD + NO_CARD + [14])
    assert f"J-SNP-1 fires at {target}: D20 14: a miss" in text(r2)


def test_diamonds_5_direct_hits_on_the_road_bridge_and_the_explosion():
    # 12 o'clock 4" and 6 o'clock 2" lie along the bridge, 3 o'clock 1" is on it: three direct hits; D20 2 20 5
    dirs, dists = [12, 6, 3, 5, 5, 5], [4, 2, 1, 9, 9, 9]
    r = draw("D5", dirs + dists + [2, 20, 5])
    assert r.state.bridge("road").status == "destroyed" and r.state.bridge("rail").status == "intact"
    assert "3 direct hit(s) on the Road bridge; D20 2, 20, 5: the engineer explosives go off and the bridge explodes" in text(r)
    assert data_of(r, "Diamonds 5")[-1]["bridge_hits"] == [1, 2, 3]


def test_diamonds_5_one_hit_damages_the_second_turns_hit_disables():
    r = draw("D5", [12, 5, 5, 5, 5, 5] + [3, 9, 9, 9, 9, 9] + [19])
    assert (r.state.bridge("road").status, r.state.bridge("road").hits) == ("damaged", 1)
    assert "1 direct hit(s) on the Road bridge (1 in all); explosives D20 19: no explosion" in text(r)
    r2 = next_turn(r.state, NO_CARD + NO_CARD + [6, 5, 5, 5, 5, 5] + [4, 9, 9, 9, 9, 9] + [1])
    assert (r2.state.bridge("road").status, r2.state.bridge("road").hits) == ("disabled", 2)
    assert "(2 in all, the structure is disabled)" in text(r2)


# --------------------------------------------------------------------------- Hearts: JAGT and JAT


def test_hearts_4_jagt_plus_the_motor_cycle_message():
    r = draw("H4", [2, 16, 4])  # D10 2: one roll; d20 16: light tanks; D6 4: east side access road
    assert "motor cycle approaches at high speed across the bridge to the CP" in text(r)
    assert data_of(r, "JAGT")[0]["units"] == ["J-LT-1"] and r.state.unit("J-LT-1").figures == 2


def test_hearts_3_jagt_d10_gives_the_number_of_jat_rolls_and_the_road():
    # D10 7: three rolls; d20 12 (1st: infantry), 18 (2nd: medium tanks), 4 (3rd: infantry); D6 3: east side access road
    r = draw("H3", [7, 12, 18, 4, 3])
    (d,) = data_of(r, "JAGT")
    assert d["jat"] == [12, 18, 4] and d["units"] == ["J-INF-1", "J-MT-1", "J-INF-2"]
    assert d["road"] == "the east side access road"
    assert r.state.unit("J-MT-1").figures == 3 and r.state.unit("J-INF-1").ammo == 12
    assert all(r.state.unit(u).force == 1 for u in d["units"])


@pytest.mark.parametrize("die, rolls", [(1, 1), (2, 1), (3, 2), (6, 2), (7, 3), (8, 3), (9, 4), (10, 4)])
def test_jagt_table(die, rolls):
    r = draw("H3", [die] + [1] * rolls + [1])
    assert len(data_of(r, "JAGT")[0]["jat"]) == rolls


@pytest.mark.parametrize("number, die, unit", [
    (1, 15, "infantry"), (1, 16, "light-tanks"),
    (2, 10, "infantry"), (2, 11, "light-tanks"), (2, 17, "light-tanks"), (2, 18, "medium-tanks"), (2, 20, "artillery"),
    (3, 5, "infantry"), (3, 6, "light-tanks"), (3, 9, "medium-tanks"), (3, 17, "medium-tanks"), (3, 18, "artillery"),
    (4, 1, "infantry"), (4, 5, "light-tanks"), (4, 10, "medium-tanks"), (4, 15, "artillery"), (4, 19, "anti-tank"),
    (4, 20, "hq"),
])
def test_japanese_unit_arrival_table_columns(number, die, unit):
    from pbem.games.calumpit.tables import jat_unit

    assert jat_unit(GAME.data, number, die) == unit


def test_jat_takes_the_next_unit_that_can_be_fielded():
    scen = {"units": {"J-MT-9": {"side": "japanese", "nationality": "japanese", "kind": "tank", "figures": 3,
                                 "type": "medium-tanks"},
                      "J-HQ-9": {"side": "japanese", "nationality": "japanese", "kind": "hq", "figures": 6, "type": "hq"}}}
    # D10 9: four rolls; 2nd roll 18 = medium tanks (all in action) -> artillery; 4th roll 20 = HQ (in action) -> infantry
    r = draw("H3", [9, 1, 18, 1, 20, 2], scen)
    (d,) = data_of(r, "JAGT")
    assert d["units"] == ["J-INF-1", "J-ART-1", "J-INF-2", "J-INF-3"]
    assert "platoon of medium tanks are all in action, the next that can be fielded: platoon of artillery w/trucks" in text(r)


def test_jat_nothing_can_be_fielded():
    units = {}
    for key, count in GAME.data.force_pool.items():
        for i in range(count):
            units[f"X-{key}-{i}"] = {"side": "japanese", "nationality": "japanese", "kind": "infantry", "figures": 1, "type": key}
    r = draw("H3", [1, 5, 1], {"units": units})
    assert data_of(r, "JAGT")[0]["units"] == [] and "nothing can be fielded" in text(r)


def test_breakoff_when_more_than_half_the_attacking_units_are_eliminated():
    r = draw("H3", [9, 1, 1, 1, 1, 1])  # four infantry platoons
    units = data_of(r, "JAGT")[0]["units"]
    state = r.state
    for uid in units[:2]:  # two of four: exactly half, no breakoff
        state = adjudicate(GAME, state, "american", {"order": [{"type": "status", "unit": uid, "status": "eliminated"}]}, []).state
    assert not state.forces[0].broken_off
    r = adjudicate(GAME, state, "american", {"order": [{"type": "status", "unit": units[2], "status": "eliminated"}]}, [])
    assert r.state.forces[0].broken_off and r.state.unit(units[3]).status == "withdrawing"
    assert "3 of the 4 units of Japanese attacking force 1 are eliminated: the force breaks off" in text(r)
    assert GAME.view(r.state, None)["victory"]["american_condition"] == "all retreating"
    # a new attack forms a new force
    from dataclasses import replace

    from pbem.games.calumpit.state import DrawDue

    state = replace(r.state, may_draw=(DrawDue("red"),), red=("H5",))
    r2 = adjudicate(GAME, state, "american", {"order": [{"type": "draw", "deck": "red"}]}, [1, 1, 6])
    assert r2.state.unit("J-INF-5").force == 2 and r2.state.force.number == 2


def test_breakoff_by_fire_casualties():
    r = draw("H3", [3, 1, 1, 1])  # two infantry platoons
    state = r.state
    from dataclasses import replace

    state = state.with_unit(replace(state.unit("J-INF-1"), figures=1))
    # rifle fire kills its last man: 1 of 2 is not more than half
    r = adjudicate(GAME, state, "american", {"order": [{"type": "fire", "weapon": "sniper", "range": 5,
                                                        "terrain": "open", "target": "J-INF-1"}]}, [20, 1])
    assert r.state.unit("J-INF-1").status == "eliminated" and not r.state.forces[0].broken_off


def test_hearts_8_stragglers_opposite_the_attack_and_hearts_6_bridge_bombardment():
    r = draw("H8", [1, 1, 5])
    assert "three PA troops (PA-STR-1, 3 figures, american) arrive: down the road opposite the Japanese attack " \
           "(the attack came down the west side access road)" in text(r)
    r = draw("H6", [1, 1, 1, 2, 4, 7, 11, 13])  # JAGT; d10 2 rounds: directions 4 7, distances 11 13 (D20)
    assert '2 rounds (D10 2) fall on the bridge (burst radius 1"): 11" at 4 o\'clock, 13" at 7 o\'clock' in text(r)


def test_hearts_10_spotter_aircraft_conditional_attack():
    r = draw("H10", [1, 1, 1])  # the JAGT; the attack waits for its condition
    assert ("a Japanese spotter aircraft circles overhead: if any unit larger than a squad is in the open, the Japanese "
            "make an artillery attack on its center of mass (D10 rounds, D10 inches D12 direction") in text(r)
    r2 = adjudicate(GAME, r.state, "japanese", {"order": [{"type": "spotter", "result": "attack"}]}, [1, 12, 3])
    assert "1 rounds (D10 1) fall on its center of mass (burst radius 2\"): 3\" at 12 o'clock" in text(r2)


def test_hearts_jack_queen_king_withdraw_and_ace_banzai():
    units = {"J-LT-1": {"side": "japanese", "nationality": "japanese", "kind": "tank", "figures": 2, "type": "light-tanks"},
             "J-INF-1": {"side": "japanese", "nationality": "japanese", "kind": "infantry", "figures": 30, "type": "infantry"},
             "J-ART-1": {"side": "japanese", "nationality": "japanese", "kind": "artillery", "figures": 12, "type": "artillery"}}
    status = lambda r: {u: r.state.unit(u).status for u in units}  # noqa: E731
    assert status(draw("HJ", [], {"units": units})) == {"J-LT-1": "withdrawing", "J-INF-1": "active", "J-ART-1": "active"}
    assert status(draw("HQ", [], {"units": units})) == {"J-LT-1": "active", "J-INF-1": "withdrawing", "J-ART-1": "active"}
    assert set(status(draw("HK", [], {"units": units})).values()) == {"withdrawing"}
    assert set(status(draw("HA", [], {"units": units})).values()) == {"banzai"}
    assert "no Japanese tank units are in action to withdraw" in text(draw("HJ", []))


# --------------------------------------------------------------------------- fire missions (Hearts 9, Clubs 2) and barrages


def test_hearts_9_two_fire_missions_on_call_for_twenty_minutes():
    r = draw("H9", [1, 1, 1])
    (m,) = r.state.missions
    assert (m.id, m.calls_left, m.last_turn) == ("H9", 2, 2)
    dirs, dists = [1, 2, 3, 4, 5, 6], [10, 1, 2, 3, 4, 5]
    r2 = adjudicate(GAME, r.state, "american", {"order": [{"type": "call", "mission": "H9", "at": "the cross roads"}]},
                    dirs + dists)
    assert ('american calls 155mm direct support on the cross roads: 6 rounds (burst radius 2"): 10" at 1 o\'clock'
            in text(r2)) and "1 call(s) left" in text(r2)
    r3 = adjudicate(GAME, r2.state, "american", {"order": [{"type": "call", "mission": "H9", "at": "the bridge"}]},
                    dirs + dists)
    with pytest.raises(IllegalOrderError, match="Hearts 9: 155mm direct support: every fire mission has been called"):
        adjudicate(GAME, r3.state, "american", {"order": [{"type": "call", "mission": "H9", "at": "x"}]}, [])
    # twenty minutes: gone at the start of turn 3
    r4 = next_turn(r2.state, NO_CARD + NO_CARD)
    r5 = next_turn(r4.state, NO_CARD + NO_CARD)
    assert r5.state.missions == () and "155mm direct support is no longer on call" in text(r5)


def test_clubs_2_battery_fires_eight_rounds_a_turn_for_three_turns_the_turn_after_called():
    r = draw("C2", [])
    r2 = adjudicate(GAME, r.state, "american", {"order": [{"type": "call", "mission": "C2", "at": "the rail head"}]}, [])
    assert "8 rounds a turn for 3 turns from turn 2" in text(r2)
    state = r2.state
    for turn in (2, 3, 4):
        r3 = next_turn(state, NO_CARD + NO_CARD + [1] * 8 + [2] * 8)
        assert f"turn {turn} begins" in text(r3) and "8 rounds fall on the rail head" in text(r3)
        state = r3.state
    assert state.barrages == ()
    with pytest.raises(IllegalOrderError, match="INDIRECT FIRE: no fire mission 'H9' is on call"):
        adjudicate(GAME, state, "american", {"order": [{"type": "call", "mission": "H9", "at": "x"}]}, [])


def test_clubs_ace_barrage_begins_next_turn():
    r = draw("CA", [])
    assert "2 turn(s) of 8 rounds on the cross roads to your front, 500 yards from the church begin next turn" in text(r)
    r2 = next_turn(r.state, NO_CARD + NO_CARD + [4] * 8 + [3] * 8)
    assert '8 rounds fall on the cross roads to your front, 500 yards from the church (burst radius 2"): 3" at 4 o\'clock' in text(r2)


# --------------------------------------------------------------------------- Spades and Clubs


@pytest.mark.parametrize("card", ["S5", "S6", "S7", "S8", "S9", "S10", "SJ", "SQ", "SK", "C8", "C9", "C10"])
def test_spades_and_clubs_narrative_cards_print_their_text(card):
    r = draw(card, [])
    assert GAME.data.card(card).text in text(r)


def test_clubs_3_4_5_end_mid_sentence_as_printed():
    for card in ("C3", "C4", "C5"):
        r = draw(card, [])
        assert "A truck arrives at the bridge for the depot: [the text ends mid-sentence in the source; kept as printed]" in text(r)


def test_spades_3_new_grenades_spades_4_red_draw_spades_ace_ankle():
    assert draw("S3", []).state.grenades == 48
    r = draw("S4", [])
    assert [(d.deck, d.side, d.card) for d in r.state.may_draw] == [("red", "american", "S4")]
    assert "if there are vehicles in the open, the American player must draw a red card" in text(r)
    assert draw("SA", []).state.co_movement == -2
    with pytest.raises(IllegalOrderError, match="EVENT CARDS: no event allows a draw from the red deck"):
        run([{"type": "draw", "deck": "red"}], [])


def test_spades_2_clubs_6_7_queen_arrivals():
    assert draw("S2", []).state.unit("PA-GRP-1").figures == 12
    assert draw("C6", []).state.unit("AIR-1").figures == 2
    assert draw("C7", []).state.unit("PA-DET-1").nationality == "pa"
    assert draw("CQ", []).state.unit("PS-26-1").nationality == "scouts"
    assert draw("H2", []).state.unit("J-PTL-1").side == "japanese"


def test_clubs_jack_and_king_phone_lines():
    r = draw("CJ", [])
    assert r.state.phones == "out"
    assert draw("CK", [], {"phones": "out"}).state.phones == "in service"
    assert draw("CK", []).state.phones == "out"


@pytest.mark.parametrize("joker", ["JR", "JB"])
def test_joker_in_each_deck_owes_the_demolition(joker):
    r = draw(joker, [])
    assert r.state.demolition == "owed"
    assert any(d.kind == "demolition" for d in GAME.awaiting(r.state))


def test_event_deck_exhausted():
    r = run([{"type": "draw", "deck": "red"}], [], {"may_draw": ["red"], "red": []})
    assert "the red deck is exhausted: no card is drawn" in text(r)


# --------------------------------------------------------------------------- VICTORY CONDITIONS


def test_victory_japanese_reach_the_bridge():
    r = run([{"type": "report", "japanese_at_bridge": True}], [], side="japanese")
    assert r.state.over and r.state.winner == "japanese"
    assert "Japanese victory: the Japanese reached the bridge; the game is over" in text(r)
    with pytest.raises(IllegalOrderError, match="VICTORY CONDITIONS: .*the game is over"):
        adjudicate(GAME, r.state, "american", {"order": [{"type": "done"}]}, [])


def test_victory_both_bridges_destroyed_with_americans_on_the_north_bank():
    r = run([{"type": "report", "americans": "north", "destroyed": "rail"}, {"type": "report", "destroyed": "road"}], [])
    assert r.state.winner == "japanese" and "both bridges are destroyed with Americans on the North bank" in r.state.verdict


def test_victory_americans_escape_south_and_blow_the_bridge():
    r = run([{"type": "report", "americans": "south"}, {"type": "demolition"}], [1], {"demolition": "owed"})
    assert r.state.winner == "american"
    assert "American victory: the Americans escaped to the South bank and the Road bridge is destroyed" in text(r)


def test_victory_a_disabled_bridge_counts_as_destroyed_americans_escape_south():
    """"Two direct hits will disable the structure": for the VICTORY CONDITIONS a disabled bridge is down."""
    r = draw("D5", [12, 6, 5, 5, 5, 5] + [3, 3, 9, 9, 9, 9] + [4, 7])  # two direct hits, no explosion
    assert r.state.bridge("road").status == "disabled" and not r.state.over
    r2 = adjudicate(GAME, r.state, "american", {"order": [{"type": "report", "americans": "south"}]}, [])
    assert r2.state.winner == "american"
    assert "American victory: the Americans escaped to the South bank and the Road bridge is destroyed" in text(r2)


def test_victory_both_bridges_disabled_with_americans_on_the_north_bank():
    bridges = {"road": {"hits": 2, "status": "disabled"}, "rail": {"hits": 2, "status": "disabled"}}
    r = run([{"type": "report", "americans": "north"}], [], {"bridges": bridges})
    assert r.state.winner == "japanese" and "both bridges are destroyed with Americans on the North bank" in r.state.verdict
    r = run([{"type": "report", "americans": "north"}], [], {"bridges": {"road": {"hits": 1, "status": "damaged"},
                                                                        "rail": bridges["rail"]}})
    assert not r.state.over  # a damaged bridge still stands


def test_victory_end_of_game_japanese_force_destroyed_or_all_retreating():
    units = {"J-INF-1": {"side": "japanese", "nationality": "japanese", "kind": "infantry", "figures": 30, "status": "withdrawing"}}
    r = run([{"type": "end"}], [], {"units": units})
    assert r.state.ending_by == "american" and not r.state.over
    from pbem.engine.machine import MessageEnd

    state, events = GAME.apply(r.state, MessageEnd("japanese", 3))
    assert state.over and state.winner == "american"
    assert "American victory: the Japanese force is all retreating" in events[0].text
    r = run([{"type": "end"}], [])
    state, events = GAME.apply(r.state, MessageEnd("japanese", 3))
    assert state.winner == "none" and "no decision" in state.verdict


# --------------------------------------------------------------------------- protocol §6: dice keyed after the decisions they resolve


def test_every_order_rolls_keyed_by_the_message_that_carried_it():
    from pbem.engine.machine import DiceDue, DiceRolled, MessageEnd, Ordered

    scen = {"units": {"J-INF-1": {"side": "japanese", "nationality": "japanese", "kind": "infantry", "figures": 30}},
            "demolition": "owed", "may_draw": ["red"], "grenades": 1}
    orders = [
        {"type": "move", "kind": "tank"},
        {"type": "fire", "weapon": "rifle", "range": 20, "figures": 10, "unit": "1-SQD", "target": "J-INF-1", "terrain": "open"},
        {"type": "save", "hits": 2, "terrain": "woods"},
        {"type": "indirect", "weapon": "stokes"},
        {"type": "burst", "weapon": "mortar", "figures": 3, "terrain": "open", "unit": "J-INF-1"},
        {"type": "grenade", "range": 3, "figures": 2, "new_type": True},
        {"type": "tankfire", "gun": "us-75mm", "range": 10, "vehicle": "japanese-medium"},
        {"type": "melee", "attacker": "2-SQD", "defender": "J-INF-1", "pairs": 2},
        {"type": "morale", "unit": "3-SQD"},
        {"type": "demolition"},
        {"type": "draw", "deck": "red"},
    ]
    state = GAME.scenario_state(scen)
    seq = 7
    for i, order in enumerate(orders):
        state, _ = GAME.apply(state, Ordered("american", seq, i, order))
    state, _ = GAME.apply(state, Ordered("american", seq, len(orders), {"type": "done"}))
    state, _ = GAME.apply(state, MessageEnd("american", seq))
    seen = set()
    while True:
        due = [d for d in GAME.awaiting(state) if isinstance(d, DiceDue)]
        if not due:
            break
        d = due[0]
        assert d.key_seq == seq, d  # the author's own orders are the only decisions they resolve
        seen.add(d.label.split("/")[0])
        faces = tuple(1 + (k * 5 + len(seen)) % d.sides for k in range(d.count))  # varied: hand-to-hand ties end
        state, _ = GAME.apply(state, DiceRolled(d.label, faces))
    assert seen >= {f"{seq:04d}.{i}" for i in range(len(orders))}


def test_rolls_that_need_facts_from_the_table_are_keyed_by_the_report():
    """A Joker drawn at a turn's end (keyed by that message) makes the demolition
    owed; its die is rolled only when the American reports the modifiers, keyed
    by that later message.  The same for a burst after indirect fire."""
    from pbem.engine.machine import DiceDue, MessageEnd, Ordered

    state = GAME.scenario_state({"red": ["JR"], "black": [], "done": ["japanese"]})
    state, _ = GAME.apply(state, Ordered("american", 4, 0, {"type": "done"}))
    state, _ = GAME.apply(state, MessageEnd("american", 4))
    (due,) = GAME.awaiting(state)
    assert due.key_seq == 4 and due.label == "0004.end/end/check"
    from pbem.engine.machine import DiceRolled

    state, _ = GAME.apply(state, DiceRolled(due.label, (2, 2)))  # doubles: the red Joker
    (due,) = [d for d in GAME.awaiting(state) if isinstance(d, DiceDue)]
    state, _ = GAME.apply(state, DiceRolled(due.label, (1, 4)))  # turn 2's start check: no card
    assert state.demolition == "owed" and not [d for d in GAME.awaiting(state) if isinstance(d, DiceDue)]
    state, _ = GAME.apply(state, Ordered("american", 6, 0, {"type": "demolition", "officer": True}))
    (due,) = [d for d in GAME.awaiting(state) if isinstance(d, DiceDue)]
    assert due.key_seq == 6 and due.label == "0006.0/demolition"
