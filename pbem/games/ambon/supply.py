"""Supply (13.0, 13.1): the Japanese supply check at the end of turn 7.

13.0: "Supply is checked only for Japanese units, at the end of turn 7 [...].
Any unit that is out of supply at this check becomes disrupted, and cannot
recover for the rest of the game. Place an out-of-supply (OOS) marker to show
this. If the unit is already disrupted, there is no additional effect."

13.1: "A Japanese source of supply is any hex containing a beachhead marker.
To be in supply, a unit must satisfy one of the following conditions:
- It is adjacent to a beachhead marker.
- It is on, or adjacent to, a road or trail (or a combination of the two)
  that leads to a beachhead marker, without that path passing through a hex
  containing an enemy unit.
Important: a concealed unit cannot block a road or trail for a supply check.
The Allied player can block one by revealing that the unit is a detachment.
Comment: a ZOC alone does not block supply."

Rules decisions:

- "Leads to a beachhead marker": the road/trail path must reach the
  beachhead hex itself, along hexsides that carry a road or a trail. Only
  the unit's end of the path has the "or adjacent to" allowance in the text;
  a road that merely passes next to a beachhead does not lead to it.
- A unit in a beachhead hex is in supply (it is on its source).
- "Adjacent" (to a beachhead, or to the road/trail) is never across an
  all-sea hexside, as for 8.0's ZOC: the two hexes are separated by water.
- Blocking: every hex of the path, from the road/trail hex the unit is on or
  next to up to the beachhead, must be free of Allied units. Any Allied unit
  not concealed blocks, HQs included (2.2.1: "HQs are units"); concealed
  pieces never block; revealed dummies have left the game. Enemy ZOC is
  ignored.
- Captured beachheads (``state.lost_beachheads``) are no source (6.5).
- Every Japanese unit on the map is checked, HQs and artillery too ("any
  unit"); pieces in landing boxes or off the map are not.
- "If the unit is already disrupted, there is no additional effect": a unit
  already disrupted is not hit again (not eliminated, as a second hit would
  do), but it gets the OOS marker and cannot recover either.  What 13.0
  does to an out-of-supply unit is one effect, "becomes disrupted, and
  cannot recover"; for a unit already disrupted the disruption is not new
  and nothing is added to it.  Reading "no additional effect" as "no OOS
  marker" would let a unit that happened to be disrupted at the check
  recover while an undisrupted neighbour in the same place never could.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from pbem.engine.hexes import Hex
from pbem.engine.machine import Event, replace
from pbem.games.ambon.movement import SEA
from pbem.games.ambon.state import ALLIED, JAPANESE, AmbonState, Piece

if TYPE_CHECKING:
    from pbem.games.ambon.data import AmbonData

NETWORK = ("road", "trail")


def supply_sources(state: AmbonState) -> frozenset[str]:
    """13.1: the hexes with a beachhead marker; 6.5: a beachhead the Allies
    captured "cannot be used as a supply source during the Supply Check
    Phase"."""
    return frozenset(state.beachheads) - frozenset(state.lost_beachheads)


def blocking_hexes(data: "AmbonData", state: AmbonState) -> frozenset[Hex]:
    """13.1: hexes holding an Allied unit that blocks a supply path: any
    Allied piece on the map except a concealed one."""
    return frozenset(data.map.hex(p.where) for p in state.on_map(ALLIED) if not p.concealed)


def _touching(data: "AmbonData", h: Hex) -> list[Hex]:
    """The land hexes adjacent to ``h``, not across an all-sea hexside."""
    gmap = data.map
    return [n for n in h.neighbours()
            if gmap.contains(n) and gmap.terrain_at(n) != SEA and not gmap.has("all_sea", h, n)]


def supplied_network(data: "AmbonData", state: AmbonState) -> frozenset[Hex]:
    """The beachhead hexes and every hex joined to one by road and trail
    hexsides through hexes free of Allied units: one breadth-first search
    from all the sources at once (13.1)."""
    gmap = data.map
    blocked = blocking_hexes(data, state)
    starts = [gmap.hex(b) for b in sorted(supply_sources(state))]
    reached = {h for h in starts if h not in blocked}
    queue = deque(reached)
    while queue:
        h = queue.popleft()
        for n in h.neighbours():
            if n in reached or n in blocked or not gmap.contains(n):
                continue
            if any(gmap.has(feature, h, n) for feature in NETWORK):
                reached.add(n)
                queue.append(n)
    return frozenset(reached)


def supplied_hexes(data: "AmbonData", state: AmbonState) -> frozenset[Hex]:
    """Every hex where a Japanese unit is in supply (13.1): on the supplied
    network (the beachheads included) or adjacent to it."""
    network = supplied_network(data, state)
    near = set(network)
    for h in network:
        near.update(_touching(data, h))
    return frozenset(near)


def in_supply(data: "AmbonData", state: AmbonState, piece: Piece) -> bool:
    """13.1: is ``piece`` in supply? (See the module docstring for the
    decisions.) For many units at once use :func:`supplied_hexes`."""
    return piece.on_map and data.map.hex(piece.where) in supplied_hexes(data, state)


def supply_check(data: "AmbonData", state: AmbonState) -> tuple[AmbonState, list[Event]]:
    """13.0: every Japanese unit on the map out of supply becomes disrupted
    and OOS (it "cannot recover for the rest of the game"); one already
    disrupted only gets the OOS marker ("no additional effect")."""
    supplied = supplied_hexes(data, state)
    events: list[Event] = []
    changed: list[Piece] = []
    sources = ", ".join(sorted(supply_sources(state))) or "none"
    for piece in state.on_map(JAPANESE):
        if data.map.hex(piece.where) in supplied or piece.oos:
            continue
        if piece.disrupted:
            text = f"{piece.id} in {piece.where} is out of supply: already disrupted, no additional effect; it cannot recover"
        else:
            text = f"{piece.id} in {piece.where} is out of supply: disrupted, and cannot recover for the rest of the game"
        changed.append(replace(piece, disrupted=True, oos=True))
        events.append(Event("13.0", text, {"unit": piece.id, "where": piece.where}))
    if not events:
        events.append(Event("13.0", f"supply check: every Japanese unit is in supply (beachheads: {sources})"))
    return state.with_pieces(changed), events
