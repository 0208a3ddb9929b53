"""Calumpit Bridge by email: the examples/calumpit game of three turns through
the CLI (new, join, play, receive), then verify and audit -- and every roll
keyed by the message whose order or turn-end made it due (protocol §6)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import last_line

from pbem.engine import registry

EXAMPLES = Path(__file__).parent.parent / "examples" / "calumpit"
GAME_NAME = "calumpit" if "calumpit" in registry.available() else "pbem.games.calumpit:GAME"
SCRIPT = [  # (author, file) after the proposal and the join
    ("a", "2-american-turn1.toml"),
    ("j", "3-japanese-turn2.toml"),
    ("a", "4-american-turn2.toml"),
    ("j", "5-japanese-turn3.toml"),
    ("a", "6-american-end.toml"),
    ("j", "7-japanese-closing.toml"),
]


@pytest.fixture
def game(players):
    """Ann (american) proposes, Bob (japanese) joins with the example's first orders."""
    a, j = players
    r = a.run("new", a.game, "--game", GAME_NAME, "--as", "american", "--opponent", j.pub())
    assert r.exit_code == 0, r.output
    r = j.run("join", last_line(r.output), "--dir", j.game, "--orders", EXAMPLES / "1-japanese-join.toml")
    assert r.exit_code == 0, r.output
    r = a.run("receive", a.game, last_line(r.output))
    assert r.exit_code == 0, r.output
    # turn 1's event check is keyed by message 0000: Ann learns it from Bob's reply
    r = a.run("log", a.game)
    assert r.exit_code == 0 and "[EVENT CARDS] start of turn 1: event check 2D6" in r.output
    return {"a": a, "j": j}


def play_script(game, upto=None):  # None: the whole script
    outputs = []
    for author, name in SCRIPT[:upto]:
        me, other = game[author], game["j" if author == "a" else "a"]
        r = me.run("play", me.game, "--orders", EXAMPLES / name)
        assert r.exit_code == 0, r.output
        sent = last_line(r.output)
        r2 = other.run("receive", other.game, sent)
        assert r2.exit_code == 0, r2.output
        outputs.append((r.output, r2.output))
    return outputs


def test_the_example_game_plays_three_turns_by_email_and_verifies(game, tmp_path):
    outputs = play_script(game)
    received = "\n".join(o for _, o in outputs)
    # the recipient sees the author's rolls on receipt
    assert "[DIRECT FIRE] 1-SQD (rifle, 12 figures, 2 D20) fires at J-COY at 34 inches" in received
    assert "[INDIRECT FIRE] MORTAR fires 3 round(s) on the tree line north of the village" in received
    assert "[TANK FIRE ACTIONS] Stuart" not in received and "US 37mm fires at Japanese light tank" in received
    assert "[HAND-TO-HAND] 2-SQD assaults J-COY" in received
    assert "[VISIBILITY/SPOTTING] the tank is heard" in received
    for turn in (1, 2):
        assert f"[SEQUENCE] turn {turn} ends: both sides have moved and fired all their units" in received
        assert f"[EVENT CARDS] end of turn {turn}: event check 2D6" in received
    assert "[SEQUENCE] turn 3 begins" in received
    assert "[VICTORY CONDITIONS] japanese closes the game ended by american" in received
    for p in game.values():
        r = p.run("verify", p.game, "--audit", "--json")
        assert r.exit_code == 0, r.output
        report = json.loads(r.output)
        assert report["ok"] and report["over"] and report["messages"] == 8
    files = sorted(game["a"].game.glob("*.pbem"))
    r = game["a"].run("verify", *files, "--audit", PBEM_HOME=str(tmp_path / "nobody"))
    assert r.exit_code == 0 and "VERIFIED" in r.output


def test_every_roll_is_keyed_by_the_message_that_made_it_due(game):
    play_script(game, upto=4)
    a = game["a"]
    data = json.loads(a.run("log", a.game, "--json").output)
    rolls = data["rolls"]
    assert rolls, "no rolls"
    for roll in rolls:
        assert int(roll["label"][:4]) == roll["keyed_by"], roll
    by_message = {r["keyed_by"] for r in rolls}
    assert {0, 2, 3, 4} <= by_message  # turn 1's check (0), orders and turn ends (2, 4), Japanese fire (3)
    fire = [r for r in rolls if r["label"] == "0002.1/hit"]
    assert fire and fire[0]["dice"] == "2d20" and fire[0]["keyed_by_author"] == "american"
    ends = [r for r in rolls if r["label"] == "0002.end/end/check"]
    assert ends and ends[0]["dice"] == "2d6"


def test_the_recipient_computes_the_rolls_the_author_waits_for_the_reply(game):
    play_script(game, upto=3)
    a, j = game["a"], game["j"]
    # Bob received Ann's message 0004 and computed its rolls with the chain value his reply will reveal
    view = json.loads(j.run("show", j.game, "--json").output)["view"]
    assert view["turn"] == 3 and view["done"] == [] and view["pending"] is None
    assert {u["id"] for u in view["units"]} >= {"J-COY", "1-SQD", "MORTAR"}
    assert next(u for u in view["units"] if u["id"] == "MORTAR")["ammo"] == 21
    # Ann, the author, waits for the reply to learn them
    assert json.loads(a.run("show", a.game, "--json").output)["view"]["pending"].startswith("0004.")


def test_both_logs_agree_at_the_end(game):
    play_script(game)
    logs = []
    for p in game.values():
        data = json.loads(p.run("log", p.game, "--json").output)
        logs.append((data["events"], [{**r, "provisional": False} for r in data["rolls"]], data["view"]))
    assert logs[0] == logs[1]
    assert logs[0][2]["over"] and logs[0][2]["verdict"]


def test_an_illegal_order_is_refused_citing_the_rule(game, tmp_path):
    a = game["a"]
    bad = tmp_path / "bad.toml"
    bad.write_text('[[order]]\ntype = "move"\nkind = "vehicle"\nterrain = "rice-paddy"\n')
    r = a.run("play", a.game, "--orders", bad)
    assert r.exit_code == 1 and "MOVEMENT" in r.output and "prohibited from rice-paddy" in r.output
    bad.write_text('[[order]]\ntype = "fire"\nweapon = "rifle"\nrange = "far"\n')
    r = a.run("play", a.game, "--orders", bad)
    assert r.exit_code == 2 and "range must be a whole number" in r.output
    assert not (a.game / "0002-american.pbem").exists()
