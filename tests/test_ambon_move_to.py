"""7.0 by destination (issue 17): ``move = "3.A to 1509"`` -- pbem finds the
cheapest legal path by the same costs an explicit path pays (terrain, roads,
trails, rivers, EZOC 8.0), shows it, and explains a destination out of reach."""

from __future__ import annotations

import pytest

from pbem.engine import referee
from pbem.errors import IllegalOrderError, InputError
from pbem.games.ambon import GAME
from pbem.games.ambon.movement import movement_cost, path_to
from pbem.games.ambon.state import ALLIED, JAPANESE
from pbem.engine.paths import validate_path


def position(**doc):
    return GAME.scenario_state(doc)


def play(state, side, orders):
    return referee.adjudicate(GAME, state, side, {"order": orders}, [], secrets={}, end_turn=False)


def test_7_0_move_to_takes_the_road_not_the_straight_line():
    """7.0: a road costs 0.5 MP a hex; the river on the way adds 1 even on the road."""
    state = position(phase="japanese-movement", turn=2, positions={"3.A": "1309"})
    result = play(state, JAPANESE, [{"move": "3.A to 1509"}])
    assert [e.text for e in result.events][0] == "3.A moves 1309 1409 1509 for 2 MP (3 MP left), the cheapest path to 1509"
    assert result.state.piece("3.A").where == "1509"


def test_7_0_the_path_found_is_one_the_player_could_have_written():
    """The path found pays exactly what validate_path charges for it, and no
    cheaper legal path exists (the reachable set's cost of the goal)."""
    from pbem.engine.paths import reachable

    state = position(phase="allied-movement", turn=2, positions={"NEI-1.A": "0812", "3.A": "1011"})
    cost = movement_cost(GAME.data, state, ALLIED)
    reach = reachable(GAME.map.hex("0812"), 8, cost)  # 4 MP
    assert len(reach) > 10
    for h, best in reach.items():
        if best:
            path = path_to(GAME.data, state, "NEI-1.A", GAME.map.label(h), 8)
            assert validate_path("NEI-1.A", path, 8, cost, grid=GAME.map.grid).cost == best


def test_7_0_8_0_the_cheapest_path_counts_the_ezoc():
    """8.0: entering and leaving an EZOC cost 1 MP each: the path found says so."""
    state = position(phase="allied-movement", turn=2, positions={"NEI-1.A": "0812", "3.A": "0911"})
    cost = movement_cost(GAME.data, state, ALLIED)
    path = path_to(GAME.data, state, "NEI-1.A", "0813", 8)
    assert validate_path("NEI-1.A", path, 8, cost, grid=GAME.map.grid).cost == min(
        validate_path("NEI-1.A", p, 8, cost, grid=GAME.map.grid).cost for p in (path, ["0812", "0813"]))


def test_7_0_a_destination_out_of_reach_says_the_cheapest_cost_and_the_mp_left():
    state = position(phase="allied-movement", turn=2, positions={"NEI-Art": "1507"})
    with pytest.raises(IllegalOrderError, match=r"7\.0: NEI-Art cannot reach 1206: the cheapest path \(1507 .* 1206\) "
                                                r"costs \d+(\.5)? MP, and NEI-Art has 2 MP left"):
        play(state, ALLIED, [{"move": "NEI-Art to 1206"}])


def test_7_0_a_destination_no_path_leads_to():
    state = position(phase="allied-movement", turn=2, positions={"NEI-2.B": "1609"})
    with pytest.raises(IllegalOrderError, match="7.0: NEI-2.B in 1609 has no legal path to 1610"):
        play(state, ALLIED, [{"move": "NEI-2.B to 1610"}])  # a sea hex
    with pytest.raises(IllegalOrderError, match="7.0: NEI-2.B is already in 1609"):
        play(state, ALLIED, [{"move": "NEI-2.B to 1609"}])


def test_7_1_and_6_3_still_hold_for_a_move_by_destination():
    state = position(phase="allied-movement", turn=1, positions={"3.A": "0713", "NEI-1.D": "1016"})
    with pytest.raises(IllegalOrderError, match="7.1: on turn 1 only Allied units within 4 land hexes"):
        play(state, ALLIED, [{"move": "NEI-1.D to 1015"}])
    state = position(phase="japanese-movement", turn=1, positions={"3.A": "0713"}, penalties={"3.A": "opposed"})
    with pytest.raises(IllegalOrderError, match="6.3: 3.A landed this turn"):
        play(state, JAPANESE, [{"move": "3.A to 0813"}])


@pytest.mark.parametrize("value", ["3.A to", "3.A to 1509 1510", "to 1509", "3.A 1509", "3.A to 9999"])
def test_7_0_a_malformed_move_names_both_forms(value):
    with pytest.raises(InputError, match="move|9999"):
        GAME.parse_orders({"order": [{"move": value}]}, JAPANESE)


@pytest.fixture
def japanese_to_move(tmp_path):
    """Messages 0-3 of the example (examples/ambon) between two fixed keys,
    with the protocol's randomness fixed too, so that the landings, and so
    the units free to move, are the same on every run: the Japanese to move."""
    from pathlib import Path

    from ambon_played import identities, seeded_protocol
    from conftest import Player, last_line

    import json

    examples = Path(__file__).parent.parent / "examples" / "ambon"
    identities(tmp_path)
    for seed in range(SEED, SEED + 8):  # the first seed whose landings leave a Japanese unit free to move
        j = Player("kenji", tmp_path / "kenji" / "keystore", tmp_path / f"j{seed}")
        a = Player("jack", tmp_path / "jack" / "keystore", tmp_path / f"a{seed}")
        opening(j, a, examples, seed, seeded_protocol, last_line)
        if json.loads(j.run("orders", j.game, "--json").output)["choices"].get("moves"):
            return j, a
    raise AssertionError(f"no seed from {SEED} to {SEED + 7} leaves a Japanese unit free to move")


def opening(j, a, examples, seed, seeded_protocol, last_line):
    """Messages 0-3 of examples/ambon between ``j`` and ``a``, the protocol's randomness seeded."""
    with seeded_protocol(seed):
        r = j.run("new", j.game, "--game", "ambon", "--as", "japanese", "--opponent", a.pub())
        assert r.exit_code == 0, r.output
        r = a.run("join", last_line(r.output), "--dir", a.game, "--orders", examples / "1-allied-setup.toml")
        assert r.exit_code == 0, r.output
        assert j.run("receive", j.game, last_line(r.output)).exit_code == 0
        r = j.run("play", j.game, "--orders", examples / "2-japanese-setup-and-landings.toml")
        assert a.run("receive", a.game, last_line(r.output)).exit_code == 0
        r = a.run("play", a.game, "--orders", examples / "3-allied-reveals.toml")
        assert j.run("receive", j.game, last_line(r.output)).exit_code == 0


def test_7_0_move_to_is_signed_as_written_and_replayed_the_same_by_both_players(japanese_to_move, tmp_path):
    """Through the protocol, two keystores, receive both ways: the message
    carries the destination as written, both players' replays find the same
    path, and the template offers the form."""
    import json

    from conftest import last_line
    from pbem.protocol.message import SignedMessage

    j, a = japanese_to_move
    template = json.loads(j.run("orders", j.game, "--json").output)
    assert "UNIT to HEX" in template["template"]
    unit = template["choices"]["moves"][0]
    goal = max(unit["reachable"], key=lambda h: (unit["reachable"][h], h))  # as far as it goes
    orders = tmp_path / "move.toml"
    uid = unit["unit"]
    orders.write_text(f'[[order]]\nmove = "{uid} to {goal}"\n')
    r = j.run("play", j.game, "--orders", orders)
    assert r.exit_code == 0, r.output
    moved = next(line for line in r.output.splitlines() if f"{uid} moves {unit['where']} " in line)
    assert moved.endswith(f"the cheapest path to {goal}")
    sent = last_line(r.output)
    signed = SignedMessage.from_text(sent.read_bytes()).body["orders"]
    assert {"type": "move", "unit": uid, "to": goal} in signed  # the order as written, not a path
    r = a.run("receive", a.game, sent)
    assert r.exit_code == 0, r.output
    assert moved.split("] ", 1)[-1] in r.output  # the same path, found again by the receiver's replay
    for player in (j, a):
        view = json.loads(player.run("show", player.game, "--json").output)["view"]
        assert next(u for u in view["units"] if u["id"] == uid)["where"] == goal


SEED = 1


def test_7_0_typed_lines_take_both_forms():
    """pbem play's and pbem solo's typed orders (pbem.games.ambon.solo.parse_line)."""
    from pbem.games.ambon.solo import parse_line

    assert parse_line("move 3.A to 1509") == {"move": "3.A to 1509"}
    assert parse_line("move 3.A: 1410 1509") == {"move": "3.A: 1410 1509"}
    assert parse_line("move 3.A 1410 1509") == {"move": "3.A: 1410 1509"}
    assert GAME.parse_orders({"order": [parse_line("move 3.A to 1509")]}, JAPANESE).public[0]["to"] == "1509"


def test_every_order_that_breaks_a_rule_is_reported_at_once_with_its_number(japanese_to_move, tmp_path):
    """Issue 17: independent mistakes in one orders file come in one run, each
    with its order number and its rule, a unit id misspelt with a guess; the
    good orders between them are not blamed, and nothing is written."""
    import json

    j, _ = japanese_to_move
    moves = json.loads(j.run("orders", j.game, "--json").output)["choices"]["moves"]
    unit = moves[0]
    uid = unit["unit"]
    near = min(unit["reachable"], key=lambda h: (unit["reachable"][h], h))
    misspelt = uid.replace("-", "") if "-" in uid else uid.lower()
    orders = tmp_path / "three.toml"
    orders.write_text(f'[[order]]\nmove = "{misspelt} to {near}"\n'
                      f'[[order]]\nmove = "{uid} to {near}"\n'
                      f'[[order]]\nmove = "{uid} to 0101"\n')
    before = sorted(p.name for p in j.game.iterdir())
    r = j.run("play", j.game, "--orders", orders)
    assert r.exit_code == 1, r.output
    assert "2 orders break the rules, each tried without the others that do:" in r.output
    assert f"order 1 (move = \"{misspelt} to {near}\"): 7.0: there is no unit '{misspelt}' (did you mean '{uid}'?)" in r.output
    assert f"order 3 (move = \"{uid} to 0101\"): 7.0: {uid} in " in r.output  # 0101 is sea: no legal path
    assert "order 2" not in r.output
    assert sorted(p.name for p in j.game.iterdir()) == before


def test_every_malformed_order_is_reported_at_once_with_a_guess():
    """Issue 17: syntax mistakes are all reported too, each with its number;
    a misspelt verb or place gets a guess."""
    with pytest.raises(InputError) as caught:
        GAME.parse_orders({"order": [{"move": "3.A to Lahaa"}, {"mve": "3.B to 1509"}, {"move": "3.C to 1509"},
                                     {"attack": "9999", "with": ["3.A"]}]}, JAPANESE)
    lines = str(caught.value).splitlines()
    assert lines[0] == "3 orders are wrong:"
    assert lines[1] == "  order 1 (move): no place named 'Lahaa' (did you mean 'Laha' or 'Latuhalat'?)"
    assert lines[2].startswith("  order 2: give exactly one of") and lines[2].endswith("(got mve); did you mean 'move'?")
    assert lines[3] == "  order 4 (attack): hex '9999' is off the map (columns 01-22, rows 01-17)"
    assert GAME.parse_orders({"order": [{"move": "3.A to laha"}]}, JAPANESE).public[0]["to"] == "0812"  # any case
