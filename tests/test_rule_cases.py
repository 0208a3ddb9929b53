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

import copy
import dataclasses
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import pytest

from pbem.engine import registry
from pbem.util import tomlfile
from pbem.engine import referee
from pbem.engine.machine import DecisionDue, illegal
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
STRS, INTS, TABLES = "a list of strings", "a list of whole numbers", "a list of tables"
CASE_KEYS = {"id": STR, "rule": STR, "title": STR, "source": STR, "side": STR, "dice": INTS, "xfail": STR,
             "end_message": BOOL}
CASE_REQUIRED = ("id", "rule", "title", "source")
TOP_KEYS = {"case": TABLE, "position": TABLE, "orders": TABLE, "standing": TABLE, "expect": TABLE}
TOP_REQUIRED = ("case", "position", "expect")
# what the position after the orders must be (also checked after a refusal: the position as it stands)
POSITION_KEYS = {"positions": TABLE, "board": TABLE, "disrupted": STRS, "eliminated": STRS, "oos": STRS,
                 "mines": TABLE, "control": TABLE, "units": TABLE, "phase": STR, "turn": INT, "to_act": STR,
                 "vp": INT, "vp_change": INT, "decisions": TABLES, "view": TABLE}
EXPECT_KEYS = {"events": STRS, "no_events": STRS, "event_data": TABLES, "no_event_data": TABLES, **POSITION_KEYS,
               "error": STR, "error_rule": STR, "unchanged": BOOL}
WORDING = ("events", "no_events", "error")  # the sentences: a case needs at least one key beyond these


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
    if kind == TABLES:
        return isinstance(value, list) and all(isinstance(v, dict) for v in value)
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
        others = sorted(set(expect) - {"error", "error_rule", "unchanged", *POSITION_KEYS})
        if others:
            raise CaseError(f"{path}: expect.{others[0]}: a case whose orders are refused (expect.error) "
                            "expects no events, only the refusal and the position as it stands")
    elif "unchanged" in expect:
        raise CaseError(f"{path}: expect.unchanged needs expect.error "
                        "(only refused orders leave the position as it was)")
    if expect.get("unchanged") is False:
        raise CaseError(f"{path}: expect.unchanged = false expects nothing: leave it out")
    for key in ("event_data", "no_event_data"):
        for i, wanted in enumerate(expect.get(key, [])):
            if not isinstance(wanted.get("rule"), str):
                raise CaseError(f"{path}: expect.{key}[{i}].rule: missing (the rule the event cites, its kind), "
                                f"got {wanted!r}")
    for i, wanted in enumerate(expect.get("decisions", [])):
        unknown = sorted(set(wanted) - {"side", "kind", "rule", "options"})
        if unknown:
            raise CaseError(f"{path}: expect.decisions[{i}].{unknown[0]}: unknown key "
                            "(known: side, kind, rule, options)")
    for key in ("positions", "board", "mines", "control"):
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
    view: dict[str, Any] = field(default_factory=dict)  # the spectator view after the orders (or the refusal)
    error: PbemError | None = None
    data: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # each event's rule (its kind) and data
    to_act: str = ""  # the game's active_side of the position after the orders
    decisions: list[dict[str, Any]] = field(default_factory=list)  # the decisions it waits for (DecisionDue)
    changed: str = ""  # after a refusal: what of the position changed all the same ("" = nothing)
    vp_before: Any = None  # the view's VP of the position the orders met


def plain(value: Any) -> Any:
    """An event's data as TOML would write it: tuples as lists, mappings as dicts."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def _position(game: Any, state: Any, outcome: Outcome) -> None:
    outcome.view = game.view(state, None)
    outcome.to_act = game.active_side(state) if hasattr(game, "active_side") else ""
    outcome.decisions = [
        {"side": d.side, "kind": d.kind, "rule": d.rule, "options": list(d.options)}
        for d in game.awaiting(state) if isinstance(d, DecisionDue)
    ]


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
    kept, shown = copy.deepcopy(state), game.view(state, None)
    outcome.vp_before = shown.get("vp")
    try:
        result = referee.adjudicate(game, state, side, case.orders, list(case.dice), seq=ORDERS_SEQ,
                                    end_turn=case.end_message, secrets=secrets)
    except PbemError as err:  # refused: the position is the one the orders met, and must not have changed
        outcome.error = err
        _position(game, state, outcome)
        if state != kept:
            outcome.changed = "the state the orders were applied to was altered in place"
        elif outcome.view != shown:
            outcome.changed = "the spectator view of the position differs from before the orders"
        return outcome
    outcome.events = [e.sentence() for e in result.events]
    outcome.data = [(e.rule, plain(e.data)) for e in result.events]
    _position(game, result.state, outcome)
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


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _data_faults(expected: Any, actual: Any, where: str) -> list[str]:
    """Where an event's data differs from the expected fields: tables key by
    key (fields not given are not checked), lists of tables element by
    element (as many, in order), anything else by equality."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{where}: expected a table, got {_shown(actual)}"]
        out = []
        for k, v in expected.items():
            name = f"{where}.{k}" if where else k
            out += (_data_faults(v, actual[k], name) if k in actual
                    else [f"{name}: absent (the event has {', '.join(actual) or 'no data'})"])
        return out
    if isinstance(expected, list) and expected and all(isinstance(e, dict) for e in expected):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return [f"{where}: expected {len(expected)} table(s) {_shown(expected)}, got {_shown(actual)}"]
        pairs = enumerate(zip(expected, actual, strict=True))
        return [f for i, (e, a) in pairs for f in _data_faults(e, a, f"{where}[{i}]")]
    return [] if expected == actual else [f"{where}: expected {_shown(expected)}, got {_shown(actual)}"]


def _event_data_faults(wanted: list[dict[str, Any]], data: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """expect.event_data: each table is matched, in order, against the first
    later event citing its ``rule`` whose data holds every other field."""
    faults, at = [], 0
    for n, table in enumerate(wanted):
        rule, fields = table["rule"], {k: v for k, v in table.items() if k != "rule"}
        tried = []
        for i in range(at, len(data)):
            if data[i][0] != rule:
                continue
            diff = _data_faults(fields, data[i][1], "")
            if not diff:
                at = i + 1
                break
            tried.append((i, diff))
        else:
            label = f"expect.event_data[{n}] {_shown(table)}"
            after = f" after event {at} (the one the table before it matched)" if at else ""
            if not tried:
                rules = sorted({r for r, _ in data[at:]}) if data[at:] else []
                faults.append(f"{label}: no [{rule}] event{after}; the events{after and ' after it'} cite: "
                              f"{', '.join(rules) or 'nothing'}")
            else:  # the nearest candidates first: the fewest fields differ
                tried.sort(key=lambda t: len(t[1]))
                shown = [f"event {i + 1} [{rule}] {_shown(data[i][1])}: {'; '.join(diff)}" for i, diff in tried[:3]]
                if len(tried) > 3:
                    shown.append(f"({len(tried) - 3} more [{rule}] event(s) further off)")
                faults.append(f"{label}: no [{rule}] event{after} matches; expected vs actual:\n    "
                              + "\n    ".join(shown))
    return faults


def _exactly(key: str, expected: Mapping[str, Any], actual: Mapping[str, Any]) -> list[str]:
    """``expected`` and ``actual`` name the same things, with the same values."""
    out = [f"expect.{key}.{k}: expected {v!r}, it is {actual[k]!r}" for k, v in expected.items()
           if k in actual and actual[k] != v]
    out += [f"expect.{key}.{k}: expected {v!r}, not there" for k, v in expected.items() if k not in actual]
    extra = sorted(set(actual) - set(expected))
    if extra:
        out.append(f"expect.{key}: not expected: " + ", ".join(f"{k} = {actual[k]!r}" for k in extra))
    return out


def _position_faults(expect: Mapping[str, Any], outcome: Outcome) -> list[str]:
    faults: list[str] = []
    view = outcome.view
    units = _units(view)
    for uid, hexlabel in expect.get("positions", {}).items():
        where = _where(view, uid)
        if where != hexlabel:
            faults.append(f"expect.positions.{uid}: expected {hexlabel!r}, it is in {where or 'no hex (not in play)'!r}")
    if "board" in expect:
        faults += _exactly("board", expect["board"], {uid: u.get("where", "") for uid, u in units.items()})
    for key, flag in (("disrupted", "flipped"), ("oos", "oos")):
        if key in expect:
            actual = sorted(uid for uid, u in units.items() if u.get(flag))
            if actual != sorted(expect[key]):
                faults.append(f"expect.{key}: expected exactly {sorted(expect[key])}, {key}: {actual}")
    if "eliminated" in expect:
        actual = sorted(view.get("eliminated", []))
        if actual != sorted(expect["eliminated"]):
            faults.append(f"expect.eliminated: expected exactly {sorted(expect['eliminated'])}, eliminated: {actual}")
    if "mines" in expect:
        faults += _exactly("mines", expect["mines"], {m["id"]: m["status"] for m in view.get("mines", [])})
    held = {c["hex"] for c in view.get("control", [])}
    for hexlabel, who in expect.get("control", {}).items():
        actual = "japanese" if hexlabel in held else "allied"
        if actual != who:
            faults.append(f"expect.control.{hexlabel}: expected {who}, held by the {actual} side")
    for uid, fields in expect.get("units", {}).items():
        if uid not in units:
            faults.append(f"expect.units.{uid}: no such unit in the view (units: {', '.join(units)})")
            continue
        faults += _subset(fields, units[uid], f"expect.units.{uid}")
    change = (view["vp"] - outcome.vp_before) if isinstance(view.get("vp"), int) and isinstance(
        outcome.vp_before, int) else None
    for key, actual in (("phase", view.get("phase")), ("turn", view.get("turn")), ("vp", view.get("vp")),
                        ("vp_change", change), ("to_act", outcome.to_act)):
        if key in expect and expect[key] != actual:
            faults.append(f"expect.{key}: expected {expect[key]!r}, it is {actual!r}")
    if "decisions" in expect:
        wanted, waiting = expect["decisions"], outcome.decisions
        if not wanted and waiting:
            faults.append(f"expect.decisions: expected none, it waits for {_shown(waiting)}")
        elif wanted:
            faults += _data_faults(wanted, waiting, "expect.decisions")
    faults += _subset(expect.get("view", {}), view, "expect.view")
    return faults


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
        if expect.get("unchanged") and outcome.changed:
            faults.append(f"expect.unchanged: the orders were refused, but {outcome.changed}")
        return faults + _position_faults(expect, outcome)
    if outcome.error is not None:
        return [f"the orders were refused: {type(outcome.error).__name__}: {outcome.error}"]
    faults: list[str] = []
    events = outcome.events
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
    faults += _event_data_faults(expect.get("event_data", []), outcome.data)
    for n, table in enumerate(expect.get("no_event_data", [])):
        fields = {k: v for k, v in table.items() if k != "rule"}
        hit = next((i for i, (rule, data) in enumerate(outcome.data)
                    if rule == table["rule"] and not _data_faults(fields, data, "")), None)
        if hit is not None:
            faults.append(f"expect.no_event_data[{n}] {_shown(table)}: event {hit + 1} [{table['rule']}] "
                          f"{_shown(outcome.data[hit][1])} holds it ({outcome.events[hit]!r})")
    return faults + _position_faults(expect, outcome)


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
        shown_path = case.path.relative_to(CASES.parent) if case.path.is_relative_to(CASES.parent) else case.path
        pytest.fail(f"{shown_path} ({case.rule}: {case.title}):\n- " + "\n- ".join(faults)
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


def test_every_case_expects_more_than_wording() -> None:
    """A case asserts what the rule does, not only how pbem words it: at least
    one expectation beyond the event sentences and the refusal's message --
    the event data or the position; a refusal names its rule and that the
    position did not change."""
    faults = []
    for path in case_files():
        expect = load_case(path).expect
        if not set(expect) - set(WORDING):
            faults.append(f"{path.name}: expects only wording ({', '.join(sorted(expect))}): add event_data or "
                          "the position")
        if "error" in expect and not ("error_rule" in expect and expect.get("unchanged")):
            faults.append(f"{path.name}: a refusal must give expect.error_rule and expect.unchanged = true")
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
    ('[case]\nid = "ambon-7.0-x"\nrule = "7.0"\ntitle = "t"\nsource = "s"\n[position]\n[expect]\nunchanged = true\n',
     "expect.unchanged"),
    ('[case]\nid = "ambon-7.0-x"\nrule = "7.0"\ntitle = "t"\nsource = "s"\n[position]\n[expect]\n'
     '[[expect.event_data]]\nroll = 2\n', "expect.event_data[0].rule"),
    ('[case]\nid = "ambon-7.0-x"\nrule = "7.0"\ntitle = "t"\nsource = "s"\n[position]\n[expect]\nerror = "e"\n'
     '[[expect.event_data]]\nrule = "7.0"\n', "expect.event_data"),
    ('[case]\nid = "ambon-7.0-x"\nrule = "7.0"\ntitle = "t"\nsource = "s"\n[position]\n[expect]\n'
     'board = { "3.A" = 1309 }\n', "expect.board.3.A"),
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


COMBAT_CASE = """[case]
id = "ambon-11.3-x"
rule = "11.3"
title = "t"
source = "s"
side = "japanese"
dice = [2]
[position]
turn = 3
phase = "japanese-combat"
positions = { "3.A" = "1608", "3.B" = "1410", "NEI-2.B" = "1609" }
[orders]
standing = { advance = "never", losses = "protect-hq" }
[[orders.order]]
attack = "1609"
with = ["3.A"]
[standing.allied]
retreat = "retreat"
retreat-to = "toward-friends"
[expect]
"""


def _combat_case(tmp_path: Path, expect: str) -> Case:
    path = tmp_path / "ambon" / "ambon-11.3-x.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(COMBAT_CASE + expect, encoding="utf-8")
    return load_case(path)


def test_the_harness_holds_a_right_data_expectation(tmp_path: Path) -> None:
    case = _combat_case(tmp_path, 'board = { "3.A" = "1608", "3.B" = "1410", "NEI-2.B" = "1509" }\n'
                        'disrupted = ["3.A", "NEI-2.B"]\nphase = "allied-movement"\nto_act = "allied"\n'
                        'oos = []\nvp_change = 0\ndecisions = []\nno_event_data = [{ rule = "11.3", to = "1708" }]\n'
                        '[[expect.event_data]]\nrule = "11.0"\ncolumn = "2:1"\nroll = 2\nresult = "1/0r"\n'
                        'attackers = [{ unit = "3.A", counted = "6" }]\n'
                        '[[expect.event_data]]\nrule = "11.3"\nunit = "NEI-2.B"\nto = "1509"\n')
    assert check(case, run_case(case)) == []


@pytest.mark.parametrize("expect, said", [
    # the right column, the wrong result: the message shows both, and the event it looked at
    ('[[expect.event_data]]\nrule = "11.0"\ncolumn = "2:1"\nresult = "0/1r"\n',
     ['expect.event_data[0]', 'result: expected "0/1r", got "1/0r"', '"column": "2:1"']),
    # a field the event does not carry
    ('[[expect.event_data]]\nrule = "11.0"\nodds = "2:1"\n', ["odds: absent"]),
    # a list of tables: element by element
    ('[[expect.event_data]]\nrule = "11.0"\nattackers = [{ unit = "3.B" }]\n',
     ['attackers[0].unit: expected "3.B", got "3.A"']),
    # in order: the retreat comes after the combat, not before it
    ('[[expect.event_data]]\nrule = "11.3"\nunit = "NEI-2.B"\nto = "1509"\n'
     '[[expect.event_data]]\nrule = "11.0"\nroll = 2\n', ["expect.event_data[1]", "no [11.0] event after event"]),
    ('[[expect.event_data]]\nrule = "9.0"\n', ["no [9.0] event"]),
    ('board = { "3.A" = "1608", "NEI-2.B" = "1609" }\n',
     ["expect.board.NEI-2.B: expected '1609', it is '1509'", "not expected: 3.B = '1410'"]),
    ('disrupted = ["NEI-2.B"]\n', ["expect.disrupted: expected exactly ['NEI-2.B'], disrupted: ['3.A', 'NEI-2.B']"]),
    ('phase = "japanese-combat"\n', ["expect.phase: expected 'japanese-combat', it is 'allied-movement'"]),
    ('to_act = "japanese"\n', ["expect.to_act: expected 'japanese', it is 'allied'"]),
    ('units = { "NEI-2.B" = { combat = "3" } }\n', ["expect.units.NEI-2.B.combat: expected '3', got '1'"]),
    ('decisions = [{ side = "allied" }]\n', ["expect.decisions: expected 1 table(s)"]),
    ('vp_change = 1\n', ["expect.vp_change: expected 1, it is 0"]),
    ('oos = ["NEI-2.B"]\n', ["expect.oos: expected exactly ['NEI-2.B'], oos: []"]),
    ('no_event_data = [{ rule = "11.3", to = "1509" }]\n', ['expect.no_event_data[0]', '"to": "1509"']),
])
def test_the_harness_fails_a_wrong_data_expectation(tmp_path: Path, expect: str, said: list[str]) -> None:
    """A deliberately wrong expectation of the event data or the position (the
    case of ambon-11.3-retreat-into-ezoc: 2:1, roll 2 -> 1/0r, NEI-2.B retreats
    to 1509 and both units end disrupted) fails, saying expected and actual."""
    case = _combat_case(tmp_path, expect)
    faults = check(case, run_case(case))
    assert faults, "a wrong expectation passed"
    text = "\n".join(faults)
    for part in said:
        assert part in text, f"{part!r} is not in the failure:\n{text}"
    with pytest.raises(pytest.fail.Exception):
        test_rule_case(case.path, None)


REFUSED_CASE = """[case]
id = "ambon-10.0-x"
rule = "10.0"
title = "t"
source = "s"
side = "japanese"
[position]
turn = 3
phase = "japanese-bombardment"
positions = {{ "3.D" = "1407", "NEI-2.B" = "1708" }}
[orders]
[[orders.order]]
bombard = "3.D"
target = "NEI-2.B"
[expect]
error = "out of its range"
{expect}
"""


@pytest.mark.parametrize("expect, said", [
    ('error_rule = "10.0"\nunchanged = true\npositions = { "NEI-2.B" = "1708" }\nphase = "japanese-bombardment"', ""),
    ('error_rule = "11.0"', "expect.error_rule: the refusal cites '10.0', not '11.0'"),
    ('unchanged = true\npositions = { "NEI-2.B" = "1608" }', "expect.positions.NEI-2.B: expected '1608'"),
])
def test_a_refusal_checks_its_rule_and_the_position_as_it_stands(tmp_path: Path, expect: str, said: str) -> None:
    path = tmp_path / "ambon" / "ambon-10.0-x.toml"
    path.parent.mkdir()
    path.write_text(REFUSED_CASE.format(expect=expect), encoding="utf-8")
    case = load_case(path)
    outcome = run_case(case)
    assert outcome.error is not None and outcome.changed == ""
    faults = check(case, outcome)
    assert (said in "\n".join(faults)) if said else faults == [], faults


def test_unchanged_fails_when_a_refusal_altered_the_position(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """expect.unchanged catches a referee path that alters the state in place before refusing."""
    path = tmp_path / "ambon" / "ambon-10.0-x.toml"
    path.parent.mkdir()
    path.write_text(REFUSED_CASE.format(expect='error_rule = "10.0"\nunchanged = true'), encoding="utf-8")

    def altering(game: Any, state: Any, *args: Any, **kwargs: Any) -> Any:
        object.__setattr__(state, "turn", state.turn + 1)  # a frozen dataclass, altered behind its back
        raise illegal("10.0", "NEI-2.B is out of its range")

    monkeypatch.setattr(referee, "adjudicate", altering)
    case = load_case(path)
    faults = check(case, run_case(case))
    assert any("expect.unchanged" in f and "altered in place" in f for f in faults), faults


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
        if got.error is not None:
            print(f"refused: {type(got.error).__name__} ({got.error.rule}): {got.error}")
        for sentence, (_, data) in zip(got.events, got.data, strict=True):
            print(sentence + (f"\n    data: {_shown(data)}" if data else ""))
        for fault in check(one, got):
            print("FAULT", fault)
