"""Issue 3 through the CLI: the engine test game in referee mode
(`pbem adjudicate`) and by email through the protocol, with its board."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import last_line

from pbem.cli import main

GAME = "engine_game.game:GAME"
DATA = Path(__file__).parent / "engine_game" / "data"
TURN = """
[[order]]
move = "R1: 0202 0302 0402"
[[order]]
move = "R2: 0203 0303 0404"
[[order]]
attack = "0504"
with = ["R2"]
"""


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], env={"COLUMNS": "120"})


@pytest.fixture
def orders(tmp_path):
    path = tmp_path / "orders.toml"
    path.write_text(TURN)
    return path


def adjudicate(orders, *extra):
    return run("adjudicate", "--game", GAME, "--scenario", DATA / "scenario.toml", "--orders", orders, *extra)


def test_adjudicate_applies_moves_and_a_fixed_die_attack(orders):
    r = adjudicate(orders, "--dice", "4", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    texts = [e["text"] for e in data["events"]]
    assert texts[0] == "R1 moves 0202 0302 0402 for 2 MP of 4 MP"
    assert "R2 moves 0203 0303 0404 for 5 MP of 6 MP" in texts  # 1 + forest 2 + enemy ZOC 1 + 1
    assert "combat at 0504: 2:1, roll 4 -> EX: R2 flipped, B1 flipped" in texts
    assert data["rolls"] == [{"label": "m2.2 attack 0504", "values": [4]}]
    where = {u["id"]: (u["where"], u["flipped"]) for u in data["position"]["units"]}
    assert where["R2"] == ("0404", True) and where["B1"] == ("0504", True)
    assert data["position"]["active"] == "blue"


def test_adjudicate_prints_the_board_and_order_of_battle(orders):
    r = adjudicate(orders, "--dice", "6")
    assert r.exit_code == 0, r.output
    assert "Order of battle" in r.output and "Test Strip" in r.output
    assert "Blue to act" in r.output
    assert re.search(r"^\[R2\] +Red +armour +0404 .* disrupted$", r.output, re.M)  # the order of battle's row


def test_adjudicate_dice_errors_name_the_roll(orders):
    r = adjudicate(orders)
    assert r.exit_code == 2 and "'m2.2 attack 0504' (combat at 0504 (2:1)) needs 1d6" in r.output
    r = adjudicate(orders, "--dice", "4,5")
    assert r.exit_code == 2 and "1 die/dice left unused (5)" in r.output
    r = adjudicate(orders, "--dice", "7")
    assert r.exit_code == 2 and "7 is not a result of a d6" in r.output
    r = adjudicate(orders, "--dice", "x")
    assert r.exit_code == 2 and "'x' is not a whole number" in r.output


def test_adjudicate_illegal_move_cites_the_rule(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[[order]]\nmove = "R1: 0202 0302 0402 0502 0602"\n')
    r = adjudicate(bad)
    assert r.exit_code == 1
    assert r.output == "Error: 7.0: R1 cannot enter 0502: an enemy unit is there (step 3 of 0202 0302 0402 0502 0602)\n"
    bad.write_text('[[order]]\nmove = "R1: 0202 0201 0301 0401 0501"\n')
    r = adjudicate(bad)
    assert r.exit_code == 1
    assert re.match(r"Error: 7\.0: R1 has [\d.]+ MP left; entering \d{4} \(.*\) costs [\d.]+", r.output), r.output


def test_adjudicate_svg_is_valid_xml(orders, tmp_path):
    svg = tmp_path / "board.svg"
    r = adjudicate(orders, "--dice", "4", "--svg", svg)
    assert r.exit_code == 0, r.output
    root = ET.parse(svg).getroot()
    assert root.tag.endswith("svg")
    assert "R2" in svg.read_text() and "polygon" in svg.read_text()


def test_adjudicate_unknown_game_and_data_override(orders, tmp_path):
    r = run("adjudicate", "--game", "chess", "--scenario", DATA / "scenario.toml", "--orders", orders)
    assert r.exit_code == 2 and "unknown game 'chess'" in r.output
    r = adjudicate(orders, "--dice", "4", "--data", tmp_path)  # an empty override changes nothing
    assert r.exit_code == 0, r.output


def test_the_test_game_by_email_replays_shows_and_verifies(players, tmp_path, orders, monkeypatch):
    a, b = players  # ann plays red (moves first), bob blue
    r = a.run("new", a.game, "--game", GAME, "--as", "red", "--opponent", b.pub())
    assert r.exit_code == 0, r.output
    proposal = last_line(r.output)
    r = b.run("join", proposal, "--dir", b.game)  # a module a message names is not imported ...
    assert r.exit_code == 2 and "pbem never imports code a message names" in r.output
    monkeypatch.setenv("PBEM_GAMES", GAME)  # ... unless the player trusts it
    r = b.run("join", proposal, "--dir", b.game)
    assert r.exit_code == 0, r.output
    assert a.run("receive", a.game, last_line(r.output)).exit_code == 0
    r = a.run("play", a.game)  # a game without a frontend's Dialogue takes its orders from a file
    assert r.exit_code == 2 and "takes its orders from a file: pbem play DIR --orders FILE" in r.output
    r = a.run("play", a.game, "--orders", orders)
    assert r.exit_code == 0, r.output
    assert "one die is due" in r.output
    r = b.run("receive", b.game, last_line(r.output))
    assert r.exit_code == 0, r.output
    assert "combat at 0504: 2:1, roll" in r.output  # the recipient resolves the attack on receipt
    svg = tmp_path / "bob.svg"
    r = b.run("show", b.game, "--svg", svg)
    assert r.exit_code == 0, r.output
    assert "Order of battle" in r.output and "Blue to act" in r.output
    ET.parse(svg)
    empty = tmp_path / "empty.toml"
    empty.write_text("")
    r = b.run("play", b.game, "--orders", empty)
    assert r.exit_code == 0, r.output
    assert a.run("receive", a.game, last_line(r.output)).exit_code == 0
    # both replays agree on the position
    views = [json.loads(p.run("show", p.game, "--json").output)["view"] for p in (a, b)]
    strip = lambda v: {k: v[k] for k in ("units", "turn", "active", "eliminated")}  # noqa: E731
    assert strip(views[0]) == strip(views[1])
    r = a.run("verify", a.game)
    assert r.exit_code == 0, r.output


def test_dice_game_has_no_board_to_draw(started, tmp_path):
    a, _ = started
    r = a.run("show", a.game, "--svg", tmp_path / "x.svg")
    assert r.exit_code == 2 and "has no board" in r.output
