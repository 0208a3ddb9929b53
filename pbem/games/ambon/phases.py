"""The sequence of play in motion (5.0): what a phase waits for, how a
message ends it, what ending it does and what opening the next one does.

The order of the phases is :mod:`pbem.games.ambon.sequence` (and the turn
track of the data); this module only walks it.  Every phase a message
passes through leaves an event: its beginning (:func:`sequence.opened`),
what happened in it, or why nothing did (:func:`sequence.skipped`).

A message by the phasing side carries its orders for the current phase and,
in order, for its following phases; the phase pointer moves forward as
orders of a later phase appear (:func:`reach`) and at the end of the
message (:func:`message_end`), and stops wherever the rules need the other
side (a reveal, a decision) or dice keyed by a later message (docs/protocol.md §6.3).
What the game awaits then (the engine's ``awaiting``) is :mod:`.awaited`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pbem.engine.machine import Event, MessageEnd, illegal, replace
from pbem.games.ambon import battle, bombardment, hidden, landing, movement, recovery, reveals, sequence, setup, supply, victory
from pbem.games.ambon.sequence import BOMBARDMENT_PHASES, COMBAT_PHASES, MOVEMENT_PHASES, SPEC, Phase, phasing_side
from pbem.games.ambon.state import ALLIED, JAPANESE, SIDES, AmbonState, CombatStage, LandingStage, RecoveryCheck, Reveal

if TYPE_CHECKING:
    from pbem.games.ambon.data import AmbonData


# --------------------------------------------------------------------------- what ends a phase


def blocker(data: "AmbonData", state: AmbonState) -> str:
    """Why the current phase cannot end yet, in words ("" when it can)."""
    if state.owed:
        return f"{state.owed[0].side} owes the reveal of {', '.join(r.slot for r in state.owed)}"
    rolling = [ld for ld in state.landings if ld.stage in (LandingStage.REVEALS, LandingStage.ROLL)]
    if rolling:
        return f"the landing from {data.lanes[rolling[0].lane].first_wave} is not resolved"
    if state.landing_combats:
        lc = state.landing_combats[0]
        if lc.stage is CombatStage.LOSSES:
            return f"{lc.waiting} has not chosen the losses and retreats of the landing combat on {lc.settling.target} (11.3)"
        return f"the landing combat from {data.lanes[lc.lane].first_wave} is not resolved"
    if state.bombardments:
        return f"{state.bombardments[0].unit}'s bombardment is not resolved"
    if state.recoveries:
        return "recovery checks are not resolved"
    if state.surrender_offered:
        return "the Allies have not decided whether to surrender (3.2)"
    if state.pending_retreats:
        unit = state.piece(state.pending_retreats[0].unit)
        return f"{unit.side} has not chosen where {unit.id} retreats (14.3)"
    if state.pending_hits:
        return f"{state.pending_hits[0].unit}'s extra retreat hit waits for reveals"
    open_battles = [b for b in state.battles if b.stage is not CombatStage.DONE]
    if open_battles:
        b = open_battles[0]
        if b.stage is CombatStage.ADVANCE:
            return f"{b.side} has not decided the advance into {b.target}"
        if b.stage is CombatStage.LOSSES:
            return f"{b.waiting} has not chosen the losses and retreats of the combat at {b.target} (11.3)"
        return f"the combat at {b.target} is not resolved"
    return ""


# --------------------------------------------------------------------------- a message moving through the phases


def reach(data: "AmbonData", state: AmbonState, phase: Phase, side: str, index: int, kind: str) -> tuple[AmbonState, list[Event]]:
    """Move the phase pointer forward to ``phase`` for ``side``'s order,
    ending the phases between (5.0), if nothing blocks them."""
    events: list[Event] = []
    if sequence.order_of(phase) < sequence.order_of(state.phase):
        raise illegal("5.0", f"order {index + 1}: a {kind} order belongs to the {phase} phase; it is the {state.phase} phase")
    while state.phase != phase:
        if phasing_side(state.phase) != side:
            raise illegal("5.0", f"order {index + 1}: it is the {state.phase} phase, not yet {phase}")
        if state.phase == Phase.LANDING:
            waiting = landing.unattempted(data, state)
            if waiting:
                raise illegal("6.0", f"order {index + 1}: the Landing Phase comes first: units in "
                                     f"{', '.join(waiting)} attempt to land unless postponed -- give a land or "
                                     f"postpone order for {'it' if len(waiting) == 1 else 'each'} before orders of later phases")
        why = blocker(data, state)
        if why:
            raise illegal("5.0", f"order {index + 1}: the {state.phase} phase cannot end yet: {why}")
        state, more = end_phase(data, state)
        events += more
    return replace(state, seen=(state.turn, str(state.phase))), events


def covers(data: "AmbonData", state: AmbonState, side: str) -> bool:
    """Whether ``side``'s message may end the current phase: one its author
    saw open when writing it, or reached with its orders, or one of the
    side's phases that follow it (:func:`sequence.phases_from`: an empty
    message passes the rest of its player turn).  A phase a reveal of the
    message opened, which its author never saw, waits for the author's next
    message (5.0: no phase is passed unseen)."""
    turn, phase = state.seen
    return state.turn == turn and Phase(state.phase) in sequence.phases_from(data, turn, phase, side)


def message_end(data: "AmbonData", state: AmbonState, action: MessageEnd) -> tuple[AmbonState, list[Event]]:
    """The end of ``action.side``'s message: what it left open is settled
    by the rules' defaults, and a phasing side's message ends its phases
    until the rules need the other side or dice."""
    events: list[Event] = []
    side = action.side
    if state.surrender_offered and side == ALLIED:
        # 3.2: a decision left open is declined, as an unanswered HQ support is (the game cannot stall)
        state = replace(state, surrender_offered=False)
        events.append(Event("3.2", "the Allies fight on (the surrender decision was left open)"))
        events += landing_begins(data, state)
    state, more = reveals.voluntary(data, state, side)
    events += more
    if side == ALLIED:
        state, more = landing.decline_open_support(data, state, action.seq)
        events += more
    if state.phase in COMBAT_PHASES:
        if phasing_side(state.phase) == side:
            state, more = battle.close_advances(state, side, action.seq)
            events += more
            if any(b.stage is CombatStage.DECLARED for b in state.battles):
                state, more = battle.open_support(data, state, action.seq)
                events += more
        else:
            state, more = battle.decline_open_support(state, side, action.seq)
            events += more
    if action.seq < 1 or phasing_side(state.phase) != side:
        return state, events
    if not covers(data, state, side):
        events.append(Event("5.0", f"the {sequence.title(state.phase)} of turn {state.turn} began during this message, "
                                   f"which gave no orders for it: it waits for the {side.capitalize()} player's next message"))
        return state, events
    if state.phase in MOVEMENT_PHASES and hidden.awaited_by(data, state, side):
        # 8.0: the phase waits for the reveals, then goes on (see progress)
        return replace(state, movement_paused=True), events
    state = replace(state, closing=True)
    while True:
        if blocker(data, state):
            return state, events
        ended = state.phase
        state, more = end_phase(data, state)
        events += more
        if state.phase == ended:
            continue  # it could not end yet (6.0: the landings it had to attempt)
        if phasing_side(state.phase) != side or ended in (Phase.SETUP_ALLIED, Phase.SETUP_JAPANESE):
            return state, events  # a setup message never passes the turn's first phase
        if not covers(data, state, side):
            return state, events
        state = replace(state, closing=True)


def progress(data: "AmbonData", state: AmbonState) -> tuple[AmbonState, list[Event]]:
    """A closing phase whose blockers have cleared ends; automatic phases run."""
    events: list[Event] = []
    if state.landing_combats:
        state, events = landing.proceed_combats(data, state)
    if state.battles:
        state, more = battle.proceed(data, state)
        events += more
    if state.movement_paused and not blocker(data, state):
        state, more = _resume_movement(data, state)
        events += more
    while state.phase != Phase.GAME_OVER and (state.closing or phasing_side(state.phase) is None):
        if blocker(data, state):
            break
        ended = state.phase
        state, more = end_phase(data, state)
        events += more
        if state.phase == ended and blocker(data, state):
            break
    return state, events


def _resume_movement(data: "AmbonData", state: AmbonState) -> tuple[AmbonState, list[Event]]:
    """8.0 Comment: "The dummy is then revealed and removed. The Japanese
    unit may continue moving with its remaining MP."  Once the reveals a
    movement message waited for are made, the Movement Phase goes on: the
    phasing side's next message may move again (a unit that stopped at
    the reveal with the MP it has left) or end the phase.  If none of its
    units could still move, the phase ends as it would have."""
    state = replace(state, movement_paused=False)
    side = phasing_side(state.phase) or JAPANESE
    movers = movement.units_able_to_move(data, state, side)
    if not movers:
        return replace(state, closing=True), []
    return state, [Event("8.0", f"the reveals are made: the {side.capitalize()} Movement Phase goes on "
                                f"({', '.join(movers)} may still move)")]


# --------------------------------------------------------------------------- ending a phase, opening the next


def end_phase(data: "AmbonData", state: AmbonState) -> tuple[AmbonState, list[Event]]:
    """End the current phase and open the next (5.0).  The Landing Phase
    first attempts the landings nobody postponed (6.0): while they are
    being resolved the phase stays open."""
    phase = Phase(state.phase)
    events: list[Event] = []
    if phase is Phase.SETUP_ALLIED:
        setup.check_allied_setup(data, state)
        events.append(Event("4.1", "the Allied setup is complete"))
    elif phase is Phase.SETUP_JAPANESE:
        setup.check_japanese_setup(data, state)
        events.append(Event("4.2", f"the Japanese setup is complete; turn {data.first_turn} begins"))
    else:
        if phase is Phase.LANDING and landing.unattempted(data, state):
            state, more = landing.attempt_the_rest(data, state, state.seq)
            state = replace(state, acted=True)
            events += more
            if blocker(data, state):
                return state, events
        if not state.acted:
            events.append(skipped(data, state))
        if phase is Phase.LANDING:
            state, more = landing.sweep(data, state)
            events += more
        elif phase in MOVEMENT_PHASES:
            state = state.with_pieces(replace(p, spent=0) for p in state.pieces if p.spent)
        elif phase in COMBAT_PHASES:
            state = replace(state, battles=())
    nxt = sequence.following(data, state.turn, phase)
    if nxt is None:
        events.append(Event("3.0", f"turn {state.turn} was the last; the game is over"))
        return game_over(data, state, events)
    turn, phase = nxt
    if turn != state.turn:
        fresh = [replace(p, penalty="", moved=False, attacked=False, bombarded=False, spent=0) for p in state.pieces]
        state = replace(state.with_pieces(fresh), turn=turn)
        events.append(Event("5.0", f"turn {turn} begins ({data.turn(turn).label})", {"turn": turn}))
    return open_phase(data, state, phase, events)


def skipped(data: "AmbonData", state: AmbonState) -> Event:
    """The event of a phase ending with nothing done in it: why, citing the rule."""
    phase = Phase(state.phase)
    spec = SPEC[phase]
    reason = _why_nothing(data, state, phase)
    return Event(spec.rule, f"skipped: {spec.title} of turn {state.turn}: {reason}",
                 {"phase": phase.value, "turn": state.turn, "skipped": reason})


def _why_nothing(data: "AmbonData", state: AmbonState, phase: Phase) -> str:
    side = SPEC[phase].side or ""
    who = side.capitalize()
    if phase is Phase.LANDING:
        return "no Japanese unit is in a First Wave box (6.0)"
    if phase in MOVEMENT_PHASES:
        return f"no {who} unit moved (7.0: a player may move all, some, or none of their units)"
    if phase in BOMBARDMENT_PHASES:
        able = bombardment.able_to_bombard(data, state, side)
        if not able:
            return f"no {who} artillery-type unit had an enemy unit it may bombard in range (10.0)"
        return f"no bombardment was ordered (10.0: {', '.join(able)} could have bombarded)"
    if phase in COMBAT_PHASES:
        return f"no {who} combat was declared (11.0: attacking is never mandatory)"
    if phase is Phase.RECOVERY:
        return "no disrupted unit may make a recovery check (12.0)"
    return "nothing was done"


def open_phase(data: "AmbonData", state: AmbonState, phase: Phase, events: list[Event]) -> tuple[AmbonState, list[Event]]:
    """Begin ``phase``: its event, and what the rules do as it begins."""
    state = replace(state, phase=phase, closing=False, acted=False)
    turn = data.turn(state.turn)
    if phase is Phase.LANDING and victory.may_surrender(data, state):  # 3.2: at the start of the turn, before landing
        if state.standing.get(ALLIED, "surrender") == "never":
            events.append(Event("3.2", "the Allies fight on (standing instruction)"))
        else:
            state = replace(state, surrender_offered=True)
            events.append(Event("3.2", f"turn {turn.number} begins: the Allies may surrender"))
            return state, events  # the Landing Phase begins once they decide (landing_begins)
    if phase is Phase.LANDING:
        return state, events + landing_begins(data, state)
    events.append(sequence.opened(state))
    if phase is Phase.A_MOVEMENT and turn.allied_move_restricted:
        radius = data.value("turn1_allied_move_radius")
        events.append(Event("7.1", f"turn {turn.number}: only Allied units within {radius} land hexes of a "
                                   f"Japanese unit may move"))
    if phase is Phase.RECOVERY:
        if not turn.japanese_recovery:
            events.append(Event("12.0", f"turn {state.turn}: the Japanese may not make recovery checks"))
        due = [p for side in SIDES for p in recovery.recovery_candidates(data, state, side)]
        state = replace(state, recoveries=tuple(RecoveryCheck(p.id, state.seq) for p in due), acted=bool(due))
        if due:
            events.append(Event("12.0", f"recovery checks for {', '.join(p.id for p in due)}"))
        if state.turn == data.first_turn and state.option("14.2"):  # 14.2: "the Recovery Phase of turn 1"
            state, more = hidden.owe(state, [Reveal(setup.SECOND_WAVE_SLOT, "14.2", f"turn-{state.turn} Recovery Phase",
                                                    JAPANESE)])
            state = replace(state, acted=True)
            events += more
    if phase is Phase.SUPPLY:
        state, more = supply.supply_check(data, state)
        state = replace(state, acted=True)
        events += [Event("13.0", f"supply check (end of turn {state.turn})")] + more
    return state, events


def landing_begins(data: "AmbonData", state: AmbonState) -> list[Event]:
    """The Landing Phase begins (5.0): its event, and the First Wave boxes
    that attempt to land in it (6.0).  On a turn with the surrender option
    it begins after the Allies' decision (3.2: "at the start of turn 8")."""
    events = [sequence.opened(state)]
    boxes = landing.unattempted(data, state)
    if boxes:
        events.append(Event("6.0", f"units in {', '.join(boxes)} attempt to land this phase unless postponed"))
    return events


def game_over(data: "AmbonData", state: AmbonState, events: list[Event]) -> tuple[AmbonState, list[Event]]:
    """3.0: the Japanese VP total and its band."""
    state = replace(state, phase=Phase.GAME_OVER, closing=False, surrender_offered=False)
    total, breakdown = victory.victory_points(data, state)
    band = victory.victory_band(data, total)
    parts = "; ".join(f"{why} {vp:+d}" for why, vp in breakdown if vp)
    events.append(Event("3.0", f"the Japanese score {total} VP: {band}" + (f" ({parts})" if parts else ""),
                        {"vp": total, "band": band, "breakdown": [[w, v] for w, v in breakdown]}))
    return state, events
