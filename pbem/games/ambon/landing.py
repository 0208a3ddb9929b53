"""Landings (6.0-6.4): the attempt from each First Wave box (or its
postponement), mine checks, the unopposed and opposed landing tables, every
landing combat of the phase, second waves and minesweeping.  Beachheads
(6.5) are an effect of entering a hex (:mod:`pbem.games.ambon.entering`)."""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from pbem.engine.machine import Event, illegal, replace
from pbem.engine.paths import format_mp
from pbem.errors import IllegalOrderError
from pbem.games.ambon import combat, entering, movement, results
from pbem.games.ambon.state import (
    ALLIED,
    ELIMINATED,
    JAPANESE,
    REMOVED,
    AmbonState,
    CombatStage,
    Fight,
    Landing,
    LandingCombat,
    LandingStage,
    Reveal,
)

if TYPE_CHECKING:
    from pbem.games.ambon.data import AmbonData, Lane

KURE_NATIONALITY = "kure"


def landing_units(data: "AmbonData", state: AmbonState, box: str) -> tuple[str, ...]:
    return tuple(p.id for p in state.at(box))


def beach_reveals(state: AmbonState, target: str) -> list[Reveal]:
    """6.3: concealed Allied pieces on the beach must be revealed first."""
    return [
        Reveal(p.id, "6.3", f"concealed piece on the beach {target}")
        for p in state.at(target)
        if p.concealed and not state.owes(p.id)
    ]


def mine_reveals(state: AmbonState, lane: "Lane") -> list[Reveal]:
    """6.1: the Allied player reveals the mine markers in the lane's mine box."""
    if not lane.mine_box:
        return []
    return [
        Reveal(m.id, "6.1", f"mine check in {lane.mine_box}")
        for m in state.mines
        if m.box == lane.mine_box and m.status == "hidden" and not state.owes(m.id)
    ]


def start(data: "AmbonData", state: AmbonState, box: str, seq: int) -> tuple[AmbonState, list[Event]]:
    """6.0: the Japanese attempt a landing from First Wave box ``box``."""
    lane = data.lane_of_box(box)
    if lane is None or lane.first_wave != box:
        raise illegal("6.0", f"{box!r} is not a First Wave box ({', '.join(ln.first_wave for ln in data.lanes.values())})")
    units = landing_units(data, state, box)
    if not units:
        raise illegal("6.0", f"no Japanese unit is in {box}")
    if any(ld.lane == lane.id for ld in state.landings):
        raise illegal("6.0", f"the landing from {box} has already been ordered or postponed this turn")
    held = [p.id for p in state.at(lane.target) if p.side == ALLIED and not p.concealed]
    if held and not fighters(data, state, units):
        raise illegal("6.3", f"artillery-type units may not make opposed landings: {', '.join(units)} in {box} "
                             f"cannot land on {lane.target}, held by {', '.join(held)}")
    owed = mine_reveals(state, lane) + beach_reveals(state, lane.target)
    landing = Landing(lane.id, units, LandingStage.REVEALS, key_seq=seq)
    events = [Event("6.0", f"{', '.join(units)} attempt a landing from {box} on {lane.target}")]
    for rule, what in (("6.1", "the mine check"), ("6.3", "the concealed pieces on the beach")):
        slots = [r.slot for r in owed if r.rule == rule]
        if slots:
            events.append(Event(rule, f"the Allied player owes the reveal of {', '.join(slots)} ({what})", {"slots": slots}))
    state = replace(state, landings=state.landings + (landing,), owed=state.owed + tuple(owed))
    state, more = ready(data, state, seq)
    return state, events + more


def fighters(data: "AmbonData", state: AmbonState, units) -> list[str]:
    """6.3: the landing units that count in an opposed landing: "artillery-type
    units ... may not make opposed landings. Their presence is ignored for
    landing combat"."""
    return [u for u in units if not data.spec(state.piece(u)).artillery]


def ready(data: "AmbonData", state: AmbonState, seq: int) -> tuple[AmbonState, list[Event]]:
    """Landings whose reveals are all made: the die becomes due, keyed by the
    message being applied now (docs/protocol.md §6.3).  A landing of artillery-type
    units alone that the reveals show to be opposed does not take place
    (6.3): they stay in their First Wave box."""
    events: list[Event] = []
    landings = []
    for landing in state.landings:
        if landing.stage is LandingStage.REVEALS:
            lane = data.lanes[landing.lane]
            waiting = [
                r for r in state.owed
                if (r.rule == "6.1" and state.mine(r.slot).box == lane.mine_box)
                or (r.rule == "6.3" and state.has_piece(r.slot) and state.piece(r.slot).where == lane.target)
            ]
            if not waiting:
                landing = _classify(data, state, landing, seq)
                if landing.opposed and not fighters(data, state, landing.units):
                    landing = replace(landing, stage=LandingStage.DONE)
                    events.append(Event("6.3", f"{lane.target} is held: artillery-type units may not make opposed "
                                               f"landings; {', '.join(landing.units)} stay in {lane.first_wave}"))
                    landings.append(landing)
                    continue
                events.append(
                    Event(
                        "6.3" if landing.opposed else "6.2",
                        f"landing on {lane.target}: {'opposed' if landing.opposed else 'unopposed'}, "
                        f"{landing.real_mines} real mine(s); one die is due",
                    )
                )
        landings.append(landing)
    return replace(state, landings=tuple(landings)), events


def _classify(data: "AmbonData", state: AmbonState, landing: Landing, seq: int) -> Landing:
    lane = data.lanes[landing.lane]
    real = sum(1 for m in state.mines if lane.mine_box and m.box == lane.mine_box and m.status == "real")
    defenders = [p for p in state.at(lane.target) if p.side == ALLIED]
    return replace(landing, stage=LandingStage.ROLL, key_seq=seq, opposed=bool(defenders), real_mines=real)


def modifiers(data: "AmbonData", state: AmbonState, landing: Landing) -> list[tuple[str, int]]:
    """6.2/6.3 DRMs: +1 Kure 1 Special landing, -1 per revealed real mine, +1 on turn 4 and later."""
    mods = []
    if any(data.spec(state.piece(u)).nationality == KURE_NATIONALITY for u in landing.units):
        mods.append(("Kure 1 Special landing", int(data.value("landing_drm_kure"))))
    if landing.real_mines:
        mods.append((f"{landing.real_mines} real mine(s)", int(data.value("landing_drm_per_mine")) * landing.real_mines))
    if state.turn >= int(data.value("landing_late_turn")):
        mods.append((f"turn {state.turn}", int(data.value("landing_drm_late"))))
    return mods


def postpone(data: "AmbonData", state: AmbonState, box: str) -> tuple[AmbonState, list[Event]]:
    """6.0: "the Japanese player may always postpone a landing to the
    following turn": the units stay in their First Wave box (and so, 6.4,
    the lane's Second Wave waits behind them)."""
    lane = data.lane_of_box(box)
    if lane is None or lane.first_wave != box or not state.at(box):
        raise illegal("6.0", f"{box!r} is not a First Wave box holding units")
    if any(ld.lane == lane.id for ld in state.landings):
        raise illegal("6.0", f"the landing from {box} has already been ordered or postponed this turn")
    record = Landing(lane.id, landing_units(data, state, box), LandingStage.POSTPONED)
    return replace(state, landings=state.landings + (record,)), [
        Event("6.0", f"the landing from {box} is postponed to the next turn")]


def unattempted(data: "AmbonData", state: AmbonState) -> list[str]:
    """6.0: First Wave boxes holding units whose landing has been neither
    attempted nor postponed this Landing Phase."""
    done = {ld.lane for ld in state.landings}
    return [lane.first_wave for lane in data.lanes.values() if lane.id not in done and state.at(lane.first_wave)]


def attempt_the_rest(data: "AmbonData", state: AmbonState, seq: int) -> tuple[AmbonState, list[Event]]:
    """6.0: "If Japanese units are present in a First Wave box at the start
    of the Landing Phase, an attempt is made to land from that box" --
    landing is the rule, postponing the player's explicit choice.  A Landing
    Phase that ends with boxes neither landed nor postponed attempts their
    landings now, in the order of the lanes; a landing the rules forbid
    (6.3: artillery-type units alone against a held beach) is not made."""
    events: list[Event] = []
    for box in unattempted(data, state):
        try:
            state, more = start(data, state, box, seq)
        except IllegalOrderError as err:
            lane = data.lane_of_box(box)
            assert lane is not None  # box is a lane's First Wave box (unattempted)
            state = replace(state, landings=state.landings + (
                Landing(lane.id, landing_units(data, state, box), LandingStage.NOT_MADE),))
            events.append(Event(err.rule or "6.0", f"the landing from {box} is not made: {str(err).removeprefix(f'{err.rule}: ')}"))
            continue
        events.append(Event("6.0", f"no order postponed the landing from {box}: it is attempted (6.0)"))
        events += more
    return state, events


def resolve(data: "AmbonData", state: AmbonState, landing: Landing, die: int) -> tuple[AmbonState, list[Event]]:
    """Roll on the 6.2 or 6.3 table and apply the result: delayed, landed
    (with every effect of entering the beach), or a landing combat."""
    lane = data.lanes[landing.lane]
    mods = modifiers(data, state, landing)
    total = die + sum(m for _, m in mods)
    table = data.charts.table("opposed_landing" if landing.opposed else "unopposed_landing")
    result = table.result(table.columns[0], total)
    shown = f"roll {die}" + "".join(f" {m:+d} ({why})" for why, m in mods) + (f" = {total}" if mods else "")
    rule = "6.3" if landing.opposed else "6.2"
    if result == "delayed":
        state = _landing_stage(state, landing.lane, LandingStage.DONE)
        return state, [Event(rule, f"landing on {lane.target}: {shown} -> landing delayed; the units stay in {lane.first_wave}",
                             {"lane": landing.lane, "roll": die, "drms": [list(m) for m in mods], "total": total, "result": result})]
    if result.startswith("combat"):
        factor = result.partition("-")[2] or "1"
        state = _landing_stage(state, landing.lane, LandingStage.COMBAT)
        event = Event(rule, f"landing on {lane.target}: {shown} -> landing combat at {factor} attacker CS",
                      {"lane": landing.lane, "factor": factor, "roll": die, "drms": [list(m) for m in mods], "total": total, "result": result})
        state, more = begin_combat(data, state, landing.lane, factor)
        return state, [event] + more
    less = movement.mp_penalty(result)
    if result != "no-move" and less is None:
        raise illegal(rule, f"unknown landing result {result!r} in the data")
    state = _landing_stage(state, landing.lane, LandingStage.DONE)
    penalty = result  # the marker the landing units get: No Move, or -N MP (6.2)
    state = state.with_pieces(replace(state.piece(u), where=lane.target, penalty=penalty) for u in landing.units)
    what = "no movement this turn" if less is None else f"-{format_mp(less, unit=False)} MP this turn"  # None: no-move
    events = [Event(rule, f"landing on {lane.target}: {shown} -> landing succeeds, {what}",
                    {"lane": landing.lane, "roll": die, "drms": [list(m) for m in mods], "total": total, "result": result, "landed": list(landing.units)})]
    state, more = entering.entered_all(data, state, list(landing.units), lane.target, landed=True)
    return state, events + more


def _landing_stage(state: AmbonState, lane_id: str, stage: LandingStage) -> AmbonState:
    return replace(state, landings=tuple(replace(ld, stage=stage) if ld.lane == lane_id else ld for ld in state.landings))


def sweep(data: "AmbonData", state: AmbonState) -> tuple[AmbonState, list[Event]]:
    """6.4: after the landings, second waves move up and mines are swept.

    Second Wave units move to their lane's First Wave box unless a
    non-artillery unit is still there.  Then mine boxes are swept: their
    revealed dummy markers are removed, and one revealed real marker (the
    Japanese player's choice: revealed real markers are alike, so the first).
    Which boxes, as the game's 6.4 ruling reads "One real mine marker still
    in a mine box is removed each turn": ``per-landing``, each box a landing
    checked this turn (the sentence restates the removal after the
    landings); ``every-turn``, every box holding a revealed marker, landing
    or not (a marker nobody has revealed cannot be told real or dummy, so it
    stays).  The event names every marker removed."""
    events: list[Event] = []
    for lane in data.lanes.values():
        waiting = state.at(lane.second_wave)
        if not waiting:
            continue
        blocking = [p for p in state.at(lane.first_wave) if not data.spec(p).artillery]
        if blocking:
            events.append(Event("6.4", f"the Second Wave in {lane.second_wave} waits: {blocking[0].id} is still in {lane.first_wave}"))
            continue
        state = state.with_pieces(replace(p, where=lane.first_wave) for p in waiting)
        events.append(Event("6.4", f"{', '.join(p.id for p in waiting)} move up to {lane.first_wave}"))
    used = sorted({mine_box for ld in state.landings
                   if (mine_box := data.lanes[ld.lane].mine_box) and ld.stage not in (LandingStage.POSTPONED, LandingStage.NOT_MADE)})
    swept = used
    if state.ruling("6.4") == "every-turn":
        swept = sorted({m.box for m in state.mines if m.box != REMOVED and m.status in ("real", "dummy")} | set(used))
    for box in swept:
        in_box = sorted((m for m in state.mines if m.box == box), key=lambda m: data.mine_slots.index(m.id))
        dummies = [m for m in in_box if m.status == "dummy"]
        real = [m for m in in_box if m.status == "real"]
        removed = dummies + real[:1]
        for m in removed:
            state = state.with_mine(replace(m, box=REMOVED, status=m.status))
        if removed:
            why = "" if box in used else " (6.4 ruling every-turn: no landing checked it this turn)"
            named = ", ".join(f"the {m.status} marker {m.id}" for m in removed)
            events.append(Event("6.4", f"minesweeping in {box}: {named} removed{why}",
                                {"box": box, "removed": [m.id for m in removed]}))
    return replace(state, landings=(), landing_combats=()), events


# --------------------------------------------------------------------------- 6.3 landing combat


def supporting_hqs(data: "AmbonData", state: AmbonState, side: str, target: str) -> list[str]:
    """11.1: HQs of ``side`` whose command range covers ``target`` and that
    support no other combat of this phase (an HQ supports one a phase)."""
    t = data.map.hex(target)
    used = {lc.defender_hq for lc in state.landing_combats}
    found = []
    for p in state.on_map(side):
        spec = data.spec(p)
        if spec.hq and p.id not in used and data.map.hex(p.where).distance(t) <= spec.command_range:
            found.append(p.id)
    return found


def _with_combat(state: AmbonState, new: LandingCombat | None, lane_id: str) -> AmbonState:
    """``state`` with the landing combat of ``lane_id`` replaced by ``new`` (or added; None: removed)."""
    kept = tuple(lc for lc in state.landing_combats if lc.lane != lane_id)
    if new is None:
        return replace(state, landing_combats=kept)
    if len(kept) == len(state.landing_combats):
        return replace(state, landing_combats=state.landing_combats + (new,))
    return replace(state, landing_combats=tuple(new if lc.lane == lane_id else lc for lc in state.landing_combats))


def begin_combat(data: "AmbonData", state: AmbonState, lane_id: str, factor: str) -> tuple[AmbonState, list[Event]]:
    """6.3: "all units attempting the landing must fight the units on the
    beach (11.0)".  Each landing combat of the phase is fought on its own,
    with its own HQ-support decision and die, in the order of the landings
    (the order of the Japanese player's ``land`` orders).  The Japanese may
    not use HQ support; the Allied defender may (11.1), and that decision
    comes before the die: from a standing instruction, or the Allies' next
    message (docs/protocol.md §6.3).

    An HQ "attacked while alone is automatically eliminated" (2.2.1, 11.1:
    "without calculating a combat ratio"): with only HQs on the beach there
    is no support decision and no landing-combat die; the beach is empty and
    the landing units come ashore as after a won landing combat (6.3)."""
    lane = data.lanes[lane_id]
    defenders = [p for p in state.at(lane.target) if p.side == ALLIED]
    if defenders and all(data.spec(p).hq for p in defenders):
        state = state.with_pieces(replace(p, where=ELIMINATED) for p in defenders)
        events = [Event("11.1", f"{', '.join(p.id for p in defenders)} attacked alone on {lane.target}: eliminated "
                                f"without a combat ratio")]
        state, more = come_ashore(data, state, lane_id)
        return state, events + more
    hqs = supporting_hqs(data, state, ALLIED, lane.target)
    policy = state.standing.get(ALLIED, "hq-support")
    if hqs and policy is None:
        state = _with_combat(state, LandingCombat(lane_id, factor, CombatStage.SUPPORT), lane_id)
        return state, [Event("11.1", f"the Allies may support the defence of {lane.target} with {' or '.join(hqs)}; "
                                     f"they decide before the die")]
    hq = hqs[0] if hqs and policy == "always" else ""
    state = _with_combat(state, LandingCombat(lane_id, factor, CombatStage.ROLL, key_seq=state.seq, defender_hq=hq), lane_id)
    events = [Event("11.1", f"{hq} supports the defence of {lane.target} (standing instruction)")] if hq else []
    return state, events


def awaiting_support(data: "AmbonData", state: AmbonState, target: str | None = None) -> list[LandingCombat]:
    return [lc for lc in state.landing_combats if lc.stage is CombatStage.SUPPORT
            and (target is None or data.lanes[lc.lane].target == target)]


def decide_support(data: "AmbonData", state: AmbonState, choice: str, target: str | None, seq: int) -> tuple[AmbonState, list[Event]]:
    """11.1: the Allies' answer to the support decision of a landing combat
    (``support = "AUS-HQ"`` or ``"none"``, with ``target = HEX`` when
    several landing combats wait)."""
    waiting = awaiting_support(data, state, target)
    if len(waiting) != 1:
        where = ", ".join(data.lanes[lc.lane].target for lc in awaiting_support(data, state)) or "none"
        raise illegal("11.1", f"say which landing combat the support is for (target = ...): landing combats awaiting "
                              f"support: {where}" if waiting or target else
                              "no landing combat awaits the Allies' HQ support decision")
    lc = waiting[0]
    beach = data.lanes[lc.lane].target
    hqs = supporting_hqs(data, state, ALLIED, beach)
    if choice != "none" and choice not in hqs:
        raise illegal("11.1", f"{choice} cannot support the combat at {beach} (may: {', '.join(hqs) or 'none'})")
    hq = "" if choice == "none" else choice
    state = _with_combat(state, replace(lc, stage=CombatStage.ROLL, key_seq=seq, defender_hq=hq), lc.lane)
    text = f"{hq} supports the defence of {beach}" if hq else f"no Allied HQ supports the defence of {beach}"
    return state, [Event("11.1", text)]


def decline_open_support(data: "AmbonData", state: AmbonState, seq: int) -> tuple[AmbonState, list[Event]]:
    """An Allied message that leaves a landing combat's support decision
    open declines it (as in the Combat Phase, :func:`battle.decline_open_support`)."""
    events = []
    for lc in awaiting_support(data, state):
        state = _with_combat(state, replace(lc, stage=CombatStage.ROLL, key_seq=seq), lc.lane)
        events.append(Event("11.1", f"no Allied HQ supports the defence of {data.lanes[lc.lane].target}"))
    return state, events


def rolled_combat(data: "AmbonData", state: AmbonState, lc: LandingCombat, die: int) -> tuple[AmbonState, list[Event]]:
    """The die of landing combat ``lc`` is known; it is resolved in the order
    of the landings (:func:`proceed_combats`, run after every action)."""
    state = _with_combat(state, replace(lc, stage=CombatStage.ROLLED, die=die), lc.lane)
    earlier = next((x for x in state.landing_combats if x.lane != lc.lane), None)
    if earlier is None or state.landing_combats.index(earlier) > [x.lane for x in state.landing_combats].index(lc.lane):
        return state, []
    target, before = data.lanes[lc.lane].target, data.lanes[earlier.lane].target
    return state, [Event("6.3", f"landing combat on {target}: roll {die}, applied once the landing combat on {before}, "
                                f"fought before it, is resolved (6.3: in the order of the landings)",
                         {"lane": lc.lane, "roll": die})]


def proceed_combats(data: "AmbonData", state: AmbonState) -> tuple[AmbonState, list[Event]]:
    """6.3: the landing combats whose dice are known, in the order of the
    landings, each as far as its owners' 11.3 choices are made; one waiting
    for a choice (or its die) holds up those after it."""
    events: list[Event] = []
    for lane_id in [lc.lane for lc in state.landing_combats]:
        lc = next((x for x in state.landing_combats if x.lane == lane_id), None)
        if lc is None:
            continue
        if lc.stage not in (CombatStage.ROLLED, CombatStage.LOSSES):
            break
        state, more = resolve_combat(data, state, lc)
        events += more
        if any(x.lane == lane_id for x in state.landing_combats):
            break
    return state, events


def _busy(data: "AmbonData", state: AmbonState, lane_id: str) -> frozenset[str]:
    """11.3: the beaches of the other landing combats not yet resolved."""
    return frozenset(data.lanes[x.lane].target for x in state.landing_combats if x.lane != lane_id)


def resolve_combat(data: "AmbonData", state: AmbonState, lc: LandingCombat) -> tuple[AmbonState, list[Event]]:
    """6.3 with 11.0-11.3: resolve one landing combat.  Only the
    non-artillery units fight (6.3: the artillery's "presence is ignored for
    landing combat"): their CS makes the attack and they take the hits,
    which the Japanese "must absorb ... through disruption or elimination
    (no retreat is allowed)".  Every choice of 11.3 is its owner's
    (:mod:`.results`): the landing combat waits for it."""
    lane = data.lanes[lc.lane]
    events: list[Event] = []
    if lc.fight is None:
        landing = next(ld for ld in state.landings if ld.lane == lc.lane)
        units = [u for u in landing.units if state.piece(u).where == lane.first_wave]
        fighting = [state.piece(u) for u in fighters(data, state, units)]
        factor = Fraction(lc.factor)  # the 6.3 table's "combat-1/4", "combat-1/2", "combat-1"
        attack = sum((data.spec(p).combat for p in fighting), Fraction(0)) * factor
        defenders = [p for p in state.at(lane.target) if p.side == ALLIED]
        odds = combat.odds(data, state, attack, defenders, lane.target, hq={"defender": bool(lc.defender_hq)})
        rolled = combat.roll_on_crt(data, odds, lc.die)
        at = f" x {lc.factor}" if factor != 1 else ""
        landed = [combat.Term(p.id, data.spec(p).combat, data.spec(p).combat * factor) for p in fighting]
        against = combat.defence_terms(data, state, defenders)
        ignored = [u for u in units if u not in {p.id for p in fighting}]
        events.append(Event("6.3", f"landing combat on {lane.target} at {lc.factor} CS: {rolled.describe()}; counted: "
                                   + " + ".join(f"{t.unit} {combat.fmt(t.printed)}{at}" if t.printed else
                                                f"{t.unit} 0 (an HQ: no CF, 2.2.1)" for t in landed)
                                   + f" = {combat.fmt(attack)}"
                                   + (f" ({', '.join(ignored)}: artillery, ignored, 6.3)" if ignored else "")
                                   + f" against {combat.counted(against)}",
                            {"lane": lc.lane, **rolled.data(), "attackers": [t.data() for t in landed],
                             "defenders": [t.data() for t in against]}))
        lc = replace(lc, fight=Fight(lane.target, JAPANESE, tuple(p.id for p in fighting), rolled.result,
                                     tuple(p.id for p in defenders), names=("Allied", "Japanese"),
                                     label="landing combat on"))
    state, more, fight = results.settle(data, state, lc.settling, _busy(data, state, lc.lane))
    events += more
    if not fight.done:
        return _with_combat(state, replace(lc, stage=CombatStage.LOSSES, fight=fight), lc.lane), events
    if any(p.side == ALLIED for p in state.at(lane.target)):
        state = _landing_stage(_with_combat(state, None, lc.lane), lc.lane, LandingStage.DONE)
        events.append(Event("6.3", f"{lane.target} is still held: the landing units stay in {lane.first_wave}"))
        return state, events
    state, more = come_ashore(data, state, lc.lane)
    return state, events + more


def awaiting_choice(state: AmbonState, side: str, target: str | None = None) -> list[LandingCombat]:
    """The landing combats waiting for ``side``'s 11.3 choice (at ``target``)."""
    return [lc for lc in state.landing_combats if lc.stage is CombatStage.LOSSES and lc.waiting == side
            and (target is None or lc.settling.target == target)]


def open_choices(data: "AmbonData", state: AmbonState, lc: LandingCombat) -> dict[str, Any]:
    return results.open_choices(data, state, lc.settling, _busy(data, state, lc.lane))


def answer(data: "AmbonData", state: AmbonState, side: str, kind: str, value: str, target: str | None,
           more: dict[str, str] | None = None) -> tuple[AmbonState, list[Event]]:
    """``side``'s answer (a ``losses`` or ``retreat`` order) to a landing
    combat's open 11.3 choice."""
    waiting = awaiting_choice(state, side, target)
    if len(waiting) != 1:
        raise illegal("11.3", "say which landing combat this answers (target = ...): choices open on "
                              + ", ".join(lc.settling.target for lc in awaiting_choice(state, side)))
    lc = waiting[0]
    fight, event = results.take_answer(state, lc.settling, side, kind, value, more, open_choices(data, state, lc))
    return _with_combat(state, replace(lc, fight=fight), lc.lane), [event]


def come_ashore(data: "AmbonData", state: AmbonState, lane_id: str) -> tuple[AmbonState, list[Event]]:
    """6.3: the beach is empty after a landing combat: every landing unit
    still in the First Wave box, "including disrupted units and HQs", moves
    onto it under the opposed-landing marker, with every effect of entering
    it; artillery "may not advance along with the other units"."""
    lane = data.lanes[lane_id]
    landing = next(ld for ld in state.landings if ld.lane == lane_id)
    units = [u for u in landing.units if state.piece(u).where == lane.first_wave]
    movers = [state.piece(u) for u in fighters(data, state, units)]
    state = _landing_stage(_with_combat(state, None, lane_id), lane_id, LandingStage.DONE)
    if not movers:
        return state, [Event("6.3", f"{lane.target} is empty, but no landing unit is left to land on it")]
    state = state.with_pieces(replace(p, where=lane.target, penalty="opposed") for p in movers)
    event = Event("6.3", f"{', '.join(p.id for p in movers)} land on {lane.target} (disrupted units and HQs too); "
                  f"they may not move, bombard or attack this turn"
                  + (f"; artillery stays in {lane.first_wave}" if len(movers) < len(units) else ""),
                  {"lane": lane_id, "landed": [p.id for p in movers]})
    state, more = entering.entered_all(data, state, [p.id for p in movers], lane.target, landed=True)
    return state, [event] + more
