"""Issue 15: a cold ``pbem show`` gets the Ambon game ready cheaply.

Viewing a position -- a show from a current checkpoint applies no message --
imports the state, the data and the views, not the rules that apply orders
(pbem.games.ambon.game); and the parsed data files are kept between runs
(pbem.engine.datacache), for exactly the bytes they were parsed from."""

from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from pbem.engine import datacache
from pbem.engine.mapdata import DataFile
from pbem.engine.ruleset import ruleset_hash
from pbem.games.ambon.data import DATA, RULINGS_FILE, AmbonData

#: the rules a view never needs: imported when an order, a die or a message end is applied
RULES = ["battle", "bombardment", "combat", "entering", "handlers", "hidden", "landing", "phases", "recovery",
         "retreat", "reveals", "scenario", "supply", "template", "bot"]

VIEW = """
import pickle, sys
states = pickle.load(sys.stdin.buffer)
from pbem import games
game = games.get("ambon")
for state in states:
    for side in (None, "japanese", "allied"):
        game.view(state, side)
    game.result(state), game.awaiting(state), game.is_over(state), game.active_side(state)
print(" ".join(sorted(m for m in sys.modules if m.startswith("pbem.") or m.startswith("tomllib"))))
"""


def fresh_interpreter(code: str, stdin: bytes = b"", **env: str) -> list[str]:
    """The modules a new interpreter running ``code`` ends with."""
    done = subprocess.run([sys.executable, "-c", code], input=stdin, capture_output=True, check=True,
                          env={**os.environ, **env})
    return done.stdout.decode().split()


def positions(tmp_path_factory) -> list:
    """A finished game's last position (the Ambon demo, as a checkpoint restores it), one in mid-turn and the first."""
    from demo_games import ambon_game

    from pbem.games.ambon import GAME
    from pbem.match import session

    played = ambon_game(tmp_path_factory)
    over = session.load(played.dirs["jack"], played.identities["jack"], keep=False).replay.state
    assert GAME.is_over(over)
    midturn = GAME.scenario_state({"turn": 3, "phase": "allied-combat", "positions": {"NEI-2.B": "1509", "3.C": "1508"},
                                   "concealed": {"X1": "1407"}})
    return [over, midturn, GAME.initial_state({})]


def test_viewing_a_position_imports_no_rules(tmp_path, tmp_path_factory):
    loaded = fresh_interpreter(VIEW, pickle.dumps(positions(tmp_path_factory)), PBEM_HOME=str(tmp_path))
    assert "pbem.games.ambon.views" in loaded and "pbem.games.ambon.state" in loaded
    assert [m for m in RULES if f"pbem.games.ambon.{m}" in loaded] == []


def test_applying_an_action_imports_the_rules(tmp_path):
    code = """
import sys
from pbem import games
from pbem.engine.machine import MessageEnd
game = games.get("ambon")
game.apply(game.initial_state({}), MessageEnd("allied", 0))
print(" ".join(sorted(m for m in sys.modules if m.startswith("pbem."))))
"""
    loaded = fresh_interpreter(code, PBEM_HOME=str(tmp_path))
    assert {"pbem.games.ambon.handlers", "pbem.games.ambon.phases", "pbem.games.ambon.battle"} <= set(loaded)


# --------------------------------------------------------------------------- the parsed data kept


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """A keystore home of its own: the cache is ``home/parsed``."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("PBEM_HOME", str(home))
    return home


@pytest.fixture
def parses(monkeypatch) -> list[str]:
    """The labels of the files TOML parsing reads (the cache's misses)."""
    from pbem.util import tomlfile

    seen: list[str] = []
    real = tomlfile.parse

    def counted(raw, label, error=tomlfile.InputError):
        seen.append(Path(label).name)
        return real(raw, label, error)

    monkeypatch.setattr(tomlfile, "parse", counted)
    return seen


SHIPPED = sorted(p.name for p in DATA.glob("*.toml") if p.name != RULINGS_FILE)  # the rulings are not the data


def same(a, b) -> bool:
    """Equal with the same types all the way down (``1 == 1.0 == True`` are not the same)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def test_a_load_parses_each_file_once_then_reads_the_cache(home, parses):
    first = AmbonData()
    assert sorted(parses) == SHIPPED
    folder = home / "parsed"
    assert oct(folder.stat().st_mode & 0o777) == "0o700"
    entries = sorted(folder.iterdir())
    assert len(entries) == len(SHIPPED) and {oct(p.stat().st_mode & 0o777) for p in entries} == {"0o600"}
    del parses[:]
    again = AmbonData()
    assert parses == []  # every document from the cache
    assert again.values == first.values and again.turns == first.turns and again.scenario == first.scenario
    assert dict(again.map.terrain) == dict(first.map.terrain) and again.lanes == first.lanes
    assert again.dataset.ruleset_hash() == first.dataset.ruleset_hash() == ruleset_hash(
        (p.name, p.read_bytes()) for p in DATA.glob("*.toml") if p.name != RULINGS_FILE)  # the files' own bytes


def test_the_cache_holds_exactly_what_parsing_gives(home):
    """Every shipped data file of every game, through the cache and back."""
    files = sorted((Path(datacache.__file__).parent.parent / "games").glob("*/data/*.toml"))
    assert len(files) > 10
    for path in files:
        raw = path.read_bytes()
        parsed = tomllib.loads(raw.decode())
        DataFile.read(raw, str(path), path.name)  # kept
        src, cached = DataFile.read(raw, str(path), path.name)  # read back
        assert same(cached, parsed), path
        assert src.lines == raw.decode().splitlines()


def test_a_fresh_interpreter_with_the_cache_does_not_parse(home):
    code = "import sys; from pbem import games; games.get('ambon'); print(' '.join(sys.modules))"
    assert "tomllib" in fresh_interpreter(code)  # the first load parses ...
    assert "tomllib" not in fresh_interpreter(code)  # ... the next reads what it kept


def test_a_changed_file_is_parsed_again(home, parses, tmp_path):
    AmbonData()
    override = tmp_path / "override"
    override.mkdir()
    charts = (DATA / "charts.toml").read_text()
    assert "stacking_limit = 3" in charts
    (override / "charts.toml").write_text(charts.replace("stacking_limit = 3", "stacking_limit = 2"))
    del parses[:]
    changed = AmbonData(str(override))
    assert parses == ["charts.toml"] and changed.value("stacking_limit") == 2
    del parses[:]
    assert AmbonData().value("stacking_limit") == 3 and parses == []


@pytest.mark.parametrize("damage", [b"", b"{not json", b"[1, 2]", b"\xff\xfe", b'"a string"'])
def test_a_damaged_entry_is_parsed_again_and_replaced(home, parses, damage):
    first = AmbonData()
    for entry in (home / "parsed").iterdir():
        entry.write_bytes(damage)
    del parses[:]
    again = AmbonData()
    assert sorted(parses) == SHIPPED and again.values == first.values
    del parses[:]
    AmbonData()
    assert parses == []  # rewritten


def test_a_folder_others_may_write_is_neither_read_nor_written(home, parses):
    folder = home / "parsed"
    folder.mkdir()
    folder.chmod(0o777)
    AmbonData()
    AmbonData()
    assert sorted(parses) == sorted(SHIPPED * 2)
    assert list(folder.iterdir()) == []


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to make another user's folder")
def test_another_users_folder_is_not_used(home, parses):
    folder = home / "parsed"
    folder.mkdir(mode=0o700)
    os.chown(folder, 65534, 65534)
    AmbonData()
    assert sorted(parses) == SHIPPED and list(folder.iterdir()) == []


def test_no_keystore_home_no_cache(tmp_path, monkeypatch, parses):
    missing = tmp_path / "no-such-home"
    monkeypatch.setenv("PBEM_HOME", str(missing))
    AmbonData()
    AmbonData()
    assert len(parses) == 2 * len(SHIPPED) and not missing.exists()  # the keystore home is never made for it


def test_a_document_json_cannot_hold_exactly_is_not_kept(home, parses):
    raw = b'when = 1942-01-30\nfar = inf\n'
    for _ in range(2):
        _, doc = DataFile.read(raw, "dates.toml", "dates.toml")
        assert str(doc["when"]) == "1942-01-30"
    assert parses == ["dates.toml", "dates.toml"] and list((home / "parsed").iterdir()) == []


def test_a_bad_file_is_never_kept(home):
    from pbem.errors import DataError

    for _ in range(2):
        with pytest.raises(DataError, match="bad.toml: not valid TOML"):
            DataFile.read(b"x = = 1\n", "bad.toml", "bad.toml")
    assert list((home / "parsed").iterdir()) == []


def test_only_the_newest_entries_are_kept(home, monkeypatch):
    monkeypatch.setattr(datacache, "KEPT", 3)
    for i in range(6):
        raw = f"n = {i}\n".encode()
        DataFile.read(raw, f"n{i}.toml", "n.toml")
        entries = list((home / "parsed").glob("*.json"))
        assert len(entries) == min(i + 1, 3)
        os.utime(home / "parsed" / f"{datacache._digest(raw)}.json", ns=(i * 10**9, i * 10**9))  # one a second
    kept = sorted(json.loads(p.read_text())["n"] for p in entries)
    assert kept == [3, 4, 5]


def test_deleting_the_cache_is_safe(home, parses):
    AmbonData()
    shutil.rmtree(home / "parsed")
    del parses[:]
    AmbonData()
    assert sorted(parses) == SHIPPED  # made again
