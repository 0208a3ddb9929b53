"""Entering a hex, however a unit gets there: by movement (7.0), by advance
after combat (11.4), by retreat (11.3) or by landing (6.2, 6.3).  Each way
has every effect of entering: 3.1 control, 6.5 beachheads, 7.2 and 8.0
reveals.  And 8.0's comment: after a reveal the Japanese unit "may continue
moving with its remaining MP"."""

from __future__ import annotations

import pytest

from pbem.engine import referee
from pbem.engine.machine import DecisionDue, MessageEnd, Opened, Ordered, RevealDue, replace
from pbem.errors import IllegalOrderError
from pbem.games.ambon import GAME
from pbem.games.ambon.state import ALLIED, ELIMINATED, JAPANESE, REMOVED


def position(standing=None, **doc):
    state = GAME.scenario_state(doc)
    for side, table in (standing or {}).items():
        state = replace(state, standing=state.standing.updated(side, table))
    return state


def play(state, side, orders, dice=(), secrets=None, end=True):
    return referee.adjudicate(GAME, state, side, {"order": orders}, list(dice), secrets=secrets or {}, end_turn=end)


def texts(result_or_events):
    events = getattr(result_or_events, "events", result_or_events)
    return [e.text for e in events]


# 1.A and 1.B (6 + 6) attack a disrupted NEI company (1) in Ambon (1412), a town:
# 12:1 -> 6:1, a 6 -1 = 5 -> 0/2R: the company is eliminated and 1412 is empty.
AMBON_ATTACK = dict(turn=3, phase="japanese-combat", positions={"1.A": "1312", "1.B": "1312", "NEI-1.B": "1412"},
                    disrupted=["NEI-1.B"])


# --------------------------------------------------------------------------- 11.4 advance after combat


def test_11_4_advance_takes_control_of_the_key_location():
    """3.1: "A key location is controlled by moving one of your own units into
    that hex": advancing after combat is such a move."""
    state = position({JAPANESE: {"advance": "always"}, ALLIED: {"hq-support": "never"}}, **AMBON_ATTACK)
    result = play(state, JAPANESE, [{"attack": "1412", "with": ["1.A", "1.B"]}], [6])
    assert "1.A, 1.B advance into 1412 (standing instruction)" in texts(result)
    assert "1.A takes Ambon (1412) on turn 3" in texts(result)
    assert result.state.controller("1412") == JAPANESE


def test_11_4_advance_decided_by_an_order_takes_control_too():
    state = position({ALLIED: {"hq-support": "never"}}, **AMBON_ATTACK)
    result = play(state, JAPANESE, [{"attack": "1412", "with": ["1.A", "1.B"]}], [6])
    assert result.state.controller("1412") == "allied"  # nobody has entered yet
    state, events = GAME.apply(result.state, Ordered(JAPANESE, 4, 0, {"type": "advance", "units": ["1.A"]}))
    assert texts(events)[:2] == ["1.A advance into 1412", "1.A takes Ambon (1412) on turn 3"]
    assert state.controller("1412") == JAPANESE


def test_11_4_an_allied_advance_into_a_beachhead_captures_it():
    """6.5: "If an Allied unit ... enters the same hex as a beachhead marker,
    remove the marker"; units still to land there are eliminated."""
    state = position({ALLIED: {"advance": "always"}, JAPANESE: {"hq-support": "never"}}, turn=3, phase="allied-combat",
                     positions={"3.A": "0713", "AUS-D": "0813", "AUS-C": "0712", "2.A": "fw-laha"},
                     disrupted=["3.A"], beachheads=["0713"])
    result = play(state, ALLIED, [{"attack": "0713", "with": ["AUS-D", "AUS-C"]}], [6])
    assert "AUS-D, AUS-C advance into 0713 (standing instruction)" in texts(result)
    assert "the Allies capture the beachhead on 0713; it can never be a beachhead again" in texts(result)
    s = result.state
    assert s.beachheads == () and s.lost_beachheads == ("0713",) and s.piece("2.A").where == ELIMINATED


def test_11_4_8_0_a_japanese_advance_next_to_a_concealed_unit_reveals_it():
    state = position({JAPANESE: {"advance": "always"}, ALLIED: {"hq-support": "never"}}, concealed={"X1": "1511"},
                     **AMBON_ATTACK)
    state, _ = GAME.apply(state, Ordered(JAPANESE, 5, 0, {"type": "attack", "target": "1412", "with": ["1.A", "1.B"], "hq": ""}))
    state, _ = GAME.apply(state, MessageEnd(JAPANESE, 5))
    from pbem.engine.machine import DiceRolled

    state, events = GAME.apply(state, DiceRolled("combat 1412", (6,)))
    assert "X1 must be revealed (1.A's ZOC reaches 1511)" in texts(events)
    assert RevealDue(ALLIED, "X1", "8.0") in GAME.awaiting(state)
    assert state.phase == "japanese-combat"  # the phase waits for the reveal
    state, events = GAME.apply(state, Opened(ALLIED, "X1", "dummy", 6))
    assert "X1 in 1511 is revealed: a dummy, removed from the game" in texts(events)
    assert state.piece("X1").where == REMOVED


def test_11_4_a_japanese_advance_into_a_landing_hex_places_a_beachhead():
    """6.5: "When a Japanese unit enters a landing hex, place one beachhead marker"."""
    state = position({JAPANESE: {"advance": "always"}, ALLIED: {"hq-support": "never"}}, turn=3, phase="japanese-combat",
                     positions={"1.A": "0712", "1.B": "0712", "NEI-3.A": "0713"}, disrupted=["NEI-3.A"])
    result = play(state, JAPANESE, [{"attack": "0713", "with": ["1.A", "1.B"]}], [6])
    assert "1.A, 1.B advance into 0713 (standing instruction)" in texts(result)
    assert "beachhead established on 0713" in texts(result)
    assert result.state.beachheads == ("0713",)


def test_11_4_attackers_may_advance_after_a_lone_hq_is_eliminated():
    """11.1: an HQ attacked alone "is automatically eliminated"; 11.4: "If a
    defending hex becomes empty as a result of combat (all units eliminated
    ...), attacking units may advance into that hex"."""
    state = position({JAPANESE: {"advance": "always"}}, turn=3, phase="japanese-combat",
                     positions={"1.A": "1312", "NEI-HQ": "1412"})
    result = play(state, JAPANESE, [{"attack": "1412", "with": ["1.A"]}])
    t = texts(result)
    assert t.index("NEI-HQ attacked alone in 1412: eliminated") < t.index("1.A advance into 1412 (standing instruction)")
    assert "1.A takes Ambon (1412) on turn 3" in t
    assert result.state.piece("1.A").where == "1412"


def test_11_4_after_a_lone_hq_is_eliminated_the_advance_is_the_attackers_decision():
    state = position(turn=3, phase="japanese-combat", positions={"1.A": "1312", "NEI-HQ": "1412"})
    result = play(state, JAPANESE, [{"attack": "1412", "with": ["1.A"]}])
    assert result.state.phase == "japanese-combat"
    assert GAME.awaiting(result.state) == (
        DecisionDue(JAPANESE, "advance", "advance into 1412?", ("1.A",), rule="11.4"),)
    state, events = GAME.apply(result.state, Ordered(JAPANESE, 4, 0, {"type": "advance", "units": ["1.A"]}))
    assert state.piece("1.A").where == "1412" and state.controller("1412") == JAPANESE


# --------------------------------------------------------------------------- 11.3 retreat


def test_11_3_3_1_an_allied_unit_retreating_into_a_japanese_held_key_location_retakes_it():
    """3.1: "Control continues thereafter unless an enemy unit enters that hex"."""
    state = position({JAPANESE: {"advance": "never"}, ALLIED: {"retreat": "retreat", "retreat-to": "1412"}},
                     turn=4, phase="japanese-combat",
                     positions={"1.A": "1213", "1.B": "1213", "NEI-1.B": "1312"}, control={"1412": 3})
    result = play(state, JAPANESE, [{"attack": "1312", "with": ["1.A", "1.B"]}], [4])  # 12:3 = 4:1, 4 -> 0/1r
    assert "NEI-1.B retreats to 1412" in texts(result)  # the only hex 11.3 allows
    assert "NEI-1.B retakes Ambon (1412) for the Allies" in texts(result)
    assert result.state.controller("1412") == ALLIED


def test_11_3_6_5_an_allied_unit_retreating_into_a_beachhead_captures_it():
    state = position({JAPANESE: {"advance": "never", "losses": "protect-hq"},
                      ALLIED: {"hq-support": "never", "retreat": "retreat", "retreat-to": "0713"}},
                     turn=3, phase="japanese-combat",
                     positions={"1.A": "0812", "1.B": "0812", "AUS-D": "0813", "2.A": "fw-laha"}, beachheads=["0713"])
    result = play(state, JAPANESE, [{"attack": "0813", "with": ["1.A", "1.B"]}], [3])
    t = texts(result)
    assert any(x.startswith("AUS-D retreats to 0713") for x in t)
    assert "the Allies capture the beachhead on 0713; it can never be a beachhead again" in t
    assert result.state.piece("2.A").where == ELIMINATED


# --------------------------------------------------------------------------- 8.0 HQs have no ZOC


def test_8_0_a_japanese_hq_moving_next_to_a_concealed_unit_does_not_reveal_it():
    state = position(turn=3, phase="japanese-movement", positions={"228-HQ": "1312"}, concealed={"X1": "1511"})
    result = play(state, JAPANESE, [{"move": "228-HQ: 1312 1412"}], end=False, secrets={"X1": "dummy"})
    assert not [t for t in texts(result) if "X1" in t]
    assert result.state.piece("X1").concealed and result.state.piece("X1").where == "1511"
    assert "228-HQ takes Ambon (1412) on turn 3" in texts(result)  # 3.1: an HQ is a unit


def test_8_0_a_landing_reveals_what_its_combat_units_reach_even_with_the_hq_listed_first():
    state = position(turn=1, phase="japanese-landing", positions={"228-HQ": "fw-laha", "3.A": "fw-laha"}, concealed={"X1": "0813"})
    result = play(state, JAPANESE, [{"land": "fw-laha"}], [6], end=False, secrets={"X1": "detachment"})
    assert "X1 must be revealed (3.A's ZOC reaches 0813)" in texts(result)
    alone = position(turn=1, phase="japanese-landing", positions={"228-HQ": "fw-laha"}, concealed={"X1": "0813"})
    result = play(alone, JAPANESE, [{"land": "fw-laha"}], [6], end=False, secrets={"X1": "detachment"})
    assert result.state.piece("X1").concealed  # the HQ alone has no ZOC


# --------------------------------------------------------------------------- 8.0 moving on after a reveal

# 3.A (MA 5) on the Hitu Pass road; X1, concealed, in 1609.  1507 -> 1608 costs
# road 0.5 + enter X1's ZOC 1 = 1.5 MP, leaving 3.5.
MOVE_ON = dict(turn=3, phase="japanese-movement", positions={"3.A": "1507"}, concealed={"X1": "1609"})


def test_8_0_a_japanese_move_stops_where_its_zoc_reaches_a_concealed_unit():
    """The reveal is immediate; the Allies make it in their next message, so
    the unit stops there and the rest of its path waits for the reveal."""
    state, events = GAME.apply(position(**MOVE_ON), Ordered(JAPANESE, 6, 0, {"type": "move", "unit": "3.A",
                                                                              "path": ["1507", "1608", "1708"]}))
    t = texts(events)
    assert t[0] == "3.A moves 1507 1608 for 1.5 MP (3.5 MP left)"
    assert "X1 must be revealed (3.A's ZOC reaches 1609)" in t
    assert "3.A stops in 1608 until X1 is revealed (8.0); it may move on with its remaining 3.5 MP" in t
    assert state.piece("3.A").where == "1608" and state.piece("3.A").spent == 3


def test_8_0_no_japanese_move_while_the_reveal_is_owed():
    state, _ = GAME.apply(position(**MOVE_ON), Ordered(JAPANESE, 6, 0, {"type": "move", "unit": "3.A",
                                                                         "path": ["1507", "1608"]}))
    with pytest.raises(IllegalOrderError, match=r"8\.0: 3\.A cannot move yet: X1 must be revealed first"):
        GAME.apply(state, Ordered(JAPANESE, 6, 1, {"type": "move", "unit": "3.A", "path": ["1608", "1708"]}))


@pytest.mark.parametrize("identity", ["dummy", "detachment"])
def test_8_0_the_japanese_movement_phase_goes_on_after_the_reveal(identity):
    """8.0 Comment: "The dummy is then revealed and removed. The Japanese unit
    may continue moving with its remaining MP."  The Japanese Movement Phase
    stays open after the Allies' reveal; 3.A goes on from 1608 with 3.5 MP,
    and a removed dummy charges nothing more (a detachment still does)."""
    state, _ = GAME.apply(position(**MOVE_ON), Ordered(JAPANESE, 6, 0, {"type": "move", "unit": "3.A",
                                                                         "path": ["1507", "1608"]}))
    state, _ = GAME.apply(state, MessageEnd(JAPANESE, 6))
    assert state.phase == "japanese-movement"
    state, events = GAME.apply(state, Opened(ALLIED, "X1", identity, 7))
    assert "the reveals are made: the Japanese Movement Phase goes on (3.A may still move)" in texts(events)
    state, _ = GAME.apply(state, MessageEnd(ALLIED, 7))
    assert state.phase == "japanese-movement" and GAME.active_side(state) == JAPANESE and not GAME.awaiting(state)
    # 1608 -> 1708 by road (0.5), then 1808 (open 1): 1.5 MP without X1's ZOC; with a
    # detachment in 1609: + leave EZOC 1 + enter EZOC 1 (1708) + leave EZOC 1 (1708) = 4.5 > 3.5
    path = ["1608", "1708", "1808"] if identity == "dummy" else ["1608", "1708"]
    state, events = GAME.apply(state, Ordered(JAPANESE, 8, 0, {"type": "move", "unit": "3.A", "path": path}))
    spent = {"dummy": "1.5 MP (2 MP left)", "detachment": "2.5 MP (1 MP left)"}[identity]
    assert texts(events)[0] == f"3.A moves {' '.join(path)} for {spent}"
    state, _ = GAME.apply(state, MessageEnd(JAPANESE, 8))
    assert state.phase == "allied-movement"  # the message closes the phase (and the Japanese player turn)


def test_8_0_the_phase_ends_after_the_reveal_when_no_japanese_unit_can_move_on():
    """3.B landed under a -2 MP marker (3 MP) and has already spent 1.5 MP
    this phase: the 1.5 MP into 1608 are its last."""
    state = position(turn=3, phase="japanese-movement", positions={"3.B": "1507"}, concealed={"X1": "1609"},
                     penalties={"3.B": "-2mp"})
    state = state.with_piece(replace(state.piece("3.B"), spent=3))
    state, _ = GAME.apply(state, Ordered(JAPANESE, 6, 0, {"type": "move", "unit": "3.B", "path": ["1507", "1608"]}))
    assert state.piece("3.B").spent == 6
    state, _ = GAME.apply(state, MessageEnd(JAPANESE, 6))
    state, events = GAME.apply(state, Opened(ALLIED, "X1", "dummy", 7))
    assert state.phase == "japanese-bombardment"
