"""Calumpit Bridge's data files: the 54 cards as printed, the tables, the
reconstructions labelled as such, and validation errors that name the file,
the line and the key."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pbem.errors import DataError, InputError
from pbem.games.calumpit import GAME, CalumpitGame
from pbem.games.calumpit.data import DATA, RANKS

SOURCE = Path(__file__).parent.parent.parent / "shared" / "seeds" / "calumpit-bridge.txt"


def test_event_cards_52_cards_and_two_jokers_one_in_each_deck():
    cards = GAME.data.cards
    assert len(cards) == 54
    for suit in ("diamonds", "hearts", "spades", "clubs"):
        assert sorted(c.rank for c in cards.values() if c.suit == suit) == sorted(RANKS)
    assert {c.deck for c in cards.values() if c.suit in ("diamonds", "hearts")} == {"red"}
    assert {c.deck for c in cards.values() if c.suit in ("spades", "clubs")} == {"black"}
    assert sorted((c.id, c.deck) for c in cards.values() if c.suit == "joker") == [("JB", "black"), ("JR", "red")]
    assert len(GAME.data.decks["red"]) == len(GAME.data.decks["black"]) == 27


@pytest.mark.skipif(not SOURCE.exists(), reason="the rule text is not beside the repository")
def test_events_every_card_text_is_printed_as_in_the_source():
    source = re.sub(r"\s+", " ", SOURCE.read_text())
    for card in GAME.data.cards.values():
        assert re.sub(r"\s+", " ", card.text) in source, card.id
    assert "acro.ss the briclge" in GAME.data.card("S7").text and "dlO rounds" in GAME.data.card("H6").text


def test_events_dice_each_card_rolls_are_data():
    d6 = GAME.data.card("D6").effects[0]
    assert (d6["kind"], d6["extent"], d6["toward"], d6["road_hits"], d6["roadside_hits"]) == (
        "strafe", "d20+10", "north", (4, 5, 6), (1, 2))
    assert GAME.data.card("H6").effects[1]["rounds"] == "d10"
    assert GAME.data.card("D4").effects[0]["explode_on"] == 20
    assert [e["kind"] for e in GAME.data.card("H9").effects] == ["jagt", "missions"]


def test_japanese_unit_arrival_table_each_column_covers_1_to_20_once():
    data = GAME.data
    for column in range(4):
        faces = sorted(f for key in data.jat_order for f in data.jat_units[key].columns[column])
        assert faces == list(range(1, 21))


def test_japanese_attack_generation_table_and_entry_roads_cover_their_die():
    rows = GAME.data.attack["jagt"]["rows"]
    assert sorted(f for row in rows for f in row["rolls"]) == list(range(1, 11))
    assert sorted(f for faces, _ in GAME.data.roads for f in faces) == list(range(1, 7))


def test_reconstructions_are_labelled_in_the_files_and_the_readme():
    attack = (DATA / "attack.toml").read_text()
    assert attack.count('provenance = "reconstruction"') >= 2 and "RECONSTRUCTED" in attack
    tables = (DATA / "tables.toml").read_text()
    assert "RECONSTRUCTION: the source lists no results" in tables
    assert 'provenance = "reconstruction"' in (DATA / "scenario.toml").read_text()
    readme = (DATA / "README.md").read_text()
    for topic in ("force pool", "entry road", "failed-morale", "JAT", "scenario", "Clubs 3"):
        assert topic.lower() in readme.lower(), topic


def test_ruleset_files_pin_every_data_file():
    names = [n for n, _ in GAME.ruleset_files()]
    assert names == ["attack.toml", "cards.toml", "scenario.toml", "tables.toml"]


def _override(tmp_path: Path, name: str, old: str, new: str) -> Path:
    text = (DATA / name).read_text()
    assert old in text
    (tmp_path / name).write_text(text.replace(old, new, 1))
    return tmp_path


def test_data_error_names_file_line_and_key_for_an_overlapping_jat_column(tmp_path):
    over = _override(tmp_path, "attack.toml", 'columns = ["16-20", "11-17", "6-8", "2-5"]',
                     'columns = ["15-20", "11-17", "6-8", "2-5"]')
    with pytest.raises(DataError, match=r"attack\.toml, line \d+: jat\.units\.light-tanks\.columns: face 15 is already given"):
        CalumpitGame(str(over))


def test_data_error_for_a_bad_card(tmp_path):
    over = _override(tmp_path, "cards.toml", 'extent = "d20+10", passes = 2', 'extent = "d2O+10", passes = 2')
    with pytest.raises(DataError, match=r"cards\.toml, line \d+: cards\.D6\.effects\[0\]\.extent: 'd2O\+10' is not dice"):
        CalumpitGame(str(over))
    over = _override(tmp_path, "tables.toml", 'japanese = ["pinned", "pinned", "retreat", "retreat", "charge", "charge"]',
                     'japanese = ["pinned", "pinned", "retreat", "retreat", "charge"]')
    with pytest.raises(DataError, match=r"tables\.toml, line \d+: morale\.failed\.japanese: needs one result for each face"):
        CalumpitGame(str(over))


def test_data_override_changes_the_ruleset_hash(tmp_path):
    from pbem.engine import registry
    from pbem.match.session import ruleset_hash

    over = _override(tmp_path, "attack.toml", "infantry = 6", "infantry = 8")
    game = registry.get("pbem.games.calumpit:GAME", str(over))
    assert game.data.force_pool["infantry"] == 8 and ruleset_hash(game) != ruleset_hash(GAME)


def test_orders_syntax_errors_name_the_field():
    with pytest.raises(InputError, match=r"order 1 \(fire\): range must be a whole number") as err:
        GAME.parse_orders({"order": [{"type": "fire", "weapon": "rifle", "range": 1.5, "figures": 5, "terrain": "open"}]}, "american")
    assert err.value.field == "range"
    with pytest.raises(InputError, match="unknown type 'charge'"):
        GAME.parse_orders({"order": [{"type": "charge"}]}, "american")
    with pytest.raises(InputError, match=r"order 1 \(move\): speed is not a field of move"):
        GAME.parse_orders({"order": [{"type": "move", "kind": "tank", "speed": 3}]}, "american")
    with pytest.raises(InputError, match="no order may follow 'end'"):
        GAME.parse_orders({"order": [{"type": "end"}, {"type": "done"}]}, "american")
    parsed = GAME.parse_orders({"order": [{"type": "melee", "attacker": "A", "defender": "B",
                                           "pairs": "charging bayonet vs foxhole, vs"}]}, "american")
    assert parsed.public[0]["pairs"] == ["bayonet charging vs foxhole", "vs"]
    assert GAME.parse_line("fire weapon=rifle range=30 figures=12 terrain=open moving=true") == {
        "type": "fire", "weapon": "rifle", "range": 30, "figures": 12, "terrain": "open", "moving": True}


def test_view_is_the_same_for_each_side_and_a_spectator():
    state = GAME.scenario_state({"units": {"J-INF-1": {"side": "japanese", "nationality": "japanese",
                                                       "kind": "infantry", "figures": 30}}})
    views = [GAME.view(state, side) for side in ("american", "japanese", None)]
    assert views[0] == views[1] == views[2]
    json.dumps(views[0])
    assert {u["id"] for u in views[0]["units"]} >= {"HQ", "J-INF-1"}


def test_no_sealed_values():
    from pbem.engine.machine import Sealed
    from pbem.errors import IllegalOrderError

    with pytest.raises(IllegalOrderError, match="no sealed values"):
        GAME.apply(GAME.initial_state({}), Sealed("american", "x", 0))
    with pytest.raises(InputError, match="no optional rules"):
        GAME.initial_state({"rules": ["14.2"]})
