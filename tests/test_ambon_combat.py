"""Combat (11.0-11.4) and its place in the message flow (protocol §6), with
15.0's combat as a test."""

from __future__ import annotations

import pytest

from pbem.engine import referee
from pbem.engine.machine import DecisionDue, DiceDue, MessageEnd, Ordered, replace
from pbem.errors import IllegalOrderError
from pbem.games.ambon import GAME, combat, retreat
from pbem.games.ambon.state import ALLIED, ELIMINATED, JAPANESE, PendingHit

# 15.0, Japanese Combat Phase of turn 2, after the movement and the bombardment
POSITION = dict(
    turn=3, phase="japanese-combat", disrupted=["AUS-B"],
    positions={"3.A": "1509", "3.B": "1509", "3.C": "1508", "3.D": "1507",
               "NEI-2.B": "1609", "AUS-B": "1608", "NEI-HQ": "1708", "NEI-2.C": "1809"},
    concealed={"X2": "1609"}, revealed={"X2": "detachment"},
)
ATTACK = [{"attack": "1609", "with": ["3.A", "3.B", "3.C"]}]


def position(standing=None, **changes):
    state = GAME.scenario_state({**POSITION, **changes})
    for side, table in (standing or {}).items():
        state = replace(state, standing=state.standing.updated(side, table))
    return state


def texts(result):
    return [e.text for e in result.events]


def test_15_0_combat_at_1609():
    """15.0: "The Allied player removes the detachment and retreats 2.B to hex
    1708. The Japanese player disrupts one of the attacking units" -- both
    choices are their owners' (11.3): the Allied one is asked after the die
    and given in the Allied message; the Japanese one is the Japanese
    standing loss order (3.C: 15.0 leaves it disrupted in 1508)."""
    state = position({ALLIED: {"hq-support": "always"}, JAPANESE: {"advance": "always", "losses": "3.C"}})
    result = referee.adjudicate(GAME, state, JAPANESE, {"order": ATTACK}, [4])
    t = texts(result)
    assert "japanese declares: 3.A, 3.B, 3.C attack NEI-2.B, X2 in 1609" in t
    assert "NEI-HQ supports the defence of 1609 (standing instruction)" in t
    # 6 + 6 + 6/2 = 15 against 3 + 1 = 4: 3.75:1 -> 3:1; defender HQ -1; 4 -> 3: 1/1r
    line = next(x for x in t if x.startswith("combat at 1609"))
    assert line.startswith("combat at 1609: 15 against 4 = 3:1; roll 4 -1 (defender's HQ support (11.1)) = 3 -> 1/1r")
    assert "3.C halved (in the EZOC of AUS-B in 1608, which nobody attacks: 11.0)" in line
    assert not [x for x in t if "hit:" in x]  # nobody's loss is taken for them
    due = [d for d in GAME.awaiting(result.state) if isinstance(d, DecisionDue)]
    assert [(d.side, d.kind, d.options) for d in due] == [(ALLIED, "losses", ("NEI-2.B", "X2"))]
    answer = {"order": [{"losses": ["X2"]}, {"retreat": "retreat", "to": "1708"}]}
    allied = referee.adjudicate(GAME, result.state, ALLIED, answer, [], seq=3)
    t = texts(allied)
    assert "defender hit: X2 is eliminated (owner's choice)" in t
    assert "NEI-2.B retreats to 1708" in t  # the only hex 11.3 allows
    assert "attacker hit: 3.C is disrupted (standing instruction)" in t
    assert "3.A, 3.B advance into 1609 (standing instruction)" in t
    s = allied.state
    assert s.piece("X2").where == ELIMINATED and s.piece("NEI-2.B").where == "1708"
    assert s.piece("3.C").disrupted and s.piece("3.C").where == "1508"


def test_11_3_without_a_loss_order_the_owner_is_asked():
    """11.3: "the owning player chooses which unit takes the hit" -- with no
    standing instruction nothing is chosen for the owner: the combat waits."""
    state = position({ALLIED: {"hq-support": "always", "losses": "protect-hq", "retreat": "retreat"},
                      JAPANESE: {"advance": "always"}})
    result = referee.adjudicate(GAME, state, JAPANESE, {"order": ATTACK}, [4])
    t = texts(result)
    assert "defender hit: X2 is eliminated (standing instruction)" in t
    assert not [x for x in t if x.startswith("attacker hit")]
    due = [d for d in GAME.awaiting(result.state) if isinstance(d, DecisionDue)]
    assert [(d.side, d.kind, d.options) for d in due] == [(JAPANESE, "losses", ("3.A", "3.B", "3.C"))]
    from pbem.games.ambon import phases

    assert phases.blocker(GAME.data, result.state) == \
        "japanese has not chosen the losses and retreats of the combat at 1609 (11.3)"
    chosen = referee.adjudicate(GAME, result.state, JAPANESE, {"order": [{"losses": ["3.B"]}]}, [], seq=4)
    assert "attacker hit: 3.B is disrupted (owner's choice)" in texts(chosen)


def test_11_3_the_protect_hq_policy_never_eliminates_an_hq_while_another_unit_can_take_the_hit():
    """The shipped policy (losses = "protect-hq"): an HQ (CS 0, +3/-5 VP)
    is not ranked with the disrupted units: NEI-HQ beside a disrupted NEI-1.B
    keeps its place, and so does Kure-HQ beside a disrupted Kure-MG."""
    g = GAME
    state = g.scenario_state(dict(turn=3, phase="japanese-combat", disrupted=["NEI-1.B", "Kure-MG"],
                                  positions={"NEI-HQ": "1611", "NEI-1.B": "1611", "Kure-HQ": "1511", "Kure-MG": "1511"}))
    for hq, unit in (("NEI-HQ", "NEI-1.B"), ("Kure-HQ", "Kure-MG")):
        pieces = [state.piece(hq), state.piece(unit)]
        assert [p.id for p in combat.policy_order(g.data, pieces)] == [unit, hq]
        assert combat.choose_victims(g.data, pieces, 1, standing="protect-hq") == [(unit, "standing instruction")]
        assert combat.choose_victims(g.data, pieces, 2, standing="protect-hq") == [(unit, "no choice"), (hq, "no choice")]


def test_11_1_defender_support_is_a_decision_that_comes_before_the_die():
    """protocol §6: the die waits for the defender's message; it is keyed by it."""
    state = position()
    for i, order in enumerate(GAME.parse_orders({"order": ATTACK}, JAPANESE).public):
        state, _ = GAME.apply(state, Ordered(JAPANESE, 10, i, order))
    state, events = GAME.apply(state, MessageEnd(JAPANESE, 10))
    due = GAME.awaiting(state)
    assert due == (DecisionDue(ALLIED, "hq-support", "support the defence of 1609?", ("NEI-HQ", "none"), rule="11.1"),)
    assert not [d for d in due if isinstance(d, DiceDue)]  # no die exists yet for anyone to know
    order = GAME.parse_orders({"order": [{"support": "NEI-HQ"}]}, ALLIED).public[0]
    state, _ = GAME.apply(state, Ordered(ALLIED, 11, 0, order))
    state, _ = GAME.apply(state, MessageEnd(ALLIED, 11))
    assert GAME.awaiting(state) == (DiceDue("combat 1609", 1, 6, 11, "combat at 1609"),)  # keyed by the Allied message


def test_11_1_support_left_unanswered_is_declined():
    state = position()
    for i, order in enumerate(GAME.parse_orders({"order": ATTACK}, JAPANESE).public):
        state, _ = GAME.apply(state, Ordered(JAPANESE, 10, i, order))
    state, _ = GAME.apply(state, MessageEnd(JAPANESE, 10))
    state, events = GAME.apply(state, MessageEnd(ALLIED, 11))
    assert "no HQ supports the defence of 1609 (the decision was left open)" in [e.text for e in events]
    assert GAME.awaiting(state)[0].key_seq == 11


def test_11_4_advance_is_the_attackers_decision_after_the_die():
    state = position({ALLIED: {"hq-support": "never", "losses": "protect-hq", "retreat": "retreat",
                               "retreat-to": "toward-friends"}})
    result = referee.adjudicate(GAME, state, JAPANESE, {"order": ATTACK}, [4])  # 3:1, 4 -> 0/1r: 1609 empties
    decision = [d for d in GAME.awaiting(result.state) if isinstance(d, DecisionDue)]
    assert decision[0].kind == "advance" and decision[0].side == JAPANESE
    assert decision[0].options == ("3.A", "3.B", "3.C")  # 0/1r: no attacker hit
    with pytest.raises(IllegalOrderError, match="11.4: 3.D may not advance"):
        GAME.apply(result.state, Ordered(JAPANESE, 12, 0, {"type": "advance", "units": ["3.D"]}))
    state, events = GAME.apply(result.state, Ordered(JAPANESE, 12, 0, {"type": "advance", "units": list(decision[0].options)}))
    assert events[0].text.endswith("advance into 1609")


def test_11_0_odds_round_in_the_defenders_favour_with_exact_fractions():
    from fractions import Fraction

    assert combat.ratio_column(Fraction(9), Fraction(2)) == (4, 1)  # 4.5:1 -> 4:1 (15.0)
    assert combat.ratio_column(Fraction(15), Fraction(4)) == (3, 1)  # 3.75:1 -> 3:1 (15.0)
    assert combat.ratio_column(Fraction(3), Fraction(4)) == (1, 2)  # 1:1.33 -> 1:2
    assert combat.ratio_column(Fraction(5, 2), Fraction(5)) == (1, 2)


@pytest.mark.parametrize("order, message", [
    ({"attack": "1609", "with": ["3.D"]}, "10.0: 3.D is an artillery-type unit and may not make a normal attack"),
    ({"attack": "1708", "with": ["3.A"]}, "11.0: 3.A in 1509 does not have 1708 in its ZOC"),
    ({"attack": "1609", "with": ["3.A", "3.A"]}, "11.0: 3.A already attacks this phase"),
    ({"attack": "1509", "with": ["3.A"]}, "11.0: there is no enemy unit in 1509 to attack"),
    ({"attack": "1609", "with": ["3.A"], "hq": "NEI-HQ"}, "11.1: 'NEI-HQ' is not a japanese HQ"),
])
def test_11_0_declaration_rules(order, message):
    with pytest.raises(IllegalOrderError, match=message.replace("(", r"\(").replace(".", r"\.")):
        referee.adjudicate(GAME, position(), JAPANESE, {"order": [order]}, [])


def test_11_0_a_hex_is_attacked_once():
    orders = [{"attack": "1609", "with": ["3.A"]}, {"attack": "1609", "with": ["3.B"]}]
    with pytest.raises(IllegalOrderError, match="11.0: 1609 is already attacked this phase"):
        referee.adjudicate(GAME, position(), JAPANESE, {"order": orders}, [])


def test_11_1_japanese_army_hq_supports_only_army_units():
    state = position(positions={**POSITION["positions"], "Kure-1": "1508", "228-HQ": "1509"})
    order = {"attack": "1609", "with": ["3.A", "Kure-1"], "hq": "228-HQ"}
    with pytest.raises(IllegalOrderError, match="11.1: 228-HQ \\(Japanese Army\\) may support only a combat of Japanese Army units alone"):
        referee.adjudicate(GAME, state, JAPANESE, {"order": [order]}, [])


def test_11_1_lone_hq_attacked_is_eliminated_without_odds():
    state = position(positions={"3.A": "1608", "NEI-HQ": "1708"}, concealed={}, revealed={}, disrupted=[])
    result = referee.adjudicate(GAME, state, JAPANESE, {"order": [{"attack": "1708", "with": ["3.A"]}]}, [])
    assert "NEI-HQ attacked alone in 1708: eliminated" in texts(result)


def test_11_2_mountain_shift_and_town_drm():
    # attacking 1508 (mountain) from 1509
    state = GAME.scenario_state(dict(turn=3, phase="allied-combat", positions={"NEI-2.B": "1509", "3.C": "1508"}))
    result = referee.adjudicate(GAME, state, ALLIED, {"order": [{"attack": "1508", "with": ["NEI-2.B"]}]}, [6, 6, 6])  # + 2 recovery checks
    line = next(x for x in texts(result) if x.startswith("combat at 1508"))
    assert "defender in a mountain hex (11.2) -1" in line
    state = GAME.scenario_state(dict(turn=3, phase="japanese-combat", positions={"3.A": "1708", "NEI-2.A": "1809"}))
    result = referee.adjudicate(GAME, state, JAPANESE, {"order": [{"attack": "1809", "with": ["3.A"]}]}, [6])
    line = next(x for x in texts(result) if x.startswith("combat at 1809"))
    assert "across Paso's fortified hexside (11.2) -1" in line and "-1 (attacking a town (11.2))" in line


def test_11_3_r_refused_with_an_extra_hit_by_standing_instruction():
    state = position({ALLIED: {"hq-support": "always", "retreat": "hit", "losses": "X2"},
                      JAPANESE: {"advance": "never", "losses": "protect-hq"}})
    result = referee.adjudicate(GAME, state, JAPANESE, {"order": ATTACK}, [4])
    assert "refusing the retreat (standing instruction): extra hit: NEI-2.B is disrupted" in texts(result)
    assert result.state.piece("NEI-2.B").where == "1609"


@pytest.mark.parametrize("identity, expected", [
    ("dummy", "the reveals removed the EZOC at 1507: 3.A's extra hit is cancelled"),
    ("detachment", "retreat into an EZOC: extra hit: 3.A is disrupted"),
])
def test_11_3_retreat_next_to_a_concealed_unit_reveals_it_and_a_dummy_cancels_the_extra_hit(identity, expected):
    """11.3: a unit that retreats into an EZOC made only by a concealed unit
    owes that unit's reveal; its extra hit waits, and is cancelled when the
    reveal shows a dummy (the EZOC is gone)."""
    from pbem.engine.machine import Opened

    state = GAME.scenario_state(dict(turn=3, phase="allied-combat", positions={"3.A": "1608"}, concealed={"X1": "1407"}))
    state, events = retreat.retreat_units(GAME.data, state, [state.piece("3.A")], "R",
                                          frozenset(["1607", "1707", "1609", "1508", "1708"]))
    texts_ = [e.text for e in events]
    assert "3.A retreats to 1507 into an enemy ZOC" in texts_
    assert "X1 must be revealed (3.A retreated next to it)" in texts_
    assert state.pending_hits == (PendingHit("3.A", "1507"),)
    state, events = GAME.apply(state, Opened(ALLIED, "X1", identity, 30))
    assert expected in [e.text for e in events]
    assert not state.pending_hits
