"""Ambon's data: the engine's map, counters and charts, plus the Ambon-specific
landing lanes, turn track and scenario files, all validated on load.

The shipped files are a RECONSTRUCTION (see ``data/README.md``); an owner of
the game points ``--data DIR`` at files with the printed values.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Mapping

from pbem.engine.mapdata import DataSet, load_dataset
from pbem.errors import DataError
from pbem.games.ambon.state import Piece

DATA = Path(__file__).parent / "data"
CONCEALED_TYPE = "detachment"  # what a concealed piece moves and stacks as until revealed


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


class AmbonData:
    """Everything the Ambon rules read, loaded from a data directory."""

    def __init__(self, directory: str | Path | None = None):
        self.dataset: DataSet = load_dataset(DATA, override=directory)
        self.map = self.dataset.map
        self.counters = self.dataset.counters
        self.charts = self.dataset.charts
        self.lanes = self._lanes(self._toml("landings.toml"))
        self.turns = self._toml("turns.toml")
        self.scenario = self._toml("scenario-historical.toml")
        self._specs: dict[tuple[str, bool], Spec] = {}
        self._reach: dict[Any, tuple[Any, ...]] = {}
        self.movement_costs: dict[str, tuple[Any, Any]] = {}  # side -> (enemy pieces, cost callback)

    # ------------------------------------------------------------------ files

    def _toml(self, name: str) -> dict[str, Any]:
        try:
            return tomllib.loads(self.dataset.file(name).decode("utf-8"))
        except tomllib.TOMLDecodeError as err:
            raise DataError(f"{name}: not valid TOML: {err}") from err

    def files(self):
        return self.dataset.files()

    def _lanes(self, doc: Mapping[str, Any]) -> dict[str, Lane]:
        lanes = {}
        for lane_id, spec in doc.get("lanes", {}).items():
            where = f"landings.toml: lanes.{lane_id}"
            try:
                lane = Lane(
                    lane_id,
                    str(spec.get("name", lane_id)),
                    str(spec["first_wave"]),
                    str(spec["second_wave"]),
                    str(spec["target"]),
                    str(spec.get("bay", "")),
                    spec.get("mine_box") or None,
                )
            except KeyError as err:
                raise DataError(f"{where}: missing key {err.args[0]!r}") from err
            for box in (lane.first_wave, lane.second_wave) + ((lane.mine_box,) if lane.mine_box else ()):
                if box not in self.map.boxes:
                    raise DataError(f"{where}: box {box!r} is not one of map.toml's boxes")
            target = self.map.hex(lane.target)
            if target not in self.map.coastal:
                raise DataError(f"{where}: target {lane.target} is not a coastal hex")
            lanes[lane_id] = lane
        if not lanes:
            raise DataError("landings.toml: no [lanes.*] tables")
        return lanes

    # ------------------------------------------------------------------ lookups

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

    def value(self, name: str, default: Any = None) -> Any:
        return self.charts.values.get(name, default)

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
        def num(name: str, default: Any = 0) -> Fraction:
            return Fraction(str(v.get(name, default)))

        return Spec(
            kind=kind,
            combat=num("combat"),
            move=int(num("move") * 2),
            bombard=int(v.get("bombard", 0)),
            range=int(v.get("range", 0)),
            command=int(v.get("command", 0)),
            command_range=int(v.get("command_range", 0)),
            hq=bool(v.get("hq", False)),
            artillery=bool(v.get("artillery", False)),
            zoc=bool(v.get("zoc", not v.get("hq", False))),
            stacking=num("stacking", 1),
            nationality=str(v.get("nationality", "")),
            defend_drm=int(v.get("defend_drm", 0)),
        )
