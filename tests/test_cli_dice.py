"""The dice game end to end through the CLI: two players, real files."""

from __future__ import annotations

import json

from conftest import exchange, last_line

ROLL_AND_SEAL = """
[[order]]
type = "roll"
dice = "2d6+1"
note = "attack on the bridge"

[[order]]
type = "seal"
slot = "plan"
text = "the real attack goes in at dawn"
"""


def rolls(player) -> list[dict]:
    r = player.run("log", player.game, "--json")
    assert r.exit_code == 0, r.output
    return json.loads(r.output)["rolls"]


def test_new_join_play_print_the_file_to_send_last(players, tmp_path):
    a, b = players
    r = a.run("new", a.game, "--game", "dice", "--as", "first", "--opponent", b.pub())
    assert r.exit_code == 0, r.output
    assert last_line(r.output) == a.game / "0000-first.pbem"
    r = b.run("join", last_line(r.output), "--dir", b.game)
    assert r.exit_code == 0, r.output
    assert last_line(r.output) == b.game / "0001-second.pbem"
    assert "SHA256:" in r.output  # the proposer's fingerprint, to check (TOFU)
    r = a.run("receive", a.game, last_line(r.output))
    assert r.exit_code == 0, r.output
    orders = tmp_path / "o.toml"
    orders.write_text(ROLL_AND_SEAL)
    r = a.run("play", a.game, "--orders", orders)
    assert r.exit_code == 0, r.output
    assert last_line(r.output) == a.game / "0002-first.pbem"


def test_recipient_computes_the_roll_author_sees_it_pending_then_logs_agree(started, tmp_path):
    a, b = started
    exchange(a, b, tmp_path, ROLL_AND_SEAL)
    # ann (author of 0002) cannot know her roll yet: it waits for bob's reply
    r = a.run("log", a.game, "--json")
    data = json.loads(r.output)
    assert data["rolls"] == [] and data["pending_dice"][0]["keyed_by"] == 2
    # bob computed it on receipt, provisionally keyed with his next chain value
    (bob_view,) = rolls(b)
    assert bob_view["provisional"] is True and bob_view["keyed_by"] == 2
    exchange(b, a, tmp_path, "")
    (ann_view,) = rolls(a)
    assert ann_view["provisional"] is False
    assert ann_view["values"] == bob_view["values"]
    (bob_final,) = rolls(b)
    assert {**bob_final, "provisional": False} == ann_view


def test_sealed_note_private_until_revealed(started, tmp_path):
    a, b = started
    sent = exchange(a, b, tmp_path, ROLL_AND_SEAL)
    assert "dawn" not in sent.read_text()
    r = b.run("show", b.game, "--json")
    assert "dawn" not in r.output
    r = a.run("show", a.game, "--json")
    (note,) = json.loads(r.output)["view"]["notes"]
    assert note["value"] == "the real attack goes in at dawn" and note["private"] is True
    exchange(b, a, tmp_path)
    exchange(a, b, tmp_path, '[[order]]\ntype = "reveal"\nslot = "plan"\n')
    r = b.run("show", b.game, "--json")
    (note,) = json.loads(r.output)["view"]["notes"]
    assert note["value"] == "the real attack goes in at dawn" and note["revealed_in"] == 4


def test_full_game_ends_and_verifies_with_audit_for_anyone(started, tmp_path):
    a, b = started
    exchange(a, b, tmp_path, ROLL_AND_SEAL)
    exchange(b, a, tmp_path, '[[order]]\ntype = "roll"\ndice = "d20"\n')
    exchange(a, b, tmp_path, '[[order]]\ntype = "end"\n')
    exchange(b, a, tmp_path)
    for p in (a, b):
        r = p.run("verify", p.game, "--audit", "--json")
        assert r.exit_code == 0, r.output
        report = json.loads(r.output)
        assert report["ok"] and report["over"] and report["messages"] == 6
        assert len(report["rolls"]) == 2
    # a third party with the bare files, no key at all
    files = sorted(a.game.glob("*.pbem"))
    r = a.run("verify", *files, "--audit", PBEM_HOME=str(tmp_path / "nobody"))
    assert r.exit_code == 0, r.output
    assert "VERIFIED" in r.output
    # the game is over: no more orders
    r = a.run("play", a.game, "--orders", tmp_path / "orders-ann-0.toml")
    assert r.exit_code == 2 and "over" in r.output


def test_unsealed_game_fails_audit_until_closed(started, tmp_path):
    a, b = started
    exchange(a, b, tmp_path, ROLL_AND_SEAL)
    r = a.run("verify", a.game)
    assert r.exit_code == 0, r.output
    r = a.run("verify", a.game, "--audit")
    assert r.exit_code == 1
    assert "missing reveal at audit" in r.output


def test_not_your_turn(started, tmp_path):
    a, b = started
    (tmp_path / "empty.toml").write_text("")
    r = b.run("play", b.game, "--orders", tmp_path / "empty.toml")
    assert r.exit_code == 2
    assert "not your turn" in r.output and "0002 is first's" in r.output


def test_show_and_log_print_tables(started, tmp_path):
    a, b = started
    exchange(a, b, tmp_path, ROLL_AND_SEAL)
    r = b.run("log", b.game)
    assert r.exit_code == 0
    assert "attack on the bridge" in r.output and "0002 -> 0003" in r.output
    r = b.run("show", b.game)
    assert r.exit_code == 0 and "Declared rolls" in r.output and "your move" in r.output


def test_interactive_play_asks_and_reasks_on_error(started):
    a, _ = started
    answers = "\n".join(["roll", "2x6", "", "roll", "2d6", "charge", "done"]) + "\n"
    r = a.run("play", a.game, input=answers)
    assert r.exit_code == 0, r.output
    assert "not accepted" in r.output and "2x6" in r.output
    assert "declares 2d6 for 'charge'" in r.output


def test_the_examples_dice_files_play_a_whole_game(started):
    from pathlib import Path

    a, b = started
    examples = Path(__file__).parent.parent / "examples" / "dice"
    for player, other, name in ((a, b, "1-ann"), (b, a, "2-bob"), (a, b, "3-ann")):
        r = player.run("play", player.game, "--orders", examples / f"{name}.toml")
        assert r.exit_code == 0, r.output
        assert other.run("receive", other.game, last_line(r.output)).exit_code == 0
    r = b.run("play", b.game, input="done\n")  # the closing message, asked at the terminal
    assert r.exit_code == 0, r.output
    assert a.run("receive", a.game, last_line(r.output)).exit_code == 0
    r = a.run("verify", a.game, "--audit")
    assert r.exit_code == 0 and "VERIFIED" in r.output


def test_a_killed_writers_temporary_file_is_cleaned_up_by_the_next_writer(started, tmp_path):
    a, _ = started
    import os
    import time

    stale, young = a.game / ".tmp-abandoned", a.game / ".tmp-being-written"
    stale.write_bytes(b"half a message")
    young.write_bytes(b"a journal pbem watch is writing now, without the game's lock")
    os.utime(stale, (time.time() - 120, time.time() - 120))  # killed a while ago
    (tmp_path / "e.toml").write_text("")
    r = a.run("play", a.game, "--orders", tmp_path / "e.toml")
    assert r.exit_code == 0, r.output
    assert not stale.exists() and young.exists()  # issue 30: a live writer's file is left alone
