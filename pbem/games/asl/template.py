"""What an ASL player may order now: the game's part of ``pbem orders DIR``
(:mod:`pbem.app.orders_template`).

Tailored to the state: before a side has set up, only its ``setup``
(nationality, squads and, for the Chinese, the sealed Dare-Death squads);
after, the DR and dr rolls, the Berserk and Human Wave declarations (which
need a ``[position]`` table: examples/asl/ has them), Dare-Death claims,
sealed notes and the end; after the opponent ended the game, the closing
message's reveals.  The player's own sealed values appear marked
``[only you see this]``: the template is for the player only.  The choices
(``pbem orders --json``) hold no sealed value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from pbem.engine.contract import Section, Sections
from pbem.engine.machine import RevealDue
from pbem.engine.notes import note_sections
from pbem.engine.standing import offer_key_rolls
from pbem.errors import InputError
from pbem.games.asl import dare_death
from pbem.games.asl.clock import ORDER
from pbem.games.asl.terms import ALLIED, AXIS, MAX_PURPOSE

if TYPE_CHECKING:
    from pbem.games.asl.game import AslState, Setup

POSITION_HELP = [
    "both need a [position] table in the same orders file: your units, their hexes and markers, the enemy",
    "units, LOS and MF as the players see them -- examples/asl/3-allied-berserk.toml is a berserk order",
    "with its [position]; examples/asl/dare-death-example.toml the same position as a file;",
    "check one first with: pbem asl check-berserk FILE, pbem asl human-wave FILE --hexes P4,P5,P6",
]


def _other(side: str) -> str:
    return AXIS if side == ALLIED else ALLIED


def _designation(value: str) -> str:
    try:
        return "a Dare-Death Squad" if dare_death.read_value(value) else "regular"
    except InputError:  # a store edited by hand: shown as it is
        return repr(value)


def _side_lines(game: Any, state: AslState, setup: Setup, mine: bool, secrets: Mapping[str, str]) -> list[str]:
    nat = game.data.nationality(setup.nationality)
    lines = [f"{f'you ({setup.side})' if mine else setup.side}: {nat.name}, set up in message {setup.seq:04d}"
             + ("" if setup.squads else ", no squads declared")]
    for sid, type_ in setup.squads:
        text = f"  {sid}: {type_}"
        if sid in setup.eligible:
            slot = state.slot(setup.side, dare_death.slot(sid))
            if slot is not None and slot.value is not None:
                text += f" -- designation revealed in {slot.revealed_in:04d}: {_designation(slot.value)}"
            elif mine and dare_death.slot(sid) in secrets:
                text += f" -- sealed designation: {_designation(secrets[dare_death.slot(sid)])} [only you see this]"
            else:
                text += " -- Dare-Death designation sealed"
        lines.append(text)
    if setup.eligible:
        q = dare_death.quota(len(setup.eligible), int(game.data.dare_death["percent"]))
        lines.append(f"  8.5.2: {len(setup.eligible)} eligible squads, {q} (10% rounded up) or none designated")
    return lines


def _setup_section(game: Any, side: str, opponent: Setup | None, out: Sections) -> None:
    data = game.data
    notes = ['nationality = one of ' + ", ".join(f"{k} ({n.name})" for k, n in data.nationalities.items()),
             'squads = { A = "3-3-7", B = "4-4-7" }: your squads, an id each (1-32 letters, digits, _ . -) and its',
             "  counter ID; public (optional)"]
    for nat in data.nationalities.values():
        squads = [c.type for c in nat.counters if c.kind == "squad"]
        if squads:
            notes.append(f"  {nat.name} squads: {', '.join(squads)}")
    notes += ['dare_death = ["A"]: Chinese only (8.5.2), the squads you secretly designate Dare-Death Squads --',
              f"  {data.dare_death['percent']}% (fractions rounded up) of your non-"
              + "/".join(data.nationality("chinese").dare_death_excluded)
              + " squads, or none; pbem seals one designation for EACH eligible squad,",
              "  so nobody learns which or how many; only a Berserk declaration or a dare-death claim reveals one"]
    if opponent is not None:
        notes.append(f"{opponent.side} has set up as {data.nationality(opponent.nationality).name}")
    taken = opponent.nationality if opponent is not None else None
    nationality = "japanese" if side == AXIS or taken == "chinese" else "chinese"
    example: dict[str, Any] = {"type": "setup", "nationality": nationality}
    if nationality == "chinese":
        example.update(squads={"A": "3-3-7", "B": "4-4-7", "C": "5-3-7"}, dare_death=["A"])
    out.awaited.append("your setup (asl.setup): your nationality and squads"
                       + ("" if nationality != "chinese" else ", and (Chinese) your Dare-Death squads, sealed (8.5.2)")
                       + "; the rolls and declarations come after it")
    out.sections.append(Section("Setup (asl.setup): once per side, before any other order", notes, [example]))
    out.choices.update(
        order_types=["setup"],
        nationalities={k: {"name": n.name, "squads": [c.type for c in n.counters if c.kind == "squad"],
                           "dare_death": n.dare_death, "human_wave": n.human_wave}
                       for k, n in data.nationalities.items()},
    )


def _notes_sections(state: AslState, side: str, secrets: Mapping[str, str], out: Sections, *, seal: bool) -> list[str]:
    """Sealed notes (seal, reveal); the slots still sealed that a reveal order may open."""
    mine = [n for n in state.slots if n.side == side and n.value is None and dare_death.squad_of(n.slot) is None]
    used = {n.slot for n in state.slots if n.side == side}
    named = {slot for slot in used if dare_death.squad_of(slot) is None}  # the designations are not notes
    sections = note_sections("asl", named, mine, secrets, reserved="; not starting 'dd-'")
    out.sections += sections if seal else sections[1:]
    return [n.slot for n in mine]


def sections(game: Any, state: AslState, side: str, secrets: Mapping[str, str] | None = None) -> Sections:
    """The game's part of ``side``'s orders template."""
    secrets = secrets or {}
    out = Sections()
    setup, opponent = state.setup_of(side), state.setup_of(_other(side))
    owed = [d for d in game.awaiting(state) if isinstance(d, RevealDue) and d.side == side]
    out.choices = {"set_up": setup is not None, "nationality": setup.nationality if setup else None,
                   "reveals_owed": [{"slot": o.slot, "rule": o.rule, "why": o.why} for o in state.owed if o.side == side]}
    if state.ending_by is not None and state.ending_by != side:
        out.awaited.append(f"your closing message: {state.ending_by} ended the game; it may carry reveals only "
                           "(an empty file closes the game; both secrets are then revealed for the audit)")
        out.choices.update(order_types=["reveal"], reveal=_notes_sections(state, side, secrets, out, seal=False))
        return out
    if owed:
        out.awaited.append("the reveal of " + ", ".join(o.slot for o in owed) + ": made automatically when you play")
        out.sections.append(Section(
            "Reveals owed (made automatically by pbem play; nothing to write)",
            [f"  {o.slot} ({o.rule}: {o.why})" + (f" -- sealed: {_designation(secrets[o.slot])} [only you see this]"
                                                  if o.slot in secrets else "")
             for o in state.owed if o.side == side]))
    if setup is None:
        _setup_section(game, side, opponent, out)
        return out
    nat = game.data.nationality(setup.nationality)
    kinds = ["DR", "dr"] + (["berserk"] if nat.dare_death else []) + (["human-wave"] if nat.human_wave else [])
    kinds += (["dare-death"] if setup.eligible else []) + ["seal", "reveal", "end"]
    out.awaited.insert(0, "your orders: any number of " + ", ".join(k for k in kinds if k != "end")
                       + f", or end (the message then goes to {_other(side)})")
    table = _side_lines(game, state, setup, True, secrets)
    table += _side_lines(game, state, opponent, False, {}) if opponent else [f"{_other(side)} has not set up yet"]
    out.sections.append(Section("The sides", table))
    pending = [r for r in state.pending if r.side == side]
    stamps = getattr(game, "stamps_rolls", False)
    when: list[str] = []
    stamp: dict[str, Any] = {}
    if stamps:
        now = state.clock
        when = ["phase, player_turn, turn (asl.phase): where the turn record stands -- the phase (" + ", ".join(ORDER)
                + "), the side whose Player Turn it is, the Game Turn (optional); a roll without them is stamped with",
                "  the game's; a later point moves the game on, an earlier one is refused; "
                'type = "phase" names the point alone',
                f"  the game is at {now.text()} (since message {now.since:04d})" if now is not None
                else "  the game has no phase yet: the first roll (or a phase order) names phase and player_turn"]
        if now is None:
            stamp = {"phase": "PFPh", "player_turn": side}
        kinds.insert(2, "phase")
        out.choices["clock"] = now.to_json() if now is not None else None
    out.sections.append(Section(
        "Rolls (asl.DR, asl.dr): declared now, rolled when the reply arrives -- neither player can bias or preview them",
        ['type = "DR": 2d6, the colored die first; type = "dr": 1d6',
         f"purpose: what the roll is for, public (1-{MAX_PURPOSE} characters); "
         "drm: a whole number from -20 to 20 (default 0), shown as the final roll"]
        + when
        + [f"  your {r.kind}" + (f" in {r.when.short()}" if r.when is not None else "")
           + f" for {r.purpose!r} (message {r.seq:04d}) is rolled when the reply arrives" for r in pending],
        [{"type": "DR", "purpose": "describe the roll, e.g. 1MC for squad A", "drm": 0, **stamp},
         {"type": "dr", "purpose": "describe the roll, e.g. Leader Creation", **stamp}],
    ))
    declared = []
    if nat.dare_death:
        declared += ['berserk (8.5.2, the Berserk box): units = ["A"] the Dare-Death squads (or their HS) going '
                     'Berserk, target = "J" the Known Enemy Unit they Charge, leader = "8-0" (optional) a leader going '
                     "with them; a squad's sealed designation is revealed in the same message"]
    if nat.human_wave:
        declared += ['human-wave (8.5.1): units = ["A", "B", ...] or hexes = ["P4", "P5", "P6"] -- six or more MMC, '
                     "two or more per hex on average, a contiguous chain of three or more hexes, none adjacent to "
                     "an enemy unit"]
    if declared:
        out.sections.append(Section("Berserk and Human Wave: checked against the position you describe",
                                    declared + POSITION_HELP))
    else:
        out.sections.append(Section("Berserk and Human Wave (8.5.1, 8.5.2)",
                                    [f"Chinese rules: a {nat.name} side declares neither"]))
    claims = [sid for sid in setup.eligible
              if (s := state.slot(side, dare_death.slot(sid))) is not None and s.value is None
              and not any(o.side == side and o.slot == s.slot for o in state.owed)]
    if claims:
        out.sections.append(Section(
            "Dare-Death claims (8.5.2): reveal a squad's designation to claim its CC benefits, Berserk or not",
            ['type = "dare-death"  squad = "A"  purpose = "CC in X2: -1 DRM" (purpose optional, public); pbem adds',
             "the reveal to the same message and your opponent reads the sealed value (a claim cannot be bluffed);",
             "squads whose designation is still sealed:"]
            + [f"  {sid}" + (f": {_designation(secrets[dare_death.slot(sid)])} [only you see this]"
                             if dare_death.slot(sid) in secrets else "") for sid in claims],
        ))
    reveal = _notes_sections(state, side, secrets, out, seal=True)
    out.sections.append(Section(
        "Ending the game (asl.end): the reply closes it and both secrets are revealed for the audit",
        ["to end it, add these two lines (no order may follow them):", "[[order]]", 'type = "end"'],
    ))
    out.choices.update(
        order_types=kinds,
        squads=[{"id": sid, "type": t, "eligible": sid in setup.eligible} for sid, t in setup.squads],
        dare_death_claims=claims,
        reveal=reveal,
        slots_used=sorted(n.slot for n in state.slots if n.side == side and dare_death.squad_of(n.slot) is None),
        pending_rolls=[{"label": r.label, "dice": r.kind, "purpose": r.purpose, "drm": r.drm,
                        **({"when": r.when.to_json()} if r.when is not None else {})} for r in pending],
    )
    offer_key_rolls(out, state, side)
    return out


__all__ = ["sections"]
