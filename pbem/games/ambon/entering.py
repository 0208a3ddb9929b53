"""What happens when a unit enters a hex, however it gets there -- by
movement (7.0), landing (6.2, 6.3), advance after combat (11.4), retreat
(11.3) -- or is revealed where it stands: the 8.0 and 7.2 reveals, 3.1
control of key locations, 6.5 beachheads.  The one place these effects live.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pbem.engine.machine import Event, replace
from pbem.games.ambon import hidden, movement
from pbem.games.ambon.state import ALLIED, ELIMINATED, JAPANESE, AmbonState, Piece, Reveal

if TYPE_CHECKING:
    from pbem.games.ambon.data import AmbonData


def entered(data: "AmbonData", state: AmbonState, piece: Piece, where: str, *,
            landed: bool = False) -> tuple[AmbonState, list[Event]]:
    """``piece`` has entered ``where`` (or is revealed there); ``landed``:
    it came ashore there from a First Wave box (6.2, 6.3).

    8.0: a Japanese unit's ZOC reaching a concealed unit reveals it; "HQ
    units have no ZOC", so a Japanese HQ reveals nothing.  3.1: any unit,
    an HQ too ("HQs are units", 2.2.1), takes control of a key location.
    7.2: a concealed Allied piece entering a Japanese ZOC, a beachhead or a
    Japanese-held key location is revealed; a dummy may not retake a key
    location.  6.5: a Japanese unit entering a landing hex places a
    beachhead -- by any entry, or only by landing there, as the game's 6.5
    ruling reads "When a Japanese unit enters a landing hex" (``entry`` or
    ``landed``); an Allied unit (not a dummy) entering one captures it."""
    gmap = data.map
    events: list[Event] = []
    h = gmap.hex(where)
    if piece.side == JAPANESE:
        reach = [
            p for p in state.on_map(ALLIED)
            if p.concealed and zoc_reaches(data, h, gmap.hex(p.where))
        ] if movement.exerts_zoc(data, piece) else []
        state, more = hidden.owe(state, [Reveal(p.id, "8.0", f"{piece.id}'s ZOC reaches {p.where}") for p in reach])
        events += more
        if h in gmap.key_locations and state.controller(where) != JAPANESE:
            state = replace(state, control=state.control + ((where, state.turn),))
            events.append(Event("3.1", f"{piece.id} takes {gmap.key_locations[h].name} ({where}) on turn {state.turn}"))
        if where in [lane.target for lane in data.lanes.values()] and (landed or state.ruling("6.5") == "entry"):
            state, more = place_beachhead(state, where)
            events += more
        return state, events
    if piece.concealed:
        reasons = []
        if h in movement.zoc_of(data, state, JAPANESE):
            reasons.append(Reveal(piece.id, "7.2", f"entered a Japanese ZOC at {where}"))
        elif where in state.beachheads:
            reasons.append(Reveal(piece.id, "7.2", f"entered the beachhead at {where}"))
        elif h in gmap.key_locations and state.controller(where) == JAPANESE:
            reasons.append(Reveal(piece.id, "7.2", f"entered the Japanese-held key location {where}"))
        return hidden.owe(state, reasons)
    if piece.identity == "dummy":
        return state, events
    if where in state.beachheads:
        state, more = capture_beachhead(data, state, where)
        events += more
    if h in gmap.key_locations and state.controller(where) == JAPANESE:
        state = replace(state, control=tuple(c for c in state.control if c[0] != where))
        events.append(Event("3.1", f"{piece.id} retakes {gmap.key_locations[h].name} ({where}) for the Allies"))
    return state, events


def entered_all(data: "AmbonData", state: AmbonState, units: list[str], where: str, *,
                landed: bool = False) -> tuple[AmbonState, list[Event]]:
    """Several units entering one hex together (a landing, an advance): each
    of them enters, since an HQ among them projects no ZOC (8.0)."""
    events: list[Event] = []
    for uid in units:
        state, more = entered(data, state, state.piece(uid), where, landed=landed)
        events += more
    return state, events


def zoc_reaches(data: "AmbonData", source: Any, target: Any) -> bool:
    """8.0: a ZOC reaches the six adjacent hexes, not a sea hex, nor across an all-sea hexside."""
    gmap = data.map
    return source.is_adjacent(target) and gmap.terrain_at(target) != movement.SEA and not gmap.has("all_sea", source, target)


# --------------------------------------------------------------------------- 6.5 beachheads


def place_beachhead(state: AmbonState, target: str) -> tuple[AmbonState, list[Event]]:
    """6.5: a Japanese unit entering (or landing in: the 6.5 ruling) a landing hex places a beachhead marker."""
    if target in state.beachheads or target in state.lost_beachheads:
        return state, []
    return replace(state, beachheads=state.beachheads + (target,)), [
        Event("6.5", f"beachhead established on {target}")
    ]


def capture_beachhead(data: "AmbonData", state: AmbonState, where: str) -> tuple[AmbonState, list[Event]]:
    """6.5: an Allied unit (not a dummy) entering a beachhead removes it for
    good; Japanese units still to land there are eliminated: those in the
    First and Second Wave boxes of the lanes aimed at it.  With 14.2 a
    battalion still off the map may be aimed at it by the sealed note, which
    nobody can read yet: it is eliminated when the note is revealed
    (:func:`pbem.games.ambon.reveals.place_second_wave`)."""
    if where not in state.beachheads:
        return state, []
    state = replace(
        state,
        beachheads=tuple(b for b in state.beachheads if b != where),
        lost_beachheads=state.lost_beachheads + (where,),
    )
    doomed = []
    for lane in data.lanes.values():
        if lane.target == where:
            doomed += [p for p in state.pieces if p.where in (lane.first_wave, lane.second_wave)]
    state = state.with_pieces(replace(p, where=ELIMINATED) for p in doomed)
    events = [Event("6.5", f"the Allies capture the beachhead on {where}; it can never be a beachhead again")]
    if doomed:
        events.append(Event("6.5", f"{', '.join(p.id for p in doomed)} could still land there and are eliminated"))
    return state, events
