"""The project explains itself: nothing in the code, the docs or the tests
cites a design or style document the repository does not hold (its own
docs/design.md, docs/architecture.md and docs/protocol.md say it all)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parent.parent
OUTSIDE = re.compile(r"\bDESIGN(\.md)?\s*(\d|section\b|\))|\bSTYLE(\.md)?\s*(\d|rule\b|house\b|:)|\.\./shared/")


def test_no_file_cites_a_document_outside_the_repository():
    cited = []
    for folder in ("pbem", "docs", "tests", "benchmarks", "examples"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in (".py", ".md", ".toml", ".txt") and path != Path(__file__):
                for number, line in enumerate(path.read_text("utf-8", errors="replace").splitlines(), 1):
                    if OUTSIDE.search(line):
                        cited.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    readme = (ROOT / "README.md").read_text("utf-8")
    cited += [f"README.md: {line}" for line in readme.splitlines() if OUTSIDE.search(line)]
    assert cited == []
