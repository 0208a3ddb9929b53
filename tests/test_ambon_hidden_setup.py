"""4.1: the Allied setup's hidden identities come from the Allied player --
given, or drawn by their own pbem (``shuffle = true``) -- never from the
example printed in the scenario file (issue 26, "Who decides")."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from ambon_example import IDENTITIES, MINES, SCENARIO
from conftest import last_line
from pbem.errors import InputError
from pbem.games.ambon import GAME, orders
from pbem.games.ambon.state import ALLIED, JAPANESE
from pbem.match import session
from pbem.protocol.keystore import Keystore

EXAMPLE = {**IDENTITIES, **MINES}
SLOTS = GAME.data.concealed_slots + GAME.data.mine_slots


def propose(a, b):
    r = a.run("new", a.game / f"g{len(list(a.game.glob('g*')))}", "--game", "ambon",
              "--as", "japanese", "--opponent", b.pub())
    assert r.exit_code == 0, r.output
    return last_line(r.output)


def join(b, proposal, tmp_path, text: str, name: str, *more: str):
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    return b.run("join", proposal, "--dir", tmp_path / name, "--orders", path, *more)


def sealed_by(b, directory) -> dict[str, str]:
    """What the Allied player's message 1 sealed (their own store, read back with their key)."""
    identity = Keystore(b.home).load(lambda: None)
    store = session.load(directory, identity).player.store
    return {slot: store[slot] for slot in SLOTS}


def table(values: dict[str, str]) -> str:
    return "{ " + ", ".join(f'{k} = "{v}"' for k, v in values.items()) + " }"


def test_4_1_historical_setup_without_identities_is_refused_and_writes_nothing(players, tmp_path):
    a, b = players
    proposal = propose(a, b)
    r = join(b, proposal, tmp_path, '[[order]]\nsetup = "historical"\n', "bare")
    assert r.exit_code == 2
    assert ('order 1 (setup): setup = "historical" places the concealed pieces and mine markers, but which pieces are '
            "dummies and which mines are real is the Allied player's secret (4.1): add shuffle = true (your pbem draws "
            'them, from your own randomness) or give them: identities = { X1 = "dummy", ... } for X1-X8 (4 dummies, '
            '4 detachments) and mines = { M1 = "real", ... } for M1-M8 (5 real, 3 dummy)') in " ".join(r.output.split())
    assert not (tmp_path / "bare").exists()
    r = join(b, proposal, tmp_path, f'[[order]]\nsetup = "historical"\nidentities = {table(IDENTITIES)}\n', "half")
    assert r.exit_code == 2 and "order 1 (setup): setup = \"historical\"" in r.output and "mines" in r.output
    assert not (tmp_path / "half").exists()


@pytest.mark.parametrize("change, message", [
    ({"X9": "dummy"}, "order 1 (setup): identities.X9: not one of X1-X8 (4.1)"),
    ({"X1": "tank"}, "order 1 (setup): identities.X1 = 'tank' must be dummy or detachment"),
])
def test_4_1_historical_identities_are_checked_slot_by_slot(change, message):
    with pytest.raises(InputError) as err:
        GAME.parse_orders({"order": [{"setup": "historical", "identities": {**IDENTITIES, **change}, "mines": MINES}]},
                          ALLIED)
    assert str(err.value) == message


def test_4_1_the_japanese_setup_has_no_identities_to_give():
    with pytest.raises(InputError, match=r"order 1 \(setup\): shuffle is the Allied setup's \(4\.1\)"):
        GAME.parse_orders({"order": [{"setup": "historical", "shuffle": True}]}, JAPANESE)


def test_4_1_historical_setup_seals_the_identities_the_player_gives(players, tmp_path):
    """Explicit tables: exactly what the player wrote is sealed (here the
    example's dummies and detachments swapped, so it is not the file's)."""
    a, b = players
    swapped = {k: {"dummy": "detachment", "detachment": "dummy"}[v] for k, v in IDENTITIES.items()}
    mines = dict(zip(MINES, ["dummy", "dummy", "dummy", "real", "real", "real", "real", "real"], strict=False))
    r = join(b, propose(a, b), tmp_path, f'[[order]]\nsetup = "historical"\nidentities = {table(swapped)}\n'
                                         f"mines = {table(mines)}\n", "given")
    assert r.exit_code == 0, r.output
    assert sealed_by(b, tmp_path / "given") == {**swapped, **mines}
    view = json.loads(b.run("show", tmp_path / "given", "--json").output)["view"]
    assert {u["id"]: u["identity"] for u in view["units"] if u.get("type") == "concealed"} == swapped


def test_4_1_historical_shuffle_draws_the_allied_players_own_identities(players, tmp_path):
    """shuffle = true: pbem draws the 4.1 counts (4 + 4, 5 + 3, from the
    data) with the player's own randomness; over five games the draws are
    not all the file's example (the odds of one being it are 1 in 3920)."""
    a, b = players
    draws = []
    for n in range(5):
        r = join(b, propose(a, b), tmp_path, '[[order]]\nsetup = "historical"\nshuffle = true\n', f"shuffled-{n}")
        assert r.exit_code == 0, r.output
        drawn = sealed_by(b, tmp_path / f"shuffled-{n}")
        assert Counter(drawn[s] for s in GAME.data.concealed_slots) == GAME.data.identities
        assert Counter(drawn[s] for s in GAME.data.mine_slots) == GAME.data.mine_kinds
        draws.append(drawn)
    assert any(d != EXAMPLE for d in draws)
    assert len({tuple(sorted(d.items())) for d in draws}) > 1


def test_4_1_the_scenario_files_example_is_out_of_every_games_reach(players, tmp_path):
    """The [secret] table of scenario-historical.toml is test data: the game
    does not hold it, and data without it loads and plays."""
    assert "secret" not in GAME.data.scenario
    printed = tmp_path / "printed"
    printed.mkdir()
    text = SCENARIO.read_text(encoding="utf-8")  # the shipped file, its [secret] cut off
    printed.joinpath("scenario-historical.toml").write_text(text[:text.index("\n[secret.concealed]")], encoding="utf-8")
    a, b = players
    r = a.run("new", a.game, "--game", "ambon", "--as", "japanese", "--opponent", b.pub(), "--data", printed)
    assert r.exit_code == 0, r.output
    r = join(b, last_line(r.output), tmp_path, '[[order]]\nsetup = "historical"\nshuffle = true\n', "printed-game",
             "--data", printed)
    assert r.exit_code == 0, r.output


def test_4_1_the_draw_is_pure_given_the_random_generator():
    doc = {"order": [{"setup": "historical", "shuffle": True}, {"land": "fw-laha"}]}
    one = orders.draw(GAME.data, doc, ALLIED, random.Random(7))
    assert one == orders.draw(GAME.data, doc, ALLIED, random.Random(7)) and one["order"][1] == {"land": "fw-laha"}
    assert set(one["order"][0]) == {"setup", "identities", "mines"}
    assert orders.draw(GAME.data, doc, JAPANESE, random.Random(7)) == doc  # the Japanese have nothing to draw
    given = {"order": [{"setup": "historical", "shuffle": True, "identities": IDENTITIES}]}
    assert orders.draw(GAME.data, given, ALLIED, random.Random(7))["order"][0]["identities"] == IDENTITIES


def test_4_1_a_shuffle_is_drawn_once_a_dry_run_says_its_draw_is_not_kept(players, tmp_path):
    """The Allies propose, so their setup is message 2, by pbem play: a dry
    run shows one draw and says play draws afresh; play seals a valid draw."""
    a, b = players
    r = a.run("new", a.game, "--game", "ambon", "--as", "allied", "--opponent", b.pub())
    assert r.exit_code == 0, r.output
    r = b.run("join", last_line(r.output), "--dir", b.game)
    assert r.exit_code == 0, r.output
    assert a.run("receive", a.game, last_line(r.output)).exit_code == 0
    setup = tmp_path / "setup.toml"
    setup.write_text('[[order]]\nsetup = "historical"\nshuffle = true\n')
    r = a.run("play", a.game, "--orders", setup, "--dry-run")
    assert r.exit_code == 0, r.output
    assert "sealed in slot 'X1' (only you see this): " in r.output
    assert ("What these orders leave to chance (shuffle = true) was drawn for this dry run only: "
            "pbem play draws it afresh.") in r.output
    assert sorted(p.name for p in a.game.iterdir() if p.suffix == ".pbem") == ["0000-allied.pbem", "0001-japanese.pbem"]
    r = a.run("play", a.game, "--orders", setup)
    assert r.exit_code == 0, r.output
    drawn = sealed_by(a, a.game)
    assert Counter(drawn[s] for s in GAME.data.mine_slots) == GAME.data.mine_kinds


def test_4_1_the_bot_and_the_demo_seal_the_bots_own_draw(tmp_path_factory):
    """pbem demo: the Allied bot draws its identities with its own generator
    and writes them out in its orders; they are what message 1 seals."""
    import tomllib

    from demo_games import ambon_game

    from pbem.games.ambon.bot import AmbonBot

    state = GAME.initial_state({})
    bots = [AmbonBot(GAME).orders(state, ALLIED, 1)["order"][0] for _ in range(5)]
    assert any({**o["identities"], **o["mines"]} != EXAMPLE for o in bots)
    played = ambon_game(tmp_path_factory)
    jack = Keystore(played.root / "jack" / "keystore").load(lambda: None)
    store = session.load(played.dirs["jack"], jack).player.store
    (written,) = tomllib.loads((played.root / "orders" / "0001-allied.toml").read_text())["order"]
    assert {slot: store[slot] for slot in SLOTS} == {**written["identities"], **written["mines"]}
