"""A position the players describe: pbem cannot see an ASL board, so the
players state the facts the excerpt's checks need -- units, leaders and their
markers, hexes, LOS, MF -- and pbem checks the rules against them.

The format (TOML; also a ``[position]`` table inside an orders file)::

    boards = "y"                  # optional: the board(s), see board.BoardConfig
    nationality = "chinese"       # the friendly side's (default "chinese")
    phase = "MPh"                 # the friendly side's phase (default "MPh": its start)

    [[unit]]
    id = "A"                      # unique; letters, digits, '_', '.', '-', '+'
    type = "3-3-7"                # the counter ID ("8-0" a leader)
    hex = "Z0"
    markers = ["CX"]              # Prep Fire, Pin, CX, Concealed ("?"), Broken, DM, TI, Melee, Wounded, ...
    dare_death = true             # positions checked outside a game only
    squad = "A"                   # the roster squad a HS came from (default: id)
    kind = "squad"                # squad | half-squad | crew | leader | vehicle | gun | other
    can_move = true               # optional: false when it cannot move for a reason not shown
    sw = [{ name = "MMG", pp = 4 }]   # carried support weapons and Guns
    enemy = true                  # an enemy unit (default: friendly)
    known = true                  # enemy: a Known Enemy Unit (default: true unless Concealed)

    los = [["Z0", "X2"]]          # pairs of hexes with LOS between them (symmetric)
    no_los = [["AA1", "X2"]]      # pairs without (for the record; LOS not listed is absent)
    mf = [{ from = "Z0", to = "X2", mf = 3 }]   # MF to reach `to` from `from` by the shortest route

    [entry_cost]                  # or: the MF to enter each hex (default for unlisted hexes)
    default = 1
    X1 = 2

Unstated LOS is taken as **absent**; unstated MF is **unknown** (a check that
needs it fails and says which fact is missing).  MF may be halves (``1.5``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from pbem.engine.hexes import Hex
from pbem.engine.paths import Path as Route
from pbem.engine.paths import cheapest_path, format_mp, half_mp
from pbem.errors import InputError
from pbem.games.asl.board import BoardConfig
from pbem.games.asl.data import AslData, counter_id
from pbem.util.schema import Any_, Bool, Convert, Entries, Key, Refusal, Str, Table

UNIT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,31}$")
MMC_TYPE = re.compile(r"^\d+-\d+-\d+$")
LEADER_TYPE = re.compile(r"^\d+[-+]\d+$")
UNIT_KINDS = ("squad", "half-squad", "crew", "leader", "vehicle", "gun", "other")
MMC_KINDS = ("squad", "half-squad", "crew")
INFANTRY_KINDS = ("squad", "half-squad", "crew", "leader")
MARKERS = {
    "prep-fire": ("prepfire", "pf", "prep"),
    "first-fire": ("firstfire",),
    "final-fire": ("finalfire",),
    "pin": ("pinned",),
    "cx": ("exhausted",),
    "concealed": ("?", "concealment"),
    "broken": ("dm-broken",),
    "dm": ("desperationmorale",),
    "ti": ("taskinitiated",),
    "melee": ("cc",),
    "wounded": ("wound",),
    "berserk": (),
    "hip": ("hiddeninitialplacement",),
}
MARKER_NAMES = {"prep-fire": "Prep Fire", "first-fire": "First Fire", "final-fire": "Final Fire", "pin": "Pin",
                "cx": "CX", "concealed": "Concealed", "broken": "Broken", "dm": "DM", "ti": "TI", "melee": "Melee",
                "wounded": "Wounded", "berserk": "Berserk", "hip": "HIP"}
#: Markers that keep a unit from moving in its MPh.  Prep Fire: the excerpt's
#: example (squad B); the others from the ASL rules outside the excerpt.
NO_MOVE = ("prep-fire", "pin", "broken", "ti", "melee")
POSITION_KEYS = ("boards", "nationality", "phase", "unit", "los", "no_los", "mf", "entry_cost", "berserk", "human_wave")
UNIT_KEYS = ("id", "type", "hex", "markers", "dare_death", "squad", "kind", "can_move", "sw", "enemy", "known")


def marker(text: str, where: str) -> str:
    """A marker's canonical name: ``"Prep Fire"`` -> ``"prep-fire"``."""
    try:
        return _marker(text)
    except Refusal as err:
        raise InputError(f"{where}: {err.what}", field="markers") from None


def _marker(text: Any) -> str:
    if not isinstance(text, str):
        raise Refusal(f"marker {text!r} is not a string")
    key = re.sub(r"[\s_]+", "", text.strip().lower())
    for name, aliases in MARKERS.items():
        if key in (name.replace("-", ""), name, *aliases):
            return name
    raise Refusal(f"unknown marker {text!r} (known: {', '.join(MARKERS)})")


@dataclass(frozen=True)
class Weapon:
    name: str
    pp: int
    gun: bool = False


@dataclass(frozen=True)
class Unit:
    id: str
    type: str
    kind: str
    hex: Hex
    at: str  # the hex as written
    enemy: bool = False
    markers: frozenset[str] = frozenset()
    can_move_asserted: bool = True
    known: bool = True
    dare_death: bool | None = None
    squad: str = ""
    sw: tuple[Weapon, ...] = ()

    @property
    def name(self) -> str:
        return f"{self.id} ({self.type} in {self.at})" if self.id != self.type else f"{self.type} in {self.at}"

    @property
    def is_mmc(self) -> bool:
        return self.kind in MMC_KINDS

    @property
    def is_leader(self) -> bool:
        return self.kind == "leader"

    @property
    def is_infantry(self) -> bool:
        return self.kind in INFANTRY_KINDS

    @property
    def broken(self) -> bool:
        return "broken" in self.markers

    @property
    def good_order(self) -> bool:
        """Not broken (the position's Good Order)."""
        return not self.broken

    def cannot_move(self) -> list[str]:
        """Why this unit cannot move in its MPh (empty: it can)."""
        why = [("broken" if m == "broken" else f"marked {MARKER_NAMES[m]}") for m in NO_MOVE if m in self.markers]
        if not self.can_move_asserted:
            why.append("stated unable to move (can_move = false)")
        return why


@dataclass(frozen=True)
class Position:
    board: BoardConfig
    nationality: str
    phase: str
    units: tuple[Unit, ...]
    los: frozenset[frozenset[Hex]] = frozenset()
    no_los: frozenset[frozenset[Hex]] = frozenset()
    mf: Mapping[tuple[Hex, Hex], int] = field(default_factory=dict)  # half-MF
    entry_cost: Mapping[Hex, int] = field(default_factory=dict)  # half-MF
    default_cost: int | None = None
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    # -- units ----------------------------------------------------------------
    def unit(self, unit_id: str) -> Unit:
        for u in self.units:
            if u.id == unit_id:
                return u
        raise InputError(f"no unit {unit_id!r} in the position (units: {', '.join(u.id for u in self.units)})")

    def friendly(self) -> tuple[Unit, ...]:
        return tuple(u for u in self.units if not u.enemy)

    def enemies(self) -> tuple[Unit, ...]:
        return tuple(u for u in self.units if u.enemy)

    def label(self, h: Hex) -> str:
        return self.board.label(h)

    # -- facts ------------------------------------------------------------------
    def has_los(self, a: Hex, b: Hex) -> bool:
        """LOS as the players state it; the same hex always has LOS."""
        return a == b or frozenset((a, b)) in self.los

    def mf_between(self, a: Hex, b: Hex) -> int | None:
        """Half-MF to reach ``b`` from ``a``: stated, else the cheapest route
        over the stated entry costs, else None (unknown)."""
        if a == b:
            return 0
        if (a, b) in self.mf:
            return self.mf[(a, b)]
        route = self.cheapest_route(a, b)
        return route.cost if route is not None else None

    def entry(self, h: Hex) -> int | None:
        """Half-MF to enter ``h`` (None: not stated, or off the boards)."""
        if not self.board.contains(h):
            return None
        return self.entry_cost.get(h, self.default_cost)

    def cheapest_route(self, a: Hex, b: Hex) -> Route | None:
        if not self.entry_cost and self.default_cost is None:
            return None
        return cheapest_path(a, b, lambda _x, y: self.entry(y))

    def to_json(self) -> dict[str, Any]:
        """The position as a canonical public record (MF as decimal strings)."""
        return dict(self.raw)


# --------------------------------------------------------------------------- parsing


def _fail(path: str, what: str, needle: str | None = None) -> InputError:
    """A refusal of the position at ``path`` (``unit A.enemy``), worded the way
    orders are: ``position: unit A: enemy must be true or false, got ...``."""
    where, _, name = path.rpartition(".") if not path.endswith("]") else ("", "", path)
    if not where and name.startswith("unit "):
        where, name = name, ""
    if what.startswith("missing key "):
        name = what.removeprefix("missing key ").strip("'")
    elif what.startswith("expected ") and name:
        what = f"{name} must be {what.removeprefix('expected ')}"
    elif name and not what.startswith(("unknown ", "missing ")):
        what = f"{name}: {what}"
    return InputError(f"position: {where}: {what}" if where else f"position: {what}", field=name or None)


def _half_mf(value: Any) -> int:
    return half_mp(value.strip() if isinstance(value, str) else value)


_NONEMPTY = Str(nonempty=True, strip=True)
_MF = Convert(Any_(), _half_mf)
_POSITION = Table({
    "boards": Key(Any_()), "nationality": Key(_NONEMPTY, "chinese"), "phase": Key(_NONEMPTY, "MPh"),
    "unit": Key(Any_(), []), "los": Key(Any_(), []), "no_los": Key(Any_(), []), "mf": Key(Any_(), []),
    "entry_cost": Key(Any_(), {}), "berserk": Key(Any_()), "human_wave": Key(Any_()),
}, unknown=lambda names, allowed: f"unknown key(s) {', '.join(sorted(names))} (known: {', '.join(allowed)})")
#: A ``[[unit]]`` before its id is known (named by its number).
_UNIT_ID = Table({"id": _NONEMPTY, **{k: Key(Any_()) for k in UNIT_KEYS if k != "id"}}, unknown_first=True,
                 unknown=lambda names, allowed: f"unknown field(s) {', '.join(sorted(names))} (known: {', '.join(allowed)})")


def _pp(pp: Any) -> int:
    if not isinstance(pp, int) or isinstance(pp, bool) or pp < 0:
        raise Refusal(f"must be a whole number of PP, got {pp!r}")
    return pp


def _weapons(value: Any, path: str) -> tuple[Weapon, ...]:
    where = f"position: {path}"
    if not isinstance(value, list):
        raise InputError(f"{where}: sw must be a list like [{{ name = \"MMG\", pp = 4 }}]", field="sw")
    weapons = []
    for j, w in enumerate(value):
        if not isinstance(w, dict) or set(w) - {"name", "pp", "gun"} or "name" not in w or "pp" not in w:
            raise InputError(f"{where}: sw[{j}] must be {{ name = \"MMG\", pp = 4 }} (gun = true for a Gun)", field="sw")
        try:
            pp = _pp(w["pp"])
        except Refusal as err:
            raise InputError(f"{where}: sw[{j}].pp {err.what}", field="sw") from None
        name = _NONEMPTY.read(w["name"], f"{path}.sw name", _fail)
        weapons.append(Weapon(name, pp, Bool().read(w.get("gun", False), f"{path}.gun", _fail)))
    return tuple(weapons)


def _kind_of(kind: Any, type_: str, enemy: bool, nationality: Any, where: str) -> str:
    """The unit's kind: as stated, else the chart's, else what the counter ID shows."""
    if kind is not None:
        if kind not in UNIT_KINDS:
            raise InputError(f"{where}: kind {kind!r} is not one of {', '.join(UNIT_KINDS)}", field="kind")
        return str(kind)
    chart = None if enemy else nationality.counter(type_)
    if chart is not None:
        return str(chart.kind)
    if LEADER_TYPE.match(type_):
        return "leader"
    if enemy:
        return "squad" if MMC_TYPE.match(type_) else "other"
    kinds = " | ".join(f'"{k}"' for k in UNIT_KINDS)
    raise InputError(f"{where}: {type_!r} is not on the {nationality.name} chart; say what it is with kind = {kinds}",
                     field="kind")


def _unit(spec: Any, i: int, ids: set[str], board: BoardConfig, nationality: Any,
          allow_dare_death: bool) -> tuple[Unit, dict[str, Any]]:
    """``[[unit]]`` number ``i``, and its canonical record."""
    if not isinstance(spec, Mapping):
        raise InputError(f"position: unit {i + 1}: must be a table", field="unit")
    uid = _UNIT_ID.read(dict(spec), f"unit {i + 1}", _fail)["id"]
    if not UNIT_ID.match(uid):
        raise InputError(f"position: unit {i + 1}: id {uid!r} must be 1-32 letters, digits, '_', '.', '+' or '-'",
                         field="id")
    if uid in ids:
        raise InputError(f"position: unit {i + 1}: unit id {uid!r} is used twice", field="id")
    ids.add(uid)
    path = f"unit {uid}"
    where = f"position: {path}"
    type_ = counter_id(_NONEMPTY.read(spec.get("type"), f"{path}.type", _fail))
    enemy = Bool().read(spec.get("enemy", False), f"{path}.enemy", _fail)
    kind = _kind_of(spec.get("kind"), type_, enemy, nationality, where)
    h = Convert(Any_(), board.parse).read(spec.get("hex"), f"{path}.hex", _fail)
    markers = spec.get("markers", [])
    if not isinstance(markers, list):
        raise InputError(f"{where}: markers must be a list like [\"Prep Fire\"]", field="markers")
    marks = frozenset(marker(m, where) for m in markers)
    dd = spec.get("dare_death")
    if dd is not None and not allow_dare_death:
        raise InputError(f"{where}: dare_death is not part of a position in a game -- the sealed designation decides (8.5.2)",
                         field="dare_death")
    flags = Table({"dare_death": Key(Bool()), "known": Key(Bool(), "concealed" not in marks and "hip" not in marks),
                   "can_move": Key(Bool(), True), "squad": Key(_NONEMPTY, uid)},
                  others=Any_()).read({k: v for k, v in spec.items() if v is not None or k != "dare_death"}, path, _fail)
    weapons = _weapons(spec.get("sw", []), path)
    unit = Unit(uid, type_, kind, h, board.label(h), enemy, marks, flags["can_move"], flags["known"],
                flags["dare_death"], flags["squad"], weapons)
    item: dict[str, Any] = {"id": uid, "type": type_, "kind": kind, "hex": unit.at}
    for name, value, shown in (("enemy", True, enemy), ("markers", sorted(marks), bool(marks)),
                               ("can_move", False, not unit.can_move_asserted),
                               ("known", unit.known, unit.known != ("concealed" not in marks and "hip" not in marks)),
                               ("dare_death", unit.dare_death, unit.dare_death is not None),
                               ("squad", unit.squad, unit.squad != uid),
                               ("sw", [{"name": w.name, "pp": w.pp, **({"gun": True} if w.gun else {})} for w in weapons],
                                bool(weapons))):
        if shown:
            item[name] = value
    return unit, item


def _hex(board: BoardConfig, value: Any, where: str, name: str) -> Hex:
    try:
        return board.parse(value)
    except InputError as err:
        raise InputError(f"{where}: {name}: {err}", field=name) from None


def _pairs(board: BoardConfig, value: Any, name: str) -> tuple[frozenset[frozenset[Hex]], list[list[str]]]:
    if not isinstance(value, list):
        raise InputError(f"position: {name} must be a list of hex pairs like [[\"Z0\", \"X2\"]]", field=name)
    pairs, raw = set(), []
    for i, pair in enumerate(value):
        if not (isinstance(pair, list) and len(pair) == 2):
            raise InputError(f"position: {name}[{i}] must be a pair of hexes like [\"Z0\", \"X2\"], got {pair!r}", field=name)
        a, b = (_hex(board, h, f"position: {name}[{i}]", name) for h in pair)
        pairs.add(frozenset((a, b)))
        raw.append([board.label(a), board.label(b)])
    return frozenset(pairs), sorted(raw)


def _mf_facts(board: BoardConfig, specs: Any) -> tuple[dict[tuple[Hex, Hex], int], list[dict[str, str]]]:
    """``mf``: the MF stated between two hexes."""
    if not isinstance(specs, list):
        raise InputError("position: mf must be a list like [{ from = \"Z0\", to = \"X2\", mf = 3 }]", field="mf")
    mf: dict[tuple[Hex, Hex], int] = {}
    raw = []
    hex_ = Convert(Any_(), board.parse)
    for i, spec in enumerate(specs):
        if not isinstance(spec, Mapping) or set(spec) != {"from", "to", "mf"}:
            raise InputError(f"position: mf[{i}]: must be {{ from = \"Z0\", to = \"X2\", mf = 3 }}", field="mf")
        fact = Table({"from": hex_, "to": hex_, "mf": _MF}).read(dict(spec), f"mf[{i}]", _fail)
        mf[(fact["from"], fact["to"])] = fact["mf"]
        raw.append({"from": board.label(fact["from"]), "to": board.label(fact["to"]),
                    "mf": format_mp(fact["mf"], unit=False)})
    return mf, sorted(raw, key=lambda m: (m["from"], m["to"]))


def _entry_costs(board: BoardConfig, spec: Any) -> tuple[dict[Hex, int], int | None, dict[str, str]]:
    """``[entry_cost]``: the MF to enter a hex, and the default for the others."""
    if not isinstance(spec, Mapping):
        raise InputError("position: entry_cost must be a table of hex = MF", field="entry_cost")
    def hex_or_default(key: str) -> None:
        if key != "default":
            board.parse(key)

    read = Entries(_MF, name=hex_or_default).read(dict(spec), "entry_cost", _fail)
    default = read.pop("default", None)
    costs = {board.parse(key): cost for key, cost in read.items()}
    raw = {board.label(h): format_mp(cost, unit=False) for h, cost in costs.items()}
    return costs, default, ({"default": format_mp(default, unit=False)} if default is not None else {}) | raw


def _check_dare_death(units: Iterable[Unit], nationality: Any) -> None:
    """8.5.2, as a game's setup enforces it (pbem.games.asl.game): a
    position may not state what the rules make impossible -- Dare-Death
    Squads are the side's own non-5-3-7 squads (a HS is one when the squad it
    came from is), of a nationality that has them."""
    by_id = {u.id: u for u in units}
    for u in units:
        if not u.dare_death:
            continue
        where = f"position: unit {u.id}: dare_death = true"
        if u.enemy:
            raise InputError(f"8.5.2: {where}, but it is an enemy unit: Dare-Death Squads are the side's own",
                             field="dare_death")
        if not nationality.dare_death:
            raise InputError(f"8.5.2: {where}, but {nationality.name} squads are never Dare-Death Squads",
                             field="dare_death")
        if u.kind not in ("squad", "half-squad"):
            raise InputError(f"8.5.2: {where}, but a {u.kind} is no squad: only squads (and their HS) may be",
                             field="dare_death")
        parent = u if u.kind == "squad" else by_id.get(u.squad)
        if parent is not None and parent.type in nationality.dare_death_excluded:
            raise InputError(f"8.5.2: {where}, but {parent.id} is a {parent.type}: only non-"
                             f"{'/'.join(nationality.dare_death_excluded)} squads may be Dare-Death Squads",
                             field="dare_death")


def parse_position(doc: Mapping[str, Any], data: AslData, *, allow_dare_death: bool = True) -> Position:
    """Read a position (syntax and references; the rules are the checks')."""
    if not isinstance(doc, Mapping):
        raise InputError("position: must be a table", field="position")
    top = _POSITION.read(dict(doc), "", _fail)
    if not allow_dare_death and ({"berserk", "human_wave"} & set(doc)):
        raise InputError("position: in a game, declare Berserk and Human Wave with berserk and human-wave orders",
                         field="berserk" if "berserk" in doc else "human_wave")
    board = BoardConfig.from_value(top["boards"])
    nationality = data.nationality(top["nationality"])
    specs = top["unit"]
    if not isinstance(specs, list) or not specs:
        raise InputError("position: describe the units as [[unit]] tables", field="unit")
    ids: set[str] = set()
    units, raw_units = zip(*(_unit(spec, i, ids, board, nationality, allow_dare_death) for i, spec in enumerate(specs)),
                           strict=True)
    _check_dare_death(units, nationality)
    raw: dict[str, Any] = {"boards": board.to_json(), "nationality": nationality.id, "phase": top["phase"],
                           "unit": list(raw_units)}
    los, raw["los"] = _pairs(board, top["los"], "los")
    no_los, raw["no_los"] = _pairs(board, top["no_los"], "no_los")
    both = los & no_los
    if both:
        shown = "-".join(sorted(board.label(h) for h in next(iter(both))))
        raise InputError(f"position: {shown} is listed under both los and no_los", field="los")
    mf, raw["mf"] = _mf_facts(board, top["mf"])
    costs, default, raw["entry_cost"] = _entry_costs(board, top["entry_cost"])
    return Position(board, nationality.id, top["phase"], tuple(units), los, no_los, mf, costs, default, raw)


def unit_ids(value: Any, where: str, name: str = "units") -> tuple[str, ...]:
    """A list of unit ids from an order or declaration."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
        raise InputError(f"{where}: {name} must be a list of unit ids like [\"A\", \"B\"]", field=name)
    if len(set(value)) != len(value):
        raise InputError(f"{where}: {name} names a unit twice", field=name)
    return tuple(value)


def labels(position: Position, hexes: Iterable[Hex]) -> str:
    return " ".join(position.label(h) for h in hexes)
