"""Ambon's data: the engine's map, counters and charts, plus the Ambon-specific
landing lanes, turn track and scenario files, all validated on load.

The shipped files are a RECONSTRUCTION (see ``data/README.md``); an owner of
the game points ``--data DIR`` at files with the printed values.

Every value the rules read is checked when :class:`AmbonData` is built: a
missing, unknown or mistyped key is a :class:`~pbem.errors.DataError` naming
the file, the line and the key, never a default chosen by the code.  The
schema of each file is in this module (``VALUES``, ``MOVEMENT``, ``FACE``,
``TURN_KEYS``, ``VP_AWARDS`` ...) and in the file's own opening comment.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Mapping, TypeGuard

from pbem.engine.machine import illegal
from pbem.engine.mapdata import PROHIBITED, DataFile, DataSet, load_dataset
from pbem.engine.paths import half_mp
from pbem.errors import DataError, InputError
from pbem.games.ambon.sequence import SEQUENCE, Phase, check_turn_phases
from pbem.games.ambon.state import JAPANESE, Piece

DATA = Path(__file__).parent / "data"
CONCEALED_TYPE = "detachment"  # what a concealed piece moves and stacks as until revealed
DUMMY_TYPE = "dummy"

#: The optional rules the code implements (14.1-14.4); turns.toml gives their VP.
OPTIONAL_RULES = ("14.1", "14.2", "14.3", "14.4")

# --------------------------------------------------------------------------- schemas

#: charts.toml ``[values]``: every free constant the Ambon rules read, as
#: ``name: (kind, rule)``.  Kinds: ``int`` (any integer: DRMs, shifts),
#: ``count`` (an integer >= 0), ``turn`` (a turn number >= 1), ``face`` (a
#: face of the d6), ``factor`` (a number > 0, kept as an exact fraction),
#: ``prohibited`` ("P"), ``column`` (a column of the CRT).
VALUES: dict[str, tuple[str, str]] = {
    "all_sea_hexside": ("prohibited", "8.0"),
    "turn1_allied_move_radius": ("count", "7.1"),
    "stacking_limit": ("count", "9.0"),
    "physical_overstack": ("count", "9.0"),
    "functional_overstack_factor": ("factor", "9.0"),
    "physical_overstack_cf": ("count", "9.0"),
    "crt_shift_mountain": ("int", "11.2"),
    "crt_shift_river": ("int", "11.2"),
    "crt_shift_fortified": ("int", "11.2"),
    "crt_drm_town": ("int", "11.2"),
    "crt_drm_hq_attacker": ("int", "11.1"),
    "crt_drm_hq_defender": ("int", "11.1"),
    "crt_drm_mg_engineer": ("int", "11.0"),
    "unengaged_ezoc_factor": ("factor", "11.0"),
    "crt_lowest_column": ("column", "11.0"),
    "crt_highest_column": ("column", "11.0"),
    "bombard_drm_mountain": ("int", "10.0"),
    "bombard_drm_functional_overstack": ("int", "10.0"),
    "bombard_drm_physical_overstack": ("int", "10.0"),
    "recovery_natural_success": ("face", "12.0"),
    "recovery_drm_ezoc": ("int", "12.0"),
    "recovery_drm_hq_range": ("int", "12.0"),
    "japanese_recovery_from_turn": ("turn", "5.0, 12.0"),
    "landing_drm_kure": ("int", "6.2, 6.3"),
    "landing_drm_per_mine": ("int", "6.1"),
    "landing_drm_late": ("int", "6.2, 6.3"),
    "landing_late_turn": ("turn", "6.2, 6.3"),
    "real_mines": ("count", "4.1"),
    "dummy_mines": ("count", "4.1"),
    "concealed_per_coastal_hex": ("count", "4.1"),
}
#: charts.toml ``[movement]``: the prices 7.0 and 8.0 name.
MOVEMENT = ("road", "trail", "river", "enter_zoc", "leave_zoc")
#: charts.toml ``[tables]`` the rules roll on.
TABLES = ("crt", "unopposed_landing", "opposed_landing")
#: Terrains the rules name (2.1.1; 10.0 and 11.2 mountain; sea can never be entered).
TERRAINS = ("sea", "mountain")
#: Named places the rules name (11.2: the fortified hexsides are Paso's).
PLACES = ("Paso",)
#: Results of the landing tables (6.2, 6.3): ``-Nmp`` (N MP less this turn)
#: and ``combat-F`` (landing combat at F times the CS) carry their number.
LANDING_RESULT = re.compile(r"delayed|no-move|-(?P<mp>\d+(?:\.5)?)mp|combat-(?P<factor>\d+(?:/\d+)?)")
CRT_RESULT = re.compile(r"\d+/\d+[rR]?")

#: counters.toml: every key of every face, as ``name: kind``.
FACE: dict[str, str] = {
    "combat": "number", "move": "mp", "bombard": "count", "range": "count", "command": "count",
    "command_range": "count", "artillery": "bool", "hq": "bool", "zoc": "bool", "stacking": "number",
    "defend_drm": "int", "one_hit": "bool", "concealable": "bool", "dummy": "bool", "nationality": "str",
    "optional_rule": "str",
}

TURN_KEYS = ("number", "date", "half", "label", "phases", "japanese_recovery", "allied_move_restricted")
#: turns.toml ``[vp_awards]`` (3.0, 3.2).
VP_AWARDS = (
    "allied_unit_eliminated", "allied_detachment_eliminated", "allied_dummy_removed", "allied_hq_eliminated",
    "japanese_unit_eliminated", "japanese_hq_eliminated", "beachhead_captured", "allied_surrender",
)
#: landings.toml ``[mines].sweeping``: retired -- 6.4 is read as the game's 6.4
#: ruling says (rulings.toml, chosen in message 0).  The key keeps its one old
#: value, so that the shipped files and data sets made before keep their hash.
SWEEPING = "per-box-per-landing-turn"
#: Not data: the rulings (pbem.games.ambon.rulings), out of the ruleset hash; message 0 pins the readings.
RULINGS_FILE = "rulings.toml"


# --------------------------------------------------------------------------- the values read


@dataclass(frozen=True)
class Spec:
    """The values on the face of a piece that the rules read."""

    kind: str
    combat: Fraction
    move: int  # half-MP
    bombard: int = 0
    range: int = 0
    command: int = 0
    command_range: int = 0
    hq: bool = False
    artillery: bool = False
    zoc: bool = True
    stacking: Fraction = Fraction(1)
    nationality: str = ""
    defend_drm: int = 0
    one_hit: bool = False
    concealable: bool = False
    dummy: bool = False
    optional_rule: str = ""


@dataclass(frozen=True)
class Lane:
    """A landing lane (6.0): its First and Second Wave boxes and beach."""

    id: str
    name: str
    first_wave: str
    second_wave: str
    target: str
    bay: str
    mine_box: str | None


@dataclass(frozen=True)
class Turn:
    """One turn of the turn track (turns.toml ``[[turns]]``, 5.0)."""

    number: int
    date: str
    half: str
    label: str
    phases: tuple[str, ...]
    japanese_recovery: bool  # 5.0, 12.0: the Japanese may make recovery checks
    allied_move_restricted: bool  # 7.1: only Allied units near a Japanese unit may move

    @property
    def surrender_option(self) -> bool:
        """3.2: the Allies may surrender at the start of this turn."""
        return Phase.SURRENDER in self.phases

    @property
    def supply_check(self) -> bool:
        """13.0: the Japanese supply check ends this turn."""
        return Phase.SUPPLY in self.phases


@dataclass(frozen=True)
class VictoryBand:
    """3.0: a band of the Japanese VP total (``low``/``high`` inclusive, None = unbounded)."""

    name: str
    note: str
    low: int | None
    high: int | None


@dataclass(frozen=True)
class KeyLocationClass:
    """turns.toml ``[key_location_classes.<name>]``: a star class of key locations."""

    name: str
    stars: int
    hexes: tuple[str, ...]
    uncontrolled_at_end: int  # 3.0: VP when the Allies control it at game end


def _kind(value: Any) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
            list: "an array", dict: "a table"}.get(type(value), type(value).__name__)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> TypeGuard[int | float]:
    return (_is_int(value) or isinstance(value, float)) and math.isfinite(value)


def _boolean(src: DataFile, value: Any, key: str) -> bool:
    if not isinstance(value, bool):
        raise src.error(key, f"expected true or false, got {_kind(value)} {value!r}")
    return value


def _top(src: DataFile, doc: Mapping[str, Any], allowed: tuple[str, ...], required: tuple[str, ...]) -> None:
    """The top-level tables of a file: an unknown one first (a misspelt
    table is named at its line), then a missing one (no line to name)."""
    for name in doc:
        if name not in allowed:
            raise src.error(name, f"unknown key {name!r} (allowed: {', '.join(allowed)})")
    for name in required:
        if name not in doc:
            raise DataError(f"{src.name}: missing key {name!r} (the file has no [{name}] table)", field=name)


def _at_least(src: DataFile, value: Any, key: str, low: int) -> int:
    number = src.integer(value, key)
    if number < low:
        raise src.error(key, f"expected an integer of at least {low}, got {number}")
    return number


# --------------------------------------------------------------------------- the data


class AmbonData:
    """Everything the Ambon rules read, loaded from a data directory and checked."""

    def __init__(self, directory: str | Path | None = None):
        self.dataset: DataSet = load_dataset(DATA, override=directory, exclude=(RULINGS_FILE,))
        self._directory = None if directory is None else Path(directory)
        self._sources: dict[str, DataFile] = {}
        self.map = self.dataset.map
        self.counters = self.dataset.counters
        self.charts = self.dataset.charts
        self.values: dict[str, Any] = self._values()
        self._check_charts()
        self._check_counters()
        self._check_named()
        landings_src, landings = self._read("landings.toml")
        self.lanes = self._lanes(landings_src, landings)
        self.mine_kinds = {"real": self.values["real_mines"], "dummy": self.values["dummy_mines"]}
        self._check_mines(landings_src, landings)
        self.mine_slots = tuple(f"M{i}" for i in range(1, sum(self.mine_kinds.values()) + 1))
        concealable = [u for u in self.counters.units if u.front["concealable"]]
        dummies = sum(1 for u in concealable if u.front["dummy"])
        self.identities = {"dummy": dummies, "detachment": len(concealable) - dummies}  # 4.1
        self.concealed_slots = tuple(f"X{i}" for i in range(1, len(concealable) + 1))
        turns_src, self.turns = self._read("turns.toml")
        self.turn_track = self._turn_track(turns_src, self.turns)
        self.vp_awards = self._vp_awards(turns_src, self.turns)
        self.optional_rules = self._optional_rules(turns_src, self.turns)
        self.victory_bands = self._victory_bands(turns_src, self.turns)
        self.key_location_classes = self._key_location_classes(turns_src, self.turns)
        scenario_src, scenario = self._read("scenario-historical.toml")
        self._check_scenario(scenario_src, scenario)
        # the position only: the file's example [secret] stays in the file (tests read it there), out of every game's reach
        self.scenario = {key: value for key, value in scenario.items() if key != "secret"}
        self._specs: dict[tuple[str, bool], Spec] = {}
        self._reach: dict[Any, tuple[Any, ...]] = {}
        self.movement_costs: dict[str, tuple[Any, Any]] = {}  # side -> (enemy pieces, cost callback)

    # ------------------------------------------------------------------ files

    def _label(self, name: str) -> str:
        """The path of data file ``name`` as load_dataset names it: the
        override directory's file if it has one, else the shipped one."""
        if self._directory is not None and (self._directory / name).is_file():
            return str(self._directory / name)
        return str(DATA / name)

    def _source(self, name: str) -> DataFile:
        """A data file the engine has read, for errors that point into it."""
        if name not in self._sources:
            self._sources[name] = DataFile(self._label(name), self.dataset.file(name).decode("utf-8"))
        return self._sources[name]

    def _read(self, name: str) -> tuple[DataFile, dict[str, Any]]:
        """Read an Ambon-specific data file: UTF-8 TOML (pbem.util.tomlfile)."""
        try:
            raw = self.dataset.file(name)
        except InputError:
            raise DataError(f"{self._label(name)}: missing data file {name}") from None
        src, doc = DataFile.read(raw, self._label(name), name)
        self._sources[name] = src
        return src, doc

    def files(self):
        return self.dataset.files()

    # ------------------------------------------------------------------ charts.toml

    def _values(self) -> dict[str, Any]:
        """charts.toml ``[values]``: every name of :data:`VALUES`, of its kind, and no other."""
        src = self._source("charts.toml")
        for name in TABLES:
            if name not in self.charts.tables:
                raise src.error("tables", f"missing table [tables.{name}] (the rules roll on it)")
        raw = self.charts.values
        for name in raw:
            if name not in VALUES:
                raise src.error(f"values.{name}", f"unknown key {name!r}: the rules read no such value "
                                                  f"(known: {', '.join(VALUES)})")
        crt = self.charts.tables["crt"]
        out: dict[str, Any] = {}
        for name, (kind, rule) in VALUES.items():
            key = f"values.{name}"
            if name not in raw:
                raise src.error("values", f"missing key {name!r} ({rule}; a {kind} value)")
            value = raw[name]
            if kind in ("int", "count", "turn", "face"):
                number = src.integer(value, key)
                low = {"int": None, "count": 0, "turn": 1, "face": 1}[kind]
                if low is not None and number < low or kind == "face" and number > 6:
                    what = "a face of the die, 1-6" if kind == "face" else f"at least {low}"
                    raise src.error(key, f"expected {what} ({rule}), got {number}")
                out[name] = number
            elif kind == "factor":
                if not _is_number(value) or value <= 0:
                    raise src.error(key, f"expected a number greater than 0 ({rule}), got {_kind(value)} {value!r}")
                out[name] = Fraction(str(value))
            elif kind == "prohibited":
                if value not in PROHIBITED:
                    raise src.error(key, f"expected \"P\" ({rule}: no unit moves or projects a ZOC across it), got {value!r}")
                out[name] = value
            else:  # column
                if value not in crt.columns:
                    raise src.error(key, f"expected a column of [tables.crt] ({', '.join(crt.columns)}), got {value!r}")
                out[name] = value
        if out["physical_overstack"] < out["stacking_limit"]:
            raise src.error("values.physical_overstack", f"{out['physical_overstack']} is below stacking_limit "
                                                         f"{out['stacking_limit']} (9.0)")
        return out

    def _check_charts(self) -> None:
        """charts.toml: the movement prices, the tables and the terrains the rules read."""
        src = self._source("charts.toml")
        src.keys(dict(self.charts.movement), "movement", MOVEMENT, MOVEMENT)
        for name in TABLES:  # clamped: a roll between the first and last rows reads its own row
            rows = sorted(int(r) for r in self.charts.tables[name].rows) if self.charts.tables[name].clamp else []
            gap = next((n for n in range(rows[0], rows[-1]) if n not in rows), None) if rows else None
            if gap is not None:
                raise src.error(f"tables.{name}.rows", f"no row {gap}: the rows of a clamped table run without a gap")
        crt = self.charts.tables["crt"]
        if not crt.clamp:
            raise src.error("tables.crt.clamp", "the CRT's rows are modified rolls: clamp = true (11.0)")
        odds = []
        for i, column in enumerate(crt.columns):
            match = re.fullmatch(r"(\d+):(\d+)", column)
            if not match or "0" in (match.group(1), match.group(2)):
                raise src.error(f"tables.crt.columns[{i}]", f"column {column!r} is not odds like \"3:1\" (11.0)",
                                needle=f'"{column}"')
            odds.append(Fraction(int(match.group(1)), int(match.group(2))))
        if odds != sorted(set(odds)):
            raise src.error("tables.crt.columns", "the columns must run from the worst odds to the best (11.0)")
        for row, cells in crt.rows.items():
            for column, cell in zip(crt.columns, cells, strict=False):
                if not CRT_RESULT.fullmatch(cell):
                    raise src.error(f"tables.crt.rows.{row}", f"result {cell!r} in column {column} is not "
                                                              f"\"A/D\" hits with an optional r or R (11.3)",
                                    needle=f'"{cell}"')
        for end, name in ((crt.columns[0], "crt_lowest_column"), (crt.columns[-1], "crt_highest_column")):
            if self.values[name] != end:
                raise src.error(f"values.{name}", f"{self.values[name]!r}, but the CRT's columns end with "
                                                  f"{end!r}; the two must agree (11.0)")
        for name in ("unopposed_landing", "opposed_landing"):
            table = self.charts.tables[name]
            key = f"tables.{name}"
            if len(table.columns) != 1 or not table.clamp:
                raise src.error(key, "a landing table has one column of results and clamp = true (6.2, 6.3)")
            for row, (cell,) in table.rows.items():
                match = LANDING_RESULT.fullmatch(cell)
                factor = match and match.group("factor")
                if not match or factor and not 0 < Fraction(factor) <= 1:
                    raise src.error(f"{key}.rows.{row}", f"result {cell!r} is not delayed, no-move, -Nmp or "
                                                         f"combat-F (F from 0 to 1, as 1/4)", needle=f'"{cell}"')
        for terrain in TERRAINS:
            if terrain not in self.map.terrain_types:
                raise self._source("map.toml").error("terrain", f"no terrain {terrain!r}, which the rules name")
        for place in PLACES:
            if place not in self.map.places:
                raise self._source("map.toml").error("places", f"no place {place!r}, which 11.2 names")

    # ------------------------------------------------------------------ counters.toml

    def _check_counters(self) -> None:
        """counters.toml: both faces of every type carry every key of
        :data:`FACE`, of its kind, and each counter's own values too; the
        values two files state must agree (HQ support 11.1, the Kure MG and
        engineers' DRM 11.0)."""
        src = self._source("counters.toml")
        faces = [(f"types.{tid}.{face}", getattr(t, face)) for tid, t in self.counters.types.items()
                 for face in ("front", "back")]
        faces += [(f"units[{i}].{face}", u.values(face == "back")) for i, u in enumerate(self.counters.units)
                  for face in ("front", "back")]
        hq_drm = self.values["crt_drm_hq_attacker"]
        for key, values in faces:
            for name in values:
                if name not in FACE:
                    raise src.error(f"{key}.{name}", f"unknown key {name!r} (a face carries: {', '.join(FACE)})")
            for name, kind in FACE.items():
                if name not in values:
                    raise src.error(key, f"missing key {name!r} (every face carries: {', '.join(FACE)})")
                value, where = values[name], f"{key}.{name}"
                if kind == "bool":
                    _boolean(src, value, where)
                elif kind == "str":
                    src.string(value, where)
                elif kind == "count":
                    _at_least(src, value, where, 0)
                elif kind == "int":
                    src.integer(value, where)
                elif not _is_number(value) or value < 0:
                    raise src.error(where, f"expected a number of at least 0, got {_kind(value)} {value!r}")
                elif kind == "mp":
                    try:
                        half_mp(value)
                    except InputError as err:
                        raise src.error(where, str(err)) from None
            if not (values["hq"] or values["dummy"]) and not values["combat"] > 0:
                raise src.error(f"{key}.combat", f"{values['combat']}: every unit but an HQ or a dummy has a "
                                                 f"combat strength (2.2.1, 11.0: the combat ratio divides by it)")
            if values["optional_rule"] not in ("",) + OPTIONAL_RULES:
                raise src.error(f"{key}.optional_rule", f"{values['optional_rule']!r} is not \"\" or one of "
                                                        f"the optional rules {', '.join(OPTIONAL_RULES)}")
            if values["defend_drm"] not in (0, self.values["crt_drm_mg_engineer"]):
                raise src.error(f"{key}.defend_drm", f"{values['defend_drm']}, but charts.toml "
                                                     f"values.crt_drm_mg_engineer = {self.values['crt_drm_mg_engineer']}; "
                                                     f"a unit's defend_drm is 0 or that DRM (11.0)")
            if values["hq"] and (values["command"] != hq_drm or self.values["crt_drm_hq_defender"] != -hq_drm):
                raise src.error(f"{key}.command", f"an HQ's command value {values['command']} is its support "
                                                  f"DRM (11.1: attacker +, defender -), but charts.toml says "
                                                  f"crt_drm_hq_attacker = {hq_drm}, crt_drm_hq_defender = "
                                                  f"{self.values['crt_drm_hq_defender']}; they must agree")
        for tid in (CONCEALED_TYPE, DUMMY_TYPE):
            if tid not in self.counters.types:
                raise src.error("types", f"no unit type {tid!r}: the concealed pieces (4.1, 7.2) are of it")

    def _check_named(self) -> None:
        """The unit ids and hexes the rules code names (4.1, 4.2) exist."""
        from pbem.games.ambon import setup

        src = self._source("counters.toml")
        known = {u.id: u for u in self.counters.units}
        for rule, side, ids in setup.named_units():
            for uid in ids:
                if uid not in known or known[uid].side != side:
                    raise src.error("units", f"no {side} unit {uid!r}, which the rules code names ({rule})")
        for rule, label in setup.named_hexes():
            try:
                self.map.hex(label)
            except InputError as err:
                raise self._source("map.toml").error("hexes", f"hex {label}, which {rule} names: {err}") from None

    # ------------------------------------------------------------------ landings.toml

    def _lanes(self, src: DataFile, doc: Mapping[str, Any]) -> dict[str, Lane]:
        _top(src, doc, ("lanes", "mine_boxes", "mines"), ("lanes", "mine_boxes", "mines"))
        lanes = {}
        boxes = self.map.boxes
        mine_boxes = src.table(doc["mine_boxes"], "mine_boxes")
        for box_id, spec in mine_boxes.items():
            key = f"mine_boxes.{box_id}"
            src.keys(src.table(spec, key), key, ("name", "bay"), ("name", "bay"))
            src.string(spec["name"], f"{key}.name")
            src.string(spec["bay"], f"{key}.bay")
            if box_id not in boxes or boxes[box_id].kind != "mines":
                raise src.error(key, f"{box_id!r} is not one of map.toml's boxes of kind \"mines\"")
        for lane_id, spec in src.table(doc["lanes"], "lanes").items():
            where = f"lanes.{lane_id}"
            spec = src.table(spec, where)
            src.keys(spec, where, ("name", "first_wave", "second_wave", "target", "bay", "mine_box"),
                     ("name", "first_wave", "second_wave", "target", "bay"))
            text = {k: src.string(spec[k], f"{where}.{k}") for k in spec}
            for k, kind in (("first_wave", "first-wave"), ("second_wave", "second-wave"), ("mine_box", "mines")):
                box = text.get(k)
                if box is not None and (box not in boxes or boxes[box].kind != kind):
                    raise src.error(f"{where}.{k}", f"box {box!r} is not one of map.toml's boxes of kind {kind!r}",
                                    needle=f'"{box}"')
            if "mine_box" in text and text["mine_box"] not in mine_boxes:
                raise src.error(f"{where}.mine_box", f"{text['mine_box']!r} is not in [mine_boxes]")
            target = src.hex(self.map.grid, text["target"], f"{where}.target")
            if not self.map.contains(target) or target not in self.map.coastal:
                raise src.error(f"{where}.target", f"target {text['target']} is not a coastal hex")
            lanes[lane_id] = Lane(lane_id, text["name"], text["first_wave"], text["second_wave"],
                                  self.map.label(target), text["bay"], text.get("mine_box"))
        if not lanes:
            raise src.error("lanes", "no [lanes.*] tables")
        return lanes

    def _check_mines(self, src: DataFile, doc: Mapping[str, Any]) -> None:
        """landings.toml ``[mines]``: the 4.1 counts charts.toml also states, and the 6.4 reading."""
        mines = src.table(doc["mines"], "mines")
        src.keys(mines, "mines", ("real", "dummy", "sweeping"), ("real", "dummy", "sweeping"))
        for kind in ("real", "dummy"):
            count = _at_least(src, mines[kind], f"mines.{kind}", 0)
            if count != self.mine_kinds[kind]:
                raise src.error(f"mines.{kind}", f"{count}, but charts.toml values.{kind}_mines = "
                                                 f"{self.mine_kinds[kind]}; the two must agree (4.1)")
        if mines["sweeping"] != SWEEPING:
            raise src.error("mines.sweeping", f"{mines['sweeping']!r}: the key is retired and keeps its one value "
                                              f"{SWEEPING!r}; 6.4 is read as the game's 6.4 ruling says "
                                              f"(pbem new --ruling 6.4=..., README.md)")

    # ------------------------------------------------------------------ turns.toml

    def _turn_track(self, src: DataFile, doc: Mapping[str, Any]) -> tuple[Turn, ...]:
        """turns.toml ``[game]`` and ``[[turns]]`` (4.0, 5.0)."""
        _top(src, doc, ("game", "turns", "victory_bands", "vp_awards", "optional_rules", "key_location_classes",
                        "calibration"),
             ("game", "turns", "victory_bands", "vp_awards", "optional_rules", "key_location_classes"))
        game = src.table(doc["game"], "game")
        src.keys(game, "game", ("turns", "first_turn", "first_date"), ("turns", "first_turn", "first_date"))
        count = _at_least(src, game["turns"], "game.turns", 1)
        first = _at_least(src, game["first_turn"], "game.first_turn", 1)
        src.string(game["first_date"], "game.first_date")
        entries = src.array(doc["turns"], "turns")
        if len(entries) != count:
            raise src.error("game.turns", f"{count} turns, but there are {len(entries)} [[turns]] tables")
        start = self.values["japanese_recovery_from_turn"]
        track = []
        for i, entry in enumerate(entries):
            key = f"turns[{i}]"
            entry = src.table(entry, key)
            src.keys(entry, key, TURN_KEYS, TURN_KEYS)
            number = src.integer(entry["number"], f"{key}.number")
            if number != first + i:
                raise src.error(f"{key}.number", f"expected turn {first + i} (the turns run in order from "
                                                 f"game.first_turn = {first}), got {number}")
            half = src.string(entry["half"], f"{key}.half")
            if half not in ("AM", "PM"):
                raise src.error(f"{key}.half", f"expected \"AM\" or \"PM\", got {half!r}")
            phases = tuple(src.string(p, f"{key}.phases[{j}]")
                           for j, p in enumerate(src.array(entry["phases"], f"{key}.phases")))
            self._check_phases(src, phases, f"{key}.phases")
            turn = Turn(number, src.string(entry["date"], f"{key}.date"), half, src.string(entry["label"], f"{key}.label"),
                        phases, _boolean(src, entry["japanese_recovery"], f"{key}.japanese_recovery"),
                        _boolean(src, entry["allied_move_restricted"], f"{key}.allied_move_restricted"))
            if turn.japanese_recovery != (number >= start):
                raise src.error(f"{key}.japanese_recovery",
                                f"{str(turn.japanese_recovery).lower()} on turn {number}, but charts.toml "
                                f"values.japanese_recovery_from_turn = {start}; the two must agree (5.0, 12.0)")
            track.append(turn)
        gmap = self.map
        for h, location in gmap.key_locations.items():
            if len(location.vp) != count:
                raise self._source("map.toml").error(
                    f"key_locations.{gmap.label(h)}.vp",
                    f"{len(location.vp)} values, but turns.toml has {count} turns: one VP value a turn (3.0)")
        return tuple(track)

    @staticmethod
    def _check_phases(src: DataFile, phases: tuple[str, ...], key: str) -> None:
        """5.0: each turn plays the phases of :data:`sequence.SEQUENCE` in its
        order, each once, the surrender option (3.2) and the supply check
        (13.0) where a turn has them."""
        for j, phase in enumerate(phases):
            if phase not in [s.phase for s in SEQUENCE if s.in_turn]:
                why = check_turn_phases([phase])
                raise src.error(f"{key}[{j}]", why, needle=f'"{phase}"')
        why = check_turn_phases(phases)
        if why:
            raise src.error(key, why)

    @staticmethod
    def _vp_awards(src: DataFile, doc: Mapping[str, Any]) -> dict[str, int]:
        awards = src.table(doc["vp_awards"], "vp_awards")
        src.keys(awards, "vp_awards", VP_AWARDS, VP_AWARDS)
        return {name: src.integer(awards[name], f"vp_awards.{name}") for name in VP_AWARDS}

    @staticmethod
    def _optional_rules(src: DataFile, doc: Mapping[str, Any]) -> dict[str, tuple[str, int]]:
        """14.0: each optional rule's name and VP (rule -> (name, vp))."""
        rules = src.table(doc["optional_rules"], "optional_rules")
        src.keys(rules, "optional_rules", OPTIONAL_RULES, OPTIONAL_RULES)
        out = {}
        for rule in OPTIONAL_RULES:
            key = f"optional_rules.{rule}"
            spec = src.table(rules[rule], key)
            src.keys(spec, key, ("name", "vp"), ("name", "vp"))
            out[rule] = (src.string(spec["name"], f"{key}.name"), src.integer(spec["vp"], f"{key}.vp"))
        return out

    @staticmethod
    def _victory_bands(src: DataFile, doc: Mapping[str, Any]) -> tuple[VictoryBand, ...]:
        """3.0: the bands, in order, covering every total once."""
        entries = src.array(doc["victory_bands"], "victory_bands")
        if not entries:
            raise src.error("victory_bands", "no [[victory_bands]] (3.0)")
        bands: list[VictoryBand] = []
        for i, entry in enumerate(entries):
            key = f"victory_bands[{i}]"
            entry = src.table(entry, key)
            src.keys(entry, key, ("name", "note", "min", "max"), ("name", "note"))
            low = src.integer(entry["min"], f"{key}.min") if "min" in entry else None
            high = src.integer(entry["max"], f"{key}.max") if "max" in entry else None
            if (low is None) != (i == 0) or (high is None) != (i == len(entries) - 1):
                raise src.error(key, "only the first band has no min and only the last no max: every total "
                                     "has a band (3.0)")
            if low is not None and high is not None and low > high:
                raise src.error(f"{key}.min", f"min {low} is above max {high}")
            before = bands[-1].high if i else None  # only the last band has no max: checked above
            if before is not None and low != before + 1:
                raise src.error(f"{key}.min", f"expected {before + 1}, one more than the max of the band "
                                              f"before: every total has one band (3.0)")
            bands.append(VictoryBand(src.string(entry["name"], f"{key}.name"), src.string(entry["note"], f"{key}.note"),
                                     low, high))
        return tuple(bands)

    def _key_location_classes(self, src: DataFile, doc: Mapping[str, Any]) -> dict[str, KeyLocationClass]:
        """3.0: every key location of map.toml in exactly one star class (hex -> class)."""
        gmap = self.map
        found: dict[str, KeyLocationClass] = {}
        for name, spec in src.table(doc["key_location_classes"], "key_location_classes").items():
            key = f"key_location_classes.{name}"
            spec = src.table(spec, key)
            src.keys(spec, key, ("stars", "hexes", "uncontrolled_at_end"), ("stars", "hexes", "uncontrolled_at_end"))
            hexes = []
            for j, text in enumerate(src.array(spec["hexes"], f"{key}.hexes")):
                h = src.hex(gmap.grid, text, f"{key}.hexes[{j}]")
                label = gmap.label(h)
                if h not in gmap.key_locations:
                    raise src.error(f"{key}.hexes[{j}]", f"{label} is not a key location of map.toml", needle=f'"{text}"')
                if label in found:
                    raise src.error(f"{key}.hexes[{j}]", f"{label} is already in class {found[label].name!r}",
                                    needle=f'"{text}"')
                hexes.append(label)
            cls = KeyLocationClass(name, _at_least(src, spec["stars"], f"{key}.stars", 1), tuple(hexes),
                                   src.integer(spec["uncontrolled_at_end"], f"{key}.uncontrolled_at_end"))
            found.update({label: cls for label in hexes})
        for h, location in gmap.key_locations.items():
            if gmap.label(h) not in found:
                raise src.error("key_location_classes", f"key location {location.name} ({gmap.label(h)}) is in "
                                                        f"no class (3.0)")
        return found

    # ------------------------------------------------------------------ scenario-historical.toml

    def _check_scenario(self, src: DataFile, doc: Mapping[str, Any]) -> None:
        """The historical setup: its turn track agrees with turns.toml, and
        every unit, hex, box and concealed slot it names exists."""
        gmap = self.map
        _top(src, doc, ("scenario", "allied", "japanese", "optional", "secret"),
             ("scenario", "allied", "japanese"))
        head = src.table(doc["scenario"], "scenario")
        src.keys(head, "scenario", ("name", "rules", "turns", "first_turn", "first", "optional_rules"),
                 ("turns", "first_turn", "first"))
        for name, value in (("turns", len(self.turn_track)), ("first_turn", self.first_turn)):
            if src.integer(head[name], f"scenario.{name}") != value:
                raise src.error(f"scenario.{name}", f"{head[name]}, but turns.toml says {value}")
        if head["first"] != JAPANESE:
            raise src.error("scenario.first", f"{head['first']!r}: the Japanese player turn comes first (5.0)")
        for j, rule in enumerate(src.array(head.get("optional_rules", []), "scenario.optional_rules")):
            if rule not in OPTIONAL_RULES:
                raise src.error(f"scenario.optional_rules[{j}]", f"{rule!r} is not one of {', '.join(OPTIONAL_RULES)}")
        units = {u.id: u for u in self.counters.units}

        def unit(uid: Any, side: str, key: str, rule: str = "") -> None:
            src.string(uid, key)
            if uid not in units or units[uid].side != side or units[uid].front["concealable"]:
                what = "an Allied" if side == "allied" else "a Japanese"
                raise src.error(key, f"{uid!r} is not {what} unit of counters.toml", needle=f'"{uid}"')
            if units[uid].front["optional_rule"] != rule:
                wanted = f"optional rule {rule}" if rule else "no optional rule"
                raise src.error(key, f"{uid!r} is in play with optional rule {units[uid].front['optional_rule'] or 'none'} "
                                     f"(counters.toml), not {wanted}", needle=f'"{uid}"')

        def box(box_id: Any, kinds: tuple[str, ...], key: str) -> None:
            src.string(box_id, key)
            if box_id not in gmap.boxes or gmap.boxes[box_id].kind not in kinds:
                raise src.error(key, f"{box_id!r} is not one of map.toml's boxes of kind {' or '.join(kinds)}")

        def land(where: Any, key: str, coastal: bool = False) -> None:
            h = src.hex(gmap.grid, where, key)
            if not gmap.contains(h) or gmap.terrain_at(h) == "sea" or coastal and h not in gmap.coastal:
                raise src.error(key, f"{where} is not a {'coastal' if coastal else 'land'} hex of map.toml (4.1)")

        def every(placed: Any, wanted: Any, key: str, what: str) -> None:
            missing = [x for x in wanted if x not in placed]
            if missing:
                raise src.error(key, f"no {what} {missing[0]} (setup = \"historical\" needs every one)")

        allied = src.table(doc["allied"], "allied")
        src.keys(allied, "allied", ("placements", "concealed", "mines"), ("placements", "concealed", "mines"))
        placements = src.table(allied["placements"], "allied.placements")
        for uid, where in placements.items():
            unit(uid, "allied", f"allied.placements.{uid}")
            land(where, f"allied.placements.{uid}")
        every(placements, [u.id for u in self.counters.of_side("allied")
                           if not u.front["concealable"] and not u.front["optional_rule"]], "allied.placements", "unit")
        concealed = src.table(allied["concealed"], "allied.concealed")
        for slot, where in concealed.items():
            if slot not in self.concealed_slots:
                raise src.error(f"allied.concealed.{slot}", f"{slot!r} is not a concealed piece "
                                                            f"({self.concealed_slots[0]}-{self.concealed_slots[-1]})")
            land(where, f"allied.concealed.{slot}", coastal=True)
        every(concealed, self.concealed_slots, "allied.concealed", "concealed piece")
        mines = src.table(allied["mines"], "allied.mines")
        for slot, where in mines.items():
            if slot not in self.mine_slots:
                raise src.error(f"allied.mines.{slot}", f"{slot!r} is not a mine marker "
                                                        f"({self.mine_slots[0]}-{self.mine_slots[-1]})")
            box(where, ("mines",), f"allied.mines.{slot}")
        every(mines, self.mine_slots, "allied.mines", "mine marker")
        japanese = src.table(doc["japanese"], "japanese")
        src.keys(japanese, "japanese", ("boxes",), ("boxes",))
        waves: list[str] = []
        for box_id, ids in src.table(japanese["boxes"], "japanese.boxes").items():
            key = f"japanese.boxes.{box_id}"
            box(box_id, ("first-wave", "second-wave"), key)
            for uid in src.array(ids, key):
                unit(uid, JAPANESE, key)
                if uid in waves:
                    raise src.error(key, f"{uid} is already in another box", needle=f'"{uid}"')
                waves.append(uid)
        every(waves, self.unit_ids(JAPANESE), "japanese.boxes", "unit")
        for rule, spec in src.table(doc.get("optional", {}), "optional").items():
            key = f"optional.{rule}"
            if rule not in OPTIONAL_RULES:
                raise src.error(key, f"{rule!r} is not one of the optional rules {', '.join(OPTIONAL_RULES)}")
            src.keys(src.table(spec, key), key, ("placements",), ("placements",))
            for uid, where in src.table(spec["placements"], f"{key}.placements").items():
                unit(uid, "allied", f"{key}.placements.{uid}", rule)
                land(where, f"{key}.placements.{uid}")
        # [secret]: an example Allied secret, for tests only.  Checked if present, but never kept (see
        # __init__): no game seals it; the Allied player gives or draws their own (4.1, orders.historical)
        if "secret" not in doc:
            return
        secret = src.table(doc["secret"], "secret")
        src.keys(secret, "secret", ("concealed", "mines"), ("concealed", "mines"))
        for table, slots, allowed in (("concealed", self.concealed_slots, ("dummy", "detachment")),
                                      ("mines", self.mine_slots, ("real", "dummy"))):
            values = src.table(secret[table], f"secret.{table}")
            for slot, value in values.items():
                if slot not in slots or value not in allowed:
                    raise src.error(f"secret.{table}.{slot}", f"{slot} = {value!r}: expected one of {', '.join(slots)} "
                                                              f"= {' or '.join(allowed)}")
            every(values, slots, f"secret.{table}", "identity for")

    # ------------------------------------------------------------------ lookups

    @property
    def first_turn(self) -> int:
        return self.turn_track[0].number

    @property
    def last_turn(self) -> int:
        """3.0: the game ends after this turn."""
        return self.turn_track[-1].number

    def turn(self, number: int) -> Turn:
        """The turn track's entry for turn ``number`` (5.0)."""
        i = number - self.first_turn
        if not 0 <= i < len(self.turn_track):
            raise illegal("5.0", f"turn {number} is not on the turn track ({self.first_turn}-{self.last_turn})")
        return self.turn_track[i]

    def zoc_reach(self, h: Any) -> tuple[Any, ...]:
        """8.0: the hexes a unit in ``h`` projects its ZOC into: its land
        neighbours not across an all-sea hexside (computed once per hex)."""
        found = self._reach.get(h)
        if found is None:
            gmap = self.map
            found = self._reach[h] = tuple(
                n for n in h.neighbours()
                if gmap.contains(n) and gmap.terrain_at(n) != "sea" and not gmap.has("all_sea", h, n)
            )
        return found

    def lane_of_box(self, box: str) -> Lane | None:
        return next((lane for lane in self.lanes.values() if box in (lane.first_wave, lane.second_wave)), None)

    def value(self, name: str) -> Any:
        """A constant of charts.toml ``[values]`` (every name of :data:`VALUES`
        is there, of its kind: checked on load)."""
        return self.values[name]

    def unit_ids(self, side: str | None = None) -> list[str]:
        return [u.id for u in self.counters.units if side is None or u.side == side]

    def type_of(self, unit_id: str) -> str:
        return self.counters.unit(unit_id).type

    @property
    def nei_companies(self) -> frozenset[str]:
        """The NEI rifle companies (4.1 counts them by number, not name)."""
        return frozenset(u.id for u in self.counters.units if u.type == "nei-company")

    def spec(self, piece: Piece) -> Spec:
        """The face-up values of ``piece``: a concealed piece counts as a
        detachment (the most it can be) until revealed."""
        if piece.concealed or piece.identity:
            type_id = piece.identity or CONCEALED_TYPE
            key = (f"type:{type_id}", piece.disrupted)
            if key not in self._specs:
                kind = self.counters.types[type_id]
                self._specs[key] = self._spec(type_id, kind.back if piece.disrupted else kind.front)
            return self._specs[key]
        key = (piece.id, piece.disrupted)
        if key not in self._specs:
            unit = self.counters.unit(piece.id)
            self._specs[key] = self._spec(unit.type, unit.values(piece.disrupted))
        return self._specs[key]

    @staticmethod
    def _spec(kind: str, v: Mapping[str, Any]) -> Spec:
        """The values of a face (every key of :data:`FACE`, checked on load)."""
        return Spec(
            kind=kind,
            combat=Fraction(str(v["combat"])),
            move=half_mp(v["move"]),
            bombard=v["bombard"],
            range=v["range"],
            command=v["command"],
            command_range=v["command_range"],
            hq=v["hq"],
            artillery=v["artillery"],
            zoc=v["zoc"],
            stacking=Fraction(str(v["stacking"])),
            nationality=v["nationality"],
            defend_drm=v["defend_drm"],
            one_hit=v["one_hit"],
            concealable=v["concealable"],
            dummy=v["dummy"],
            optional_rule=v["optional_rule"],
        )
