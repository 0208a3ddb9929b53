"""Combat cases (9.0, 11.0-11.3) beyond the play example, and the
components and setup rules (2.0-2.2.2, 4.0) the game itself enforces.  Each
test cites its rule; positions are referee scenarios, dice are given."""

from __future__ import annotations

import pytest

from pbem.engine.machine import DiceDue, DiceRolled, MessageEnd, Ordered, replace
from pbem.errors import IllegalOrderError, InputError
from pbem.games.ambon import GAME, retreat
from pbem.games.ambon.state import ALLIED, ELIMINATED, JAPANESE

#: every choice of 11.1, 11.3 and 11.4 made by standing instructions (11.3's by the shipped policies)
CHOSEN = {"losses": "protect-hq", "retreat": "retreat", "retreat-to": "toward-friends"}
NEVER = {JAPANESE: {"advance": "never", "hq-support": "never", **CHOSEN},
         ALLIED: {"advance": "never", "hq-support": "never", **CHOSEN}}


def position(standing=NEVER, **doc):
    doc.setdefault("turn", 3)
    doc.setdefault("phase", "japanese-combat")
    state = GAME.scenario_state(doc)
    for side, table in (standing or {}).items():
        state = replace(state, standing=state.standing.updated(side, table))
    return state


def declare(state, side, orders, seq=5):
    """``side``'s message with ``orders``: the combats are declared and,
    with every HQ decision answered by a standing instruction, their dice
    become due."""
    for i, order in enumerate(GAME.parse_orders({"order": orders}, side).public):
        state, _ = GAME.apply(state, Ordered(side, seq, i, order))
    return GAME.apply(state, MessageEnd(side, seq))


def fight(state, side, orders, *dice):
    """Declare, then roll each combat's die in the order given (by target)."""
    state, events = declare(state, side, orders)
    for target, die in dice:
        state, more = GAME.apply(state, DiceRolled(f"combat {target}", (die,)))
        events += more
    return state, [e.text for e in events]


def combat_line(texts, target):
    return next(t for t in texts if t.startswith(f"combat at {target}"))


# --------------------------------------------------------------------------- 11.2 river


@pytest.mark.parametrize("where, shifted", [
    ({"3.A": "1410"}, True),                  # across the 1410-1509 river
    ({"3.A": "1410", "3.B": "1409"}, True),   # both across a river (1409-1509 is road and river)
    ({"3.A": "1410", "3.B": "1508"}, False),  # 3.B attacks from the mountain, not across a river
])
def test_11_2_river_shift_only_if_every_attacker_attacks_across_a_river(where, shifted):
    state = position(positions={"NEI-2.B": "1509", **where})
    _, texts = fight(state, JAPANESE, [{"attack": "1509", "with": list(where)}], ("1509", 6))
    line = combat_line(texts, "1509")
    attack = 6 * len(where)
    assert line.startswith(f"combat at 1509: {attack} against 3 = {attack // 3}:1")
    assert ("all attackers across a river (11.2) -1" in line) == shifted


# --------------------------------------------------------------------------- 11.0 / 11.1 DRMs


def test_11_0_a_kure_machine_gun_company_defending_is_minus_1_even_disrupted():
    state = position(phase="allied-combat", positions={"AUS-A": "1508", "Kure-MG": "1608", "Kure-1": "1608"},
                     disrupted=["Kure-MG"])
    _, texts = fight(state, ALLIED, [{"attack": "1608", "with": ["AUS-A"]}], ("1608", 3))
    assert combat_line(texts, "1608") == ("combat at 1608: 4 against 7 = 1:2; roll 3 -1 (Kure-MG defends (11.0)) = 2 -> 1/0; "
        "counted: AUS-A 4 = 4 against Kure-1 5 + Kure-MG 2 = 7")  # 11.0: a disrupted unit's back-side CF


def test_11_0_aus_engineers_minus_1_with_the_town_and_11_1_the_attackers_hq_plus_1():
    state = position(positions={"1.A": "1312", "1.B": "1312", "228-HQ": "1313", "AUS-Eng": "1412"})
    _, texts = fight(state, JAPANESE, [{"attack": "1412", "with": ["1.A", "1.B"], "hq": "228-HQ"}], ("1412", 3))
    assert combat_line(texts, "1412") == (
        "combat at 1412: 12 against 2 = 6:1; roll 3 -1 (attacking a town (11.2)) +1 (attacker's HQ support (11.1)) "
        "-1 (AUS-Eng defends (11.0)) = 2 -> 0/1r; counted: 1.A 6 + 1.B 6 = 12 against AUS-Eng 2 = 2")


def test_11_1_both_hqs_supporting_cancel_out():
    """11.1: "If both sides use HQ support, the modifiers cancel out"."""
    standing = {JAPANESE: {"advance": "never"}, ALLIED: {"hq-support": "always"}}
    state = position(standing, positions={"1.A": "1312", "1.B": "1312", "228-HQ": "1213", "AUS-A": "1313", "AUS-HQ": "1314"})
    _, texts = fight(state, JAPANESE, [{"attack": "1313", "with": ["1.A", "1.B"], "hq": "228-HQ"}], ("1313", 4))
    assert "AUS-HQ supports the defence of 1313 (standing instruction)" in texts
    assert combat_line(texts, "1313") == (
        "combat at 1313: 12 against 4 = 3:1; roll 4 +1 (attacker's HQ support (11.1)) -1 (defender's HQ support (11.1)) "
        "= 4 -> 0/1r; counted: 1.A 6 + 1.B 6 = 12 against AUS-A 4 = 4")


# --------------------------------------------------------------------------- 9.0 stacking in combat

NEI = ["NEI-1.A", "NEI-1.B", "NEI-1.C", "NEI-1.D", "NEI-2.A", "NEI-2.B", "NEI-2.C"]


def test_9_0_functional_overstacking_halves_the_defenders():
    state = position(positions={"1.A": "1312", "1.B": "1312", **{u: "1313" for u in NEI[:4]}})
    _, texts = fight(state, JAPANESE, [{"attack": "1313", "with": ["1.A", "1.B"]}], ("1313", 1))
    assert combat_line(texts, "1313").startswith("combat at 1313: 12 against 6 = 2:1")  # 4 x 3 / 2


def test_9_0_functional_overstacking_halves_the_attackers():
    state = position(positions={u: "1312" for u in ["1.A", "1.B", "1.C", "2.A"]} | {"NEI-1.A": "1313"})
    _, texts = fight(state, JAPANESE, [{"attack": "1313", "with": ["1.A", "1.B", "1.C", "2.A"]}], ("1313", 1))
    line = combat_line(texts, "1313")
    assert line.startswith("combat at 1313: 12 against 3 = 4:1")  # 4 x 6 / 2
    assert "1.A halved (functional overstacking, 9.0)" in line


@pytest.mark.parametrize("hq", [[], ["NEI-HQ"]])
def test_9_0_physical_overstacking_makes_each_cf_1_and_an_hq_has_none(hq):
    """9.0: "each unit's CF becomes 1"; an HQ, exempt from stacking and with
    no CF (2.2.1, 11.1), gets none: 7, not 8."""
    state = position(positions={"1.A": "1312", "1.B": "1312", **{u: "1313" for u in NEI + hq}})
    _, texts = fight(state, JAPANESE, [{"attack": "1313", "with": ["1.A", "1.B"]}], ("1313", 1))
    assert combat_line(texts, "1313").startswith("combat at 1313: 12 against 7 = 1:1")


def test_9_0_no_unit_in_a_physically_overstacked_hex_may_attack():
    seven = ["1.A", "1.B", "1.C", "2.A", "2.B", "2.C", "3.A"]
    state = position(positions={u: "1312" for u in seven} | {"NEI-1.A": "1313"})
    with pytest.raises(IllegalOrderError, match="9.0: 1.A's hex 1312 is physically overstacked: no unit there may attack"):
        declare(state, JAPANESE, [{"attack": "1313", "with": ["1.A"]}])


# --------------------------------------------------------------------------- 11.3 retreats


def test_11_3_no_legal_retreat_means_an_extra_hit():
    """NEI-1.B in Ambon (1412): sea on two sides, Japanese units on the other
    four.  4:1, a 4 -1 (town) = 3 -> 1/1r: disrupted, then the extra hit."""
    state = position(positions={"1.A": "1312", "1.B": "1413", "1.C": "1511", "2.A": "1512", "NEI-1.B": "1412"})
    s, texts = fight(state, JAPANESE, [{"attack": "1412", "with": ["1.A", "1.B"]}], ("1412", 4))
    assert "defender hit: NEI-1.B is disrupted" in texts
    assert "no legal retreat: extra hit: NEI-1.B is eliminated" in texts
    assert s.piece("NEI-1.B").where == ELIMINATED


def test_11_3_a_unit_may_not_retreat_into_a_hex_it_could_not_enter_by_movement():
    """The NEI artillery, disrupted (MA 1), next to mountains only (3 MP)
    and to the two attacking units' hexes: it cannot retreat."""
    state = position(positions={"3.A": "1407", "3.B": "1608", "NEI-Art": "1507"})
    s, texts = fight(state, JAPANESE, [{"attack": "1507", "with": ["3.A", "3.B"]}], ("1507", 2))  # 6:1, 2 -> 0/1r
    assert "no legal retreat: extra hit: NEI-Art is eliminated" in texts
    assert not [t for t in texts if "retreats to" in t]
    full = state.piece("NEI-Art")  # undisrupted, MA 2: still no mountain hex (7.0's own example)
    assert retreat.retreat_options(GAME.data, state, full) == []


# NEI-1.B in 1511, attacked from Halong (1611): outside the attackers' ZOC it
# may retreat to 1512 (trail, 1 MP: the lowest cost) or to 1412 (road across
# a river, 1.5 MP: "a hex along a road"); 1612 is in their ZOC.
HALONG = dict(positions={"1.A": "1611", "1.B": "1611", "NEI-1.B": "1511"})


@pytest.mark.parametrize("choice, where", [
    ("toward-friends", "1512"),  # the named policy: the lowest movement cost first
    ("1412", "1412"),     # the owner's choice: along a road
    ("1612 1412", "1412"),  # 1612 is in an EZOC: not a choice while a hex outside is legal
    ("1612 toward-friends", "1512"),
])
def test_11_3_the_owner_chooses_among_the_lowest_cost_and_road_hexes(choice, where):
    standing = {JAPANESE: {"advance": "never", "losses": "protect-hq"},
                ALLIED: {"hq-support": "never", "retreat": "retreat", "retreat-to": choice}}
    state = position(standing, **HALONG)
    s, texts = fight(state, JAPANESE, [{"attack": "1511", "with": ["1.A", "1.B"]}], ("1511", 3))  # 4:1, 3 -> 1/1r
    assert any(t.startswith(f"NEI-1.B retreats to {where}") for t in texts)
    assert s.piece("NEI-1.B").where == where


def test_11_3_a_retreat_hex_no_standing_instruction_names_is_asked_of_the_owner():
    """11.3 leaves NEI-1.B the choice of 1512 (lowest cost) or 1412 (along a
    road): without a standing retreat-to that decides it, the combat waits
    for the Allied answer; a hex 11.3 does not allow is refused by name."""
    standing = {JAPANESE: {"advance": "never", "losses": "protect-hq"},
                ALLIED: {"hq-support": "never", "retreat": "retreat", "retreat-to": "1612"}}
    s, texts = fight(position(standing, **HALONG), JAPANESE, [{"attack": "1511", "with": ["1.A", "1.B"]}], ("1511", 3))
    assert not any("retreats to" in t for t in texts) and s.piece("NEI-1.B").where == "1511"
    from pbem.games.ambon import battle

    b = s.battles[0]
    assert battle.open_choices(GAME.data, s, b)["hexes"] == {"NEI-1.B": ["1512", "1412"]}
    wrong = GAME.parse_orders({"order": [{"retreat": "retreat", "to": "1612"}]}, ALLIED).public[0]
    with pytest.raises(IllegalOrderError, match="11.3: retreat at 1511: to = '1612' names no hex NEI-1.B may "
                                                "retreat into; 11.3 allows 1512 or 1412"):
        GAME.apply(s, Ordered(ALLIED, 6, 0, wrong))
    right = GAME.parse_orders({"order": [{"retreat": "retreat", "to": "1412"}]}, ALLIED).public[0]
    s, events = GAME.apply(s, Ordered(ALLIED, 6, 0, right))
    assert "NEI-1.B retreats to 1412 (owner's choice)" in [e.text for e in events]


def test_11_3_retreat_to_is_a_standing_instruction_of_hexes():
    parsed = GAME.parse_orders({"standing": {"retreat-to": "1412 1512"}}, ALLIED)
    assert parsed.public == ({"type": "standing", "retreat-to": "1412 1512"},)
    with pytest.raises(InputError, match="standing.retreat-to: hex number 'x1' is not CCRR"):
        GAME.parse_orders({"standing": {"retreat-to": "1412 x1"}}, ALLIED)


# NEI-1.B in 1511 attacked from Halong; Ambon (1412) held by 1.C, so its only
# hexes are 1512 (NEI-1.C, attacked by 2.A from 1513) and 1612: both in an
# EZOC, 1512 the cheaper and with friends.
BUSY = dict(positions={"1.A": "1611", "1.B": "1611", "1.C": "1412", "2.A": "1513", "NEI-1.B": "1511", "NEI-1.C": "1512"})
ATTACKS = [{"attack": "1511", "with": ["1.A", "1.B"]}, {"attack": "1512", "with": ["2.A"]}]


def test_11_3_no_retreat_into_the_hex_of_defenders_in_an_unresolved_combat():
    s, texts = fight(position(**BUSY), JAPANESE, ATTACKS, ("1511", 3), ("1512", 1))
    assert "NEI-1.B retreats to 1612 into an enemy ZOC" in texts


def test_11_3_once_that_combat_is_resolved_its_hex_is_open_again():
    s, texts = fight(position(**BUSY), JAPANESE, ATTACKS[::-1], ("1512", 1), ("1511", 3))  # 2:1, 1 -> 1/0: NEI-1.C stays
    assert "NEI-1.B retreats to 1512 into an enemy ZOC" in texts


# --------------------------------------------------------------------------- 2.0-2.2.2, 4.0


def test_2_0_the_game_has_one_die_a_d6():
    state = position(**HALONG)
    state, _ = declare(state, JAPANESE, [{"attack": "1511", "with": ["1.A", "1.B"]}])
    assert GAME.awaiting(state) == (DiceDue("combat 1511", 1, 6, 5, "combat at 1511"),)
    with pytest.raises(IllegalOrderError, match=r"5\.0: roll 'combat 1511' is 1d6, but 2 dice were rolled: \[3, 4\]$"):
        GAME.apply(state, DiceRolled("combat 1511", (3, 4)))
    with pytest.raises(IllegalOrderError, match=r"5\.0: roll 'combat 1511' is 1d6, but 7 is not between 1 and 6: \[7\]$"):
        GAME.apply(state, DiceRolled("combat 1511", (7,)))


def test_2_2_1_the_back_of_a_unit_has_less_movement():
    """2.2.1: "the back shows a disrupted state with reduced combat and
    movement strength": 3.A moves 5 MP in full strength, 3 disrupted."""
    path = ["1312", "1313", "1413", "1412"]  # rough 2 + trail 1 + trail 1
    state = position(phase="japanese-movement", positions={"3.A": "1312"}, disrupted=["3.A"])
    with pytest.raises(IllegalOrderError, match=r"7\.0: 3\.A has 0 MP left; entering 1412 \(trail\) costs 1"):
        GAME.apply(state, Ordered(JAPANESE, 5, 0, {"type": "move", "unit": "3.A", "path": path}))
    full = position(phase="japanese-movement", positions={"3.A": "1312"})
    state, events = GAME.apply(full, Ordered(JAPANESE, 5, 0, {"type": "move", "unit": "3.A", "path": path}))
    assert events[0].text == "3.A moves 1312 1313 1413 1412 for 4 MP (1 MP left)"


def test_2_2_1_an_hq_has_no_combat_strength_and_does_not_attack():
    state = position(positions={"228-HQ": "1312", "1.A": "1312", "NEI-1.A": "1313"})
    with pytest.raises(IllegalOrderError, match="11.1: 228-HQ is an HQ: it has no combat strength"):
        declare(state, JAPANESE, [{"attack": "1313", "with": ["1.A", "228-HQ"]}])


def test_2_2_2_the_markers_show_in_every_view():
    """2.2.2: markers for key locations, the game turn, out of supply,
    beachheads, mines and dummy mines, and landing penalties."""
    state = position(phase="allied-movement", turn=8, positions={"3.A": "0713", "3.B": "1508", "Kure-1": "2106"},
                     beachheads=["0713"], penalties={"Kure-1": "-2mp"}, control={"1809": 4},
                     mines={"M1": "mine-1", "M2": "mine-1"})
    state = state.with_piece(replace(state.piece("3.B"), disrupted=True, oos=True))
    for side in (JAPANESE, ALLIED, None):
        view = GAME.view(state, side)
        assert view["turn"] == 8
        assert view["control"] == [{"hex": "1809", "turn": 4}]
        assert {"label": "beachhead", "marker": "beachhead"} in view["stacks"]["0713"]
        units = {u["id"]: u for u in view["units"]}
        assert units["Kure-1"]["status"] == "-2mp"
        assert units["3.B"]["oos"] is True and units["3.B"]["flipped"] is True
        assert view["stacks"]["1508"][0]["marker"] == "OOS"
        assert [m["box"] for m in view["mines"]] == ["mine-1", "mine-1"]


def test_4_0_the_allies_set_up_first_then_the_japanese_then_turn_1_begins():
    state = GAME.initial_state({})
    assert (state.turn, state.phase, GAME.active_side(state)) == (1, "setup-allied", ALLIED)
    with pytest.raises(IllegalOrderError, match="5.0: order 1: it is the setup-allied phase, not yet setup-japanese"):
        GAME.apply(state, Ordered(JAPANESE, 1, 0, {"type": "wave", "box": "fw-liang", "units": ["Kure-1"]}))


def test_11_0_a_defender_attacked_this_phase_halves_nobody_after_its_retreat():
    """11.0 halves an attacker in the EZOC of a defending unit "not being
    attacked ... in the same Combat Phase": NEI-1.B, attacked first, must
    retreat into 2.A's ZOC (Ambon held by 1.C, 1612 also in an EZOC); it was
    attacked this phase, so 2.A attacks 1414 at full strength (the case
    ambon-11.0-no-halving-next-to-a-defender-attacked-this-phase too)."""
    state = position(positions={"1.A": "1611", "1.B": "1611", "1.C": "1412", "2.A": "1513",
                                "NEI-1.B": "1511", "NEI-1.C": "1414"})
    attacks = [{"attack": "1511", "with": ["1.A", "1.B"]}, {"attack": "1414", "with": ["2.A"]}]
    s, texts = fight(state, JAPANESE, attacks, ("1511", 1), ("1414", 6))  # 4:1, 1 -> 1/0r
    assert "NEI-1.B retreats to 1512 into an enemy ZOC" in texts
    line = combat_line(texts, "1414")
    assert "2.A halved" not in line and "NEI-1.B" not in line
