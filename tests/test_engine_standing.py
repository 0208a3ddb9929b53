"""Standing instructions and decisions (issue 3; docs/architecture.md, "Who decides") on the engine
test game's rule 9.3 (advance after combat)."""

from __future__ import annotations

import pytest
from engine_game.game import GAME

from pbem.engine import referee
from pbem.engine.machine import DecisionDue, Ordered
from pbem.engine.standing import StandingTable, parse
from pbem.errors import IllegalOrderError, InputError

# B1 disrupted (CS 1) in 0504, R2 (CS 6) next to it: 6:1 -> the 4:1 column; a 1 is DE
POSITION = {
    "positions": {"R1": "0202", "R2": "0404", "R3": "landing", "B1": "0504", "B2": "0502"},
    "flipped": ["B1"],
}
ATTACK = {"order": [{"attack": "0504", "with": ["R2"]}]}


def attack(orders=ATTACK, dice=(1,)):
    return referee.adjudicate(GAME, GAME.scenario_state(POSITION), "red", orders, list(dice), end_turn=False)


def test_9_3_emptied_hex_opens_an_advance_decision_for_the_attacker():
    result = attack()
    texts = [e.text for e in result.events]
    assert "combat at 0504: 4:1, roll 1 -> DE: B1 eliminated" in texts
    assert texts[-1] == "red may advance R2 into 0504; red decides"
    (decision,) = [a for a in GAME.awaiting(result.state) if isinstance(a, DecisionDue)]
    assert (decision.side, decision.kind, decision.options, decision.rule) == ("red", "advance", ("R2",), "9.3")
    assert GAME.view(result.state, "red")["decision"]["options"] == ["R2"]


def test_9_3_the_decision_is_answered_by_an_advance_order_first():
    state = attack().state
    with pytest.raises(IllegalOrderError, match="9.3: first answer the advance into 0504"):
        GAME.apply(state, Ordered("red", 4, 0, {"kind": "move", "unit": "R1", "path": ["0202", "0302"]}))
    with pytest.raises(IllegalOrderError, match="9.3: R1 may not advance into 0504"):
        GAME.apply(state, Ordered("red", 4, 0, {"kind": "advance", "units": ["R1"]}))
    state, events = GAME.apply(state, Ordered("red", 4, 0, {"kind": "advance", "units": ["R2"]}))
    assert events[0].text == "R2 advance into 0504"
    assert state.unit("R2").where == "0504" and state.advance is None


@pytest.mark.parametrize("answer, where, text", [
    ("always", "0504", "R2 advance into 0504 (standing instruction)"),
    ("never", "0404", "no unit advances into 0504 (standing instruction)"),
])
def test_9_3_standing_instruction_answers_without_another_message(answer, where, text):
    orders = {**ATTACK, "standing": {"advance": answer}}
    result = attack(orders)
    assert result.events[0].text == f"red standing instructions: advance = {answer}"
    assert result.events[-1].text == text
    assert result.state.unit("R2").where == where
    assert not [a for a in GAME.awaiting(result.state) if isinstance(a, DecisionDue)]


def test_standing_instructions_persist_and_are_per_side():
    table = StandingTable().updated("red", {"advance": "always"}).updated("blue", {"advance": "never"})
    assert table.get("red", "advance") == "always" and table.get("blue", "advance") == "never"
    table = table.updated("red", {"advance": "never"})
    assert table.of("red") == {"advance": "never"} and table.get("green", "advance") is None
    assert hash(table) == hash(StandingTable((("blue", "advance", "never"), ("red", "advance", "never"))))


def test_standing_instruction_syntax_errors_name_the_field():
    with pytest.raises(InputError, match="standing.retreat: unknown standing instruction"):
        parse({"standing": {"retreat": "always"}}, {"advance": ("always", "never")})
    with pytest.raises(InputError, match="standing.advance: 'sometimes' is not one of always, never"):
        GAME.parse_orders({"standing": {"advance": "sometimes"}}, "red")
