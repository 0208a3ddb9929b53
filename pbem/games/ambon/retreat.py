"""Retreats after combat (11.3), all of it: the hexes a unit may retreat
into and which of them its owner may choose, the retreat itself (or the
extra hit instead), and the extra hit of a retreat into an EZOC that waits
for reveals.  Used by combat (11.0), landing combat (6.3) and 14.3's
bombardment of disrupted units."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pbem.engine.machine import Event, illegal, replace
from pbem.games.ambon import combat, entering, hidden, movement
from pbem.games.ambon.state import AmbonState, PendingHit, Piece, Reveal, other

if TYPE_CHECKING:
    from pbem.games.ambon.data import AmbonData


def retreat_options(data: "AmbonData", state: AmbonState, piece: Piece, busy: frozenset[str] = frozenset()) -> list[tuple[bool, int, str]]:
    """11.3: the hexes ``piece`` may retreat into, as (into EZOC, cost, hex),
    best first: outside any EZOC where possible, then the lowest movement cost
    (a road counts as lowest), never where it could not move, never into a hex
    of defenders in an unresolved combat.

    "A unit may not retreat into a hex it could not enter by movement" (11.3)
    is read with 7.0: no sea, all-sea hexside or enemy-occupied hex, and no
    hex whose movement cost (terrain, or road/trail, plus river) exceeds the
    unit's movement allowance -- 7.0's "a Dutch artillery unit with movement
    allowance 2 cannot enter a mountain hex (movement cost 3) unless moving
    along a road or trail".  The allowance is the face showing (a disrupted
    unit's back); EZOC surcharges are left out (11.3 makes the EZOC a
    criterion of its own, with its own extra hit), and so are the landing
    markers of 6.2/6.3 (they limit a phase's movement, not the hexes a unit
    can enter)."""
    gmap = data.map
    cost = movement.movement_cost(data, state, piece.side)
    ezoc = movement.zoc_of(data, state, other(piece.side))
    friends = {p.where for p in state.on_map(piece.side) if p.id != piece.id}
    allowance = data.spec(piece).move
    here = gmap.hex(piece.where)
    found = []
    for n in here.neighbours():
        label = gmap.label(n) if gmap.contains(n) else None
        if label is None or label in busy:
            continue
        step = cost(here, n)
        if step.halves is None:
            continue
        # 11.3 compares movement costs, not the EZOC surcharges (EZOC is its own criterion)
        base = step.halves - sum(h for why, h in step.parts if "EZOC" in why)
        if base > allowance:
            continue  # it could not enter that hex by movement
        found.append((n in ezoc, base, label not in friends, label))
    found.sort()
    return [(e, c, label) for e, c, _, label in found]


def retreat_choices(data: "AmbonData", state: AmbonState, piece: Piece, options: list[tuple[bool, int, str]]) -> list[str]:
    """11.3: among the legal ``options`` (:func:`retreat_options`), the hexes
    the owner may choose: outside any EZOC if one is legal, and then "the hex
    with the lowest movement cost, or a hex along a road".  The default
    policy's hex comes first."""
    if not options:
        return []
    gmap = data.map
    here = gmap.hex(piece.where)
    into_ezoc = options[0][0]
    lowest = min(c for e, c, _ in options if e == into_ezoc)
    return [label for e, c, label in options
            if e == into_ezoc and (c == lowest or "road" in gmap.hexside_features(here, gmap.hex(label)))]


#: the named retreat policy: a standing ``retreat-to`` may be or end with it
TOWARD_FRIENDS = "toward-friends"


def retreat_units(data: "AmbonData", state: AmbonState, pieces: list[Piece], kind: str,
                  busy: frozenset[str] = frozenset(), *, refuse: str | None = None, to: str | None = None,
                  where: str = "") -> tuple[AmbonState, list[Event]] | None:
    """11.3: ``r`` -- retreat one hex or refuse with an extra hit; ``R`` --
    must retreat.  Into an EZOC only when no other hex is legal, with an
    extra hit; with no legal hex, an extra hit instead.

    Both choices are the owner's: whether to refuse an ``r`` (``refuse``:
    their answer, ``"retreat"`` or ``"hit"``, else their standing
    ``retreat``), and which hex, among those 11.3 allows
    (:func:`retreat_choices`), when it allows more than one (``to``: their
    answer, hexes in order of preference, else their standing
    ``retreat-to``: hexes, and or only :data:`TOWARD_FRIENDS`, the first
    hex 11.3 prefers, ties toward friendly units, then by hex number).
    When neither decides a choice that is theirs: None (the combat, or
    14.3's forced retreat, waits for their message).  A unit that
    retreats enters its new hex with every effect of entering
    (:mod:`entering`: 3.1 control, 6.5 beachheads, 7.2 and 8.0 reveals)."""
    events: list[Event] = []
    for piece in pieces:
        piece = state.piece(piece.id)
        options = retreat_options(data, state, piece, busy)
        if not options:
            state, more = combat.extra_hit(data, state, piece, "no legal retreat: extra")
            events += more
            continue
        if kind == "r":
            answer, why = refuse, "owner's choice"
            if answer is None:
                answer, why = state.standing.get(piece.side, "retreat"), "standing instruction"
            if answer is None:
                return None
            if answer == "hit":
                state, more = combat.extra_hit(data, state, piece, f"refusing the retreat ({why}): extra")
                events += more
                continue
        choices = retreat_choices(data, state, piece, options)
        target: str | None
        if len(choices) == 1:
            target, chosen = choices[0], ""  # the only hex 11.3 allows: nobody's choice
            if to is not None and target not in to.split() and TOWARD_FRIENDS not in to.split():
                raise illegal("11.3", f"retreat{where}: to = {to!r}: {piece.id} may retreat only into {target} "
                                      f"(the one hex 11.3 allows)")
        else:
            target, chosen = _retreat_hex(state, piece, choices, to, where)
            if target is None:
                return None
        into_ezoc = next(e for e, _, label in options if label == target)
        state = state.with_piece(replace(piece, where=target))
        events.append(Event("11.3", f"{piece.id} retreats to {target}" + (" into an enemy ZOC" if into_ezoc else "") + chosen,
                            {"unit": piece.id, "to": target, "choices": choices}))
        h = data.map.hex(target)
        concealed = [p for p in state.on_map(other(piece.side)) if p.concealed and h in data.zoc_reach(data.map.hex(p.where))]
        if concealed:  # 11.3: ending next to concealed units reveals them
            state, more = hidden.owe(state, [Reveal(p.id, "11.3", f"{piece.id} retreated next to it") for p in concealed])
            events += more
        state, more = entering.entered(data, state, state.piece(piece.id), target)
        events += more
        if into_ezoc and state.piece(piece.id).where == target:
            sources = movement.zoc_sources(data, state, other(piece.side), h)
            if not sources:
                events.append(Event("11.3", f"the reveals removed the EZOC at {target}: {piece.id}'s extra hit is cancelled"))
            elif all(p.concealed for p in sources):  # the extra hit waits: a dummy's reveal would cancel it
                state = replace(state, pending_hits=state.pending_hits + (PendingHit(piece.id, target),))
                events.append(Event("11.3", f"{piece.id}'s extra hit waits for the reveals around {target}"))
            else:
                state, more = combat.extra_hit(data, state, state.piece(piece.id), "retreat into an EZOC: extra")
                events += more
    return state, events


def _retreat_hex(state: AmbonState, piece: Piece, choices: list[str], to: str | None,
                 where: str) -> tuple[str | None, str]:
    """The owner's hex among ``choices``: their answer ``to``, else their
    standing ``retreat-to``; (None, "") when neither decides it."""
    if to is not None:
        hexes = to.split()
        found = next((h for h in hexes if h in choices), None)
        if found is None and TOWARD_FRIENDS not in hexes:
            raise illegal("11.3", f"retreat{where}: to = {to!r} names no hex {piece.id} may retreat into; 11.3 "
                                  f"allows {' or '.join(choices)}")
        return (found or choices[0]), " (owner's choice)"
    wanted = (state.standing.get(piece.side, "retreat-to") or "").split()
    found = next((h for h in wanted if h in choices), None)
    if found is None and wanted and wanted[-1] == TOWARD_FRIENDS:
        found = choices[0]
    return (found, " (standing instruction)") if found else (None, "")


def settle_hits(data: "AmbonData", state: AmbonState) -> tuple[AmbonState, list[Event]]:
    """11.3: an extra hit for a retreat into an EZOC that only concealed units
    made is taken once they are revealed -- or cancelled if the reveals
    removed that EZOC."""
    events: list[Event] = []
    waiting = []
    for hit in state.pending_hits:
        pid, where = hit.unit, hit.hex
        h = data.map.hex(where)
        sources = movement.zoc_sources(data, state, other(state.piece(pid).side), h)
        if any(p.concealed for p in sources) or state.piece(pid).where != where:
            if state.piece(pid).where == where:
                waiting.append(hit)
            continue
        if sources:
            state, more = combat.extra_hit(data, state, state.piece(pid), "retreat into an EZOC: extra")
            events += more
        else:
            events.append(Event("11.3", f"the reveals removed the EZOC at {where}: {pid}'s extra hit is cancelled"))
    return replace(state, pending_hits=tuple(waiting)), events
