"""Victory (3.0-3.2) and the optional rules' VP (14.0): the Japanese VP total.

3.0: "At game end (turn 10, or turn 8 if the Allies have surrendered — see
3.2), the Japanese player totals the VP earned:
- +1 VP for each non-HQ Allied unit in the eliminated-units box (detachments
  do not count)
- +3 VP for each Allied HQ unit in the eliminated-units box
- -2 VP for each non-HQ Japanese unit in the eliminated-units box
- -5 VP for each Japanese HQ unit in the eliminated-units box
- -5 VP for each beachhead the Allies have captured
- +/- ? VP for each key location (the VP value varies with the turn on which
  it was controlled)"
and "As turns pass, this VP value goes negative — meaning slower Japanese
control of a key location, or Allied control of it at game end, becomes a
penalty."

3.2: "the Japanese gain a 5 VP bonus, but gain no VP (positive or negative)
for key locations the Allies still control at that point. Allied units
remaining on the map are not eliminated and so do not count for VP."

14.0: "Using an optional rule triggers a VP bonus or penalty as noted."

Every number comes from the data: turns.toml ``[vp_awards]``,
``[optional_rules]``, ``[key_location_classes]`` (``uncontrolled_at_end``),
``[[victory_bands]]``, the turn track (which turn ends the game, which one
opens with the surrender option), and map.toml's per-turn key-location
tracks -- all checked when :class:`~pbem.games.ambon.data.AmbonData` loads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pbem.engine.machine import illegal
from pbem.games.ambon.state import ALLIED, ELIMINATED, LANDING, AmbonState, Piece

if TYPE_CHECKING:
    from pbem.games.ambon.data import AmbonData, KeyLocationClass


def _award(data: "AmbonData", name: str) -> int:
    """turns.toml ``[vp_awards]`` (every award is there: checked on load)."""
    return data.vp_awards[name]


def _eliminated_kind(data: "AmbonData", piece: Piece) -> str:
    """The [vp_awards] entry for an eliminated piece."""
    if piece.concealed or piece.identity:
        return "allied_dummy_removed" if piece.identity == "dummy" else "allied_detachment_eliminated"
    spec = data.spec(piece)
    if spec.kind == "dummy":
        return "allied_dummy_removed"
    if spec.kind == "detachment":
        return "allied_detachment_eliminated"
    if piece.side == ALLIED:
        return "allied_hq_eliminated" if spec.hq else "allied_unit_eliminated"
    return "japanese_hq_eliminated" if spec.hq else "japanese_unit_eliminated"


UNIT_LINES = (
    ("allied_unit_eliminated", "non-HQ Allied units eliminated"),
    ("allied_hq_eliminated", "Allied HQs eliminated"),
    ("allied_detachment_eliminated", "Allied detachments eliminated (do not count)"),
    ("allied_dummy_removed", "Allied dummies (never count)"),
    ("japanese_unit_eliminated", "non-HQ Japanese units eliminated"),
    ("japanese_hq_eliminated", "Japanese HQs eliminated"),
)


def key_location_class(data: "AmbonData", hexlabel: str) -> "KeyLocationClass":
    """turns.toml ``[key_location_classes]``: the star class of a key location
    (every key location has one: checked on load)."""
    return data.key_location_classes[hexlabel]


def key_location_vp(data: "AmbonData", hexlabel: str, turn: int) -> int:
    """3.0: the VP printed beside the turn the key location was taken
    (map.toml ``[key_locations.<hex>].vp[turn - 1]``)."""
    location = data.map.key_locations.get(data.map.hex(hexlabel))
    if location is None:
        raise illegal("3.0", f"{hexlabel} is not a key location")
    first, last = data.first_turn, data.last_turn  # the track has one value a turn (checked on load)
    if not first <= turn <= last:
        raise illegal("3.0", f"{location.name} ({hexlabel}) was taken on turn {turn}, off the turn track ({first}-{last})")
    return location.vp[turn - first]


def victory_points(data: "AmbonData", state: AmbonState) -> tuple[int, list[tuple[str, int]]]:
    """The Japanese VP total and its breakdown (3.0, 3.2, 14.0).

    - eliminated units (the eliminated-units box only: dummies are
      ``removed``, never eliminated, and count 0 anyway; a detachment counts
      ``allied_detachment_eliminated`` = 0);
    - captured beachheads (``state.lost_beachheads``);
    - each Japanese-held key location: the track value of the turn it was
      taken (``state.control``);
    - each key location the Allies hold: ``uncontrolled_at_end`` of its star
      class, unless the Allies surrendered (3.2: no VP for them);
    - the surrender bonus (3.2);
    - each optional rule in use (14.1-14.4);
    - anything awarded during play (``state.vp_events``).
    Units still on the map never count, whether or not the Allies surrendered.
    """
    lines: list[tuple[str, int]] = []
    counted: dict[str, list[str]] = {}
    for piece in state.pieces:
        if piece.where == ELIMINATED:
            counted.setdefault(_eliminated_kind(data, piece), []).append(piece.id)
    for kind, label in UNIT_LINES:
        ids = counted.get(kind, [])
        if ids:
            each = _award(data, kind)
            lines.append((f"{label}: {', '.join(ids)} ({len(ids)} x {each:+d})", len(ids) * each))
    if state.lost_beachheads:
        each = _award(data, "beachhead_captured")
        lost = state.lost_beachheads
        lines.append((f"beachheads captured by the Allies: {', '.join(lost)} ({len(lost)} x {each:+d})", len(lost) * each))
    held = dict(state.control)
    gmap = data.map
    for h in sorted(gmap.key_locations, key=gmap.label):
        label, location = gmap.label(h), gmap.key_locations[h]
        if label in held:
            turn = held[label]
            lines.append((f"{location.name} ({label}) taken on turn {turn}", key_location_vp(data, label, turn)))
        elif state.surrendered:
            lines.append((f"{location.name} ({label}) held by the Allies at their surrender (3.2: no VP)", 0))
        else:
            value = key_location_class(data, label).uncontrolled_at_end
            lines.append((f"{location.name} ({label}) held by the Allies at the end", value))
    if state.surrendered:
        lines.append(("the Allies surrendered (3.2)", _award(data, "allied_surrender")))
    for rule in state.options:
        name, vp = data.optional_rules[rule]
        lines.append((f"optional rule {rule} ({name})", vp))
    lines += [(why, int(vp)) for why, vp in state.vp_events]
    return sum(vp for _, vp in lines), lines


def victory_band(data: "AmbonData", total: int) -> str:
    """3.0: "10 VP or less: decisive Allied victory [...] 11-20 VP: Allied
    victory; 21-30 VP: draw; 31-50 VP: Japanese victory; 51 VP or more:
    decisive Japanese victory" (turns.toml ``[[victory_bands]]``, min and max
    inclusive, absent = unbounded)."""
    for band in data.victory_bands:  # in order, every total in one band (checked on load)
        if (band.low is None or total >= band.low) and (band.high is None or total <= band.high):
            return band.name
    raise AssertionError(f"no victory band covers {total} VP")  # AmbonData refuses such bands


def may_surrender(data: "AmbonData", state: AmbonState) -> bool:
    """3.2: "At the start of turn 8 [...], if at least one Allied HQ unit
    remains on the map, the Allied player may surrender."  Turn 8 is the
    turn whose phases begin with ``allied-surrender-option`` in turns.toml.

    "The start of turn 8" is read as turn 8's Landing Phase before any landing
    has begun (``state.landings`` is emptied when each Landing Phase ends)."""
    if state.surrendered or state.phase != LANDING or not data.turn(state.turn).surrender_option:
        return False
    if state.landings or state.landing_combats:
        return False
    return any(data.spec(p).hq for p in state.on_map(ALLIED) if not p.concealed)

