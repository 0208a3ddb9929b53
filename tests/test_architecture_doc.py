"""docs/architecture.md's toy game, built from the page's own code blocks
and installed as a third-party game is (a distribution on sys.path with its
``pbem.games`` and ``pbem.frontends`` entry points): pbem finds it, its
frontend's command, dialogue and demo work, and its games verify -- the
contract as the page states it is enough to add a game."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from pbem.engine import registry
from pbem.engine import contract

DOC = Path(__file__).resolve().parent.parent / "docs" / "architecture.md"
BLOCK = re.compile(r"```(?:python|toml)\n# file: (\S+)\n(.*?)```", re.S)


def blocks() -> dict[str, str]:
    return {name: text for name, text in BLOCK.findall(DOC.read_text())}


@pytest.fixture
def installed(tmp_path, monkeypatch) -> Path:
    """The page's files as an installed distribution in ``tmp_path/site``:
    the package, and the dist-info pip writes from the pyproject (METADATA
    and entry_points.txt)."""
    site = tmp_path / "site"
    files = blocks()
    project = tomllib.loads(files.pop("pyproject.toml"))["project"]
    for name, text in files.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(text)
    info = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n")
    (info / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in points.items()) + "\n"
        for group, points in project["entry-points"].items()))
    monkeypatch.syspath_prepend(str(site))
    return site


def pbem(site: Path, *args: str, home: Path | None = None, input: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), *sys.path]), "COLUMNS": "100"}
    if home is not None:
        env["PBEM_HOME"] = str(home)
    return subprocess.run([sys.executable, "-c", "from pbem.cli import main; main()", *args], env=env,
                          capture_output=True, text=True, input=input, timeout=120)


def test_the_page_holds_the_whole_toy_game():
    assert set(blocks()) == {"pbem_odds/game.py", "pbem_odds/__init__.py", "pbem_odds/cli.py", "pyproject.toml"}


def test_the_toy_rules_import_only_the_engine_and_the_errors():
    """The layers (tests/test_import_graph.py): a game's rules sit on the engine."""
    tree = ast.parse(blocks()["pbem_odds/game.py"])
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert {m for m in imported if m.startswith("pbem")} <= {"pbem.engine", "pbem.engine.later", "pbem.engine.machine",
                                                             "pbem.engine.orders", "pbem.errors"}


def test_the_installed_toy_is_a_game_with_a_frontend(installed):
    game = registry.get("odds")
    assert isinstance(game, contract.Game) and contract.lacking(game) == []
    assert "odds" in registry.available() and "odds" in registry.frontends()
    frontend = registry.frontend("odds")
    assert any(c.__module__ == "pbem_odds.cli" and isinstance(c, contract.Commands) for c in registry.commands())
    assert isinstance(frontend, contract.Dialogue)
    assert isinstance(frontend, contract.Demo)


def test_the_toy_demo_plays_a_whole_game_by_email_and_verifies(installed, tmp_path):
    from pbem.app import demo

    lines: list[str] = []
    report = demo.run(tmp_path / "demo", "odds", progress=lines.append)
    assert report.verify.ok and report.verify.audited and report.logs_agree, report.verify.problems
    assert report.over and report.messages == 6
    scored = [e for _, e in report.final.replay.events if e.rule == "2"]
    assert [e.text.split(":")[0] for e in scored] == ["a called odd", "b called even"]
    assert sum(report.final.view()["score"].values()) == sum("scores" in e.text for e in scored)
    assert any("ann (a) plays 0004-a.pbem -- the game ends" in line for line in lines)


def test_the_toy_frontend_in_pbems_command_line(installed, tmp_path):
    """A third-party game gets what the shipped ones get: its command in
    `pbem --help`, its demo in `pbem demo --help` and `pbem demo odds`,
    and its dialogue in `pbem play DIR`."""
    listed = pbem(installed, "--help")
    assert listed.returncode == 0 and "odds-rules" in listed.stdout
    assert "1 call odd or even" in pbem(installed, "odds-rules").stdout
    helped = pbem(installed, "demo", "--help")
    assert "pbem demo odds" in helped.stdout and "a toy game of calls and dice" in helped.stdout
    played = pbem(installed, "demo", "odds")
    assert played.returncode == 0, played.stdout + played.stderr
    assert "VERIFIED" in played.stdout and "Rolls in the demo game" in played.stdout

    # the dialogue: a game where message 2 is a's to write, asked at the terminal
    from pbem.match import session
    from pbem.protocol.keystore import Keystore

    ann, bob = (Keystore(tmp_path / name).load_or_create(name) for name in ("ann", "bob"))
    first = session.new_game(tmp_path / "a", "odds", "a", bob.public, ann)
    path, _ = session.join_game(first, tmp_path / "b", bob, {})
    session.receive(tmp_path / "a", [path], ann)
    asked = pbem(installed, "play", str(tmp_path / "a"), home=tmp_path / "ann", input="odd\n")
    assert asked.returncode == 0, asked.stdout + asked.stderr
    assert "a calls odd" in asked.stdout
    assert (tmp_path / "a" / "0002-a.pbem").exists()
