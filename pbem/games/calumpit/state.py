"""The frozen state of a Calumpit Bridge game.

Everything here is public: the event decks are drawn lazily (the index of a
card is rolled at the moment of the draw), so no deck order exists for
anyone to hide or learn, and the game has no sealed slots.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any, Iterable

AMERICAN = "american"
JAPANESE = "japanese"
SIDES = (AMERICAN, JAPANESE)

# unit statuses
ACTIVE = "active"
ELIMINATED = "eliminated"
OFFBOARD = "offboard"
WITHDRAWING = "withdrawing"
STATUSES = (ACTIVE, "pinned", "retreat", "rout", "charge", "banzai", WITHDRAWING, ELIMINATED, OFFBOARD)
OUT_OF_ACTION = (ELIMINATED, OFFBOARD)
#: VICTORY CONDITIONS, "all retreating": a failed morale's retreat or rout, a
#: withdrawal (breakoff, Hearts Jack/Queen/King) and a unit that has left the table
RETREATING = ("retreat", "rout", WITHDRAWING, OFFBOARD)


def other(side: str) -> str:
    return JAPANESE if side == AMERICAN else AMERICAN


@dataclass(frozen=True)
class Unit:
    """A unit on the table: a squad, a platoon, a gun, a section of tanks.
    ``figures`` counts its men (or its vehicles, for tanks)."""

    id: str
    side: str
    nationality: str
    kind: str
    name: str
    figures: int
    grade: int = 20
    ammo: int | None = None
    status: str = ACTIVE
    officer: bool = False
    type: str = ""  # JAT type (Japanese attack units) or event-unit key
    force: int = 0  # the Japanese attacking force it arrived with (0: none)
    target: str = ""  # tank-fire target type of its vehicles
    fights: int = 0  # hand-to-hand fights this turn
    fired: int = 0  # indirect-fire rounds fired this turn
    arrived: int = 0  # the turn it came on the table
    aim: str = ""  # a card sniper: the unit he fires at (Diamonds Queen, King, Ace; Hearts 7)

    @property
    def in_action(self) -> bool:
        return self.status not in OUT_OF_ACTION


@dataclass(frozen=True)
class Bridge:
    id: str
    name: str
    hits: int = 0
    status: str = "intact"  # intact, damaged, disabled, destroyed

    @property
    def down(self) -> bool:
        return self.status in ("disabled", "destroyed")


@dataclass(frozen=True)
class Barrage:
    """Rounds that fall at the start of coming turns (a card's "two turns of
    six rounds", a called 155mm battery)."""

    name: str
    rule: str
    target: str
    rounds: int
    direction: str
    distance: str
    radius: int
    first_turn: int
    turns_left: int
    bridge: str = ""
    disable_hits: int = 0
    explode_on: int = 0


@dataclass(frozen=True)
class Mission:
    """Fire missions on call for the American player (Hearts 9, Clubs 2)."""

    id: str
    rule: str
    name: str
    calls_left: int
    rounds: int
    turns_per_call: int
    delay: int
    last_turn: int
    direction: str
    distance: str
    radius: int


@dataclass(frozen=True)
class DrawDue:
    """A draw a card makes owed (Spades 4: "if there are vehicles in the open
    draw a red card"): by ``side`` from ``deck``, until drawn or the side
    reports that the ``condition`` does not hold."""

    deck: str
    side: str = AMERICAN
    card: str = ""
    condition: str = ""


@dataclass(frozen=True)
class Sniped:
    """A card sniper's shot whose consequences are owed: the saving throw of
    the figure hit (if ``hit``), then the target's morale check ("Morale is
    checked anytime a unit takes fire").  ``unit`` is the unit the card names
    ("" if it is not in action)."""

    sniper: str
    target: str
    unit: str
    hit: bool
    turn: int


@dataclass(frozen=True)
class Spotter:
    """Hearts 10's spotter aircraft, circling "until driven off or shot down
    or fire mission is called"; the attack it calls when its condition holds."""

    card: str
    rule: str
    condition: str
    target: str
    rounds: str
    direction: str
    distance: str
    radius: int
    turn: int


@dataclass(frozen=True)
class Force:
    """A Japanese attacking force: every JAT unit since the last breakoff."""

    number: int
    road: str
    broken_off: bool = False


@dataclass(frozen=True)
class Pending:
    """A roll awaited by the task at the head of the queue."""

    label: str
    count: int
    sides: int
    key_seq: int
    purpose: str
    name: str


@dataclass(frozen=True)
class Task:
    """Work that needs dice: one order, or the passage to the next turn.

    ``params`` is the canonical JSON of what it was given; ``rolled`` the
    dice it has received so far, by name, with the die size."""

    id: str
    kind: str
    side: str
    key_seq: int
    params: str
    rolled: tuple[tuple[str, int, tuple[int, ...]], ...] = ()

    @property
    def args(self) -> dict[str, Any]:
        return json.loads(self.params)


@dataclass(frozen=True)
class CalumpitState:
    units: tuple[Unit, ...]
    bridges: tuple[Bridge, ...]
    red: tuple[str, ...]  # cards left in the red deck (data order: a draw rolls an index)
    black: tuple[str, ...]
    turn: int = 0  # 0 until turn 1 begins (at the end of message 0)
    seq: int = -1
    done: tuple[str, ...] = ()  # sides that have moved and fired all their units this turn
    drawn: tuple[tuple[str, int, str], ...] = ()  # (card, turn, when)
    phones: str = "in service"
    co_movement: int = 0
    grenades: int = 0  # new-type grenades at the depot (Spades 3)
    may_draw: tuple[DrawDue, ...] = ()  # draws a card makes owed (Spades 4), kept until made or lapsed
    sniped: tuple[Sniped, ...] = ()  # card sniper shots whose save and morale check are owed
    spotters: tuple[Spotter, ...] = ()  # Hearts 10's aircraft while it circles
    barrages: tuple[Barrage, ...] = ()
    missions: tuple[Mission, ...] = ()
    demolition: str = ""  # "" / "owed" (the Joker's attempt is due) / "failed" (again next turn)
    forces: tuple[Force, ...] = ()
    facts: tuple[tuple[str, str], ...] = ()  # what players reported (VICTORY CONDITIONS)
    tasks: tuple[Task, ...] = ()
    pending: Pending | None = None
    counters: tuple[tuple[str, int], ...] = ()  # next number per unit-id prefix
    ending_by: str = ""
    over: bool = False
    winner: str = ""
    verdict: str = ""

    # ------------------------------------------------------------------ lookups

    def unit(self, uid: str) -> Unit | None:
        return next((u for u in self.units if u.id == uid), None)

    def bridge(self, bid: str) -> Bridge:
        return next(b for b in self.bridges if b.id == bid)

    def fact(self, name: str) -> str:
        return next((v for k, v in self.facts if k == name), "")

    def deck(self, name: str) -> tuple[str, ...]:
        return self.red if name == "red" else self.black

    def counter(self, prefix: str) -> int:
        return next((n for p, n in self.counters if p == prefix), 0)

    @property
    def force(self) -> Force | None:
        """The current (not broken off) Japanese attacking force."""
        return next((f for f in reversed(self.forces) if not f.broken_off), None)

    # ------------------------------------------------------------------ updates (new states)

    def with_unit(self, unit: Unit) -> "CalumpitState":
        units = tuple(unit if u.id == unit.id else u for u in self.units)
        if all(u.id != unit.id for u in self.units):
            units += (unit,)
        return _replace(self, units=units)

    def with_units(self, units: Iterable[Unit]) -> "CalumpitState":
        state = self
        for u in units:
            state = state.with_unit(u)
        return state

    def with_bridge(self, bridge: Bridge) -> "CalumpitState":
        return _replace(self, bridges=tuple(bridge if b.id == bridge.id else b for b in self.bridges))

    def with_fact(self, name: str, value: str) -> "CalumpitState":
        return _replace(self, facts=tuple(sorted([(k, v) for k, v in self.facts if k != name] + [(name, value)])))

    def with_counter(self, prefix: str, n: int) -> "CalumpitState":
        return _replace(self, counters=tuple(sorted([(p, c) for p, c in self.counters if p != prefix] + [(prefix, n)])))


def _replace(obj: Any, **changes: Any) -> Any:
    return dataclasses.replace(obj, **changes)


def canonical(params: Any) -> str:
    return json.dumps(params, sort_keys=True, separators=(",", ":"))


__all__ = [
    "ACTIVE",
    "AMERICAN",
    "Barrage",
    "Bridge",
    "CalumpitState",
    "DrawDue",
    "ELIMINATED",
    "Force",
    "JAPANESE",
    "Mission",
    "OFFBOARD",
    "OUT_OF_ACTION",
    "Pending",
    "RETREATING",
    "SIDES",
    "STATUSES",
    "Sniped",
    "Spotter",
    "Task",
    "Unit",
    "WITHDRAWING",
    "canonical",
    "other",
]
