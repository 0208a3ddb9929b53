"""Game data from TOML: the map, the counters, the charts, and the data set that
pins them (docs/architecture.md, "Rules as data").

Three files make a game's data directory:

``map.toml``
    the hex grid (layout and extent), the terrain table and terrain per hex,
    hex features (towns, coastal hexes, key locations with their VP track),
    hexside features (road, trail, river, all-sea, fortified), named places
    and off-map boxes.
``counters.toml``
    sides, unit types and units with their front and back values.
``charts.toml``
    terrain costs and other movement prices (in MP; stored as half-MP),
    result tables (a CRT: columns, one row per die result), free constants.

Everything is validated on load; a :class:`~pbem.errors.DataError` names the
file, the line where it can find it, the key and what is wrong::

    map.toml, line 14: hexsides.road[0][2]: '0512' is not adjacent to '0312'

The schema, by example (every table but ``[map]`` and ``[terrain]`` optional)::

    [map]
    name = "Test island"
    layout = "odd-q"            # odd-q | even-q | odd-r | even-r
    columns = [1, 6]            # first and last column number
    rows = [1, 6]
    digits = [2, 2]             # CCRR (optional)
    default_terrain = "clear"   # for hexes not listed under [hexes]

    [terrain.clear]
    colour = "#d9e7b4"          # optional: fill in pictures
    symbol = "."                # optional: one character for text pictures

    [hexes]                     # terrain name -> its hexes
    forest = ["0203", "0303"]

    [features]
    towns = ["0202"]
    coastal = ["0101", "0102"]

    [key_locations.0202]
    name = "Redtown"
    vp = [3, 2, 1]              # the VP track (by turn, as the game reads it)

    [hexsides]                  # each inner list: a chain of adjacent hexes;
    road = [["0102", "0202", "0302"]]   # every consecutive pair is one hexside
    river = [["0403", "0404"]]

    [places]
    "Red Ford" = "0403"

    [boxes.landing]
    name = "Landing box"
    kind = "landing"
    target = "0101"
"""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, Iterable, Iterator, Mapping

from pbem.engine.datafiles import data_files
from pbem.engine.hexes import OFFSET_LAYOUTS, Grid, Hex, Hexside, Layout
from pbem.engine.paths import half_mp
from pbem.engine.ruleset import ruleset_hash
from pbem.errors import DataError, InputError
from pbem.util.schema import OMIT, Any_, Array, Check, Convert, Entries, Fail, Int, Key, Refusal, Shape, Str, Table, TypeSwitch
from pbem.util.tomlfile import parse

__all__ = [
    "HEXSIDE_FEATURES",
    "Charts",
    "Counters",
    "DataSet",
    "GameMap",
    "KeyLocation",
    "OffMapBox",
    "ResultTable",
    "Side",
    "TerrainType",
    "Unit",
    "UnitType",
    "load_charts",
    "load_counters",
    "load_dataset",
    "load_map",
    "ruleset_hash",
]

#: Hexside features a map may declare under ``[hexsides]``.
HEXSIDE_FEATURES: tuple[str, ...] = ("road", "trail", "river", "all_sea", "fortified")
#: Words that mark a terrain cost as "cannot enter".
PROHIBITED = ("P", "prohibited", "impassable")

Source = str | Path | bytes


def _frozen(d: Mapping[Any, Any]) -> Mapping[Any, Any]:
    return MappingProxyType(dict(d))


# --------------------------------------------------------------------------- reading files


class DataFile:
    """One data file being read: its name, its text, and errors that point into it."""

    def __init__(self, name: str, text: str):
        self.name = name
        self.text = text

    @cached_property
    def lines(self) -> list[str]:
        """The file's lines, split when an error first looks for one."""
        return self.text.splitlines()

    @classmethod
    def read(cls, source: Source, name: str | None, default: str) -> tuple[DataFile, dict[str, Any]]:
        if isinstance(source, (bytes, bytearray)):
            raw = bytes(source)
            label = name or default
        else:
            path = Path(source)
            label = name or str(path)
            try:
                raw = path.read_bytes()
            except OSError as err:
                raise DataError(f"{label}: cannot read: {err.strerror or err}") from err

        text, data = parse(raw, label, DataError)
        return cls(label, text), data

    # -- locating a key in the text, for messages --------------------------
    def _headers(self) -> list[tuple[int, bool, str]]:
        """(line index, is array-of-tables, dotted name) of every table header."""
        out = []
        for i, ln in enumerate(self.lines):
            m = re.fullmatch(r"\s*(\[\[?)([^\[\]]*)\]\]?\s*(#.*)?", ln)
            if m:
                out.append((i, m.group(1) == "[[", re.sub(r"[\s\"']", "", m.group(2))))
        return out

    def line_of(self, key: str, needle: str | None = None) -> int | None:
        """Best guess at the 1-based line holding ``key`` (and ``needle``):
        the table header of the longest prefix of ``key``, then the first line
        of that table showing ``needle`` or the key's last name."""
        names: list[tuple[str, int | None]] = []
        for name, index in re.findall(r"([^.\[\]]+)|\[(\d+)\]", key):
            if name:
                names.append((name, None))
            elif names:
                names[-1] = (names[-1][0], int(index))
        headers = self._headers()
        start, end = 0, len(self.lines)
        for n in range(len(names), 0, -1):
            dotted = ".".join(nm for nm, _ in names[:n])
            hits = [(i, arr) for i, arr, nm in headers if nm == dotted]
            if hits:
                index = names[n - 1][1]
                pick = index if hits[0][1] and index is not None and index < len(hits) else 0
                start = hits[pick][0]
                later = [i for i, _, _ in headers if i > start]
                end = later[0] if later else len(self.lines)
                break
        tests: list[Callable[[str], object]] = []
        named = None
        if names:
            last = re.escape(names[-1][0])
            named = re.compile(r"""(^|[\s{,])["']?""" + last + r"""["']?\s*=""")
        if needle is not None:
            if named is not None:
                tests.append(lambda ln: named.search(ln) and needle in ln)
            tests.append(lambda ln: needle in ln)
        if named is not None:
            tests.append(lambda ln: named.search(ln))
        for test in tests:
            for lo, hi in ((start, end), (0, len(self.lines))):
                for i in range(lo, hi):
                    if test(self.lines[i]):
                        return i + 1
        return start + 1 if headers and start else None

    def error(self, key: str, what: str, needle: str | None = None) -> DataError:
        line = self.line_of(key, needle) if key else None
        where = f"{self.name}, line {line}" if line else self.name
        return DataError(f"{where}: {key}: {what}" if key else f"{where}: {what}", field=key or None)

    # -- typed access ------------------------------------------------------
    def keys(self, table: Mapping[str, Any], key: str, allowed: Iterable[str], required: Iterable[str] = ()) -> None:
        allowed = tuple(allowed)
        for k in required:
            if k not in table:
                raise self.error(key, f"missing key {k!r}")
        for k in table:
            if k not in allowed:
                raise self.error(f"{key}.{k}" if key else k, f"unknown key {k!r} (allowed: {', '.join(allowed)})")

    def table(self, value: Any, key: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.error(key, f"expected a table, got {_kind(value)}")
        return value

    def string(self, value: Any, key: str) -> str:
        if not isinstance(value, str):
            raise self.error(key, f"expected a string, got {_kind(value)} {value!r}")
        return value

    def integer(self, value: Any, key: str) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.error(key, f"expected an integer, got {_kind(value)} {value!r}")
        return value

    def array(self, value: Any, key: str) -> list[Any]:
        if not isinstance(value, list):
            raise self.error(key, f"expected an array, got {_kind(value)}")
        return value

    def hex(self, grid: Grid, value: Any, key: str) -> Hex:
        text = self.string(value, key)
        try:
            return grid.parse(text)
        except InputError as err:
            raise self.error(key, str(err), needle=f'"{text}"') from None


def _kind(value: Any) -> str:
    return {
        bool: "a boolean", int: "an integer", float: "a number", str: "a string",
        list: "an array", dict: "a table",
    }.get(type(value), type(value).__name__)


# --------------------------------------------------------------------------- the map


@dataclass(frozen=True)
class TerrainType:
    """A terrain declared in the map's ``[terrain]`` table."""

    name: str
    label: str
    colour: str
    symbol: str


@dataclass(frozen=True)
class KeyLocation:
    """A key location: its hex, name and VP track."""

    hex: Hex
    name: str
    vp: tuple[int, ...]


@dataclass(frozen=True)
class OffMapBox:
    """An off-map box (a landing box, a turn track space...), maybe aimed at a hex."""

    id: str
    name: str
    kind: str
    target: Hex | None


@dataclass(frozen=True, eq=False)
class GameMap:
    """A loaded, validated map.  Hexes inside are :class:`~pbem.engine.hexes.Hex`;
    ``hex("1609")`` and ``label(h)`` convert at the edges."""

    name: str
    grid: Grid
    terrain_types: Mapping[str, TerrainType]
    terrain: Mapping[Hex, str]
    towns: frozenset[Hex]
    coastal: frozenset[Hex]
    key_locations: Mapping[Hex, KeyLocation]
    hexsides: Mapping[str, frozenset[Hexside]]
    chains: Mapping[str, tuple[tuple[Hex, ...], ...]]
    places: Mapping[str, Hex]
    boxes: Mapping[str, OffMapBox]
    source: str = ""
    note: str = ""

    @property
    def layout(self) -> Layout:
        return self.grid.layout

    def hex(self, label: str) -> Hex:
        """The hex numbered ``label`` (InputError quoting it if bad or off the map)."""
        cache = self._parsed
        found = cache.get(label)
        if found is None:
            found = cache[label] = self.grid.parse(label)
        return found

    @cached_property
    def _parsed(self) -> dict[str, Hex]:
        return {}

    @cached_property
    def _side_features(self) -> dict[tuple[Hex, Hex], frozenset[str]]:
        """Every hexside carrying a feature -> its features, keyed (lower, higher)."""
        found: dict[tuple[Hex, Hex], set[str]] = {}
        for feature, sides in self.hexsides.items():
            for side in sides:
                a, b = side.hexes
                found.setdefault((min(a, b), max(a, b)), set()).add(feature)
        return {key: frozenset(value) for key, value in found.items()}

    def label(self, h: Hex) -> str:
        """The ``CCRR`` number of ``h``."""
        return self.grid.label(h)

    def hexes(self) -> Iterator[Hex]:
        """Every hex of the map, column by column."""
        return self.grid.hexes()

    def contains(self, h: Hex) -> bool:
        return self.grid.contains(h)

    def terrain_at(self, h: Hex) -> str:
        """The terrain name of ``h``; InputError when ``h`` is off the map."""
        try:
            return self.terrain[h]
        except KeyError:
            raise InputError(f"{self.label(h) if _writable(self.grid, h) else h} is off the map ({self.grid.extent()})") from None

    def has(self, feature: str, a: Hex, b: Hex) -> bool:
        """True when the hexside between ``a`` and ``b`` carries ``feature``
        (``"road"``, ``"river"``...).  False for hexes that are not adjacent."""
        if feature not in self.hexsides:
            raise InputError(f"unknown hexside feature {feature!r} (known: {', '.join(HEXSIDE_FEATURES)})")
        return feature in self._side_features.get((a, b) if a < b else (b, a), ())

    def hexside_features(self, a: Hex, b: Hex) -> frozenset[str]:
        """Every feature on the hexside between adjacent ``a`` and ``b``."""
        return self._side_features.get((a, b) if a < b else (b, a), frozenset())

    def place(self, name: str) -> Hex:
        """The hex of a named place; InputError listing the names when unknown."""
        try:
            return self.places[name]
        except KeyError:
            pass
        folded = {key.casefold(): h for key, h in self.places.items()}
        if str(name).casefold() in folded:  # "laha" is Laha
            return folded[str(name).casefold()]

        close = difflib.get_close_matches(str(name), list(self.places), n=2, cutoff=0.6)
        hint = f"did you mean {' or '.join(repr(c) for c in close)}?" if close else f"known: {', '.join(sorted(self.places))}"
        raise InputError(f"no place named {name!r} ({hint})")

    def box(self, box_id: str) -> OffMapBox:
        try:
            return self.boxes[box_id]
        except KeyError:
            raise InputError(f"no off-map box {box_id!r} (known: {', '.join(sorted(self.boxes))})") from None


def _writable(grid: Grid, h: Hex) -> bool:
    try:
        grid.label(h)
        return True
    except InputError:
        return False


_COLOUR = re.compile(r"#[0-9a-fA-F]{6}")
_DEFAULT_COLOURS = ("#e8e4c9", "#a7c88a", "#c9a66b", "#8fb8de", "#b0b0b0", "#d7b5d8", "#f2c57c")


def _colour(colour: str) -> str | None:
    return None if _COLOUR.fullmatch(colour) else f"colour {colour!r} is not #rrggbb"


def _layout(name: str) -> str | None:
    return None if name in OFFSET_LAYOUTS else f"unknown layout {name!r} (one of {', '.join(OFFSET_LAYOUTS)})"


def _symbol(symbol: str) -> str | None:
    return None if len(symbol) == 1 else f"symbol {symbol!r} must be one character"


def _hexside_feature(name: str) -> str | None:
    return None if name in HEXSIDE_FEATURES else f"unknown hexside feature {name!r} (known: {', '.join(HEXSIDE_FEATURES)})"


COLOUR = Check(Str(), _colour)
_PAIR = Array(Int(), length=2, complaint="expected two integers [first, last]")
#: map.toml, the parts read before the grid is known.
MAP_FILE = Table({
    "map": Table({
        "name": Key(Str(), ""), "layout": Check(Str(), _layout), "columns": _PAIR, "rows": _PAIR,
        "digits": Key(_PAIR, (2, 2)), "default_terrain": Key(Str(), None), "note": Key(Str(), ""),
    }),
    "terrain": Entries(Table({"label": Key(Str(), OMIT), "colour": Key(COLOUR, OMIT), "symbol": Key(Check(Str(), _symbol), OMIT)}),
                       least=1, empty="declares no terrain"),
    **{name: Key(Any_(), {}) for name in ("hexes", "features", "key_locations", "hexsides", "places", "boxes")},
})


def _map_shapes(parse: Callable[[str], Hex], terrains: Mapping[str, TerrainType]) -> dict[str, Shape[Any]]:
    """The shapes of map.toml's tables of hexes, read by ``parse``."""
    hex_ = Convert(Str(), parse)

    def known_terrain(tname: str) -> str | None:
        if tname not in terrains:
            raise Refusal(f"unknown terrain {tname!r} (declared: {', '.join(terrains)})", needle=tname)
        return None

    def hex_label(label: str) -> str | None:
        parse(label)
        return None

    return {
        "default_terrain": Check(Str(), known_terrain),
        "hexes": Entries(Array(hex_), name=known_terrain),
        "features": Table({"towns": Key(Array(hex_), []), "coastal": Key(Array(hex_), [])}),
        "key_locations": Entries(Table({"name": Key(Str(), OMIT), "vp": Array(Int())}), name=hex_label),
        "hexsides": Entries(Array(Array(hex_, least=2, complaint="a chain needs at least two hexes")), name=_hexside_feature),
        "places": Entries(hex_),
        "boxes": Entries(Table({"name": Key(Str(), OMIT), "kind": Key(Str(), "box"), "target": Key(hex_, None)})),
    }


def load_map(source: Source, name: str | None = None) -> GameMap:
    """Load and validate a map from a path or the bytes of a TOML file.

    ``name`` is how messages call the file (default: the path, or "map.toml")."""
    src, data = DataFile.read(source, name, "map.toml")
    fail = src.error
    doc = MAP_FILE.read(data, "", fail)
    head = doc["map"]
    try:
        grid = Grid(Layout(head["layout"], *head["digits"]), tuple(head["columns"]), tuple(head["rows"]))
    except InputError as err:
        raise src.error("map", str(err)) from None
    terrains = {
        tname: TerrainType(tname, spec.get("label", tname.replace("_", " ")),
                           spec.get("colour", _DEFAULT_COLOURS[i % len(_DEFAULT_COLOURS)]), spec.get("symbol", tname[:1].lower()))
        for i, (tname, spec) in enumerate(doc["terrain"].items())
    }
    parsed: dict[str, Hex] = {}

    def parse(label: str) -> Hex:
        found = parsed.get(label)
        if found is None:
            found = parsed[label] = grid.parse(label)
        return found

    shapes = _map_shapes(parse, terrains)
    default = head["default_terrain"]
    if default is not None:
        shapes["default_terrain"].read(default, "map.default_terrain", fail)
    hexes = shapes["hexes"].read(doc["hexes"], "hexes", fail)
    terrain: dict[Hex, str] = {}
    for tname, found in hexes.items():
        for i, h in enumerate(found):
            if h in terrain:
                value = data["hexes"][tname][i]
                raise src.error(f"hexes.{tname}[{i}]", f"hex {value!r} already has terrain {terrain[h]!r}", needle=f'"{value}"')
            terrain[h] = tname
    every_hex = tuple(grid.hexes())
    for h in every_hex:
        if h not in terrain:
            if default is None:
                raise src.error("hexes", f"hex {grid.label(h)!r} has no terrain and [map] sets no default_terrain")
            terrain[h] = default
    features = shapes["features"].read(doc["features"], "features", fail)
    keys = {
        h: KeyLocation(h, spec.get("name", label), tuple(spec["vp"]))
        for label, spec in shapes["key_locations"].read(doc["key_locations"], "key_locations", fail).items()
        for h in (parse(label),)
    }
    chains = {f: tuple(map(tuple, c)) for f, c in shapes["hexsides"].read(doc["hexsides"], "hexsides", fail).items()}
    sides = {f: _hexsides(src, f, chains.get(f, ()), data) for f in HEXSIDE_FEATURES}
    places = shapes["places"].read(doc["places"], "places", fail)
    boxes = {
        box_id: OffMapBox(box_id, spec.get("name", box_id), spec["kind"], spec["target"])
        for box_id, spec in shapes["boxes"].read(doc["boxes"], "boxes", fail).items()
    }
    gmap = GameMap(
        name=head["name"],
        grid=grid,
        terrain_types=_frozen(terrains),
        terrain=_frozen({h: terrain[h] for h in every_hex}),
        towns=frozenset(features["towns"]),
        coastal=frozenset(features["coastal"]),
        key_locations=_frozen(keys),
        hexsides=_frozen(sides),
        chains=_frozen({f: chains.get(f, ()) for f in HEXSIDE_FEATURES}),
        places=_frozen(places),
        boxes=_frozen(boxes),
        source=src.name,
        note=head["note"],
    )
    gmap._parsed.update(parsed)  # the labels read, for GameMap.hex
    return gmap


def _hexsides(src: DataFile, feature: str, chains: Iterable[tuple[Hex, ...]], data: Mapping[str, Any]) -> frozenset[Hexside]:
    """The hexsides of ``feature``'s chains: each consecutive pair of hexes adjacent."""
    sides = set()
    for i, hexes in enumerate(chains):
        for j, (a, b) in enumerate(zip(hexes, hexes[1:], strict=False), start=1):
            if not a.is_adjacent(b):
                chain = data["hexsides"][feature][i]
                why = "repeats the previous hex" if a == b else f"is not adjacent to {chain[j - 1]!r}"
                raise src.error(f"hexsides.{feature}[{i}][{j}]", f"{chain[j]!r} {why}", needle=f'"{chain[j]}"')
            sides.add(Hexside(a, b))
    return frozenset(sides)


# --------------------------------------------------------------------------- counters

Value = int | float | str | bool


@dataclass(frozen=True)
class Side:
    """A side of the game (``[sides.<id>]``)."""

    id: str
    name: str
    colour: str


@dataclass(frozen=True, eq=False)
class UnitType:
    """A unit type with the default values of its front and back."""

    id: str
    name: str
    front: Mapping[str, Value]
    back: Mapping[str, Value]


@dataclass(frozen=True, eq=False)
class Unit:
    """One counter: its type's values, overridden where the counter differs."""

    id: str
    side: str
    type: str
    name: str
    front: Mapping[str, Value]
    back: Mapping[str, Value]

    def values(self, flipped: bool = False) -> Mapping[str, Value]:
        """The values on the face showing: back when ``flipped``."""
        return self.back if flipped else self.front


@dataclass(frozen=True, eq=False)
class Counters:
    """Sides, unit types and units, in file order."""

    sides: Mapping[str, Side]
    types: Mapping[str, UnitType]
    units: tuple[Unit, ...]
    source: str = ""

    def unit(self, unit_id: str) -> Unit:
        """The unit ``unit_id``; InputError quoting it when there is none."""
        for u in self.units:
            if u.id == unit_id:
                return u
        raise InputError(f"no unit {unit_id!r}")

    def of_side(self, side: str) -> tuple[Unit, ...]:
        return tuple(u for u in self.units if u.side == side)


class _Scalar(Shape[Value]):
    """A value of a counter's face or a free constant: a finite number, a string or a boolean."""

    def __init__(self) -> None:
        self.plain = lambda v: type(v) in (int, str, bool) or type(v) is float and math.isfinite(v)

    def read(self, value: Any, path: str, fail: Fail) -> Value:
        if not isinstance(value, (int, float, str, bool)):
            raise fail(path, f"expected a number, string or boolean, got {_kind(value)}", None)
        if isinstance(value, float) and not math.isfinite(value):
            raise fail(path, f"value {value!r} is not finite", None)
        return value


#: A table of named values (a face, ``[values]``).
VALUES = Entries(_Scalar())
_PALETTE = ("#b03a2e", "#2e5fa8", "#3c8d40", "#8e44ad")
_NAMED = Key(Str(), OMIT)
COUNTERS_FILE = Table({
    "sides": Entries(Table({"name": _NAMED, "colour": Key(COLOUR, OMIT)}), least=1, empty="declares no side"),
    "types": Entries(Table({"name": _NAMED, "front": VALUES, "back": Key(VALUES, {})})),
    "units": Any_(),
})
_UNIT = Table({"id": Str(), "side": Str(), "type": Str(), "name": _NAMED, "front": Key(VALUES, {}), "back": Key(VALUES, {})})


def load_counters(source: Source, name: str | None = None) -> Counters:
    """Load and validate ``counters.toml``::

        [sides.red]
        name = "Red"
        colour = "#b03a2e"

        [types.infantry]
        name = "Infantry"
        front = { combat = 4, move = 4 }
        back = { combat = 2, move = 3 }

        [[units]]
        id = "R1"
        side = "red"
        type = "infantry"
        back = { combat = 1 }     # this counter's back differs from its type
    """
    src, data = DataFile.read(source, name, "counters.toml")
    doc = COUNTERS_FILE.read(data, "", src.error)
    sides = {sid: Side(sid, spec.get("name", sid), spec.get("colour", _PALETTE[i % len(_PALETTE)]))
             for i, (sid, spec) in enumerate(doc["sides"].items())}
    types = {tid: UnitType(tid, spec.get("name", tid), _frozen(spec["front"]), _frozen(spec["back"]))
             for tid, spec in doc["types"].items()}
    seen: dict[str, int] = {}

    def unit(spec: dict[str, Any]) -> Unit:
        uid, side, tid = spec["id"], spec["side"], spec["type"]
        if uid in seen:
            raise Refusal(f"duplicate unit id {uid!r} (first at units[{seen[uid]}])", f'"{uid}"', ".id")
        seen[uid] = len(seen)
        if side not in sides:
            raise Refusal(f"unknown side {side!r} (declared: {', '.join(sides)})", f'"{side}"', ".side")
        if tid not in types:
            raise Refusal(f"unknown unit type {tid!r} (declared: {', '.join(types)})", f'"{tid}"', ".type")
        utype = types[tid]
        return Unit(uid, side, tid, spec.get("name", uid), _frozen({**utype.front, **spec["front"]}),
                    _frozen({**utype.back, **spec["back"]}))

    units = Array(Convert(_UNIT, unit)).read(doc["units"], "units", src.error)
    return Counters(_frozen(sides), _frozen(types), tuple(units), src.name)


# --------------------------------------------------------------------------- charts


@dataclass(frozen=True, eq=False)
class ResultTable:
    """A result table: ``columns`` across, one row per (modified) die result.

    ``result("3:1", 4)`` reads a cell.  With ``clamp`` the rows are integers
    and a modified roll beyond the first or last row reads that row.
    """

    name: str
    title: str
    dice: str
    columns: tuple[str, ...]
    rows: Mapping[str, tuple[str, ...]]
    clamp: bool = False

    def column_index(self, column: str) -> int:
        try:
            return self.columns.index(column)
        except ValueError:
            raise InputError(f"{self.title or self.name} has no column {column!r} (columns: {', '.join(self.columns)})") from None

    def shift(self, column: str, steps: int) -> str:
        """The column ``steps`` to the right (negative: left), stopping at the edges."""
        i = self.column_index(column) + steps
        return self.columns[max(0, min(len(self.columns) - 1, i))]

    def row_key(self, row: int | str) -> str:
        """The row a roll reads (clamped to the first/last row when ``clamp``)."""
        if self.clamp and isinstance(row, int):
            numbers = [int(k) for k in self.rows]
            row = max(min(numbers), min(max(numbers), row))
        key = str(row)
        if key not in self.rows:
            raise InputError(f"{self.title or self.name} has no row {row!r} (rows: {', '.join(self.rows)})")
        return key

    def result(self, column: str, row: int | str) -> str:
        """The cell at ``column`` and ``row``."""
        return self.rows[self.row_key(row)][self.column_index(column)]


@dataclass(frozen=True, eq=False)
class Charts:
    """Terrain costs and other movement prices (half-MP; ``None`` = cannot
    enter), result tables and free constants."""

    terrain_costs: Mapping[str, int | None]
    movement: Mapping[str, int]
    tables: Mapping[str, ResultTable]
    values: Mapping[str, Value]
    source: str = ""

    def terrain_cost(self, terrain: str) -> int | None:
        """Half-MP to enter ``terrain`` (None: prohibited)."""
        try:
            return self.terrain_costs[terrain]
        except KeyError:
            raise InputError(f"no terrain cost for {terrain!r}") from None

    def table(self, name: str) -> ResultTable:
        try:
            return self.tables[name]
        except KeyError:
            raise InputError(f"no chart {name!r} (known: {', '.join(self.tables)})") from None


def load_charts(source: Source, name: str | None = None, *, terrains: Iterable[str] | None = None) -> Charts:
    """Load and validate ``charts.toml``.  With ``terrains`` (the map's terrain
    names) every terrain must have a cost and no other may::

        [terrain_costs]           # MP to enter; "P" = prohibited
        clear = 1
        lake = "P"

        [movement]                # other prices, in MP
        road = 0.5

        [values]                  # free constants of the rules
        stack_limit = 3

        [tables.crt]
        title = "Combat Results Table"
        dice = "1d6"
        columns = ["1:1", "2:1"]
        clamp = true              # rows are rolls; off-table rolls read the end rows
        [tables.crt.rows]
        1 = ["-", "DF"]           # one result per column, in order...
        2 = { "1:1" = "AF", "2:1" = "-" }   # ...or named
    """
    src, data = DataFile.read(source, name, "charts.toml")
    doc = CHARTS_FILE.read(data, "", src.error)
    costs = doc["terrain_costs"]
    if terrains is not None:
        declared = list(terrains)
        for t in costs:
            if t not in declared:
                raise src.error(f"terrain_costs.{t}", f"unknown terrain {t!r} (the map declares: {', '.join(declared)})")
        for t in declared:
            if t not in costs:
                raise src.error("terrain_costs", f"no cost for terrain {t!r}, which the map declares")
    tables = {tname: _result_table(src, tname, spec) for tname, spec in doc["tables"].items()}
    return Charts(_frozen(costs), _frozen(doc["movement"]), _frozen(tables), _frozen(doc["values"]), src.name)


class _MP(Shape["int | None"]):
    """A price in MP, kept as half-MP; with ``prohibited`` also a word of :data:`PROHIBITED` (None)."""

    def __init__(self, prohibited: bool):
        self.prohibited = prohibited

    def read(self, value: Any, path: str, fail: Fail) -> int | None:
        if isinstance(value, str) and self.prohibited and value in PROHIBITED:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            allowed = f"a number of MP or one of {', '.join(map(repr, PROHIBITED))}" if self.prohibited else "a number of MP"
            raise fail(path, f"expected {allowed}, got {value!r}", None)
        try:
            return half_mp(value)
        except InputError as err:
            raise fail(path, str(err), None) from None


def _columns(columns: list[str]) -> str | None:
    dup = next((c for c in columns if columns.count(c) > 1), None)
    return None if dup is None else f"column {dup!r} appears twice"


class _Clamp(Shape[bool]):
    def read(self, value: Any, path: str, fail: Fail) -> bool:
        if not isinstance(value, bool):
            raise fail(path, f"expected true or false, got {value!r}", None)
        return value


_RESULT_TABLE = Table({
    "title": Key(Str(), OMIT), "dice": Key(Str(), "1d6"),
    "columns": Check(Array(Str(), least=1, complaint="a table needs at least one column"), _columns),
    "rows": Entries(TypeSwitch({list: Any_(), dict: Any_()}, "an array or a table of results"),
                    least=1, empty="a table needs at least one row"),
    "clamp": Key(_Clamp(), False),
})
#: charts.toml.
CHARTS_FILE = Table({
    "terrain_costs": Key(Entries(_MP(True)), {}),
    "movement": Key(Entries(_MP(False)), {}),
    "tables": Key(Entries(_RESULT_TABLE), {}),
    "values": Key(VALUES, {}),
})


def _result_table(src: DataFile, tname: str, spec: dict[str, Any]) -> ResultTable:
    """``[tables.<tname>]``: its rows, each a result for every column."""
    key = f"tables.{tname}"
    columns, clamp = tuple(spec["columns"]), spec["clamp"]
    rows: dict[str, tuple[str, ...]] = {}
    for rk, cells in spec["rows"].items():
        rkey = f"{key}.rows.{rk}"
        if clamp and not re.fullmatch(r"-?[0-9]+", rk):
            raise src.error(rkey, f"row {rk!r} is not an integer, but the table clamps rolls")
        if isinstance(cells, list):
            if len(cells) != len(columns):
                missing = columns[len(cells):]
                what = f"missing column {missing[0]!r}" if missing else f"{len(cells) - len(columns)} extra"
                raise src.error(rkey, f"{len(cells)} results for {len(columns)} columns ({what})")
            row = tuple(Array(Str()).read(cells, rkey, src.error))
        else:
            for c in columns:
                if c not in cells:
                    raise src.error(rkey, f"missing column {c!r}")
            for c in cells:
                if c not in columns:
                    raise src.error(f"{rkey}.{c}", f"unknown column {c!r} (columns: {', '.join(columns)})")
            row = tuple(Str().read(cells[c], f"{rkey}.{c}", src.error) for c in columns)
        rows[rk] = row
    return ResultTable(tname, spec.get("title", tname), spec["dice"], columns, _frozen(rows), clamp)


# --------------------------------------------------------------------------- the data set


REQUIRED_FILES = ("map.toml", "counters.toml", "charts.toml")


@dataclass(frozen=True, eq=False)
class DataSet:
    """A game's loaded data directory: map, counters, charts, and the bytes of
    every data file (``*.toml``, recursively) that pin the ruleset."""

    map: GameMap
    counters: Counters
    charts: Charts
    sources: tuple[str, ...]
    _files: tuple[tuple[str, bytes], ...] = field(repr=False)

    @classmethod
    def load(cls, directory: str | Path, override: str | Path | None = None) -> DataSet:
        """Same as :func:`load_dataset`."""
        return load_dataset(directory, override)

    def files(self) -> list[tuple[str, bytes]]:
        """``(relative path, bytes)`` of every data file, sorted by path."""
        return list(self._files)

    def file(self, name: str) -> bytes:
        """The bytes of data file ``name`` (e.g. a scenario)."""
        for fname, blob in self._files:
            if fname == name:
                return blob
        raise InputError(f"no data file {name!r} (files: {', '.join(n for n, _ in self._files)})")

    def ruleset_hash(self) -> str:
        """SHA-256 (hex) of :meth:`files`, see :func:`ruleset_hash`."""
        return ruleset_hash(self._files)


def load_dataset(directory: str | Path, override: str | Path | None = None, exclude: Iterable[str] = ()) -> DataSet:
    """Load a game's data directory (``map.toml``, ``counters.toml``,
    ``charts.toml`` and any other ``*.toml``).

    ``override`` (the ``--data DIR`` option) is a directory whose files
    replace the same-named files of ``directory`` -- an owner of the printed
    game may supply just ``charts.toml``.  The ruleset hash covers the files
    actually used, so both players must use the same ones.  ``exclude``:
    files of ``directory`` that are not data (:func:`~pbem.engine.datafiles.data_files`)."""
    files = data_files(directory, override, REQUIRED_FILES, exclude)
    gmap = load_map(files["map.toml"][1], name=str(files["map.toml"][0]))
    counters = load_counters(files["counters.toml"][1], name=str(files["counters.toml"][0]))
    charts = load_charts(files["charts.toml"][1], name=str(files["charts.toml"][0]), terrains=gmap.terrain_types)
    return DataSet(
        map=gmap,
        counters=counters,
        charts=charts,
        sources=tuple(str(p) for p, _ in files.values()),
        _files=tuple((n, b) for n, (_, b) in sorted(files.items())),
    )
