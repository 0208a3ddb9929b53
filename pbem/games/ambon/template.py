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
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any, Mapping

from pbem.engine.machine import Opened, replace
from pbem.engine.paths import format_mp, reachable
from pbem.errors import PbemError
from pbem.games.ambon import battle, bombardment, combat, landing, movement, sequence, setup
from pbem.games.ambon.bot import STANDING, AmbonBot
from pbem.games.ambon.orders import ORDER_FORMS, STANDING_KINDS
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
    Battle,
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
    _standing(state, side, out)
    _off_map(game, state, side, secrets, out)
    if phase in (SETUP_ALLIED, SETUP_JAPANESE):
        _setup(game, state, side, out)
        return out
    mine = OWN_PHASES[side]
    covered = [] if state.closing else sequence.phases_from(game.data, state.turn, phase, side)
    out.choices["phases"] = [str(p) for p in covered]
    if covered:
        if side == JAPANESE and phase == LANDING:
            _landings(game, state, out)
        if _not_past(phase, mine[0]):
            _moves(game, state, side, out)
        if _not_past(phase, mine[1]):
            _bombardments(game, state, side, out, defensive=False)
        if _not_past(phase, mine[2]):
            _attacks(game, state, side, out)
        out.awaited.insert(0, f"your orders for the phases this message may cover, each phase's orders in turn: "
                              f"{', '.join(sequence.title(p) for p in covered)} of turn {state.turn} (the message "
                              f"stops where dice or your opponent must come first; an order of a later phase ends "
                              f"the phases before it, 5.0)")
    elif phase in (J_COMBAT, A_COMBAT) and phasing != side and state.option("14.1"):
        _bombardments(game, state, side, out, defensive=True)
    if not out.awaited:
        out.awaited.append(f"nothing but the message itself: it is the {phase} phase ({phasing or 'nobody'} to act); "
                           "an empty orders file passes the turn and reveals the chain value that keys the dice")
    _examples(game, state, side, out)
    return out


#: standing instruction -> (rule, what happens while it is not set: docs/architecture.md, "Who decides", and combat's DEFAULT POLICY)
UNSET = {
    "hq-support": ("11.1", "each HQ support of your defence is asked of you, and the combat waits for your message"),
    "advance": ("11.4", "each advance after your combat is asked of you, in your next message"),
    "retreat": ("11.3", "each 'r' result is asked of you (retreat, or refuse with an extra hit), and the combat "
                        "waits for your message"),
    "retreat-to": ("11.3", "where a retreat may go to more than one hex, you are asked; \"toward-friends\" takes "
                           "the hex 11.3 prefers (outside EZOC, lowest cost or along a road), ties toward friendly "
                           "units, then by hex number"),
    "losses": ("11.3", "each hit you could give to more than one unit is asked of you; \"protect-hq\" gives it to "
                       "a detachment first, then disrupts your strongest undisrupted unit, then eliminates your "
                       "weakest disrupted one, an HQ only when no other unit is left"),
    "surrender": ("3.2", "at the start of turn 8 you are asked whether the Allies surrender"),
}


def _standing(state: AmbonState, side: str, out: Sections) -> None:
    """The standing instructions in effect for ``side``, and what pbem does
    for each one not set, so that nothing is decided silently (issue 17)."""
    notes = []
    for kind in STANDING_KINDS:
        if kind == "surrender" and side != ALLIED:
            continue
        rule, unset = UNSET[kind]
        value = state.standing.get(side, kind)
        notes.append(f"  {kind} ({rule}): " + (f"{value!r}, as you set it" if value is not None else f"not set -- {unset}"))
    notes.append("Set or change one with [standing], e.g. retreat = \"hit\"; it holds until you change it.")
    out.sections.append(Section("Standing instructions in effect for you", notes))


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
    if side == ALLIED:
        concealed = [p for p in state.on_map(side) if p.concealed]
        if concealed:
            notes = (['13.1: you may reveal a concealed piece at any time: reveal = "X1"']
                     if state.ruling("13.1") == "any" else
                     ['13.1 (this game\'s ruling: detachment): you may reveal a concealed detachment at any time, '
                      'not a dummy: reveal = "X1"'])
            notes += [f"  {p.id} in {p.where}" + (f": {secrets[p.id]} [only you see this]" if p.id in secrets else "")
                      for p in concealed]
            out.sections.append(Section("Your concealed pieces (voluntary reveals)", notes))
        out.choices["concealed"] = [{"piece": p.id, "where": p.where} for p in concealed]


def _decisions(game: Any, state: AmbonState, side: str, out: Sections) -> None:
    data = game.data
    decisions: list[dict[str, Any]] = []
    examples: list[dict[str, Any] | list[dict[str, Any]]] = []  # Section.examples: an order, or a group of them
    notes: list[str] = []
    for lc in landing.awaiting_support(data, state) if side == ALLIED else []:
        target = data.lanes[lc.lane].target
        options = landing.supporting_hqs(data, state, ALLIED, target) + ["none"]
        notes.append(f"11.1 HQ support for the defence of {target} against the landing: support = one of "
                     f"{', '.join(options)}, target = \"{target}\"  (left out: no support)")
        decisions.append({"kind": "hq-support", "target": target, "options": options, "rule": "11.1"})
        examples.append({"support": options[0], "target": target})
    for b in state.battles:
        if b.stage is CombatStage.SUPPORT and other(b.side) == side:
            options = battle.support_options(data, state, b) + ["none"]
            notes.append(f"11.1 HQ support for the defence of {b.target}: support = one of {', '.join(options)}"
                         f"  (left out: no support)")
            decisions.append({"kind": "hq-support", "target": b.target, "options": options, "rule": "11.1"})
            examples.append({"support": options[0], "target": b.target})
        elif b.stage is CombatStage.LOSSES and b.waiting == side:
            _losses(data, b.fight, battle.open_choices(data, state, b), state, notes, examples, decisions)
        elif b.stage is CombatStage.ADVANCE and b.side == side:
            options = battle.advance_candidates(data, state, b)
            notes.append(f"11.4 advance into {b.target}: advance = a list of {', '.join(options)} ([] to stay)"
                         f"  (left out: nobody advances)")
            decisions.append({"kind": "advance", "target": b.target, "options": options, "rule": "11.4"})
            examples.append({"advance": options, "target": b.target})
    for r in state.pending_retreats:
        piece = state.piece(r.unit)
        if piece.side != side:
            continue
        hexes = next(d.options for d in game.awaiting(state) if getattr(d, "kind", "") == "retreat"
                     and piece.id in d.prompt)
        notes.append(f"14.3 {piece.id} must retreat from {piece.where}: retreat = \"retreat\", to = one of "
                     f"{', '.join(hexes)}, target = \"{piece.where}\"  (left out: it waits for your message)")
        decisions.append({"kind": "retreat", "target": piece.where, "unit": piece.id, "options": list(hexes),
                          "rule": "14.3"})
        examples.append({"retreat": "retreat", "to": hexes[0], "target": piece.where})
    for lc in landing.awaiting_choice(state, side):
        _losses(data, lc.fight, landing.open_choices(data, state, lc), state, notes, examples, decisions)
    if state.surrender_offered and side == ALLIED:
        notes.append('3.2 surrender at the start of turn 8? surrender = "yes" ends the game, "no" fights on')
        decisions.append({"kind": "surrender", "options": ["yes", "no"], "rule": "3.2"})
        examples.append({"surrender": "no"})
    out.choices["decisions"] = decisions
    if decisions:
        out.awaited.append("your decision(s): " + "; ".join(
            f"{d['kind']}" + (f" at {d['target']}" if d.get("target") else "") for d in decisions))
        out.sections.append(Section("Decisions open now", notes, examples))


def _losses(data: Any, fight: Any, choices: dict[str, Any], state: AmbonState, notes: list[str],
            examples: list[dict[str, Any] | list[dict[str, Any]]], decisions: list[dict[str, Any]]) -> None:
    """11.3: an open choice of losses and retreat (a combat's or a landing combat's), for its owner."""
    from pbem.games.ambon import results

    notes.append(f"11.3 the {fight.label} {fight.target} ({fight.result}): you choose "
                 f"{results.what_is_open(data, state, fight, choices['hexes'])}")
    if choices["hits"]:
        notes.append(f"  losses = the units in the order they take the hits, of {', '.join(choices['units'])}"
                     f" (a unit named twice takes two)")
        examples.append({"losses": choices["units"][: choices["hits"]], "target": fight.target})
    if choices["retreat"]:
        legal = "; ".join(f"{u}: {' or '.join(h) or 'none (an extra hit instead)'}" for u, h in choices["hexes"].items())
        notes.append("  retreat = \"retreat\"" + (" or \"hit\" (refuse the r with an extra hit)" if choices["retreat"] == "r" else "")
                     + f", to = hexes in order of preference (11.3 allows, now: {legal})")
        first = next((h[0] for h in choices["hexes"].values() if h), "")
        examples.append({"retreat": "retreat", "target": fight.target, **({"to": first} if first else {})})
    notes.append("  (left out: it waits for your message, and so does every combat after it)")
    decisions.append({"kind": "losses", "target": fight.target, "options": choices["units"], "rule": "11.3",
                      "result": fight.result, "hexes": choices["hexes"], "retreat": choices["retreat"]})


def _setup(game: Any, state: AmbonState, side: str, out: Sections) -> None:
    if (state.phase == SETUP_ALLIED) != (side == ALLIED):
        return
    if side == ALLIED:
        data = game.data
        xs, ms = data.concealed_slots, data.mine_slots
        notes = ['setup = "historical" places every unit, concealed piece and mine marker where the scenario file',
                 "does; what each piece and marker is, is yours to decide (4.1), and is sealed:",
                 "  shuffle = true   your pbem draws them from your own randomness (the example below), or",
                 f'  identities = {{ {xs[0]} = "dummy", {xs[1]} = "detachment", ... }}  '
                 f'mines = {{ {ms[0]} = "real", {ms[1]} = "dummy", ... }}   (every one)',
                 "or one order per piece (examples/ambon/1-allied-setup.toml spells it out):",
                 '  place = "AUS-HQ"  hex = "1215"', '  conceal = "X1"  hex = "0913"  is = "dummy"   (sealed)',
                 '  mine = "M1"  box = "mine-1"  is = "real"   (sealed)', "4.1 requires:"]
        notes += [f"  {text}" for text, *_ in setup.ALLIED_REQUIREMENTS]
        notes += [f"  {xs[0]}-{xs[-1]}: {data.identities['dummy']} dummies and {data.identities['detachment']} "
                  f"detachments on coastal hexes; {ms[0]}-{ms[-1]}: {data.mine_kinds['real']} real and "
                  f"{data.mine_kinds['dummy']} dummy mines"]
        out.awaited.append("your setup (4.1)")
        out.sections.append(Section("Allied setup (4.1)", notes, [{"setup": "historical", "shuffle": True}]))
    elif state.option("14.2"):
        data = game.data
        waves, note = second_wave_example(data)
        lanes = ", ".join(data.lanes)
        notes = ["14.2 (Concealed Second-Wave Landing): two battalions are kept off-map as the Second Wave; the",
                 "beach each will land on goes in a note sealed until the turn-1 Recovery Phase (pbem play reveals",
                 "it then and places them):",
                 '  second_wave = "BATTALION:LANE BATTALION:LANE"',
                 f"  battalions {', '.join(setup.BATTALIONS)}; lanes {lanes}",
                 "and one order per First Wave box for the other units (4.2: Kure in one; the regimental HQ and the",
                 f"remaining battalion in another, {setup.REGIMENTAL_ARTILLERY} with them: it cannot stay off-map):",
                 '  wave = "FIRST-WAVE BOX"  units = ["UNIT", ...]',
                 'setup = "historical" cannot be used: it fills the Second Wave boxes, which 14.2 keeps empty',
                 "and, in the same message, the turn-1 landings: land = FIRST-WAVE BOX (or postpone = ...)",
                 "the example below is the historical setup with its Second Wave off-map, bound for the beaches of",
                 "its Second Wave boxes; its wave and second_wave orders are legal only together: keep them all"]
        out.awaited.append("your setup (4.2, 14.2: the Second Wave note) and the turn-1 landings (6.0)")
        examples = [waves + [{"second_wave": note}]] + [{"land": w["wave"]} for w in waves]  # the setup: one group
        out.sections.append(Section("Japanese setup (4.2, 14.2) and landings (6.0)", notes, examples))
    else:
        notes = ['setup = "historical" puts each unit in its scenario box, or one order per box:',
                 '  wave = "fw-laha"  units = ["3.A", "3.B"]',
                 "and, in the same message, the turn-1 landings: land = FIRST-WAVE BOX (or postpone = ...)"]
        out.awaited.append("your setup (4.2) and the turn-1 landings (6.0)")
        examples = [{"setup": "historical"}]
        examples += [{"land": lane.first_wave} for lane in game.data.lanes.values()]
        out.sections.append(Section("Japanese setup (4.2) and landings (6.0)", notes, examples))
    out.standing = dict(STANDING.get(side, {}))


def second_wave_example(data: Any) -> tuple[list[dict[str, Any]], str]:
    """14.2: the scenario's Japanese setup (``scenario-*.toml``
    ``[japanese.boxes]``) with its Second Wave kept off-map -- the ``wave``
    orders of its First Wave boxes, the units of its Second Wave boxes that
    are no battalion (the regimental artillery) moved to the box of the
    regimental HQ, and the note naming the lane of each Second Wave box's
    battalion, e.g. ``"1:hitu-lama 2:laha"``, checked by
    :func:`pbem.games.ambon.setup.parse_second_wave_note`."""
    boxes = data.map.boxes
    lane_of = {lane.second_wave: lane.id for lane in data.lanes.values()}
    battalion_of = {unit: n for n, units in setup.BATTALIONS.items() for unit in units}
    waves: dict[str, list[str]] = {}
    plan: dict[str, str] = {}
    others: list[str] = []
    for box, units in data.scenario["japanese"]["boxes"].items():
        if boxes[box].kind != "second-wave":
            waves[box] = list(units)
            continue
        for unit in units:
            if unit in battalion_of:
                plan[battalion_of[unit]] = lane_of[box]
            else:
                others.append(unit)
    hq_box = next(box for box, units in waves.items() if setup.REGIMENTAL_HQ in units)
    waves[hq_box] += others
    note = " ".join(f"{n}:{lane}" for n, lane in sorted(plan.items()))
    setup.parse_second_wave_note(data, note)
    return [{"wave": box, "units": units} for box, units in waves.items()], note


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


def _landings(game: Any, state: AmbonState, out: Sections) -> None:
    data = game.data
    boxes = [lane for lane in data.lanes.values() if state.at(lane.first_wave)]
    ordered = {ld.lane for ld in state.landings}
    open_boxes = [lane for lane in boxes if lane.id not in ordered]
    if not open_boxes:
        return
    notes = [f"  {lane.first_wave} -> {lane.target} ({lane.name}): {', '.join(p.id for p in state.at(lane.first_wave))}"
             + (f"; mine box {lane.mine_box}" if lane.mine_box else "") for lane in open_boxes]
    notes.append('each box: land = "BOX" or postpone = "BOX"; the landing dice wait for the Allied reveals, '
                 "so your moves come in your next message")
    out.choices["landings"] = [{"box": lane.first_wave, "target": lane.target} for lane in open_boxes]
    out.sections.append(Section("Landings (6.0)", notes, []))


def _moves(game: Any, state: AmbonState, side: str, out: Sections) -> None:
    data, gmap = game.data, game.map
    cost = movement.movement_cost(data, state, side)
    restricted = side == ALLIED and data.turn(state.turn).allied_move_restricted  # 7.1
    turn1 = movement.turn1_movers(data, state) if restricted else None
    rows, notes, held = [], [], []
    for p in sorted(state.on_map(side), key=lambda p: p.id):
        if p.penalty in ("no-move", "opposed"):
            held.append(f"{p.id} ({'6.3 opposed landing' if p.penalty == 'opposed' else '6.2 No Move'})")
            continue
        if turn1 is not None and p.id not in turn1:
            continue
        if p.moved and state.ruling("7.0") == "one-leg" and (p.id, state.turn) not in state.halted:
            held.append(f"{p.id} (moved: 7.0 ruling one-leg)")
            continue
        left = movement.allowance(data, p) - p.spent
        if left <= 0:
            continue
        here = gmap.hex(p.where)
        reach = {gmap.label(h): c for h, c in reachable(here, left, cost).items() if h != here}
        if not reach:
            continue
        rows.append({"unit": p.id, "where": p.where, "left_half_mp": left, "reachable": reach})
        shown = [f"{h} ({format_mp(c)})" for h, c in sorted(reach.items(), key=lambda kv: (-kv[1], kv[0]))[:8]]
        more = len(reach) - len(shown)
        notes.append(f"  {p.id} in {p.where}: {format_mp(left)} left; reaches {len(reach)} hexes, farthest "
                     + ", ".join(shown) + (f" and {more} more" if more > 0 else ""))
    if turn1 is not None:
        notes.append("7.1: on turn 1 only Allied units within 4 land hexes of a Japanese unit may move")
    if held:
        notes.append("may not move: " + ", ".join(held))
    out.choices["moves"] = rows
    if rows or held:
        notes.insert(0, 'move = "UNIT: HEX HEX ..." -- the path from the unit\'s hex, one hex per step (7.0);')
        notes.insert(1, '  or move = "UNIT to HEX" -- pbem takes the cheapest legal path there (ties: fewer hexes)')
        out.sections.append(Section("Movement (7.0-9.0): your units that may move", notes))


def _bombardments(game: Any, state: AmbonState, side: str, out: Sections, *, defensive: bool) -> None:
    data = game.data
    phase_state = state if defensive else replace(state, phase=OWN_PHASES[side][1], closing=False)
    rows, notes = [], []
    for unit in bombardment.artillery_units(data, phase_state, side):
        targets = []
        for target in sorted(phase_state.on_map(other(side)), key=lambda p: p.id):
            try:
                bombardment.check_bombardment(data, phase_state, unit.id, target.id, defensive=defensive)
            except PbemError:
                continue
            targets.append(target)
        if not targets:
            continue
        spec = data.spec(unit)
        rows.append({"unit": unit.id, "where": unit.where, "strength": spec.bombard, "range": spec.range,
                     "targets": [{"id": t.id, "where": t.where} for t in targets]})
        notes.append(f"  {unit.id} in {unit.where} (bombardment {spec.bombard}, range {spec.range}): "
                     + ", ".join(f"{t.id} in {t.where}" for t in targets))
    out.choices["defensive_bombardment" if defensive else "bombardment"] = rows
    if rows:
        title = "Defensive bombardment (14.1)" if defensive else "Bombardment (10.0): legal targets from where your units are now"
        notes.insert(0, 'bombard = "UNIT"  target = "ENEMY UNIT" -- a die <= the strength disrupts the target'
                     + ("" if defensive else "; your attacks then wait for the bombardment dice (next message)"))
        out.sections.append(Section(title, notes))


def _attacks(game: Any, state: AmbonState, side: str, out: Sections) -> None:
    data, gmap = game.data, game.map
    now = replace(state, phase=OWN_PHASES[side][2], closing=False, battles=())
    rows, notes = [], []
    for where in sorted({p.where for p in now.on_map(other(side))}):
        defenders = [p for p in now.at(where) if p.side != side]
        t = gmap.hex(where)
        attackers = [
            p for p in now.on_map(side)
            if gmap.hex(p.where).is_adjacent(t) and not gmap.has("all_sea", gmap.hex(p.where), t)
            and not data.spec(p).hq and not data.spec(p).artillery and p.penalty != "opposed"
            and movement.overstacking(data, now, p.where) != "physical"
        ]
        if not attackers:
            continue
        ids = [p.id for p in attackers]
        b = Battle(target=where, side=side, attackers=tuple(ids))
        trial = replace(now, battles=(b,))
        attack, halved = battle.attack_strength(data, trial, b)
        try:
            odds = combat.odds(data, trial, attack, defenders, where, across=[p.where for p in attackers])
        except PbemError as err:
            notes.append(f"  {where}: {err}")
            continue
        hqs = []
        for hq in battle.hqs_in_range(data, now, side, where):
            try:
                battle.check_support(data, now, side, hq.id, where, ids, [d.id for d in defenders])
            except PbemError:
                continue
            hqs.append(hq.id)
        drm = ", ".join(f"{v:+d} {why}" for why, v in odds.drms)
        shift = ", ".join(f"{v:+d} {why}" for why, v in odds.shifts)
        shown_def = ", ".join(d.id + ("?" if d.concealed else "") for d in defenders)
        rows.append({
            "target": where, "defenders": [d.id for d in defenders], "with": ids,
            "attack": combat.fmt(Fraction(attack)), "defence": combat.fmt(odds.defence),
            "column": odds.column, "final": odds.final, "drm": odds.drm, "hq": hqs,
        })
        notes.append(
            f'  attack = "{where}"  with = {json.dumps(ids)}: '
            f"{shown_def}; {combat.fmt(Fraction(attack))} against {combat.fmt(odds.defence)} = {odds.column}"
            + (f" -> {odds.final} ({shift})" if odds.shifts else "")
            + (f"; DRM {drm}" if drm else "")
            + (f"; HQ support possible: {', '.join(hqs)} (hq = ..., DRM +1)" if hqs else "")
        )
        notes += [f"      {h}" for h in halved]
    out.choices["attacks"] = rows
    if rows:
        notes.insert(0, "every enemy hex your units are next to, attacked by all of them (leave some out if you "
                        "like); odds from the position now, before any move you order; '?' marks a concealed piece, "
                        "counted as a detachment (11.0-11.2)")
        out.sections.append(Section("Combat (11.0): possible attacks and the odds each would get", notes))


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
