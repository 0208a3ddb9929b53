"""Ambon's rulings (issue 26): the sentences of the rulebook that can be read
more than one way, and the reading of each a game plays.

The table is data, ``data/rulings.toml`` -- each disputed sentence with its
rule number, the sentence quoted, the readings (short name, one-line
meaning), the default -- checked when first read, with errors naming file,
key and line.  The code holds which readings it plays (:data:`PLAYED`): the
file must list exactly those, so no reading is chosen that the code would
ignore.  The proposer chooses (``pbem new --ruling 6.5=landed``, ``--rulings
tournament``); message 0 pins every ruling (``setup.options.rulings``); the
state carries them (:attr:`AmbonState.rulings`, :meth:`AmbonState.ruling`).

The file is read from pbem's own data directory: it is not printed data, a
data set may not replace it, and the ruleset hash does not cover it (message
0 pins the readings themselves).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from pbem.engine.contract import Ruling
from pbem.engine.mapdata import DataFile
from pbem.errors import DataError, InputError

RULINGS_PATH = Path(__file__).parent / "data" / "rulings.toml"

#: The rulings the rules code reads, and the readings it plays of each (the
#: file may list more as ``unplayed``: refused when chosen).
PLAYED: dict[str, tuple[str, ...]] = {
    "6.4": ("per-landing", "every-turn"),  # landing.sweep
    "6.5": ("entry", "landed"),  # entering.entered
    "7.0": ("legs", "one-leg"),  # order.move.Move.effect
    "11.2": ("clamp-then-shift", "shift-then-clamp"),  # combat.odds
    "11.3": ("per-unit", "per-stack"),  # results.stack_refusal, retreat.retreat_units
    "13.1": ("any", "detachment"),  # reveals.voluntary
    "14.2": ("first-wave", "second-wave"),  # reveals.place_second_wave
}
DEFAULT_PRESET = "default"


def rule_order(rule: str) -> tuple[int, ...]:
    """``"6.5"`` < ``"11.2"``: rule numbers in the rulebook's order."""
    return tuple(int(part) for part in rule.split("."))


@dataclass(frozen=True)
class Disputed:
    """One disputed sentence (rulings.toml ``[rulings."<rule>"]``)."""

    rule: str
    title: str
    sentence: str
    default: str
    readings: tuple[tuple[str, str], ...]  # (name, meaning), as the file lists them
    unplayed: tuple[str, ...] = ()

    def meaning(self, reading: str) -> str:
        return dict(self.readings)[reading]

    def names(self) -> str:
        """``entry (the default), landed``"""
        return ", ".join(n + (" (the default)" if n == self.default else "") + (" (not yet played)" if n in self.unplayed else "")
                         for n, _ in self.readings)


@dataclass(frozen=True)
class Table:
    """The whole file: the disputed sentences in rule order, and the presets."""

    rulings: tuple[Disputed, ...]
    presets: tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...]  # (name, note, readings)

    def get(self, rule: str) -> Disputed | None:
        return next((d for d in self.rulings if d.rule == rule), None)

    def defaults(self) -> tuple[tuple[str, str], ...]:
        return tuple((d.rule, d.default) for d in self.rulings)

    def listing(self) -> str:
        return ", ".join(f"{d.rule} ({d.title})" for d in self.rulings)


def load(path: str | Path = RULINGS_PATH) -> Table:
    """Read and check rulings.toml: every key of its schema, of its kind,
    the rulings and readings the code plays (:data:`PLAYED`), presets that
    name known rulings and played readings."""
    src, doc = DataFile.read(Path(path), None, "rulings.toml")
    src.keys(doc, "", ("rulings", "presets"), ("rulings", "presets"))
    table = src.table(doc["rulings"], "rulings")
    for rule in table:
        if rule not in PLAYED:
            raise src.error(f"rulings.{rule}", f"no such ruling in the rules code (it reads {', '.join(PLAYED)})")
    found = []
    for rule in PLAYED:
        key = f"rulings.{rule}"
        if rule not in table:
            raise src.error("rulings", f"missing ruling {rule!r} (the rules code reads it)")
        spec = src.table(table[rule], key)
        src.keys(spec, key, ("title", "sentence", "default", "readings", "unplayed"),
                 ("title", "sentence", "default", "readings"))
        readings = src.table(spec["readings"], f"{key}.readings")
        pairs = tuple((str(name), src.string(meaning, f"{key}.readings.{name}")) for name, meaning in readings.items())
        unplayed = tuple(src.string(u, f"{key}.unplayed") for u in src.array(spec.get("unplayed", []), f"{key}.unplayed"))
        listed = [n for n, _ in pairs]
        for name in unplayed:
            if name not in listed:
                raise src.error(f"{key}.unplayed", f"{name!r} is not one of its readings ({', '.join(listed)})")
        played = sorted(n for n in listed if n not in unplayed)
        if played != sorted(PLAYED[rule]):
            raise src.error(f"{key}.readings", f"the readings played are {', '.join(played) or 'none'}, but the rules "
                                               f"code plays {', '.join(PLAYED[rule])} (list any other as unplayed)")
        default = src.string(spec["default"], f"{key}.default")
        if default not in PLAYED[rule]:
            raise src.error(f"{key}.default", f"{default!r} is not a reading the code plays ({', '.join(PLAYED[rule])})")
        found.append(Disputed(rule, src.string(spec["title"], f"{key}.title"),
                              src.string(spec["sentence"], f"{key}.sentence"), default, pairs, unplayed))
    by_rule = {d.rule: d for d in found}
    presets = []
    for name, spec in src.table(doc["presets"], "presets").items():
        key = f"presets.{name}"
        spec = src.table(spec, key)
        src.keys(spec, key, ("note", "readings"), ("note", "readings"))
        chosen = src.table(spec["readings"], f"{key}.readings")
        for rule, reading in chosen.items():
            d = by_rule.get(rule)
            if d is None:
                raise src.error(f"{key}.readings", f"no ruling {rule!r}", needle=rule)
            if reading not in PLAYED[rule]:
                raise src.error(f"{key}.readings", f"{rule} = {reading!r}: not a reading played ({', '.join(PLAYED[rule])})",
                                needle=rule)
        if name == DEFAULT_PRESET and any(by_rule[r].default != v for r, v in chosen.items()):
            raise src.error(f"{key}.readings", "the default preset names no reading but the defaults")
        presets.append((str(name), src.string(spec["note"], f"{key}.note"),
                        tuple(sorted(((str(r), str(v)) for r, v in chosen.items()), key=lambda rv: rule_order(rv[0])))))
    if DEFAULT_PRESET not in [p[0] for p in presets]:
        raise src.error("presets", f"missing preset {DEFAULT_PRESET!r}")
    return Table(tuple(sorted(found, key=lambda d: rule_order(d.rule))), tuple(presets))


@functools.cache
def table() -> Table:
    """The shipped table, read once."""
    return load()


def defaults() -> tuple[tuple[str, str], ...]:
    """Every ruling at its default reading, in rule order: the state's rulings unless message 0 names others."""
    return table().defaults()


def _checked(rule: str, reading: Any, where: str) -> str:
    found = table().get(rule)
    if found is None:
        raise InputError(f"{where}: Ambon has no ruling {rule!r}; its rulings are {table().listing()}", field="rulings")
    if not isinstance(reading, str) or reading not in dict(found.readings):
        raise InputError(f"{where}.{rule}: unknown reading {reading!r}; the readings of {rule} ({found.title}) are "
                         f"{found.names()}", field=f"rulings.{rule}")
    if reading in found.unplayed:
        raise InputError(f"{where}.{rule}: the reading {reading!r} is listed but not yet played by pbem; "
                         f"the readings of {rule} ({found.title}) are {found.names()}", field=f"rulings.{rule}")
    return reading


def choose(named: Mapping[str, str], preset: str | None = None) -> dict[str, str]:
    """The whole table a proposal pins: ``preset``'s readings (None: the
    defaults), with those ``named`` instead.  InputError for an unknown
    preset, ruling or reading, listing the choices."""
    presets = {name: readings for name, _, readings in table().presets}
    if preset is not None and preset not in presets:
        raise InputError(f"rulings preset {preset!r}: unknown; Ambon's presets are {', '.join(presets)}",
                         field="rulings")
    chosen = dict(defaults())
    chosen.update(presets.get(preset or DEFAULT_PRESET, ()))
    for rule, reading in named.items():
        chosen[rule] = _checked(rule, reading, "rulings")
    return {rule: chosen[rule] for rule in sorted(chosen, key=rule_order)}


def declared(options: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """The rulings message 0's options declare (``options.rulings``),
    checked, and completed with the defaults: a proposal made before rulings
    existed names none and plays the defaults (the readings pbem played then)."""
    given = options.get("rulings", {})
    if not isinstance(given, Mapping):
        raise InputError(f"rulings: expected a table of rule = reading, got {given!r}", field="rulings")
    chosen = dict(defaults())
    for rule, reading in given.items():
        chosen[str(rule)] = _checked(str(rule), reading, "rulings")
    return tuple((rule, chosen[rule]) for rule in sorted(chosen, key=rule_order))


def described(chosen: tuple[tuple[str, str], ...]) -> tuple[Ruling, ...]:
    """The rulings ``chosen`` as the engine contract describes them, for players to read."""
    out = []
    for rule, reading in chosen:
        d = table().get(rule)
        if d is None:
            raise DataError(f"no ruling {rule!r}")
        out.append(Ruling(rule, d.title, d.sentence, reading, d.meaning(reading), reading == d.default, d.readings))
    return tuple(out)


def presets() -> tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...]:
    """(name, note, readings) of every preset."""
    return table().presets
