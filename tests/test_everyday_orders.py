"""pbem orders: what is awaited from me, and a commented TOML template of the
legal choices whose example lines, uncommented, the game accepts."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from conftest import last_line
from everyday_support import ROLL, SEAL, ambon_opening, play

from pbem.engine.machine import MessageEnd, Ordered
from pbem.games.ambon.template import sections as ambon_sections
from pbem.app.orders_template import template, uncomment_examples

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

    position = {k: v for k, v in tomllib.loads(POSITION_15_0.read_text()).items() if k != "standing"}  # undecided
    state = GAME.scenario_state({**position, "phase": "japanese-combat"})
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


# --------------------------------------------------------------------------- Calumpit


def calumpit_opening(players, tmp_path):
    """Ann (american) proposes; Bob (japanese) joins with the orders his
    template for the proposal offers, uncommented; Ann receives them."""
    a, j = players
    r = a.run("new", a.game, "--game", "calumpit", "--as", "american", "--opponent", j.pub())
    assert r.exit_code == 0, r.output
    proposal = last_line(r.output)
    r = j.run("orders", proposal, "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["your_turn"] and data["message"] == 1 and data["you"] == "japanese"
    assert data["awaited"][0].startswith("message 0001: your orders for turn 1")
    assert "japanese (you): no unit on the table yet" in data["template"]
    live = tmp_path / "join.toml"
    live.write_text(uncomment_examples(data["template"]))
    assert tomllib.loads(live.read_text()) == data["examples"] == {"order": [{"type": "done"}]}
    r = j.run("join", proposal, "--dir", j.game, "--orders", live)
    assert r.exit_code == 0, r.output
    r = a.run("receive", a.game, last_line(r.output))
    assert r.exit_code == 0, r.output
    return a, j


def test_calumpit_template_lists_every_order_its_fields_and_values_and_the_units(players, tmp_path):
    from pbem.games.calumpit.orders import ORDERS

    a, j = calumpit_opening(players, tmp_path)
    said, path = orders_file(a, tmp_path)
    assert "awaited: message 0002: your orders for turn 1" in said and "(japanese is done: your done ends the turn)" in said
    text = path.read_text()
    tomllib.loads(text)  # all comments
    for kind, (rule, doc, _) in ORDERS.items():
        assert f"## --- {kind} ({rule}): {doc}" in text
    assert "##   kind*    one of infantry, vehicle, tank, heavy -- what moves" in text
    assert '##   co       true or false; default false -- the company\'s commanding officer (C/O) moves with' in text
    assert "##   terrain* one of open, road, light-cover, woods, jungle, vehicle, heavy-cover, foxhole, trench" in text
    assert "##   1-SQD: 1st squad -- scouts infantry, 12 figures, MORALE GRADE 20" in text
    assert "##   MORTAR: mortar section (3-inch Stokes) -- scouts mortar, 4 figures, MORALE GRADE 20, 24 rounds" in text
    # the opening's event cards vary: the demolition section says when it is owed, or shows it owed now
    demolition = text.split("## --- demolition", 1)[1].split("## ---", 1)[0]
    assert any(note in demolition for note in ("## not owed by you now: the Joker makes the attempt owed by the american player",
                                               "## owed by you now: see the examples above", "## e.g. "))
    live = tomllib.loads(uncomment_examples(text))["order"]
    assert [o["type"] for o in live][-4:] == ["move", "fire", "indirect", "done"]  # after any answers owed
    assert 'type = "end"' not in uncomment_examples(text).replace('## type = "end"', "")  # end is never live
    out = play_uncommented(a, path, tmp_path)
    assert "0002 [MOVEMENT] 1-SQD moves up to" not in out  # keyed by the reply: shown to Bob
    r = j.run("receive", j.game, last_line(out))
    assert r.exit_code == 0, r.output
    assert "[DIRECT FIRE] 1-SQD (rifle, 12 figures, 2 D20) fires at" in r.output
    assert "[INDIRECT FIRE] MORTAR fires 3 round(s) on the marked point" in r.output
    assert "[SEQUENCE] turn 1 ends" in r.output


def test_calumpit_orders_json_carries_the_fields_values_units_and_examples(players, tmp_path):
    a, _ = calumpit_opening(players, tmp_path)
    data = json.loads(a.run("orders", a.game, "--json").output)
    choices = data["choices"]
    move = choices["order_types"]["move"]
    assert move["rule"] == "MOVEMENT" and move["fields"]["kind"] == {
        "type": "choice", "required": True, "doc": "what moves: the MOVEMENT table's row",
        "values": ["infantry", "vehicle", "tank", "heavy"]}
    assert move["fields"]["co"]["default"] is False and "commanding officer" in move["fields"]["co"]["doc"]
    assert choices["order_types"]["melee"]["fields"]["pairs"]["modifiers"][:2] == ["charging", "bayonet"]
    assert choices["order_types"]["save"]["examples"] == [{"type": "save", "hits": 1, "terrain": "woods", "unit": "1-SQD"}]
    view = json.loads(a.run("show", a.game, "--json").output)["view"]
    assert {u["id"]: u["figures"] for u in choices["units"]} == {u["id"]: u["figures"] for u in view["units"]}
    assert {u["id"]: u["figures"] for u in choices["units"]}["1-SQD"] == 12
    assert choices["done"] == ["japanese"]
    # what is owed depends on the event cards the opening drew (a sniper's shot owes a morale check)
    assert all(o["kind"] and o["rule"] for o in choices["owed"])
    assert all(o["kind"] in data["template"] for o in choices["owed"])
    assert data["examples"]["order"] == tomllib.loads(uncomment_examples(data["template"]))["order"]


def test_calumpit_closing_template_after_the_end(players, tmp_path):
    a, j = calumpit_opening(players, tmp_path)
    sent = play(a, tmp_path, '[[order]]\ntype = "end"\n')
    assert j.run("receive", j.game, sent).exit_code == 0
    r = j.run("orders", j.game)
    assert r.exit_code == 0 and "your closing message: american ended the game; it carries no orders" in r.output
    assert "## --- " not in r.output


# --------------------------------------------------------------------------- ASL


def asl_join_with_template(players, tmp_path):
    """Ann (axis) proposes; Bob (allied) joins with his template's setup."""
    ann, bob = players
    r = ann.run("new", ann.game, "--game", "asl", "--as", "axis", "--opponent", bob.pub())
    assert r.exit_code == 0, r.output
    proposal = last_line(r.output)
    r = bob.run("orders", proposal, "--json")
    data = json.loads(r.output)
    assert data["awaited"][0].startswith("message 0001: your setup (asl.setup)")
    assert data["choices"]["order_types"] == ["setup"]  # before the setup, only the setup
    assert data["examples"] == {"order": [{"type": "setup", "nationality": "chinese",
                                           "squads": {"A": "3-3-7", "B": "4-4-7", "C": "5-3-7"},
                                           "dare_death": ["A"]}]}
    text = data["template"]
    assert '# squads = { A = "3-3-7", B = "4-4-7", C = "5-3-7" }' in text and "Chinese squads: 5-3-7, 4-4-7, 3-3-7, 3-3-6" in text
    live = tmp_path / "setup.toml"
    live.write_text(uncomment_examples(text))
    r = bob.run("join", proposal, "--dir", bob.game, "--orders", live)
    assert r.exit_code == 0, r.output
    r = ann.run("receive", ann.game, last_line(r.output))
    assert r.exit_code == 0, r.output
    assert "allied sets up as Chinese: 3 squads declared (A 3-3-7, B 4-4-7, C 5-3-7); 2 may be Dare-Death" in r.output
    return ann, bob


def test_asl_template_before_the_setup_offers_only_the_setup_and_it_plays(players, tmp_path):
    ann, bob = asl_join_with_template(players, tmp_path)
    said, path = orders_file(ann, tmp_path)
    assert "awaited: message 0002: your setup (asl.setup): your nationality and squads;" in said
    text = path.read_text()
    assert "allied has set up as Chinese" in text and "DR" not in text.replace("Dare", "")
    assert tomllib.loads(uncomment_examples(text))["order"] == [{"type": "setup", "nationality": "japanese"}]
    out = play_uncommented(ann, path, tmp_path)
    assert "axis sets up as Japanese" in out


def test_asl_template_after_the_setup_offers_the_rolls_claims_and_notes(players, tmp_path):
    ann, bob = asl_join_with_template(players, tmp_path)
    sent = play(ann, tmp_path, '[[order]]\ntype = "setup"\nnationality = "japanese"\n')
    assert bob.run("receive", bob.game, sent).exit_code == 0
    r = bob.run("orders", bob.game, "--json")
    data = json.loads(r.output)
    text, choices = data["template"], data["choices"]
    assert data["awaited"][0] == ("message 0003: your orders: any number of DR, dr, berserk, human-wave, dare-death, "
                                  "seal, reveal, or end (the message then goes to axis)")
    assert "##   A: 3-3-7 -- sealed designation: a Dare-Death Squad [only you see this]" in text
    assert "##   B: 4-4-7 -- sealed designation: regular [only you see this]" in text
    assert "##   C: 5-3-7\n" in text  # a 5-3-7 has no designation (8.5.2)
    assert "examples/asl/3-allied-berserk.toml is a berserk order" in text
    assert choices["dare_death_claims"] == ["A", "B"] and choices["set_up"] and choices["nationality"] == "chinese"
    assert "dare-death" not in json.dumps(choices).replace('"dare-death"', "")  # the order type only
    assert "regular" not in json.dumps(choices) and "Dare-Death Squad" not in json.dumps(choices)
    assert [o["type"] for o in data["examples"]["order"]] == ["DR", "dr", "seal"]
    _, path = orders_file(bob, tmp_path)
    out = play_uncommented(bob, path, tmp_path)
    assert "allied declares a DR in allied Player Turn, PFPh for 'describe the roll, e.g. 1MC for squad A'" in out
    assert "seals a note in slot 'note-1'" in out
    r = ann.run("receive", ann.game, last_line(out))
    assert r.exit_code == 0, r.output
    r = ann.run("orders", ann.game, "--json")  # the axis side: no Dare-Death, no Human Wave
    data = json.loads(r.output)
    assert "Chinese rules: a Japanese side declares neither" in data["template"]
    assert data["choices"]["order_types"] == ["DR", "dr", "phase", "seal", "reveal", "end"]
    assert data["choices"]["clock"]["phase"] == "PFPh"  # asl.phase: Bob's rolls named it; Ann's are stamped with it
    assert "the game is at allied Player Turn, PFPh (since message 0003)" in data["template"]
    assert "phase" not in data["examples"]["order"][0]
    # and none of Bob's designations
    assert "##   A: 3-3-7 -- Dare-Death designation sealed" in data["template"]
    assert "only you see" not in data["template"] and "regular" not in data["template"]


def test_asl_closing_template_offers_the_reveals_only(players, tmp_path):
    ann, bob = asl_join_with_template(players, tmp_path)
    sent = play(ann, tmp_path, '[[order]]\ntype = "setup"\nnationality = "japanese"\n' + SEAL)
    assert bob.run("receive", bob.game, sent).exit_code == 0
    sent = play(bob, tmp_path, '[[order]]\ntype = "end"\n')
    assert ann.run("receive", ann.game, sent).exit_code == 0
    said, path = orders_file(ann, tmp_path)
    assert "your closing message: allied ended the game; it may carry reveals only" in said
    assert "plan (sealed in 0002): 'the real attack goes in at dawn' [only you see this]" in path.read_text()
    assert tomllib.loads(uncomment_examples(path.read_text()))["order"] == [{"type": "reveal", "slot": "plan"}]
    out = play_uncommented(ann, path, tmp_path)
    assert "reveals slot 'plan'" in out


def test_ambon_the_template_says_every_standing_instruction_in_effect_or_what_happens_without():
    """Issue 17: nothing is decided silently -- each standing
    instruction is shown as set, or with what pbem does while it is not
    (11.3's choices, 11.1/11.4 and 3.2: asked; issue 26: never a silent default)."""
    from pbem.games.ambon import GAME

    state = GAME.scenario_state({**tomllib.loads(POSITION_15_0.read_text()),
                                 "standing": {"japanese": {"retreat": "hit", "losses": "3.C 3.A"}}})
    section = next(s for s in template(GAME, state, "japanese").sections if s.title.startswith("Standing instructions"))
    notes = "\n".join(section.notes)
    assert "  retreat (11.3): 'hit', as you set it" in notes and "  losses (11.3): '3.C 3.A', as you set it" in notes
    assert "  advance (11.4): not set -- each advance after your combat is asked of you" in notes
    assert "retreat-to (11.3): not set -- where a retreat may go to more than one hex, you are asked" in notes
    assert "surrender" not in notes  # 3.2 is the Allies' decision
    allied = next(s for s in template(GAME, state, "allied").sections if s.title.startswith("Standing instructions"))
    assert any(n.startswith("  surrender (3.2): not set") for n in allied.notes)


def test_ambon_the_template_lists_every_order_kind_and_each_form_parses():
    """Issue 17: the template has an example of every order kind, 14.2's
    sealed note included, for both sides; each is real syntax."""
    from pbem.games.ambon import GAME
    from pbem.games.ambon.orders import ORDER_FORMS, VERBS

    state = GAME.scenario_state(tomllib.loads(POSITION_15_0.read_text()))
    reference = next(s for s in template(GAME, state, "allied").sections if s.title.startswith("Every order"))
    written = {form.split(" = ", 1)[0] for line in ORDER_FORMS for form in line[0].split("  /  ")}
    assert written == set(VERBS) and len(reference.notes) == len(ORDER_FORMS)
    assert any("second_wave" in n and "(14.2)" in n for n in reference.notes)
    for line, _, _ in ORDER_FORMS:
        for form in line.split("  /  "):
            doc = tomllib.loads("[[order]]\n" + form.replace("  ", "\n"))
            assert any(_parses(GAME, doc, side) for side in ("japanese", "allied")), form


def _parses(game, doc, side) -> bool:
    from pbem.errors import PbemError

    import random

    from pbem.engine import contract

    try:
        game.parse_orders(contract.drawn(game, doc, side, random.Random()), side)  # drawn first, as pbem play does
        return True
    except PbemError:
        return False
