"""TOML written by pbem (``pbem.util.tomlfile`` on ``tomli_w``): orders
documents, orders templates, mail settings.  Whatever a user can type --
DEL, control characters, quotes, backslashes, any Unicode -- is written as
valid TOML that reads back (``tomllib``) to exactly what was written."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.app.orders_template import order_lines, render, standing_lines, uncomment_examples
from pbem.engine.contract import Section, Sections
from pbem.mail.outbox import GameMail
from pbem.match.orders_toml import dump_orders
from pbem.util import tomlfile

EXAMPLES = Path(__file__).parent.parent / "examples"

# every character a TOML file can hold: all of Unicode but the surrogates (not UTF-8)
TEXT = st.text(st.characters(blacklist_categories=("Cs",)))
CHECK = settings(max_examples=400, deadline=None, database=None, derandomize=True,
                 suppress_health_check=list(HealthCheck))
CHECK_DOCUMENTS = settings(CHECK, max_examples=100)  # whole documents: fewer, larger examples

C0 = [chr(i) for i in range(0x20)]
STRINGS = [
    "", "\x7f", "a\x7fb", "\x7f" * 3, *C0, "".join(C0) + "\x7f",
    '"', "'", '"""', "'''", '\\', '\\"', '\\u0041', "\\n", "a\\", 'say "hi"',
    "é", "Kure-1: 2106 2007", "日本語", "Ωμέγα", "e\u0301",  # combining accent
    "🎲", "👍🏽", "🏳️‍🌈",  # emoji, a modifier, a ZWJ sequence
    "\u0080", "\u0085", "\u009f", "\u00a0", "\u2028", "\u2029", "\ufeff", "\ufffd", "\U0010ffff",
    "line one\nline two", "crlf\r\n", "tab\tinside", "  padded  ", "# not a comment", "[[order]]",
    "x = 1", "{ A = 1 }", "a" * 100_000, "🎲\x7f" * 5_000,
]
KEYS_QUOTED = ["", " ", "a b", "a.b", "a=b", "#", "[x]", '"', "'", "\\", "é", "日本", "🎲",
               "\x7f", "\n", "\t", "a\x00b", "Kure 1"]
KEYS_BARE = ["move", "A", "A-1", "dare_death", "0004", "-", "_", "Kure-HQ"]


def reads_back(text: str) -> dict[str, Any]:
    """``text`` is UTF-8-encodable TOML; its document."""
    text.encode("utf-8")
    return tomllib.loads(text)


# --------------------------------------------------------------------------- strings


@CHECK
@given(TEXT)
def test_any_text_value_round_trips(text: str) -> None:
    assert reads_back(tomlfile.dumps({"s": text})) == {"s": text}
    assert reads_back(f"s = {tomlfile.value(text)}\n") == {"s": text}


@pytest.mark.parametrize("text", STRINGS, ids=lambda s: repr(s)[:40])
def test_typed_string_round_trips(text: str) -> None:
    assert reads_back(tomlfile.dumps({"s": text, "list": [text, text]})) == {"s": text, "list": [text, text]}


@CHECK
@given(TEXT)
def test_value_is_one_line(text: str) -> None:
    """A value never holds a line feed, so a template can comment it out with ``# ``."""
    assert "\n" not in tomlfile.value(text) and "\r" not in tomlfile.value(text)


def test_del_and_control_characters_are_escaped() -> None:
    assert tomlfile.value("\x7f") == '"\\u007f"'
    assert tomlfile.value("a\x00b\x1fc") == '"a\\u0000b\\u001fc"'
    assert tomlfile.value('"\\\n') == '"\\"\\\\\\n"'


# --------------------------------------------------------------------------- keys


@CHECK
@given(TEXT, TEXT)
def test_any_text_key_round_trips(name: str, text: str) -> None:
    assert reads_back(f"{tomlfile.key(name)} = {tomlfile.value(text)}\n") == {name: text}
    assert reads_back(tomlfile.dumps({name: text, "t": {name: [text]}})) == {name: text, "t": {name: [text]}}


@pytest.mark.parametrize("name", KEYS_QUOTED, ids=repr)
def test_key_that_needs_quoting_is_quoted(name: str) -> None:
    assert tomlfile.key(name).startswith('"')
    assert reads_back(f"{tomlfile.key(name)} = 1\n") == {name: 1}


@pytest.mark.parametrize("name", KEYS_BARE)
def test_bare_key_stays_bare(name: str) -> None:
    assert tomlfile.key(name) == name
    assert reads_back(f"{name} = 1\n") == {name: 1}


# --------------------------------------------------------------------------- values and documents

SCALARS = st.one_of(TEXT, st.booleans(), st.integers(min_value=-(2**63), max_value=2**63 - 1))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
                      max_leaves=12)
DOCUMENTS = st.dictionaries(TEXT, st.one_of(VALUES, st.lists(st.dictionaries(TEXT, VALUES, max_size=4), max_size=3)),
                            max_size=5)


@CHECK_DOCUMENTS
@given(DOCUMENTS)
def test_any_document_round_trips(document: dict[str, Any]) -> None:
    assert reads_back(tomlfile.dumps(document)) == document


def test_nested_tables_and_arrays_of_tables() -> None:
    document = {
        "title": "a \x7f game",
        "map": {"name": "Ambon", "size": [20, 30], "terrain": {"1509": "jungle", "x y": {"deep": [1, {"z": True}]}}},
        "unit": [{"id": "A", "hex": "Z0", "markers": ["CX"]}, {}, {"id": "B", "squads": {"A": "3-3-7"}}],
        "empty": [],
        "none": {},
    }
    text = tomlfile.dumps(document)
    assert reads_back(text) == document
    assert text == (
        'title = "a \\u007f game"\n'
        "empty = []\n"
        "\n[map]\n"
        'name = "Ambon"\n'
        "size = [20, 30]\n"
        'terrain = { 1509 = "jungle", "x y" = { deep = [1, { z = true }] } }\n'
        "\n[[unit]]\n"
        'id = "A"\n'
        'hex = "Z0"\n'
        'markers = ["CX"]\n'
        "\n[[unit]]\n"
        "\n[[unit]]\n"
        'id = "B"\n'
        'squads = { A = "3-3-7" }\n'
        "\n[none]\n"
    )


def test_inline_tables_and_arrays_render_on_one_line() -> None:
    assert tomlfile.value({"A": "3-3-7", "B": "4-4-7"}) == '{ A = "3-3-7", B = "4-4-7" }'
    assert tomlfile.value({}) == "{}"
    assert tomlfile.value([["Z0", "X2"], ["AA1", "X2"]]) == '[["Z0", "X2"], ["AA1", "X2"]]'
    assert tomlfile.value([]) == "[]"
    assert tomlfile.value((1, True, "x")) == '[1, true, "x"]'


def test_empty_document_is_empty_text() -> None:
    assert tomlfile.dumps({}) == ""


def test_unsupported_value_is_refused() -> None:
    with pytest.raises(TypeError):
        tomlfile.value(object())


# --------------------------------------------------------------------------- orders documents


@pytest.mark.parametrize("text", ["\x7f", "Kure-1\x7f: 2106", "\x00\x1b[31m\x7f", "🎲\x7f\"\\"], ids=repr)
def test_orders_with_del_parse_with_tomllib(text: str) -> None:
    """The bug: the hand writer left DEL raw inside a string, which TOML forbids."""
    orders = {"order": [{"move": text, "path": [text, "2007"]}], "standing": {text: text}}
    written = dump_orders(orders, f"player {text}\nsecond line")
    assert reads_back(written) == orders
    assert written.startswith(f"# player {tomlfile.comment_text(text)}\n# second line\n\n[[order]]\n")


@CHECK
@given(TEXT)
def test_any_text_comment_is_a_valid_comment(text: str) -> None:
    assert "\n" not in tomlfile.comment_text(text)
    assert reads_back(f"# {tomlfile.comment_text(text)}\nk = 1\n") == {"k": 1}


def test_comment_text_spells_forbidden_characters_as_escapes() -> None:
    assert tomlfile.comment_text("a\x7fb\x00\n\r\tc é🎲") == "a\\u007fb\\u0000\\u000a\\u000d\tc é🎲"


@CHECK_DOCUMENTS
@given(st.lists(st.dictionaries(TEXT, VALUES, max_size=4), max_size=4), st.dictionaries(TEXT, SCALARS, max_size=3), TEXT)
def test_dump_orders_round_trips(orders: list[dict[str, Any]], standing: dict[str, Any], comment: str) -> None:
    document: dict[str, Any] = {"order": orders, "standing": standing}
    expected = {k: v for k, v in document.items() if v}
    assert reads_back(dump_orders(document, comment)) == expected


def test_dump_orders_layout() -> None:
    orders = {"standing": {"retreat": "no"}, "order": [{"move": "A: 1 2", "path": ["1", "2"]}, {"end": True}]}
    assert dump_orders(orders, "first\n\nthird") == (
        "# first\n# \n# third\n"
        '\n[[order]]\nmove = "A: 1 2"\npath = ["1", "2"]\n'
        "\n[[order]]\nend = true\n"
        '\n[standing]\nretreat = "no"\n'
    )
    assert dump_orders({"order": [{"end": True}]}) == "[[order]]\nend = true\n"
    assert dump_orders({}, "the closing message: no orders") == "# the closing message: no orders\n"
    assert dump_orders({}) == "\n"


@pytest.mark.parametrize("path", sorted((EXAMPLES / "ambon" / "full-game" / "orders").glob("*.toml")), ids=lambda p: p.name)
def test_dump_orders_reproduces_recorded_example(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    head = lines[: next((i for i, line in enumerate(lines) if not line.startswith("# ")), len(lines))]
    comment = "\n".join(line.removeprefix("# ") for line in head)  # the demo's heading, one line or more
    assert dump_orders(tomllib.loads(text), comment) == text


# --------------------------------------------------------------------------- templates


def test_template_order_lines_with_inline_table_as_asl_setup() -> None:
    order = {"type": "setup", "nationality": "chinese", "squads": {"A": "3-3-7", "B": "4-4-7"}, "dare_death": ["A"]}
    assert order_lines(order) == [
        "[[order]]",
        'type = "setup"',
        'nationality = "chinese"',
        'squads = { A = "3-3-7", B = "4-4-7" }',
        'dare_death = ["A"]',
    ]
    assert standing_lines({"retreat": "no", "odd key": "\x7f"}) == ["[standing]", 'retreat = "no"', '"odd key" = "\\u007f"']


@pytest.mark.parametrize("text", ["\x7f", "a\u2028b", "x\x85y", "\n", 'q"\\', "🎲"], ids=repr)
def test_template_examples_with_odd_strings_read_back(text: str) -> None:
    order = {"type": "move", "unit": text, "squads": {text: text}}
    body = Sections(sections=[Section(title="moves", notes=[f"a note on {text}"], examples=[order])],
                    standing={"k": text})
    lines = render([f"head {text}"], body, [[order]], standing=True)
    assert reads_back(lines) == {}  # all examples commented out
    assert reads_back(uncomment_examples(lines)) == {"order": [order], "standing": {"k": text}}


# --------------------------------------------------------------------------- mail settings


@pytest.mark.parametrize("text", ["\x7f", "2024-01-01, bob@example.org", 'q"\\\n', "🎲"], ids=repr)
def test_game_mail_round_trips(tmp_path: Path, text: str) -> None:
    GameMail(to="bob@example.org", sent={"0004": text, text: "x"}).save(tmp_path)
    assert GameMail.load(tmp_path) == GameMail(to="bob@example.org", sent={"0004": text, text: "x"})


def test_game_mail_layout(tmp_path: Path) -> None:
    head = "# pbem: mail settings of this game -- not part of the game's signed files\n"
    path = GameMail(to="bob@example.org", sent={"0004": "sent", "0002": "sent"}).save(tmp_path)
    assert path.read_text() == head + 'to = "bob@example.org"\n\n[sent]\n0002 = "sent"\n0004 = "sent"\n'
    GameMail(sent={"0002": "sent"}).save(tmp_path)
    assert path.read_text() == head + '\n[sent]\n0002 = "sent"\n'
    GameMail().save(tmp_path)
    assert path.read_text() == head
