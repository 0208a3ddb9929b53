"""Ambon I through the protocol: a two-player game plays setup, the landings
and the movement of turn 1 by email, with the reveals the rules demand made
automatically -- and no concealed identity in any file before its reveal."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import last_line

EXAMPLES = Path(__file__).parent.parent / "examples" / "ambon"
HIDDEN = re.compile(r"\b(dummy|detachment)\b", re.IGNORECASE)


@pytest.fixture
def opening(players, tmp_path):
    """Ann plays the Japanese, Bob the Allies: messages 0-3 of the example."""
    j, a = players
    r = j.run("new", j.game, "--game", "ambon", "--as", "japanese", "--opponent", a.pub())
    assert r.exit_code == 0, r.output
    r = a.run("join", last_line(r.output), "--dir", a.game, "--orders", EXAMPLES / "1-allied-setup.toml")
    assert r.exit_code == 0, r.output
    setup_file = last_line(r.output)
    assert j.run("receive", j.game, setup_file).exit_code == 0
    r = j.run("play", j.game, "--orders", EXAMPLES / "2-japanese-setup-and-landings.toml")
    assert r.exit_code == 0, r.output
    assert "attempt a landing from fw-laha on 0713" in r.output
    r = a.run("receive", a.game, last_line(r.output))
    assert r.exit_code == 0, r.output
    return j, a, setup_file


def test_allied_setup_message_seals_every_identity(opening):
    j, a, setup_file = opening
    text = setup_file.read_text()
    assert not HIDDEN.search(text), "an identity leaked into the setup message"
    body = json.loads(j.run("show", j.game, "--json").output)
    assert all(u.get("type") == "concealed" and "identity" not in u for u in body["view"]["units"] if u["id"].startswith("X"))
    assert all(m["status"] == "hidden" for m in body["view"]["mines"])
    mine = json.loads(a.run("show", a.game, "--json").output)["view"]
    assert {u["id"]: u.get("identity") for u in mine["units"] if u["id"] in ("X1", "X3")} == {"X1": "dummy", "X3": "detachment"}


def test_reveals_owed_by_the_landings_are_made_automatically(opening, tmp_path):
    j, a, _ = opening
    owed = json.loads(a.run("show", a.game, "--json").output)["view"]["owed"]
    assert sorted(o["slot"] for o in owed) == ["M1", "M2", "M3", "X1", "X2", "X3", "X4"]
    r = a.run("play", a.game, "--orders", EXAMPLES / "3-allied-reveals.toml")
    assert r.exit_code == 0, r.output
    assert "X1 in 2106 is revealed: a dummy, removed from the game" in r.output
    assert "mine marker M1 in mine-1 is revealed: real" in r.output
    reveal_file = last_line(r.output)
    r = j.run("receive", j.game, reveal_file)
    assert r.exit_code == 0, r.output
    # the Japanese player computes the landing dice on receipt (keyed by the Allied message)
    assert re.search(r"landing on 2106: roll \d", r.output)
    assert re.search(r"landing on 0713: roll \d", r.output)
    view = json.loads(j.run("show", j.game, "--json").output)["view"]
    revealed = {u["id"]: u.get("identity") for u in view["units"] if u["id"] in ("X3", "X4")}
    assert set(revealed.values()) <= {"detachment"}
    # concealed pieces never touched by a reveal stay hidden everywhere
    for path in j.game.glob("*.pbem"):
        text = path.read_text()
        for piece in ("X5", "X6", "X7", "X8"):
            assert not re.search(rf'"slot":"{piece}","value"', text)
    for side in (j, a):
        assert side.run("verify", side.game).exit_code == 0


def test_turn_1_movement_after_the_landings(opening, tmp_path):
    j, a, _ = opening
    r = a.run("play", a.game, "--orders", EXAMPLES / "3-allied-reveals.toml")
    assert j.run("receive", j.game, last_line(r.output)).exit_code == 0
    view = json.loads(j.run("show", j.game, "--json").output)["view"]
    assert view["phase"] == "japanese-movement" and view["turn"] == 1
    landed = [u for u in view["units"] if u["where"] == "2106" and u["side"] == "japanese"]
    orders = tmp_path / "move.toml"
    if landed and landed[0].get("status") == "-2mp":  # the Kure landing succeeded with -2 MP
        orders.write_text('[[order]]\nmove = "Kure-1: 2106 2105"\n')
    else:
        orders.write_text("")
    r = j.run("play", j.game, "--orders", orders)
    assert r.exit_code == 0, r.output
    r = a.run("receive", a.game, last_line(r.output))
    assert r.exit_code == 0, r.output
    view = json.loads(a.run("show", a.game, "--json").output)["view"]
    assert view["phase"] == "allied-movement"  # the Japanese message covered their remaining phases
    # 7.1: on turn 1 only Allied units near the Japanese may move
    far = tmp_path / "far.toml"
    far.write_text('[[order]]\nmove = "NEI-1.D: 1016 1015"\n')
    r = a.run("play", a.game, "--orders", far)
    assert r.exit_code == 1 and "7.1" in r.output
    r = a.run("show", a.game)
    assert r.exit_code == 0 and "Order of battle" in r.output
    svg = tmp_path / "board.svg"
    assert a.run("show", a.game, "--svg", svg).exit_code == 0 and "<svg" in svg.read_text()


def test_the_demo_orders_are_valid_orders_files_and_a_game_resumes_from_files_alone(tmp_path, tmp_path_factory):
    """protocol §7: a game interrupted at any message resumes from its files
    and the player's key; the bot's saved orders are real orders files.
    (The Ambon demo played once for the session: tests/demo_games.py.)"""
    import shutil
    import tomllib

    from demo_games import ambon_game

    from pbem.games.ambon import GAME
    from pbem.match import session
    from pbem.protocol.keystore import Keystore

    played = ambon_game(tmp_path_factory)
    report = played.report
    orders = sorted((played.root / "orders").glob("*.toml"))
    assert len(orders) >= 20
    for path in orders:
        side = path.stem.split("-")[1]
        GAME.parse_orders(tomllib.loads(path.read_text()), side)  # every file parses
    jack = Keystore(played.root / "jack" / "keystore").load(lambda: None)
    files = sorted((played.root / "jack" / "game").glob("*.pbem"))
    for cut in (3, len(files) // 2):  # interrupted after message cut-1: copy only the files
        fresh = tmp_path / f"resume-{cut}"
        fresh.mkdir()
        for f in files[:cut]:
            shutil.copy(f, fresh / f.name)
        match = session.load(fresh, jack)
        assert match.player.side == "allied" and match.player.store  # the sealed identities are back
        assert len(match.transcript) == cut
    assert report.verify.ok


def test_the_recorded_full_game_verifies_with_audit():
    """examples/ambon/full-game: a whole game, 10 turns, checked by anyone."""
    from click.testing import CliRunner

    from pbem.cli import main

    messages = EXAMPLES / "full-game" / "messages"
    r = CliRunner().invoke(main, ["verify", str(messages), "--audit", "--json"])
    assert r.exit_code == 0, r.output
    report = json.loads(r.output)
    assert report["ok"] and report["over"] and report["messages"] == len(list(messages.glob("*.pbem")))
    assert len(list((EXAMPLES / "full-game" / "orders").glob("*.toml"))) == report["messages"] - 1
    # the unsigned summaries are what this pbem writes: a change of event texts re-records the game
    r = CliRunner().invoke(main, ["verify", str(messages)])
    assert r.exit_code == 0 and "warning" not in r.output, r.output


def test_play_without_orders_asks_at_the_terminal_checks_each_line_and_confirms(opening, tmp_path):
    j, a, _ = opening
    r = a.run("play", a.game, "--orders", EXAMPLES / "3-allied-reveals.toml")
    assert j.run("receive", j.game, last_line(r.output)).exit_code == 0
    view = json.loads(j.run("show", j.game, "--json").output)["view"]
    mover = next((u for u in view["units"] if u["side"] == "japanese" and u["where"] == "2106" and u.get("status") == "-2mp"), None)
    line = "move Kure-1: 2106 2105" if mover else ""
    script = "\n".join(["move 9.Z: 2106 2105", line, "", "y"]) + "\n"
    r = j.run("play", j.game, input=script)
    assert r.exit_code == 0, r.output
    assert "not accepted: 7.0" in r.output or "not accepted: 2.2" in r.output
    if mover:
        assert "-> [7.0] Kure-1 moves 2106 2105" in r.output
    r = j.run("play", j.game, input="\nn\n")  # not your turn any more
    assert r.exit_code == 2


def test_the_terminal_dialogue_shows_what_the_message_seals_before_it_is_sent(players, tmp_path):
    """Issue 17: `pbem play` at the terminal echoes the text to be sealed (here
    the 14.2 Second Wave note of the historical setup) and asks to confirm."""
    j, a = players
    r = j.run("new", j.game, "--game", "ambon", "--as", "japanese", "--opponent", a.pub(), "--rule", "14.2")
    assert r.exit_code == 0, r.output
    r = a.run("join", last_line(r.output), "--dir", a.game, "--orders", EXAMPLES / "1-allied-setup.toml")
    assert r.exit_code == 0, r.output
    assert j.run("receive", j.game, last_line(r.output)).exit_code == 0
    r = j.run("orders", j.game)
    note = next(line for line in r.output.splitlines() if line.startswith("# second_wave = ")).split('"')[1]
    r = j.run("play", j.game, input=f"setup historical\nsecond_wave {note}\n\nn\n")
    assert f": {note}" in r.output and "sealed in slot" in r.output and "(only you see this)" in r.output and "send this message? [Y/n]" in r.output
    assert r.exit_code == 2 and "stopped: no message written" in r.output
