"""Ambon's order kinds, each one unit (pbem/games/ambon/order): every kind
registered with its syntax, its legality and effect, its template choices
and its reference row; and solo play's typed lines parsed by the same
kind's parser as a file's ``[[order]]`` table, with the same errors."""

from __future__ import annotations

import random
import tomllib
from pathlib import Path

import pytest

from pbem.engine import contract
from pbem.engine.machine import Ordered
from pbem.errors import IllegalOrderError, InputError, PbemError
from pbem.games.ambon import GAME, handlers
from pbem.games.ambon.order import BY_TYPE, FORMS, KINDS, STANDING, Kind, kind, typed, typed_help
from pbem.games.ambon.order.base import PhaseOrder
from pbem.games.ambon.orders import ORDER_FORMS, VERBS
from pbem.games.ambon.solo import parse_line
from pbem.games.ambon.state import ALLIED, JAPANESE

POSITION_15_0 = Path(__file__).parent.parent / "examples" / "ambon" / "position-15-0.toml"


def _overrides(k: Kind, method: str) -> bool:
    return getattr(type(k), method) is not getattr(Kind, method)


def _written(verb: str) -> bool:
    """Whether the template's reference of every order writes ``verb`` (``verb = ...``)."""
    return any(form.split(" = ", 1)[0] == verb for row, _, _ in FORMS for form in row.split("  /  "))


def _typed(verb: str) -> bool:
    """Whether solo play's help shows a typed line of ``verb``."""
    return any(seg.split()[0] == verb for line in typed_help().splitlines() for seg in line.split(" | "))


def _parsed(doc: dict, side: str):
    return GAME.parse_orders(contract.drawn(GAME, doc, side, random.Random(3)), side)


def test_every_order_kind_is_registered_with_syntax_legality_effect_and_template():
    """Each kind: parses its table and its typed line, applies (or stands
    for other kinds' orders, or for the message's reveal), offers its
    choices in the template, and is written in the template's reference."""
    assert list(KINDS) == list(VERBS) and len(KINDS) == 17
    for verb, k in {**KINDS, STANDING.verb: STANDING}.items():
        assert k.verb == verb and k.rules, verb
        assert _overrides(k, "parse") and _overrides(k, "offer"), verb  # syntax; template
        assert _typed(verb), verb  # its typed line, in solo play's help
        if verb != STANDING.verb:
            assert verb in kind(verb).line(["x"]) or verb == "retreat" and "retreat" in k.line([]), verb
            assert _written(verb), verb
        if k.types:  # legality and effect: the dispatch reaches this kind for each type it parses to
            assert _overrides(k, "apply") or isinstance(k, PhaseOrder) and _overrides(k, "effect"), verb
            assert all(BY_TYPE[t] is k for t in k.types), verb
    assert set(BY_TYPE) == {t for k in (STANDING, *KINDS.values()) for t in k.types}
    assert ORDER_FORMS == FORMS


def test_4_1_4_2_setup_stands_for_orders_of_registered_kinds():
    """4.1, 4.2: ``setup = "historical"`` has no effect of its own: it
    parses to the orders of the kinds it names, each of them registered."""
    setup = KINDS["setup"]
    assert not setup.types and not _overrides(setup, "apply")
    for side in (ALLIED, JAPANESE):
        public = _parsed({"order": [{"setup": "historical", **({"shuffle": True} if side == ALLIED else {})}]}, side).public
        assert {o["type"] for o in public} <= set(setup.expands) and public  # type: ignore[attr-defined]
        assert all(o["type"] in BY_TYPE for o in public)


def test_13_1_reveal_is_made_by_the_message_not_applied_as_an_order():
    """13.1: a voluntary reveal parses to the message's reveals, never to an order the rules apply."""
    parsed = GAME.parse_orders({"order": [{"reveal": "X3"}]}, ALLIED)
    assert parsed.public == () and parsed.reveals == ("X3",)
    assert not KINDS["reveal"].types and not _overrides(KINDS["reveal"], "apply")


def test_5_0_every_parsed_order_of_the_reference_goes_to_its_kind():
    """5.0: every row of the template's reference parses to orders whose
    ``type`` the dispatch knows; an unknown type is refused by 5.0."""
    for row, _, _ in FORMS:
        for form in row.split("  /  "):
            doc = tomllib.loads("[[order]]\n" + form.replace("  ", "\n"))
            verb = next(iter(doc["order"][0]))
            for side in (JAPANESE, ALLIED):
                try:
                    public = _parsed(doc, side).public
                except PbemError:
                    continue
                assert all(o["type"] in BY_TYPE for o in public), form
                assert all(BY_TYPE[o["type"]] is KINDS[verb] or verb == "setup" for o in public), form
    state = GAME.initial_state({})
    with pytest.raises(IllegalOrderError, match="5.0.*'charge' is not an Ambon order"):
        handlers.ordered(GAME.data, state, Ordered(ALLIED, 1, 0, {"type": "charge"}))


def test_5_0_a_phase_order_of_the_other_side_is_refused_by_its_kind():
    """5.0: a kind given in its side's own phase names whose it is."""
    state = GAME.initial_state({})
    with pytest.raises(IllegalOrderError, match="5.0: order 1: a wave order is the japanese player's"):
        GAME.apply(state, Ordered(ALLIED, 1, 0, {"type": "wave", "box": "fw-laha", "units": ["3.A"]}))


# --------------------------------------------------------------------------- solo lines and file tables

#: (rule, the typed line, the same order as a file's [[order]] table in TOML, the side)
SAME = [
    ("4.1", "place AUS-HQ 1215", 'place = "AUS-HQ"\nhex = "1215"', ALLIED),
    ("4.1", "conceal X1 0913 dummy", 'conceal = "X1"\nhex = "0913"\nis = "dummy"', ALLIED),
    ("4.1", "mine M1 mine-1 real", 'mine = "M1"\nbox = "mine-1"\nis = "real"', ALLIED),
    ("4.1", "setup historical shuffle", 'setup = "historical"\nshuffle = true', ALLIED),
    ("4.2", "setup historical", 'setup = "historical"', JAPANESE),
    ("4.2", "wave fw-laha 3.A 3.B", 'wave = "fw-laha"\nunits = ["3.A", "3.B"]', JAPANESE),
    ("14.2", "second_wave 1:hitu-lama 2:laha", 'second_wave = "1:hitu-lama 2:laha"', JAPANESE),
    ("6.0", "land fw-laha", 'land = "fw-laha"', JAPANESE),
    ("6.0", "postpone fw-liang", 'postpone = "fw-liang"', JAPANESE),
    ("7.0", "move 3.A: 1410 1509", 'move = "3.A: 1410 1509"', JAPANESE),
    ("7.0", "move 3.A 1410 1509", 'move = "3.A: 1410 1509"', JAPANESE),
    ("7.0", "move 3.A to 1509", 'move = "3.A to 1509"', JAPANESE),
    ("7.0", "move 3.A to Laha", 'move = "3.A to Laha"', JAPANESE),
    ("10.0", "bombard 3.D NEI-2.B", 'bombard = "3.D"\ntarget = "NEI-2.B"', JAPANESE),
    ("11.0", "attack 1609 with 3.A 3.B", 'attack = "1609"\nwith = ["3.A", "3.B"]', JAPANESE),
    ("11.1", "attack 1609 with 3.A 3.B hq 228-HQ", 'attack = "1609"\nwith = ["3.A", "3.B"]\nhq = "228-HQ"', JAPANESE),
    ("11.1", "support NEI-HQ 1609", 'support = "NEI-HQ"\ntarget = "1609"', ALLIED),
    ("11.1", "support none", 'support = "none"', ALLIED),
    ("11.3", "losses NEI-2.B X3 1609", 'losses = ["NEI-2.B", "X3"]\ntarget = "1609"', ALLIED),
    ("11.3", "retreat 1609 to 1708 1607", 'retreat = "retreat"\nto = "1708 1607"\ntarget = "1609"', ALLIED),
    ("11.3", "retreat hit 1609", 'retreat = "hit"\ntarget = "1609"', ALLIED),
    ("11.4", "advance 3.A 1609", 'advance = ["3.A"]\ntarget = "1609"', JAPANESE),
    ("11.4", "advance", "advance = []", JAPANESE),
    ("3.2", "surrender no", 'surrender = "no"', ALLIED),
    ("13.1", "reveal X3", 'reveal = "X3"', ALLIED),
]


def _file(table: str) -> dict:
    return tomllib.loads("[[order]]\n" + table)


@pytest.mark.parametrize(("rule", "line", "table", "side"), SAME, ids=[f"{r}-{line}" for r, line, _, _ in SAME])
def test_a_solo_line_is_the_file_table_and_parses_to_the_same_order(rule, line, table, side):
    """4.1-14.2: a typed line is the ``[[order]]`` table a file holds for the same order, parsed alike."""
    doc = _file(table)
    assert parse_line(line) == typed(line) == doc["order"][0], rule
    rng = random.Random(5)
    solo_doc = contract.drawn(GAME, {"order": [parse_line(line)]}, side, rng)
    file_doc = contract.drawn(GAME, doc, side, random.Random(5))
    assert GAME.parse_orders(solo_doc, side) == GAME.parse_orders(file_doc, side)


def test_11_3_a_standing_line_is_the_files_standing_entry():
    """11.1, 11.3: ``standing losses=protect-hq`` is the file's ``[standing] losses = "protect-hq"``."""
    assert parse_line("standing losses=protect-hq") == ("standing", ("losses", "protect-hq"))
    file_doc = tomllib.loads('[standing]\nlosses = "protect-hq"\nhq-support = "always"')
    solo_doc = {"standing": dict(parse_line(w)[1] for w in ("standing losses=protect-hq",  # type: ignore[index,misc]
                                                            "standing hq-support=always"))}
    assert GAME.parse_orders(solo_doc, ALLIED) == GAME.parse_orders(file_doc, ALLIED)


#: (rule, the mistaken line, the same mistake in a file's [[order]] table, the side, the field both errors name)
MISTAKES = [
    ("4.1", "place AUS-HQ", 'place = "AUS-HQ"', ALLIED, "hex"),
    ("4.1", "conceal X1 0913 spy", 'conceal = "X1"\nhex = "0913"\nis = "spy"', ALLIED, "is"),
    ("4.1", "mine M1", 'mine = "M1"', ALLIED, "box"),
    ("4.1", "setup historical X1=spy", 'setup = "historical"\nidentities = { X1 = "spy" }', ALLIED, "identities.X1"),
    ("4.1", "setup historical quickly", 'setup = "historical"\nquickly = true', ALLIED, "quickly"),
    ("4.1", "setup random", 'setup = "random"', ALLIED, "setup"),
    ("4.2", "wave fw-laha", 'wave = "fw-laha"', JAPANESE, "units"),
    ("14.2", "second_wave 1:nowhere", 'second_wave = "1:nowhere"', JAPANESE, "second_wave"),
    ("7.0", "move 3.A", 'move = "3.A"', JAPANESE, "move"),
    ("7.0", "move 3.A to 9999", 'move = "3.A to 9999"', JAPANESE, "hex"),
    ("7.0", "move 3.A to Atlantis", 'move = "3.A to Atlantis"', JAPANESE, "move"),
    ("10.0", "bombard 3.D", 'bombard = "3.D"', JAPANESE, "target"),
    ("11.0", "attack 1609", 'attack = "1609"', JAPANESE, "with"),
    ("11.0", "attack 99 with 3.A", 'attack = "99"\nwith = ["3.A"]', JAPANESE, "hex"),
    ("11.3", "retreat 1609 to 0000", 'retreat = "retreat"\nto = "0000"\ntarget = "1609"', ALLIED, "hex"),
    ("3.2", "surrender maybe", 'surrender = "maybe"', ALLIED, "surrender"),
    ("5.0", "charge 1609", 'charge = "1609"', JAPANESE, "order"),
    ("5.0", "atack 1609 with 3.A", 'atack = "1609"', JAPANESE, "order"),
]


@pytest.mark.parametrize(("rule", "line", "table", "side", "field"), MISTAKES,
                         ids=[f"{r}-{line}" for r, line, _, _, _ in MISTAKES])
def test_the_same_mistake_as_a_solo_line_and_in_a_file_gets_the_same_error(rule, line, table, side, field):
    """4.1-14.2, 5.0: a mistaken line is refused with the error the same
    mistake in a file gets, naming the same field."""
    errors = []
    for doc in ({"order": [parse_line(line)]}, _file(table)):
        with pytest.raises(InputError) as err:
            GAME.parse_orders(doc, side)
        errors.append((str(err.value), err.value.field))
    assert errors[0] == errors[1] and errors[0][1] == field, rule


def test_7_0_the_file_grammar_reads_the_solo_table_with_earlier_orders_counted():
    """7.0: in solo play a line is added to the message's orders so far:
    its error names it by its place among them, as a file's would."""
    earlier = [{"land": "fw-laha"}, {"land": "fw-liang"}]
    with pytest.raises(InputError) as solo_err:
        GAME.parse_orders({"order": earlier + [parse_line("move 3.A")]}, JAPANESE)
    file_doc = tomllib.loads('[[order]]\nland = "fw-laha"\n[[order]]\nland = "fw-liang"\n[[order]]\nmove = "3.A"')
    with pytest.raises(InputError) as file_err:
        GAME.parse_orders(file_doc, JAPANESE)
    assert str(solo_err.value) == str(file_err.value)
    assert str(solo_err.value).startswith("order 3 (move): move must read")


def test_11_0_the_template_offers_each_kind_from_the_kind():
    """11.0, 10.0, 7.0: the template's sections of a phase's choices are each kind's offer."""
    from pbem.engine.contract import Sections

    state = GAME.scenario_state(tomllib.loads(POSITION_15_0.read_text()))
    whole = GAME.orders_template(state, JAPANESE, {})
    for verb, title in (("move", "Movement (7.0-9.0)"), ("attack", "Combat (11.0)")):
        out = Sections()
        KINDS[verb].offer(GAME, state, JAPANESE, out)
        mine = [s for s in out.sections if s.title.startswith(title)]
        assert mine and all(any(s.title == m.title and s.notes == m.notes for s in whole.sections) for m in mine), verb


def test_7_0_10_0_11_0_the_tables_the_bots_build_are_the_kinds_own():
    """7.0, 10.0, 11.0: the house player's and the simple bot's move,
    bombardment and attack tables come from the kind, the same a file or a
    typed line gives."""
    from pbem.games.ambon.order.attack import Attack
    from pbem.games.ambon.order.bombard import Bombard
    from pbem.games.ambon.order.move import Move

    assert Move.along("3.A", ["1410", "1509"]) == parse_line("move 3.A 1410 1509") == _file('move = "3.A: 1410 1509"')["order"][0]
    assert Bombard.at("3.D", "NEI-2.B") == parse_line("bombard 3.D NEI-2.B")
    assert Attack.on("1609", ["3.A", "3.B"]) == parse_line("attack 1609 with 3.A 3.B")
