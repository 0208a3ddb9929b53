"""The orders: what each checks against the position, and how it is resolved.

``check(data, state, side, order)`` raises an illegal-order error citing the
rule when the position forbids the order; ``run(data, state, side, order,
dice)`` resolves it -- asking for its dice, which makes them due keyed by the
message that carried the order -- and returns the new state and one
human-readable event (plus any consequences: a morale result, an
elimination, a breakoff).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Mapping

from pbem.engine.later import Dice
from pbem.engine.machine import Event, illegal
from pbem.errors import IllegalOrderError
from pbem.games.calumpit import effects, events
from pbem.games.calumpit import tables as t
from pbem.games.calumpit.data import CalumpitData, UnitType
from pbem.games.calumpit.state import (
    AMERICAN,
    JAPANESE,
    Barrage,
    CalumpitState,
    Unit,
)

replace = dataclasses.replace
Order = Mapping[str, Any]
MAX_TIES = 10  # HAND-TO-HAND: a tied pair rolls again, at most this often
WEAPON_NAMES = {"rifle": "a rifle squad", "hmg": "an HMG", "lmg": "an LMG", "smg": "an SMG", "sniper": "a sniper"}


# --------------------------------------------------------------------------- helpers


def _unit(state: CalumpitState, uid: str, rule: str, *, queued: tuple[str, ...] = (), in_action: bool = True) -> Unit | None:
    """The unit ``uid`` (None if a queued ``add`` order will create it)."""
    unit = state.unit(uid)
    if unit is None:
        if uid in queued:
            return None
        known = ", ".join(u.id for u in state.units if u.in_action) or "none"
        raise illegal(rule, f"there is no unit {uid!r} (units in action: {known})")
    if in_action and not unit.in_action:
        raise illegal(rule, f"{uid} is {unit.status}")
    return unit


def queued_adds(state: CalumpitState) -> tuple[str, ...]:
    return tuple(task.args["unit"] for task in state.tasks if task.kind == "add")


def _refuse(rule: str, field: str, message: str) -> IllegalOrderError:
    """An illegal order whose fault is one field's value: the message starts with the field."""
    return IllegalOrderError(f"{field}: {message}" if not message.startswith(field) else message, rule=rule, field=field)


def _live(state: CalumpitState, uid: str | None) -> Unit | None:
    unit = state.unit(uid) if uid else None
    return unit if unit is not None and unit.in_action else None


def _nationality(state: CalumpitState, order: Order, side: str, who: str = "unit") -> str:
    if order.get("nationality"):
        return order["nationality"]
    unit = state.unit(order[who]) if order.get(who) else None
    if unit is not None:
        return unit.nationality
    return "japanese" if side == JAPANESE else ""


def _faces(values: tuple[int, ...]) -> str:
    return " ".join(map(str, values)) if values else "-"


def take_fire(data: CalumpitData, state: CalumpitState, dice: Dice, uid: str | None, hits: int, terrain: str, rule: str,
              *, morale: bool, officer: bool = False, name: str = "",
              position: str | None = None) -> tuple[CalumpitState, str, dict[str, Any], list[Event]]:
    """Saving throws for ``hits`` figures in ``terrain``, losses to the unit,
    then its morale check ("Morale is checked anytime a unit takes fire") with
    the MORALE MODIFIER of its ``position`` (default: ``terrain``)."""
    tdf = t.tdf(data.tables, terrain)
    saves = dice.roll(f"{name}save", hits, 6, f"saving throws: {hits} D6, saved on more than {tdf} ({terrain})")
    killed = sum(1 for d in saves if not t.saved(data.tables, terrain, d))
    text = f"saves ({terrain}, TDF {tdf}) {_faces(saves)}: {killed} killed" if hits else ""
    info: dict[str, Any] = {"saves": list(saves), "tdf": tdf, "killed": killed}
    consequences: list[Event] = []
    unit = _live(state, uid)
    if unit is not None:
        state, more, lost = effects.losses(data, state, unit.id, killed, rule)
        consequences += more
        unit = state.unit(unit.id)
        assert unit is not None  # losses() replaces the unit (eliminated at worst); units never leave the state
        info["lost"] = lost
        if lost:
            text += f"; {unit.id} loses {lost} (figures {unit.figures}, grade {unit.grade})"
        text = text.lstrip("; ")
        if morale and unit.in_action:
            state, line, minfo, more = morale_check(data, state, dice, unit.id,
                                                    position=terrain if position is None else position,
                                                    officer=officer, name=f"{name}morale")
            text = f"{text}; {line}" if text else line
            info["morale"] = minfo
            consequences += more
    return state, text, info, consequences


def morale_check(data: CalumpitData, state: CalumpitState, dice: Dice, uid: str, *, position: str = "",
                 officer: bool = False, extra: int = 0, escalate: bool = False, name: str = "morale",
                 grade: int | None = None, nationality: str = "") -> tuple[CalumpitState, str, dict[str, Any], list[Event]]:
    """Morale: D20 + modifiers <= MORALE GRADE; a failure rolls a D6 on the
    nationality's result list (Hand to hand: pinned -> retreat -> rout)."""
    unit = state.unit(uid) if uid else None
    grade = unit.grade if unit is not None else grade
    nationality = unit.nationality if unit is not None else nationality
    # the callers pass a tracked unit's id, or (a morale order with no unit) the grade orders.py requires then
    assert grade is not None, f"morale check of {uid!r}: not a unit pbem tracks, and no grade given"
    mod = t.morale_modifier(data.tables, position, officer, extra)
    who = uid or f"a {nationality} unit"
    natural = dice.one(name, data.tables["morale"]["sides"], f"morale check of {who} (D20 <= {grade - mod} passes)")
    info: dict[str, Any] = {"die": natural, "modifier": mod, "grade": grade}
    if t.morale_passes(grade, natural, mod):
        info["passed"] = True
        return state, f"morale D20 {natural}{mod:+d} = {natural + mod} <= {grade}: passes", info, []
    face = dice.one(f"{name}-result", 6, f"failed morale of {who}: result (D6)")
    result = data.failed_morale(nationality, face)
    shown = result
    if escalate:
        result = t.escalate(data.tables, result)
        shown = f"{shown} treated as {result}" if result != shown else shown
    info.update(passed=False, result_die=face, result=result)
    text = f"morale D20 {natural}{mod:+d} = {natural + mod} > {grade}: fails, D6 {face}: {shown}"
    consequences: list[Event] = []
    if unit is not None:
        state, consequences = effects.morale_outcome(data, state, uid, result, "MORALE")
    else:
        text += f" ({data.morale_result_text(result)})"
    return state, text, info, consequences


# --------------------------------------------------------------------------- MOVEMENT


def check_move(data, state, side, order, queued):
    if t.movement_prohibited(data.tables, order["kind"], order.get("terrain", "open")):
        raise illegal("MOVEMENT", f"{order['kind']}s are prohibited from {order.get('terrain')}")
    if order.get("unit"):
        _unit(state, order["unit"], "MOVEMENT", queued=queued)


def run_move(data, state, side, order, dice):
    kind, terrain = order["kind"], order.get("terrain", "open")
    spec = data.tables["movement"]["kinds"][kind]
    values = dice.roll("move", spec["dice"], spec["sides"], f"{kind} movement ({spec['dice']}D{spec['sides']}+{spec['plus']})")
    mod = state.co_movement if order.get("co") else 0
    distance = t.movement(data.tables, kind, terrain, values, mod)
    who = order.get("unit") or f"a{'n' if kind[0] in 'aeiou' else ''} {kind} unit"
    parts = f"{spec['dice']}D{spec['sides']} {_faces(values)}" + (f" + {spec['plus']}" if spec["plus"] else "")
    if mod:
        parts += f" {mod:+d} (the C/O's ankle)"
    halved = ", halved" if terrain in data.tables["movement"]["half"] else ""
    text = f"{who} moves up to {t.inches(distance)} through {terrain} ({parts}{halved})"
    return state, [Event("MOVEMENT", text, {"unit": order.get("unit", ""), "kind": kind, "terrain": terrain,
                                             "dice": list(values), "inches": distance})]


# --------------------------------------------------------------------------- DIRECT FIRE


def check_fire(data, state, side, order, queued):
    shooter = None
    for who in ("unit", "target"):
        if order.get(who):
            found = _unit(state, order[who], "DIRECT FIRE", queued=queued)
            shooter = found if who == "unit" else shooter
    if order["weapon"] == "rifle" and not _nationality(state, order, side) and order.get("unit") not in queued:
        raise illegal("DIRECT FIRE", "rifle fire rolls one D20 per 5 figures (6 for the Philippine Army): "
                                     "give the squad's nationality or its unit")
    if order["weapon"] == "rifle" and shooter is not None and order["figures"] > shooter.figures:
        per = data.tables["direct_fire"]["figures_per_die"][_nationality(state, order, side)]
        raise _refuse("DIRECT FIRE", "figures", f"figures = {order['figures']}, but {shooter.id} has only "
                      f"{shooter.figures} figures (RIFLE squads roll one D20 for every {per} figures of the squad)")


def run_fire(data, state, side, order, dice):
    tb = data.tables
    weapon, distance = order["weapon"], order["range"]
    nationality = _nationality(state, order, side) or "scouts"
    needed = t.hit_number(tb, weapon, distance)
    mod = t.fire_modifier(tb, order)
    figures = order.get("figures", 0)
    shooter_unit = _live(state, order.get("unit"))
    if weapon == "rifle" and shooter_unit is not None:
        figures = min(figures, shooter_unit.figures)  # men it lost since the order was given do not fire
    n = t.shots(tb, weapon, figures=figures, targets=order.get("targets", 0),
                area=order.get("area", 2), nationality=nationality)
    rolls = dice.roll("hit", n, 20, f"direct fire, {weapon}: {n} D20, hits on {needed}{'+' if needed < 20 else ''}"
                      + (f" ({mod:+d})" if mod else ""))
    marks = [t.d20_hits(tb, r, mod, needed) for r in rolls]
    per = t.shots_per_target(tb, weapon, order.get("area", 2))
    if tb["direct_fire"]["weapons"][weapon]["shots"] == "area":
        hits = sum(1 for i in range(0, len(marks), per) if any(marks[i:i + per]))  # a figure is hit at most once
    else:
        hits = sum(marks)
    target = _live(state, order.get("target"))
    if target is not None:
        hits = min(hits, target.figures)
    state, saves, info, more = take_fire(data, state, dice, target.id if target else None, hits, order["terrain"],
                                         "DIRECT FIRE", morale=order.get("morale", True) and target is not None,
                                         officer=order.get("officer", False))
    shooter = order.get("unit") or WEAPON_NAMES[weapon]
    at = f" at {target.id}" if target else (f" at {order['target']}" if order.get("target") else "")
    how = (f"{figures} figures, " if weapon == "rifle" else
           f"{order.get('targets')} targets in {order.get('area', 2)} sq in, " if weapon in ("hmg", "lmg", "smg") else "")
    rng = f"TARGET RANGE {t.target_range(tb, distance)}, " if weapon != "sniper" else ""
    text = (f"{shooter} ({weapon.upper() if weapon.endswith('mg') else weapon}, {how}{n} D20) fires{at} at {distance} inches: {rng}hits on {needed}"
            + (f" {mod:+d}" if mod else "") + f": {_faces(rolls)}: {hits} hit(s)" + (f"; {saves}" if saves else ""))
    return state, [Event("DIRECT FIRE", text, {"weapon": weapon, "range": distance, "needed": needed, "modifier": mod,
                                               "rolls": list(rolls), "hits": hits, **info,
                                               "target": order.get("target", "")})] + more


# --------------------------------------------------------------------------- SAVING THROWS


def check_save(data, state, side, order, queued):
    if order.get("unit"):
        _unit(state, order["unit"], "SAVING THROWS", queued=queued)


def run_save(data, state, side, order, dice):
    unit = _live(state, order.get("unit"))
    hits = order["hits"] if unit is None else min(order["hits"], unit.figures)
    state, text, info, more = take_fire(data, state, dice, unit.id if unit else None, hits, order["terrain"],
                                        "SAVING THROWS", morale=order.get("morale", False), officer=order.get("officer", False))
    who = f"{unit.id}: " if unit else ""
    return state, [Event("SAVING THROWS", f"{who}{hits} figure(s) hit" + (f": {text}" if text else ""), {"hits": hits, **info})] + more


# --------------------------------------------------------------------------- INDIRECT FIRE


def check_indirect(data, state, side, order, queued):
    spec = data.tables["indirect_fire"]["weapons"][order["weapon"]]
    rounds = order.get("rounds", spec["rounds"])
    if rounds > spec["rounds"]:
        raise illegal("INDIRECT FIRE", f"a {order['weapon']} fires {spec['rounds']} rounds a turn, not {rounds}")
    if order.get("unit"):
        unit = _unit(state, order["unit"], "INDIRECT FIRE", queued=queued)
        if unit is not None:
            if unit.fired + rounds > spec["rounds"]:
                raise illegal("INDIRECT FIRE", f"{unit.id} has fired {unit.fired} of its {spec['rounds']} rounds this turn")
            if unit.ammo is not None and unit.ammo < rounds:
                raise illegal("AMMO", f"{unit.id} has {unit.ammo} rounds left, not {rounds}")


def run_indirect(data, state, side, order, dice):
    weapon = order["weapon"]
    spec = data.tables["indirect_fire"]["weapons"][weapon]
    rounds = order.get("rounds", spec["rounds"])
    unit = _live(state, order.get("unit"))
    note = ""
    if unit is not None:
        rounds = min(rounds, spec["rounds"] - unit.fired, rounds if unit.ammo is None else unit.ammo)
        if rounds <= 0:
            return state, [Event("AMMO", f"{unit.id} cannot fire: no rounds left this turn", {"unit": unit.id})]
        ammo = None if unit.ammo is None else unit.ammo - rounds
        state = state.with_unit(replace(unit, fired=unit.fired + rounds, ammo=ammo))
        note = f"; {unit.id} has {ammo} rounds left" if ammo is not None else ""
    ind = data.tables["indirect_fire"]
    dirs = dice.roll("direction", rounds, ind["direction_sides"], f"{weapon}: direction of {rounds} round(s) (D12 each)")
    dists = dice.roll("distance", rounds, ind["distance_sides"], f"{weapon}: distance of {rounds} round(s) (D6 each)")
    duds = dice.roll("misfire", rounds, 6, "Stokes misfires (D6 each, 1-4 fails to detonate)") if spec.get("misfire") else ()
    parts, info = [], []
    for i in range(rounds):
        dud = bool(duds) and t.misfires(data.tables, weapon, duds[i])
        parts.append(f"{t.inches(dists[i])} at {t.clock(dirs[i])}" + (f" (misfire D6 {duds[i]}: fails to detonate)" if dud else ""))
        info.append({"direction": dirs[i], "inches": dists[i], "dud": dud})
    shooter = order.get("unit") or f"a {weapon}"
    at = f" on {order['at']}" if order.get("at") else ""
    text = (f"{shooter} fires {rounds} round(s){at} (burst radius {t.inches(spec['radius'])}): " + ", ".join(parts)
            + f"{note}; count the figures inside each burst (burst order, weapon {weapon})")
    return state, [Event("INDIRECT FIRE", text, {"weapon": weapon, "rounds": info, "radius": spec["radius"],
                                                  "unit": order.get("unit", "")})]


def check_burst(data, state, side, order, queued):
    if order.get("unit"):
        _unit(state, order["unit"], "INDIRECT FIRE", queued=queued)


def run_burst(data, state, side, order, dice):
    weapon = order["weapon"]
    faces = data.tables["bursts"][weapon]["kill_faces"]
    unit = _live(state, order.get("unit"))
    figures = order["figures"] if unit is None else min(order["figures"], unit.figures)
    rolls = dice.roll("kill", figures, 6, f"{weapon} burst: {figures} D6, hit on {', '.join(map(str, faces))}")
    hits = t.burst_hits(data.tables, weapon, rolls)
    terrain = t.burst_save_terrain(data.tables, weapon, order["terrain"])
    rule = "HAND-GRENADES" if weapon.startswith("grenade") else "INDIRECT FIRE"
    state, saves, info, more = take_fire(data, state, dice, unit.id if unit else None, hits, terrain, rule,
                                         morale=order.get("morale", True), officer=order.get("officer", False),
                                         position=order["terrain"])
    who = f" of {unit.id}" if unit else ""
    text = f"{weapon} burst: {figures} figure(s){who} inside, D6 {_faces(rolls)}: {hits} hit" + (f"; {saves}" if saves else "")
    return state, [Event(rule, text, {"weapon": weapon, "figures": figures, "rolls": list(rolls), "hits": hits, **info})] + more


# --------------------------------------------------------------------------- HAND-GRENADES


def check_grenade(data, state, side, order, queued):
    for who in ("unit", "target"):
        if order.get(who):
            _unit(state, order[who], "HAND-GRENADES", queued=queued)
    if order.get("new_type") and state.grenades <= 0:
        raise illegal("HAND-GRENADES", "there are no new type grenades (Spades 3 brings 48 to the depot)")


def run_grenade(data, state, side, order, dice):
    g = data.tables["grenades"]
    nationality = _nationality(state, order, side) or "us"
    japanese = nationality == "japanese"
    new_type = bool(order.get("new_type")) and state.grenades > 0
    if new_type:
        state = replace(state, grenades=state.grenades - 1)
    thrower = order.get("unit") or f"a{'' if japanese else 'n'} {'Japanese' if japanese else 'American'} thrower"
    head = f"{thrower} throws a {'new type ' if new_type else ''}grenade {order['range']} inches"
    info: dict[str, Any] = {"range": order["range"], "nationality": nationality, "new_type": new_type}
    if not japanese and not new_type:
        dud = dice.one("dud", 6, "American grenade: does it arm? (D6, even fails)")
        info["dud_die"] = dud
        if t.grenade_dud(data.tables, dud):
            return state, [Event("HAND-GRENADES", f"{head}: D6 {dud} is even: it fails to detonate", {**info, "dud": True})]
        head += f" (arms: D6 {dud})"
    direction = dice.one("direction", g["direction_sides"], "grenade dispersal direction (D12)")
    miss = dice.one("miss", g["miss_sides"], "grenade miss distance (D6)")
    modified, off = t.grenade_miss(data.tables, order["range"], miss)
    info.update(direction=direction, miss_die=miss, modified=modified, off=off)
    weapon = "grenade-japanese" if japanese else "grenade-american"
    if off:
        text = (f"{head}: D12 {direction}, miss D6 {miss} (modified: {modified}): lands {t.inches(off)} off target at "
                f"{t.clock(direction)}; count the figures inside its {t.inches(g['burst_diameter'])} burst (burst order, "
                f"weapon {weapon})")
        return state, [Event("HAND-GRENADES", text, info)]
    target = _live(state, order.get("target"))
    figures = order.get("figures", 0) if target is None else min(order.get("figures", 0), target.figures)
    faces = data.tables["bursts"][weapon]["kill_faces"]
    rolls = dice.roll("kill", figures, 6, f"grenade burst: {figures} D6, hit on {', '.join(map(str, faces))}")
    hits = t.burst_hits(data.tables, weapon, rolls)
    state, saves, sinfo, more = take_fire(data, state, dice, target.id if target else None, hits, "open",
                                          "HAND-GRENADES", morale=order.get("morale", True) and target is not None,
                                          officer=order.get("officer", False), position="")
    who = f" of {target.id}" if target else ""
    text = (f"{head}: miss D6 {miss} (modified: {modified}): on target; {figures} figure(s){who} in the burst, "
            f"D6 {_faces(rolls)}: {hits} hit" + (f"; {saves} (saves as in the open)" if saves else ""))
    return state, [Event("HAND-GRENADES", text, {**info, "figures": figures, "rolls": list(rolls), "hits": hits, **sinfo})] + more


# --------------------------------------------------------------------------- TANK FIRE ACTIONS


def _vehicle(state, order):
    if order.get("vehicle"):
        return order["vehicle"]
    unit = state.unit(order["target"]) if order.get("target") else None
    return unit.target if unit is not None else ""


def check_tankfire(data, state, side, order, queued):
    last = data.tables["tank_fire"]["columns"][-1]
    if order["range"] > last:
        raise illegal("TANK FIRE ACTIONS", f"the table ends at {last} inches; {order['range']} is out of range")
    for who in ("unit", "target"):
        if order.get(who):
            _unit(state, order[who], "TANK FIRE ACTIONS", queued=queued)
    if not _vehicle(state, order) and order.get("target") not in queued:
        raise illegal("TANK FIRE ACTIONS", "say what is fired at: vehicle = one of "
                      + ", ".join(data.tables["tank_fire"]["targets"]))


def run_tankfire(data, state, side, order, dice):
    tb = data.tables
    gun, vehicle = order["gun"], _vehicle(state, order) or "vehicle"
    shot = t.tank_shot(tb, gun, order["range"], order)
    roll = dice.one("hit", 100, f"{tb['tank_fire']['guns'][gun]['name']} shot: d100 <= {shot.chance}% hits")
    hit = roll <= shot.chance
    spec = tb["tank_fire"]["targets"][vehicle]
    column = tb["tank_fire"]["columns"][shot.column]
    shooter = order.get("unit") or tb["tank_fire"]["guns"][gun]["name"]
    at = f"{order['target']} ({spec['name']})" if order.get("target") else spec["name"]
    text = (f"{shooter} fires at {at} at {order['range']} inches ({column}\" column {shot.base}%"
            + (f" {shot.modifier:+d}%" if shot.modifier else "") + f" = {shot.chance}%): d100 {roll}: "
            + ("hit" if hit else "miss"))
    info: dict[str, Any] = {"gun": gun, "vehicle": vehicle, "chance": shot.chance, "roll": roll, "hit": hit}
    if hit and spec.get("effects", True):
        n = spec["crew"] + 2
        faces = dice.roll("effects", n, 6, f"hit effects: {spec['crew']} crew, engine, fire (D6 each, 5-6 hits)")
        eff = t.hit_effects(tb, gun, vehicle, faces)
        info.update(effect_dice=list(faces), **eff)
        text += (f"; effects D6 {_faces(faces[:spec['crew']])} | {faces[spec['crew']]} | {faces[spec['crew'] + 1]} "
                 f"({eff['modifier']:+d}): {eff['crew_hit']} of {spec['crew']} crew hit, engine "
                 f"{'knocked out' if eff['engine'] else 'unharmed'}, {'on fire' if eff['fire'] else 'no fire'}")
    elif hit:
        text += f" on the {spec['name']}"
    return state, [Event("TANK FIRE ACTIONS", text, info)]


# --------------------------------------------------------------------------- HAND-TO-HAND


def check_melee(data, state, side, order, queued):
    a = _unit(state, order["attacker"], "HAND-TO-HAND", queued=queued)
    d = _unit(state, order["defender"], "HAND-TO-HAND", queued=queued)
    if a is not None and d is not None and a.side == d.side:
        raise illegal("HAND-TO-HAND", f"{a.id} and {d.id} are on the same side")
    pairs = order["pairs"]
    count = pairs if isinstance(pairs, int) else len(pairs)
    for u in (a, d):
        if u is not None and count > u.figures:
            raise illegal("HAND-TO-HAND", f"{count} pairs, but {u.id} has only {u.figures} figures (figure for figure)")


def _pair_mods(data, unit: Unit, words: list[str]) -> tuple[int, list[str]]:
    words = list(words)
    if unit.nationality == "us" and "american" not in words:
        words.append("american")
    if unit.fights and "second" not in words:
        words.append("second")
    mods = data.tables["hand_to_hand"]["modifiers"]
    return sum(mods[w] for w in words), words


def run_melee(data, state, side, order, dice):
    rule = "HAND-TO-HAND"
    h2h = data.tables["hand_to_hand"]
    a, d = _live(state, order["attacker"]), _live(state, order["defender"])
    if a is None or d is None:
        gone = order["attacker"] if a is None else order["defender"]
        return state, [Event(rule, f"no hand to hand: {gone} is no longer in action", {})]
    head = f"{a.id} assaults {d.id}"
    parts: list[str] = []
    info: dict[str, Any] = {"attacker": a.id, "defender": d.id}
    consequences: list[Event] = []
    # 1. the defender tests morale adding five; pinned -> retreat, retreat -> rout
    state, line, mi, more = morale_check(data, state, dice, d.id, position=order.get("defender_in", ""),
                                         officer=order.get("defender_officer", False), extra=h2h["defender_morale"],
                                         escalate=True, name="defender-morale")
    parts.append(f"defender {line}")
    info["defender_morale"] = mi
    consequences += more
    if not mi["passed"]:
        return state, [Event(rule, f"{head}: " + "; ".join(parts) + " -- no fight", info)] + consequences
    # 2. the attacker tests morale adding five, and reacts as normal
    state, line, mi, more = morale_check(data, state, dice, a.id, position=order.get("attacker_in", ""),
                                         officer=order.get("attacker_officer", False), extra=h2h["attacker_morale"],
                                         name="attacker-morale")
    parts.append(f"attacker {line}")
    info["attacker_morale"] = mi
    consequences += more
    if not mi["passed"]:
        return state, [Event(rule, f"{head}: " + "; ".join(parts) + " -- no fight", info)] + consequences
    # 3. figure against figure: one D6 each, high roll wins, loser KIA
    pairs = order["pairs"]
    pairs = [[[], []] for _ in range(pairs)] if isinstance(pairs, int) else [
        [side.split() for side in pair.split("vs")] for pair in pairs]
    lost = {a.id: 0, d.id: 0}
    fights = []
    for i, (aw, dw) in enumerate(pairs, 1):
        amod, awords = _pair_mods(data, a, aw)
        dmod, dwords = _pair_mods(data, d, dw)
        tries = []
        k = 0
        while True:
            x, y = dice.roll(f"pair-{i}" + (f"-again-{k}" if k else ""), 2, h2h["die_sides"], f"hand to hand pair {i}: attacker's and defender's D6")
            tries.append([x, y])
            if x + amod != y + dmod or k == MAX_TIES:
                break
            k += 1
        if x + amod == y + dmod:  # MAX_TIES ties in a row: the pair stands off
            fights.append({"attacker": awords, "defender": dwords, "rolls": tries, "loser": ""})
            parts.append(f"pair {i}: {x}{amod:+d} vs {y}{dmod:+d} after {k} ties: no result")
            continue
        loser = d.id if x + amod > y + dmod else a.id
        lost[loser] += 1
        fights.append({"attacker": awords, "defender": dwords, "rolls": tries, "loser": loser})
        parts.append(f"pair {i}: {x}{amod:+d} vs {y}{dmod:+d}" + (f" (after {k} tie(s))" if k else "") + f", {loser} loses a man")
    info["pairs"] = fights
    for unit in (a, d):
        state = state.with_unit(replace(state.unit(unit.id), fights=state.unit(unit.id).fights + 1))
    for uid in (a.id, d.id):
        state, more, _ = effects.losses(data, state, uid, lost[uid], rule)
        consequences += more
    # 4. both sides test morale: pinned -> retreat, retreat -> rout
    for role, uid in (("attacker", a.id), ("defender", d.id)):
        unit = state.unit(uid)
        if not unit.in_action:
            continue
        state, line, mi, more = morale_check(data, state, dice, uid, position=order.get(f"{role}_in", ""),
                                             officer=order.get(f"{role}_officer", False), escalate=True,
                                             name=f"{role}-after")
        parts.append(f"{role} after the fight: {line}")
        info[f"{role}_after"] = mi
        consequences += more
    text = f"{head}: " + "; ".join(parts) + f"; KIA: {a.id} {lost[a.id]}, {d.id} {lost[d.id]}"
    info["kia"] = lost
    return state, [Event(rule, text, info)] + consequences


# --------------------------------------------------------------------------- MORALE, losses, status, ammunition


def check_morale(data, state, side, order, queued):
    if order.get("unit"):
        _unit(state, order["unit"], "MORALE", queued=queued)


def run_morale(data, state, side, order, dice):
    unit = _live(state, order.get("unit"))
    if order.get("unit") and unit is None:
        return state, [Event("MORALE", f"{order['unit']} is no longer in action", {})]
    state, line, info, more = morale_check(data, state, dice, unit.id if unit else "", position=order.get("position", ""),
                                           officer=order.get("officer", False), extra=order.get("modifier", 0),
                                           grade=order.get("grade"), nationality=order.get("nationality", ""))
    who = unit.id if unit else f"a {order['nationality']} unit (grade {order['grade']})"
    return state, [Event("MORALE", f"{who}: {line}", {"unit": order.get("unit", ""), **info})] + more


def check_loss(data, state, side, order, queued):
    _unit(state, order["unit"], "MORALE", queued=queued)


def run_loss(data, state, side, order, dice):
    uid = order["unit"]
    before = state.unit(uid)
    state, more, men = effects.losses(data, state, uid, order.get("men", 0), "MORALE", weapons=order.get("weapons", 0),
                                      sergeants=order.get("sergeants", 0))
    after = state.unit(uid)
    lost = [f"{n} {one if n == 1 else many}" for n, one, many in (
        (men, "man", "men"), (order.get("weapons", 0), "squad weapon", "squad weapons"),
        (order.get("sergeants", 0), "sergeant", "sergeants")) if n]
    text = (f"{uid} loses {', '.join(lost) or 'nothing'}: MORALE GRADE {before.grade} -> {after.grade}, "
            f"{after.figures} figures")
    return state, [Event("MORALE", text, {"unit": uid, "grade": after.grade, "figures": after.figures})] + more


def check_status(data, state, side, order, queued):
    _unit(state, order["unit"], "SEQUENCE", queued=queued, in_action=False)


def run_status(data, state, side, order, dice):
    state, evs = effects.set_status(data, state, order["unit"], order["status"], "SEQUENCE", "reported")
    return state, evs or [Event("SEQUENCE", f"{order['unit']} is already {order['status']}", {})]


def check_ammo(data, state, side, order, queued):
    unit = _unit(state, order["unit"], "AMMO", queued=queued)
    if unit is not None and unit.ammo is None:
        raise illegal("AMMO", f"{unit.id} has no counted ammunition")


def run_ammo(data, state, side, order, dice):
    unit = state.unit(order["unit"])
    state = state.with_unit(replace(unit, ammo=unit.ammo + order["rounds"]))
    return state, [Event("AMMO", f"{unit.id} replenishes {order['rounds']} rounds: {unit.ammo + order['rounds']} left",
                         {"unit": unit.id, "ammo": unit.ammo + order["rounds"]})]


def check_add(data, state, side, order, queued):
    if state.unit(order["unit"]) is not None or queued.count(order["unit"]) > 0:
        raise illegal("SEQUENCE", f"unit id {order['unit']!r} is taken")


def run_add(data, state, side, order, dice):
    ut = UnitType(order["unit"], order.get("name", order["unit"]), order["side"], order["nationality"], order["kind"],
                  order["figures"], officer=order.get("officer", False), target=order.get("vehicle", ""))
    unit = replace(effects.new_unit(data, ut, order["unit"], arrived=state.turn), ammo=order.get("ammo"), type="")
    state = state.with_unit(unit)
    return state, [Event("SEQUENCE", f"{unit.id} ({unit.name}, {unit.nationality} {unit.kind}, {unit.figures} figures) "
                         f"is on the table for the {unit.side} side", {"unit": unit.id})]


# --------------------------------------------------------------------------- VISIBILITY/SPOTTING


def run_spot(data, state, side, order, dice):
    vehicle = order["kind"] in ("tank", "vehicle")
    result = t.spotting(data.tables, vehicle=vehicle, in_jungle=order.get("in_jungle", False),
                        in_los=order.get("in_los", False), moved_or_fired=order.get("moved_or_fired", False),
                        distance=order.get("distance", 0))
    heard = data.tables["spotting"]["heard_inches"]
    why = {"spotted": "it fired or moved in the enemy's line-of-sight",
           "heard": f"a vehicle out of line-of-sight within {heard} inches is heard",
           "unseen": "in jungle, or neither moving nor firing in sight" + (
               "" if not vehicle else f"; a vehicle is heard only out of line-of-sight within {heard} inches")}[result]
    return state, [Event("VISIBILITY/SPOTTING", f"the {order['kind']} is {result}: {why}", {"result": result})]


# --------------------------------------------------------------------------- VICTORY CONDITIONS, the Joker, calls, draws


def run_report(data, state, side, order, dice):
    facts = []
    if "japanese_at_bridge" in order:
        state = state.with_fact("japanese_at_bridge", "yes" if order["japanese_at_bridge"] else "no")
        facts.append("the Japanese " + ("have reached" if order["japanese_at_bridge"] else "have not reached") + " the bridge")
    if "americans" in order:
        state = state.with_fact("americans", order["americans"])
        facts.append(f"the Americans are on the {'North and South banks' if order['americans'] == 'both' else order['americans'].capitalize() + ' bank'}")
    if "destroyed" in order:
        b = state.bridge(order["destroyed"])
        state = state.with_bridge(replace(b, status="destroyed"))
        facts.append(f"{b.name} is destroyed")
    return state, [Event("VICTORY CONDITIONS", f"{side} reports: " + "; ".join(facts), {k: v for k, v in order.items() if k != "type"})]


def check_demolition(data, state, side, order, queued):
    if state.demolition != "owed":
        raise illegal("Joker", "no demolition attempt is due: the Joker has not been drawn, or this turn's attempt "
                               "was made" if state.demolition != "failed" else "the next attempt is made next turn")
    bridge = state.bridge(order.get("bridge", "road"))
    if bridge.status == "destroyed":
        raise illegal("Joker", f"{bridge.name} is already destroyed")


def run_demolition(data, state, side, order, dice):
    bridge = state.bridge(order.get("bridge", "road"))
    die = dice.one("demolition", data.tables["demolition"]["sides"], f"the engineers try to blow {bridge.name} (D6)")
    modified, outcome = t.demolition(data.tables, die, order)
    mods = [f"{k.replace('_', ' ')} {data.tables['demolition'][k]:+d}" for k in ("japanese_within_6", "friendly_on_bridge", "officer") if order.get(k)]
    head = f"the engineers try to blow {bridge.name}: D6 {die}" + (f" ({', '.join(mods)}) = {modified}" if mods else "")
    if outcome == "blown":
        state = replace(state.with_bridge(replace(bridge, status="destroyed")), demolition="")
        text = f"{head}: the explosives detonate, {bridge.name} is destroyed"
    elif outcome == "gave-up":
        state = replace(state, demolition="")
        text = f"{head}: a six -- the engineers give up"
    else:
        state = replace(state, demolition="failed")
        text = f"{head}: it fails; they try again next turn"
    return state, [Event("Joker", text, {"bridge": bridge.id, "die": die, "modified": modified, "outcome": outcome})]


def check_call(data, state, side, order, queued):
    mission = next((m for m in state.missions if m.id == order["mission"]), None)
    if mission is None:
        on_call = ", ".join(m.id for m in state.missions) or "none"
        raise illegal("INDIRECT FIRE", f"no fire mission {order['mission']!r} is on call (on call: {on_call})")
    if mission.calls_left <= 0:
        raise illegal(mission.rule, f"{mission.name}: every fire mission has been called")


def run_call(data, state, side, order, dice):
    mission = next(m for m in state.missions if m.id == order["mission"])
    mission = replace(mission, calls_left=mission.calls_left - 1)
    state = replace(state, missions=tuple(mission if m.id == mission.id else m for m in state.missions))
    later = mission.turns_per_call - (0 if mission.delay else 1)
    if later:
        first = state.turn + max(1, mission.delay)
        barrage = Barrage(name=f"{mission.id}-{state.turn}-{mission.calls_left}", rule=mission.rule, target=order["at"],
                          rounds=mission.rounds, direction=mission.direction, distance=mission.distance,
                          radius=mission.radius, first_turn=first, turns_left=later)
        state = replace(state, barrages=state.barrages + (barrage,))
    head = f"{side} calls {mission.name} on {order['at']}"
    if mission.delay:
        text = (f"{head}: {mission.rounds} rounds a turn for {mission.turns_per_call} turns from turn {state.turn + mission.delay} "
                f"(burst radius {t.inches(mission.radius)}); {mission.calls_left} call(s) left")
        return state, [Event(mission.rule, text, {"mission": mission.id})]
    state, landed, info = events.rounds_fall(data, state, dice, "rounds", rounds=mission.rounds,
                                             direction=mission.direction, distance=mission.distance)
    text = (f"{head}: {mission.rounds} rounds (burst radius {t.inches(mission.radius)}): {landed}; "
            f"{mission.calls_left} call(s) left")
    return state, [Event(mission.rule, text, {"mission": mission.id, **info})]


def _queued(state: CalumpitState, kind: str, **args: Any) -> int:
    """How many orders of ``kind`` with these ``args`` wait in the queue (each will use up what it was checked against)."""
    return sum(1 for task in state.tasks if task.kind == kind and all(task.args.get(k) == v for k, v in args.items()))


def check_draw(data, state, side, order, queued):
    """EVENT CARDS: a card's draw (Spades 4) is made by the player the card names."""
    deck = order["deck"]
    owed = [d for d in state.may_draw if d.deck == deck]
    if not owed:
        raise illegal("EVENT CARDS", f"no event allows a draw from the {deck} deck")
    mine = [d for d in owed if d.side == side]
    if not mine:
        d = owed[0]
        card = f"{data.card(d.card).name}: " if d.card in data.cards else ""
        raise illegal("EVENT CARDS", f"{card}the {d.side} player draws the {deck} card, not {side}")
    if len(mine) <= _queued(state, "draw", deck=deck):
        raise illegal("EVENT CARDS", f"the draw from the {deck} deck is already ordered")


def run_draw(data, state, side, order, dice):
    deck = order["deck"]
    due = next((d for d in state.may_draw if d.deck == deck and d.side == side), None)
    if due is None:
        return state, [Event("EVENT CARDS", f"no draw from the {deck} deck is owed any more", {"deck": deck})]
    index = state.may_draw.index(due)
    state = replace(state, may_draw=state.may_draw[:index] + state.may_draw[index + 1:])
    if not order.get("condition", True):
        card = f"{data.card(due.card).name}: " if due.card in data.cards else ""
        why = f" ({due.condition})" if due.condition else ""
        return state, [Event("EVENT CARDS", f"{card}the condition does not hold{why}: no {deck} card is drawn",
                             {"deck": deck, "card": due.card, "drawn": False})]
    return events.draw(data, state, dice, deck, "draw", "order")


# --------------------------------------------------------------------------- card snipers (Morale) and Hearts 10's spotter


def _sniped_shot(state: CalumpitState, sniper: str, skip: int = 0):
    shots = [s for s in state.sniped if s.sniper == sniper]
    return shots[skip] if len(shots) > skip else None


def check_sniped(data, state, side, order, queued):
    """Morale: "Morale is checked anytime a unit takes fire" -- a card sniper's
    oldest shot not yet resolved, at the unit the card names (or ``unit``)."""
    shot = _sniped_shot(state, order["sniper"], _queued(state, "sniped", sniper=order["sniper"]))
    if shot is None:
        owed = ", ".join(sorted({s.sniper for s in state.sniped})) or "none"
        raise _refuse("MORALE", "sniper", f"{order['sniper']} has fired no shot whose morale check is owed "
                                          f"(owed by the shots of: {owed})")
    if order.get("unit"):
        _unit(state, order["unit"], "MORALE", queued=queued)
    elif not shot.unit:
        raise _refuse("MORALE", "unit", f"the card names no unit pbem tracks; name the unit {shot.sniper} fired at")
    elif _live(state, shot.unit) is None:
        raise _refuse("MORALE", "unit", f"{shot.unit} is not in action; name the unit the shot hit")


def run_sniped(data, state, side, order, dice):
    shot = _sniped_shot(state, order["sniper"])
    if shot is None:
        return state, [Event("MORALE", f"{order['sniper']}'s shots are all resolved", {"sniper": order["sniper"]})]
    index = state.sniped.index(shot)
    state = replace(state, sniped=state.sniped[:index] + state.sniped[index + 1:])
    unit = _live(state, order.get("unit") or shot.unit)
    if unit is None:
        return state, [Event("MORALE", f"{order.get('unit') or shot.unit} is no longer in action", {"sniper": shot.sniper})]
    state, line, info, more = take_fire(data, state, dice, unit.id, 1 if shot.hit else 0, order["terrain"], "MORALE",
                                        morale=True, officer=order.get("officer", False), position=order.get("position"))
    text = f"{shot.sniper}'s shot at {unit.id} ({'hit' if shot.hit else 'miss'}): {line}"
    return state, [Event("MORALE", text, {"sniper": shot.sniper, "unit": unit.id, "hit": shot.hit, **info})] + more


def check_spotter(data, state, side, order, queued):
    if len(state.spotters) <= _queued(state, "spotter"):
        raise illegal("Hearts 10", "no spotter aircraft is circling")


def run_spotter(data, state, side, order, dice):
    """Hearts 10: "Aircraft will circle until driven off or shot down or fire mission is called"."""
    if not state.spotters:
        return state, [Event("Hearts 10", "no spotter aircraft is circling any more", {})]
    spotter, state = state.spotters[0], replace(state, spotters=state.spotters[1:])
    if order["result"] != "attack":
        said = order["result"].replace("-", " ")
        return state, [Event(spotter.rule, f"{side} reports the spotter aircraft is {said}: no artillery attack",
                             {"result": order["result"]})]
    return events.spotter_attack(data, state, dice, spotter, order.get("at") or spotter.target)


def run_done(data, state, side, order, dice):
    if side in state.done:
        return state, [Event("SEQUENCE", f"{side} had already finished turn {state.turn}", {})]
    state = replace(state, done=tuple(sorted(state.done + (side,))))
    waiting = [s for s in (AMERICAN, JAPANESE) if s not in state.done]
    text = f"{side} has moved and fired all its units in turn {state.turn}" + (
        f"; waiting for {waiting[0]}" if waiting else "; the turn ends")
    return state, [Event("SEQUENCE", text, {"side": side})]


def check_end(data, state, side, order, queued):
    if state.ending_by:
        raise illegal("VICTORY CONDITIONS", f"{state.ending_by} has already ended the game")


def run_end(data, state, side, order, dice):
    state = replace(state, ending_by=side)
    winner, why = effects.verdict_at_end(state)
    return state, [Event("VICTORY CONDITIONS", f"{side} ends the game ({why}); the reply closes it",
                         {"side": side, "winner": winner, "why": why})]


def _no_check(data, state, side, order, queued):
    return None


CHECKS: dict[str, Callable[..., None]] = {
    "move": check_move, "fire": check_fire, "save": check_save, "indirect": check_indirect, "burst": check_burst,
    "grenade": check_grenade, "tankfire": check_tankfire, "melee": check_melee, "morale": check_morale,
    "loss": check_loss, "status": check_status, "ammo": check_ammo, "add": check_add, "spot": _no_check,
    "report": _no_check, "demolition": check_demolition, "call": check_call, "draw": check_draw, "done": _no_check,
    "end": check_end, "sniped": check_sniped, "spotter": check_spotter,
}
RUNS: dict[str, Callable[..., tuple[CalumpitState, list[Event]]]] = {
    "move": run_move, "fire": run_fire, "save": run_save, "indirect": run_indirect, "burst": run_burst,
    "grenade": run_grenade, "tankfire": run_tankfire, "melee": run_melee, "morale": run_morale, "loss": run_loss,
    "status": run_status, "ammo": run_ammo, "add": run_add, "spot": run_spot, "report": run_report,
    "demolition": run_demolition, "call": run_call, "draw": run_draw, "done": run_done, "end": run_end,
    "sniped": run_sniped, "spotter": run_spotter,
}
