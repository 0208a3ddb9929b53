"""Ambon's rules read their numbers from the data (rules as data): an
owner's printed data that changes a value changes the play, and a missing,
unknown or mistyped key -- or two files that disagree -- is refused when the
game loads, naming the file, the line and the key.

Each test builds an override data directory (``--data DIR``) from the
shipped files with a few edits, as an owner of the printed game would."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Callable

import pytest

from ambon_example import HISTORICAL_ALLIED, IDENTITIES, MINES
from pbem.engine import referee
from pbem.engine.machine import DiceDue, DiceRolled, MessageEnd, Opened, Ordered, RevealDue, Sealed, replace
from pbem.errors import DataError, IllegalOrderError, InputError
from pbem.games.ambon import GAME, combat, landing, movement, recovery, setup, victory
from pbem.games.ambon.bot import AmbonBot
from pbem.games.ambon.data import DATA
from pbem.games.ambon.game import AmbonGame
from pbem.games.ambon.state import ALLIED, ELIMINATED, JAPANESE, Landing, LandingStage

Edit = Callable[[str], str]
SECRET = {**IDENTITIES, **MINES}  # the scenario file's example (tests/ambon_example.py)


# --------------------------------------------------------------------------- building printed data


def sub(old: str, new: str, count: int = 1) -> Edit:
    """Replace ``old`` (a regular expression, anchored per line with (?m)) ``count`` times; it must occur."""

    def edit(text: str) -> str:
        out, n = re.subn(old, new, text, count=count, flags=re.MULTILINE)
        assert n == (count or n) and n, f"{old!r} not found"
        return out

    return edit


def blocks(text: str) -> list[str]:
    """The file cut before every table header (``[x]`` or ``[[x]]``)."""
    return re.split(r"(?m)^(?=\[)", text)


def on_turn(number: int, *edits: Edit) -> Edit:
    """Apply ``edits`` to turns.toml's ``[[turns]]`` table of turn ``number`` only."""

    def edit(text: str) -> str:
        parts = blocks(text)
        i = next(i for i, b in enumerate(parts) if b.startswith("[[turns]]") and f"\nnumber = {number}\n" in b)
        for e in edits:
            parts[i] = e(parts[i])
        return "".join(parts)

    return edit


def drop_turn(number: int) -> Edit:
    def edit(text: str) -> str:
        return "".join(b for b in blocks(text) if not (b.startswith("[[turns]]") and f"\nnumber = {number}\n" in b))

    return edit


def phase(name: str, *, add: bool) -> Edit:
    """Remove the phase ``name`` from a turn's list, or add it where 5.0 puts it."""
    if not add:
        return sub(rf'^    "{name}",\n', "")
    if name == "supply-check":
        return sub(r'^    "recovery",\n', f'    "recovery",\n    "{name}",\n')
    return sub(r"^phases = \[\n", f'phases = [\n    "{name}",\n')


def printed(tmp_path: Path, **files: list[Edit] | bytes) -> Path:
    """An override data directory: each named shipped file (``turns_toml=...``)
    with its edits applied, or the given bytes."""
    directory = tmp_path / "printed"
    directory.mkdir(exist_ok=True)
    for key, edits in files.items():
        name = key.replace("_toml", ".toml").replace("_", "-")
        if isinstance(edits, bytes):
            (directory / name).write_bytes(edits)
            continue
        text = (DATA / name).read_text(encoding="utf-8")
        for edit in edits:
            text = edit(text)
        (directory / name).write_text(text, encoding="utf-8")
    return directory


def game_with(tmp_path: Path, **files) -> AmbonGame:
    return AmbonGame(str(printed(tmp_path, **files)))


def refused(tmp_path: Path, **files) -> str:
    """The DataError the game's load raises for the edited files."""
    with pytest.raises(DataError) as caught:
        game_with(tmp_path, **files)
    return str(caught.value)


def texts(events) -> list[str]:
    return [e.text for e in events]


def order(game: AmbonGame, side: str, seq: int, index: int, doc: dict) -> Ordered:
    """One orders-file order, parsed, as the ``index``-th order of message ``seq``."""
    return Ordered(side, seq, index, game.parse_orders({"order": [doc]}, side).public[0])


NINE_TURNS = dict(
    turns_toml=[sub(r"^turns = 10$", "turns = 9"), drop_turn(10)],
    map_toml=[sub(r"^(vp = \[.*), -?\d+\]$", r"\1]", count=0)],  # one VP value a turn (3.0)
    scenario_historical_toml=[sub(r"^turns = 10$", "turns = 9")],
)


# --------------------------------------------------------------------------- the turn track drives the play


def test_3_0_a_nine_turn_track_ends_the_game_after_turn_9(tmp_path):
    game = game_with(tmp_path, **NINE_TURNS)
    assert (game.data.first_turn, game.data.last_turn) == (1, 9)
    doc = dict(turn=9, phase="allied-combat", positions={"3.A": "1809", "NEI-HQ": "1611"}, control={"1809": 4})
    over, events = game.apply(game.scenario_state(doc), MessageEnd(ALLIED, 40))
    assert game.is_over(over) and "turn 9 was the last; the game is over" in texts(events)
    assert events[-1].rule == "3.0"
    going, _ = GAME.apply(GAME.scenario_state(doc), MessageEnd(ALLIED, 40))  # the shipped track has a turn 10
    assert not GAME.is_over(going) and going.turn == 10
    with pytest.raises(InputError, match=r"turn 10 is not on the turn track \(1-9\)"):
        game.scenario_state(dict(turn=10))


def bot_game(game: AmbonGame, seed: int = 1):
    """A whole game, both sides by the bot, dice from a seeded generator and
    reveals from what each side sealed: (final state, every event)."""
    rng, bot, log = random.Random(seed), AmbonBot(game), []
    bot.setup_rng = random.Random(seed)  # the bot's own draw of the 4.1 identities, repeatable here
    secret: dict[str, str] = {}
    state, side, seq = game.initial_state({}), ALLIED, 0

    def settle(state):
        while True:
            due = game.awaiting(state)
            reveal = next((r for r in due if isinstance(r, RevealDue)), None)
            dice = next((d for d in due if isinstance(d, DiceDue)), None)
            if reveal is not None:
                action = Opened(reveal.side, reveal.slot, secret[reveal.slot], seq)
            elif dice is not None:
                action = DiceRolled(dice.label, tuple(rng.randint(1, dice.sides) for _ in range(dice.count)))
            else:
                return state
            state, events = game.apply(state, action)
            log.extend(events)

    while not game.is_over(state) and seq < 200:
        seq += 1
        parsed = game.parse_orders(bot.orders(state, side, seq), side)
        secret.update(parsed.seals)
        for slot in parsed.seals:
            state, _ = game.apply(state, Sealed(side, slot, seq))
        for i, public in enumerate(parsed.public):
            state, events = game.apply(state, Ordered(side, seq, i, public))
            log.extend(events)
            state = settle(state)
        state, events = game.apply(state, MessageEnd(side, seq))
        log.extend(events)
        state = settle(state)
        side = JAPANESE if side == ALLIED else ALLIED
    return state, log


def test_3_0_a_whole_nine_turn_game_between_bots_ends_after_turn_9(tmp_path):
    state, log = bot_game(game_with(tmp_path, **NINE_TURNS))
    assert state.phase == "over" and state.turn == 9
    assert "turn 9 was the last; the game is over" in texts(log)
    state, log = bot_game(GAME)
    assert state.phase == "over" and state.turn == 10 and "turn 10 was the last; the game is over" in texts(log)


def test_13_0_the_supply_check_follows_the_turn_track(tmp_path):
    game = game_with(tmp_path, turns_toml=[on_turn(7, phase("supply-check", add=False)),
                                           on_turn(6, phase("supply-check", add=True))])
    assert [t.number for t in game.data.turn_track if t.supply_check] == [6]
    doc = dict(phase="allied-combat", beachheads=["1402"], positions={"3.A": "1608", "2.A": "1015", "NEI-1.D": "1114",
                                                                       "NEI-1.C": "1412"})
    state, events = game.apply(game.scenario_state({**doc, "turn": 6}), MessageEnd(ALLIED, 20))
    assert "supply check (end of turn 6)" in texts(events) and state.piece("2.A").oos and state.turn == 7
    state, events = game.apply(game.scenario_state({**doc, "turn": 7}), MessageEnd(ALLIED, 20))
    assert not any("supply" in t for t in texts(events)) and not state.piece("2.A").oos and state.turn == 8
    state, events = GAME.apply(GAME.scenario_state({**doc, "turn": 6}), MessageEnd(ALLIED, 20))
    assert not state.piece("2.A").oos  # the shipped track checks supply on turn 7 only


def test_3_2_the_surrender_option_follows_the_turn_track(tmp_path):
    game = game_with(tmp_path, turns_toml=[on_turn(8, phase("allied-surrender-option", add=False)),
                                           on_turn(9, phase("allied-surrender-option", add=True))])
    doc = dict(phase="allied-combat", positions={"3.A": "1608", "NEI-HQ": "1611"}, control={"1809": 4})
    state, events = game.apply(game.scenario_state({**doc, "turn": 7}), MessageEnd(ALLIED, 20))
    assert state.turn == 8 and not state.surrender_offered
    state, events = game.apply(game.scenario_state({**doc, "turn": 8}), MessageEnd(ALLIED, 20))
    assert state.turn == 9 and state.surrender_offered
    assert "turn 9 begins: the Allies may surrender" in texts(events)
    assert victory.may_surrender(game.data, replace(state, surrender_offered=False))
    over, _ = game.apply(state, order(game, ALLIED, 21, 0, {"surrender": "yes"}))
    assert game.result(over)[1] == "The Allies surrendered at the start of turn 9 (3.2)."


def test_7_1_the_movement_restriction_follows_the_turn_track_and_its_radius(tmp_path):
    game = game_with(tmp_path, turns_toml=[on_turn(2, sub("^allied_move_restricted = false$",
                                                          "allied_move_restricted = true"))],
                     charts_toml=[sub(r"^turn1_allied_move_radius = 4", "turn1_allied_move_radius = 2")])
    # land distances from 3.A in 1410: NEI-2.B 2, AUS-B 3, NEI-1.A 4
    doc = dict(turn=2, phase="allied-movement",
               positions={"3.A": "1410", "NEI-2.B": "1609", "AUS-B": "1708", "NEI-1.A": "1808"})
    state = game.scenario_state(doc)
    assert movement.turn1_movers(game.data, state) == {"NEI-2.B"}
    assert movement.turn1_movers(GAME.data, GAME.scenario_state(doc)) == {"NEI-2.B", "AUS-B", "NEI-1.A"}
    with pytest.raises(IllegalOrderError, match="7.1: on turn 2 only Allied units within 2 land hexes"):
        referee.adjudicate(game, state, ALLIED, {"order": [{"move": "AUS-B: 1708 1707"}]}, [])
    moved = referee.adjudicate(GAME, GAME.scenario_state(doc), ALLIED, {"order": [{"move": "AUS-B: 1708 1707"}]}, [])
    assert "AUS-B moves 1708 1707" in " ".join(texts(moved.events))


def test_12_0_japanese_recovery_follows_the_turn_track(tmp_path):
    game = game_with(tmp_path, turns_toml=[on_turn(3, sub("^japanese_recovery = true$", "japanese_recovery = false"))],
                     charts_toml=[sub(r"^japanese_recovery_from_turn = 3", "japanese_recovery_from_turn = 4")])
    doc = dict(turn=3, phase="recovery", disrupted=["3.C"], positions={"3.C": "1508"})
    assert recovery.recovery_candidates(game.data, game.scenario_state(doc), JAPANESE) == []
    assert [p.id for p in recovery.recovery_candidates(GAME.data, GAME.scenario_state(doc), JAPANESE)] == ["3.C"]
    with pytest.raises(IllegalOrderError, match=r"12.0: the Japanese may not make recovery checks on turn 3 "
                                                r"\(not on turns 1, 2, 3\)"):
        recovery.resolve_recovery(game.data, game.scenario_state(doc), "3.C", 1)


# --------------------------------------------------------------------------- charts.toml values drive the play


def test_6_2_the_mp_a_landing_costs_is_the_landing_tables_number(tmp_path):
    game = game_with(tmp_path, charts_toml=[sub(rf'^{row} = \["-2mp"\]', f'{row} = ["-1mp"]') for row in (4, 5, 6)])
    kure = setup.KURE

    def land(g):
        state = g.scenario_state(dict(turn=1, phase="japanese-landing", positions={u: "fw-liang" for u in kure}))
        record = Landing("liang", kure, LandingStage.ROLL)
        state, events = landing.resolve(g.data, replace(state, landings=(record,)), record, 4)  # 4 + 1 (Kure) = 5
        return state, texts(events), [u for u in kure if state.piece(u).where == "2106"]

    state, events, landed = land(game)
    assert landed == list(kure) and state.piece("Kure-1").penalty == "-1mp"
    assert any(t.endswith("landing succeeds, -1 MP this turn") for t in events)
    full = game.data.spec(state.piece("Kure-1")).move
    assert movement.allowance(game.data, state.piece("Kure-1")) == full - 2  # half-MP
    shipped, events, _ = land(GAME)
    assert any(t.endswith("landing succeeds, -2 MP this turn") for t in events)
    assert movement.allowance(GAME.data, shipped.piece("Kure-1")) == full - 4


def test_9_0_the_stacking_limit_is_the_datas(tmp_path):
    game = game_with(tmp_path, charts_toml=[sub(r"^stacking_limit = 3", "stacking_limit = 2")])
    doc = dict(turn=3, phase="japanese-movement", positions={"3.A": "1509", "3.B": "1509", "3.C": "1509"})
    assert movement.overstacking(game.data, game.scenario_state(doc), "1509") == "functional"
    assert movement.overstacking(GAME.data, GAME.scenario_state(doc), "1509") == ""


def test_4_1_the_mine_counts_are_the_datas(tmp_path):
    game = game_with(tmp_path, charts_toml=[sub("^real_mines = 5", "real_mines = 6"), sub("^dummy_mines = 3", "dummy_mines = 2")],
                     landings_toml=[sub("^real = 5", "real = 6"), sub("^dummy = 3", "dummy = 2")])
    assert game.data.mine_kinds == {"real": 6, "dummy": 2} and game.data.mine_slots == setup.MINES
    problems = setup.check_secrets(game.data, ALLIED, SECRET, ())
    assert problems == ["4.1: M1-M8 must be exactly 6 real and 2 dummy mines, are {'real': 5, 'dummy': 3}"]
    assert setup.check_secrets(game.data, ALLIED, {**SECRET, "M3": "real"}, ()) == []
    assert setup.check_secrets(GAME.data, ALLIED, SECRET, ()) == []


def test_4_1_concealed_pieces_a_coastal_hex_is_the_datas(tmp_path):
    game = game_with(tmp_path, charts_toml=[sub("^concealed_per_coastal_hex = 3", "concealed_per_coastal_hex = 1")])
    parsed = game.parse_orders({"order": [HISTORICAL_ALLIED]}, ALLIED)
    state = game.initial_state({})
    for i, public in enumerate(parsed.public):
        state, _ = game.apply(state, Ordered(ALLIED, 1, i, public))
    with pytest.raises(IllegalOrderError, match="4.1: the Allied setup breaks 3 requirements:\n"
                                                "  2106 holds 2 dummies, detachments and remaining NEI companies; at most 1\n"
                                                "  0713 holds 2 dummies, detachments and remaining NEI companies; at most 1\n"):
        setup.check_allied_setup(game.data, state)  # (and the identities, not sealed here)


def test_11_3_who_dies_to_one_hit_is_the_counters_one_hit(tmp_path):
    game = game_with(tmp_path, counters_toml=[on_table("types.detachment.front", sub("^one_hit = true", "one_hit = false")),
                                              on_table("types.detachment.back", sub("^one_hit = true", "one_hit = false"))])
    doc = dict(turn=3, phase="japanese-combat", concealed={"X3": "0713"}, revealed={"X3": "detachment"})
    for g, fate in ((game, "is disrupted"), (GAME, "is eliminated")):
        state = g.scenario_state(doc)
        state, events = combat.extra_hit(g.data, state, state.piece("X3"), "defender")
        assert texts(events) == [f"defender hit: X3 {fate}"]
        assert (state.piece("X3").where == ELIMINATED) == (g is GAME)


def on_table(header: str, *edits: Edit) -> Edit:
    """Apply ``edits`` to the table ``[header]`` of a file only."""

    def edit(text: str) -> str:
        parts = blocks(text)
        i = next(i for i, b in enumerate(parts) if b.startswith(f"[{header}]"))
        for e in edits:
            parts[i] = e(parts[i])
        return "".join(parts)

    return edit


def test_14_4_which_counters_need_an_optional_rule_is_the_counters(tmp_path):
    game = game_with(tmp_path, counters_toml=[on_table("types.aus-at.front", sub('^optional_rule = "14.4"', 'optional_rule = ""')),
                                              on_table("types.aus-at.back", sub('^optional_rule = "14.4"', 'optional_rule = ""'))],
                     scenario_historical_toml=[sub('^"AUS-AT" = "1215"\n', ""),
                                               sub('^("AUS-D" = "0813".*\n)', '\\1"AUS-AT" = "1215"\n')])
    assert "AUS-AT" in setup.allied_units(game.data, ())
    assert "AUS-AT" not in setup.allied_units(GAME.data, ()) and "AUS-AT" in setup.allied_units(GAME.data, ("14.4",))


def test_3_2_the_surrender_award_is_the_datas(tmp_path):
    game = game_with(tmp_path, turns_toml=[sub("^allied_surrender = 5", "allied_surrender = 7")])
    doc = dict(turn=8, phase="japanese-landing", positions={"NEI-HQ": "1611"})
    for g, award in ((game, 7), (GAME, 5)):
        state = replace(g.scenario_state(doc), surrendered=True)
        assert ("the Allies surrendered (3.2)", award) in victory.victory_points(g.data, state)[1]


# --------------------------------------------------------------------------- refused on load


def test_load_a_turns_toml_without_vp_awards_is_refused_naming_file_and_key(tmp_path):
    """It used to load, and fail only when VP were scored."""
    message = refused(tmp_path, turns_toml=[sub(r"^\[vp_awards\].*\n(^[a-z_]+ = .*\n)+", "")])
    assert re.search(r"printed/turns\.toml: missing key 'vp_awards' \(the file has no \[vp_awards\] table\)", message), message
    message = refused(tmp_path, turns_toml=[sub(r"^\[vp_awards\]", "[vp_award]")])
    assert re.search(r"printed/turns\.toml, line \d+: vp_award: unknown key 'vp_award'", message), message


@pytest.mark.parametrize("files, expected", [
    (dict(turns_toml=[sub("^turns = 10$", 'turns = "10"')]),
     r"printed/turns\.toml, line 44: game\.turns: expected an integer, got a string '10'"),
    (dict(turns_toml=[sub("^turns = 10$", "turnz = 10")]), r"printed/turns\.toml, line \d+: game: missing key 'turns'"),
    (dict(turns_toml=[sub("^turns = 10$", "turns = 9")]),
     r"printed/turns\.toml, line \d+: game\.turns: 9 turns, but there are 10 \[\[turns\]\] tables"),
    (dict(turns_toml=[on_turn(3, sub("^japanese_recovery = true", "japanese_recovery = 1"))]),
     r"printed/turns\.toml, line \d+: turns\[2\]\.japanese_recovery: expected true or false, got an integer 1"),
    (dict(turns_toml=[on_turn(5, sub("^allied_move_restricted = false\n", ""))]),
     r"printed/turns\.toml, line \d+: turns\[4\]: missing key 'allied_move_restricted'"),
    (dict(turns_toml=[on_turn(4, sub('"allied-combat"', '"allied-kombat"'))]),
     r"printed/turns\.toml, line \d+: turns\[3\]\.phases\[6\]: unknown phase 'allied-kombat'"),
    (dict(turns_toml=[on_turn(7, phase("supply-check", add=False)), on_turn(7, phase("supply-check", add=True)),
                      on_turn(7, sub('^    "recovery",\n    "supply-check",\n', '    "supply-check",\n    "recovery",\n'))]),
     r"printed/turns\.toml, line \d+: turns\[6\]\.phases: each phase once, in the order of 5\.0"),
    (dict(turns_toml=[sub("^allied_unit_eliminated = 1 ", "allied_unit_eliminated = 1.5 ")]),
     r"printed/turns\.toml, line \d+: vp_awards\.allied_unit_eliminated: expected an integer, got a number 1\.5"),
    (dict(turns_toml=[sub("^min = 21$", "min = 22")]),
     r"printed/turns\.toml, line \d+: victory_bands\[2\]\.min: expected 21"),
    (dict(charts_toml=[sub("^japanese_recovery_from_turn = 3", "japanese_recovery_from_turn = 4")]),
     r"turns\.toml, line \d+: turns\[2\]\.japanese_recovery: true on turn 3, but charts\.toml "
     r"values\.japanese_recovery_from_turn = 4; the two must agree"),
    (dict(turns_toml=[sub("^turns = 10$", "turns = 9"), drop_turn(10)]),
     r"map\.toml, line \d+: key_locations\.\d{4}\.vp: 10 values, but turns\.toml has 9 turns"),
    (dict(charts_toml=[sub("^stacking_limit = 3", "stacking_limt = 3")]),
     r"printed/charts\.toml, line 31: values\.stacking_limt: unknown key 'stacking_limt'"),
    (dict(charts_toml=[sub("^stacking_limit = 3", 'stacking_limit = "3"')]),
     r"printed/charts\.toml, line 31: values\.stacking_limit: expected an integer, got a string '3'"),
    (dict(charts_toml=[sub("^turn1_allied_move_radius = 4.*\n", "")]),
     r"printed/charts\.toml, line \d+: values: missing key 'turn1_allied_move_radius' \(7\.1"),
    (dict(charts_toml=[sub(r"^functional_overstack_factor = 0\.5", "functional_overstack_factor = 0")]),
     r"printed/charts\.toml, line \d+: values\.functional_overstack_factor: expected a number greater than 0"),
    (dict(charts_toml=[sub(r'^4 = \["-2mp"\]', '4 = ["-2 MP"]')]),
     r"printed/charts\.toml, line \d+: tables\.unopposed_landing\.rows\.4: result '-2 MP' is not"),
    (dict(charts_toml=[sub(r'^3 = \["1/0", ', '33 = ["1/0", ')]),
     r"printed/charts\.toml, line \d+: tables\.crt\.rows: no row 3: the rows of a clamped table run without a gap"),
    (dict(charts_toml=[sub(r"^leave_zoc = 1", "exit_zoc = 1")]),
     r"printed/charts\.toml, line \d+: movement: missing key 'leave_zoc'"),
    (dict(charts_toml=[sub('^crt_lowest_column = "1:3"', 'crt_lowest_column = "1:2"')]),
     r"printed/charts\.toml, line \d+: values\.crt_lowest_column: '1:2', but the CRT's columns end with '1:3'"),
    (dict(landings_toml=[sub("^real = 5", "real = 6")]),
     r"printed/landings\.toml, line \d+: mines\.real: 6, but charts\.toml values\.real_mines = 5"),
    (dict(landings_toml=[sub('^sweeping = ".*"', 'sweeping = "all-at-once"')]),
     r"printed/landings\.toml, line \d+: mines\.sweeping: 'all-at-once'"),
    (dict(counters_toml=[on_table("types.kure-mg.front", sub("^defend_drm = -1", "defend_drm = -2"))]),
     r"printed/counters\.toml, line \d+: types\.kure-mg\.front\.defend_drm: -2, but charts\.toml values\.crt_drm_mg_engineer = -1"),
    (dict(counters_toml=[on_table("types.nei-company.back", sub("^one_hit = false\n", ""))]),
     r"printed/counters\.toml, line \d+: types\.nei-company\.back: missing key 'one_hit'"),
    (dict(counters_toml=[on_table("types.aus-hq.front", sub("^command = 1", "command = 2"))]),
     r"printed/counters\.toml, line \d+: types\.aus-hq\.front\.command: an HQ's command value 2 is its support DRM"),
    (dict(scenario_historical_toml=[sub('^"AUS-D" = "0813"', '"AUS-X" = "0813"')]),
     r"printed/scenario-historical\.toml, line \d+: allied\.placements\.AUS-X: 'AUS-X' is not an Allied unit"),
    (dict(scenario_historical_toml=[sub('^"NEI-1.A" = "0812".*\n', "")]),
     r"printed/scenario-historical\.toml, line \d+: allied\.placements: no unit NEI-1\.A \(setup = \"historical\""),
    (dict(counters_toml=[on_table("types.aus-at.front", sub('^optional_rule = "14.4"', 'optional_rule = ""'))]),
     r"data/scenario-historical\.toml, line \d+: allied\.placements: no unit AUS-AT"),  # the scenario must follow
    (dict(scenario_historical_toml=[sub("^turns = 10", "turns = 11")]),
     r"printed/scenario-historical\.toml, line \d+: scenario\.turns: 11, but turns\.toml says 10"),
])
def test_load_a_missing_unknown_mistyped_or_disagreeing_key_is_refused(tmp_path, files, expected):
    message = refused(tmp_path, **files)
    assert re.search(expected, message), message


def test_load_the_line_named_is_the_keys(tmp_path):
    message = refused(tmp_path, turns_toml=[on_turn(3, sub("^japanese_recovery = true", "japanese_recovery = 1"))])
    line = int(re.search(r"line (\d+)", message).group(1))
    assert (tmp_path / "printed" / "turns.toml").read_text().splitlines()[line - 1] == "japanese_recovery = 1"


def test_load_a_turns_toml_that_is_not_utf8_is_a_data_error(tmp_path):
    raw = (DATA / "turns.toml").read_bytes().replace("Draw".encode(), b"Dr\xe1w", 1)
    message = refused(tmp_path, turns_toml=raw)
    assert re.search(r"printed/turns\.toml: not UTF-8 text \(byte \d+, line \d+\); save it as UTF-8", message), message


def test_load_pbem_data_add_with_a_non_utf8_turns_toml_exits_2_naming_the_file(tmp_path):
    from click.testing import CliRunner

    from pbem.cli import main

    directory = printed(tmp_path, turns_toml=(DATA / "turns.toml").read_bytes().replace(b"Draw", b"Dr\xe1w", 1))
    r = CliRunner().invoke(main, ["data", "add", "ambon", str(directory)], env={"PBEM_HOME": str(tmp_path / "home")})
    assert r.exit_code == 2, r.output
    assert "turns.toml: not UTF-8 text" in r.output and "Traceback" not in r.output
    assert r.exception is None or isinstance(r.exception, SystemExit)


def test_load_the_shipped_data_reads_every_value_it_holds():
    """Nothing in the shipped files is read by no rule: every [values] key is
    one the rules read, and the turn track gives the rules' turns."""
    data = GAME.data
    assert set(data.values) == set(data.charts.values)
    assert [t.number for t in data.turn_track if t.supply_check] == [7]
    assert [t.number for t in data.turn_track if t.surrender_option] == [8]
    assert [t.number for t in data.turn_track if t.allied_move_restricted] == [1]
    assert [t.number for t in data.turn_track if not t.japanese_recovery] == [1, 2]
    assert (data.first_turn, data.last_turn) == (1, 10)
    assert data.concealed_slots == setup.CONCEALED and data.mine_slots == setup.MINES
    assert data.identities == setup.IDENTITIES and data.mine_kinds == setup.MINE_KINDS


FILES = ("turns.toml", "charts.toml", "landings.toml", "scenario-historical.toml", "counters.toml", "map.toml")
TOKENS = ('"1609"', "0.25", "-1", "0", "2", "99", "true", '"P"', '""', "[]", "{}", "x", '"-3mp"', '"combat-2"', '"14.5"')


def mutated(text: str, rng: random.Random) -> str:
    """One to three line edits: delete, duplicate, swap, or replace a token."""
    lines = text.split("\n")
    for _ in range(rng.randint(1, 3)):
        j = rng.randrange(len(lines))
        op = rng.choice(("delete", "duplicate", "swap", "token", "token"))
        if op == "delete" and len(lines) > 1:
            lines.pop(j)
        elif op == "duplicate":
            lines.insert(j, lines[j])
        elif op == "swap":
            k = rng.randrange(len(lines))
            lines[j], lines[k] = lines[k], lines[j]
        elif tokens := re.findall(r'"[^"]*"|[-\w.#]+', lines[j]):
            lines[j] = lines[j].replace(rng.choice(tokens), rng.choice(TOKENS), 1)
    return "\n".join(lines)


def test_load_mutated_data_loads_or_is_a_data_error(tmp_path):
    """Every file, damaged at random (seeded): the load succeeds or raises a
    DataError naming a data file -- never another exception, and never later."""
    rng = random.Random(20261130)
    texts = {name: (DATA / name).read_text(encoding="utf-8") for name in FILES}
    refusals = 0
    for i in range(150):
        name = rng.choice(FILES)
        directory = tmp_path / f"m{i}"
        directory.mkdir()
        (directory / name).write_text(mutated(texts[name], rng), encoding="utf-8")
        try:
            AmbonGame(str(directory))
        except DataError as err:
            refusals += 1
            assert any(f in str(err) for f in FILES), err
    assert refusals > 50  # the mutations do reach the checks
