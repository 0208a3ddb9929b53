"""``pbem demo calumpit`` and ``pbem demo asl``: whole games by email between
two fresh identities, each ending with both closing messages and verified
with --audit (pbem.app.demo.run with each game's DemoScript)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from pbem.engine import registry
from pbem.app import demo
from pbem.games.asl.demo import SCRIPT as ASL_SCRIPT
from pbem.engine.machine import Ordered
from pbem.games.calumpit.bot import RIFLES, CalumpitBot
from pbem.match import session
from pbem.protocol.keystore import Keystore

EXAMPLES = Path(__file__).parent.parent / "examples" / "asl"


def check_layout(report, names: tuple[str, str]) -> None:
    """Both players' directories hold every message; the mail folder every
    message sent; the orders folder the orders of messages 1 to the last."""
    root = report.directory
    for name in names:
        assert (root / name / "keystore" / "identity").exists()
        assert len(list((root / name / "game").glob("[0-9][0-9][0-9][0-9]-*.pbem"))) == report.messages
    assert len(list((root / "mail").glob("*.pbem"))) == report.messages
    kept = sorted(p.name for p in (root / "orders").glob("*.toml"))
    assert [int(name[:4]) for name in kept] == list(range(1, report.messages))


def check_finished(report) -> None:
    assert report.verify.ok, report.verify.problems
    assert report.verify.audited and report.logs_agree
    assert report.over and report.final.closed
    assert len(report.final.transcript.secrets) == 2  # both closing messages
    assert len(report.verify.transcript) == report.messages
    # anyone with the other player's directory alone verifies the same
    for name in {p.name for p in report.directory.iterdir()} - {"mail", "orders"}:
        again = session.verify([report.directory / name / "game"], audit=True)
        assert again.ok, again.problems


# --------------------------------------------------------------------------- Calumpit Bridge


def test_calumpit_demo_plays_a_whole_game_to_its_verdict(tmp_path):
    lines: list[str] = []
    report = demo.run(tmp_path / "demo", "calumpit", progress=lines.append)
    check_finished(report)
    check_layout(report, ("amy", "ken"))
    state = report.final.replay.state
    assert state.over and state.verdict
    assert state.verdict.startswith(("American victory", "Japanese victory", "no decision"))
    assert lines[-1] == state.verdict
    assert any("verified with --audit" in line for line in lines)
    # proposal, join, two messages a turn for at least one turn, the end and the closing reply
    assert 6 <= report.messages <= 2 + 2 * 8 + 2
    assert state.turn <= 9
    final = report.final.replay.events[-1][1]
    assert final.rule == "VICTORY CONDITIONS"
    # the Americans fought: their units fired, the turns ended, the event checks were made
    rules = {e.rule for _, e in report.final.replay.events}
    assert {"DIRECT FIRE", "SEQUENCE", "EVENT CARDS"} <= rules
    assert "the closing reply" in " ".join(lines)


def test_calumpit_demo_ends_after_its_last_turn(tmp_path):
    report = demo.run(tmp_path / "demo", "calumpit", last_turn=1)
    check_finished(report)
    state = report.final.replay.state
    assert state.turn <= 2 and report.messages <= 6
    ended = [e for _, e in report.final.replay.events if e.rule == "VICTORY CONDITIONS"]
    assert any("american ends the game" in e.text for e in ended)
    assert any("closes the game ended by american" in e.text for e in ended)


def test_calumpit_demo_runs_again_in_the_same_directory(tmp_path):
    first = demo.run(tmp_path, "calumpit", last_turn=1)
    key = Keystore(tmp_path / "amy" / "keystore").load(lambda: None).public.fingerprint
    again = demo.run(tmp_path, "calumpit", last_turn=1)
    check_finished(again)
    check_layout(again, ("amy", "ken"))
    assert Keystore(tmp_path / "amy" / "keystore").load(lambda: None).public.fingerprint == key
    assert again.final.transcript.game != first.final.transcript.game  # a new game, not the old files


def accepted(game, state, side: str, seq: int, document: dict) -> object:
    """Apply an orders document as the engine will; returns the state."""
    for index, order in enumerate(game.parse_orders(document, side).public):
        state, _ = game.apply(state, Ordered(side, seq, index, order))
    return state


def test_calumpit_bot_reports_the_japanese_at_the_bridge_when_no_american_rifle_stands():
    game = registry.get("calumpit")
    units = {u.id: {"status": "rout"} for u in game.initial_state({}).units if u.kind in RIFLES}
    state = game.scenario_state({"turn": 3, "units": {**units, "J-COY": {"side": "japanese", "nationality": "japanese",
                                                                          "kind": "infantry", "figures": 20}}})
    bot = CalumpitBot(game)
    orders = bot.orders(state, "japanese", 7)
    assert orders == {"order": [{"type": "report", "japanese_at_bridge": True}]}
    after = accepted(game, state, "japanese", 7, orders)
    assert after.over and after.winner == "japanese"
    assert bot.orders(after, "american", 8) == {}  # the closing reply carries no orders


def test_calumpit_bot_answers_what_is_owed_and_fires():
    game = registry.get("calumpit")
    state = game.scenario_state({
        "turn": 2, "demolition": "owed", "may_draw": ["red"],
        "units": {"J-INF-1": {"side": "japanese", "nationality": "japanese", "kind": "infantry", "figures": 30}},
    })
    orders = CalumpitBot(game).orders(state, "american", 4)
    kinds = [o["type"] for o in orders["order"]]
    assert kinds[:2] == ["demolition", "draw"] and kinds[-1] == "done"
    assert "fire" in kinds and "indirect" in kinds and "burst" in kinds
    assert all(o.get("target", "J-INF-1") == "J-INF-1" for o in orders["order"] if o["type"] == "fire")
    accepted(game, state, "american", 4, orders)  # every order passes the engine's checks


def test_calumpit_bot_reports_knocked_out_tanks_and_fights_them():
    game = registry.get("calumpit")
    state = game.scenario_state({
        "turn": 4,
        "units": {"J-LT-1": {"side": "japanese", "nationality": "japanese", "kind": "tank", "figures": 2,
                             "target": "japanese-light"},
                  "J-INF-1": {"side": "japanese", "nationality": "japanese", "kind": "infantry", "figures": 30},
                  "J-INF-2": {"side": "japanese", "nationality": "japanese", "kind": "infantry", "figures": 25,
                              "status": "retreat"}},
        "missions": [{"id": "H9", "rule": "Hearts 9", "name": "155mm direct support", "calls_left": 2, "rounds": 6,
                      "turns_per_call": 1, "delay": 0, "last_turn": 6, "direction": "d12", "distance": "d20",
                      "radius": 2}],
    })
    orders = CalumpitBot(game).orders(state, "american", 8, knocked=("J-LT-1",))["order"]
    assert orders[0] == {"type": "loss", "unit": "J-LT-1", "men": 1}
    assert {"type": "call", "mission": "H9", "at": "J-INF-1 (J-INF-1)"} in orders
    guns = {o["unit"]: o["gun"] for o in orders if o["type"] == "tankfire"}
    assert guns == {"TANKS": "us-37mm", "ARTY": "us-75mm"}
    assert all(o["target"] == "J-LT-1" for o in orders if o["type"] == "tankfire")
    fired_at = {o.get("target") for o in orders if o["type"] == "fire"}
    assert fired_at == {"J-INF-1"}  # not the tanks with rifles, and J-INF-2 going back is let go
    after = accepted(game, state, "american", 8, {"order": orders})
    assert after.pending is not None  # the orders wait for their dice, keyed by this message


def test_calumpit_bot_ends_the_game_when_the_japanese_force_is_spent():
    game = registry.get("calumpit")
    state = game.scenario_state({"turn": 3, "units": {
        "J-COY": {"side": "japanese", "nationality": "japanese", "kind": "infantry", "figures": 20, "status": "rout"}}})
    orders = CalumpitBot(game).orders(state, "american", 6)
    assert [o["type"] for o in orders["order"]] == ["report", "end"]
    after = accepted(game, state, "american", 6, orders)
    assert after.ending_by == "american"


# --------------------------------------------------------------------------- ASL


@pytest.mark.parametrize("seq", range(1, 8))
def test_the_asl_script_is_the_example_game(seq):
    (example,) = EXAMPLES.glob(f"{seq}-*.toml")
    side, text = ASL_SCRIPT[seq - 1]
    assert example.name.split("-")[1] == side
    assert tomllib.loads(text) == tomllib.loads(example.read_text())


def test_asl_demo_plays_the_example_game(tmp_path):
    lines: list[str] = []
    report = demo.run(tmp_path / "demo", "asl", progress=lines.append)
    check_finished(report)
    check_layout(report, ("sato", "wei"))
    assert report.messages == 8
    assert [r.to_json()["dice"] for r in report.verify.replay.rolls] == ["2d6", "2d6", "1d6"]
    text = "\n".join(lines)
    assert "reveals squad A's designation" in text and "goes Berserk" in text
    assert "allied closes the game" in text
    squads = {s["id"]: s for s in report.final.view()["sides"]["allied"]["squads"]}
    assert squads["A"]["dare_death"] is True and squads["A"]["revealed_in"] == 3
    # the orders kept are the example's files, message by message
    for seq, (side, text) in enumerate(ASL_SCRIPT, 1):
        assert (report.directory / "orders" / f"{seq:04d}-{side}.toml").read_text() == text
