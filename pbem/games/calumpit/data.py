"""Calumpit Bridge's data: the 54 event cards, every dice table, the Japanese
attack tables and the scenario, loaded from ``data/*.toml`` and validated
with errors that name the file, the line and the key.

The tables of the TACTICAL RULES and the cards' text are the source's; the
force pool, the entry roads, the failed-morale results, the JAT's layout and
the whole scenario are a RECONSTRUCTION, labelled in the files and in
``data/README.md``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from pbem.engine.datafiles import data_files
from pbem.engine.mapdata import DataFile  # one reader for every game's data: errors name file, line and key
from pbem.util.schema import OMIT, Any_, Array, Bool, Check, Convert, Entries, Int, Key, Number, Shape, Str, Table, TypeSwitch

DATA = Path(__file__).parent / "data"
FILES = ("cards.toml", "tables.toml", "attack.toml", "scenario.toml")
SUITS = ("diamonds", "hearts", "spades", "clubs")
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "Jack", "Queen", "King", "Ace")
RANK_IDS = {"Jack": "J", "Queen": "Q", "King": "K", "Ace": "A"}
NATIONALITIES = ("us", "scouts", "pa", "japanese")
SIDES = ("american", "japanese")
DICE_RE = re.compile(r"^(\d*)d(\d+)(?:\+(\d+))?$")
RANGE_RE = re.compile(r"^(\d+)(?:-(\d+))?$")

EFFECT_KEYS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {  # kind: (required, optional)
    "bombardment": (("target", "rounds", "turns", "direction", "distance", "radius"),
                    ("delay", "bridge", "disable_hits", "explode_on", "note")),
    "strafe": (("start", "toward", "extent", "passes", "road_hits", "roadside_hits", "roadside_inches"), ()),
    "bombers": (("target", "bombs", "distance", "direction"), ()),
    "sniper": (("target", "distance", "direction"), ("unit",)),
    "arrival": (("unit", "where"), ("distance", "from")),
    "jagt": ((), ()),
    "missions": (("name", "missions", "rounds", "turns_per_call", "delay", "available_turns", "direction", "distance", "radius"),
                 ("note",)),
    "withdraw": (("units",), ("kinds",)),
    "banzai": ((), ()),
    "grenades": (("count",), ()),
    "may-draw": (("deck", "condition"), ("side",)),
    "spotter": (("condition", "target", "rounds", "direction", "distance", "radius"), ()),
    "movement": (("modifier",), ()),
    "phones": (("set",), ()),
    "demolition": ((), ()),
}


@dataclass(frozen=True)
class DiceSpec:
    """``d20+10``: ``count`` dice of ``sides`` plus ``plus``."""

    count: int
    sides: int
    plus: int = 0

    @classmethod
    def parse(cls, text: str) -> "DiceSpec":
        m = DICE_RE.match(text.strip().lower())
        if not m:
            raise ValueError(f"{text!r} is not dice like \"d20+10\" or \"3d6\"")
        return cls(int(m.group(1) or 1), int(m.group(2)), int(m.group(3) or 0))

    def __str__(self) -> str:
        return f"{self.count if self.count > 1 else ''}D{self.sides}" + (f"+{self.plus}" if self.plus else "")


@dataclass(frozen=True)
class Card:
    """One event card: its text as printed and what pbem does for it."""

    id: str
    suit: str
    rank: str
    deck: str
    text: str
    effects: tuple[Mapping[str, Any], ...]
    note: str = ""

    @property
    def name(self) -> str:
        if self.suit == "joker":
            return f"Joker ({self.deck} deck)"
        return f"{self.suit.capitalize()} {self.rank}"

    @property
    def rule(self) -> str:
        """The rule id events of this card cite."""
        return "Joker" if self.suit == "joker" else self.name


@dataclass(frozen=True)
class UnitType:
    """A unit the JAT, an event card or the scenario puts on the table."""

    key: str
    name: str
    side: str
    nationality: str
    kind: str
    figures: int
    prefix: str = ""
    ammo_type: str = ""
    guns: int = 1
    officer: bool = False
    target: str = ""  # tank-fire target type of its vehicles
    columns: tuple[frozenset[int], ...] = ()  # JAT: faces of each roll number


def _ranges(src: DataFile, value: Any, key: str, sides: int) -> frozenset[int]:
    text = src.string(value, key).strip()
    if not text:
        return frozenset()
    m = RANGE_RE.match(text)
    if not m:
        raise src.error(key, f"{text!r} is not a range like \"1-15\" or \"20\"", needle=f'"{text}"')
    lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
    if not 1 <= lo <= hi <= sides:
        raise src.error(key, f"{text!r} is not within 1-{sides}", needle=f'"{text}"')
    return frozenset(range(lo, hi + 1))


def _dice(src: DataFile, value: Any, key: str) -> DiceSpec:
    try:
        return DiceSpec.parse(src.string(value, key))
    except ValueError as err:
        raise src.error(key, str(err), needle=str(value)) from None


def _faces(src: DataFile, value: Any, key: str, sides: int) -> tuple[int, ...]:
    faces = src.array(value, key)
    for f in faces:
        if not isinstance(f, int) or isinstance(f, bool) or not 1 <= f <= sides:
            raise src.error(key, f"{f!r} is not a face of a d{sides}")
    return tuple(faces)


def _cover(src: DataFile, key: str, rows: list[tuple[str, frozenset[int]]], sides: int) -> None:
    """Each face 1..sides exactly once."""
    seen: dict[int, str] = {}
    for where, faces in rows:
        for f in faces:
            if f in seen:
                raise src.error(where, f"face {f} is already given by {seen[f]}")
            seen[f] = where
    missing = sorted(set(range(1, sides + 1)) - set(seen))
    if missing:
        raise src.error(key, f"faces {', '.join(map(str, missing))} of the d{sides} have no entry")


def _frozen(value: Any) -> Any:
    if isinstance(value, dict):
        return MappingProxyType({k: _frozen(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


def _one_of(*choices: str) -> Shape[str]:
    words = ", ".join(f'"{c}"' for c in choices[:-1]) + f" or \"{choices[-1]}\""
    return Check(Str(), lambda value: None if value in choices else f"expected {words}, got {value!r}")


def _faces_of(sides: int) -> Array[int]:
    return Array(Check(Int(), lambda f: None if 1 <= f <= sides else f"{f!r} is not a face of a d{sides}"))


def _effect_kind(kind: Any) -> str | None:
    return None if kind in EFFECT_KEYS else f"kind {kind!r} is not one of {', '.join(EFFECT_KEYS)}"


def _effect_table(kind: str, required: tuple[str, ...], optional: tuple[str, ...]) -> Table:
    """An event card's effect of ``kind``: the shape of each of its keys."""
    dice = Convert(Str(), DiceSpec.parse)
    words = {"units": _one_of("tank", "infantry", "all"), "set": _one_of("out", "toggle"),
             "deck": _one_of("red", "black"), "side": _one_of(*SIDES)}
    shapes: dict[str, Shape[Any]] = {
        **{name: dice for name in ("direction", "distance", "extent", "bombs")},
        "rounds": TypeSwitch({int: Int(), str: dice}, "a number of rounds or dice like \"d10\""),
        **{name: Int() for name in ("turns", "radius", "passes", "roadside_inches", "missions", "turns_per_call",
                                    "delay", "available_turns", "count", "disable_hits", "explode_on", "modifier")},
        "road_hits": _faces_of(6), "roadside_hits": _faces_of(6),
        "kinds": Array(Str(nonempty=True), least=1, complaint="kinds must be a list of unit kinds like [\"infantry\", \"hq\"]"),
        **(words if kind in ("withdraw", "phones", "may-draw") else {}),
    }
    return Table({"kind": Any_(), **{name: shapes.get(name, Any_()) for name in required},
                  **{name: Key(shapes.get(name, Any_()), OMIT) for name in optional}})


_INT = Int()
_NUMBERS = Entries(_INT)
_LOOSE = Any_()
EFFECT_TABLES = {kind: _effect_table(kind, *keys) for kind, keys in EFFECT_KEYS.items()}
#: cards.toml.
_UNIT_FIELDS: dict[str, Shape[Any]] = {
    "name": Str(), "side": Str(), "nationality": Str(), "kind": Str(), "prefix": Str(), "figures": Int(),
    "ammo_type": Str(), "guns": Int(), "officer": Bool(), "target": Str(),
}


def _unit_fields(*names: str, optional: tuple[str, ...] = ()) -> dict[str, Key[Any] | Shape[Any]]:
    return {name: Key(_UNIT_FIELDS[name], OMIT) if name in optional else _UNIT_FIELDS[name] for name in names}


_ROLLS = Array(_LOOSE)
#: attack.toml.
ATTACK_FILE = Table({
    "jagt": Table({"sides": Int(low=1), "rows": Array(Table({
        "rolls": _ROLLS,
        "jat_rolls": Check(Int(), lambda n: None if 1 <= n <= 4 else "the JAT has four roll-number columns: 1-4"),
    }, others=_LOOSE))}, others=_LOOSE),
    "jat": Table({"sides": Int(low=1), "order": Array(Str()), "units": Entries(Table({
        "columns": Array(_LOOSE, length=4, complaint="one range (or \"\") for each of the four roll numbers"),
        **_unit_fields("name", "kind", "prefix", "figures", "ammo_type", "guns", "officer", "target",
                       optional=("ammo_type", "guns", "officer", "target")),
    }))}, others=_LOOSE),
    "force_pool": Table({}, others=_LOOSE),
    "entry": Table({"sides": Int(low=1), "roads": Array(Table({"rolls": _ROLLS, "road": Str()}, others=_LOOSE))},
                   others=_LOOSE),
    "breakoff": _LOOSE,
})
#: scenario.toml.
SCENARIO_FILE = Table({
    "provenance": Key(_LOOSE),
    "american": Array(Table({"id": Str(), **_unit_fields("name", "nationality", "kind", "figures", "ammo_type", "guns",
                                                          "officer", optional=("name", "ammo_type", "guns", "officer"))})),
    "event_units": Entries(Table(_unit_fields("name", "side", "nationality", "kind", "prefix", "figures", "ammo_type",
                                              "guns", "officer", optional=("ammo_type", "guns", "officer")))),
    "bridges": Entries(Table({"name": Str(), "axis": Array(Number(), length=2, complaint="expected [x, y]"),
                              "half_length": Number(low=0), "half_width": Number(low=0)})),
})
CARDS_FILE = Table({
    "decks": Table({"red": Array(_LOOSE), "black": Array(_LOOSE)}),
    "cards": Entries(Table({"suit": Str(), "rank": Str(), "deck": Key(Str(), OMIT), "text": Str(),
                            "effects": Key(Array(_LOOSE), []), "note": Key(Str(), "")})),
})
#: tables.toml: the keys every table holds that the rules read (a table may hold more, e.g. its provenance).
TABLES_FILE = Table({
    "event_check": Table({"dice": Int(low=1), "sides": Int(low=1), "black": Array(_INT), "both": Array(_INT),
                          "red_on_doubles": Key(Bool())}),
    "movement": Table({
        "terrains": Array(Str()), "half": Key(Array(Str()), []),
        "kinds": Entries(Table({"dice": Int(low=1), "sides": Int(low=1), "plus": _INT,
                                "prohibited": Key(Array(Str()), [])})),
    }, others=_LOOSE),
    "direct_fire": Table({
        "figures_per_die": Table({nat: Int(low=1) for nat in NATIONALITIES},
                                 missing=lambda nat: f"missing nationality {nat!r}", others=_LOOSE),
        "weapons": Entries(Table({"range_modifier": Key(_INT, OMIT), "divisor": Key(Int(low=1), OMIT),
                                  "shots": _one_of("figures", "area", "one"), "area_shots": Key(Entries(_INT), OMIT),
                                  "fixed": Key(_INT, OMIT)})),
    }, others=_LOOSE),
    "terrain": Entries(Table({"tdf": Check(Int(), lambda tdf: None if 0 <= tdf <= 6 else "a terrain defense factor is 0-6"),
                              "morale": _INT})),
    "indirect_fire": Table({"weapons": Entries(Table({"rounds": _INT, "radius": _INT, "misfire": Key(_faces_of(6), [])}))},
                           others=_LOOSE),
    "bursts": Entries(Table({"kill_faces": _faces_of(6), "save_terrain": Key(Str(), "open"), "radius": Key(_INT, OMIT)})),
    "ammo": _NUMBERS,
    "tank_fire": Table({
        "columns": Array(_INT),
        "guns": Entries(Table({"name": Str(), "chances": Array(_INT), "modifier": _INT})),
        "targets": Entries(Table({"name": Str(), "crew": _INT, "armour": _INT, "effects": Key(Bool(), OMIT)})),
    }, others=_LOOSE),
    "grenades": Table({}, others=_LOOSE),
    "hand_to_hand": Table({"escalate": Entries(Str())}, others=_LOOSE),
    "morale": Table({
        "failed": Table({nat: Array(Str(), length=6, complaint="needs one result for each face of the D6 (6)")
                         for nat in NATIONALITIES}),
        "results": Entries(Str()),
    }, others=_LOOSE),
    "spotting": Table({}, others=_LOOSE),
    "demolition": Table({}, others=_LOOSE),
})


class CalumpitData:
    """Everything the Calumpit rules read, from a data directory (with
    ``override``'s same-named files replacing the shipped ones)."""

    def __init__(self, override: str | Path | None = None):
        self._files: dict[str, tuple[str, bytes]] = {
            name: (str(path), blob) for name, (path, blob) in data_files(DATA, override, FILES).items()}
        docs = {}
        for name in FILES:
            label, blob = self._files[name]
            docs[name] = DataFile.read(blob, label, name)
        self.tables: Mapping[str, Any] = _frozen(docs["tables.toml"][1])
        self.attack: Mapping[str, Any] = _frozen(docs["attack.toml"][1])
        self._check_tables(*docs["tables.toml"])
        self.event_units, self.american, self.bridges = self._scenario(*docs["scenario.toml"])
        self.jat_units, self.jat_order, self.force_pool, self.roads = self._attack(*docs["attack.toml"])
        self.cards, self.decks = self._cards(*docs["cards.toml"])

    # ------------------------------------------------------------------ files

    def files(self) -> list[tuple[str, bytes]]:
        """(name, bytes) of every data file, pinning the ruleset."""
        return sorted((name, blob) for name, (_, blob) in self._files.items())

    # ------------------------------------------------------------------ cards

    def _cards(self, src: DataFile, doc: dict[str, Any]) -> tuple[dict[str, Card], dict[str, tuple[str, ...]]]:
        read = CARDS_FILE.read(doc, "", src.error)
        suit_deck: dict[str, str] = {}
        for deck in ("red", "black"):
            for suit in read["decks"][deck]:
                if suit not in SUITS or suit in suit_deck:
                    raise src.error(f"decks.{deck}", f"{suit!r} is not one of {', '.join(SUITS)} (each once)")
                suit_deck[suit] = deck
        if len(suit_deck) != 4:
            raise src.error("decks", "the four suits must be divided between the red and the black deck")
        cards: dict[str, Card] = {}
        for cid, spec in read["cards"].items():
            key = f"cards.{cid}"
            suit, rank = spec["suit"], spec["rank"]
            if suit == "joker":
                deck = spec.get("deck", "")
                if deck not in ("red", "black"):
                    raise src.error(f"{key}.deck", "a Joker needs deck = \"red\" or \"black\"")
                expected = "J" + deck[0].upper()
            else:
                if suit not in SUITS or rank not in RANKS:
                    raise src.error(key, f"suit {suit!r} / rank {rank!r}: expected one of {', '.join(SUITS)} and {', '.join(RANKS)}")
                deck = suit_deck[suit]
                if "deck" in spec and spec["deck"] != deck:
                    raise src.error(f"{key}.deck", f"{suit} cards are in the {deck} deck")
                expected = suit[0].upper() + RANK_IDS.get(rank, rank)
            if cid != expected:
                raise src.error(key, f"the {rank} of {suit} must be named {expected!r}")
            effects = tuple(self._effect(src, effect, f"{key}.effects[{i}]") for i, effect in enumerate(spec["effects"]))
            cards[cid] = Card(cid, suit, rank, deck, spec["text"], effects, spec["note"])
        if len(cards) != 54:
            raise src.error("cards", f"the event deck has 52 cards and 2 Jokers, this file has {len(cards)} cards")
        decks = {deck: tuple(c.id for c in cards.values() if c.deck == deck) for deck in ("red", "black")}
        for deck, ids in decks.items():
            if len(ids) != 27:
                raise src.error("cards", f"the {deck} deck must hold 27 cards (two suits and a Joker), holds {len(ids)}")
        return cards, decks

    def _effect(self, src: DataFile, effect: Any, key: str) -> Mapping[str, Any]:
        effect = Table({"kind": Check(Any_(), _effect_kind)}, others=_LOOSE).read(effect, key, src.error)
        kind = effect["kind"]
        EFFECT_TABLES[kind].read(effect, key, src.error)
        american = {uid for uid, _ in self.american}
        for name, known, what in (("bridge", self.bridges, f"is not a bridge of scenario.toml ({', '.join(self.bridges)})"),
                                  ("unit", self.event_units if kind == "arrival" else american,
                                   "is not one of scenario.toml's [event_units]" if kind == "arrival" else
                                   "is not a unit of scenario.toml's [[american]]")):
            if name in effect and effect[name] not in known:
                raise src.error(f"{key}.{name}", f"{effect[name]!r} {what}")
        if kind == "spotter" and isinstance(effect["rounds"], int):
            raise src.error(f"{key}.rounds", "a spotter's rounds are dice like \"d10\"")
        return _frozen(effect)

    # ------------------------------------------------------------------ tables

    def _check_tables(self, src: DataFile, doc: dict[str, Any]) -> None:
        read = TABLES_FILE.read(doc, "", src.error)
        ec = read["event_check"]
        for name in ("black", "both"):
            for total in ec[name]:
                if not ec["dice"] <= total <= ec["dice"] * ec["sides"]:
                    raise src.error(f"event_check.{name}", f"{total!r} is not a total of {ec['dice']}d{ec['sides']}")
        mv = read["movement"]
        for where, listed in [(f"movement.kinds.{kind}.prohibited", spec["prohibited"]) for kind, spec in mv["kinds"].items()] \
                + [("movement.half", mv["half"])]:
            for t in listed:
                if t not in mv["terrains"]:
                    raise src.error(where, f"{t!r} is not one of movement.terrains")
        for weapon, spec in read["direct_fire"]["weapons"].items():
            where = f"direct_fire.weapons.{weapon}"
            if spec["shots"] == "area" and not spec.get("area_shots"):
                raise src.error(where, "an area weapon needs area_shots")
            if "fixed" not in spec and "divisor" not in spec:
                raise src.error(where, "needs divisor (or fixed)")
        for weapon in read["indirect_fire"]["weapons"]:
            if weapon not in read["bursts"]:
                raise src.error(f"indirect_fire.weapons.{weapon}", f"no [bursts.{weapon}] to count its kills")
        for name, spec in read["bursts"].items():
            if spec["save_terrain"] not in read["terrain"]:
                raise src.error(f"bursts.{name}.save_terrain", "not a terrain of [terrain]")
        tf = read["tank_fire"]
        for gun, spec in tf["guns"].items():
            if len(spec["chances"]) != len(tf["columns"]):
                raise src.error(f"tank_fire.guns.{gun}.chances", f"needs one chance per range column ({len(tf['columns'])})")
        results = read["morale"]["results"]
        for nat, row in read["morale"]["failed"].items():
            for r in row:
                if r not in results:
                    raise src.error(f"morale.failed.{nat}", f"result {r!r} is not one of [morale.results]", needle=f'"{r}"')
        for r in read["hand_to_hand"]["escalate"].values():
            if r not in results:
                raise src.error("hand_to_hand.escalate", f"result {r!r} is not one of [morale.results]")

    # ------------------------------------------------------------------ attack tables

    def _attack(self, src: DataFile, doc: dict[str, Any]):
        read = ATTACK_FILE.read(doc, "", src.error)
        jagt = read["jagt"]
        sides = jagt["sides"]
        rows = [(f"jagt.rows[{i}]", frozenset(_faces(src, row["rolls"], f"jagt.rows[{i}].rolls", sides)))
                for i, row in enumerate(jagt["rows"])]
        _cover(src, "jagt.rows", rows, sides)
        jat = read["jat"]
        jsides, order = jat["sides"], tuple(jat["order"])
        units: dict[str, UnitType] = {}
        for key, spec in jat["units"].items():
            where = f"jat.units.{key}"
            units[key] = self._unit_type(src, key, where, {**spec, "side": "japanese", "nationality": "japanese"},
                                         tuple(_ranges(src, c, f"{where}.columns", jsides) for c in spec["columns"]))
        if sorted(order) != sorted(units):
            raise src.error("jat.order", "must list every [jat.units.*] once")
        for column in range(4):
            _cover(src, f"jat.units (roll number {column + 1})",
                   [(f"jat.units.{k}.columns", units[k].columns[column]) for k in order], jsides)
        pool_doc = read["force_pool"]
        pool = {key: Int().read(pool_doc.get(key), f"force_pool.{key}", src.error) for key in order}
        extra = set(pool_doc) - set(order) - {"provenance"}
        if extra:
            raise src.error(f"force_pool.{sorted(extra)[0]}", "not a unit of the JAT")
        entry = read["entry"]
        esides = entry["sides"]
        roads = [(frozenset(_faces(src, row["rolls"], f"entry.roads[{i}].rolls", esides)), row["road"])
                 for i, row in enumerate(entry["roads"])]
        _cover(src, "entry.roads", [(f"entry.roads[{i}]", faces) for i, (faces, _) in enumerate(roads)], esides)
        return units, order, pool, tuple(roads)

    def _unit_type(self, src: DataFile, key: str, where: str, spec: Mapping[str, Any], columns=()) -> UnitType:
        side = spec.get("side", "american")
        nat = spec.get("nationality")
        if side not in SIDES:
            raise src.error(f"{where}.side", f"{side!r} is not one of {', '.join(SIDES)}")
        if nat not in NATIONALITIES:
            raise src.error(f"{where}.nationality", f"{nat!r} is not one of {', '.join(NATIONALITIES)}")
        ammo_type = spec.get("ammo_type", "")
        if ammo_type and ammo_type not in self.tables["ammo"]:
            raise src.error(f"{where}.ammo_type", f"{ammo_type!r} is not one of tables.toml [ammo]")
        target = spec.get("target", "")
        if target and target not in self.tables["tank_fire"]["targets"]:
            raise src.error(f"{where}.target", f"{target!r} is not one of tables.toml [tank_fire.targets]")
        figures = spec["figures"]
        if figures < 1:
            raise src.error(f"{where}.figures", "a unit has at least one figure")
        return UnitType(
            key=key,
            name=spec.get("name", key),
            side=side,
            nationality=nat,
            kind=spec["kind"],
            figures=figures,
            prefix=spec.get("prefix", key.upper()),
            ammo_type=ammo_type,
            guns=spec.get("guns", 1),
            officer=bool(spec.get("officer", False)),
            target=target,
            columns=columns,
        )

    # ------------------------------------------------------------------ scenario

    def _scenario(self, src: DataFile, doc: dict[str, Any]):
        read = SCENARIO_FILE.read(doc, "", src.error)
        american: list[tuple[str, UnitType]] = []
        seen = set()
        for i, spec in enumerate(read["american"]):
            where = f"american[{i}]"
            uid = spec["id"]
            if uid in seen:
                raise src.error(f"{where}.id", f"unit id {uid!r} is used twice", needle=f'"{uid}"')
            seen.add(uid)
            american.append((uid, self._unit_type(src, uid, where, {**spec, "side": "american"})))
        events = {key: self._unit_type(src, key, f"event_units.{key}", spec) for key, spec in read["event_units"].items()}
        bridges = {key: _frozen(spec) for key, spec in read["bridges"].items()}
        if set(bridges) != {"road", "rail"}:
            raise src.error("bridges", "the scenario has two bridges: [bridges.road] and [bridges.rail]")
        return events, tuple(american), bridges

    # ------------------------------------------------------------------ lookups

    def card(self, cid: str) -> Card:
        return self.cards[cid]

    def failed_morale(self, nationality: str, face: int) -> str:
        return self.tables["morale"]["failed"][nationality][face - 1]

    def morale_result_text(self, result: str) -> str:
        return self.tables["morale"]["results"][result]

    def terrain(self, name: str) -> Mapping[str, int]:
        return self.tables["terrain"][name]

    def ammo_for(self, unit_type: UnitType) -> int | None:
        if not unit_type.ammo_type:
            return None
        return self.tables["ammo"][unit_type.ammo_type] * unit_type.guns
