"""Every die Ambon rolls: which are due now, and what each one does.

Each pending roll is a small record of the state (a landing, a landing
combat, a combat, a bombardment, a recovery check) whose ``label`` names its
die: the same label is the one the protocol keys the die by, the one
``pbem log`` shows, and the one a roll is dispatched by here.  Every roll
is one d6.

Which dice are due needs only the state; what a die does is the rules'
(:mod:`.landing`, :mod:`.battle`, :mod:`.bombardment`, :mod:`.recovery`,
:mod:`.retreat`), which this module calls.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence, TypeVar

from pbem.engine.later import match_roll
from pbem.engine.machine import DiceDue, DiceRolled, Event, replace
from pbem.games.ambon import battle, bombardment, hidden, landing, recovery, retreat
from pbem.games.ambon.state import (
    AmbonState,
    Battle,
    Bombardment,
    CombatStage,
    Landing,
    LandingCombat,
    LandingStage,
    PendingRetreat,
    RecoveryCheck,
    Reveal,
)

if TYPE_CHECKING:
    from pbem.games.ambon.data import AmbonData

Resolve = Callable[[AmbonState, int], "tuple[AmbonState, list[Event]]"]
_Rolled = TypeVar("_Rolled")


def _resolving(apply: Callable[["AmbonData", AmbonState, _Rolled, int], "tuple[AmbonState, list[Event]]"],
               data: "AmbonData", rolled_for: _Rolled) -> Resolve:
    """What a die does: ``apply`` bound to the data and to what it is rolled for."""
    return lambda s, die: apply(data, s, rolled_for, die)


def _pending(data: "AmbonData", state: AmbonState) -> Iterator[tuple[DiceDue, Resolve]]:
    """Every roll due now, in the order they are rolled, with what applies it."""
    lanes = data.lanes
    for ld in state.landings:
        if ld.stage is LandingStage.ROLL:
            yield (DiceDue(ld.label, 1, 6, ld.key_seq, f"landing on {lanes[ld.lane].target}"),
                   _resolving(_landed, data, ld))
    for lc in state.landing_combats:
        if lc.stage is CombatStage.ROLL:
            yield (DiceDue(lc.label, 1, 6, lc.key_seq, f"landing combat on {lanes[lc.lane].target}"),
                   _resolving(_landing_fought, data, lc))
    for b in state.bombardments:
        yield (DiceDue(b.label, 1, 6, b.key_seq, f"{b.unit} bombards {b.target}"),
               _resolving(_bombarded, data, b))
    for r in state.recoveries:
        yield (DiceDue(r.label, 1, 6, r.key_seq, f"recovery check of {r.unit}"),
               _resolving(_recovered, data, r))
    for bt in state.battles:
        if bt.stage is CombatStage.ROLL:
            yield (DiceDue(bt.label, 1, 6, bt.key_seq, f"combat at {bt.target}"),
                   _resolving(_fought, data, bt))


def due(data: "AmbonData", state: AmbonState) -> list[DiceDue]:
    return [d for d, _ in _pending(data, state)]


def describe(values: tuple[int, ...], events: Sequence[Event]) -> dict[str, Any] | None:
    """A die once rolled, with the DRMs its rule applied and the modified
    roll, as the roll's event reports them (``drms``, ``total`` or
    ``modified``): a CRT roll (11.0), a landing (6.2, 6.3), a bombardment
    (10.0), a recovery check (12.0) (:class:`pbem.engine.contract.DescribesRolls`).
    When it decided nothing (a combat that lapsed), the die is shown alone."""
    report = next((e.data for e in events if "roll" in e.data), None)
    if report is None or report["roll"] != values[0] or not ("total" in report or "modified" in report):
        return None
    drms = [(str(why), int(v)) for why, v in report.get("drms", ())]
    return {"expression": "1d6" + "".join(f"{v:+d}" for _, v in drms), "modifiers": drms,
            "total": report.get("total", report.get("modified"))}


def rolled(data: "AmbonData", state: AmbonState, action: DiceRolled) -> tuple[AmbonState, list[Event]]:
    resolve = match_roll(_pending(data, state), action, "5.0")
    return resolve(state, action.values[0])


# --------------------------------------------------------------------------- what each die does


def _landed(data: "AmbonData", state: AmbonState, ld: Landing, die: int) -> tuple[AmbonState, list[Event]]:
    return landing.resolve(data, state, ld, die)


def _landing_fought(data: "AmbonData", state: AmbonState, lc: LandingCombat, die: int) -> tuple[AmbonState, list[Event]]:
    return landing.rolled_combat(data, state, lc, die)


def _fought(data: "AmbonData", state: AmbonState, b: Battle, die: int) -> tuple[AmbonState, list[Event]]:
    return battle.rolled(data, state, b, die)


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
            state, more = forced_retreat(data, state, piece)
        events += more
    return state, events


def forced_retreat(data: "AmbonData", state: AmbonState, piece: Any, to: str | None = None) -> tuple[AmbonState, list[Event]]:
    """14.3: "If the bombardment hits, those units must retreat" -- into the
    hex its owner chooses among those 11.3 allows (``to``: their answer;
    else their standing ``retreat-to``); when neither decides it, the
    retreat waits for the owner's message (a PendingRetreat)."""
    busy = battle.busy_hexes(state, "")
    moved = retreat.retreat_units(data, state, [piece], "R", busy, to=to, where=f" of {piece.id}")
    if moved is not None:
        return replace(moved[0], pending_retreats=tuple(r for r in state.pending_retreats if r.unit != piece.id)), moved[1]
    if any(r.unit == piece.id for r in state.pending_retreats):
        return state, []
    choices = retreat.retreat_choices(data, state, piece, retreat.retreat_options(data, state, piece, busy))
    return replace(state, pending_retreats=state.pending_retreats + (PendingRetreat(piece.id),)), [
        Event("14.3", f"{piece.id} must retreat from {piece.where} (14.3): its owner chooses the hex "
                      f"({' or '.join(choices)}; 11.3)", {"unit": piece.id, "choices": choices})]
