"""pbem status: every game in the keystore's games folder (or the given
directories), with opponent, turn and phase, whose move and age."""

from __future__ import annotations

import json
import os
import shutil
import time

from conftest import last_line
from everyday_support import ROLL, ambon_opening, mail, play

from pbem.app.status import age


def test_status_lists_every_game_in_the_games_folder(players, tmp_path):
    a, b = players
    games = a.home / "games"
    r = a.run("new", games / "vs-bob-dice", "--game", "dice", "--as", "first", "--opponent", b.pub())
    assert r.exit_code == 0, r.output
    b.game = tmp_path / "bob-dice"
    r = b.run("join", last_line(r.output), "--dir", b.game)
    assert a.run("import", games / "vs-bob-dice", last_line(r.output)).exit_code == 0
    a.game = games / "vs-bob-dice"
    mail(a, "--message", "0", "--to", "bob@example.org")
    r = a.run("new", games / "vs-bob-ambon", "--game", "ambon", "--as", "japanese", "--opponent", b.pub())
    assert r.exit_code == 0
    (games / "not-a-game").mkdir()
    (games / "broken").mkdir()
    shutil.copy(games / "vs-bob-dice" / "0000-first.pbem", games / "broken" / "0001-second.pbem")
    old = time.time() - 3 * 86400
    os.utime(games / "vs-bob-ambon" / "0000-japanese.pbem", (old, old))
    r = a.run("status", "--json")
    assert r.exit_code == 0, r.output
    rows = {os.path.basename(row["directory"]): row for row in json.loads(r.output)["games"]}
    assert set(rows) == {"vs-bob-dice", "vs-bob-ambon", "broken"}
    dice = rows["vs-bob-dice"]
    assert dice["module"] == "dice" and dice["you"] == "first" and dice["your_move"]
    assert dice["opponent"]["side"] == "second" and dice["opponent"]["address"] == "bob@example.org"
    assert dice["opponent"]["fingerprint"].startswith("SHA256:") and dice["next"] == {"seq": 2, "side": "first"}
    ambon = rows["vs-bob-ambon"]
    assert ambon["turn"] == 1 and ambon["phase"] == "setup-allied" and not ambon["your_move"]
    assert ambon["next"]["side"] == "allied" and ambon["last_message_age_seconds"] >= 3 * 86400 - 60
    assert "holds message 0000" in rows["broken"]["error"] and rows["broken"]["fails_verification"] is True
    assert [os.path.basename(row["directory"]) for row in json.loads(r.output)["games"]][0] == "vs-bob-dice"  # my move first
    r = a.run("status")
    assert r.exit_code == 0 and "Your games" in r.output and "does not verify" in r.output and "(3d ago)" in r.output


def test_status_of_given_directories_and_of_an_empty_folder(started, tmp_path):
    a, b = started
    play(a, tmp_path, ROLL)
    r = b.run("status", a.game, b.game, "--json")
    rows = json.loads(r.output)["games"]
    mine = [row for row in rows if row["you"] == "second"]
    assert len(mine) == 2  # Bob is a player of both copies; his own is a message behind
    r = a.run("status", PBEM_HOME=str(tmp_path / "nobody"))
    assert r.exit_code == 0 and "no games: none created or joined with this key" in r.output


def test_status_finds_the_games_created_or_joined_wherever_they_are(players, tmp_path):
    """Issue 17: the keystore records where each game it created or joined
    lives (PBEM_HOME/places), so `pbem status` needs no directory named."""
    from conftest import last_line

    a, b = players
    a.game, b.game = tmp_path / "far" / "away" / "vs-bob", tmp_path / "elsewhere" / "vs-ann"
    r = a.run("new", a.game, "--game", "dice", "--as", "first", "--opponent", b.pub())
    assert r.exit_code == 0, r.output
    r = b.run("join", last_line(r.output), "--dir", b.game)
    assert r.exit_code == 0, r.output
    for player, side in ((a, "first"), (b, "second")):
        rows = json.loads(player.run("status", "--json").output)["games"]
        assert [(row["directory"], row["you"]) for row in rows] == [(str(player.game.resolve()), side)]
    assert oct((a.home / "places").stat().st_mode & 0o777) == "0o700"
    b.game.rename(tmp_path / "moved")  # a game moved since is left out, not an error
    assert json.loads(b.run("status", "--json").output) == {"games": [], "schema": 1}


def test_status_computes_the_dice_like_receive_when_the_key_is_free(players, tmp_path):
    j, a = ambon_opening(players, tmp_path)
    (tmp_path / "reveals.toml").write_text("")
    r = a.run("play", a.game, "--orders", tmp_path / "reveals.toml")  # the owed reveals are made automatically
    assert r.exit_code == 0, r.output
    assert j.run("import", j.game, last_line(r.output)).exit_code == 0
    (row,) = json.loads(j.run("status", j.game, "--json").output)["games"]
    assert row["phase"] == "japanese-movement" and row["your_move"]  # the landing dice were rolled


def test_age_reads_like_a_person_would_say_it():
    assert [age(s) for s in (5, 95, 7200, 200000, None)] == ["5s", "1m", "2h", "2d", "?"]


def test_a_folder_that_is_no_game_is_told_apart_from_a_game_that_fails_verification(started, tmp_path):
    a, _ = started
    empty = tmp_path / "holiday-photos"
    empty.mkdir()
    (empty / "beach.jpg").write_bytes(b"\xff\xd8")
    r = a.run("status", empty, a.game, "--json")
    rows = {os.path.basename(row["directory"]): row for row in json.loads(r.output)["games"]}
    assert rows["holiday-photos"]["fails_verification"] is False and "holds no pbem game" in rows["holiday-photos"]["error"]
    r = a.run("status", empty)
    assert "not a readable game" in r.output and "does not verify" not in r.output
