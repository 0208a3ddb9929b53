"""What a reveal does to the position (4.1, 6.1, 6.3, 7.2, 8.0, 13.1, 14.2).

A mine marker shows real or dummy (its landing may then roll, 6.1); a
concealed piece is a dummy, removed from the game, or a detachment, which
then has every effect of where it stands (7.2); the Second Wave note places
its two battalions (14.2).  :func:`settle` applies every owed reveal already
published, after any action and in the middle of a move.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pbem.engine.machine import Event, illegal, replace
from pbem.games.ambon import entering, hidden, landing, retreat, setup
from pbem.games.ambon.state import ELIMINATED, REMOVED, AmbonState

if TYPE_CHECKING:
    from pbem.games.ambon.data import AmbonData


def settle(data: "AmbonData", state: AmbonState) -> tuple[AmbonState, list[Event]]:
    """Apply every owed reveal that is already published, in the order owed."""
    events: list[Event] = []
    while True:
        ready = next((r.slot for r in state.owed if state.opened(r.slot) is not None), None)
        if ready is None:
            return state, events
        state, more = apply(data, state, ready)
        events += more


def voluntary(data: "AmbonData", state: AmbonState, side: str) -> tuple[AmbonState, list[Event]]:
    """13.1: reveals ``side`` made without a rule demanding them take effect
    at the end of its message.

    "The Allied player can block one by revealing that the unit is a
    detachment."  As the game's 13.1 ruling reads it: ``any``, the owner
    may reveal any of its concealed pieces or mine markers of its own
    accord, a dummy too; ``detachment``, only a concealed detachment (the
    reveal the sentence allows, to block a road or trail for supply)."""
    events: list[Event] = []
    for slot, value in state.published:
        if hidden.slot_owner(data, slot) == side and hidden.unapplied(data, state, slot):
            if _not_allowed(data, state, slot, value):
                continue  # a demand may still come before the message ends (refused_voluntary)
            state, more = apply(data, state, slot)
            events += more
    return state, events


def _not_allowed(data: "AmbonData", state: AmbonState, slot: str, value: str) -> bool:
    return state.ruling("13.1") == "detachment" and slot != setup.SECOND_WAVE_SLOT and value != "detachment"


def refused_voluntary(data: "AmbonData", state: AmbonState, side: str) -> None:
    """13.1 ruling ``detachment``, once ``side``'s message is wholly applied:
    a reveal it made that no rule demanded by then, and that is not of a
    detachment, is refused.  (A reveal the message's own orders made due --
    a unit that ended next to an advancing enemy, 8.0 -- is demanded, and
    takes effect when it is.)"""
    for slot, value in state.published:
        if hidden.slot_owner(data, slot) == side and hidden.unapplied(data, state, slot) \
                and not state.owes(slot) and _not_allowed(data, state, slot, value):
            what = "a mine marker" if slot in data.mine_slots else f"a {value}"
            raise illegal("13.1", f"{slot} would be revealed as {what}, and no rule demands it: this game's "
                                  f"13.1 ruling is detachment -- only a concealed detachment may be revealed "
                                  f"of the owner's accord")


def apply(data: "AmbonData", state: AmbonState, slot: str) -> tuple[AmbonState, list[Event]]:
    """The published ``slot`` takes effect; an extra retreat hit waiting on it is settled (11.3)."""
    state, events = _reveal(data, state, slot)
    if state.pending_hits:
        state, more = retreat.settle_hits(data, state)
        events += more
    return state, events


def _reveal(data: "AmbonData", state: AmbonState, slot: str) -> tuple[AmbonState, list[Event]]:
    value = state.opened(slot)
    reveal = next((r for r in state.owed if r.slot == slot), None)
    rule = reveal.rule if reveal else "13.1"
    state = replace(state, owed=tuple(r for r in state.owed if r.slot != slot))
    if slot in data.mine_slots:
        mine = state.mine(slot)
        state = state.with_mine(replace(mine, status=value))
        state, more = landing.ready(data, state, state.seq)
        return state, [
            Event(rule, f"mine marker {slot} in {mine.box} is revealed: {value}", {"slot": slot, "value": value})
        ] + more
    if slot == setup.SECOND_WAVE_SLOT:
        return place_second_wave(data, state, value or "")
    piece = state.piece(slot)
    if value == "dummy":
        state = state.with_piece(replace(piece, where=REMOVED, concealed=False, identity="dummy"))
        state, more = landing.ready(data, state, state.seq)
        return state, [Event(rule, f"{slot} in {piece.where} is revealed: a dummy, removed from the game",
                             {"slot": slot, "value": value})] + more
    state = state.with_piece(replace(piece, concealed=False, identity="detachment"))
    events = [Event(rule, f"{slot} in {piece.where} is revealed: a detachment", {"slot": slot, "value": value})]
    state, more = entering.entered(data, state, state.piece(slot), piece.where)  # 7.2: effects of its move
    state, more2 = landing.ready(data, state, state.seq)
    return state, events + more + more2


def place_second_wave(data: "AmbonData", state: AmbonState, note: str) -> tuple[AmbonState, list[Event]]:
    """14.2: the note is revealed in the turn-1 Recovery Phase; the two
    battalions are placed.

    Where: where the rules would have had them by now without 14.2.  A
    Second Wave battalion moves up to its lane's First Wave box at the end
    of the turn-1 landings unless a non-artillery unit is still there
    (6.4), and lands on turn 2.  14.2 only keeps the beach secret, so each
    battalion is placed where that turn-1 6.4 step would have put it --
    the First Wave box if no non-artillery unit is in it (the boxes have
    not changed since the landings), else the Second Wave box -- and the
    note does not delay the landing by a turn.  That is the game's 14.2
    ruling ``first-wave``; with ``second-wave`` "are placed" means in their
    Second Wave boxes, from which they move up as 6.4 says, after the
    turn-2 landings (so they land on turn 3 at the earliest).

    6.5: "Any Japanese units still scheduled to land in that hex are all
    eliminated" when the Allies capture a beachhead.  A battalion whose
    note names a beach the Allies captured before the note was revealed
    was scheduled to land there: it is eliminated now, when that becomes
    known (the sealed note cannot be read earlier)."""
    plan = setup.parse_second_wave_note(data, note)
    pieces = []
    events = [Event("14.2", f"the Second Wave note is revealed: {note}; the battalions are placed")]
    for battalion, lane_id in sorted(plan.items()):
        lane = data.lanes[lane_id]
        units = setup.BATTALIONS[battalion]
        if lane.target in state.lost_beachheads:
            pieces += [replace(state.piece(u), where=ELIMINATED) for u in units]
            events.append(Event("6.5", f"{', '.join(units)} were to land on {lane.target}, a beachhead the Allies "
                                       f"captured: they are eliminated"))
            continue
        if state.ruling("14.2") == "second-wave":
            pieces += [replace(state.piece(u), where=lane.second_wave) for u in units]
            events.append(Event("14.2", f"{', '.join(units)} are placed in {lane.second_wave} (14.2 ruling "
                                        f"second-wave: they move up to {lane.first_wave} as 6.4 says)"))
            continue
        blocking = [p for p in state.at(lane.first_wave) if not data.spec(p).artillery]
        box = lane.second_wave if blocking else lane.first_wave
        pieces += [replace(state.piece(u), where=box) for u in units]
        events.append(Event("6.4", f"{', '.join(units)} are placed in {box}"
                            + (f" ({blocking[0].id} is still in {lane.first_wave})" if blocking else
                               " (as the turn-1 Second Wave step would have moved them up)")))
    state = replace(state.with_pieces(pieces), second_wave_note=note)
    return state, events
