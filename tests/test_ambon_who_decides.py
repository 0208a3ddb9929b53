"""Who decides (11.0, 11.1, 11.3, 14.1): every choice the rules give a
player after a die is that player's -- asked in their next message unless a
standing instruction answers it -- and the combats of a phase are resolved
in the order they were declared, each choice made before the next combat.
Positions are referee scenarios; dice are given."""

from __future__ import annotations

import pytest

from pbem.engine.machine import DecisionDue, DiceDue, DiceRolled, MessageEnd, Ordered, replace
from pbem.errors import IllegalOrderError, InputError
from pbem.games.ambon import GAME, phases
from pbem.games.ambon.state import ALLIED, ELIMINATED, JAPANESE, CombatStage

# NEI-1.B in 1511 attacked from Halong (1611) by 1.A and 1.B; NEI-1.C in 1512
# attacked by 2.A from 1513; Ambon (1412) held by 1.C.
BUSY = dict(positions={"1.A": "1611", "1.B": "1611", "1.C": "1412", "2.A": "1513", "NEI-1.B": "1511",
                       "NEI-1.C": "1512"})
ATTACKS = [{"attack": "1511", "with": ["1.A", "1.B"]}, {"attack": "1512", "with": ["2.A"]}]


def position(standing, **doc):
    doc.setdefault("turn", 3)
    doc.setdefault("phase", "japanese-combat")
    state = GAME.scenario_state(doc)
    for side, table in standing.items():
        state = replace(state, standing=state.standing.updated(side, table))
    return state


def message(state, side, seq, orders=(), standing=None):
    """``side``'s message ``seq``: its orders, then its end."""
    doc = {"order": list(orders), **({"standing": standing} if standing else {})}
    events = []
    for i, order in enumerate(GAME.parse_orders(doc, side).public):
        state, more = GAME.apply(state, Ordered(side, seq, i, order))
        events += more
    state, more = GAME.apply(state, MessageEnd(side, seq))
    return state, [e.text for e in events + more]


def roll(state, label, die):
    state, events = GAME.apply(state, DiceRolled(label, (die,)))
    return state, [e.text for e in events]


def decisions(state):
    return [d for d in GAME.awaiting(state) if isinstance(d, DecisionDue)]


def test_11_0_combats_are_resolved_in_declared_order_with_the_choices_between_them():
    """11.0 (each combat "is resolved in the following steps"): the combat at
    1511, declared first, waits for the Allied choice of its r; the die of
    1512 is known, but it is applied only once 1511 is resolved -- and
    NEI-1.B may not retreat into 1512 meanwhile (11.3: a hex of defenders
    in an unresolved combat)."""
    state = position({ALLIED: {"hq-support": "never"}, JAPANESE: {"advance": "never"}}, **BUSY)
    state, _ = message(state, JAPANESE, 5, ATTACKS)
    state, t = roll(state, "combat 1511", 3)  # 12 against 3 = 4:1, 3 -> 1/1r
    assert "combat at 1511: 12 against 3 = 4:1; roll 3 -> 1/1r; counted: 1.A 6 + 1.B 6 = 12 against NEI-1.B 3 = 3" in t
    assert [(d.side, d.kind) for d in decisions(state)] == [(ALLIED, "losses")]
    assert not state.piece("NEI-1.B").disrupted  # its hit is applied with its retreat, once the owner has answered
    state, t = roll(state, "combat 1512", 1)
    assert t == ["combat at 1512: roll 1, applied once the combat at 1511, declared before it, is resolved (11.0)"]
    assert state.piece("NEI-1.C").where == "1512" and not state.piece("2.A").disrupted
    assert phases.blocker(GAME.data, state) == "allied has not chosen the losses and retreats of the combat at 1511 (11.3)"
    state, t = message(state, ALLIED, 6, [{"retreat": "retreat"}])
    assert t[0] == "allied chooses at 1511: answers the retreat: retreat"
    assert "defender hit: NEI-1.B is disrupted" in t
    assert "NEI-1.B retreats to 1612 into an enemy ZOC" in t  # 1512 was still to be fought: not a retreat hex
    assert state.piece("NEI-1.B").where == ELIMINATED  # disrupted, then the extra hit of the EZOC
    # then the attacker's results (11.0): 1.A or 1.B takes the Japanese hit, the Japanese choice
    assert not any(x.startswith("combat at 1512: 6") for x in t)
    assert [(d.side, d.kind, d.options) for d in decisions(state)] == [(JAPANESE, "losses", ("1.A", "1.B"))]
    state, t = message(state, JAPANESE, 7, [{"losses": ["1.B"], "target": "1511"}])
    assert t[:2] == ["japanese chooses at 1511: the hits go to 1.B", "attacker hit: 1.B is disrupted (owner's choice)"]
    line = next(x for x in t if x.startswith("combat at 1512"))
    assert line.startswith("combat at 1512: 6 against 3 = 2:1; roll 1 -> 1/0")
    assert all(b.stage is CombatStage.DONE for b in state.battles)


def test_11_3_a_refused_r_is_the_owners_answer_and_says_so():
    state = position({ALLIED: {"hq-support": "never"}, JAPANESE: {"advance": "never"}}, **BUSY)
    state, _ = message(state, JAPANESE, 5, ATTACKS[:1])
    state, _ = roll(state, "combat 1511", 3)
    with pytest.raises(IllegalOrderError, match="11.3: losses at 1511: 'NEI-1.C' is not one of the units that "
                                                "took part \\(NEI-1.B\\)"):
        message(state, ALLIED, 6, [{"losses": ["NEI-1.C"]}])
    with pytest.raises(IllegalOrderError, match="11.3: retreat at 1511: to = '1612': NEI-1.B may retreat only into "
                                                "1512 \\(the one hex 11.3 allows\\)"):
        message(state, ALLIED, 6, [{"retreat": "retreat", "to": "1612"}])  # 1612 is in the attackers' ZOC
    state, t = message(state, ALLIED, 6, [{"retreat": "hit"}])
    assert "refusing the retreat (owner's choice): extra hit: NEI-1.B is eliminated" in t


def test_11_3_a_message_that_leaves_the_choice_open_decides_nothing():
    """Nothing is chosen for the owner: a message of theirs without the
    answer leaves the combat waiting (and says so), however long it takes."""
    state = position({ALLIED: {"hq-support": "never"}, JAPANESE: {"advance": "never"}}, **BUSY)
    state, _ = message(state, JAPANESE, 5, ATTACKS[:1])
    state, _ = roll(state, "combat 1511", 3)
    for seq, side in ((6, ALLIED), (7, JAPANESE), (8, ALLIED)):
        state, t = message(state, side, seq)
        assert not any("retreats" in x or "hit:" in x for x in t)
        assert [(d.side, d.kind) for d in decisions(state)] == [(ALLIED, "losses")]
    assert state.phase == "japanese-combat"
    state, t = message(state, ALLIED, 10, standing={"retreat": "retreat"})
    assert "combat at 1511: allied's open choice is made by the standing instructions they have just given" in t


def test_11_3_the_open_choice_is_a_decision_of_the_owner_for_pbem_watch_and_the_template():
    state = position({ALLIED: {"hq-support": "never"}, JAPANESE: {"advance": "never"}}, **BUSY)
    state, _ = message(state, JAPANESE, 5, ATTACKS[:1])
    state, _ = roll(state, "combat 1511", 3)
    assert any("1511" in d and "11.3" in d for d in GAME.decisions(state, ALLIED))
    from pbem.engine import contract

    # pbem watch (app.watch.decisions_of) writes no message that decides something: this one waits for the player
    assert contract.decisions_for(GAME, state, ALLIED, closing=False)
    assert not any("11.3" in d for d in GAME.decisions(state, JAPANESE))
    out = GAME.orders_template(state, ALLIED, {})
    decision = next(d for d in out.choices["decisions"] if d["kind"] == "losses")
    assert decision["target"] == "1511" and decision["retreat"] == "r" and decision["hexes"] == {"NEI-1.B": ["1512"]}
    text = "\n".join(line for s in out.sections for line in s.notes)
    assert 'retreat = "retreat" or "hit" (refuse the r with an extra hit)' in text
    assert "waits for your message" in text


def test_11_3_standing_losses_are_a_list_of_units_ending_with_a_policy_if_the_owner_wants_one():
    parsed = GAME.parse_orders({"standing": {"losses": ["3.C", "3.A", "protect-hq"]}}, JAPANESE).public
    assert parsed == ({"type": "standing", "losses": "3.C 3.A protect-hq"},)
    with pytest.raises(InputError, match="standing.losses: 'protect-hq 3.C': units in the order they take hits, "
                                         "ending, if you want one, with the policy \"protect-hq\" \\(11.3\\)"):
        GAME.parse_orders({"standing": {"losses": "protect-hq 3.C"}}, JAPANESE)
    assert GAME.parse_orders({"standing": {"retreat-to": ["1708", "toward-friends"]}}, ALLIED).public == (
        {"type": "standing", "retreat-to": "1708 toward-friends"},)


def test_11_3_a_loss_order_that_names_none_of_the_units_leaves_the_choice_to_the_owner():
    """losses = "3.C" with 3.C not in the combat and no policy after it: the
    hit is asked (formerly a silent default policy took it)."""
    state = position({ALLIED: {"hq-support": "never", "losses": "protect-hq", "retreat": "retreat",
                               "retreat-to": "toward-friends"},
                      JAPANESE: {"advance": "never", "losses": "3.C"}}, **BUSY)
    state, _ = message(state, JAPANESE, 5, ATTACKS[:1])
    state, t = roll(state, "combat 1511", 3)  # 1/1r: a Japanese hit, 1.A or 1.B
    assert not any(x.startswith("attacker hit") for x in t)
    assert [(d.side, d.kind, d.options) for d in decisions(state)] == [(JAPANESE, "losses", ("1.A", "1.B"))]


# --------------------------------------------------------------------------- 11.1 and 14.1: before the dice

# 15.0's position with 14.1 in use and NEI-Art at Paso: the Allied artillery
# could bombard defensively, and NEI-HQ in 1708 could support the defence.
SUPPORTED = dict(turn=3, phase="japanese-combat", options=["14.1"],
                 positions={"3.A": "1509", "3.B": "1509", "NEI-2.B": "1609", "NEI-HQ": "1708", "NEI-Art": "1809"})


def test_11_1_hq_support_always_is_honoured_when_14_1_artillery_could_fire():
    """11.1 with 14.1: the standing "always" gives the support; the defensive
    fire the artillery may add keys the die by the Allied message."""
    state = position({ALLIED: {"hq-support": "always"}, JAPANESE: {"advance": "never"}}, **SUPPORTED)
    state, t = message(state, JAPANESE, 5, [{"attack": "1609", "with": ["3.A", "3.B"]}])
    assert "NEI-HQ supports the defence of 1609 (standing instruction)" in t
    assert state.battles[0].defender_hq == "NEI-HQ"
    assert decisions(state) == []  # no HQ question, least of all one with no HQ in it
    assert [(d.label, d.key_seq) for d in GAME.awaiting(state) if isinstance(d, DiceDue)] == [("combat 1609", 6)]
    assert "a defensive bombardment by NEI-Art (14.1)" in GAME.decisions(state, ALLIED)


def test_14_1_no_empty_hq_question_when_no_hq_can_support():
    state = position({JAPANESE: {"advance": "never"}}, **{**SUPPORTED, "positions": {
        **SUPPORTED["positions"], "NEI-HQ": "1016"}})
    state, t = message(state, JAPANESE, 5, [{"attack": "1609", "with": ["3.A", "3.B"]}])
    assert decisions(state) == [] and not any("may support" in x for x in t)


def test_14_1_defensive_bombardment_is_offered_only_between_the_declarations_and_the_dice():
    state = position({ALLIED: {"hq-support": "never"}, JAPANESE: {"advance": "never"}}, **SUPPORTED)
    assert not any("14.1" in d for d in GAME.decisions(state, ALLIED))  # no combat declared yet
    state, _ = message(state, JAPANESE, 5, [{"attack": "1609", "with": ["3.A", "3.B"]}])
    assert "a defensive bombardment by NEI-Art (14.1)" in GAME.decisions(state, ALLIED)
    state, _ = message(state, ALLIED, 6)  # the Allies let the moment pass
    assert not any("14.1" in d for d in GAME.decisions(state, ALLIED))
    with pytest.raises(IllegalOrderError, match="14.1: defensive bombardment is resolved before the combat ratio"):
        message(state, ALLIED, 8, [{"bombard": "NEI-Art", "target": "3.A"}])


def test_11_0_an_open_support_decision_keys_every_die_of_the_batch_by_the_defenders_message():
    """The issue's 0713/1511: one combat's support is asked, the other's is
    answered by nobody's HQ being near: neither die exists before the
    defender answers, so the answer is made knowing neither."""
    state = position({JAPANESE: {"advance": "never"}},
                     **{**BUSY, "positions": {**BUSY["positions"], "NEI-HQ": "1710"}})  # in range of 1511, not of 1512
    state, t = message(state, JAPANESE, 5, ATTACKS)
    due = GAME.awaiting(state)
    assert [d.kind for d in due if isinstance(d, DecisionDue)] == ["hq-support"]
    assert [(d.label, d.key_seq) for d in due if isinstance(d, DiceDue)] == [("combat 1512", 6)]


def test_11_3_the_typed_lines_of_pbem_play_and_pbem_solo_answer_the_choice():
    """At the terminal: ``losses UNIT ... [HEX]`` and ``retreat [hit] [to HEX ...] [HEX]``."""
    from pbem.games.ambon.solo import parse_line

    assert parse_line("losses NEI-2.B X2 1609") == {"losses": ["NEI-2.B", "X2"], "target": "1609"}
    assert parse_line("retreat hit 1609") == {"retreat": "hit", "target": "1609"}
    assert parse_line("retreat 1609 to 1708 1607") == {"retreat": "retreat", "to": "1708 1607", "target": "1609"}
    parsed = GAME.parse_orders({"order": [parse_line("retreat to 1708")]}, ALLIED).public
    assert parsed == ({"type": "retreat", "answer": "retreat", "to": "1708"},)


def test_14_3_a_forced_retreat_after_a_bombardment_is_its_owners_choice_of_hex():
    """14.3: "If the bombardment hits, those units must retreat": where, among
    the hexes 11.3 allows, is the owner's -- asked, since no message could
    answer before the die, and never chosen by pbem."""
    from pbem.games.ambon import rolls

    state = position({}, turn=3, phase="japanese-bombardment", options=["14.3"], disrupted=["NEI-1.B"],
                     positions={"1.A": "1611", "NEI-1.B": "1511"})
    state, events = rolls.forced_retreat(GAME.data, state, state.piece("NEI-1.B"))
    assert [e.text for e in events] == ["NEI-1.B must retreat from 1511 (14.3): its owner chooses the hex "
                                        "(1512 or 1412; 11.3)"]
    due = decisions(state)
    assert [(d.side, d.kind, d.options) for d in due] == [(ALLIED, "retreat", ("1512", "1412"))]
    assert phases.blocker(GAME.data, state) == "allied has not chosen where NEI-1.B retreats (14.3)"
    with pytest.raises(IllegalOrderError, match="14.3: NEI-1.B must retreat"):
        message(state, ALLIED, 6, [{"retreat": "hit"}])
    state, t = message(state, ALLIED, 6, [{"retreat": "retreat", "to": "1412"}])
    assert t[:2] == ["allied chooses where NEI-1.B retreats from 1511: 1412", "NEI-1.B retreats to 1412 (owner's choice)"]
    assert state.piece("NEI-1.B").where == "1412" and not state.pending_retreats


def test_11_4_an_advance_the_attackers_own_answer_opens_waits_for_their_next_message():
    """The attacker answers their 11.3 choice; the defender's hex is then
    empty, and the advance (11.4) is theirs to decide -- a decision their
    message never showed them, so its end does not decline it for them."""
    state = position({ALLIED: {"hq-support": "never", "losses": "protect-hq", "retreat": "retreat",
                               "retreat-to": "toward-friends"}}, **BUSY)
    state, _ = message(state, JAPANESE, 5, ATTACKS[:1])
    state, _ = roll(state, "combat 1511", 3)  # 1/1r: NEI-1.B retreats, 1.A or 1.B takes the hit
    assert [(d.side, d.kind) for d in decisions(state)] == [(JAPANESE, "losses")]
    state, _ = message(state, ALLIED, 6)
    state, t = message(state, JAPANESE, 7, [{"losses": ["1.B"]}])
    assert not any("no unit advances" in x for x in t)
    assert [(d.side, d.kind, d.options) for d in decisions(state)] == [(JAPANESE, "advance", ("1.A",))]
    state, _ = message(state, ALLIED, 8)
    state, t = message(state, JAPANESE, 9)  # seen and left open this time: declined
    assert "no unit advances into 1511 (the advance decision was left open)" in t
