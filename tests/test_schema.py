"""The declarative shapes of the data loaders (pbem.util.schema): every kind
of refusal, read directly and through a loader, and Hypothesis drawing
documents -- random ones and shipped data files with keys changed, removed
and added -- that the loaders answer with data or a PbemError, never another
exception."""

from __future__ import annotations

import copy
import math
import re
import shutil
import tomllib
from pathlib import Path
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.engine.mapdata import load_charts, load_counters, load_map
from pbem.errors import DataError, InputError, PbemError
from pbem.games.ambon.data import DATA as AMBON_DATA
from pbem.games.ambon.data import RULINGS_FILE, AmbonData
from pbem.games.asl.data import load as load_asl
from pbem.games.asl.position import parse_position
from pbem.games.calumpit.data import DATA as CALUMPIT_DATA
from pbem.games.calumpit.data import CalumpitData
from pbem.util.schema import (
    OMIT, Any_, Array, Bool, Check, Convert, Entries, Int, Key, Number, Refusal, Str, Table, TypeSwitch, kind,
    simple_fail,
)
from pbem.util.tomlfile import dumps

FAIL = simple_fail("test.toml")
EXAMPLE_POSITION = Path(__file__).parent.parent / "examples" / "asl" / "dare-death-example.toml"


def refusal(shape: Any, value: Any, path: str = "t") -> str:
    """The message of ``shape``'s refusal of ``value`` (read at ``path``)."""
    with pytest.raises(DataError) as err:
        shape.read(value, path, FAIL)
    return str(err.value)


# --------------------------------------------------------------------------- each shape, directly


def test_a_refusal_names_the_file_the_path_and_the_fault():
    err = FAIL("turns[3].half", "expected \"AM\" or \"PM\", got 'XM'", None)
    assert isinstance(err, DataError) and err.field == "turns[3].half"
    assert str(err) == "test.toml: turns[3].half: expected \"AM\" or \"PM\", got 'XM'"
    top = FAIL("", "missing key 'game'", None)
    assert str(top) == "test.toml: missing key 'game'" and top.field is None


def test_kind_words_every_toml_type():
    assert [kind(v) for v in (True, 1, 1.5, "a", [], {})] == [
        "a boolean", "an integer", "a number", "a string", "an array", "a table"]


def test_strings():
    assert Str().read("x", "t", FAIL) == "x"
    assert refusal(Str(), 3) == "test.toml: t: expected a string, got an integer 3"
    assert refusal(Str(nonempty=True), "  ") == "test.toml: t: expected a non-empty string, got '  '"
    assert Str(strip=True).read(" a ", "t", FAIL) == "a"
    assert refusal(Str(choices=("AM", "PM")), "XM") == "test.toml: t: expected one of 'AM', 'PM', got 'XM'"
    assert refusal(Str(pattern=r"\d{4}"), "12a4") == "test.toml: t: '12a4' does not match '\\\\d{4}'"
    assert refusal(Str(longest=3), "abcd") == "test.toml: t: longer than 3 characters"


def test_integers_are_never_booleans_and_keep_in_range():
    assert Int(low=1, high=6).read(6, "t", FAIL) == 6
    assert refusal(Int(), True) == "test.toml: t: expected an integer, got a boolean True"
    assert refusal(Int(), 1.0) == "test.toml: t: expected an integer, got a number 1.0"
    assert refusal(Int(low=1), 0) == "test.toml: t: expected an integer of at least 1, got 0"
    assert refusal(Int(high=4), 5) == "test.toml: t: expected an integer of at most 4, got 5"
    assert refusal(Int(low=1, high=6), 7) == "test.toml: t: expected an integer from 1 to 6, got 7"


def test_numbers_are_finite_and_keep_in_range():
    assert Number(low=0).read(0.5, "t", FAIL) == 0.5 and Number().read(-3, "t", FAIL) == -3
    assert refusal(Number(), math.inf) == "test.toml: t: expected a number, got a number inf"
    assert refusal(Number(), math.nan) == "test.toml: t: expected a number, got a number nan"
    assert refusal(Number(), False) == "test.toml: t: expected a number, got a boolean False"
    assert refusal(Number(low=0, above=True), 0) == "test.toml: t: expected a number greater than 0, got 0"
    assert refusal(Number(low=0), -0.5) == "test.toml: t: expected a number of at least 0, got -0.5"


def test_booleans():
    assert Bool().read(False, "t", FAIL) is False
    assert refusal(Bool(), 1) == "test.toml: t: expected true or false, got an integer 1"


def test_arrays_name_the_index_at_fault():
    assert Array(Int()).read([1, 2], "t", FAIL) == [1, 2]
    assert refusal(Array(Int()), {"a": 1}) == "test.toml: t: expected an array, got a table"
    assert refusal(Array(Int()), [1, "2"]) == "test.toml: t[1]: expected an integer, got a string '2'"
    assert refusal(Array(Array(Str())), [["a"], [1]]) == "test.toml: t[1][0]: expected a string, got an integer 1"
    assert refusal(Array(Int(), length=2, complaint="expected [first, last]"), [1]) == (
        "test.toml: t: expected [first, last], got [1]")
    assert refusal(Array(Int(), least=2), [1]) == "test.toml: t: expected at least 2 items, got [1]"


TURN = Table({"number": Int(low=1), "half": Str(choices=("AM", "PM")), "note": Key(Str(), ""),
              "label": Key(Str(), OMIT)})


def test_tables_refuse_missing_and_unknown_keys_and_fill_defaults():
    assert TURN.read({"number": 1, "half": "AM"}, "turns[0]", FAIL) == {"number": 1, "half": "AM", "note": ""}
    assert TURN.read({"number": 2, "half": "PM", "label": "x"}, "t", FAIL)["label"] == "x"
    assert refusal(TURN, [], "turns[0]") == "test.toml: turns[0]: expected a table, got an array"
    assert refusal(TURN, {"half": "AM"}, "turns[0]") == "test.toml: turns[0]: missing key 'number'"
    assert refusal(TURN, {"number": 1, "half": "AM", "hlaf": 1}, "turns[0]") == (
        "test.toml: turns[0].hlaf: unknown key 'hlaf' (allowed: number, half, note, label)")
    assert refusal(TURN, {"number": 0, "half": "AM"}, "turns[0]") == (
        "test.toml: turns[0].number: expected an integer of at least 1, got 0")
    # at the top of a file the path is the key alone
    assert refusal(Table({"game": Table({})}), {"game": {"x": 1}}, "") == (
        "test.toml: game.x: unknown key 'x' (allowed: )")


def test_a_table_may_refuse_an_unknown_key_before_a_missing_one_in_its_own_words():
    shape = Table({"game": Any_()}, unknown_first=True, missing=lambda k: f"missing key {k!r} (no [{k}] table)",
                  unknown=lambda names, allowed: f"unknown key(s) {', '.join(sorted(names))}")
    assert refusal(shape, {"gmae": 1, "b": 2}, "") == "test.toml: gmae: unknown key(s) b, gmae"
    assert refusal(shape, {}, "") == "test.toml: missing key 'game' (no [game] table)"
    assert refusal(Table({"game": Any_()}), {"gmae": 1}, "") == "test.toml: missing key 'game'"


def test_a_table_with_others_reads_the_rest_by_their_shape():
    shape = Table({"name": Str()}, others=Int())
    assert shape.read({"name": "x", "a": 1}, "t", FAIL) == {"name": "x", "a": 1}
    assert refusal(shape, {"name": "x", "a": "1"}) == "test.toml: t.a: expected an integer, got a string '1'"


def test_entries_test_each_name_and_read_each_value():
    shape = Entries(Int(), name=lambda n: None if n.islower() else f"{n!r} is not lower case", least=1,
                    empty="declares nothing")
    assert shape.read({"a": 1, "b": 2}, "terrain", FAIL) == {"a": 1, "b": 2}
    assert refusal(shape, {}, "terrain") == "test.toml: terrain: declares nothing"
    assert refusal(shape, {"A": 1}, "terrain") == "test.toml: terrain.A: 'A' is not lower case"
    assert refusal(shape, {"a": True}, "terrain") == "test.toml: terrain.a: expected an integer, got a boolean True"
    assert refusal(shape, "a", "terrain") == "test.toml: terrain: expected a table, got a string"


def test_conversions_and_checks_refuse_in_their_own_words():
    def parse(text: str) -> int:
        if text == "input":
            raise InputError("hex 'x' is not CCRR")
        if text == "deep":
            raise Refusal("the colour is wrong", path=".colour")
        return int(text)  # a ValueError otherwise

    shape = Convert(Str(), parse)
    assert shape.read("12", "t", FAIL) == 12
    assert refusal(shape, "1x") == "test.toml: t: invalid literal for int() with base 10: '1x'"
    assert refusal(shape, "input") == "test.toml: t: hex 'x' is not CCRR"
    assert refusal(shape, "deep", "boxes.a") == "test.toml: boxes.a.colour: the colour is wrong"
    assert refusal(shape, 12) == "test.toml: t: expected a string, got an integer 12"
    even = Check(Int(), lambda n: None if n % 2 == 0 else f"{n} is odd")
    assert even.read(4, "t", FAIL) == 4 and refusal(even, 3) == "test.toml: t: 3 is odd"


def test_a_refusal_carries_the_needle_that_finds_its_line():
    seen = []

    def fail(path: str, what: str, needle: str | None = None) -> PbemError:
        seen.append((path, needle))
        return DataError(what)

    with pytest.raises(DataError):
        Check(Str(), lambda s: "no").read("0512", "hexes[0]", fail)
    with pytest.raises(DataError):
        Convert(Str(), lambda s: (_ for _ in ()).throw(Refusal("no", needle="0512"))).read("0512", "h", fail)
    assert seen == [("hexes[0]", '"0512"'), ("h", "0512")]


def test_a_type_switch_reads_by_the_value_s_type():
    shape = TypeSwitch({list: Array(Str()), dict: Entries(Str())}, "an array or a table of results")
    assert shape.read(["a"], "t", FAIL) == ["a"] and shape.read({"x": "a"}, "t", FAIL) == {"x": "a"}
    assert refusal(shape, 3) == "test.toml: t: expected an array or a table of results, got an integer"


def test_other_errors_of_a_conversion_are_not_hidden():
    def broken(_: Any) -> Any:
        raise KeyError("a bug")

    with pytest.raises(KeyError):
        Convert(Any_(), broken).read(1, "t", FAIL)


# --------------------------------------------------------------------------- through the loaders

MAP = b"""
[map]
layout = "odd-q"
columns = [1, 3]
rows = [1, 3]
default_terrain = "clear"

[terrain.clear]

[boxes.landing]
target = "0101"
"""


def test_map_defaults_come_from_the_declared_shape():
    gmap = load_map(MAP, name="map.toml")
    assert gmap.name == "" and gmap.note == "" and gmap.boxes["landing"].kind == "box"
    assert gmap.boxes["landing"].name == "landing" and gmap.label(gmap.boxes["landing"].target) == "0101"
    assert gmap.terrain_types["clear"].symbol == "c" and gmap.towns == frozenset()


@pytest.mark.parametrize("old, new, message", [
    (b'columns = [1, 3]', b'columns = [true, 3]', "map.toml, line 4: map.columns[0]: expected an integer, got a boolean True"),
    (b"[terrain.clear]", b"[terrain.clear]\n[hexes]\nclear = 5", "map.toml, line 10: hexes.clear: expected an array, got an integer"),
    (b"[terrain.clear]", b"[terrain]", "map.toml, line 8: terrain: declares no terrain"),
    (b"[terrain.clear]", b'[terrain]\nclear = "x"', "map.toml, line 9: terrain.clear: expected a table, got a string"),
    (b'target = "0101"', b'target = "0101"\nkidn = "x"', "map.toml, line 12: boxes.landing.kidn: unknown key 'kidn'"),
    (b'[map]', b'[mpa]\nx = 1\n[map]', "map.toml, line 2: mpa: unknown key 'mpa'"),
])
def test_map_refusals(old, new, message):
    with pytest.raises(DataError) as err:
        load_map(MAP.replace(old, new, 1), name="map.toml")
    assert message in str(err.value)


def test_a_missing_top_level_table_names_the_file_alone():
    with pytest.raises(DataError) as err:
        load_map(b'[terrain.clear]\n', name="map.toml")
    assert str(err.value) == "map.toml: missing key 'map'"


def test_counters_refusals_name_the_unit_s_own_key():
    counters = b"""
[sides.red]
[types.inf]
front = { combat = 1 }
[[units]]
id = "R1"
side = "red"
type = "inf"
[[units]]
id = "R1"
side = "red"
type = "inf"
"""
    with pytest.raises(DataError, match=r"units\[1\]\.id: duplicate unit id 'R1' \(first at units\[0\]\)"):
        load_counters(counters, name="counters.toml")
    with pytest.raises(DataError, match=r"types\.inf\.front\.combat: value nan is not finite"):
        load_counters(counters.replace(b"combat = 1", b"combat = nan"), name="counters.toml")
    with pytest.raises(DataError, match=r"counters\.toml, line 3: sides\.red\.colour: colour 'red' is not #rrggbb"):
        load_counters(counters.replace(b"[sides.red]", b'[sides.red]\ncolour = "red"'), name="counters.toml")


def test_charts_refusals():
    charts = b'[tables.crt]\ncolumns = ["1:1"]\nrows = { 1 = ["-"] }\n'
    assert load_charts(charts).tables["crt"].dice == "1d6"
    with pytest.raises(DataError, match=r"tables\.crt\.rows\.1: expected an array or a table of results, got a string"):
        load_charts(charts.replace(b'["-"] }', b'"-" }'), name="charts.toml")
    with pytest.raises(DataError, match=r"tables\.crt\.columns: a table needs at least one column"):
        load_charts(charts.replace(b'["1:1"]', b"[]"), name="charts.toml")
    with pytest.raises(DataError, match=r"tables\.crt\.clamp: expected true or false, got 'yes'"):
        load_charts(charts + b'clamp = "yes"\n', name="charts.toml")


def printed(tmp_path: Path, source: Path, name: str, old: str, new: str) -> Path:
    """A data set of ``source``'s file ``name`` with ``old`` replaced by ``new``."""
    directory = tmp_path / "printed"
    directory.mkdir(exist_ok=True)
    text = (source / name).read_text(encoding="utf-8")
    assert re.search(old, text, flags=re.M), old
    (directory / name).write_text(re.sub(old, new, text, count=1, flags=re.M), encoding="utf-8")
    return directory


@pytest.mark.parametrize("name, old, new, message", [
    ("turns.toml", r'^half = "AM"', 'half = "XM"', r"turns\[0\]\.half: expected \"AM\" or \"PM\", got 'XM'"),
    ("turns.toml", r"^first_turn = 1", "first_turn = 0", r"game\.first_turn: expected an integer of at least 1, got 0"),
    ("landings.toml", r"^real = 5", "real = -1", r"mines\.real: expected an integer of at least 0, got -1"),
    ("landings.toml", r"^\[mines\]", "[mines]\nextra = 1", r"mines\.extra: unknown key 'extra'"),
    ("charts.toml", r"^stacking_limit = 3", "stacking_limit = -3", r"values\.stacking_limit: expected at least 0 \(9\.0\)"),
    ("counters.toml", r"^zoc = false", "zoc = 0", r"types\.army-hq\.front\.zoc: expected true or false, got an integer 0"),
])
def test_ambon_refusals_through_the_declared_shapes(tmp_path, name, old, new, message):
    with pytest.raises(DataError) as err:
        AmbonData(printed(tmp_path, AMBON_DATA, name, old, new))
    assert re.search(rf"printed/{re.escape(name)}, line \d+: {message}", str(err.value)), str(err.value)


@pytest.mark.parametrize("name, old, new, message", [
    ("tables.toml", r"^dice = 2", 'dice = "2"', r"event_check\.dice: expected an integer, got a string '2'"),
    ("tables.toml", r'^shots = "figures"', 'shots = "all"', r"shots: expected \"figures\", \"area\" or \"one\""),
    ("tables.toml", r"^\[morale\.failed\]", "[morale.failed]\nmartians = []", r"morale\.failed\.martians: unknown key"),
    ("scenario.toml", r"^half_length = 4", 'half_length = "4"', r"bridges\.road\.half_length: expected a number"),
    ("attack.toml", r"jat_rolls = 1 ", "jat_rolls = 5 ", r"jagt\.rows\[0\]\.jat_rolls: the JAT has four roll-number columns"),
])
def test_calumpit_refusals_through_the_declared_shapes(tmp_path, name, old, new, message):
    with pytest.raises(DataError) as err:
        CalumpitData(printed(tmp_path, CALUMPIT_DATA, name, old, new))
    assert re.search(rf"printed/{re.escape(name)}, line \d+: .*{message}", str(err.value)), str(err.value)


ASL = load_asl()


def position_doc() -> dict[str, Any]:
    doc = tomllib.loads(EXAMPLE_POSITION.read_text(encoding="utf-8"))
    doc.pop("berserk")
    return doc


@pytest.mark.parametrize("change, message, field", [
    ({"phase": ""}, 'position: phase must be a non-empty string, got ""', "phase"),
    ({"nationality": 3}, "position: nationality must be a string, got an integer 3", "nationality"),
    ({"unit": [{"type": "3-3-7", "hex": "Z0"}]}, "position: unit 1: missing key 'id'", "id"),
    ({"unit": [{"id": "A", "type": "3-3-7", "hex": "Z0", "known": 1}]},
     "position: unit A: known must be true or false, got an integer 1", "known"),
    ({"entry_cost": {"default": "x"}}, "position: entry_cost: default: movement points 'x' is not a number", "default"),
    ({"zz": 1, "aa": 2}, "position: unknown key(s) aa, zz (known: boards,", "zz"),
])
def test_asl_position_refusals_keep_the_orders_wording(change, message, field):
    with pytest.raises(InputError) as err:
        parse_position({**position_doc(), **change}, ASL)
    assert message in str(err.value) and err.value.field == field


# --------------------------------------------------------------------------- Hypothesis: never another exception

SCALARS = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**63 - 1), st.booleans(), st.floats(), st.text(max_size=8),
    st.sampled_from(["", "0101", "1609", "9999", "P", "AM", "red", "japanese", "d6", "1-6", "3:1", "Z0", "true"]),
)
VALUES = st.recursive(
    SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(min_size=1, max_size=6), inner,
                                                                                  max_size=3)),
    max_leaves=6)
SETTINGS = settings(max_examples=40, deadline=None, database=None, derandomize=True,
                    suppress_health_check=list(HealthCheck))


def mutate(doc: Any, data: st.DataObject) -> Any:
    """``doc`` with one value somewhere in it replaced, removed or added."""
    doc = copy.deepcopy(doc)
    node: Any = doc
    while True:
        children = list(node.items()) if isinstance(node, dict) else list(enumerate(node))
        containers = [(k, v) for k, v in children if isinstance(v, (dict, list)) and v]
        if not containers or data.draw(st.booleans()):
            break
        node = data.draw(st.sampled_from(containers))[1]
    keys = list(node) if isinstance(node, dict) else list(range(len(node)))
    action = data.draw(st.sampled_from(["replace", "remove", "add"] if keys else ["add"]))
    if action == "add":
        if isinstance(node, dict):
            node[data.draw(st.text(min_size=1, max_size=6))] = data.draw(VALUES)
        else:
            node.append(data.draw(VALUES))
        return doc
    key = data.draw(st.sampled_from(keys))
    if action == "remove":
        del node[key]
    else:
        node[key] = data.draw(VALUES)
    return doc


def answers(call: Callable[[], Any]) -> None:
    """``call`` returns, or refuses with a PbemError: anything else is a crash (the test fails)."""
    try:
        call()
    except PbemError:
        pass


def toml_bytes(doc: dict[str, Any]) -> bytes:
    """``doc`` as TOML; None when the writer cannot put it so that it reads back the same."""
    text = dumps(doc)
    return text.encode() if _same(tomllib.loads(text), doc) else b""


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def shipped(directory: Path, *exclude: str) -> dict[str, dict[str, Any]]:
    return {p.name: tomllib.loads(p.read_text(encoding="utf-8")) for p in sorted(directory.glob("*.toml"))
            if p.name not in exclude}


AMBON_FILES = shipped(AMBON_DATA, RULINGS_FILE)
CALUMPIT_FILES = shipped(CALUMPIT_DATA)


@SETTINGS
@given(st.dictionaries(st.sampled_from(["map", "terrain", "hexes", "boxes", "sides", "types", "units", "tables",
                                        "values", "x"]), VALUES, max_size=5))
def test_random_documents_are_refused_with_a_pbem_error(doc):
    raw = toml_bytes(doc)
    for loader in (load_map, load_counters, load_charts):
        answers(lambda loader=loader: loader(raw, name="x.toml"))


@SETTINGS
@given(st.sampled_from(["map.toml", "counters.toml", "charts.toml"]), st.data())
def test_mutated_engine_files_are_read_or_refused(name, data):
    raw = toml_bytes(mutate(AMBON_FILES[name], data))
    loader = {"map.toml": load_map, "counters.toml": load_counters, "charts.toml": load_charts}[name]
    answers(lambda: loader(raw, name=name))


@SETTINGS
@given(st.sampled_from(sorted(AMBON_FILES)), st.data())
def test_mutated_ambon_files_are_read_or_refused(tmp_path_factory, name, data):
    directory = tmp_path_factory.mktemp("ambon")
    (directory / name).write_bytes(toml_bytes(mutate(AMBON_FILES[name], data)))
    answers(lambda: AmbonData(directory))
    shutil.rmtree(directory)


@SETTINGS
@given(st.sampled_from(sorted(CALUMPIT_FILES)), st.data())
def test_mutated_calumpit_files_are_read_or_refused(tmp_path_factory, name, data):
    directory = tmp_path_factory.mktemp("calumpit")
    (directory / name).write_bytes(toml_bytes(mutate(CALUMPIT_FILES[name], data)))
    answers(lambda: CalumpitData(directory))
    shutil.rmtree(directory)


POSITION = position_doc()


@SETTINGS
@given(st.data())
def test_mutated_asl_positions_are_read_or_refused(data):
    doc = mutate(POSITION, data)
    answers(lambda: parse_position(doc, ASL))
    answers(lambda: parse_position(doc, ASL, allow_dare_death=False))
