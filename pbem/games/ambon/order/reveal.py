"""``reveal``: a voluntary reveal of the side's own concealed piece (13.1).
The reveal is made by the message itself (an ``Opened`` action, applied by
:func:`pbem.games.ambon.hidden.published`), not as an order: the kind's
effect is to put the piece's slot among the message's reveals."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from pbem.engine.contract import Section
from pbem.games.ambon.order.base import Kind, Parts
from pbem.games.ambon.state import ALLIED

if TYPE_CHECKING:
    from pbem.games.ambon.data import AmbonData
    from pbem.games.ambon.state import AmbonState


class Reveal(Kind):
    """13.1: the owner may reveal a concealed piece at any time (as the game's 13.1 ruling reads it)."""

    verb = "reveal"
    forms = (('reveal = "X3"', "the owner, any time (voluntary)", "13.1"),)
    rules = ("13.1",)
    typed_forms = ('reveal X3                            13.1 (a voluntary reveal of your own)',)

    def parse(self, data: "AmbonData", side: str, order: Mapping[str, Any], where: str, parts: Parts) -> None:
        parts.reveals.append(order["reveal"])

    def offer(self, game: Any, state: "AmbonState", side: str, out: Any, **context: Any) -> None:
        """13.1: the Allied concealed pieces that may be revealed at will
        (``secrets``: the player's own sealed values, shown to them only)."""
        secrets = context.get("secrets", {})
        if side != ALLIED:
            return
        concealed = [p for p in state.on_map(side) if p.concealed]
        if concealed:
            notes = (['13.1: you may reveal a concealed piece at any time: reveal = "X1"']
                     if state.ruling("13.1") == "any" else
                     ['13.1 (this game\'s ruling: detachment): you may reveal a concealed detachment at any time, '
                      'not a dummy: reveal = "X1"'])
            notes += [f"  {p.id} in {p.where}" + (f": {secrets[p.id]} [only you see this]" if p.id in secrets else "")
                      for p in concealed]
            out.sections.append(Section("Your concealed pieces (voluntary reveals)", notes))
        out.choices["concealed"] = [{"piece": p.id, "where": p.where} for p in concealed]
