"""The SVG board and the HTML page, read as documents (no browser): every box
filled from the position, labels that fit by the monospace measure, a
complete legend, the header with the position and, at game over, the verdict.
The same pictures in headless Chromium: tests/test_board_browser.py.

Positions are Ambon's own (``GAME.scenario_state``, the referee's position
format), seen by each side and by a spectator; the finished game is the
played game of seed 0 (tests/ambon_played.py), played once per session.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import replace
from html.parser import HTMLParser
from typing import Any

import pytest

from pbem.errors import InputError
from pbem.games.ambon import GAME
from pbem.render import board
from pbem.render.svg import EM, LINE, fit_label

SVG = "{http://www.w3.org/2000/svg}"

POSITION = {
    "turn": 2,
    "phase": "japanese-movement",
    "positions": {"1.A": "fw-liang", "1.B": "fw-liang", "2.A": "sw-laha", "2.C": "off-map", "AUS-A": "eliminated",
                  "2.B": "eliminated", "3.A": "1302", "3.B": "0813", "1.C": "1402", "AUS-B": "1412", "NEI-HQ": "1611"},
    "oos": ["3.A"],
    "disrupted": ["AUS-B"],
    "beachheads": ["1402"],
    "penalties": {"1.C": "-2mp"},
    "concealed": {"X1": "0713"},
    "mines": {"M1": "mine-1", "M2": "mine-1", "M3": "mine-2"},
    "secret": {"X1": "detachment", "M1": "real", "M2": "dummy", "M3": "real"},
}
SEATS = ("japanese", "allied", None)  # None: a spectator


def position_state():
    """POSITION, with mine M3 revealed real (6.1)."""
    state = GAME.scenario_state(POSITION)
    return replace(state, mines=tuple(replace(m, status="real") if m.id == "M3" else m for m in state.mines))


def view_of(side: str | None) -> dict[str, Any]:
    secrets = GAME.scenario_secrets(POSITION) if side == "allied" else {}
    return GAME.view(position_state(), side, secrets)


def drawn(side: str | None, **changes: Any) -> ET.Element:
    view = {**view_of(side), **changes}
    return ET.fromstring(board.board_svg(GAME, view, f"{side or 'spectator'}'s view").encode())


def boxes(root: ET.Element) -> dict[str, ET.Element]:
    return {g.get("data-box"): g for g in root.iter(f"{SVG}g") if g.get("class") == "box"}


def tips(element: ET.Element) -> list[str]:
    """The tooltip of each stack (one counter a stack in a box)."""
    return [g.find(f"{SVG}title").text for g in element.iter(f"{SVG}g") if g.get("class") == "stack"]


def texts(element: ET.Element, cls: str | None = None, sep: str = "") -> list[str]:
    """Each text's words (a label cut in two joined again by ``sep``)."""
    return [sep.join(bit.strip() for bit in t.itertext() if bit.strip()) for t in element.iter(f"{SVG}text")
            if cls is None or cls in (t.get("class") or "").split()]


# --------------------------------------------------------------------------- every box filled from the position


@pytest.mark.parametrize("side", SEATS)
def test_11_3_the_eliminated_units_box_shows_every_eliminated_unit(side):
    box = boxes(drawn(side))["eliminated"]
    assert sorted(tips(box)) == ["2.B", "AUS-A"]
    assert sorted(texts(box, "label")) == ["2.B", "AUS-A"]
    assert len([line for line in box.iter(f"{SVG}line") if line.get("class") == "crossed"]) == 4  # crossed out


def test_4_1_hidden_mines_are_face_down_to_the_opponent_and_the_spectator():
    for side in ("japanese", None):
        root = drawn(side)
        mine_1 = boxes(root)["mine-1"]
        assert sorted(texts(mine_1, "label")) == ["M1", "M2"] and texts(mine_1, "strip-text") == ["?", "?"]
        assert sorted(tips(mine_1)) == ["M1 (hidden)", "M2 (hidden)"]
        assert not re.search(r"real|dummy", " ".join(texts(mine_1)) + " ".join(tips(mine_1)), re.I)
        assert texts(boxes(root)["mine-2"], "strip-text") == ["REAL"]  # 6.1: revealed, for everyone


def test_4_1_the_allied_player_sees_what_each_hidden_mine_is_marked_only_you():
    mine_1 = boxes(drawn("allied"))["mine-1"]
    assert texts(mine_1, "strip-text") == ["REAL", "DUMMY"]
    assert tips(mine_1) == ["M1 (hidden (real), only you see this)", "M2 (hidden (dummy), only you see this)"]
    assert len([e for e in mine_1.iter() if e.get("class") == "private"]) == 2  # the dashed ring


@pytest.mark.parametrize("side", SEATS)
def test_6_0_and_14_2_landing_boxes_and_the_off_map_box_show_their_counters(side):
    found = boxes(drawn(side))
    assert tips(found["fw-liang"]) == ["1.A", "1.B"] and tips(found["sw-laha"]) == ["2.A"]
    assert tips(found["off-map"]) == ["2.C"]
    assert found["off-map"].get("data-kind") == "holding" and found["fw-liang"].get("data-kind") == "first-wave"
    assert texts(found["fw-laha"], "empty") == ["(empty)"]  # an empty box says so


# --------------------------------------------------------------------------- marks on the counters


def test_4_1_a_concealed_unit_is_a_question_mark_to_the_japanese_and_its_identity_to_its_owner():
    japanese, allied = drawn("japanese"), drawn("allied")
    for root, strip in ((japanese, "?"), (allied, "DET")):
        stack = next(g for g in root.find(f"{SVG}g[@id='counters']") if g.find(f"{SVG}title").text.startswith("X1"))
        assert texts(stack, "strip-text") == [strip]
    assert "detachment" not in ET.tostring(japanese, encoding="unicode") and "DET<" not in ET.tostring(japanese, encoding="unicode")
    tip = next(t for t in tips(allied) if t.startswith("X1"))
    assert tip == "X1 (concealed: detachment, only you see this)"


def test_13_0_an_out_of_supply_unit_carries_the_oos_strip_and_6_2_a_penalty_its_own():
    root = drawn(None)
    stacks = {g.find(f"{SVG}title").text.split()[0]: g for g in root.find(f"{SVG}g[@id='counters']")}
    assert texts(stacks["3.A"], "strip-text") == ["OOS"]
    assert texts(stacks["1.C"], "strip-text") == ["-2 MP"]  # 6.2: the board's badge for -2mp
    assert stacks["1.C"].find(f"{SVG}title").text == "1.C (-2 MP), beachhead"  # 6.5: the marker under it
    assert [e.get("class") for e in stacks["AUS-B"] if e.get("class") == "hatched"] == ["hatched"]  # disrupted


def test_9_0_overstacked_hexes_are_outlined_with_why_in_the_tooltip():
    root = drawn(None, overstacked={"1302": "physical overstacking (9.0): no attack, CF 1"})
    outlined = root.find(f"{SVG}g[@id='flagged']")
    assert [(p.get("data-hex"), p.find(f"{SVG}title").text) for p in outlined] == [
        ("1302", "1302: physical overstacking (9.0): no attack, CF 1")]
    assert "overstacked hex: physical overstacking (9.0): no attack, CF 1" in texts(root.find(f"{SVG}g[@id='legend']"))
    assert drawn(None, overstacked={}).find(f"{SVG}g[@id='flagged']") is None  # none overstacked: none outlined


@pytest.mark.parametrize("bad, message", [
    ({"overstacked": {"9999": "why"}}, "9999"),
    ({"overstacked": {"fw-laha": "why"}}, "fw-laha"),
    ({"stacks": {"0909x": [{"label": "1.A", "side": "japanese"}]}}, "0909x"),
])
def test_a_board_with_a_stack_or_flag_off_the_map_is_an_input_error_quoting_it(bad, message):
    with pytest.raises(InputError, match=re.escape(message)):
        drawn(None, **bad)


# --------------------------------------------------------------------------- labels that fit


def extent(text: ET.Element) -> tuple[float, float, float, float, list[str]]:
    """The most a text can cover, by the monospace measure: EM a character
    wide, from a cap height above its first baseline to a descent below
    its last."""
    lines = [t.text or "" for t in text.findall(f"{SVG}tspan")] or [text.text or ""]
    fs, x, y = float(text.get("font-size")), float(text.get("x")), float(text.get("y"))
    width = max(len(line) for line in lines) * EM * fs
    left = {"middle": x - width / 2, "end": x - width}.get(text.get("text-anchor"), x)
    return left, y - 0.76 * fs, left + width, y + (len(lines) - 1) * LINE * fs + 0.24 * fs, lines


def container(root: ET.Element, rid: str) -> tuple[float, float, float, float]:
    el = next(e for e in root.iter() if e.get("id") == rid)
    if el.tag == f"{SVG}circle":
        cx, cy, r = (float(el.get(k)) for k in ("cx", "cy", "r"))
        return cx - r, cy - r, cx + r, cy + r
    width = root.get("width") if el.get("width") == "100%" else el.get("width")
    height = root.get("height") if el.get("height") == "100%" else el.get("height")
    x, y = float(el.get("x")), float(el.get("y"))
    return x, y, x + float(width), y + float(height)


def overflowing(root: ET.Element) -> list[str]:
    bad = []
    for text in root.iter(f"{SVG}text"):
        if not text.get("data-in"):
            continue
        x0, y0, x1, y1, lines = extent(text)
        c0, d0, c1, d1 = container(root, text.get("data-in"))
        if x0 < c0 - 0.01 or x1 > c1 + 0.01 or y0 < d0 - 0.01 or y1 > d1 + 0.01:
            bad.append(f"{' / '.join(lines)!r} at {x0:.1f},{y0:.1f}-{x1:.1f},{y1:.1f} outside #{text.get('data-in')} "
                       f"{c0:.1f},{d0:.1f}-{c1:.1f},{d1:.1f}")
    return bad


@pytest.mark.parametrize("side", SEATS)
def test_every_counter_label_and_box_title_fits_its_container_by_the_monospace_measure(side):
    root = drawn(side, overstacked={"1302": "physical overstacking (9.0): no attack, CF 1"})
    assert len([t for t in root.iter(f"{SVG}text") if t.get("data-in")]) > 100
    assert overflowing(root) == []


def test_a_long_box_title_is_wrapped_or_shortened_and_the_box_tooltip_holds_it_all():
    found = boxes(drawn(None))
    for box_id in ("fw-hitu-lama", "fw-ambon", "sw-laha"):
        box = found[box_id]
        caption = next(t for t in box.iter(f"{SVG}text") if t.get("class") == "caption")
        lines = [t.text for t in caption.findall(f"{SVG}tspan")] or [caption.text]
        assert 1 <= len(lines) <= 2
        full = GAME.map.boxes[box_id].name + f" -> {GAME.map.label(GAME.map.boxes[box_id].target)}"
        assert box.find(f"{SVG}title").text == full
        assert " ".join(lines).endswith(full[-7:])  # the target hex is never cut off
    assert [t.text for t in found["fw-hitu-lama"].iter(f"{SVG}tspan")] == ["First Wave: Hitu Lama (north", "coast) -> 1402"]
    assert [t.text for t in found["fw-ambon"].iter(f"{SVG}tspan")] == ["First Wave: Batu Merah ->", "1511"]


@pytest.mark.parametrize("label, lines", [("1.A", ["1.A"]), ("NEI-1.C", ["NEI-", "1.C"]), ("X7:det", ["X7:", "det"]),
                                          ("beachhead", ["beach", "head"]), ("Kure-MG", ["Kure-", "MG"])])
def test_a_counter_label_is_cut_in_two_at_a_separator_when_that_is_larger(label, lines):
    got, size = fit_label(label, 24, 24, 12)
    assert got == lines and max(len(line) for line in got) * EM * size <= 24 and len(got) * LINE * size <= 24


# --------------------------------------------------------------------------- the legend and the header


def test_the_legend_explains_every_glyph_and_mark():
    root = drawn("allied", overstacked={"1302": "functional overstacking (9.0): CF halved"})
    legend = " | ".join(texts(root.find(f"{SVG}g[@id='legend']"), sep=" "))
    for words in ("key location", "town", "marker: beachhead", "OOS: out of supply", "hatched: disrupted",
                  "concealed: identity hidden", "only you see this", "Japanese unit (rounded corners)",
                  "Allied unit (square corners)", "overstacked hex: functional overstacking (9.0)", "stack:",
                  "mine marker, face down", "mine revealed: real",
                  "mine revealed: dummy", "eliminated", "-2 MP: landing penalty (landing table 6.2/6.3, not a mine): -2 MP this turn", "road", "river", "mountain"):
        assert words in legend, words


def test_the_svg_header_states_game_turn_phase_whose_move_and_vp():
    root = drawn(None)
    head = texts(root.find(f"{SVG}g[@id='header']"), "status")
    assert head == [f"ambon | turn 2 | phase japanese-movement | Japanese to act | VP {view_of(None)['vp']:+d}"]


# --------------------------------------------------------------------------- the finished game's page


_FINISHED: dict[str, Any] = {}


def finished_ambon(factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The played game of seed 0 (no optional rules), to its end, played once
    per session: its directory, and each player's identity."""
    if not _FINISHED:
        from ambon_played import identities, play_game

        root = factory.mktemp("ambon-finished")
        game = play_game(0, root, options=(), verify=False)
        assert game.phase == "over", game.summary()
        _FINISHED.update(root=root, directory=game.directory, keys=identities(root))
    return _FINISHED


def finished_match(factory: pytest.TempPathFactory, side: str | None):
    from ambon_played import PLAYERS

    from pbem.match import session

    done = finished_ambon(factory)
    name = PLAYERS[side or "allied"][0]
    return session.load(done["directory"] / name, done["keys"][side] if side else None)


class Fields(HTMLParser):
    """The page's header: data-field -> its text (list items one a line)."""

    def __init__(self):
        super().__init__()
        self.fields: dict[str, str] = {}
        self.field: str | None = None
        self.in_cell = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "tr" and "data-field" in attrs:
            self.field = attrs["data-field"]
            self.fields[self.field] = ""
        elif tag == "td" and self.field:
            self.in_cell = True
        elif tag in ("li", "p") and self.in_cell and self.fields[self.field]:
            self.fields[self.field] += "\n"

    def handle_endtag(self, tag):
        if tag == "tr":
            self.field, self.in_cell = None, False

    def handle_data(self, data):
        if self.in_cell:
            self.fields[self.field] += data


def header_of(page: str) -> dict[str, str]:
    parser = Fields()
    parser.feed(page)
    return parser.fields


@pytest.mark.parametrize("side", ["japanese", None])
def test_3_0_at_game_over_the_page_header_gives_the_verdict_with_every_vp_item(tmp_path_factory, side):
    from pbem.render.html import match_html

    match = finished_match(tmp_path_factory, side)
    page = match_html(match)
    fields = header_of(page)
    result = GAME.result(match.replay.state)
    assert fields["game"] == f"ambon (game id {match.transcript.game[:12]})"
    assert fields["turn"] == "10" and fields["phase"] == "over"
    assert fields["awaited"] == "nobody: the game is over and closed"
    assert fields["vp"] == str(match.view()["vp"])
    assert fields["verdict"].splitlines() == [line.strip() for line in result]
    assert result[0].startswith("The Japanese score") and len(result) > 3  # the VP items, one a line
    svg = ET.fromstring(re.search(r"<svg.*</svg>", page, re.S).group(0))
    assert texts(svg.find(f"{SVG}g[@id='header']"), "status")[1] == result[0]  # and on the board itself


def test_11_3_the_finished_games_eliminated_box_holds_every_eliminated_unit(tmp_path_factory):
    from pbem.render.html import match_html

    match = finished_match(tmp_path_factory, "allied")
    svg = ET.fromstring(re.search(r"<svg.*</svg>", match_html(match), re.S).group(0))
    eliminated = match.view()["eliminated"]
    assert len(eliminated) >= 8
    assert sorted(texts(boxes(svg)["eliminated"], "label")) == sorted(eliminated)
    assert overflowing(svg) == []


def test_while_the_game_goes_on_the_header_names_who_is_awaited(tmp_path):
    """An Ambon game after its first two messages: turn, phase, whose
    message is next (and to that player: your move), VP, no verdict."""
    import random

    from ambon_played import ALLIED, JAPANESE, identities, seeded_protocol

    from pbem.games.ambon.bot import AmbonBot
    from pbem.match import session
    from pbem.render.html import match_html

    keys = identities(tmp_path / "keys")
    with seeded_protocol(7):
        first = session.new_game(tmp_path / "kenji", "ambon", JAPANESE, keys[ALLIED].public, keys[JAPANESE])
        proposal = session.proposal_match(first, keys[ALLIED])
        orders = AmbonBot(GAME, random.Random(7)).orders(proposal.replay.state, ALLIED, 1)
        path, _ = session.join_game(first, tmp_path / "jack", keys[ALLIED], orders)
    waiting = session.load(tmp_path / "jack", keys[ALLIED])
    to_move = session.receive(tmp_path / "kenji", [path], keys[JAPANESE]).match
    for match, yours in ((waiting, ""), (to_move, " -- your move")):
        fields = header_of(match_html(match))
        assert fields["awaited"] == f"japanese, message 0002{yours}"
        assert fields["turn"] == str(match.view()["turn"]) and fields["vp"] == str(match.view()["vp"])
        assert fields["phase"].startswith(match.view()["phase"]) and "verdict" not in fields


# --------------------------------------------------------------------------- Calumpit and ASL: no board, the same header


@pytest.mark.parametrize("game, turn", [("calumpit", True), ("asl", False), ("dice", False)])
def test_a_board_less_game_has_the_same_header_and_its_verdict(tmp_path, game, turn):
    from pbem.app import demo
    from pbem.render.html import match_html

    report = demo.run(tmp_path, game)
    page = match_html(report.final)
    fields = header_of(page)
    view = report.final.view()
    assert fields["game"].startswith(f"{game} (game id ")
    assert fields["awaited"] == "nobody: the game is over and closed"
    assert ("turn" in fields) == turn and (not turn or fields["turn"] == str(view["turn"]))
    assert fields["verdict"]
    if game == "calumpit":
        assert fields["verdict"] == view["verdict"]  # Calumpit's own words
        assert "<h2>Position</h2>" in page and "<h2>Units</h2>" in page and "<h2>Bridges</h2>" in page
    assert "<svg" not in page
