"""DR and dr with a declared purpose: both dice shown (the colored die
first), doubles, drm; keyed by the declaring message so its author cannot
preview them; recomputed by anyone who verifies."""

from __future__ import annotations

import json

import pytest
from conftest import last_line

from pbem.engine.machine import DiceDue, DiceRolled, Ordered
from pbem.errors import IllegalOrderError, InputError
from pbem.games.asl import GAME

GAME_NAME = "pbem.games.asl:GAME"


def declared(kind: str, purpose: str = "1MC for A", drm: int = 0, seq: int = 4, **when):
    when = when or {"phase": "MPh", "player_turn": "axis", "turn": 2}
    parsed = GAME.parse_orders({"order": [{"type": kind, "purpose": purpose, "drm": drm, **when}]}, "allied")
    state, events = GAME.apply(GAME.initial_state({}), Ordered("allied", seq, 0, dict(parsed.public[0])))
    return state, events


def test_asl_DR_is_two_d6_keyed_by_the_declaring_message():
    state, events = declared("DR", drm=1)
    assert GAME.awaiting(state) == (DiceDue("4.0", 2, 6, 4, "DR T2 axis MPh: 1MC for A"),)
    assert "keyed by message 0004, resolved when the reply arrives" in events[-1].text
    state, events = GAME.apply(state, DiceRolled("4.0", (4, 5)))
    assert events[0].text == ("allied's DR in T2 axis MPh for '1MC for A': DR 9 (colored 4, white 5); +1 DRM: final 10 "
                              "(keyed by message 0004)")
    assert events[0].data["colored"] == 4 and events[0].data["white"] == 5 and events[0].data["final"] == 10
    assert GAME.awaiting(state) == ()
    roll = GAME.view(state, None)["rolls"][0]
    assert (roll["colored"], roll["white"], roll["total"]) == (4, 5, 9)


def test_asl_DR_doubles_are_shown():
    state, _ = declared("DR", "IFT: 4 FP, -2")
    _, events = GAME.apply(state, DiceRolled("4.0", (3, 3)))
    assert "DR 6 (colored 3, white 3), doubles" in events[0].text and events[0].data["doubles"]


def test_asl_dr_is_one_d6():
    state, _ = declared("dr", "Leader Creation", drm=1)
    assert GAME.awaiting(state) == (DiceDue("4.0", 1, 6, 4, "dr T2 axis MPh: Leader Creation"),)
    _, events = GAME.apply(state, DiceRolled("4.0", (5,)))
    assert "dr 5; +1 drm: final 6" in events[0].text


@pytest.mark.parametrize("values", [(4,), (4, 5, 6), (0, 3), (7, 1)])
def test_asl_DR_wrong_dice_are_refused(values):
    state, _ = declared("DR")
    with pytest.raises(IllegalOrderError, match="asl.DR"):
        GAME.apply(state, DiceRolled("4.0", values))


@pytest.mark.parametrize("order, message", [
    ({"type": "DR"}, "missing field 'purpose'"),
    ({"type": "DR", "purpose": ""}, "'purpose' must be a non-empty string"),
    ({"type": "dr", "purpose": "x", "drm": 1.5}, "'drm' must be a whole number"),
    ({"type": "DR", "purpose": "x", "dice": "2d6"}, "unknown field 'dice'"),
    ({"type": "roll", "purpose": "x"}, "unknown type 'roll'"),
])
def test_asl_DR_orders_syntax(order, message):
    with pytest.raises(InputError, match=message):
        GAME.parse_orders({"order": [order]}, "axis")


def test_asl_DR_author_cannot_preview_and_both_logs_agree(players, tmp_path):
    ann, bob = players
    r = ann.run("new", ann.game, "--game", GAME_NAME, "--as", "axis", "--opponent", bob.pub())
    r = bob.run("join", last_line(r.output), "--dir", bob.game)
    rr = ann.run("receive", ann.game, last_line(r.output))
    assert rr.exit_code == 0, r.output + "\n=====\n" + rr.output
    orders = tmp_path / "dr.toml"
    orders.write_text('[[order]]\ntype = "DR"\npurpose = "Sniper check"\nphase = "PFPh"\nplayer_turn = "axis"\n')
    r = ann.run("play", ann.game, "--orders", orders)
    assert r.exit_code == 0, r.output
    sent = last_line(r.output)
    log = json.loads(ann.run("log", ann.game, "--json").output)
    assert log["rolls"] == [] and log["pending_dice"] == [
        {"label": "2.0", "dice": "2d6", "keyed_by": 2, "roll": "2.0", "expression": "DR"}]
    assert bob.run("receive", bob.game, sent).exit_code == 0
    (provisional,) = json.loads(bob.run("log", bob.game, "--json").output)["rolls"]
    assert provisional["provisional"] and provisional["purpose"] == "DR axis PFPh: Sniper check"
    empty = tmp_path / "empty.toml"
    empty.write_text("")
    r = bob.run("play", bob.game, "--orders", empty)
    assert ann.run("receive", ann.game, last_line(r.output)).exit_code == 0
    (final,) = json.loads(ann.run("log", ann.game, "--json").output)["rolls"]
    assert final["values"] == provisional["values"] and not final["provisional"]
    report = json.loads(ann.run("verify", ann.game, "--json").output)
    assert report["ok"] and report["rolls"][0]["values"] == final["values"]


def test_an_order_type_that_is_not_a_string_is_an_input_error():
    """The dice game's fuzzing found this for `type = []`; ASL reads orders the same way."""
    import pytest

    from pbem.errors import InputError
    from pbem.games.asl import GAME

    for value in ([], {}):
        with pytest.raises(InputError, match="order 1: unknown type"):
            GAME.parse_orders({"order": [{"type": value}]}, "allied")
