"""Issue 17: orders safe to send -- `pbem play --dry-run` checks the orders
on the position and shows what the message would do and leave awaited,
writing nothing; at a terminal `pbem play --orders` shows the same, with
any text it seals, and asks before writing."""

from __future__ import annotations

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
    import json

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
