"""The state of a game of Ambon: frozen, complete, and free of secrets.

Nothing the Allied player keeps hidden is in here until it is revealed: a
concealed piece is ``concealed=True`` with ``identity=""``; a mine marker is
``status="hidden"``.  The owner's client holds the values (the sealed store)
and overlays them in its own view only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Iterable

from pbem.engine.machine import illegal, replace
from pbem.engine.standing import StandingTable

JAPANESE = "japanese"
ALLIED = "allied"
SIDES = (JAPANESE, ALLIED)
ELIMINATED = "eliminated"
REMOVED = "removed"  # revealed dummies and mine markers leave the game
OFF_MAP = "off-map"  # 14.2: second-wave battalions before their note is revealed

# Phases (5.0).  The phasing side is in PHASE_SIDE.
SETUP_ALLIED = "setup-allied"
SETUP_JAPANESE = "setup-japanese"
LANDING = "landing"
J_MOVEMENT = "japanese-movement"
J_BOMBARDMENT = "japanese-bombardment"
J_COMBAT = "japanese-combat"
A_MOVEMENT = "allied-movement"
A_BOMBARDMENT = "allied-bombardment"
A_COMBAT = "allied-combat"
RECOVERY = "recovery"
SUPPLY = "supply"
GAME_OVER = "over"
PHASES = (
    SETUP_ALLIED,
    SETUP_JAPANESE,
    LANDING,
    J_MOVEMENT,
    J_BOMBARDMENT,
    J_COMBAT,
    A_MOVEMENT,
    A_BOMBARDMENT,
    A_COMBAT,
    RECOVERY,
    SUPPLY,
)
PHASE_SIDE = {
    SETUP_ALLIED: ALLIED,
    SETUP_JAPANESE: JAPANESE,
    LANDING: JAPANESE,
    J_MOVEMENT: JAPANESE,
    J_BOMBARDMENT: JAPANESE,
    J_COMBAT: JAPANESE,
    A_MOVEMENT: ALLIED,
    A_BOMBARDMENT: ALLIED,
    A_COMBAT: ALLIED,
}


def other(side: str) -> str:
    return ALLIED if side == JAPANESE else JAPANESE


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
    """A landing from a First Wave box in progress (6.0-6.3)."""

    lane: str
    units: tuple[str, ...]
    stage: str  # "reveals" (6.1/6.3 reveals owed) | "roll" (die due) | "combat" | "done"
    key_seq: int = 0
    opposed: bool = False
    real_mines: int = 0


@dataclass(frozen=True)
class LandingCombat:
    """6.3: a landing combat waiting for the defender's HQ decision or its die."""

    lane: str
    factor: str  # "1/4", "1/2" or "1"
    stage: str  # "support" (11.1 decision owed by the Allies) | "roll"
    key_seq: int = 0
    defender_hq: str = ""


@dataclass(frozen=True)
class Battle:
    """One declared combat of the Combat Phase (11.0)."""

    target: str
    side: str  # the attacker
    attackers: tuple[str, ...]
    attacker_hq: str = ""
    defender_hq: str = ""
    stage: str = "declared"  # declared | support (11.1 decision owed) | roll | advance (11.4 decision) | done
    key_seq: int = 0
    defenders: tuple[str, ...] = ()  # the defending units when it was declared: attacked this phase (11.0)


@dataclass(frozen=True)
class Reveal:
    """A reveal the rules demand (DESIGN 4.4): ``slot`` of the Allied player."""

    slot: str
    rule: str
    why: str
    side: str = ALLIED


@dataclass(frozen=True)
class AmbonState:
    turn: int
    phase: str
    pieces: tuple[Piece, ...]
    mines: tuple[Mine, ...] = ()
    options: tuple[str, ...] = ()
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
    landing_combat: LandingCombat | None = None
    battles: tuple[Battle, ...] = ()
    bombardments: tuple[tuple[str, str, int, bool], ...] = ()  # (unit, target, key_seq, defensive) awaiting dice
    recoveries: tuple[tuple[str, int], ...] = ()  # 12.0: (unit, key_seq) awaiting dice
    surrender_offered: bool = False
    pending_hits: tuple[tuple[str, str], ...] = ()  # 11.3: (unit, hex) extra hits waiting for reveals  # 3.2: the Allied decision at the start of turn 8 is open
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
            raise illegal("2.2", f"there is no piece {pid!r}")
        return self.pieces[i]

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
        return PHASE_SIDE.get(self.phase)

    def option(self, rule: str) -> bool:
        return rule in self.options
