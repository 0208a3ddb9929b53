"""The new bot's candidate orders: the attacks worth looking at, the hexes
worth moving to.  Each generator is a pure function of the position."""

from __future__ import annotations

from itertools import combinations
from typing import AbstractSet, Any

from pbem.errors import PbemError
from pbem.games.ambon import battle, movement
from pbem.games.ambon.state import AmbonState, other


def can_attack(data: Any, state: AmbonState, piece: Any) -> bool:
    """11.0, 10.0, 6.3, 9.0: a unit that may make a normal attack."""
    spec = data.spec(piece)
    return (piece.on_map and not spec.hq and not spec.artillery and piece.penalty != "opposed"
            and not piece.concealed and movement.overstacking(data, state, piece.where) != "physical")


def attackers_of(data: Any, state: AmbonState, side: str, target: str, used: AbstractSet[str] = frozenset()) -> list[Any]:
    """The units of ``side`` that have ``target`` in their ZOC (11.0)."""
    gmap = data.map
    t = gmap.hex(target)
    return sorted((p for p in state.on_map(side) if p.id not in used and can_attack(data, state, p)
                   and gmap.hex(p.where).is_adjacent(t) and not gmap.has("all_sea", gmap.hex(p.where), t)),
                  key=lambda p: p.id)


def support_hqs(data: Any, state: AmbonState, side: str, target: str, attackers: tuple[str, ...],
                used: AbstractSet[str] = frozenset()) -> list[str]:
    """11.1: the HQs that may support this combat."""
    defenders = [p.id for p in state.at(target) if p.side != side]
    found = []
    for hq in battle.hqs_in_range(data, state, side, target):
        if hq.id in used:
            continue
        try:
            battle.check_support(data, state, side, hq.id, target, list(attackers), defenders)
        except PbemError:
            continue
        found.append(hq.id)
    return found


def attack_options(data: Any, state: AmbonState, side: str, target: str, level: int,
                   used: AbstractSet[str] = frozenset(), used_hq: AbstractSet[str] = frozenset()) -> list[tuple[tuple[str, ...], str]]:
    """The attacker sets (and HQ) to weigh against ``target``: everyone who
    can; at level 2 and up also everyone but one (a unit better kept out:
    halved, or the wrong formation for an HQ's support, 11.1); at level 3
    every subset of up to five units."""
    units = [p.id for p in attackers_of(data, state, side, target, set(used))]
    if not units:
        return []
    if all(data.spec(p).hq for p in state.at(target) if p.side != side):
        weakest = min(units, key=lambda u: (not state.piece(u).disrupted, data.spec(state.piece(u)).combat, u))
        return [((weakest,), "")]  # 11.1: a lone HQ falls to any one attacker
    sets = [tuple(units)]
    if level >= 2 and len(units) > 1:
        sets += [tuple(u for u in units if u != drop) for drop in units]
    if level >= 3 and 2 < len(units) <= 5:
        sets += [c for n in range(1, len(units) - 1) for c in combinations(units, n)]
    options = []
    for s in dict.fromkeys(sets):
        options.append((s, ""))
        options += [(s, hq) for hq in support_hqs(data, state, side, target, s, set(used_hq))[:1 if level < 3 else 3]]
    return options


def enemy_hexes(data: Any, state: AmbonState, side: str) -> list[str]:
    return sorted({p.where for p in state.on_map(other(side))})
