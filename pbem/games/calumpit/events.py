"""The turn's frame: EVENT CARDS at the start and end of each turn, the
cards' effects with their sub-rolls, the Japanese Attack Generation Table,
barrages and snipers that act every turn.

Everything here runs inside a task (see :mod:`pbem.engine.later`):
it asks for named rolls and returns the new state and the events, each a
concrete sentence citing the card or the table.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping

from pbem.engine.later import Dice
from pbem.engine.machine import Event
from pbem.games.calumpit import effects
from pbem.games.calumpit import tables as t
from pbem.games.calumpit.data import Card, CalumpitData, DiceSpec
from pbem.games.calumpit.state import (
    JAPANESE,
    RETREATING,
    SIDES,
    WITHDRAWING,
    Barrage,
    CalumpitState,
    DrawDue,
    Mission,
    Sniped,
    Spotter,
)

replace = dataclasses.replace
ROUTINE = ("no card: the American player may move, replenish ammo, prepare positions, run commo wire, "
           "dig in deeper, etc.")


# --------------------------------------------------------------------------- the turn (SEQUENCE)


def message_end(data: CalumpitData, state: CalumpitState, dice: Dice, side: str) -> tuple[CalumpitState, list[Event]]:
    """At the end of a message: turn 1 begins after message 0; a turn ends
    when both sides have moved and fired all their units; a game ended by
    one side closes with the other's reply."""
    if state.ending_by:
        if side != state.ending_by:
            winner, why = effects.verdict_at_end(state)
            verdict = (f"{winner.capitalize()} victory: {why}" if winner else f"no decision: {why}")
            state = replace(state, over=True, winner=winner or "none", verdict=verdict)
            return state, [Event("VICTORY CONDITIONS", f"{side} closes the game ended by {state.ending_by}: {verdict}",
                                 {"winner": state.winner, "why": why})]
        return state, []
    if state.turn == 0:
        return begin_turn(data, state, dice, 1)
    if not all(s in state.done for s in SIDES):
        return state, []
    events: list[Event] = [Event("SEQUENCE", f"turn {state.turn} ends: both sides have moved and fired all their units",
                                 {"turn": state.turn})]
    state, more = event_check(data, state, dice, "end")
    events += more
    if state.over:
        return state, events
    state, more = begin_turn(data, state, dice, state.turn + 1)
    return state, events + more


def begin_turn(data: CalumpitData, state: CalumpitState, dice: Dice, turn: int) -> tuple[CalumpitState, list[Event]]:
    units = tuple(
        replace(u, fights=0, fired=0, status="active" if u.status == "pinned" else u.status) for u in state.units
    )
    expired = [m for m in state.missions if m.last_turn < turn]
    state = replace(
        state,
        turn=turn,
        units=units,
        done=(),
        demolition="owed" if state.demolition == "failed" else state.demolition,
        missions=tuple(m for m in state.missions if m.last_turn >= turn),
    )
    events = [Event("SEQUENCE", f"turn {turn} begins", {"turn": turn})]
    events += [Event(m.rule, f"{m.name} is no longer on call", {"mission": m.id}) for m in expired]
    if state.demolition == "owed" and turn > 1:
        events.append(Event("Joker", "the engineers attempt to blow the bridge again this turn: give a demolition order"))
    state, more = event_check(data, state, dice, "start")
    events += more
    if state.over:
        return state, events
    state, more = fire_barrages(data, state, dice)
    events += more
    for unit in state.units:
        # "He will fire one shot a turn until eliminated" -- or until he withdraws, retreats or routs
        if (unit.kind == "sniper" and unit.side == JAPANESE and unit.in_action and unit.status not in RETREATING
                and unit.arrived < turn):
            state, more = sniper_shot(data, state, dice, unit.id, unit.name, f"sniper/{unit.id}")
            events += more
    return state, events


# --------------------------------------------------------------------------- EVENT CARDS


def event_check(data: CalumpitData, state: CalumpitState, dice: Dice, when: str) -> tuple[CalumpitState, list[Event]]:
    """EVENT CARDS: 2D6; 7 black, doubles red, 3/10/11 one of each."""
    moment = f"{'start' if when == 'start' else 'end'} of turn {state.turn}"
    a, b = dice.roll(f"{when}/check", 2, 6, f"event check, {moment} (2D6)")
    decks = t.event_check(data.tables, a, b)
    what = " and ".join(f"the {d} deck" for d in decks)
    text = f"{moment}: event check 2D6 {a} + {b} = {a + b}: " + (f"draw from {what}" if decks else ROUTINE)
    events = [Event("EVENT CARDS", text, {"when": when, "turn": state.turn, "dice": [a, b], "decks": list(decks)})]
    for deck in decks:
        state, more = draw(data, state, dice, deck, f"{when}/{deck}", when)
        events += more
        if state.over:
            break
    return state, events


def draw(data: CalumpitData, state: CalumpitState, dice: Dice, deck: str, name: str, when: str) -> tuple[CalumpitState, list[Event]]:
    """Draw one card lazily: the index is rolled over the cards left, and the card leaves the deck."""
    cards = state.deck(deck)
    if not cards:
        return state, [Event("EVENT CARDS", f"the {deck} deck is exhausted: no card is drawn", {"deck": deck})]
    index = dice.one(name, len(cards), f"draw from the {deck} deck ({len(cards)} cards left)") - 1 if len(cards) > 1 else 0
    card = data.card(cards[index])
    left = cards[:index] + cards[index + 1:]
    state = replace(state, **{deck: left}, drawn=state.drawn + ((card.id, state.turn, when),))
    event = Event(card.rule, f"{card.name} is drawn from the {deck} deck ({len(left)} left): {card.text}"
                  + (f" [{card.note}]" if card.note else ""),
                  {"card": card.id, "deck": deck, "index": index, "left": len(left), "when": when})
    state, more = play_card(data, state, dice, card)
    return state, [event] + more


def play_card(data: CalumpitData, state: CalumpitState, dice: Dice, card: Card) -> tuple[CalumpitState, list[Event]]:
    events: list[Event] = []
    context: dict[str, Any] = {}
    for i, effect in enumerate(card.effects):
        state, more = EFFECTS[effect["kind"]](data, state, dice, card, effect, f"{card.id}/{i}", context)
        events += more
        if state.over:
            break
    return state, events


# --------------------------------------------------------------------------- card effects


def _dice_total(dice: Dice, name: str, spec: DiceSpec, purpose: str) -> tuple[int, tuple[int, ...]]:
    values = dice.roll(name, spec.count, spec.sides, purpose)
    return sum(values) + spec.plus, values


def rounds_fall(data: CalumpitData, state: CalumpitState, dice: Dice, name: str, *, rounds: int, direction: str,
                distance: str, bridge: str = "", disable_hits: int = 0, explode_on: int = 0,
                what: str = "rounds") -> tuple[CalumpitState, str, dict[str, Any]]:
    """Dispersion of ``rounds`` (one direction die and one distance die each);
    direct hits on a bridge and the chance its explosives go off."""
    dspec, rspec = DiceSpec.parse(direction), DiceSpec.parse(distance)
    dirs = dice.roll(f"{name}/direction", rounds, dspec.sides, f"{what}: direction ({rounds}{dspec})")
    dists = dice.roll(f"{name}/distance", rounds, rspec.sides, f"{what}: distance ({rounds}{rspec})")
    landed = [(d, r + rspec.plus) for d, r in zip(dirs, dists, strict=True)]
    text = ", ".join(f"{t.inches(r)} at {t.clock(d)}" for d, r in landed)
    info: dict[str, Any] = {"rounds": [[d, r] for d, r in landed]}
    if bridge:
        spec = data.bridges[bridge]
        b = state.bridge(bridge)
        hits = [i + 1 for i, (d, r) in enumerate(landed)
                if r <= spec["half_width"] or (d in spec["axis"] and r <= spec["half_length"])]
        info["bridge_hits"] = hits
        if b.status == "destroyed":
            text += f"; {b.name} is already destroyed"
        elif hits:
            booms = dice.roll(f"{name}/explode", len(hits), 20, f"{b.name}: do the engineer explosives go off? (D20 each hit)")
            info["explosion_rolls"] = list(booms)
            total = b.hits + len(hits)
            if explode_on in booms:
                b = replace(b, hits=total, status="destroyed")
                text += (f"; {len(hits)} direct hit(s) on {b.name}; D20 {', '.join(map(str, booms))}: "
                         f"the engineer explosives go off and the bridge explodes")
            else:
                status = "disabled" if total >= disable_hits else "damaged"
                b = replace(b, hits=total, status=status)
                text += (f"; {len(hits)} direct hit(s) on {b.name} ({total} in all"
                         + (", the structure is disabled" if status == "disabled" else "")
                         + f"); explosives D20 {', '.join(map(str, booms))}: no explosion")
            state = state.with_bridge(b)
        else:
            text += f"; no direct hit on {b.name}"
        info["bridge_status"] = state.bridge(bridge).status
    return state, text, info


def _bombardment(data, state, dice, card: Card, e: Mapping[str, Any], name: str, context) -> tuple[CalumpitState, list[Event]]:
    delay = e.get("delay", 0)
    turns = e["turns"]
    rolled: tuple[int, ...]
    if isinstance(e["rounds"], int):
        rounds, rolled = e["rounds"], ()
    else:
        rounds, rolled = _dice_total(dice, f"{name}/rounds", DiceSpec.parse(e["rounds"]), f"{card.name}: number of rounds")
    later = turns - 1 if delay == 0 else turns
    first = state.turn + (1 if delay == 0 else delay)
    if later:
        state = replace(state, barrages=state.barrages + (Barrage(
            name=card.id, rule=card.rule, target=e["target"], rounds=rounds, direction=e["direction"],
            distance=e["distance"], radius=e["radius"], first_turn=first, turns_left=later, bridge=e.get("bridge", ""),
            disable_hits=e.get("disable_hits", 0), explode_on=e.get("explode_on", 0)),))
    data_out: dict[str, Any] = {"target": e["target"], "radius": e["radius"], "turns": turns}
    if rolled:
        data_out["rounds_roll"] = list(rolled)
    if delay:
        text = (f"{turns} turn(s) of {rounds} rounds on {e['target']} begin next turn "
                f"(burst radius {t.inches(e['radius'])})")
        return state, [Event(card.rule, text, data_out)]
    count = f"{rounds} rounds" + (f" ({DiceSpec.parse(e['rounds'])} {rolled[0]})" if rolled else "")
    state, landed, info = rounds_fall(data, state, dice, name, rounds=rounds, direction=e["direction"],
                                      distance=e["distance"], bridge=e.get("bridge", ""),
                                      disable_hits=e.get("disable_hits", 0), explode_on=e.get("explode_on", 0))
    text = (f"{count} fall on {e['target']} (burst radius {t.inches(e['radius'])}): {landed}"
            + (f"; {later} more turn(s) of {rounds} rounds follow" if later else ""))
    return state, [Event(card.rule, text, {**data_out, **info})]


def fire_barrages(data: CalumpitData, state: CalumpitState, dice: Dice) -> tuple[CalumpitState, list[Event]]:
    """Scheduled rounds of earlier cards and called missions fall at the start of the turn."""
    events: list[Event] = []
    kept = []
    for b in state.barrages:
        if b.first_turn > state.turn:
            kept.append(b)
            continue
        state, landed, info = rounds_fall(data, state, dice, f"barrage/{b.name}", rounds=b.rounds, direction=b.direction,
                                          distance=b.distance, bridge=b.bridge, disable_hits=b.disable_hits,
                                          explode_on=b.explode_on)
        left = b.turns_left - 1
        events.append(Event(b.rule, f"{b.rounds} rounds fall on {b.target} (burst radius {t.inches(b.radius)}): {landed}"
                            + (f"; {left} more turn(s) follow" if left else "; the last of them"),
                            {"target": b.target, "radius": b.radius, **info}))
        if left:
            kept.append(replace(b, turns_left=left))
        if state.over:
            break
    return replace(state, barrages=tuple(kept)), events


def _strafe(data, state, dice, card: Card, e, name, context):
    spec = DiceSpec.parse(e["extent"])
    extent, rolled = _dice_total(dice, f"{name}/extent", spec, f"{card.name}: how far the strafing run extends")
    text = (f"Japanese fighters strafe the road from {e['start']} {extent} inches to the {e['toward']} "
            f"({spec}: {'+'.join(map(str, rolled))}+{spec.plus}), {e['passes']} passes: a figure on the road is hit on a D6 of "
            f"{', '.join(map(str, e['road_hits']))}, one within {e['roadside_inches']} inches of it on "
            f"{', '.join(map(str, e['roadside_hits']))} (burst orders, weapon strafe-road / strafe-roadside, "
            f"then saves as normal); all units get one move between passes")
    return state, [Event(card.rule, text, {"start": e["start"], "toward": e["toward"], "inches": extent,
                                           "passes": e["passes"]})]


def _bombers(data, state, dice, card: Card, e, name, context):
    bombs, _ = _dice_total(dice, f"{name}/bombs", DiceSpec.parse(e["bombs"]), f"{card.name}: number of bombs")
    state, landed, info = rounds_fall(data, state, dice, name, rounds=bombs, direction=e["direction"],
                                      distance=e["distance"], what="bombs")
    radius = data.tables["bursts"]["bomb"].get("radius", 2)
    text = (f"high level bombers drop {bombs} bombs on {e['target']} (burst radius {t.inches(radius)}, burst order "
            f"weapon bomb): {landed}")
    return state, [Event(card.rule, text, {"target": e["target"], "bombs": bombs, **info})]


def _sniper(data, state, dice, card: Card, e, name, context):
    dist, _ = _dice_total(dice, f"{name}/distance", DiceSpec.parse(e["distance"]), f"{card.name}: sniper's distance")
    direc, _ = _dice_total(dice, f"{name}/direction", DiceSpec.parse(e["direction"]), f"{card.name}: sniper's direction")
    ut = data.event_units["sniper"]
    state, unit = effects.arrive(data, state, ut, arrived=state.turn)
    unit = replace(unit, name=f"Japanese sniper firing on {e['target']}", aim=e.get("unit", ""))
    state = state.with_unit(unit)
    events = [Event(card.rule, f"a Japanese sniper ({unit.id}) opens fire on {e['target']} from {dist} inches at "
                    f"{t.clock(direc)}; he fires one shot a turn until eliminated",
                    {"unit": unit.id, "target": e["target"], "inches": dist, "direction": direc})]
    state, more = sniper_shot(data, state, dice, unit.id, unit.name, f"{name}/shot")
    return state, events + more


def sniper_shot(data: CalumpitData, state: CalumpitState, dice: Dice, uid: str, name: str, roll_name: str) -> tuple[CalumpitState, list[Event]]:
    """DIRECT FIRE: "Snipers hit on a D20 roll of 15-20 regardless of range";
    then, hit or miss, the target's saving throw and morale check are owed
    ("Morale is checked anytime a unit takes fire"): the terrain and
    position they need are on the table, so a ``sniped`` order reports them."""
    needed = t.hit_number(data.tables, "sniper", 0)
    die = dice.one(roll_name, 20, f"{uid}'s shot (D20, hits on {needed}+)")
    hit = t.d20_hits(data.tables, die, 0, needed)
    target = name.split(" on ", 1)[-1]
    sniper = state.unit(uid)
    aim = sniper.aim if sniper is not None else ""
    state = replace(state, sniped=state.sniped + (Sniped(uid, target, aim, hit, state.turn),))
    who = aim or "the unit hit"
    owed = (f"{who} rolls its saving throw, then checks morale" if hit else
            f"{who} checks morale all the same, it took fire")
    text = (f"{uid} fires at {target}: D20 {die}: " + ("a figure is hit" if hit else "a miss")
            + f" -- {owed} (sniped order: sniper = \"{uid}\", terrain = where the target stands)")
    return state, [Event("DIRECT FIRE", text, {"unit": uid, "die": die, "hit": hit, "needed": needed, "aim": aim})]


def spotter_attack(data: CalumpitData, state: CalumpitState, dice: Dice, spotter: Spotter,
                   at: str) -> tuple[CalumpitState, list[Event]]:
    """Hearts 10: "Japanese make artillery attack on center of mass" -- the
    rounds, then each round's dispersion."""
    spec = DiceSpec.parse(spotter.rounds)
    rounds, rolled = _dice_total(dice, "spotter/rounds", spec, f"{spotter.rule}: number of rounds")
    state, landed, info = rounds_fall(data, state, dice, "spotter", rounds=rounds, direction=spotter.direction,
                                      distance=spotter.distance)
    text = (f"the spotter aircraft calls the fire mission: {rounds} rounds ({spec} {'+'.join(map(str, rolled))}) fall on "
            f"{at} (burst radius {t.inches(spotter.radius)}): {landed}; the aircraft stops circling")
    return state, [Event(spotter.rule, text, {"target": at, "radius": spotter.radius, "rounds_roll": list(rolled), **info})]


def _arrival(data, state, dice, card: Card, e, name, context):
    ut = data.event_units[e["unit"]]
    state, unit = effects.arrive(data, state, ut, arrived=state.turn)
    where = e["where"]
    if "opposite" in where and context.get("road"):
        where = f"{where} (the attack came down {context['road']})"
    text = f"{ut.name} ({unit.id}, {unit.figures} figures, {unit.side}) arrive: {where}"
    info: dict[str, Any] = {"unit": unit.id, "side": unit.side, "figures": unit.figures}
    if "distance" in e:
        dist, _ = _dice_total(dice, f"{name}/distance", DiceSpec.parse(e["distance"]), f"{card.name}: how far")
        text += f", setting up {dist} inches from {e['from']}"
        info["inches"] = dist
    return state, [Event(card.rule, text, info)]


def _jagt(data, state, dice, card: Card, e, name, context):
    """JAPANESE ATTACK GENERATION TABLE, then the JAT for each roll and the entry road."""
    die = dice.one(f"{name}/jagt", data.attack["jagt"]["sides"], "JAGT: how many rolls on the JAT (D10)")
    n = t.jagt_rolls(data.attack, die)
    rolls = dice.roll(f"{name}/jat", n, data.attack["jat"]["sides"], f"JAT: {n} roll(s) of a d20")
    road_die = dice.one(f"{name}/road", data.attack["entry"]["sides"], "Japanese entry road (D6)")
    road = t.entry_road(data, road_die)
    context["road"] = road
    state, force = effects.join_force(state, road)
    parts = []
    arrived = []
    for number, roll in enumerate(rolls, 1):
        rolled = t.jat_unit(data, number, roll)
        key = rolled
        order = data.jat_order
        start = order.index(rolled)
        for step in range(len(order)):
            key = order[(start + step) % len(order)]
            if effects.fieldable(data, state, key):
                break
        else:
            parts.append(f"roll {number} d20 {roll}: {data.jat_units[rolled].name}, but nothing can be fielded")
            continue
        ut = data.jat_units[key]
        state, unit = effects.arrive(data, state, ut, force=force.number, arrived=state.turn)
        arrived.append(unit.id)
        if key == rolled:
            parts.append(f"roll {number} d20 {roll}: {ut.name} ({unit.id})")
        else:
            parts.append(f"roll {number} d20 {roll}: {data.jat_units[rolled].name} are all in action, "
                         f"the next that can be fielded: {ut.name} ({unit.id})")
    text = (f"JAGT: D10 {die}: {n} roll(s) on the JAT -- " + "; ".join(parts)
            + f"; they enter on {road} (D6 {road_die}) and advance from the Jungle line down the road until engaged "
              f"by the enemy or an enemy unit is visible")
    return state, [Event("JAGT", text, {"die": die, "jat": list(rolls), "road": road, "road_die": road_die,
                                         "units": arrived, "force": force.number, "card": card.id})]


def _missions(data, state, dice, card: Card, e, name, context):
    last = state.turn + e["available_turns"] - 1
    mission = Mission(id=card.id, rule=card.rule, name=e["name"], calls_left=e["missions"], rounds=e["rounds"],
                      turns_per_call=e["turns_per_call"], delay=e["delay"], last_turn=last, direction=e["direction"],
                      distance=e["distance"], radius=e["radius"])
    state = replace(state, missions=tuple(m for m in state.missions if m.id != card.id) + (mission,))
    when = "the turn after it is called" if e["delay"] else "when called"
    text = (f"{e['name']} on call until the end of turn {last}: {e['missions']} fire mission(s) of {e['rounds']} rounds"
            + (f" a turn for {e['turns_per_call']} turns" if e["turns_per_call"] > 1 else "")
            + f", falling {when} (call order, mission = \"{card.id}\")")
    return state, [Event(card.rule, text, {"mission": card.id, "calls": e["missions"], "last_turn": last})]


def _withdraw(data, state, dice, card: Card, e, name, context):
    """Hearts Jack, Queen, King: the Japanese units of the kinds the card
    names (``kinds`` in cards.toml; "all": every unit) withdraw."""
    kinds = tuple(e["kinds"]) if "kinds" in e else {"tank": ("tank",), "infantry": ("infantry",), "all": None}[e["units"]]
    leaving = [u for u in state.units if u.side == JAPANESE and u.in_action and u.status != WITHDRAWING
               and (kinds is None or u.kind in kinds)]
    state = state.with_units(replace(u, status=WITHDRAWING) for u in leaving)
    what = {"tank": "tank units", "infantry": "infantry units", "all": "units"}[e["units"]]
    text = (f"all Japanese {what} withdraw: {', '.join(u.id for u in leaving)}" if leaving
            else f"no Japanese {what} are in action to withdraw")
    return state, [Event(card.rule, text, {"units": [u.id for u in leaving]})]


def _banzai(data, state, dice, card: Card, e, name, context):
    charging = [u for u in state.units if u.side == JAPANESE and u.in_action]
    state = state.with_units(replace(u, status="banzai") for u in charging)
    text = (f"all Japanese units attack in an all out Banzai charge: {', '.join(u.id for u in charging)}" if charging
            else "no Japanese units are in action")
    return state, [Event(card.rule, text, {"units": [u.id for u in charging]})]


def _grenades(data, state, dice, card: Card, e, name, context):
    state = replace(state, grenades=state.grenades + e["count"])
    return state, [Event(card.rule, f"{e['count']} new type grenades wait at the depot ({state.grenades} in all): "
                         f"throw them with grenade orders, new_type = true", {"grenades": state.grenades})]


def _may_draw(data, state, dice, card: Card, e, name, context):
    """Spades 4: "if there are vehicles in the open draw a red card" -- owed
    by the side the card's player is until drawn, or until that side reports
    the condition does not hold; it outlasts the turn it was drawn in."""
    side = e.get("side", "american")
    state = replace(state, may_draw=state.may_draw + (DrawDue(e["deck"], side, card.id, e["condition"]),))
    return state, [Event(card.rule, f"{e['condition']}, the {side.capitalize()} player must draw a {e['deck']} card "
                         f"(draw order, deck = \"{e['deck']}\"; if not, the same order with condition = false)",
                         {"deck": e["deck"], "side": side})]


def _spotter(data, state, dice, card: Card, e, name, context):
    """Hearts 10: the aircraft circles; its attack waits for the condition
    to be reported on the table (order ``spotter``)."""
    spotter = Spotter(card.id, card.rule, e["condition"], e["target"], e["rounds"], e["direction"], e["distance"],
                      e["radius"], state.turn)
    state = replace(state, spotters=state.spotters + (spotter,))
    text = (f"a Japanese spotter aircraft circles overhead: {e['condition']}, the Japanese make an artillery attack on "
            f"{e['target']} ({DiceSpec.parse(e['rounds'])} rounds, {DiceSpec.parse(e['distance'])} inches "
            f"{DiceSpec.parse(e['direction'])} direction, burst radius {t.inches(e['radius'])}: spotter order, result = "
            f"attack); it circles until driven off or shot down or the fire mission is called (result = driven-off / "
            f"shot-down)")
    return state, [Event(card.rule, text, {"card": card.id, "condition": e["condition"]})]


def _movement(data, state, dice, card: Card, e, name, context):
    state = replace(state, co_movement=state.co_movement + e["modifier"])
    return state, [Event(card.rule, f"the C/O's personal movement rate changes by {e['modifier']} inches "
                         f"(move orders with co = true)", {"co_movement": state.co_movement})]


def _phones(data, state, dice, card: Card, e, name, context):
    phones = "out" if e["set"] == "out" or state.phones == "in service" else "in service"
    state = replace(state, phones=phones)
    return state, [Event(card.rule, f"the phone lines are {phones}", {"phones": phones})]


def _demolition(data, state, dice, card: Card, e, name, context):
    if all(b.down for b in state.bridges):
        return state, [Event("Joker", "the bridges are already down: the engineers have nothing to blow")]
    state = replace(state, demolition="owed")
    return state, [Event("Joker", "the engineers attempt to blow the bridge: the American player gives a demolition "
                         "order with the modifiers as they stand on the table", {"demolition": "owed"})]


EFFECTS = {
    "bombardment": _bombardment,
    "strafe": _strafe,
    "bombers": _bombers,
    "sniper": _sniper,
    "arrival": _arrival,
    "jagt": _jagt,
    "missions": _missions,
    "withdraw": _withdraw,
    "banzai": _banzai,
    "grenades": _grenades,
    "may-draw": _may_draw,
    "spotter": _spotter,
    "movement": _movement,
    "phones": _phones,
    "demolition": _demolition,
}

__all__ = ["EFFECTS", "begin_turn", "draw", "event_check", "message_end", "rounds_fall", "sniper_shot", "spotter_attack"]
