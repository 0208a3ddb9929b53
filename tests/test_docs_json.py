"""docs/json.md documents every key a command's ``--json`` prints, and
every document carries ``"schema": 1``: the commands are run on real games
(a dice game played here, the Ambon demo) and each key they print is looked
up in the command's section of the page and in the objects it links to."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import exchange

DOC = Path(__file__).resolve().parent.parent / "docs" / "json.md"


def anchor(title: str) -> str:
    return re.sub(r"[^a-z0-9 -]", "", title.lower()).replace(" ", "-")


def sections() -> dict[str, dict[str, Any]]:
    """Each ``###`` section of the page: its keys, the keys whose contents
    are the game's (not listed), and the sections it links to."""
    found: dict[str, dict[str, Any]] = {}
    title = None
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("### "):
            title = line[4:].strip()
            found[title] = {"keys": set(), "opaque": set(), "links": set()}
            continue
        if title is None:
            continue
        found[title]["links"] |= set(re.findall(r"\]\(#([a-z0-9-]+)\)", line))
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("| `") else []
        if cells:
            key = cells[0].strip("`")
            found[title]["keys"].add(key)
            if "the game's" in cells[1] or "keyed by" in cells[1]:
                found[title]["opaque"].add(key)
    return found


def documented(command: str) -> tuple[set[str], set[str]]:
    """The keys the page gives ``pbem COMMAND --json`` (with every object its section links to), and the opaque ones."""
    every = sections()
    by_anchor = {anchor(t): t for t in every}
    start = [t for t in every if f"pbem {command} --json" in t]
    assert start, f"docs/json.md has no section for pbem {command} --json"
    keys: set[str] = set()
    opaque: set[str] = set()
    todo, seen = list(start), set()
    while todo:
        title = todo.pop()
        if title in seen:
            continue
        seen.add(title)
        keys |= every[title]["keys"]
        opaque |= every[title]["opaque"]
        todo += [by_anchor[a] for a in every[title]["links"] if a in by_anchor]
    return keys, opaque


def printed_keys(value: Any, opaque: set[str]) -> set[str]:
    """Every key of a JSON document, not inside the game's own objects."""
    found: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            found.add(key)
            if key not in opaque:
                found |= printed_keys(item, opaque)
    elif isinstance(value, list):
        for item in value:
            found |= printed_keys(item, opaque)
    return found


def check(command: str, result) -> dict[str, Any]:
    assert result.stdout.strip(), f"pbem {command} --json printed nothing: {result.output}"
    document = json.loads(result.stdout)  # standard output only: what a script reads
    assert document["schema"] == 1
    keys, opaque = documented(command)
    assert printed_keys(document, opaque) - keys == set(), f"pbem {command} --json keys missing from docs/json.md"
    return document


def test_every_key_the_game_commands_print_is_documented(players, tmp_path):
    a, b = players
    check("key show", a.run("key", "show", "--json"))
    made = check("new", a.run("new", a.game, "--game", "dice", "--as", "first", "--opponent", b.pub(), "--json"))
    joined = check("join", b.run("join", made["file"], "--dir", b.game, "--json"))
    check("receive", a.run("receive", a.game, joined["file"], "--json"))
    check("orders", a.run("orders", a.game, "--json"))
    orders = tmp_path / "roll.toml"
    orders.write_text('[[order]]\ntype = "roll"\ndice = "2d6+1"\nnote = "attack"\n'
                      '[[order]]\ntype = "seal"\nslot = "plan"\ntext = "at dawn"\n')
    check("play", a.run("play", a.game, "--orders", orders, "--dry-run", "--json"))
    played = check("play", a.run("play", a.game, "--orders", orders, "--json"))
    r = b.run("receive", b.game, played["file"])
    assert r.exit_code == 0, r.output
    exchange(b, a, tmp_path, '[[order]]\ntype = "roll"\ndice = "d20"\n')
    for command in ("show", "log"):
        document = check(command, a.run(command, a.game, "--json"))
        assert document["declared_rolls"] and document["events"]
    check("status", a.run("status", a.game, "--json"))
    check("data list", a.run("data", "list", "--json"))
    exchange(a, b, tmp_path, '[[order]]\ntype = "end"\n')
    exchange(b, a, tmp_path)
    report = check("verify", a.run("verify", a.game, "--audit", "--json"))
    assert report["ok"] and report["notes"][0]["at_end"]
    empty = tmp_path / "empty"
    empty.mkdir()
    failed = a.run("verify", empty, "--json")
    assert failed.exit_code != 0
    assert check("verify", failed)["ok"] is False


def test_every_key_of_an_ambon_game_is_documented(tmp_path, tmp_path_factory):
    from conftest import Player
    from demo_games import ambon_game

    played = ambon_game(tmp_path_factory)
    shutil.copytree(played.root / "jack" / "keystore", tmp_path / "keystore")
    shutil.copytree(played.root / "jack" / "game", tmp_path / "game")
    jack = Player("jack", tmp_path / "keystore", tmp_path / "game")
    assert check("show", jack.run("show", jack.game, "--json"))["rulings"]
    check("show", jack.run("show", jack.game, "--at", "5", "--json"))
    check("verify", jack.run("verify", jack.game, "--json"))


@pytest.mark.parametrize("missing", ["`events`", "`keyed_by_author`"])
def test_an_undocumented_key_is_found(missing, monkeypatch, tmp_path):
    page = tmp_path / "json.md"
    page.write_text(DOC.read_text(encoding="utf-8").replace(f"| {missing} |", "| `renamed` |"))
    monkeypatch.setattr(sys.modules[__name__], "DOC", page)
    keys, _ = documented("show")
    assert missing.strip("`") not in keys


def test_the_readme_links_the_page():
    readme = (DOC.parent.parent / "README.md").read_text(encoding="utf-8")
    assert "docs/json.md" in readme


def test_every_key_of_pbem_asl_stats_is_documented(players, tmp_path):
    """pbem asl stats --json: each player's DR and dr statistics."""
    from conftest import last_line

    a, b = players
    r = a.run("new", a.game, "--game", "asl", "--as", "axis", "--opponent", b.pub())
    r = b.run("join", last_line(r.output), "--dir", b.game)
    assert a.run("receive", a.game, last_line(r.output)).exit_code == 0
    exchange(a, b, tmp_path, '[[order]]\ntype = "DR"\npurpose = "MC"\nphase = "RPh"\nplayer_turn = "axis"\n'
                             '[[order]]\ntype = "dr"\npurpose = "Sniper"\n')
    exchange(b, a, tmp_path)
    found = check("asl stats", a.run("asl", "stats", a.game, "--json"))
    assert found["sides"]["axis"]["DR"]["count"] == 1
