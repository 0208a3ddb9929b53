"""Rules test cases as data (after godip/DATC): every file
``tests/cases/<game>/<id>.toml`` is one case -- a position, the orders of one
side and the dice, and the result the rulebook demands -- run by this one
harness through the referee path ``pbem adjudicate`` uses
(``game.scenario_state`` + ``pbem.engine.referee.adjudicate``).

The schema is documented in ``tests/cases/README.md``.  A malformed case file
fails with a message naming the file and the key.  To see what a case does::

    python tests/test_rule_cases.py tests/cases/ambon/ambon-11.3-retreat-into-ezoc.toml
"""

from __future__ import annotations

import dataclasses
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import pytest

from pbem.engine import registry
from pbem.util import tomlfile
from pbem.engine import referee
from pbem.errors import InputError, PbemError

CASES = Path(__file__).parent / "cases"
RULEBOOKS = Path(__file__).parent.parent.parent / "shared" / "seeds"  # absent in CI: that test skips
RULEBOOK = {"ambon": "ambon-rulebook.txt", "calumpit": "calumpit-bridge.txt"}
PRELUDE_SEQ, ORDERS_SEQ = 1, 2  # the other side's standing instructions come in an earlier message


class CaseError(Exception):
    """A malformed case file; the message names the file and the key."""


@dataclass(frozen=True)
class Case:
    path: Path
    game: str
    id: str
    rule: str
    title: str
    source: str
    side: str | None
    dice: tuple[int, ...]
    xfail: str
    end_message: bool
    position: Mapping[str, Any]
    orders: Mapping[str, Any]
    standing: Mapping[str, Mapping[str, Any]]
    expect: Mapping[str, Any]


# --------------------------------------------------------------------------- the schema

STR, INT, BOOL, TABLE = "a string", "a whole number", "true or false", "a table"
STRS, INTS = "a list of strings", "a list of whole numbers"
CASE_KEYS = {"id": STR, "rule": STR, "title": STR, "source": STR, "side": STR, "dice": INTS, "xfail": STR,
             "end_message": BOOL}
CASE_REQUIRED = ("id", "rule", "title", "source")
TOP_KEYS = {"case": TABLE, "position": TABLE, "orders": TABLE, "standing": TABLE, "expect": TABLE}
TOP_REQUIRED = ("case", "position", "expect")
EXPECT_KEYS = {"events": STRS, "no_events": STRS, "positions": TABLE, "disrupted": STRS, "eliminated": STRS,
               "control": TABLE, "units": TABLE, "view": TABLE, "error": STR, "error_rule": STR}


def _kind_ok(value: Any, kind: str) -> bool:
    if kind == STR:
        return isinstance(value, str)
    if kind == INT:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == BOOL:
        return isinstance(value, bool)
    if kind == TABLE:
        return isinstance(value, dict)
    if kind == STRS:
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if kind == INTS:
        return isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    raise AssertionError(kind)


def _check_table(path: Path, where: str, table: Mapping[str, Any], kinds: Mapping[str, str],
                 required: tuple[str, ...] = ()) -> None:
    label = f"[{where}]" if where else "the file"
    for key in table:
        if key not in kinds:
            name = f"{where}.{key}" if where else f"[{key}]"
            raise CaseError(f"{path}: {name}: unknown key (known in {label}: {', '.join(kinds)})")
    for key in required:
        if key not in table:
            name = f"{where}.{key}" if where else f"[{key}]"
            raise CaseError(f"{path}: {name}: missing (required in {label})")
    for key, value in table.items():
        if not _kind_ok(value, kinds[key]):
            name = f"{where}.{key}" if where else f"[{key}]"
            raise CaseError(f"{path}: {name} must be {kinds[key]}, got {value!r}")


def rule_slug(rule: str) -> str:
    """``"11.3"`` -> ``"11.3"``; ``"DIRECT FIRE"`` -> ``"direct-fire"``: how a case id cites its rule."""
    return re.sub(r"[^a-z0-9.]+", "-", rule.lower()).strip("-")


def load_case(path: Path) -> Case:
    """Read and check one case file (everything that needs no game)."""
    try:
        doc = tomlfile.read(path)
    except InputError as err:
        raise CaseError(str(err)) from err
    _check_table(path, "", doc, TOP_KEYS, TOP_REQUIRED)
    case = doc["case"]
    _check_table(path, "case", case, CASE_KEYS, CASE_REQUIRED)
    game = path.parent.name
    if not case["id"] == path.stem:
        raise CaseError(f"{path}: case.id {case['id']!r} must be the file's name ({path.stem!r})")
    prefix = f"{game}-{rule_slug(case['rule'])}-"
    if not case["id"].startswith(prefix) or len(case["id"]) == len(prefix):
        raise CaseError(f"{path}: case.id {case['id']!r} must cite its game and rule: {prefix}<what it checks>")
    if "xfail" in case and not case["xfail"].strip():
        raise CaseError(f"{path}: case.xfail must give the reason (the pbem bug)")
    for side, table in doc.get("standing", {}).items():
        if not isinstance(table, dict):
            raise CaseError(f"{path}: standing.{side} must be a table of standing instructions")
    expect = doc["expect"]
    _check_table(path, "expect", expect, EXPECT_KEYS)
    if not expect:
        raise CaseError(f"{path}: [expect] is empty: a case must expect something")
    if "error_rule" in expect and "error" not in expect:
        raise CaseError(f"{path}: expect.error_rule needs expect.error (the message the refusal must contain)")
    if "error" in expect:
        others = sorted(set(expect) - {"error", "error_rule"})
        if others:
            raise CaseError(f"{path}: expect.{others[0]}: a case whose orders are refused (expect.error) "
                            "expects nothing else")
    for key in ("positions", "control"):
        for name, value in expect.get(key, {}).items():
            if not isinstance(value, str):
                raise CaseError(f"{path}: expect.{key}.{name} must be a string, got {value!r}")
    for name, value in expect.get("control", {}).items():
        if value not in ("japanese", "allied"):
            raise CaseError(f"{path}: expect.control.{name} must be \"japanese\" or \"allied\", got {value!r}")
    for uid, fields in expect.get("units", {}).items():
        if not isinstance(fields, dict):
            raise CaseError(f"{path}: expect.units.{uid} must be a table of the unit's fields")
    return Case(
        path=path, game=game, id=case["id"], rule=case["rule"], title=case["title"], source=case["source"],
        side=case.get("side"), dice=tuple(case.get("dice", [])), xfail=case.get("xfail", ""),
        end_message=case.get("end_message", True), position=doc["position"], orders=doc.get("orders", {}),
        standing=doc.get("standing", {}), expect=expect,
    )


# --------------------------------------------------------------------------- running a case


@dataclass
class Outcome:
    events: list[str] = field(default_factory=list)  # the event sentences, "[rule] text"
    view: dict[str, Any] = field(default_factory=dict)  # the spectator view after the orders
    error: PbemError | None = None


def game_of(case: Case) -> Any:
    try:
        return registry.get(case.game)
    except InputError as err:
        raise CaseError(f"{case.path}: the directory {case.game!r} names no game: {err}") from err


def run_case(case: Case) -> Outcome:
    """The position, the other side's standing instructions, the orders and
    the dice, as ``pbem adjudicate`` would apply them."""
    game = game_of(case)
    try:
        state = game.scenario_state(case.position)
    except InputError as err:
        raise CaseError(f"{case.path}: [position]: {err}") from err
    secrets = game.scenario_secrets(case.position) if hasattr(game, "scenario_secrets") else {}
    side = case.side
    if side is None:
        if not hasattr(game, "active_side"):
            raise CaseError(f"{case.path}: case.side: missing (the {game.name} game has no side to act by default)")
        side = game.active_side(state)
    for who in [side, *case.standing]:
        if who not in game.sides:
            key = "case.side" if who == side else f"standing.{who}"
            raise CaseError(f"{case.path}: {key}: {who!r} is not a side of {game.name} ({', '.join(game.sides)})")
    for who, table in case.standing.items():  # an earlier message of that side that only set standing instructions
        try:
            state = referee.adjudicate(game, state, who, {"standing": dict(table)}, [], seq=PRELUDE_SEQ,
                                       end_turn=False, secrets=secrets).state
        except PbemError as err:
            raise CaseError(f"{case.path}: standing.{who}: {err}") from err
    outcome = Outcome()
    try:
        result = referee.adjudicate(game, state, side, case.orders, list(case.dice), seq=ORDERS_SEQ,
                                    end_turn=case.end_message, secrets=secrets)
    except PbemError as err:
        outcome.error = err
        return outcome
    outcome.events = [e.sentence() for e in result.events]
    outcome.view = game.view(result.state, None)
    return outcome


# --------------------------------------------------------------------------- checking [expect]


def _units(view: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    return {u["id"]: u for u in view.get("units", [])}


def _where(view: Mapping[str, Any], uid: str) -> str:
    """A unit's hex or box; "eliminated"; "" when it is not in play (removed from the game)."""
    unit = _units(view).get(uid)
    if unit is not None and "where" in unit:
        return unit["where"]
    return "eliminated" if uid in view.get("eliminated", ()) else ""


def _subset(expected: Any, actual: Any, where: str) -> list[str]:
    """Where ``actual`` differs from ``expected``: tables key by key (keys not
    given are not checked), lists of tables with ids by id (the same ids,
    each table checked key by key), anything else by equality."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{where}: expected a table, got {actual!r}"]
        out = []
        for k, v in expected.items():
            out += _subset(v, actual[k], f"{where}.{k}") if k in actual else [f"{where}.{k}: absent"]
        return out
    if isinstance(expected, list) and expected and all(isinstance(e, dict) and "id" in e for e in expected):
        by_id = {a.get("id"): a for a in actual if isinstance(a, dict)} if isinstance(actual, list) else {}
        extra = sorted(set(by_id) - {e["id"] for e in expected}, key=str)
        out = [f"{where}: {', '.join(map(str, extra))} not expected"] if extra else []
        for e in expected:
            out += (_subset(e, by_id[e["id"]], f"{where}[{e['id']}]") if e["id"] in by_id
                    else [f"{where}[{e['id']}]: absent"])
        return out
    return [] if expected == actual else [f"{where}: expected {expected!r}, got {actual!r}"]


def check(case: Case, outcome: Outcome) -> list[str]:
    """Every way the outcome differs from the case's [expect] (empty: it holds)."""
    expect = case.expect
    if "error" in expect:
        err = outcome.error
        if err is None:
            return [f"expect.error: the orders were accepted; expected a refusal containing {expect['error']!r}"]
        faults = []
        if expect["error"] not in str(err):
            faults.append(f"expect.error: {expect['error']!r} is not in the refusal {str(err)!r}")
        if "error_rule" in expect and err.rule != expect["error_rule"]:
            faults.append(f"expect.error_rule: the refusal cites {err.rule!r}, not {expect['error_rule']!r} ({err})")
        return faults
    if outcome.error is not None:
        return [f"the orders were refused: {type(outcome.error).__name__}: {outcome.error}"]
    faults: list[str] = []
    events, view = outcome.events, outcome.view
    at, offset = 0, 0
    for wanted in expect.get("events", []):
        for i in range(at, len(events)):
            j = events[i].find(wanted, offset if i == at else 0)
            if j >= 0:
                at, offset = i, j + len(wanted)
                break
        else:
            faults.append(f"expect.events: {wanted!r} is not among the event sentences"
                          + (" after the ones before it" if at or offset else ""))
    for unwanted in expect.get("no_events", []):
        hit = next((e for e in events if unwanted in e), None)
        if hit is not None:
            faults.append(f"expect.no_events: {unwanted!r} happened: {hit!r}")
    for uid, hexlabel in expect.get("positions", {}).items():
        where = _where(view, uid)
        if where != hexlabel:
            faults.append(f"expect.positions.{uid}: expected {hexlabel!r}, it is in {where or 'no hex (not in play)'!r}")
    if "disrupted" in expect:
        actual = sorted(uid for uid, u in _units(view).items() if u.get("flipped"))
        if actual != sorted(expect["disrupted"]):
            faults.append(f"expect.disrupted: expected exactly {sorted(expect['disrupted'])}, disrupted: {actual}")
    if "eliminated" in expect:
        actual = sorted(view.get("eliminated", []))
        if actual != sorted(expect["eliminated"]):
            faults.append(f"expect.eliminated: expected exactly {sorted(expect['eliminated'])}, eliminated: {actual}")
    held = {c["hex"] for c in view.get("control", [])}
    for hexlabel, who in expect.get("control", {}).items():
        actual = "japanese" if hexlabel in held else "allied"
        if actual != who:
            faults.append(f"expect.control.{hexlabel}: expected {who}, held by the {actual} side")
    units = _units(view)
    for uid, fields in expect.get("units", {}).items():
        if uid not in units:
            faults.append(f"expect.units.{uid}: no such unit in the view (units: {', '.join(units)})")
            continue
        faults += _subset(fields, units[uid], f"expect.units.{uid}")
    faults += _subset(expect.get("view", {}), view, "expect.view")
    return faults


# --------------------------------------------------------------------------- the tests


def case_files() -> list[Path]:
    return sorted(CASES.glob("*/*.toml"))


def _params() -> list[Any]:
    params = []
    for path in case_files():
        try:
            case = load_case(path)
        except CaseError as err:
            params.append(pytest.param(path, err, id=f"{path.parent.name}/{path.stem}"))
        else:
            params.append(pytest.param(path, None, id=case.id))
    return params


@pytest.mark.parametrize("path, malformed", _params())
def test_rule_case(path: Path, malformed: CaseError | None) -> None:
    if malformed is not None:
        pytest.fail(str(malformed), pytrace=False)
    case = load_case(path)
    outcome = run_case(case)  # CaseError (a malformed position, standing or side) fails even under xfail
    faults = check(case, outcome)
    if case.xfail:
        if faults:
            pytest.xfail(f"{case.xfail} -- {faults[0]}")
        pytest.fail(f"{case.id} passes although marked xfail ({case.xfail}): remove case.xfail", pytrace=False)
    if faults:
        shown = "\n  ".join(outcome.events) or "(none)"
        pytest.fail(f"{case.path.relative_to(CASES.parent)} ({case.rule}: {case.title}):\n- " + "\n- ".join(faults)
                    + f"\nevents:\n  {shown}", pytrace=False)


def test_there_are_cases_for_each_game() -> None:
    found = {p.parent.name for p in case_files()}
    assert {"ambon", "calumpit"} <= found


def test_case_ids_are_unique() -> None:
    seen: dict[str, Path] = {}
    for path in case_files():
        case_id = tomlfile.read(path).get("case", {}).get("id", path.stem)
        assert case_id not in seen, f"case id {case_id!r} is used by {seen.get(case_id)} and {path}"
        seen[case_id] = path


def _normal(text: str) -> str:
    return " ".join(text.replace("\u2013", "-").replace("\u2014", "-").split()).lower()


@pytest.mark.parametrize("game", sorted(RULEBOOK))
def test_every_case_cites_a_rule_of_the_rulebook_and_quotes_it(game: str) -> None:
    """The rule is a heading of the rulebook text (a line starting with it;
    hyphens and spaces alike), and the source is quoted from it (each fragment
    between "..." occurs, whitespace and case aside)."""
    book = RULEBOOKS / RULEBOOK[game]
    if not book.exists():
        pytest.skip(f"{book} is not here (the rulebook texts are not shipped)")
    text = book.read_text(encoding="utf-8")
    flat = _normal(re.sub(r"(?m)^\s*-\s+", "", text))  # list bullets are not part of the sentences
    faults = []
    for path in sorted((CASES / game).glob("*.toml")):
        case = load_case(path)
        heading = r"[-\s]".join(re.escape(word) for word in re.split(r"[-\s]+", case.rule))  # HAND-TO-HAND: "Hand to hand:"
        if not re.search(rf"(?im)^{heading}(?=[\s:]|$)", text):
            faults.append(f"{path.name}: rule {case.rule!r} is not a heading of {book.name}")
        for fragment in re.split(r"\.\.\.|\u2026|\[\.\.\.\]", case.source):
            fragment = _normal(fragment).strip(" \"'")
            if len(fragment) >= 8 and fragment not in flat:
                faults.append(f"{path.name}: case.source quotes {fragment!r}, which is not in {book.name}")
    assert not faults, "\n".join(faults)


# -- the harness itself: a malformed case names its file and key


@pytest.mark.parametrize("text, key", [
    ('[position]\n[expect]\nevents = ["x"]\n', "[case]"),
    ('[case]\nid = "ambon-7.0-x"\nrule = "7.0"\ntitle = "t"\n[position]\n[expect]\nevents = ["x"]\n', "case.source"),
    ('[case]\nid = "ambon-7.0-x"\nrule = "7.0"\ntitle = "t"\nsource = "s"\ndice = [1, "2"]\n[position]\n'
     '[expect]\nevents = ["x"]\n', "case.dice"),
    ('[case]\nid = "ambon-7.0-x"\nrule = "7.0"\ntitle = "t"\nsource = "s"\n[position]\n[expect]\nevent = ["x"]\n',
     "expect.event"),
    ('[case]\nid = "ambon-7.0-x"\nrule = "7.0"\ntitle = "t"\nsource = "s"\n[position]\n[expect]\n', "[expect]"),
    ('[case]\nid = "ambon-8.0-x"\nrule = "7.0"\ntitle = "t"\nsource = "s"\n[position]\n[expect]\nevents = ["x"]\n',
     "case.id"),
    ('[case]\nid = "ambon-7.0-x"\nrule = "7.0"\ntitle = "t"\nsource = "s"\n[position]\n[expect]\nerror = "e"\n'
     'events = ["x"]\n', "expect.events"),
    ('[case]\nid = "ambon-7.0-x"\nrule = "7.0"\ntitle = "t"\nsource = "s"\n[position]\n[expect]\n'
     'control = { "1809" = "dutch" }\n', "expect.control.1809"),
    ('[case\n', "not valid TOML"),
])
def test_a_malformed_case_names_the_file_and_the_key(tmp_path: Path, text: str, key: str) -> None:
    path = tmp_path / "ambon" / "ambon-7.0-x.toml"
    path.parent.mkdir()
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CaseError) as err:
        load_case(path)
    assert str(path) in str(err.value) and key in str(err.value)


@pytest.mark.parametrize("extra, key", [
    ('[position]\nturn = 3\nfrontline = 1\n', "[position]: scenario: unknown key(s) frontline"),
    ('[position]\n[standing.dutch]\nadvance = "always"\n', "standing.dutch"),
    ('[position]\n[standing.allied]\nadvance = "sometimes"\n', "standing.allied: standing.advance"),
])
def test_a_malformed_position_or_standing_names_the_file_and_the_key(tmp_path: Path, extra: str, key: str) -> None:
    path = tmp_path / "ambon" / "ambon-7.0-x.toml"
    path.parent.mkdir()
    path.write_text('[case]\nid = "ambon-7.0-x"\nrule = "7.0"\ntitle = "t"\nsource = "s"\n' + extra
                    + '[expect]\nevents = ["x"]\n', encoding="utf-8")
    with pytest.raises(CaseError) as err:
        run_case(load_case(path))
    assert str(path) in str(err.value) and key in str(err.value)


def test_events_are_matched_in_order() -> None:
    case = Case(Path("x.toml"), "ambon", "ambon-7.0-x", "7.0", "", "", None, (), "", True, {}, {}, {},
                {"events": ["b", "a"]})
    assert check(case, Outcome(events=["a", "b"])) != []
    assert check(case, Outcome(events=["a", "b", "a"])) == []
    assert check(dataclasses.replace(case, expect={"events": ["a 1", "b"]}), Outcome(events=["a 1 b"])) == []


MOVE_CASE = """[case]
id = "ambon-7.0-x"
rule = "7.0"
title = "t"
source = "s"
side = "japanese"
{xfail}
[position]
turn = 2
phase = "japanese-movement"
positions = {{ "3.A" = "1309" }}
[orders]
[[orders.order]]
move = "3.A: 1309 1409"
[expect]
events = ["{event}"]
"""


@pytest.mark.parametrize("event, raises", [
    ("3.A moves 1309 1409 for 0.5 MP", pytest.fail.Exception),  # it passes: the xfail must go
    ("3.A moves 1309 1409 for 9 MP", pytest.xfail.Exception),  # still wrong: an expected failure
])
def test_an_xfail_case_fails_when_it_passes(tmp_path: Path, event: str, raises: type[BaseException]) -> None:
    path = tmp_path / "ambon" / "ambon-7.0-x.toml"
    path.parent.mkdir()
    path.write_text(MOVE_CASE.format(xfail='xfail = "a pbem bug"', event=event), encoding="utf-8")
    with pytest.raises(raises):
        test_rule_case(path, None)


if __name__ == "__main__":  # print what a case does: its events, its expectation's faults
    for name in sys.argv[1:]:
        one = load_case(Path(name))
        got = run_case(one)
        print(f"== {one.id} ({one.rule}): {one.title}")
        print("\n".join(got.events) if got.error is None else f"refused: {type(got.error).__name__}: {got.error}")
        for fault in check(one, got):
            print("FAULT", fault)
