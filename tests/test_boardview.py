"""The board view (pbem/engine/boardview.py, issue 29): a typed value each
game builds from the view a side sees, in words of no game -- and each
game's own words, as marks and legend entries, in its boardview module."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from pbem.engine import registry
from pbem.engine import contract
from pbem.engine.boardview import BoardView, Counter, Row, Stack, map_texts
from pbem.games.ambon import GAME as AMBON

ENGINE = Path(__file__).resolve().parent.parent / "pbem" / "engine" / "boardview.py"


def test_the_board_view_is_typed_without_any_and_holds_tuples():
    source = ENGINE.read_text(encoding="utf-8")
    assert not re.search(r"\bAny\b", source)
    fields = [ast.unparse(node.annotation) for cls in ast.parse(source).body if isinstance(cls, ast.ClassDef)
              for node in cls.body if isinstance(node, ast.AnnAssign)]  # the dataclasses' fields
    assert len(fields) > 30 and not [f for f in fields if re.search(r"\b(list|dict|set)\b", f)]  # tuples


@pytest.mark.parametrize("name", ["ambon", "calumpit", "asl", "dice"])
def test_every_shipped_game_builds_its_board_view_from_a_sides_view(name):
    game = registry.get(name)
    state = AMBON.scenario_state({"turn": 2, "phase": "japanese-movement"}) if name == "ambon" else game.initial_state({})
    view = game.view(state, game.sides[0], {})
    board = contract.board_of(game, view)
    assert isinstance(board, BoardView) and board.game == name
    assert [s.id for s in board.sides] == list(game.sides)
    assert board == game.board_view(view)  # a value: built twice, equal
    assert (board.map is not None) == (name == "ambon")


def ambon_board(side, secrets=None, **doc):
    state = AMBON.scenario_state({"turn": 8, "phase": "japanese-movement", **doc})
    return AMBON.board_view(AMBON.view(state, side, secrets or {}))


def counter(board: BoardView, label: str) -> Counter:
    return next(c for st in board.stacks + board.boxes for c in st.counters if c.label == label)  # type: ignore[operator]


def test_13_0_an_out_of_supply_unit_is_marked_oos_and_2_2_1_a_disrupted_one_hatched():
    board = ambon_board("japanese", positions={"2.A": "1608", "3.A": "1609"}, oos=["2.A"], disrupted=["3.A"])
    assert counter(board, "2.A").marks == ("OOS",) and counter(board, "3.A").marks == ("DISR",)
    assert board.entry("OOS").look == "badge" and board.entry("DISR").look == "hatched"
    assert "13.0" in board.entry("OOS").meaning
    row = next(r for r in board.rows if r.unit == "2.A")
    assert row.status == ("disrupted", "OOS") and dict(row.columns)["where"] == "1608"


def test_9_0_an_overstacked_hex_is_flagged_with_its_penalty():
    units = ("1.A", "1.B", "1.C", "1.D")
    board = ambon_board("japanese", positions=dict.fromkeys(units, "1608"))
    (flag,) = board.flags
    assert flag.where == "1608" and "functional overstacking (9.0)" in flag.why
    assert board.entry(flag.mark).look == "outline"


def test_4_1_a_concealed_pieces_identity_is_its_owners_only():
    doc = {"concealed": {"X1": "1409"}}
    theirs = counter(ambon_board("japanese", **doc), "X1")
    mine = counter(ambon_board("allied", {"X1": "detachment"}, **doc), "X1")
    assert theirs.marks == mine.marks == ("?",) and theirs.secret == "" and not theirs.private
    assert mine.secret == "DET" and mine.private and "detachment" in mine.tooltip
    assert "detachment" not in repr(ambon_board("japanese", **doc))


def test_6_1_mine_markers_lie_in_their_boxes_face_down_or_revealed():
    doc = {"mines": {"M1": "mine-1", "M2": "mine-1"}, "secret": {"M1": "real", "M2": "dummy"}}
    board = ambon_board("japanese", **doc)
    box = next(b for b in board.boxes if b.where == "mine-1")
    assert [(c.label, c.side, c.marks) for c in box.counters] == [("M1", None, ("MINE?",)), ("M2", None, ("MINE?",))]
    assert board.entry("MINE?").look == "hidden"
    allied = AMBON.scenario_secrets({**doc, "positions": {}})
    owner = next(b for b in ambon_board("allied", allied, **doc).boxes if b.where == "mine-1")
    assert [c.secret for c in owner.counters] == ["real", "dummy"] and all(c.private for c in owner.counters)


def test_3_0_eliminated_units_are_crossed_out_in_the_eliminated_units_box():
    board = ambon_board(None, positions={"2.B": "eliminated", "AUS-A": "eliminated"})
    box = next(b for b in board.boxes if b.where == "eliminated")
    assert sorted((c.label, c.side) for c in box.counters) == [("2.B", "japanese"), ("AUS-A", "allied")]
    assert all(board.entry(m).look == "crossed" for c in box.counters for m in c.marks)


def test_calumpit_rows_give_each_units_figures_grade_and_status():
    game = registry.get("calumpit")
    view = game.view(game.initial_state({}), None)
    board = game.board_view(view)
    assert board.rows and all(isinstance(r, Row) for r in board.rows)
    assert {"figures", "grade"} <= {h for r in board.rows for h, _ in r.columns}
    assert board.header[0].text() == f"turn {view['turn']}"


def test_map_texts_reaches_every_text_but_not_the_map():
    board = BoardView("g", (), AMBON.map, (Stack("1608", (Counter("a\x1b", "x", ("m",), "t"),)),))
    shown = map_texts(board, str.upper)
    assert shown.game == "G" and shown.stacks[0].counters[0] == Counter("A\x1b", "X", ("M",), "T")
    assert shown.map is AMBON.map
