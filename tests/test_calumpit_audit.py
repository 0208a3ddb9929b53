"""Calumpit Bridge: the rules an audit found misread -- each test cites the
rule text it follows (direct fire's TARGET RANGE, rifle figures, snipers'
morale, Spades 4's draw, spotting, the victory conditions, Hearts Queen,
Hearts 6 and 10), through the referee with fixed dice."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pbem.engine.machine import DecisionDue
from pbem.engine.referee import adjudicate
from pbem.errors import IllegalOrderError, InputError
from pbem.games.calumpit import GAME
from pbem.games.calumpit.data import DATA

JAPANESE_PLATOON = {"side": "japanese", "nationality": "japanese", "kind": "infantry", "figures": 30}
NO_CARD = [1, 4]  # an event check of 5: no card


def run(orders, dice, scenario=None, side="american", end_turn=False):
    return adjudicate(GAME, GAME.scenario_state(scenario or {}), side, {"order": orders}, dice, end_turn=end_turn)


def on(state, orders, dice, side="american"):
    return adjudicate(GAME, state, side, {"order": orders}, dice, end_turn=False)


def draw(card, dice, scenario=None):
    deck = GAME.data.card(card).deck
    return run([{"type": "draw", "deck": deck}], dice, {"may_draw": [deck], deck: [card], **(scenario or {})})


def next_turn(state, dice, orders=()):
    state = replace(state, done=("japanese",))
    return adjudicate(GAME, state, "american", {"order": [*orders, {"type": "done"}]}, dice)


def text(result, rule=None):
    return "\n".join(e.sentence() for e in result.events if rule is None or e.rule == rule)


def data(result, rule):
    return next(e.data for e in result.events if e.rule == rule)


def decisions(state, kind, side=None):
    return [d for d in GAME.awaiting(state) if isinstance(d, DecisionDue) and d.kind == kind
            and (side is None or d.side == side)]


# --------------------------------------------------------------------------- 1. DIRECT FIRE: TARGET RANGE below zero


def test_direct_fire_negative_target_range_not_clamped_rifle_at_5_moving_hits_on_8():
    """"subtract 10" - the result is the TARGET RANGE. Hit on a D20 roll equal or
    more than the TARGET RANGE ... divided by two": 5" gives -5, -2.5; a moving
    unit (-10) needs a natural 8."""
    fire = {"type": "fire", "weapon": "rifle", "range": 5, "figures": 5, "nationality": "scouts", "terrain": "open",
            "moving": True}
    r = run([fire], [7])
    d = data(r, "DIRECT FIRE")
    assert d["needed"] == -2 and d["hits"] == 0
    assert "TARGET RANGE -5, hits on -2 -10: 7: 0 hit(s)" in text(r)
    assert data(run([fire], [8, 6]), "DIRECT FIRE")["hits"] == 1


@pytest.mark.parametrize("weapon, distance, needed, miss, hit", [
    ("lmg", 2, -2, 7, 8),     # LMG: -8 + 3 = -5, halved -2.5
    ("hmg", 5, -4, 5, 6),     # HMG: -5 - 3 = -8, halved -4
    ("smg", 5, -5, 4, 5),     # SMG: -5 divided by one
])
def test_direct_fire_negative_target_range_through_hmg_lmg_smg_corrections(weapon, distance, needed, miss, hit):
    fire = {"type": "fire", "weapon": weapon, "range": distance, "targets": 1, "terrain": "open", "moving": True}
    r = run([fire], [miss, miss] if weapon == "hmg" else [miss])  # HMG: two shots at the figure in 2 sq in
    assert data(r, "DIRECT FIRE")["needed"] == needed and data(r, "DIRECT FIRE")["hits"] == 0
    dice = [hit, hit, 6] if weapon == "hmg" else [hit, 6]
    assert data(run([fire], dice), "DIRECT FIRE")["hits"] == 1


def test_direct_fire_negative_target_range_natural_one_still_misses():
    """'A natural "1" is always a miss' even when -5 (0", halved) needs less."""
    fire = {"type": "fire", "weapon": "rifle", "range": 0, "figures": 5, "nationality": "scouts", "terrain": "open"}
    r = run([fire], [1])
    assert data(r, "DIRECT FIRE")["needed"] == -5 and data(r, "DIRECT FIRE")["hits"] == 0


# --------------------------------------------------------------------------- 3. RIFLE squads: the firing figures


def test_direct_fire_rifle_figures_cannot_exceed_the_firing_unit():
    """RIFLE squads roll one D20 for every five figures -- figures the squad has."""
    fire = {"type": "fire", "weapon": "rifle", "range": 20, "figures": 60, "unit": "1-SQD", "terrain": "open"}
    with pytest.raises(IllegalOrderError, match=r"DIRECT FIRE: figures = 60, but 1-SQD has only 12 figures") as err:
        run([fire], [])
    assert err.value.field == "figures"
    r = run([{**fire, "figures": 12}], [1, 1])
    assert len(data(r, "DIRECT FIRE")["rolls"]) == 2


def test_direct_fire_rifle_figures_counted_when_the_order_runs():
    """The squad lost men between the order and its fire: it fires what it has."""
    scen = {"units": {"1-SQD": {"figures": 4}}}
    r = run([{"type": "fire", "weapon": "rifle", "range": 20, "figures": 4, "unit": "1-SQD", "terrain": "open"}],
            [1], scen)
    assert "4 figures, 1 D20" in text(r)


# --------------------------------------------------------------------------- 4. card snipers: "Morale is checked anytime a unit takes fire"


def test_card_sniper_hit_requires_the_saving_throw_and_morale_check_of_the_depot():
    r = draw("DQ", [14, 9, 15])  # 14 inches at 9 o'clock; D20 15: a hit
    assert "sniped order" in text(r)
    (due,) = decisions(r.state, "sniped", "american")
    assert due.rule == "MORALE" and "DEPOT" in due.prompt
    # the hit figure in woods: save D6 3 (<= 4, killed); morale D20 9 + 0 <= 19 passes
    r2 = on(r.state, [{"type": "sniped", "sniper": "J-SNP-1", "terrain": "woods"}], [3, 9])
    assert r2.state.unit("DEPOT").figures == 7 and r2.state.unit("DEPOT").grade == 19
    assert "J-SNP-1's shot at DEPOT (hit): saves (woods, TDF 4) 3: 1 killed" in text(r2)
    assert data(r2, "MORALE")["morale"]["passed"]
    assert decisions(r2.state, "sniped") == [] and r2.state.sniped == ()


def test_card_sniper_miss_still_requires_the_targets_morale_check():
    r = draw("DK", [5, 3, 2])  # Diamonds King: the artillery section; D20 2: a miss
    (due,) = decisions(r.state, "sniped", "american")
    assert "ARTY" in due.prompt and "missed" in due.prompt
    r2 = on(r.state, [{"type": "sniped", "sniper": "J-SNP-1", "terrain": "open"}], [15, 4])  # 15 + 10 > 20: fails
    assert r2.state.unit("ARTY").figures == 10 and r2.state.unit("ARTY").status == "retreat"
    assert "morale D20 15+10 = 25 > 20: fails, D6 4: retreat" in text(r2)


def test_card_sniper_shots_every_turn_each_require_a_morale_check():
    r = draw("DA", [7, 12, 3])  # Diamonds Ace: the Headquarters section
    r2 = next_turn(r.state, NO_CARD + NO_CARD + [16])  # turn 2's shot: another check
    assert [s.hit for s in r2.state.sniped] == [False, True]
    with pytest.raises(IllegalOrderError, match="MORALE: sniper: J-SNP-9 has fired no shot"):
        on(r2.state, [{"type": "sniped", "sniper": "J-SNP-9", "terrain": "open"}], [])
    r3 = on(r2.state, [{"type": "sniped", "sniper": "J-SNP-1", "terrain": "foxhole"}], [5])  # the oldest: the miss
    assert [s.hit for s in r3.state.sniped] == [True]
    assert "J-SNP-1's shot at HQ (miss)" in text(r3)


def test_card_sniper_target_unit_gone_needs_the_unit_field():
    r = draw("DQ", [14, 9, 15], {"units": {"DEPOT": {"status": "eliminated"}}})
    with pytest.raises(IllegalOrderError, match="MORALE: unit: DEPOT is not in action; name the unit the shot hit") as err:
        on(r.state, [{"type": "sniped", "sniper": "J-SNP-1", "terrain": "open"}], [])
    assert err.value.field == "unit"
    r2 = on(r.state, [{"type": "sniped", "sniper": "J-SNP-1", "terrain": "open", "unit": "1-SQD"}], [6, 1])
    assert r2.state.sniped == () and "J-SNP-1's shot at 1-SQD (hit)" in text(r2)


def test_hearts_7_jagt_plus_sniper_on_the_depot_requires_its_morale_check():
    r = draw("H7", [1, 1, 1, 11, 4, 20])  # JAGT: one roll, infantry, road 1; sniper 11" at 4 o'clock; D20 20 hits
    assert data(r, "JAGT")["units"] == ["J-INF-1"]
    assert "a Japanese sniper (J-SNP-1) opens fire on the depot from 11 inches at 4 o'clock" in text(r)
    assert "J-SNP-1 fires at the depot: D20 20: a figure is hit" in text(r)
    (due,) = decisions(r.state, "sniped")
    assert "DEPOT" in due.prompt


# --------------------------------------------------------------------------- 2. Spades 4: the draw it allows


def test_spades_4_draw_earned_at_the_end_of_turn_check_survives_into_the_next_turn():
    scen = {"black": ["S4"], "red": ["H2"], "done": ["japanese"]}
    r = run([{"type": "done"}], [3, 4] + NO_CARD, scen, end_turn=True)  # end check 7: black, Spades 4
    assert r.state.turn == 2 and [d.deck for d in r.state.may_draw] == ["red"]
    (due,) = decisions(r.state, "draw", "american")
    assert due.rule == "Spades 4"
    r2 = on(r.state, [{"type": "draw", "deck": "red"}], [])
    assert r2.state.may_draw == () and r2.state.unit("J-PTL-1") is not None


def test_spades_4_only_the_american_player_draws_the_red_card():
    r = draw("S4", [])
    with pytest.raises(IllegalOrderError, match="EVENT CARDS: Spades 4: the american player draws the red card, not japanese"):
        on(r.state, [{"type": "draw", "deck": "red"}], [], side="japanese")
    with pytest.raises(IllegalOrderError, match="EVENT CARDS: no event allows a draw from the black deck"):
        on(r.state, [{"type": "draw", "deck": "black"}], [])


def test_spades_4_no_vehicles_in_the_open_the_draw_lapses():
    r = draw("S4", [], {"red": ["H2"]})
    r2 = on(r.state, [{"type": "draw", "deck": "red", "condition": False}], [])
    assert r2.state.may_draw == () and r2.state.red == ("H2",) and decisions(r2.state, "draw") == []
    assert "Spades 4: the condition does not hold (if there are vehicles in the open): no red card is drawn" in text(r2)


# --------------------------------------------------------------------------- 7. VISIBILITY/SPOTTING


def test_visibility_spotting_vehicle_heard_only_out_of_line_of_sight_within_24():
    def spot(**kw):
        return data(run([{"type": "spot", **kw}], []), "VISIBILITY/SPOTTING")["result"]

    assert spot(kind="tank", in_los=True, distance=10) == "unseen"   # in sight, neither moving nor firing
    assert spot(kind="tank", in_los=True, moved_or_fired=True, distance=10) == "spotted"
    assert spot(kind="tank", in_los=False, distance=10) == "heard"
    assert spot(kind="vehicle", in_los=False, distance=25) == "unseen"
    assert spot(kind="infantry", in_los=False, distance=5) == "unseen"


def test_visibility_spotting_vehicle_out_of_sight_needs_its_distance():
    with pytest.raises(InputError, match=r"order 1 \(spot\): distance is required") as err:
        GAME.parse_orders({"order": [{"type": "spot", "kind": "tank"}]}, "american")
    assert err.value.field == "distance"


# --------------------------------------------------------------------------- 8. VICTORY CONDITIONS: "all retreating"


@pytest.mark.parametrize("statuses, spent", [
    (("retreat", "rout"), "all retreating"),
    (("retreat", "eliminated"), "all retreating"),
    (("withdrawing", "offboard"), "all retreating"),
    (("eliminated", "eliminated"), "destroyed"),
    (("retreat", "pinned"), ""),
    (("rout", "charge"), ""),
])
def test_victory_japanese_force_all_retreating_counts_failed_morale_retreat_and_rout(statuses, spent):
    units = {f"J-INF-{i}": {**JAPANESE_PLATOON, "status": s} for i, s in enumerate(statuses, 1)}
    assert GAME.view(GAME.scenario_state({"units": units}), None)["victory"]["american_condition"] == spent


def test_victory_morale_failure_retreat_ends_the_game_for_the_americans():
    units = {"J-INF-1": JAPANESE_PLATOON}
    # morale D20 15 + 10 (open) > 20: fails; D6 3: retreat -- the whole force is retreating
    r = run([{"type": "morale", "unit": "J-INF-1", "position": "open"}, {"type": "end"}], [15, 3], {"units": units})
    from pbem.engine.machine import MessageEnd

    state, events = GAME.apply(r.state, MessageEnd("japanese", 3))
    assert state.winner == "american" and "the Japanese force is all retreating" in state.verdict


# --------------------------------------------------------------------------- 9. Hearts Queen: infantry


def test_hearts_queen_withdraws_infantry_hq_section_and_snipers_not_guns_or_tanks():
    units = {"J-INF-1": {**JAPANESE_PLATOON, "type": "infantry"},
             "J-HQ-1": {"side": "japanese", "nationality": "japanese", "kind": "hq", "figures": 6, "type": "hq"},
             "J-SNP-1": {"side": "japanese", "nationality": "japanese", "kind": "sniper", "figures": 1},
             "J-AT-1": {"side": "japanese", "nationality": "japanese", "kind": "gun", "figures": 10, "type": "anti-tank"},
             "J-LT-1": {"side": "japanese", "nationality": "japanese", "kind": "tank", "figures": 2, "type": "light-tanks"}}
    r = draw("HQ", [], {"units": units})
    assert {u: r.state.unit(u).status for u in units} == {
        "J-INF-1": "withdrawing", "J-HQ-1": "withdrawing", "J-SNP-1": "withdrawing", "J-AT-1": "active",
        "J-LT-1": "active"}


def test_hearts_queen_withdrawn_card_sniper_fires_no_more():
    """A sniper fires "one shot a turn until eliminated" -- not while he withdraws."""
    units = {"J-SNP-1": {"side": "japanese", "nationality": "japanese", "kind": "sniper", "figures": 1, "aim": "DEPOT"}}
    r = draw("HQ", [], {"units": units})
    assert r.state.unit("J-SNP-1").status == "withdrawing"
    r2 = next_turn(r.state, NO_CARD + NO_CARD)  # no die for a shot
    assert "J-SNP-1 fires" not in text(r2) and r2.state.sniped == ()


# --------------------------------------------------------------------------- 10. Hearts 6 and Hearts 10


def test_hearts_6_bridge_bombardment_direct_hits_and_engineer_explosives():
    # JAGT (1 roll, infantry, road 1); D10 3 rounds: directions 12 3 5, distances (D20) 2 1 15: two direct hits;
    # explosives D20 20, 4: the Road bridge explodes
    r = draw("H6", [1, 1, 1, 3, 12, 3, 5, 2, 1, 15, 20, 4])
    assert r.state.bridge("road").status == "destroyed"
    assert "2 direct hit(s) on the Road bridge; D20 20, 4: the engineer explosives go off" in text(r)
    r = draw("H6", [1, 1, 1, 2, 12, 6, 3, 4, 7, 9])
    assert r.state.bridge("road").status == "disabled" and r.state.bridge("road").hits == 2


def test_hearts_10_spotter_circles_and_attacks_only_when_reported():
    r = draw("H10", [1, 1, 1])  # the JAGT only: no attack is rolled while nothing is reported
    assert "spotter aircraft circles overhead" in text(r) and "fall on" not in text(r)
    assert len(r.state.spotters) == 1
    (due,) = decisions(r.state, "spotter", "japanese")
    assert due.rule == "Hearts 10"
    # a unit larger than a squad is in the open: D10 2 rounds, D12 directions 3 9, D10 distances 4 7
    r2 = on(r.state, [{"type": "spotter", "result": "attack", "at": "the village square"}], [2, 3, 9, 4, 7])
    assert ('2 rounds (D10 2) fall on the village square (burst radius 2"): 4" at 3 o\'clock, 7" at 9 o\'clock'
            in text(r2))
    assert r2.state.spotters == () and decisions(r2.state, "spotter") == []
    with pytest.raises(IllegalOrderError, match="Hearts 10: no spotter aircraft is circling"):
        on(r2.state, [{"type": "spotter", "result": "attack"}], [])


@pytest.mark.parametrize("result, said", [("driven-off", "driven off"), ("shot-down", "shot down")])
def test_hearts_10_spotter_driven_off_or_shot_down_makes_no_attack(result, said):
    r = draw("H10", [1, 1, 1])
    r2 = on(r.state, [{"type": "spotter", "result": result}], [])
    assert r2.state.spotters == () and f"the spotter aircraft is {said}: no artillery attack" in text(r2)


def test_hearts_10_spotter_keeps_circling_across_turns():
    r = draw("H10", [1, 1, 1])
    r2 = next_turn(r.state, NO_CARD + NO_CARD)
    assert len(r2.state.spotters) == 1 and decisions(r2.state, "spotter")


# --------------------------------------------------------------------------- 5, 6, 7, 11: interpretations labelled


def test_interpretations_are_labelled_in_the_readme():
    readme = " ".join((DATA / "README.md").read_text().split())
    interpretations = readme.split("## Interpretations")[1].split("## Reconstructed")[0]
    for topic in ("TARGET RANGE below zero", "Snipers", "SMG", "Spotting", "Time on cards", "Target areas", "Hearts 6",
                  "Hearts 10", "Spades 4", "Card snipers", "Hearts Queen", 'Victory, "all retreating"'):
        assert f"**{topic}.**" in interpretations, topic
    for phrase in ("regardless of range", "divide distance to target by one", "not in line-of-sight",
                   "twenty minutes", "thirty minutes", "two inch target area", "four inch target area"):
        assert phrase in interpretations, phrase
