"""The ASL assistant by email, through the CLI: the example game in
examples/asl/ plays from setup to the closing messages and verifies with
--audit; Dare-Death designations stay sealed (one slot per eligible squad)
until a squad goes Berserk, when the owner's client reveals it by itself."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import last_line

EXAMPLES = Path(__file__).parent.parent / "examples" / "asl"
GAME = "pbem.games.asl:GAME"
DESIGNATION = re.compile(r"dare-death|regular", re.IGNORECASE)


@pytest.fixture
def chinese_setup(players):
    """Ann proposes as axis; Bob joins as allied with the Chinese setup."""
    ann, bob = players
    r = ann.run("new", ann.game, "--game", GAME, "--as", "axis", "--opponent", bob.pub())
    assert r.exit_code == 0, r.output
    r = bob.run("join", last_line(r.output), "--dir", bob.game, "--orders", EXAMPLES / "1-allied-setup.toml")
    assert r.exit_code == 0, r.output
    setup_file = last_line(r.output)
    r = ann.run("receive", ann.game, setup_file)
    assert r.exit_code == 0, r.output
    return ann, bob, setup_file


def body_of(path: Path) -> dict:
    from pbem.protocol.message import SignedMessage

    (msg,) = SignedMessage.all_from_text(path.read_text())
    return msg.body


def play(player, other, orders: Path):
    r = player.run("play", player.game, "--orders", orders)
    assert r.exit_code == 0, r.output
    sent = last_line(r.output)
    received = other.run("receive", other.game, sent)
    assert received.exit_code == 0, received.output
    return r, sent, received


def view(player) -> dict:
    r = player.run("show", player.game, "--json")
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


def test_8_5_2_setup_seals_one_designation_per_eligible_squad(chinese_setup):
    ann, bob, setup_file = chinese_setup
    sent = body_of(setup_file)
    assert not DESIGNATION.search(json.dumps(sent)), "a designation leaked into the setup message"
    assert sorted(sent["commitments"]) == [f"dd-{s}" for s in "ABCDEFGHIKM"]  # one slot per eligible squad
    body = view(ann)
    squads = body["view"]["sides"]["allied"]["squads"]
    eligible = [s["id"] for s in squads if s["eligible"]]
    assert eligible == ["A", "B", "C", "D", "E", "F", "G", "H", "I", "K", "M"]  # not the 5-3-7s L, N
    assert {s["id"]: s.get("dare_death") for s in squads if s["id"] in ("L", "N")} == {"L": None, "N": None}
    assert all(s["dare_death"] == "sealed" for s in squads if s["eligible"])
    assert body["view"]["sides"]["allied"]["dare_death_quota"] == 2
    mine = view(bob)["view"]["sides"]["allied"]["squads"]
    assert [s["id"] for s in mine if s.get("dare_death") is True] == ["A", "C"]
    assert all(s.get("private") for s in mine if s["eligible"])


def test_the_example_game_plays_through_and_verifies_with_audit(chinese_setup, tmp_path):
    ann, bob, _ = chinese_setup
    play(ann, bob, EXAMPLES / "2-axis-setup.toml")
    r, sent, _ = play(bob, ann, EXAMPLES / "3-allied-berserk.toml")
    assert "A (3-3-7 in Z0) goes Berserk, target J (4-4-8 in X2)" in r.output
    assert "reveals squad A's designation" in r.output and "a Dare-Death Squad" in r.output
    assert "Y1 Y2 X2 for 3 MF" in r.output
    # the reveal is in the file; no other designation is
    assert [(r["slot"], r["value"].strip()) for r in body_of(sent)["reveals"]] == [("dd-A", "dare-death")]
    squads = {s["id"]: s for s in view(ann)["view"]["sides"]["allied"]["squads"]}
    assert squads["A"]["dare_death"] is True and squads["A"]["revealed_in"] == 3
    assert all(squads[s]["dare_death"] == "sealed" for s in "BCDEFGHIKM")
    _, _, received = play(ann, bob, EXAMPLES / "4-axis-first-fire.toml")
    # asl.phase: the DR names no phase, so it is stamped with the one message 3 set (the Chinese MPh)
    assert re.search(r"axis's DR in allied MPh for 'First Fire on A in Y1: 4 FP IFT': DR \d+ \(colored \d, white \d\)",
                     received.output)
    r, _, _ = play(bob, ann, EXAMPLES / "5-allied-mc.toml")
    assert "the game is now at allied Player Turn, CCPh (Close Combat Phase)" in r.output
    stamped = [(x["label"], x["player_turn"], x["phase"]) for x in view(ann)["view"]["rolls"]]
    assert stamped == [("4.0", "allied", "MPh"), ("5.0", "allied", "MPh"), ("5.1", "allied", "CCPh")]
    play(ann, bob, EXAMPLES / "6-axis-end.toml")
    r, _, _ = play(bob, ann, EXAMPLES / "7-allied-closing.toml")
    assert "closes the game" in r.output
    for p in (ann, bob):
        r = p.run("verify", p.game, "--audit", "--json")
        assert r.exit_code == 0, r.output
        report = json.loads(r.output)
        assert report["ok"] and report["over"] and report["messages"] == 8
        dice = {roll["label"]: roll for roll in report["rolls"]}
        assert [d["dice"] for d in dice.values()] == ["2d6", "2d6", "1d6"]
    # anyone with the bare files verifies the same, with no key at all
    files = sorted(ann.game.glob("*.pbem"))
    r = ann.run("verify", *files, "--audit", PBEM_HOME=str(tmp_path / "nobody"))
    assert r.exit_code == 0, r.output and "VERIFIED" in r.output


def test_8_5_2_berserk_of_a_regular_squad_is_refused_and_reveals_nothing(chinese_setup, tmp_path):
    ann, bob, _ = chinese_setup
    play(ann, bob, EXAMPLES / "2-axis-setup.toml")
    orders = (EXAMPLES / "3-allied-berserk.toml").read_text()
    # F is eligible but regular; put it where A stands
    bad = tmp_path / "bad.toml"
    bad.write_text(orders.replace('{ id = "A", type = "3-3-7", hex = "Z0", markers = ["CX"] }',
                                  '{ id = "F", type = "3-3-7", hex = "Z0" }').replace('units = ["A"]', 'units = ["F"]'))
    before = sorted(bob.game.iterdir())
    r = bob.run("play", bob.game, "--orders", bad)
    assert r.exit_code == 1
    assert "8.5.2" in r.output and "F is not a Dare-Death Squad" in r.output
    assert sorted(bob.game.iterdir()) == before  # nothing written


def test_8_5_2_berserk_failing_a_condition_is_refused_citing_it(chinese_setup, tmp_path):
    ann, bob, _ = chinese_setup
    play(ann, bob, EXAMPLES / "2-axis-setup.toml")
    orders = (EXAMPLES / "3-allied-berserk.toml").read_text()
    for unit, reason in (("B", "B cannot move: marked Prep Fire"),
                         ("C", "7-0 in AA2 is marked with a Prep Fire counter"),
                         ("D", "is not in LOS of D (AA1)")):
        bad = tmp_path / f"bad-{unit}.toml"
        bad.write_text(orders.replace('units = ["A"]', f'units = ["{unit}"]'))
        r = bob.run("play", bob.game, "--orders", bad)
        assert r.exit_code == 1, r.output
        assert "8.5.2" in r.output and reason in r.output


def test_8_5_2_designation_count_checked_when_designating(players, tmp_path):
    ann, bob = players
    r = ann.run("new", ann.game, "--game", GAME, "--as", "axis", "--opponent", bob.pub())
    proposal = last_line(r.output)
    orders = tmp_path / "too-many.toml"
    orders.write_text((EXAMPLES / "1-allied-setup.toml").read_text().replace('dare_death = ["A", "C"]',
                                                                             'dare_death = ["A", "C", "D"]'))
    r = bob.run("join", proposal, "--dir", bob.game, "--orders", orders)
    assert r.exit_code == 1
    assert "8.5.2: 3 Dare-Death Squads designated among 11 eligible (non-5-3-7) squads; 10% rounded up is 2" in r.output
    orders.write_text((EXAMPLES / "1-allied-setup.toml").read_text().replace('dare_death = ["A", "C"]',
                                                                             'dare_death = ["A", "L"]'))
    r = bob.run("join", proposal, "--dir", bob.game, "--orders", orders)
    assert r.exit_code == 1 and "L is a 5-3-7" in r.output


def test_8_5_2_no_designation_at_all_is_allowed_and_looks_the_same(players, tmp_path):
    """Designating none (the rule not used) seals 11 "regular" values of the
    same length: the setup message is as long as one with 2 designations."""
    sizes = []
    for i, chosen in enumerate(('["A", "C"]', "[]")):
        ann, bob = players
        r = ann.run("new", tmp_path / f"ann{i}", "--game", GAME, "--as", "axis", "--opponent", bob.pub())
        orders = tmp_path / f"setup{i}.toml"
        orders.write_text((EXAMPLES / "1-allied-setup.toml").read_text().replace('dare_death = ["A", "C"]', f"dare_death = {chosen}"))
        r = bob.run("join", last_line(r.output), "--dir", tmp_path / f"bob{i}", "--orders", orders)
        assert r.exit_code == 0, r.output
        sent = body_of(last_line(r.output))
        sizes.append((len(sent["sealed"]), sorted(sent["commitments"])))
    assert sizes[0] == sizes[1]


def test_8_5_2_a_client_skipping_the_check_is_caught_at_audit(players, tmp_path, monkeypatch):
    """A modified client that seals 3 designations of 11 passes every check
    while the game goes on (nothing is visible) -- and fails the audit."""
    from pbem.games.asl.game import AslGame

    ann, bob = players
    r = ann.run("new", ann.game, "--game", GAME, "--as", "axis", "--opponent", bob.pub())
    orders = tmp_path / "three.toml"
    orders.write_text((EXAMPLES / "1-allied-setup.toml").read_text().replace('dare_death = ["A", "C"]',
                                                                             'dare_death = ["A", "C", "D"]'))
    monkeypatch.setattr(AslGame, "check_seals", lambda self, state, side, store: [])
    r = bob.run("join", last_line(r.output), "--dir", bob.game, "--orders", orders)
    assert r.exit_code == 0, r.output
    monkeypatch.undo()
    assert ann.run("receive", ann.game, last_line(r.output)).exit_code == 0
    assert ann.run("verify", ann.game).exit_code == 0
    play(ann, bob, EXAMPLES / "6-axis-end.toml")
    play(bob, ann, EXAMPLES / "7-allied-closing.toml")
    r = ann.run("verify", ann.game, "--audit")
    assert r.exit_code == 1
    assert "allied: 8.5.2: 3 Dare-Death Squads designated among 11 eligible (non-5-3-7) squads" in r.output


def test_8_5_2_play_asks_for_orders_and_refuses_a_berserk_the_rules_forbid(chinese_setup, tmp_path):
    """`pbem play` without --orders: each order is tried as the message would
    be; squad B's Berserk is refused citing 8.5.2 and nothing is sealed or
    revealed for it; A's is taken, with a DR, and the message is the same as
    the example file's."""
    ann, bob, _ = chinese_setup
    play(ann, bob, EXAMPLES / "2-axis-setup.toml")
    position = tmp_path / "position.toml"
    position.write_text((EXAMPLES / "3-allied-berserk.toml").read_text())
    answers = [
        "berserk", str(position), "B", "J", "",  # refused: B is marked Prep Fire
        "berserk", "A", "J", "",                # the position file is asked once
        "DR", "Morale Check of E", "-1", "MPh", "allied", "",   # asl.phase: the game has none yet
        "done",
    ]
    r = bob.run("play", bob.game, input="\n".join(answers) + "\n")
    assert r.exit_code == 0, r.output
    assert "not accepted" in r.output and "8.5.2" in r.output and "B cannot move: marked Prep Fire" in r.output
    assert "A (3-3-7 in Z0) goes Berserk, target J (4-4-8 in X2)" in r.output
    body = body_of(last_line(r.output))
    assert [(x["slot"], x["value"].strip()) for x in body["reveals"]] == [("dd-A", "dare-death")]
    assert [o["type"] for o in body["orders"]] == ["berserk", "DR"]
    assert body["orders"][1] == {"type": "DR", "purpose": "Morale Check of E", "drm": -1, "phase": "MPh",
                                 "player_turn": "allied"}


def test_8_5_2_owner_reveals_a_designation_with_a_dare_death_order(chinese_setup, tmp_path):
    """C never goes Berserk, but 8.5.2's CC benefits hold Berserk or not: a
    `dare-death` order claims them; the client adds dd-C's reveal by itself
    and the opponent sees the sealed value."""
    ann, bob, _ = chinese_setup
    play(ann, bob, EXAMPLES / "2-axis-setup.toml")
    orders = tmp_path / "claim.toml"
    orders.write_text('[[order]]\ntype = "dare-death"\nsquad = "C"\npurpose = "CC in X2: -1 DRM"\n')
    r, sent, received = play(bob, ann, orders)
    body = body_of(sent)
    assert body["orders"] == [{"type": "dare-death", "squad": "C", "purpose": "CC in X2: -1 DRM"}]
    assert [(x["slot"], x["value"].strip()) for x in body["reveals"]] == [("dd-C", "dare-death")]
    for output in (r.output, received.output):
        assert "reveals squad C's designation (sealed in message 0001): 'dare-death' -- a Dare-Death Squad" in output
        assert "the sealed value is 'dare-death' -- the claim holds" in output
    squads = {s["id"]: s for s in view(ann)["view"]["sides"]["allied"]["squads"]}
    assert squads["C"]["dare_death"] is True and squads["C"]["revealed_in"] == 3
    assert all(squads[s]["dare_death"] == "sealed" for s in "ABDEFGHIKM")


def test_8_5_2_play_asks_for_a_dare_death_order(chinese_setup):
    ann, bob, _ = chinese_setup
    play(ann, bob, EXAMPLES / "2-axis-setup.toml")
    answers = ["dare-death", "L", "",         # refused: a 5-3-7 has no designation
               "dare-death", "B", "CC in X2",  # B is regular: the reveal shows it
               "done"]
    r = bob.run("play", bob.game, input="\n".join(answers) + "\n")
    assert r.exit_code == 0, r.output
    assert "not accepted" in r.output and "L is a 5-3-7, which has no Dare-Death designation" in r.output
    body = body_of(last_line(r.output))
    assert body["orders"] == [{"type": "dare-death", "squad": "B", "purpose": "CC in X2"}]
    assert [(x["slot"], x["value"].strip()) for x in body["reveals"]] == [("dd-B", "regular")]
    assert "the claim fails: B is not a Dare-Death Squad" in r.output
