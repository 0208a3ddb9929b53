"""Standing instructions (docs/architecture.md, "Who decides"): answers to routine decisions given in
advance, so that a game turn needs as few emails as the dice invariant allows.

A side's standing instructions map a decision *kind* (``"advance"``,
``"retreat"``, ``"loss"``, ``"hq-support"`` ...) to an answer.  Games declare
the kinds they accept and their legal values; orders set them with a
``[standing]`` table (``advance = "always"``), and they stay in force until
changed.  When the engine would ask a side a question, :meth:`StandingTable.get` gives
the pre-declared reply, which the game maps onto the options open then.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Iterable, Mapping

from pbem.engine.machine import DiceDue, Event, illegal, replace
from pbem.errors import InputError

@dataclass(frozen=True)
class StandingTable:
    """Every side's standing instructions: frozen and hashable, for game state."""

    entries: tuple[tuple[str, str, str], ...] = ()  # (side, kind, answer), sorted

    def get(self, side: str, kind: str) -> str | None:
        """``side``'s standing answer to decisions of ``kind``, or None (ask)."""
        return next((answer for s, k, answer in self.entries if s == side and k == kind), None)

    def updated(self, side: str, instructions: Mapping[str, str]) -> "StandingTable":
        """A new table with ``side``'s ``instructions`` replacing its old ones of the same kinds."""
        kept = [(s, k, a) for s, k, a in self.entries if not (s == side and k in instructions)]
        return StandingTable(tuple(sorted(kept + [(side, k, a) for k, a in instructions.items()])))

    def of(self, side: str) -> dict[str, str]:
        return {k: a for s, k, a in self.entries if s == side}


def parse(document: Mapping[str, Any], kinds: Mapping[str, tuple[str, ...] | None]) -> dict[str, str]:
    """The ``[standing]`` table of an orders document, checked against the
    game's ``kinds`` (kind -> accepted answers, or None for free text such as
    a loss order); errors name the field."""
    table = document.get("standing", {})
    if not isinstance(table, Mapping):
        raise InputError("standing: must be a table, e.g. [standing] advance = \"always\"", field="standing")
    out = {}
    for kind, value in table.items():
        if kind not in kinds:
            raise InputError(
                f"standing.{kind}: unknown standing instruction (this game has {', '.join(sorted(kinds)) or 'none'})",
                field=f"standing.{kind}",
            )
        accepted = kinds[kind]
        if accepted is None and isinstance(value, str) and len(value) <= 500:
            out[kind] = value
            continue
        if not isinstance(value, str) or accepted is None or value not in accepted:
            raise InputError(
                f"standing.{kind}: {value!r} is not one of {', '.join(kinds[kind] or ('a text',))}", field=f"standing.{kind}"
            )
        out[kind] = value
    return out


# --------------------------------------------------------------------------- key-rolls: keying answered by the machine

KEY_ROLLS = "key-rolls"
#: ``[standing] key-rolls = "auto"``: the side's machine (``pbem watch``) answers, by itself and at once, an
#: opponent's message that needs keying with a message that declares nothing; ``"off"`` (the default) leaves
#: every such answer to the player.
KEY_ROLLS_ANSWERS = ("auto", "off")


def needs_keying(awaited: Iterable[Any], seq: int) -> bool:
    """Whether message ``seq`` *needs keying*: dice are due keyed by it
    (``DiceDue.key_seq == seq``, docs/protocol.md §6.3), so that its author
    learns them only from the reply, whose chain value completes their key.

    Asked at the end of message ``seq`` (``awaited``: what the game awaits
    then).  A message that declares no roll needs none, and a key-only answer
    declares nothing -- no order, note or reveal -- so it never needs
    keying: a side whose machine keys rolls by itself never answers one,
    and two such sides stop after one answer instead of keying each
    other's empty messages for ever."""
    return any(isinstance(a, DiceDue) and a.key_seq == seq for a in awaited)


class KeysRolls:
    """The ``key-rolls`` standing instruction for a game whose rolls are all
    declared by orders (dice, ASL): parsed from ``[standing]``, carried as a
    public order ``{"type": "standing", "key-rolls": "auto"}`` (so the
    opponent reads it, and only its author's signed message can set it),
    and read by the game's ``decisions``.  The state has ``standing`` (a
    :class:`StandingTable`) and ``keying`` (the last message needs keying);
    ``standing_rule`` is the rule the events and errors cite."""

    standing_rule: ClassVar[str]

    def standing_order(self, document: Mapping[str, Any]) -> dict[str, str] | None:
        """The public order of ``document``'s ``[standing]`` table, or None."""
        instructions = parse(document, {KEY_ROLLS: KEY_ROLLS_ANSWERS})
        return {"type": "standing", **instructions} if instructions else None

    def _standing(self, state: Any, side: str, order: Mapping[str, Any]) -> tuple[Any, list[Any]]:
        if set(order) != {"type", KEY_ROLLS} or order[KEY_ROLLS] not in KEY_ROLLS_ANSWERS:
            raise illegal(self.standing_rule, f"a standing order is {{\"type\": \"standing\", \"{KEY_ROLLS}\": "
                                              f"\"auto\" or \"off\"}}, not {dict(order)!r}")
        value = order[KEY_ROLLS]
        said = ("its machine keys the opponent's rolls by itself, with a message that declares nothing"
                if value == "auto" else "the opponent's rolls are keyed by its own messages")
        event = Event(self.standing_rule, f"{side} standing instruction: {KEY_ROLLS} = {value} ({said})",
                      {KEY_ROLLS: value})
        return replace(state, standing=state.standing.updated(side, {KEY_ROLLS: value})), [event]

    def _keying(self, state: Any, seq: int, awaited: Iterable[Any]) -> Any:
        """``state`` at the end of message ``seq``: whether it needs keying (:func:`needs_keying`)."""
        keying = needs_keying(awaited, seq)
        return state if keying == state.keying else replace(state, keying=keying)

    @staticmethod
    def keys_by_itself(state: Any, side: str) -> bool:
        """Whether ``side``'s next message decides nothing: the last message
        (the opponent's) needs keying and ``side`` told its machine to key it."""
        return bool(state.keying) and state.standing.get(side, KEY_ROLLS) == "auto"


def offer_key_rolls(out: Any, state: Any, side: str) -> None:
    """The ``key-rolls`` standing instruction in a dice or ASL orders
    template (``out``, a :class:`pbem.engine.contract.Sections`): the
    side's setting now in the awaited lines, and the example that turns it
    on while it is off (it is the player's choice, never set for them)."""
    now = state.standing.get(side, KEY_ROLLS) or "off"
    out.awaited.append(f"standing instruction {KEY_ROLLS} = {now}: " + (
        "your pbem watch answers a message whose only need is keying your opponent's rolls"
        if now == "auto" else
        f"your opponent's rolls wait for your next message; [standing] {KEY_ROLLS} = \"auto\" lets your pbem "
        f"watch key them at once with a message that declares nothing"))
    if now != "auto":
        out.standing = {KEY_ROLLS: "auto"}
    out.choices[KEY_ROLLS] = now
