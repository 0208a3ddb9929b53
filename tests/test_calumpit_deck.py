"""EVENT CARDS: the 2D6 trigger rule for all 36 outcomes, draws that come
only from the cards left (a chi-square test with the protocol's own dice),
and cards that leave the deck."""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import replace

import pytest

from pbem.engine.machine import DiceDue, DiceRolled, Ordered
from pbem.engine.referee import adjudicate
from pbem.games.calumpit import GAME
from pbem.games.calumpit.state import DrawDue
from pbem.games.calumpit.tables import event_check
from pbem.protocol.dice import roll


def expected_decks(a: int, b: int) -> tuple[str, ...]:
    """The rule as the text states it: 7 black; 3, 10, 11 one of each; doubles red (5+5 is a ten)."""
    total = a + b
    if total in (3, 10, 11):
        return ("red", "black")
    if total == 7:
        return ("black",)
    if a == b:
        return ("red",)
    return ()


OUTCOMES = [(a, b) for a in range(1, 7) for b in range(1, 7)]


@pytest.mark.parametrize("a, b", OUTCOMES)
def test_event_cards_trigger_rule_all_36_outcomes(a, b):
    assert event_check(GAME.data.tables, a, b) == expected_decks(a, b)


def test_event_cards_trigger_rule_counts():
    draws = Counter(event_check(GAME.data.tables, a, b) for a, b in OUTCOMES)
    assert draws[("black",)] == 6          # every 7
    assert draws[("red",)] == 5            # 1+1, 2+2, 3+3, 4+4, 6+6 (5+5 is a ten)
    assert draws[("red", "black")] == 2 + 3 + 2   # 3 (1+2, 2+1), 10 (4+6, 5+5, 6+4), 11 (5+6, 6+5)
    assert draws[()] == 36 - 6 - 5 - 7


@pytest.mark.parametrize("a, b", OUTCOMES)
def test_event_cards_checked_at_the_end_and_start_of_the_turn(a, b):
    """Through the engine: the end-of-turn check draws exactly as the rule says
    (a one-card deck needs no draw die; HJ and S5 roll nothing)."""
    scen = {"red": ["HJ"], "black": ["S5"], "done": ["japanese"]}
    r = adjudicate(GAME, GAME.scenario_state(scen), "american", {"order": [{"type": "done"}]}, [a, b, 1, 4])
    drawn = [card for card, turn, when in r.state.drawn if when == "end"]
    assert drawn == [{"red": "HJ", "black": "S5"}[d] for d in expected_decks(a, b)]
    assert r.state.turn == 2
    checks = [e.data for e in r.events if e.rule == "EVENT CARDS" and "when" in e.data]
    assert [c["when"] for c in checks] == ["end", "start"]


def protocol_dice(key: bytes, label: str, count: int, sides: int) -> tuple[int, ...]:
    return roll(key, label, count, sides)


def resolve(state, key: bytes):
    """Feed every due roll from the protocol's dice (as the match layer does)."""
    events = []
    while True:
        due = [d for d in GAME.awaiting(state) if isinstance(d, DiceDue)]
        if not due:
            return state, events
        d = due[0]
        state, more = GAME.apply(state, DiceRolled(d.label, protocol_dice(key, d.label, d.count, d.sides)))
        events += more


REMAINING = ["S5", "S6", "S7", "S8", "S9", "S10", "SJ", "SQ", "SK", "C8"]  # black cards whose events roll nothing


def test_event_draws_come_only_from_the_remaining_cards_chi_square():
    base = GAME.scenario_state({"black": REMAINING, "may_draw": ["black"]})
    counts: Counter[str] = Counter()
    trials = 1000
    for i in range(trials):
        key = hashlib.sha256(b"calumpit-draw-%d" % i).digest()
        state, _ = GAME.apply(base, Ordered("american", 2, 0, {"type": "draw", "deck": "black"}))
        (due,) = GAME.awaiting(state)
        assert due.sides == len(REMAINING) and due.key_seq == 2
        state, _ = resolve(state, key)
        (card, _, _) = state.drawn[-1]
        assert card in REMAINING and card not in state.black
        counts[card] += 1
    expected = trials / len(REMAINING)
    chi2 = sum((counts[c] - expected) ** 2 / expected for c in REMAINING)
    assert set(counts) <= set(REMAINING)
    assert chi2 < 27.877, (chi2, counts)  # chi-square, 9 degrees of freedom, p = 0.001


def test_drawn_cards_leave_the_deck_each_card_once():
    state = GAME.scenario_state({})
    key = hashlib.sha256(b"whole deck").digest()
    seen = []
    for n in range(27):
        state = replace(state, may_draw=(DrawDue("red"),), over=False, ending_by="")
        state, _ = GAME.apply(state, Ordered("american", 10 + n, 0, {"type": "draw", "deck": "red"}))
        state, _ = resolve(state, key + bytes([n]))
        seen.append(state.drawn[-1][0])
        assert len(state.red) == 26 - n
    assert sorted(seen) == sorted(GAME.data.decks["red"])
    state = replace(state, may_draw=(DrawDue("red"),))
    state, events = GAME.apply(state, Ordered("american", 99, 0, {"type": "draw", "deck": "red"}))
    assert "exhausted" in events[-1].text


def test_a_draw_rolls_over_the_cards_left_lazily():
    """The draw is a die the size of the deck, rolled when the draw is due:
    no deck order exists before."""
    state = GAME.scenario_state({"removed": ["D2", "H3"], "may_draw": ["red"]})
    state, _ = GAME.apply(state, Ordered("american", 4, 0, {"type": "draw", "deck": "red"}))
    (due,) = GAME.awaiting(state)
    assert (due.count, due.sides, due.key_seq) == (1, 25, 4)
    state, _ = GAME.apply(state, DiceRolled(due.label, (1,)))
    (due,) = GAME.awaiting(state)  # the first card left, in data order: Diamonds 3 rolls its bombardment
    assert due.label == "0004.0/D3/0/direction" and (due.count, due.sides) == (6, 12)
