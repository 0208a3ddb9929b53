"""`pbem show DIR --at N` and `pbem log DIR --at N` (issue 26: a referee can
check every number from what pbem prints): the game as it stood after
message N, for each player and for a spectator.

The reference for "as it stood" is pbem itself at the time: ``show`` and
``log`` run on a copy of the directory holding only messages 0..N.  The
finished demo games hold every secret of both sides, published by the
closing messages; a view at N shows none the player did not hold then.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from demo_games import DemoGame, ambon_game, dice_game
from test_secrets_scan import leaks, prefix_dir, secrets_of, value_leaks

from pbem.cli import main
from pbem.match import session

SPECTATOR = "spectator"


@pytest.fixture(scope="module")
def ambon(tmp_path_factory):
    return ambon_game(tmp_path_factory)


@pytest.fixture(scope="module")
def dice(tmp_path_factory):
    return dice_game(tmp_path_factory)


@pytest.fixture(scope="module")
def ambon_secrets(ambon):
    return secrets_of(ambon)


def homes(game: DemoGame, where: Path) -> dict[str, Path | None]:
    """A copy of each player's keystore (the demo's are shared), and none for the spectator."""
    found: dict[str, Path | None] = {}
    for name in game.dirs:
        target = where / f"home-{name}"
        if not target.exists():
            shutil.copytree(game.root / name / "keystore", target)
        found[name] = target
    found[SPECTATOR] = None
    return found


def run(home: Path | None, *args, columns: str = "200"):
    env = {"COLUMNS": columns, "PBEM_HOME": str(home) if home else "/nonexistent-pbem-home"}
    return CliRunner().invoke(main, [str(a) for a in args], env=env, catch_exceptions=False)


def ok(home: Path | None, *args, **options) -> str:
    r = run(home, *args, **options)
    assert r.exit_code == 0, r.output
    return r.output


def directory_of(game: DemoGame, who: str) -> Path:
    return game.dirs[who if who != SPECTATOR else next(iter(game.dirs))]


def stages(game: DemoGame) -> list[int]:
    last = len(game.messages()) - 1
    return [0, last // 2, last]


def heading(game: DemoGame, n: int) -> list[str]:
    last = len(game.messages()) - 1
    msg = session.verify([directory_of(game, SPECTATOR)]).transcript.messages[n]
    of = f"the last of 0000-{last:04d}" if n == last else f"of 0000-{last:04d}"
    return [f"The position after message {n:04d} ({of}), written by {msg.side}"]


# --------------------------------------------------------------------------- the same as pbem showed then


@pytest.mark.parametrize("who", ["kenji", "jack", SPECTATOR])
def test_show_at_n_is_the_board_pbem_showed_after_message_n(ambon, who, tmp_path):
    """At 0, a middle message and the last, for each side and a spectator:
    the view (--json) and the board (text) are those ``pbem show`` gives on
    the directory as it was after message N; the heading says where."""
    home = homes(ambon, tmp_path)[who]
    full = directory_of(ambon, who)
    flags = ("--spectator",) if who == SPECTATOR else ()
    for n in stages(ambon):
        then = prefix_dir(ambon, who if who != SPECTATOR else "kenji", n + 1, tmp_path)
        at = json.loads(ok(home, "show", full, "--at", n, "--json", *flags))
        was = json.loads(ok(home, "show", then, "--json"))
        assert at["view"] == was["view"] and at["events"] == was["events"] and at["next"] == was["next"], n
        assert at["you"] == (None if who == SPECTATOR else ambon.sides[who])
        assert at["messages"] == n + 1 and at["at"]["seq"] == n and at["at"]["messages"] == len(ambon.messages())
        text = ok(home, "show", full, "--at", n, *flags)
        lines = text.splitlines()
        assert lines[:1] == heading(ambon, n), lines[:2]
        assert lines[1].startswith("awaited then: ")
        board = ok(home, "show", then).replace(str(then), str(full)).splitlines()
        if n < len(ambon.messages()) - 1:  # the past: its heading says what was awaited, not "next: ... your move"
            assert board[-1].startswith("next: message ") and lines[2:] == board[:-1], n
            assert f"(written since: --at {n + 1})" in lines[1]
        else:
            assert lines[2:] == board


def test_show_at_the_last_message_is_todays_show(ambon, tmp_path):
    home = homes(ambon, tmp_path)["jack"]
    last = len(ambon.messages()) - 1
    today = ok(home, "show", ambon.dirs["jack"])
    at = ok(home, "show", ambon.dirs["jack"], "--at", last)
    assert at.splitlines()[2:] == today.splitlines()
    assert at.splitlines()[:2] == heading(ambon, last) + ["awaited then: nothing: the game was over"]
    assert heading(ambon, last)[0].startswith(f"The position after message {last:04d} (the last of 0000-{last:04d}), ")


@pytest.mark.parametrize("who", ["kenji", "jack", SPECTATOR])
def test_log_at_n_lists_the_events_up_to_message_n(ambon, who, tmp_path):
    home = homes(ambon, tmp_path)[who]
    full = directory_of(ambon, who)
    flags = ("--spectator",) if who == SPECTATOR else ()
    everything = json.loads(ok(home, "log", full, "--json", *flags))["events"]
    for n in stages(ambon):
        then = prefix_dir(ambon, who if who != SPECTATOR else "kenji", n + 1, tmp_path)
        at = json.loads(ok(home, "log", full, "--at", n, "--json", *flags))
        assert at["events"] == json.loads(ok(home, "log", then, "--json"))["events"], n
        # up to and including message N; the dice it keyed only for the player whose reply completed them
        rolled_by_me = who != SPECTATOR and n + 1 < len(ambon.messages()) and ambon.sides[who] != at["at"]["author"]
        assert {e["seq"] for e in at["events"]} <= set(range(n + 2 if rolled_by_me else n + 1))
        assert [e for e in everything if e["seq"] <= n] == [e for e in at["events"] if e["seq"] <= n]
        assert all(not r["provisional"] for r in at["rolls"]) or n == len(ambon.messages()) - 1
        text = ok(home, "log", full, "--at", n, "--all", *flags)
        assert text.splitlines()[:1] == heading(ambon, n)
        for e in at["events"]:
            assert e["text"] in text


# --------------------------------------------------------------------------- hidden information


@pytest.mark.parametrize("who", ["jack", "kenji", SPECTATOR])  # a test a viewer: they run side by side
def test_a_view_at_n_shows_no_secret_of_the_other_side(ambon, ambon_secrets, tmp_path, who):
    """The demo is over: its closing messages publish both sides' secrets,
    and a view of the end shows every concealed piece and mine.  A view at
    N shows only what its viewer held after message N: the other side's
    values before their reveal, chain values, salts and per-game secrets
    never; the viewer's own values, yes (the detector's positive control)."""
    secrets = ambon_secrets
    owned = {name: side for name, side in ambon.sides.items()}
    assert who == SPECTATOR or who in owned
    problems, own_seen = [], 0
    last = len(ambon.messages()) - 1
    reveals = sorted({v.revealed_in for v in secrets.values if v.revealed_in < last})
    picked = sorted({r - 1 for r in reveals[:3]} | {last // 2, last - 2})  # just before a reveal: still hidden
    for home in [homes(ambon, tmp_path)[who]]:
        full = directory_of(ambon, who)
        flags = ("--spectator",) if who == SPECTATOR else ()
        mine = owned.get(who)
        others = type(secrets)(secrets.keys, secrets.timed, [v for v in secrets.values if v.side != mine],
                               secrets.slots, secrets.count)
        for n in picked:
            texts = [ok(home, "show", full, "--at", n, *options, *flags)
                     for options in ((), ("--json",), ("--full",))]
            texts += [ok(home, "log", full, "--at", n, *options, *flags) for options in ((), ("--json",))]
            html = tmp_path / f"{who}-{n}.html"
            svg = tmp_path / f"{who}-{n}.svg"
            ok(home, "show", full, "--at", n, "--html", html, "--svg", svg, *flags)
            texts += [html.read_text(), svg.read_text()]
            for text in texts:
                problems += [f"{who} --at {n}: {leak}" for leak in leaks(text, others, n + 1)]
            if mine:
                own_seen += sum(bool(value_leaks(t, [v for v in secrets.hidden_values(n + 1) if v.side == mine],
                                                 secrets.slots)) for t in texts)
    assert not problems, "\n".join(problems[:20])
    if owned.get(who) == "allied":  # the side whose hidden pieces (4.1 concealed units, mines) its own view shows
        assert own_seen, "the detector never saw the Allied player's own hidden values in their own view"


def test_the_end_of_the_game_shows_what_a_view_at_n_must_not(ambon, ambon_secrets, tmp_path):
    """The control for the test above: the same detector on today's view
    (the closing messages published everything) finds the Allied values
    that were hidden at message 4."""
    home = homes(ambon, tmp_path)["kenji"]
    hidden = [v for v in ambon_secrets.hidden_values(5) if v.side == "allied"]
    today = ok(home, "show", ambon.dirs["kenji"], "--json")
    at = ok(home, "show", ambon.dirs["kenji"], "--at", 4, "--json")
    assert value_leaks(today, hidden, ambon_secrets.slots)
    assert not value_leaks(at, hidden, ambon_secrets.slots)


def test_the_dice_game_note_appears_at_n_only_for_its_author_until_revealed(dice, tmp_path):
    """The dice demo: ann seals a note, revealed in message 0004."""
    secrets = secrets_of(dice)
    (note,) = secrets.values
    author = next(name for name, side in dice.sides.items() if side == note.side)
    other = next(name for name in dice.dirs if name != author)
    h = homes(dice, tmp_path)
    for n in range(len(dice.messages())):
        mine = ok(h[author], "show", dice.dirs[author], "--at", n)
        theirs = ok(h[other], "show", dice.dirs[other], "--at", n)
        spectator = ok(None, "show", dice.dirs[other], "--at", n)
        logged = ok(h[other], "log", dice.dirs[other], "--at", n, "--json")
        public = n >= note.revealed_in
        assert (note.value in theirs) == public and (note.value in spectator) == public, n
        assert (note.value in logged) == public, n
        for text in (theirs, spectator, logged):
            assert not leaks(text, type(secrets)(secrets.keys, secrets.timed, [], secrets.slots, secrets.count), n + 1)
        assert mine.splitlines()[0].startswith(f"The position after message {n:04d} ")
    author_at_revealed = ok(h[author], "show", dice.dirs[author], "--at", note.revealed_in - 1)
    assert note.value in author_at_revealed  # the author sees it sealed ("only you")


def test_the_dice_game_rolls_at_n(dice, tmp_path):
    """The rolls of a view at N are those declared by then: for a
    spectator, each one keyed by message N is pending; every earlier one
    is rolled, with the same values as in the whole game's log."""
    everything = json.loads(ok(None, "log", dice.dirs["ann"], "--json"))["declared_rolls"]
    rolled = {r["label"]: r for r in everything if not r["pending"]}
    for n in range(len(dice.messages())):
        at = json.loads(ok(None, "log", dice.dirs["ann"], "--at", n, "--json"))
        for r in at["declared_rolls"]:
            if r["pending"]:
                assert r["keyed_by"] == n
            else:
                assert r["keyed_by"] < n and r["shown"] == rolled[r["label"]]["shown"]
        assert {r["label"] for r in at["declared_rolls"]} == {r["label"] for r in everything if r["keyed_by"] <= n}


# --------------------------------------------------------------------------- the options and the kept views


def test_at_works_with_around_radius_full_svg_html(ambon, tmp_path):
    home = homes(ambon, tmp_path)["jack"]
    full = ambon.dirs["jack"]
    then = prefix_dir(ambon, "jack", 11, tmp_path)
    for window in (("--around", "1609", "--radius", "2"), ("--full",), ("--around", "0812")):
        at = ok(home, "show", full, "--at", 10, *window).splitlines()
        assert at[2:] == ok(home, "show", then, *window).splitlines()[:-1], window
    svg, html = tmp_path / "at.svg", tmp_path / "at.html"
    ok(home, "show", full, "--at", 10, "--svg", svg, "--html", html)
    ok(home, "show", then, "--svg", tmp_path / "then.svg", "--html", tmp_path / "then.html")
    assert "after message 0010 (of 0000-" in svg.read_text()
    page = html.read_text()
    assert f"The position after message 0010 (of 0000-{len(ambon.messages()) - 1:04d})" in page
    assert "awaited then: " not in page and "<th>Awaited then</th>" in page and "(written since: --at 11)" in page
    assert "after message 0010" in page.split("<title>")[1].split("</title>")[0]
    # the same board as the directory then (the titles aside)
    assert svg.read_text().count('class="counter"') == (tmp_path / "then.svg").read_text().count('class="counter"')


@pytest.mark.parametrize("command", ["show", "log"])
def test_at_out_of_range_is_a_usage_error_naming_at_and_the_range(ambon, command, tmp_path):
    home = homes(ambon, tmp_path)["kenji"]
    count = len(ambon.messages())
    r = run(home, command, ambon.dirs["kenji"], "--at", count)
    assert r.exit_code == 2
    assert r.output == f"Error: --at {count}: no such message; this game has messages 0 to {count - 1}\n"
    r = run(home, command, ambon.dirs["kenji"], "--at", -1)
    assert r.exit_code == 2 and "Invalid value for '--at': -1 is not in the range x>=0." in r.output


def test_a_view_at_n_is_drawn_from_the_files_and_today_is_unchanged(ambon, tmp_path):
    """A view at N replays messages 0..N afresh; the replay kept in the
    keystore is the whole game's, so today's view afterwards is as before."""
    home = homes(ambon, tmp_path)["kenji"]
    directory = ambon.dirs["kenji"]
    today = ok(home, "show", directory)
    past = ok(home, "show", directory, "--at", 6)
    assert past != today and ok(home, "show", directory, "--at", 6, "--json")
    assert ok(home, "show", directory) == today


def test_spectator_flag_gives_the_spectators_view_with_a_players_key(ambon, tmp_path):
    home = homes(ambon, tmp_path)["jack"]
    directory = ambon.dirs["jack"]
    own = json.loads(ok(home, "show", directory, "--at", 8, "--json"))
    watched = json.loads(ok(home, "show", directory, "--at", 8, "--json", "--spectator"))
    nobody = json.loads(ok(None, "show", directory, "--at", 8, "--json"))
    assert own["you"] == "allied" and watched["you"] is None
    assert watched["view"] == nobody["view"] != own["view"]
    assert "(a spectator's view" in ok(home, "show", directory, "--at", 8, "--spectator")
    assert json.loads(ok(home, "log", directory, "--json", "--spectator"))["you"] is None
