"""What a dice-game player may order now: the game's part of ``pbem orders
DIR`` (:mod:`pbem.app.orders_template`).

The order types with an example each (a roll, a sealed note, the end), the
player's notes still sealed, the rolls still waiting for their dice; after
the opponent ended the game, the closing message's reveals only.  The
player's own sealed values appear marked ``[only you see this]``: the
template is for the player only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from pbem.engine.contract import Section, Sections
from pbem.engine.notes import note_sections
from pbem.engine.standing import offer_key_rolls

if TYPE_CHECKING:
    from pbem.games.dice.game import DiceState


def sections(game: Any, state: DiceState, side: str, secrets: Mapping[str, str]) -> Sections:
    """dice: the order types, with examples; the notes you may reveal."""
    out = Sections()
    mine = [n for n in state.notes if n.side == side and n.value is None]
    used = {n.slot for n in state.notes if n.side == side}
    if state.ending_by is not None and state.ending_by != side:
        out.awaited.append(f"your closing message: {state.ending_by} ended the game; it may carry reveals only "
                           f"(an empty file closes the game)")
        if mine:
            out.sections.append(Section("Reveals (dice.reveal): your notes still sealed",
                                        [f"  {n.slot} (sealed in {n.sealed_in:04d})" for n in mine]))
        out.choices = {"reveal": [n.slot for n in mine], "order_types": ["reveal"]}
        return out
    out.awaited.append("your orders: any number of rolls, seals and reveals, or 'end' (the message then goes to "
                       f"{next(s for s in game.sides if s != side)})")
    out.sections.append(Section(
        "Rolls (dice.roll): declared now, rolled when the reply arrives -- neither player can bias or preview them",
        ['dice: NdS with an optional +/- modifier, several terms joined by +: "2d6+1", "d20", "3d6-2"']
        + ([] if game.version == "1" else [
            'wargame dice: "d66" (tens and units of two d6, 11-66), "d%" or "d100" (two d10, 00 and 0 read 100), '
            '"4d6kh3" / "2d20kl1" (keep the highest / lowest)'])
        + ["note: what the roll is for (public)"],
        [{"type": "roll", "dice": "2d6", "note": "describe the roll"}],
    ))
    out.sections += note_sections("dice", used, mine, secrets)
    out.sections.append(Section(
        "Ending the game (dice.end): the reply closes it and both secrets are revealed for the audit",
        ["to end it, add these two lines (no order may follow them):", "[[order]]", 'type = "end"'],
    ))
    pending = list(state.pending)
    out.choices = {
        "order_types": ["roll", "seal", "reveal", "end"],
        "reveal": [n.slot for n in mine],
        "slots_used": sorted(used),
        "pending_rolls": [{"label": r.label, "dice": r.dice, "note": r.note} for r in pending],
    }
    offer_key_rolls(out, state, side)
    return out


__all__ = ["sections"]
