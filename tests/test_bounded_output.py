"""A long game's `pbem log` and `pbem show` print what fits a screen: the
last events and rolls, a line saying how many earlier ones are left out and
how to see them (`--all`, `--from N`), never the whole history by default;
`--json` is never cut."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys

import pytest

from pbem.match import session
from pbem.protocol.keystore import Keystore
from pbem.render.console import PIPE_ENTRIES

ROLL = {"order": [{"type": "roll", "dice": "2d6", "note": "charge"}]}


@pytest.fixture
def long_game(started):
    """The dice game of ``started`` played on to 62 messages, a roll in each."""
    ann, bob = started
    keys = {p.name: Keystore(p.home).load_or_create(p.name) for p in (ann, bob)}
    mover, other = ann, bob
    for _ in range(60):
        result = session.play(mover.game, keys[mover.name], ROLL)
        session.receive(other.game, [result.path], keys[other.name])
        mover, other = other, mover
    return ann, bob


def roll_rows(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("│ ") and "charge" in line]


def test_a_long_games_log_prints_the_last_rolls_and_says_how_many_are_left_out(long_game):
    ann, _ = long_game
    r = ann.run("log", ann.game)
    assert r.exit_code == 0, r.output
    rolls = json.loads(ann.run("log", ann.game, "--json").output)["declared_rolls"]
    assert len(rolls) == 60  # --json: never cut
    assert len(roll_rows(r.output)) == PIPE_ENTRIES
    assert f"... {len(rolls) - PIPE_ENTRIES} earlier rolls not shown (pbem log {ann.game} --all shows every one; " \
           f"--from N those from message N on)" in r.output
    assert rolls[-1]["shown"] in r.output and rolls[0]["label"] not in {row.split()[1] for row in roll_rows(r.output)}


def test_log_all_prints_every_roll_and_no_cut_line(long_game):
    ann, _ = long_game
    r = ann.run("log", ann.game, "--all")
    assert r.exit_code == 0, r.output
    assert len(roll_rows(r.output)) == 60
    assert "not shown" not in r.output


def test_log_from_n_prints_those_from_message_n_on(long_game):
    ann, _ = long_game
    r = ann.run("log", ann.game, "--from", "55")
    assert r.exit_code == 0, r.output
    keyed = [roll["keyed_by"] for roll in json.loads(ann.run("log", ann.game, "--json").output)["declared_rolls"]]
    assert len(roll_rows(r.output)) == sum(1 for k in keyed if k >= 55)
    assert "not shown" not in r.output
    events = json.loads(ann.run("log", ann.game, "--json", "--from", "55").output)["events"]
    assert events and min(e["seq"] for e in events) >= 55


def test_show_of_a_long_dice_game_lists_the_last_rolls_and_all_on_asking(long_game):
    ann, _ = long_game
    r = ann.run("show", ann.game, "--fresh")
    assert r.exit_code == 0, r.output
    assert len(roll_rows(r.output)) == PIPE_ENTRIES
    assert "40 earlier rolls not shown" in r.output
    r = ann.run("show", ann.game, "--all")
    assert len(roll_rows(r.output)) == 60 and "not shown" not in r.output


def test_a_short_games_log_is_printed_whole(started, tmp_path):
    ann, _ = started
    r = ann.run("log", ann.game)
    assert r.exit_code == 0, r.output
    assert "not shown" not in r.output


@pytest.mark.skipif(shutil.which("script") is None, reason="needs script(1) for a pseudo-terminal")
def test_at_a_terminal_the_log_fits_the_screens_rows(long_game):
    ann, _ = long_game
    program = f"from pbem.cli import main; main(['log', {str(ann.game)!r}])"
    env = {**os.environ, "PBEM_HOME": str(ann.home), "COLUMNS": "200", "LINES": "30", "TERM": "xterm-256color"}
    done = subprocess.run(["script", "-qec", shlex.join([sys.executable, "-c", program]), "/dev/null"], env=env,
                          capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
    output = done.stdout.decode("utf-8", "replace")
    assert done.returncode == 0, output
    assert len(roll_rows(re.sub(r"\x1b\[[0-9;]*m", "", output).replace("\r\n", "\n"))) == (30 - 8) // 2
    assert "49 earlier rolls not shown" in output
