"""Rolls shown whole everywhere (issue 16): each term, the modifier and the
total -- ``2d6+1: 2 + 2 + 1 = 5`` -- in ``pbem log`` (table and JSON),
``pbem show``, ``pbem play`` / ``pbem receive``, the mail summary and the demo
tables; counts count the rolls the player declared, dice groups in brackets."""

from __future__ import annotations

import json
import re
import shutil

from conftest import Player, exchange, last_line
from demo_games import ambon_game

TWO_ROLLS = """
[[order]]
type = "roll"
dice = "2d6+1"
note = "attack"

[[order]]
type = "roll"
dice = "1d20+1d4-2"
note = "morale"
"""

ONE_ROLL = '[[order]]\ntype = "roll"\ndice = "2d6+1"\nnote = "attack"\n'


def log_json(player: Player) -> dict:
    r = player.run("log", player.game, "--json")
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


def declared(player: Player) -> dict[str, dict]:
    return {r["label"]: r for r in log_json(player)["declared_rolls"]}


def rows(output: str) -> list[list[str]]:
    """The body rows of the rich tables in ``output``, as stripped cells."""
    return [[c.strip() for c in line.strip("│").split("│")] for line in output.splitlines() if line.startswith("│")]


def played_two_rolls(started, tmp_path) -> tuple[Player, Player, dict[str, dict]]:
    """ann declares 2d6+1 and 1d20+1d4-2; bob receives them (and computes them)."""
    a, b = started
    exchange(a, b, tmp_path, TWO_ROLLS)
    return a, b, declared(b)


# --------------------------------------------------------------------------- the dice game


def test_2d6_plus_1_shows_each_die_the_modifier_and_the_total(started, tmp_path):
    a, b, rolls = played_two_rolls(started, tmp_path)
    attack = rolls["2.0"]
    (term,) = attack["terms"]
    first, second = term["values"]
    assert term["dice"] == "2d6" and term["sign"] == 1
    assert attack["expression"] == "2d6+1" and attack["modifier"] == 1 and attack["total"] == first + second + 1
    assert attack["shown"] == f"2d6+1: {first} + {second} + 1 = {first + second + 1}"
    r = b.run("log", b.game)
    assert ["2.0", "first", "attack", attack["shown"], "0002 -> 0003 *"] in rows(r.output)
    # the event says the same
    assert f"first rolled 2d6+1 for 'attack': {first} + {second} + 1 = {attack['total']}" in r.output


def test_1d20_plus_1d4_minus_2_is_one_row_with_its_total(started, tmp_path):
    a, b, rolls = played_two_rolls(started, tmp_path)
    morale = rolls["2.1"]
    d20, d4 = morale["terms"]
    ((x,), (y,)) = d20["values"], d4["values"]
    assert (d20["dice"], d4["dice"]) == ("1d20", "1d4")
    assert morale["modifier"] == -2 and morale["total"] == x + y - 2
    assert morale["shown"] == f"1d20+1d4-2: {x} + {y} - 2 = {x + y - 2}"
    r = b.run("log", b.game)
    table = [row for row in rows(r.output) if row[2] == "morale"]
    assert table == [["2.1", "first", "morale", morale["shown"], "0002 -> 0003 *"]]


def test_log_json_keeps_the_dice_groups_and_adds_the_declared_roll_to_each(started, tmp_path):
    a, b, rolls = played_two_rolls(started, tmp_path)
    groups = log_json(b)["rolls"]
    assert [g["label"] for g in groups] == ["2.0/0", "2.1/0", "2.1/1"]
    for g in groups:  # what was there stays
        assert {"label", "purpose", "dice", "values", "keyed_by", "keyed_by_author", "completed_by",
                "provisional"} <= set(g)
    d20, d4 = groups[1:]
    assert d20["roll"] == d4["roll"] == "2.1" and d20["expression"] == "1d20+1d4-2"
    assert d20["modifier"] == d4["modifier"] == -2
    assert d20["total"] == d4["total"] == rolls["2.1"]["total"]
    assert groups[0]["modifiers"] == [{"why": "", "value": 1}]


def test_a_negative_term_is_subtracted(started, tmp_path):
    a, b = started
    exchange(a, b, tmp_path, '[[order]]\ntype = "roll"\ndice = "3d6-1d4"\nnote = "net"\n')
    (roll,) = log_json(b)["declared_rolls"]
    dice, (minus,) = roll["terms"][0]["values"], roll["terms"][1]["values"]
    assert roll["terms"][1]["sign"] == -1 and roll["total"] == sum(dice) - minus
    assert roll["shown"] == f"3d6-1d4: {' + '.join(map(str, dice))} - {minus} = {sum(dice) - minus}"


def test_a_pending_roll_shows_pending_keyed_by_its_message(started, tmp_path):
    a, b, _ = played_two_rolls(started, tmp_path)
    r = a.run("log", a.game)  # ann cannot know her rolls before bob's reply
    assert ["2.0", "first", "attack", "2d6+1: pending (keyed by 0002)", "0002 -> 0003 (awaited)"] in rows(r.output)
    assert ["2.1", "first", "morale", "1d20+1d4-2: pending (keyed by 0002)", "0002 -> 0003 (awaited)"] in rows(
        r.output)
    data = log_json(a)
    assert data["rolls"] == []
    assert [(d["label"], d["roll"], d["expression"]) for d in data["pending_dice"]] == [
        ("2.0/0", "2.0", "2d6+1"), ("2.1/0", "2.1", "1d20+1d4-2"), ("2.1/1", "2.1", "1d20+1d4-2")]
    pending = [r for r in data["declared_rolls"] if r["pending"]]
    assert [(r["label"], r["total"], len(r["terms"])) for r in pending] == [("2.0", None, 1), ("2.1", None, 2)]


def test_counts_count_the_declared_rolls_with_the_dice_groups_in_brackets(started, tmp_path):
    a, b = started
    path = tmp_path / "two.toml"
    path.write_text(TWO_ROLLS)
    r = a.run("play", a.game, "--orders", path)
    assert r.exit_code == 0, r.output
    assert "; 2 declared rolls await the reply that keys them (3 dice groups)" in r.output
    assert "dice group(s)" not in r.output
    r = a.run("show", a.game)
    assert "2 declared rolls await the reply that keys them (3 dice groups)" in r.output
    r = b.run("receive", b.game, a.game / "0002-first.pbem")
    assert r.exit_code == 0, r.output
    path.write_text(ONE_ROLL)
    r = b.run("play", b.game, "--orders", path)
    assert "; 1 declared roll awaits the reply that keys it\n" in r.output  # one group: no brackets


def test_show_lists_the_declared_rolls_whole(started, tmp_path):
    a, b, rolls = played_two_rolls(started, tmp_path)
    r = b.run("show", b.game)
    assert ["2.0", "first", "attack", rolls["2.0"]["shown"]] in rows(r.output)
    assert ["2.1", "first", "morale", rolls["2.1"]["shown"]] in rows(r.output)


def test_verify_counts_declared_rolls_and_dice_groups(started, tmp_path):
    a, b = started
    exchange(a, b, tmp_path, TWO_ROLLS)
    exchange(b, a, tmp_path, "")
    r = a.run("verify", a.game)
    assert "dice recomputed: 2 declared rolls (3 dice groups)" in r.output
    report = json.loads(a.run("verify", a.game, "--json").output)
    assert [d["expression"] for d in report["declared_rolls"]] == ["2d6+1", "1d20+1d4-2"]
    assert len(report["rolls"]) == 3


def test_the_mail_summary_lists_the_rolls_keyed_and_the_rolls_made_whole(started, tmp_path):
    a, b = started
    path = tmp_path / "two.toml"
    path.write_text(TWO_ROLLS)
    assert a.run("play", a.game, "--orders", path).exit_code == 0
    r = a.run("mail", a.game, "--to", "bob@example.org")
    assert r.exit_code == 0, r.output
    body = last_line(r.output).read_text()
    assert "Keyed by this message: 2 declared rolls (3 dice groups)." in body
    assert "They are rolled when second's reply arrives:" in body
    assert "  2.0 2d6+1: pending (keyed by 0002) -- attack" in body
    assert "  2.1 1d20+1d4-2: pending (keyed by 0002) -- morale" in body
    assert b.run("receive", b.game, a.game / "0002-first.pbem").exit_code == 0
    rolls = declared(b)
    path.write_text("")
    assert b.run("play", b.game, "--orders", path).exit_code == 0
    r = b.run("mail", b.game, "--to", "ann@example.org")
    body = re.sub(r"\s+", " ", last_line(r.output).read_text())  # the summary wraps long lines
    assert f"first rolled 2d6+1 for 'attack': {rolls['2.0']['shown'].partition(': ')[2]}" in body
    assert f"first rolled 1d20+1d4-2 for 'morale': {rolls['2.1']['shown'].partition(': ')[2]}" in body


def test_the_dice_demo_table_shows_every_roll_whole(players, tmp_path):
    a, _ = players
    r = a.run("demo", "dice", "--dir", tmp_path / "demo")
    assert r.exit_code == 0, r.output
    table = {row[0]: row for row in rows(r.output) if re.fullmatch(r"\d+\.\d+", row[0])}
    assert sorted(table) == ["2.0", "3.0", "3.1", "4.0", "5.0"]
    assert re.fullmatch(r"2d6: (\d+) \+ (\d+) = \d+", table["2.0"][3])
    assert re.fullmatch(r"1d10\+2: \d+ \+ 2 = \d+", table["3.0"][3])
    assert re.fullmatch(r"d20: \d+", table["3.1"][3])
    m = re.fullmatch(r"2d6-1: (\d+) \+ (\d+) - 1 = (\d+)", table["5.0"][3])
    assert m and int(m[1]) + int(m[2]) - 1 == int(m[3])
    assert "dice recomputed: 5 declared rolls" in r.output


# --------------------------------------------------------------------------- the games' own rolls


def test_asl_DR_drm_shows_both_dice_the_drm_and_the_final_DR(players, tmp_path):
    """asl.DR: a DR with its DRM is read as the final DR: colored, white, DRM."""
    from pbem.games.asl import GAME

    ann, bob = players
    r = ann.run("new", ann.game, "--game", GAME.name, "--as", "axis", "--opponent", bob.pub())
    r = bob.run("join", last_line(r.output), "--dir", bob.game)
    assert ann.run("receive", ann.game, last_line(r.output)).exit_code == 0
    orders = tmp_path / "dr.toml"
    orders.write_text('[[order]]\ntype = "DR"\npurpose = "1MC for A"\ndrm = 1\nphase = "MPh"\nplayer_turn = "allied"\n\n'
                      '[[order]]\ntype = "dr"\npurpose = "ambush"\ndrm = -2\n')
    r = ann.run("play", ann.game, "--orders", orders)
    assert "2 declared rolls await the reply that keys them" in r.output and "dice group" not in r.output
    r = ann.run("log", ann.game)
    assert ["2.0", "axis", "DR allied MPh: 1MC for A (+1 DRM)", "DR+1: pending (keyed by 0002)",
            "0002 -> 0003 (awaited)"] in rows(r.output)
    assert bob.run("receive", bob.game, ann.game / "0002-axis.pbem").exit_code == 0
    dr, small = log_json(bob)["declared_rolls"]
    colored, white = dr["terms"][0]["values"]
    assert dr["modifiers"] == [{"why": "DRM", "value": 1}] and dr["total"] == colored + white + 1
    doubles = {(1, 1): ", snake eyes", (6, 6): ", boxcars"}.get((colored, white), ", doubles" if colored == white else "")
    assert dr["shown"] == f"DR+1: colored {colored} + white {white} + 1 = {colored + white + 1}{doubles}"
    (die,) = small["terms"][0]["values"]
    assert small["shown"] == f"dr-2: {die} - 2 = {die - 2}"
    r = bob.run("log", bob.game)
    assert ["2.0", "axis", "DR allied MPh: 1MC for A (+1 DRM)", dr["shown"], "0002 -> 0003 *"] in rows(r.output)


def test_ambon_6_2_landing_drm_and_11_0_crt_rolls_show_die_drms_and_modified_roll(tmp_path_factory):
    """6.2: the Kure 1 Special landing's +1 DRM; 11.0: a CRT die with its DRMs
    (11.1, 11.2).  Every Ambon roll reads die + DRMs = the modified roll, as
    its event says."""
    demo = ambon_game(tmp_path_factory)
    root = tmp_path_factory.mktemp("ambon-copy") / "demo"
    shutil.copytree(demo.root, root)  # the shared demo stays as it was (pbem log keeps a checkpoint)
    jack = Player("jack", root / "jack" / "keystore", root / demo.dirs["jack"].relative_to(demo.root))
    data = log_json(jack)
    rolls = data["declared_rolls"]
    assert rolls and not any(r["pending"] for r in rolls)
    for r in rolls:
        ((die,),) = [t["values"] for t in r["terms"]]
        drm = sum(m["value"] for m in r["modifiers"])
        assert r["expression"] == "1d6" + "".join(f"{m['value']:+d}" for m in r["modifiers"])
        if r["total"] is None:  # a roll that decided nothing (a combat that lapsed): the die alone
            assert r["shown"] == f"1d6: {die}" and not r["modifiers"]
            continue
        assert r["total"] == die + drm
        if r["modifiers"]:
            steps = "".join(f" {'+' if m['value'] > 0 else '-'} {abs(m['value'])}" for m in r["modifiers"])
            assert r["shown"] == f"{r['expression']}: {die}{steps} = {die + drm}"
        else:
            assert r["shown"] == f"1d6: {die}"
    kure = [r for r in rolls if {"why": "Kure 1 Special landing", "value": 1} in r["modifiers"]]
    assert kure and kure[0]["purpose"].startswith("landing on ")
    crt = [r for r in rolls if r["purpose"].startswith(("combat at", "landing combat on")) and r["total"] is not None]
    assert crt
    texts = [e["text"] for e in data["events"] if e["rule"] in ("11.0", "6.3") and "roll" in e["data"]]
    for r in crt:  # the CRT event reads the same die, DRMs and modified roll
        (die,) = r["terms"][0]["values"]
        assert any(f"roll {die}" in t and (not r["modifiers"] or f"= {r['total']} ->" in t) for t in texts)
    r = jack.run("log", jack.game, "--all")
    shown = {row[3] for row in rows(r.output)}
    assert kure[0]["shown"] in shown and all(c["shown"] in shown for c in crt)
    assert any(row[2].endswith("(+1 Kure 1 Special landing)") for row in rows(r.output))
