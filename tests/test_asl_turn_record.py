"""ASL rolls by email stamped with the turn record (asl.phase, module
version 3), shown with both dice and their doubles in the log, counted by
``pbem asl stats``; and games begun with module version 2 replaying and
verifying exactly as they were rolled (docs/protocol.md §3.4)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import begin, exchange, last_line

from pbem.engine.machine import DiceRolled, Ordered
from pbem.errors import IllegalOrderError, InputError
from pbem.games.asl import GAME
from pbem.games.asl.game import AslGame

VECTORS = Path(__file__).parent / "vectors"
#: tests/vectors/asl-rules-2: the examples/asl game, played with module version 2 before
#: rolls were stamped; its rolls as pbem computed them then: (label, dice, values, final DR/dr)
RULES_2_ROLLS = [("4.0", "DR", [3, 6], 7), ("5.0", "DR", [2, 6], 9), ("5.1", "dr", [5], 8)]


def apply_orders(orders: list[dict], state=None, side: str = "allied", seq: int = 4, game=GAME):
    """Each order parsed as `pbem play` does, then applied: the state and every event."""
    state = game.initial_state({}) if state is None else state
    events = []
    for i, order in enumerate(game.parse_orders({"order": orders}, side).public):
        state, found = game.apply(state, Ordered(side, seq, i, dict(order)))
        events += found
    return state, events


def roll(purpose: str = "1MC for 4-4-7 in K4", kind: str = "DR", **when) -> dict:
    return {"type": kind, "purpose": purpose, **when}


# --------------------------------------------------------------------------- asl.phase


def test_asl_phase_a_roll_in_a_game_without_a_phase_is_refused_naming_the_field():
    """asl.phase: with no phase known, a roll must say when it is rolled -- never guessed."""
    with pytest.raises(IllegalOrderError, match=r"asl.phase: order 1 \(DR\) of message 0004: field 'phase' is missing") as err:
        apply_orders([roll()])
    assert err.value.field == "phase"
    with pytest.raises(IllegalOrderError, match="field 'player_turn' is missing") as err:
        apply_orders([roll(phase="PFPh")])
    assert err.value.field == "player_turn"


def test_asl_phase_a_roll_without_one_is_stamped_with_the_games_current_point():
    """asl.phase: a phase order (or a roll naming one) sets the point; later rolls take it."""
    state, events = apply_orders([{"type": "phase", "phase": "Defensive Fire", "player_turn": "axis", "turn": 3},
                                  roll("IFT 8 FP vs K4, -1")])
    assert events[0].text == "allied: the game is now at Turn 3, axis Player Turn, DFPh (Defensive Fire Phase)"
    assert "allied declares a DR in Turn 3, axis Player Turn, DFPh for 'IFT 8 FP vs K4, -1'" in events[1].text
    (r,) = GAME.view(state, None)["rolls"]
    assert (r["turn"], r["player_turn"], r["phase"], r["purpose"]) == (3, "axis", "DFPh", "IFT 8 FP vs K4, -1")
    assert GAME.view(state, None)["clock"] == {"turn": 3, "player_turn": "axis", "phase": "DFPh",
                                                "phase_name": "Defensive Fire Phase", "since": 4}
    # the opponent's reply rolls in the same phase without naming it; a later phase moves the game on
    state, events = apply_orders([roll("MC for 4-4-7 in K4", "DR"), roll("Rally 4-4-7", phase="rtph")],
                                 state, side="axis", seq=5)
    assert [r["phase"] for r in GAME.view(state, None)["rolls"]] == ["DFPh", "DFPh", "RtPh"]
    assert events[1].text == "axis: the game is now at Turn 3, axis Player Turn, RtPh (Rout Phase)"


@pytest.mark.parametrize("later, message, field", [
    ({"phase": "MPh"}, "MPh comes before DFPh in the Player Turn", "phase"),
    ({"phase": "CCPh", "turn": 2}, "turn 2 is before the current Game Turn", "turn"),
    ({"player_turn": "allied"}, "field 'phase' is missing for a new Player Turn (allied, Turn 3)", "phase"),
    ({"phase": "Tea Phase"}, "field 'phase' must name an ASL phase (RPh, PFPh, MPh, DFPh, AFPh, RtPh, APh, CCPh), "
                             "got 'Tea Phase'", "phase"),
    ({"phase": "MPh", "player_turn": "japanese"}, "field 'player_turn' names the side whose Player Turn it is, "
                                                   "one of allied, axis; got 'japanese'", "player_turn"),
    ({"phase": "MPh", "turn": 0}, "field 'turn' is the Game Turn, a whole number from 1 to 99; got 0", "turn"),
])
def test_asl_phase_the_turn_record_only_moves_forward(later, message, field):
    """asl.phase: a roll stamped before the current point is refused, naming the field and the point."""
    state, _ = apply_orders([{"type": "phase", "phase": "DFPh", "player_turn": "axis", "turn": 3}])
    with pytest.raises((IllegalOrderError, InputError)) as err:
        apply_orders([roll(**later)], state, seq=6)
    assert message in str(err.value) and err.value.field == field


def test_asl_phase_a_game_turn_is_two_player_turns():
    """asl.phase: without `turn`, the side that moved first in this Game Turn
    moving again starts the next Game Turn; naming a Player Turn that has come is refused."""
    state, _ = apply_orders([{"type": "phase", "phase": "RPh", "player_turn": "axis", "turn": 1},
                             {"type": "phase", "phase": "RPh", "player_turn": "allied"}])
    assert GAME.view(state, None)["clock"]["turn"] == 1
    with pytest.raises(IllegalOrderError, match="axis's Player Turn of Turn 1 has already come"):
        apply_orders([roll(phase="CCPh", player_turn="axis", turn=1)], state, seq=6)
    state, events = apply_orders([roll("Sniper dr", "dr", phase="PFPh", player_turn="axis")], state, seq=6)
    assert "Turn 2, axis Player Turn, PFPh" in events[0].text


def test_asl_DR_doubles_snake_eyes_and_boxcars_are_named():
    """Doubles matter to ASL (cowering, Original 2 and 12): 1-1 is snake eyes, 6-6 boxcars."""
    for values, named, shown in (((1, 1), "snake eyes", "colored 1 + white 1 = 2, snake eyes"),
                                 ((6, 6), "boxcars", "colored 6 + white 6 = 12, boxcars"),
                                 ((3, 3), "doubles", "colored 3 + white 3 - 2 = 4, doubles"),
                                 ((2, 5), None, "colored 2 + white 5 - 2 = 5")):
        drm = 0 if named in ("snake eyes", "boxcars") else -2
        state, _ = apply_orders([{**roll(phase="PFPh", player_turn="allied"), "drm": drm}])
        (due,) = GAME.awaiting(state)
        assert GAME.describe_roll(state, due, values)["shown"] == shown
        after, events = GAME.apply(state, DiceRolled(due.label, values))
        assert events[0].data["doubles_name"] == named
        assert GAME.view(after, None)["rolls"][0]["doubles"] == named
        if named in ("snake eyes", "boxcars"):
            assert f"(colored {values[0]}, white {values[1]}), {named} (doubles)" in events[0].text


def test_asl_module_version_2_reads_its_rolls_as_it_did():
    """§3.4: a version 2 game knows neither the phase order nor a roll's phase fields."""
    old = GAME.for_terms("2", {})
    assert isinstance(old, AslGame) and old.version == "2" and GAME.for_terms("3", {}) is GAME
    with pytest.raises(InputError, match="unknown field 'phase'"):
        old.parse_orders({"order": [roll(phase="MPh")]}, "allied")
    with pytest.raises(InputError, match="unknown type 'phase'"):
        old.parse_orders({"order": [{"type": "phase", "phase": "MPh"}]}, "allied")
    state, events = apply_orders([roll("Sniper check")], game=old)  # no phase needed, none stamped
    assert events[0].text == ("allied declares a DR for 'Sniper check'; keyed by message 0004, resolved when "
                              "the reply arrives")
    assert GAME.view(state, None)["rolls"][0]["phase"] is None
    with pytest.raises(InputError, match="asl module version '1'"):
        AslGame(version="1")


# --------------------------------------------------------------------------- by email: the log and the stats


@pytest.fixture
def asl_game(players, tmp_path):
    """Ann (axis) and Bob (allied) have exchanged messages 0 and 1; Ann to move."""
    ann, bob = players
    begin(ann, bob, "asl", "axis")
    return ann, bob


ROLLS = "".join(f'[[order]]\ntype = "DR"\npurpose = "IFT {n}"\n\n' for n in range(20)) + \
    '[[order]]\ntype = "dr"\npurpose = "Sniper dr"\n\n[[order]]\ntype = "dr"\npurpose = "Leader Creation"\ndrm = 1\n'


def test_asl_log_shows_turn_phase_purpose_and_both_dice(asl_game, tmp_path):
    """The log: each DR's colored and white die apart, doubles named, and its turn, phase and purpose."""
    ann, bob = asl_game
    exchange(ann, bob, tmp_path, '[[order]]\ntype = "phase"\nphase = "PFPh"\nplayer_turn = "axis"\nturn = 1\n\n' + ROLLS)
    exchange(bob, ann, tmp_path)
    log = json.loads(ann.run("log", ann.game, "--json").output)
    drs = [r for r in log["declared_rolls"] if r["expression"] == "DR"]
    assert len(drs) == 20 and all(r["purpose"].startswith("DR T1 axis PFPh: IFT ") for r in drs)
    for r in drs:
        colored, white = r["terms"][0]["values"]
        named = {1: ", snake eyes", 6: ", boxcars"}.get(colored, ", doubles") if colored == white else ""
        assert r["shown"] == f"DR: colored {colored} + white {white} = {colored + white}{named}"
    text = ann.run("log", ann.game, "--all", COLUMNS="160").output
    assert "DR T1 axis PFPh: IFT 0" in text and f"DR: {drs[0]['shown'].split(': ', 1)[1]}" in text
    assert "dr+1 T1 axis PFPh" not in text and "dr T1 axis PFPh: Leader Creation" in text
    shown = ann.run("show", ann.game, "--all", COLUMNS="160").output  # a boardless game lists its rolls too
    assert "DR T1 axis PFPh: IFT 19" in shown and drs[-1]["shown"] in shown


def test_asl_stats_counts_each_players_DR_and_dr(asl_game, tmp_path):
    """pbem asl stats: count, mean, the 2..12 and 1..6 distributions, doubles, snake eyes, boxcars."""
    ann, bob = asl_game
    exchange(ann, bob, tmp_path, '[[order]]\ntype = "phase"\nphase = "RPh"\nplayer_turn = "axis"\n\n' + ROLLS)
    exchange(bob, ann, tmp_path, '[[order]]\ntype = "DR"\npurpose = "Defensive First Fire"\nphase = "MPh"\n')
    r = ann.run("asl", "stats", ann.game, "--json")
    assert r.exit_code == 0, r.output
    found = json.loads(r.output)
    assert found["schema"] == 1 and found["you"] == "axis" and found["module_version"] == "3"
    rolls = [x for x in json.loads(ann.run("show", ann.game, "--json").output)["view"]["rolls"] if x["side"] == "axis"]
    dice = [tuple(x["values"][0]) for x in rolls if x["dice"] == "DR"]
    axis = found["sides"]["axis"]
    assert axis["DR"]["count"] == 20 and axis["pending"] == 0
    assert axis["DR"]["distribution"] == [{"value": t, "count": sum(1 for d in dice if sum(d) == t)} for t in range(2, 13)]
    assert axis["DR"]["mean"] == round(sum(map(sum, dice)) / 20, 3)
    assert axis["DR"]["doubles"] == sum(1 for c, w in dice if c == w)
    assert (axis["DR"]["snake_eyes"], axis["DR"]["boxcars"]) == (dice.count((1, 1)), dice.count((6, 6)))
    assert [tuple(d) for d in axis["DR"]["history"]] == dice  # each DR in the order rolled, colored die first
    small = [x["values"][0][0] for x in rolls if x["dice"] == "dr"]
    assert axis["dr"]["count"] == 2 and axis["dr"]["distribution"] == [{"value": f, "count": small.count(f)} for f in range(1, 7)]
    assert axis["dr"]["history"] == small
    # Bob's DR is keyed by Ann's reply: Ann has computed it (provisionally, as pbem log says), Bob has not
    assert found["sides"]["allied"]["DR"]["count"] == 1 and found["all"]["DR"]["count"] == 21
    theirs = json.loads(bob.run("asl", "stats", bob.game, "--json").output)["sides"]["allied"]
    assert theirs["pending"] == 1 and theirs["DR"]["count"] == 0
    text = ann.run("asl", "stats", ann.game).output
    assert "axis (you):\n  20 DR, Original DR mean" in text and "snake eyes" in text and "boxcars" in text
    assert max(map(len, text.splitlines())) <= 80
    history = " ".join(f"{c + w}({c}{w})" for c, w in dice)
    assert "  DR in order:" in text and " ".join(history.split()[-3:]) in " ".join(text.split())
    assert "1 more declared, awaiting their dice (not counted)" in bob.run("asl", "stats", bob.game).output
    listed = json.loads(ann.run("status", ann.game, "--json").output)["games"][0]
    assert (listed["turn"], listed["phase"]) == (None, "axis MPh")  # where the turn record stands


def test_asl_stats_refuses_another_game(started):
    """pbem asl stats reads an ASL game only, and says which game it found."""
    ann, _ = started
    r = ann.run("asl", "stats", ann.game)
    assert r.exit_code == 2 and "holds a dice game, not an asl game" in r.output


# --------------------------------------------------------------------------- games begun before


def test_an_asl_game_of_module_version_2_still_verifies_with_its_rolls(tmp_path, players):
    """§3.4: a game proposed with module version 2 (rolls not stamped) replays
    with version 2's rules: the same rolls, totals and events (its files'
    summaries, which quote the events, still match), and the audit holds."""
    from pbem.match.session import verify

    directory = tmp_path / "asl-rules-2"
    shutil.copytree(VECTORS / "asl-rules-2", directory)
    result = verify([directory], audit=True)
    assert result.ok and result.audited and not result.warnings and result.replay.game.version == "2"
    assert [(r.label, r.kind, list(r.values), r.total + r.drm) for r in result.replay.state.rolls] == RULES_2_ROLLS
    ann, _ = players
    r = ann.run("log", directory, "--all", COLUMNS="160")
    assert r.exit_code == 0 and "DR: First Fire on A in Y1: 4 FP IFT" in r.output
    assert "DR-2: colored 3 + white 6 - 2 = 7" in r.output
    found = json.loads(ann.run("asl", "stats", directory, "--json").output)
    assert found["module_version"] == "2" and found["sides"]["allied"]["DR"]["count"] == 1
    # a new game is proposed with the current version
    r = ann.run("new", tmp_path / "new", "--game", "asl", "--as", "axis", "--opponent", players[1].pub())
    from pbem.protocol.message import SignedMessage

    (msg,) = SignedMessage.all_from_text(last_line(r.output).read_text())
    assert msg.body["setup"]["module_version"] == "3"
