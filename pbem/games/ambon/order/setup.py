"""The setup's orders: ``place``, ``conceal``, ``mine`` (4.1, the Allies),
``wave`` and ``second_wave`` (4.2, 14.2, the Japanese), and ``setup =
"historical"``, the scenario file's setup as those orders."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from pbem.engine.contract import Section
from pbem.engine.machine import Event, Ordered, illegal, replace
from pbem.errors import IllegalOrderError, InputError
from pbem.games.ambon import movement, setup
from pbem.games.ambon.order.base import Kind, Parts, PhaseOrder, hexlabel, unit_ids
from pbem.games.ambon.sequence import Phase
from pbem.games.ambon.state import ALLIED, JAPANESE, OFF_MAP, SETUP_ALLIED

if TYPE_CHECKING:
    from pbem.games.ambon.data import AmbonData
    from pbem.games.ambon.state import AmbonState


def _slot_value(value: Any, allowed: tuple[str, ...], where: str) -> None:
    if value not in allowed:
        raise InputError(f"{where}: is = {value!r} must be one of {', '.join(allowed)}", field="is")


def _fields(verb: str, words: list[str], names: tuple[str, ...]) -> dict[str, Any]:
    """``verb``'s value and then ``names``, one word each; a word left out is a field left out."""
    return {verb: words[0] if words else "", **dict(zip(names, words[1:], strict=False))}


class Place(PhaseOrder):
    """4.1: an Allied unit set up in a hex."""

    verb = "place"
    required = ("hex",)
    types = ("place",)
    forms = (('place = "AUS-HQ"  hex = "1215"', "Allied setup", "4.1"),)
    rules = ("4.1",)
    typed_forms = ('place AUS-HQ 1215 | conceal X1 0713 [dummy] | mine M1 mine-1 [real]   4.1 (the identity is sealed)',)

    def line(self, words: list[str]) -> dict[str, Any]:  # place AUS-HQ 1215
        return _fields(self.verb, words, ("hex",))

    def parse(self, data: "AmbonData", side: str, order: Mapping[str, Any], where: str, parts: Parts) -> None:
        parts.public.append({"type": "place", "unit": order["place"], "hex": hexlabel(data, order["hex"], where)})

    def phase(self, side: str) -> Phase:
        return Phase.SETUP_ALLIED

    def effect(self, data: "AmbonData", state: "AmbonState", action: Ordered) -> tuple["AmbonState", list[Event]]:
        unit, where = action.order["unit"], action.order["hex"]
        option = action.order.get("option")
        if option is not None and not state.option(str(option)):
            return state, []  # a placement for an optional rule not in use
        if unit in data.concealed_slots or not state.has_piece(unit) or state.piece(unit).side != ALLIED:
            raise illegal("4.1", f"{unit!r} is not an Allied unit in this game")
        if data.map.terrain_at(data.map.hex(where)) == movement.SEA:
            raise illegal("4.1", f"{unit} cannot set up in the sea hex {where}")
        return state.with_piece(replace(state.piece(unit), where=where)), []

    def offer(self, game: Any, state: "AmbonState", side: str, out: Any, **context: Any) -> None:
        out.append(f"  {self.forms[0][0]}")


class Conceal(PhaseOrder):
    """4.1: a concealed piece set up on a coastal hex, its identity sealed."""

    verb = "conceal"
    required = ("hex", "is")
    types = ("conceal",)
    forms = (('conceal = "X1"  hex = "0913"  is = "dummy"', "Allied setup, identity sealed", "4.1"),)
    rules = ("4.1",)

    def line(self, words: list[str]) -> dict[str, Any]:  # conceal X1 0713 [dummy|detachment]
        return _fields(self.verb, words, ("hex", "is"))

    def parse(self, data: "AmbonData", side: str, order: Mapping[str, Any], where: str, parts: Parts) -> None:
        _slot_value(order["is"], ("dummy", "detachment"), where)
        parts.public.append({"type": "conceal", "piece": order["conceal"], "hex": hexlabel(data, order["hex"], where)})
        parts.seals[order["conceal"]] = order["is"]

    def phase(self, side: str) -> Phase:
        return Phase.SETUP_ALLIED

    def effect(self, data: "AmbonData", state: "AmbonState", action: Ordered) -> tuple["AmbonState", list[Event]]:
        pid, where = action.order["piece"], action.order["hex"]
        if pid not in data.concealed_slots:
            raise illegal("4.1", f"{pid!r} is not a concealed piece ({setup.span(data.concealed_slots)})")
        if data.map.hex(where) not in data.map.coastal:
            raise illegal("4.1", f"concealed piece {pid} must be placed on a coastal hex, not {where}")
        return state.with_piece(replace(state.piece(pid), where=where)), []

    def offer(self, game: Any, state: "AmbonState", side: str, out: Any, **context: Any) -> None:
        out.append(f"  {self.forms[0][0]}   (sealed)")


class Mine(PhaseOrder):
    """4.1: a mine marker set in a mine box, real or dummy (sealed)."""

    verb = "mine"
    required = ("box", "is")
    types = ("mine",)
    forms = (('mine = "M1"  box = "mine-1"  is = "real"', "Allied setup, identity sealed", "4.1"),)
    rules = ("4.1",)

    def line(self, words: list[str]) -> dict[str, Any]:  # mine M1 mine-1 [real|dummy]
        return _fields(self.verb, words, ("box", "is"))

    def parse(self, data: "AmbonData", side: str, order: Mapping[str, Any], where: str, parts: Parts) -> None:
        _slot_value(order["is"], ("real", "dummy"), where)
        parts.public.append({"type": "mine", "marker": order["mine"], "box": str(order["box"])})
        parts.seals[order["mine"]] = order["is"]

    def phase(self, side: str) -> Phase:
        return Phase.SETUP_ALLIED

    def effect(self, data: "AmbonData", state: "AmbonState", action: Ordered) -> tuple["AmbonState", list[Event]]:
        marker, box = action.order["marker"], action.order["box"]
        if box not in data.map.boxes or data.map.boxes[box].kind != "mines":
            mine_boxes = [b for b, spec in data.map.boxes.items() if spec.kind == "mines"]
            raise illegal("4.1", f"mine marker {marker} must go in a mine box ({', '.join(mine_boxes)}), not {box!r}")
        return state.with_mine(replace(state.mine(marker), box=box)), []

    def offer(self, game: Any, state: "AmbonState", side: str, out: Any, **context: Any) -> None:
        out.append(f"  {self.forms[0][0]}   (sealed)")


class Wave(PhaseOrder):
    """4.2: Japanese units set up in a First or Second Wave box."""

    verb = "wave"
    required = ("units",)
    types = ("wave",)
    forms = (('wave = "fw-laha"  units = ["3.A", "3.B"]', "Japanese setup", "4.2"),)
    rules = ("4.2",)
    typed_forms = ('wave fw-laha 3.A 3.B 3.C 3.D 228-HQ  4.2',)

    def line(self, words: list[str]) -> dict[str, Any]:  # wave fw-laha 3.A 3.B ...
        return {"wave": words[0] if words else "", **({"units": words[1:]} if words[1:] else {})}

    def parse(self, data: "AmbonData", side: str, order: Mapping[str, Any], where: str, parts: Parts) -> None:
        if not unit_ids(order["units"]):
            raise InputError(f"{where}: units must be a list of unit ids", field="units")
        parts.public.append({"type": "wave", "box": order["wave"], "units": list(order["units"])})

    def phase(self, side: str) -> Phase:
        return Phase.SETUP_JAPANESE

    def effect(self, data: "AmbonData", state: "AmbonState", action: Ordered) -> tuple["AmbonState", list[Event]]:
        box, units = action.order["box"], action.order["units"]
        spec = data.map.boxes.get(box)
        if spec is None or spec.kind not in ("first-wave", "second-wave"):
            raise illegal("4.2", f"{box!r} is not a First or Second Wave box")
        pieces = []
        for unit in units:
            if not state.has_piece(unit) or state.piece(unit).side != JAPANESE:
                raise illegal("4.2", f"{unit!r} is not a Japanese unit")
            pieces.append(replace(state.piece(unit), where=box))
        return state.with_pieces(pieces), []

    def offer(self, game: Any, state: "AmbonState", side: str, out: Any, **context: Any) -> None:
        out.append('  wave = "FIRST-WAVE BOX"  units = ["UNIT", ...]' if context.get("second_wave")
                   else f"  {self.forms[0][0]}")


class SecondWave(PhaseOrder):
    """14.2: the two Second Wave battalions kept off-map, their beaches in a sealed note."""

    verb = "second_wave"
    types = ("second-wave",)
    forms = (('second_wave = "1:hitu-lama 2:laha"', "Japanese setup, the sealed note (battalion:lane ...)", "14.2"),)
    rules = ("14.2",)
    typed_forms = ('second_wave 1:hitu-lama 2:laha 3:laha   14.2 (the note is sealed)',)
    string_value = False

    def line(self, words: list[str]) -> dict[str, Any]:  # second_wave 1:hitu-lama 2:laha
        return {"second_wave": " ".join(words)}

    def parse(self, data: "AmbonData", side: str, order: Mapping[str, Any], where: str, parts: Parts) -> None:
        value = order["second_wave"]
        if not isinstance(value, str):
            raise InputError(f"{where}: second_wave must read like \"1:hitu-lama 2:laha\"", field="second_wave")
        try:
            plan = setup.parse_second_wave_note(data, value)
        except IllegalOrderError as err:
            raise InputError(f"{where}: {err}", field="second_wave") from err
        parts.public.append({"type": "second-wave", "battalions": sorted(plan)})
        parts.seals[setup.SECOND_WAVE_SLOT] = value

    def phase(self, side: str) -> Phase:
        return Phase.SETUP_JAPANESE

    def effect(self, data: "AmbonData", state: "AmbonState", action: Ordered) -> tuple["AmbonState", list[Event]]:
        """14.2: the two Second Wave battalions stay off-map; their beaches are in the sealed note."""
        if not state.option("14.2"):
            raise illegal("14.2", "the Second Wave is kept off-map only with optional rule 14.2")
        battalions = action.order.get("battalions", [])
        if len(battalions) != 2 or any(b not in setup.BATTALIONS for b in battalions):
            raise illegal("14.2", f"two battalions go in the Second Wave note, not {battalions!r}")
        pieces = [replace(state.piece(u), where=OFF_MAP) for b in battalions for u in setup.BATTALIONS[b]]
        return state.with_pieces(pieces), [
            Event("14.2", f"battalions {' and '.join(battalions)} are kept off-map; their beaches are in a sealed note")
        ]

    def offer(self, game: Any, state: "AmbonState", side: str, out: Any, **context: Any) -> None:
        out.append('  second_wave = "BATTALION:LANE BATTALION:LANE"')


#: the tables of an Allied ``setup = "historical"`` order: (field, the slots' data attribute, identities)
IDENTITY_TABLES = (("identities", "concealed_slots", ("dummy", "detachment")),
                   ("mines", "mine_slots", ("real", "dummy")))


class Setup(Kind):
    """``setup = "historical"``: the scenario file's setup as ``place``,
    ``conceal`` and ``mine`` orders (4.1) or ``wave`` orders (4.2); what it
    does is what those orders do (it has no effect of its own)."""

    verb = "setup"
    optional = ("identities", "mines", "shuffle")
    forms = (('setup = "historical"', "Japanese setup: the scenario file's", "4.2"),
             ('setup = "historical"  shuffle = true', "Allied setup: the scenario's, identities drawn by your pbem and sealed "
              "(or given: identities = { X1 = \"dummy\", ... }  mines = { M1 = \"real\", ... })", "4.1"))
    rules = ("4.1", "4.2")
    typed_forms = (
        "setup historical                     Japanese: the scenario's setup (4.2); with --both, Allied too (the house draws the identities)",
        "setup historical shuffle             Allied: the scenario's hexes, the identities drawn by your pbem (4.1)",
        'setup historical X1=dummy ... M1=real ...   Allied: ... and the identities you choose (sealed)',
    )
    #: the kinds of the orders it stands for
    expands = ("place", "conceal", "mine", "wave")

    def line(self, words: list[str]) -> dict[str, Any]:
        """``setup historical [shuffle] [X1=dummy ... M1=real ...]``; any
        other word is a field of that name (which :meth:`parse` refuses)."""
        order: dict[str, Any] = {"setup": words[0] if words else "historical"}
        for word in words[1:]:
            slot, eq, kind = word.partition("=")
            if word == "shuffle":
                order["shuffle"] = True
            elif eq and slot[:1] in ("X", "M"):
                order.setdefault("identities" if slot[:1] == "X" else "mines", {})[slot] = kind
            else:
                order[slot] = kind if eq else True
        return order

    def parse(self, data: "AmbonData", side: str, order: Mapping[str, Any], where: str, parts: Parts) -> None:
        if order["setup"] != "historical":
            raise InputError(f"{where}: the only setup shortcut is \"historical\"", field="setup")
        more, more_seals = historical(data, side, order, where)
        parts.public += more
        parts.seals.update(more_seals)

    def offer(self, game: Any, state: "AmbonState", side: str, out: Any, **context: Any) -> None:
        """4.1, 4.2, 14.2: the setup section of ``side``'s template, with
        the turn-1 landings the Japanese give in the same message."""
        if (state.phase == SETUP_ALLIED) != (side == ALLIED):
            return
        if side == ALLIED:
            data = game.data
            xs, ms = data.concealed_slots, data.mine_slots
            notes = ['setup = "historical" places every unit, concealed piece and mine marker where the scenario file',
                     "does; what each piece and marker is, is yours to decide (4.1), and is sealed:",
                     "  shuffle = true   your pbem draws them from your own randomness (the example below), or",
                     f'  identities = {{ {xs[0]} = "dummy", {xs[1]} = "detachment", ... }}  '
                     f'mines = {{ {ms[0]} = "real", {ms[1]} = "dummy", ... }}   (every one)',
                     "or one order per piece (examples/ambon/1-allied-setup.toml spells it out):"]
            for piece in (Place(), Conceal(), Mine()):
                piece.offer(game, state, side, notes)
            notes.append("4.1 requires:")
            notes += [f"  {text}" for text, *_ in setup.ALLIED_REQUIREMENTS]
            notes += [f"  {xs[0]}-{xs[-1]}: {data.identities['dummy']} dummies and {data.identities['detachment']} "
                      f"detachments on coastal hexes; {ms[0]}-{ms[-1]}: {data.mine_kinds['real']} real and "
                      f"{data.mine_kinds['dummy']} dummy mines"]
            out.awaited.append("your setup (4.1)")
            out.sections.append(Section("Allied setup (4.1)", notes, [{"setup": "historical", "shuffle": True}]))
        elif state.option("14.2"):
            data = game.data
            waves, note = second_wave_example(data)
            lanes = ", ".join(data.lanes)
            notes = ["14.2 (Concealed Second-Wave Landing): two battalions are kept off-map as the Second Wave; the",
                     "beach each will land on goes in a note sealed until the turn-1 Recovery Phase (pbem play reveals",
                     "it then and places them):"]
            SecondWave().offer(game, state, side, notes)
            notes += [f"  battalions {', '.join(setup.BATTALIONS)}; lanes {lanes}",
                      "and one order per First Wave box for the other units (4.2: Kure in one; the regimental HQ and the",
                      f"remaining battalion in another, {setup.REGIMENTAL_ARTILLERY} with them: it cannot stay off-map):"]
            Wave().offer(game, state, side, notes, second_wave=True)
            notes += ['setup = "historical" cannot be used: it fills the Second Wave boxes, which 14.2 keeps empty',
                      "and, in the same message, the turn-1 landings: land = FIRST-WAVE BOX (or postpone = ...)",
                      "the example below is the historical setup with its Second Wave off-map, bound for the beaches of",
                      "its Second Wave boxes; its wave and second_wave orders are legal only together: keep them all"]
            out.awaited.append("your setup (4.2, 14.2: the Second Wave note) and the turn-1 landings (6.0)")
            examples = [waves + [{"second_wave": note}]] + [{"land": w["wave"]} for w in waves]  # the setup: one group
            out.sections.append(Section("Japanese setup (4.2, 14.2) and landings (6.0)", notes, examples))
        else:
            notes = ['setup = "historical" puts each unit in its scenario box, or one order per box:']
            Wave().offer(game, state, side, notes)
            notes.append("and, in the same message, the turn-1 landings: land = FIRST-WAVE BOX (or postpone = ...)")
            out.awaited.append("your setup (4.2) and the turn-1 landings (6.0)")
            examples = [{"setup": "historical"}]
            examples += [{"land": lane.first_wave} for lane in game.data.lanes.values()]
            out.sections.append(Section("Japanese setup (4.2) and landings (6.0)", notes, examples))


def second_wave_example(data: Any) -> tuple[list[dict[str, Any]], str]:
    """14.2: the scenario's Japanese setup (``scenario-*.toml``
    ``[japanese.boxes]``) with its Second Wave kept off-map -- the ``wave``
    orders of its First Wave boxes, the units of its Second Wave boxes that
    are no battalion (the regimental artillery) moved to the box of the
    regimental HQ, and the note naming the lane of each Second Wave box's
    battalion, e.g. ``"1:hitu-lama 2:laha"``, checked by
    :func:`pbem.games.ambon.setup.parse_second_wave_note`."""
    boxes = data.map.boxes
    lane_of = {lane.second_wave: lane.id for lane in data.lanes.values()}
    battalion_of = {unit: n for n, units in setup.BATTALIONS.items() for unit in units}
    waves: dict[str, list[str]] = {}
    plan: dict[str, str] = {}
    others: list[str] = []
    for box, units in data.scenario["japanese"]["boxes"].items():
        if boxes[box].kind != "second-wave":
            waves[box] = list(units)
            continue
        for unit in units:
            if unit in battalion_of:
                plan[battalion_of[unit]] = lane_of[box]
            else:
                others.append(unit)
    hq_box = next(box for box, units in waves.items() if setup.REGIMENTAL_HQ in units)
    waves[hq_box] += others
    note = " ".join(f"{n}:{lane}" for n, lane in sorted(plan.items()))
    setup.parse_second_wave_note(data, note)
    return [{"wave": box, "units": units} for box, units in waves.items()], note


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
    for unit, label in allied["placements"].items():
        public.append({"type": "place", "unit": unit, "hex": label})
    for rule, spec in scen.get("optional", {}).items():  # e.g. 14.4's two units, placed only with the rule
        for unit, label in spec.get("placements", {}).items():
            public.append({"type": "place", "unit": unit, "hex": label, "option": rule})
    for piece, label in allied["concealed"].items():
        public.append({"type": "conceal", "piece": piece, "hex": label})
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
