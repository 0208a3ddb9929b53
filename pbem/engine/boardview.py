"""What a renderer draws of a game, in words that belong to no game (issue 29).

A game's :meth:`~pbem.engine.contract.BoardViews.board_view` turns the view
a side sees (``Game.view``) into a :class:`BoardView`: the map, the stacks
of counters on it, the boxes beside it, a header, the order of battle, the
victory points and the legend.  The terminal, SVG and HTML renderers
(``pbem.render``) read only this; what a game's words mean ("overstacked",
"out of supply"...) is said here by the game, as a counter's marks and the
legend's entries.

A counter's *marks* are short strings (a badge such as ``"OOS"``); the
:class:`LegendEntry` of a mark says what it means, the one character that
stands for it on the terminal's map, and how the picture draws it
(:data:`Look`).  A mark no entry explains is drawn as a badge and stands
for itself.

Everything is frozen and made of tuples, so a board view is a value: two
views of one position are equal.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable, Literal, Mapping, TypeVar

from pbem.errors import InputError

if TYPE_CHECKING:
    from pbem.engine.mapdata import GameMap

__all__ = ["BoardView", "Box", "Counter", "Flag", "HeaderItem", "LegendEntry", "Look", "Row", "SideInfo", "Stack",
           "VPItem", "from_stacks", "glyph_of", "map_texts", "sides_of"]

_T = TypeVar("_T")

#: How the picture draws a mark: ``badge`` its text on a strip along the
#: counter's foot; ``hatched`` lines over the counter (its reverse face);
#: ``crossed`` crossed out; ``hidden`` face down ("?" on the strip, or to
#: its owner what it is); ``outline`` (a :class:`Flag`'s mark) the hex
#: outlined.
Look = Literal["badge", "hatched", "crossed", "hidden", "outline"]


@dataclass(frozen=True)
class SideInfo:
    """One side of the game: its id (as counters name it), its name, its colour (``#rrggbb``, "" for the palette's)."""

    id: str
    name: str
    colour: str = ""


@dataclass(frozen=True)
class Counter:
    """A counter: ``side`` None for a marker that belongs to no side.

    ``marks`` the short strings drawn on it (most important first);
    ``tooltip`` what it is in words, after its label (``"concealed; out of
    supply"``); ``secret`` what only this view's player knows of it (a
    hidden identity: drawn on its strip, and ringed); ``private`` the
    counter is this player's own hidden information; ``tone`` its fill
    (``#rrggbb``; "" for its side's colour, or the marker colour)."""

    label: str
    side: str | None = None
    marks: tuple[str, ...] = ()
    tooltip: str = ""
    secret: str = ""
    private: bool = False
    tone: str = ""


@dataclass(frozen=True)
class Stack:
    """The counters in one hex (its number on the map), top first."""

    where: str
    counters: tuple[Counter, ...]


@dataclass(frozen=True)
class Box:
    """A box beside the map and the counters in it: one of the map's own
    boxes (``where`` its id; ``name`` "" for the map's caption) or a holding
    box the map does not list.  ``tone``: its fill ("" for the default)."""

    where: str
    name: str = ""
    counters: tuple[Counter, ...] = ()
    tone: str = ""


@dataclass(frozen=True)
class Flag:
    """A hex the game draws attention to (outlined), and why, in words."""

    where: str
    why: str
    mark: str = "!"


@dataclass(frozen=True)
class HeaderItem:
    """A fact of the header: ``("turn", "3")`` reads "turn 3"; a label "" shows the value alone."""

    label: str
    value: str

    def text(self) -> str:
        return f"{self.label} {self.value}" if self.label else self.value


@dataclass(frozen=True)
class Row:
    """A unit of the order of battle: ``columns`` (heading, value) in order,
    ``status`` its status in words, ``private`` it shows what only this
    view's player knows."""

    side: str
    unit: str
    columns: tuple[tuple[str, str], ...] = ()
    status: tuple[str, ...] = ()
    private: bool = False


@dataclass(frozen=True)
class VPItem:
    """A line of the victory-point tally: why, and how many (signed)."""

    why: str
    vp: int


@dataclass(frozen=True)
class LegendEntry:
    """What a mark means (``meaning``), the character the terminal's map
    shows for it (``glyph``; "" for the mark's first letter) and how the
    picture draws it (:data:`Look`); ``tone`` a badge's strip colour
    (``#rrggbb``, "" for white); ``sample`` the counter the picture's
    legend shows for it (None: a unit of the first side with the mark)."""

    mark: str
    meaning: str
    glyph: str = ""
    look: Look = "badge"
    tone: str = ""
    sample: Counter | None = None


@dataclass(frozen=True)
class BoardView:
    """All a renderer draws of one side's view of a game.

    ``map`` None: a game without a map (its header, rows and VP are still
    drawn); ``verdict`` the lines of the result once the game is over."""

    game: str
    sides: tuple[SideInfo, ...]
    map: "GameMap | None" = None
    stacks: tuple[Stack, ...] = ()
    boxes: tuple[Box, ...] = ()
    flags: tuple[Flag, ...] = ()
    header: tuple[HeaderItem, ...] = ()
    rows: tuple[Row, ...] = ()
    vp: tuple[VPItem, ...] = ()
    legend: tuple[LegendEntry, ...] = ()
    verdict: tuple[str, ...] = ()

    def entry(self, mark: str) -> LegendEntry | None:
        """The legend's entry for ``mark`` (None: the mark explains itself)."""
        return next((e for e in self.legend if e.mark == mark), None)

    def side_names(self) -> dict[str, str]:
        return {s.id: s.name for s in self.sides}

    def side_colours(self) -> dict[str, str]:
        return {s.id: s.colour for s in self.sides if s.colour}

    def where_is(self) -> dict[str, str]:
        """Counter label -> the hex or box it is in."""
        found: dict[str, str] = {}
        for stack in self.stacks:
            for c in stack.counters:
                found.setdefault(c.label, stack.where)
        for box in self.boxes:
            for c in box.counters:
                found.setdefault(c.label, box.where)
        return found


def glyph_of(board: BoardView, mark: str) -> str:
    """The one character that stands for ``mark`` on the terminal's map."""
    entry = board.entry(mark)
    return (entry.glyph if entry is not None and entry.glyph else mark[:1].lower()) or "?"


def sides_of(ids: Iterable[str], names: Mapping[str, str] | None = None,
             colours: Mapping[str, str] | None = None) -> tuple[SideInfo, ...]:
    """:class:`SideInfo` of each side id: its name (default: the id capitalised) and colour."""
    names, colours = names or {}, colours or {}
    return tuple(SideInfo(s, names.get(s, s.capitalize()), colours.get(s, "")) for s in ids)


def from_stacks(game: str, sides: tuple[SideInfo, ...], gmap: "GameMap",
                stacks: Mapping[str, Iterable[Mapping[str, object]]], *,
                box_names: Mapping[str, str] | None = None, header: tuple[HeaderItem, ...] = (),
                legend: tuple[LegendEntry, ...] = ()) -> BoardView:
    """The board of a view that gives only ``stacks``: hex number or box id
    -> counters (top first), each ``{label, side?, marker?}`` -- ``marker``
    becomes the counter's one mark.  A key starting with a digit must be a
    hex of ``gmap``; any other is a box (one of the map's, or a holding box
    captioned by ``box_names``).  The holding boxes come first, then every
    box of the map.  InputError quoting a bad key or a counter without a label."""
    names = dict(box_names or {})
    on_map: list[Stack] = []
    held: list[Box] = []
    mapped: dict[str, tuple[Counter, ...]] = {}
    for where, items in stacks.items():
        if not isinstance(where, str) or not where.strip():
            raise InputError(f"stack key {where!r} is neither a hex number nor a box id")
        counters = []
        for it in items:
            label = it.get("label") if isinstance(it, Mapping) else None
            if not isinstance(label, str):
                raise InputError(f"counter {it!r} in {where!r} has no 'label'")
            side, marker = it.get("side"), it.get("marker")
            marks = (str(marker),) if marker and marker != label else ()
            counters.append(Counter(label, side if isinstance(side, str) and side else None, marks,
                                    str(marker) if marks else ""))
        if where in gmap.boxes:
            mapped[where] = tuple(counters)
        elif where[:1].isdigit():
            gmap.hex(where)  # InputError quoting it when it is no hex of the map
            if counters:
                on_map.append(Stack(where, tuple(counters)))
        elif counters:
            held.append(Box(where, names.get(where, where), tuple(counters)))
    boxes = held + [Box(b.id, names.get(b.id, ""), mapped.get(b.id, ())) for b in gmap.boxes.values()]
    return BoardView(game, sides, gmap, tuple(on_map), tuple(boxes), header=header, legend=legend)


def map_texts(value: "_T", fn: Callable[[str], str]) -> "_T":
    """``value`` (a board view or any part of it) with ``fn`` applied to every
    text in it -- labels, tooltips, names, header items -- but not to the map."""
    if isinstance(value, str):
        return fn(value)  # type: ignore[return-value]
    if isinstance(value, tuple):
        return tuple(map_texts(v, fn) for v in value)  # type: ignore[return-value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type) and type(value).__module__ == __name__:
        return dataclasses.replace(value, **{f.name: map_texts(getattr(value, f.name), fn)
                                             for f in dataclasses.fields(value) if f.name != "map"})
    return value
