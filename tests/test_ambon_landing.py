"""Landings (6.0-6.5, 14.2) at their edges: a lone HQ on the beach (2.2.1,
11.1), artillery-type units and opposed landings (6.3), and when the 14.2
Second Wave lands (6.4, 6.5)."""

from __future__ import annotations

import pytest

from ambon_example import HISTORICAL_ALLIED
from pbem.engine import referee
from pbem.engine.machine import DecisionDue, DiceRolled, MessageEnd, Opened, Ordered, Sealed, replace
from pbem.errors import IllegalOrderError
from pbem.games.ambon import GAME, setup
from pbem.games.ambon.state import ALLIED, ELIMINATED, JAPANESE


def position(**doc):
    return GAME.scenario_state(doc)


def play(state, side, orders, dice=(), secrets=None, end=False):
    return referee.adjudicate(GAME, state, side, {"order": orders}, list(dice), secrets=secrets or {}, end_turn=end)


def texts(result_or_events):
    events = getattr(result_or_events, "events", result_or_events)
    return [e.text for e in events]


# --------------------------------------------------------------------------- 2.2.1 / 11.1 a lone HQ on the beach

LONE_HQ = dict(turn=2, phase="japanese-landing", positions={"3.A": "fw-laha", "3.B": "fw-laha", "NEI-HQ": "0713"})


def test_2_2_1_11_1_a_landing_against_a_lone_hq_eliminates_it_without_a_landing_combat_die():
    """2.2.1: "An HQ attacked while alone is automatically eliminated"; 11.1:
    "without calculating a combat ratio".  The 6.3 table still decides whether
    the landing is delayed; a landing combat result eliminates the HQ, and
    the landing units come ashore as after a won landing combat."""
    result = play(position(**LONE_HQ), JAPANESE, [{"land": "fw-laha"}], [6])  # one die only: the 6.3 table
    t = texts(result)
    assert "landing on 0713: roll 6 -> landing combat at 1 attacker CS" in t
    assert "NEI-HQ attacked alone on 0713: eliminated without a combat ratio" in t
    assert any(x.startswith("3.A, 3.B land on 0713") for x in t)
    assert "beachhead established on 0713" in t
    s = result.state
    assert s.piece("NEI-HQ").where == ELIMINATED
    assert (s.piece("3.A").where, s.piece("3.A").penalty) == ("0713", "opposed")
    assert s.landing_combats == () and not GAME.awaiting(s)


def test_2_2_1_the_lone_hq_needs_no_support_decision_and_the_game_goes_on():
    state = position(**LONE_HQ)
    state, _ = GAME.apply(state, Ordered(JAPANESE, 5, 0, {"type": "land", "box": "fw-laha"}))
    state, _ = GAME.apply(state, MessageEnd(JAPANESE, 5))
    state, events = GAME.apply(state, DiceRolled("landing laha", (6,)))
    assert not [d for d in GAME.awaiting(state) if isinstance(d, DecisionDue)]
    assert state.piece("NEI-HQ").where == ELIMINATED
    state, _ = GAME.apply(state, MessageEnd(ALLIED, 6))
    state, _ = GAME.apply(state, MessageEnd(JAPANESE, 7))  # the Japanese turn passes
    assert state.phase == "allied-movement"


def test_6_3_a_delayed_landing_leaves_the_lone_hq_alone():
    result = play(position(**LONE_HQ), JAPANESE, [{"land": "fw-laha"}], [1])
    assert "landing on 0713: roll 1 -> landing delayed; the units stay in fw-laha" in texts(result)
    assert result.state.piece("NEI-HQ").where == "0713"


# --------------------------------------------------------------------------- 6.3 artillery-type units


def test_6_3_artillery_alone_may_not_make_an_opposed_landing():
    state = position(turn=2, phase="japanese-landing", positions={"228-Art": "fw-laha", "NEI-1.A": "0713"})
    with pytest.raises(IllegalOrderError, match=r"6\.3: artillery-type units may not make opposed landings: "
                                                r"228-Art in fw-laha cannot land on 0713, held by NEI-1\.A"):
        play(state, JAPANESE, [{"land": "fw-laha"}], [6, 6])


@pytest.mark.parametrize("identity", ["detachment", "dummy"])
def test_6_3_artillery_alone_lands_only_if_the_reveals_show_the_beach_empty(identity):
    state = position(turn=2, phase="japanese-landing", positions={"228-Art": "fw-laha"}, concealed={"X1": "0713"})
    dice = [] if identity == "detachment" else [4]
    result = play(state, JAPANESE, [{"land": "fw-laha"}], dice, secrets={"X1": identity})
    if identity == "detachment":
        assert ("0713 is held: artillery-type units may not make opposed landings; 228-Art stay in fw-laha"
                in texts(result))
        assert result.state.piece("228-Art").where == "fw-laha" and not GAME.awaiting(result.state)
    else:
        assert "landing on 0713: unopposed, 0 real mine(s); one die is due" in texts(result)
        assert result.state.piece("228-Art").where == "0713"


def test_6_3_artillery_presence_is_ignored_for_landing_combat():
    """Only 2.A and 2.B fight (6 + 6 = 12, not 13 with the battalion gun's CS
    1); the gun takes no hit and stays behind."""
    state = position(turn=1, phase="japanese-landing", positions={"2.A": "fw-amahusu", "2.B": "fw-amahusu", "2.D": "fw-amahusu",
                                                          "NEI-1.B": "1213"})
    state = replace(state, standing=state.standing.updated(JAPANESE, {"losses": "2.D 2.A"})
                    .updated(ALLIED, {"retreat": "retreat", "retreat-to": "toward-friends"}))
    result = play(state, JAPANESE, [{"land": "fw-amahusu"}], [6, 3])  # 12:3 = 4:1, 3 -> 1/1r
    t = texts(result)
    # the counted units name the gun left out
    assert "landing combat on 1213 at 1 CS: 12 against 3 = 4:1; roll 3 -> 1/1r; counted: 2.A 6 + 2.B 6 = 12 " \
           "(2.D: artillery, ignored, 6.3) against NEI-1.B 3 = 3" in t
    assert "Japanese hit: 2.A is disrupted (standing instruction)" in t  # the loss order names 2.D first: it is not in the combat
    assert result.state.piece("2.D").where == "fw-amahusu" and not result.state.piece("2.D").disrupted


# --------------------------------------------------------------------------- 14.2 and 6.4 / 6.5


def setup_14_2(note="1:hitu-lama 2:laha"):
    """Historical Allied setup; the Japanese First Wave at Liang and Laha, the
    1st and 2nd Battalions off-map under the sealed 14.2 note."""
    state = GAME.initial_state({"rules": ["14.2"]})
    parsed = GAME.parse_orders({"order": [HISTORICAL_ALLIED]}, ALLIED)
    for slot in parsed.seals:
        state, _ = GAME.apply(state, Sealed(ALLIED, slot, 1))
    for i, order in enumerate(parsed.public):
        state, _ = GAME.apply(state, Ordered(ALLIED, 1, i, order))
    state, _ = GAME.apply(state, MessageEnd(ALLIED, 1))
    orders = [{"wave": "fw-liang", "units": list(setup.KURE)},
              {"wave": "fw-laha", "units": ["228-HQ", "3.A", "3.B", "3.C", "3.D", "228-Art"]},
              {"second_wave": note}]
    state, _ = GAME.apply(state, Sealed(JAPANESE, "second-wave", 2))
    for i, order in enumerate(GAME.parse_orders({"order": orders}, JAPANESE).public):
        state, _ = GAME.apply(state, Ordered(JAPANESE, 2, i, order))
    state, _ = GAME.apply(state, MessageEnd(JAPANESE, 2))
    return state


def to_turn_2(state, note="1:hitu-lama 2:laha"):
    """Skip to the end of turn 1's Allied combat phase; the Japanese reveal the note."""
    state, _ = GAME.apply(replace(state, phase="allied-combat", landings=()), MessageEnd(ALLIED, 9))
    state, events = GAME.apply(state, Opened(JAPANESE, "second-wave", note, 10))
    return state, events


def test_14_2_the_second_wave_lands_on_turn_2_as_it_would_without_the_note():
    """6.4 moves a Second Wave battalion up to its empty First Wave box at the
    end of the turn-1 landings, so it lands on turn 2; 14.2 keeps its beach
    secret until the turn-1 Recovery Phase and must not delay it a turn."""
    state, events = to_turn_2(setup_14_2())
    assert (state.turn, state.phase) == (2, "japanese-landing")
    assert "1.A, 1.B, 1.C, 1.D are placed in fw-hitu-lama (as the turn-1 Second Wave step would have moved them up)" in texts(events)
    assert "2.A, 2.B, 2.C, 2.D are placed in sw-laha (228-HQ is still in fw-laha)" in texts(events)
    state, events = GAME.apply(state, Ordered(JAPANESE, 11, 0, {"type": "land", "box": "fw-hitu-lama"}))
    assert texts(events)[0] == "1.A, 1.B, 1.C, 1.D attempt a landing from fw-hitu-lama on 1402"


def test_14_2_6_5_a_battalion_for_a_captured_beachhead_is_eliminated_when_the_note_is_revealed():
    """6.5: "Any Japanese units still scheduled to land in that hex are all
    eliminated"; the Allies retook the Laha beachhead on turn 1, before the
    note said the 2nd Battalion was to land there."""
    state = setup_14_2()
    state = replace(state, lost_beachheads=("0713",))
    state, events = to_turn_2(state)
    assert "2.A, 2.B, 2.C, 2.D were to land on 0713, a beachhead the Allies captured: they are eliminated" in texts(events)
    assert {state.piece(u).where for u in setup.BATTALIONS["2"]} == {ELIMINATED}
    assert state.piece("1.A").where == "fw-hitu-lama"
