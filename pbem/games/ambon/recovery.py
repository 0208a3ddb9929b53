"""Recovery (12.0): pure functions, dice given as arguments.

12.0: "During the Recovery Phase, every disrupted unit makes a recovery
check. On success, the unit is restored to full strength. Roll one die per
disrupted unit. Recovery succeeds if the unmodified roll is a [1], or the
modified roll is less than or equal to the unit's CS (or bombardment
strength). The following die roll modifiers apply: The unit is in an EZOC:
+1; The unit is within the command range of a friendly HQ: -1. Exception:
the Japanese player may not make recovery checks on turns 1 and 2."

13.0: an out-of-supply unit "becomes disrupted, and cannot recover for the
rest of the game."
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pbem.engine.machine import Event, illegal, replace
from pbem.games.ambon import movement
from pbem.games.ambon.state import JAPANESE, AmbonState, Piece, other

if TYPE_CHECKING:
    from pbem.games.ambon.data import AmbonData


def may_recover(data: "AmbonData", state: AmbonState, side: str) -> bool:
    """12.0 and 5.0: "the Japanese player may not make recovery checks on
    turns 1 and 2" (turns.toml ``japanese_recovery`` of each turn, which
    charts.toml ``japanese_recovery_from_turn`` must agree with: checked on
    load)."""
    return side != JAPANESE or data.turn(state.turn).japanese_recovery


LANDING_BOXES = ("first-wave", "second-wave")


def in_play(data: "AmbonData", piece: Piece) -> bool:
    """On the map, or waiting in a landing box (4.2, 6.0): a unit that can
    still be disrupted, and so recover.  Not eliminated, removed, or off the
    map under 14.2."""
    box = data.map.boxes.get(piece.where)
    return piece.on_map or (box is not None and box.kind in LANDING_BOXES)


def recovery_candidates(data: "AmbonData", state: AmbonState, side: str) -> list[Piece]:
    """12.0: "every disrupted unit makes a recovery check": ``side``'s
    disrupted units on the map or in a landing box (a unit disrupted in an
    opposed landing that failed stays in its First Wave box, 6.3), except
    those out of supply (13.0: they "cannot recover for the rest of the
    game"), and none for the Japanese on turns 1 and 2."""
    if not may_recover(data, state, side):
        return []
    return [p for p in state.pieces if p.side == side and p.disrupted and not p.oos and in_play(data, p)]


def recovery_drms(data: "AmbonData", state: AmbonState, piece: Piece) -> list[tuple[str, int]]:
    """12.0: "The unit is in an EZOC: +1; The unit is within the command
    range of a friendly HQ: -1."

    An EZOC is 8.0's zone of the enemy's units (``movement.zoc_of``). A
    friendly HQ is any HQ of the same side on the map: 11.1's nationality
    limits are about supporting combat and 12.0 does not repeat them. The HQ
    is within range when the hex distance is at most its command range
    (counted like 2.2.1's bombardment range). The -1 applies once however many
    HQs are in range.

    Off the map (a unit in a landing box) neither applies: a box is not a
    hex, so no ZOC -- "its 6 adjacent hexes" (8.0) -- reaches it, and no
    command range, "measured in hexes" like 2.2.1's range, covers it, even
    from an HQ in the same box."""
    gmap = data.map
    if not piece.on_map:
        return []
    here = gmap.hex(piece.where)
    drms: list[tuple[str, int]] = []
    if here in movement.zoc_of(data, state, other(piece.side)):
        drms.append(("in an enemy ZOC", int(data.value("recovery_drm_ezoc"))))
    for hq in state.on_map(piece.side):
        spec = data.spec(hq)
        if hq.id != piece.id and spec.hq and gmap.hex(hq.where).distance(here) <= spec.command_range:
            drms.append((f"within command range of {hq.id}", int(data.value("recovery_drm_hq_range"))))
            break
    return drms


def recovery_strength(data: "AmbonData", piece: Piece) -> int:
    """The value 12.0 compares the modified roll with: "the unit's CS (or
    bombardment strength)" for an artillery-type unit, read from the face
    showing, that is the disrupted (back) face.

    15.0 decides it: Dutch 2.C "gets the HQ modifier, but the die rolls a 4,
    modified to 3, which still exceeds its combat strength". A Dutch company's
    front CS is 3 (15.0: 2.B defends with 3), and 3 does not exceed 3, so the
    strength read is the back's (reconstructed CS 1). AUS B recovers on a
    modified 2, so its back CS is at least 2 (reconstructed 2)."""
    spec = data.spec(piece)  # the disrupted face while piece.disrupted
    return int(spec.bombard) if spec.artillery else int(spec.combat)


def resolve_recovery(data: "AmbonData", state: AmbonState, piece_id: str, roll: int) -> tuple[AmbonState, list[Event]]:
    """12.0: one recovery check for ``piece_id`` with the die ``roll``.
    Success on a natural 1 (charts.toml ``recovery_natural_success``) or a
    modified roll at most the disrupted face's CS (artillery: bombardment
    strength, see :func:`recovery_strength`); success turns the unit back to
    its full-strength side."""
    piece = state.piece(piece_id)
    if not in_play(data, piece):
        raise illegal("12.0", f"{piece_id} is not on the map or in a landing box ({piece.where}) and makes no recovery check")
    if not piece.disrupted:
        raise illegal("12.0", f"{piece_id} is not disrupted and makes no recovery check")
    if piece.oos:
        raise illegal("13.0", f"{piece_id} was out of supply and cannot recover for the rest of the game")
    if not may_recover(data, state, piece.side):
        barred = [str(t.number) for t in data.turn_track if not t.japanese_recovery]
        raise illegal("12.0", f"the Japanese may not make recovery checks on turn {state.turn} "
                              f"(not on turns {', '.join(barred)})")
    if not 1 <= roll <= 6:
        raise illegal("12.0", f"a recovery roll is one d6, not {roll}")
    drms = recovery_drms(data, state, piece)
    modified = roll + sum(v for _, v in drms)
    strength = recovery_strength(data, piece)
    natural = roll == int(data.value("recovery_natural_success"))
    success = natural or modified <= strength
    what = "bombardment strength" if data.spec(piece).artillery else "CS"
    shown = f"roll {roll}" + "".join(f", {v:+d} {why}" for why, v in drms) + (f" = {modified}" if drms else "")
    if natural:
        verdict = "a natural 1: recovers"
    elif success:
        verdict = "recovers"
    else:
        verdict = "remains disrupted"
    text = f"{piece_id} in {piece.where} checks recovery: {shown} ({what} {strength}) -> {verdict}"
    data_ = {"unit": piece_id, "roll": roll, "modified": modified, "strength": strength, "recovered": success,
             "drms": [list(d) for d in drms]}
    if success:
        state = state.with_piece(replace(piece, disrupted=False))
    return state, [Event("12.0", text, data_)]
