"""Dice nobody can bias or preview (protocol §6): the derivation, uniformity,
rejection sampling, shuffles, dice expressions, and the invariant that the
author of a message cannot compute the rolls it makes due."""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter
from itertools import permutations
from pathlib import Path

import pytest

from pbem.engine import registry
from pbem.errors import InputError, IntegrityError
from pbem.match import session
from pbem.match.replay import replay
from pbem.protocol.chain import HashChain, chain_seed, step_back
from pbem.games.dice.expression import DiceExpression, DiceTerm
from pbem.protocol.dice import (
    DICE_SALT,
    ROLL_PREFIX,
    U64,
    DiceStream,
    dice_key,
    hkdf_sha256,
    roll,
)
from pbem.protocol.message import SignedMessage, sign_body
from pbem.protocol.transcript import Transcript

KEY = hashlib.sha256(b"pbem test dice key").digest()

# Chi-square critical values at p = 0.001, by degrees of freedom.
CRITICAL_P001 = {5: 20.515, 9: 27.877, 11: 31.264, 19: 43.820, 35: 66.619}


def chi_square(counts: Counter, cells: list, total: int) -> float:
    """Pearson's statistic against the uniform distribution over ``cells``."""
    expected = total / len(cells)
    assert set(counts) <= set(cells), f"values outside the expected cells: {set(counts) - set(cells)}"
    return sum((counts.get(c, 0) - expected) ** 2 / expected for c in cells)


class Scripted(DiceStream):
    """A stream whose raw 64-bit words are given by the test."""

    def __init__(self, words):
        super().__init__(KEY, "scripted")
        self._words = iter(words)
        self.used = 0

    def _u64(self) -> int:
        self.used += 1
        return next(self._words)


# --------------------------------------------------------------------------- derivation, known answers


def test_hkdf_matches_rfc5869_test_case_1():
    okm = hkdf_sha256(b"\x0b" * 22, bytes(range(0x00, 0x0D)), bytes(range(0xF0, 0xFA)), 42)
    assert okm.hex() == (
        "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"
    )


def test_hkdf_matches_rfc5869_test_case_3_empty_salt_and_info():
    okm = hkdf_sha256(b"\x0b" * 22, b"", b"", 42)
    assert okm.hex() == (
        "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"
    )


def test_dice_key_is_the_documented_hkdf_of_both_chain_values():
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    author, recipient, body_hash = b"\x01" * 32, b"\x02" * 32, hashlib.sha256(b"body").digest()
    info = b"3f2a" + b"\x00" + (7).to_bytes(8, "big") + body_hash
    expected = HKDF(algorithm=hashes.SHA256(), length=32, salt=DICE_SALT, info=info).derive(author + recipient)
    assert dice_key("3f2a", 7, body_hash, author, recipient) == expected


def test_stream_words_are_the_documented_hmac_blocks_read_eight_bytes_at_a_time():
    sub = hmac.new(KEY, ROLL_PREFIX + b"2.0/0", hashlib.sha256).digest()
    blocks = b"".join(hmac.new(sub, i.to_bytes(4, "big"), hashlib.sha256).digest() for i in range(3))
    words = [int.from_bytes(blocks[i : i + 8], "big") for i in range(0, len(blocks), 8)]
    # below(2**32) never rejects (2**64 is a multiple of 2**32): it shows the raw words mod 2**32
    stream = DiceStream(KEY, "2.0/0")
    assert [stream.below(2**32) for _ in words] == [w % 2**32 for w in words]


# --------------------------------------------------------------------------- uniformity


@pytest.mark.parametrize("sides", [6, 10, 12, 20])
def test_die_is_uniform_chi_square_at_p_0_001(sides):
    draws = 60_000
    stream = DiceStream(KEY, f"uniformity-d{sides}")
    counts = Counter(stream.die(sides) for _ in range(draws))
    statistic = chi_square(counts, list(range(1, sides + 1)), draws)
    assert statistic < CRITICAL_P001[sides - 1], f"d{sides}: chi-square {statistic:.2f}, counts {sorted(counts.items())}"


def test_dice_values_stay_within_one_to_sides():
    values = roll(KEY, "range", 100, 3)
    assert len(values) == 100 and set(values) == {1, 2, 3}


# --------------------------------------------------------------------------- rejection sampling


def test_below_3_rejects_the_top_word_and_reads_the_next():
    limit = U64 - (U64 % 3)
    assert limit == 2**64 - 1  # 2**64 = 1 (mod 3): exactly one word is in the rejected zone
    stream = Scripted([2**64 - 1, 7])
    assert stream.below(3) == 7 % 3  # not (2**64 - 1) % 3 == 0
    assert stream.used == 2


def test_below_3_accepts_the_last_word_below_the_limit():
    stream = Scripted([2**64 - 2])
    assert stream.below(3) == (2**64 - 2) % 3 == 2
    assert stream.used == 1


def test_below_6_rejects_every_word_in_its_zone():
    assert U64 % 6 == 4
    stream = Scripted([2**64 - 4, 2**64 - 3, 2**64 - 2, 2**64 - 1, 11])
    assert stream.below(6) == 11 % 6
    assert stream.used == 5


def test_below_1_is_always_zero():
    stream = DiceStream(KEY, "below-1")
    assert {stream.below(1) for _ in range(50)} == {0}


@pytest.mark.parametrize("n", [0, -1])
def test_below_refuses_an_empty_range(n):
    with pytest.raises(ValueError, match="1 <= n"):
        DiceStream(KEY, "below-0").below(n)


def test_below_larger_than_a_word_terminates_or_refuses():
    class Bounded(DiceStream):
        calls = 0

        def _u64(self) -> int:
            self.calls += 1
            if self.calls > 10_000:
                raise RuntimeError("below() drew 10,000 words without returning")
            return super()._u64()

    n = 2**64 + 1
    try:
        value = Bounded(KEY, "huge").below(n)
    except ValueError:
        return
    assert 0 <= value < n


# --------------------------------------------------------------------------- shuffles and decks


def test_fisher_yates_gives_all_six_orders_of_three_uniformly():
    trials = 12_000
    counts = Counter()
    for i in range(trials):
        items = ["a", "b", "c"]
        DiceStream(KEY, f"shuffle-{i}").shuffle(items)
        counts[tuple(items)] += 1
    cells = list(permutations("abc"))
    assert len(counts) == 6
    statistic = chi_square(counts, cells, trials)
    assert statistic < CRITICAL_P001[5], f"chi-square {statistic:.2f}, counts {dict(counts)}"


def test_shuffle_is_a_permutation():
    for i in range(200):
        items = list(range(i % 40))
        DiceStream(KEY, f"perm-{i}").shuffle(items)
        assert sorted(items) == list(range(i % 40))


def test_shuffle_is_fisher_yates_from_the_top():
    items = list("abcdefgh")
    DiceStream(KEY, "fy").shuffle(items)
    twin, expected = DiceStream(KEY, "fy"), list("abcdefgh")
    for i in range(len(expected) - 1, 0, -1):
        j = twin.below(i + 1)
        expected[i], expected[j] = expected[j], expected[i]
    assert items == expected


def test_deck_draw_is_in_range_and_a_lazy_deck_deals_every_card_once():
    stream = DiceStream(KEY, "deck")
    deck = list(range(52))
    dealt = []
    while deck:
        index = stream.draw(len(deck))
        assert 0 <= index < len(deck)
        dealt.append(deck.pop(index))
    assert sorted(dealt) == list(range(52))
    assert stream.draw(1) == 0


# --------------------------------------------------------------------------- substreams


def test_same_key_and_label_give_the_same_dice():
    assert roll(KEY, "1.0/0", 30, 6) == roll(KEY, "1.0/0", 30, 6)


def test_different_labels_give_different_dice():
    assert roll(KEY, "1.0/0", 30, 6) != roll(KEY, "1.0/1", 30, 6)
    assert roll(KEY, "a", 30, 6) != roll(KEY, "a\x00", 30, 6)


def test_different_keys_give_different_dice():
    other = bytes([KEY[0] ^ 1]) + KEY[1:]
    assert roll(KEY, "1.0/0", 30, 6) != roll(other, "1.0/0", 30, 6)


def test_two_labels_under_one_key_are_independent_chi_square():
    # joint distribution of (d6 of label "a", d6 of label "b") over many keys: uniform on 36 cells
    trials = 7_200
    counts = Counter()
    for i in range(trials):
        key = hashlib.sha256(i.to_bytes(4, "big")).digest()
        counts[(DiceStream(key, "a").die(6), DiceStream(key, "b").die(6))] += 1
    cells = [(x, y) for x in range(1, 7) for y in range(1, 7)]
    assert chi_square(counts, cells, trials) < CRITICAL_P001[35]


def test_keys_one_bit_apart_are_independent_chi_square():
    trials = 7_200
    counts = Counter()
    for i in range(trials):
        key = hashlib.sha256(i.to_bytes(4, "big")).digest()
        flipped = key[:-1] + bytes([key[-1] ^ 1])
        counts[(DiceStream(key, "x").die(6), DiceStream(flipped, "x").die(6))] += 1
    cells = [(x, y) for x in range(1, 7) for y in range(1, 7)]
    assert chi_square(counts, cells, trials) < CRITICAL_P001[35]


def test_dice_key_depends_on_every_input():
    base = dict(
        game_id="3f2a9c", seq=4, body_hash=b"\x10" * 32, author_value=b"\x20" * 32, recipient_value=b"\x30" * 32
    )
    variants = [
        {"game_id": "3f2a9d"},
        {"seq": 5},
        {"body_hash": b"\x10" * 31 + b"\x11"},
        {"author_value": b"\x20" * 31 + b"\x21"},
        {"recipient_value": b"\x30" * 31 + b"\x31"},
        {"author_value": b"\x30" * 32, "recipient_value": b"\x20" * 32},  # the two values swapped
    ]
    keys = [dice_key(**base)] + [dice_key(**{**base, **change}) for change in variants]
    assert len(set(keys)) == len(keys)
    assert dice_key(**base) == dice_key(**base)


# --------------------------------------------------------------------------- dice expressions


@pytest.mark.parametrize(
    "text, normal, terms, modifier, values, total",
    [
        ("2d6+1", "2d6+1", [DiceTerm(1, 2, 6)], 1, [(3, 4)], 8),
        ("d10", "d10", [DiceTerm(1, 1, 10)], 0, [(7,)], 7),
        ("1d20+1d4-2", "1d20+1d4-2", [DiceTerm(1, 1, 20), DiceTerm(1, 1, 4)], -2, [(15,), (3,)], 16),
        (" 3D6 - 2 ", "3d6-2", [DiceTerm(1, 3, 6)], -2, [(1, 2, 3)], 4),
        ("10-1d4", "10-1d4", [DiceTerm(-1, 1, 4)], 10, [(3,)], 7),
        ("100d1000", "100d1000", [DiceTerm(1, 100, 1000)], 0, [(1000,) * 100], 100_000),
    ],
)
def test_dice_expression_parses_and_totals(text, normal, terms, modifier, values, total):
    expr = DiceExpression.parse(text)
    assert expr.text == normal
    assert list(expr.terms) == terms
    assert expr.modifier == modifier
    assert expr.total(values) == total


@pytest.mark.parametrize("text", ["2x6", "", "   ", "d1", "0d6", "101d6", "2d6+", "+", "d", "1d1001", "2d6++1", "2d6*2"])
def test_dice_expression_refuses_bad_input_naming_field_and_quoting_it(text):
    with pytest.raises(InputError) as info:
        DiceExpression.parse(text, field="order 3: dice")
    assert info.value.field == "order 3: dice"
    assert str(info.value).startswith("order 3: dice:")
    assert repr(text) in str(info.value)


@pytest.mark.parametrize("text", ["2d6 3", "1 2d6"])
def test_dice_expression_refuses_terms_separated_only_by_a_space(text):
    with pytest.raises(InputError):
        DiceExpression.parse(text, field="dice")


# --------------------------------------------------------------------------- THE INVARIANT (protocol §6)

ROLL = {"order": [{"type": "roll", "dice": "10d20", "note": "attack on the bridge"}]}
LABEL = "2.0/0"  # message 2, order 0, term 0


def started_game(root: Path, ann, bob) -> tuple[Path, Path]:
    """A dice game, messages 0 and 1 exchanged through the library; ann (first) to move."""
    ann_dir, bob_dir = root / "ann", root / "bob"
    proposal = session.new_game(ann_dir, "dice", "first", bob.public, ann)
    reply, _ = session.join_game(proposal, bob_dir, bob)
    session.receive(ann_dir, [reply], ann)
    return ann_dir, bob_dir


@pytest.fixture
def rolled(tmp_path, ann, bob):
    """ann's message 2 declares 10d20; bob receives it; returns the dirs and bob's receive result."""
    ann_dir, bob_dir = started_game(tmp_path, ann, bob)
    sent = session.play(ann_dir, ann, ROLL).path
    received = session.receive(bob_dir, [sent], bob)
    return ann_dir, bob_dir, sent, received


def test_author_replaying_up_to_her_own_message_has_the_roll_pending(rolled, ann):
    ann_dir, _, _, _ = rolled
    match = session.load(ann_dir, ann)
    assert match.replay.rolls == []
    assert [(d.label, d.count, d.sides, d.key_seq) for d in match.replay.pending] == [(LABEL, 10, 20, 2)]


def test_replay_of_messages_0_to_2_without_next_value_leaves_the_roll_pending(rolled):
    _, bob_dir, _, _ = rolled
    messages = [m for _, m in session.read_messages(sorted(bob_dir.glob("*.pbem")))]
    assert len(messages) == 3
    result = replay(registry.get("dice"), session.build_transcript(messages))
    assert result.rolls == []
    assert [d.label for d in result.pending] == [LABEL]


def test_recipient_result_equals_final_result_after_his_reply(rolled, ann, bob):
    ann_dir, bob_dir, _, received = rolled
    (provisional,) = received.match.replay.rolls
    assert provisional.provisional and provisional.key_seq == 2 and provisional.partner_seq == 3
    reply = session.play(bob_dir, bob, {}).path
    ann_view = session.receive(ann_dir, [reply], ann).match.replay.rolls
    bob_view = session.load(bob_dir, bob).replay.rolls
    assert [r.values for r in ann_view] == [r.values for r in bob_view] == [provisional.values]
    assert not ann_view[0].provisional and not bob_view[0].provisional
    # and the values are D_2 keyed by ann's value in message 2 and bob's in message 3
    transcript = session.load(bob_dir, bob).transcript
    m2 = transcript.messages[2]
    key = dice_key(transcript.game, 2, m2.digest, transcript.chain_values[2], transcript.chain_values[3])
    assert roll(key, LABEL, 10, 20) == provisional.values


def test_roll_depends_on_a_value_the_author_has_never_seen(rolled, ann, bob):
    ann_dir, bob_dir, _, received = rolled
    (actual,) = received.match.replay.rolls
    transcript = received.match.transcript
    game_id, m2 = transcript.game, transcript.messages[2]
    # what completed the key: bob's chain value #1, the preimage of his published anchor
    bob_next = received.match.player.next_value(3)
    assert step_back(bob_next) == transcript.anchors["second"]
    everything_ann_has = b"".join(p.read_bytes() for p in sorted(ann_dir.glob("*.pbem")))
    assert bob_next.hex().encode() not in everything_ann_has
    # every value ann could try instead gives other dice
    ann_chain = HashChain(chain_seed(session.game_secret(ann, game_id, "first")))
    guesses = [
        transcript.anchors["second"],  # the latest value of bob's that ann has seen
        ann_chain.value(2),  # ann's own next value
        bytes(32),
        *(hashlib.sha256(b"guess %d" % i).digest() for i in range(5)),
    ]
    for guess in guesses:
        key = dice_key(game_id, 2, m2.digest, transcript.chain_values[2], guess)
        assert roll(key, LABEL, 10, 20) != actual.values


# --------------------------------------------------------------------------- no re-anchoring mid-game


@pytest.fixture
def three_messages(tmp_path, ann, bob) -> list[SignedMessage]:
    ann_dir, _ = started_game(tmp_path, ann, bob)
    session.play(ann_dir, ann, ROLL)
    return [m for _, m in session.read_messages(sorted(ann_dir.glob("*.pbem")))]


def forged(ann, real: SignedMessage, **changes) -> SignedMessage:
    """The real message's body with fields changed, properly signed by ann."""
    return sign_body(ann, {**real.body, **changes})


def transcript_of(messages) -> Transcript:
    transcript = Transcript()
    for msg in messages:
        transcript.add(msg)
    return transcript


def test_untouched_message_2_verifies(three_messages):
    assert len(transcript_of(three_messages)) == 3  # the control for the forgeries below


@pytest.mark.parametrize(
    "value",
    [
        HashChain(chain_seed(b"\x07" * 32), length=8).anchor,  # a fresh chain's anchor
        hashlib.sha256(b"any value").digest(),
    ],
    ids=["fresh-anchor", "arbitrary-value"],
)
def test_message_2_cannot_reanchor_the_authors_chain(three_messages, ann, value):
    msg = forged(ann, three_messages[2], chain=value.hex())
    transcript = transcript_of(three_messages[:2])
    with pytest.raises(IntegrityError, match="chain value #1 .* does not hash to the previous one"):
        transcript.add(msg)


def test_message_2_cannot_repeat_the_authors_anchor(three_messages, ann):
    msg = forged(ann, three_messages[2], chain=three_messages[0].body["chain"])
    with pytest.raises(IntegrityError, match="chain"):
        transcript_of(three_messages[:2]).add(msg)


def test_message_2_cannot_carry_a_setup(three_messages, ann):
    msg = forged(ann, three_messages[2], setup=three_messages[0].body["setup"])
    with pytest.raises(IntegrityError, match="only message 0 may carry a setup"):
        transcript_of(three_messages[:2]).add(msg)


from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=200, deadline=None)
@given(st.binary(min_size=32, max_size=32), st.text(max_size=20), st.integers(0, 12),
       st.sampled_from([2, 3, 6, 7, 10, 20, 100, 1000, 2**63 + 5]))
def test_4_3_roll_is_the_labelled_substream_written_out(key, label, count, sides):
    """protocol.dice.roll (one-shot HMACs, the engine's path) gives exactly
    DiceStream(key, label).dice(count, sides), rejection sampling included."""
    from pbem.protocol.dice import DiceStream, roll

    assert roll(key, label, count, sides) == DiceStream(key, label).dice(count, sides)
