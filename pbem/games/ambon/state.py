"""The state of a game of Ambon: frozen, complete, and free of secrets.

Nothing the Allied player keeps hidden is in here until it is revealed: a
concealed piece is ``concealed=True`` with ``identity=""``; a mine marker is
``status="hidden"``.  The owner's client holds the values (the sealed store)
and overlays them in its own view only.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import Iterable

from pbem.engine.machine import illegal, replace
from pbem.engine.standing import StandingTable
from pbem.games.ambon import rulings as _rulings
from pbem.games.ambon.sequence import ALLIED, JAPANESE, PHASES, SIDES, Phase, other, phasing_side

__all__ = ["ALLIED", "JAPANESE", "SIDES", "PHASES", "Phase", "other"]

ELIMINATED = "eliminated"
REMOVED = "removed"  # revealed dummies and mine markers leave the game
OFF_MAP = "off-map"  # 14.2: second-wave battalions before their note is revealed

# The phases (5.0), by their short names; the sequence itself is pbem.games.ambon.sequence.
SETUP_ALLIED = Phase.SETUP_ALLIED
SETUP_JAPANESE = Phase.SETUP_JAPANESE
LANDING = Phase.LANDING
J_MOVEMENT = Phase.J_MOVEMENT
J_BOMBARDMENT = Phase.J_BOMBARDMENT
J_COMBAT = Phase.J_COMBAT
A_MOVEMENT = Phase.A_MOVEMENT
A_BOMBARDMENT = Phase.A_BOMBARDMENT
A_COMBAT = Phase.A_COMBAT
RECOVERY = Phase.RECOVERY
SUPPLY = Phase.SUPPLY
GAME_OVER = Phase.GAME_OVER


class LandingStage(StrEnum):
    """Where a landing from a First Wave box stands (6.0-6.3)."""

    POSTPONED = "postponed"  # 6.0: the Japanese player postponed it to the next turn
    NOT_MADE = "not-made"  # 6.3: a landing the rules forbid (artillery alone against a held beach), not attempted
    REVEALS = "reveals"  # 6.1/6.3: mine markers or concealed pieces on the beach must be revealed first
    ROLL = "roll"  # its die on the 6.2 or 6.3 table is due
    COMBAT = "combat"  # 6.3: its landing combat is being fought
    DONE = "done"


class CombatStage(StrEnum):
    """Where a combat (11.0) or a landing combat (6.3) stands."""

    DECLARED = "declared"  # 11.0: declared; the defender's HQ support is not yet asked
    SUPPORT = "support"  # 11.1: the defender's HQ support decision is owed
    ROLL = "roll"  # its die is due
    ROLLED = "rolled"  # its die is known; it is resolved when every combat declared before it is (11.0)
    LOSSES = "losses"  # 11.3: an owner's choice (which units take the hits, retreat or hit, where) is owed
    ADVANCE = "advance"  # 11.4: the attacker's advance decision is owed
    DONE = "done"


@dataclass(frozen=True)
class Piece:
    """One counter: where it is and how it stands."""

    id: str
    side: str
    where: str  # a hex number, a box id, ELIMINATED, REMOVED or OFF_MAP
    disrupted: bool = False
    concealed: bool = False  # 4.1: face-up concealed dummy/detachment, identity sealed
    identity: str = ""  # for concealed pieces once revealed: "detachment" or "dummy"
    oos: bool = False  # 13.0: out of supply, cannot recover
    penalty: str = ""  # 6.2: "-2mp" or "no-move"; 6.3: "opposed" (no move, bombard, attack)
    spent: int = 0  # half-MP spent in the current movement phase
    moved: bool = False
    bombarded: bool = False
    attacked: bool = False

    @property
    def on_map(self) -> bool:
        return self.where[:1].isdigit()


@dataclass(frozen=True)
class Mine:
    """A mine marker (4.1): ``hidden`` until revealed ``real`` or ``dummy``; ``removed`` after 6.4."""

    id: str
    box: str
    status: str = "hidden"


@dataclass(frozen=True)
class Landing:
    """A landing from a First Wave box this Landing Phase (6.0-6.3)."""

    lane: str
    units: tuple[str, ...]
    stage: LandingStage
    key_seq: int = 0
    opposed: bool = False
    real_mines: int = 0

    @property
    def label(self) -> str:
        """The label of its die on the 6.2 or 6.3 table."""
        return f"landing {self.lane}"


@dataclass(frozen=True)
class LandingCombat:
    """6.3: one landing combat: waiting for the defender's HQ decision or its die."""

    lane: str
    factor: str  # the attacker CS the 6.3 table gave: "1/4", "1/2" or "1"
    stage: CombatStage  # SUPPORT (11.1 decision owed by the Allies) | ROLL | ROLLED | LOSSES
    key_seq: int = 0
    defender_hq: str = ""
    die: int = 0  # once rolled
    fight: "Fight | None" = None  # once its CRT result is read: its results being applied (results.py)

    @property
    def settling(self) -> "Fight":
        """The fight whose results are being applied: set once its CRT result is read."""
        assert self.fight is not None, f"{self.label}: no CRT result read yet"
        return self.fight

    @property
    def label(self) -> str:
        return f"landing combat {self.lane}"

    @property
    def waiting(self) -> str:
        """LOSSES: the side whose 11.3 choice is owed."""
        return self.fight.waiting if self.fight and self.fight.asked else ""


@dataclass(frozen=True)
class Fight:
    """A combat's results being applied (11.3, :mod:`pbem.games.ambon.results`):
    where, who, and how far."""

    target: str  # the defending hex
    side: str  # the attacker
    attackers: tuple[str, ...]  # the attacking units that take the attacker's hits
    result: str  # the CRT result, e.g. "1/1r"
    fought: tuple[str, ...]  # the defending units, as they were when it was resolved
    step: int = 1
    waiting: str = ""  # the side whose choice is owed (or whose answer is being kept)
    asked: bool = False  # the choice of ``waiting`` is open: the fight waits for their message
    answers: tuple[tuple[str, str], ...] = ()  # their answer so far: ("losses" | "retreat" | "to", value)
    names: tuple[str, str] = ("defender", "attacker")  # how the events call the two sides
    label: str = "combat at"  # how the events name it: "combat at 1609", "landing combat on 0713"

    def answer(self, kind: str) -> str | None:
        return next((v for k, v in self.answers if k == kind), None)

    @property
    def owner(self) -> str:
        """The side whose step it is."""
        return (ALLIED if self.side == JAPANESE else JAPANESE) if self.step in (1, 2) else self.side

    @property
    def done(self) -> bool:
        return self.step >= 4


@dataclass(frozen=True)
class Battle:
    """One declared combat of the Combat Phase (11.0)."""

    target: str
    side: str  # the attacker
    attackers: tuple[str, ...]
    attacker_hq: str = ""
    defender_hq: str = ""
    stage: CombatStage = CombatStage.DECLARED
    key_seq: int = 0
    defenders: tuple[str, ...] = ()  # the defending units when it was declared: attacked this phase (11.0)
    die: int = 0  # once rolled (ROLLED and after)
    fight: "Fight | None" = None  # once its CRT result is read: its results being applied (results.py)
    asked_at: int = 0  # ADVANCE: the message during (or after) which the 11.4 decision opened

    @property
    def settling(self) -> "Fight":
        """The fight whose results are being applied: set once its CRT result is read."""
        assert self.fight is not None, f"{self.label}: no CRT result read yet"
        return self.fight

    @property
    def label(self) -> str:
        return f"combat {self.target}"

    @property
    def result(self) -> str:
        return self.fight.result if self.fight else ""

    @property
    def waiting(self) -> str:
        """LOSSES: the side whose 11.3 choice is owed."""
        return self.fight.waiting if self.fight and self.fight.asked else ""


@dataclass(frozen=True)
class Bombardment:
    """10.0 (or 14.1 defensive fire): one artillery unit's bombardment, its die due."""

    unit: str
    target: str
    key_seq: int
    defensive: bool = False

    @property
    def label(self) -> str:
        return f"bombard {self.unit}"


@dataclass(frozen=True)
class RecoveryCheck:
    """12.0: one disrupted unit's recovery check, its die due."""

    unit: str
    key_seq: int

    @property
    def label(self) -> str:
        return f"recovery {self.unit}"


@dataclass(frozen=True)
class PendingHit:
    """11.3: the extra hit of a retreat into an EZOC that only concealed
    units make, waiting for their reveals (a dummy's would cancel it)."""

    unit: str
    hex: str


@dataclass(frozen=True)
class PendingRetreat:
    """14.3: a unit a bombardment hit "must retreat", and 11.3 leaves its
    owner a choice of hexes no standing ``retreat-to`` makes: it waits for
    their answer (``retreat = "retreat"  to = HEX``)."""

    unit: str
    rule: str = "14.3"


@dataclass(frozen=True)
class Reveal:
    """A reveal the rules demand (docs/protocol.md §7.5): ``slot`` of the Allied player."""

    slot: str
    rule: str
    why: str
    side: str = ALLIED


@dataclass(frozen=True)
class AmbonState:
    """A position: the turn and phase, every piece and marker, and what is
    being resolved (landings, combats, bombardments, reveals owed ...)."""

    turn: int
    phase: Phase
    pieces: tuple[Piece, ...]
    mines: tuple[Mine, ...] = ()
    options: tuple[str, ...] = ()
    # issue 26: the reading of each disputed sentence, (rule, reading) in rule
    # order, every one (message 0's options.rulings, the defaults for the rest)
    rulings: tuple[tuple[str, str], ...] = field(default_factory=_rulings.defaults)
    beachheads: tuple[str, ...] = ()  # 6.5: hexes with a beachhead marker
    lost_beachheads: tuple[str, ...] = ()  # 6.5: captured by the Allies, never again a beachhead
    control: tuple[tuple[str, int], ...] = ()  # 3.1: Japanese-held key locations, (hex, turn taken)
    landings: tuple[Landing, ...] = ()
    owed: tuple[Reveal, ...] = ()  # reveals the rules demand and the Allies have not made
    published: tuple[tuple[str, str], ...] = ()  # openings seen (slot, value): public once made
    second_wave_note: str = ""  # 14.2: the opened note
    sealed: tuple[tuple[str, str], ...] = ()  # (side, slot) committed
    closing: bool = False  # the phasing side has finished giving orders for this phase
    movement_paused: bool = False  # 8.0: a movement message ended waiting for reveals; the phase goes on after them
    halted: tuple[tuple[str, int], ...] = ()  # 8.0: (unit, turn) whose move stopped for a reveal: it may go on (7.0 one-leg)
    acted: bool = False  # something was done in the current phase (5.0: else it ends "skipped")
    seen: tuple[int, str] = (0, "")  # (turn, phase) the current message's author saw open, or its orders reached
    landing_combats: tuple[LandingCombat, ...] = ()  # 6.3: every landing combat of this Landing Phase, in order
    battles: tuple[Battle, ...] = ()
    bombardments: tuple[Bombardment, ...] = ()  # awaiting dice
    recoveries: tuple[RecoveryCheck, ...] = ()  # awaiting dice
    surrender_offered: bool = False  # 3.2: the Allied decision at the start of turn 8 is open
    pending_hits: tuple[PendingHit, ...] = ()
    pending_retreats: tuple[PendingRetreat, ...] = ()  # 14.3: retreats whose hex their owner has not chosen
    standing: StandingTable = field(default_factory=StandingTable)
    seq: int = 0
    vp_events: tuple[tuple[str, int], ...] = ()  # (why, VP) awarded outside the final tally
    surrendered: bool = False

    # ------------------------------------------------------------------ pieces

    @cached_property
    def _index(self) -> dict[str, int]:
        """Piece id -> position in ``pieces`` (built once per state, kept by ``with_piece``)."""
        index: dict[str, int] = {}
        for i, p in enumerate(self.pieces):
            index.setdefault(p.id, i)
        return index

    def piece(self, pid: str) -> Piece:
        i = self._index.get(pid)
        if i is None:
            raise illegal("2.2", f"there is no piece {pid!r}{self.did_you_mean(pid)}")
        return self.pieces[i]

    def did_you_mean(self, pid: str) -> str:
        """`` (did you mean 'Kure-1'?)`` for an id close to a piece's, else ""."""
        def plain(text: str) -> str:  # "Kure1", "kure-1" and "KURE 1" are Kure-1
            return "".join(ch for ch in str(text).lower() if ch.isalnum())

        close = [p for p in self._index if plain(p) == plain(pid)]
        if not close:
            close = difflib.get_close_matches(str(pid), list(self._index), n=2, cutoff=0.6)
        return f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""

    def has_piece(self, pid: str) -> bool:
        return pid in self._index

    def at(self, where: str) -> tuple[Piece, ...]:
        return tuple(p for p in self.pieces if p.where == where)

    def on_map(self, side: str | None = None) -> tuple[Piece, ...]:
        cache = self.__dict__.setdefault("_on_map", {})  # a cache, not state: frozen dataclass fields are untouched
        found = cache.get(side)
        if found is None:
            found = cache[side] = tuple(p for p in self.pieces if p.on_map and (side is None or p.side == side))
        return found

    def with_piece(self, new: Piece) -> "AmbonState":
        i = self._index.get(new.id)
        if i is None:
            return replace(self, pieces=self.pieces)
        old = self.pieces[i]
        state = replace(self, pieces=self.pieces[:i] + (new,) + self.pieces[i + 1 :])
        # What one piece's change leaves as it was carries over: the index, and
        # the other side's pieces on the map (so a side's moves do not rebuild
        # the enemy's zone of control, see movement.movement_cost).
        state.__dict__["_index"] = self._index
        state.__dict__["_on_map"] = {
            s: v for s, v in self.__dict__.get("_on_map", {}).items() if s is not None and s not in (old.side, new.side)
        }
        return state

    def with_pieces(self, new: Iterable[Piece]) -> "AmbonState":
        by_id = {p.id: p for p in new}
        return replace(self, pieces=tuple(by_id.get(p.id, p) for p in self.pieces))

    # ------------------------------------------------------------------ hidden information

    def opened(self, slot: str) -> str | None:
        return next((v for s, v in self.published if s == slot), None)

    def owes(self, slot: str) -> bool:
        return any(r.slot == slot for r in self.owed)

    def mine(self, mid: str) -> Mine:
        for m in self.mines:
            if m.id == mid:
                return m
        raise illegal("4.1", f"there is no mine marker {mid!r}")

    def with_mine(self, new: Mine) -> "AmbonState":
        return replace(self, mines=tuple(new if m.id == new.id else m for m in self.mines))

    # ------------------------------------------------------------------ control

    def controller(self, hexlabel: str) -> str:
        """3.1: who controls a key location (all Allied at the start)."""
        return JAPANESE if any(h == hexlabel for h, _ in self.control) else ALLIED

    @property
    def phasing(self) -> str | None:
        return phasing_side(self.phase)

    def option(self, rule: str) -> bool:
        return rule in self.options

    def ruling(self, rule: str) -> str:
        """The reading of disputed rule ``rule`` this game plays (``"6.5"`` ->
        ``"entry"``; rulings.toml lists each one's readings)."""
        for name, reading in self.rulings:
            if name == rule:
                return reading
        raise KeyError(f"no ruling {rule!r} (the rulings: {', '.join(r for r, _ in self.rulings)})")
