"""What is awaited from me, and a commented TOML orders template listing the
legal choices now (``pbem orders DIR``).

A template is TOML in which

* lines starting ``##`` explain: what is awaited, the units that may move and
  how far, the legal bombardment targets, the odds each possible attack
  would get, the reveals owed, the open decisions and their options;
* lines starting ``# `` are **example orders**: remove the ``# `` to use
  them.  Together they are legal now -- :func:`for_match` checks the whole
  set with :func:`pbem.match.session.compose` (the very check ``pbem play``
  makes) and leaves out any example that would not pass.

Games provide their part through a hook: a game object with a method
``orders_template(state, side, secrets) -> Sections`` is asked first
(Calumpit: :mod:`pbem.games.calumpit.template`, ASL:
:mod:`pbem.games.asl.template`); Ambon and the dice game are dispatched by
name (:func:`template`).  Everything is computed from the position the
player's own replay holds, so the player's sealed values may appear (marked
so): the template is for the player only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from pbem.engine.machine import DecisionDue, DiceDue, RevealDue
from pbem.errors import PbemError, UsageError


@dataclass
class Section:
    """Part of a template: a title, explanation lines and example orders."""

    title: str
    notes: list[str] = field(default_factory=list)
    examples: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Sections:
    """What a game says about one side's next message."""

    awaited: list[str] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    standing: dict[str, str] = field(default_factory=dict)  # an example [standing] table
    choices: dict[str, Any] = field(default_factory=dict)  # the same, as data (--json)


@dataclass
class Template:
    game: str
    module: str
    side: str | None
    seq: int
    my_turn: bool
    awaited: list[str]
    choices: dict[str, Any]
    toml: str
    examples: dict[str, Any]  # the example orders document (all '# ' lines uncommented)

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "module": self.module,
            "you": self.side,
            "message": self.seq,
            "your_turn": self.my_turn,
            "awaited": self.awaited,
            "choices": self.choices,
            "examples": self.examples,
            "template": self.toml,
        }


# --------------------------------------------------------------------------- dispatch


def template(game: Any, state: Any, side: str, secrets: Mapping[str, str] | None = None) -> Sections:
    """The game's part of the template for ``side``'s next message."""
    hook = getattr(game, "orders_template", None)
    if callable(hook):
        return hook(state, side, secrets or {})
    builders = {"ambon": ambon_sections, "dice": dice_sections}
    builder = builders.get(getattr(game, "name", ""), generic_sections)
    return builder(game, state, side, secrets or {})


def generic_sections(game: Any, state: Any, side: str, secrets: Mapping[str, str]) -> Sections:
    """Any game: what ``awaiting`` says is due from ``side``."""
    out = Sections()
    for item in game.awaiting(state):
        if isinstance(item, RevealDue) and item.side == side:
            out.awaited.append(f"the reveal of {item.slot} ({item.rule}): made automatically when you play")
        elif isinstance(item, DecisionDue) and item.side == side:
            out.awaited.append(f"a decision ({item.rule}): {item.prompt} options: {', '.join(item.options)}")
    if not out.awaited:
        out.awaited.append(f"your orders for the {game.name} game (see its documentation)")
    return out


# --------------------------------------------------------------------------- rendering


def _value(value: Any) -> str:
    from pbem.match.orders_toml import _value as toml_value

    if isinstance(value, Mapping):  # an inline table (ASL's setup: squads = { A = "3-3-7" })
        return "{ " + ", ".join(f"{_key(str(k))} = {_value(v)}" for k, v in value.items()) + " }" if value else "{}"
    return toml_value(value)


def _key(key: str) -> str:
    from pbem.match.orders_toml import _key as toml_key

    return toml_key(key)


def order_lines(order: Mapping[str, Any]) -> list[str]:
    return ["[[order]]"] + [f"{_key(k)} = {_value(v)}" for k, v in order.items()]


def _comment(lines: Sequence[str], mark: str) -> list[str]:
    return [f"{mark} {line}".rstrip() for line in lines]


def render(head: Sequence[str], body: Sections, examples: Sequence[Sequence[dict[str, Any]]], standing: bool) -> str:
    """The template text.  ``examples[i]`` are the checked examples of section i."""
    out = _comment(head, "##")
    for section, kept in zip(body.sections, examples):
        out += ["", f"## --- {section.title}"]
        out += _comment(section.notes, "##")
        for order in kept:
            out += _comment(order_lines(order), "#")
    if standing and body.standing:
        out += ["", "## --- Standing instructions (DESIGN 4.3): answers given in advance, kept until changed"]
        out += _comment(["[standing]"] + [f"{_key(k)} = {_value(v)}" for k, v in body.standing.items()], "#")
    return "\n".join(out) + "\n"


def uncomment_examples(text: str) -> str:
    """The template with its example lines (``# ``) made live."""
    return "\n".join(line[2:] if line.startswith("# ") else line for line in text.splitlines()) + "\n"


# --------------------------------------------------------------------------- for a game directory


def for_match(match: Any) -> Template:
    """The template for the local player of a loaded match
    (:func:`pbem.match.session.load` with the player's key)."""
    if match.player is None:
        raise UsageError("an orders template needs your key: it is made for the player whose move it is")
    from pbem.match import session

    transcript, replay, game = match.transcript, match.replay, match.game
    side = match.player.side
    seq = len(transcript)
    module = transcript.setup["module"]
    view = match.view()
    head = [f"pbem orders template -- {module} game {transcript.game[:12]}..., you play {side}"]
    where = [f"turn {view['turn']}" if "turn" in view else "", f"phase {view['phase']}" if view.get("phase") else ""]
    if any(where):
        head.append("Now: " + ", ".join(w for w in where if w) + ".")

    def done(awaited: list[str], body: Sections | None = None, kept=(), standing=False, my_turn=False) -> Template:
        lines = head + ["Awaited from you:"] + [f"  - {a}" for a in awaited]
        if body is not None and any(kept):
            lines += ["Lines starting '# ' are example orders, legal together now: remove the '# ' to use one.",
                      "Lines starting '##' explain.  Then: " + (
                          "pbem join PROPOSAL --dir DIR --orders THIS_FILE" if seq == 1
                          else "pbem play DIR --orders THIS_FILE")]
        elif my_turn:
            lines += ["Write your orders below (or none), then: pbem play DIR --orders THIS_FILE"]
        text = render(lines, body or Sections(), kept, standing)
        examples: dict[str, Any] = {"order": [o for group in kept for o in group]}
        if standing and body is not None and body.standing:
            examples["standing"] = dict(body.standing)
        return Template(transcript.game, module, side, seq, my_turn, awaited,
                        (body.choices if body else {}), text, examples)

    if match.closed:
        return done(["nothing: the game is over and closed. Check it: pbem verify DIR --audit"])
    if replay.next_side != side:
        return done([f"nothing yet: message {seq:04d} is {replay.next_side}'s. "
                     f"When it arrives: pbem receive DIR FILE (or pbem import DIR MAIL)"])
    if replay.over:
        return done([f"your closing message {seq:04d}: play an empty orders file; it reveals your "
                     f"per-game secret so that anyone can audit the game"], my_turn=True)
    body = template(game, replay.state, side, match.player.store)
    awaited = [f"message {seq:04d}: " + body.awaited[0]] + body.awaited[1:] if body.awaited else [f"message {seq:04d}"]
    pending = [d for d in replay.pending if isinstance(d, DiceDue)]
    if pending:
        awaited.append(f"your message completes the key of {len(pending)} dice group(s) of {transcript.opponent(side)}'s")
    kept = _checked_examples(session, match, body)
    return done(awaited, body, kept, standing=_standing_ok(session, match, kept, body), my_turn=True)


def _checked_examples(session: Any, match: Any, body: Sections) -> list[list[dict[str, Any]]]:
    """Keep the examples that pass, together, the check ``pbem play`` makes:
    section by section, an example that fails with the others is left out."""
    kept: list[list[dict[str, Any]]] = [[] for _ in body.sections]
    orders: list[dict[str, Any]] = []
    for i, section in enumerate(body.sections):
        for order in section.examples:
            try:
                session.compose(match, {"order": orders + [order]})
            except PbemError:
                continue
            orders.append(order)
            kept[i].append(order)
    return kept


def _standing_ok(session: Any, match: Any, kept: list[list[dict[str, Any]]], body: Sections) -> bool:
    if not body.standing:
        return False
    try:
        session.compose(match, {"order": [o for group in kept for o in group], "standing": dict(body.standing)})
    except PbemError:
        return False
    return True


# --------------------------------------------------------------------------- the dice game


def note_sections(module: str, used: set[str], mine: list[Any], secrets: Mapping[str, str],
                  reserved: str = "") -> list[Section]:
    """The sealed-note sections every game with notes shares (pbem.engine.notes):
    sealing a new note, and revealing each of yours still sealed (its text
    shown to you alone)."""
    slot = next(f"note-{i}" for i in range(1, 1000) if f"note-{i}" not in used)
    sections = [Section(
        f"Sealed notes ({module}.seal): only you can read one until you reveal it",
        [f"slot: a new name (letters, digits, '_', '.', '-'{reserved}); text: what you commit to now"]
        + ([f"slots you have used: {', '.join(sorted(used))}"] if used else []),
        [{"type": "seal", "slot": slot, "text": "what only you should know for now"}],
    )]
    if mine:
        sections.append(Section(
            f"Reveals ({module}.reveal): your notes still sealed",
            [f"  {n.slot} (sealed in {n.sealed_in:04d})" + (f": {secrets[n.slot]!r} [only you see this]"
                                                            if n.slot in secrets else "") for n in mine],
            [{"type": "reveal", "slot": n.slot} for n in mine],
        ))
    return sections


def dice_sections(game: Any, state: Any, side: str, secrets: Mapping[str, str]) -> Sections:
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
        ['dice: NdS with an optional +/- modifier, several terms joined by +: "2d6+1", "d20", "3d6-2"',
         "note: what the roll is for (public)"],
        [{"type": "roll", "dice": "2d6", "note": "describe the roll"}],
    ))
    out.sections += note_sections("dice", used, mine, secrets)
    out.sections.append(Section(
        "Ending the game (dice.end): the reply closes it and both secrets are revealed for the audit",
        ["to end it, add these two lines (no order may follow them):", "[[order]]", 'type = "end"'],
    ))
    pending = [r for r in state.rolls if not r.resolved]
    out.choices = {
        "order_types": ["roll", "seal", "reveal", "end"],
        "reveal": [n.slot for n in mine],
        "slots_used": sorted(used),
        "pending_rolls": [{"label": r.label, "dice": r.dice, "note": r.note} for r in pending],
    }
    return out


# --------------------------------------------------------------------------- Ambon


def _mp(halves: int) -> str:
    from pbem.engine.paths import format_mp

    return format_mp(halves)


def ambon_sections(game: Any, state: Any, side: str, secrets: Mapping[str, str]) -> Sections:
    """Ambon: open decisions, reveals owed, setup, landings, movement
    (allowances, reachable hexes), bombardment targets, attacks and their
    odds; the examples are pbem's simple bot's orders for this position
    (checked again by :func:`for_match`)."""
    from pbem.games.ambon import state as st

    out = Sections()
    phase = state.phase
    phasing = st.PHASE_SIDE.get(phase)
    out.choices = {"phase": phase, "turn": state.turn}
    _ambon_reveals(game, state, side, secrets, out)
    _ambon_decisions(game, state, side, out)
    if phase in (st.SETUP_ALLIED, st.SETUP_JAPANESE):
        _ambon_setup(game, state, side, out)
        return out
    mine = _phases_of(side)
    if phasing == side and not state.closing:
        if side == st.JAPANESE and phase == st.LANDING:
            _ambon_landings(game, state, out)
        if _not_past(phase, mine[0]):
            _ambon_moves(game, state, side, out)
        if _not_past(phase, mine[1]):
            _ambon_bombardments(game, state, side, out, defensive=False)
        if _not_past(phase, mine[2]):
            _ambon_attacks(game, state, side, out)
        out.awaited.insert(0, f"your orders for the {phase} phase and, in the same message, your later phases "
                              f"(each phase's orders in turn; the message stops where dice or your opponent must come first)")
    elif phase in (st.J_COMBAT, st.A_COMBAT) and phasing != side and state.option("14.1"):
        _ambon_bombardments(game, state, side, out, defensive=True)
    if not out.awaited:
        out.awaited.append(f"nothing but the message itself: it is the {phase} phase ({phasing or 'nobody'} to act); "
                           "an empty orders file passes the turn and reveals the chain value that keys the dice")
    _ambon_examples(game, state, side, out)
    return out


def _phases_of(side: str) -> tuple[str, str, str]:
    from pbem.games.ambon import state as st

    if side == st.JAPANESE:
        return st.J_MOVEMENT, st.J_BOMBARDMENT, st.J_COMBAT
    return st.A_MOVEMENT, st.A_BOMBARDMENT, st.A_COMBAT


def _not_past(phase: str, target: str) -> bool:
    from pbem.games.ambon.state import PHASES

    return phase in PHASES and PHASES.index(phase) <= PHASES.index(target)


def _ambon_reveals(game: Any, state: Any, side: str, secrets: Mapping[str, str], out: Sections) -> None:
    owed = [r for r in state.owed if r.side == side]
    if owed:
        out.awaited.append("the reveal of " + ", ".join(r.slot for r in owed) + ": made automatically when you play")
        out.sections.append(Section(
            "Reveals owed (made automatically by pbem play; nothing to write)",
            [f"  {r.slot} ({r.rule}: {r.why})" + (f" -- sealed: {secrets[r.slot]} [only you see this]" if r.slot in secrets else "")
             for r in owed],
        ))
    out.choices["reveals_owed"] = [{"slot": r.slot, "rule": r.rule, "why": r.why} for r in owed]
    if side == "allied":
        concealed = [p for p in state.on_map(side) if p.concealed]
        if concealed:
            notes = ['13.1: you may reveal a concealed piece at any time: reveal = "X1"']
            notes += [f"  {p.id} in {p.where}" + (f": {secrets[p.id]} [only you see this]" if p.id in secrets else "")
                      for p in concealed]
            out.sections.append(Section("Your concealed pieces (voluntary reveals)", notes))
        out.choices["concealed"] = [{"piece": p.id, "where": p.where} for p in concealed]


def _ambon_decisions(game: Any, state: Any, side: str, out: Sections) -> None:
    from pbem.games.ambon import battle, landing
    from pbem.games.ambon.state import ALLIED, other

    data = game.data
    decisions: list[dict[str, Any]] = []
    examples: list[dict[str, Any]] = []
    notes: list[str] = []
    lc = state.landing_combat
    if lc is not None and lc.stage == "support" and side == ALLIED:
        target = data.lanes[lc.lane].target
        options = landing.supporting_hqs(data, state, ALLIED, target) + ["none"]
        notes.append(f"11.1 HQ support for the defence of {target} against the landing: support = one of {', '.join(options)}")
        decisions.append({"kind": "hq-support", "target": target, "options": options, "rule": "11.1"})
        examples.append({"support": options[0]})
    for b in state.battles:
        if b.stage == "support" and other(b.side) == side:
            options = battle.support_options(data, state, b) + ["none"]
            notes.append(f"11.1 HQ support for the defence of {b.target}: support = one of {', '.join(options)}"
                         f"  (left out: no support)")
            decisions.append({"kind": "hq-support", "target": b.target, "options": options, "rule": "11.1"})
            examples.append({"support": options[0], "target": b.target})
        elif b.stage == "advance" and b.side == side:
            options = battle.advance_candidates(data, state, b)
            notes.append(f"11.4 advance into {b.target}: advance = a list of {', '.join(options)} ([] to stay)"
                         f"  (left out: nobody advances)")
            decisions.append({"kind": "advance", "target": b.target, "options": options, "rule": "11.4"})
            examples.append({"advance": options, "target": b.target})
    if state.surrender_offered and side == ALLIED:
        notes.append('3.2 surrender at the start of turn 8? surrender = "yes" ends the game, "no" fights on')
        decisions.append({"kind": "surrender", "options": ["yes", "no"], "rule": "3.2"})
        examples.append({"surrender": "no"})
    out.choices["decisions"] = decisions
    if decisions:
        out.awaited.append("your decision(s): " + "; ".join(
            f"{d['kind']}" + (f" at {d['target']}" if d.get("target") else "") for d in decisions))
        out.sections.append(Section("Decisions open now", notes, examples))


def _ambon_setup(game: Any, state: Any, side: str, out: Sections) -> None:
    from pbem.games.ambon import setup
    from pbem.games.ambon.state import ALLIED, SETUP_ALLIED

    if (state.phase == SETUP_ALLIED) != (side == ALLIED):
        return
    if side == ALLIED:
        notes = ['setup = "historical" places everything as the scenario file does (identities sealed),',
                 "or one order per piece (examples/ambon/1-allied-setup.toml spells it out):",
                 '  place = "AUS-HQ"  hex = "1215"', '  conceal = "X1"  hex = "0913"  is = "dummy"   (sealed)',
                 '  mine = "M1"  box = "mine-1"  is = "real"   (sealed)', "4.1 requires:"]
        notes += [f"  {text}" for text, *_ in setup.ALLIED_REQUIREMENTS]
        data = game.data
        xs, ms = data.concealed_slots, data.mine_slots
        notes += [f"  {xs[0]}-{xs[-1]}: {data.identities['dummy']} dummies and {data.identities['detachment']} "
                  f"detachments on coastal hexes; {ms[0]}-{ms[-1]}: {data.mine_kinds['real']} real and "
                  f"{data.mine_kinds['dummy']} dummy mines"]
        out.awaited.append("your setup (4.1)")
        out.sections.append(Section("Allied setup (4.1)", notes, [{"setup": "historical"}]))
    else:
        notes = ['setup = "historical" puts each unit in its scenario box, or one order per box:',
                 '  wave = "fw-laha"  units = ["3.A", "3.B"]',
                 "and, in the same message, the turn-1 landings: land = FIRST-WAVE BOX (or postpone = ...)"]
        out.awaited.append("your setup (4.2) and the turn-1 landings (6.0)")
        examples = [{"setup": "historical"}] + [{"land": lane.first_wave} for lane in game.data.lanes.values()]
        out.sections.append(Section("Japanese setup (4.2) and landings (6.0)", notes, examples))
    from pbem.games.ambon.bot import STANDING

    out.standing = dict(STANDING.get(side, {}))


def _ambon_landings(game: Any, state: Any, out: Sections) -> None:
    data = game.data
    boxes = [lane for lane in data.lanes.values() if state.at(lane.first_wave)]
    ordered = {l.lane for l in state.landings}
    open_boxes = [lane for lane in boxes if lane.id not in ordered]
    if not open_boxes:
        return
    notes = [f"  {lane.first_wave} -> {lane.target} ({lane.name}): {', '.join(p.id for p in state.at(lane.first_wave))}"
             + (f"; mine box {lane.mine_box}" if lane.mine_box else "") for lane in open_boxes]
    notes.append('each box: land = "BOX" or postpone = "BOX"; the landing dice wait for the Allied reveals, '
                 "so your moves come in your next message")
    out.choices["landings"] = [{"box": lane.first_wave, "target": lane.target} for lane in open_boxes]
    out.sections.append(Section("Landings (6.0)", notes, []))


def _ambon_moves(game: Any, state: Any, side: str, out: Sections) -> None:
    from pbem.engine.paths import reachable
    from pbem.games.ambon import movement
    from pbem.games.ambon.state import ALLIED

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
        left = movement.allowance(data, p) - p.spent
        if left <= 0:
            continue
        here = gmap.hex(p.where)
        reach = {gmap.label(h): c for h, c in reachable(here, left, cost).items() if h != here}
        if not reach:
            continue
        rows.append({"unit": p.id, "where": p.where, "left_half_mp": left, "reachable": reach})
        shown = [f"{h} ({_mp(c)})" for h, c in sorted(reach.items(), key=lambda kv: (-kv[1], kv[0]))[:8]]
        more = len(reach) - len(shown)
        notes.append(f"  {p.id} in {p.where}: {_mp(left)} left; reaches {len(reach)} hexes, farthest "
                     + ", ".join(shown) + (f" and {more} more" if more > 0 else ""))
    if turn1 is not None:
        notes.append("7.1: on turn 1 only Allied units within 4 land hexes of a Japanese unit may move")
    if held:
        notes.append("may not move: " + ", ".join(held))
    out.choices["moves"] = rows
    if rows or held:
        notes.insert(0, 'move = "UNIT: HEX HEX ..." -- the path from the unit\'s hex, one hex per step (7.0)')
        out.sections.append(Section("Movement (7.0-9.0): your units that may move", notes))


def _ambon_bombardments(game: Any, state: Any, side: str, out: Sections, *, defensive: bool) -> None:
    from pbem.engine.machine import replace
    from pbem.games.ambon import bombardment
    from pbem.games.ambon.state import other

    data = game.data
    phase_state = state if defensive else replace(state, phase=_phases_of(side)[1], closing=False)
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


def _ambon_attacks(game: Any, state: Any, side: str, out: Sections) -> None:
    from fractions import Fraction

    from pbem.engine.machine import replace
    from pbem.games.ambon import battle, combat, movement
    from pbem.games.ambon.state import Battle, other

    data, gmap = game.data, game.map
    now = replace(state, phase=_phases_of(side)[2], closing=False, battles=())
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


def _ambon_examples(game: Any, state: Any, side: str, out: Sections) -> None:
    from pbem.games.ambon.bot import AmbonBot

    try:
        doc = AmbonBot(game).orders(state, side, state.seq + 1)
    except PbemError:
        return
    orders = [o for o in doc.get("order", []) if "setup" not in o]
    if orders:
        out.sections.append(Section(
            "Example orders for this position (what pbem's simple bot would give; legal together)",
            ["keep, change or delete them; each [[order]] is one move, landing, bombardment or attack"],
            orders,
        ))


__all__ = [
    "Section",
    "Sections",
    "Template",
    "ambon_sections",
    "dice_sections",
    "for_match",
    "generic_sections",
    "render",
    "template",
    "uncomment_examples",
]
