"""The README's examples run: its two quickstart commands are the project's
contract, and the referee example prints what the README says."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from click.testing import CliRunner

from pbem.cli import main

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text()


def test_quickstart_has_exactly_the_two_commands():
    block = README.split("## Quickstart", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    assert [line for line in block.strip().splitlines()] == [
        "pip install . && pbem demo",
        "pip install -e '.[test]' && pytest",
    ]


def test_referee_example_prints_what_the_readme_shows(monkeypatch):
    block = README.split("## Referee mode", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    command = block.split("\n#", 1)[0].replace("\\\n", " ")
    expected = [line[2:] for line in block.splitlines() if line.startswith("# ")]
    args = shlex.split(command)[1:]
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(main, args, env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    for line in expected:
        assert line in result.output
    assert re.search(r"\[7\.0\] 3\.A moves 1410 1509 for 5 MP", result.output)
