"""Ambon recovery (12.0) and its supply exception (13.0): each test cites
the rule it checks.  Positions are built with the game's referee scenarios;
dice are given, as at a table."""

from __future__ import annotations

import pytest

from pbem.engine.machine import replace
from pbem.errors import IllegalOrderError
from pbem.games.ambon import GAME
from pbem.games.ambon.recovery import recovery_candidates, recovery_drms, resolve_recovery
from pbem.games.ambon.state import ALLIED, JAPANESE

DATA = GAME.data
M = GAME.map


def position(**doc):
    doc.setdefault("turn", 3)
    doc.setdefault("phase", "recovery")
    return GAME.scenario_state(doc)


def example():
    """15.0 after the Japanese combat: 2.B retreated to 1708 beside the NEI HQ,
    the undisrupted 3rd Battalion companies advanced into 1609, 3.C stayed
    disrupted in 1508, 3.D at Hitu Pass; AUS B disrupted in 1608, Dutch 2.C
    disrupted in Paso (1809)."""
    return position(
        turn=5,
        positions={"3.A": "1609", "3.B": "1609", "3.C": "1508", "3.D": "1507",
                   "AUS-B": "1608", "NEI-HQ": "1708", "NEI-2.B": "1708", "NEI-2.C": "1809", "NEI-2.A": "1809"},
        disrupted=["AUS-B", "NEI-2.C", "3.C"],
    )


# --------------------------------------------------------------------------- 15.0 the play example


def test_15_0_AUS_B_recovers_on_a_2_with_plus_1_EZOC_and_minus_1_HQ():
    """15.0: "They attempt to recover the Australian B Company in hex 1608 [...]
    The former's check gets +1 for being in an EZOC and -1 for being within
    the command range of the HQ (Kapitz, in hex 1708). The die rolls a 2 —
    success, and the unit is turned back to its full-strength side." """
    state = example()
    assert recovery_drms(DATA, state, state.piece("AUS-B")) == [("in an enemy ZOC", 1), ("within command range of NEI-HQ", -1)]
    after, events = resolve_recovery(DATA, state, "AUS-B", 2)
    assert [e.text for e in events] == [
        "AUS-B in 1608 checks recovery: roll 2, +1 in an enemy ZOC, -1 within command range of NEI-HQ = 2 (CS 2) -> recovers"
    ]
    assert not after.piece("AUS-B").disrupted


def test_15_0_dutch_2C_fails_on_a_4_modified_to_3():
    """15.0: "The Dutch unit in Paso also gets the HQ modifier, but the die
    rolls a 4, modified to 3, which still exceeds its combat strength, so
    recovery fails. It remains disrupted." The strength is the disrupted
    face's: the front CS 3 would not be exceeded by 3."""
    state = example()
    assert recovery_drms(DATA, state, state.piece("NEI-2.C")) == [("within command range of NEI-HQ", -1)]
    after, events = resolve_recovery(DATA, state, "NEI-2.C", 4)
    assert events[0].text == "NEI-2.C in 1809 checks recovery: roll 4, -1 within command range of NEI-HQ = 3 (CS 1) -> remains disrupted"
    assert events[0].data["modified"] == 3 and not events[0].data["recovered"]
    assert after.piece("NEI-2.C").disrupted
    front = DATA.spec(replace(state.piece("NEI-2.C"), disrupted=False)).combat
    assert front == 3  # 15.0: 2.B defends with 3 -- so "exceeds its combat strength" reads the back


def test_15_0_3C_remains_disrupted():
    """15.0: "the Japanese player makes a recovery check, and 3.C in hex 1508
    remains disrupted." The roll is not given; ASSUMPTION: a 3, +1 for the
    EZOC of AUS B (disrupted units keep their ZOC, 8.0) = 4 > back CS 3."""
    state = example()
    assert recovery_drms(DATA, state, state.piece("3.C")) == [("in an enemy ZOC", 1)]
    after, events = resolve_recovery(DATA, state, "3.C", 3)
    assert after.piece("3.C").disrupted and events[0].text.endswith("= 4 (CS 3) -> remains disrupted")


def test_15_0_candidates_are_every_disrupted_unit_of_the_side():
    state = example()
    assert sorted(p.id for p in recovery_candidates(DATA, state, ALLIED)) == ["AUS-B", "NEI-2.C"]
    assert [p.id for p in recovery_candidates(DATA, state, JAPANESE)] == ["3.C"]


# --------------------------------------------------------------------------- 12.0


def test_12_0_a_natural_1_always_recovers():
    """12.0: "Recovery succeeds if the unmodified roll is a [1]" -- here
    modified to 2, above the disrupted CS 1."""
    state = position(positions={"NEI-2.C": "1609", "3.A": "1508"}, disrupted=["NEI-2.C"])
    assert recovery_drms(DATA, state, state.piece("NEI-2.C")) == [("in an enemy ZOC", 1)]
    after, events = resolve_recovery(DATA, state, "NEI-2.C", 1)
    assert not after.piece("NEI-2.C").disrupted
    assert events[0].text == "NEI-2.C in 1609 checks recovery: roll 1, +1 in an enemy ZOC = 2 (CS 1) -> a natural 1: recovers"
    after, _ = resolve_recovery(DATA, state, "NEI-2.C", 2)
    assert after.piece("NEI-2.C").disrupted


def test_12_0_artillery_recovers_against_its_bombardment_strength():
    """12.0: "the unit's CS (or bombardment strength)": NEI-Art's back has
    CS 1 and bombardment 2, so a 2 recovers it."""
    state = position(positions={"NEI-Art": "0812"}, disrupted=["NEI-Art"])
    after, events = resolve_recovery(DATA, state, "NEI-Art", 2)
    assert not after.piece("NEI-Art").disrupted and events[0].text.endswith("(bombardment strength 2) -> recovers")


def test_12_0_hq_modifier_needs_the_hq_on_the_map_and_in_command_range():
    """12.0: "within the command range of a friendly HQ": on the map, hex
    distance at most its command range (2), only one -1, an enemy HQ never."""
    doc = dict(positions={"NEI-2.C": "1809"}, disrupted=["NEI-2.C"])
    far = position(**{**doc, "positions": {**doc["positions"], "NEI-HQ": "1611"}})  # 3 hexes
    assert M.hex("1611").distance(M.hex("1809")) == 3
    assert recovery_drms(DATA, far, far.piece("NEI-2.C")) == []
    gone = position(**{**doc, "positions": {**doc["positions"], "NEI-HQ": "eliminated"}})
    assert recovery_drms(DATA, gone, gone.piece("NEI-2.C")) == []
    both = position(**{**doc, "positions": {**doc["positions"], "NEI-HQ": "1709", "AUS-HQ": "1810"}})
    assert recovery_drms(DATA, both, both.piece("NEI-2.C")) == [("within command range of NEI-HQ", -1)]
    enemy = position(**{**doc, "positions": {**doc["positions"], "228-HQ": "1908"}})
    assert recovery_drms(DATA, enemy, enemy.piece("NEI-2.C")) == []


def test_12_0_the_japanese_do_not_recover_on_turns_1_and_2():
    """12.0: "Exception: the Japanese player may not make recovery checks on
    turns 1 and 2." The Allies may."""
    for turn in (1, 2):
        state = position(turn=turn, positions={"3.C": "1508", "AUS-B": "1810"}, disrupted=["3.C", "AUS-B"])
        assert recovery_candidates(DATA, state, JAPANESE) == []
        assert [p.id for p in recovery_candidates(DATA, state, ALLIED)] == ["AUS-B"]
        with pytest.raises(IllegalOrderError, match=rf"12\.0: the Japanese may not make recovery checks on turn {turn}"):
            resolve_recovery(DATA, state, "3.C", 1)
    state = position(turn=3, positions={"3.C": "1508"}, disrupted=["3.C"])
    assert [p.id for p in recovery_candidates(DATA, state, JAPANESE)] == ["3.C"]


def test_12_0_only_disrupted_units_on_the_map_check():
    state = position(positions={"3.C": "1508", "3.A": "eliminated"}, disrupted=["3.A"])
    assert recovery_candidates(DATA, state, JAPANESE) == []
    with pytest.raises(IllegalOrderError, match=r"12\.0: 3\.C is not disrupted"):
        resolve_recovery(DATA, state, "3.C", 1)
    with pytest.raises(IllegalOrderError, match=r"12\.0: 3\.A is not on the map"):
        resolve_recovery(DATA, state, "3.A", 1)


def test_13_0_out_of_supply_units_never_recover():
    """13.0: an out-of-supply unit "becomes disrupted, and cannot recover for
    the rest of the game." """
    state = position(turn=8, positions={"3.C": "1508", "3.B": "1509"}, disrupted=["3.C", "3.B"])
    state = state.with_piece(replace(state.piece("3.C"), oos=True))
    assert [p.id for p in recovery_candidates(DATA, state, JAPANESE)] == ["3.B"]
    with pytest.raises(IllegalOrderError, match=r"13\.0: 3\.C was out of supply and cannot recover"):
        resolve_recovery(DATA, state, "3.C", 1)


def test_12_0_disrupted_units_in_a_landing_box_make_a_recovery_check_too():
    """12.0: "every disrupted unit makes a recovery check" -- 3.A, disrupted in
    a failed opposed landing, is still in its First Wave box (6.3)."""
    from pbem.engine.machine import MessageEnd

    state = position(phase="allied-combat", positions={"3.A": "fw-laha", "3.B": "1509", "NEI-1.A": "0713"},
                     disrupted=["3.A", "3.B"])
    assert [p.id for p in recovery_candidates(DATA, state, JAPANESE)] == ["3.A", "3.B"]
    state, events = GAME.apply(state, MessageEnd(ALLIED, 5))
    assert "recovery checks for 3.A, 3.B" in [e.text for e in events]


def test_12_0_off_the_map_no_ezoc_and_no_command_range_modifier_applies():
    """A landing box is no hex: no enemy ZOC reaches it, and no HQ's command
    range (counted in hexes, 2.2.1) covers it -- not even the regimental HQ's
    in the same box."""
    state = position(positions={"3.A": "fw-laha", "228-HQ": "fw-laha", "NEI-1.A": "0713"}, disrupted=["3.A"])
    assert recovery_drms(DATA, state, state.piece("3.A")) == []
    state, events = resolve_recovery(DATA, state, "3.A", 3)  # back CS 3: a 3 recovers
    assert events[0].text == "3.A in fw-laha checks recovery: roll 3 (CS 3) -> recovers"
    assert not state.piece("3.A").disrupted
