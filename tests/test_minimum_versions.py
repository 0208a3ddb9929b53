"""Issue 30: CI runs the suite against the declared minimum versions, so
.ci/minimum.txt must pin exactly the floors pyproject.toml declares."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINTERS = {"mypy", "ruff"}  # the CI's own tools: the latest, not a floor anyone installs pbem with


def _version(text: str) -> tuple[int, ...]:
    parts = [int(p) for p in text.split(".")]
    while len(parts) < 3:
        parts.append(0)
    return tuple(parts)


def _name(requirement: str) -> str:
    return re.split(r"[\[<>=!~ ;]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def test_ci_pins_every_declared_floor_and_nothing_else():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = {}
    for requirement in project["dependencies"] + project["optional-dependencies"]["test"]:
        floor = re.search(r">=\s*([0-9.]+)", requirement)
        assert floor, f"{requirement!r} declares no minimum version"
        if _name(requirement) not in LINTERS:
            declared[_name(requirement)] = _version(floor.group(1))
    pinned = {}
    for line in (ROOT / ".ci" / "minimum.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            pinned[_name(name)] = _version(version)
    assert pinned == declared
