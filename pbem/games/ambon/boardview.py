"""The Ambon board the renderers draw, built from what a side's view holds
(:class:`pbem.engine.contract.BoardViews`): here, and only here, Ambon's
words become marks and legend entries -- disrupted (2.2.1, 11.3), out of
supply (13.0), the landing penalties (6.2, 6.3), concealed pieces (4.1),
mine markers (6.1), overstacked hexes (9.0), the eliminated-units box, the
off-map holding box of the Second Wave (14.2)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from pbem.engine.boardview import (BoardView, Box, Counter, Flag, HeaderItem, LegendEntry, Look, Row, Stack, VPItem,
                                   sides_of)
from pbem.games.ambon.views import MARKER_NAMES

if TYPE_CHECKING:
    from pbem.engine.mapdata import GameMap

#: the marks of a unit counter, as its status reads in the view
OOS, DISRUPTED, HIDDEN, GONE = "OOS", "DISR", "?", "ELIM"
PENALTIES = {"-2mp": "-2 MP", "no-move": "NO MV", "opposed": "OPPSD"}  # 6.2/6.3 marker -> its badge
PENALTY_WORDS = {marker: MARKER_NAMES[marker][1] for marker in PENALTIES}  # "-2 MP", "no move"...
MINE_BADGES = {"real": "REAL", "dummy": "DUMMY"}
SECRET_BADGES = {"detachment": "DET"}  # a concealed piece's identity on its strip (4.1)
MINE_TONES = {"hidden": "#3b3b3b", "real": "#b22222", "dummy": "#f2f2f2"}
BOX_TONES = {"eliminated": "#f3e3e3", "mines": "#e3e8ef"}
UNKNOWN_SIDE = "#c4c4c4"  # an eliminated unit whose side the view does not give
OVERSTACKED = "!"
HOLDING_BOXES = {"off-map": "off-map / sealed (14.2)"}


def _said(marker: str, look: Look = "badge", badge: str = "", **extra: Any) -> LegendEntry:
    """The legend's entry of one of the view's status markers (:data:`~pbem.games.ambon.views.MARKER_NAMES`)."""
    glyph, _, meaning = MARKER_NAMES[marker]
    return LegendEntry(badge or marker, meaning, glyph, look, **extra)


LEGEND = (
    LegendEntry(OVERSTACKED, "overstacked hex", "!", "outline"),
    LegendEntry(HIDDEN, "concealed: identity hidden (4.1)", "?", "hidden"),
    _said("disrupted", "hatched", DISRUPTED),
    _said("OOS", tone="#c0392b"),
    *(_said(marker, badge=badge) for marker, badge in PENALTIES.items()),
    _said("beachhead"),
    LegendEntry("MINE?", "mine marker, face down (6.1)", "?", "hidden",
                sample=Counter("M1", None, ("MINE?",), tone=MINE_TONES["hidden"])),
    LegendEntry("REAL", "mine revealed: real (6.1)", "r", sample=Counter("M1", None, ("REAL",), tone=MINE_TONES["real"])),
    LegendEntry("DUMMY", "mine revealed: dummy (6.1)", "u",
                sample=Counter("M1", None, ("DUMMY",), tone=MINE_TONES["dummy"])),
    LegendEntry(GONE, "eliminated (3.0: VP)", "e", "crossed"),
)

NAMES = {"japanese": "Japanese", "allied": "Allied"}


def _unit_marks(unit: Mapping[str, Any]) -> tuple[tuple[str, ...], list[str]]:
    """A unit's marks and its status in words, from its entry in the view's ``units``."""
    marks, words = [], []
    if unit.get("oos"):
        marks.append(OOS)
        words.append("OOS")
    if unit.get("flipped") and not unit.get("oos"):  # out of supply is disrupted already (13.0)
        marks.append(DISRUPTED)
        words.append("disrupted")
    if unit.get("status"):
        marks.append(PENALTIES.get(str(unit["status"]), str(unit["status"])))
        words.append(PENALTY_WORDS.get(str(unit["status"]), str(unit["status"])))
    return tuple(marks), words


def board_view(gmap: "GameMap", colours: Mapping[str, str], sides: tuple[str, ...],
               view: Mapping[str, Any]) -> BoardView:
    """The board of an Ambon ``view`` (:func:`pbem.games.ambon.views.view`)."""
    units = {str(u["id"]): u for u in view.get("units", ())}
    stacks: list[Stack] = []
    held: dict[str, list[Counter]] = {}
    for where, items in (view.get("stacks") or {}).items():
        counters = []
        for it in items:
            label = str(it["label"])
            if not it.get("side"):  # a beachhead (6.5)
                counters.append(Counter(label))
                continue
            unit = units.get(label, {})
            marks, words = _unit_marks(unit)
            secret = str(it.get("identity") or "")  # 4.1: to its owner only
            if it.get("concealed"):
                marks = (HIDDEN, *marks)
                words.insert(0, "concealed" + (f": {secret}, only you see this" if secret else ""))
            counters.append(Counter(label, str(it["side"]), marks, "; ".join(words), SECRET_BADGES.get(secret, secret),
                                    bool(secret)))
        if where[:1].isdigit() and where not in gmap.boxes:
            stacks.append(Stack(where, tuple(counters)))
        else:
            held.setdefault(where, []).extend(counters)
    gone_sides = view.get("eliminated_sides") or {}
    eliminated = next((b.id for b in gmap.boxes.values() if b.kind == "eliminated"), "eliminated")
    for uid in view.get("eliminated", ()):
        side = gone_sides.get(uid)
        held.setdefault(eliminated, []).append(
            Counter(uid, side, (GONE,), tone="" if side else UNKNOWN_SIDE))
    for m in view.get("mines", ()):
        status = str(m["status"])
        known = status[len("hidden ("):-1] if status.startswith("hidden (") else ""
        if status.startswith("hidden"):
            counter = Counter(m["id"], None, ("MINE?",), status + (", only you see this" if known else ""),
                              known if known != "?" else "", bool(known), MINE_TONES["hidden"])
        else:
            counter = Counter(m["id"], None, (MINE_BADGES.get(status, status.upper()),), status, tone=MINE_TONES.get(status, ""))
        held.setdefault(m["box"], []).append(counter)
    names = {**HOLDING_BOXES, **(view.get("box_names") or {})}
    boxes = [Box(where, names.get(where, where), tuple(cs)) for where, cs in held.items() if where not in gmap.boxes]
    boxes += [Box(b.id, names.get(b.id, ""), tuple(held.get(b.id, ())), BOX_TONES.get(b.kind, ""))
              for b in gmap.boxes.values()]
    return BoardView(
        game="ambon",
        sides=sides_of(sides, NAMES, colours),
        map=gmap,
        stacks=tuple(stacks),
        boxes=tuple(boxes),
        flags=tuple(Flag(where, why) for where, why in (view.get("overstacked") or {}).items()),
        header=_header(view),
        rows=tuple(_row(u) for u in view.get("units", ())),
        vp=tuple(VPItem(str(v["why"]), int(v["vp"])) for v in view.get("vp_items", ())),
        legend=LEGEND,
        verdict=(str(view["verdict"]),) if view.get("verdict") else (),
    )


def _header(view: Mapping[str, Any]) -> tuple[HeaderItem, ...]:
    items = [HeaderItem("turn", str(view["turn"])), HeaderItem("phase", str(view["phase"]))]
    if view.get("over"):
        items.append(HeaderItem("", "game over"))
    elif view.get("active"):
        items.append(HeaderItem("", f"{NAMES.get(view['active'], view['active'])} to act"))
    items.append(HeaderItem("VP", f"{view['vp']:+d}"))
    return tuple(items)


def _row(unit: Mapping[str, Any]) -> Row:
    """A unit of the order of battle: type, where, CF, MP, its status."""
    _, words = _unit_marks(unit)
    if unit.get("flipped") and unit.get("oos"):
        words.insert(0, "disrupted")
    kind = str(unit.get("type", ""))
    if kind == "concealed":
        words.append("concealed" + (f": {unit['identity']}" if unit.get("identity") else ""))
    columns = [("type", kind), ("where", str(unit.get("where", "")))]
    columns += [(head, str(unit[key])) for key, head in (("combat", "CF"), ("move", "MP")) if key in unit]
    return Row(str(unit["side"]), str(unit["id"]), tuple(columns), tuple(words), bool(unit.get("private")))
