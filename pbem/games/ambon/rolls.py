"""Every die Ambon rolls: which are due now, and what each one does.

Each pending roll is a small record of the state (a landing, a landing
combat, a combat, a bombardment, a recovery check) whose ``label`` names its
die: the same label is the one the protocol keys the die by, the one
``pbem log`` shows, and the one a roll is dispatched by here.  Every roll
is one d6.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterator

from pbem.engine.later import match_roll
from pbem.engine.machine import DiceDue, DiceRolled, Event, replace
from pbem.games.ambon import battle, bombardment, hidden, landing, recovery, retreat
from pbem.games.ambon.state import AmbonState, Bombardment, CombatStage, LandingStage, RecoveryCheck, Reveal

if TYPE_CHECKING:
    from pbem.games.ambon.data import AmbonData

Resolve = Callable[[AmbonState, int], "tuple[AmbonState, list[Event]]"]


def _pending(data: "AmbonData", state: AmbonState) -> Iterator[tuple[DiceDue, Resolve]]:
    """Every roll due now, in the order they are rolled, with what applies it."""
    lanes = data.lanes
    for l in state.landings:
        if l.stage is LandingStage.ROLL:
            yield (DiceDue(l.label, 1, 6, l.key_seq, f"landing on {lanes[l.lane].target}"),
                   lambda s, die, l=l: landing.resolve(data, s, l, die))
    for lc in state.landing_combats:
        if lc.stage is CombatStage.ROLL:
            yield (DiceDue(lc.label, 1, 6, lc.key_seq, f"landing combat on {lanes[lc.lane].target}"),
                   lambda s, die, lc=lc: landing.resolve_combat(data, s, lc, die))
    for b in state.bombardments:
        yield (DiceDue(b.label, 1, 6, b.key_seq, f"{b.unit} bombards {b.target}"),
               lambda s, die, b=b: _bombarded(data, s, b, die))
    for r in state.recoveries:
        yield (DiceDue(r.label, 1, 6, r.key_seq, f"recovery check of {r.unit}"),
               lambda s, die, r=r: _recovered(data, s, r, die))
    for b in state.battles:
        if b.stage is CombatStage.ROLL:
            yield (DiceDue(b.label, 1, 6, b.key_seq, f"combat at {b.target}"),
                   lambda s, die, b=b: battle.resolve(data, s, b, die))


def due(data: "AmbonData", state: AmbonState) -> list[DiceDue]:
    return [d for d, _ in _pending(data, state)]


def rolled(data: "AmbonData", state: AmbonState, action: DiceRolled) -> tuple[AmbonState, list[Event]]:
    resolve = match_roll(_pending(data, state), action, "5.0")
    return resolve(state, action.values[0])


def _recovered(data: "AmbonData", state: AmbonState, check: RecoveryCheck, die: int) -> tuple[AmbonState, list[Event]]:
    state = replace(state, recoveries=tuple(r for r in state.recoveries if r != check))
    return recovery.resolve_recovery(data, state, check.unit, die)


def _bombarded(data: "AmbonData", state: AmbonState, b: Bombardment, die: int) -> tuple[AmbonState, list[Event]]:
    state = replace(state, bombardments=tuple(x for x in state.bombardments if x != b))
    state, events, forced = bombardment.resolve_bombardment(data, state, b.unit, b.target, die, defensive=b.defensive)
    for pid in forced:  # 14.3: a concealed unit hit is revealed; a disrupted one or a detachment retreats
        piece = state.piece(pid)
        if piece.concealed:
            state, more = hidden.owe(state, [Reveal(pid, "14.3", f"hit by {b.unit}'s bombardment")])
        else:
            state, more = retreat.retreat_units(data, state, [piece], "R")
        events += more
    return state, events
