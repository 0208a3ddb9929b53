"""What an Ambon player may order now: the game's part of ``pbem orders DIR``
(:mod:`pbem.app.orders_template`).

* the reveals owed (made by ``pbem play``) and, for the Allies, the concealed
  pieces that may be revealed at will (13.1);
* the decisions open now: HQ support (11.1), advance (11.4), surrender (3.2);
* the setup (4.1, 4.2) with the turn-1 landings, and the standing
  instructions pbem's simple bot would give; with 14.2 the Second Wave
  note's syntax and an example derived from the scenario
  (:func:`second_wave_example`), and, until the note is revealed in the
  turn-1 Recovery Phase, the battalions off-map (the note's text only in
  the Japanese player's own template);
* in the side's own phases: the landings (6.0), the units that may move and
  the hexes they reach (7.0-9.0), the legal bombardment targets (10.0, and
  14.1 defensive bombardment in the enemy's combat phase), every possible
  attack with the odds it would get (11.0-11.2);
* example orders: pbem's simple bot's orders for this position
  (:class:`pbem.games.ambon.bot.AmbonBot`), checked again by
  :func:`pbem.app.orders_template.for_match`.

The player's own sealed values appear marked ``[only you see this]``: the
template is for the player only.

What the template offers for each order kind is the kind's own
(:meth:`pbem.games.ambon.order.base.Kind.offer`); this module lays the
kinds' parts out in the sequence of play.
"""

from __future__ import annotations

from typing import Any, Mapping

from pbem.engine.machine import Opened
from pbem.errors import PbemError
from pbem.games.ambon import battle, landing, order, sequence, setup
from pbem.games.ambon.bot import STANDING, AmbonBot
from pbem.games.ambon.order import KINDS
from pbem.games.ambon.order.base import Decisions
from pbem.games.ambon.order.setup import second_wave_example
from pbem.games.ambon.orders import ORDER_FORMS
from pbem.games.ambon.state import (
    A_COMBAT,
    ALLIED,
    J_COMBAT,
    JAPANESE,
    LANDING,
    OFF_MAP,
    SETUP_ALLIED,
    SETUP_JAPANESE,
    AmbonState,
    CombatStage,
    other,
)
from pbem.games.ambon.sequence import OWN_PHASES, phasing_side
from pbem.engine.contract import Section, Sections


def sections(game: Any, state: AmbonState, side: str, secrets: Mapping[str, str]) -> Sections:
    """Ambon: open decisions, reveals owed, setup, landings, movement
    (allowances, reachable hexes), bombardment targets, attacks and their
    odds; the examples are pbem's simple bot's orders for this position
    (checked again by :func:`pbem.app.orders_template.for_match`)."""
    out = _position_sections(game, state, side, secrets)
    out.sections.append(Section("Every order, for reference: each is legal only in its phase, by its side",
                                [f"  {form}   -- {who} ({rules})" for form, who, rules in ORDER_FORMS]))
    return out


def _position_sections(game: Any, state: AmbonState, side: str, secrets: Mapping[str, str]) -> Sections:
    """What ``side`` may order in ``state`` (:func:`sections` without the reference)."""
    out = Sections()
    _reveals(game, state, side, secrets, out)
    state = _after_own_reveals(game, state, side, secrets, out)
    phase = state.phase
    phasing = phasing_side(phase)
    out.choices.update(phase=phase, turn=state.turn)
    _decisions(game, state, side, out)
    order.STANDING.offer(game, state, side, out)
    _off_map(game, state, side, secrets, out)
    if phase in (SETUP_ALLIED, SETUP_JAPANESE):
        KINDS["setup"].offer(game, state, side, out)
        if (phase == SETUP_ALLIED) == (side == ALLIED):  # the standing instructions pbem's simple bot would give
            out.standing = dict(STANDING.get(side, {}))
        return out
    mine = OWN_PHASES[side]
    covered = [] if state.closing else sequence.phases_from(game.data, state.turn, phase, side)
    out.choices["phases"] = [str(p) for p in covered]
    if covered:
        if side == JAPANESE and phase == LANDING:
            KINDS["land"].offer(game, state, side, out)
        if _not_past(phase, mine[0]):
            KINDS["move"].offer(game, state, side, out)
        if _not_past(phase, mine[1]):
            KINDS["bombard"].offer(game, state, side, out, defensive=False)
        if _not_past(phase, mine[2]):
            KINDS["attack"].offer(game, state, side, out)
        out.awaited.insert(0, f"your orders for the phases this message may cover, each phase's orders in turn: "
                              f"{', '.join(sequence.title(p) for p in covered)} of turn {state.turn} (the message "
                              f"stops where dice or your opponent must come first; an order of a later phase ends "
                              f"the phases before it, 5.0)")
    elif phase in (J_COMBAT, A_COMBAT) and phasing != side and state.option("14.1"):
        KINDS["bombard"].offer(game, state, side, out, defensive=True)
    if not out.awaited:
        out.awaited.append(f"nothing but the message itself: it is the {phase} phase ({phasing or 'nobody'} to act); "
                           "an empty orders file passes the turn and reveals the chain value that keys the dice")
    _examples(game, state, side, out)
    return out


def _after_own_reveals(game: Any, state: AmbonState, side: str, secrets: Mapping[str, str], out: Sections) -> AmbonState:
    """The position the orders of ``side``'s next message will meet: a
    message's reveals come before its orders (the reveals owed now are made
    by ``pbem play``), and a reveal may let the sequence go on -- the 14.2
    note revealed in the turn-1 Recovery Phase opens turn 2's Landing Phase,
    whose landings are this message's to order."""
    owed = [r.slot for r in state.owed if r.side == side and r.slot in secrets]
    if not owed:
        return state
    ahead = state
    try:
        for slot in owed:
            ahead, _ = game.apply(ahead, Opened(side, slot, secrets[slot], state.seq + 1))
    except PbemError:
        return state
    if (ahead.turn, ahead.phase) != (state.turn, state.phase):
        out.awaited.append(f"after your reveals the game goes on to the {sequence.title(ahead.phase)} of turn {ahead.turn}: "
                           f"you may give its orders in this message (below); without them it waits for your next one")
    return ahead


def _not_past(phase: str, target: str) -> bool:
    return sequence.order_of(phase) <= sequence.order_of(target)


def _reveals(game: Any, state: AmbonState, side: str, secrets: Mapping[str, str], out: Sections) -> None:
    owed = [r for r in state.owed if r.side == side]
    if owed:
        out.awaited.append("the reveal of " + ", ".join(r.slot for r in owed) + ": made automatically when you play")
        out.sections.append(Section(
            "Reveals owed (made automatically by pbem play; nothing to write)",
            [f"  {r.slot} ({r.rule}: {r.why})" + (f" -- sealed: {secrets[r.slot]} [only you see this]" if r.slot in secrets else "")
             for r in owed],
        ))
    out.choices["reveals_owed"] = [{"slot": r.slot, "rule": r.rule, "why": r.why} for r in owed]
    KINDS["reveal"].offer(game, state, side, out, secrets=secrets)


def _decisions(game: Any, state: AmbonState, side: str, out: Sections) -> None:
    """The decisions open to ``side``, each kind's in turn as the rules ask
    them: a landing combat's HQ support, each combat's support, losses or
    advance, a bombardment's retreats (14.3), a landing combat's losses,
    the surrender (3.2)."""
    data = game.data
    found = Decisions()
    for lc in landing.awaiting_support(data, state) if side == ALLIED else []:
        KINDS["support"].offer(game, state, side, found, landing=lc)
    for b in state.battles:
        if b.stage is CombatStage.SUPPORT and other(b.side) == side:
            KINDS["support"].offer(game, state, side, found, battle=b)
        elif b.stage is CombatStage.LOSSES and b.waiting == side:
            KINDS["losses"].offer(game, state, side, found, fight=b.fight, choices=battle.open_choices(data, state, b))
        elif b.stage is CombatStage.ADVANCE and b.side == side:
            KINDS["advance"].offer(game, state, side, found, battle=b)
    for r in state.pending_retreats:
        piece = state.piece(r.unit)
        if piece.side == side:
            KINDS["retreat"].offer(game, state, side, found, piece=piece)
    for lc in landing.awaiting_choice(state, side):
        KINDS["losses"].offer(game, state, side, found, fight=lc.fight, choices=landing.open_choices(data, state, lc))
    KINDS["surrender"].offer(game, state, side, found)
    out.choices["decisions"] = found.decisions
    if found.decisions:
        out.awaited.append("your decision(s): " + "; ".join(
            f"{d['kind']}" + (f" at {d['target']}" if d.get("target") else "") for d in found.decisions))
        out.sections.append(Section("Decisions open now", found.notes, found.examples))


def _off_map(game: Any, state: AmbonState, side: str, secrets: Mapping[str, str], out: Sections) -> None:
    """14.2: the battalions kept off-map until the note is revealed -- public;
    the note's text only for its owner."""
    units = [p.id for p in state.pieces if p.where == OFF_MAP]
    out.choices["off_map"] = units
    if not units:
        return
    note = secrets.get(setup.SECOND_WAVE_SLOT) if side == JAPANESE else None
    when = ("pbem play reveals your note and places them" if note is not None
            else "the Japanese player's sealed note is revealed and they are placed")
    notes = [f"  {', '.join(units)}: off-map until the turn-1 Recovery Phase,",
             f"  when {when} for the beaches it names"]
    if note is not None:
        notes.append(f"  your note: {note} [only you see this]")
    out.sections.append(Section("Second Wave off-map (14.2)", notes))


def _examples(game: Any, state: AmbonState, side: str, out: Sections) -> None:
    # The bot tries each order before it keeps one; an error out of it is a
    # bug to report, not a reason to cut the template short and exit 0.
    doc = AmbonBot(game).orders(state, side, state.seq + 1)
    orders = [o for o in doc.get("order", []) if "setup" not in o]
    if orders:
        out.sections.append(Section(
            "Example orders for this position (what pbem's simple bot would give; legal together)",
            ["keep, change or delete them; each [[order]] is one move, landing, bombardment or attack"],
            orders,
        ))


__all__ = ["second_wave_example", "sections"]
