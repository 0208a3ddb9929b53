"""Issue 17's everyday rough edges, as a newcomer meets them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click
from click.testing import CliRunner

from pbem.cli import main

ROOT = Path(__file__).parent.parent


def commands(group: click.Group = main, prefix: tuple[str, ...] = ()):
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        yield prefix + (name,), cmd
        if isinstance(cmd, click.Group):
            yield from commands(cmd, prefix + (name,))


def test_every_command_help_has_an_example():
    missing = [" ".join(path) for path, cmd in commands() if "Example" not in (cmd.help or "")]
    assert missing == []


def test_new_help_lists_the_installed_games_and_their_sides():
    r = CliRunner().invoke(main, ["new", "--help"])
    assert r.exit_code == 0
    assert "Games (--game) and their sides (--as):" in r.output
    for line in ("ambon     --as japanese | allied", "dice      --as first | second", "asl       --as allied | axis"):
        assert line in r.output


def test_a_proposal_says_an_ambon_game(players):
    j, a = players
    r = j.run("new", j.game, "--game", "ambon", "--as", "japanese", "--opponent", a.pub())
    assert r.exit_code == 0 and r.output.startswith("proposed an ambon game to SHA256:")
    r = a.run("new", a.game, "--game", "dice", "--as", "first", "--opponent", j.pub())
    assert r.exit_code == 0 and r.output.startswith("proposed a dice game to SHA256:")


def test_output_piped_into_head_ends_quietly():
    """`pbem ... | head -1`: the pipe closes early; that is no bug of pbem's
    (exit 0, no traceback, no "internal error")."""
    pbem = [sys.executable, "-c", "import sys; from pbem.cli import main; sys.argv[0] = 'pbem'; main()"]
    import shlex

    command = pbem + ["asl", "check-berserk", str(ROOT / "examples/asl/dare-death-example.toml")]
    # `true` reads nothing and is gone before pbem has started: every write meets a closed pipe
    done = subprocess.run(["bash", "-c", "set -o pipefail; " + shlex.join(command) + " | true"],
                          capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == ""


def test_show_and_log_give_a_spectators_view_without_a_players_key(started, tmp_path):
    """Issue 17: anyone holding the files may look on: no keystore, or a key
    that is not a player's, gives the public record, never a sealed text."""
    from conftest import Player, write_orders

    ann, bob = started
    r = ann.run("play", ann.game, "--orders", write_orders(tmp_path / "o.toml", '[[order]]\ntype = "seal"\nslot = "plan"\n'
                                                                                  'text = "flank left at dawn"\n'))
    assert r.exit_code == 0, r.output
    nobody = Player("nobody", tmp_path / "home-nobody", ann.game)  # no keystore at all
    carol = Player("carol", tmp_path / "home-carol", ann.game)
    assert carol.run("key", "new", "--name", "carol", "--no-passphrase").exit_code == 0
    for viewer in (nobody, carol):
        r = viewer.run("show", ann.game)
        assert r.exit_code == 0, r.output
        assert "a spectator's view" in r.output and "flank left at dawn" not in r.output and "(hidden)" in r.output
        r = viewer.run("log", ann.game)
        assert r.exit_code == 0 and r.output.startswith("(a spectator's view") and "flank left" not in r.output
    assert "flank left at dawn" in ann.run("show", ann.game).output  # the player sees her own note
    assert not (tmp_path / "home-nobody").exists()  # looking on makes no keystore
