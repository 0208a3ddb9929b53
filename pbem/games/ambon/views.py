"""What each side sees of an Ambon game, and the checks of its hidden
setup: the one way hidden information leaves the state (docs/architecture.md, "Hidden information")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from pbem.engine.paths import format_mp
from pbem.games.ambon import setup, victory
from pbem.games.ambon.movement import overstacking
from pbem.games.ambon.sequence import phasing_side
from pbem.games.ambon.state import ALLIED, ELIMINATED, GAME_OVER, JAPANESE, OFF_MAP, REMOVED, SETUP_ALLIED, SETUP_JAPANESE, SIDES, AmbonState

if TYPE_CHECKING:
    from pbem.games.ambon.data import AmbonData


def result(data: "AmbonData", state: AmbonState) -> list[str]:
    """3.0: the outcome of a finished game, in words (empty while it goes on)."""
    if state.phase != GAME_OVER:
        return []
    total, breakdown = victory.victory_points(data, state)
    lines = [f"The Japanese score {total} VP: {victory.victory_band(data, total)} (3.0)."]
    if state.surrendered:
        lines.append(f"The Allies surrendered at the start of turn {state.turn} (3.2).")
    lines += [f"  {why}: {vp:+d}" for why, vp in breakdown if vp]
    return lines

def view(data: "AmbonData", state: AmbonState, side: str | None, secrets: Mapping[str, str] | None = None) -> dict[str, Any]:
    secrets = secrets or {}
    own = side == ALLIED
    units = []
    stacks: dict[str, list[dict[str, Any]]] = {}
    for p in state.pieces:
        if p.where in ("", REMOVED):
            continue
        item: dict[str, Any] = {"id": p.id, "side": p.side, "where": p.where, "flipped": p.disrupted}
        if p.concealed:
            item["type"] = "concealed"
            if own and p.id in secrets:
                item["identity"] = secrets[p.id]
                item["private"] = True
        else:
            spec = data.spec(p)
            item.update(type=spec.kind, combat=str(spec.combat), move=format_mp(spec.move, unit=False))
            if p.identity:
                item["identity"] = p.identity
        if p.penalty:
            item["status"] = p.penalty
        if p.oos:
            item["oos"] = True  # 13.0: the OOS marker (2.2.2)
        if p.where == ELIMINATED:
            continue
        units.append(item)
        marker = "OOS" if p.oos else "disrupted" if p.disrupted else (p.penalty or "")
        counter: dict[str, Any] = {"label": p.id, "side": p.side, **({"marker": marker} if marker else {})}
        if p.concealed:
            counter["concealed"] = True  # 4.1: face up, its identity sealed
            if own and p.id in secrets:
                counter["identity"] = secrets[p.id]
        stacks.setdefault(p.where, []).append(counter)
    for b in state.beachheads:
        stacks.setdefault(b, []).append({"label": "beachhead", "marker": "beachhead"})
    mines = []
    for m in state.mines:
        if m.box in ("", REMOVED):
            continue
        shown = m.status if m.status != "hidden" else ("hidden" if not own else f"hidden ({secrets.get(m.id, '?')})")
        mines.append({"id": m.id, "box": m.box, "status": shown})
    vp_total, vp_items = victory.victory_points(data, state)
    return {
        "game": "ambon",
        "turn": state.turn,
        "phase": str(state.phase),
        "active": phasing_side(state.phase),
        "over": state.phase == GAME_OVER,
        "options": list(state.options),
        "units": units,
        "eliminated": [p.id for p in state.pieces if p.where == ELIMINATED],
        "eliminated_sides": {p.id: p.side for p in state.pieces if p.where == ELIMINATED},
        "stacks": stacks,
        "mines": mines,
        "beachheads": list(state.beachheads),
        "control": [{"hex": h, "turn": t} for h, t in state.control],
        "owed": [{"slot": r.slot, "side": r.side, "rule": r.rule, "why": r.why} for r in state.owed],
        "vp": vp_total,
        "vp_items": [{"why": why, "vp": vp} for why, vp in vp_items if vp],
        "box_names": {OFF_MAP: "off-map / sealed (14.2)"},
        "overstacked": overstacked(data, state),
        "marker_names": MARKER_NAMES,
    }


MARKER_NAMES = {  # marker -> [mark on the map, short, long]: the board's legend (pbem.games.ambon.boardview)
    "OOS": ["o", "OOS", "out of supply: disrupted, may not recover (13.0)"],
    "disrupted": ["d", "disrupted", "disrupted (2.2.1, 11.3)"],
    "beachhead": ["b", "beachhead", "beachhead: landing hex, supply source (6.5, 13.1)"],
    # the landing table's result (6.2; 6.3 once a beach's concealed pieces prove dummies), not a mine:
    # a mine only takes 1 from the landing die (6.1)
    "-2mp": ["m", "-2 MP", "landing penalty (landing table 6.2/6.3, not a mine): -2 MP this turn"],
    "no-move": ["n", "no move", "landing penalty (landing table 6.2/6.3, not a mine): no move this turn"],
    "opposed": ["x", "opposed landing", "opposed landing: no move, bombardment or attack this turn (6.3)"],
}


def overstacked(data: "AmbonData", state: AmbonState) -> dict[str, str]:
    """9.0: the hexes over the stacking limit, with the penalty that applies
    (what any player sees: concealed pieces count as the state counts them)."""
    found = {}
    for where in sorted({p.where for p in state.pieces if p.where[:1].isdigit()}):
        level = overstacking(data, state, where)
        if level == "functional":
            found[where] = "functional overstacking (9.0): CF halved"
        elif level == "physical":
            found[where] = "physical overstacking (9.0): no attack, CF 1"
    return found

def check_seals(data: "AmbonData", state: AmbonState, side: str, store: Mapping[str, str]) -> list[str]:
    """The owner's client checks its sealed values before sending (4.1, 14.2)."""
    relevant = (state.phase == SETUP_ALLIED and side == ALLIED) or (state.phase == SETUP_JAPANESE and side == JAPANESE)
    return setup.check_secrets(data, side, store, state.options) if relevant else []

def audit(data: "AmbonData", state: AmbonState, stores: Mapping[str, Mapping[str, str]]) -> list[str]:
    """After the game: the hidden setup obeyed 4.1 (and 14.2)."""
    problems = []
    for side in SIDES:
        problems += setup.check_secrets(data, side, stores.get(side, {}), state.options)
    return problems
