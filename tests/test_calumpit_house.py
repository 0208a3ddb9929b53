"""The house's Japanese in ``pbem solo calumpit`` (:mod:`pbem.games.calumpit.house`).

The unit tests give the house a record -- the position, the events and the
messages' orders -- and read the orders it gives; the last tests play whole
solo games through the real protocol and the solo loop."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pbem.engine.machine import Event
from pbem.games.calumpit import GAME
from pbem.games.calumpit.house import (
    JUNGLE_LINE,
    House,
    assault_odds,
    pair_chance,
    pass_chance,
    read_table,
)

ROAD = "the main road from the north (Route 3)"


@dataclass
class Msg:
    side: str
    body: dict[str, Any]


@dataclass
class Transcript:
    messages: list[Msg]

    def __len__(self) -> int:
        return len(self.messages)

    def side_of(self, seq: int) -> str:  # as in solo play: message 0 is the American's
        return "american" if seq % 2 == 0 else "japanese"


@dataclass
class Replay:
    state: Any
    events: list[tuple[int, Event]]
    over: bool = False


@dataclass
class Player:
    side: str = "japanese"


@dataclass
class Match:
    """What the house reads of a match: the position, the events, the orders."""

    replay: Replay
    transcript: Transcript
    game: Any = GAME
    player: Player = field(default_factory=Player)


def record(units: dict[str, dict[str, Any]], events: list[tuple[int, Event]], orders: dict[int, list[dict]],
           turn: int = 2, **scenario: Any) -> Match:
    """A match for the house to write message ``max seq + 1`` (a Japanese message)."""
    state = GAME.scenario_state({"turn": turn, "units": units, **scenario})
    last = max([s for s, _ in events] + list(orders) + [1])
    count = last if last % 2 == 1 else last + 1  # the house writes the next message (odd); events under it are
    # the dice of the American's last message, which the house's key rolls
    messages = [Msg("american" if i % 2 == 0 else "japanese", {"orders": orders.get(i, [])}) for i in range(count)]
    return Match(Replay(state, events), Transcript(messages))


def jagt(seq: int, *units: str, turn: int = 1) -> list[tuple[int, Event]]:
    return [(seq, Event("SEQUENCE", f"turn {turn} begins", {"turn": turn})),
            (seq, Event("JAGT", "JAGT: ...", {"units": list(units), "road": ROAD, "force": 1}))]


def moved(seq: int, uid: str, inches: float, terrain: str = "road") -> tuple[int, Event]:
    return (seq, Event("MOVEMENT", f"{uid} moves up to {inches}", {"unit": uid, "kind": "infantry",
                                                                   "terrain": terrain, "inches": inches}))


INFANTRY = {"side": "japanese", "nationality": "japanese", "kind": "infantry", "figures": 30, "force": 1}


def orders_of(match: Match) -> list[dict[str, Any]]:
    return House(GAME).orders(match)["order"]


def of_type(orders: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [o for o in orders if o["type"] == kind]


# --------------------------------------------------------------------------- JAPANESE ENTRANCE, MOVEMENT


def test_japanese_entrance_the_house_advances_the_arrived_down_the_road_toward_the_bridge():
    match = record({"J-INF-1": INFANTRY}, jagt(1, "J-INF-1"), {})
    orders = orders_of(match)
    assert of_type(orders, "move") == [{"type": "move", "kind": "infantry", "terrain": "road", "unit": "J-INF-1"}]
    assert orders[-1] == {"type": "done"}
    assert read_table(match).posts["J-INF-1"].inches == JUNGLE_LINE


def test_movement_the_house_counts_the_inches_its_moves_rolled_toward_the_bridge():
    events = jagt(1, "J-INF-1") + [moved(4, "J-INF-1", 7), moved(6, "J-INF-1", 4.5)]
    table = read_table(record({"J-INF-1": INFANTRY}, events, {3: [{"type": "move"}], 5: [{"type": "move"}]}))
    assert table.posts["J-INF-1"].inches == JUNGLE_LINE - 11.5


def test_movement_an_american_move_of_a_japanese_unit_is_not_the_house_s():
    events = jagt(1, "J-INF-1") + [moved(5, "J-INF-1", 7)]  # ordered in message 4, the American's
    assert read_table(record({"J-INF-1": INFANTRY}, events, {})).posts["J-INF-1"].inches == JUNGLE_LINE


def test_victory_conditions_the_house_reports_the_japanese_at_the_bridge():
    events = jagt(1, "J-INF-1") + [moved(2 * i + 2, "J-INF-1", 8) for i in range(5)]
    orders = orders_of(record({"J-INF-1": INFANTRY}, events, {}))
    assert orders == [{"type": "report", "japanese_at_bridge": True}]


def test_victory_conditions_a_unit_going_back_does_not_reach_the_bridge():
    events = jagt(1, "J-INF-1") + [moved(2 * i + 2, "J-INF-1", 8) for i in range(5)]
    orders = orders_of(record({"J-INF-1": {**INFANTRY, "status": "withdrawing"}}, events, {}))
    assert not of_type(orders, "report")


def test_visibility_spotting_an_american_who_never_fires_is_never_seen():
    """VISIBILITY/SPOTTING: "A unit is spotted if it fires or moves within
    enemy line-of-sight": the house sees nobody, and advances."""
    match = record({"J-INF-1": INFANTRY}, jagt(1, "J-INF-1"), {2: [{"type": "done"}]})
    assert read_table(match).seen == {}
    assert of_type(orders_of(match), "fire") == []


# --------------------------------------------------------------------------- DIRECT FIRE


def test_direct_fire_the_house_fires_at_an_american_it_saw_firing_within_reach():
    fire = {"type": "fire", "weapon": "rifle", "range": 20, "figures": 12, "terrain": "road", "unit": "1-SQD",
            "target": "J-INF-1"}
    match = record({"J-INF-1": {**INFANTRY, "grade": 12}}, jagt(1, "J-INF-1"), {2: [fire]})
    table = read_table(match)
    assert table.seen["1-SQD"].inches == JUNGLE_LINE - 20  # where the American's own range puts it
    (shot,) = of_type(orders_of(match), "fire")
    assert shot["unit"] == "J-INF-1" and shot["target"] == "1-SQD" and shot["range"] == 20
    assert shot["weapon"] == "rifle" and shot["figures"] == 30 and not shot.get("moving")


def test_direct_fire_no_shot_at_an_american_out_of_reach():
    fire = {"type": "fire", "weapon": "rifle", "range": 60, "figures": 12, "terrain": "road", "unit": "1-SQD",
            "target": "J-INF-1"}
    orders = orders_of(record({"J-INF-1": {**INFANTRY, "grade": 12}}, jagt(1, "J-INF-1"), {2: [fire]}))
    assert of_type(orders, "fire") == []  # a TARGET RANGE of 50: only a natural 20 would hit


def test_direct_fire_the_american_is_seen_for_its_turn_and_the_next_only():
    fire = {"type": "fire", "weapon": "rifle", "range": 20, "figures": 12, "terrain": "road", "unit": "1-SQD",
            "target": "J-INF-1"}
    events = jagt(1, "J-INF-1") + [(4, Event("SEQUENCE", "turn 3 begins", {"turn": 3})),
                                   (6, Event("SEQUENCE", "turn 4 begins", {"turn": 4}))]
    orders = orders_of(record({"J-INF-1": INFANTRY}, events, {2: [fire]}, turn=4))
    assert of_type(orders, "fire") == [] and of_type(orders, "move")  # lost from sight: it advances again


# --------------------------------------------------------------------------- HAND-TO-HAND


def _close(grade: int) -> Match:
    """J-INF-1 in the jungle, 1 inch from 1-SQD, which fired at it from there."""
    fire = {"type": "fire", "weapon": "rifle", "range": 1, "figures": 12, "terrain": "jungle", "unit": "1-SQD",
            "target": "J-INF-1"}
    events = jagt(1, "J-INF-1") + [moved(4, "J-INF-1", 5, "jungle")]
    return record({"J-INF-1": {**INFANTRY, "grade": grade}}, events, {3: [{"type": "move"}], 4: [fire]})


def test_hand_to_hand_the_house_assaults_when_the_tables_favour_it():
    match = _close(grade=20)
    odds = assault_odds(GAME.data, match.replay.state.unit("J-INF-1"), "jungle", match.replay.state.unit("1-SQD"),
                        "foxhole")
    assert odds >= 0.5
    orders = orders_of(match)
    (move,) = of_type(orders, "move")
    (melee,) = of_type(orders, "melee")
    assert move["terrain"] == "jungle" and orders.index(move) < orders.index(melee)  # into contact, then the fight
    assert melee["attacker"] == "J-INF-1" and melee["defender"] == "1-SQD"
    assert melee["pairs"] == ["bayonet charging vs foxhole"] * 12  # figure for figure: the squad's 12
    assert melee["attacker_in"] == "jungle" and melee["defender_in"] == "foxhole"


def test_hand_to_hand_no_assault_when_the_tables_do_not_favour_it():
    match = _close(grade=10)  # its morale check (+5) passes on 5 or less: 25%
    odds = assault_odds(GAME.data, match.replay.state.unit("J-INF-1"), "jungle", match.replay.state.unit("1-SQD"),
                        "foxhole")
    assert odds < 0.5
    orders = orders_of(match)
    assert of_type(orders, "melee") == [] and of_type(orders, "move") == []
    (shot,) = of_type(orders, "fire")  # it halts and fires
    assert shot["target"] == "1-SQD" and shot["range"] == 1


def test_hand_to_hand_a_banzai_charge_goes_in_whatever_the_odds():
    match = _close(grade=10)
    match.replay.state = GAME.scenario_state({"turn": 2, "units": {"J-INF-1": {**INFANTRY, "grade": 10,
                                                                                 "status": "banzai"}}})
    assert of_type(orders_of(match), "melee")


def test_hand_to_hand_the_odds_follow_the_tables():
    assert pass_chance(20, 5 - 10) == 1.0 and pass_chance(20, 5) == 0.75 and pass_chance(3, 5) == 0.0
    assert pair_chance(0) == 0.5 and pair_chance(3) == pytest.approx(30 / 33)  # 3 ties re-rolled, 3 lost


# --------------------------------------------------------------------------- MORALE


def test_morale_a_routed_unit_runs_to_the_rear_and_takes_its_rally_check():
    events = jagt(1, "J-INF-1") + [(2, Event("MORALE", "J-INF-1 is now routed", {"unit": "J-INF-1", "status": "rout"}))]
    orders = orders_of(record({"J-INF-1": {**INFANTRY, "status": "rout"}}, events, {}))
    assert of_type(orders, "move") == [{"type": "move", "kind": "infantry", "terrain": "road", "unit": "J-INF-1"}]
    assert of_type(orders, "morale") == [{"type": "morale", "unit": "J-INF-1", "position": "road"}]
    # its move was away from the bridge
    events += [moved(4, "J-INF-1", 6)]
    table = read_table(record({"J-INF-1": {**INFANTRY, "status": "rout"}}, events, {3: [{"type": "move"}]}))
    assert table.posts["J-INF-1"].inches == JUNGLE_LINE + 6


def test_morale_a_routed_unit_that_passed_its_check_is_rallied():
    events = jagt(1, "J-INF-1") + [
        (2, Event("MORALE", "J-INF-1 is now routed", {"unit": "J-INF-1", "status": "rout"})),
        moved(4, "J-INF-1", 6), (4, Event("MORALE", "J-INF-1: morale passes", {"unit": "J-INF-1", "passed": True}))]
    orders = orders_of(record({"J-INF-1": {**INFANTRY, "status": "rout"}}, events, {3: [{"type": "move"}]}))
    assert orders[0] == {"type": "status", "unit": "J-INF-1", "status": "active"}


def test_morale_is_checked_anytime_a_unit_takes_fire_rounds_called_on_it_with_no_burst():
    shelled = {"type": "indirect", "weapon": "stokes", "unit": "MORTAR", "at": "one platoon of infantry (J-INF-1)"}
    match = record({"J-INF-1": INFANTRY}, jagt(1, "J-INF-1"), {2: [shelled], 4: [{"type": "done"}]})
    assert {"type": "morale", "unit": "J-INF-1", "position": "road"} in orders_of(match)
    burst = {"type": "burst", "weapon": "stokes", "figures": 2, "terrain": "road", "unit": "J-INF-1"}
    match = record({"J-INF-1": INFANTRY}, jagt(1, "J-INF-1"), {2: [shelled], 4: [burst]})
    assert of_type(orders_of(match), "morale") == []  # the burst checked it


def test_japanese_entrance_a_withdrawing_unit_goes_back_until_off_board():
    events = jagt(1, "J-INF-1") + [moved(2, "J-INF-1", 6),
                                   (2, Event("JAPANESE ENTRANCE", "breaks off", {"withdrawing": ["J-INF-1"]}))]
    orders = orders_of(record({"J-INF-1": {**INFANTRY, "status": "withdrawing"}}, events, {1: [{"type": "move"}]}))
    assert of_type(orders, "move") and not of_type(orders, "status")
    events += [moved(4, "J-INF-1", 6)]  # back up the road, to the Jungle line
    orders = orders_of(record({"J-INF-1": {**INFANTRY, "status": "withdrawing"}}, events,
                              {1: [{"type": "move"}], 3: [{"type": "move"}]}))
    assert of_type(orders, "status") == [{"type": "status", "unit": "J-INF-1", "status": "offboard"}]


def test_tank_fire_actions_the_house_reports_its_vehicle_an_american_gun_knocked_out():
    shot = {"type": "tankfire", "gun": "us-37mm", "range": 20, "unit": "TANKS", "target": "J-LT-1"}
    tank = {"side": "japanese", "nationality": "japanese", "kind": "tank", "figures": 2, "force": 1,
            "target": "japanese-light"}
    hit = (3, Event("TANK FIRE ACTIONS", "TANKS fires at J-LT-1: hit", {"hit": True, "engine": True, "fire": False}))
    match = record({"J-LT-1": tank}, jagt(1, "J-LT-1") + [hit], {2: [shot]})
    assert orders_of(match)[0] == {"type": "loss", "unit": "J-LT-1", "men": 1}
    miss = (3, Event("TANK FIRE ACTIONS", "TANKS fires at J-LT-1: miss", {"hit": False}))
    assert of_type(orders_of(record({"J-LT-1": tank}, jagt(1, "J-LT-1") + [miss], {2: [shot]})), "loss") == []


def test_the_house_is_deterministic_given_the_record():
    fire = {"type": "fire", "weapon": "rifle", "range": 20, "figures": 12, "terrain": "road", "unit": "1-SQD",
            "target": "J-INF-1"}
    match = record({"J-INF-1": INFANTRY, "J-INF-2": INFANTRY}, jagt(1, "J-INF-1", "J-INF-2"), {2: [fire]})
    assert orders_of(match) == orders_of(match) == House(GAME).orders(match)["order"]


# --------------------------------------------------------------------------- whole solo games, the real protocol


def _passing_game(root: Path, last_turn: int = 60) -> list[str]:
    from pbem.games.calumpit import solo
    from pbem.protocol.keystore import Keystore

    human = Keystore(root / "me").load_or_create("solo player")
    said: list[str] = []

    def ask(prompt: str) -> str:
        return "end" if int(prompt.split()[1]) > last_turn else "done"

    assert solo.run(root / "solo", human, ask, said.append)
    return said


def test_sequence_a_solo_game_against_a_passing_american_the_japanese_reach_the_bridge(tmp_path, monkeypatch):
    from pbem.match import session

    monkeypatch.setenv("PBEM_HOME", str(tmp_path / "home"))
    said = _passing_game(tmp_path)
    out = "\n".join(said)
    assert "Japanese victory: the Japanese reached the bridge" in out
    assert "house: report japanese_at_bridge=true" in out
    # what the house did, each turn it did something, with why
    assert "house: move kind=" in out and "advances down the road toward the bridge" in out
    assert "japanese has moved and fired all its units" not in out
    match = session.load(tmp_path / "solo" / "game")
    assert match.replay.state.winner == "japanese"
    # its dice: the protocol's, keyed by the house's messages, each move's in its event
    house_moves = [e for s, e in match.replay.events if e.rule == "MOVEMENT" and e.data["unit"].startswith("J-")]
    assert house_moves and all(e.data["dice"] for e in house_moves)
    assert any(r.author == "japanese" and "movement" in r.purpose for r in match.replay.rolls)
    report = session.verify([tmp_path / "solo" / "game"])
    assert report.ok


def test_sequence_the_solo_loop_says_when_the_house_has_nothing_to_do(tmp_path, monkeypatch):
    monkeypatch.setenv("PBEM_HOME", str(tmp_path / "home"))
    from pbem.games.calumpit import solo
    from pbem.protocol.keystore import Keystore

    human = Keystore(tmp_path / "me").load_or_create("solo player")
    lines = iter(["done", "quit"])
    said: list[str] = []
    assert not solo.run(tmp_path / "solo", human, lambda prompt: next(lines), said.append)
    out = "\n".join(said)
    assert "the Jungle line is 40 inches up each road from the bridge" in out
    assert all(len(line) <= 80 for line in said[1:4])  # the opening fits an 80-column terminal
    assert "house: " in out  # what the house did in turn 1 (or that it had nothing on the table)
    assert "japanese has moved and fired all its units" not in out
    # resumed: the current turn's events only, not the whole game again
    again: list[str] = []
    assert not solo.run(tmp_path / "solo", human, lambda prompt: "quit", again.append)
    assert again[0].startswith("resumed: ") and "pbem log" in again[0]
    assert "start of turn 1: event check" not in "\n".join(again)
    assert "[SEQUENCE] turn 2 begins" in "\n".join(again)
