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

import math
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, Iterable, Iterator, Mapping

from pbem.engine.hexes import OFFSET_LAYOUTS, Grid, Hex, Hexside, Layout
from pbem.engine.paths import half_mp
from pbem.engine.ruleset import ruleset_hash
from pbem.errors import DataError, InputError

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
        self.lines = text.splitlines()

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
        from pbem.util.tomlfile import parse

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
        line = self.line_of(key, needle)
        where = f"{self.name}, line {line}" if line else self.name
        return DataError(f"{where}: {key}: {what}", field=key)

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
        import difflib

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


def load_map(source: Source, name: str | None = None) -> GameMap:
    """Load and validate a map from a path or the bytes of a TOML file.

    ``name`` is how messages call the file (default: the path, or "map.toml")."""
    src, data = DataFile.read(source, name, "map.toml")
    src.keys(data, "", ("map", "terrain", "hexes", "features", "key_locations", "hexsides", "places", "boxes"), ("map", "terrain"))

    # [map] ------------------------------------------------------------------
    head = src.table(data["map"], "map")
    src.keys(head, "map", ("name", "layout", "columns", "rows", "digits", "default_terrain", "note"), ("layout", "columns", "rows"))
    layout_name = src.string(head["layout"], "map.layout")
    if layout_name not in OFFSET_LAYOUTS:
        raise src.error("map.layout", f"unknown layout {layout_name!r} (one of {', '.join(OFFSET_LAYOUTS)})")
    extent = {}
    for k in ("columns", "rows", "digits"):
        if k not in head:
            continue
        pair = src.array(head[k], f"map.{k}")
        if len(pair) != 2:
            raise src.error(f"map.{k}", f"expected two integers [first, last], got {pair!r}")
        extent[k] = (src.integer(pair[0], f"map.{k}[0]"), src.integer(pair[1], f"map.{k}[1]"))
    digits = extent.get("digits", (2, 2))
    try:
        grid = Grid(Layout(layout_name, *digits), extent["columns"], extent["rows"])
    except InputError as err:
        raise src.error("map", str(err)) from None

    # [terrain] --------------------------------------------------------------
    terrains: dict[str, TerrainType] = {}
    tt = src.table(data["terrain"], "terrain")
    if not tt:
        raise src.error("terrain", "declares no terrain")
    for i, (tname, spec) in enumerate(tt.items()):
        key = f"terrain.{tname}"
        spec = src.table(spec, key)
        src.keys(spec, key, ("label", "colour", "symbol"))
        colour = src.string(spec.get("colour", _DEFAULT_COLOURS[i % len(_DEFAULT_COLOURS)]), f"{key}.colour")
        if not _COLOUR.fullmatch(colour):
            raise src.error(f"{key}.colour", f"colour {colour!r} is not #rrggbb")
        symbol = src.string(spec.get("symbol", tname[:1].lower()), f"{key}.symbol")
        if len(symbol) != 1:
            raise src.error(f"{key}.symbol", f"symbol {symbol!r} must be one character")
        label = src.string(spec.get("label", tname.replace("_", " ")), f"{key}.label")
        terrains[tname] = TerrainType(tname, label, colour, symbol)

    def known_terrain(tname: str, key: str) -> str:
        if tname not in terrains:
            raise src.error(key, f"unknown terrain {tname!r} (declared: {', '.join(terrains)})", needle=tname)
        return tname

    default = head.get("default_terrain")
    if default is not None:
        known_terrain(src.string(default, "map.default_terrain"), "map.default_terrain")

    # [hexes] ----------------------------------------------------------------
    terrain: dict[Hex, str] = {}
    for tname, hexes in src.table(data.get("hexes", {}), "hexes").items():
        known_terrain(tname, f"hexes.{tname}")
        for i, value in enumerate(src.array(hexes, f"hexes.{tname}")):
            key = f"hexes.{tname}[{i}]"
            h = src.hex(grid, value, key)
            if h in terrain:
                raise src.error(key, f"hex {value!r} already has terrain {terrain[h]!r}", needle=f'"{value}"')
            terrain[h] = tname
    every_hex = tuple(grid.hexes())
    for h in every_hex:
        if h not in terrain:
            if default is None:
                raise src.error("hexes", f"hex {grid.label(h)!r} has no terrain and [map] sets no default_terrain")
            terrain[h] = default

    # [features] -------------------------------------------------------------
    feats = src.table(data.get("features", {}), "features")
    src.keys(feats, "features", ("towns", "coastal"))
    feature_sets: dict[str, frozenset[Hex]] = {}
    for fname in ("towns", "coastal"):
        values = src.array(feats.get(fname, []), f"features.{fname}")
        feature_sets[fname] = frozenset(src.hex(grid, v, f"features.{fname}[{i}]") for i, v in enumerate(values))

    # [key_locations] --------------------------------------------------------
    keys: dict[Hex, KeyLocation] = {}
    for label, spec in src.table(data.get("key_locations", {}), "key_locations").items():
        key = f"key_locations.{label}"
        h = src.hex(grid, label, key)
        spec = src.table(spec, key)
        src.keys(spec, key, ("name", "vp"), ("vp",))
        vp = tuple(src.integer(v, f"{key}.vp[{i}]") for i, v in enumerate(src.array(spec["vp"], f"{key}.vp")))
        keys[h] = KeyLocation(h, src.string(spec.get("name", label), f"{key}.name"), vp)

    # [hexsides] -------------------------------------------------------------
    sides: dict[str, set[Hexside]] = {f: set() for f in HEXSIDE_FEATURES}
    chains: dict[str, list[tuple[Hex, ...]]] = {f: [] for f in HEXSIDE_FEATURES}
    hs = src.table(data.get("hexsides", {}), "hexsides")
    for fname, value in hs.items():
        if fname not in HEXSIDE_FEATURES:
            raise src.error(f"hexsides.{fname}", f"unknown hexside feature {fname!r} (known: {', '.join(HEXSIDE_FEATURES)})")
        for i, chain in enumerate(src.array(value, f"hexsides.{fname}")):
            ckey = f"hexsides.{fname}[{i}]"
            chain = src.array(chain, ckey)
            if len(chain) < 2:
                raise src.error(ckey, f"a chain needs at least two hexes, got {chain!r}")
            hexes = tuple(src.hex(grid, v, f"{ckey}[{j}]") for j, v in enumerate(chain))
            for j, (a, b) in enumerate(zip(hexes, hexes[1:], strict=False), start=1):
                if not a.is_adjacent(b):
                    why = "repeats the previous hex" if a == b else f"is not adjacent to {chain[j - 1]!r}"
                    raise src.error(f"{ckey}[{j}]", f"{chain[j]!r} {why}", needle=f'"{chain[j]}"')
                sides[fname].add(Hexside(a, b))
            chains[fname].append(hexes)

    # [places] and [boxes] ---------------------------------------------------
    places = {
        pname: src.hex(grid, v, f"places.{pname}")
        for pname, v in src.table(data.get("places", {}), "places").items()
    }
    boxes: dict[str, OffMapBox] = {}
    for box_id, spec in src.table(data.get("boxes", {}), "boxes").items():
        key = f"boxes.{box_id}"
        spec = src.table(spec, key)
        src.keys(spec, key, ("name", "kind", "target"))
        target = src.hex(grid, spec["target"], f"{key}.target") if "target" in spec else None
        boxes[box_id] = OffMapBox(
            box_id,
            src.string(spec.get("name", box_id), f"{key}.name"),
            src.string(spec.get("kind", "box"), f"{key}.kind"),
            target,
        )

    return GameMap(
        name=src.string(head.get("name", ""), "map.name"),
        grid=grid,
        terrain_types=_frozen(terrains),
        terrain=_frozen({h: terrain[h] for h in every_hex}),
        towns=feature_sets["towns"],
        coastal=feature_sets["coastal"],
        key_locations=_frozen(keys),
        hexsides=_frozen({f: frozenset(s) for f, s in sides.items()}),
        chains=_frozen({f: tuple(c) for f, c in chains.items()}),
        places=_frozen(places),
        boxes=_frozen(boxes),
        source=src.name,
        note=src.string(head.get("note", ""), "map.note"),
    )


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


def _values(src: DataFile, value: Any, key: str) -> dict[str, Value]:
    table = src.table(value, key)
    for k, v in table.items():
        if not isinstance(v, (int, float, str, bool)):
            raise src.error(f"{key}.{k}", f"expected a number, string or boolean, got {_kind(v)}")
        if isinstance(v, float) and not math.isfinite(v):
            raise src.error(f"{key}.{k}", f"value {v!r} is not finite")
    return dict(table)


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
    src.keys(data, "", ("sides", "types", "units"), ("sides", "types", "units"))
    sides: dict[str, Side] = {}
    palette = ("#b03a2e", "#2e5fa8", "#3c8d40", "#8e44ad")
    for i, (sid, spec) in enumerate(src.table(data["sides"], "sides").items()):
        key = f"sides.{sid}"
        spec = src.table(spec, key)
        src.keys(spec, key, ("name", "colour"))
        colour = src.string(spec.get("colour", palette[i % len(palette)]), f"{key}.colour")
        if not _COLOUR.fullmatch(colour):
            raise src.error(f"{key}.colour", f"colour {colour!r} is not #rrggbb")
        sides[sid] = Side(sid, src.string(spec.get("name", sid), f"{key}.name"), colour)
    if not sides:
        raise src.error("sides", "declares no side")

    types: dict[str, UnitType] = {}
    for tid, spec in src.table(data["types"], "types").items():
        key = f"types.{tid}"
        spec = src.table(spec, key)
        src.keys(spec, key, ("name", "front", "back"), ("front",))
        front = _values(src, spec["front"], f"{key}.front")
        back = _values(src, spec.get("back", {}), f"{key}.back")
        types[tid] = UnitType(tid, src.string(spec.get("name", tid), f"{key}.name"), _frozen(front), _frozen(back))

    units: list[Unit] = []
    seen: dict[str, int] = {}
    for i, spec in enumerate(src.array(data["units"], "units")):
        key = f"units[{i}]"
        spec = src.table(spec, key)
        src.keys(spec, key, ("id", "side", "type", "name", "front", "back"), ("id", "side", "type"))
        uid = src.string(spec["id"], f"{key}.id")
        if uid in seen:
            raise src.error(f"{key}.id", f"duplicate unit id {uid!r} (first at units[{seen[uid]}])", needle=f'"{uid}"')
        seen[uid] = i
        side = src.string(spec["side"], f"{key}.side")
        if side not in sides:
            raise src.error(f"{key}.side", f"unknown side {side!r} (declared: {', '.join(sides)})", needle=f'"{side}"')
        tid = src.string(spec["type"], f"{key}.type")
        if tid not in types:
            raise src.error(f"{key}.type", f"unknown unit type {tid!r} (declared: {', '.join(types)})", needle=f'"{tid}"')
        utype = types[tid]
        front = {**utype.front, **_values(src, spec.get("front", {}), f"{key}.front")}
        back = {**utype.back, **_values(src, spec.get("back", {}), f"{key}.back")}
        units.append(Unit(uid, side, tid, src.string(spec.get("name", uid), f"{key}.name"), _frozen(front), _frozen(back)))
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
    src.keys(data, "", ("terrain_costs", "movement", "tables", "values"))

    def mp(value: Any, key: str, prohibited_ok: bool) -> int | None:
        if isinstance(value, str) and prohibited_ok and value in PROHIBITED:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            allowed = f"a number of MP or one of {', '.join(map(repr, PROHIBITED))}" if prohibited_ok else "a number of MP"
            raise src.error(key, f"expected {allowed}, got {value!r}")
        try:
            return half_mp(value)
        except InputError as err:
            raise src.error(key, str(err)) from None

    costs = {
        t: mp(v, f"terrain_costs.{t}", True)
        for t, v in src.table(data.get("terrain_costs", {}), "terrain_costs").items()
    }
    if terrains is not None:
        declared = list(terrains)
        for t in costs:
            if t not in declared:
                raise src.error(f"terrain_costs.{t}", f"unknown terrain {t!r} (the map declares: {', '.join(declared)})")
        for t in declared:
            if t not in costs:
                raise src.error("terrain_costs", f"no cost for terrain {t!r}, which the map declares")
    movement = {
        k: mp(v, f"movement.{k}", False)
        for k, v in src.table(data.get("movement", {}), "movement").items()
    }
    values = _values(src, data.get("values", {}), "values")

    tables: dict[str, ResultTable] = {}
    for tname, spec in src.table(data.get("tables", {}), "tables").items():
        key = f"tables.{tname}"
        spec = src.table(spec, key)
        src.keys(spec, key, ("title", "dice", "columns", "rows", "clamp"), ("columns", "rows"))
        columns = tuple(src.string(c, f"{key}.columns[{i}]") for i, c in enumerate(src.array(spec["columns"], f"{key}.columns")))
        if not columns:
            raise src.error(f"{key}.columns", "a table needs at least one column")
        if len(set(columns)) != len(columns):
            dup = next(c for c in columns if columns.count(c) > 1)
            raise src.error(f"{key}.columns", f"column {dup!r} appears twice")
        clamp = spec.get("clamp", False)
        if not isinstance(clamp, bool):
            raise src.error(f"{key}.clamp", f"expected true or false, got {clamp!r}")
        rows: dict[str, tuple[str, ...]] = {}
        raw_rows = src.table(spec["rows"], f"{key}.rows")
        if not raw_rows:
            raise src.error(f"{key}.rows", "a table needs at least one row")
        for rk, cells in raw_rows.items():
            rkey = f"{key}.rows.{rk}"
            if clamp and not re.fullmatch(r"-?[0-9]+", rk):
                raise src.error(rkey, f"row {rk!r} is not an integer, but the table clamps rolls")
            if isinstance(cells, list):
                if len(cells) != len(columns):
                    missing = columns[len(cells):]
                    what = f"missing column {missing[0]!r}" if missing else f"{len(cells) - len(columns)} extra"
                    raise src.error(rkey, f"{len(cells)} results for {len(columns)} columns ({what})")
                row = tuple(src.string(c, f"{rkey}[{i}]") for i, c in enumerate(cells))
            elif isinstance(cells, dict):
                for c in columns:
                    if c not in cells:
                        raise src.error(rkey, f"missing column {c!r}")
                for c in cells:
                    if c not in columns:
                        raise src.error(f"{rkey}.{c}", f"unknown column {c!r} (columns: {', '.join(columns)})")
                row = tuple(src.string(cells[c], f"{rkey}.{c}") for c in columns)
            else:
                raise src.error(rkey, f"expected an array or a table of results, got {_kind(cells)}")
            rows[rk] = row
        tables[tname] = ResultTable(
            tname,
            src.string(spec.get("title", tname), f"{key}.title"),
            src.string(spec.get("dice", "1d6"), f"{key}.dice"),
            columns,
            _frozen(rows),
            clamp,
        )
    return Charts(_frozen(costs), _frozen(movement), _frozen(tables), _frozen(values), src.name)


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
    from pbem.engine.datafiles import data_files

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
