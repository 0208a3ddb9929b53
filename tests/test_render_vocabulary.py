"""Issue 29: the renderers draw a :class:`pbem.engine.boardview.BoardView`
and read no game's words -- what "overstacked", "out of supply" or a mine
marker mean is said by each game's own boardview module, as marks and
legend entries.  A renderer that names one of them (in code, a string or a
comment) has started to know a game again."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

RENDER = Path(__file__).resolve().parent.parent / "pbem" / "render"

#: words of the shipped games' rules and views, and the view keys the renderers used to parse
GAME_WORDS = ("overstacked", "overstacking", "mines", "eliminated", "eliminated_sides", "oos", "disrupted",
              "beachhead", "concealed", "marker_names", "box_names", "ambon", "calumpit", "asl", "japanese",
              "allied", "american", "combat", "bombard", "bombardment", "dare-death", "berserk")
PATTERN = re.compile(r"(?<![A-Za-z0-9])(" + "|".join(re.escape(w) for w in GAME_WORDS) + r")(?![A-Za-z0-9])", re.I)


def renderers() -> list[Path]:
    return sorted(RENDER.glob("*.py"))


def test_the_renderers_are_all_scanned():
    assert {p.name for p in renderers()} >= {"board.py", "console.py", "hexmap.py", "html.py", "svg.py"}


@pytest.mark.parametrize("path", renderers(), ids=lambda p: p.name)
def test_a_renderer_reads_no_game_vocabulary(path):
    found = [f"{path.name}:{n}: {m.group(0)!r}: {line.strip()}"
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             for m in PATTERN.finditer(line)]
    assert found == []


def test_the_scan_finds_a_game_word_where_there_is_one():
    assert PATTERN.search('view.get("overstacked")') and PATTERN.search("an OOS strip") and PATTERN.search("Ambon 9.0")
    assert not PATTERN.search("determines the column") and not PATTERN.search("the examined boxes")
