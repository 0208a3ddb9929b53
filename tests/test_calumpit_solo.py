"""``pbem solo calumpit --dir DIR``: a few turns at the terminal with scripted
input; the house plays the Japanese side with its own key in DIR, and the
game verifies like any game by email."""

from __future__ import annotations

import json

import pytest

from pbem.cli import main
from pbem.games.calumpit.cli import register

TURNS = [
    "help",
    "move kind=infantry terrain=road unit=1-SQD",
    "fire weapon=rifle range=30 figures=12 terrain=open unit=1-SQD",
    "fire weapon=bazooka range=3",
    "move kind=vehicle terrain=jungle",
    "done",
    'indirect weapon=stokes unit=MORTAR at="the tree line"',
    "show",
    "send",
    "grenade range=4 figures=2",
    "done",
    "tankfire gun=us-37mm range=25 vehicle=japanese-light ambush=true",
    "done",
    "quit",
]


@pytest.fixture(autouse=True)
def solo_command():
    register(main)
    register(main)  # twice: no double registration
    from pbem.games.calumpit.cli import calumpit

    assert main.commands["solo"].commands["calumpit"] is calumpit


def test_solo_plays_a_few_turns_with_scripted_input_and_verifies(players, tmp_path):
    me, _ = players
    solo = tmp_path / "solo"
    r = me.run("solo", "calumpit", "--dir", solo, input="\n".join(TURNS) + "\n")
    assert r.exit_code == 0, r.output
    out = r.output
    assert "a new solo game" in out and "you play american, pbem plays japanese" in out
    assert "[EVENT CARDS] start of turn 1: event check 2D6" in out
    assert "fire       [DIRECT FIRE]" in out  # help
    assert "not accepted: order (fire): weapon must be one of rifle" in out
    assert "not accepted: MOVEMENT: vehicles are prohibited from jungle" in out
    assert "[DIRECT FIRE] 1-SQD (rifle, 12 figures, 2 D20) fires at 30 inches" in out
    assert "[INDIRECT FIRE] MORTAR fires 3 round(s) on the tree line" in out
    assert "[HAND-GRENADES]" in out and "[TANK FIRE ACTIONS]" in out
    # the house plays the Japanese in earnest: with some dice (the keys are new each run) they reach the
    # bridge before the script's third turn is over, and the game ends there, verified
    won = "the Japanese reached the bridge" in out
    for turn in (1, 2, 3):
        assert f"[SEQUENCE] turn {turn} ends" in out or won
    assert won or ("[SEQUENCE] turn 4 begins" in out and "stopped; resume with" in out)
    assert (solo / "house" / "identity").exists() and (solo / "game" / "0000-american.pbem").exists()
    r = me.run("verify", solo / "game", "--json")
    assert r.exit_code == 0, r.output
    report = json.loads(r.output)
    assert report["ok"] and report["messages"] >= 8
    # the human is the american player; the house key signs the japanese messages
    assert report["players"]["american"] == me.run("key", "show", "--json").output.split('"fingerprint": "')[1].split('"')[0]


def test_solo_resumes_and_ends_the_game_with_a_verdict_and_an_audit(players, tmp_path):
    me, _ = players
    solo = tmp_path / "solo"
    r = me.run("solo", "calumpit", "--dir", solo, input="done\nquit\n")
    assert r.exit_code == 0, r.output
    r = me.run("solo", "calumpit", "--dir", solo, input="morale unit=2-SQD position=foxhole\nend\n")
    assert r.exit_code == 0, r.output
    assert "[MORALE] 2-SQD: morale D20" in r.output
    assert "american ends the game" in r.output and "japanese closes the game ended by american" in r.output
    assert "no decision" in r.output or "victory" in r.output
    assert "pbem verify" in r.output
    r = me.run("verify", solo / "game", "--audit")
    assert r.exit_code == 0 and "VERIFIED" in r.output, r.output
    r = me.run("solo", "calumpit", "--dir", solo, input="")  # a closed game: the verdict again
    assert r.exit_code == 0 and "check it: pbem verify" in r.output, r.output


def test_the_help_example_is_accepted_on_turn_1(players, tmp_path):
    """The --help text's example order works at the start of a game (no
    Japanese unit need be on the table)."""
    import re

    me, _ = players
    r = me.run("solo", "calumpit", "--help")
    assert r.exit_code == 0, r.output
    (example,) = re.findall(r"e\.g\. ``(fire [^`]*)``", " ".join(r.output.split()))
    assert "target=" not in example
    r = me.run("solo", "calumpit", "--dir", tmp_path / "solo", input=f"{example}\nquit\n")
    assert r.exit_code == 0, r.output
    assert "queued: fire" in r.output and "not accepted" not in r.output


def test_help_order_gives_the_fields_their_values_and_an_example_accepted_now(players, tmp_path):
    me, _ = players
    lines = ["help", "help move", "help melee", "help charge", "move kind=infantry terrain=road unit=1-SQD", "quit"]
    r = me.run("solo", "calumpit", "--dir", tmp_path / "solo", input="\n".join(lines) + "\n")
    assert r.exit_code == 0, r.output
    out = r.output
    assert "help ORDER (e.g. help move): that order's fields, their allowed values and an example" in out
    assert "move [MOVEMENT]: roll a unit's move in inches" in out
    assert "kind*    one of infantry, vehicle, tank, heavy -- what moves: the MOVEMENT table's row" in out
    assert "terrain  one of open, road, jungle, rice-paddy; default open -- the ground it moves through" in out
    assert "co       true or false; default false -- the company's commanding officer (C/O) moves with the unit" in out
    assert "example: move kind=infantry terrain=road unit=1-SQD\n" in out  # tailored: typed below, and accepted
    assert "queued: move" in out and "not accepted" not in out
    assert "melee [HAND-TO-HAND]" in out and "pairs*            a number of pairs (1-100)" in out
    assert "modifiers: charging, bayonet, sword, foxhole, american, wounded, officer, second" in out
    assert "no order 'charge'; the orders: move, fire, save" in out
    # help move describes move only
    help_move = out.split("move [MOVEMENT]")[1].split("turn 1 order")[0]
    assert "fire" not in help_move and "tankfire" not in help_move
