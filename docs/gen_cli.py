"""Generate docs/cli.md from the ``--help`` of every pbem command.

    python docs/gen_cli.py            rewrite docs/cli.md
    python docs/gen_cli.py --check    exit 1 if docs/cli.md is not current
    python docs/gen_cli.py --stdout   print the reference

tests/test_docs_cli.py runs :func:`render` and compares.  The help is
rendered at a fixed width (100 columns), so the result does not depend on
the terminal.  Every command of the ``pbem`` group is walked, sub-groups
included, in alphabetical order.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

HERE = Path(__file__).resolve().parent
TARGET = HERE / "cli.md"
WIDTH = 100

HEAD = """# pbem command line reference

Generated from `pbem --help` by `docs/gen_cli.py`; do not edit by hand --
change the command's docstring or options, then run
`python docs/gen_cli.py` (a test checks that this file is current).

Exit status of every command: 0 ok, 1 verification failed or a rule was
violated, 2 usage or input error.  Non-interactive use: `PBEM_HOME` (where
your key and settings live), `PBEM_PASSPHRASE` (your key's passphrase),
`PBEM_SMTP_PASSWORD` (for `pbem mail --send`).

## Shell completion

pbem completes commands, options and file names in bash, zsh and fish
(click's completion).  Add one line to your shell's start-up file:

```sh
# bash, in ~/.bashrc
eval "$(_PBEM_COMPLETE=bash_source pbem)"
# zsh, in ~/.zshrc
eval "$(_PBEM_COMPLETE=zsh_source pbem)"
# fish, in ~/.config/fish/completions/pbem.fish
_PBEM_COMPLETE=fish_source pbem | source
```

For a faster shell start, save the script once instead
(`_PBEM_COMPLETE=bash_source pbem > ~/.pbem-complete.bash`) and source that file.
"""


def pbem_group() -> click.Group:
    """The ``pbem`` group with every command it will have: the commands of
    ``pbem.cli`` plus those of each ``pbem/cli_*.py`` module that offers
    ``register(main)`` (registration only adds what is missing, so this is
    the same before and after a module is wired into ``pbem.cli``)."""
    import importlib
    import pkgutil

    import pbem
    from pbem.cli import main

    for info in sorted(pkgutil.iter_modules(pbem.__path__), key=lambda i: i.name):
        if info.name.startswith("cli_"):
            register = getattr(importlib.import_module(f"pbem.{info.name}"), "register", None)
            if callable(register):
                register(main)
    return main


def commands(group: click.Group, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], click.Command]]:
    """``(path, command)`` for ``group`` and everything below it, sorted by name."""
    found: list[tuple[tuple[str, ...], click.Command]] = [(path, group)]
    for name in sorted(group.commands):
        command = group.commands[name]
        if getattr(command, "hidden", False):
            continue
        if isinstance(command, click.Group):
            found += commands(command, path + (name,))
        else:
            found.append((path + (name,), command))
    return found


def help_text(group: click.Group, path: tuple[str, ...]) -> str:
    """The ``--help`` output of ``pbem PATH``, at a fixed width."""
    with group.make_context("pbem", list(path) + ["--help"], resilient_parsing=True, terminal_width=WIDTH) as ctx:
        command: click.Command = group
        for name in path:
            assert isinstance(command, click.Group)
            sub = command.get_command(ctx, name)
            assert sub is not None, f"no command {name!r}"
            ctx = sub.make_context(name, [], parent=ctx, resilient_parsing=True)
            command = sub
        return command.get_help(ctx).rstrip() + "\n"


def render() -> str:
    """The reference, rendered by a fresh interpreter: what the ``pbem``
    program shows, whatever the calling process (a test run) has added to
    its own copy of the group."""
    import os
    import subprocess

    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--stdout"], capture_output=True,
                          text=True, encoding="utf-8", env=env, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"docs/gen_cli.py --stdout failed:\n{done.stderr}")
    return done.stdout


def render_here() -> str:
    group = pbem_group()
    parts = [HEAD]
    entries = commands(group)
    parts.append("## Commands\n")
    parts += [f"- [`{' '.join(('pbem',) + path)}`](#{_anchor(path)})" for path, _ in entries]
    parts.append("")
    for path, _ in entries:
        title = " ".join(("pbem",) + path)
        parts.append(f"## {title}\n")
        parts.append("```text")
        parts.append(help_text(group, path).rstrip())
        parts.append("```\n")
    return "\n".join(parts).rstrip() + "\n"


def _anchor(path: tuple[str, ...]) -> str:
    return "-".join(("pbem",) + path).lower()


def main(argv: list[str]) -> int:
    if "--stdout" in argv:
        sys.stdout.write(render_here())
        return 0
    text = render()
    if "--check" in argv:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        if current != text:
            print(f"{TARGET} is not current: run python docs/gen_cli.py", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
