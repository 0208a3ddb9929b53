"""The layers of pbem/ as its import graph shows them (architecture,
docs/architecture.md): no import cycle between files, no import from a
higher layer, and no module outside pbem/games that names a game."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PBEM = Path(__file__).resolve().parent.parent / "pbem"

#: the layers, lowest first (docs/architecture.md); a module may import its
#: own layer and those below.  A game's package holds its rules (``games``),
#: and may hold a workflow on top of the match layer (Ambon's ``solo``) and
#: its frontend (``cli``: CLI commands, dialogue, demo), which is CLI layer.
LAYERS = ["util", "protocol", "engine", "games", "match", "mail", "app", "render", "cli"]
GAME_WORKFLOWS = {"solo": "app", "cli": "cli"}


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


def layer(module: str) -> str:
    parts = module.split(".")
    if module in ("pbem", "pbem.errors") or parts[1] == "util":
        return "util"
    if parts[1] == "games" and len(parts) > 3 and parts[3] in GAME_WORKFLOWS:
        return GAME_WORKFLOWS[parts[3]]
    if module == "pbem.__main__":  # python -m pbem: the CLI's entry
        return "cli"
    return parts[1]


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    return sorted(f"{a} ({layer(a)}) imports {b} ({layer(b)})" for a, targets in graph.items() for b in targets
                  if LAYERS.index(layer(b)) > LAYERS.index(layer(a)))


def test_no_import_cycle_in_pbem():
    assert cycles(import_graph()) == []


def test_every_module_of_pbem_is_in_a_layer():
    assert sorted({layer(m) for m in import_graph()}) == sorted(LAYERS)


def test_no_module_imports_from_a_higher_layer():
    assert upward_imports(import_graph()) == []


def test_the_layer_check_finds_an_upward_import(tmp_path):
    pkg = tmp_path / "pbem"
    for sub in ("engine", "match", "games/toy"):
        (pkg / sub).mkdir(parents=True)
    for init in ("", "engine/", "match/", "games/", "games/toy/"):
        (pkg / f"{init}__init__.py").write_text("")
    (pkg / "engine" / "rules.py").write_text("def f():\n    from pbem.match import session\n")
    (pkg / "match" / "session.py").write_text("")
    (pkg / "games" / "toy" / "cli.py").write_text("from pbem.match import session\n")  # a frontend may
    assert upward_imports(import_graph(pkg)) == ["pbem.engine.rules (engine) imports pbem.match.session (match)"]


# --------------------------------------------------------------------------- no layer above the games names one


def game_names() -> set[str]:
    from pbem.engine import registry

    return set(registry.available())


def names_a_game(path: Path, names: set[str]) -> list[str]:
    """Where ``path`` names a game: an import of a game's package, a string
    (not a docstring) that is a game's name or module path or holds its name
    as a word, or a comparison with one.  The dice game's name is also the
    protocol's word for dice (``"dice"`` fields): it counts only compared."""
    tree = ast.parse(path.read_text())
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    words = {n for n in names if n != "dice"}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            if isinstance(node, ast.ImportFrom) and node.module == "pbem.games":
                modules = [f"pbem.games.{a.name}" for a in node.names]
            found += [f"{path.name}:{node.lineno}: imports {m}" for m in modules
                      if any(m == f"pbem.games.{n}" or m.startswith(f"pbem.games.{n}.") for n in names)]
        elif isinstance(node, ast.Compare):
            for part in [node.left, *node.comparators]:
                items = part.elts if isinstance(part, (ast.Tuple, ast.List, ast.Set)) else [part]
                for item in items:
                    if isinstance(item, ast.Constant) and item.value in names:
                        found.append(f"{path.name}:{node.lineno}: compares with {item.value!r}")
                        docstrings.add(id(item))  # reported once
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            text = f" {re.sub(r'[^a-z0-9_.]+', ' ', node.value.lower())} "
            if any(f" {n} " in text or f"pbem.games.{n}" in text for n in words) or "pbem.games.dice" in text:
                found.append(f"{path.name}:{node.lineno}: says {node.value[:60]!r}")
    return sorted(found, key=lambda hit: int(hit.split(":")[1]))


def test_no_module_outside_pbem_games_names_a_game():
    """Issue 14: the layers above the games know them only through the
    registry (pbem.games), the contract and their frontends."""
    outside = [p for p in PBEM.rglob("*.py") if not p.is_relative_to(PBEM / "games")]
    assert len(outside) > 40
    names = game_names()
    assert names >= {"ambon", "calumpit", "asl", "dice"}
    assert [hit for p in outside for hit in names_a_game(p, names)] == []


def test_the_game_name_finder_finds_each_way_of_naming_a_game(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text('''"""A docstring may say ambon."""
from pbem.games.ambon.bot import AmbonBot
from pbem.games import calumpit
import pbem.games.asl


def f(match, r):
    """So may this: pbem demo calumpit."""
    if match.game.name == "calumpit":
        return r["dice"]
    if match.game.name in ("dice", "other"):
        return "the Ambon demo"
    return "pbem.games.asl:GAME"
''')
    assert names_a_game(probe, {"ambon", "calumpit", "asl", "dice"}) == [
        "probe.py:2: imports pbem.games.ambon.bot", "probe.py:3: imports pbem.games.calumpit",
        "probe.py:4: imports pbem.games.asl", "probe.py:9: compares with 'calumpit'",
        "probe.py:11: compares with 'dice'", "probe.py:12: says 'the Ambon demo'",
        "probe.py:13: says 'pbem.games.asl:GAME'"]


def test_the_cycle_finder_finds_a_cycle_hidden_in_a_function(tmp_path):
    pkg = tmp_path / "pbem"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pbem import b\n")
    (pkg / "b.py").write_text("def f():\n    from pbem.a import x\n")
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pbem import a\n")
    assert cycles(import_graph(pkg)) == [["pbem.a", "pbem.b"]]
