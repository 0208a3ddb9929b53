"""The Landing Phase's orders (6.0): ``land`` a First Wave box's units on
its beach, or ``postpone`` its landing; :mod:`pbem.games.ambon.landing`
resolves them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Mapping

from pbem.engine.contract import Section
from pbem.engine.machine import Event, Ordered
from pbem.games.ambon import landing
from pbem.games.ambon.order.base import Form, Parts, PhaseOrder
from pbem.games.ambon.sequence import Phase

if TYPE_CHECKING:
    from pbem.games.ambon.data import AmbonData
    from pbem.games.ambon.state import AmbonState


class Land(PhaseOrder):
    """6.0: the units of a First Wave box land (the landing dice wait for the Allied reveals)."""

    verb = "land"
    types = ("land",)
    forms: ClassVar[tuple[Form, ...]] = (('land = "fw-laha"  /  postpone = "fw-liang"', "Japanese Landing Phase", "6.0"),)
    rules = ("6.0",)
    typed_forms = ('land fw-laha | postpone fw-liang     6.0',)

    def parse(self, data: "AmbonData", side: str, order: Mapping[str, Any], where: str, parts: Parts) -> None:
        parts.public.append({"type": self.verb, "box": order[self.verb]})

    def phase(self, side: str) -> Phase:
        return Phase.LANDING

    def effect(self, data: "AmbonData", state: "AmbonState", action: Ordered) -> tuple["AmbonState", list[Event]]:
        return landing.start(data, state, action.order["box"], action.seq)

    def offer(self, game: Any, state: "AmbonState", side: str, out: Any, **context: Any) -> None:
        """The First Wave boxes that may land or postpone now (both kinds' choices)."""
        data = game.data
        boxes = [lane for lane in data.lanes.values() if state.at(lane.first_wave)]
        ordered = {ld.lane for ld in state.landings}
        open_boxes = [lane for lane in boxes if lane.id not in ordered]
        if not open_boxes:
            return
        notes = [f"  {lane.first_wave} -> {lane.target} ({lane.name}): {', '.join(p.id for p in state.at(lane.first_wave))}"
                 + (f"; mine box {lane.mine_box}" if lane.mine_box else "") for lane in open_boxes]
        notes.append('each box: land = "BOX" or postpone = "BOX"; the landing dice wait for the Allied reveals, '
                     "so your moves come in your next message")
        out.choices["landings"] = [{"box": lane.first_wave, "target": lane.target} for lane in open_boxes]
        out.sections.append(Section("Landings (6.0)", notes, []))


class Postpone(Land):
    """6.0: a First Wave box's landing postponed to a later turn.  Its
    reference row and its template choices are :class:`Land`'s (one box,
    land or postpone)."""

    verb = "postpone"
    types = ("postpone",)
    forms = ()

    def effect(self, data: "AmbonData", state: "AmbonState", action: Ordered) -> tuple["AmbonState", list[Event]]:
        return landing.postpone(data, state, action.order["box"])
