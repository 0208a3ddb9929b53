"""What a Calumpit player may order now: the game's part of ``pbem orders
DIR`` (:mod:`pbem.app.orders_template`) and of ``help ORDER`` in solo play.

* every order type of :data:`pbem.games.calumpit.orders.ORDERS` with its
  fields and their allowed values;
* the units on the table and their state, the bridges, what is on call;
* what is owed by the player now (the Joker's demolition, a card's draw, a
  card sniper's save and morale check, the spotter aircraft);
* example orders for this position, each accepted now on its own
  (:func:`examples`).  The template makes the usual ones of a turn (owed
  answers, a move, rifle fire, indirect fire, ``done``) live example lines;
  :func:`pbem.app.orders_template.for_match` keeps those that pass, together,
  the check ``pbem play`` makes.  The others are shown as ``e.g.`` lines.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from pbem.engine.machine import DecisionDue, Ordered
from pbem.errors import PbemError
from pbem.games.calumpit import orders
from pbem.games.calumpit.state import AMERICAN, JAPANESE, CalumpitState, Unit, other
from pbem.engine.contract import Section, Sections

#: the orders a player owes when an event or a card asks for them
OWED = ("demolition", "draw", "sniped", "spotter")
#: the examples written as live '# ' lines: owed answers and a plain turn
LIVE = OWED + ("move", "fire", "indirect", "done")
#: failed-morale states in which a unit neither moves nor fires of its own will
SHAKEN = ("pinned", "retreat", "rout")


# --------------------------------------------------------------------------- example orders


def _first(units: list[Unit], *kinds: str) -> Unit | None:
    """The first unit of ``kinds`` (any kind if none given), steady ones first."""
    found = [u for u in units if not kinds or u.kind in kinds]
    return next((u for u in found if u.status not in SHAKEN), found[0] if found else None)


def _side_or(state: CalumpitState, uid: str, default: str) -> str:
    """The side of unit ``uid``, or ``default`` if pbem does not track it."""
    unit = state.unit(uid)
    return unit.side if unit is not None else default


def _free_id(state: CalumpitState, prefix: str) -> str:
    return next(f"{prefix}{n}" for n in range(1, 1000) if state.unit(f"{prefix}{n}") is None)


def candidates(game: Any, state: CalumpitState, side: str) -> dict[str, list[dict[str, Any]]]:
    """Example orders of each type for ``side`` in this position, built from
    the units on the table (not yet checked: see :func:`examples`)."""
    mine = [u for u in state.units if u.side == side and u.in_action]
    enemy = [u for u in state.units if u.side != side and u.in_action]
    inf = _first(mine, "infantry") or _first(mine)
    foe = _first(enemy, "infantry") or _first(enemy)
    out: dict[str, list[dict[str, Any]]] = {}
    if inf is not None:
        out["move"] = [{"type": "move", "kind": "infantry", "terrain": "road", "unit": inf.id}]
        fire = {"type": "fire", "weapon": "rifle", "range": 30, "figures": inf.figures, "terrain": "open", "unit": inf.id}
        out["fire"] = [{**fire, "target": foe.id} if foe is not None else fire]
        out["save"] = [{"type": "save", "hits": 1, "terrain": "woods", "unit": inf.id}]
        grenade = {"type": "grenade", "range": 5, "figures": 2, "unit": inf.id}
        out["grenade"] = [{**grenade, "target": foe.id} if foe is not None else grenade]
        if foe is not None and foe.kind != "tank":
            pairs = min(2, inf.figures, foe.figures)
            out["melee"] = [{"type": "melee", "attacker": inf.id, "defender": foe.id, "pairs": pairs}]
        out["morale"] = [{"type": "morale", "unit": inf.id, "position": "open"}]
        out["loss"] = [{"type": "loss", "unit": inf.id, "men": 1}]
        out["status"] = [{"type": "status", "unit": inf.id, "status": "pinned"}]
    tubes = game.data.tables["indirect_fire"]["weapons"]
    for u in mine:
        if u.kind not in ("mortar", "artillery"):
            continue
        weapon = "artillery" if u.kind == "artillery" else "mortar" if u.nationality == "japanese" else "stokes"
        rounds = tubes[weapon]["rounds"] - u.fired
        if u.ammo is not None:
            rounds = min(rounds, u.ammo)
        if rounds > 0:
            order = {"type": "indirect", "weapon": weapon, "unit": u.id, "at": "the marked point"}
            out["indirect"] = [order if rounds == tubes[weapon]["rounds"] else {**order, "rounds": rounds}]
            out["burst"] = [{"type": "burst", "weapon": weapon, "figures": 3, "terrain": "open",
                             **({"unit": foe.id} if foe is not None else {})}]
            break
    counted = next((u for u in mine if u.ammo is not None), None)
    if counted is not None:
        out["ammo"] = [{"type": "ammo", "unit": counted.id, "rounds": 10}]
    gun = _first(mine, "tank", "gun")
    if gun is not None:
        shot = {"type": "tankfire", "gun": "us-37mm" if side == AMERICAN else "ija-37mm", "range": 25, "unit": gun.id}
        armour = next((u for u in enemy if u.target), None)
        out["tankfire"] = [{**shot, "target": armour.id} if armour is not None else
                           {**shot, "vehicle": "japanese-light" if side == AMERICAN else "stuart"}]
    new = _free_id(state, "PA-" if side == AMERICAN else "J-ADD-")
    out["add"] = [{"type": "add", "unit": new, "name": "a unit pbem does not track yet", "side": side,
                   "nationality": "pa" if side == AMERICAN else "japanese", "kind": "infantry", "figures": 12}]
    out["spot"] = [{"type": "spot", "kind": "infantry", "in_los": True, "moved_or_fired": True, "distance": 20}]
    out["report"] = [{"type": "report", "japanese_at_bridge": False}]
    on_call = [m for m in state.missions if m.calls_left > 0]
    if on_call:
        out["call"] = [{"type": "call", "mission": on_call[0].id, "at": "the cross roads"}]
    # owed now
    if state.demolition == "owed" and side == AMERICAN:
        standing = [b for b in state.bridges if b.status != "destroyed"]
        if standing:
            out["demolition"] = [{"type": "demolition", "bridge": standing[0].id}]
    out["draw"] = [{"type": "draw", "deck": d.deck} for d in state.may_draw if d.side == side]
    out["sniped"] = [{"type": "sniped", "sniper": s.sniper, "terrain": "open"} for s in state.sniped
                     if _side_or(state, s.unit, AMERICAN) == side]
    if side == JAPANESE:
        out["spotter"] = [{"type": "spotter", "result": "attack"} for _ in state.spotters]
    if side not in state.done:
        out["done"] = [{"type": "done"}]
    return {kind: found for kind, found in out.items() if found}


def accepted(game: Any, state: CalumpitState, side: str, order: Mapping[str, Any]) -> bool:
    """Does the position accept ``order`` from ``side`` now, on its own?"""
    try:
        (parsed,) = game.parse_orders({"order": [dict(order)]}, side).public
        game.apply(state, Ordered(side, max(state.seq + 1, 0), 0, parsed))
    except PbemError:
        return False
    return True


def examples(game: Any, state: CalumpitState, side: str) -> dict[str, list[dict[str, Any]]]:
    """The :func:`candidates` the position accepts now, each on its own."""
    found = {kind: [o for o in orders_ if accepted(game, state, side, o)]
             for kind, orders_ in candidates(game, state, side).items()}
    return {kind: kept for kind, kept in found.items() if kept}


def example_line(game: Any, state: CalumpitState, side: str, kind: str) -> str | None:
    """An example of ``kind`` accepted now, as typed in solo play (None: none
    fits this position)."""
    found = examples(game, state, side).get(kind)
    return orders.to_line(found[0]) if found else None


# --------------------------------------------------------------------------- the template


def _one_line(order: Mapping[str, Any]) -> str:
    return "  ".join(f"{k} = {json.dumps(v)}" for k, v in order.items())


def _unit_line(u: Unit) -> str:
    text = f"  {u.id}: {u.name} -- {u.nationality} {u.kind}, {u.figures} figures, MORALE GRADE {u.grade}"
    if u.status != "active":
        text += f", {u.status}"
    if u.officer:
        text += ", officer attached"
    if u.ammo is not None:
        text += f", {u.ammo} rounds"
    if u.fired:
        text += f" ({u.fired} fired this turn)"
    return text


def _table(game: Any, state: CalumpitState, side: str) -> list[str]:
    notes = []
    for who in (side, other(side)):
        units = [u for u in state.units if u.side == who and u.in_action]
        label = f"{who} (you)" if who == side else who
        if units:
            notes.append(f"{label}: {len(units)} unit(s) in action")
            notes += [_unit_line(u) for u in units]
        else:
            notes.append(f"{label}: no unit on the table"
                         + (" yet (the events' JAGT brings the Japanese attack; add puts a unit on the table)"
                            if who == JAPANESE else ""))
    gone = [u for u in state.units if not u.in_action]
    if gone:
        notes.append("out of action: " + ", ".join(f"{u.id} ({u.status})" for u in gone))
    notes.append("bridges: " + ", ".join(f"{b.name} {b.status}" + (f" ({b.hits} hit(s))" if b.hits else "")
                                         for b in state.bridges) + f"; phones {state.phones}")
    if state.missions:
        notes.append("fire missions on call: " + ", ".join(
            f"{m.id} {m.name} ({m.calls_left} call(s) left, until turn {m.last_turn})" for m in state.missions))
    for b in state.barrages:
        notes.append(f"barrage to come: {b.name} on {b.target}, {b.rounds} rounds from turn {b.first_turn} "
                     f"({b.turns_left} turn(s))")
    if state.grenades:
        notes.append(f"new type grenades at the depot: {state.grenades} (grenade order, new_type = true)")
    if state.co_movement:
        notes.append(f"the C/O's move: {state.co_movement:+d} inches (move orders with co = true)")
    notes.append(f"cards left: red {len(state.red)}, black {len(state.black)}")
    return notes


def _awaited(state: CalumpitState, side: str) -> str:
    turn = max(state.turn, 1)
    them = other(side)
    if side in state.done:
        return (f"your orders for turn {turn}, if any: you have given done; the turn ends when {them} gives done "
                f"too (an empty file passes the message)")
    return (f"your orders for turn {turn}: any number, in the order they happen on the table; give done when all "
            f"your units have moved and fired" + (f" ({them} is done: your done ends the turn)" if them in state.done
                                                  else ""))


#: why an order that answers an event is not accepted now
NOT_DUE = {
    "demolition": "not owed by you now: the Joker makes the attempt owed by the american player",
    "draw": "not owed by you now: a card (Spades 4) makes a draw owed by the player it names",
    "sniped": "not owed by you now: a card sniper's shot makes its target's save and morale check owed by the "
              "target's side",
    "spotter": "not owed by you now: Hearts 10's circling spotter aircraft makes it owed by the japanese player",
    "call": "no fire mission is on call now: an event card (Hearts 9, Clubs 2) puts one on call",
}


def order_types(game: Any) -> dict[str, Any]:
    """Every order type, its rule, what it does and its fields, as data."""
    out: dict[str, Any] = {}
    for kind, (rule, doc, fields) in orders.ORDERS.items():
        spec_json = {}
        for name, spec in fields.items():
            item: dict[str, Any] = {"type": spec.kind, "required": spec.required, "doc": spec.doc}
            if spec.kind == "choice":
                item["values"] = list(spec.choices if isinstance(spec.choices, tuple) else game.choices[spec.choices])
            if spec.kind == "pairs":
                item["modifiers"] = list(game.modifiers)
            if spec.low is not None:
                item.update(low=spec.low, high=spec.high)
            if spec.default is not None:
                item["default"] = spec.default
            spec_json[name] = item
        out[kind] = {"rule": rule, "doc": doc, "fields": spec_json}
    return out


def sections(game: Any, state: CalumpitState, side: str, secrets: Mapping[str, str] | None = None) -> Sections:
    """The game's part of ``side``'s orders template (nothing in Calumpit is secret)."""
    out = Sections()
    owed = [d for d in game.awaiting(state) if isinstance(d, DecisionDue) and d.side == side]
    out.choices = {
        "turn": state.turn,
        "done": list(state.done),
        "owed": [{"kind": d.kind, "prompt": d.prompt, "rule": d.rule, "options": list(d.options)} for d in owed],
        "units": [{"id": u.id, "side": u.side, "name": u.name, "nationality": u.nationality, "kind": u.kind,
                   "figures": u.figures, "grade": u.grade, "status": u.status, "officer": u.officer, "ammo": u.ammo,
                   "fired": u.fired} for u in state.units],
        "bridges": [{"id": b.id, "name": b.name, "hits": b.hits, "status": b.status} for b in state.bridges],
        "missions": [{"id": m.id, "name": m.name, "calls_left": m.calls_left} for m in state.missions],
    }
    if state.ending_by and state.ending_by != side:
        out.awaited.append(f"your closing message: {state.ending_by} ended the game; it carries no orders "
                           "(an empty file closes the game and the victory conditions decide)")
        out.choices["order_types"] = {}
        return out
    out.awaited.append(_awaited(state, side))
    out.awaited += [f"owed by you ({d.rule}): {d.prompt}" for d in owed]
    found = examples(game, state, side)
    types = order_types(game)
    for kind, entry in types.items():
        entry["examples"] = found.get(kind, [])
    out.choices["order_types"] = types
    when = f"turn {state.turn}" if state.turn else "before turn 1, whose event check your message keys"
    out.sections.append(Section(f"The table now ({when}): the units pbem tracks", _table(game, state, side)))
    if owed:
        out.sections.append(Section(
            "Owed by you now: answer with the orders below (the examples take the first option; set the fields "
            "as the table stands)",
            [f"  {d.prompt} ({d.rule})" for d in owed],
            [o for kind in OWED for o in found.get(kind, [])],
        ))
    out.sections.append(Section("Orders: one [[order]] table each, with its type and fields (* = required)", [
        "each order's fields and their allowed values follow; distances are whole inches measured on the table;",
        "lines 'e.g.' show an order this position accepts (write it as an [[order]] table to use it)",
    ]))
    for kind, (rule, doc, _) in orders.ORDERS.items():
        if kind in ("done", "end"):
            continue
        notes = [f"  {line}" for line in orders.field_lines(kind, game.choices, game.modifiers)]
        shown = found.get(kind, [])
        live = kind in LIVE and kind not in OWED
        if not shown and kind in NOT_DUE:
            notes.append(NOT_DUE[kind])
        elif kind in OWED:
            notes.append("owed by you now: see the examples above")
        elif not live:
            notes += [f"e.g. {_one_line(o)}" for o in shown[:1]]
        # a new list, typed as a Section's examples (orders, or groups of them; list is invariant)
        out.sections.append(Section(f"{kind} ({rule}): {doc}", notes, list(shown) if live else []))
    done_notes = ["when all your units have moved and fired this turn; the turn ends when both sides are done"]
    if side in state.done:
        done_notes.append(f"you have given done for turn {max(state.turn, 1)}")
    out.sections.append(Section("done (SEQUENCE): " + orders.ORDERS["done"][1], done_notes,
                                list(found.get("done", []))))
    out.sections.append(Section(
        "end (VICTORY CONDITIONS): " + orders.ORDERS["end"][1],
        ["to end the game, add these two lines (no order may follow them); the reply closes it:",
         "[[order]]", 'type = "end"'],
    ))
    return out


__all__ = ["LIVE", "OWED", "accepted", "candidates", "example_line", "examples", "order_types", "sections"]
