"""What every Ambon order kind has (:class:`Kind`), and the fields they share.

A kind is one unit of the orders a player gives (``[[order]]`` tables, one
verb each; ``[standing]``): its *syntax* -- the table's fields and their
parsing, :meth:`Kind.parse`, and the typed line that stands for the same
table in solo play, :meth:`Kind.line`; its *legality and effect* --
:meth:`Kind.apply`, which checks the order against the position (refused
with the rule's number) and applies it, or calls the rules module that
resolves it; and its *template* -- :meth:`Kind.offer`, what ``pbem orders``
shows a player for it.  Parsing is separate from legality
(docs/architecture.md): :meth:`Kind.parse` reads no position.

An order of a phase to come reaches that phase first: :meth:`PhaseOrder.apply`
calls :mod:`pbem.games.ambon.phases`, which walks the sequence of play.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Mapping

from pbem.engine.machine import Event, Ordered, illegal, replace
from pbem.errors import InputError
from pbem.games.ambon import phases
from pbem.games.ambon.sequence import phasing_side

if TYPE_CHECKING:
    from pbem.games.ambon.data import AmbonData
    from pbem.games.ambon.sequence import Phase
    from pbem.games.ambon.state import AmbonState

#: a reference row of the orders template: (the TOML, who gives it, its rules)
Form = tuple[str, str, str]


@dataclass
class Parts:
    """What a document's orders parse to, as :class:`pbem.engine.machine.ParsedOrders` holds it."""

    public: list[dict[str, Any]] = field(default_factory=list)
    seals: dict[str, str] = field(default_factory=dict)
    reveals: list[str] = field(default_factory=list)


class Kind:
    """One order kind.  ``verb``: the key that names it in an ``[[order]]``
    table; ``required``/``optional``: its other fields; ``types``: the
    ``type`` of the parsed orders it applies (none for a kind that parses to
    other kinds' orders, ``setup``, or to a reveal, ``reveal``); ``forms``:
    its rows in the template's reference of every order; ``rules``: the
    rules it implements."""

    verb: ClassVar[str]
    required: ClassVar[tuple[str, ...]] = ()
    optional: ClassVar[tuple[str, ...]] = ()
    types: ClassVar[tuple[str, ...]] = ()
    forms: ClassVar[tuple[Form, ...]] = ()
    rules: ClassVar[tuple[str, ...]] = ()
    #: its lines in solo play's help: the typed forms of :meth:`line`, and their rules
    typed_forms: ClassVar[tuple[str, ...]] = ()
    #: whether the verb's value must be a string (checked before :meth:`parse`)
    string_value: ClassVar[bool] = True

    # ------------------------------------------------------------------ syntax

    def line(self, words: list[str]) -> dict[str, Any]:
        """The ``[[order]]`` table a typed line (``verb`` then ``words``)
        stands for: nothing is checked here -- a word left out is a field
        left out, which :meth:`parse` refuses as it refuses a file's."""
        return {self.verb: words[0] if words else ""}

    def parse(self, data: "AmbonData", side: str, order: Mapping[str, Any], where: str, parts: Parts) -> None:
        """``order`` (its fields present, its value a string when
        :attr:`string_value`) checked for syntax and added to ``parts``;
        an InputError naming the field when it is malformed."""
        raise NotImplementedError

    # ------------------------------------------------------------------ legality and effect

    def apply(self, data: "AmbonData", state: "AmbonState", action: Ordered) -> tuple["AmbonState", list[Event]]:
        """The order checked against the position and applied."""
        raise NotImplementedError

    # ------------------------------------------------------------------ the template

    def offer(self, game: Any, state: "AmbonState", side: str, out: Any, **context: Any) -> None:
        """What ``pbem orders`` shows ``side`` for this kind in ``state``,
        added to ``out`` (:class:`pbem.engine.contract.Sections`, or the
        open decisions, :class:`Decisions`); ``context``: what the
        template's layout gives it (a battle, a defensive window...)."""
        raise NotImplementedError


class PhaseOrder(Kind):
    """A kind given in a phase of its side's own (5.0): the order reaches
    its phase first (:func:`pbem.games.ambon.phases.reach`, which ends the
    phases before it), then :meth:`effect` checks and applies it."""

    def phase(self, side: str) -> "Phase":
        raise NotImplementedError

    def effect(self, data: "AmbonData", state: "AmbonState", action: Ordered) -> tuple["AmbonState", list[Event]]:
        raise NotImplementedError

    def apply(self, data: "AmbonData", state: "AmbonState", action: Ordered) -> tuple["AmbonState", list[Event]]:
        kind, side = action.order["type"], action.side
        phase = self.phase(side)
        if phasing_side(phase) != side:
            raise illegal("5.0", f"order {action.index + 1}: a {kind} order is the {phasing_side(phase)} player's")
        state, events = phases.reach(data, state, phase, side, action.index, kind)
        state, more = self.effect(data, state, action)
        return replace(state, acted=True), events + more


@dataclass
class Decisions:
    """The template's section of open decisions, as the decision kinds fill it."""

    notes: list[str] = field(default_factory=list)
    examples: list[dict[str, Any] | list[dict[str, Any]]] = field(default_factory=list)  # an order, or a group
    decisions: list[dict[str, Any]] = field(default_factory=list)


# ---------------------------------------------------------------------- the fields kinds share


def where(index: int, verb: str) -> str:
    """How an error names order ``index`` of a document."""
    return f"order {index + 1} ({verb})"


def hexlabel(data: "AmbonData", text: Any, where: str) -> str:
    """A hex field: the map's label for ``text``."""
    if not isinstance(text, str):
        raise InputError(f"{where}: hex must be a string like \"1609\", got {text!r}", field="hex")
    try:
        return data.map.label(data.map.hex(text))
    except InputError as err:
        raise InputError(f"{where}: {err}", field="hex") from err


def target(data: "AmbonData", order: Mapping[str, Any], where: str) -> dict[str, str]:
    """The optional ``target`` hex of an answer (which combat it answers)."""
    return {"target": hexlabel(data, order["target"], where)} if "target" in order else {}


def unit_ids(value: Any) -> bool:
    """Whether ``value`` is a list of unit ids."""
    return isinstance(value, list) and all(isinstance(u, str) for u in value)


def hexes_in(words: list[str]) -> list[str]:
    """The words of a typed line that are hex numbers (``1609``)."""
    return [w for w in words if w[:1].isdigit() and len(w) == 4]
