"""Calumpit's part of ``pbem orders`` (pbem.games.calumpit.template): what is
owed comes first with its answers, and every example the template offers --
live '# ' lines and 'e.g.' lines -- is accepted by the game in that position
(parse_orders, then apply), the live ones together."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pbem.engine.machine import DecisionDue, Ordered
from pbem.engine.referee import adjudicate
from pbem.games.calumpit import GAME
from pbem.games.calumpit.orders import to_line
from pbem.games.calumpit.state import DrawDue
from pbem.app.orders_template import template

MISSION = {"id": "H9", "rule": "Hearts 9", "name": "the 155mm battery", "calls_left": 2, "rounds": 4,
           "turns_per_call": 1, "delay": 0, "last_turn": 12, "direction": "D12", "distance": "D6", "radius": 2}


def draw(card, dice, scenario=None):
    """The position after ``card`` is drawn (the referee with fixed dice)."""
    deck = GAME.data.card(card).deck
    state = GAME.scenario_state({"may_draw": [deck], deck: [card], **(scenario or {})})
    return adjudicate(GAME, state, "american", {"order": [{"type": "draw", "deck": deck}]}, dice, end_turn=False).state


def live(body):
    return [o for s in body.sections for o in s.examples]


def apply_all(state, side, orders):
    """``orders`` as one message: parsed, then applied in turn (raises if any is refused)."""
    parsed = GAME.parse_orders({"order": orders}, side)
    for i, order in enumerate(parsed.public):
        state, _ = GAME.apply(state, Ordered(side, state.seq + 1, i, order))
    return state


def owed(state, side):
    return [d.kind for d in GAME.awaiting(state) if isinstance(d, DecisionDue) and d.side == side]


def test_owed_answers_come_first_and_the_live_examples_are_accepted_together():
    # Diamonds Queen: a sniper hits the depot (D20 15); the Joker's attempt and a Spades 4 draw are owed too
    state = draw("DQ", [14, 9, 15])
    state = replace(state, demolition="owed",
                    may_draw=(DrawDue("black", card="S4", condition="if there are vehicles in the open"),))
    assert sorted(owed(state, "american")) == ["demolition", "draw", "sniped"]
    body = template(GAME, state, "american")
    assert body.awaited[0].startswith("your orders for turn 1")
    assert [a.split(":")[0] for a in body.awaited[1:]] == ["owed by you (Joker)", "owed by you (Spades 4)",
                                                           "owed by you (MORALE)"]
    (section,) = [s for s in body.sections if s.title.startswith("Owed by you now")]
    assert section.examples == [{"type": "demolition", "bridge": "road"}, {"type": "draw", "deck": "black"},
                                {"type": "sniped", "sniper": "J-SNP-1", "terrain": "open"}]
    orders = live(body)
    assert [o["type"] for o in orders] == ["demolition", "draw", "sniped", "move", "fire", "indirect", "done"]
    after = apply_all(state, "american", orders)
    assert sorted(owed(after, "american")) == ["demolition"]  # its D6 waits for the reply; the others are settled
    assert [c["kind"] for c in body.choices["owed"]] == ["demolition", "draw", "sniped"]


def test_the_other_side_is_not_offered_what_the_american_owes():
    state = replace(draw("DQ", [14, 9, 15]), demolition="owed")
    body = template(GAME, state, "japanese")
    assert not [s for s in body.sections if s.title.startswith("Owed")]
    assert {o["type"] for o in live(body)} <= {"move", "fire", "indirect", "done"}
    notes = {s.title.split(" ")[0]: s.notes for s in body.sections}
    assert "not owed by you now: the Joker makes the attempt owed by the american player" in notes["demolition"]


def test_the_spotter_aircraft_is_owed_by_the_japanese_player():
    state = draw("H10", [1, 1, 1])  # the JAGT brings J-INF-1; the aircraft circles
    body = template(GAME, state, "japanese")
    (section,) = [s for s in body.sections if s.title.startswith("Owed by you now")]
    assert section.examples == [{"type": "spotter", "result": "attack"}]
    assert "Hearts 10" in body.awaited[1]
    apply_all(state, "japanese", live(body))
    american = template(GAME, state, "american")
    assert not [s for s in american.sections if s.title.startswith("Owed")]


@pytest.mark.parametrize("scenario, card, dice", [
    ({}, None, None),                          # turn 1, the Americans alone
    ({}, "H7", [1, 1, 1, 11, 4, 20]),          # the JAGT brings J-INF-1, a sniper hits the depot
    ({"missions": [MISSION], "grenades": 48, "units": {"MORTAR": {"fired": 2}}}, None, None),
])
@pytest.mark.parametrize("side", ["american", "japanese"])
def test_every_example_is_accepted_in_its_position(scenario, card, dice, side):
    state = draw(card, dice, scenario) if card else GAME.scenario_state(scenario)
    body = template(GAME, state, side)
    offered = body.choices["order_types"]
    for entry in offered.values():
        for order in entry["examples"]:
            apply_all(state, side, [order])  # each on its own
            (normal,) = GAME.parse_orders({"order": [order]}, side).public
            assert GAME.parse_line(to_line(order)) == normal  # as solo play's help ORDER shows it
    apply_all(state, side, live(body))  # the live ones together
    text = "\n".join(n for s in body.sections for n in s.notes)
    if side == "american":
        assert offered["save"]["examples"] == [{"type": "save", "hits": 1, "terrain": "woods", "unit": "1-SQD"}]
        assert 'e.g. type = "tankfire"  gun = "us-37mm"  range = 25  unit = "TANKS"' in text
    if scenario.get("missions") and side == "american":
        assert offered["call"]["examples"] == [{"type": "call", "mission": "H9", "at": "the cross roads"}]
        assert "fire missions on call: H9 the 155mm battery (2 call(s) left, until turn 12)" in text
        assert offered["indirect"]["examples"][0] == {"type": "indirect", "weapon": "stokes", "unit": "MORTAR",
                                                      "at": "the marked point", "rounds": 1}
    if card == "H7":
        assert offered["melee"]["examples"] and offered["fire"]["examples"][0]["target"] == (
            "J-INF-1" if side == "american" else "1-SQD")
    elif side == "japanese":
        assert [o["type"] for o in live(body)] == ["done"]  # no Japanese unit on the table yet
