"""Calumpit orders: their syntax, checked without a position.

An orders document holds ``[[order]]`` tables, each with a ``type`` and the
fields below.  Distances are whole inches measured on the table.  The same
fields can be typed on one line in solo play:
``fire weapon=rifle range=30 figures=12 terrain=open unit=1-SQD`` (add
``target=J-INF-1`` once the events have put J-INF-1 on the table: pbem then
tracks its losses and morale).
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


def flag(doc: str) -> F:
    """A true/false field, false unless given."""
    return F("bool", default=False, doc=doc)


OFFICER = "an officer is attached to the unit hit (MORALE MODIFIERS: officer attached -5)"
TAKES_MORALE = "the unit hit checks morale after its saves (\"Morale is checked anytime a unit takes fire\")"

#: type -> (rule it applies, what it does, fields)
ORDERS: dict[str, tuple[str, str, dict[str, F]]] = {
    "move": ("MOVEMENT", "roll a unit's move in inches", {
        "kind": F("choice", True, "move_kinds", doc="what moves: the MOVEMENT table's row"),
        "terrain": F("choice", False, "move_terrains", default="open",
                     doc="the ground it moves through (jungle and rice-paddy halve the move)"),
        "unit": F("id", doc="the moving unit"),
        "co": F("bool", default=False,
                doc="the company's commanding officer (C/O) moves with the unit: after Spades Ace "
                    "(\"C/O ... twists ankle\") his move is 2 inches less"),
    }),
    "fire": ("DIRECT FIRE", "direct fire with rifles, an HMG, LMG, SMG or a sniper; saves and morale follow", {
        "weapon": F("choice", True, "weapons", doc="what fires"),
        "range": F("int", True, low=0, high=500, doc="inches from the target to the shooter, measured on the table"),
        "terrain": F("choice", True, "terrains", doc="the target's terrain (its saving throws)"),
        "figures": F("int", low=0, high=200, doc="rifle fire: how many figures fire (required for a rifle)"),
        "targets": F("int", low=0, high=200, doc="HMG, LMG or SMG fire: target figures in its area (required for them)"),
        "area": F("int", low=2, high=4, default=2, doc="HMG only: 4 (one shot at each target) or 2 square inches (two)"),
        "nationality": F("choice", False, "nationalities",
                         doc="of a rifle squad pbem does not track (default: the firing unit's)"),
        "unit": F("id", doc="the firing unit"),
        "target": F("id", doc="the target unit: pbem tracks its losses and morale (leave out for one it does not track)"),
        "moving": flag("the firing unit is moving (DIRECT FIRE MODIFIERS -10)"),
        "in_cover": flag("the firing unit is in cover (+5)"),
        "under_fire": flag("the firing unit is under fire (-5)"),
        "officer": F("bool", default=False, doc=OFFICER),
        "morale": F("bool", default=True, doc="false: the target does not check morale after this fire"),
    }),
    "save": ("SAVING THROWS", "saving throws for figures hit", {
        "hits": F("int", True, low=0, high=200, doc="figures hit"),
        "terrain": F("choice", True, "terrains", doc="their terrain (its TERRAIN DEFENSE FACTOR)"),
        "unit": F("id", doc="the unit hit: pbem takes its losses"),
        "officer": flag(OFFICER),
        "morale": F("bool", default=False, doc="true: " + TAKES_MORALE),
    }),
    "indirect": ("INDIRECT FIRE", "mortar or artillery rounds: dispersion, Stokes misfires; ammunition", {
        "weapon": F("choice", True, "indirect", doc="the American 3-inch mortar is a stokes (misfires on 1-4)"),
        "rounds": F("int", low=1, high=20, doc="rounds fired (default: the weapon's rounds a turn)"),
        "unit": F("id", doc="the firing unit: its ammunition and rounds this turn are counted"),
        "at": F("text", doc="the marked target point, in words"),
    }),
    "burst": ("INDIRECT FIRE", "kills among the figures inside a burst (shell, bomb, grenade, strafing)", {
        "weapon": F("choice", True, "bursts", doc="what burst"),
        "figures": F("int", True, low=0, high=200, doc="figures counted inside the burst on the table"),
        "terrain": F("choice", True, "terrains", doc="their terrain (saving throws; grenades save as in the open)"),
        "unit": F("id", doc="the unit hit: pbem takes its losses"),
        "officer": flag(OFFICER),
        "morale": F("bool", default=True, doc="false: the unit does not check morale after the burst"),
    }),
    "grenade": ("HAND-GRENADES", "a hand-grenade: dud, dispersal, kills", {
        "range": F("int", True, low=0, high=8, doc="inches to the marked point (range is eight inches)"),
        "figures": F("int", low=0, high=50, default=0, doc="figures inside the burst at the marked point"),
        "nationality": F("choice", False, "nationalities", doc="of the thrower (default: its unit's)"),
        "unit": F("id", doc="the throwing unit"),
        "target": F("id", doc="the unit at the marked point"),
        "new_type": F("bool", default=False, doc="one of the depot's new grenades (Spades 3): always arms"),
        "officer": flag(OFFICER),
        "morale": F("bool", default=True, doc="false: the target does not check morale"),
    }),
    "tankfire": ("TANK FIRE ACTIONS", "a main-gun shot: % to hit, then hit effects", {
        "gun": F("choice", True, "guns", doc="the firing gun"),
        "range": F("int", True, low=0, high=500, doc="inches to the target (the table ends at 40)"),
        "vehicle": F("choice", False, "tank_targets", doc="what is fired at (default: the target unit's vehicles)"),
        "target": F("id", doc="the unit fired at"),
        "unit": F("id", doc="the firing unit"),
        "moving_target": flag("the target is moving (MODIFIERS FOR HIT -10%)"),
        "moving_shooter": flag("the shooter is moving (-25%)"),
        "covered_target": flag("the target is covered (-20%)"),
        "under_fire": flag("the shooter is under fire (-10%)"),
        "second_shot": flag("a second shot at the same target (+10%)"),
        "ambush": flag("an ambush shot (+20%)"),
    }),
    "melee": ("HAND-TO-HAND", "hand to hand: morale tests, paired fights, morale after", {
        "attacker": F("id", True, doc="the attacking unit"),
        "defender": F("id", True, doc="the defending unit (the other side's)"),
        "pairs": F("pairs", True, doc="the figures paired off: how many, or each pair's modifiers"),
        "attacker_in": F("choice", False, "terrains", doc="the attacker's position (its morale modifier)"),
        "defender_in": F("choice", False, "terrains", doc="the defender's position (its morale modifier)"),
        "attacker_officer": flag("an officer is attached to the attacker (morale)"),
        "defender_officer": flag("an officer is attached to the defender (morale)"),
    }),
    "morale": ("MORALE", "a morale check", {
        "unit": F("id", doc="the unit checking (or grade and nationality for one pbem does not track)"),
        "grade": F("int", low=0, high=40, doc="the MORALE GRADE of a unit pbem does not track"),
        "nationality": F("choice", False, "nationalities", doc="of a unit pbem does not track (its failed-morale results)"),
        "position": F("choice", False, "terrains", doc="where the unit is (MORALE MODIFIERS: open +10, foxhole -10)"),
        "officer": flag(OFFICER),
        "modifier": F("int", low=-50, high=50, default=0, doc="any other modifier to the D20"),
    }),
    "loss": ("MORALE", "losses reported from the table (men, squad weapons, sergeants)", {
        "unit": F("id", True, doc="the unit that lost them"),
        "men": F("int", low=0, high=200, default=0, doc="men killed or wounded (1 MORALE GRADE point each)"),
        "weapons": F("int", low=0, high=20, default=0, doc="squad weapons lost (2 points each)"),
        "sergeants": F("int", low=0, high=20, default=0, doc="sergeants lost (2 MORALE GRADE points each; count the man himself in men too)"),
    }),
    "status": ("SEQUENCE", "a unit's status as it stands on the table", {
        "unit": F("id", True, doc="the unit"),
        "status": F("choice", True, "statuses", doc="its status now"),
    }),
    "ammo": ("AMMO", "replenish a unit's ammunition", {
        "unit": F("id", True, doc="a unit whose rounds are counted (mortars, artillery)"),
        "rounds": F("int", True, low=1, high=500, doc="rounds brought up"),
    }),
    "add": ("SEQUENCE", "put a unit on the table", {
        "unit": F("id", True, doc="a new unit id"),
        "name": F("text", doc="its name (default: the id)"),
        "side": F("choice", True, ("american", "japanese"), doc="whose it is"),
        "nationality": F("choice", True, "nationalities", doc="its nationality"),
        "kind": F("text", True, doc="what it is, e.g. infantry, hmg, mortar, tank"),
        "figures": F("int", True, low=1, high=500, doc="its men (or vehicles)"),
        "officer": flag("an officer is attached to it"),
        "ammo": F("int", low=0, high=1000, doc="rounds, if its ammunition is counted"),
        "vehicle": F("choice", False, "tank_targets", doc="what its vehicles are, as a tank-fire target"),
    }),
    "spot": ("VISIBILITY/SPOTTING", "is a unit spotted?", {
        "kind": F("choice", True, ("infantry", "tank", "vehicle", "gun"), doc="what is looked for"),
        "in_jungle": flag("it is in jungle (cannot be seen)"),
        "in_los": flag("it is in the spotting unit's line-of-sight"),
        "moved_or_fired": flag("it moved or fired this turn"),
        "distance": F("int", low=0, high=500, default=0,
                      doc="inches to the spotting unit (a tank or vehicle out of line-of-sight: heard within 24)"),
    }),
    "report": ("VICTORY CONDITIONS", "facts on the table the victory conditions need (at least one)", {
        "japanese_at_bridge": F("bool", doc="the Japanese have reached the bridge"),
        "americans": F("choice", False, ("north", "south", "both"), doc="the bank(s) the Americans hold"),
        "destroyed": F("choice", False, "bridges", doc="a bridge destroyed on the table"),
    }),
    "demolition": ("Joker", "the engineers try to blow the bridge", {
        "bridge": F("choice", False, "bridges", default="road", doc="the bridge they try to blow"),
        "japanese_within_6": flag("Japanese within 6 inches (the Joker's modifier)"),
        "friendly_on_bridge": flag("friendly units on the bridge (the Joker's modifier)"),
        "officer": flag("an officer is with the engineers (the Joker's modifier)"),
    }),
    "call": ("INDIRECT FIRE", "call a fire mission an event put on call", {
        "mission": F("id", True, doc="the mission on call (named after the card that put it on call, e.g. H9)"),
        "at": F("text", True, doc="the target point, in words"),
    }),
    "draw": ("EVENT CARDS", "draw the card an event makes owed (Spades 4)", {
        "deck": F("choice", True, ("red", "black"), doc="the deck the event names"),
        "condition": F("bool", default=True, doc="false: the card's condition does not hold on the table, no card is drawn"),
    }),
    "sniped": ("MORALE", "a card sniper's shot: the hit figure's save, then the target's morale check", {
        "sniper": F("id", True, doc="the sniper who fired (his oldest shot not yet resolved)"),
        "terrain": F("choice", True, "terrains", doc="the target's terrain (saving throw)"),
        "position": F("choice", False, "terrains", doc="its morale position (default: terrain)"),
        "unit": F("id", doc="the unit hit (default: the unit the card names)"),
        "officer": F("bool", default=False, doc=OFFICER),
    }),
    "spotter": ("Hearts 10", "the circling spotter aircraft: its attack, or driven off or shot down", {
        "result": F("choice", True, ("attack", "driven-off", "shot-down"),
                    doc="attack: a unit larger than a squad is in the open"),
        "at": F("text", doc="the center of mass attacked"),
    }),
    "done": ("SEQUENCE", "all your units have moved and fired this turn", {}),
    "end": ("VICTORY CONDITIONS", "end the game; the victory conditions decide", {}),
}

#: one example per order type, as typed on a line in solo play
EXAMPLES: dict[str, str] = {
    "move": "move kind=infantry terrain=jungle unit=1-SQD",
    "fire": "fire weapon=rifle range=30 figures=12 terrain=open unit=1-SQD",
    "save": "save hits=2 terrain=woods unit=2-SQD",
    "indirect": 'indirect weapon=stokes unit=MORTAR at="the tree line"',
    "burst": "burst weapon=stokes figures=3 terrain=open",
    "grenade": "grenade range=5 figures=2 unit=2-SQD",
    "tankfire": "tankfire gun=us-37mm range=25 vehicle=japanese-light unit=TANKS",
    "melee": 'melee attacker=2-SQD defender=J-COY pairs="charging bayonet vs foxhole, vs"',
    "morale": "morale unit=3-SQD position=open officer=true",
    "loss": "loss unit=2-SQD men=1 sergeants=1",
    "status": "status unit=3-SQD status=pinned",
    "ammo": "ammo unit=ARTY rounds=10",
    "add": "add unit=PA-2 side=american nationality=pa kind=infantry figures=12",
    "spot": "spot kind=tank in_los=false distance=20",
    "report": "report japanese_at_bridge=false americans=north",
    "demolition": "demolition bridge=road japanese_within_6=true officer=true",
    "call": 'call mission=H9 at="the cross roads"',
    "draw": "draw deck=red",
    "sniped": "sniped sniper=J-SNP-1 terrain=woods",
    "spotter": 'spotter result=attack at="the village square"',
    "done": "done",
    "end": "end",
}


def _bad(where: str, name: str, what: str) -> InputError:
    return InputError(f"{where}: {name} {what}", field=name)


def parse_pairs(value: Any, where: str, modifiers: tuple[str, ...]) -> list[str] | int:
    """``3`` or ``["charging bayonet vs foxhole", "vs wounded"]`` (or one
    string with the pairs separated by commas); normal form: each pair's
    modifiers sorted, ``"bayonet charging vs foxhole"``.  A number typed on a
    line (``pairs=3``) is a number."""
    if isinstance(value, str) and re.fullmatch(r"\s*\d+\s*", value):
        value = int(value)
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


def allowed(spec: F, choices: Mapping[str, tuple[str, ...]], modifiers: tuple[str, ...], name: str = "") -> str:
    """What a field accepts, in words: ``"one of open, road, jungle, rice-paddy; default open"``."""
    if spec.kind == "int":
        text = f"a whole number from {spec.low} to {spec.high}"
    elif spec.kind == "bool":
        text = "true or false"
    elif spec.kind == "id":
        text = "a fire mission's id" if name == "mission" else "a unit id"
    elif spec.kind == "text":
        text = f"text, 1-{MAX_TEXT} characters"
    elif spec.kind == "choice":
        values = spec.choices if isinstance(spec.choices, tuple) else choices[spec.choices]
        text = "one of " + ", ".join(values)
    else:  # pairs
        text = ('a number of pairs (1-100), or each pair\'s modifiers, attacker\'s "vs" defender\'s, '
                'comma-separated: "charging bayonet vs foxhole, vs wounded"; modifiers: ' + ", ".join(modifiers))
    if spec.default is not None:
        default = str(spec.default).lower() if isinstance(spec.default, bool) else spec.default
        text += f"; default {default}"
    return text


def field_lines(kind: str, choices: Mapping[str, tuple[str, ...]], modifiers: tuple[str, ...]) -> list[str]:
    """One line per field of order ``kind``: its name (``*`` if required),
    what it accepts and what it means."""
    fields = ORDERS[kind][2]
    width = max((len(name) for name in fields), default=0) + 1
    return [f"{name + ('*' if spec.required else ''):<{width}} {allowed(spec, choices, modifiers, name)}"
            + (f" -- {spec.doc}" if spec.doc else "") for name, spec in fields.items()]


def order_help(kind: str, choices: Mapping[str, tuple[str, ...]], modifiers: tuple[str, ...],
               example: str | None = None) -> list[str]:
    """``help ORDER`` in solo play: what the order does, its fields with their
    allowed values, and an example line (``example``, or the static one)."""
    rule, doc, fields = ORDERS[kind]
    lines = [f"{kind} [{rule}]: {doc}"]
    if fields:
        lines.append('fields (* = required), typed as name=value; a value with spaces in quotes: at="the tree line"')
        lines += [f"  {line}" for line in field_lines(kind, choices, modifiers)]
    else:
        lines.append("no fields")
    lines.append(f"example: {example or EXAMPLES[kind]}")
    return lines


def to_line(order: Mapping[str, Any]) -> str:
    """An order as typed on a line in solo play (the inverse of :func:`parse_line`)."""
    words = [str(order["type"])]
    for name, value in order.items():
        if name == "type":
            continue
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, (list, tuple)):
            text = ", ".join(map(str, value))
        else:
            text = str(value)
        if not re.fullmatch(r"[A-Za-z0-9_.+-]+", text):
            text = f'"{text}"' if '"' not in text else shlex.quote(text)
        words.append(f"{name}={text}")
    return " ".join(words)


def help_lines() -> list[str]:
    """One line per order type: its fields (required ones marked *)."""
    lines = []
    for kind, (rule, doc, fields) in ORDERS.items():
        names = " ".join(f"{n}{'*' if f.required else ''}" for n, f in fields.items())
        lines.append(f"{kind:<10} [{rule}] {doc}" + (f"; fields: {names}" if names else ""))
    lines.append("help ORDER (e.g. help move): that order's fields, their allowed values and an example")
    return lines
