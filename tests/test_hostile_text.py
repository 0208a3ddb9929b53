"""Issue 27: markup and escapes in the opponent's text.  Every text that
comes from a message (a roll's note, a sealed note revealed), a key's
comment, an email's header or a view is shown literally on every output
path: never read as rich markup (``[/]`` broke show and log for good,
``[link=...]`` made a hyperlink, ``attack [north]`` lost ``[north]``), and
its control characters made visible the way Python writes them (ESC as
``\\x1b``), so no byte of it reaches a terminal as a command -- through
CliRunner, through rich's terminal rendering (``TTY_COMPATIBLE=1``) and
through a real pseudo-terminal."""

from __future__ import annotations

import json
import mailbox
import os
import re
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
from conftest import Player, exchange, last_line
from everyday_support import email_with, play

from pbem.protocol.keys import Identity
from pbem.protocol.keystore import Keystore
from pbem.render.literal import literal, visible

ESC = "\x1b"
HOSTILE = "\x1b[2J\x1b[31mFIRST RESIGNS [/] [link=https://evil]x[/link] attack [north]"
SHOWN = r"\x1b[2J\x1b[31mFIRST RESIGNS [/] [link=https://evil]x[/link] attack [north]"
SGR = re.compile(r"\x1b\[[0-9;]*m")  # rich's own styling: colours, bold
RICH = re.compile(r"\x1b\[(?:[0-9;]*m|\?25[lh]|2K|[0-9]*A)")  # and its progress bar: cursor hidden, line erased, up


def toml_string(text: str) -> str:
    return json.dumps(text)  # a JSON string is a TOML basic string: ESC as \u001b


def roll(note: str) -> str:
    return f'[[order]]\ntype = "roll"\ndice = "2d6"\nnote = {toml_string(note)}\n'


def no_terminal_command(output: str) -> str:
    """``output`` less rich's own colours, after checking that it holds no
    other ESC than rich's own: no clear screen, no colour of the
    opponent's, no hyperlink (``ESC ] 8``)."""
    assert ESC not in RICH.sub("", output), repr(output)
    return SGR.sub("", output)


def at_terminal(player: Player, *args: str):
    """The command as rich draws it for a terminal (colours and links on)."""
    return player.run(*args, TTY_COMPATIBLE="1")


@pytest.fixture
def noted(started, tmp_path):
    """Ann declared a roll with the hostile note; Bob received it (and so rolled it)."""
    a, b = started
    exchange(a, b, tmp_path, roll(HOSTILE))
    return a, b


def test_a_roll_note_with_rich_markup_is_shown_literally_by_show_and_log(noted):
    a, b = noted
    for player in (a, b):
        for command in ("show", "log"):
            r = player.run(command, player.game)
            assert r.exit_code == 0, r.output  # was exit 3, rich.errors.MarkupError, for both players
            assert "[/] [link=https://evil]x[/link] attack [north]" in r.output, r.output
    r = b.run("log", b.game, "--spectator")
    assert r.exit_code == 0 and "FIRST RESIGNS [/]" in r.output, r.output


def test_a_link_markup_note_is_not_a_hyperlink(noted):
    a, b = noted
    for command in ("show", "log"):
        r = at_terminal(b, command, b.game)
        assert r.exit_code == 0, r.output
        assert "\x1b]8;" not in r.output  # OSC 8: a clickable link
        assert "[link=https://evil]x[/link]" in SGR.sub("", r.output)


def test_escape_sequences_in_a_note_reach_no_terminal(noted, tmp_path):
    a, b = noted
    for command in ("show", "log"):
        for r in (b.run(command, b.game), at_terminal(b, command, b.game)):
            assert r.exit_code == 0, r.output
            assert SHOWN in no_terminal_command(r.output)
    sent = play(b, tmp_path)  # bob's reply completes ann's roll: she sees it on receipt
    r = at_terminal(a, "receive", a.game, sent)
    assert r.exit_code == 0, r.output
    assert r"\x1b[2J\x1b[31mFIRST RESIGNS" in no_terminal_command(r.output)


def test_square_brackets_in_an_order_survive_in_the_log(started, tmp_path):
    a, b = started
    exchange(a, b, tmp_path, roll("attack [north] with [bold]everything[/bold]"))
    for r in (b.run("log", b.game), at_terminal(b, "log", b.game), b.run("show", b.game)):
        assert r.exit_code == 0, r.output
        assert "attack [north] with [bold]everything[/bold]" in SGR.sub("", r.output), r.output


def test_a_revealed_sealed_note_with_markup_and_escapes_is_shown_literally(started, tmp_path):
    a, b = started
    seal = f'[[order]]\ntype = "seal"\nslot = "plan"\ntext = {toml_string(HOSTILE)}\n'
    exchange(a, b, tmp_path, seal)
    r = at_terminal(a, "show", a.game)  # the author's own, still sealed
    assert r.exit_code == 0, r.output
    plain = no_terminal_command(r.output)
    assert SHOWN in plain and "[only you see this]" in plain
    exchange(b, a, tmp_path)
    exchange(a, b, tmp_path, '[[order]]\ntype = "reveal"\nslot = "plan"\n')
    for r in (b.run("show", b.game), at_terminal(b, "show", b.game)):
        assert r.exit_code == 0, r.output
        assert SHOWN in no_terminal_command(r.output)


def test_the_author_of_a_sealed_note_is_told_only_you_see_this_in_brackets(started, tmp_path):
    a, b = started
    exchange(a, b, tmp_path, '[[order]]\ntype = "seal"\nslot = "plan"\ntext = "dawn"\n')
    r = a.run("show", a.game)
    assert r.exit_code == 0 and "dawn  [only you see this]" in r.output, r.output  # was read as a style tag


def test_a_key_comment_with_markup_and_escapes_is_shown_visibly_by_join(tmp_path):
    # control characters are refused in a key's comment (test_known_keys); markup is printable and stays
    name = "Ann [/] [link=https://evil]x[/link] [red]"
    a = Player("ann", tmp_path / "home-ann", tmp_path / "ann")
    b = Player("bob", tmp_path / "home-bob", tmp_path / "bob")
    Keystore(a.home)._store(Identity.from_seed(bytes(range(32)), name), None)
    assert b.run("key", "new", "--name", "bob", "--no-passphrase").exit_code == 0
    r = a.run("new", a.game, "--game", "dice", "--as", "first", "--opponent", b.pub())
    assert r.exit_code == 0, r.output
    r = at_terminal(b, "join", last_line(r.output), "--dir", b.game)
    assert r.exit_code == 0, r.output
    assert "(Ann [/] [link=https://evil]x[/link] [red])" in no_terminal_command(r.output)
    assert "\x1b]8;" not in r.output
    r = at_terminal(b, "status", b.game)
    assert r.exit_code == 0, r.output
    no_terminal_command(r.output)


def test_an_email_subject_with_markup_and_escapes_is_shown_literally_by_import(started, tmp_path):
    a, b = started
    sent = play(a, tmp_path).read_text()
    path = tmp_path / "inbox.mbox"
    box = mailbox.mbox(str(path))
    box.add(email_with(sent[: len(sent) // 2], "attachment-7bit", "\x1b[2J[/] YOU LOST [north]"))
    box.add(email_with(sent, "attachment-7bit", "the real one"))
    box.close()
    for r in (b.run("import", b.game, path), at_terminal(b, "import", b.game, path)):
        assert r.exit_code == 0, r.output
        plain = no_terminal_command(r.output)
        assert "unreadable: inbox.mbox #1" in plain and r"\x1b[2J[/] YOU LOST [north]" in plain, r.output


def test_a_note_with_a_script_tag_is_escaped_in_the_html_page(noted, tmp_path):
    a, b = noted
    exchange(b, a, tmp_path)
    exchange(a, b, tmp_path, roll("<script>alert(1)</script> & \x1b[2J"))
    page = tmp_path / "page.html"
    r = b.run("html", b.game, page)
    assert r.exit_code == 0, r.output
    text = page.read_text()
    assert "<script>alert" not in text and "&lt;script&gt;alert(1)&lt;/script&gt; &amp; \\x1b[2J" in text
    assert ESC not in text and SHOWN in text


def test_a_hostile_name_in_a_board_view_leaves_the_svg_well_formed_and_the_terminal_untouched():
    from rich.console import Console

    from pbem.games.ambon import GAME
    from pbem.render import board

    view = GAME.view(GAME.scenario_state({"turn": 1, "phase": "japanese-landing", "positions": {"1.A": "fw-liang"}}),
                     None, {})
    view = {**view, "box_names": {"fw-liang": "\x1b[2J<script>x</script> [/] [link=https://evil]y[/link]"}}
    svg = board.board_svg(GAME, view, "hostile \x1b[31m[/]")
    root = ET.fromstring(svg.encode())  # XML 1.0 has no ESC: it was ill-formed
    words = " ".join(root.itertext())
    assert r"\x1b[2J<script>x</script>" in words and r"hostile \x1b[31m[/]" in words and ESC not in svg
    out = Console(width=200, force_terminal=True, record=True, file=open(os.devnull, "w"))
    board.print_board(out, GAME, view, full=True)
    drawn = out.export_text(styles=True)
    assert "\x1b]8;" not in drawn and ESC not in SGR.sub("", drawn)


def test_an_error_quoting_an_opponents_text_shows_its_control_characters(noted, tmp_path):
    a, b = noted
    orders = tmp_path / "bad.toml"
    dice = toml_string("2d6 \x1b[2J [/]")
    orders.write_text(f'[[order]]\ntype = "roll"\ndice = {dice}\n')
    r = b.run("play", b.game, "--orders", orders)
    assert r.exit_code != 0 and ESC not in r.output and r"\x1b[2J" in r.output, r.output


@pytest.mark.skipif(shutil.which("script") is None, reason="needs script(1) for a pseudo-terminal")
def test_through_a_pseudo_terminal_the_log_prints_the_note_literally(noted):
    a, b = noted
    program = f"from pbem.cli import main; main(['log', {str(b.game)!r}])"
    command = shlex.join([sys.executable, "-c", program])
    env = {**os.environ, "PBEM_HOME": str(b.home), "COLUMNS": "200", "TERM": "xterm-256color"}
    env.pop("NO_COLOR", None)
    done = subprocess.run(["script", "-qec", command, "/dev/null"], env=env, capture_output=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    output = done.stdout.decode("utf-8", "replace").replace("\r\n", "\n")
    assert done.returncode == 0, output
    plain = no_terminal_command(output)
    assert "[link=https://evil]x[/link]" in plain and r"\x1b[2J\x1b[31mFIRST RESIGNS" in plain


# --------------------------------------------------------------------------- the helper


@pytest.mark.parametrize("text, shown", [
    ("\x1b[2J", r"\x1b[2J"), ("a\nb\tc\r", r"a\nb\tc\r"), ("\x00\x07\x7f\x9b", r"\x00\x07\x7f\x9b"),
    ("evil\u202egnp.exe", r"evil\u202egnp.exe"), ("[/] [bold]x[/bold]", "[/] [bold]x[/bold]"), ("été", "été"),
])
def test_visible_writes_each_control_character_out_and_leaves_markup_as_text(text, shown):
    assert visible(text) == shown
    assert literal(text).plain == shown and literal(text).spans == []
    assert visible("one\ntwo\x1b", newlines=True) == "one\ntwo\\x1b"


def test_a_hostile_name_in_a_data_sets_map_reaches_no_terminal_and_no_svg():
    from dataclasses import replace

    from rich.console import Console

    from pbem.games.ambon import GAME
    from pbem.render import board

    class Overridden:  # Ambon with a data set whose map is named by the opponent
        map = replace(GAME.map, name="\x1b[2J\x1b]8;;https://evil\x1b\\MAP [/]")

        def board_view(self, view):
            return replace(GAME.board_view(view), map=self.map)

        def __getattr__(self, name):
            return getattr(GAME, name)

    game = Overridden()
    view = GAME.view(GAME.scenario_state({"turn": 1, "phase": "japanese-landing", "positions": {"1.A": "fw-liang"}}),
                     None, {})
    out = Console(width=200, force_terminal=True, record=True, file=open(os.devnull, "w"))
    board.print_board(out, game, view, full=True)
    drawn = out.export_text(styles=True)
    assert r"\x1b[2J\x1b]8;;https://evil\x1b\MAP [/]" in SGR.sub("", drawn) and ESC not in SGR.sub("", drawn)
    svg = board.board_svg(game, view, None)
    ET.fromstring(svg.encode())
    assert ESC not in svg
