"""The everyday commands join the pbem group once, without replacing any
command it already has; --help stays quick and progress bars stay off pipes."""

from __future__ import annotations

import subprocess
import sys

import click
from click.testing import CliRunner

from pbem.cli import main
from pbem.cli.everyday import COMMANDS, progress_bar, register


def test_register_adds_each_command_once_and_keeps_existing_ones():
    group = click.Group("pbem")

    @group.command("status")
    def own_status() -> None:
        """Not ours."""

    register(group)
    register(group)
    assert sorted(group.commands) == sorted({c.name for c in COMMANDS})
    assert group.commands["status"] is own_status
    register(main)
    assert all(main.commands[c.name] is not None for c in COMMANDS)


def test_progress_is_silent_when_piped():
    with progress_bar("importing") as progress:
        assert progress is None  # pytest captures the output: no terminal


def test_help_of_every_everyday_command_works_without_a_key(tmp_path):
    register(main)
    for command in COMMANDS:
        r = CliRunner().invoke(main, [command.name, "--help"], env={"PBEM_HOME": str(tmp_path)})
        assert r.exit_code == 0 and "Usage: " in r.output


def test_the_module_imports_no_library_at_import_time():
    code = ("import sys; import pbem.cli.everyday; "
            "heavy = [m for m in ('pbem.match.session', 'pbem.protocol.scan', 'pbem.mail.inbox', 'pbem.mail.outbox', 'pbem.app.orders_template', "
            "'pbem.app.status', 'pbem.render.html', 'rich.progress', 'smtplib') if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"
