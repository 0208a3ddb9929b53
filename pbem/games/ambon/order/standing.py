"""``[standing]``: the instructions a side gives once for the questions the
rules would ask it (docs/architecture.md, "Who decides";
:mod:`pbem.engine.standing`): 11.1 HQ support, 11.3 retreats and losses,
11.4 advances, 3.2 surrender.  Not an ``[[order]]`` table but a table of
its own; its instructions hold until changed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from pbem.engine import standing
from pbem.engine.contract import Section
from pbem.engine.machine import Event, Ordered, replace
from pbem.errors import InputError
from pbem.games.ambon.combat import LOSS_POLICIES
from pbem.games.ambon.order.base import Kind, Parts
from pbem.games.ambon.retreat import TOWARD_FRIENDS
from pbem.games.ambon.state import ALLIED

if TYPE_CHECKING:
    from pbem.games.ambon.data import AmbonData
    from pbem.games.ambon.state import AmbonState

KINDS = {
    "hq-support": ("always", "never"),  # 11.1: support the defence whenever an HQ can
    "advance": ("always", "never"),  # 11.4: advance every eligible attacker into an emptied hex
    "retreat": ("retreat", "hit"),  # 11.3: answer an "r" result
    "retreat-to": None,  # 11.3: hexes in order of preference when 11.3 leaves a choice, and/or "toward-friends": "1708 1607"
    "surrender": ("never",),  # 3.2: fight on at the start of turn 8 (turns.toml) without being asked
    "losses": None,  # 11.3: units in the order they take hits, and/or "protect-hq": ["3.C", "3.A", "protect-hq"]
}

#: standing instruction -> (rule, what happens while it is not set: docs/architecture.md, "Who decides", and combat's DEFAULT POLICY)
UNSET = {
    "hq-support": ("11.1", "each HQ support of your defence is asked of you, and the combat waits for your message"),
    "advance": ("11.4", "each advance after your combat is asked of you, in your next message"),
    "retreat": ("11.3", "each 'r' result is asked of you (retreat, or refuse with an extra hit), and the combat "
                        "waits for your message"),
    "retreat-to": ("11.3", "where a retreat may go to more than one hex, you are asked; \"toward-friends\" takes "
                           "the hex 11.3 prefers (outside EZOC, lowest cost or along a road), ties toward friendly "
                           "units, then by hex number"),
    "losses": ("11.3", "each hit you could give to more than one unit is asked of you; \"protect-hq\" gives it to "
                       "a detachment first, then disrupts your strongest undisrupted unit, then eliminates your "
                       "weakest disrupted one, an HQ only when no other unit is left"),
    "surrender": ("3.2", "at the start of turn 8 you are asked whether the Allies surrender"),
}


def _lists(document: Mapping[str, Any]) -> Mapping[str, Any]:
    """``losses`` and ``retreat-to`` may be TOML arrays (``losses = ["3.C",
    "3.A", "protect-hq"]``): kept as the words of one instruction."""
    table = document.get("standing")
    if not isinstance(table, Mapping) or not any(isinstance(table.get(k), list) for k in ("losses", "retreat-to")):
        return document
    table = dict(table)
    for kind in ("losses", "retreat-to"):
        value = table.get(kind)
        if isinstance(value, list):
            if not all(isinstance(v, str) and v and " " not in v for v in value):
                raise InputError(f"standing.{kind}: a list of unit ids or hexes, got {value!r}", field=f"standing.{kind}")
            table[kind] = " ".join(value)
    return {**document, "standing": table}


class Standing(Kind):
    """The ``[standing]`` table: instructions by name (:data:`KINDS`)."""

    verb = "standing"
    types = ("standing",)
    rules = ("11.1", "11.3", "11.4", "3.2")
    typed_forms = ('standing advance=always              standing instructions (hq-support, advance, retreat, retreat-to, losses, surrender)',)
    string_value = False

    def line(self, words: list[str]) -> dict[str, Any]:
        """``standing advance=always``: the ``[standing]`` table it stands for."""
        key, _, value = " ".join(words).partition("=")
        return {key.strip(): value.strip()}

    def parse(self, data: "AmbonData", side: str, order: Mapping[str, Any], where: str, parts: Parts) -> None:
        """``order``: the document (its ``standing`` table); the
        instructions, if any, go first among the parsed orders (this is
        parsed before the document's ``[[order]]`` tables)."""
        instructions = standing.parse(_lists(order), KINDS)
        if "losses" in instructions:
            words = instructions["losses"].split()
            misplaced = [w for w in words[:-1] if w in LOSS_POLICIES]
            if misplaced or not words:
                raise InputError(f"standing.losses: {instructions['losses']!r}: units in the order they take hits, "
                                 f"ending, if you want one, with the policy \"{LOSS_POLICIES[0]}\" (11.3)",
                                 field="standing.losses")
        if "retreat-to" in instructions:
            try:
                hexes = [h if h == TOWARD_FRIENDS else data.map.label(data.map.hex(h))
                         for h in instructions["retreat-to"].split()]
            except InputError as err:
                raise InputError(f"standing.retreat-to: {err} (give hexes in order of preference, e.g. \"1708 1607\")",
                                 field="standing.retreat-to") from err
            instructions["retreat-to"] = " ".join(hexes)
        if instructions:
            parts.public.insert(0, {"type": "standing", **instructions})

    def apply(self, data: "AmbonData", state: "AmbonState", action: Ordered) -> tuple["AmbonState", list[Event]]:
        instructions = {k: v for k, v in action.order.items() if k != "type"}
        said = ", ".join(f"{k} = {v}" for k, v in sorted(instructions.items()))
        return replace(state, standing=state.standing.updated(action.side, instructions)), [
            Event("standing", f"{action.side} standing instructions: {said}")
        ]

    def offer(self, game: Any, state: "AmbonState", side: str, out: Any, **context: Any) -> None:
        """The standing instructions in effect for ``side``, and what pbem does
        for each one not set, so that nothing is decided silently (issue 17)."""
        notes = []
        for kind in KINDS:
            if kind == "surrender" and side != ALLIED:
                continue
            rule, unset = UNSET[kind]
            value = state.standing.get(side, kind)
            notes.append(f"  {kind} ({rule}): " + (f"{value!r}, as you set it" if value is not None else f"not set -- {unset}"))
        notes.append("Set or change one with [standing], e.g. retreat = \"hit\"; it holds until you change it.")
        out.sections.append(Section("Standing instructions in effect for you", notes))
