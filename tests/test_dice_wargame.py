"""The dice game's wargame dice (docs/protocol.md 6.5, rules 2), the rules
version message 0 pins, named sides, the confirmation before an empty
message, and shell completion."""

from __future__ import annotations

from types import SimpleNamespace

import json

import click
import pytest
from click.shell_completion import ShellComplete

from conftest import exchange, last_line
from pbem.cli import main
from pbem.errors import IllegalOrderError, InputError, IntegrityError
from pbem.games.dice.expression import D66, PERCENTILE, PLAIN, DiceExpression, DiceTerm
from pbem.games.dice.game import DiceGame, side_names
from pbem.match import session


# --------------------------------------------------------------------------- 6.5 expressions, rules 2


@pytest.mark.parametrize(
    "text, terms, values, total, shown",
    [
        ("d66", [DiceTerm(1, 1, 66, D66)], [(3, 5)], 35, "35"),
        ("2d66+1", [DiceTerm(1, 2, 66, D66)], [(1, 1, 6, 6)], 78, "11 + 66 + 1 = 78"),
        ("d%", [DiceTerm(1, 1, 100, PERCENTILE)], [(10, 7)], 7, "7"),
        ("d%", [DiceTerm(1, 1, 100, PERCENTILE)], [(10, 10)], 100, "100"),
        ("D100", [DiceTerm(1, 1, 100, PERCENTILE)], [(7, 10)], 70, "70"),
        ("4d6kh3", [DiceTerm(1, 4, 6, PLAIN, ("h", 3))], [(6, 2, 5, 1)], 13, "6 + 2 + 5 (dropped 1) = 13"),
        ("4D6KL2", [DiceTerm(1, 4, 6, PLAIN, ("l", 2))], [(6, 2, 5, 2)], 4, "2 + 2 (dropped 6, 5) = 4"),
        ("2d20kh1+1", [DiceTerm(1, 2, 20, PLAIN, ("h", 1))], [(7, 17)], 18, "17 (dropped 7) + 1 = 18"),
        ("10-d66", [DiceTerm(-1, 1, 66, D66)], [(2, 4)], -14, "-24 + 10 = -14"),
    ],
)
def test_6_5_rules_2_terms_results_total_and_shown_text(text, terms, values, total, shown):
    expr = DiceExpression.parse(text, rules="2")
    assert list(expr.terms) == terms
    assert expr.total(values) == total
    assert expr.shown(values) == shown


def test_6_5_keep_highest_keeps_the_die_drawn_first_of_equal_ones():
    term = DiceExpression.parse("3d6kh2", rules="2").terms[0]
    assert term.kept((4, 4, 4)) == (True, True, False)
    assert DiceExpression.parse("3d6kl1", rules="2").terms[0].kept((5, 2, 2)) == (False, True, False)


def test_6_5_each_kind_draws_its_dice_from_the_substream():
    terms = DiceExpression.parse("2d66+d%+4d6kh3+d100+3d8", rules="2").terms
    assert [(t.dice, t.die) for t in terms] == [(4, 6), (2, 10), (4, 6), (2, 10), (3, 8)]
    assert [(t.dice, t.die) for t in DiceExpression.parse("2d66+d100", rules="1").terms] == [(2, 66), (1, 100)]


@pytest.mark.parametrize("text, says", [
    ("d66kh1", "only plain dice"), ("2d100kl1", "only plain dice"), ("2d%kl1", "cannot read"), ("4d6kh0", "keeps 0 of 4"),
    ("4d6kh5", "keeps 5 of 4"), ("51d66", "rolls 102 dice"), ("50d%+1d6", "rolls 101 dice"), ("4d6k3", "cannot read"),
    ("d%%", "cannot read"), ("d1000kh1", "keeps"),
])
def test_6_5_rules_2_bounds_are_refused_naming_the_field(text, says):
    if text == "d1000kh1":  # 1 of 1 is a keep within bounds
        assert DiceExpression.parse(text, rules="2").total([(999,)]) == 999
        return
    with pytest.raises(InputError, match=says) as info:
        DiceExpression.parse(text, field="order 1: dice", rules="2")
    assert info.value.field == "order 1: dice"


@pytest.mark.parametrize("text", ["d%", "4d6kh3", "2d20kl1"])
def test_6_5_rules_1_reads_none_of_the_wargame_forms(text):
    with pytest.raises(InputError, match="NdS terms"):
        DiceExpression.parse(text, rules="1")


def test_6_5_rules_1_reads_d66_and_d100_as_one_die():
    assert DiceExpression.parse("d66", rules="1").terms == (DiceTerm(1, 1, 66),)
    assert DiceExpression.parse("d100", rules="1").total([(93,)]) == 93


def test_6_5_an_old_game_refuses_a_wargame_roll_citing_dice_roll():
    game = DiceGame("1")
    with pytest.raises(InputError):
        game.parse_orders({"order": [{"type": "roll", "dice": "4d6kh3"}]}, "first")
    from pbem.engine.machine import Ordered

    state = game.initial_state({})
    with pytest.raises(IllegalOrderError) as info:
        game.apply(state, Ordered("first", 2, 0, {"type": "roll", "dice": "d%", "note": ""}))
    assert info.value.rule == "dice.roll"


# --------------------------------------------------------------------------- 6.5 rules versions


def test_6_5_a_new_game_pins_rules_2_in_message_0(tmp_path, ann, bob):
    path = session.new_game(tmp_path / "g", "dice", "first", bob.public, ann)
    (_, msg), = session.read_messages([path])
    setup = msg.body["setup"]
    assert setup["module_version"] == "2"
    assert setup["ruleset"] == session.ruleset_hash(DiceGame("2")) != session.ruleset_hash(DiceGame("1"))


def test_6_5_a_rules_version_this_pbem_does_not_know_is_refused():
    assert DiceGame().for_terms("3", {}).version == "2"  # the caller's version check refuses it
    with pytest.raises(InputError, match="knows 1, 2"):
        DiceGame("3")


def test_6_5_rules_2_game_rolls_a_d66_as_tens_and_units(tmp_path, ann, bob):
    a, b = tmp_path / "ann", tmp_path / "bob"
    reply, _ = session.join_game(session.new_game(a, "dice", "first", bob.public, ann), b, bob)
    session.receive(a, [reply], ann)
    sent = session.play(a, ann, {"order": [{"type": "roll", "dice": "d66", "note": "morale"}]}).path
    received = session.receive(b, [sent], bob)
    (roll,) = received.match.replay.rolls  # the replay's record of the roll (its one die term)
    (tens, units) = roll.values
    assert roll.total == 10 * tens + units and 11 <= roll.total <= 66
    events = [e.sentence() for _, e in received.match.replay.events]
    assert any(f"rolled d66 for 'morale': {roll.total} (keyed" in e for e in events), events


# --------------------------------------------------------------------------- 6.5 sides


@pytest.mark.parametrize("given, says", [
    (["german"], "two side names"), ("german,soviet", "two side names"), (["german", "German"], "ignoring case"),
    (["1st", "second"], "'1st' is not"), (["a b", "c"], "'a b' is not"), (["x" * 33, "y"], "is not 1-32"),
    (["german", 5], "two side names"),
])
def test_6_5_side_names_are_refused_precisely(given, says):
    with pytest.raises(InputError, match=says) as info:
        side_names({"sides": given})
    assert info.value.field == "sides"


def test_6_5_sides_default_to_first_and_second():
    assert side_names({}) == ("first", "second")
    assert DiceGame().for_terms("2", {"sides": ["german", "soviet"]}).sides == ("german", "soviet")


def test_6_5_named_sides_through_the_cli(players, tmp_path):
    a, b = players
    r = a.run("new", a.game, "--game", "dice", "--sides", "german,soviet", "--as", "german", "--opponent", b.pub())
    assert r.exit_code == 0, r.output
    assert "you play german" in r.output and last_line(r.output) == a.game / "0000-german.pbem"
    r = b.run("join", last_line(r.output), "--dir", b.game)
    assert r.exit_code == 0, r.output
    assert last_line(r.output) == b.game / "0001-soviet.pbem"
    assert a.run("receive", a.game, last_line(r.output)).exit_code == 0
    sent = exchange(a, b, tmp_path, '[[order]]\ntype = "roll"\ndice = "4d6kh3"\nnote = "assault"\n')
    assert sent.name == "0002-german.pbem"
    exchange(b, a, tmp_path, "")
    r = a.run("log", a.game, "--json")
    data = json.loads(r.output)
    assert any("german rolled 4d6kh3 for 'assault'" in json.dumps(e) for e in data["events"])
    (declared,) = data["declared_rolls"]
    assert declared["by"] == "german" and declared["shown"].startswith("4d6kh3: ") and " (dropped " in declared["shown"]
    r = a.run("show", a.game, "--json")
    assert json.loads(r.output)["view"]["sides"] == ["german", "soviet"]
    r = a.run("show", a.game)
    assert r.exit_code == 0 and "german" in r.output
    r = a.run("orders", a.game)
    assert r.exit_code == 0 and "soviet" in r.output
    assert a.run("verify", a.game).exit_code == 0


def test_6_5_named_sides_refuse_the_default_names_and_bad_names(players):
    a, b = players
    r = a.run("new", a.game, "--game", "dice", "--sides", "german,soviet", "--as", "first", "--opponent", b.pub())
    assert r.exit_code == 2 and "--as 'first': dice has sides german, soviet" in r.output
    r = a.run("new", a.game, "--game", "dice", "--sides", "german,Ger man", "--as", "german", "--opponent", b.pub())
    assert r.exit_code == 2 and "side name 'Ger man' is not 1-32 letters" in r.output
    r = a.run("new", a.game, "--game", "dice", "--sides", "german", "--as", "german", "--opponent", b.pub())
    assert r.exit_code == 2 and "expected two side names" in r.output
    r = a.run("new", a.game, "--game", "ambon", "--sides", "a,b", "--as", "a", "--opponent", b.pub())
    assert r.exit_code == 2 and "the ambon game's sides are japanese, allied; they cannot be renamed" in r.output
    assert not a.game.exists() or not any(a.game.iterdir())
    r = a.run("new", a.game, "--game", "dice", "--as", "german", "--opponent", b.pub())
    assert r.exit_code == 2 and "dice has sides first, second" in r.output


def test_6_5_a_message_0_whose_keys_are_not_its_named_sides_is_refused(tmp_path, ann, bob):
    from pbem.protocol.message import sign_body

    path = session.new_game(tmp_path / "g", "dice", "german", bob.public, ann, {"sides": ["german", "soviet"]})
    (_, msg), = session.read_messages([path])
    body = dict(msg.body)
    body["setup"] = {**body["setup"], "options": {"sides": ["german", "russian"]}}
    forged = sign_body(ann, body)
    with pytest.raises(IntegrityError, match="names the sides german, soviet; the dice game's are german, russian"):
        session._game_for(session.build_transcript([forged]))
    body["setup"] = {**body["setup"], "options": {"sides": ["german"]}}
    with pytest.raises(InputError, match="options.sides") as info:
        session._game_for(session.build_transcript([sign_body(ann, body)]))
    assert info.value.field == "sides"


# --------------------------------------------------------------------------- dice.roll: the confirmation before an empty message


def test_dice_roll_an_empty_message_is_signed_only_once_confirmed(started):
    a, _ = started
    r = a.run("play", a.game, input="\n\n")  # Enter at the order prompt, Enter (No) at the question
    assert r.exit_code == 2 and "no roll, no note and no reveal" in r.output and "no message written" in r.output
    assert not (a.game / "0002-first.pbem").exists()
    r = a.run("play", a.game, input="done\nn\nroll\n2d6\n\ndone\n")  # No, then asked afresh
    assert r.exit_code == 0, r.output
    assert "declares 2d6" in r.output and last_line(r.output) == a.game / "0002-first.pbem"


def test_dice_roll_an_empty_message_confirmed_is_written(started):
    a, _ = started
    r = a.run("play", a.game, input="\ny\n")
    assert r.exit_code == 0, r.output
    assert last_line(r.output) == a.game / "0002-first.pbem"


# --------------------------------------------------------------------------- shell completion


def completions(args: list[str], incomplete: str) -> list[str]:
    comp = ShellComplete(main, {}, "pbem", "_PBEM_COMPLETE")
    return [item.value for item in comp.get_completions(args, incomplete)]


def test_completion_of_game_names():
    assert completions(["new", "x", "--game"], "") == ["ambon", "asl", "calumpit", "dice"]
    assert completions(["new", "x", "--game"], "d") == ["dice"]
    assert completions(["demo"], "cal") == ["calumpit"]
    assert completions(["data", "add"], "a") == ["ambon", "asl"]


def test_completion_of_sides_follows_the_game_and_sides_given():
    assert completions(["new", "x", "--game", "ambon", "--as"], "") == ["japanese", "allied"]
    assert completions(["new", "x", "--game", "dice", "--sides", "german,soviet", "--as"], "s") == ["soviet"]
    assert "first" in completions(["new", "x", "--as"], "")  # no game yet: every game's sides


def test_completion_of_game_directories(players, tmp_path, monkeypatch):
    a, b = players
    r = a.run("new", a.game, "--game", "dice", "--as", "first", "--opponent", b.pub())
    assert r.exit_code == 0, r.output
    monkeypatch.setenv("PBEM_HOME", str(a.home))
    monkeypatch.chdir(tmp_path)
    assert completions(["play"], "") == ["ann"]
    assert completions(["watch", "--dir"], "a") == ["ann"]
    items = ShellComplete(main, {}, "pbem", "_PBEM_COMPLETE").get_completions(["show"], "elsewhere/")
    assert [(i.value, i.type) for i in items] == [("elsewhere/", "dir")]  # nothing known: the shell's directories


def test_completion_functions_offer_nothing_for_a_game_that_cannot_load():
    from pbem.cli import complete

    ctx = click.Context(click.Command("x"))
    ctx.params = {"game_name": "no-such-game"}
    assert complete.side_names(ctx, click.Option(["--as"]), "") == []


def test_completion_of_commands_is_clicks_own():
    assert completions([], "ne") == ["new"]


def test_6_5_a_game_object_refuses_options_naming_other_sides():
    with pytest.raises(InputError, match="played by first, second"):
        DiceGame().initial_state({"sides": ["a", "b"]})


# --------------------------------------------------------------------------- 6.5: the log table of the wargame dice


def test_6_5_the_log_table_shows_kept_and_dropped_dice_and_d66_results(tmp_path, ann, bob, monkeypatch):
    """The Rolls table writes a kept roll's dice with the dropped ones marked,
    and a d66 or d% as the number read from its two dice, not their sum."""
    from click.testing import CliRunner

    a, b = tmp_path / "ann", tmp_path / "bob"
    reply, _ = session.join_game(session.new_game(a, "dice", "first", bob.public, ann), b, bob)
    session.receive(a, [reply], ann)
    rolls = [{"type": "roll", "dice": d, "note": ""} for d in ("d66", "d%", "5d6kh2", "2d6")]
    session.receive(b, [session.play(a, ann, {"order": rolls}).path], bob)
    session.receive(a, [session.play(b, bob, {}).path], ann)
    # the replay's record of each roll (one die term each here), its expression read again
    d66, percent, kept, plain = (SimpleNamespace(total=r.total, values=[r.values], expression=DiceExpression.parse(r.expression))
                                 for r in session.load(a, ann).replay.rolls)
    r = CliRunner().invoke(main, ["log", str(a), "--spectator"], env={"COLUMNS": "200", "PBEM_HOME": str(tmp_path / "h")})
    assert r.exit_code == 0, r.output
    table = r.output[r.output.index("Rolls"):]
    assert f"d66: {d66.total} " in table and f"d%: {percent.total} " in table
    assert f"5d6kh2: {kept.expression.shown(list(kept.values))} " in table and "(dropped " in table
    assert f"2d6: {plain.values[0][0]} + {plain.values[0][1]} = {plain.total}" in table  # a plain roll as before
