"""The layers of pbem/ as its import graph shows them (DESIGN 3): no import
cycle between files.  One cycle is left from before the layering work
(issue 14: the CLI's plugin commands); the test is a ratchet -- any other
cycle fails it, and mending that one does too, so the list shrinks."""

from __future__ import annotations

import ast
from pathlib import Path

PBEM = Path(__file__).resolve().parent.parent / "pbem"
KNOWN_CYCLES = [
    ["pbem.cli", "pbem.cli.asl", "pbem.cli.calumpit", "pbem.cli.everyday"],
]


def import_graph(root: Path = PBEM) -> dict[str, set[str]]:
    """module -> the pbem modules it imports, at any depth of its code
    (function-level imports count: a cycle hidden in a function is still
    one), except those under ``if TYPE_CHECKING:``."""
    modules = {}
    for f in root.rglob("*.py"):
        name = ".".join(f.relative_to(root.parent).with_suffix("").parts)
        modules[name.removesuffix(".__init__")] = f
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for name, f in modules.items():
        tree = ast.parse(f.read_text())
        typing_only = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
                typing_only |= {id(n) for n in ast.walk(node)}
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    target = sub if sub in modules else node.module
                    if target in modules:
                        graph[name].add(target)
            elif isinstance(node, ast.Import):
                graph[name] |= {a.name for a in node.names if a.name in modules}
        graph[name].discard(name)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def test_no_import_cycle_in_pbem_but_the_one_left_to_mend():
    assert cycles(import_graph()) == KNOWN_CYCLES


def test_the_cycle_finder_finds_a_cycle_hidden_in_a_function(tmp_path):
    pkg = tmp_path / "pbem"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pbem import b\n")
    (pkg / "b.py").write_text("def f():\n    from pbem.a import x\n")
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pbem import a\n")
    assert cycles(import_graph(pkg)) == [["pbem.a", "pbem.b"]]
