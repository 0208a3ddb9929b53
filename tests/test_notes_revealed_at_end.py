"""Issue 30: a sealed note nobody revealed during the game is known to all
once both closing messages have published the secrets that open it: `pbem
show`, the HTML page and `pbem verify --audit --json` show its text (as
written: its control characters visible), never "(hidden)"."""

from __future__ import annotations

import json

from conftest import exchange

SEALED = """
[[order]]
type = "seal"
slot = "plan"
text = "the real attack goes in at dawn \\u001b[31m"
"""
SHOWN = "the real attack goes in at dawn \\x1b[31m"  # ESC written out, as pbem.render.literal shows it


def finished(a, b, tmp_path):
    """A dice game whose note is sealed, never revealed, and the game ended and closed."""
    exchange(a, b, tmp_path, SEALED)
    exchange(b, a, tmp_path, '[[order]]\ntype = "roll"\ndice = "d20"\n')
    exchange(a, b, tmp_path, '[[order]]\ntype = "end"\n')
    exchange(b, a, tmp_path)


def test_show_gives_a_note_sealed_to_the_end_its_text_once_the_game_is_closed(started, tmp_path):
    a, b = started
    exchange(a, b, tmp_path, SEALED)
    r = b.run("show", b.game, COLUMNS="200")
    assert "(hidden)" in r.output and "dawn" not in r.output  # while the game goes on: sealed
    exchange(b, a, tmp_path, '[[order]]\ntype = "roll"\ndice = "d20"\n')
    exchange(a, b, tmp_path, '[[order]]\ntype = "end"\n')
    exchange(b, a, tmp_path)
    for player in (a, b):
        r = player.run("show", player.game, COLUMNS="200")
        assert r.exit_code == 0, r.output
        assert SHOWN in r.output and "\x1b[31m" not in r.output
        assert "revealed at the end" in r.output and "(hidden)" not in r.output


def test_the_html_page_gives_a_note_sealed_to_the_end_its_text(started, tmp_path):
    a, b = started
    finished(a, b, tmp_path)
    page = tmp_path / "game.html"
    r = b.run("html", b.game, page)
    assert r.exit_code == 0, r.output
    text = page.read_text()
    assert SHOWN in text and "\x1b" not in text
    assert "revealed at the end" in text and "(hidden)" not in text


def test_verify_audit_json_gives_a_note_sealed_to_the_end_its_text(started, tmp_path):
    a, b = started
    finished(a, b, tmp_path)
    files = sorted(a.game.glob("*.pbem"))
    r = a.run("verify", *files, "--audit", "--json", PBEM_HOME=str(tmp_path / "nobody"))  # anyone, with no key
    assert r.exit_code == 0, r.output
    report = json.loads(r.output)
    (note,) = report["notes"]
    assert note["slot"] == "plan" and note["side"] == "first" and note["revealed_in"] is None
    assert note["value"] == "the real attack goes in at dawn \x1b[31m" and note["at_end"] is True
