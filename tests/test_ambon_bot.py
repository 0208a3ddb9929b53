"""The new Ambon bot (pbem/games/ambon/bot: player, candidates, evaluate,
search; HouseBot): each rule behaviour it implements, by rule number, and
a whole game through the real protocol."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from pbem.engine.machine import Ordered, replace
from pbem.games.ambon import GAME, movement
from pbem.games.ambon.bot import evaluate, search
from pbem.games.ambon.bot.arena import BaselinePlayer, play
from pbem.games.ambon.bot.house import HouseBot
from pbem.games.ambon.bot.player import Player
from pbem.games.ambon.state import ALLIED, JAPANESE
from pbem.match import session

DATA = GAME.data


def _setup(allied_seed: bytes = b"a", japanese_seed: bytes = b"j"):
    """The position after both setups (the bot's own), and the Allied store."""
    state = GAME.initial_state({})
    allied = HouseBot(GAME, ALLIED, seed=allied_seed)
    doc = allied.orders(state, 1, {})
    parsed = GAME.parse_orders(doc, ALLIED)
    from pbem.engine.machine import Sealed

    for slot in sorted(parsed.seals):
        state, _ = GAME.apply(state, Sealed(ALLIED, slot, 1))
    for i, o in enumerate(parsed.public):
        state, _ = GAME.apply(state, Ordered(ALLIED, 1, i, o))
    from pbem.engine.machine import MessageEnd

    state, _ = GAME.apply(state, MessageEnd(ALLIED, 1))
    return state, dict(parsed.seals), doc


def _position(pieces: dict[str, str], phase: str = "japanese-combat", **extra):
    """A position with only ``pieces`` (id -> hex) on the map."""
    state = GAME.initial_state({})
    placed = []
    for p in state.pieces:
        placed.append(replace(p, where=pieces.get(p.id, "eliminated")))
    return replace(state, pieces=tuple(placed), phase=phase, turn=3, **extra)


def test_4_1_allied_setup_varies_with_the_seed_and_repeats_with_it():
    _, seals_a, doc_a = _setup(b"one")
    _, seals_b, _ = _setup(b"two")
    _, seals_c, doc_c = _setup(b"one")
    assert seals_a != seals_b
    assert doc_a == doc_c and seals_a == seals_c


def test_4_2_japanese_setup_varies_with_the_seed():
    state, _, _ = _setup()
    docs = {str(HouseBot(GAME, JAPANESE, seed=bytes([i])).orders(state, 2, {})["order"]) for i in range(8)}
    assert len(docs) > 1
    again = HouseBot(GAME, JAPANESE, seed=bytes([3])).orders(state, 2, {})
    assert again == HouseBot(GAME, JAPANESE, seed=bytes([3])).orders(state, 2, {})


def test_11_0_odds_count_every_halving():
    # 1.A alone next to two Allied hexes, attacking only one of them: halved (11.0, EZOC of the other)
    pos = _position({"1.A": "1609", "NEI-2.B": "1509", "NEI-2.C": "1708"})
    odds = evaluate.battle_odds(DATA, pos, JAPANESE, "1509", ("1.A",), "")
    full = DATA.spec(pos.piece("1.A")).combat
    assert odds.attack == full * DATA.value("unengaged_ezoc_factor")
    # both attacked: no halving
    plan = [("1708", ("1.B",), "")]
    pos2 = _position({"1.A": "1609", "1.B": "1609", "NEI-2.B": "1509", "NEI-2.C": "1708"})
    assert evaluate.battle_odds(DATA, pos2, JAPANESE, "1509", ("1.A",), "", plan).attack == full


def test_9_0_odds_count_functional_overstacking():
    pos = _position({"1.A": "1609", "1.B": "1609", "1.C": "1609", "1.D": "1609", "NEI-2.B": "1509"})
    odds = evaluate.battle_odds(DATA, pos, JAPANESE, "1509", ("1.A",), "")
    assert odds.attack == DATA.spec(pos.piece("1.A")).combat * DATA.value("functional_overstack_factor")


def test_11_0_the_crt_outcome_is_the_exact_distribution():
    pos = _position({"1.A": "1609", "1.B": "1609", "1.C": "1609", "NEI-2.B": "1509"})
    odds = evaluate.battle_odds(DATA, pos, JAPANESE, "1509", ("1.A", "1.B", "1.C"), "")
    out = evaluate.outcome(DATA, odds, [pos.piece("NEI-2.B")])
    assert 0 < out.clear <= 1 and out.defender_hits > 0
    weak = evaluate.battle_odds(DATA, pos, JAPANESE, "1509", ("1.A",), "")
    assert evaluate.outcome(DATA, weak, [pos.piece("NEI-2.B")]).clear < out.clear


def test_11_1_the_attack_takes_hq_support():
    pos = _position({"1.A": "1609", "1.B": "1609", "1.C": "1609", "228-HQ": "1609", "NEI-2.B": "1509"})
    plan = search.plan_attacks(DATA, pos, JAPANESE, 2)
    assert plan and plan[0][0] == "1509" and plan[0][2] == "228-HQ"


def test_11_1_a_lone_hq_is_attacked_by_one_unit():
    pos = _position({"1.A": "1510", "1.B": "1510", "NEI-HQ": "1611"})
    plan = search.plan_attacks(DATA, pos, JAPANESE, 2)
    assert [(t, len(u)) for t, u, _ in plan] == [("1611", 1)]


def test_10_0_the_bot_bombards_before_it_attacks():
    pos = _position({"1.A": "1609", "1.B": "1609", "1.C": "1609", "1.D": "1608", "NEI-2.B": "1509"},
                    phase="japanese-movement")
    doc = Player(GAME, JAPANESE, seed=b"x").orders(pos, JAPANESE, 9, {})
    kinds = [next(iter(o)) for o in doc["order"]]
    assert "bombard" in kinds and "attack" not in kinds  # the attacks wait for the bombardment's die
    bombard = next(o for o in doc["order"] if "bombard" in o)
    assert bombard == {"bombard": "1.D", "target": "NEI-2.B"}


def test_9_0_never_advances_into_overstacking():
    pos = _position({"1.A": "1609", "1.B": "1609", "1.C": "1609", "1.D": "1609", "2.A": "1509", "2.B": "1509"})
    bot = Player(GAME, JAPANESE, seed=b"x")
    chosen = bot._advancing(pos, JAPANESE, "1509", ["1.A", "1.B", "1.C"])
    after = movement.stacking_count(DATA, [pos.piece(u) for u in chosen + ["2.A", "2.B"]])
    assert after <= DATA.value("stacking_limit") and len(chosen) == 1


def test_11_1_never_leaves_an_hq_alone_next_to_an_enemy():
    pos = _position({"1.A": "1609", "228-HQ": "1609", "NEI-2.B": "1608", "NEI-2.C": "1509"})
    bot = Player(GAME, JAPANESE, seed=b"x")
    assert bot._advancing(pos, JAPANESE, "1509", ["1.A"]) == []


def test_6_5_the_last_unit_on_a_beachhead_stays_with_allies_near():
    pos = _position({"1.A": "1402", "NEI-2.B": "1404"}, beachheads=("1402",))
    assert Player(GAME, JAPANESE, seed=b"x")._last_guard(pos, pos.piece("1.A"), [])


def test_8_0_allied_dummies_stay_out_of_japanese_zoc():
    pos = _position({"X1": "1403", "X2": "1410", "1.A": "1402"}, phase="allied-movement", beachheads=("1402",))
    pos = replace(pos, pieces=tuple(replace(p, concealed=True) if p.id in ("X1", "X2") else p for p in pos.pieces))
    own = {"X1": "dummy", "X2": "dummy"}
    doc = Player(GAME, ALLIED, seed=b"x").orders(pos, ALLIED, 9, own)
    assert not [o for o in doc["order"] if "move" in o and o["move"].split(":")[0] in ("X1", "X2")]


def test_9_0_an_overstacked_hex_is_relieved():
    state, seals, _ = _setup()
    pos = replace(state, phase="allied-movement", turn=2)
    laha = [p for p in pos.at("0812") if p.side == ALLIED]
    assert movement.stacking_count(DATA, laha) > DATA.value("stacking_limit")  # 4.1: Laha starts overstacked
    bot = Player(GAME, ALLIED, seed=b"x")
    doc = bot.orders(pos, ALLIED, 9, seals)
    movers = {o["move"].split(":")[0] for o in doc["order"] if "move" in o}
    assert movers & {p.id for p in laha}


def test_the_inputs_are_the_sides_own_store_only():
    state, seals, _ = _setup()
    assert all(slot.startswith(("X", "M")) for slot in seals)
    bot = HouseBot(GAME, JAPANESE, seed=b"j")
    doc = bot.orders(state, 2, {})
    # the Japanese setup names no Allied secret, and the state it saw holds none
    assert all(p.identity == "" for p in state.pieces if p.id in DATA.concealed_slots)
    assert "dummy" not in str(doc) and "detachment" not in str(doc)


def test_5_0_a_whole_game_through_the_real_protocol_every_order_legal():
    """New Japanese against the baseline Allies: every message goes through
    session.play (which refuses an illegal order) and the game ends."""
    with tempfile.TemporaryDirectory() as tmp:
        g = play(GAME, {JAPANESE: HouseBot(GAME, JAPANESE, seed=b"t j"), ALLIED: BaselinePlayer(GAME, ALLIED, seed=b"t a")},
                 7, Path(tmp), options=("14.1", "14.2", "14.3"), session=session)
    assert g.finished
    assert max(g.think[JAPANESE]) < 15


def test_5_0_new_allied_whole_game_and_same_seed_same_game():
    with tempfile.TemporaryDirectory() as tmp:
        runs = [play(GAME, {JAPANESE: BaselinePlayer(GAME, JAPANESE, seed=b"s"), ALLIED: HouseBot(GAME, ALLIED, seed=b"s")},
                     3, Path(tmp), options=("14.1", "14.4"), session=session) for _ in range(2)]
    assert runs[0].finished and (runs[0].vp, runs[0].messages) == (runs[1].vp, runs[1].messages)


@pytest.mark.parametrize("level", [1, 3])
def test_levels_are_counts_of_work(level):
    pos = _position({"1.A": "1609", "1.B": "1609", "1.C": "1608", "228-HQ": "1609", "NEI-2.B": "1509", "NEI-2.C": "1508"})
    assert search.plan_attacks(DATA, pos, JAPANESE, level) == search.plan_attacks(DATA, pos, JAPANESE, level)
    with pytest.raises(ValueError):
        HouseBot(GAME, JAPANESE, seed=b"", level=9)


def test_the_closing_message_carries_no_orders():
    state = replace(GAME.initial_state({}), phase="over")
    assert HouseBot(GAME, ALLIED, seed=b"").orders(state, 80, {}) == {"order": []}
