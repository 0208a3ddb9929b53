"""Issue 26: an ambiguous sentence gets a declared ruling both players see,
never a silent reading.

The proposer chooses a reading of each disputed sentence of the Ambon
rulebook (``pbem new --ruling 6.5=landed``, ``--rulings tournament``);
message 0 pins every one; the joiner sees them before joining, ``pbem show``
and ``pbem verify`` say them, and both pbems play exactly those.  Each
reading is tested both ways, through ``pbem adjudicate`` (the referee path a
user has) or a game played between two keystores; each test quotes the
sentence it reads.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import Player, last_line
from everyday_support import EXAMPLES

from pbem.cli import main
from pbem.engine.machine import MessageEnd, Opened, Ordered, RevealDue, Sealed, replace
from pbem.errors import DataError, IllegalOrderError
from pbem.games.ambon import GAME, rulings, setup
from pbem.games.ambon.state import ALLIED, JAPANESE

RULINGS_TOML = Path(rulings.__file__).parent / "data" / "rulings.toml"
DEFAULTS = {"6.4": "per-landing", "6.5": "entry", "7.0": "legs", "11.2": "clamp-then-shift", "11.3": "per-unit",
            "13.1": "any", "14.2": "first-wave"}
TOURNAMENT = {**DEFAULTS, "6.5": "landed", "7.0": "one-leg", "13.1": "detachment"}


# --------------------------------------------------------------------------- helpers


def adjudicate(tmp_path: Path, position: str, orders: str, dice: str = "", ruling: str = ""):
    """``pbem adjudicate --json`` of ``position`` (TOML, with ``rulings = {ruling}``
    prepended when given) and ``orders``: (exit code, the JSON or the output)."""
    scenario = tmp_path / f"position-{len(list(tmp_path.glob('position-*')))}.toml"
    scenario.write_text((f"rulings = {{ {ruling} }}\n" if ruling else "") + position)
    orders_path = tmp_path / f"orders-{len(list(tmp_path.glob('orders-*')))}.toml"
    orders_path.write_text(orders)
    args = ["adjudicate", "--game", "ambon", "--scenario", str(scenario), "--orders", str(orders_path), "--json"]
    r = CliRunner().invoke(main, args + (["--dice", dice] if dice else []), catch_exceptions=False)
    return r.exit_code, (json.loads(r.output) if r.exit_code == 0 else r.output)


def texts(result) -> list[str]:
    return [e["text"] for e in result["events"]]


def propose(players, *args: str):
    """Ann (Japanese) proposes with ``args``; Bob (Allied) joins with the
    historical setup; Ann receives it.  The join's output too."""
    j, a = players
    r = j.run("new", j.game, "--game", "ambon", "--as", "japanese", "--opponent", a.pub(), *args)
    assert r.exit_code == 0, r.output
    proposal = last_line(r.output)
    joined = a.run("join", proposal, "--dir", a.game, "--orders", EXAMPLES / "ambon" / "1-allied-setup.toml")
    assert joined.exit_code == 0, joined.output
    assert j.run("receive", j.game, last_line(joined.output)).exit_code == 0
    return j, a, proposal, joined


def opening(players, *args: str):
    """Messages 0-2 of examples/ambon under the rulings ``args``: Bob, the
    Allies, to move, owes the reveals the landings demand."""
    j, a, _, _ = propose(players, *args)
    r = j.run("play", j.game, "--orders", EXAMPLES / "ambon" / "2-japanese-setup-and-landings.toml")
    assert r.exit_code == 0, r.output
    assert a.run("receive", a.game, last_line(r.output)).exit_code == 0
    return j, a


# --------------------------------------------------------------------------- the table: data, checked on load


def test_rulings_defaults_are_the_readings_pbem_played_before():
    """A proposal made before rulings existed names none and is played with
    the defaults: so the defaults are the readings pbem played then, and the
    recorded games keep replaying as they did."""
    assert dict(rulings.defaults()) == DEFAULTS
    assert dict(GAME.initial_state({}).rulings) == DEFAULTS
    assert dict(rulings.choose({}, "tournament")) == TOURNAMENT


def test_rulings_table_quotes_each_sentence_and_gives_every_reading_a_meaning():
    table = rulings.table()
    assert [d.rule for d in table.rulings] == ["6.4", "6.5", "7.0", "11.2", "11.3", "13.1", "14.2"]
    sentence = {d.rule: d.sentence for d in table.rulings}
    assert sentence["6.5"] == "When a Japanese unit enters a landing hex, place one beachhead marker in that hex."
    assert "The Allied player can block one by revealing that the unit is a detachment." in sentence["13.1"]
    for d in table.rulings:
        assert d.default in dict(d.readings) and all(meaning for _, meaning in d.readings), d.rule


@pytest.mark.parametrize("change, message", [
    (('default = "entry"', 'default = "walked"'),
     r"rulings\.toml, line \d+: rulings\.6\.5\.default: 'walked' is not a reading the code plays \(entry, landed\)"),
    (('landed = "a beachhead', 'sailed = "a beachhead'),
     r"rulings\.toml, line \d+: rulings\.6\.5\.readings: the readings played are entry, sailed, but the rules code "
     r"plays entry, landed"),
    (('default = "per-unit"', 'default = "per-unit"\nunplayed = ["per-stack"]'),
     r"rulings\.toml, line \d+: rulings\.11\.3\.readings: the readings played are per-unit, but the "
     r"rules code plays per-unit, per-stack"),
    (('"13.1" = "detachment"', '"13.1" = "dummy"'),
     r"rulings\.toml, line \d+: presets\.tournament\.readings: 13\.1 = 'dummy': not a reading played"),
    (('[rulings."7.0"]', '[rulings."7.1"]'), r"rulings\.toml, line \d+: rulings\.7\.1: no such ruling in the rules code"),
    (('title = "beachheads"', 'title = 5'), r"rulings\.toml, line \d+: rulings\.6\.5\.title: expected a string"),
])
def test_rulings_file_is_checked_on_load_naming_file_key_and_line(tmp_path, change, message):
    broken = tmp_path / "rulings.toml"
    text = RULINGS_TOML.read_text(encoding="utf-8")
    assert change[0] in text
    broken.write_text(text.replace(change[0], change[1], 1), encoding="utf-8")
    with pytest.raises(DataError, match=message):
        rulings.load(broken)


def test_rulings_are_not_printed_data_a_data_set_may_not_replace_them(tmp_path):
    """The ruleset hash pins the printed data; message 0 pins the readings
    themselves, so rulings.toml is outside the hash and no data set replaces it."""
    from pbem.games.ambon.game import AmbonGame
    from pbem.match.session import ruleset_hash

    assert "rulings.toml" not in dict(GAME.ruleset_files())
    (tmp_path / "rulings.toml").write_bytes(RULINGS_TOML.read_bytes())
    with pytest.raises(DataError, match="rulings.toml is not a data file a data set may replace"):
        AmbonGame(str(tmp_path))
    empty = tmp_path / "empty"
    empty.mkdir()
    assert ruleset_hash(AmbonGame(str(empty))) == ruleset_hash(GAME)  # the shipped hash is what it was


# --------------------------------------------------------------------------- proposing: pbem new


def test_rulings_new_pins_every_ruling_in_message_0_and_says_them(players):
    """--rulings PRESET then --ruling RULE=READING: message 0's options
    carry the whole table; pbem new and the proposal's summary list them."""
    j, a = players
    r = j.run("new", j.game, "--game", "ambon", "--as", "japanese", "--opponent", a.pub(),
              "--rulings", "tournament", "--ruling", "6.4=every-turn", "--json")
    assert r.exit_code == 0, r.output
    made = json.loads(r.output)
    assert made["options"]["rulings"] == {**TOURNAMENT, "6.4": "every-turn"}
    assert [(x["rule"], x["reading"], x["default"]) for x in made["rulings"]][:2] == [
        ("6.4", "every-turn", False), ("6.5", "landed", False)]
    summary = Path(made["file"]).read_text()
    assert ("| ruling 6.5 beachheads: landed (not the default) -- a beachhead is placed only where Japanese units "
            "came ashore from a First Wave box (6.2, 6.3)") in summary
    assert "| ruling 11.2 shifts beyond the table: clamp-then-shift -- " in summary
    r = j.run("mail", j.game, "--to", "bob@example.org")
    assert r.exit_code == 0, r.output
    import email
    from email import policy

    mail = email.message_from_bytes(last_line(r.output).read_bytes(), policy=policy.default)
    body = " ".join(mail.get_body(("plain",)).get_content().split())  # the mail's lines are wrapped
    assert "Rulings (how the disputed sentences of the rules are read; both sides play these):" in body
    assert "6.4 minesweeping: every-turn (not the default) -- every turn, every mine box" in body
    other = Player(j.name, j.home, j.game.parent / "ann-2")
    r = other.run("new", other.game, "--game", "ambon", "--as", "japanese", "--opponent", a.pub())
    assert ("rulings, pinned in message 0: 6.4 per-landing, 6.5 entry, 7.0 legs, 11.2 clamp-then-shift, "
            "11.3 per-unit, 13.1 any, 14.2 first-wave") in r.output


@pytest.mark.parametrize("args, message", [
    (["--ruling", "6.6=landed"], "Error: rulings: Ambon has no ruling '6.6'; its rulings are 6.4 (minesweeping), "
                                 "6.5 (beachheads), 7.0 (move orders), 11.2 (shifts beyond the table), "
                                 "11.3 (refusing a retreat), 13.1 (voluntary reveals), "
                                 "14.2 (placing the concealed second wave)"),
    (["--ruling", "6.5=walked"], "Error: rulings.6.5: unknown reading 'walked'; the readings of 6.5 (beachheads) "
                                 "are entry (the default), landed"),
    (["--rulings", "strict"], "Error: rulings preset 'strict': unknown; Ambon's presets are default, tournament"),
    (["--ruling", "6.5"], "Error: --ruling '6.5': expected RULE=READING, e.g. --ruling 6.5=landed"),
    (["--ruling", "6.5=landed", "--ruling", "6.5=entry"], "Error: --ruling '6.5=entry': ruling 6.5 is already "
                                                          "given as 'landed'"),
])
def test_rulings_new_refuses_an_unknown_ruling_or_reading_and_writes_nothing(players, args, message):
    j, a = players
    r = j.run("new", j.game, "--game", "ambon", "--as", "japanese", "--opponent", a.pub(), *args)
    assert r.exit_code == 2 and message in r.output, r.output
    assert not j.game.exists()


def test_rulings_a_message_0_naming_an_unknown_ruling_or_reading_is_refused():
    """A proposal from another pbem is read with its rulings or not at all:
    a ruling or reading this pbem does not play is an error naming it."""
    from pbem.errors import InputError

    with pytest.raises(InputError, match="rulings: Ambon has no ruling '6.6'"):
        GAME.initial_state({"rulings": {"6.6": "landed"}})
    with pytest.raises(InputError, match="rulings.6.5: unknown reading 'walked'"):
        GAME.initial_state({"rulings": {"6.5": "walked"}})
    with pytest.raises(InputError, match="rulings: expected a table of rule = reading"):
        GAME.initial_state({"rulings": ["6.5=landed"]})


def test_rulings_a_game_without_rulings_refuses_them(players):
    j, a = players
    r = j.run("new", j.game, "--game", "dice", "--as", "first", "--opponent", a.pub(), "--ruling", "6.5=landed")
    assert r.exit_code == 2 and "the dice game declares no rulings" in r.output
    assert not j.game.exists()


# --------------------------------------------------------------------------- the opponent sees them: join, show, verify


def test_rulings_join_shows_them_before_it_asks_to_confirm_the_new_key(players, monkeypatch):
    """At a terminal pbem join asks to confirm a proposer's new key: the
    rulings are printed above the question, which names them."""
    import pbem.cli

    j, a = players
    r = j.run("new", j.game, "--game", "ambon", "--as", "japanese", "--opponent", a.pub(), "--ruling", "7.0=one-leg")
    proposal = last_line(r.output)
    monkeypatch.setattr(pbem.cli, "interactive", lambda: True)
    r = a.run("join", proposal, "--dir", a.game, "--orders", EXAMPLES / "ambon" / "1-allied-setup.toml", input="n\n")
    assert r.exit_code == 2 and "not joined: the key was not confirmed; nothing written" in r.output
    lines = r.output.splitlines()
    asked = next(i for i, line in enumerate(lines) if "Is this your opponent's key and play by the rulings above?" in line)
    listed = lines.index("rulings of the proposal, played by both sides:")
    assert listed < asked
    assert ("  7.0 move orders: one-leg (not the default) -- one move order per unit per Movement Phase; only a unit "
            "stopped by a reveal (8.0) goes on") in lines[listed:asked]
    r = a.run("join", proposal, "--dir", a.game, "--orders", EXAMPLES / "ambon" / "1-allied-setup.toml", "--json",
              input="y\n")
    assert r.exit_code == 0, r.output
    joined = json.loads(r.output[r.output.index("{"):])
    assert joined["options"]["rulings"]["7.0"] == "one-leg"
    assert {x["rule"]: x["reading"] for x in joined["rulings"]} == {**DEFAULTS, "7.0": "one-leg"}


def test_rulings_show_and_verify_say_them(players, tmp_path):
    """pbem show's header (terminal, --json, --html) and pbem verify's report (text, --json)."""
    j, a, _, _ = propose(players, "--ruling", "6.5=landed")
    for player in (j, a):
        r = player.run("show", player.game)
        head = r.output.splitlines()[:4]
        assert any(line.startswith("rulings: 6.4 per-landing, 6.5 landed (not the default), 7.0 legs") for line in head), head
        shown = json.loads(player.run("show", player.game, "--json").output)
        assert {x["rule"]: x["reading"] for x in shown["rulings"]} == {**DEFAULTS, "6.5": "landed"}
    page = tmp_path / "game.html"
    assert a.run("show", a.game, "--html", page).exit_code == 0
    html = page.read_text()
    assert '<tr data-field="rulings"><th>Rulings</th>' in html
    assert "<li>6.5 beachheads: landed (not the default) -- a beachhead is placed only where" in html
    r = CliRunner().invoke(main, ["verify", str(a.game)])
    assert r.exit_code == 0 and "ruling 6.5 beachheads: landed (not the default)" in r.output, r.output
    report = json.loads(CliRunner().invoke(main, ["verify", str(a.game), "--json"]).output)
    assert {x["rule"]: x["reading"] for x in report["rulings"]} == {**DEFAULTS, "6.5": "landed"}


def test_rulings_the_recorded_game_pins_every_ruling_in_message_0():
    """The recorded game (examples/ambon/full-game): message 0 names every
    ruling, the defaults here, and its summary says them."""
    from pbem.match.session import proposal_rulings, read_messages

    first = EXAMPLES / "ambon" / "full-game" / "messages" / "0000-japanese.pbem"
    (_, msg), = read_messages([first])
    assert msg.body["setup"]["options"]["rulings"] == DEFAULTS
    assert {r.rule: r.reading for r in proposal_rulings(msg.body["setup"])} == DEFAULTS
    assert "11.3 refusing a retreat: per-unit" in first.read_text().split("-----BEGIN")[0]


# --------------------------------------------------------------------------- 6.4 minesweeping

MINES_SWEPT_ONCE = """\
turn = 3
phase = "japanese-landing"
[positions]
"1.A" = "fw-hitu-lama"
[mines]
M1 = "mine-1"
M2 = "mine-3"
[revealed]
M1 = "real"
"""  # M1 was revealed real by an earlier mine check in mine-1 and is still there; M2 was never checked


def test_6_4_ruling_per_landing_sweeps_only_a_box_a_landing_checked(tmp_path):
    """6.4: "The Japanese player also removes one revealed real mine marker of
    their choice from the map. [...] One real mine marker still in a mine box
    is removed each turn."  per-landing (the default): the landing this turn
    checks no mine box, so nothing is swept."""
    code, result = adjudicate(tmp_path, MINES_SWEPT_ONCE, '[[order]]\nland = "fw-hitu-lama"\n', "6")
    assert code == 0, result
    assert not [t for t in texts(result) if "minesweeping" in t]
    assert {m["id"]: m["box"] for m in result["position"]["mines"]}["M1"] == "mine-1"


def test_6_4_ruling_every_turn_sweeps_every_box_holding_a_revealed_real_mine(tmp_path):
    """6.4: "One real mine marker still in a mine box is removed each turn."
    every-turn: the revealed real mine of mine-1 is swept though no landing
    checked the box this turn; the never-revealed M2 cannot be told real and stays."""
    code, result = adjudicate(tmp_path, MINES_SWEPT_ONCE, '[[order]]\nland = "fw-hitu-lama"\n', "6",
                              ruling='"6.4" = "every-turn"')
    assert code == 0, result
    assert ("minesweeping in mine-1: the real marker M1 removed (6.4 ruling every-turn: no landing checked it "
            "this turn)") in texts(result)
    boxes = {m["id"]: m["box"] for m in result["position"]["mines"]}
    assert "M1" not in boxes and boxes["M2"] == "mine-3"  # a removed marker leaves the board


# --------------------------------------------------------------------------- 6.5 beachheads

WALK_ONTO_A_BEACH = """\
turn = 3
phase = "japanese-movement"
[positions]
"3.A" = "1403"
"""
LAND_ON_A_BEACH = """\
turn = 3
phase = "japanese-landing"
[positions]
"1.A" = "fw-hitu-lama"
"""


def test_6_5_ruling_entry_walking_onto_a_landing_hex_places_a_beachhead(tmp_path):
    """6.5: "When a Japanese unit enters a landing hex, place one beachhead
    marker in that hex."  entry (the default): any entry, by land too."""
    code, result = adjudicate(tmp_path, WALK_ONTO_A_BEACH, '[[order]]\nmove = "3.A: 1403 1402"\n')
    assert code == 0, result
    assert "beachhead established on 1402" in texts(result)
    assert result["position"]["beachheads"] == ["1402"]


def test_6_5_ruling_landed_a_beachhead_only_where_a_unit_landed(tmp_path):
    """6.5: "When a Japanese unit enters a landing hex, place one beachhead
    marker in that hex."  landed: walking onto Hitu Lama's beach places
    none; coming ashore there from the First Wave box does."""
    code, result = adjudicate(tmp_path, WALK_ONTO_A_BEACH, '[[order]]\nmove = "3.A: 1403 1402"\n',
                              ruling='"6.5" = "landed"')
    assert code == 0, result
    assert "3.A moves 1403 1402" in " ".join(texts(result)) and not result["position"]["beachheads"]
    code, result = adjudicate(tmp_path, LAND_ON_A_BEACH, '[[order]]\nland = "fw-hitu-lama"\n', "6",
                              ruling='"6.5" = "landed"')
    assert code == 0, result
    assert "beachhead established on 1402" in texts(result) and result["position"]["beachheads"] == ["1402"]


# --------------------------------------------------------------------------- 7.0 move orders

TWO_LEGS = '[[order]]\nmove = "3.A: 1410 1409"\n\n[[order]]\nmove = "3.A: 1409 1410"\n'
MOVERS = """\
turn = 3
phase = "japanese-movement"
[positions]
"3.A" = "1410"
"""


def test_7_0_ruling_legs_a_unit_moves_in_several_move_orders(tmp_path):
    """7.0: "During your Movement Phase, you may move all, some, or none of
    your own units. [...] A unit may spend MP until it has none left."
    legs (the default): a second move order for the same unit goes on with its MP."""
    code, result = adjudicate(tmp_path, MOVERS, TWO_LEGS)
    assert code == 0, result
    moves = [t for t in texts(result) if t.startswith("3.A moves")]
    assert len(moves) == 2 and moves[1].startswith("3.A moves 1409 1410")
    assert next(u for u in result["position"]["units"] if u["id"] == "3.A")["where"] == "1410"


def test_7_0_ruling_one_leg_refuses_a_second_move_order_for_a_unit(tmp_path):
    """7.0: "A unit may spend MP until it has none left."  one-leg: one move
    order a unit a Movement Phase."""
    code, output = adjudicate(tmp_path, MOVERS, TWO_LEGS, ruling='"7.0" = "one-leg"')
    assert code == 1
    assert ("7.0: 3.A has moved this Movement Phase; this game's 7.0 ruling is one-leg: one move order a unit a "
            "phase (only a unit stopped by a reveal, 8.0, goes on)") in output


def test_7_0_ruling_one_leg_a_unit_stopped_by_a_reveal_goes_on():
    """7.0 one-leg and 8.0 Comment: "The Japanese unit may continue moving
    with its remaining MP": a unit an 8.0 reveal stopped moves on after the
    reveal; a unit that moved without being stopped may not move again."""
    state = GAME.scenario_state({"turn": 2, "phase": "japanese-movement", "rulings": {"7.0": "one-leg"},
                                 "positions": {"3.A": "1507", "3.B": "1410"}, "concealed": {"X1": "1609"}})
    state, _ = GAME.apply(state, Ordered(JAPANESE, 4, 0, {"type": "move", "unit": "3.B", "path": ["1410", "1409"]}))
    state, events = GAME.apply(state, Ordered(JAPANESE, 4, 1, {"type": "move", "unit": "3.A",
                                                               "path": ["1507", "1608", "1708"]}))
    assert state.piece("3.A").where == "1608" and RevealDue(ALLIED, "X1", "8.0") in GAME.awaiting(state)
    state, _ = GAME.apply(state, MessageEnd(JAPANESE, 4))
    state, _ = GAME.apply(state, Opened(ALLIED, "X1", "dummy", 5))  # the Allies reveal in their next message
    state, _ = GAME.apply(state, MessageEnd(ALLIED, 5))
    assert state.phase == "japanese-movement"  # 8.0: the Movement Phase goes on
    state, events = GAME.apply(state, Ordered(JAPANESE, 6, 0, {"type": "move", "unit": "3.A", "path": ["1608", "1708"]}))
    assert state.piece("3.A").where == "1708"
    with pytest.raises(IllegalOrderError, match="7.0: 3.B has moved this Movement Phase"):
        GAME.apply(state, Ordered(JAPANESE, 6, 1, {"type": "move", "unit": "3.B", "path": ["1409", "1410"]}))
    with pytest.raises(IllegalOrderError, match="7.0: 3.A has moved this Movement Phase"):  # it went on once
        GAME.apply(state, Ordered(JAPANESE, 6, 1, {"type": "move", "unit": "3.A", "path": ["1708", "1608"]}))


# --------------------------------------------------------------------------- 11.2 shifts beyond the table

NINE_TO_ONE_ON_A_MOUNTAIN = """\
turn = 3
phase = "japanese-combat"
disrupted = ["3.B"]
[positions]
"3.A" = "1507"
"3.B" = "1509"
[concealed]
X2 = "1508"
[revealed]
X2 = "detachment"
"""  # 6 + 6/2 = 9 against a detachment's 1, in the mountain hex 1508
ATTACK = '[[order]]\nattack = "1508"\nwith = ["3.A", "3.B"]\n'


def crt(column: str, roll: int) -> str:
    return GAME.data.charts.table("crt").result(column, roll)


def test_11_2_ruling_clamp_then_shift_reads_the_last_column_then_shifts(tmp_path):
    """11.0: "Once the column to use on the Combat Results Table (CRT) is
    determined, the attacker rolls one die and reads the result. Defender
    terrain may shift the column."  11.2: "shift the combat ratio one column
    left."  clamp-then-shift (the default): 9:1 reads the 6:1 column, the
    mountain shifts it to 5:1; the event says so."""
    code, result = adjudicate(tmp_path, NINE_TO_ONE_ON_A_MOUNTAIN, ATTACK, "4")
    assert code == 0, result
    fought = next(e for e in result["events"] if e["text"].startswith("combat at 1508"))
    assert fought["text"].startswith("combat at 1508: 9 against 1 = 9:1 -> the 6:1 column (the highest), defender in "
                                     f"a mountain hex (11.2) -1 -> 5:1; roll 4 -> {crt('5:1', 4)}")
    assert fought["data"]["column"] == "5:1"


def test_11_2_ruling_shift_then_clamp_shifts_the_odds_then_reads_the_table(tmp_path):
    """11.2: "if the defending unit is in a mountain hex, shift the combat
    ratio one column left."  shift-then-clamp: 9:1 shifted is 8:1, still
    beyond the table: the 6:1 column; the event says so."""
    code, result = adjudicate(tmp_path, NINE_TO_ONE_ON_A_MOUNTAIN, ATTACK, "4", ruling='"11.2" = "shift-then-clamp"')
    assert code == 0, result
    fought = next(e for e in result["events"] if e["text"].startswith("combat at 1508"))
    assert fought["text"].startswith("combat at 1508: 9 against 1 = 9:1 (beyond the table: 11.2 ruling "
                                     "shift-then-clamp, 9:1 -1 = 8:1, the 6:1 column (the highest)), defender in a "
                                     f"mountain hex (11.2) -1 -> 6:1; roll 4 -> {crt('6:1', 4)}")
    assert fought["data"]["column"] == "6:1"


# --------------------------------------------------------------------------- 13.1 voluntary reveals

REVEAL = '[[order]]\nreveal = "{slot}"\n'  # X6 (Amahusu) is a dummy, X5 (Hitu Lama) a detachment: 1-allied-setup.toml


def test_13_1_ruling_any_the_allies_may_reveal_a_dummy_of_their_own_accord(players, tmp_path):
    """13.1: "Important: a concealed unit cannot block a road or trail for a
    supply check. The Allied player can block one by revealing that the
    unit is a detachment."  any (the default): a dummy may be revealed too."""
    j, a = opening(players)
    (tmp_path / "reveal.toml").write_text(REVEAL.format(slot="X6"))
    r = a.run("play", a.game, "--orders", tmp_path / "reveal.toml")
    assert r.exit_code == 0, r.output
    assert "[13.1] X6 in 1213 is revealed: a dummy, removed from the game" in r.output


def test_13_1_ruling_detachment_only_a_detachment_may_be_revealed_of_the_owners_accord(players, tmp_path):
    """13.1: "The Allied player can block one by revealing that the unit is
    a detachment."  detachment: revealing a dummy voluntarily is refused,
    nothing written; revealing a detachment is allowed."""
    j, a = opening(players, "--ruling", "13.1=detachment")
    before = sorted(a.game.glob("*.pbem"))
    (tmp_path / "reveal.toml").write_text(REVEAL.format(slot="X6"))
    r = a.run("play", a.game, "--orders", tmp_path / "reveal.toml")
    assert r.exit_code == 1
    assert ("13.1: X6 would be revealed as a dummy, and no rule demands it: this game's 13.1 ruling is detachment "
            "-- only a concealed detachment may be revealed of the owner's accord") in r.output
    assert sorted(a.game.glob("*.pbem")) == before
    (tmp_path / "reveal.toml").write_text(REVEAL.format(slot="X5"))
    r = a.run("play", a.game, "--orders", tmp_path / "reveal.toml")
    assert r.exit_code == 0, r.output
    assert "[13.1] X5 in 1402 is revealed: a detachment" in r.output


# --------------------------------------------------------------------------- 14.2 placing the concealed second wave


def second_wave_revealed(reading: str):
    """14.2 to the turn-1 Recovery Phase, as test_ambon_rules plays it: the
    note "1:hitu-lama 2:laha" is revealed; Laha's First Wave box still holds
    the 3rd Battalion, Hitu Lama's is empty."""
    from test_ambon_rules import allied_setup

    state = allied_setup(GAME.initial_state({"rules": ["14.2"], "rulings": {"14.2": reading}}))
    orders = [{"wave": "fw-liang", "units": list(setup.KURE)},
              {"wave": "fw-laha", "units": ["228-HQ", "3.A", "3.B", "3.C", "3.D", "228-Art"]},
              {"second_wave": "1:hitu-lama 2:laha"}]
    parsed = GAME.parse_orders({"order": orders}, JAPANESE)
    state, _ = GAME.apply(state, Sealed(JAPANESE, "second-wave", 2))
    for i, order in enumerate(parsed.public):
        state, _ = GAME.apply(state, Ordered(JAPANESE, 2, i, order))
    state, _ = GAME.apply(state, MessageEnd(JAPANESE, 2))
    state = replace(state, phase="allied-combat", landings=())
    state, _ = GAME.apply(state, MessageEnd(ALLIED, 9))
    return GAME.apply(state, Opened(JAPANESE, "second-wave", "1:hitu-lama 2:laha", 10))


def test_14_2_ruling_first_wave_places_the_battalions_where_the_turn_1_step_would_have():
    """14.2: "During the Recovery Phase of turn 1, the note is revealed and
    the two battalions are placed."  first-wave (the default): in the First
    Wave box if it is clear (Hitu Lama), else the Second Wave box (Laha)."""
    state, events = second_wave_revealed("first-wave")
    assert state.piece("1.A").where == "fw-hitu-lama" and state.piece("2.C").where == "sw-laha"
    assert "1.A, 1.B, 1.C, 1.D are placed in fw-hitu-lama (as the turn-1 Second Wave step would have moved them up)" \
        in [e.text for e in events]


def test_14_2_ruling_second_wave_places_them_in_second_wave_boxes_and_6_4_moves_them_up():
    """14.2: "the note is revealed and the two battalions are placed."
    second-wave: in their Second Wave boxes; after the turn-2 landings 6.4
    moves Hitu Lama's up (its First Wave box is clear): they land on turn 3."""
    state, events = second_wave_revealed("second-wave")
    assert state.piece("1.A").where == "sw-hitu-lama" and state.piece("2.C").where == "sw-laha"
    assert ("1.A, 1.B, 1.C, 1.D are placed in sw-hitu-lama (14.2 ruling second-wave: they move up to fw-hitu-lama "
            "as 6.4 says)") in [e.text for e in events]
    assert state.turn == 2 and state.phase == "japanese-landing"
    for i, box in enumerate(("fw-liang", "fw-laha")):
        state, _ = GAME.apply(state, Ordered(JAPANESE, 11, i, {"type": "postpone", "box": box}))
    state, events = GAME.apply(state, MessageEnd(JAPANESE, 11))
    assert "1.A, 1.B, 1.C, 1.D move up to fw-hitu-lama" in [e.text for e in events]
    assert state.piece("1.A").where == "fw-hitu-lama"


# --------------------------------------------------------------------------- 11.3 (wired by retreat.py)


@pytest.mark.parametrize("reading, losses, disrupted, eliminated", [
    ("per-unit", ["NEI-1.B"], ["NEI-1.C"], ["NEI-1.B"]),  # the hit, then an extra hit for each unit that stays
    ("per-stack", ["NEI-1.B", "NEI-1.C"], ["NEI-1.B", "NEI-1.C"], []),  # the hit and one extra, both the owner's
])
def test_11_3_ruling_refusing_an_r_per_unit_or_per_stack(reading, losses, disrupted, eliminated):
    """11.3: "A combat result of "r" forces all defending units to retreat
    one hex, unless the defender chooses to take an additional hit instead
    to refuse the retreat."  per-unit: each unit that stays takes an extra
    hit; per-stack: the stack stays for one extra hit in all -- which unit
    takes it is the owner's choice, as for every hit (here: NEI-1.C)."""
    from pbem.engine.machine import DiceRolled, MessageEnd, Ordered

    state = GAME.scenario_state({"turn": 3, "phase": "japanese-combat", "rulings": {"11.3": reading},
                                 "positions": {"1.A": "1611", "1.B": "1611", "NEI-1.B": "1511", "NEI-1.C": "1511"},
                                 "standing": {"allied": {"hq-support": "never"}, "japanese": {"advance": "never"}}})
    assert state.ruling("11.3") == reading
    order = GAME.parse_orders({"order": [{"attack": "1511", "with": ["1.A", "1.B"]}]}, JAPANESE).public[0]
    state, _ = GAME.apply(state, Ordered(JAPANESE, 5, 0, order))
    state, _ = GAME.apply(state, MessageEnd(JAPANESE, 5))
    state, events = GAME.apply(state, DiceRolled("combat 1511", (5,)))  # 12 against 6 = 2:1, 5 -> 0/1r
    assert any(e.text.startswith("combat at 1511: 12 against 6 = 2:1; roll 5 -> 0/1r") for e in events)
    answer = [{"retreat": "hit"}, {"losses": losses}]
    texts = []
    for i, o in enumerate(GAME.parse_orders({"order": answer}, "allied").public):
        state, more = GAME.apply(state, Ordered("allied", 6, i, o))
        texts += [e.text for e in more]
    assert sorted(p.id for p in state.pieces if p.disrupted) == disrupted
    assert sorted(p.id for p in state.pieces if p.where == "eliminated") == eliminated
    assert all(state.piece(u).where == "1511" for u in disrupted)  # nobody retreated
    if reading == "per-stack":
        assert "defender hit: NEI-1.C is disrupted (owner's choice)" in texts
        assert "combat at 1511: the defenders refuse the retreat with one extra hit in all (11.3 ruling per-stack)" in texts
    else:
        assert "refusing the retreat (owner's choice): extra hit: NEI-1.B is eliminated" in texts
        assert "refusing the retreat (owner's choice): extra hit: NEI-1.C is disrupted" in texts


# --------------------------------------------------------------------------- a whole game under declared rulings


def test_rulings_a_whole_game_by_email_plays_shows_and_verifies_the_declared_rulings(tmp_path):
    """A whole game played by the bot through the protocol (two keystores,
    every message by mail) under the tournament preset with 6.4 every-turn
    and 11.2 shift-then-clamp: both players' replays play exactly message
    0's rulings; pbem show and verify say them; a joiner's pbem that takes
    the proposal shows them before joining and replays with them."""
    from pbem.app import demo
    from pbem.match import session

    declared = {**TOURNAMENT, "6.4": "every-turn", "11.2": "shift-then-clamp"}
    report = demo.play_by_email(tmp_path / "demo", "ambon", demo.script_of("ambon"), preset="tournament",
                                rulings={"6.4": "every-turn", "11.2": "shift-then-clamp"})
    assert report.verify.ok and report.logs_agree and report.final.closed
    root = tmp_path / "demo"
    players = {name: Player(name, root / name / "keystore", root / name / "game") for name in ("kenji", "jack")}
    for player in players.values():
        match = session.load(player.game, session_identity(player))
        assert dict(match.replay.state.rulings) == declared
        r = player.run("show", player.game)
        assert r.exit_code == 0 and "rulings: 6.4 every-turn (not the default), 6.5 landed (not the default)" in r.output
        r = player.run("verify", player.game, "--audit")
        assert r.exit_code == 0, r.output
        assert "ruling 11.2 shifts beyond the table: shift-then-clamp (not the default)" in r.output
    events = [e for _, e in report.final.replay.events]
    assert [e for e in events if e.rule == "6.5" and "beachhead established" in e.text]  # where units landed
    # Jack's pbem on another machine (his key, no record of the join) takes the proposal afresh
    proposal = root / "mail" / "0000-japanese.pbem"
    elsewhere = Player("jack", tmp_path / "jack-elsewhere", tmp_path / "jack-elsewhere-game")
    elsewhere.home.mkdir()
    for name in ("identity", "identity.pub"):
        if (players["jack"].home / name).exists():
            shutil.copy(players["jack"].home / name, elsewhere.home / name)
    r = elsewhere.run("join", proposal, "--dir", elsewhere.game, "--orders", root / "orders" / "0001-allied.toml")
    assert r.exit_code == 0, r.output
    assert "rulings of the proposal, played by both sides:" in r.output
    assert "  7.0 move orders: one-leg (not the default) -- " in r.output
    joined = session.load(elsewhere.game, session_identity(elsewhere))
    assert dict(joined.replay.state.rulings) == declared


def session_identity(player: Player):
    from pbem.protocol.keystore import Keystore

    return Keystore(player.home).load(lambda: None)


def test_rulings_pbem_demo_proposes_with_the_rulings_given(tmp_path):
    """pbem demo --rulings/--ruling: the demo game is proposed, played and verified under them."""
    r = CliRunner().invoke(main, ["demo", "ambon", "--dir", str(tmp_path / "demo"), "--rulings", "tournament"],
                           env={"COLUMNS": "200"}, catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert "rulings: 6.4 per-landing, 6.5 landed (not the default), 7.0 one-leg (not the default)" in r.output
    assert "VERIFIED" in r.output
    r = CliRunner().invoke(main, ["demo", "ambon", "--ruling", "6.5=walked"])
    assert r.exit_code == 2 and "rulings.6.5: unknown reading 'walked'" in r.output
    assert "play a whole game" not in r.output  # refused before anything is played


def test_7_0_ruling_one_leg_the_orders_template_offers_no_second_leg():
    """7.0 one-leg: pbem orders lists a unit that has moved among those that may not move."""
    from pbem.app.orders_template import template

    for reading, offered in (("legs", True), ("one-leg", False)):
        state = GAME.scenario_state({"turn": 3, "phase": "japanese-movement", "rulings": {"7.0": reading},
                                     "positions": {"3.A": "1410"}})
        state, _ = GAME.apply(state, Ordered(JAPANESE, 4, 0, {"type": "move", "unit": "3.A", "path": ["1410", "1409"]}))
        text = "\n".join(line for section in template(GAME, state, JAPANESE, {}).sections for line in section.notes)
        assert ("3.A in 1409:" in text) is offered, text
        assert ("3.A (moved: 7.0 ruling one-leg)" in text) is not offered
