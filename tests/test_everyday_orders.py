"""pbem orders: what is awaited from me, and a commented TOML template of the
legal choices whose example lines, uncommented, the game accepts."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from conftest import last_line
from everyday_support import ROLL, SEAL, ambon_opening, play

from pbem.engine.machine import MessageEnd, Ordered
from pbem.orders_template import ambon_sections, template, uncomment_examples

POSITION_15_0 = Path(__file__).parent.parent / "examples" / "ambon" / "position-15-0.toml"


def orders_file(player, tmp_path, name="template.toml") -> tuple[str, Path]:
    out = tmp_path / name
    r = player.run("orders", player.game, "--out", out)
    assert r.exit_code == 0, r.output
    assert last_line(r.output) == out
    return r.output, out


def play_uncommented(player, template_path: Path, tmp_path: Path) -> str:
    live = tmp_path / (template_path.stem + "-live.toml")
    live.write_text(uncomment_examples(template_path.read_text()))
    r = player.run("play", player.game, "--orders", live)
    assert r.exit_code == 0, r.output
    return r.output


def test_dice_template_lists_the_order_types_and_its_examples_play(started, tmp_path):
    a, b = started
    said, path = orders_file(a, tmp_path)
    assert "awaited: message 0002: your orders" in said
    text = path.read_text()
    tomllib.loads(text)  # the template itself is valid TOML (all comments)
    for kind in ("roll", "seal", "end"):
        assert f'type = "{kind}"' in text
    examples = tomllib.loads(uncomment_examples(text))["order"]
    assert [o["type"] for o in examples] == ["roll", "seal"]  # 'end' is never an example to uncomment by accident
    out = play_uncommented(a, path, tmp_path)
    assert "declares 2d6 for 'describe the roll'" in out and "seals a note in slot 'note-1'" in out


def test_a_sealed_note_is_offered_for_reveal_and_the_slot_name_is_fresh(started, tmp_path):
    a, b = started
    sent = play(a, tmp_path, ROLL + SEAL)
    assert b.run("import", b.game, sent).exit_code == 0
    reply = play(b, tmp_path)
    assert a.run("import", a.game, reply).exit_code == 0
    r = a.run("orders", a.game, "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["your_turn"] and data["message"] == 4 and data["choices"]["reveal"] == ["plan"]
    assert "'the real attack goes in at dawn' [only you see this]" in data["template"]
    assert {"type": "reveal", "slot": "plan"} in data["examples"]["order"]
    assert {"type": "seal", "slot": "note-1", "text": "what only you should know for now"} in data["examples"]["order"]
    _, path = orders_file(a, tmp_path)
    out = play_uncommented(a, path, tmp_path)
    assert "reveals slot 'plan'" in out


def test_not_my_turn_and_the_closing_message(started, tmp_path):
    a, b = started
    r = b.run("orders", b.game)
    assert r.exit_code == 0 and "nothing yet: message 0002 is first's" in r.output
    sent = play(a, tmp_path, '[[order]]\ntype = "end"\n')
    assert b.run("import", b.game, sent).exit_code == 0
    r = b.run("orders", b.game)
    assert "your closing message" in r.output and "reveals only" in r.output
    tomllib.loads(r.output)


def test_ambon_the_allied_template_names_the_reveals_owed_and_plays(players, tmp_path):
    j, a = ambon_opening(players, tmp_path)
    said, path = orders_file(a, tmp_path)
    text = path.read_text()
    assert "the reveal of X1, X2, M1, M2, M3, X3, X4: made automatically when you play" in said
    assert "X1 (6.3: concealed piece on the beach 2106) -- sealed: dummy [only you see this]" in text
    out = play_uncommented(a, path, tmp_path)
    assert "X1 in 2106 is revealed: a dummy" in out
    assert "dummy" not in json.dumps(json.loads(j.run("orders", j.game, "--json").output)["choices"])


def test_ambon_the_japanese_template_after_the_landings_plays_as_is(players, tmp_path):
    j, a = ambon_opening(players, tmp_path)
    r = a.run("play", a.game, "--orders", Path(__file__).parent.parent / "examples" / "ambon" / "3-allied-reveals.toml")
    assert r.exit_code == 0, r.output
    assert j.run("import", j.game, last_line(r.output)).exit_code == 0
    r = j.run("orders", j.game, "--json")
    data = json.loads(r.output)
    assert data["choices"]["phase"] == "japanese-movement" and data["your_turn"]
    text = data["template"]
    assert "## --- Movement (7.0-9.0): your units that may move" in text
    tomllib.loads(text)
    _, path = orders_file(j, tmp_path)
    play_uncommented(j, path, tmp_path)


def test_ambon_choices_in_the_15_0_position_movement_bombardment_and_odds():
    from pbem.games.ambon import GAME

    state = GAME.scenario_state(tomllib.loads(POSITION_15_0.read_text()))
    body = template(GAME, state, "japanese")
    moves = {m["unit"]: m for m in body.choices["moves"]}
    assert moves["3.A"]["left_half_mp"] == 10 and moves["3.A"]["reachable"]["1509"] == 10  # 15.0: 1410 -> 1509 costs 5 MP
    assert moves["3.C"]["reachable"]["1508"] == 10  # 15.0: 1507 -> 1508 (mountain) costs 5 MP
    (art,) = body.choices["bombardment"]
    assert art["unit"] == "3.D" and [t["id"] for t in art["targets"]] == ["NEI-2.B"]  # AUS-B is disrupted (10.0)
    attacks = {a["target"]: a for a in body.choices["attacks"]}
    assert attacks["1608"]["with"] == ["3.C"] and (attacks["1608"]["attack"], attacks["1608"]["defence"]) == ("6", "2")
    assert attacks["1608"]["final"] == "3:1"
    assert attacks["1609"]["defenders"] == ["NEI-2.B", "X2"] and attacks["1609"]["final"] == "1:1"
    notes = "\n".join(n for s in body.sections for n in s.notes)
    assert '3.A in 1410: 5 MP left' in notes and 'attack = "1608"  with = ["3.C"]: AUS-B; 6 against 2 = 3:1' in notes


def test_ambon_an_open_hq_support_decision_is_offered_with_its_options():
    from pbem.games.ambon import GAME

    state = GAME.scenario_state({**tomllib.loads(POSITION_15_0.read_text()), "phase": "japanese-combat"})
    parsed = GAME.parse_orders({"order": [{"attack": "1609", "with": ["3.B"]}]}, "japanese")
    for i, order in enumerate(parsed.public):
        state, _ = GAME.apply(state, Ordered("japanese", 5, i, order))
    state, _ = GAME.apply(state, MessageEnd("japanese", 5))
    body = ambon_sections(GAME, state, "allied", {})
    (decision,) = body.choices["decisions"]
    assert decision["kind"] == "hq-support" and decision["target"] == "1609"
    assert decision["options"] == ["NEI-HQ", "none"]  # NEI-HQ in 1708 is next to 1609 (11.1)
    (section,) = [s for s in body.sections if s.title == "Decisions open now"]
    (example,) = section.examples
    assert example == {"support": decision["options"][0], "target": "1609"}
    parsed = GAME.parse_orders({"order": [example]}, "allied")
    GAME.apply(state, Ordered("allied", 6, 0, parsed.public[0]))  # legal as offered
