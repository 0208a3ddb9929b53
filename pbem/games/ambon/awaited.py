"""What an Ambon game waits for (the engine's ``awaiting``): reveals owed,
decisions open and dice due, in the order they are answered.

Apart from :mod:`.phases`, which walks the sequence of play: the options
of an open decision -- the HQs that may support a defence (11.1), the
attackers that may advance (11.4), the hexes a unit may retreat into
(14.3) -- are the rules' to list (:mod:`.landing`, :mod:`.battle`,
:mod:`.results`, :mod:`.retreat`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pbem.engine.machine import DecisionDue, RevealDue
from pbem.games.ambon import battle, landing, results, retreat, rolls
from pbem.games.ambon.state import ALLIED, AmbonState, CombatStage, other

if TYPE_CHECKING:
    from pbem.games.ambon.data import AmbonData


def awaiting(data: "AmbonData", state: AmbonState) -> tuple[Any, ...]:
    """Reveals owed, decisions open, dice due -- in the order they are answered."""
    due: list[Any] = [RevealDue(r.side, r.slot, r.rule) for r in state.owed if state.opened(r.slot) is None]
    if state.landing_combats:
        lanes = data.lanes
        for lc in landing.awaiting_support(data, state):
            target = lanes[lc.lane].target
            options = tuple(landing.supporting_hqs(data, state, ALLIED, target)) + ("none",)
            due.append(DecisionDue(ALLIED, "hq-support", f"support the defence of {target}?", options, rule="11.1"))
        for lc in state.landing_combats:
            if lc.stage is CombatStage.LOSSES:
                choices = landing.open_choices(data, state, lc)
                due.append(DecisionDue(lc.waiting, "losses", f"the results of the landing combat on {lc.settling.target} "
                                       f"({lc.settling.result}): {results.what_is_open(data, state, lc.settling, choices['hexes'])}?",
                                       tuple(choices["units"]), rule="11.3"))
    if state.pending_retreats:
        for r in state.pending_retreats:
            piece = state.piece(r.unit)
            busy = battle.busy_hexes(state, "")
            hexes = retreat.retreat_choices(data, state, piece, retreat.retreat_options(data, state, piece, busy))
            due.append(DecisionDue(piece.side, "retreat", f"where does {piece.id} retreat from {piece.where} (14.3)?",
                                   tuple(hexes), rule="14.3"))
    due += rolls.due(data, state)
    if state.surrender_offered:
        due.append(DecisionDue(ALLIED, "surrender", f"surrender at the start of turn {state.turn}?", ("yes", "no"),
                               rule="3.2"))
    if state.battles:
        for b in state.battles:
            if b.stage is CombatStage.SUPPORT:
                options = tuple(battle.support_options(data, state, b)) + ("none",)
                due.append(DecisionDue(other(b.side), "hq-support", f"support the defence of {b.target}?", options,
                                       rule="11.1"))
            elif b.stage is CombatStage.LOSSES:
                choices = battle.open_choices(data, state, b)
                due.append(DecisionDue(b.waiting, "losses", f"the results of the combat at {b.target} ({b.result}): "
                                       f"{battle.what_is_open(data, state, b)}?", tuple(choices["units"]), rule="11.3"))
            elif b.stage is CombatStage.ADVANCE:
                options = tuple(battle.advance_candidates(data, state, b))
                due.append(DecisionDue(b.side, "advance", f"advance into {b.target}?", options, rule="11.4"))
    return tuple(due)
