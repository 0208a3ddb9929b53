"""Fuzzing (issue 9): no input makes pbem crash.

Hypothesis draws orders documents (dice game and Ambon: random tables, keys
and values, and mutations of valid orders), armoured messages (random text,
mutated genuine armour) and data files (the engine test game's map, counters
and charts, mutated as TOML data and as text).  Whatever it draws, pbem
answers with a result or a :class:`~pbem.errors.PbemError` -- never another
exception; an input error (exit status 2) names the field or file at fault.
A few drawn inputs also go through the CLI (`pbem play`, `pbem verify`,
`pbem adjudicate --data`): exit status 1 or 2, a message, no traceback.

The default run uses a small fixed budget (``derandomize``: the same
examples every run); ``pytest -m slow`` runs each fuzzer with a larger,
random budget.  The inputs that once crashed pbem are kept as tests at the
end of the file.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import tempfile
import tomllib
from pathlib import Path
from typing import Any, Callable

import pytest
from click.testing import CliRunner
from demo_games import ambon_game
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.cli import main
from pbem.engine.mapdata import DataSet, load_dataset
from pbem.errors import DataError, IllegalOrderError, InputError, PbemError, VerificationError
from pbem.match import session
from pbem.protocol.keys import Identity
from pbem.protocol.message import BEGIN, END, SIG_BEGIN, SIG_END, SignedMessage
from pbem.protocol.transcript import Transcript

ENGINE_DATA = Path(__file__).parent / "engine_game" / "data"
DATA_FILES = ("map.toml", "counters.toml", "charts.toml")

# --------------------------------------------------------------------------- budgets

BUDGETS = pytest.mark.parametrize("budget", ["ci", pytest.param("slow", marks=pytest.mark.slow)])


def fuzz(budget: str, ci: int, slow: int, *strategies: st.SearchStrategy, **extra: Any) -> Callable:
    """``given(*strategies)`` with the budget's settings: ``ci`` examples,
    always the same ones, or ``slow`` random ones."""
    options = dict(
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        print_blob=True,
        **extra,
    )
    if budget == "ci":
        options.update(max_examples=ci, derandomize=True)
    else:
        options.update(max_examples=slow)

    def deco(check: Callable) -> Callable:
        return settings(**options)(given(*strategies)(check))

    return deco


def refused_or_done(call: Callable[[], Any]) -> tuple[Any, PbemError | None]:
    """Run ``call``; a PbemError is an answer, any other exception a crash."""
    try:
        return call(), None
    except PbemError as err:
        return None, err


# --------------------------------------------------------------------------- TOML values and a small writer

SAFE_INT = st.integers(min_value=-(2**63), max_value=2**63 - 1)
SCALARS = st.one_of(
    st.text(max_size=12),
    SAFE_INT,
    st.booleans(),
    st.floats(allow_nan=False),
    st.sampled_from(["", "1609", "0000", "9999", "X1", "3.A", "first", "dummy", "d6", "-", "\x00", "é"]),
)
KEYS = st.one_of(st.text(min_size=1, max_size=8), st.sampled_from(["type", "order", "standing", "slot", "dice"]))
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=8,
)


def toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(type(value))


def toml_dumps(document: dict[str, Any]) -> str:
    """A TOML document with every table inline (what tomllib reads back as ``document``)."""
    return "".join(f"{toml_key(k)} = {toml_value(v)}\n" for k, v in document.items())


def test_the_toml_writer_round_trips():
    doc = {"order": [{"type": "roll", "dice": "2d6", "n": -3, "x": 1.5, "ok": True, "l": [1, "a", []]}],
           "a b": {"c": {}}, "inf": float("-inf")}
    assert tomllib.loads(toml_dumps(doc)) == doc


# --------------------------------------------------------------------------- dice orders


def dice_orders() -> st.SearchStrategy:
    dice = st.one_of(st.from_regex(r"\A[0-9]{0,3}[dD][0-9]{1,4}([+-][0-9]{1,3})?\Z"), st.text(max_size=12), VALUES)
    slot = st.one_of(st.from_regex(r"\A[A-Za-z0-9][A-Za-z0-9_.-]{0,70}\Z"), st.text(max_size=10), VALUES)
    order = st.fixed_dictionaries(
        {},
        optional={
            "type": st.one_of(st.sampled_from(["roll", "seal", "reveal", "end"]), VALUES),
            "dice": dice,
            "note": st.one_of(st.text(max_size=220), VALUES),
            "slot": slot,
            "text": st.one_of(st.text(max_size=60), VALUES),
            "extra": VALUES,
        },
    )
    return st.fixed_dictionaries(
        {}, optional={"order": st.one_of(st.lists(order, max_size=4), VALUES), "standing": VALUES, "zzz": VALUES}
    )


def names_the_field(err: PbemError, document: dict[str, Any]) -> bool:
    """An input error says where: the field it names (``err.field``) appears
    in its message, or the message starts from the document's structure."""
    text = str(err)
    if err.field:
        return err.field.split(".")[-1].split("[")[0] in text
    return bool(re.match(r"(orders?\b|order \d|standing|\w+ \d+:|scenario)", text))


@pytest.fixture(scope="module")
def dice_match(tmp_path_factory):
    """A dice game with messages 0 and 1 exchanged: ann (first) to move."""
    root = tmp_path_factory.mktemp("dice-fuzz")
    ann = Identity.from_seed(bytes(range(32)), "ann")
    bob = Identity.from_seed(bytes(range(32, 64)), "bob")
    first = session.new_game(root / "ann", "dice", "first", bob.public, ann)
    second, _ = session.join_game(first, root / "bob", bob)
    session.receive(root / "ann", [second], ann)
    return session.load(root / "ann", ann)


@BUDGETS
def test_dice_orders_never_crash(budget, dice_match):
    game, side = dice_match.game, dice_match.player.side

    @fuzz(budget, 150, 3000, dice_orders())
    def check(document):
        parsed, err = refused_or_done(lambda: game.parse_orders(document, side))
        if err is not None:
            assert isinstance(err, InputError) and err.exit_code == 2, err
            assert names_the_field(err, document), err
            return
        # legal syntax: the whole message is composed, tried and verified
        refused_or_done(lambda: session.compose(dice_match, document))

    check()


# --------------------------------------------------------------------------- Ambon orders

UNITS = ["3.A", "3.B", "1.D", "Kure-1", "Kure-HQ", "228-Art", "AUS-HQ", "AUS-B", "NEI-3.A", "X1", "X7", "M2", "nope", ""]
HEXES = ["1609", "0713", "1402", "0101", "2106", "9999", "0000", "16O9", "1", "", "1609 1610"]


def ambon_orders() -> st.SearchStrategy:
    unit = st.one_of(st.sampled_from(UNITS), st.text(max_size=6))
    hexlabel = st.one_of(st.sampled_from(HEXES), st.from_regex(r"\A[0-9]{4}\Z"), st.text(max_size=5))
    move = st.builds(lambda u, hs, sep: f"{u}{sep}{' '.join(hs)}", unit, st.lists(hexlabel, max_size=5), st.sampled_from([": ", ":", " ", ""]))
    verbs = {
        "place": unit, "conceal": unit, "mine": unit, "wave": st.sampled_from(["fw-laha", "fw-liang", "sw-laha", "x"]),
        "second_wave": st.one_of(st.sampled_from(["1:hitu-lama 2:laha", "1:x", ""]), st.text(max_size=12)),
        "setup": st.sampled_from(["historical", "random"]), "land": st.sampled_from(["fw-laha", "fw-liang", "nope"]),
        "postpone": st.sampled_from(["fw-laha", "x"]), "move": move, "attack": hexlabel, "bombard": unit,
        "surrender": st.sampled_from(["yes", "no", "maybe"]), "support": unit,
        "advance": st.one_of(st.lists(unit, max_size=3), unit), "reveal": unit,
    }
    fields = {
        "hex": hexlabel, "is": st.sampled_from(["dummy", "detachment", "real", "x"]),
        "box": st.sampled_from(["mine-1", "fw-laha", "x"]), "units": st.one_of(st.lists(unit, max_size=4), VALUES),
        "with": st.one_of(st.lists(unit, max_size=4), VALUES), "hq": unit, "target": st.one_of(unit, hexlabel),
    }

    def order(draw_verbs: list[str], extra: dict[str, Any], values: dict[str, Any]) -> dict[str, Any]:
        return {**{v: values[v] for v in draw_verbs}, **extra}

    one_order = st.builds(
        order,
        st.lists(st.sampled_from(sorted(verbs)), min_size=0, max_size=2, unique=True),
        st.fixed_dictionaries({}, optional={k: st.one_of(s, VALUES) for k, s in fields.items()}),
        st.fixed_dictionaries({k: st.one_of(s, VALUES) for k, s in verbs.items()}),
    )
    standing = st.dictionaries(
        st.sampled_from(["hq-support", "advance", "retreat", "surrender", "losses", "other"]),
        st.one_of(st.sampled_from(["always", "never", "retreat", "hit", "3.C 3.A"]), VALUES),
        max_size=3,
    )
    return st.fixed_dictionaries(
        {}, optional={"order": st.one_of(st.lists(one_order, max_size=5), VALUES), "standing": st.one_of(standing, VALUES)}
    )


def mutate_orders(orders: dict[str, Any], data: st.DataObject) -> dict[str, Any]:
    """A valid orders document with a few drawn changes."""
    doc = json.loads(json.dumps(orders))  # a deep copy
    items = doc.setdefault("order", [])
    for _ in range(data.draw(st.integers(1, 3), label="changes")):
        op = data.draw(st.sampled_from(["drop", "duplicate", "swap", "delete-key", "set-key", "new-key", "hex", "unit", "standing"]))
        if not items:
            items.append({})
        i = data.draw(st.integers(0, len(items) - 1), label="order")
        order = items[i]
        if op == "drop":
            items.pop(i)
        elif op == "duplicate":
            items.insert(i, json.loads(json.dumps(order)))
        elif op == "swap":
            j = data.draw(st.integers(0, len(items) - 1))
            items[i], items[j] = items[j], items[i]
        elif op == "delete-key" and order:
            order.pop(data.draw(st.sampled_from(sorted(order))))
        elif op == "set-key" and order:
            order[data.draw(st.sampled_from(sorted(order)))] = data.draw(VALUES)
        elif op == "new-key":
            order[data.draw(st.sampled_from(["hex", "with", "hq", "target", "is", "box", "units", "zz"]))] = data.draw(VALUES)
        elif op == "hex":
            for key, value in order.items():
                if isinstance(value, str) and re.search(r"\d{4}", value):
                    order[key] = re.sub(r"\d{4}", lambda _: data.draw(st.sampled_from(HEXES)), value, count=1)
                    break
        elif op == "unit":
            for key, value in order.items():
                if isinstance(value, str):
                    order[key] = re.sub(r"^[^:]*", data.draw(st.sampled_from(UNITS)), value, count=1)
                    break
        elif op == "standing":
            doc["standing"] = {data.draw(st.sampled_from(["advance", "retreat", "losses", "x"])): data.draw(VALUES)}
    return doc


@pytest.fixture(scope="module")
def ambon(tmp_path_factory):
    """The Ambon demo, with a loaded match before each of a few messages
    (for its author) and the orders the bot gave in them."""
    demo = ambon_game(tmp_path_factory)
    orders = {
        int(p.name[:4]): tomllib.loads(p.read_text()) for p in sorted((demo.root / "orders").glob("*.toml"))
    }
    matches = {}
    for seq in (2, 3, 8, 9, 12, 18):
        side = "japanese" if seq % 2 == 0 else "allied"
        name = "kenji" if side == "japanese" else "jack"
        prefix = tmp_path_factory.mktemp(f"ambon-before-{seq:04d}")
        for path in demo.messages(name)[:seq]:
            shutil.copy(path, prefix / path.name)
        matches[seq] = session.load(prefix, demo.identities[name])
    return demo, orders, matches


def try_ambon(match, document) -> None:
    game, side = match.game, match.player.side
    parsed, err = refused_or_done(lambda: game.parse_orders(document, side))
    if err is not None:
        # syntax (exit 2), or a rule the orders break on their face (exit 1: a 14.2 note naming no lane)
        assert isinstance(err, (InputError, IllegalOrderError)), err
        assert names_the_field(err, document), err
        return
    refused_or_done(lambda: session.compose(match, document))


@BUDGETS
def test_ambon_orders_never_crash(budget, ambon):
    _, _, matches = ambon

    @fuzz(budget, 60, 1500, st.sampled_from(sorted(matches)), ambon_orders())
    def check(seq, document):
        try_ambon(matches[seq], document)

    check()


@BUDGETS
def test_mutated_ambon_orders_never_crash(budget, ambon):
    _, orders, matches = ambon

    @fuzz(budget, 60, 1500, st.sampled_from(sorted(matches)), st.data())
    def check(seq, data):
        same_side = [s for s in orders if s % 2 == seq % 2 and s >= 2]
        source = data.draw(st.sampled_from(same_side), label="orders of message")
        try_ambon(matches[seq], mutate_orders(orders[source], data))

    check()


def test_the_bot_orders_compose_unmutated(ambon):
    """The fuzzers' starting points are valid: the bot's own orders compose."""
    _, orders, matches = ambon
    for seq, match in matches.items():
        session.compose(match, orders[seq])


# --------------------------------------------------------------------------- armoured messages


@pytest.fixture(scope="module")
def armour(tmp_path_factory):
    """Genuine armoured messages of the Ambon game and the verified prefix before each."""
    demo = ambon_game(tmp_path_factory)
    paths = demo.messages("kenji")
    texts = [p.read_text() for p in paths]
    messages = [SignedMessage.from_text(t) for t in texts]
    prefixes = []
    transcript = Transcript()
    for msg in messages:
        prefixes.append(list(transcript.messages))
        transcript.add(msg)
    return texts, messages, prefixes


def check_text(text: str | bytes, k: int | None, armour) -> None:
    """Read ``text`` as a turn file (as message ``k`` of the game, if given):
    the same message, or refused with a PbemError."""
    texts, messages, prefixes = armour
    found, err = refused_or_done(lambda: SignedMessage.all_from_text(text, source="fuzzed.pbem"))
    if err is not None:
        assert isinstance(err, VerificationError), err
        assert "fuzzed.pbem" in str(err), err
        return
    for msg in found:
        if k is not None and (msg.body_bytes, msg.signature) == (messages[k].body_bytes, messages[k].signature):
            continue  # what mail does to a text (quotes, CRLF...) is tolerated
        transcript = Transcript()
        _, err = refused_or_done(lambda transcript=transcript, msg=msg:
                                 [transcript.add(m) for m in (prefixes[k] if k is not None else []) + [msg]])
        assert err is not None, "a changed message was accepted"


def mutate_text(text: str, data: st.DataObject) -> str:
    for _ in range(data.draw(st.integers(1, 4), label="edits")):
        op = data.draw(st.sampled_from(["insert", "delete", "replace", "crlf", "quote", "dup-line", "drop-line", "wrap"]))
        lines = text.split("\n")
        i = data.draw(st.integers(0, max(0, len(text) - 1)), label="at")
        if op == "insert":
            text = text[:i] + data.draw(st.text(max_size=5)) + text[i:]
        elif op == "delete":
            text = text[:i] + text[i + data.draw(st.integers(1, 80)) :]
        elif op == "replace":
            text = text[:i] + data.draw(st.characters()) + text[i + 1 :]
        elif op == "crlf":
            text = text.replace("\n", data.draw(st.sampled_from(["\r\n", "\r", "\n\n", " \n"])))
        elif op == "quote":
            text = "\n".join(data.draw(st.sampled_from(["> ", ">", " > > ", ""])) + line for line in lines)
        elif op in ("dup-line", "drop-line"):
            j = data.draw(st.integers(0, len(lines) - 1), label="line")
            lines[j : j + 1] = [lines[j], lines[j]] if op == "dup-line" else []
            text = "\n".join(lines)
        else:  # re-wrap the base64 at another width
            width = data.draw(st.integers(1, 100), label="width")
            begin = text.find(BEGIN) + len(BEGIN)
            end = text.find(SIG_BEGIN)
            if BEGIN in text and begin < end:
                b64 = "".join(text[begin:end].split())
                text = text[:begin] + "\n" + "\n".join(b64[p : p + width] for p in range(0, len(b64), width)) + "\n" + text[end:]
    return text


ARMOUR_LINES = st.one_of(
    st.sampled_from([BEGIN, END, SIG_BEGIN, SIG_END, "", "AAAA", "====", "e30=", "> " + BEGIN]),
    st.from_regex(r"\A[A-Za-z0-9+/=]{0,70}\Z"),
    st.text(max_size=20),
)


@BUDGETS
def test_random_text_is_no_turn_file(budget, armour):
    @fuzz(budget, 150, 5000, st.one_of(st.text(), st.binary(), st.lists(ARMOUR_LINES, max_size=12).map("\n".join)))
    def check(text):
        check_text(text, None, armour)

    check()


@BUDGETS
def test_mutated_armour_is_the_same_message_or_refused(budget, armour):
    texts = armour[0]

    @fuzz(budget, 150, 5000, st.integers(0, len(texts) - 1), st.data())
    def check(k, data):
        check_text(mutate_text(texts[k], data), k, armour)

    check()


def test_fuzzed_files_through_the_cli(armour, tmp_path):
    """A few hostile files through `pbem verify`: exit 1 or 2, a message, no traceback."""
    texts = armour[0]
    samples = ["", "\x00\xff", BEGIN + "\n" + END + "\n", texts[3][: len(texts[3]) // 3], texts[5].replace("A", "B", 1),
               BEGIN + "\ne30=\n" + SIG_BEGIN + "\nAAAA\n" + SIG_END + "\n" + END + "\n"]
    for i, text in enumerate(samples):
        path = tmp_path / f"{i:04d}-x.pbem"
        path.write_text(text, errors="replace")
        result = CliRunner().invoke(main, ["verify", str(path)])
        assert result.exit_code in (1, 2), (text[:80], result.output)
        assert isinstance(result.exception, SystemExit), result.exception
        assert "Error:" in result.output and "Traceback" not in result.output


# --------------------------------------------------------------------------- data files


@pytest.fixture(scope="module")
def engine_data():
    """The engine test game's data files: text and parsed TOML."""
    texts = {name: (ENGINE_DATA / name).read_text() for name in DATA_FILES}
    return texts, {name: tomllib.loads(text) for name, text in texts.items()}


def mutate_data(document: Any, data: st.DataObject) -> Any:
    """Change one value somewhere in a parsed TOML document (replace, delete or add)."""
    doc = json.loads(json.dumps(document))
    node, depth = doc, 0
    while isinstance(node, (dict, list)) and node and depth < 6:
        keys = sorted(node) if isinstance(node, dict) else list(range(len(node)))
        key = data.draw(st.sampled_from(keys), label="path")
        child = node[key]
        if not isinstance(child, (dict, list)) or not child or data.draw(st.booleans(), label="stop here"):
            op = data.draw(st.sampled_from(["replace", "delete", "add"]), label="op")
            if op == "replace":
                node[key] = data.draw(VALUES, label="value")
            elif op == "delete":
                del node[key]
            elif isinstance(node, dict):
                node[data.draw(KEYS, label="new key")] = data.draw(VALUES, label="value")
            else:
                node.append(data.draw(VALUES, label="value"))
            break
        node, depth = child, depth + 1
    return doc


def mutate_toml_text(text: str, data: st.DataObject) -> str:
    lines = text.split("\n")
    for _ in range(data.draw(st.integers(1, 3), label="edits")):
        j = data.draw(st.integers(0, len(lines) - 1), label="line")
        op = data.draw(st.sampled_from(["delete", "duplicate", "replace-token", "insert", "swap"]), label="op")
        if op == "delete":
            lines.pop(j)
        elif op == "duplicate":
            lines.insert(j, lines[j])
        elif op == "insert":
            lines.insert(j, data.draw(st.text(max_size=30), label="line text"))
        elif op == "swap":
            k = data.draw(st.integers(0, len(lines) - 1))
            lines[j], lines[k] = lines[k], lines[j]
        else:
            tokens = re.findall(r'"[^"]*"|[-\w.#]+', lines[j])
            if tokens:
                old = data.draw(st.sampled_from(tokens), label="token")
                new = data.draw(st.one_of(st.sampled_from(['"1609"', "0.25", "-1", "true", '"P"', '""', "[]", "{}", "x"]), st.text(max_size=6)))
                lines[j] = lines[j].replace(old, new, 1)
        if not lines:
            lines = [""]
    return "\n".join(lines)


def load_mutated(files: dict[str, str]) -> tuple[DataSet | None, PbemError | None]:
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in files.items():
            Path(tmp, name).write_text(text, encoding="utf-8", errors="surrogatepass")
        return refused_or_done(lambda: load_dataset(tmp))


def data_error_is_precise(err: PbemError, changed: str) -> None:
    """A DataError naming a data file: the one changed, or another that no
    longer agrees with it (a terrain added to the map has no cost in the charts)."""
    assert isinstance(err, DataError) and err.exit_code == 2, err
    assert any(name in str(err) for name in DATA_FILES), f"the error names no data file: {err}"
    if err.field:
        assert err.field in str(err), err


@BUDGETS
def test_mutated_data_values_load_or_name_the_fault(budget, engine_data):
    texts, docs = engine_data

    @fuzz(budget, 120, 3000, st.sampled_from(DATA_FILES), st.data())
    def check(name, data):
        files = dict(texts)
        files[name] = toml_dumps(mutate_data(docs[name], data))
        _, err = load_mutated(files)
        if err is not None:
            data_error_is_precise(err, name)

    check()


@BUDGETS
def test_mutated_data_text_loads_or_names_the_fault(budget, engine_data):
    texts, _ = engine_data

    @fuzz(budget, 120, 3000, st.sampled_from(DATA_FILES), st.data())
    def check(name, data):
        files = dict(texts)
        files[name] = mutate_toml_text(texts[name], data)
        _, err = load_mutated(files)
        if err is not None:
            data_error_is_precise(err, name)

    check()


def test_unmutated_data_loads(engine_data):
    dataset, err = load_mutated(engine_data[0])
    assert err is None and dataset.map.name == "Test Strip"


@pytest.mark.parametrize(
    "name, old, new, needles",
    [
        ("map.toml", 'layout = "odd-q"', 'layout = "odd"', ["map.toml", "map.layout", "unknown layout 'odd'"]),
        ("counters.toml", 'type = "armour"', 'type = "tank"', ["counters.toml", "units[1].type", "'tank'"]),
        ("charts.toml", "forest = 2", "forest = 2.25", ["charts.toml", "terrain_costs.forest", "2.25"]),
        ("charts.toml", "clamp = true", 'clamp = "yes"', ["charts.toml", "tables.crt.clamp"]),
        ("map.toml", 'forest = ["0303"', 'forest = [303', ["map.toml", "hexes.forest[0]"]),
    ],
)
def test_cli_adjudicate_with_broken_data_exits_2_naming_the_field(tmp_path, name, old, new, needles):
    data = tmp_path / "data"
    shutil.copytree(ENGINE_DATA, data)
    text = (data / name).read_text()
    assert old in text
    (data / name).write_text(text.replace(old, new, 1))
    orders = tmp_path / "orders.toml"
    orders.write_text('[[order]]\nmove = "R1: 0202 0302"\n')
    result = CliRunner().invoke(
        main,
        ["adjudicate", "--game", "engine_game.game:GAME", "--data", str(data),
         "--scenario", str(ENGINE_DATA / "scenario.toml"), "--orders", str(orders)],
    )
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit)
    for needle in needles:
        assert needle in result.output, result.output


# --------------------------------------------------------------------------- orders files through the CLI


@pytest.fixture
def cli_game(tmp_path):
    """A dice game at the command line, ann to move (message 0002)."""
    from conftest import Player, last_line

    a = Player("ann", tmp_path / "home-ann", tmp_path / "ann")
    b = Player("bob", tmp_path / "home-bob", tmp_path / "bob")
    for p in (a, b):
        assert p.run("key", "new", "--name", p.name, "--no-passphrase").exit_code == 0
    r = a.run("new", a.game, "--game", "dice", "--as", "first", "--opponent", b.pub())
    r = b.run("join", last_line(r.output), "--dir", b.game)
    assert a.run("receive", a.game, last_line(r.output)).exit_code == 0
    return a


def test_fuzzed_orders_files_through_the_cli(cli_game, tmp_path):
    """Drawn orders documents, written as TOML, through `pbem play`: exit
    0, or 1 (a rule) or 2 (input, naming the field), never a traceback; a
    refused play writes nothing."""
    player = cli_game
    outcomes = set()

    @settings(max_examples=12, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(dice_orders())
    def check(document):
        path = tmp_path / "orders.toml"
        path.write_text(toml_dumps(document))
        before = sorted(player.game.iterdir())
        result = CliRunner().invoke(main, ["play", str(player.game), "--orders", str(path)],
                                    env={"PBEM_HOME": str(player.home), "COLUMNS": "200"})
        outcomes.add(result.exit_code)
        if result.exit_code == 0:
            for new in set(player.game.iterdir()) - set(before):
                new.unlink()  # back to message 0002 for the next example
            return
        assert result.exit_code in (1, 2) and isinstance(result.exception, SystemExit), result.output
        assert sorted(player.game.iterdir()) == before
        if result.exit_code == 2:
            assert re.search(r"order|standing|dice|slot|text|note|type", result.output), result.output

    check()
    assert 2 in outcomes


# --------------------------------------------------------------------------- inputs that once crashed


def ambon_scenario(doc):
    from pbem.engine import registry

    return registry.get("ambon").scenario_state(doc)


@pytest.mark.parametrize("value", [[], {}], ids=["array", "table"])
def test_a_dice_order_type_that_is_not_a_string(dice_match, value):
    """``[[order]]`` with ``type = []`` (or ``type = {}``) once crashed with
    ``TypeError: unhashable type`` (a traceback from `pbem play --orders`):
    an input error naming the order and the field."""
    with pytest.raises(InputError, match="order 1") as caught:
        dice_match.game.parse_orders({"order": [{"type": value}]}, "first")
    assert caught.value.field == "type" and caught.value.exit_code == 2


def test_a_bad_second_wave_note_names_the_order(ambon):
    """``[[order]] second_wave = ""`` once said only "14.2: the note must
    name two battalions and two different beaches: ''": the error names the
    order and the field."""
    _, _, matches = ambon
    with pytest.raises((InputError, IllegalOrderError)) as caught:
        matches[2].game.parse_orders({"order": [{"second_wave": ""}]}, "japanese")
    assert caught.value.field == "second_wave" and "order 1" in str(caught.value)


@pytest.mark.parametrize(
    "doc",
    [
        pytest.param({"positions": {"3.A": 1410}}, id="position-not-a-string:TypeError"),
        pytest.param({"positions": ["3.A"]}, id="positions-not-a-table:AttributeError"),
        pytest.param({"disrupted": ["nope"]}, id="unknown-disrupted-unit:KeyError"),
        pytest.param({"turn": "two"}, id="turn-not-a-number:ValueError"),
        pytest.param({"control": {"1809": "x"}}, id="control-turn-not-a-number:ValueError"),
        pytest.param({"penalties": {"nope": "-2mp"}}, id="penalty-of-unknown-unit:KeyError"),
    ],
)
def test_malformed_ambon_scenarios_are_input_errors(doc):
    """Each of these once crashed ``scenario_state`` (`pbem adjudicate
    --scenario`) with the exception in its id: an input error naming the table."""
    with pytest.raises(InputError) as caught:
        ambon_scenario(doc)
    assert caught.value.field and caught.value.field.split(".")[0] in str(caught.value), caught.value


SCENARIO_KEYS = ["turn", "phase", "options", "disrupted", "beachheads", "positions", "concealed", "secret",
                 "mines", "penalties", "control", "revealed"]


@BUDGETS
def test_ambon_scenarios_never_crash(budget):
    pieces = st.sampled_from(["3.A", "Kure-1", "AUS-HQ", "X1", "X5", "M1", "nope"])
    where = st.one_of(st.sampled_from(["1410", "0713", "fw-laha", "eliminated", "9999", "x", ""]), VALUES)
    table = st.one_of(st.dictionaries(pieces, where, max_size=3), VALUES)
    doc = st.fixed_dictionaries({}, optional={k: table for k in SCENARIO_KEYS})

    @fuzz(budget, 100, 2000, doc)
    def check(document):
        _, err = refused_or_done(lambda: ambon_scenario(document))
        if err is not None:
            assert isinstance(err, InputError), err

    check()


def test_cli_adjudicate_with_a_malformed_scenario_exits_2(tmp_path):
    scenario = tmp_path / "scenario.toml"
    scenario.write_text('phase = "japanese-movement"\n[positions]\n"3.A" = 1410\n')
    orders = tmp_path / "orders.toml"
    orders.write_text("")
    result = CliRunner().invoke(
        main, ["adjudicate", "--game", "ambon", "--scenario", str(scenario), "--orders", str(orders)]
    )
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), repr(result.exception)
    assert "positions" in result.output
