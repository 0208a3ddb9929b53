"""Issue 17: orders safe to send -- `pbem play --dry-run` checks the orders
on the position and shows what the message would do and leave awaited,
writing nothing; at a terminal `pbem play --orders` shows the same, with
any text it seals, and asks before writing."""

from __future__ import annotations

import json

import pytest
from conftest import write_orders

ROLL_AND_SEAL = '''[[order]]
type = "roll"
dice = "2d6+1"
note = "attack"
[[order]]
type = "seal"
slot = "plan"
text = "flank left at dawn"
'''


def files_of(player):
    return sorted(p.name for p in player.game.iterdir())


def test_dry_run_shows_the_message_and_writes_nothing(started, tmp_path):
    ann, bob = started
    orders = write_orders(tmp_path / "o.toml", ROLL_AND_SEAL)
    before, home = files_of(ann), sorted(p.name for p in ann.home.rglob("*"))
    r = ann.run("play", ann.game, "--orders", orders, "--dry-run")
    assert r.exit_code == 0, r.output
    assert r.output.startswith("Dry run: nothing is written. 0002-first.pbem would do:\n")
    assert "first declares 2d6+1 for 'attack'" in r.output
    assert "sealed in slot 'plan' (only you see this): flank left at dawn" in r.output
    assert "and then: next: message 0003 by second -- waiting for the reply; 1 declared roll awaits" in r.output
    assert r.output.rstrip().endswith(f"Without --dry-run this is written as {ann.game / '0002-first.pbem'}.")
    assert files_of(ann) == before and sorted(p.name for p in ann.home.rglob("*")) == home  # nothing written
    r = ann.run("play", ann.game, "--orders", orders)  # the real thing is still to do
    assert r.exit_code == 0 and r.output.strip().endswith("0002-first.pbem")


def test_dry_run_refuses_what_play_refuses(started, tmp_path):
    ann, bob = started
    bad = write_orders(tmp_path / "bad.toml", '[[order]]\ntype = "roll"\ndice = "2d0"\n')
    r = ann.run("play", ann.game, "--orders", bad, "--dry-run")
    assert r.exit_code != 0 and "2d0" in r.output and "0002" not in " ".join(files_of(ann))
    r = bob.run("play", bob.game, "--orders", bad, "--dry-run")
    assert r.exit_code == 2 and "it is not your turn" in r.output


def test_dry_run_json_names_the_file_it_would_write(started, tmp_path):
    ann, _ = started
    r = ann.run("play", ann.game, "--orders", write_orders(tmp_path / "o.toml", ROLL_AND_SEAL), "--dry-run", "--json")
    data = json.loads(r.output)
    assert data["dry_run"] is True and data["file"].endswith("0002-first.pbem") and data["next"]["seq"] == 3
    assert not (ann.game / "0002-first.pbem").exists()


def test_at_a_terminal_play_shows_the_message_and_asks_first(started, tmp_path, monkeypatch):
    import pbem.cli

    ann, bob = started
    orders = write_orders(tmp_path / "o.toml", ROLL_AND_SEAL)
    monkeypatch.setattr(pbem.cli, "at_terminal", lambda: True)
    r = ann.run("play", ann.game, "--orders", orders, input="n\n")
    assert "Before writing: 0002-first.pbem would do:" in r.output and "flank left at dawn" in r.output
    assert "Write 0002-first.pbem? [Y/n]" in r.output
    assert r.exit_code == 2 and "stopped: no message written" in r.output and not (ann.game / "0002-first.pbem").exists()
    r = ann.run("play", ann.game, "--orders", orders, input="\n")
    assert r.exit_code == 0 and (ann.game / "0002-first.pbem").exists()
    assert bob.run("receive", bob.game, ann.game / "0002-first.pbem").exit_code == 0
    r = bob.run("play", bob.game, "--orders", write_orders(tmp_path / "none.toml", ""), "--yes")
    assert r.exit_code == 0 and "Before writing" not in r.output  # --yes: at once


# --------------------------------------------------------------------------- 9.0: overstacking warned of


@pytest.fixture
def kure_to_move(tmp_path):
    """Messages 0-3 of examples/ambon with the protocol's randomness fixed
    (test_ambon_move_to.py): the Kure units have landed in 2106 and the
    Japanese are to move; Kure-1, Kure-2, Kure-3, Kure-MG and Kure-HQ can
    each reach 2007."""
    from test_ambon_move_to import japanese_to_move

    kenji, _ = japanese_to_move.__wrapped__(tmp_path)
    template = json.loads(kenji.run("orders", kenji.game, "--json").output)
    reach = {m["unit"]: m["reachable"] for m in template["choices"]["moves"]}
    assert all("2007" in reach[u] for u in KURE), reach  # the seeded game is what this test is about
    return kenji


KURE = ("Kure-1", "Kure-2", "Kure-3", "Kure-MG", "Kure-HQ")
FUNCTIONAL = ("9.0: 2007 would hold 4 units (Kure-1, Kure-2, Kure-3, Kure-MG; Kure-HQ not counted): "
              "functionally overstacked, every CF halved")


def moves(units, goal="2007") -> str:
    return "".join(f'[[order]]\nmove = "{u} to {goal}"\n' for u in units)


def test_9_0_dry_run_warns_of_a_hex_left_functionally_overstacked(kure_to_move, tmp_path):
    kenji = kure_to_move
    before = files_of(kenji)
    r = kenji.run("play", kenji.game, "--orders", write_orders(tmp_path / "o.toml", moves(KURE)), "--dry-run")
    assert r.exit_code == 0, r.output
    assert f"  warning: {FUNCTIONAL}\n" in r.output
    assert r.output.index("Kure-HQ moves") < r.output.index("warning: 9.0") < r.output.index("and then: ")
    assert files_of(kenji) == before
    r = kenji.run("play", kenji.game, "--orders", tmp_path / "o.toml", "--dry-run", "--json")
    assert json.loads(r.output)["warnings"] == [FUNCTIONAL]


def test_9_0_three_units_and_an_hq_are_not_overstacked(kure_to_move, tmp_path):
    kenji = kure_to_move
    orders = write_orders(tmp_path / "o.toml", moves(("Kure-1", "Kure-2", "Kure-3", "Kure-HQ")))
    r = kenji.run("play", kenji.game, "--orders", orders, "--dry-run")
    assert r.exit_code == 0 and "warning" not in r.output, r.output
    assert json.loads(kenji.run("play", kenji.game, "--orders", orders, "--dry-run", "--json").output)["warnings"] == []


def test_9_0_the_preview_at_a_terminal_warns_before_writing(kure_to_move, tmp_path, monkeypatch):
    import pbem.cli

    kenji = kure_to_move
    monkeypatch.setattr(pbem.cli, "at_terminal", lambda: True)
    r = kenji.run("play", kenji.game, "--orders", write_orders(tmp_path / "o.toml", moves(KURE)), input="n\n")
    assert "Before writing: 0004-japanese.pbem would do:" in r.output and f"  warning: {FUNCTIONAL}\n" in r.output
    assert r.output.index("warning: 9.0") < r.output.index("Write 0004-japanese.pbem?")
    assert r.exit_code == 2 and not (kenji.game / "0004-japanese.pbem").exists()


def test_9_0_warnings_through_the_contract_physical_detachments_and_hqs():
    """The game's Warnings capability on positions (pbem adjudicate's
    scenario files): more than 6 units is physical overstacking; a
    detachment counts 0.5; only the hexes the message changes are named;
    nothing for a side whose units are not there."""
    from pbem.engine import contract
    from pbem.games.ambon import GAME as AMBON

    assert isinstance(AMBON, contract.Warnings)
    units = ("1.A", "1.B", "1.C", "1.D", "2.A", "2.B", "2.C")
    spread = AMBON.scenario_state({"turn": 2, "phase": "japanese-movement",
                                   "positions": {u: f"{1603 + i}" for i, u in enumerate(units)} | {"228-HQ": "1608"}})
    seven = AMBON.scenario_state({"turn": 2, "phase": "japanese-movement",
                                  "positions": {u: "1608" for u in units} | {"228-HQ": "1608"}})
    assert AMBON.warnings(spread, seven, "japanese") == [
        "9.0: 1608 would hold 7 units (1.A, 1.B, 1.C, 1.D, 2.A, 2.B, 2.C; 228-HQ not counted): "
        "physically overstacked, no unit may attack and every CF is 1"]
    assert AMBON.warnings(seven, seven, "japanese") == []  # nothing moved: nothing the message does
    assert AMBON.warnings(spread, seven, "allied") == []
    allied = AMBON.scenario_state({"turn": 2, "phase": "allied-movement",
                                   "positions": {"NEI-1.A": "1114", "NEI-1.B": "1114", "NEI-1.C": "1114"},
                                   "concealed": {"X1": "1213"}})
    crowded = AMBON.scenario_state({"turn": 2, "phase": "allied-movement",
                                    "positions": {"NEI-1.A": "1114", "NEI-1.B": "1114", "NEI-1.C": "1114"},
                                    "concealed": {"X1": "1114"}})
    assert AMBON.warnings(allied, crowded, "allied") == [
        "9.0: 1114 would hold 3.5 units (NEI-1.A, NEI-1.B, NEI-1.C, X1 as 0.5): "
        "functionally overstacked, every CF halved"]
