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
        src.keys(doc, "", ("decks", "cards"), ("decks", "cards"))
        decks_doc = src.table(doc["decks"], "decks")
        src.keys(decks_doc, "decks", ("red", "black"), ("red", "black"))
        suit_deck: dict[str, str] = {}
        for deck in ("red", "black"):
            for suit in src.array(decks_doc[deck], f"decks.{deck}"):
                if suit not in SUITS or suit in suit_deck:
                    raise src.error(f"decks.{deck}", f"{suit!r} is not one of {', '.join(SUITS)} (each once)")
                suit_deck[suit] = deck
        if len(suit_deck) != 4:
            raise src.error("decks", "the four suits must be divided between the red and the black deck")
        cards: dict[str, Card] = {}
        for cid, spec in src.table(doc["cards"], "cards").items():
            key = f"cards.{cid}"
            spec = src.table(spec, key)
            src.keys(spec, key, ("suit", "rank", "deck", "text", "effects", "note"), ("suit", "rank", "text"))
            suit = src.string(spec["suit"], f"{key}.suit")
            rank = src.string(spec["rank"], f"{key}.rank")
            if suit == "joker":
                deck = src.string(spec.get("deck", ""), f"{key}.deck")
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
            effects = []
            for i, effect in enumerate(src.array(spec.get("effects", []), f"{key}.effects")):
                effects.append(self._effect(src, effect, f"{key}.effects[{i}]"))
            cards[cid] = Card(cid, suit, rank, deck, src.string(spec["text"], f"{key}.text"), tuple(effects),
                              src.string(spec.get("note", ""), f"{key}.note"))
        if len(cards) != 54:
            raise src.error("cards", f"the event deck has 52 cards and 2 Jokers, this file has {len(cards)} cards")
        decks = {deck: tuple(c.id for c in cards.values() if c.deck == deck) for deck in ("red", "black")}
        for deck, ids in decks.items():
            if len(ids) != 27:
                raise src.error("cards", f"the {deck} deck must hold 27 cards (two suits and a Joker), holds {len(ids)}")
        return cards, decks

    def _effect(self, src: DataFile, effect: Any, key: str) -> Mapping[str, Any]:
        effect = src.table(effect, key)
        kind = effect.get("kind")
        if kind not in EFFECT_KEYS:
            raise src.error(key, f"kind {kind!r} is not one of {', '.join(EFFECT_KEYS)}")
        required, optional = EFFECT_KEYS[kind]
        src.keys(effect, key, ("kind",) + required + optional, required)
        for name in ("direction", "distance", "extent", "bombs"):
            if name in effect:
                _dice(src, effect[name], f"{key}.{name}")
        if "rounds" in effect and not isinstance(effect["rounds"], int):
            _dice(src, effect["rounds"], f"{key}.rounds")
        for name in ("turns", "radius", "passes", "roadside_inches", "missions", "turns_per_call", "delay",
                     "available_turns", "count", "disable_hits", "explode_on", "modifier"):
            if name in effect:
                src.integer(effect[name], f"{key}.{name}")
        for name in ("road_hits", "roadside_hits"):
            if name in effect:
                _faces(src, effect[name], f"{key}.{name}", 6)
        if "bridge" in effect and effect["bridge"] not in self.bridges:
            raise src.error(f"{key}.bridge", f"{effect['bridge']!r} is not a bridge of scenario.toml ({', '.join(self.bridges)})")
        if kind == "arrival" and effect["unit"] not in self.event_units:
            raise src.error(f"{key}.unit", f"{effect['unit']!r} is not one of scenario.toml's [event_units]")
        if kind == "withdraw" and effect["units"] not in ("tank", "infantry", "all"):
            raise src.error(f"{key}.units", "units must be \"tank\", \"infantry\" or \"all\"")
        if kind == "phones" and effect["set"] not in ("out", "toggle"):
            raise src.error(f"{key}.set", "set must be \"out\" or \"toggle\"")
        if kind == "may-draw" and effect["deck"] not in ("red", "black"):
            raise src.error(f"{key}.deck", "deck must be \"red\" or \"black\"")
        if kind == "may-draw" and effect.get("side", "american") not in SIDES:
            raise src.error(f"{key}.side", f"side must be one of {', '.join(SIDES)}")
        if kind == "spotter" and isinstance(effect["rounds"], int):
            raise src.error(f"{key}.rounds", "a spotter's rounds are dice like \"d10\"")
        if kind == "sniper" and "unit" in effect and effect["unit"] not in {uid for uid, _ in self.american}:
            raise src.error(f"{key}.unit", f"{effect['unit']!r} is not a unit of scenario.toml's [[american]]")
        if kind == "withdraw" and "kinds" in effect:
            kinds = src.array(effect["kinds"], f"{key}.kinds")
            if not kinds or not all(isinstance(k, str) and k for k in kinds):
                raise src.error(f"{key}.kinds", "kinds must be a list of unit kinds like [\"infantry\", \"hq\"]")
        return _frozen(effect)

    # ------------------------------------------------------------------ tables

    def _check_tables(self, src: DataFile, doc: dict[str, Any]) -> None:
        need = ("event_check", "movement", "direct_fire", "terrain", "indirect_fire", "bursts", "ammo", "tank_fire",
                "grenades", "hand_to_hand", "morale", "spotting", "demolition")
        src.keys(doc, "", need, need)
        ec = src.table(doc["event_check"], "event_check")
        src.keys(ec, "event_check", ("dice", "sides", "black", "both", "red_on_doubles"), ("dice", "sides", "black", "both"))
        for name in ("black", "both"):
            for total in src.array(ec[name], f"event_check.{name}"):
                if not isinstance(total, int) or not ec["dice"] <= total <= ec["dice"] * ec["sides"]:
                    raise src.error(f"event_check.{name}", f"{total!r} is not a total of {ec['dice']}d{ec['sides']}")
        mv = src.table(doc["movement"], "movement")
        terrains = src.array(mv.get("terrains"), "movement.terrains")
        for kind, spec in src.table(mv.get("kinds"), "movement.kinds").items():
            where = f"movement.kinds.{kind}"
            src.keys(spec, where, ("dice", "sides", "plus", "prohibited"), ("dice", "sides", "plus"))
            for t in spec.get("prohibited", []):
                if t not in terrains:
                    raise src.error(f"{where}.prohibited", f"{t!r} is not one of movement.terrains")
        for t in mv.get("half", []):
            if t not in terrains:
                raise src.error("movement.half", f"{t!r} is not one of movement.terrains")
        df = src.table(doc["direct_fire"], "direct_fire")
        for nat in NATIONALITIES:
            if nat not in df.get("figures_per_die", {}):
                raise src.error("direct_fire.figures_per_die", f"missing nationality {nat!r}")
        for weapon, spec in src.table(df.get("weapons"), "direct_fire.weapons").items():
            where = f"direct_fire.weapons.{weapon}"
            src.keys(spec, where, ("range_modifier", "divisor", "shots", "area_shots", "fixed"), ("shots",))
            if spec["shots"] not in ("figures", "area", "one"):
                raise src.error(f"{where}.shots", "shots must be \"figures\", \"area\" or \"one\"")
            if spec["shots"] == "area" and not spec.get("area_shots"):
                raise src.error(where, "an area weapon needs area_shots")
            if "fixed" not in spec and "divisor" not in spec:
                raise src.error(where, "needs divisor (or fixed)")
        for name, spec in src.table(doc["terrain"], "terrain").items():
            src.keys(spec, f"terrain.{name}", ("tdf", "morale"), ("tdf", "morale"))
            if not 0 <= src.integer(spec["tdf"], f"terrain.{name}.tdf") <= 6:
                raise src.error(f"terrain.{name}.tdf", "a terrain defense factor is 0-6")
        ind = src.table(doc["indirect_fire"], "indirect_fire")
        for weapon, spec in src.table(ind.get("weapons"), "indirect_fire.weapons").items():
            src.keys(spec, f"indirect_fire.weapons.{weapon}", ("rounds", "radius", "misfire"), ("rounds", "radius"))
            _faces(src, spec.get("misfire", []), f"indirect_fire.weapons.{weapon}.misfire", 6)
            if weapon not in doc["bursts"]:
                raise src.error(f"indirect_fire.weapons.{weapon}", f"no [bursts.{weapon}] to count its kills")
        for name, spec in src.table(doc["bursts"], "bursts").items():
            src.keys(spec, f"bursts.{name}", ("kill_faces", "save_terrain", "radius"), ("kill_faces",))
            _faces(src, spec["kill_faces"], f"bursts.{name}.kill_faces", 6)
            if spec.get("save_terrain", "open") not in doc["terrain"]:
                raise src.error(f"bursts.{name}.save_terrain", "not a terrain of [terrain]")
        tf = src.table(doc["tank_fire"], "tank_fire")
        columns = src.array(tf.get("columns"), "tank_fire.columns")
        for gun, spec in src.table(tf.get("guns"), "tank_fire.guns").items():
            src.keys(spec, f"tank_fire.guns.{gun}", ("name", "chances", "modifier"), ("name", "chances", "modifier"))
            if len(src.array(spec["chances"], f"tank_fire.guns.{gun}.chances")) != len(columns):
                raise src.error(f"tank_fire.guns.{gun}.chances", f"needs one chance per range column ({len(columns)})")
        for target, spec in src.table(tf.get("targets"), "tank_fire.targets").items():
            src.keys(spec, f"tank_fire.targets.{target}", ("name", "crew", "armour", "effects"), ("name", "crew", "armour"))
        failed = src.table(doc["morale"].get("failed"), "morale.failed")
        results = src.table(doc["morale"].get("results"), "morale.results")
        for nat in NATIONALITIES:
            row = src.array(failed.get(nat), f"morale.failed.{nat}")
            if len(row) != 6:
                raise src.error(f"morale.failed.{nat}", "needs one result for each face of the D6 (6)")
            for r in row:
                if r not in results:
                    raise src.error(f"morale.failed.{nat}", f"result {r!r} is not one of [morale.results]", needle=f'"{r}"')
        for r in doc["hand_to_hand"]["escalate"].values():
            if r not in results:
                raise src.error("hand_to_hand.escalate", f"result {r!r} is not one of [morale.results]")

    # ------------------------------------------------------------------ attack tables

    def _attack(self, src: DataFile, doc: dict[str, Any]):
        src.keys(doc, "", ("jagt", "jat", "force_pool", "entry", "breakoff"), ("jagt", "jat", "force_pool", "entry", "breakoff"))
        jagt = src.table(doc["jagt"], "jagt")
        sides = src.integer(jagt.get("sides"), "jagt.sides")
        rows = []
        for i, row in enumerate(src.array(jagt.get("rows"), "jagt.rows")):
            rows.append((f"jagt.rows[{i}]", frozenset(_faces(src, row.get("rolls"), f"jagt.rows[{i}].rolls", sides))))
            if not 1 <= src.integer(row.get("jat_rolls"), f"jagt.rows[{i}].jat_rolls") <= 4:
                raise src.error(f"jagt.rows[{i}].jat_rolls", "the JAT has four roll-number columns: 1-4")
        _cover(src, "jagt.rows", rows, sides)
        jat = src.table(doc["jat"], "jat")
        jsides = src.integer(jat.get("sides"), "jat.sides")
        order = tuple(src.array(jat.get("order"), "jat.order"))
        units: dict[str, UnitType] = {}
        for key, spec in src.table(jat.get("units"), "jat.units").items():
            where = f"jat.units.{key}"
            src.keys(spec, where, ("name", "columns", "kind", "prefix", "figures", "ammo_type", "guns", "officer", "target"),
                     ("name", "columns", "kind", "prefix", "figures"))
            cols = src.array(spec["columns"], f"{where}.columns")
            if len(cols) != 4:
                raise src.error(f"{where}.columns", "one range (or \"\") for each of the four roll numbers")
            units[key] = self._unit_type(src, key, where, {**spec, "side": "japanese", "nationality": "japanese"},
                                         tuple(_ranges(src, c, f"{where}.columns", jsides) for c in cols))
        if sorted(order) != sorted(units):
            raise src.error("jat.order", "must list every [jat.units.*] once")
        for column in range(4):
            _cover(src, f"jat.units (roll number {column + 1})",
                   [(f"jat.units.{k}.columns", units[k].columns[column]) for k in order], jsides)
        pool_doc = src.table(doc["force_pool"], "force_pool")
        pool = {}
        for key in order:
            pool[key] = src.integer(pool_doc.get(key), f"force_pool.{key}")
        extra = set(pool_doc) - set(order) - {"provenance"}
        if extra:
            raise src.error(f"force_pool.{sorted(extra)[0]}", "not a unit of the JAT")
        entry = src.table(doc["entry"], "entry")
        esides = src.integer(entry.get("sides"), "entry.sides")
        roads = []
        for i, row in enumerate(src.array(entry.get("roads"), "entry.roads")):
            roads.append((frozenset(_faces(src, row.get("rolls"), f"entry.roads[{i}].rolls", esides)),
                          src.string(row.get("road"), f"entry.roads[{i}].road")))
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
        figures = src.integer(spec.get("figures"), f"{where}.figures")
        if figures < 1:
            raise src.error(f"{where}.figures", "a unit has at least one figure")
        return UnitType(
            key=key,
            name=src.string(spec.get("name", key), f"{where}.name"),
            side=side,
            nationality=nat,
            kind=src.string(spec.get("kind"), f"{where}.kind"),
            figures=figures,
            prefix=src.string(spec.get("prefix", key.upper()), f"{where}.prefix"),
            ammo_type=ammo_type,
            guns=src.integer(spec.get("guns", 1), f"{where}.guns"),
            officer=bool(spec.get("officer", False)),
            target=target,
            columns=columns,
        )

    # ------------------------------------------------------------------ scenario

    def _scenario(self, src: DataFile, doc: dict[str, Any]):
        src.keys(doc, "", ("provenance", "american", "event_units", "bridges"), ("american", "event_units", "bridges"))
        american: list[tuple[str, UnitType]] = []
        seen = set()
        for i, spec in enumerate(src.array(doc["american"], "american")):
            where = f"american[{i}]"
            src.keys(spec, where, ("id", "name", "nationality", "kind", "figures", "ammo_type", "guns", "officer"),
                     ("id", "nationality", "kind", "figures"))
            uid = src.string(spec["id"], f"{where}.id")
            if uid in seen:
                raise src.error(f"{where}.id", f"unit id {uid!r} is used twice", needle=f'"{uid}"')
            seen.add(uid)
            american.append((uid, self._unit_type(src, uid, where, {**spec, "side": "american"})))
        events = {}
        for key, spec in src.table(doc["event_units"], "event_units").items():
            where = f"event_units.{key}"
            src.keys(spec, where, ("name", "side", "nationality", "kind", "prefix", "figures", "ammo_type", "guns", "officer"),
                     ("name", "side", "nationality", "kind", "prefix", "figures"))
            events[key] = self._unit_type(src, key, where, spec)
        bridges = {}
        for key, spec in src.table(doc["bridges"], "bridges").items():
            where = f"bridges.{key}"
            src.keys(spec, where, ("name", "axis", "half_length", "half_width"), ("name", "axis", "half_length", "half_width"))
            bridges[key] = _frozen(spec)
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
