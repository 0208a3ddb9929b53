"""3.2: "At the start of turn 8" the Allies may surrender -- before the
turn's Landing Phase.  The log reads in the rule's order: turn 8 begins,
the surrender offer and the decision, then the Landing Phase begins
(issue 26), through `pbem adjudicate` as a referee sees it."""

from __future__ import annotations

from click.testing import CliRunner

from pbem.cli import main
from pbem.engine.machine import DecisionDue, MessageEnd
from pbem.games.ambon import GAME

TURN_7_ENDS = '''turn = 7
phase = "allied-combat"
beachheads = ["1402"]
[positions]
"3.A" = "1608"
"NEI-HQ" = "1611"
[control]
"1809" = 4
'''
LANDING = "[5.0] turn 8: the Japanese Landing Phase begins"


def adjudicate(tmp_path, position: str, orders: str, *side: str) -> list[str]:
    (tmp_path / "position.toml").write_text(position)
    (tmp_path / "orders.toml").write_text(orders)
    r = CliRunner().invoke(main, ["adjudicate", "--game", "ambon", "--scenario", str(tmp_path / "position.toml"),
                                  "--orders", str(tmp_path / "orders.toml"), *side], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    return [line for line in r.output.splitlines() if line.startswith("[")][:12]


def after(lines: list[str], text: str) -> list[str]:
    return lines[lines.index(text):]


def test_3_2_the_surrender_offer_comes_before_the_landing_phase(tmp_path):
    lines = after(adjudicate(tmp_path, TURN_7_ENDS, ""), "[5.0] turn 8 begins (2 February PM)")
    assert lines[:2] == ["[5.0] turn 8 begins (2 February PM)", "[3.2] turn 8 begins: the Allies may surrender"]
    assert LANDING not in lines  # the Landing Phase begins once the Allies have decided


def test_3_2_the_decision_comes_before_the_landing_phase(tmp_path):
    open_decision = ('turn = 8\nphase = "japanese-landing"\nsurrender = "open"\n[positions]\n"NEI-HQ" = "1611"\n'
                     '"AUS-HQ" = "1215"\n"1.A" = "1809"\n[control]\n"1809" = 4\n')
    lines = adjudicate(tmp_path, open_decision, '[[order]]\nsurrender = "no"\n', "--as", "allied")
    assert lines[:2] == ["[3.2] the Allies fight on", LANDING]


def test_3_2_a_standing_never_fights_on_before_the_landing_phase(tmp_path):
    lines = after(adjudicate(tmp_path, TURN_7_ENDS + '[standing.allied]\nsurrender = "never"\n', ""),
                  "[5.0] turn 8 begins (2 February PM)")
    assert lines[:3] == ["[5.0] turn 8 begins (2 February PM)", "[3.2] the Allies fight on (standing instruction)",
                         LANDING]


def test_3_2_a_decision_left_open_fights_on_then_the_landing_phase_begins():
    """The log's order changes, not the game: the decision is still awaited
    in the Landing Phase, and an Allied message without it fights on."""
    state = GAME.scenario_state(dict(turn=7, phase="allied-combat", beachheads=["1402"],
                                     positions={"3.A": "1608", "NEI-HQ": "1611"}, control={"1809": 4}))
    state, _ = GAME.apply(state, MessageEnd("allied", 20))
    assert state.phase == "japanese-landing" and state.turn == 8 and state.surrender_offered
    assert any(isinstance(a, DecisionDue) and a.kind == "surrender" for a in GAME.awaiting(state))
    state, events = GAME.apply(state, MessageEnd("allied", 22))
    texts = [e.text for e in events]
    assert texts[:2] == ["the Allies fight on (the surrender decision was left open)",
                         "turn 8: the Japanese Landing Phase begins"]
    assert state.phase == "japanese-landing" and not state.surrender_offered and not GAME.is_over(state)
