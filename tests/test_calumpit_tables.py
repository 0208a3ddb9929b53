"""Calumpit Bridge: every table of the TACTICAL RULES with fixed dice, through
the referee (``pbem.engine.referee.adjudicate`` on ``scenario_state``).
Test names cite the rule text's sections."""

from __future__ import annotations

import pytest

from pbem.engine.referee import adjudicate
from pbem.errors import IllegalOrderError, InputError
from pbem.games.calumpit import GAME

JAPANESE_PLATOON = {"side": "japanese", "nationality": "japanese", "kind": "infantry", "figures": 30}


def run(orders, dice, scenario=None, side="american", end_turn=False):
    state = GAME.scenario_state(scenario or {})
    return adjudicate(GAME, state, side, {"order": orders}, dice, end_turn=end_turn)


def text(result, rule=None):
    return "\n".join(e.sentence() for e in result.events if rule is None or e.rule == rule)


def data(result, rule):
    return next(e.data for e in result.events if e.rule == rule)


# --------------------------------------------------------------------------- MOVEMENT


@pytest.mark.parametrize("kind, dice, inches", [
    ("infantry", [4], 6),           # one D6 plus two inches
    ("vehicle", [1, 2, 3], 16),     # three D6 plus ten inches
    ("tank", [6, 6, 6], 23),        # three D6 plus five inches
    ("heavy", [5], 5),              # heavy man-handled equipment one D6
])
def test_movement_rates(kind, dice, inches):
    r = run([{"type": "move", "kind": kind, "terrain": "road"}], dice)
    assert data(r, "MOVEMENT")["inches"] == inches


def test_movement_half_through_jungle_and_rice_paddy():
    r = run([{"type": "move", "kind": "infantry", "terrain": "jungle", "unit": "1-SQD"}], [5])
    assert data(r, "MOVEMENT")["inches"] == 3.5
    assert '1-SQD moves up to 3.5" through jungle' in text(r)
    r = run([{"type": "move", "kind": "tank", "terrain": "jungle"}], [2, 3, 4])
    assert data(r, "MOVEMENT")["inches"] == 7


@pytest.mark.parametrize("kind, terrain", [("vehicle", "jungle"), ("vehicle", "rice-paddy"), ("tank", "rice-paddy")])
def test_movement_prohibited_terrain(kind, terrain):
    with pytest.raises(IllegalOrderError, match="MOVEMENT: .*prohibited from " + terrain):
        run([{"type": "move", "kind": kind, "terrain": terrain}], [1, 1, 1])


def test_movement_spades_ace_co_ankle_subtracts_two():
    r = run([{"type": "move", "kind": "infantry", "co": True}], [3], {"co_movement": -2})
    assert data(r, "MOVEMENT")["inches"] == 3


# --------------------------------------------------------------------------- DIRECT FIRE


def test_direct_fire_forty_inches_hits_on_fifteen():
    """The rule's own example: a target forty inches distant is hit on 15 or more."""
    r = run([{"type": "fire", "weapon": "rifle", "range": 40, "figures": 10, "nationality": "scouts", "terrain": "open"}],
            [15, 14, 6])  # the hit figure's save: D6 6 > TDF 5 saves
    d = data(r, "DIRECT FIRE")
    assert d["needed"] == 15 and d["rolls"] == [15, 14] and d["hits"] == 1
    assert "TARGET RANGE 30, hits on 15: 15 14: 1 hit(s); saves (open, TDF 5) 6: 0 killed" in text(r)


def test_direct_fire_rifle_dice_per_five_figures_and_six_for_philippine_army():
    r = run([{"type": "fire", "weapon": "rifle", "range": 10, "figures": 12, "nationality": "scouts", "terrain": "open"}],
            [1, 1])  # 12 Scouts: two D20 (natural 1s miss)
    assert len(data(r, "DIRECT FIRE")["rolls"]) == 2
    r = run([{"type": "fire", "weapon": "rifle", "range": 10, "figures": 12, "nationality": "pa", "terrain": "open"}],
            [1, 1])  # 12 PA: two D20
    r = run([{"type": "fire", "weapon": "rifle", "range": 10, "figures": 11, "nationality": "pa", "terrain": "open"}], [1])
    assert len(data(r, "DIRECT FIRE")["rolls"]) == 1
    r = run([{"type": "fire", "weapon": "rifle", "range": 10, "figures": 8, "unit": "DEPOT", "terrain": "open"}], [1])
    assert len(data(r, "DIRECT FIRE")["rolls"]) == 1  # DEPOT is Philippine Army: 6 per die


def test_direct_fire_natural_one_misses_natural_twenty_hits():
    r = run([{"type": "fire", "weapon": "rifle", "range": 5, "figures": 5, "nationality": "japanese", "terrain": "open"}], [1])
    assert data(r, "DIRECT FIRE")["needed"] == -2 and data(r, "DIRECT FIRE")["hits"] == 0  # TARGET RANGE -5, halved
    r = run([{"type": "fire", "weapon": "rifle", "range": 60, "figures": 5, "nationality": "japanese", "terrain": "open",
              "moving": True}], [20, 6])
    d = data(r, "DIRECT FIRE")
    assert d["needed"] == 25 and d["hits"] == 1


def test_direct_fire_modifiers_moving_cover_under_fire():
    base = {"type": "fire", "weapon": "rifle", "range": 30, "figures": 5, "nationality": "scouts", "terrain": "open"}
    assert data(run([base], [10, 6]), "DIRECT FIRE")["hits"] == 1                       # needs 10
    assert data(run([{**base, "moving": True}], [19]), "DIRECT FIRE")["hits"] == 0    # -10
    assert data(run([{**base, "in_cover": True}], [5, 6]), "DIRECT FIRE")["hits"] == 1   # +5
    assert data(run([{**base, "under_fire": True}], [14]), "DIRECT FIRE")["hits"] == 0   # -5
    assert data(run([{**base, "in_cover": True, "under_fire": True}], [10, 6]), "DIRECT FIRE")["modifier"] == 0


def test_direct_fire_hmg_subtracts_three_and_fires_twice_in_two_square_inches():
    r = run([{"type": "fire", "weapon": "hmg", "range": 33, "targets": 2, "area": 2, "terrain": "woods"}],
            [10, 1, 9, 9, 5])
    d = data(r, "DIRECT FIRE")
    assert d["needed"] == 10  # (33 - 10 - 3) / 2
    assert d["rolls"] == [10, 1, 9, 9] and d["hits"] == 1  # first figure hit once; second missed twice
    r = run([{"type": "fire", "weapon": "hmg", "range": 33, "targets": 3, "area": 4, "terrain": "woods"}], [10, 10, 2, 1, 1])
    assert len(data(r, "DIRECT FIRE")["rolls"]) == 3 and data(r, "DIRECT FIRE")["hits"] == 2


def test_direct_fire_hmg_figure_hit_twice_counts_once():
    r = run([{"type": "fire", "weapon": "hmg", "range": 10, "targets": 1, "terrain": "open"}], [15, 16, 6])
    assert data(r, "DIRECT FIRE")["hits"] == 1


def test_direct_fire_lmg_adds_three_smg_divides_by_one():
    r = run([{"type": "fire", "weapon": "lmg", "range": 27, "targets": 1, "terrain": "open"}], [10, 6])
    assert data(r, "DIRECT FIRE")["needed"] == 10  # (17 + 3) / 2
    r = run([{"type": "fire", "weapon": "smg", "range": 17, "targets": 2, "terrain": "open"}], [7, 6, 6])
    d = data(r, "DIRECT FIRE")
    assert d["needed"] == 7 and d["hits"] == 1


def test_direct_fire_sniper_hits_on_fifteen_regardless_of_range():
    for distance in (5, 100):
        assert data(run([{"type": "fire", "weapon": "sniper", "range": distance, "terrain": "open"}], [14]), "DIRECT FIRE")["hits"] == 0
        assert data(run([{"type": "fire", "weapon": "sniper", "range": distance, "terrain": "open"}], [15, 1]), "DIRECT FIRE")["hits"] == 1


def test_direct_fire_needs_figures_and_targets():
    with pytest.raises(InputError, match="figures"):
        GAME.parse_orders({"order": [{"type": "fire", "weapon": "rifle", "range": 10, "terrain": "open"}]}, "american")
    with pytest.raises(InputError, match="targets"):
        GAME.parse_orders({"order": [{"type": "fire", "weapon": "hmg", "range": 10, "terrain": "open"}]}, "american")
    with pytest.raises(IllegalOrderError, match="DIRECT FIRE: .*nationality"):
        run([{"type": "fire", "weapon": "rifle", "range": 10, "figures": 5, "terrain": "open"}], [])


def test_direct_fire_on_a_tracked_unit_losses_grade_and_morale():
    scen = {"units": {"J-INF-1": JAPANESE_PLATOON}}
    # two D20 at 20": hits on 5: 18, 7 -> 2 hits; saves in the open 2, 6 -> 1 killed;
    # morale D20 12 + 10 (open) = 22 > 19: fails; D6 5: charge
    r = run([{"type": "fire", "weapon": "rifle", "range": 20, "figures": 10, "unit": "1-SQD", "target": "J-INF-1",
              "terrain": "open"}], [18, 7, 2, 6, 12, 5], scen)
    unit = r.state.unit("J-INF-1")
    assert unit.figures == 29 and unit.grade == 19 and unit.status == "charge"
    assert "J-INF-1 loses 1 (figures 29, grade 19); morale D20 12+10 = 22 > 19: fails, D6 5: charge" in text(r)


# --------------------------------------------------------------------------- SAVING THROWS / TERRAIN DEFENSE FACTOR


@pytest.mark.parametrize("terrain, tdf", [("open", 5), ("road", 5), ("woods", 4), ("light-cover", 4), ("vehicle", 3),
                                          ("heavy-cover", 2), ("foxhole", 2), ("bunker", 1), ("tank", 1)])
def test_saving_throws_d6_greater_than_terrain_defense_factor(terrain, tdf):
    dice = [1, 2, 3, 4, 5, 6]
    r = run([{"type": "save", "hits": 6, "terrain": terrain}], dice)
    d = data(r, "SAVING THROWS")
    assert d["tdf"] == tdf and d["killed"] == tdf


def test_saving_throws_reduce_a_unit():
    r = run([{"type": "save", "hits": 3, "terrain": "foxhole", "unit": "2-SQD"}], [1, 3, 2])
    assert r.state.unit("2-SQD").figures == 10 and r.state.unit("2-SQD").grade == 18


# --------------------------------------------------------------------------- INDIRECT FIRE and AMMO


def test_indirect_fire_mortar_three_rounds_dispersion_and_ammo():
    r = run([{"type": "indirect", "weapon": "mortar", "unit": "MORTAR", "at": "the tree line"}], [3, 12, 7, 1, 6, 2])
    d = data(r, "INDIRECT FIRE")
    assert d["rounds"] == [{"direction": 3, "inches": 1, "dud": False}, {"direction": 12, "inches": 6, "dud": False},
                           {"direction": 7, "inches": 2, "dud": False}]
    assert d["radius"] == 1
    assert r.state.unit("MORTAR").ammo == 21 and r.state.unit("MORTAR").fired == 3
    assert "MORTAR has 21 rounds left" in text(r)


def test_indirect_fire_stokes_misfire_on_one_to_four():
    r = run([{"type": "indirect", "weapon": "stokes", "rounds": 3}], [1, 2, 3, 1, 1, 1, 4, 5, 6])
    assert [x["dud"] for x in data(r, "INDIRECT FIRE")["rounds"]] == [True, False, False]
    assert "misfire D6 4: fails to detonate" in text(r)


def test_indirect_fire_artillery_two_rounds_a_turn_radius_two():
    r = run([{"type": "indirect", "weapon": "artillery", "unit": "ARTY"}], [1, 2, 3, 4])
    assert len(data(r, "INDIRECT FIRE")["rounds"]) == 2 and data(r, "INDIRECT FIRE")["radius"] == 2
    assert r.state.unit("ARTY").ammo == 58  # thirty rounds per gun, two guns
    with pytest.raises(IllegalOrderError, match="INDIRECT FIRE: a artillery fires 2 rounds a turn"):
        run([{"type": "indirect", "weapon": "artillery", "rounds": 3}], [])
    with pytest.raises(IllegalOrderError, match="INDIRECT FIRE: ARTY has fired 2 of its 2 rounds this turn"):
        run([{"type": "indirect", "weapon": "artillery", "unit": "ARTY", "rounds": 1}], [], {"units": {"ARTY": {"fired": 2}}})


def test_ammo_runs_out_and_is_replenished():
    scen = {"units": {"MORTAR": {"ammo": 2}}}
    with pytest.raises(IllegalOrderError, match="AMMO: MORTAR has 2 rounds left, not 3"):
        run([{"type": "indirect", "weapon": "stokes", "unit": "MORTAR"}], [], scen)
    r = run([{"type": "ammo", "unit": "MORTAR", "rounds": 24}], [], scen)
    assert r.state.unit("MORTAR").ammo == 26


def test_ammo_table_values():
    state = GAME.initial_state({})
    assert state.unit("MORTAR").ammo == 24 and state.unit("ARTY").ammo == 60
    assert GAME.data.tables["ammo"] == {"us-75mm": 30, "japanese-artillery": 40, "japanese-light-mortar": 12,
                                        "scout-mortar": 24}


def test_indirect_fire_kills_in_burst_one_to_three_then_saves():
    r = run([{"type": "burst", "weapon": "artillery", "figures": 4, "terrain": "foxhole", "unit": "3-SQD"}],
            [1, 3, 4, 6, 2, 5, 15])  # 2 hit; saves 2 (killed) 5 (saved); morale 15 - 10 <= 19
    d = data(r, "INDIRECT FIRE")
    assert d["hits"] == 2 and d["killed"] == 1 and d["morale"]["passed"]
    assert r.state.unit("3-SQD").figures == 11


@pytest.mark.parametrize("weapon, faces", [
    ("strafe-road", (4, 5, 6)),       # Diamonds 6-8: "units on the road are hit on a D6 roll of four, five, or six"
    ("strafe-roadside", (1, 2)),      # "Any unit two inches on either side of the road is hit on a D6 roll of one or two"
    ("bomb", (1, 2, 3)),              # bombers: as artillery (reconstruction), "Kills: ... 1-3"
])
@pytest.mark.parametrize("face", [1, 2, 3, 4, 5, 6])
def test_burst_kill_faces_strafing_and_bombs(weapon, faces, face):
    hit = face in faces
    r = run([{"type": "burst", "weapon": weapon, "figures": 1, "terrain": "road", "morale": False}],
            [face] + ([6] if hit else []))  # a hit figure's save: D6 6 > TDF 5
    assert data(r, "INDIRECT FIRE")["hits"] == int(hit)


def test_burst_strafing_on_a_squad_saves_per_normal_then_morale():
    # 1-SQD on the road: six figures under the strafing run, D6 1..6: 4, 5, 6 hit; saves 2 6 5: 2 killed
    r = run([{"type": "burst", "weapon": "strafe-road", "figures": 6, "terrain": "road", "unit": "1-SQD"}],
            [1, 2, 3, 4, 5, 6, 2, 6, 5, 3])
    d = data(r, "INDIRECT FIRE")
    assert d["hits"] == 3 and d["killed"] == 2 and r.state.unit("1-SQD").figures == 10
    assert d["morale"]["modifier"] == 10  # the road is open: +10


# --------------------------------------------------------------------------- HAND-GRENADES


def test_hand_grenades_american_dud_on_even():
    r = run([{"type": "grenade", "range": 3, "figures": 2}], [4])
    assert data(r, "HAND-GRENADES")["dud"] and "fails to detonate" in text(r)


def test_hand_grenades_on_target_kill_one_to_four_saves_in_open():
    scen = {"units": {"J-INF-1": JAPANESE_PLATOON}}
    # arms (3), direction 5, miss die 3 (on target); 3 figures: 4 5 1 -> 2 hit; saves 6 (saved) 5 (killed); morale 1+10 <= 19
    r = run([{"type": "grenade", "range": 3, "figures": 3, "target": "J-INF-1"}], [3, 5, 3, 4, 5, 1, 6, 5, 1], scen)
    d = data(r, "HAND-GRENADES")
    assert d["hits"] == 2 and d["tdf"] == 5 and d["killed"] == 1
    assert r.state.unit("J-INF-1").figures == 29


def test_hand_grenades_japanese_no_dud_roll_kill_one_or_two():
    r = run([{"type": "grenade", "range": 3, "figures": 3}], [5, 4, 1, 2, 3, 6, 6], side="japanese")
    d = data(r, "HAND-GRENADES")
    assert "dud_die" not in d and d["hits"] == 2 and d["killed"] == 0


@pytest.mark.parametrize("distance, die, off", [
    (3, 1, 1), (3, 2, 2), (3, 3, 0),        # a 1 is one inch off, a 2 two inches; all others on target
    (5, 2, 1), (5, 3, 2), (5, 4, 0),        # more than four, less than six: -1
    (6, 3, 0),                              # exactly six: neither (as printed)
    (7, 4, 1), (7, 5, 2), (7, 6, 0),        # more than six: -3
    (7, 3, 3), (7, 1, 5),                   # below one: reconstruction, (3 - roll) inches
    (1, 1, 2), (1, 2, 0),                   # under two inches: +1
])
def test_hand_grenades_miss_distance(distance, die, off):
    r = run([{"type": "grenade", "range": distance, "figures": 0}], [5, 9, die])
    assert data(r, "HAND-GRENADES")["off"] == off
    if off:
        assert f'lands {off}" off target at 9 o\'clock' in text(r)


def test_hand_grenades_range_is_eight_inches_and_new_type_never_dud():
    with pytest.raises(InputError, match="range must be 0-8"):
        GAME.parse_orders({"order": [{"type": "grenade", "range": 9}]}, "american")
    with pytest.raises(IllegalOrderError, match="HAND-GRENADES: there are no new type grenades"):
        run([{"type": "grenade", "range": 3, "new_type": True}], [])
    r = run([{"type": "grenade", "range": 3, "new_type": True}], [2, 6], {"grenades": 48})
    assert r.state.grenades == 47 and "dud_die" not in data(r, "HAND-GRENADES")


# --------------------------------------------------------------------------- TANK FIRE ACTIONS


@pytest.mark.parametrize("gun, distance, chance", [
    ("us-37mm", 10, 95), ("us-37mm", 11, 85), ("us-37mm", 30, 65), ("us-37mm", 40, 50),
    ("us-75mm", 5, 65), ("ija-47mm", 20, 75), ("ija-37mm", 35, 25), ("ija-25mm", 25, 35),
])
def test_tank_fire_actions_percent_table(gun, distance, chance):
    r = run([{"type": "tankfire", "gun": gun, "range": distance, "vehicle": "bunker"}], [chance])
    d = data(r, "TANK FIRE ACTIONS")
    assert d["chance"] == chance and d["hit"]
    r = run([{"type": "tankfire", "gun": gun, "range": distance, "vehicle": "bunker"}], [chance + 1])
    assert not data(r, "TANK FIRE ACTIONS")["hit"]


def test_tank_fire_modifiers_for_hit():
    base = {"type": "tankfire", "gun": "us-37mm", "range": 20, "vehicle": "building"}  # 85%
    for flag, chance in (("moving_target", 75), ("moving_shooter", 60), ("covered_target", 65), ("under_fire", 75),
                         ("second_shot", 95), ("ambush", 105)):
        assert data(run([{**base, flag: True}], [50]), "TANK FIRE ACTIONS")["chance"] == chance


def test_tank_fire_hit_effects_stuart_subtracts_one_japanese_light_adds_one():
    # IJA 47mm (+1) hits a Stuart (-1): crew 4, engine, fire; 5 or 6 hits
    r = run([{"type": "tankfire", "gun": "ija-47mm", "range": 10, "vehicle": "stuart"}], [1, 5, 4, 6, 1, 5, 4])
    d = data(r, "TANK FIRE ACTIONS")
    assert d["modifier"] == 0 and d["crew_hit"] == 2 and d["engine"] and not d["fire"]
    # US 37mm (+2) hits a Japanese light tank (+1): crew 3; a 2 becomes 5
    r = run([{"type": "tankfire", "gun": "us-37mm", "range": 10, "vehicle": "japanese-light"}], [1, 2, 1, 1, 1, 2])
    d = data(r, "TANK FIRE ACTIONS")
    assert d["modifier"] == 3 and d["crew_hit"] == 1 and not d["engine"] and d["fire"]
    assert "1 of 3 crew hit, engine unharmed, on fire" in text(r)


def test_tank_fire_beyond_forty_inches_and_the_target_type():
    with pytest.raises(IllegalOrderError, match="TANK FIRE ACTIONS: the table ends at 40 inches"):
        run([{"type": "tankfire", "gun": "us-37mm", "range": 41, "vehicle": "stuart"}], [])
    with pytest.raises(IllegalOrderError, match="TANK FIRE ACTIONS: say what is fired at"):
        run([{"type": "tankfire", "gun": "us-37mm", "range": 20}], [])
    scen = {"units": {"J-LT-1": {"side": "japanese", "nationality": "japanese", "kind": "tank", "figures": 2,
                                 "target": "japanese-light"}}}
    r = run([{"type": "tankfire", "gun": "us-37mm", "range": 20, "target": "J-LT-1"}], [99], scen)
    assert data(r, "TANK FIRE ACTIONS")["vehicle"] == "japanese-light"


# --------------------------------------------------------------------------- HAND-TO-HAND


MELEE_SCEN = {"units": {"J-INF-1": JAPANESE_PLATOON}}


def test_hand_to_hand_defender_fails_pinned_treated_as_retreat():
    # defender 2-SQD (Scouts, grade 20), in the open: D20 10 + 5 + 10 = 25 > 20; D6 1: pinned -> retreat
    r = run([{"type": "melee", "attacker": "J-INF-1", "defender": "2-SQD", "pairs": 2, "defender_in": "open"}],
            [10, 1], MELEE_SCEN, side="japanese")
    assert r.state.unit("2-SQD").status == "retreat"
    assert "pinned treated as retreat -- no fight" in text(r, "HAND-TO-HAND")


def test_hand_to_hand_attacker_fails_reacts_as_normal_test():
    # defender in foxhole passes (10 + 5 - 10 = 5); attacker D20 18 + 5 = 23 > 20; D6 1 -> pinned (not escalated)
    r = run([{"type": "melee", "attacker": "J-INF-1", "defender": "2-SQD", "pairs": 2, "defender_in": "foxhole"}],
            [10, 18, 1], MELEE_SCEN, side="japanese")
    assert r.state.unit("J-INF-1").status == "pinned" and r.state.unit("2-SQD").status == "active"


def test_hand_to_hand_pairs_modifiers_ties_and_morale_after():
    # both pass (2, 3); pair 1: charging bayonet (+2) vs foxhole (-1): 3+2=5 vs 5-1=4 -> 2-SQD loses a man;
    # pair 2: no modifiers: 4 vs 4 tie, rolled again 2 vs 6 -> J-INF-1 loses a man;
    # after: attacker 19 <= 19 passes; defender 20 > 19 fails, D6 4: retreat -> rout
    orders = [{"type": "melee", "attacker": "J-INF-1", "defender": "2-SQD",
               "pairs": ["charging bayonet vs foxhole", "vs"]}]
    r = run(orders, [2, 3, 3, 5, 4, 4, 2, 6, 19, 20, 4], MELEE_SCEN, side="japanese")
    h = data(r, "HAND-TO-HAND")
    assert h["kia"] == {"J-INF-1": 1, "2-SQD": 1}
    assert h["pairs"][1]["rolls"] == [[4, 4], [2, 6]]
    assert r.state.unit("2-SQD").status == "rout" and r.state.unit("J-INF-1").grade == 19
    assert "(after 1 tie(s))" in text(r, "HAND-TO-HAND")


def test_hand_to_hand_american_plus_one_and_second_combat_minus_two():
    scen = {"units": {"J-INF-1": {**JAPANESE_PLATOON, "fights": 1}}}
    # PACI is US Army: +1; J-INF-1 already fought this turn: -2.  3+1 = 4 vs 5-2 = 3
    r = run([{"type": "melee", "attacker": "PACI", "defender": "J-INF-1", "pairs": 1}], [1, 1, 3, 5, 1, 1], scen)
    pair = data(r, "HAND-TO-HAND")["pairs"][0]
    assert pair["attacker"] == ["american"] and pair["defender"] == ["second"] and pair["loser"] == "J-INF-1"
    assert r.state.unit("PACI").fights == 1


def test_hand_to_hand_modifiers_officer_wounded_sword():
    """HAND-TO-HAND MODIFIERS: bayonet or sword armed +1, wounded -2, officer +1."""
    # both pass their morale tests (2 + 5, 3 + 5); pair 1: officer 2+1 vs wounded 4-2; pair 2: sword 4+1 vs 4;
    # pair 3: 4 vs sword wounded 4+1-2; every pair's loser is 2-SQD (none would be without the modifiers)
    orders = [{"type": "melee", "attacker": "J-INF-1", "defender": "2-SQD",
               "pairs": ["officer vs wounded", "sword vs", "vs sword wounded"]}]
    r = run(orders, [2, 3, 2, 4, 4, 4, 4, 4, 1, 1], MELEE_SCEN, side="japanese")
    h = data(r, "HAND-TO-HAND")
    assert [p["loser"] for p in h["pairs"]] == ["2-SQD"] * 3 and h["kia"] == {"J-INF-1": 0, "2-SQD": 3}
    assert [p["attacker"] for p in h["pairs"]] == [["officer"], ["sword"], []]
    assert [p["defender"] for p in h["pairs"]] == [["wounded"], [], ["sword", "wounded"]]
    t = text(r, "HAND-TO-HAND")
    assert "pair 1: 2+1 vs 4-2, 2-SQD loses a man" in t and "pair 2: 4+1 vs 4+0" in t and "pair 3: 4+0 vs 4-1" in t


def test_hand_to_hand_figure_for_figure_and_sides():
    with pytest.raises(IllegalOrderError, match="HAND-TO-HAND: 7 pairs, but MG has only 4 figures"):
        run([{"type": "melee", "attacker": "J-INF-1", "defender": "MG", "pairs": 7}], [], MELEE_SCEN)
    with pytest.raises(IllegalOrderError, match="HAND-TO-HAND: 1-SQD and 2-SQD are on the same side"):
        run([{"type": "melee", "attacker": "1-SQD", "defender": "2-SQD", "pairs": 1}], [])
    with pytest.raises(InputError, match="modifier 'pistol' is not one of"):
        GAME.parse_orders({"order": [{"type": "melee", "attacker": "A", "defender": "B", "pairs": ["pistol vs"]}]}, "x")


# --------------------------------------------------------------------------- MORALE


def test_morale_grade_and_modifiers():
    assert data(run([{"type": "morale", "unit": "1-SQD"}], [20]), "MORALE")["passed"]
    r = run([{"type": "morale", "unit": "1-SQD", "position": "open"}], [11, 3])  # 11 + 10 = 21 > 20
    assert not data(r, "MORALE")["passed"] and r.state.unit("1-SQD").status == "pinned"
    assert data(run([{"type": "morale", "unit": "1-SQD", "position": "foxhole"}], [20]), "MORALE")["modifier"] == -10
    assert data(run([{"type": "morale", "unit": "1-SQD", "officer": True, "position": "trench"}], [20]), "MORALE")["modifier"] == -15


@pytest.mark.parametrize("nationality, results", [
    ("japanese", ["pinned", "pinned", "retreat", "retreat", "charge", "charge"]),
    ("scouts", ["pinned", "pinned", "pinned", "retreat", "retreat", "rout"]),
    ("us", ["pinned", "pinned", "pinned", "retreat", "retreat", "rout"]),
    ("pa", ["pinned", "pinned", "retreat", "retreat", "rout", "rout"]),
])
def test_morale_failed_results_reconstruction(nationality, results):
    got = []
    for face in range(1, 7):
        r = run([{"type": "morale", "grade": 5, "nationality": nationality}], [6, face])
        got.append(data(r, "MORALE")["result"])
    assert got == results


def test_morale_grade_loses_one_per_man_two_per_weapon_or_sergeant():
    r = run([{"type": "loss", "unit": "2-SQD", "men": 2, "weapons": 1, "sergeants": 1}], [])
    unit = r.state.unit("2-SQD")
    assert unit.figures == 10 and unit.grade == 14
    assert "MORALE GRADE 20 -> 14" in text(r)


def test_morale_status_pinned_clears_next_turn():
    scen = {"units": {"1-SQD": {"status": "pinned"}}, "done": ["japanese"]}
    r = run([{"type": "done"}], [1, 4, 1, 4], scen, end_turn=True)  # two event checks without a card
    assert r.state.turn == 2 and r.state.unit("1-SQD").status == "active"


# --------------------------------------------------------------------------- VISIBILITY/SPOTTING


def test_visibility_spotting():
    def spot(**kw):
        return data(run([{"type": "spot", **kw}], []), "VISIBILITY/SPOTTING")["result"]

    assert spot(kind="infantry", in_los=True, moved_or_fired=True) == "spotted"
    assert spot(kind="infantry", in_los=True, moved_or_fired=True, in_jungle=True) == "unseen"
    assert spot(kind="infantry", in_los=True) == "unseen"
    assert spot(kind="tank", distance=24) == "heard"
    assert spot(kind="vehicle", distance=25) == "unseen"


# --------------------------------------------------------------------------- Joker


def test_joker_demolition_modifiers_and_detonation():
    r = run([{"type": "demolition", "japanese_within_6": True, "officer": True}], [2], {"demolition": "owed"})
    assert data(r, "Joker")["outcome"] == "blown" and r.state.bridge("road").status == "destroyed"
    r = run([{"type": "demolition", "officer": True}], [1], {"demolition": "owed"})
    assert data(r, "Joker")["modified"] == 4 and r.state.demolition == "failed"
    r = run([{"type": "demolition", "friendly_on_bridge": True, "bridge": "rail"}], [5], {"demolition": "owed"})
    assert data(r, "Joker")["outcome"] == "blown" and r.state.bridge("rail").status == "destroyed"


def test_joker_demolition_retried_each_new_turn_until_a_six():
    r = run([{"type": "demolition"}, {"type": "done"}], [4, 1, 4, 1, 4], {"demolition": "owed", "done": ["japanese"]},
            end_turn=True)  # 4: fails; then two event checks of 1 + 4, no card
    assert r.state.turn == 2 and r.state.demolition == "owed"
    assert "the engineers attempt to blow the bridge again this turn" in text(r)
    r = run([{"type": "demolition"}], [6], {"demolition": "owed"})
    assert data(r, "Joker")["outcome"] == "gave-up" and r.state.demolition == ""
    with pytest.raises(IllegalOrderError, match="Joker: no demolition attempt is due"):
        run([{"type": "demolition"}], [])
