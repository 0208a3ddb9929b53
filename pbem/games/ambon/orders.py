"""Ambon's orders as players write them: the syntax, checked without the
position (parsing is separate from legality: docs/architecture.md).

Orders are ``[[order]]`` tables, one verb each: :data:`ORDER_FORMS` (which
every orders template lists too), and ``[standing]`` instructions (docs/architecture.md, "Who decides"), :data:`STANDING_KINDS`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from pbem.engine import standing
from pbem.engine.machine import ParsedOrders
from pbem.errors import IllegalOrderError, InputError
from pbem.games.ambon import setup
from pbem.games.ambon.state import ALLIED

if TYPE_CHECKING:
    from pbem.games.ambon.data import AmbonData

#: every order as a player writes it: (the TOML, who gives it, its rules)
ORDER_FORMS = (
    ('place = "AUS-HQ"  hex = "1215"', "Allied setup", "4.1"),
    ('conceal = "X1"  hex = "0913"  is = "dummy"', "Allied setup, identity sealed", "4.1"),
    ('mine = "M1"  box = "mine-1"  is = "real"', "Allied setup, identity sealed", "4.1"),
    ('wave = "fw-laha"  units = ["3.A", "3.B"]', "Japanese setup", "4.2"),
    ('second_wave = "1:hitu-lama 2:laha"', "Japanese setup, the sealed note (battalion:lane ...)", "14.2"),
    ('setup = "historical"', "Japanese setup: the scenario file's", "4.2"),
    ('setup = "historical"  shuffle = true', "Allied setup: the scenario's, identities drawn by your pbem and sealed "
     "(or given: identities = { X1 = \"dummy\", ... }  mines = { M1 = \"real\", ... })", "4.1"),
    ('land = "fw-laha"  /  postpone = "fw-liang"', "Japanese Landing Phase", "6.0"),
    ('move = "3.A: 1410 1509"', "your Movement Phase: the path", "7.0"),
    ('move = "3.A to 1509"  /  move = "3.A to Laha"', "your Movement Phase: the cheapest legal path", "7.0"),
    ('bombard = "3.D"  target = "NEI-2.B"', "your Bombardment Phase (the defender's: 14.1)", "10.0, 14.1"),
    ('attack = "1609"  with = ["3.A", "3.B"]  hq = "228-HQ"', "your Combat Phase", "11.0, 11.1"),
    ('support = "NEI-HQ"  target = "1609"', "the defender's HQ answer", "11.1"),
    ('losses = ["NEI-2.B", "X3"]  target = "1609"', "the owner's answer after the die: who takes the hits", "11.3"),
    ('retreat = "retreat"  to = "1708 1607"  target = "1609"', "the defender's answer to r / R (or \"hit\")", "11.3"),
    ('advance = ["3.A"]  target = "1609"', "the attacker's answer after combat", "11.4"),
    ('surrender = "no"', "the Allies, at the start of turn 8", "3.2"),
    ('reveal = "X3"', "the owner, any time (voluntary)", "13.1"),
)

VERBS = {  # verb: (required fields, optional fields)
    "place": (("hex",), ()),
    "conceal": (("hex", "is"), ()),
    "mine": (("box", "is"), ()),
    "wave": (("units",), ()),
    "second_wave": ((), ()),
    "setup": ((), ("identities", "mines", "shuffle")),
    "land": ((), ()),
    "postpone": ((), ()),
    "move": ((), ()),
    "attack": (("with",), ("hq",)),
    "bombard": (("target",), ()),
    "surrender": ((), ()),
    "support": ((), ("target",)),
    "advance": ((), ("target",)),
    "losses": ((), ("target",)),
    "retreat": ((), ("target", "to")),
    "reveal": ((), ()),
}
STANDING_KINDS = {
    "hq-support": ("always", "never"),  # 11.1: support the defence whenever an HQ can
    "advance": ("always", "never"),  # 11.4: advance every eligible attacker into an emptied hex
    "retreat": ("retreat", "hit"),  # 11.3: answer an "r" result
    "retreat-to": None,  # 11.3: hexes in order of preference when 11.3 leaves a choice, and/or "toward-friends": "1708 1607"
    "surrender": ("never",),  # 3.2: fight on at the start of turn 8 (turns.toml) without being asked
    "losses": None,  # 11.3: units in the order they take hits, and/or "protect-hq": ["3.C", "3.A", "protect-hq"]
}

def _standing_lists(document: Mapping[str, Any]) -> Mapping[str, Any]:
    """``losses`` and ``retreat-to`` may be TOML arrays (``losses = ["3.C",
    "3.A", "protect-hq"]``): kept as the words of one instruction."""
    table = document.get("standing")
    if not isinstance(table, Mapping) or not any(isinstance(table.get(k), list) for k in ("losses", "retreat-to")):
        return document
    table = dict(table)
    for kind in ("losses", "retreat-to"):
        value = table.get(kind)
        if isinstance(value, list):
            if not all(isinstance(v, str) and v and " " not in v for v in value):
                raise InputError(f"standing.{kind}: a list of unit ids or hexes, got {value!r}", field=f"standing.{kind}")
            table[kind] = " ".join(value)
    return {**document, "standing": table}


def _where(index: int, verb: str) -> str:
    return f"order {index + 1} ({verb})"


def parse_orders(data: "AmbonData", document: Mapping[str, Any], side: str) -> ParsedOrders:
    """An orders document (``[[order]]`` tables, one verb each, and
    ``[standing]``) checked for syntax, not yet against the position."""
    unknown = sorted(set(document) - {"order", "standing"})
    if unknown:
        raise InputError(f"orders: unknown top-level key(s) {', '.join(unknown)}", field=unknown[0])
    document = _standing_lists(document)
    instructions = standing.parse(document, STANDING_KINDS)
    if "losses" in instructions:
        from pbem.games.ambon.combat import LOSS_POLICIES

        words = instructions["losses"].split()
        misplaced = [w for w in words[:-1] if w in LOSS_POLICIES]
        if misplaced or not words:
            raise InputError(f"standing.losses: {instructions['losses']!r}: units in the order they take hits, "
                             f"ending, if you want one, with the policy \"{LOSS_POLICIES[0]}\" (11.3)",
                             field="standing.losses")
    if "retreat-to" in instructions:
        from pbem.games.ambon.retreat import TOWARD_FRIENDS

        try:
            hexes = [h if h == TOWARD_FRIENDS else data.map.label(data.map.hex(h))
                     for h in instructions["retreat-to"].split()]
        except InputError as err:
            raise InputError(f"standing.retreat-to: {err} (give hexes in order of preference, e.g. \"1708 1607\")",
                             field="standing.retreat-to") from err
        instructions["retreat-to"] = " ".join(hexes)
    orders = document.get("order", [])
    if not isinstance(orders, list):
        raise InputError("orders: 'order' must be an array of tables ([[order]])", field="order")
    public: list[dict[str, Any]] = []
    seals: dict[str, str] = {}
    reveals: list[str] = []
    errors: list[InputError] = []
    for i, order in enumerate(orders):  # every order checked, each on its own: all the mistakes at once
        try:
            _parse_order(data, side, i, order, public, seals, reveals)
        except InputError as err:
            errors.append(err)
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise InputError(f"{len(errors)} orders are wrong:\n" + "\n".join(f"  {err}" for err in errors), field=errors[0].field)
    if instructions:
        public.insert(0, {"type": "standing", **instructions})
    return ParsedOrders(public=tuple(public), seals=seals, reveals=tuple(reveals))


def _parse_order(data: "AmbonData", side: str, i: int, order: Any, public: list[dict[str, Any]],
                 seals: dict[str, str], reveals: list[str]) -> None:
    """Order ``i`` of the document, checked and added to ``public``,
    ``seals`` and ``reveals``; an InputError naming it when it is wrong."""
    if not isinstance(order, Mapping):
        raise InputError(f"order {i + 1}: must be a table", field="order")
    verbs = [k for k in order if k in VERBS]
    if len(verbs) != 1:
        import difflib

        guesses = [g for k in order if k not in VERBS for g in difflib.get_close_matches(str(k), list(VERBS), n=1)]
        raise InputError(
            f"order {i + 1}: give exactly one of {', '.join(VERBS)} (got {', '.join(sorted(order)) or 'nothing'})"
            + (f"; did you mean {' or '.join(repr(g) for g in guesses)}?" if guesses and not verbs else ""),
            field="order",
        )
    verb = verbs[0]
    where = _where(i, verb)
    extra = set(order) - {verb} - set(VERBS[verb][0]) - set(VERBS[verb][1])
    missing = [k for k in VERBS[verb][0] if k not in order]
    if extra or missing:
        raise InputError(
            f"{where}: " + ", ".join([f"unknown field {k!r}" for k in sorted(extra)] + [f"missing field {k!r}" for k in missing]),
            field=(sorted(extra) + missing)[0],
        )
    value = order[verb]
    if verb not in ("second_wave", "advance", "losses") and not isinstance(value, str):
        raise InputError(f"{where}: {verb} must be a string, got {value!r}", field=verb)
    if verb == "place":
        public.append({"type": "place", "unit": value, "hex": _hexlabel(data, order["hex"], where)})
    elif verb == "conceal":
        _slot_value(order["is"], ("dummy", "detachment"), where)
        public.append({"type": "conceal", "piece": value, "hex": _hexlabel(data, order["hex"], where)})
        seals[value] = order["is"]
    elif verb == "mine":
        _slot_value(order["is"], ("real", "dummy"), where)
        public.append({"type": "mine", "marker": value, "box": str(order["box"])})
        seals[value] = order["is"]
    elif verb == "wave":
        units = order["units"]
        if not isinstance(units, list) or not all(isinstance(u, str) for u in units):
            raise InputError(f"{where}: units must be a list of unit ids", field="units")
        public.append({"type": "wave", "box": value, "units": list(units)})
    elif verb == "second_wave":
        if not isinstance(value, str):
            raise InputError(f"{where}: second_wave must read like \"1:hitu-lama 2:laha\"", field=verb)
        try:
            plan = setup.parse_second_wave_note(data, value)
        except IllegalOrderError as err:
            raise InputError(f"{where}: {err}", field=verb) from err
        public.append({"type": "second-wave", "battalions": sorted(plan)})
        seals[setup.SECOND_WAVE_SLOT] = value
    elif verb == "setup":
        if value != "historical":
            raise InputError(f"{where}: the only setup shortcut is \"historical\"", field=verb)
        more, more_seals = historical(data, side, order, where)
        public += more
        seals.update(more_seals)
    elif verb in ("land", "postpone"):
        public.append({"type": verb, "box": value})
    elif verb == "move":
        public.append(_move_order(data, value, where))
    elif verb == "reveal":
        reveals.append(value)
    elif verb == "support":
        public.append({"type": "support", "hq": value, **({"target": _hexlabel(data, order["target"], where)} if "target" in order else {})})
    elif verb == "attack":
        units = order["with"]
        if not isinstance(units, list) or not all(isinstance(u, str) for u in units):
            raise InputError(f"{where}: with must be a list of unit ids", field="with")
        hq = order.get("hq", "")
        if not isinstance(hq, str):
            raise InputError(f"{where}: hq must be an HQ's id", field="hq")
        public.append({"type": "attack", "target": _hexlabel(data, value, where), "with": list(units), "hq": hq})
    elif verb == "bombard":
        target = order["target"]
        if not isinstance(target, str):
            raise InputError(f"{where}: target must be a unit id", field="target")
        public.append({"type": "bombard", "unit": value, "target": target})
    elif verb == "surrender":
        if value not in ("yes", "no"):
            raise InputError(f"{where}: surrender = \"yes\" or \"no\"", field=verb)
        public.append({"type": "surrender", "answer": value})
    elif verb == "losses":
        if isinstance(value, str):
            value = value.split()
        if not isinstance(value, list) or not all(isinstance(u, str) and u for u in value):
            raise InputError(f"{where}: losses must be a list of unit ids, in the order they take the hits", field=verb)
        public.append({"type": "losses", "units": list(value), **_target(data, order, where)})
    elif verb == "retreat":
        if value not in ("retreat", "hit"):
            raise InputError(f"{where}: retreat = \"retreat\" or \"hit\" (refuse an r with an extra hit, 11.3)", field=verb)
        to = order.get("to", "")
        if isinstance(to, list):
            to = " ".join(str(h) for h in to)
        if not isinstance(to, str):
            raise InputError(f"{where}: to must be hexes in order of preference, e.g. \"1708 1607\"", field="to")
        hexes = [_hexlabel(data, h, where) for h in to.split()]
        public.append({"type": "retreat", "answer": value, **({"to": " ".join(hexes)} if hexes else {}),
                       **_target(data, order, where)})
    elif verb == "advance":
        if not isinstance(value, list) or not all(isinstance(u, str) for u in value):
            raise InputError(f"{where}: advance must be a list of unit ids ([] to stay)", field=verb)
        public.append({"type": "advance", "units": list(value), **({"target": _hexlabel(data, order["target"], where)} if "target" in order else {})})


def _move_order(data: "AmbonData", value: Any, where: str) -> dict[str, Any]:
    """7.0: ``"3.A: 1410 1509"`` (the path, from the unit's hex) or
    ``"3.A to 1509"`` or ``"3.A to Laha"`` (the destination, a hex number
    or a place's name: the engine finds the cheapest legal
    path when the order is applied, :func:`pbem.games.ambon.movement.path_to`)."""
    text = value if isinstance(value, str) else ""
    unit, sep, path = text.partition(":")
    if sep and unit.strip() and path.split():
        return {"type": "move", "unit": unit.strip(), "path": [_hexlabel(data, h, where) for h in path.split()]}
    unit, to, goal = text.partition(" to ")
    if not sep and to and unit.strip() and goal.strip() and not (goal.strip()[:1].isdigit() and len(goal.split()) > 1):
        goal = goal.strip()
        if not goal[:1].isdigit():  # a place's name: "3.A to Laha"
            try:
                goal = data.map.label(data.map.place(goal))
            except InputError as err:
                raise InputError(f"{where}: {err}", field="move") from err
        return {"type": "move", "unit": unit.strip(), "to": _hexlabel(data, goal, where)}
    raise InputError(f"{where}: move must read 'UNIT: HEX HEX ...' (the path) or 'UNIT to HEX' (the destination), "
                     f"got {value!r}", field="move")


def _target(data: "AmbonData", order: Mapping[str, Any], where: str) -> dict[str, str]:
    return {"target": _hexlabel(data, order["target"], where)} if "target" in order else {}


def _hexlabel(data: "AmbonData", text: Any, where: str) -> str:
    if not isinstance(text, str):
        raise InputError(f"{where}: hex must be a string like \"1609\", got {text!r}", field="hex")
    try:
        return data.map.label(data.map.hex(text))
    except InputError as err:
        raise InputError(f"{where}: {err}", field="hex") from err

def _slot_value(value: Any, allowed: tuple[str, ...], where: str) -> None:
    if value not in allowed:
        raise InputError(f"{where}: is = {value!r} must be one of {', '.join(allowed)}", field="is")

#: the tables of an Allied ``setup = "historical"`` order: (field, the slots' data attribute, identities)
IDENTITY_TABLES = (("identities", "concealed_slots", ("dummy", "detachment")),
                   ("mines", "mine_slots", ("real", "dummy")))


def _counts(data: "AmbonData", field: str) -> dict[str, int]:
    """4.1: how many of each identity a table holds (counters.toml, charts.toml)."""
    return dict(data.identities) if field == "identities" else dict(data.mine_kinds)


def _how_to_give(data: "AmbonData") -> str:
    xs, ms = data.concealed_slots, data.mine_slots
    return (f'add shuffle = true (your pbem draws them, from your own randomness) or give them: '
            f'identities = {{ {xs[0]} = "dummy", ... }} for {setup.span(xs)} ({data.identities["dummy"]} dummies, '
            f'{data.identities["detachment"]} detachments) and mines = {{ {ms[0]} = "real", ... }} for '
            f'{setup.span(ms)} ({data.mine_kinds["real"]} real, {data.mine_kinds["dummy"]} dummy)')


def historical(data: "AmbonData", side: str, order: Mapping[str, Any] | None = None,
               where: str = "setup") -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The scenario file's setup for ``side`` as explicit orders.  For the
    Allies (4.1) the file gives only where the concealed pieces and the
    mine markers stand; what each one is comes from ``order``'s
    ``identities`` and ``mines`` tables (sealed), which the player writes
    or their client draws (``shuffle = true``, :func:`draw`)."""
    order = order or {}
    scen = data.scenario
    public: list[dict[str, Any]] = []
    seals: dict[str, str] = {}
    given = [k for k in ("identities", "mines", "shuffle") if k in order]
    if side != ALLIED:
        if given:
            raise InputError(f"{where}: {given[0]} is the Allied setup's (4.1): the Japanese setup has no "
                             f"hidden identities", field=given[0])
        for box, units in scen["japanese"]["boxes"].items():
            public.append({"type": "wave", "box": box, "units": list(units)})
        return public, seals
    if order.get("shuffle", False) is not False:
        if order["shuffle"] is not True:
            raise InputError(f"{where}: shuffle = {order['shuffle']!r} must be true (or left out)", field="shuffle")
        raise InputError(f"{where}: shuffle = true is drawn by your pbem when it writes the message (pbem play, "
                         f"pbem join); these orders reached the rules undrawn", field="shuffle")
    tables = {}
    for field, attr, allowed in IDENTITY_TABLES:
        slots = getattr(data, attr)
        if field not in order:
            raise InputError(f'{where}: setup = "historical" places the concealed pieces and mine markers, but '
                             f"which pieces are dummies and which mines are real is the Allied player's secret (4.1): "
                             f"{_how_to_give(data)}", field=field)
        table = order[field]
        if not isinstance(table, Mapping):
            raise InputError(f"{where}: {field} must be a table like {{ {slots[0]} = \"{allowed[0]}\", ... }}, "
                             f"got {table!r}", field=field)
        unknown = [k for k in table if k not in slots]
        if unknown:
            raise InputError(f"{where}: {field}.{unknown[0]}: not one of {setup.span(slots)} (4.1)",
                             field=f"{field}.{unknown[0]}")
        wrong = [k for k in slots if k in table and table[k] not in allowed]
        if wrong:
            raise InputError(f"{where}: {field}.{wrong[0]} = {table[wrong[0]]!r} must be {' or '.join(allowed)}",
                             field=f"{field}.{wrong[0]}")
        missing = [k for k in slots if k not in table]
        if missing:
            raise InputError(f"{where}: {field} must give every one of {setup.span(slots)} (4.1); "
                             f"missing {', '.join(missing)}", field=f"{field}.{missing[0]}")
        tables[field] = table
    allied = scen["allied"]
    for unit, hexlabel in allied["placements"].items():
        public.append({"type": "place", "unit": unit, "hex": hexlabel})
    for rule, spec in scen.get("optional", {}).items():  # e.g. 14.4's two units, placed only with the rule
        for unit, hexlabel in spec.get("placements", {}).items():
            public.append({"type": "place", "unit": unit, "hex": hexlabel, "option": rule})
    for piece, hexlabel in allied["concealed"].items():
        public.append({"type": "conceal", "piece": piece, "hex": hexlabel})
        seals[piece] = tables["identities"][piece]
    for marker, box in allied["mines"].items():
        public.append({"type": "mine", "marker": marker, "box": box})
        seals[marker] = tables["mines"][marker]
    return public, seals


def drawn_identities(data: "AmbonData", field: str, rng: Any) -> dict[str, str]:
    """One table of 4.1's identities drawn with ``rng`` (a ``random.Random``:
    the client's own randomness): the data's counts, shuffled over the slots."""
    attr, allowed = next((a, al) for f, a, al in IDENTITY_TABLES if f == field)
    counts = _counts(data, field)
    values = [kind for kind in allowed for _ in range(counts[kind])]
    rng.shuffle(values)
    return dict(zip(getattr(data, attr), values, strict=False))


def draw(data: "AmbonData", document: Mapping[str, Any], side: str, rng: Any) -> dict[str, Any]:
    """``document`` with every Allied ``setup = "historical"  shuffle = true``
    drawn: the ``identities`` and ``mines`` tables it leaves out filled
    with ``rng`` (:func:`drawn_identities`) and ``shuffle`` removed, so the
    message seals (and the player is shown) the values drawn once.  Pure
    given ``rng``; anything else is returned as it is (parse_orders judges it)."""
    listed = document.get("order") if isinstance(document, Mapping) else None
    if side != ALLIED or not isinstance(listed, list):
        return dict(document) if isinstance(document, Mapping) else document
    out = []
    for order in listed:
        if isinstance(order, Mapping) and order.get("setup") == "historical" and order.get("shuffle") is True:
            order = {k: v for k, v in order.items() if k != "shuffle"}
            for field, _, _ in IDENTITY_TABLES:
                order.setdefault(field, drawn_identities(data, field, rng))
        out.append(order)
    return {**document, "order": out}
