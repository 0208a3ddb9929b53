"""The answers a side gives when the rules ask it (docs/architecture.md,
"Who decides"): HQ ``support`` of a defence (11.1), ``losses`` and
``retreat`` after a combat's die (11.3; a bombardment's retreat, 14.3),
``advance`` into an emptied hex (11.4), ``surrender`` at the start of turn 8
(3.2).  :mod:`pbem.games.ambon.battle` and :mod:`pbem.games.ambon.landing`
resolve the combats they answer; each kind's :meth:`~Kind.offer` is its
part of the template's open decisions (:class:`~pbem.games.ambon.order.base.Decisions`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from pbem.engine.machine import Event, Ordered, illegal, replace
from pbem.errors import InputError
from pbem.games.ambon import battle, landing, phases, results, rolls
from pbem.games.ambon.order.base import Kind, Parts, hexes_in, hexlabel, target, unit_ids
from pbem.games.ambon.state import ALLIED

if TYPE_CHECKING:
    from pbem.games.ambon.data import AmbonData
    from pbem.games.ambon.state import AmbonState


class Support(Kind):
    """11.1: the defender's HQ support (``none``: no support), of a combat or of a landing combat."""

    verb = "support"
    optional = ("target",)
    types = ("support",)
    forms = (('support = "NEI-HQ"  target = "1609"', "the defender's HQ answer", "11.1"),)
    rules = ("11.1",)
    typed_forms = ("support NEI-HQ [1609] | support none 11.1 (the defender's HQ)",)

    def line(self, words: list[str]) -> dict[str, Any]:  # support NEI-HQ [1609] | support none
        return {"support": words[0] if words else "", **({"target": words[1]} if len(words) > 1 else {})}

    def parse(self, data: "AmbonData", side: str, order: Mapping[str, Any], where: str, parts: Parts) -> None:
        parts.public.append({"type": "support", "hq": order["support"], **target(data, order, where)})

    def apply(self, data: "AmbonData", state: "AmbonState", action: Ordered) -> tuple["AmbonState", list[Event]]:
        order, side = action.order, action.side
        if side == ALLIED and landing.awaiting_support(data, state):
            return landing.decide_support(data, state, order["hq"], order.get("target"), action.seq)
        return battle.decide_support(data, state, side, order["hq"], order.get("target"), action.seq)

    def offer(self, game: Any, state: "AmbonState", side: str, out: Any, **context: Any) -> None:
        """The HQs that may support the defence of a landing combat's hex
        (``landing``) or of a combat's (``battle``), ``none`` last."""
        data = game.data
        lc = context.get("landing")
        if lc is not None:
            where = data.lanes[lc.lane].target
            options = landing.supporting_hqs(data, state, ALLIED, where) + ["none"]
            out.notes.append(f"11.1 HQ support for the defence of {where} against the landing: support = one of "
                             f"{', '.join(options)}, target = \"{where}\"  (left out: no support)")
        else:
            b = context["battle"]
            where = b.target
            options = battle.support_options(data, state, b) + ["none"]
            out.notes.append(f"11.1 HQ support for the defence of {where}: support = one of {', '.join(options)}"
                             f"  (left out: no support)")
        out.decisions.append({"kind": "hq-support", "target": where, "options": options, "rule": "11.1"})
        out.examples.append({"support": options[0], "target": where})


class Advance(Kind):
    """11.4: the attackers that advance into the hex a combat emptied (``[]``: stay)."""

    verb = "advance"
    optional = ("target",)
    types = ("advance",)
    forms = (('advance = ["3.A"]  target = "1609"', "the attacker's answer after combat", "11.4"),)
    rules = ("11.4",)
    typed_forms = ('advance 3.A 3.B [1609] | advance     11.4 (nothing: stay)',)
    string_value = False

    def line(self, words: list[str]) -> dict[str, Any]:  # advance 3.A 3.B [1609] | advance
        hexes = hexes_in(words)
        return {"advance": [w for w in words if w not in hexes], **({"target": hexes[0]} if hexes else {})}

    def parse(self, data: "AmbonData", side: str, order: Mapping[str, Any], where: str, parts: Parts) -> None:
        if not unit_ids(order["advance"]):
            raise InputError(f"{where}: advance must be a list of unit ids ([] to stay)", field="advance")
        parts.public.append({"type": "advance", "units": list(order["advance"]), **target(data, order, where)})

    def apply(self, data: "AmbonData", state: "AmbonState", action: Ordered) -> tuple["AmbonState", list[Event]]:
        order = action.order
        return battle.advance(data, state, action.side, list(order["units"]), order.get("target"))

    def offer(self, game: Any, state: "AmbonState", side: str, out: Any, **context: Any) -> None:
        """The attackers of ``battle`` that may advance."""
        b = context["battle"]
        options = battle.advance_candidates(game.data, state, b)
        out.notes.append(f"11.4 advance into {b.target}: advance = a list of {', '.join(options)} ([] to stay)"
                         f"  (left out: nobody advances)")
        out.decisions.append({"kind": "advance", "target": b.target, "options": options, "rule": "11.4"})
        out.examples.append({"advance": options, "target": b.target})


def _answer(data: "AmbonData", state: "AmbonState", side: str) -> Any:
    """11.3: who answers an owner's choice -- a landing combat's results or a combat's."""
    return landing.answer if landing.awaiting_choice(state, side) else battle.answer


class Losses(Kind):
    """11.3: the owner's units in the order they take a result's hits."""

    verb = "losses"
    optional = ("target",)
    types = ("losses",)
    forms = (('losses = ["NEI-2.B", "X3"]  target = "1609"', "the owner's answer after the die: who takes the hits", "11.3"),)
    rules = ("11.3",)
    typed_forms = ('losses NEI-2.B X2 [1609]             11.3 (your units, in the order they take the hits)',)
    string_value = False

    def line(self, words: list[str]) -> dict[str, Any]:  # losses NEI-2.B X2 [1609]
        hexes = hexes_in(words)
        return {"losses": [w for w in words if w not in hexes], **({"target": hexes[-1]} if hexes else {})}

    def parse(self, data: "AmbonData", side: str, order: Mapping[str, Any], where: str, parts: Parts) -> None:
        value = order["losses"]
        if isinstance(value, str):
            value = value.split()
        if not isinstance(value, list) or not all(isinstance(u, str) and u for u in value):
            raise InputError(f"{where}: losses must be a list of unit ids, in the order they take the hits", field="losses")
        parts.public.append({"type": "losses", "units": list(value), **target(data, order, where)})

    def apply(self, data: "AmbonData", state: "AmbonState", action: Ordered) -> tuple["AmbonState", list[Event]]:
        order, side = action.order, action.side
        return _answer(data, state, side)(data, state, side, "losses", " ".join(order["units"]), order.get("target"))

    def offer(self, game: Any, state: "AmbonState", side: str, out: Any, **context: Any) -> None:
        """11.3: an open choice of losses and retreat (a combat's or a
        landing combat's ``fight``, its ``choices``), for its owner."""
        data, fight, choices = game.data, context["fight"], context["choices"]
        out.notes.append(f"11.3 the {fight.label} {fight.target} ({fight.result}): you choose "
                         f"{results.what_is_open(data, state, fight, choices['hexes'])}")
        if choices["hits"]:
            out.notes.append(f"  losses = the units in the order they take the hits, of {', '.join(choices['units'])}"
                             f" (a unit named twice takes two)")
            out.examples.append({"losses": choices["units"][: choices["hits"]], "target": fight.target})
        if choices["retreat"]:
            Retreat().offer(game, state, side, out, fight=fight, choices=choices)
        out.notes.append("  (left out: it waits for your message, and so does every combat after it)")
        out.decisions.append({"kind": "losses", "target": fight.target, "options": choices["units"], "rule": "11.3",
                              "result": fight.result, "hexes": choices["hexes"], "retreat": choices["retreat"]})


class Retreat(Kind):
    """11.3: the owner's answer to an ``r`` result (retreat, or refuse with
    an extra hit; where to); 14.3: where a unit a bombardment hit retreats."""

    verb = "retreat"
    optional = ("target", "to")
    types = ("retreat",)
    forms = (('retreat = "retreat"  to = "1708 1607"  target = "1609"', "the defender's answer to r / R (or \"hit\")", "11.3"),)
    rules = ("11.3", "14.3")
    typed_forms = ('retreat [hit] [1609] [to 1708 1607]  11.3 (retreat, or refuse an r with an extra hit; where to)',)

    def line(self, words: list[str]) -> dict[str, Any]:
        """``retreat [hit] [1609] [to 1708 1607]``: the target before ``to``."""
        answer = "hit" if words[:1] == ["hit"] else "retreat"
        rest = words[1:] if words[:1] in (["hit"], ["retreat"]) else words
        to = rest[rest.index("to") + 1:] if "to" in rest else []
        hexes = [w for w in rest[: rest.index("to")] if w[:1].isdigit()] if "to" in rest else rest
        return {"retreat": answer, **({"to": " ".join(to)} if to else {}), **({"target": hexes[0]} if hexes else {})}

    def parse(self, data: "AmbonData", side: str, order: Mapping[str, Any], where: str, parts: Parts) -> None:
        value = order["retreat"]
        if value not in ("retreat", "hit"):
            raise InputError(f"{where}: retreat = \"retreat\" or \"hit\" (refuse an r with an extra hit, 11.3)", field="retreat")
        to = order.get("to", "")
        if isinstance(to, list):
            to = " ".join(str(h) for h in to)
        if not isinstance(to, str):
            raise InputError(f"{where}: to must be hexes in order of preference, e.g. \"1708 1607\"", field="to")
        hexes = [hexlabel(data, h, where) for h in to.split()]
        parts.public.append({"type": "retreat", "answer": value, **({"to": " ".join(hexes)} if hexes else {}),
                             **target(data, order, where)})

    def apply(self, data: "AmbonData", state: "AmbonState", action: Ordered) -> tuple["AmbonState", list[Event]]:
        order, side = action.order, action.side
        if any(state.piece(r.unit).side == side for r in state.pending_retreats):
            return self._bombarded(data, state, side, order)
        return _answer(data, state, side)(data, state, side, "retreat", order["answer"], order.get("target"),
                                          {"to": order.get("to", "")})

    @staticmethod
    def _bombarded(data: "AmbonData", state: "AmbonState", side: str, order: Mapping[str, Any]) -> tuple["AmbonState", list[Event]]:
        """14.3: the owner's hex for a unit a bombardment hit (``retreat =
        "retreat"  to = HEX``, ``target`` = the unit's hex when several wait)."""
        waiting = [state.piece(r.unit) for r in state.pending_retreats if state.piece(r.unit).side == side
                   and (order.get("target") is None or state.piece(r.unit).where == order["target"])]
        if len(waiting) != 1:
            raise illegal("14.3", "say which unit's retreat this answers (target = its hex): retreats waiting from "
                                  + ", ".join(state.piece(r.unit).where for r in state.pending_retreats))
        if order["answer"] != "retreat" or not order.get("to"):
            raise illegal("14.3", f"{waiting[0].id} must retreat (14.3: no extra hit can refuse it): "
                                  f"retreat = \"retreat\"  to = HEX")
        state, events = rolls.forced_retreat(data, state, waiting[0], order["to"])
        return state, [Event("14.3", f"{side} chooses where {waiting[0].id} retreats from {waiting[0].where}: "
                                     f"{order['to']}")] + events

    def offer(self, game: Any, state: "AmbonState", side: str, out: Any, **context: Any) -> None:
        """11.3: the retreat line of an open choice (``fight``, ``choices``:
        :meth:`Losses.offer`'s); 14.3: a ``piece`` a bombardment hit, and the
        hexes it may retreat to."""
        piece = context.get("piece")
        if piece is None:
            fight, choices = context["fight"], context["choices"]
            legal = "; ".join(f"{u}: {' or '.join(h) or 'none (an extra hit instead)'}" for u, h in choices["hexes"].items())
            out.notes.append("  retreat = \"retreat\"" + (" or \"hit\" (refuse the r with an extra hit)" if choices["retreat"] == "r" else "")
                             + f", to = hexes in order of preference (11.3 allows, now: {legal})")
            first = next((h[0] for h in choices["hexes"].values() if h), "")
            out.examples.append({"retreat": "retreat", "target": fight.target, **({"to": first} if first else {})})
            return
        hexes = next(d.options for d in game.awaiting(state) if getattr(d, "kind", "") == "retreat"
                     and piece.id in d.prompt)
        out.notes.append(f"14.3 {piece.id} must retreat from {piece.where}: retreat = \"retreat\", to = one of "
                         f"{', '.join(hexes)}, target = \"{piece.where}\"  (left out: it waits for your message)")
        out.decisions.append({"kind": "retreat", "target": piece.where, "unit": piece.id, "options": list(hexes),
                              "rule": "14.3"})
        out.examples.append({"retreat": "retreat", "to": hexes[0], "target": piece.where})


class Surrender(Kind):
    """3.2: the Allied decision at the start of turn 8 (turns.toml: the
    turn whose phases begin with the surrender option)."""

    verb = "surrender"
    types = ("surrender",)
    forms = (('surrender = "no"', "the Allies, at the start of turn 8", "3.2"),)
    rules = ("3.2",)
    typed_forms = ('surrender yes|no                     3.2',)

    def parse(self, data: "AmbonData", side: str, order: Mapping[str, Any], where: str, parts: Parts) -> None:
        if order["surrender"] not in ("yes", "no"):
            raise InputError(f"{where}: surrender = \"yes\" or \"no\"", field="surrender")
        parts.public.append({"type": "surrender", "answer": order["surrender"]})

    def apply(self, data: "AmbonData", state: "AmbonState", action: Ordered) -> tuple["AmbonState", list[Event]]:
        side, answer = action.side, action.order["answer"]
        if side != ALLIED or not state.surrender_offered:
            raise illegal("3.2", "no surrender decision is open")
        state = replace(state, surrender_offered=False)
        if answer == "no":
            return state, [Event("3.2", "the Allies fight on")] + phases.landing_begins(data, state)
        state = replace(state, surrendered=True)
        return phases.game_over(data, state, [Event("3.2", f"the Allies surrender at the start of turn {state.turn}; the game ends")])

    def offer(self, game: Any, state: "AmbonState", side: str, out: Any, **context: Any) -> None:
        if state.surrender_offered and side == ALLIED:
            out.notes.append('3.2 surrender at the start of turn 8? surrender = "yes" ends the game, "no" fights on')
            out.decisions.append({"kind": "surrender", "options": ["yes", "no"], "rule": "3.2"})
            out.examples.append({"surrender": "no"})

