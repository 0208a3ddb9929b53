"""The excerpt's rules and notes as data: loaded from ``data/*.toml``,
validated on load (errors name file, line and key), looked up by name.

``nationalities.toml``  8.5 and the Chinese Nationality Chart (counters, drms)
``notes.toml``          vehicle and ordnance notes with RF, BPV and dates
``rules.toml``          the rule sections' text and the numbers the checks use

>>> data = load()
>>> data.nationality("chinese").leader_creation_drm
1
>>> [m.entry.name for m in lookup(data, "type 92 infantry gun")][:1]
['Type 92 Infantry Gun']
>>> data.note("type-92-infantry-gun").rf_for(1938, vs="Russians").value
'1.3'
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Mapping

from pbem.engine.datafiles import data_files
from pbem.engine.mapdata import DataFile  # one reader for every game's data: errors name file, line and key
from pbem.errors import DataError, InputError

DATA_DIR = Path(__file__).parent / "data"
FILES = ("nationalities.toml", "notes.toml", "rules.toml")
KINDS = ("squad", "half-squad", "crew", "leader")
CLASSES = ("E", "1", "2", "G", "C")
NOTE_KINDS = ("vehicle", "ordnance")
DATE = re.compile(r"^(?P<year>19[0-9]{2})(-(?P<month>0[1-9]|1[0-2]))?$")
RF = re.compile(r"^[0-9]\.[0-9]$")
SUPERSCRIPTS = str.maketrans("", "", "¹²³⁴⁵⁶⁷⁸⁹⁰")


def counter_id(text: str) -> str:
    """``"5²-3-7"`` -> ``"5-3-7"``: a counter ID as orders write it."""
    return text.translate(SUPERSCRIPTS).strip()


# --------------------------------------------------------------------------- records


@dataclass(frozen=True)
class Counter:
    type: str
    printed: str
    kind: str
    cls: str  # the chart's class letter, "" where none is printed
    half_squad: str = ""

    @property
    def elite(self) -> bool | None:
        """True/False from the class letter; None where the chart prints none."""
        return (self.cls == "E") if self.cls else None


@dataclass(frozen=True)
class Nationality:
    id: str
    name: str
    rule: str = ""
    counters: tuple[Counter, ...] = ()
    leader_creation_drm: int = 0
    paatc_drm_non_elite: int = 0
    th_numbers: str = ""
    human_wave: bool = False
    dare_death: bool = False
    dare_death_excluded: tuple[str, ...] = ()

    def counter(self, type_: str, kind: str | None = None) -> Counter | None:
        """The chart's counter ``type_`` (of ``kind`` where an ID is shared:
        the Chinese 2-2-7 is an HS and a crew); None if not on the chart."""
        found = [c for c in self.counters if c.type == counter_id(type_) and (kind is None or c.kind == kind)]
        return found[0] if found else None  # a shared ID reads as its first listing (the HS)

    def paatc_drm(self, type_: str) -> int:
        """8.5: +1 to the PAATC DR of a non-elite Chinese MMC."""
        counter = self.counter(type_)
        if counter is None:
            raise InputError(f"{type_!r} is not on the {self.name} chart")
        if counter.kind == "leader":
            raise InputError(f"{type_} is a leader (SMC); 8.5's PAATC drm is for MMC")
        if counter.elite is None:
            raise InputError(
                f"the {self.name} chart prints no class for {type_} ({counter.kind}); "
                f"the excerpt does not say whether it is elite"
            )
        return 0 if counter.elite else self.paatc_drm_non_elite


@dataclass(frozen=True)
class RfEntry:
    rf: Decimal | None  # None with na
    na: bool
    start: tuple[int, int]
    end: tuple[int, int] | None  # None = "thereafter"
    where: str = ""
    vs: str = ""
    step: Decimal = Decimal(0)
    note: str = ""
    exclusive: bool = False  # with vs: vs that opponent, these entries' dates are the only ones

    def covers(self, year: int, month: int | None) -> bool:
        lo = (year, month or 12)  # any month of the year counts
        hi = (year, month or 1)
        return self.start <= lo and (self.end is None or hi <= self.end)

    def value(self, year: int) -> str:
        if self.na or self.rf is None:
            return "NA"
        return str(self.rf + self.step * (year - self.start[0]))

    def describe(self) -> str:
        bits = [("NA" if self.na else str(self.rf)) + (f" (+{self.step} a year)" if self.step else ""), period(self.start, self.end)]
        if self.where:
            bits.append("elsewhere" if self.where == "elsewhere" else f"in {self.where}")
        if self.vs:
            bits.append(f"vs {self.vs}")
        return " ".join(bits)


def period(start: tuple[int, int] | None, end: tuple[int, int] | None) -> str:
    """``(1937, 1), (1943, 10)`` -> ``"1937-10/43"``; no end -> ``"1943 onward"``."""

    def fmt(date: tuple[int, int], first: bool) -> str:
        year, month = date
        return str(year) if month == (1 if first else 12) else f"{month}/{year % 100:02d}"

    if start is None:
        return "" if end is None else "to " + fmt(end, False)
    if end is None:
        return fmt(start, True) + " onward"
    a, b = fmt(start, True), fmt(end, False)
    return a if a == b else f"{a}-{b}"


NOT_AVAILABLE = "not available: "


@dataclass(frozen=True)
class RfAnswer:
    """The RF for a date: ``value`` "1.3" (``available`` True), "NA" (False:
    ``why`` is "not available: " and the reason), or None when the notes do
    not decide (``available`` None: it depends on the theatre or the month)."""

    value: str | None
    entries: tuple[RfEntry, ...]
    why: str
    available: bool | None = True

    @property
    def shown(self) -> str:
        """``"1.4"``, ``"not available (reason)"``, or what it depends on."""
        if self.available is False:
            return f"not available ({self.why[len(NOT_AVAILABLE):]})"
        return self.value if self.value is not None else self.why


def _not_available(reason: str, entries: Iterable[RfEntry] = ()) -> RfAnswer:
    return RfAnswer("NA", tuple(entries), NOT_AVAILABLE + reason, False)


def _month_span(year: int, first: int, last: int) -> str:
    """``1943, 1, 10`` -> ``"1/43-10/43"``; one month -> ``"8/45"``."""
    yy = f"{year % 100:02d}"
    return f"{first}/{yy}" if first == last else f"{first}/{yy}-{last}/{yy}"


@dataclass(frozen=True)
class Availability:
    """Dates of use stated apart from RF: in ``where`` the piece is NA
    (``na``) or available from ``start`` to ``end`` only."""

    where: str
    start: tuple[int, int] | None
    end: tuple[int, int] | None
    na: bool
    note: str

    def covers(self, year: int, month: int) -> bool:
        return not self.na and (self.start is None or self.start <= (year, month)) and (
            self.end is None or (year, month) <= self.end)

    def reason(self) -> str:
        """The excerpt's words where given, else the dates."""
        if self.note:
            return self.note
        return f"not used in {self.where}" if self.na else f"dates for use in {self.where} are {period(self.start, self.end)}"

    def limit(self) -> str:
        """The limit as a remark on an answer for no theatre in particular."""
        if self.na:
            return f"NA in {self.where} ({self.reason()})"
        return f"in {self.where} only {period(self.start, self.end)} ({self.reason()})"


@dataclass(frozen=True)
class Note:
    id: str
    name: str
    nationality: str
    kind: str
    heading: str
    aliases: tuple[str, ...]
    text: tuple[str, ...]
    special: tuple[str, ...]
    example: str
    remark: str
    bpv: Mapping[str, int] | int | None
    rf: tuple[RfEntry, ...]
    dates: tuple[Availability, ...]
    movement: str

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, self.id, *self.aliases)

    def rf_for(self, year: int, month: int | None = None, where: str | None = None, vs: str | None = None) -> RfAnswer:
        """The RF the notes give for a date, theatre and opponent, or "not
        available" with the reason.

        Each month asked (all twelve without ``month``) is answered alone:

        1. ``dates`` for the theatre: NA there, or a period outside which the
           piece is not available ("Dates for use in Burma are 3-5/42").
        2. An ``[EXC: vs ...]`` entry overrides the general one for that
           opponent; an ``exclusive`` one (the Type 94's "vs Russians they
           are ...") leaves that opponent no other dates, in any theatre.
        3. A ``where`` entry applies only in that theatre, an ``elsewhere``
           one in any theatre no entry names.
        4. A date no entry covers is not available; an ``na`` entry is NA.

        Months with different answers give "depends on the month", each part
        listed; a theatre not given where the answer needs one gives "depends
        on the theatre".  Without a theatre, an answer names the theatres
        whose ``dates`` limit it."""
        if not self.rf:
            return RfAnswer(None, (), f"the excerpt states no RF for the {self.name}", None)
        months = [month] if month else list(range(1, 13))
        answers = [self._rf_in(year, m, where, vs) for m in months]
        if all(a == answers[0] for a in answers):
            return answers[0]
        parts, first = [], 0
        for i in range(1, 13):
            if i == 12 or answers[i] != answers[first]:
                parts.append(f"{_month_span(year, first + 1, i)} {answers[first].shown}")
                first = i
        entries = tuple(dict.fromkeys(e for a in answers for e in a.entries))
        return RfAnswer(None, entries, "depends on the month: " + "; ".join(parts), None)

    def _rf_in(self, year: int, month: int, where: str | None, vs: str | None) -> RfAnswer:
        """:meth:`rf_for` for one month."""
        place, opponent = (where or "").strip().lower(), (vs or "").strip().lower()
        # 1. dates of use stated apart from RF, for the theatre asked
        for d in self.dates:
            if place and d.where.lower() == place and not d.covers(year, month):
                return _not_available(d.reason())
        # 2. the entries for the opponent
        exclusive = [e for e in self.rf if e.exclusive and e.vs.lower() == opponent]
        pool = exclusive or [e for e in self.rf if not e.vs or e.vs.lower() == opponent]
        named = {e.where.lower() for e in self.rf if e.where and e.where != "elsewhere"}

        def where_ok(e: RfEntry) -> bool | None:
            if not e.where:
                return True
            if not place:
                return None  # undecided: theatre not given
            if e.where == "elsewhere":
                return place not in named
            return e.where.lower() == place

        # 3. the entries for the date and the theatre
        live = [e for e in pool if e.covers(year, month) and where_ok(e) is not False]
        if any(e.vs for e in live):
            live = [e for e in live if e.vs]
        if any(e.where and e.where != "elsewhere" and where_ok(e) for e in live):
            live = [e for e in live if e.where and where_ok(e)]
        # 4. not covered, NA, a value, or undecided
        if not live:
            if exclusive:
                return _not_available(f"vs {exclusive[0].vs} the dates are "
                                      + ", ".join(period(e.start, e.end) for e in exclusive) + " only")
            shown = [e for e in pool if where_ok(e) is not False] or pool
            return _not_available("the notes give RF for " + ", ".join(
                period(e.start, e.end) + (f" {_theatre(e.where)}" if e.where else "") for e in shown) + " only")
        if any(where_ok(e) is None for e in live):
            why = "depends on the theatre: " + "; ".join(e.describe() for e in live)
            if all(e.where and e.where != "elsewhere" for e in live):
                why += "; not available elsewhere"
            return RfAnswer(None, tuple(live), why, None)
        values = {e.value(year) for e in live}
        if values == {"NA"}:
            return _not_available("; ".join(e.note or e.describe() for e in live), live)
        if len(values) > 1:  # pragma: no cover - no two entries of the notes overlap
            return RfAnswer(None, tuple(live), "the notes disagree: " + "; ".join(e.describe() for e in live), None)
        why = "; ".join([e.describe() for e in live] + ([d.limit() for d in self.dates] if not place else []))
        return RfAnswer(values.pop(), tuple(live), why)


def _theatre(where: str) -> str:
    return "elsewhere" if where == "elsewhere" else f"in {where}"


@dataclass(frozen=True)
class Section:
    number: str
    title: str
    aliases: tuple[str, ...]
    text: tuple[str, ...]
    remark: str

    @property
    def name(self) -> str:
        return self.title if self.title == self.number else f"{self.number} {self.title}"

    @property
    def names(self) -> tuple[str, ...]:
        return (self.number, self.title, self.name, *self.aliases)


@dataclass(frozen=True)
class AslData:
    nationalities: Mapping[str, Nationality]
    notes: tuple[Note, ...]
    sections: tuple[Section, ...]
    human_wave: Mapping[str, Any]
    dare_death: Mapping[str, Any]
    berserk: Mapping[str, Any]
    terrain: Mapping[str, Mapping[str, Any]]
    vehicle_class: Mapping[str, Mapping[str, Any]]
    files: tuple[tuple[str, bytes], ...]

    def nationality(self, name: str) -> Nationality:
        key = name.strip().lower()
        if key not in self.nationalities:
            raise InputError(f"nationality {name!r} is not one of {', '.join(self.nationalities)}", field="nationality")
        return self.nationalities[key]

    def note(self, note_id: str) -> Note:
        for note in self.notes:
            if note.id == note_id:
                return note
        raise InputError(f"no note {note_id!r}")

    def section(self, number: str) -> Section:
        for s in self.sections:
            if s.number == number:
                return s
        raise InputError(f"no section {number!r}")


# --------------------------------------------------------------------------- loading


def _date(src: DataFile, value: Any, key: str) -> tuple[int, int]:
    text = src.string(value, key)
    m = DATE.match(text)
    if not m:
        raise src.error(key, f"{text!r} is not a date like \"1942\" or \"1942-03\"", needle=f'"{text}"')
    return int(m.group("year")), int(m.group("month") or 0)


def _decimal(src: DataFile, value: Any, key: str) -> Decimal:
    text = src.string(value, key)
    if not RF.match(text):
        raise src.error(key, f"{text!r} is not a decimal like \"1.3\"", needle=f'"{text}"')
    try:
        return Decimal(text)
    except InvalidOperation:  # pragma: no cover - the pattern excludes it
        raise src.error(key, f"{text!r} is not a number") from None


def _strings(src: DataFile, value: Any, key: str) -> tuple[str, ...]:
    items = src.array(value, key)
    return tuple(src.string(v, f"{key}[{i}]") for i, v in enumerate(items))


def _bool(src: DataFile, value: Any, key: str) -> bool:
    if not isinstance(value, bool):
        raise src.error(key, f"expected true or false, got {value!r}")
    return value


def load_nationalities(raw: bytes, name: str) -> dict[str, Nationality]:
    src, doc = DataFile.read(raw, name, "nationalities.toml")
    out = {}
    for nid, spec in doc.items():
        spec = src.table(spec, nid)
        src.keys(spec, nid, ("name", "rule", "counters", "leader_creation_drm", "paatc_drm_non_elite", "th_numbers",
                             "human_wave", "dare_death", "dare_death_excluded", "counter"), ("name",))
        counters = []
        for i, c in enumerate(src.array(spec.get("counter", []), f"{nid}.counter")):
            key = f"{nid}.counter[{i}]"
            c = src.table(c, key)
            src.keys(c, key, ("type", "printed", "kind", "class", "half_squad"), ("type", "printed", "kind"))
            type_ = src.string(c["type"], f"{key}.type")
            printed = src.string(c["printed"], f"{key}.printed")
            if counter_id(printed) != type_:
                raise src.error(f"{key}.printed", f"{printed!r} does not read as type {type_!r}")
            kind = src.string(c["kind"], f"{key}.kind")
            if kind not in KINDS:
                raise src.error(f"{key}.kind", f"{kind!r} is not one of {', '.join(KINDS)}")
            cls = src.string(c.get("class", ""), f"{key}.class")
            if cls and cls not in CLASSES:
                raise src.error(f"{key}.class", f"{cls!r} is not one of {', '.join(CLASSES)}")
            if kind in ("squad", "half-squad") and not cls:
                raise src.error(key, f"{type_} ({kind}) needs its class letter")
            hs = src.string(c.get("half_squad", ""), f"{key}.half_squad")
            if hs and kind != "squad":
                raise src.error(f"{key}.half_squad", "only a squad has a half squad")
            counters.append(Counter(type_, printed, kind, cls, hs))
        for c in counters:
            if c.half_squad and not any(h.type == c.half_squad and h.kind == "half-squad" for h in counters):
                raise src.error(f"{nid}.counter", f"{c.type}'s half_squad {c.half_squad!r} is not an HS on the chart")
        excluded = _strings(src, spec.get("dare_death_excluded", []), f"{nid}.dare_death_excluded")
        for e in excluded:
            if not any(c.type == e and c.kind == "squad" for c in counters):
                raise src.error(f"{nid}.dare_death_excluded", f"{e!r} is not a squad on the chart")
        ints = {}
        for k in ("leader_creation_drm", "paatc_drm_non_elite"):
            ints[k] = src.integer(spec.get(k, 0), f"{nid}.{k}")
        out[nid] = Nationality(
            nid,
            src.string(spec["name"], f"{nid}.name"),
            src.string(spec.get("rule", ""), f"{nid}.rule"),
            tuple(counters),
            th_numbers=src.string(spec.get("th_numbers", ""), f"{nid}.th_numbers"),
            human_wave=_bool(src, spec.get("human_wave", False), f"{nid}.human_wave"),
            dare_death=_bool(src, spec.get("dare_death", False), f"{nid}.dare_death"),
            dare_death_excluded=excluded,
            **ints,
        )
    if not out:
        raise DataError(f"{src.name}: no nationality")
    return out


def load_notes(raw: bytes, name: str, nationalities: Iterable[str]) -> tuple[Note, ...]:
    src, doc = DataFile.read(raw, name, "notes.toml")
    src.keys(doc, "", ("note",), ("note",))
    notes: list[Note] = []
    known = tuple(nationalities)
    seen: dict[str, str] = {}
    for i, n in enumerate(src.array(doc["note"], "note")):
        key = f"note[{i}]"
        n = src.table(n, key)
        src.keys(n, key, ("id", "name", "nationality", "kind", "heading", "aliases", "text", "special", "example",
                          "remark", "bpv", "rf", "dates", "movement"), ("id", "name", "nationality", "kind", "text"))
        nid = src.string(n["id"], f"{key}.id")
        if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", nid):
            raise src.error(f"{key}.id", f"{nid!r} must be lowercase letters, digits and '-'", needle=f'"{nid}"')
        nat = src.string(n["nationality"], f"{key}.nationality")
        if nat not in known:
            raise src.error(f"{key}.nationality", f"{nat!r} is not in nationalities.toml ({', '.join(known)})", needle=f'"{nat}"')
        kind = src.string(n["kind"], f"{key}.kind")
        if kind not in NOTE_KINDS:
            raise src.error(f"{key}.kind", f"{kind!r} is not one of {', '.join(NOTE_KINDS)}", needle=f'"{kind}"')
        aliases = _strings(src, n.get("aliases", []), f"{key}.aliases")
        for label in (nid, src.string(n["name"], f"{key}.name"), *aliases):
            norm = _norm(label)
            if norm in seen and seen[norm] != nid:
                raise src.error(f"{key}.aliases", f"{label!r} already names note {seen[norm]!r}", needle=label)
            seen[norm] = nid
        bpv: Mapping[str, int] | int | None = None
        if "bpv" in n:
            if isinstance(n["bpv"], dict):
                bpv = {str(k): src.integer(v, f"{key}.bpv.{k}") for k, v in n["bpv"].items()}
            else:
                bpv = src.integer(n["bpv"], f"{key}.bpv")
        rf = []
        for j, e in enumerate(src.array(n.get("rf", []), f"{key}.rf")):
            k2 = f"{key}.rf[{j}]"
            e = src.table(e, k2)
            src.keys(e, k2, ("rf", "na", "from", "to", "where", "vs", "step", "note", "exclusive"), ("from",))
            na = _bool(src, e.get("na", False), f"{k2}.na")
            if na == ("rf" in e):
                raise src.error(k2, "give either rf = \"1.3\" or na = true")
            start = _date(src, e["from"], f"{k2}.from")
            end = _date(src, e["to"], f"{k2}.to") if "to" in e else None
            start = (start[0], start[1] or 1)
            if end is not None:
                end = (end[0], end[1] or 12)
                if end < start:
                    raise src.error(f"{k2}.to", f"ends before it starts ({e['from']})")
            vs = src.string(e.get("vs", ""), f"{k2}.vs")
            exclusive = _bool(src, e.get("exclusive", False), f"{k2}.exclusive")
            if exclusive and not vs:
                raise src.error(f"{k2}.exclusive", "only an entry with vs = \"...\" may be exclusive (the dates vs that opponent)")
            rf.append(RfEntry(
                _decimal(src, e["rf"], f"{k2}.rf") if "rf" in e else None, na, start, end,
                src.string(e.get("where", ""), f"{k2}.where"), vs,
                _decimal(src, e["step"], f"{k2}.step") if "step" in e else Decimal(0),
                src.string(e.get("note", ""), f"{k2}.note"), exclusive,
            ))
        for j, entry in enumerate(rf):
            if entry.vs and not entry.exclusive and any(o.exclusive and o.vs == entry.vs for o in rf):
                raise src.error(f"{key}.rf[{j}]", f"every entry vs {entry.vs!r} must say exclusive = true when one does")
        dates = []
        for j, e in enumerate(src.array(n.get("dates", []), f"{key}.dates")):
            k2 = f"{key}.dates[{j}]"
            e = src.table(e, k2)
            src.keys(e, k2, ("where", "from", "to", "na", "note"), ("where",))
            start_d = _date(src, e["from"], f"{k2}.from") if "from" in e else None
            end_d = _date(src, e["to"], f"{k2}.to") if "to" in e else None
            dates.append(Availability(
                src.string(e["where"], f"{k2}.where"),
                (start_d[0], start_d[1] or 1) if start_d else None,
                (end_d[0], end_d[1] or 12) if end_d else None,
                _bool(src, e.get("na", False), f"{k2}.na"),
                src.string(e.get("note", ""), f"{k2}.note"),
            ))
        movement = src.string(n.get("movement", ""), f"{key}.movement")
        if movement and movement != "truck":
            raise src.error(f"{key}.movement", f"{movement!r}: the excerpt classifies only Trucks (7.14)")
        notes.append(Note(
            nid, src.string(n["name"], f"{key}.name"), nat, kind, src.string(n.get("heading", ""), f"{key}.heading"),
            aliases, _strings(src, n["text"], f"{key}.text"), _strings(src, n.get("special", []), f"{key}.special"),
            src.string(n.get("example", ""), f"{key}.example"), src.string(n.get("remark", ""), f"{key}.remark"),
            bpv, tuple(rf), tuple(dates), movement,
        ))
    return tuple(notes)


RULE_TABLES = {
    "human_wave": {"rule": str, "min_mmc": int, "min_mmc_per_hex": int, "min_hexes": int},
    "dare_death": {"rule": str, "percent": int, "max_mf_to_target": int, "cc_drm": int, "hand_to_hand_as": str,
                   "hand_to_hand_drm": int, "ambush_drm_inexperienced": int, "ambush_drm_berserk": int},
    "berserk": {"rule": str, "mf": int, "morale": int, "max_sw_pp": int},
}


def load_rules(raw: bytes, name: str) -> tuple[tuple[Section, ...], dict[str, Any]]:
    src, doc = DataFile.read(raw, name, "rules.toml")
    src.keys(doc, "", ("section", *RULE_TABLES, "terrain", "vehicle_class"), ("section", *RULE_TABLES))
    sections = []
    for i, s in enumerate(src.array(doc["section"], "section")):
        key = f"section[{i}]"
        s = src.table(s, key)
        src.keys(s, key, ("number", "title", "aliases", "text", "remark"), ("number", "title", "text"))
        sections.append(Section(
            src.string(s["number"], f"{key}.number"), src.string(s["title"], f"{key}.title"),
            _strings(src, s.get("aliases", []), f"{key}.aliases"), _strings(src, s["text"], f"{key}.text"),
            src.string(s.get("remark", ""), f"{key}.remark"),
        ))
    tables: dict[str, Any] = {}
    for tname, fields in RULE_TABLES.items():
        t = src.table(doc[tname], tname)
        src.keys(t, tname, fields, fields)
        for fname, kind in fields.items():
            tables[tname] = {**tables.get(tname, {}), fname: (src.integer if kind is int else src.string)(t[fname], f"{tname}.{fname}")}
        if tables[tname]["rule"] not in {s.number for s in sections}:
            raise src.error(f"{tname}.rule", f"{tables[tname]['rule']!r} is not a section of this file")
    for group in ("terrain", "vehicle_class"):
        g = src.table(doc.get(group, {}), group)
        tables[group] = {}
        for tid, spec in g.items():
            spec = src.table(spec, f"{group}.{tid}")
            values: dict[str, int | str] = {}
            for k, v in spec.items():
                if k == "tem":
                    values[k] = src.integer(v, f"{group}.{tid}.{k}")
                else:
                    values[k] = src.string(v, f"{group}.{tid}.{k}")
            if "rule" not in values:
                raise src.error(f"{group}.{tid}", "missing key 'rule'")
            tables[group][tid] = values
    return tuple(sections), tables


def load(directory: str | Path | None = None) -> AslData:
    """Load and validate the data files of ``directory`` (default: the
    package's ``data/``); a directory may hold only some of the files, the
    others come from the package."""
    found = data_files(DATA_DIR, directory, FILES)
    return _parse(tuple((fname, found[fname][1], str(found[fname][0])) for fname in FILES))


@lru_cache(maxsize=4)
def _parse(files: tuple[tuple[str, bytes, str], ...]) -> AslData:
    raw = {fname: (blob, label) for fname, blob, label in files}
    nats = load_nationalities(*raw["nationalities.toml"])
    notes = load_notes(*raw["notes.toml"], nationalities=nats)
    sections, tables = load_rules(*raw["rules.toml"])
    return AslData(
        nats, notes, sections, tables["human_wave"], tables["dare_death"], tables["berserk"], tables["terrain"],
        tables["vehicle_class"], tuple((fname, blob) for fname, blob, _ in files),
    )


# --------------------------------------------------------------------------- look-up


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


def _words(text: str) -> list[str]:
    return [w for w in re.split(r"[^a-z0-9]+", text.lower()) if w]


@dataclass(frozen=True)
class Match:
    entry: Note | Section
    score: int
    matched: str  # the name or alias that matched


def lookup(data: AslData, query: str) -> list[Match]:
    """Notes and rule sections matching ``query``, best first.

    Case, spaces and punctuation are ignored; a name or alias equal to the
    query scores 100, one containing it 80, one holding all its words 60;
    otherwise the closest names by similarity (typos) score up to 50."""
    q, qwords = _norm(query), _words(query)
    if not q:
        raise InputError("give a name to look up, e.g. \"Type 92 Infantry Gun\"")
    found: list[Match] = []
    entries: tuple[Note | Section, ...] = (*data.notes, *data.sections)
    for entry in entries:
        best = Match(entry, 0, "")
        for label in entry.names:
            n = _norm(label)
            if not n:
                continue
            if n == q:
                score = 100
            elif q in n:
                score = 80
            elif all(any(w == lw or (not w.isdigit() and lw.startswith(w)) for lw in _words(label)) for w in qwords):
                score = 60
            else:
                score = int(50 * difflib.SequenceMatcher(None, q, n).ratio())
                score = score if score >= 35 else 0
            if score > best.score:
                best = Match(entry, score, label)
        if best.score:
            found.append(best)
    found.sort(key=lambda m: (-m.score, m.entry.name))
    return found


def best_match(data: AslData, query: str) -> tuple[Match | None, list[Match]]:
    """The one entry ``query`` names, or None and the candidates when it is
    ambiguous or matches nothing."""
    found = lookup(data, query)
    if not found:
        return None, []
    top = [m for m in found if m.score == found[0].score]
    if len(top) == 1:
        return top[0], found
    return None, top
