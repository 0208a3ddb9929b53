"""docs/cli.md is generated from --help (docs/gen_cli.py) and must be current."""

from __future__ import annotations

import importlib.util
from pathlib import Path

DOCS = Path(__file__).parent.parent / "docs"


def generator():
    spec = importlib.util.spec_from_file_location("gen_cli", DOCS / "gen_cli.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_docs_cli_md_is_current():
    text = generator().render()
    current = (DOCS / "cli.md").read_text(encoding="utf-8")
    assert current == text, "docs/cli.md is out of date: run python docs/gen_cli.py"


def test_every_command_is_documented_with_its_options():
    gen = generator()
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    for path, command in gen.commands(gen.pbem_group()):
        assert f"## {' '.join(('pbem',) + path)}\n" in text
        for param in command.params:
            for opt in getattr(param, "opts", []):
                if opt.startswith("--"):
                    assert opt in text, f"{' '.join(path)}: {opt} is not in docs/cli.md"
    assert "_PBEM_COMPLETE=bash_source pbem" in text  # shell completion is documented
