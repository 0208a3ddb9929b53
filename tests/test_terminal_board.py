"""The board in a terminal (pbem.render.hexmap, pbem.render.board): a hex
grid readable at 80 columns, every stack keyed and listed with full unit ids,
sides told apart without colour, every mark explained, and a window that
follows the play (``pbem show --around/--radius/--full``)."""

from __future__ import annotations

import re

import pytest
from rich.console import Console

from engine_game.game import GAME as TEST_GAME
from pbem.engine.machine import Event
from pbem.engine.mapdata import load_map
from pbem.errors import InputError
from pbem.games.ambon import GAME as AMBON
from pbem.render import board
from pbem.engine.boardview import BoardView, LegendEntry, glyph_of
from pbem.render.hexmap import key_stacks, render_map, window_for
from test_engine_render import after_red_moves, big_map, board_of  # the test game after red's moves; a plain map

COLOURS = {s.id: s.colour for s in TEST_GAME.counters.sides.values()}
NAMES = {s.id: s.name for s in TEST_GAME.counters.sides.values()}


def text_of(renderable, width: int = 120, colour: bool = False) -> str:
    console = Console(record=True, width=width, color_system="truecolor" if colour else None,
                      file=open("/dev/null", "w"))
    console.print(renderable)
    return console.export_text(styles=colour)


def ambon_board(width: int = 80, you: str = "japanese", secrets=None, **doc) -> str:
    state = AMBON.scenario_state(doc)
    view = AMBON.view(state, you, secrets)
    console = Console(record=True, width=width, color_system=None, file=open("/dev/null", "w"))
    board.print_board(console, AMBON, view, you=you)
    return console.export_text()


def map_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if re.match(r"^[ /\\_]", line)]


# --------------------------------------------------------------------------- the grid

BOARD = """\
Test Strip - turn 1
       _____       _____       _____
 _____/0201.\\_____/0401.\\_____/0601.\\
/0101.\\_____/0301.\\_____/0501.\\_____/
\\_____/0202.\\_____/0402.\\_____/0602.\\
/0102.\\__*__/0302.\\[a]__/0502.\\_____/
\\_____/0203.\\_____/0403f\\(c)*_/0603.\\
/0103.\\_____/0303f\\_____/0503.\\_____/
\\_____/0204.\\_____/0404.\\_____/0604.\\
/0104.\\_____/0304f\\[b]__/0504.\\_____/
\\_____/0205~\\_____/0405.\\(d)+_/0605.\\
/0105.\\_____/0305~\\_____/0505.\\_____/
\\_____/0206.\\_____/0406.\\_____/0606.\\
/0106.\\_____/0306.\\_____/0506.\\_____/
\\_____/     \\_____/     \\_____/
[a] 0402: R1
[b] 0404: R2
(c) 0502 Bluetown: B2
(d) 0504: B1, combat 2:1
Landing box (-> 0101): [R3]
Terrain:  .  clear   f  forest   ~  lake
Hexes:   * key location  # town
Sides:   [a] Red  (a) Blue
Marks: + markers under the units
"""


def test_terminal_board_known_answer():
    """Flat-topped odd-q columns as a honeycomb: odd columns half a hex down
    (0101 below 0201), a stack's key in its hex, its units listed below."""
    view = TEST_GAME.view(after_red_moves(), None)
    text = text_of(render_map(board_of(TEST_GAME.map, view["stacks"], COLOURS, NAMES),
                              title="Test Strip - turn 1"))
    assert "\n".join(line.rstrip() for line in text.splitlines()) + "\n" == BOARD


def test_the_board_has_colours_when_the_terminal_does():
    view = TEST_GAME.view(after_red_moves(), None)
    ansi = text_of(render_map(board_of(TEST_GAME.map, view["stacks"], COLOURS)), colour=True)
    assert "48;2;111;154;82" in ansi  # forest #6f9a52 as a background
    assert "48;2;176;58;46" in ansi  # red's #b03a2e behind R1's key


def test_sides_are_told_apart_without_colour():
    """Mail, pipes and NO_COLOR lose the colours: the brackets stay."""
    view = TEST_GAME.view(after_red_moves(), None)
    text = text_of(render_map(board_of(TEST_GAME.map, view["stacks"], COLOURS, NAMES)))
    assert "\x1b[" not in text
    assert "\\[a]__/" in text and "\\(c)*_/" in text  # red's R1 in [..], blue's B2 in (..)
    assert "Sides:   [a] Red  (a) Blue" in text


def test_every_stack_is_listed_with_full_unit_ids():
    """The hex holds a key; the list under the map has every counter's whole id."""
    stacks = {"0303": [{"label": "NEI-1.A", "side": "red", "marker": "disrupted"}, {"label": "228-Art", "side": "red"}],
              "0405": [{"label": "AUS-HQ", "side": "blue"}]}
    text = text_of(render_map(board_of(TEST_GAME.map, stacks, COLOURS)))
    assert "\\[a]2d/" in text  # key, two units, the first letter of the marker
    assert "[a] 0303: NEI-1.A disrupted, 228-Art" in text
    assert "(b) 0405: AUS-HQ" in text
    assert "Marks: 2-9 units in the stack  d disrupted" in text


def test_a_mark_stands_on_the_map_for_the_legends_glyph_or_its_first_letter():
    board = BoardView("test", (), legend=(LegendEntry("OPPSD", "opposed landing: no move (6.3)", "x"),))
    assert glyph_of(board, "OPPSD") == "x"
    assert glyph_of(board, "OOS") == "o"


def test_keys_run_a_to_z_then_A_to_Z_then_two_letters():
    gmap = load_map(big_map("odd-q", 12))
    stacks = {f"{c:02d}{r:02d}": [{"label": f"U{c}{r}", "side": "a"}] for c in range(1, 9) for r in range(1, 9)}
    keys = [s.key for s in key_stacks(board_of(gmap, stacks))]
    assert keys[:3] == ["a", "b", "c"] and keys[26] == "A" and keys[51] == "Z" and keys[52] == "aa"
    assert len(set(keys)) == len(keys)


def test_pointy_topped_maps_are_drawn_as_bricks():
    gmap = load_map(big_map("odd-r", 4))
    text = text_of(render_map(board_of(gmap, {"0102": [{"label": "X1", "side": "a"}]}), legend=False))
    lines = text.splitlines()
    row1 = next(line for line in lines if "0101" in line)
    row2 = next(line for line in lines if "0102" in line)
    assert row1.startswith("   |0101c|0201c|") and row2.startswith("|0102c|0202h|")  # odd rows half a hex right
    assert lines[lines.index(row2) + 1].startswith("|[a]__|_____|")


def test_bad_stacks_and_windows_are_quoted():
    with pytest.raises(InputError, match="hex '0909' is off the map"):
        render_map(board_of(TEST_GAME.map, {"0909": [{"label": "X"}]}))
    with pytest.raises(InputError, match="has no 'label'"):
        render_map(board_of(TEST_GAME.map, {"0101": [{"side": "red"}]}))
    with pytest.raises(InputError, match="window"):
        render_map(board_of(TEST_GAME.map), window=("0505", "0101"))
    with pytest.raises(InputError, match="--radius -1"):
        window_for(TEST_GAME.map, 80, around="0303", radius=-1)
    with pytest.raises(InputError, match="hex '0999'"):
        window_for(TEST_GAME.map, 80, around="0999")


# --------------------------------------------------------------------------- the window


def test_columns_that_fit_the_width_and_the_caption_says_which():
    gmap = load_map(big_map("odd-q"))  # 20 columns: 121 characters drawn whole
    text = text_of(render_map(board_of(gmap, {"1010": [{"label": "X1", "side": "a"}]}), width=120))
    assert max(len(line) for line in text.splitlines()) <= 120
    assert "showing columns 02-20 of 01-20, every row" in text and "--full" in text  # round the middle
    whole = text_of(render_map(board_of(gmap), window=window_for(gmap, 80, full=True), width=80))
    assert "2020" in whole and "0101" in whole and "showing" not in whole


def test_the_window_is_centred_on_the_hexes_to_look_at():
    gmap = load_map(big_map("odd-q"))
    w = window_for(gmap, 80, focus=["1505", "1708"], why="round the last events")
    assert (w.c0, w.c1) == (10, 22 - 0) or (w.c1 - w.c0 + 1 == 13 and w.c0 <= 15 and w.c1 >= 17)
    assert w.c1 <= 20  # slid inside the map, never past its edge
    w = window_for(gmap, 80, focus=["0101"])
    assert (w.c0, w.c1) == (1, 13)
    w = window_for(gmap, 80, around="1010", radius=2)
    assert (w.c0, w.c1, w.r0, w.r1) == (8, 12, 8, 12) and not w.whole
    w = window_for(gmap, 200)
    assert w.whole and (w.c0, w.c1) == (1, 20)


def test_stacks_off_the_window_say_how_to_see_them():
    gmap = load_map(big_map("odd-q"))
    few = {"0101": [{"label": "A1", "side": "a"}], "2020": [{"label": "B1", "side": "b"}]}
    text = text_of(render_map(board_of(gmap, few), window=window_for(gmap, 80, focus=["0101"]), width=80))
    assert "(b) 2020: B1 -- not drawn: --around 2020" in text
    many = {f"20{r:02d}": [{"label": f"B{r}", "side": "b"}] for r in range(1, 8)}
    text = text_of(render_map(board_of(gmap, {**few, **many}), window=window_for(gmap, 80, focus=["0101"]), width=80))
    assert "Elsewhere (8 stacks; --full draws them): (b) 2001" in text and "B3" not in text


# --------------------------------------------------------------------------- Ambon


def test_9_0_an_overstacked_hex_is_marked_and_says_its_penalty():
    """9.0: more than 3 units (HQs free): functional, CF halved; more than 6: physical."""
    text = ambon_board(turn=2, phase="japanese-movement",
                       positions={"1.A": "1608", "1.B": "1608", "1.C": "1608", "1.D": "1608", "228-HQ": "1608",
                                  "2.A": "1609", "2.B": "1609", "2.C": "1609", "2.D": "1609",
                                  "3.A": "1609", "3.B": "1609", "3.C": "1609"})
    assert re.search(r"\\\[a\]5!", text) and re.search(r"\\\[b\]7!", text)
    assert "-- ! functional overstacking (9.0): CF halved" in text
    assert "-- ! physical overstacking (9.0): no attack, CF 1" in text
    assert "! overstacked" in text


def test_9_0_three_units_and_an_hq_are_not_overstacked():
    text = ambon_board(turn=2, phase="japanese-movement",
                       positions={"1.A": "1608", "1.B": "1608", "1.C": "1608", "228-HQ": "1608"})
    assert "overstack" not in text and "\\[a]4_/" in text


def test_13_0_oos_and_6_2_landing_penalties_have_marks_of_their_own():
    text = ambon_board(turn=8, phase="japanese-movement", positions={"2.A": "1608", "3.A": "1402"},
                       oos=["2.A"], penalties={"3.A": "-2mp"}, beachheads=["1402"])
    assert "\\[b]o_/" in text  # 2.A: o for OOS
    assert "\\[a]m+/" in text  # 3.A: m for the -2 MP marker, + the beachhead under it
    assert "[b] 1608: 2.A OOS" in text and "[a] 1402 Hitu Lama: 3.A -2 MP, beachhead" in text
    assert "o out of supply: disrupted, may not recover (13.0)" in text
    assert "m landing penalty (landing table 6.2/6.3, not a mine): -2 MP this turn" in text


def test_6_2_the_landing_penalty_legend_names_the_landing_table_not_mines():
    """Users took the -2 MP / No Move markers for mines: the legend says they
    are the landing table's results (6.2, 6.3), at 80 columns too."""
    text = ambon_board(turn=8, phase="japanese-movement", positions={"3.A": "1402", "3.B": "1402"},
                       penalties={"3.A": "-2mp", "3.B": "no-move"}, beachheads=["1402"])
    assert "[a] 1402 Hitu Lama: 3.A -2 MP, 3.B no move, beachhead" in text
    assert "m landing penalty (landing table 6.2/6.3, not a mine): -2 MP this turn" in text
    assert "n landing penalty (landing table 6.2/6.3, not a mine): no move this turn" in text
    assert "mined beach" not in text


def test_4_1_a_concealed_piece_is_marked_and_only_its_owner_sees_what_it_is():
    doc = dict(turn=2, phase="allied-movement", concealed={"X1": "1409"})
    japanese = ambon_board(**doc)
    assert "(a) 1409: X1 concealed" in japanese and "dummy" not in japanese and "detachment" not in japanese
    allied = ambon_board(you="allied", secrets={"X1": "dummy"}, **doc)
    assert "(a) 1409: X1 concealed: dummy" in allied
    assert "? concealed" in japanese and "\\(a)?_/" in japanese


def test_the_window_follows_the_hexes_the_events_name_directly_or_by_their_units():
    from pbem.engine.machine import Event

    view = AMBON.view(AMBON.scenario_state(dict(turn=1, phase="japanese-landing",
                                                positions={"1.D": "1402", "NEI-1.A": "0812"})), "japanese")
    events = [Event("6.2", "landing", {"lane": "hitu-lama", "landed": ["1.D"]}), Event("11.3", "hit", {"unit": "NEI-1.A"}),
              Event("6.5", "beachhead", {"hex": "0713"}), Event("5.0", "phase", {"turn": 3})]
    assert board.event_hexes(board.board_of(AMBON, view), events) == ["1402", "0812", "0713"]  # "1.D" is a unit, not a hex


def test_the_ambon_board_reads_at_80_columns():
    """Every line of the map, its stacks, boxes and legend fits 80 columns
    (the events are prose, left to the terminal to wrap)."""
    text = ambon_board(turn=3, phase="japanese-movement",
                       positions={"1.A": "1402", "1.B": "1402", "NEI-1.A": "0812", "AUS-HQ": "1215", "2.A": "fw-laha"},
                       beachheads=["1402"])
    drawn = text.splitlines()[:text.splitlines().index("Order of battle")]
    assert max(len(line) for line in drawn) <= 80, max(drawn, key=len)
    assert max(len(line) for line in map_lines(text)) == 79  # 13 columns of 6, and the last edge
    assert "showing columns" in text and "--around HEX" in text
    assert text.splitlines()[0].startswith("ambon -- turn 3 -- phase japanese-movement -- Japanese to act -- VP")


# --------------------------------------------------------------------------- pbem show


@pytest.fixture
def kenji(tmp_path, tmp_path_factory):
    """The Japanese player of the session's Ambon demo, on copies of its files
    (show keeps views and checkpoints in the keystore)."""
    import shutil

    from conftest import Player
    from demo_games import ambon_game

    played = ambon_game(tmp_path_factory)
    shutil.copytree(played.root / "kenji" / "keystore", tmp_path / "keystore")
    shutil.copytree(played.root / "kenji" / "game", tmp_path / "game")
    return Player("kenji", tmp_path / "keystore", tmp_path / "game")


def test_show_at_80_columns_draws_a_window_round_the_last_events(kenji, tmp_path):
    import shutil

    from conftest import Player

    cut = tmp_path / "turn-3"  # the game as it stood after message 0011 (a Japanese Landing Phase)
    cut.mkdir()
    for f in sorted(kenji.game.glob("*.pbem"))[:12]:
        shutil.copy(f, cut / f.name)
    r = Player("kenji", kenji.home, cut).run("show", cut, COLUMNS="80")
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[0].startswith("ambon -- turn ") and lines[1] == "you: Japanese"  # the header wraps to fit
    from pbem.engine.history import newest
    from pbem.match import session
    from pbem.protocol.keystore import Keystore

    match = session.load(cut, Keystore(kenji.home).load(lambda: None))
    last = [e for s, e in newest(match.replay.events, lambda item: item[0] >= 11) if s == 11]
    spots = board.event_hexes(board.board_of(match.game, match.view()), last)  # the demo's dice differ from run to run
    assert (f"round the last events ({', '.join(spots[:4])}" if spots else "round the pieces") in r.output
    assert "--around HEX [--radius N]" in r.output
    assert max(len(line) for line in lines[:lines.index("Order of battle")]) <= 80
    assert "Last events" in r.output


def last_stack(player) -> tuple[str, str]:
    """The hex of the finished demo's last stack (hex order) and its top counter's label."""
    import json

    stacks = json.loads(player.run("show", player.game, "--json").output)["view"]["stacks"]
    where = max(h for h, items in stacks.items() if items and h[:1].isdigit())
    return where, stacks[where][0]["label"]


def test_show_around_a_hex_with_a_radius_and_the_whole_map(kenji):
    where, label = last_stack(kenji)  # the demo's dice differ from run to run: so does its end
    col, row = int(where[:2]), int(where[2:])
    lo = max(1, min(col - 1, 20))
    r = kenji.run("show", kenji.game, "--around", where, "--radius", "1", COLUMNS="80")
    assert r.exit_code == 0, r.output
    assert (f"showing columns {lo:02d}-{lo + 2:02d} of 01-22, rows {max(1, row - 1):02d}-{min(17, row + 1):02d} of 01-17, "
            f"around {where}, radius 1") in r.output
    assert re.search(rf"^[\[(]\w[\])] {where}[^:]*: {re.escape(label)}\b", r.output, re.M)
    assert "Elsewhere (" in r.output  # the other stacks are named, not drawn
    r = kenji.run("show", kenji.game, "--full", COLUMNS="80")
    assert r.exit_code == 0 and "showing" not in r.output
    assert max(len(line) for line in map_lines(r.output)) == 22 * 6 + 1  # all 22 columns, wider than asked
    assert "not drawn" not in r.output and "Elsewhere" not in r.output


def test_show_window_options_are_checked(kenji, started):
    r = kenji.run("show", kenji.game, "--radius", "2")
    assert r.exit_code == 2 and "--radius goes with --around HEX" in r.output
    r = kenji.run("show", kenji.game, "--around", "3333")
    assert r.exit_code == 2 and "hex '3333' is off the map (columns 01-22, rows 01-17)" in r.output
    r = kenji.run("show", kenji.game, "--around", "1609", "--full")
    assert r.exit_code == 2 and "--full draws the whole map" in r.output
    ann, _ = started
    r = ann.run("show", ann.game, "--full")
    assert r.exit_code == 2 and "the dice game has no map to draw" in r.output


def test_show_keeps_one_view_for_each_window(kenji):
    """The text kept beside the replay for `pbem show` is per window:
    asking for another part of the map never prints the last one's."""
    where, _ = last_stack(kenji)
    around = kenji.run("show", kenji.game, "--around", where, "--radius", "1", COLUMNS="80").output
    default = kenji.run("show", kenji.game, COLUMNS="80").output
    again = kenji.run("show", kenji.game, "--around", where, "--radius", "1", COLUMNS="80").output
    assert around == again and default != around and f"around {where}, radius 1" not in default


def test_show_advice_names_the_real_game_directory(kenji):
    """Issue 17: printed advice names the directory to type, not a DIR placeholder."""
    r = kenji.run("show", kenji.game, COLUMNS="80")
    assert f"Check it with: pbem verify {kenji.game} --audit" in r.output and " DIR " not in r.output


def test_long_captions_and_lists_wrap_at_80_columns():
    """Many eliminated units and a long reason for the window still fit 80
    columns: the lists wrap, the reason takes a line of its own."""
    state = AMBON.scenario_state(dict(turn=9, phase="japanese-movement", positions={"1.A": "1402"}))
    view = AMBON.view(state, "japanese")
    view["eliminated"] = [p.id for p in state.pieces][:20]
    events = [Event("11.3", "hits", {"hexes": ["1402", "0713", "0813", "1509", "1609"]})]
    console = Console(record=True, width=80, color_system=None, file=open("/dev/null", "w"))
    board.print_board(console, AMBON, view, you="japanese", events=events)
    lines = console.export_text().splitlines()
    drawn = lines[:lines.index("Order of battle")]
    assert max(len(line) for line in drawn) <= 80, max(drawn, key=len)
    assert sum(line.startswith("Eliminated units:") for line in drawn) == 1 and any(line.startswith("  ") for line in drawn)
    assert "round the last events (1402, 0713, 0813, 1509, ...)." in drawn


def test_an_unchanged_game_is_shown_again_from_the_drawn_text_without_a_replay(kenji, monkeypatch):
    """`pbem show` keeps what it drew beside the replay, sealed: shown again
    while the files, the code and the terminal are as they were, it prints
    that text without loading the game; another width draws anew."""
    from pbem.match import checkpoint, session

    first = kenji.run("show", kenji.game, COLUMNS="80").output
    drawn = list((kenji.home / checkpoint.DIRECTORY).glob("*" + checkpoint.VIEWS))
    assert len(drawn) == 1 and b"Order of battle" not in drawn[0].read_bytes()

    def no_load(*args, **kwargs):
        raise AssertionError("the game was loaded, not shown from the drawn text")

    with monkeypatch.context() as m:
        m.setattr(session, "load", no_load)
        assert kenji.run("show", kenji.game, COLUMNS="80").output == first
        assert kenji.run("show", kenji.game, COLUMNS="100").exit_code != 0  # another terminal: drawn anew
    assert kenji.run("show", kenji.game, "--fresh", COLUMNS="80").output == first


def test_a_changed_message_file_stamp_draws_the_game_anew(kenji, monkeypatch):
    """The drawn text is bound to the files' stamps: a touched file (here
    its mtime) is a miss, and the game is verified and drawn from its files."""
    import os

    from pbem.match import session

    first = kenji.run("show", kenji.game, COLUMNS="80").output
    os.utime(sorted(kenji.game.glob("*.pbem"))[3])
    loads = []
    real = session.load
    monkeypatch.setattr(session, "load", lambda *a, **k: loads.append(a) or real(*a, **k))
    assert kenji.run("show", kenji.game, COLUMNS="80").output == first and loads


def test_3_0_the_victory_points_at_the_end_wrap_at_80_columns(kenji):
    """Rule 3.0's tally of a finished game (a long list of eliminated units)
    wraps under its own line at 80 columns, like everything else shown."""
    shown = kenji.run("show", kenji.game, COLUMNS="80").output
    assert "VP" in shown and "non-HQ" in shown
    lines = [line for line in shown.splitlines() if str(kenji.game) not in line]  # a path is never broken
    assert max(len(line) for line in lines) <= 80, max(lines, key=len)
