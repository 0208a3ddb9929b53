"""Ambon bombardment (10.0) and the optional rules 14.1 and 14.3: each test
cites the rule it checks.  Positions are built with the game's referee
scenarios; dice are given, as at a table."""

from __future__ import annotations

import pytest

from pbem.engine.machine import replace
from pbem.errors import IllegalOrderError
from pbem.games.ambon import GAME
from pbem.games.ambon.bombardment import (
    artillery_units,
    bombardment_drms,
    check_bombardment,
    resolve_bombardment,
)
from pbem.games.ambon.state import ALLIED, JAPANESE

DATA = GAME.data
M = GAME.map


def position(**doc):
    doc.setdefault("turn", 3)
    doc.setdefault("phase", "japanese-bombardment")
    return GAME.scenario_state(doc)


def refused(state, unit, target, match, **kw):
    with pytest.raises(IllegalOrderError, match=match):
        check_bombardment(DATA, state, unit, target, **kw)


# --------------------------------------------------------------------------- 15.0 the play example


def test_15_0_3D_at_hitu_pass_bombards_2B_in_1609_and_misses():
    """15.0: "the artillery at Hitu Pass (3.D) bombards the Dutch company
    (2.B) in hex 1609 (the bombardment targets only 1 unit, not the whole
    stack). There are no modifiers. The die roll is a 3, so there is no
    effect." (3.D's bombardment strength is 2.)"""
    state = position(
        positions={"3.D": "1507", "3.A": "1509", "3.B": "1509", "3.C": "1508", "NEI-2.B": "1609", "AUS-B": "1608"},
        concealed={"X2": "1609"}, revealed={"X2": "detachment"}, disrupted=["AUS-B"],
    )
    assert M.place("Hitu Pass") == M.hex("1507")
    assert bombardment_drms(DATA, state, state.piece("NEI-2.B")) == []
    after, events, retreats = resolve_bombardment(DATA, state, "3.D", "NEI-2.B", 3)
    assert [e.text for e in events] == ["3.D bombards NEI-2.B in 1609: roll 3 (bombardment 2) -> no effect"]
    assert events[0].rule == "10.0" and retreats == []
    assert not after.piece("NEI-2.B").disrupted and not after.piece("X2").disrupted  # one unit, not the stack
    assert after.piece("3.D").bombarded


def test_10_0_roll_at_most_the_strength_disrupts_the_target_only():
    """10.0: "If the result is less than or equal to the bombardment strength,
    the target unit is disrupted." One unit, not the whole stack."""
    state = position(positions={"3.D": "1507", "NEI-2.B": "1609", "NEI-2.A": "1609"})
    after, events, retreats = resolve_bombardment(DATA, state, "3.D", "NEI-2.B", 2)
    assert events[0].text == "3.D bombards NEI-2.B in 1609: roll 2 (bombardment 2) -> NEI-2.B is disrupted"
    assert after.piece("NEI-2.B").disrupted and not after.piece("NEI-2.A").disrupted
    assert retreats == []


def test_10_0_artillery_units_lists_artillery_types_on_the_map():
    """10.0: "Artillery, anti-aircraft guns, and anti-tank guns are
    artillery-type units." Only those on the map can bombard."""
    state = position(positions={"3.D": "1507", "3.A": "1508", "228-Art": "fw-laha",
                                "NEI-Art": "0812", "NEI-AA": "0812", "NEI-1.A": "0812"})
    assert [p.id for p in artillery_units(DATA, state, JAPANESE)] == ["3.D"]
    assert sorted(p.id for p in artillery_units(DATA, state, ALLIED)) == ["NEI-AA", "NEI-Art"]


# --------------------------------------------------------------------------- 2.2.1 range


def test_2_2_1_range_counts_the_target_hex_not_the_firing_hex():
    """2.2.1: "Range is measured in hexes, not counting the firing unit's own
    hex but counting the target hex." 3.D has range 2: 1708 (2 hexes) is in
    range, Paso 1809 (3 hexes) is not."""
    state = position(positions={"3.D": "1507", "NEI-2.B": "1708", "NEI-2.C": "1809"})
    assert M.hex("1507").distance(M.hex("1708")) == 2 and M.hex("1507").distance(M.hex("1809")) == 3
    check_bombardment(DATA, state, "3.D", "NEI-2.B")
    refused(state, "3.D", "NEI-2.C", r"10\.0: NEI-2\.C in 1809 is 3 hexes from 3\.D in 1507: out of its range 2")


# --------------------------------------------------------------------------- 10.0 who may bombard


def test_10_0_only_artillery_type_units_bombard():
    state = position(positions={"3.A": "1507", "NEI-2.B": "1609"})
    refused(state, "3.A", "NEI-2.B", r"10\.0: 3\.A is not an artillery-type unit and cannot bombard")


def test_10_0_only_in_the_owners_bombardment_phase():
    """10.0: "During your Bombardment Phase, you may bombard enemy units"."""
    state = position(phase="allied-bombardment", positions={"3.D": "1507", "NEI-2.B": "1609"})
    refused(state, "3.D", "NEI-2.B", r"10\.0: 3\.D may bombard only during its own side's Bombardment Phase")
    state = position(phase="japanese-combat", positions={"3.D": "1507", "NEI-2.B": "1609"})
    refused(state, "3.D", "NEI-2.B", r"10\.0: 3\.D may bombard only during its own side's Bombardment Phase")


def test_10_0_once_per_turn_but_several_may_bombard_one_unit():
    """10.0: "Each artillery unit may bombard only once per turn. Different
    artillery units may bombard the same enemy unit." """
    state = position(positions={"3.D": "1507", "2.D": "1507", "NEI-2.B": "1609"})
    state, _, _ = resolve_bombardment(DATA, state, "3.D", "NEI-2.B", 6)
    refused(state, "3.D", "NEI-2.B", r"10\.0: 3\.D has already bombarded this turn")
    state, events, _ = resolve_bombardment(DATA, state, "2.D", "NEI-2.B", 1)
    assert state.piece("NEI-2.B").disrupted


def test_6_3_no_bombardment_after_an_opposed_landing():
    """6.3: "Japanese units that make an opposed landing may not move, bombard,
    or attack during that same turn." """
    state = position(positions={"3.D": "1507", "NEI-2.B": "1609"}, penalties={"3.D": "opposed"})
    refused(state, "3.D", "NEI-2.B", r"6\.3: 3\.D made an opposed landing this turn and may not bombard")


def test_10_0_disrupted_artillery_bombards_with_its_back_strength():
    """Decision: 10.0 does not forbid it and 12.0 reads a disrupted unit's
    "bombardment strength"; 3.D's back has strength 1."""
    state = position(positions={"3.D": "1507", "NEI-2.B": "1609"}, disrupted=["3.D"])
    after, events, _ = resolve_bombardment(DATA, state, "3.D", "NEI-2.B", 2)
    assert events[0].text.endswith("roll 2 (bombardment 1) -> no effect")
    after, events, _ = resolve_bombardment(DATA, state, "3.D", "NEI-2.B", 1)
    assert after.piece("NEI-2.B").disrupted


# --------------------------------------------------------------------------- 10.0 illegal targets


def test_10_0_target_must_be_an_enemy_unit_on_the_map():
    state = position(positions={"3.D": "1507", "3.A": "1508", "NEI-2.B": "eliminated"})
    refused(state, "3.D", "3.A", r"10\.0: 3\.D cannot bombard 3\.A: it is not an enemy unit")
    refused(state, "3.D", "NEI-2.B", r"10\.0: NEI-2\.B is not on the map")


def test_10_0_no_bombarding_an_already_disrupted_unit():
    state = position(positions={"3.D": "1507", "AUS-B": "1608"}, disrupted=["AUS-B"])
    refused(state, "3.D", "AUS-B", r"10\.0: AUS-B is already disrupted and cannot be bombarded")


def test_10_0_no_bombarding_a_detachment():
    state = position(positions={"3.D": "1507"}, concealed={"X2": "1609"}, revealed={"X2": "detachment"})
    refused(state, "3.D", "X2", r"10\.0: X2 is a detachment and cannot be bombarded")


def test_10_0_no_bombarding_a_concealed_piece():
    """10.0 forbids "a detachment, a concealed dummy": a concealed piece may be
    either, so none may be bombarded."""
    state = position(positions={"3.D": "1507"}, concealed={"X1": "1609"})
    refused(state, "3.D", "X1", r"10\.0: X1 is a concealed piece .* cannot be bombarded")


def test_10_0_no_bombarding_an_hq():
    state = position(positions={"3.D": "1507", "NEI-HQ": "1708"})
    refused(state, "3.D", "NEI-HQ", r"10\.0: NEI-HQ is an HQ and cannot be bombarded")


def test_10_0_no_bombarding_a_beachhead():
    state = position(phase="allied-bombardment", positions={"NEI-Art": "0812"}, beachheads=["0713"])
    refused(state, "NEI-Art", "0713", r"10\.0: the beachhead in 0713 cannot be bombarded")


# --------------------------------------------------------------------------- 10.0 die roll modifiers


def test_10_0_drm_plus_1_target_in_a_mountain_hex():
    state = position(positions={"3.D": "1507", "AUS-B": "1508"})
    assert M.terrain_at(M.hex("1508")) == "mountain"
    assert bombardment_drms(DATA, state, state.piece("AUS-B")) == [("target in a mountain hex", 1)]
    after, events, _ = resolve_bombardment(DATA, state, "3.D", "AUS-B", 2)
    assert events[0].text == "3.D bombards AUS-B in 1508: roll 2, +1 target in a mountain hex = 3 (bombardment 2) -> no effect"
    assert not after.piece("AUS-B").disrupted


def test_10_0_drm_minus_1_functional_overstack():
    """9.0/10.0: more than 3 (up to 6) units in the hex: -1."""
    four = {u: "1609" for u in ("NEI-2.A", "NEI-2.B", "NEI-2.C", "NEI-2.D")}
    state = position(positions={"3.D": "1507", **four})
    assert bombardment_drms(DATA, state, state.piece("NEI-2.B")) == [("target hex functionally overstacked", -1)]
    after, events, _ = resolve_bombardment(DATA, state, "3.D", "NEI-2.B", 3)
    assert events[0].text.endswith("roll 3, -1 target hex functionally overstacked = 2 (bombardment 2) -> NEI-2.B is disrupted")


def test_10_0_drm_functional_overstack_counts_detachments_as_half():
    """9.0: "for stacking purposes, a detachment counts as 0.5 of a unit":
    three companies and one detachment are 3.5 units, more than 3."""
    three = {u: "1609" for u in ("NEI-2.A", "NEI-2.B", "NEI-2.C")}
    state = position(positions={"3.D": "1507", **three})
    assert bombardment_drms(DATA, state, state.piece("NEI-2.B")) == []
    state = position(positions={"3.D": "1507", **three}, concealed={"X1": "1609"})
    assert bombardment_drms(DATA, state, state.piece("NEI-2.B")) == [("target hex functionally overstacked", -1)]


def test_10_0_drm_minus_2_physical_overstack():
    """9.0/10.0: more than 6 units in the hex: -2."""
    seven = {u: "1609" for u in ("NEI-1.A", "NEI-1.B", "NEI-1.C", "NEI-1.D", "NEI-2.A", "NEI-2.B", "NEI-2.C")}
    state = position(positions={"3.D": "1507", **seven})
    assert bombardment_drms(DATA, state, state.piece("NEI-2.B")) == [("target hex physically overstacked", -2)]
    after, _, _ = resolve_bombardment(DATA, state, "3.D", "NEI-2.B", 4)
    assert after.piece("NEI-2.B").disrupted


def test_10_0_drms_add_mountain_and_overstack():
    four = {u: "1508" for u in ("AUS-A", "AUS-B", "AUS-C", "AUS-D")}
    state = position(positions={"3.D": "1507", **four})
    assert sum(v for _, v in bombardment_drms(DATA, state, state.piece("AUS-B"))) == 0


def test_10_0_roll_must_be_a_d6():
    state = position(positions={"3.D": "1507", "NEI-2.B": "1609"})
    with pytest.raises(IllegalOrderError, match=r"10\.0: a bombardment roll is one d6, not 7"):
        resolve_bombardment(DATA, state, "3.D", "NEI-2.B", 7)


# --------------------------------------------------------------------------- 14.1 defensive bombardment


def test_14_1_defensive_bombardment_in_the_enemys_combat_phase():
    """14.1: "After all combats have been declared during the enemy's Combat
    Phase, each of the defender's artillery-type units may bombard once.
    Apply the normal bombardment rules (10.0)." """
    state = position(phase="japanese-combat", options=["14.1"], positions={"NEI-Art": "1708", "3.A": "1609"})
    after, events, _ = resolve_bombardment(DATA, state, "NEI-Art", "3.A", 3, defensive=True)
    assert events[0].rule == "14.1" and events[0].text.endswith("(bombardment 3) -> 3.A is disrupted")
    assert after.piece("3.A").disrupted and after.piece("NEI-Art").bombarded


def test_14_1_defensive_bombardment_needs_the_option_and_the_enemys_combat_phase():
    doc = dict(positions={"NEI-Art": "1708", "3.A": "1609"})
    refused(position(phase="japanese-combat", **doc), "NEI-Art", "3.A",
            r"14\.1: NEI-Art cannot bombard defensively: optional rule 14\.1 is not in use", defensive=True)
    refused(position(phase="allied-combat", options=["14.1"], **doc), "NEI-Art", "3.A",
            r"14\.1: NEI-Art may bombard defensively only during the enemy's Combat Phase", defensive=True)
    refused(position(phase="japanese-combat", options=["14.1"], **doc), "NEI-Art", "3.A",
            r"10\.0: NEI-Art may bombard only during its own side's Bombardment Phase")


def test_14_1_defensive_bombardment_uses_the_once_per_turn_allowance():
    """Decision: 14.1 applies "the normal bombardment rules (10.0)", and 10.0
    allows one bombardment per artillery unit per turn."""
    state = position(phase="japanese-combat", options=["14.1"], positions={"NEI-Art": "1708", "3.A": "1609"})
    state, _, _ = resolve_bombardment(DATA, state, "NEI-Art", "3.A", 6, defensive=True)
    state = replace(state, phase="allied-bombardment")
    refused(state, "NEI-Art", "3.A", r"10\.0: NEI-Art has already bombarded this turn")


# --------------------------------------------------------------------------- 14.3 reinforced artillery


def test_14_3_a_disrupted_unit_may_be_bombarded_and_a_hit_forces_a_retreat():
    """14.3: "Disrupted units and revealed detachments may be targeted by
    bombardment. If the bombardment hits, those units must retreat." """
    state = position(options=["14.3"], positions={"3.D": "1507", "AUS-B": "1608"}, disrupted=["AUS-B"])
    after, events, retreats = resolve_bombardment(DATA, state, "3.D", "AUS-B", 2)
    assert retreats == ["AUS-B"] and events[0].rule == "14.3"
    assert events[0].text == "3.D bombards AUS-B in 1608: roll 2 (bombardment 2) -> hit: AUS-B must retreat"
    assert after.piece("AUS-B").disrupted and after.piece("AUS-B").where == "1608"  # the caller retreats it
    after, events, retreats = resolve_bombardment(DATA, state, "3.D", "AUS-B", 3)
    assert retreats == [] and events[0].text.endswith("-> no effect")


def test_14_3_a_revealed_detachment_may_be_bombarded_and_a_hit_forces_a_retreat():
    state = position(options=["14.3"], positions={"3.D": "1507"}, concealed={"X2": "1609"}, revealed={"X2": "detachment"})
    after, events, retreats = resolve_bombardment(DATA, state, "3.D", "X2", 1)
    assert retreats == ["X2"] and after.piece("X2").where == "1609"
    assert events[0].data["result"] == "retreat"


def test_14_3_a_concealed_piece_hit_must_be_revealed():
    """14.3: "If a concealed unit is hit by bombardment, it must be revealed."
    The caller owes the reveal; a detachment then retreats (it is a revealed
    detachment hit by bombardment), a dummy is removed."""
    state = position(options=["14.3"], positions={"3.D": "1507"}, concealed={"X1": "1609"})
    after, events, retreats = resolve_bombardment(DATA, state, "3.D", "X1", 2)
    assert events[0].data["reveal"] == "X1" and events[0].data["result"] == "reveal"
    assert events[0].text == "3.D bombards X1 in 1609: roll 2 (bombardment 2) -> hit: X1 must be revealed (a detachment must then retreat)"
    assert retreats == ["X1"] and after.piece("X1").concealed and not after.piece("X1").disrupted
    after, events, retreats = resolve_bombardment(DATA, state, "3.D", "X1", 3)
    assert retreats == [] and "reveal" not in events[0].data


def test_14_3_an_undisrupted_unit_is_still_just_disrupted():
    state = position(options=["14.3"], positions={"3.D": "1507", "NEI-2.B": "1609"})
    after, _, retreats = resolve_bombardment(DATA, state, "3.D", "NEI-2.B", 1)
    assert after.piece("NEI-2.B").disrupted and retreats == []


def test_14_3_hqs_and_beachheads_stay_illegal_targets():
    state = position(options=["14.3"], positions={"3.D": "1507", "NEI-HQ": "1708"})
    refused(state, "3.D", "NEI-HQ", r"10\.0: NEI-HQ is an HQ and cannot be bombarded")
    state = position(options=["14.3"], phase="allied-bombardment", positions={"NEI-Art": "0812"}, beachheads=["0713"])
    refused(state, "NEI-Art", "0713", r"10\.0: the beachhead in 0713 cannot be bombarded")


def test_14_1_a_possible_defensive_bombardment_is_a_decision_watch_leaves_to_the_defender():
    """Issue 19: in the enemy's Combat Phase with 14.1 in use, the
    defender's message may carry a bombardment: a decision (contract.Decisions),
    so pbem watch never answers it; without the option, or once the
    allowance is spent, the message decides nothing."""

    from pbem.engine.machine import MessageEnd, Ordered

    doc = dict(positions={"NEI-Art": "1708", "3.A": "1609", "NEI-2.B": "1608"})
    before = position(phase="japanese-combat", options=["14.1"], **doc)
    # 14.1: "After all combats have been declared": not before (issue 26: watch stopped needlessly)
    assert GAME.decisions(before, "allied") == ()
    open_to, _ = GAME.apply(before, Ordered("japanese", 5, 0, {"type": "attack", "target": "1608", "with": ["3.A"], "hq": ""}))
    open_to, _ = GAME.apply(open_to, MessageEnd("japanese", 5))
    assert GAME.decisions(open_to, "allied") == ("a defensive bombardment by NEI-Art (14.1)",)
    assert GAME.decisions(position(phase="japanese-combat", **doc), "allied") == ()
    spent, _, _ = resolve_bombardment(DATA, open_to, "NEI-Art", "3.A", 6, defensive=True)
    assert GAME.decisions(spent, "allied") == ()


def test_5_0_a_sides_own_phase_is_its_decision_the_enemys_is_not():

    state = position(phase="japanese-movement", positions={"3.A": "1609"})
    assert GAME.decisions(state, "japanese") == ("your Japanese Movement Phase (7.0)",)
    assert GAME.decisions(state, "allied") == ()
