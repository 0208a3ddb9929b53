"""Dice that arrive later (pbem.engine.later, issue 14): one mechanism for
every game -- ``match_roll`` takes an arriving DiceRolled against what is
due with the same words in every game, each citing its own rule; ``Dice``
and ``NeedDice`` let rules written as plain functions ask for named rolls."""

from __future__ import annotations

import pytest

from pbem.engine.later import Dice, NeedDice, dice_due, match_roll
from pbem.engine.machine import DecisionDue, DiceDue, DiceRolled, MessageEnd, Ordered, RevealDue, replace
from pbem.errors import IllegalOrderError, IntegrityError

# --------------------------------------------------------------------------- match_roll

A = DiceDue("a", 1, 6, 3, "the first")
B = DiceDue("b", 2, 10, 3, "the second")


def refused(due, action, rule="9.9", **kw) -> IllegalOrderError:
    with pytest.raises(IllegalOrderError) as err:
        match_roll(due, action, rule, **kw)
    return err.value


def test_match_roll_returns_what_is_paired_with_the_roll_due():
    assert match_roll([(A, "resolve a"), (B, "resolve b")], DiceRolled("b", (1, 10)), "9.9") == "resolve b"
    assert match_roll(iter([(A, 0)]), DiceRolled("a", (6,)), "9.9") == 0


def test_match_roll_takes_the_first_roll_with_the_label():
    assert match_roll([(A, 1), (A, 2)], DiceRolled("a", (3,)), "9.9") == 1


def test_match_roll_refuses_a_label_not_due_listing_those_that_are():
    err = refused([(A, 0), (B, 1)], DiceRolled("c", (1,)))
    assert err.rule == "9.9"
    assert str(err) == "9.9: no roll labelled 'c' is due (due: 'a', 'b')"


def test_match_roll_refuses_any_label_when_nothing_is_due():
    assert str(refused([], DiceRolled("a", (1,)))) == "9.9: no roll labelled 'a' is due (no roll is due)"


@pytest.mark.parametrize("due, values, message", [
    (A, (), "roll 'a' is 1d6, but 0 dice were rolled: []"),
    (A, (1, 2), "roll 'a' is 1d6, but 2 dice were rolled: [1, 2]"),
    (B, (4,), "roll 'b' is 2d10, but 1 die was rolled: [4]"),
    (B, (4, 5, 6), "roll 'b' is 2d10, but 3 dice were rolled: [4, 5, 6]"),
])
def test_match_roll_refuses_the_wrong_number_of_dice(due, values, message):
    err = refused([(due, None)], DiceRolled(due.label, values))
    assert (err.rule, str(err)) == ("9.9", f"9.9: {message}")


@pytest.mark.parametrize("due, values, message", [
    (A, (0,), "roll 'a' is 1d6, but 0 is not between 1 and 6: [0]"),
    (A, (7,), "roll 'a' is 1d6, but 7 is not between 1 and 6: [7]"),
    (B, (10, 11), "roll 'b' is 2d10, but 11 is not between 1 and 10: [10, 11]"),
    (B, (-1, 3), "roll 'b' is 2d10, but -1 is not between 1 and 10: [-1, 3]"),
])
def test_match_roll_refuses_a_value_outside_the_sides(due, values, message):
    err = refused([(due, None)], DiceRolled(due.label, values))
    assert (err.rule, str(err)) == ("9.9", f"9.9: {message}")


def test_match_roll_cites_the_dice_rule_of_the_roll_for_dice_that_do_not_fit():
    due = [(A, "kind-a"), (B, "kind-b")]
    assert refused(due, DiceRolled("b", (1,)), dice_rule=lambda kind: f"x.{kind}").rule == "x.kind-b"
    assert refused(due, DiceRolled("a", (9,)), dice_rule=lambda kind: f"x.{kind}").rule == "x.kind-a"
    assert refused(due, DiceRolled("c", (1,)), dice_rule=lambda kind: f"x.{kind}").rule == "9.9"  # no roll to ask


def test_dice_due_pairs_each_roll_awaited_with_itself_in_order():
    awaited = (RevealDue("allied", "s1"), A, DecisionDue("axis", "k", "p"), B)
    assert list(dice_due(awaited)) == [(A, A), (B, B)]
    assert match_roll(dice_due(awaited), DiceRolled("b", (2, 3)), "9.9") is B

# --------------------------------------------------------------------------- Dice / NeedDice


def rule_text(dice: Dice) -> int:
    """A rule written as a plain function: a 2d6 check, then 1d6 more on 7+."""
    total = sum(dice.roll("check", 2, 6, "the check"))
    if total >= 7:
        total += dice.one("bonus", 6)
    return total


def run(algorithm, supply):
    """Run ``algorithm`` from the start until it completes, rolling each
    missing roll from ``supply`` as a game declares and receives it."""
    rolled, asked = {}, []
    while True:
        try:
            return algorithm(Dice(rolled)), asked
        except NeedDice as need:
            asked.append((need.name, need.count, need.sides, need.purpose))
            rolled[need.name] = (need.sides, supply[need.name])


def test_a_missing_roll_stops_the_run_with_what_is_needed():
    with pytest.raises(NeedDice) as err:
        rule_text(Dice())
    need = err.value
    assert (need.name, need.count, need.sides, need.purpose) == ("check", 2, 6, "the check")
    assert str(need) == "check"


def test_the_purpose_of_a_roll_defaults_to_its_name():
    with pytest.raises(NeedDice) as err:
        rule_text(Dice({"check": (6, (3, 4))}))
    assert (err.value.name, err.value.count, err.value.sides, err.value.purpose) == ("bonus", 1, 6, "bonus")


def test_the_algorithm_reruns_from_the_start_with_one_more_roll_each_time():
    assert run(rule_text, {"check": (3, 4), "bonus": (5,)}) == (12, [("check", 2, 6, "the check"), ("bonus", 1, 6, "bonus")])
    assert run(rule_text, {"check": (1, 2)}) == (3, [("check", 2, 6, "the check")])


def test_dice_records_the_rolls_used_in_order():
    dice = Dice({"bonus": (6, (5,)), "check": (6, (3, 4))})
    assert rule_text(dice) == 12
    assert dice.used == [("check", (3, 4)), ("bonus", (5,))]


def test_no_dice_is_no_roll():
    dice = Dice()
    assert dice.roll("none", 0, 6) == () and dice.roll("less", -1, 6) == ()
    assert dice.used == []


@pytest.mark.parametrize("count, sides", [(1, 6), (2, 10), (3, 6)])
def test_a_roll_made_otherwise_than_the_rules_now_ask_is_an_integrity_error(count, sides):
    dice = Dice({"check": (6, (3, 4))})
    with pytest.raises(IntegrityError, match=rf"roll 'check' was made as 2d6 but the rules now ask for {count}d{sides}"):
        dice.roll("check", count, sides)

# --------------------------------------------------------------------------- through every game's apply


def ambon_two_combats():
    from pbem.games.ambon import GAME
    from pbem.games.ambon.state import ALLIED, JAPANESE

    state = GAME.scenario_state({"turn": 3, "phase": "japanese-combat", "positions": {
        "1.A": "1611", "1.B": "1611", "2.A": "1513", "NEI-1.B": "1511", "NEI-1.C": "1512"}})
    never = {"advance": "never", "hq-support": "never"}
    for side in (JAPANESE, ALLIED):
        state = replace(state, standing=state.standing.updated(side, never))
    attacks = [{"attack": "1511", "with": ["1.A", "1.B"]}, {"attack": "1512", "with": ["2.A"]}]
    for i, order in enumerate(GAME.parse_orders({"order": attacks}, JAPANESE).public):
        state, _ = GAME.apply(state, Ordered(JAPANESE, 5, i, order))
    state, _ = GAME.apply(state, MessageEnd(JAPANESE, 5))
    return GAME, state


def asl_rolls():
    from pbem.games.asl import GAME

    state = GAME.initial_state({})
    for i, kind in enumerate(("DR", "dr")):
        order = GAME.parse_orders({"order": [{"type": kind, "purpose": "1MC for A", "phase": "MPh",
                                              "player_turn": "allied"}]}, "allied").public[0]
        state, _ = GAME.apply(state, Ordered("allied", 4, i, dict(order)))
    return GAME, state


def dice_game_roll():
    from pbem.games.dice import GAME

    order = GAME.parse_orders({"order": [{"type": "roll", "dice": "2d6+1d4", "note": "x"}]}, "first").public[0]
    state, _ = GAME.apply(GAME.initial_state({}), Ordered("first", 3, 0, dict(order)))
    return GAME, state


def calumpit_draw():
    from pbem.games.calumpit import GAME

    state = GAME.scenario_state({"removed": ["D2", "H3"], "may_draw": ["red"]})
    state, _ = GAME.apply(state, Ordered("american", 4, 0, {"type": "draw", "deck": "red"}))
    return GAME, state


# game, the dice due (label, count, sides), the rule of a label not due, the rule of dice that do not fit each roll
GAMES = {
    "ambon": (ambon_two_combats, [("combat 1511", 1, 6), ("combat 1512", 1, 6)], "5.0", ["5.0", "5.0"]),
    "asl": (asl_rolls, [("4.0", 2, 6), ("4.1", 1, 6)], "asl.DR", ["asl.DR", "asl.dr"]),
    "dice": (dice_game_roll, [("3.0/0", 2, 6), ("3.0/1", 1, 4)], "dice.roll", ["dice.roll", "dice.roll"]),
    "calumpit": (calumpit_draw, [("0004.0/draw", 1, 25)], "SEQUENCE", ["SEQUENCE"]),
}


def refused_by(game, state, action) -> IllegalOrderError:
    with pytest.raises(IllegalOrderError) as err:
        game.apply(state, action)
    return err.value


@pytest.mark.parametrize("name", GAMES)
def test_each_game_awaits_the_dice_it_matches(name):
    make, due, _, _ = GAMES[name]
    game, state = make()
    assert [(d.label, d.count, d.sides) for d in game.awaiting(state) if isinstance(d, DiceDue)] == due
    for label, count, sides in due:  # each roll due is taken, whatever the order
        game.apply(state, DiceRolled(label, (sides,) * count))


@pytest.mark.parametrize("name", GAMES)
def test_each_game_refuses_a_label_not_due_citing_its_rule(name):
    make, due, rule, _ = GAMES[name]
    game, state = make()
    err = refused_by(game, state, DiceRolled("nothing/0", (1,)))
    listed = ", ".join(repr(label) for label, _, _ in due)
    assert (err.rule, str(err)) == (rule, f"{rule}: no roll labelled 'nothing/0' is due (due: {listed})")


@pytest.mark.parametrize("name", GAMES)
def test_each_game_refuses_the_wrong_number_of_dice_citing_its_rule(name):
    make, due, _, rules = GAMES[name]
    game, state = make()
    for (label, count, sides), rule in zip(due, rules, strict=False):
        err = refused_by(game, state, DiceRolled(label, (1,) * (count + 1)))
        assert err.rule == rule
        assert str(err) == f"{rule}: roll {label!r} is {count}d{sides}, but {count + 1} dice were rolled: {[1] * (count + 1)}"


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("bad", ["zero", "over"])
def test_each_game_refuses_a_value_outside_the_sides_citing_its_rule(name, bad):
    make, due, _, rules = GAMES[name]
    game, state = make()
    for (label, count, sides), rule in zip(due, rules, strict=False):
        v = 0 if bad == "zero" else sides + 1
        values = (1,) * (count - 1) + (v,)
        err = refused_by(game, state, DiceRolled(label, values))
        assert err.rule == rule
        assert str(err) == f"{rule}: roll {label!r} is {count}d{sides}, but {v} is not between 1 and {sides}: {list(values)}"


@pytest.mark.parametrize("name", ["ambon", "asl", "dice"])
def test_each_game_refuses_dice_for_a_roll_already_rolled(name):
    make, due, rule, _ = GAMES[name]
    game, state = make()
    (label, count, _), rest = due[0], due[1:]
    state, _ = game.apply(state, DiceRolled(label, (1,) * count))
    err = refused_by(game, state, DiceRolled(label, (1,) * count))
    listed = ", ".join(repr(label) for label, _, _ in rest)
    assert (err.rule, str(err)) == (rule, f"{rule}: no roll labelled {label!r} is due (due: {listed})")


def test_calumpit_refuses_dice_for_the_roll_before_naming_the_one_due_now():
    game, state = calumpit_draw()
    state, _ = game.apply(state, DiceRolled("0004.0/draw", (1,)))  # Diamonds 3: its bombardment rolls next
    err = refused_by(game, state, DiceRolled("0004.0/draw", (1,)))
    assert str(err) == "SEQUENCE: no roll labelled '0004.0/draw' is due (due: '0004.0/D3/0/direction')"


@pytest.mark.parametrize("name", ["asl", "dice"])
def test_a_game_with_no_roll_due_says_so(name):
    make, _, rule, _ = GAMES[name]
    game, _ = make()
    err = refused_by(game, game.initial_state({}), DiceRolled("3.0/0", (1,)))
    assert (err.rule, str(err)) == (rule, f"{rule}: no roll labelled '3.0/0' is due (no roll is due)")

