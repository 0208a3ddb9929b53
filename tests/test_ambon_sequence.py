"""The sequence of play as played (5.0, 6.0-6.4, 14.2, 3.2, 13.0): every
landing combat of a Landing Phase is fought, no landing is skipped unless
postponed, every phase a message passes leaves an event, and referee
positions state open decisions and OOS markers.

Each of the first tests reproduces a bug seen in played games (issue 13)."""

from __future__ import annotations

import pytest

from pbem.engine import referee
from pbem.engine.machine import DecisionDue, DiceDue, DiceRolled, MessageEnd, Opened, Ordered
from pbem.errors import IllegalOrderError, InputError
from pbem.games.ambon import GAME, sequence, setup
from pbem.games.ambon.sequence import Phase
from pbem.games.ambon.state import ALLIED, ELIMINATED, JAPANESE, OFF_MAP


#: 11.3's choices made by standing instructions (the shipped policies), so that
#: these tests of the sequence of play need no answering messages
CHOSEN = {side: {"losses": "protect-hq", "retreat": "retreat", "retreat-to": "toward-friends"}
          for side in ("allied", "japanese")}


def position(**doc):
    doc.setdefault("standing", CHOSEN)
    return GAME.scenario_state(doc)


def order(state, side, seq, *orders):
    events = []
    for i, o in enumerate(orders):
        for public in GAME.parse_orders({"order": [o]}, side).public:
            state, more = GAME.apply(state, Ordered(side, seq, i, public))
            events += more
    return state, events


def end(state, side, seq):
    return GAME.apply(state, MessageEnd(side, seq))


def roll(state, label, die):
    return GAME.apply(state, DiceRolled(label, (die,)))


def texts(events):
    return [e.text for e in events]


def dice_due(state):
    return [d for d in GAME.awaiting(state) if isinstance(d, DiceDue)]


TWO_BEACHES = dict(turn=2, phase="japanese-landing", positions={
    "3.A": "fw-laha", "3.B": "fw-laha", "1.A": "fw-hitu-lama", "1.B": "fw-hitu-lama",
    "NEI-1.A": "0713", "AUS-A": "1402"})


# --------------------------------------------------------------------------- 6.3 every landing combat is fought


def test_6_3_every_landing_combat_of_the_phase_is_fought_each_with_its_own_die():
    """6.3: "If the result is 'Landing combat,' all units attempting the
    landing must fight the units on the beach."  Two landings that both roll
    a landing combat in one batch of dice: both are fought (the bug: the
    second overwrote the first, whose units never fought)."""
    state, _ = order(position(**TWO_BEACHES), JAPANESE, 5, {"land": "fw-laha"}, {"land": "fw-hitu-lama"})
    state, _ = end(state, JAPANESE, 5)
    assert [d.label for d in dice_due(state)] == ["landing laha", "landing hitu-lama"]
    state, _ = roll(state, "landing laha", 6)
    state, _ = roll(state, "landing hitu-lama", 6)
    assert [lc.lane for lc in state.landing_combats] == ["laha", "hitu-lama"]
    assert [d.label for d in dice_due(state)] == ["landing combat laha", "landing combat hitu-lama"]
    state, first = roll(state, "landing combat laha", 5)
    state, second = roll(state, "landing combat hitu-lama", 5)
    assert any(t.startswith("landing combat on 0713 at 1 CS: 12 against 3 = 4:1; roll 5 -> 0/2") for t in texts(first))
    assert any(t.startswith("landing combat on 1402 at 1 CS") for t in texts(second))
    assert state.piece("3.A").where == "0713" and state.piece("1.A").where == "1402"
    assert state.landing_combats == () and state.phase == Phase.J_MOVEMENT


def test_6_3_landing_combats_are_resolved_in_the_order_of_the_land_orders():
    """The Japanese player chooses the order of the landing combats by the
    order of the land orders (the default: the order of the landings)."""
    state, _ = order(position(**TWO_BEACHES), JAPANESE, 5, {"land": "fw-hitu-lama"}, {"land": "fw-laha"})
    state, _ = end(state, JAPANESE, 5)
    for d in dice_due(state):
        state, _ = roll(state, d.label, 6)
    assert [d.label for d in dice_due(state)] == ["landing combat hitu-lama", "landing combat laha"]


HQ_BETWEEN = dict(turn=2, phase="japanese-landing", positions={
    "3.A": "fw-amahusu", "3.B": "fw-amahusu", "1.A": "fw-ambon", "1.B": "fw-ambon",
    "AUS-B": "1213", "NEI-2.A": "1511", "AUS-HQ": "1412"})


def test_6_3_11_1_each_landing_combat_has_its_own_hq_support_decision_and_an_hq_supports_one():
    """11.1 in 6.3's landing combats: the Allies decide HQ support for each
    combat before its die; one HQ supports one combat a phase; a decision
    left open in the Allies' message is declined."""
    state, _ = order(position(**HQ_BETWEEN), JAPANESE, 5, {"land": "fw-amahusu"}, {"land": "fw-ambon"})
    state, _ = end(state, JAPANESE, 5)
    for d in dice_due(state):
        state, _ = roll(state, d.label, 6)
    decisions = [d for d in GAME.awaiting(state) if isinstance(d, DecisionDue)]
    assert [(d.kind, d.prompt) for d in decisions] == [
        ("hq-support", "support the defence of 1213?"), ("hq-support", "support the defence of 1511?")]
    assert not dice_due(state)
    state, _ = end(state, JAPANESE, 6)  # the Japanese message in between carries nothing
    with pytest.raises(IllegalOrderError, match=r"11\.1: say which landing combat the support is for .*1213, 1511"):
        order(state, ALLIED, 7, {"support": "AUS-HQ"})
    state, events = order(state, ALLIED, 7, {"support": "AUS-HQ", "target": "1511"})
    assert texts(events) == ["AUS-HQ supports the defence of 1511"]
    with pytest.raises(IllegalOrderError, match=r"11\.1: AUS-HQ cannot support the combat at 1213 \(may: none\)"):
        order(state, ALLIED, 7, {"support": "AUS-HQ", "target": "1213"})
    state, events = end(state, ALLIED, 7)
    assert "no Allied HQ supports the defence of 1213" in texts(events)
    assert [(d.label, d.key_seq) for d in dice_due(state)] == [("landing combat amahusu", 7), ("landing combat ambon", 7)]
    assert [lc.defender_hq for lc in state.landing_combats] == ["", "AUS-HQ"]


def test_6_4_a_beach_still_held_after_its_landing_combat_keeps_the_second_wave_waiting():
    """6.3: "If the landing hex does not become empty, the units that
    attempted the landing remain in the First Wave box"; 6.4: "if any
    non-artillery unit remains in the First Wave box, the Second Wave units
    must wait in the Second Wave box"."""
    doc = dict(TWO_BEACHES)
    doc["positions"] = {**TWO_BEACHES["positions"], "2.A": "sw-laha", "2.B": "sw-hitu-lama"}
    state, _ = order(position(**doc), JAPANESE, 5, {"land": "fw-laha"}, {"land": "fw-hitu-lama"})
    state, _ = end(state, JAPANESE, 5)
    state, _ = roll(state, "landing laha", 2)  # 1/4 CS: 3 against 3 = 1:1
    state, _ = roll(state, "landing hitu-lama", 6)
    state, laha = roll(state, "landing combat laha", 1)
    state, hitu = roll(state, "landing combat hitu-lama", 6)
    assert "0713 is still held: the landing units stay in fw-laha" in texts(laha)
    events = texts(hitu)
    assert "the Second Wave in sw-laha waits: 3.A is still in fw-laha" in events
    assert "2.B move up to fw-hitu-lama" in events
    assert state.piece("2.A").where == "sw-laha" and state.piece("2.B").where == "fw-hitu-lama"


# --------------------------------------------------------------------------- 6.0 no silent skips


def test_6_0_a_landing_nobody_postponed_is_attempted_when_the_message_ends():
    """6.0: "If Japanese units are present in a First Wave box at the start
    of the Landing Phase, an attempt is made to land from that box" --
    landing is the rule, postponing the player's choice.  A Japanese message
    that passes the Landing Phase without orders attempts the landings."""
    state, events = end(position(**TWO_BEACHES), JAPANESE, 5)
    assert "no order postponed the landing from fw-laha: it is attempted (6.0)" in texts(events)
    assert "no order postponed the landing from fw-hitu-lama: it is attempted (6.0)" in texts(events)
    assert state.phase == Phase.LANDING
    assert [(d.label, d.key_seq) for d in dice_due(state)] == [("landing hitu-lama", 5), ("landing laha", 5)]


def test_6_0_orders_of_a_later_phase_before_the_landings_are_refused_naming_the_boxes():
    state = position(**TWO_BEACHES)
    with pytest.raises(IllegalOrderError, match=r"6\.0: order 1: the Landing Phase comes first: units in fw-hitu-lama, "
                                                 r"fw-laha attempt to land unless postponed"):
        order(state, JAPANESE, 5, {"move": "3.A: 0713 0813"})


def test_6_0_a_postponed_landing_stays_in_its_box_and_its_second_wave_waits():
    """6.0: "the Japanese player may always postpone a landing to the
    following turn"; 6.4: the Second Wave waits behind it; the postponed
    lane's mine box is not swept (no landing used it)."""
    doc = dict(TWO_BEACHES, mines={"M1": "mine-1"})
    doc["positions"] = {**TWO_BEACHES["positions"], "2.A": "sw-laha"}
    state, events = order(position(**doc), JAPANESE, 5, {"postpone": "fw-laha"}, {"postpone": "fw-hitu-lama"})
    assert texts(events) == ["the landing from fw-laha is postponed to the next turn",
                             "the landing from fw-hitu-lama is postponed to the next turn"]
    with pytest.raises(IllegalOrderError, match=r"6\.0: the landing from fw-laha has already been ordered or postponed"):
        order(state, JAPANESE, 5, {"land": "fw-laha"})
    state, events = end(state, JAPANESE, 5)
    assert "the Second Wave in sw-laha waits: 3.A is still in fw-laha" in texts(events)
    assert not any("minesweeping" in t for t in texts(events))
    assert state.phase == Phase.A_MOVEMENT and state.piece("3.A").where == "fw-laha"


def test_6_3_an_artillery_box_the_rules_keep_from_landing_is_not_attempted_by_default():
    state = position(turn=2, phase="japanese-landing", positions={"228-Art": "fw-laha", "NEI-1.A": "0713"})
    state, events = end(state, JAPANESE, 5)
    assert any(t.startswith("the landing from fw-laha is not made: artillery-type units may not make opposed landings")
               for t in texts(events))
    assert state.phase == Phase.A_MOVEMENT


def test_14_2_the_turn_2_landings_follow_the_revealed_note_and_are_not_skipped():
    """The reported silent skip: the message that reveals the 14.2 note in
    the turn-1 Recovery Phase went on to turn 2's Allied Movement Phase, the
    battalions never attempting a landing.  Now the turn-2 Landing Phase,
    which the reveal opened after the message was written, waits for the
    Japanese player's next message (5.0: no phase is passed unseen), whose
    end attempts every landing not postponed (6.0)."""
    battalions = {u: OFF_MAP for b in "23" for u in setup.BATTALIONS[b]}
    state = position(turn=1, phase="allied-combat", options=["14.2"], positions={**battalions, "1.A": "1402"})
    state, events = end(state, ALLIED, 8)
    assert "second-wave must be revealed (turn-1 Recovery Phase)" in texts(events)
    state, events = GAME.apply(state, Opened(JAPANESE, setup.SECOND_WAVE_SLOT, "2:laha 3:liang", 9))
    assert state.turn == 2 and state.phase == Phase.LANDING
    assert state.piece("2.A").where == "fw-laha" and state.piece("3.A").where == "fw-liang"
    revealed = state
    state, events = end(state, JAPANESE, 9)
    assert texts(events) == ["the Japanese Landing Phase of turn 2 began during this message, which gave no orders "
                             "for it: it waits for the Japanese player's next message"]
    assert state.phase == Phase.LANDING and not dice_due(state)
    state, _ = end(state, ALLIED, 10)
    state, events = end(state, JAPANESE, 11)
    said = texts(events)
    assert "no order postponed the landing from fw-laha: it is attempted (6.0)" in said
    assert "no order postponed the landing from fw-liang: it is attempted (6.0)" in said
    assert state.phase == Phase.LANDING and {d.label for d in dice_due(state)} == {"landing laha", "landing liang"}
    # the message that reveals may order the landings the reveal makes possible (pbem orders offers them)
    state, events = order(revealed, JAPANESE, 9, {"land": "fw-laha"}, {"postpone": "fw-liang"})
    state, more = end(state, JAPANESE, 9)
    assert [d.label for d in dice_due(state)] == ["landing laha"]
    assert "the landing from fw-liang is postponed to the next turn" in texts(events)


def test_5_0_a_phase_a_reveal_opens_waits_for_its_authors_next_message():
    """Found by the played-game driver: the Allied message that makes a
    reveal the Japanese Combat Phase waited for (8.0) ended that phase and
    then, at its end, passed the whole Allied Player Turn its author never
    saw.  The phase waits for the author's next message instead."""
    state = position(turn=3, phase="japanese-combat", concealed={"X1": "1708"},
                     positions={"3.A": "1608", "NEI-HQ": "1609", "NEI-2.B": "1611"},
                     standing={"japanese": {"advance": "always"}})
    state, _ = order(state, JAPANESE, 2, {"attack": "1609", "with": ["3.A"]})
    state, _ = end(state, JAPANESE, 2)
    state, _ = GAME.apply(state, Opened(ALLIED, "X1", "detachment", 3))
    state, events = end(state, ALLIED, 3)
    assert (state.turn, state.phase) == (3, Phase.A_MOVEMENT)
    assert "it waits for the Allied player's next message" in texts(events)[-1]
    state, _ = end(state, JAPANESE, 4)
    state, events = order(state, ALLIED, 5, {"move": "NEI-2.B: 1611 1612"})
    assert events[0].text.startswith("NEI-2.B moves 1611 1612")


# --------------------------------------------------------------------------- 5.0 every phase leaves an event


def test_5_0_every_phase_a_message_passes_leaves_an_event():
    """A game turn's log shows all of 5.0: each phase's beginning, and each
    phase in which nothing was done says so and why, citing the rule."""
    state = position(turn=3, phase="japanese-landing", positions={"3.A": "1608", "NEI-2.B": "1410"})
    state, japanese = end(state, JAPANESE, 5)
    state, allied = end(state, ALLIED, 6)
    said = texts(japanese + allied)
    phases = [e.data["phase"] for e in japanese + allied if e.rule == "5.0" and "phase" in e.data]
    assert phases == ["japanese-movement", "japanese-bombardment", "japanese-combat", "allied-movement",
                      "allied-bombardment", "allied-combat", "recovery", "japanese-landing"]
    skipped = [e.data["phase"] for e in japanese + allied if "skipped" in e.data]
    assert skipped == ["japanese-landing", "japanese-movement", "japanese-bombardment", "japanese-combat",
                       "allied-movement", "allied-bombardment", "allied-combat", "recovery"]
    assert "skipped: Japanese Landing Phase of turn 3: no Japanese unit is in a First Wave box (6.0)" in said
    assert "skipped: Allied Combat Phase of turn 3: no Allied combat was declared (11.0: attacking is never mandatory)" in said
    assert "turn 4 begins (31 January PM)" in said
    assert (state.turn, state.phase) == (4, Phase.LANDING)


def test_5_0_a_phase_with_orders_is_not_called_skipped():
    state = position(turn=3, phase="japanese-movement", positions={"3.A": "1608", "NEI-2.B": "1410"})
    state, events = order(state, JAPANESE, 5, {"move": "3.A: 1608 1607"})
    state, more = end(state, JAPANESE, 5)
    skipped = [e.data["phase"] for e in events + more if "skipped" in e.data]
    assert "japanese-movement" not in skipped and "japanese-combat" in skipped


def test_5_0_the_phases_a_message_may_cover():
    data = GAME.data
    assert sequence.phases_from(data, 3, Phase.LANDING, JAPANESE) == [
        Phase.LANDING, Phase.J_MOVEMENT, Phase.J_BOMBARDMENT, Phase.J_COMBAT]
    assert sequence.phases_from(data, 3, Phase.J_COMBAT, ALLIED) == []
    assert sequence.phases_from(data, 3, Phase.A_BOMBARDMENT, ALLIED) == [Phase.A_BOMBARDMENT, Phase.A_COMBAT]
    assert sequence.following(data, 7, Phase.RECOVERY) == (7, Phase.SUPPLY)
    assert sequence.following(data, 6, Phase.RECOVERY) == (7, Phase.LANDING)
    assert sequence.following(data, 10, Phase.RECOVERY) is None


def test_5_0_the_turn_track_is_checked_against_the_sequence():
    assert sequence.check_turn_phases(["japanese-landing", "japanese-movement", "japanese-bombardment",
                                       "japanese-combat", "allied-movement", "allied-bombardment",
                                       "allied-combat", "recovery", "supply-check"]) == ""
    assert "missing: recovery" in sequence.check_turn_phases(["japanese-landing", "japanese-movement",
                                                              "japanese-bombardment", "japanese-combat",
                                                              "allied-movement", "allied-bombardment", "allied-combat"])
    assert sequence.check_turn_phases(["recovery", "japanese-landing"]).startswith("each phase once, in the order of 5.0")
    assert sequence.check_turn_phases(["setup-allied"]).startswith("unknown phase 'setup-allied'")


# --------------------------------------------------------------------------- referee positions: 3.2 and 13.0


SURRENDER = dict(turn=8, phase="japanese-landing", surrender="open",
                 positions={"NEI-HQ": "1611", "AUS-HQ": "1215", "1.A": "1809"}, control={"1809": 4})


def test_3_2_a_position_states_an_open_surrender_decision_and_adjudicate_applies_it():
    state = position(**SURRENDER)
    assert [d.kind for d in GAME.awaiting(state)] == ["surrender"]
    result = referee.adjudicate(GAME, state, ALLIED, {"order": [{"surrender": "yes"}]}, [])
    said = texts(result.events)
    assert "the Allies surrender at the start of turn 8; the game ends" in said
    assert result.state.phase == Phase.GAME_OVER and result.state.surrendered
    assert any(item == ("Allied surrender (3.2)", 5) or "surrender" in item[0].lower()
               for item in result.events[-1].data["breakdown"])
    fought = referee.adjudicate(GAME, position(**SURRENDER), ALLIED, {"order": [{"surrender": "no"}]}, [])
    assert "the Allies fight on" in texts(fought.events) and fought.state.phase != Phase.GAME_OVER


@pytest.mark.parametrize("doc, message", [
    (dict(SURRENDER, turn=7), r"3\.2 offers the surrender at the start of turn 8 .* this position is turn 7"),
    (dict(SURRENDER, phase="japanese-movement"), r"this position is turn 8, japanese-movement"),
    (dict(SURRENDER, positions={"1.A": "1809"}), r"with an Allied HQ on the map"),
    (dict(SURRENDER, surrender="yes"), r'surrender = \'yes\': the only value is "open"'),
])
def test_3_2_an_open_surrender_the_rules_do_not_offer_is_refused(doc, message):
    with pytest.raises(InputError, match=message):
        position(**doc)


def test_13_0_a_position_states_oos_units_and_they_never_recover():
    """13.0: a unit out of supply "becomes disrupted, and cannot recover for
    the rest of the game"; 12.0's checks leave it out."""
    state = position(turn=8, phase="allied-combat", oos=["2.A"], disrupted=["2.B"],
                     positions={"2.A": "1608", "2.B": "1607", "NEI-2.A": "1410"})
    assert state.piece("2.A").oos and state.piece("2.A").disrupted
    result = referee.adjudicate(GAME, state, ALLIED, {"order": []}, [1])  # one recovery die: 2.B's only
    said = texts(result.events)
    assert "recovery checks for 2.B" in said
    assert result.state.piece("2.A").disrupted and not result.state.piece("2.B").disrupted
    assert GAME.view(result.state, ALLIED)["units"][[u["id"] for u in GAME.view(result.state, ALLIED)["units"]].index("2.A")]["oos"]


@pytest.mark.parametrize("doc, message", [
    (dict(oos=["NEI-2.A"], positions={"NEI-2.A": "1410"}), r"oos 'NEI-2\.A': an OOS marker goes on a Japanese unit on the map"),
    (dict(oos=["2.A"], positions={"2.A": "fw-laha"}), r"oos '2\.A'"),
    (dict(oos=["2.A"], positions={}), r"oos '2\.A'"),
])
def test_13_0_an_oos_marker_off_the_map_or_on_an_allied_unit_is_refused(doc, message):
    with pytest.raises(InputError, match=message):
        position(turn=8, phase="allied-combat", **doc)


def test_6_5_units_still_to_land_are_eliminated_when_the_beach_is_captured():
    state = position(turn=3, phase="allied-movement", beachheads=["0713"],
                     positions={"3.A": "fw-laha", "AUS-D": "0813"})
    state, events = order(state, ALLIED, 6, {"move": "AUS-D: 0813 0713"})
    assert "3.A could still land there and are eliminated" in texts(events)
    assert state.piece("3.A").where == ELIMINATED


def test_5_0_14_2_the_template_lists_the_phases_the_message_covers_after_its_own_reveals():
    """``pbem orders`` lists every phase the next message can cover; the
    message's reveals come before its orders, so the 14.2 note owed in the
    turn-1 Recovery Phase opens turn 2's Landing Phase for this message."""
    from pbem.games.ambon import template

    battalions = {u: OFF_MAP for b in "23" for u in setup.BATTALIONS[b]}
    state = position(turn=1, phase="allied-combat", options=["14.2"], positions={**battalions, "1.A": "1402"})
    state, _ = end(state, ALLIED, 8)
    out = template.sections(GAME, state, JAPANESE, {setup.SECOND_WAVE_SLOT: "2:laha 3:liang"})
    assert out.choices["phases"] == ["japanese-landing", "japanese-movement", "japanese-bombardment", "japanese-combat"]
    assert ("after your reveals the game goes on to the Japanese Landing Phase of turn 2: you may give its orders in "
            "this message (below); without them it waits for your next one") in out.awaited
    landings = next(s for s in out.sections if s.title.startswith("Landings"))
    assert any("fw-laha" in line for line in landings.notes) and any("fw-liang" in line for line in landings.notes)
    allied = template.sections(GAME, state, ALLIED, {})
    assert allied.choices.get("phases", []) == [] and not any("2:laha" in a for a in allied.awaited)


def test_10_0_a_second_bombardment_of_a_unit_the_first_disrupted_in_the_same_batch_has_no_effect():
    """Found by the played-game driver: two bombardments of one unit
    declared in one message are rolled together; when the first disrupts
    it, the second "may not bombard a unit that is already disrupted" and
    has no effect -- pbem refused the die, and the receiver could not take
    in the message at all."""
    state = position(turn=3, phase="japanese-bombardment", positions={"3.D": "1507", "2.D": "1507", "NEI-2.B": "1609"})
    state, _ = order(state, JAPANESE, 5, {"bombard": "3.D", "target": "NEI-2.B"}, {"bombard": "2.D", "target": "NEI-2.B"})
    state, _ = end(state, JAPANESE, 5)
    assert [d.label for d in dice_due(state)] == ["bombard 3.D", "bombard 2.D"]
    state, first = roll(state, "bombard 3.D", 1)
    state, second = roll(state, "bombard 2.D", 1)
    assert "3.D bombards NEI-2.B in 1609: roll 1 (bombardment 2) -> NEI-2.B is disrupted" in texts(first)
    assert texts(second)[0].startswith("2.D's bombardment of NEI-2.B: roll 1 -> no effect, the target can no longer "
                                       "be bombarded (NEI-2.B is already disrupted")
    assert state.piece("2.D").bombarded and not state.bombardments


def test_3_2_13_0_pbem_adjudicate_reads_an_open_surrender_and_oos_markers(tmp_path):
    """`pbem adjudicate` with a position that states the open 3.2 decision
    and 13.0 OOS markers: the Allies surrender, and the verdict counts 3.2's
    VP; a bad value is an input error naming the key."""
    from click.testing import CliRunner

    from pbem.cli import main

    scenario = tmp_path / "turn-8.toml"
    scenario.write_text('turn = 8\nphase = "japanese-landing"\nsurrender = "open"\noos = ["2.A"]\n'
                        '[positions]\n"NEI-HQ" = "1611"\n"2.A" = "1608"\n"1.A" = "1809"\n[control]\n"1809" = 4\n')
    orders = tmp_path / "orders.toml"
    orders.write_text('[[order]]\nsurrender = "yes"\n')
    r = CliRunner().invoke(main, ["adjudicate", "--game", "ambon", "--scenario", str(scenario), "--as", "allied",
                                  "--orders", str(orders), "--json"], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    assert "the Allies surrender at the start of turn 8; the game ends" in r.output
    assert '"oos": true' in r.output
    scenario.write_text(scenario.read_text().replace('surrender = "open"', 'surrender = "maybe"'))
    r = CliRunner().invoke(main, ["adjudicate", "--game", "ambon", "--scenario", str(scenario), "--as", "allied",
                                  "--orders", str(orders)])
    assert r.exit_code == 2 and "surrender = 'maybe': the only value is \"open\"" in r.output
