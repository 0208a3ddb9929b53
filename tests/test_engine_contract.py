"""The plugin contract (pbem.engine.contract): every game is a Game, its
optional capabilities are found with isinstance, and no layer above the
engine probes a game's attributes by name."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

from pbem.engine import registry
from pbem.engine import contract
from pbem.errors import UsageError

PBEM = Path(__file__).resolve().parent.parent / "pbem"
CAPABILITIES = {
    "ambon": {"RefereePositions", "RefereeSecrets", "OrdersTemplates", "SealChecks", "Audit", "Result", "BoardViews",
              "SideColours"},
    "calumpit": {"RefereePositions", "OrdersTemplates", "Audit", "Ending", "Summary", "BoardViews"},
    "asl": {"OrdersTemplates", "SealChecks", "Audit", "Ending", "BoardViews"},
    "dice": {"OrdersTemplates", "Audit", "Ending", "BoardViews"},
}
OPTIONAL = ("RefereePositions", "RefereeSecrets", "OrdersTemplates", "SealChecks", "Audit", "Ending", "Summary",
            "Result", "BoardViews", "SideColours")


@pytest.mark.parametrize("name", sorted(CAPABILITIES))
def test_every_shipped_game_is_a_game_with_the_capabilities_it_offers(name):
    game = registry.get(name)
    assert isinstance(game, contract.Game) and contract.lacking(game) == []
    offered = {c for c in OPTIONAL if isinstance(game, getattr(contract, c))}
    assert offered == CAPABILITIES[name]


#: what each shipped game's frontend (pbem.frontends) offers
FRONTENDS = {name: {"Dialogue", "Demo"} for name in ("ambon", "calumpit", "asl", "dice")}


def test_the_shipped_games_commands_are_commands():
    """pbem solo ambon, pbem solo calumpit, pbem asl ... (pbem.commands)."""
    found = registry.commands()
    assert sorted(f"{c.__module__}.{c.__name__}" for c in found) == [
        "pbem.games.ambon.cli.register", "pbem.games.asl.cli.register", "pbem.games.calumpit.cli.register"]
    assert all(isinstance(c, contract.Commands) for c in found)


@pytest.mark.parametrize("name", sorted(FRONTENDS))
def test_every_shipped_game_has_a_frontend_with_the_capabilities_it_offers(name):
    frontend = registry.frontend(name)
    offered = {c for c in ("Dialogue", "Demo") if isinstance(frontend, getattr(contract, c))}
    assert offered == FRONTENDS[name]
    if "Demo" in offered:
        script = frontend.demo()
        assert isinstance(script, contract.DemoScript) and script.summary
        assert {script.proposer.side, script.joiner.side} == set(registry.get(name).sides)


def test_an_unknown_game_has_no_frontend():
    assert registry.frontend("no-such-game") is None


def test_the_entry_point_reader_finds_what_importlib_metadata_finds():
    """pbem.engine.registry.entry_points reads entry_points.txt itself, to keep
    `pbem --help` from importing importlib.metadata."""
    from importlib.metadata import entry_points

    for group in ("pbem.games", "pbem.frontends", "pbem.commands", "console_scripts"):
        assert sorted(registry.entry_points(group)) == sorted((ep.name, ep.value) for ep in entry_points(group=group))


def test_an_object_without_the_contract_is_refused_naming_what_it_lacks(tmp_path, monkeypatch):
    (tmp_path / "toy_not_a_game.py").write_text(
        "class Toy:\n    name = 'toy'\n    version = '1'\n    sides = ('a', 'b')\n"
        "    def apply(self, state, action): return state, []\nGAME = Toy()\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [*sys.path])
    with pytest.raises(UsageError, match=r"'toy_not_a_game:GAME' is not a pbem game: it has no ruleset_files, "
                                          r"initial_state, parse_orders, awaiting, view, is_over"):
        registry.get("toy_not_a_game:GAME", local=True)


def _finds(path: Path) -> list[str]:
    """hasattr/getattr calls whose object is a game (``game``, ``match.game``, ``self.game``...)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("hasattr", "getattr") \
                and node.args and "game" in ast.unparse(node.args[0]).split(".")[-1].lower():
            found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    return found


def _probes(path: Path) -> list[str]:
    return [f"{path.relative_to(PBEM.parent).parent}/{hit}" for hit in _finds(path)]


def test_no_layer_above_the_engine_probes_a_game_by_attribute_name():
    """architecture: layers above engine ask for a capability with isinstance."""
    above = [p for p in PBEM.rglob("*.py") if not p.is_relative_to(PBEM / "games") and not p.is_relative_to(PBEM / "engine")]
    assert len(above) > 20
    assert [hit for p in above for hit in _probes(p)] == []


def test_the_probe_finder_finds_a_probe(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("def f(match):\n    return getattr(match.game, 'summary', None)\n")
    assert _finds(probe) == ["probe.py:2: getattr(match.game, 'summary', None)"]


@pytest.mark.parametrize("name", ["ambon", "calumpit", "asl"])
def test_every_game_refuses_a_data_directory_that_is_not_one_in_the_same_words(name, tmp_path):
    """One data loader (pbem.engine.datafiles): ASL used to ignore a --data directory that did not exist."""
    from pbem.errors import DataError

    missing = tmp_path / "no-such-dir"
    with pytest.raises(DataError, match=rf"^{re.escape(str(missing))}: --data is not a directory$"):
        registry.get(name, str(missing)).ruleset_files()


@pytest.mark.parametrize("name, file", [("ambon", "charts.toml"), ("calumpit", "tables.toml"), ("asl", "rules.toml")])
def test_an_override_directory_replaces_the_shipped_file_of_the_same_name(name, file, tmp_path):
    shipped = dict(registry.get(name).ruleset_files())
    key = next(k for k in shipped if k.endswith(file))
    (tmp_path / file).write_bytes(shipped[key] + b"\n# an owner's copy\n")
    assert dict(registry.get(name, str(tmp_path)).ruleset_files())[key] == shipped[key] + b"\n# an owner's copy\n"
