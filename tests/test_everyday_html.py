"""pbem html: a self-contained page with the board, the order of battle and
the log; rendered in headless Chromium when it is installed."""

from __future__ import annotations

import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from everyday_support import ROLL, SEAL, ambon_opening, play

CHROMIUM = next((p for p in ("/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser")) if p and Path(p).exists()), None)


class Structure(HTMLParser):
    """Checks the page is well-formed enough and collects what matters."""

    def __init__(self):
        super().__init__()
        self.tags: list[str] = []
        self.external: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for name, value in attrs:
            if name in ("src", "href") and value and not value.startswith("#"):
                self.external.append(value)


def page(player, tmp_path, *args) -> str:
    out = tmp_path / "game.html"
    r = player.run("html", player.game, out, *args)
    assert r.exit_code == 0, r.output
    return out.read_text()


def test_an_ambon_page_has_the_board_the_order_of_battle_and_the_log(players, tmp_path):
    j, a = ambon_opening(players, tmp_path)
    text = page(a, tmp_path)
    parser = Structure()
    parser.feed(text)
    assert "svg" in parser.tags and "polygon" in parser.tags and parser.external == []  # self-contained
    assert "<h2>Order of battle</h2>" in text and "<h2>Log</h2>" in text
    assert "attempt a landing from fw-laha on 0713" in text
    assert "only you" in text and "Keep it to yourself" in text  # the Allied player's own identities
    spectator = page(a, tmp_path, "--spectator")
    assert "only you" not in spectator and not re.search(r"\b(dummy|detachment) \(only", spectator)
    assert "spectator's view" in spectator


def test_a_dice_page_shows_rolls_and_notes_without_a_board(started, tmp_path):
    a, b = started
    sent = play(a, tmp_path, ROLL + SEAL)
    text = page(a, tmp_path)
    assert "<svg" not in text and "Dice awaiting the next message" in text and "Sealed notes" in text
    assert b.run("receive", b.game, sent).exit_code == 0  # keys Ann's roll: now a roll done
    done = page(b, tmp_path)
    assert "<h2>Rolls</h2>" in done and re.search(r"<td>rolls declared</td>\s*<td>1</td>", done)
    assert "the real attack goes in at dawn" in text  # Ann's own note, on Ann's own page
    assert "dawn" not in page(a, tmp_path, "--spectator")


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)")
def test_headless_chromium_draws_the_board(players, tmp_path):
    j, a = ambon_opening(players, tmp_path)
    page(a, tmp_path)
    done = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={tmp_path / 'profile'}",  # its own
         "--dump-dom", (tmp_path / "game.html").as_uri()],  # profile: others may run at the same time (test_board_browser)
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    body = re.search(r"<body[^>]*>", done.stdout)
    assert body, done.stdout[:500]
    width = int(re.search(r'data-board-width="(\d+)"', body.group(0)).group(1))
    height = int(re.search(r'data-board-height="(\d+)"', body.group(0)).group(1))
    counters = int(re.search(r'data-counters="(\d+)"', body.group(0)).group(1))
    assert width > 300 and height > 300  # the browser laid the board out
    assert counters > 10  # and drew the counters on it
    # the page's script measured every label against its counter or box: none overflows (tests/test_board_browser.py)
    assert int(re.search(r'data-texts-checked="(\d+)"', body.group(0)).group(1)) > 300
    assert 'data-overflowing="0"' in body.group(0), re.search(r'<pre id="overflow"[^>]*>(.*?)</pre>', done.stdout, re.S)
