"""Optional rule 14.2 (Concealed Second-Wave Landing) in the players' view:
"The two Japanese battalions landing as the Second Wave are kept off-map
during setup.  The Japanese player secretly records the beach where each
will land on a note.  During the Recovery Phase of turn 1, the note is
revealed and the two battalions are placed."

From the Japanese setup to that Recovery Phase the two battalions are
off-map (``state.OFF_MAP``): ``pbem show`` (terminal, ``--svg``,
``--html``), ``pbem html`` and ``pbem orders`` draw them in an off-map box
for both sides, and the note's contents -- which beach each will land on --
reach no Allied output, file or page, nor a spectator's.
"""

from __future__ import annotations

import re
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import last_line
from everyday_support import EXAMPLES
from rich.console import Console

from engine_game.game import GAME as TEST_GAME
from pbem.errors import InputError
from pbem.games.ambon import GAME, setup
from pbem.app.orders_template import template, uncomment_examples
from pbem.render.hexmap import render_map
from pbem.render.svg import board_svg
from test_engine_render import board_of as stacks_board

SVG = "{http://www.w3.org/2000/svg}"
# A note naming two beaches no First Wave box of this setup is aimed at, so
# that neither lane id can reach an Allied output by any other road.
NOTE = "1:futu-mori 2:batu-song"
SECRETS = (NOTE, "1:futu-mori", "2:batu-song")
LANES = ("futu-mori", "batu-song")  # also secret wherever no box is named by its id (not SVG, not a page)
SECOND_WAVE = [f"{n}.{c}" for n in "12" for c in "ABCD"]
JAPANESE_SETUP = f"""\
[[order]]
wave = "fw-liang"
units = ["Kure-HQ", "Kure-1", "Kure-2", "Kure-3", "Kure-MG"]

[[order]]
wave = "fw-laha"
units = ["228-HQ", "3.A", "3.B", "3.C", "3.D", "228-Art"]

[[order]]
second_wave = "{NOTE}"

[[order]]
land = "fw-liang"

[[order]]
land = "fw-laha"
"""


def proposed(players):
    """Ann (Japanese) proposes a game with 14.2; Bob (Allied) joins with the
    historical setup; Ann, to move, sets up."""
    j, a = players
    r = j.run("new", j.game, "--game", "ambon", "--as", "japanese", "--opponent", a.pub(), "--rule", "14.2")
    assert r.exit_code == 0, r.output
    r = a.run("join", last_line(r.output), "--dir", a.game, "--orders", EXAMPLES / "ambon" / "1-allied-setup.toml")
    assert r.exit_code == 0, r.output
    r = j.run("receive", j.game, last_line(r.output))
    assert r.exit_code == 0, r.output
    return j, a


def play_file(player, tmp_path: Path, text: str) -> str:
    path = tmp_path / f"orders-{player.name}-{len(list(tmp_path.glob('orders-*')))}.toml"
    path.write_text(text)
    r = player.run("play", player.game, "--orders", path)
    assert r.exit_code == 0, r.output
    return r.output


@pytest.fixture
def off_map(players, tmp_path):
    """Message 2 exchanged: the Japanese First Wave lands at Liang and Laha;
    the 1st and 2nd Battalions are off-map, their beaches sealed; the Allies
    owe the landings' reveals."""
    j, a = proposed(players)
    said = play_file(j, tmp_path, JAPANESE_SETUP)
    assert "14.2" in said and "kept off-map" in said
    r = a.run("receive", a.game, last_line(said))
    assert r.exit_code == 0, r.output
    return j, a


def assert_nothing_sealed_in(text: str, where: str, lanes: bool = True) -> None:
    for secret in SECRETS + (LANES if lanes else ()):
        assert secret not in text, f"{secret!r} in {where}"


def boxes_of(svg: str) -> dict[str, list[str]]:
    """Every box of an SVG board -> the labels of the counters drawn in it."""
    root = ET.fromstring(svg.encode("utf-8"))
    found = {}
    for box in root.iter(f"{SVG}g"):
        if box.get("class") == "box":
            found[box.get("data-box")] = [stack.find(f"{SVG}title").text for stack in box.iter(f"{SVG}g")
                                          if stack.get("class") == "stack"]
    return found


def board_of(html: str) -> str:
    """The inline SVG of a page."""
    return re.search(r"<svg.*</svg>", html, re.S).group(0)


# --------------------------------------------------------------------------- pbem show


@pytest.mark.parametrize("columns", ["200", "80"])
def test_14_2_show_draws_the_board_with_battalions_off_map(off_map, columns):
    for player in off_map:
        r = player.run("show", player.game, COLUMNS=columns)
        assert r.exit_code == 0, r.output
        caption = "off-map / sealed (14.2):"
        box = next(line for line in r.output.splitlines() if line.startswith("off-map"))
        assert box.startswith(caption) and box[len(caption):].split() == [f"[{uid}]" for uid in SECOND_WAVE]
        assert "Kure-1" in r.output and "fw-laha" in r.output  # the rest of the board is there
        if columns == "80":  # the map and its boxes fit; prose (the events) is left to the terminal to wrap
            lines = r.output.splitlines()
            drawn = lines[:lines.index("Order of battle")]
            assert max(len(line) for line in drawn) <= 80
    j, a = off_map
    assert_nothing_sealed_in(a.run("show", a.game).output, "the Allied board")
    assert_nothing_sealed_in(a.run("show", a.game, "--json").output, "the Allied view")


def test_14_2_show_svg_and_html_draw_the_off_map_box(off_map, tmp_path):
    for player in off_map:
        svg, html = tmp_path / f"{player.name}.svg", tmp_path / f"{player.name}.html"
        r = player.run("show", player.game, "--svg", svg, "--html", html)
        assert r.exit_code == 0, r.output
        for drawn in (svg.read_text(), board_of(html.read_text())):
            boxes = boxes_of(drawn)
            assert boxes["off-map"] == SECOND_WAVE
            assert all(not set(SECOND_WAVE) & set(labels) for box, labels in boxes.items() if box != "off-map")
            assert boxes["fw-laha"] == ["228-HQ", "3.A", "3.B", "3.C", "3.D", "228-Art"]
        assert re.search(r"<td>1\.A</td>.*?<td>off-map</td>", html.read_text())
        if player.name == "bob":
            assert_nothing_sealed_in(svg.read_text(), "the Allied SVG", lanes=False)
            assert_nothing_sealed_in(html.read_text(), "the Allied page", lanes=False)


def test_14_2_html_for_a_spectator_holds_no_note(off_map, tmp_path):
    j, a = off_map
    for player in off_map:
        out = tmp_path / f"spectator-{player.name}.html"
        r = player.run("html", player.game, out, "--spectator")
        assert r.exit_code == 0, r.output
        assert boxes_of(board_of(out.read_text()))["off-map"] == SECOND_WAVE
        assert_nothing_sealed_in(out.read_text(), "a spectator's page", lanes=False)


def test_14_2_no_allied_file_holds_the_note(off_map, tmp_path):
    """Every file the Allied player holds -- the turn files, the keystore with
    its kept views -- and every turn file of the Japanese player."""
    j, a = off_map
    assert a.run("show", a.game).exit_code == 0  # keeps the view drawn (PBEM_HOME/views)
    for root in (a.game, a.home, j.game):
        for path in root.rglob("*"):
            if path.is_file():
                for secret in SECRETS:
                    assert secret.encode() not in path.read_bytes(), f"{secret!r} in {path}"


def test_14_2_the_off_map_box_is_gone_once_the_note_is_revealed(off_map, tmp_path):
    """The turn-1 Recovery Phase: the note is revealed, the battalions are
    placed, nothing is off-map any more (both sides play pbem's bot)."""
    from pbem.games.ambon.bot import AmbonBot
    from pbem.match import session
    from pbem.protocol.keystore import Keystore

    j, a = off_map
    players = {"japanese": j, "allied": a}
    for _ in range(8):
        match = session.load(j.game)
        if not any(u["where"] == "off-map" for u in match.view()["units"]):
            break
        mover = players[match.replay.next_side]
        other = a if mover is j else j
        identity = Keystore(mover.home).load(lambda: None)
        mine = session.load(mover.game, identity)
        doc = AmbonBot(mine.game).orders(mine.replay.state, mine.player.side, len(mine.transcript))
        sent = session.play(mover.game, identity, doc).path
        assert other.run("receive", other.game, sent).exit_code == 0
    else:
        pytest.fail("the Second Wave note was never revealed")
    r = a.run("show", a.game)
    assert r.exit_code == 0, r.output
    assert NOTE in a.run("log", a.game).output  # now public
    assert not any(line.startswith("off-map") for line in r.output.splitlines())
    assert "off-map" not in boxes_of(svg_of(a, tmp_path))


def svg_of(player, tmp_path) -> str:
    out = tmp_path / f"{player.name}-after.svg"
    r = player.run("show", player.game, "--svg", out)
    assert r.exit_code == 0, r.output
    return out.read_text()


# --------------------------------------------------------------------------- pbem orders


def test_14_2_the_japanese_setup_template_shows_the_note_and_its_example_plays(players, tmp_path):
    j, a = proposed(players)
    out = tmp_path / "setup.toml"
    r = j.run("orders", j.game, "--out", out)
    assert r.exit_code == 0, r.output
    text = out.read_text()
    assert re.search(r'^## .*second_wave = "BATTALION:LANE BATTALION:LANE"', text, re.M)
    example = re.search(r'^# second_wave = "([^"]+)"$', text, re.M).group(1)
    assert example == "1:hitu-lama 2:laha"  # the scenario's Second Wave boxes (sw-hitu-lama, sw-laha)
    live = tomllib.loads(uncomment_examples(text))
    parsed = GAME.parse_orders(live, "japanese")
    assert parsed.seals == {setup.SECOND_WAVE_SLOT: example}
    assert {"type": "second-wave", "battalions": ["1", "2"]} in parsed.public
    assert [o for o in live["order"] if "land" in o], "the turn-1 landings are offered with the setup"
    assert live["standing"]  # nothing was left out of the template
    (tmp_path / "live.toml").write_text(uncomment_examples(text))
    r = j.run("play", j.game, "--orders", tmp_path / "live.toml")
    assert r.exit_code == 0, r.output
    assert "kept off-map" in r.output
    assert a.run("receive", a.game, last_line(r.output)).exit_code == 0
    assert "1:hitu-lama" not in a.run("show", a.game, "--json").output


def test_14_2_every_example_of_the_japanese_setup_template_is_legal(players, tmp_path):
    """pbem orders leaves out an example that fails; none may fail here, or
    the template is cut short and nobody is told."""
    from pbem.match import session
    from pbem.protocol.keystore import Keystore

    j, _ = proposed(players)
    match = session.load(j.game, Keystore(j.home).load(lambda: None))
    body = template(match.game, match.replay.state, "japanese", match.player.store)
    offered = [o for s in body.sections for e in s.examples for o in (e if isinstance(e, list) else [e])]
    session.compose(match, {"order": offered, "standing": body.standing})


def test_14_2_the_allied_templates_mention_nothing_sealed(off_map, tmp_path):
    j, a = off_map
    r = a.run("orders", a.game)
    assert r.exit_code == 0, r.output
    assert_nothing_sealed_in(r.output, "the Allied template")
    r = a.run("orders", a.game, "--json")
    assert r.exit_code == 0, r.output
    assert_nothing_sealed_in(r.output, "the Allied template (JSON)")


def test_14_2_the_japanese_template_reminds_its_player_of_the_note(off_map, tmp_path):
    j, a = off_map
    reply = play_file(a, tmp_path, "")  # the Allied reveals; the landing dice are keyed
    assert j.run("receive", j.game, last_line(reply)).exit_code == 0
    r = j.run("orders", j.game)
    assert r.exit_code == 0, r.output
    assert f"{NOTE} [only you see this]" in r.output
    assert "1.A, 1.B, 1.C, 1.D, 2.A, 2.B, 2.C, 2.D" in r.output


# --------------------------------------------------------------------------- the renderers, for any game


def text_of(renderable, width: int = 120) -> str:
    console = Console(record=True, width=width, color_system="truecolor", file=open("/dev/null", "w"))
    console.print(renderable)
    return console.export_text()


def test_14_2_a_box_not_on_the_maps_list_is_drawn_as_a_box_not_parsed_as_a_hex():
    stacks = {"0303": [{"label": "R1", "side": "red"}],
              "off-map": [{"label": "1.A", "side": "red"}, {"label": "1.B", "side": "red"}],
              "reserve": [{"label": "B9", "side": "blue"}]}
    text = text_of(render_map(stacks_board(TEST_GAME.map, stacks, box_names={"reserve": "Reserve (turn 3)"})))
    # no side colours given: the sides in alphabetical order, blue [..] and red (..)
    assert "\noff-map: (1.A) (1.B)\n" in text + "\n" and "\nReserve (turn 3): [B9]\n" in text + "\n"
    boxes = boxes_of(board_svg(stacks_board(TEST_GAME.map, stacks, box_names={"reserve": "Reserve (turn 3)"})))
    assert boxes["off-map"] == ["1.A", "1.B"] and boxes["reserve"] == ["B9"]
    svg = ET.fromstring(board_svg(stacks_board(TEST_GAME.map, stacks)).encode())
    captions = [" ".join(bit.strip() for bit in t.itertext() if bit.strip()) for g in svg.iter(f"{SVG}g")
                if g.get("class") == "box" for t in g.iter(f"{SVG}text") if t.get("class") == "caption"]
    assert "off-map" in captions and "reserve" in captions and "Landing box -> 0101" in captions


def test_14_2_a_hex_number_off_the_map_is_still_an_error():
    for draw in (render_map, board_svg):
        with pytest.raises(InputError, match="hex '0909' is off the map"):
            draw(stacks_board(TEST_GAME.map, {"0909": [{"label": "X"}]}))
