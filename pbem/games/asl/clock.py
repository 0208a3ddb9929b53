"""Where an ASL game stands in its turn record: the game turn, whose Player
Turn it is and the phase (asl.phase) -- what each DR and dr is stamped with.

An ASL Game Turn is two Player Turns, one per side, and each Player Turn
runs through eight phases in order: Rally (RPh), Prep Fire (PFPh), Movement
(MPh), Defensive Fire (DFPh), Advancing Fire (AFPh), Rout (RtPh), Advance
(APh) and Close Combat (CCPh).  Both players roll in every Player Turn (the
DEFENDER's Defensive First Fire is rolled in the ATTACKER's MPh), so the
Player Turn names the side whose turn it is, not the side rolling.

pbem does not play ASL, so it knows the turn record only as far as the
players state it: a ``phase`` order, or a roll naming ``phase`` (with
``player_turn`` and, if the players keep it, ``turn``).  A roll that names
none is stamped with the point the game last reached.  The record only moves
forward: a point before the current one is refused, naming the field.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping

from pbem.errors import IllegalOrderError, InputError

RULE = "asl.phase"
#: the phases of a Player Turn, in order: abbreviation -> name
PHASES: dict[str, str] = {
    "RPh": "Rally Phase",
    "PFPh": "Prep Fire Phase",
    "MPh": "Movement Phase",
    "DFPh": "Defensive Fire Phase",
    "AFPh": "Advancing Fire Phase",
    "RtPh": "Rout Phase",
    "APh": "Advance Phase",
    "CCPh": "Close Combat Phase",
}
ORDER = tuple(PHASES)
MAX_TURN = 99
FIELDS = ("phase", "player_turn", "turn")


def _key(text: str) -> str:
    return re.sub(r"[^a-z]", "", text.lower())


_READ = {**{_key(a): a for a in PHASES}, **{_key(n): a for a, n in PHASES.items()},
         **{_key(n.removesuffix(" Phase")): a for a, n in PHASES.items()}}


def read_phase(value: Any, where: str) -> str:
    """The phase ``value`` names -- ``"DFPh"``, ``"dfph"``, ``"Defensive Fire"``
    or ``"Defensive Fire Phase"`` -- as its abbreviation."""
    found = _READ.get(_key(value)) if isinstance(value, str) else None
    if found is None:
        raise InputError(f"{where}: field 'phase' must name an ASL phase ({', '.join(ORDER)}), got {value!r}",
                         field="phase")
    return found


def read_fields(order: Mapping[str, Any], where: str, sides: tuple[str, ...]) -> dict[str, Any]:
    """The ``phase``, ``player_turn`` and ``turn`` an order gives (syntax
    only), normalised: only those it gives."""
    out: dict[str, Any] = {}
    if "phase" in order:
        out["phase"] = read_phase(order["phase"], where)
    if "player_turn" in order:
        side = order["player_turn"]
        if not isinstance(side, str) or side.strip().lower() not in sides:
            raise InputError(f"{where}: field 'player_turn' names the side whose Player Turn it is, one of "
                             f"{', '.join(sides)}; got {side!r}", field="player_turn")
        out["player_turn"] = side.strip().lower()
    if "turn" in order:
        turn = order["turn"]
        if not isinstance(turn, int) or isinstance(turn, bool) or not 1 <= turn <= MAX_TURN:
            raise InputError(f"{where}: field 'turn' is the Game Turn, a whole number from 1 to {MAX_TURN}; "
                             f"got {turn!r}", field="turn")
        out["turn"] = turn
    return out


@dataclass(frozen=True)
class Clock:
    """A point of the turn record: ``turn`` None when the players keep no
    turn number; ``turn_sides`` the sides whose Player Turn came in this
    Game Turn, in order; ``since`` the message that reached it."""

    player_turn: str
    phase: str
    turn: int | None = None
    turn_sides: tuple[str, ...] = ()
    since: int = 0

    def text(self) -> str:
        """``"Turn 2, axis Player Turn, DFPh"``."""
        return (f"Turn {self.turn}, " if self.turn is not None else "") + f"{self.player_turn} Player Turn, {self.phase}"

    def short(self) -> str:
        """``"T2 axis DFPh"``, for a column of rolls."""
        return (f"T{self.turn} " if self.turn is not None else "") + f"{self.player_turn} {self.phase}"

    def same_point(self, other: "Clock | None") -> bool:
        return other is not None and (self.turn, self.player_turn, self.phase) == (other.turn, other.player_turn, other.phase)

    def to_json(self) -> dict[str, Any]:
        return {"turn": self.turn, "player_turn": self.player_turn, "phase": self.phase,
                "phase_name": PHASES[self.phase], "since": self.since}


def _refused(field: str, text: str) -> IllegalOrderError:
    return IllegalOrderError(text, rule=RULE, field=field)


def advance(clock: Clock | None, given: Mapping[str, Any], seq: int, where: str) -> Clock:
    """The point an order giving ``given`` (:func:`read_fields`) stands at,
    from the game's current ``clock`` (None: not known yet).

    What is not given is the current point's: a roll naming nothing is
    stamped with it.  The phase may be left out only within the current
    Player Turn.  Without ``turn``, a side whose Player Turn already came in
    this Game Turn starts the next one (turn + 1).  A point before the
    current one is refused (the record goes forward only)."""
    turn, side, phase = given.get("turn"), given.get("player_turn"), given.get("phase")
    if clock is None:
        if phase is None:
            raise _refused("phase", f"{where}: field 'phase' is missing, and the game has no current phase yet: "
                                    f"name it ({', '.join(ORDER)}) with player_turn (the side whose Player Turn "
                                    f"it is) and, if you keep it, turn -- on this order or in a phase order before it")
        if side is None:
            raise _refused("player_turn", f"{where}: field 'player_turn' is missing, and the game has no current "
                                          f"Player Turn yet: name the side whose Player Turn it is")
        return Clock(side, phase, turn, (side,), seq)
    side = side or clock.player_turn
    now = f"the game is at {clock.text()} (since message {clock.since:04d})"
    if turn is None:
        turn = clock.turn
        if turn is not None and side != clock.player_turn and side in clock.turn_sides:
            turn += 1  # its Player Turn came in this Game Turn: this is the next one
    elif clock.turn is not None and turn < clock.turn:
        raise _refused("turn", f"{where}: turn {turn} is before the current Game Turn: {now}")
    new_turn = turn != clock.turn and clock.turn is not None and turn is not None
    if side == clock.player_turn and not new_turn:
        phase = phase or clock.phase
        if ORDER.index(phase) < ORDER.index(clock.phase):
            raise _refused("phase", f"{where}: {phase} comes before {clock.phase} in the Player Turn: {now}")
        return Clock(side, phase, turn, clock.turn_sides, clock.since if phase == clock.phase and turn == clock.turn else seq)
    if phase is None:
        raise _refused("phase", f"{where}: field 'phase' is missing for a new Player Turn ({side}"
                                + (f", Turn {turn}" if turn is not None else "") + f"): {now}")
    if new_turn:
        return Clock(side, phase, turn, (side,), seq)
    if side in clock.turn_sides and turn is not None:
        raise _refused("player_turn", f"{where}: {side}'s Player Turn of Turn {turn} has already come: {now}")
    return Clock(side, phase, turn, clock.turn_sides + (side,) if turn is not None else (side,), seq)


__all__ = ["Clock", "PHASES", "ORDER", "FIELDS", "RULE", "advance", "read_fields", "read_phase"]
