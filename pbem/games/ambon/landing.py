"""Landings (6.0-6.5): mine checks, unopposed and opposed landing tables,
second waves and minesweeping, beachheads."""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from pbem.engine.machine import Event, illegal, replace
from pbem.engine.paths import format_mp
from pbem.games.ambon import movement
from pbem.games.ambon.state import (
    ALLIED,
    ELIMINATED,
    REMOVED,
    AmbonState,
    Landing,
    LandingCombat,
    Reveal,
)

if TYPE_CHECKING:
    from pbem.games.ambon.battle import Enter
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
        raise illegal("6.0", f"{box!r} is not a First Wave box ({', '.join(l.first_wave for l in data.lanes.values())})")
    units = landing_units(data, state, box)
    if not units:
        raise illegal("6.0", f"no Japanese unit is in {box}")
    if any(l.lane == lane.id for l in state.landings):
        raise illegal("6.0", f"the landing from {box} has already been ordered this turn")
    held = [p.id for p in state.at(lane.target) if p.side == ALLIED and not p.concealed]
    if held and not fighters(data, state, units):
        raise illegal("6.3", f"artillery-type units may not make opposed landings: {', '.join(units)} in {box} "
                             f"cannot land on {lane.target}, held by {', '.join(held)}")
    owed = mine_reveals(state, lane) + beach_reveals(state, lane.target)
    landing = Landing(lane.id, units, "reveals", key_seq=seq)
    events = [Event("6.0", f"{', '.join(units)} attempt a landing from {box} on {lane.target}")]
    if owed:
        events.append(
            Event("6.1", f"the Allied player owes the reveal of {', '.join(r.slot for r in owed)}", {"slots": [r.slot for r in owed]})
        )
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
    message being applied now (DESIGN 4.3).  A landing of artillery-type
    units alone that the reveals show to be opposed does not take place
    (6.3): they stay in their First Wave box."""
    events: list[Event] = []
    landings = []
    for landing in state.landings:
        if landing.stage == "reveals":
            lane = data.lanes[landing.lane]
            waiting = [
                r for r in state.owed
                if (r.rule == "6.1" and state.mine(r.slot).box == lane.mine_box)
                or (r.rule == "6.3" and state.has_piece(r.slot) and state.piece(r.slot).where == lane.target)
            ]
            if not waiting:
                landing = _classify(data, state, landing, seq)
                if landing.opposed and not fighters(data, state, landing.units):
                    landing = replace(landing, stage="done")
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
    return replace(landing, stage="roll", key_seq=seq, opposed=bool(defenders), real_mines=real)


def label(landing: Landing) -> str:
    return f"landing {landing.lane}"


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


def resolve(data: "AmbonData", state: AmbonState, landing: Landing, die: int) -> tuple[AmbonState, list[Event], list[str]]:
    """Roll on the 6.2 or 6.3 table and apply the result; returns the units
    that came ashore, for the caller's 3.1/6.5/8.0 effects of entering."""
    lane = data.lanes[landing.lane]
    mods = modifiers(data, state, landing)
    total = die + sum(m for _, m in mods)
    table = data.charts.table("opposed_landing" if landing.opposed else "unopposed_landing")
    result = table.result(table.columns[0], total)
    shown = f"roll {die}" + "".join(f" {m:+d} ({why})" for why, m in mods) + (f" = {total}" if mods else "")
    rule = "6.3" if landing.opposed else "6.2"
    done = replace(landing, stage="done")
    state = replace(state, landings=tuple(done if l.lane == landing.lane else l for l in state.landings))
    if result == "delayed":
        return state, [Event(rule, f"landing on {lane.target}: {shown} -> landing delayed; the units stay in {lane.first_wave}")], []
    if result.startswith("combat"):
        factor = result.partition("-")[2] or "1"
        state = replace(
            state,
            landings=tuple(replace(l, stage="combat") if l.lane == landing.lane else l for l in state.landings),
        )
        event = Event(rule, f"landing on {lane.target}: {shown} -> landing combat at {factor} attacker CS",
                      {"lane": landing.lane, "factor": factor, "roll": die, "total": total})
        state, more, landed = begin_combat(data, state, landing.lane, factor)
        return state, [event] + more, landed
    less = movement.mp_penalty(result)
    if result != "no-move" and less is None:
        raise illegal(rule, f"unknown landing result {result!r} in the data")
    penalty = result  # the marker the landing units get: No Move, or -N MP (6.2)
    pieces = [replace(state.piece(u), where=lane.target, penalty=penalty) for u in landing.units]
    state = state.with_pieces(pieces)
    what = "no movement this turn" if penalty == "no-move" else f"-{format_mp(less, unit=False)} MP this turn"
    return state, [Event(rule, f"landing on {lane.target}: {shown} -> landing succeeds, {what}",
                         {"lane": landing.lane, "roll": die, "total": total, "result": result, "landed": list(landing.units)})], list(landing.units)


def place_beachhead(state: AmbonState, target: str) -> tuple[AmbonState, list[Event]]:
    """6.5: a Japanese unit entering a landing hex places a beachhead marker."""
    if target in state.beachheads or target in state.lost_beachheads:
        return state, []
    return replace(state, beachheads=state.beachheads + (target,)), [
        Event("6.5", f"beachhead established on {target}")
    ]


def capture_beachhead(data: "AmbonData", state: AmbonState, where: str) -> tuple[AmbonState, list[Event]]:
    """6.5: an Allied unit (not a dummy) entering a beachhead removes it for
    good; Japanese units still to land there are eliminated: those in the
    First and Second Wave boxes of the lanes aimed at it.  With 14.2 a
    battalion still off the map may be aimed at it by the sealed note, which
    nobody can read yet: it is eliminated when the note is revealed
    (``AmbonGame._place_second_wave``)."""
    if where not in state.beachheads:
        return state, []
    state = replace(
        state,
        beachheads=tuple(b for b in state.beachheads if b != where),
        lost_beachheads=state.lost_beachheads + (where,),
    )
    doomed = []
    for lane in data.lanes.values():
        if lane.target == where:
            doomed += [p for p in state.pieces if p.where in (lane.first_wave, lane.second_wave)]
    state = state.with_pieces(replace(p, where=ELIMINATED) for p in doomed)
    events = [Event("6.5", f"the Allies capture the beachhead on {where}; it can never be a beachhead again")]
    if doomed:
        events.append(Event("6.5", f"{', '.join(p.id for p in doomed)} could still land there and are eliminated"))
    return state, events


def sweep(data: "AmbonData", state: AmbonState) -> tuple[AmbonState, list[Event]]:
    """6.4: after the landings, second waves move up and mines are swept.

    Second Wave units move to their lane's First Wave box unless a
    non-artillery unit is still there.  In each mine box a landing used this
    turn, revealed dummy markers are removed and one revealed real marker is
    swept (ambon-notes: one removal per mine box per turn it was used)."""
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
    used = sorted({data.lanes[l.lane].mine_box for l in state.landings if data.lanes[l.lane].mine_box})
    for box in used:
        in_box = [m for m in state.mines if m.box == box]
        dummies = [m for m in in_box if m.status == "dummy"]
        real = [m for m in in_box if m.status == "real"]
        removed = dummies + real[:1]
        for m in removed:
            state = state.with_mine(replace(m, box=REMOVED, status=m.status))
        if removed:
            events.append(
                Event("6.4", f"minesweeping in {box}: {len(dummies)} dummy and {len(real[:1])} real marker(s) removed")
            )
    return replace(state, landings=()), events


# --------------------------------------------------------------------------- 6.3 landing combat


def supporting_hqs(data: "AmbonData", state: AmbonState, side: str, target: str) -> list[str]:
    """11.1: HQs of ``side`` whose command range covers ``target``."""
    t = data.map.hex(target)
    found = []
    for p in state.on_map(side):
        spec = data.spec(p)
        if spec.hq and data.map.hex(p.where).distance(t) <= spec.command_range:
            found.append(p.id)
    return found


def combat_label(lc: LandingCombat) -> str:
    return f"landing combat {lc.lane}"


def begin_combat(data: "AmbonData", state: AmbonState, lane_id: str, factor: str) -> tuple[AmbonState, list[Event], list[str]]:
    """6.3: the landing units fight the units on the beach.  The Japanese may
    not use HQ support; the Allied defender may (11.1), and that decision
    comes before the die: from a standing instruction, or the Allies' next
    message (DESIGN 4.3).

    An HQ "attacked while alone is automatically eliminated" (2.2.1, 11.1:
    "without calculating a combat ratio"): with only HQs on the beach there
    is no support decision and no landing-combat die; the beach is empty and
    the landing units come ashore as after a won landing combat (6.3).
    Returns the units that came ashore."""
    lane = data.lanes[lane_id]
    defenders = [p for p in state.at(lane.target) if p.side == ALLIED]
    if defenders and all(data.spec(p).hq for p in defenders):
        state = state.with_pieces(replace(p, where=ELIMINATED) for p in defenders)
        events = [Event("11.1", f"{', '.join(p.id for p in defenders)} attacked alone on {lane.target}: eliminated "
                                f"without a combat ratio")]
        state, more, landed = come_ashore(data, state, lane_id)
        return state, events + more, landed
    hqs = supporting_hqs(data, state, ALLIED, lane.target)
    policy = state.standing.get(ALLIED, "hq-support")
    if hqs and policy is None:
        lc = LandingCombat(lane_id, factor, "support")
        return replace(state, landing_combat=lc), [
            Event("11.1", f"the Allies may support the defence of {lane.target} with {' or '.join(hqs)}; they decide before the die")
        ], []
    hq = hqs[0] if hqs and policy == "always" else ""
    lc = LandingCombat(lane_id, factor, "roll", key_seq=state.seq, defender_hq=hq)
    events = [Event("11.1", f"{hq} supports the defence of {lane.target} (standing instruction)")] if hq else []
    return replace(state, landing_combat=lc), events, []


def decide_support(data: "AmbonData", state: AmbonState, choice: str, seq: int) -> tuple[AmbonState, list[Event]]:
    """11.1: the Allies' answer to the support decision of a landing combat."""
    lc = state.landing_combat
    if lc is None or lc.stage != "support":
        raise illegal("11.1", "no landing combat awaits the Allies' HQ support decision")
    target = data.lanes[lc.lane].target
    hqs = supporting_hqs(data, state, ALLIED, target)
    if choice != "none" and choice not in hqs:
        raise illegal("11.1", f"{choice} cannot support the combat at {target} (may: {', '.join(hqs) or 'none'})")
    hq = "" if choice == "none" else choice
    state = replace(state, landing_combat=replace(lc, stage="roll", key_seq=seq, defender_hq=hq))
    text = f"{hq} supports the defence of {target}" if hq else f"no Allied HQ supports the defence of {target}"
    return state, [Event("11.1", text)]


def resolve_combat(data: "AmbonData", state: AmbonState, die: int, enter: "Enter") -> tuple[AmbonState, list[Event], list[str]]:
    """6.3 with 11.0-11.3: resolve the landing combat; returns the units that
    landed (the beach emptied) for the caller's 3.1/6.5/8.0 effects.  Only
    the non-artillery units fight (6.3: the artillery's "presence is ignored
    for landing combat"): their CS makes the attack and they take the hits."""
    from pbem.games.ambon import combat

    lc = state.landing_combat
    lane = data.lanes[lc.lane]
    landing = next(l for l in state.landings if l.lane == lc.lane)
    units = [u for u in landing.units if state.piece(u).where == lane.first_wave]
    fighting = [state.piece(u) for u in fighters(data, state, units)]
    factor = Fraction(lc.factor)  # the 6.3 table's "combat-1/4", "combat-1/2", "combat-1"
    attack = sum((data.spec(p).combat for p in fighting), Fraction(0)) * factor
    defenders = [p for p in state.at(lane.target) if p.side == ALLIED]
    odds = combat.odds(data, state, attack, defenders, lane.target, hq={"defender": bool(lc.defender_hq)})
    rolled = combat.roll_on_crt(data, odds, die)
    a_hits, d_hits, retreat = rolled.hits
    events = [Event("6.3", f"landing combat on {lane.target} at {lc.factor} CS: {rolled.describe()}", rolled.data())]
    state, more, _ = combat.apply_hits(data, state, defenders, d_hits, "Allied")
    events += more
    survivors = [state.piece(p.id) for p in defenders if state.piece(p.id).where == lane.target]
    if retreat and survivors:
        from pbem.games.ambon.battle import retreat_units

        state, more = retreat_units(data, state, survivors, retreat, frozenset(), enter=enter)
        events += more
    # 6.3: the Japanese absorb their losses by disruption or elimination; no retreat
    state, more, _ = combat.apply_hits(data, state, fighting, a_hits, "Japanese")
    events += more
    if any(p.side == ALLIED for p in state.at(lane.target)):
        state = replace(state, landing_combat=None,
                        landings=tuple(replace(l, stage="done") if l.lane == lc.lane else l for l in state.landings))
        events.append(Event("6.3", f"{lane.target} is still held: the landing units stay in {lane.first_wave}"))
        return state, events, []
    state, more, landed = come_ashore(data, state, lc.lane)
    return state, events + more, landed


def come_ashore(data: "AmbonData", state: AmbonState, lane_id: str) -> tuple[AmbonState, list[Event], list[str]]:
    """6.3: the beach is empty after a landing combat: every landing unit
    still in the First Wave box, "including disrupted units and HQs", moves
    onto it under the opposed-landing marker; artillery "may not advance
    along with the other units".  Returns the units that landed."""
    lane = data.lanes[lane_id]
    landing = next(l for l in state.landings if l.lane == lane_id)
    units = [u for u in landing.units if state.piece(u).where == lane.first_wave]
    movers = [state.piece(u) for u in fighters(data, state, units)]
    state = replace(state, landing_combat=None,
                    landings=tuple(replace(l, stage="done") if l.lane == lane_id else l for l in state.landings))
    if not movers:
        return state, [Event("6.3", f"{lane.target} is empty, but no landing unit is left to land on it")], []
    state = state.with_pieces(replace(p, where=lane.target, penalty="opposed") for p in movers)
    event = Event("6.3", f"{', '.join(p.id for p in movers)} land on {lane.target} (disrupted units and HQs too); "
                  f"they may not move, bombard or attack this turn"
                  + (f"; artillery stays in {lane.first_wave}" if len(movers) < len(units) else ""),
                  {"lane": lane_id, "landed": [p.id for p in movers]})
    return state, [event], [p.id for p in movers]
