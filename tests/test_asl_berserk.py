"""Berserk Dare-Death squads (8.5.2 and the Berserk box) against described
positions: the excerpt's Dare-Death Example as a test, then every condition
passing and failing, declarations, effects, the Charge route, the MC and CC."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from pbem.errors import InputError
from pbem.games.asl import berserk
from pbem.games.asl.data import load
from pbem.games.asl.position import parse_position

DATA = load()
EXAMPLE = Path(__file__).parent.parent / "examples" / "asl" / "dare-death-example.toml"


def example_doc() -> dict:
    doc = tomllib.loads(EXAMPLE.read_text())
    doc.pop("berserk")
    return doc


def position(**changes):
    """The Dare-Death Example's position, with units changed by id (None removes one)."""
    doc = example_doc()
    units = {u["id"]: u for u in doc["unit"]}
    for uid, change in changes.items():
        if change is None:
            units.pop(uid)
        elif uid in units:
            units[uid] = {**units[uid], **change}
        elif uid.startswith("_"):
            doc[uid[1:]] = change
        else:
            units[uid] = {"id": uid, **change}
    doc["unit"] = list(units.values())
    return parse_position(doc, DATA)


def failing(result) -> str:
    return " | ".join(c.text for c in result.failures)


# --------------------------------------------------------------------------- the example


def test_dare_death_example_squad_A_may_go_berserk():
    p = position()
    result = berserk.eligibility(p, "A", DATA)
    assert result.eligible, failing(result)
    assert result.targets == ("J",) and result.leaders == ("8-0",)


def test_dare_death_example_squad_B_marked_prep_fire_may_not():
    result = berserk.eligibility(position(), "B", DATA)
    assert not result.eligible
    assert failing(result) == "B cannot move: marked Prep Fire"


def test_dare_death_example_squad_C_only_adjacent_leader_is_prep_fire():
    result = berserk.eligibility(position(), "C", DATA)
    assert not result.eligible
    assert failing(result) == (
        "the only leader in or adjacent to its hex: 7-0 in AA2 is marked with a Prep Fire counter")
    assert any(c.ok and "in its LOS" in c.text for c in result.checks)  # C does see the 4-4-8


def test_dare_death_example_squad_D_has_no_los():
    result = berserk.eligibility(position(), "D", DATA)
    assert not result.eligible
    assert failing(result) == "no Known Enemy Unit in its LOS within 8 MF: J (4-4-8 in X2) is not in LOS of D (AA1)"
    assert any(c.ok and "leader 8-0" in c.text for c in result.checks)  # the 8-0 in Z0 is adjacent to AA1


def test_dare_death_example_squad_E_is_not_a_dare_death_squad():
    """E is the fifth squad: "all four 3-3-7s are Dare-Death Squads" and E's
    CC ("5 FP to 3 FP" with the 1 FP HS) makes it the chart's 4-4-7."""
    result = berserk.eligibility(position(), "E", DATA)
    assert not result.eligible
    assert "E is not a Dare-Death Squad" in failing(result)


def test_dare_death_example_the_8_0_may_but_need_not_go_berserk():
    p = position()
    results, problems = berserk.check_declarations(p, [berserk.Declaration(("A",), "J")], DATA)
    assert results[0].eligible and problems == []
    results, problems = berserk.check_declarations(p, [berserk.Declaration(("A",), "J", "8-0")], DATA)
    assert results[0].eligible and [c.ok for c in problems] == [True]
    assert "must Charge the same target J" in problems[0].text


def test_dare_death_example_charge_route_y1_y2_x2():
    """A "spends 1 MF to enter Y1"; "must then move to Y2 (shorter in MF than X1)"."""
    p = position()
    route = berserk.charge_route(p, p.unit("A").hex, p.unit("J").hex)
    assert [p.label(h) for h in route.hexes] == ["Z0", "Y1", "Y2", "X2"] and route.cost == 6  # half-MF
    assert berserk.check_route(p, "A", "J", ["Y1", "Y2", "X2"]).ok
    bad = berserk.check_route(p, "A", "J", ["Y1", "X1", "X2"])
    assert not bad.ok and bad.text == "Y1 X1 X2 costs 4 MF; the shortest route costs 3 MF (Y1 Y2 X2)"
    assert "not adjacent" in berserk.check_route(p, "A", "J", ["Y2", "X2"]).text
    assert "ends in the target's hex" in berserk.check_route(p, "A", "J", ["Y1", "Y2"]).text


def test_dare_death_example_morale_checks():
    """1MC passed "by rolling a 9 (10 morale, pin NA)"; "rolls a 10, suffering
    Casualty Reduction, and is replaced with an unbroken 1-2-7 HS"."""
    passed = berserk.morale_check(9, 1, DATA)
    assert passed.passed and passed.final == 10 and passed.text.endswith("passed (pin NA)")
    p = position()
    casualty = berserk.casualty_reduction(p.unit("A"), DATA, "chinese")
    failed = berserk.morale_check(10, 1, DATA, casualty=casualty)
    assert not failed.passed and failed.text.endswith("Casualty Reduction: replaced with an unbroken 1-2-7 HS")
    assert berserk.morale_check(6, 1, DATA).text.endswith("passed")
    with pytest.raises(InputError):
        berserk.morale_check(13, 0, DATA)


def test_dare_death_example_close_combat():
    """ "Since the 1-2-7 is a Dare-Death MMC, the Chinese attack at 3-2 in
    Hand-to-Hand CC (5 FP to 3 FP) with a -1 DRM. The Japanese attack at 1-2
    with -1 DRM for Hand-to-Hand CC."  The -1 of the Chinese attack is the
    Hand-to-Hand one the Japanese get too, not 8.5.2's extra -1, which is for
    non-Hand-to-Hand CC attacks only; ambush: "+2 Berserk"."""
    p = position(HS={"type": "1-2-7", "hex": "X2", "squad": "A", "dare_death": True, "markers": ["Berserk"]})
    cc = berserk.close_combat([p.unit("HS"), p.unit("E")], DATA)
    assert cc.dare_death == ("HS",) and cc.hand_to_hand_allowed and cc.ambush_drm == 2
    htoh = cc.attack(hand_to_hand=True)  # the example's CC
    assert (htoh.kind, htoh.dare_death_drm, htoh.hand_to_hand_drm, htoh.drm) == ("Hand-to-Hand", 0, -1, -1)
    assert cc.hand_to_hand == htoh
    other = cc.attack(hand_to_hand=False)  # had it not been Hand-to-Hand
    assert (other.kind, other.dare_death_drm, other.hand_to_hand_drm, other.drm) == ("non-Hand-to-Hand", -1, 0, -1)
    assert cc.non_hand_to_hand == other
    assert any("by either side" in c.text and "The Japanese attack at 1-2 with -1 DRM" in c.text for c in cc.checks)


def test_8_5_2_close_combat_without_a_dare_death_mmc_or_pinned_or_vs_non_infantry():
    p = position(HS={"type": "1-2-7", "hex": "X2", "squad": "A", "dare_death": True, "markers": ["Berserk"]})
    plain = berserk.close_combat([p.unit("E")], DATA)
    assert (plain.hand_to_hand_allowed, plain.ambush_drm, plain.hand_to_hand) == (False, 0, None)
    assert plain.attack(hand_to_hand=False).drm == 0
    with pytest.raises(InputError, match="8.5.2: no Dare-Death MMC takes part"):
        plain.attack(hand_to_hand=True)
    pinned = position(HS={"type": "1-2-7", "hex": "X2", "squad": "A", "dare_death": True, "markers": ["Pin"]})
    cc = berserk.close_combat([pinned.unit("HS")], DATA)
    assert cc.non_hand_to_hand.dare_death_drm == 0 and cc.hand_to_hand_allowed  # "an unpinned Dare-Death MMC"
    vehicle = berserk.close_combat([p.unit("HS")], DATA, vs_infantry=False)
    assert vehicle.non_hand_to_hand.dare_death_drm == 0  # "against Infantry"


def test_dare_death_example_the_1_2_7_hs_enters_x2_from_y2():
    """ "Squad A rolls a 10, suffering Casualty Reduction, and is replaced with
    an unbroken 1-2-7 HS. The HS must now enter the 4-4-8's hex": still
    Berserk, it Charges on from Y2 into X2, 1 MF (3 MF in all of its 8)."""
    p = position(A={"type": "1-2-7", "hex": "Y2", "markers": ["Berserk"]})
    route = berserk.charge_route(p, p.unit("A").hex, p.unit("J").hex)
    assert [p.label(h) for h in route.hexes] == ["Y2", "X2"] and route.cost == 2  # half-MF
    assert berserk.check_route(p, "A", "J", ["X2"]).text == "X2 is a shortest route in MF (1 MF)"
    assert not berserk.check_route(p, "A", "J", ["X1", "X2"]).ok
    texts = [c.text for c in berserk.effects(p, "A", "J", DATA)]
    assert "must immediately Charge J (4-4-8 in X2), entering its hex by the shortest route in MF: X2 for 1 MF" in texts
    assert "Morale Level 10" in texts


def test_8_5_2_a_surviving_hs_must_be_its_squads_hs():
    """8.5.2 "(or its surviving HS)": a 3-3-7's HS is the 1-2-7 (the
    Dare-Death Example), so a 2-3-7 is not squad A's surviving HS."""
    wrong = berserk.eligibility(position(A={"type": "2-3-7"}), "A", DATA, squad_type="3-3-7")
    assert not wrong.eligible
    assert failing(wrong) == "A (2-3-7 in Z0) is not the surviving HS of squad A: a 3-3-7's HS is a 1-2-7"
    right = berserk.eligibility(position(A={"type": "1-2-7"}), "A", DATA, squad_type="3-3-7")
    assert right.eligible and "A (1-2-7 in Z0) is the surviving HS of squad A (a 3-3-7)" in [c.text for c in right.checks]
    unknown = berserk.eligibility(position(A={"type": "2-2-7"}), "A", DATA, squad_type="4-4-7")
    assert unknown.eligible
    assert any("the excerpt does not name a 4-4-7's HS" in c.text for c in unknown.checks)
    results, _ = berserk.check_declarations(position(A={"type": "2-3-7"}), [berserk.Declaration(("A",), "J")], DATA,
                                            squad_types={"A": "3-3-7"})
    assert not results[0].eligible


def test_berserk_effects_from_the_box():
    p = position(A={"markers": ["CX", "?"], "sw": [{"name": "LMG", "pp": 1}, {"name": "MMG", "pp": 4}]})
    texts = [c.text for c in berserk.effects(p, "A", "J", DATA)]
    assert "8 MF, which can never be increased" in texts
    assert "Morale Level 10" in texts
    assert "loses its Concealment (8.3)" in texts and "loses its CX" in texts
    assert any(t.startswith("drops MMG (4 PP)") for t in texts) and not any("LMG" in t for t in texts)
    assert any("Y1 Y2 X2 for 3 MF" in t for t in texts)
    assert "loses Berserk status at the end of the Player Turn" in texts
    wounded = [c.text for c in berserk.effects(position(A={"markers": ["Wounded"]}), "A", None, DATA)]
    assert wounded[0].startswith("wounded: not the Berserk 8 MF")


# --------------------------------------------------------------------------- each condition


@pytest.mark.parametrize("change, reason", [
    # a crew stated Dare-Death is refused by the position itself (8.5.2, test_asl_dare_death); unstated, the check says why
    ({"A": {"type": "2-2-7", "kind": "crew", "dare_death": None}}, "A (2-2-7 in Z0) is a crew; only a Dare-Death squad or its surviving HS"),
    ({"A": {"dare_death": False}}, "A is not a Dare-Death Squad"),
    ({"_phase": "DFPh"}, "the position is in the DFPh, not at the start of the Chinese MPh"),
    ({"A": {"markers": ["Pin"]}}, "A cannot move: marked Pin"),
    ({"A": {"markers": ["Broken"]}}, "A cannot move: broken"),
    ({"A": {"can_move": False}}, "A cannot move: stated unable to move (can_move = false)"),
    ({"8-0": {"markers": ["Prep Fire"]}}, "the only leader in or adjacent to its hex: 8-0 in Z0 is marked with a Prep Fire counter"),
    ({"8-0": {"markers": ["Pin"]}}, "8-0 in Z0 is marked with a Pin counter"),
    ({"8-0": {"markers": ["Broken"]}}, "8-0 in Z0 is not in Good Order (broken)"),
    ({"8-0": {"hex": "Z3"}}, "no leader in or adjacent to Z0"),
    ({"J": {"markers": ["?"]}}, "J (4-4-8 in X2) is not a Known Enemy Unit"),
    ({"J": {"known": False}}, "J (4-4-8 in X2) is not a Known Enemy Unit"),
    ({"_entry_cost": {"default": 3}}, "J (4-4-8 in X2) is 9 MF from Z0, more than 8 MF"),
    ({"_entry_cost": {}}, "the position does not give the MF from Z0 to X2"),
])
def test_8_5_2_each_condition_fails_alone(change, reason):
    result = berserk.eligibility(position(**change), "A", DATA)
    assert not result.eligible
    assert reason in failing(result)


def test_8_5_2_leader_must_see_the_target():
    los = [pair for pair in example_doc()["los"] if pair != ["Z0", "X2"]] + [["Z1", "X2"]]
    p = position(_los=los, A={"hex": "Z1"}, B={"hex": "Y1"})  # A in Z1 sees J; the 8-0 in Z0 does not
    result = berserk.eligibility(p, "A", DATA)
    assert not result.eligible and "no qualifying leader has LOS to J (4-4-8 in X2)" in failing(result)


def test_8_5_2_passing_variants():
    # a leader adjacent rather than in the hex; 8 MF exactly; a HS of a Dare-Death squad; MF stated directly
    p = position(**{"8-0": {"hex": "AA1"}, "D": None}, _los=[["Z0", "X2"], ["AA1", "X2"]], _no_los=[])
    result = berserk.eligibility(p, "A", DATA)
    assert result.eligible and any("8-0 in AA1 adjacent" in c.text for c in result.checks)
    p = position(_entry_cost={}, _mf=[{"from": "Z0", "to": "X2", "mf": 8}])
    assert berserk.eligibility(p, "A", DATA).eligible
    p = position(_entry_cost={}, _mf=[{"from": "Z0", "to": "X2", "mf": 8.5}])
    assert "8.5 MF from Z0, more than 8 MF" in failing(berserk.eligibility(p, "A", DATA))
    hs = berserk.eligibility(position(A={"type": "1-2-7", "squad": "Q"}), "A", DATA)
    assert hs.eligible and any("surviving HS (of Q)" in c.text for c in hs.checks)
    # a concealed Berserk candidate is fine: it loses its concealment
    assert berserk.eligibility(position(A={"markers": ["?"]}), "A", DATA).eligible


def test_8_5_2_a_named_target_is_checked_alone():
    p = position(K={"type": "4-4-8", "hex": "W5", "enemy": True})  # out of LOS
    assert berserk.eligibility(p, "A", DATA).eligible
    result = berserk.eligibility(p, "A", DATA, target="K")
    assert not result.eligible and "K (4-4-8 in W5) is not in LOS of A (Z0)" in failing(result)
    with pytest.raises(InputError, match="not an enemy unit"):
        berserk.eligibility(p, "A", DATA, target="B")
    with pytest.raises(InputError, match="enemy unit"):
        berserk.eligibility(p, "J", DATA)


def test_8_5_2_units_of_one_hex_charge_as_one_stack():
    p = position(A2={"type": "3-3-7", "hex": "Z0", "dare_death": True},
                 K={"type": "4-4-8", "hex": "Y3", "enemy": True},
                 _los=example_doc()["los"] + [["Z0", "Y3"]])
    same = [berserk.Declaration(("A",), "J"), berserk.Declaration(("A2",), "J")]
    _, problems = berserk.check_declarations(p, same, DATA)
    assert all(c.ok for c in problems)
    split = [berserk.Declaration(("A",), "J"), berserk.Declaration(("A2",), "K")]
    results, problems = berserk.check_declarations(p, split, DATA)
    assert all(r.eligible for r in results)
    assert [c.text for c in problems if not c.ok] == [
        "the units going Berserk in Z0 must Charge as a single stack, one target, not J, K"]


def test_8_5_2_a_leader_going_berserk_must_qualify():
    p = position()
    _, problems = berserk.check_declarations(p, [berserk.Declaration(("A",), "J", "7-0")], DATA)
    assert not problems[0].ok and "7-0 in AA2 may not go Berserk with them" in problems[0].text
    _, problems = berserk.check_declarations(p, [berserk.Declaration(("A",), "J", "B")], DATA)
    assert "is not a friendly leader" in problems[0].text
    _, problems = berserk.check_declarations(p, [berserk.Declaration(("A",), "J"), berserk.Declaration(("A",), "J")], DATA)
    assert [c.text for c in problems] == ["A is declared Berserk twice"]


# --------------------------------------------------------------------------- the position record


def test_position_public_record_round_trips():
    """A position travels in a berserk order as canonical JSON and is read
    again on replay: the record must read back to itself (no floats)."""
    from pbem.protocol.canonical import encode

    doc = example_doc()
    doc["mf"] = [{"from": "Z2", "to": "X2", "mf": 2.5}]
    doc["unit"][0] = {**doc["unit"][0], "sw": [{"name": "MMG", "pp": 4}]}
    for u in doc["unit"]:
        u.pop("dare_death", None)
    first = parse_position(doc, DATA).to_json()
    encode(first)  # integers and strings only
    again = parse_position(first, DATA)
    assert again.to_json() == first
    assert again.mf_between(again.board.parse("Z2"), again.board.parse("X2")) == 5  # half-MF


@pytest.mark.parametrize("change, message", [
    ({"unit": []}, "describe the units"),
    ({"colour": "red"}, "unknown key(s) colour"),
    ({"los": [["Z0"]]}, "los[0] must be a pair of hexes"),
    ({"mf": [{"from": "Z0", "to": "X2"}]}, "mf[0]: must be"),
    ({"mf": [{"from": "Z0", "to": "X2", "mf": -1}]}, "not a non-negative multiple of 0.5"),
    ({"entry_cost": {"Q99": 1}}, "hex 'Q99'"),
    ({"nationality": "german"}, "nationality 'german' is not one of"),
])
def test_position_errors_name_the_field(change, message):
    doc = {**example_doc(), **change}
    with pytest.raises(InputError) as err:
        parse_position(doc, DATA)
    assert message in str(err.value)


@pytest.mark.parametrize("unit, message", [
    ({"id": "A", "type": "3-3-7"}, "hex"),
    ({"id": "A A", "type": "3-3-7", "hex": "Z0"}, "id 'A A' must be"),
    ({"id": "A", "type": "3-3-7", "hex": "Z0", "markers": ["Sleepy"]}, "unknown marker 'Sleepy'"),
    ({"id": "A", "type": "3-3-7", "hex": "Z0", "kind": "tank"}, "kind 'tank' is not one of"),
    ({"id": "A", "type": "6-6-6", "hex": "Z0"}, "'6-6-6' is not on the Chinese chart"),
    ({"id": "A", "type": "3-3-7", "hex": "Z0", "sw": [{"name": "MMG"}]}, "sw[0] must be"),
    ({"id": "A", "type": "3-3-7", "hex": "Z0", "enemy": "yes"}, "enemy must be true or false"),
])
def test_position_unit_errors(unit, message):
    doc = example_doc()
    doc["unit"] = [unit]
    with pytest.raises(InputError) as err:
        parse_position(doc, DATA)
    assert message in str(err.value)


def test_position_duplicate_unit_and_contradictory_los():
    doc = example_doc()
    doc["unit"] = doc["unit"] + [doc["unit"][0]]
    with pytest.raises(InputError, match="unit id 'A' is used twice"):
        parse_position(doc, DATA)
    doc = {**example_doc(), "no_los": [["X2", "Z0"]]}
    with pytest.raises(InputError, match="X2-Z0 is listed under both los and no_los"):
        parse_position(doc, DATA)
