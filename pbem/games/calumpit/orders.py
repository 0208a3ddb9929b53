"""Calumpit orders: their syntax, checked without a position.

An orders document holds ``[[order]]`` tables, each with a ``type`` and the
fields below.  Distances are whole inches measured on the table.  The same
fields can be typed on one line in solo play:
``fire weapon=rifle range=30 figures=12 terrain=open target=J-INF-1``.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import Any, Mapping

from pbem.errors import InputError

ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$")
MAX_TEXT = 200


@dataclass(frozen=True)
class F:
    """One field of an order: its type, whether it is required, its choices
    (a tuple, or the name of a list the game's data provides) and bounds."""

    kind: str  # int, bool, id, text, choice, pairs
    required: bool = False
    choices: tuple[str, ...] | str = ()
    low: int | None = None
    high: int | None = None
    default: Any = None
    doc: str = ""


FLAG = F("bool", default=False)

#: type -> (rule it applies, what it does, fields)
ORDERS: dict[str, tuple[str, str, dict[str, F]]] = {
    "move": ("MOVEMENT", "roll a unit's move in inches", {
        "kind": F("choice", True, "move_kinds", doc="infantry, vehicle, tank or heavy"),
        "terrain": F("choice", False, "move_terrains", default="open", doc="open, road, jungle, rice-paddy"),
        "unit": F("id", doc="the moving unit"),
        "co": F("bool", default=False, doc="the C/O moves with it (Spades Ace)"),
    }),
    "fire": ("DIRECT FIRE", "direct fire with rifles, an HMG, LMG, SMG or a sniper; saves and morale follow", {
        "weapon": F("choice", True, "weapons", doc="rifle, hmg, lmg, smg, sniper"),
        "range": F("int", True, low=0, high=500, doc="inches from target to shooter"),
        "terrain": F("choice", True, "terrains", doc="the target's terrain (saving throws)"),
        "figures": F("int", low=0, high=200, doc="rifle: firing figures"),
        "targets": F("int", low=0, high=200, doc="HMG/LMG/SMG: target figures in the area"),
        "area": F("int", low=2, high=4, default=2, doc="HMG: 4 (once per target) or 2 square inches (twice)"),
        "nationality": F("choice", False, "nationalities", doc="of the rifle squad (default: its unit's)"),
        "unit": F("id", doc="the firing unit"),
        "target": F("id", doc="the target unit: its losses and morale are tracked"),
        "moving": FLAG, "in_cover": FLAG, "under_fire": FLAG,
        "officer": F("bool", default=False, doc="an officer is attached to the target (morale)"),
        "morale": F("bool", default=True, doc="the target checks morale (it took fire)"),
    }),
    "save": ("SAVING THROWS", "saving throws for figures hit", {
        "hits": F("int", True, low=0, high=200),
        "terrain": F("choice", True, "terrains"),
        "unit": F("id"),
        "officer": FLAG,
        "morale": F("bool", default=False),
    }),
    "indirect": ("INDIRECT FIRE", "mortar or artillery rounds: dispersion, Stokes misfires; ammunition", {
        "weapon": F("choice", True, "indirect", doc="mortar, stokes, artillery"),
        "rounds": F("int", low=1, high=20, doc="default: the weapon's rounds a turn"),
        "unit": F("id", doc="the firing unit (its ammunition is counted)"),
        "at": F("text", doc="the marked target"),
    }),
    "burst": ("INDIRECT FIRE", "kills among the figures inside a burst (shell, bomb, grenade, strafing)", {
        "weapon": F("choice", True, "bursts"),
        "figures": F("int", True, low=0, high=200),
        "terrain": F("choice", True, "terrains"),
        "unit": F("id"), "officer": FLAG,
        "morale": F("bool", default=True),
    }),
    "grenade": ("HAND-GRENADES", "a hand-grenade: dud, dispersal, kills", {
        "range": F("int", True, low=0, high=8),
        "figures": F("int", low=0, high=50, default=0, doc="figures inside the burst at the marked point"),
        "nationality": F("choice", False, "nationalities", doc="of the thrower (default: its unit's)"),
        "unit": F("id", doc="the throwing unit"),
        "target": F("id", doc="the unit at the marked point"),
        "new_type": F("bool", default=False, doc="one of the depot's new grenades (Spades 3)"),
        "officer": FLAG, "morale": F("bool", default=True),
    }),
    "tankfire": ("TANK FIRE ACTIONS", "a main-gun shot: % to hit, then hit effects", {
        "gun": F("choice", True, "guns"),
        "range": F("int", True, low=0, high=500),
        "vehicle": F("choice", False, "tank_targets", doc="target type (default: the target unit's)"),
        "target": F("id"), "unit": F("id"),
        "moving_target": FLAG, "moving_shooter": FLAG, "covered_target": FLAG, "under_fire": FLAG,
        "second_shot": FLAG, "ambush": FLAG,
    }),
    "melee": ("HAND-TO-HAND", "hand to hand: morale tests, paired fights, morale after", {
        "attacker": F("id", True), "defender": F("id", True),
        "pairs": F("pairs", True, doc='a number, or "charging bayonet vs foxhole" per pair'),
        "attacker_in": F("choice", False, "terrains"), "defender_in": F("choice", False, "terrains"),
        "attacker_officer": FLAG, "defender_officer": FLAG,
    }),
    "morale": ("MORALE", "a morale check", {
        "unit": F("id"),
        "grade": F("int", low=0, high=40, doc="for a unit pbem does not track"),
        "nationality": F("choice", False, "nationalities"),
        "position": F("choice", False, "terrains"),
        "officer": FLAG,
        "modifier": F("int", low=-50, high=50, default=0),
    }),
    "loss": ("MORALE", "losses reported from the table (men, squad weapons, sergeants)", {
        "unit": F("id", True),
        "men": F("int", low=0, high=200, default=0),
        "weapons": F("int", low=0, high=20, default=0),
        "sergeants": F("int", low=0, high=20, default=0),
    }),
    "status": ("SEQUENCE", "a unit's status as it stands on the table", {
        "unit": F("id", True),
        "status": F("choice", True, "statuses"),
    }),
    "ammo": ("AMMO", "replenish a unit's ammunition", {
        "unit": F("id", True),
        "rounds": F("int", True, low=1, high=500),
    }),
    "add": ("SEQUENCE", "put a unit on the table", {
        "unit": F("id", True),
        "name": F("text"),
        "side": F("choice", True, ("american", "japanese")),
        "nationality": F("choice", True, "nationalities"),
        "kind": F("text", True),
        "figures": F("int", True, low=1, high=500),
        "officer": FLAG,
        "ammo": F("int", low=0, high=1000),
        "vehicle": F("choice", False, "tank_targets"),
    }),
    "spot": ("VISIBILITY/SPOTTING", "is a unit spotted?", {
        "kind": F("choice", True, ("infantry", "tank", "vehicle", "gun")),
        "in_jungle": FLAG, "in_los": FLAG, "moved_or_fired": FLAG,
        "distance": F("int", low=0, high=500, default=0),
    }),
    "report": ("VICTORY CONDITIONS", "facts on the table the victory conditions need", {
        "japanese_at_bridge": F("bool"),
        "americans": F("choice", False, ("north", "south", "both")),
        "destroyed": F("choice", False, "bridges"),
    }),
    "demolition": ("Joker", "the engineers try to blow the bridge", {
        "bridge": F("choice", False, "bridges", default="road"),
        "japanese_within_6": FLAG, "friendly_on_bridge": FLAG, "officer": FLAG,
    }),
    "call": ("INDIRECT FIRE", "call a fire mission an event put on call", {
        "mission": F("id", True), "at": F("text", True),
    }),
    "draw": ("EVENT CARDS", "draw the card an event makes owed (Spades 4)", {
        "deck": F("choice", True, ("red", "black")),
        "condition": F("bool", default=True, doc="false: the card's condition does not hold on the table, no card is drawn"),
    }),
    "sniped": ("MORALE", "a card sniper's shot: the hit figure's save, then the target's morale check", {
        "sniper": F("id", True, doc="the sniper who fired (his oldest shot not yet resolved)"),
        "terrain": F("choice", True, "terrains", doc="the target's terrain (saving throw)"),
        "position": F("choice", False, "terrains", doc="its morale position (default: terrain)"),
        "unit": F("id", doc="the unit hit (default: the unit the card names)"),
        "officer": F("bool", default=False, doc="an officer is attached to the target (morale)"),
    }),
    "spotter": ("Hearts 10", "the circling spotter aircraft: its attack, or driven off or shot down", {
        "result": F("choice", True, ("attack", "driven-off", "shot-down"),
                    doc="attack: a unit larger than a squad is in the open"),
        "at": F("text", doc="the center of mass attacked"),
    }),
    "done": ("SEQUENCE", "all your units have moved and fired this turn", {}),
    "end": ("VICTORY CONDITIONS", "end the game; the victory conditions decide", {}),
}


def _bad(where: str, name: str, what: str) -> InputError:
    return InputError(f"{where}: {name} {what}", field=name)


def parse_pairs(value: Any, where: str, modifiers: tuple[str, ...]) -> list[str] | int:
    """``3`` or ``["charging bayonet vs foxhole", "vs wounded"]`` (or one
    string with the pairs separated by commas); normal form: each pair's
    modifiers sorted, ``"bayonet charging vs foxhole"``."""
    if isinstance(value, int) and not isinstance(value, bool):
        if not 1 <= value <= 100:
            raise _bad(where, "pairs", f"must be 1-100, got {value}")
        return value
    if isinstance(value, str):
        value = [p for p in value.split(",") if p.strip()]
    if not isinstance(value, list) or not value or len(value) > 100:
        raise _bad(where, "pairs", 'must be a number or a list like ["charging vs foxhole", "vs"]')
    pairs = []
    for item in value:
        if not isinstance(item, str):
            raise _bad(where, "pairs", f"entry {item!r} must be text like \"charging bayonet vs foxhole\"")
        left, sep, right = item.partition("vs")
        if not sep:
            raise _bad(where, "pairs", f"entry {item!r} has no 'vs' between the attacker's and the defender's modifiers")
        sides = []
        for words in (left.split(), right.split()):
            for w in words:
                if w not in modifiers:
                    raise _bad(where, "pairs", f"modifier {w!r} is not one of {', '.join(modifiers)}")
            sides.append(" ".join(sorted(words)))
        pairs.append(f"{sides[0]} vs {sides[1]}".strip())
    return pairs


def parse_order(order: Mapping[str, Any], where: str, choices: Mapping[str, tuple[str, ...]],
                modifiers: tuple[str, ...]) -> dict[str, Any]:
    """One order, normalised (syntax and field types only)."""
    if not isinstance(order, Mapping):
        raise InputError(f"{where}: must be a table", field="order")
    kind = order.get("type")
    if kind not in ORDERS:
        raise InputError(f"{where}: unknown type {kind!r} (expected one of {', '.join(ORDERS)})", field="type")
    where = f"{where} ({kind})"
    fields = ORDERS[kind][2]
    extra = sorted(set(order) - set(fields) - {"type"})
    if extra:
        raise _bad(where, extra[0], f"is not a field of {kind} (fields: {', '.join(fields) or 'none'})")
    out: dict[str, Any] = {"type": kind}
    for name, spec in fields.items():
        if name not in order:
            if spec.required:
                raise _bad(where, name, "is required")
            continue
        value = order[name]
        if spec.kind == "int":
            if isinstance(value, str) and re.fullmatch(r"-?\d+", value.strip()):
                value = int(value)
            if not isinstance(value, int) or isinstance(value, bool):
                raise _bad(where, name, f"must be a whole number, got {value!r}")
            if (spec.low is not None and value < spec.low) or (spec.high is not None and value > spec.high):
                raise _bad(where, name, f"must be {spec.low}-{spec.high}, got {value}")
        elif spec.kind == "bool":
            if isinstance(value, str) and value.lower() in ("true", "false", "yes", "no"):
                value = value.lower() in ("true", "yes")
            if not isinstance(value, bool):
                raise _bad(where, name, f"must be true or false, got {value!r}")
        elif spec.kind == "id":
            if not isinstance(value, str) or not ID_RE.match(value):
                raise _bad(where, name, f"must be a unit id (letters, digits, '-', '_', '.'), got {value!r}")
        elif spec.kind == "text":
            if not isinstance(value, str) or len(value) > MAX_TEXT or not value.strip():
                raise _bad(where, name, f"must be text of 1-{MAX_TEXT} characters")
        elif spec.kind == "choice":
            allowed = spec.choices if isinstance(spec.choices, tuple) else choices[spec.choices]
            if value not in allowed:
                raise _bad(where, name, f"must be one of {', '.join(allowed)}, got {value!r}")
        elif spec.kind == "pairs":
            value = parse_pairs(value, where, modifiers)
        out[name] = value
    _cross_check(out, where, kind)
    return out


def _cross_check(order: dict[str, Any], where: str, kind: str) -> None:
    if kind == "fire":
        weapon = order["weapon"]
        if weapon == "rifle" and not order.get("figures"):
            raise _bad(where, "figures", "is required for rifle fire (the firing figures)")
        if weapon in ("hmg", "lmg", "smg") and "targets" not in order:
            raise _bad(where, "targets", f"is required for {weapon} fire (target figures in its area)")
        if weapon != "hmg" and order.get("area", 2) != 2:
            raise _bad(where, "area", "only an HMG may fire at a 4 square inch area")
        if order.get("area", 2) not in (2, 4):
            raise _bad(where, "area", "must be 2 or 4 (square inches)")
    if kind == "morale" and "unit" not in order and ("grade" not in order or "nationality" not in order):
        raise _bad(where, "unit", "is required (or grade and nationality for a unit pbem does not track)")
    if kind == "spot" and order["kind"] in ("tank", "vehicle") and not order.get("in_los") and "distance" not in order:
        raise _bad(where, "distance", "is required for a tank or vehicle out of line-of-sight "
                                      "(VISIBILITY/SPOTTING: heard within 24 inches)")
    if kind == "spotter" and order["result"] != "attack" and "at" in order:
        raise _bad(where, "at", f"names the center of mass of an attack, not of result = {order['result']}")
    if kind == "report" and len(order) == 1:
        raise _bad(where, "japanese_at_bridge", "or americans or destroyed: report at least one fact")
    if kind == "melee" and order["attacker"] == order["defender"]:
        raise _bad(where, "defender", "must not be the attacker")


def parse_document(document: Mapping[str, Any], choices: Mapping[str, tuple[str, ...]],
                   modifiers: tuple[str, ...]) -> list[dict[str, Any]]:
    unknown = sorted(set(document) - {"order"})
    if unknown:
        raise InputError(f"orders: unknown top-level key(s) {', '.join(unknown)}; use [[order]] tables", field=unknown[0])
    orders = document.get("order", [])
    if not isinstance(orders, list):
        raise InputError("orders: 'order' must be an array of tables ([[order]])", field="order")
    out = []
    ended = False
    for number, order in enumerate(orders, 1):
        parsed = parse_order(order, f"order {number}", choices, modifiers)
        if ended:
            raise InputError(f"order {number}: no order may follow 'end'", rule="VICTORY CONDITIONS")
        ended = parsed["type"] == "end"
        out.append(parsed)
    return out


def parse_line(line: str) -> dict[str, Any]:
    """``fire weapon=rifle range=30`` -> ``{"type": "fire", "weapon": "rifle", "range": "30"}``
    (values stay text; :func:`parse_order` converts them)."""
    try:
        words = shlex.split(line)
    except ValueError as err:
        raise InputError(f"cannot read {line!r}: {err}") from err
    if not words:
        raise InputError("empty order")
    order: dict[str, Any] = {"type": words[0]}
    for word in words[1:]:
        name, sep, value = word.partition("=")
        if not sep or not name:
            raise InputError(f"{word!r}: write fields as name=value", field=word)
        order[name] = value
    return order


def help_lines() -> list[str]:
    """One line per order type: its fields (required ones marked *)."""
    lines = []
    for kind, (rule, doc, fields) in ORDERS.items():
        names = " ".join(f"{n}{'*' if f.required else ''}" for n, f in fields.items())
        lines.append(f"{kind:<10} [{rule}] {doc}" + (f"; fields: {names}" if names else ""))
    return lines
