"""Game data from TOML: the test game's files load to known values, every way
to break them gives a DataError naming file, line, key and fault, and the
ruleset hash pins exactly the files used."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pbem.engine.hexes import Hexside
from pbem.engine.mapdata import (
    DataSet,
    load_charts,
    load_counters,
    load_dataset,
    load_map,
    ruleset_hash,
)
from pbem.errors import DataError, InputError

DATA = Path(__file__).parent / "engine_game" / "data"
MAP = (DATA / "map.toml").read_text()
COUNTERS = (DATA / "counters.toml").read_text()
CHARTS = (DATA / "charts.toml").read_text()


@pytest.fixture(scope="module")
def data() -> DataSet:
    return load_dataset(DATA)


# --------------------------------------------------------------------------- known values


def test_map_values(data):
    m = data.map
    assert m.name == "Test Strip" and m.layout.offset == "odd-q"
    assert (m.grid.columns, m.grid.rows) == ((1, 6), (1, 6))
    assert list(m.terrain_types) == ["clear", "forest", "lake"]
    assert m.terrain_types["forest"].colour == "#6f9a52" and m.terrain_types["lake"].symbol == "~"
    assert m.terrain_at(m.hex("0303")) == "forest"
    assert m.terrain_at(m.hex("0305")) == "lake"
    assert m.terrain_at(m.hex("0101")) == "clear"  # the default
    assert sum(1 for t in m.terrain.values() if t == "clear") == 31
    assert {m.label(h) for h in m.towns} == {"0202", "0502"}
    assert {m.label(h) for h in m.coastal} == {"0101", "0102", "0103"}
    bluetown = m.key_locations[m.hex("0502")]
    assert (bluetown.name, bluetown.vp) == ("Bluetown", (3, 2, 1))
    assert m.place("Redtown") == m.hex("0202")
    box = m.box("landing")
    assert (box.name, box.kind, m.label(box.target)) == ("Landing box", "landing", "0101")
    assert m.source.endswith("map.toml")


def test_roads_are_expanded_to_hexsides(data):
    m = data.map
    h = m.hex
    assert m.hexsides["road"] == frozenset({Hexside(h("0202"), h("0302")), Hexside(h("0302"), h("0402")), Hexside(h("0402"), h("0502"))})
    assert m.has("road", h("0402"), h("0302")) and not m.has("road", h("0202"), h("0203"))
    assert m.has("river", h("0404"), h("0303"))
    assert m.hexside_features(h("0402"), h("0502")) == {"road", "fortified"}
    assert m.hexside_features(h("0101"), h("0606")) == frozenset()
    assert len(m.hexsides["river"]) == 4 and len(m.hexsides["trail"]) == 2 and not m.hexsides["all_sea"]
    assert [[m.label(x) for x in chain] for chain in m.chains["road"]] == [["0202", "0302", "0402", "0502"]]
    with pytest.raises(InputError, match="unknown hexside feature 'rivr'"):
        m.has("rivr", h("0101"), h("0102"))


def test_counters_values(data):
    c = data.counters
    assert list(c.sides) == ["red", "blue"] and c.sides["blue"].colour == "#2e5fa8"
    assert [u.id for u in c.units] == ["R1", "R2", "R3", "B1", "B2"]
    r2 = c.unit("R2")
    assert (r2.side, r2.type, r2.name) == ("red", "armour", "2nd Tanks")
    assert dict(r2.front) == {"combat": 6, "move": 6} and dict(r2.values(flipped=True)) == {"combat": 3, "move": 4}
    # R3's back differs from its type's back
    assert dict(c.unit("R3").back) == {"combat": 2, "move": 3}
    assert dict(c.unit("R1").back) == {"combat": 1, "move": 3}
    assert [u.id for u in c.of_side("blue")] == ["B1", "B2"]
    with pytest.raises(InputError, match="no unit 'R9'"):
        c.unit("R9")


def test_charts_values(data):
    ch = data.charts
    assert dict(ch.terrain_costs) == {"clear": 2, "forest": 4, "lake": None}  # half-MP
    assert dict(ch.movement) == {"road": 1, "trail": 2, "river": 2, "enter_zoc": 2}
    assert ch.values["column_shift_town"] == -1
    crt = ch.table("crt")
    assert crt.columns == ("1:2", "1:1", "2:1", "3:1", "4:1") and crt.dice == "1d6"
    assert crt.result("2:1", 4) == "EX"
    assert crt.result("4:1", 6) == "EX" and crt.result("1:1", 6) == "AE"  # the named-column row
    assert crt.result("3:1", 0) == crt.result("3:1", 1) == "DF"  # clamped below
    assert crt.result("1:2", 9) == "AE"  # clamped above
    assert crt.shift("2:1", -1) == "1:1" and crt.shift("1:2", -2) == "1:2" and crt.shift("3:1", 5) == "4:1"
    with pytest.raises(InputError, match="has no column '5:1'"):
        crt.result("5:1", 3)
    with pytest.raises(InputError, match="no chart 'tec'"):
        ch.table("tec")


# --------------------------------------------------------------------------- ruleset hash and --data


def test_files_and_hash(data):
    names = [n for n, _ in data.files()]
    assert names == ["charts.toml", "counters.toml", "map.toml", "scenario.toml"]
    assert data.files()[2][1] == (DATA / "map.toml").read_bytes()
    assert data.ruleset_hash() == ruleset_hash(data.files()) == ruleset_hash(reversed(data.files()))
    assert len(data.ruleset_hash()) == 64
    assert load_dataset(DATA).ruleset_hash() == data.ruleset_hash()


def test_hash_known_answer():
    import hashlib

    expected = hashlib.sha256(
        (1).to_bytes(4, "big") + b"a" + (2).to_bytes(8, "big") + b"xy"
        + (1).to_bytes(4, "big") + b"b" + (0).to_bytes(8, "big")
    ).hexdigest()
    assert ruleset_hash([("b", b""), ("a", b"xy")]) == expected
    # moving a byte from one file's content to its name changes the hash
    assert ruleset_hash([("ab", b"c")]) != ruleset_hash([("a", b"bc")])
    with pytest.raises(InputError, match="listed twice"):
        ruleset_hash([("a", b""), ("a", b"")])


def test_data_override_replaces_files_and_changes_the_hash(tmp_path, data):
    (tmp_path / "charts.toml").write_text(CHARTS.replace("forest = 2", "forest = 1.5"))
    over = load_dataset(DATA, override=tmp_path)
    assert over.charts.terrain_costs["forest"] == 3
    assert over.map.name == data.map.name  # map.toml from the default directory
    assert over.ruleset_hash() != data.ruleset_hash()
    assert str(tmp_path / "charts.toml") in over.sources
    # a byte-identical override pins the same ruleset
    same = tmp_path / "same"
    same.mkdir()
    shutil.copy(DATA / "charts.toml", same / "charts.toml")
    assert load_dataset(DATA, override=same).ruleset_hash() == data.ruleset_hash()


def test_dataset_errors(tmp_path):
    with pytest.raises(DataError, match="not a data directory"):
        load_dataset(tmp_path / "nowhere")
    (tmp_path / "map.toml").write_text(MAP)
    with pytest.raises(DataError, match="missing data file counters.toml"):
        load_dataset(tmp_path)
    with pytest.raises(DataError, match="--data is not a directory"):
        load_dataset(DATA, override=tmp_path / "nope")


def test_charts_must_cost_every_map_terrain(tmp_path):
    shutil.copytree(DATA, tmp_path / "d")
    (tmp_path / "d" / "charts.toml").write_text(CHARTS.replace("forest = 2\n", ""))
    with pytest.raises(DataError) as err:
        load_dataset(tmp_path / "d")
    assert "charts.toml, line 3: terrain_costs: no cost for terrain 'forest', which the map declares" in str(err.value)


# --------------------------------------------------------------------------- broken files


def broken(text: str, old: str, new: str) -> bytes:
    assert old in text, old
    return text.replace(old, new, 1).encode()


MAP_CASES = [
    # id, replace, with, expected message (file, line, key, fault)
    ("toml-syntax", 'name = "Test Strip"', 'name = "Test Strip', "map.toml: not valid TOML: "),
    ("unknown-terrain", 'forest = ["0303"', 'swamp = ["0303"',
     "map.toml, line 25: hexes.swamp: unknown terrain 'swamp' (declared: clear, forest, lake)"),
    ("unknown-default-terrain", 'default_terrain = "clear"', 'default_terrain = "plain"',
     "map.toml, line 9: map.default_terrain: unknown terrain 'plain'"),
    ("hex-off-the-grid", 'lake = ["0205", "0305"]', 'lake = ["0205", "0705"]',
     "map.toml, line 26: hexes.lake[1]: hex '0705' is off the map (columns 01-06, rows 01-06)"),
    ("malformed-hex", 'towns = ["0202", "0502"]', 'towns = ["0202", "05x2"]',
     "map.toml, line 29: features.towns[1]: hex number '05x2' is not CCRR"),
    ("terrain-twice", 'lake = ["0205", "0305"]', 'lake = ["0205", "0303"]',
     "map.toml, line 26: hexes.lake[1]: hex '0303' already has terrain 'forest'"),
    ("road-to-non-adjacent-hex", '"0302", "0402", "0502"]]', '"0302", "0502"]]',
     "map.toml, line 41: hexsides.road[0][2]: '0502' is not adjacent to '0302'"),
    ("road-repeats-hex", '["0105", "0106", "0206"]', '["0105", "0105"]',
     "map.toml, line 42: hexsides.trail[0][1]: '0105' repeats the previous hex"),
    ("river-single-hex", '["0303", "0403"], ', '["0303"], ',
     "map.toml, line 43: hexsides.river[0]: a chain needs at least two hexes"),
    ("unknown-hexside-feature", "fortified = [[", "fortress = [[",
     "map.toml, line 44: hexsides.fortress: unknown hexside feature 'fortress' (known: road, trail, river, all_sea, fortified)"),
    ("unknown-layout", 'layout = "odd-q"', 'layout = "odd-z"',
     "map.toml, line 6: map.layout: unknown layout 'odd-z'"),
    ("bad-colour", 'colour = "#6f9a52"', 'colour = "green"',
     "map.toml, line 17: terrain.forest.colour: colour 'green' is not #rrggbb"),
    ("missing-key", 'columns = [1, 6]\n', '',
     "map.toml, line 4: map: missing key 'columns'"),
    ("unknown-key", 'note = "Engine', 'nte = "Engine',
     "map.toml, line 10: map.nte: unknown key 'nte'"),
    ("no-terrain-no-default", 'default_terrain = "clear"\n', '',
     "map.toml, line 23: hexes: hex '0101' has no terrain and [map] sets no default_terrain"),
    ("key-location-off-grid", "[key_locations.0502]", "[key_locations.0902]",
     "map.toml, line 36: key_locations.0902: hex '0902' is off the map"),
    ("vp-not-integer", "vp = [3, 2, 1]", 'vp = [3, "2", 1]',
     "map.toml, line 38: key_locations.0502.vp[1]: expected an integer, got a string '2'"),
    ("box-target-off-grid", 'target = "0101"', 'target = "0001"',
     "map.toml, line 53: boxes.landing.target: hex '0001' is off the map"),
    ("place-malformed", 'Bluetown = "0502"', 'Bluetown = 502',
     "map.toml, line 48: places.Bluetown: expected a string, got an integer 502"),
    ("columns-not-pair", "columns = [1, 6]", "columns = [1, 6, 9]",
     "map.toml, line 7: map.columns: expected two integers [first, last]"),
]


@pytest.mark.parametrize("case, old, new, message", MAP_CASES, ids=[c[0] for c in MAP_CASES])
def test_broken_map(case, old, new, message):
    with pytest.raises(DataError) as err:
        load_map(broken(MAP, old, new), name="map.toml")
    assert message in str(err.value)
    assert err.value.exit_code == 2


def test_toml_syntax_error_names_the_line():
    with pytest.raises(DataError) as err:
        load_map(broken(MAP, 'name = "Test Strip"', 'name = "Test Strip'), name="map.toml")
    assert "line 5" in str(err.value)


def test_file_name_defaults_to_the_path(tmp_path):
    p = tmp_path / "my-map.toml"
    p.write_bytes(broken(MAP, 'layout = "odd-q"', 'layout = "odd-z"'))
    with pytest.raises(DataError, match=f"^{p}, line 6: map.layout"):
        load_map(p)
    with pytest.raises(DataError, match="cannot read"):
        load_map(tmp_path / "missing.toml")
    with pytest.raises(DataError, match="not UTF-8"):
        load_map(b"\xff\xfe", name="map.toml")


COUNTER_CASES = [
    ("duplicate-unit-id", 'id = "B2"', 'id = "R1"',
     "counters.toml, line 47: units[4].id: duplicate unit id 'R1' (first at units[0])"),
    ("unknown-side", 'side = "blue"\ntype = "armour"', 'side = "green"\ntype = "armour"',
     "counters.toml, line 48: units[4].side: unknown side 'green' (declared: red, blue)"),
    ("unknown-type", 'type = "armour"\nname = "Blue', 'type = "tank"\nname = "Blue',
     "counters.toml, line 49: units[4].type: unknown unit type 'tank' (declared: infantry, armour)"),
    ("missing-id", 'id = "B1"\n', '', "counters.toml, line 40: units[3]: missing key 'id'"),
    ("value-not-scalar", "front = { combat = 6, move = 6 }", "front = { combat = [6], move = 6 }",
     "counters.toml, line 18: types.armour.front.combat: expected a number, string or boolean, got an array"),
    ("type-without-front", 'name = "Armour"\nfront = { combat = 6, move = 6 }\n', 'name = "Armour"\n',
     "counters.toml, line 16: types.armour: missing key 'front'"),
]


@pytest.mark.parametrize("case, old, new, message", COUNTER_CASES, ids=[c[0] for c in COUNTER_CASES])
def test_broken_counters(case, old, new, message):
    with pytest.raises(DataError) as err:
        load_counters(broken(COUNTERS, old, new), name="counters.toml")
    assert message in str(err.value)


CHART_CASES = [
    ("missing-chart-column-in-array", '2 = ["AF", "AF", "-",  "DF", "DF"]', '2 = ["AF", "AF", "-",  "DF"]',
     "charts.toml, line 27: tables.crt.rows.2: 4 results for 5 columns (missing column '4:1')"),
    ("extra-result", '1 = ["AF", "-",  "DF", "DF", "DE"]', '1 = ["AF", "-",  "DF", "DF", "DE", "DE"]',
     "charts.toml, line 26: tables.crt.rows.1: 6 results for 5 columns (1 extra)"),
    ("missing-chart-column-in-table", '"3:1" = "AF", ', '',
     "charts.toml, line 31: tables.crt.rows.6: missing column '3:1'"),
    ("unknown-chart-column", '"4:1" = "EX" }', '"4:1" = "EX", "5:1" = "EX" }',
     "charts.toml, line 31: tables.crt.rows.6.5:1: unknown column '5:1'"),
    ("duplicate-column", '"3:1", "4:1"]', '"3:1", "3:1"]',
     "charts.toml, line 22: tables.crt.columns: column '3:1' appears twice"),
    ("missing-columns-key", 'columns = ["1:2", "1:1", "2:1", "3:1", "4:1"]\n', '',
     "charts.toml, line 19: tables.crt: missing key 'columns'"),
    ("mp-not-half", "forest = 2", "forest = 2.3",
     "charts.toml, line 5: terrain_costs.forest: movement points 2.3 is not a non-negative multiple of 0.5"),
    ("bad-prohibited-word", 'lake = "P"', 'lake = "no"',
     "charts.toml, line 6: terrain_costs.lake: expected a number of MP or one of 'P', 'prohibited', 'impassable', got 'no'"),
    ("prohibited-not-allowed-for-movement", "river = 1 ", 'river = "P" ',
     "charts.toml, line 11: movement.river: expected a number of MP, got 'P'"),
    ("row-not-a-roll", "\n6 = {", "\nsix = {",
     "charts.toml, line 31: tables.crt.rows.six: row 'six' is not an integer, but the table clamps rolls"),
    ("unknown-top-level", "[values]", "[valeus]", "charts.toml, line 14: valeus: unknown key 'valeus'"),
]


@pytest.mark.parametrize("case, old, new, message", CHART_CASES, ids=[c[0] for c in CHART_CASES])
def test_broken_charts(case, old, new, message):
    with pytest.raises(DataError) as err:
        load_charts(broken(CHARTS, old, new), name="charts.toml")
    assert message in str(err.value)


def test_chart_terrain_checked_against_the_map():
    with pytest.raises(DataError) as err:
        load_charts(broken(CHARTS, "forest = 2", "woods = 2"), name="charts.toml", terrains=["clear", "forest", "lake"])
    assert "charts.toml, line 5: terrain_costs.woods: unknown terrain 'woods' (the map declares: clear, forest, lake)" in str(err.value)
    # without the map's terrain names the chart alone is fine
    assert load_charts(broken(CHARTS, "forest = 2", "woods = 2")).terrain_costs["woods"] == 4


def test_data_error_carries_the_key():
    with pytest.raises(DataError) as err:
        load_map(broken(MAP, 'layout = "odd-q"', 'layout = "odd-z"'), name="map.toml")
    assert err.value.field == "map.layout"
