"""The README's examples run: its two quickstart commands are the project's
contract, and the referee example prints what the README says."""

from __future__ import annotations

import os
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


def test_the_dice_game_by_email_runs_as_the_readme_shows(tmp_path):
    """The README's "Playing the dice game by email" block, command by
    command, on two "machines" (Ann's and Bob's folders and keystores); each
    file a command prints last is "mailed" to the other folder.  The orders
    file is the README's own (its roll and seal orders)."""
    block = README.split("## Playing the dice game by email", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    orders_block = README.split("An orders file:", 1)[1].split("```toml", 1)[1].split("```", 1)[0]
    machines = {"ann": tmp_path / "ann", "bob": tmp_path / "bob"}
    homes = {name: where / "home" for name, where in machines.items()}
    for where in machines.values():
        where.mkdir()
    (machines["ann"] / "orders.toml").write_text(orders_block.split("[[order]]\ntype = \"reveal\"", 1)[0])

    def run(who: str, args: list[str]):
        cwd = Path.cwd()
        try:
            os.chdir(machines[who])
            return CliRunner().invoke(main, args, env={"PBEM_HOME": str(homes[who]), "PBEM_PASSPHRASE": "readme", "COLUMNS": "120"})
        finally:
            os.chdir(cwd)

    assert run("bob", ["key", "new", "--name", "Bob Jones"]).exit_code == 0  # the README shows Ann's side
    (machines["ann"] / "bob.pub").write_text(run("bob", ["key", "show"]).stdout)
    ran = 0
    for line in block.splitlines():
        command = line.split("#", 1)[0].strip()
        if not command.startswith("pbem "):
            continue
        who = "bob" if "(Bob)" in line else "ann"
        for part in command.split(";"):
            args = shlex.split(part.strip())[1:]
            if args[:2] == ["verify", "games/ann"] and "--audit" in args:
                continue  # "after the game": checked below, once the game is over
            out_file = None
            if ">" in args:
                args, out_file = args[: args.index(">")], args[args.index(">") + 1]
            if args[:2] in (["show", "games/ann"], ["log", "games/ann"]):
                who = "bob"  # games/ann is Bob's folder for his game with Ann
            result = run(who, args)
            assert result.exit_code == 0, (line, result.output)
            ran += 1
            if out_file:
                (machines[who] / out_file).write_text(result.stdout)
            last = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""
            if last.endswith(".pbem"):  # mail it to the other machine
                other = "ann" if who == "bob" else "bob"
                (machines[other] / Path(last).name).write_text((machines[who] / last).read_text())
    assert ran >= 9
    folder = {"ann": "games/bob", "bob": "games/ann"}  # each one's folder for the game with the other

    def exchange(who: str, orders: str) -> None:
        (machines[who] / "next.toml").write_text(orders)
        result = run(who, ["play", folder[who], "--orders", "next.toml"])
        assert result.exit_code == 0, result.output
        sent = Path(result.stdout.strip().splitlines()[-1])
        other = "ann" if who == "bob" else "bob"
        (machines[other] / sent.name).write_text((machines[who] / sent).read_text())
        assert run(other, ["receive", folder[other], sent.name]).exit_code == 0

    exchange("bob", "")  # Bob's reply
    exchange("ann", '[[order]]\ntype = "end"\n')  # Ann ends the game
    exchange("bob", "")  # Bob's closing message
    result = run("bob", ["verify", "games/ann", "--audit"])  # the README's last line
    assert result.exit_code == 0 and "VERIFIED" in result.output, result.output
