"""7.2 and 8.0: a concealed piece that enters an enemy ZOC must be
revealed; the owner's client makes that reveal in the very message that
moves it, so the same message may go on to attack with it (issue 26:
"allied owes the reveal of X7" refused the attack).  Played between two
keystores with the played-game helpers (fixed keys, seeded protocol)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ambon_example import IDENTITIES, MINES
from ambon_played import identities, seeded_protocol
from pbem.cli import main
from pbem.games.ambon import GAME
from pbem.match import session

X7_HEX = "2108"  # coastal, two hexes from the Kure landing beach (2106)
MOVE_AND_ATTACK = '[[order]]\nmove = "X7: 2108 2107"\n\n[[order]]\nattack = "2106"\nwith = ["X7"]\n'


def allied_setup() -> dict:
    """The historical setup, spelled out, with the detachment X7 at 2108."""
    scen = GAME.data.scenario["allied"]
    orders = [{"place": u, "hex": h} for u, h in scen["placements"].items()]
    orders += [{"conceal": p, "hex": X7_HEX if p == "X7" else h, "is": IDENTITIES[p]} for p, h in scen["concealed"].items()]
    orders += [{"mine": m, "box": b, "is": MINES[m]} for m, b in scen["mines"].items()]
    return {"order": orders}


def to_allied_movement(root: Path) -> dict | None:
    """Kure lands south of Liang (2106) on turn 1, the Laha landing
    postponed, nothing else done, up to the Allied Movement Phase; None if
    the landing was delayed (the dice of this seed)."""
    keys = identities(root)
    dirs = {"japanese": root / "kenji-game", "allied": root / "jack-game"}
    with seeded_protocol(seed=int(root.name.rsplit("-", 1)[-1])):
        first = session.new_game(dirs["japanese"], "ambon", "japanese", keys["allied"].public, keys["japanese"])
        path, _ = session.join_game(first, dirs["allied"], keys["allied"], allied_setup())
    session.receive(dirs["japanese"], [path], keys["japanese"])
    side, orders = "japanese", {"order": [{"setup": "historical"}, {"land": "fw-liang"}, {"postpone": "fw-laha"}]}
    for _ in range(6):
        played = session.play(dirs[side], keys[side], orders)
        side, orders = ("allied" if side == "japanese" else "japanese"), {}
        session.receive(dirs[side], [played.path], keys[side])
        state = session.load(dirs[side], keys[side]).replay.state
        if state.turn > 1 or state.piece("Kure-1").where not in ("2106", "fw-liang"):
            return None
        if side == "allied" and state.phase == "allied-movement":
            return {"root": root, "dirs": dirs, "keys": keys} if state.piece("Kure-1").where == "2106" else None
    return None


@pytest.fixture
def landed(tmp_path):
    for seed in range(1, 9):
        root = tmp_path / f"seed-{seed}"
        game = to_allied_movement(root)
        if game is not None:
            return game
    pytest.fail("no seed of 1-8 lands Kure on turn 1")


def play(game, *args: str, input: str | None = None):
    return CliRunner().invoke(main, ["play", str(game["dirs"]["allied"]), *args], input=input,
                              env={"PBEM_HOME": str(game["root"] / "jack" / "keystore"), "COLUMNS": "200"})


def test_7_2_8_0_a_concealed_piece_enters_an_ezoc_and_attacks_in_one_message(landed, tmp_path):
    orders = tmp_path / "attack.toml"
    orders.write_text(MOVE_AND_ATTACK)
    r = play(landed, "--orders", str(orders), "--dry-run")
    assert r.exit_code == 0, r.output
    assert "X7 in 2107 is revealed: a detachment" in r.output
    r = play(landed, "--orders", str(orders))
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    moved = lines.index("[7.0] X7 moves 2108 2107 for 3 MP (1 MP left)")
    assert lines[moved + 1] == "[7.2] X7 in 2107 is revealed: a detachment"
    assert "[11.0] allied declares: X7 attack Kure-HQ, Kure-1, Kure-2, Kure-3, Kure-MG in 2106" in lines
    sent = Path(lines[-1])
    body = json.loads(session.read_messages([sent])[0][1].body_bytes)
    assert [item["slot"] for item in body["reveals"]] == ["X7"]  # the reveal 7.2 demands, made by the client
    received = session.receive(landed["dirs"]["japanese"], [sent], landed["keys"]["japanese"])
    assert received.match.replay.state.piece("X7").where == "2107"  # the opponent takes it in


def test_7_2_8_0_the_terminal_dialogue_accepts_the_attack_after_the_move(landed):
    r = play(landed, input="move X7: 2108 2107\nattack 2106 with X7\n\ny\n")
    assert r.exit_code == 0, r.output
    assert "not accepted" not in r.output
    assert "-> [7.2] X7 in 2107 is revealed: a detachment" in r.output
