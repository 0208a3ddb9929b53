"""Human Wave (8.5.1), checked on ASL board hex coordinates.

"Chinese Infantry may conduct a Human Wave, which is treated like a Banzai
Charge (8.1.8.6) except as stated otherwise.  The Human Wave must consist of
at least six MMC (and an average of at least two MMC per hex) in a contiguous
chain of three or more hexes, none of which are adjacent to an enemy unit."

Readings (the Banzai Charge rules, 8.1.8.6, are not in the excerpt):

* the hexes of the wave are those holding its units; "contiguous chain"
  means every hex is joined to the others through adjacent hexes of the wave;
* the average counts MMC (squads, HS, crews) over every hex of the wave,
  including a hex holding only a leader;
* a hex holding an enemy unit fails like one adjacent to an enemy unit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from pbem.engine.hexes import Hex
from pbem.errors import InputError
from pbem.games.asl.berserk import Check
from pbem.games.asl.board import components, sorted_labels
from pbem.games.asl.data import AslData
from pbem.games.asl.position import Position, Unit


@dataclass(frozen=True)
class HumanWave:
    valid: bool
    checks: tuple[Check, ...]
    units: tuple[str, ...]
    hexes: tuple[str, ...]
    mmc: int

    @property
    def failures(self) -> tuple[Check, ...]:
        return tuple(c for c in self.checks if not c.ok)

    def summary(self) -> str:
        if self.valid:
            return f"a valid Human Wave: {self.mmc} MMC in {' '.join(self.hexes)}"
        return "not a valid Human Wave: " + "; ".join(c.text for c in self.failures)

    def to_json(self) -> dict:
        return {"valid": self.valid, "units": list(self.units), "hexes": list(self.hexes), "mmc": self.mmc,
                "checks": [c.to_json() for c in self.checks]}


def participants(position: Position, units: Sequence[str] | None, hexes: Sequence[str] | None) -> list[Unit]:
    """The units of the wave: those named, or every friendly unit in the hexes named."""
    if (units is None) == (hexes is None):
        raise InputError("a Human Wave names either its units or its hexes", field="units")
    if units is not None:
        return [position.unit(u) for u in units]
    assert hexes is not None  # one of the two is given: checked above
    where = {position.board.parse(h) for h in hexes}
    found = [u for u in position.friendly() if u.hex in where]
    return found


def check(position: Position, data: AslData, *, units: Sequence[str] | None = None,
          hexes: Sequence[str] | None = None) -> HumanWave:
    """Every condition of 8.5.1, met or not."""
    hw = data.human_wave
    rule = hw["rule"]
    wave = participants(position, units, hexes)
    nationality = data.nationality(position.nationality)
    checks: list[Check] = []
    checks.append(Check(rule, nationality.human_wave,
                        f"{nationality.name} Infantry " + ("may conduct a Human Wave" if nationality.human_wave
                                                           else "may not: Human Wave is a Chinese rule")))
    enemy = [u for u in wave if u.enemy]
    not_inf = [u for u in wave if not u.enemy and not u.is_infantry]
    if enemy or not_inf:
        checks.append(Check(rule, False, "only friendly Infantry take part: not " + ", ".join(u.name for u in enemy + not_inf)))
    cells: set[Hex] = {u.hex for u in wave}
    if hexes is not None:
        named = {position.board.parse(h) for h in hexes}
        empty = named - cells
        if empty:
            checks.append(Check(rule, False, f"no friendly unit in {' '.join(sorted_labels(position.board, empty))}"))
        cells |= named
    mmc = sum(1 for u in wave if u.is_mmc and not u.enemy)
    checks.append(Check(rule, mmc >= hw["min_mmc"], f"{mmc} MMC" + ("" if mmc >= hw["min_mmc"] else f"; at least {hw['min_mmc']}")))
    n = len(cells)
    checks.append(Check(rule, n >= hw["min_hexes"], f"{n} hexes" + ("" if n >= hw["min_hexes"] else f"; a chain of {hw['min_hexes']} or more")))
    groups = components(cells)
    if len(groups) <= 1:
        checks.append(Check(rule, True, "the hexes are contiguous"))
    else:
        parts = " | ".join(" ".join(sorted_labels(position.board, g)) for g in sorted(groups, key=lambda g: sorted_labels(position.board, g)))
        checks.append(Check(rule, False, f"the hexes are not a contiguous chain: {parts}"))
    if n:
        ok = mmc >= hw["min_mmc_per_hex"] * n
        avg = f"{mmc}/{n} = {mmc / n:.2f}".rstrip("0").rstrip(".")
        checks.append(Check(rule, ok, f"an average of {avg} MMC per hex" + ("" if ok else f"; at least {hw['min_mmc_per_hex']}")))
    near = []
    for h in sorted(cells, key=position.board.label):
        for e in position.enemies():
            if e.hex == h:
                near.append(f"{position.label(h)} holds {e.name}")
            elif e.hex.is_adjacent(h):
                near.append(f"{position.label(h)} is adjacent to {e.name}")
    checks.append(Check(rule, not near, "no hex is adjacent to an enemy unit" if not near else "; ".join(near)))
    valid = all(c.ok for c in checks)
    return HumanWave(valid, tuple(checks), tuple(u.id for u in wave), tuple(sorted_labels(position.board, cells)), mmc)
