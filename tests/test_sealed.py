"""Sealed secrets (protocol §7): padding, commitments, openings, the sealed
store, and resuming a game on another machine from the files plus the key."""

from __future__ import annotations

import base64
import hashlib
import shutil
from pathlib import Path

import pytest

from pbem.errors import HiddenInfoError, IntegrityError
from pbem.match import session
from pbem.protocol import canonical
from pbem.protocol.sealed import (
    PAD_BLOCK,
    STORE_BLOCK,
    check_opening,
    commitment,
    open_store,
    pad,
    salt_for,
    seal_key,
    seal_store,
)

SECRET = hashlib.sha256(b"pbem test per-game secret").digest()
GAME = "3f2a9c0d11223344"
OWNER = "SHA256:lbmsoA0yIEcEiVDRnMWuzm+nV+3ZEEpVIURqFoeSspg"
SALT = salt_for(SECRET, "counter-3")


# --------------------------------------------------------------------------- padding


def test_dummy_and_detachment_pad_to_equal_length_multiple_of_32():
    assert len(pad("dummy")) == len(pad("detachment")) == 32
    assert len(pad("dummy")) % PAD_BLOCK == 0


def test_pad_known_answer():
    assert pad("dummy") == b"dummy\x80" + b"\x00" * 26


@pytest.mark.parametrize("length, padded", [(0, 32), (31, 32), (32, 64), (40, 64), (63, 64), (64, 96)])
def test_pad_length_is_next_multiple_of_32_after_the_marker(length, padded):
    assert len(pad("x" * length)) == padded


def test_pad_counts_utf8_bytes_not_characters():
    assert len(pad("é" * 20)) == 64  # 40 bytes of UTF-8


def test_pad_is_unambiguous_for_trailing_nul_and_marker_like_text():
    values = ["a", "a\x00", "a\x00\x00", "a\u0080", ""]
    assert len({pad(v) for v in values}) == len(values)


# --------------------------------------------------------------------------- commitments


def test_commitment_is_deterministic():
    assert commitment(GAME, OWNER, "counter-3", SALT, "dummy") == commitment(GAME, OWNER, "counter-3", SALT, "dummy")


@pytest.mark.parametrize(
    "change",
    [
        {"game": GAME[:-1] + "5"},
        {"owner": OWNER[:-1] + "h"},
        {"slot": "counter-4"},
        {"salt": salt_for(SECRET, "counter-4")},
        {"value": "detachment"},
        {"value": "dummy\x00"},
    ],
    ids=["game", "owner", "slot", "salt", "value", "value-trailing-nul"],
)
def test_commitment_changes_with_every_input(change):
    base = dict(game=GAME, owner=OWNER, slot="counter-3", salt=SALT, value="dummy")
    assert commitment(**base) != commitment(**{**base, **change})


def test_commitment_fields_are_length_prefixed_so_boundaries_cannot_shift():
    assert commitment("ab", "c", "s", SALT, "v") != commitment("a", "bc", "s", SALT, "v")
    assert commitment(GAME, OWNER, "s1", SALT, "v") != commitment(GAME, OWNER + "s", "1", SALT, "v")


def test_salt_differs_per_slot_and_per_secret():
    assert salt_for(SECRET, "a") != salt_for(SECRET, "b")
    assert salt_for(SECRET, "a") != salt_for(bytes(32), "a")
    assert len(salt_for(SECRET, "a")) == 32


def test_check_opening_accepts_the_committed_value():
    committed = commitment(GAME, OWNER, "counter-3", SALT, "detachment")
    check_opening(GAME, OWNER, "counter-3", "detachment", SALT, committed)  # no error


def test_check_opening_refuses_a_wrong_value():
    committed = commitment(GAME, OWNER, "counter-3", SALT, "detachment")
    with pytest.raises(HiddenInfoError, match="reveal of slot 'counter-3' does not match its commitment"):
        check_opening(GAME, OWNER, "counter-3", "dummy", SALT, committed)


def test_check_opening_refuses_a_wrong_salt():
    committed = commitment(GAME, OWNER, "counter-3", SALT, "detachment")
    with pytest.raises(HiddenInfoError, match="counter-3"):
        check_opening(GAME, OWNER, "counter-3", "detachment", salt_for(SECRET, "counter-4"), committed)


def test_check_opening_refuses_another_owners_slot():
    committed = commitment(GAME, OWNER, "counter-3", SALT, "detachment")
    with pytest.raises(HiddenInfoError):
        check_opening(GAME, "SHA256:someone-else", "counter-3", "detachment", SALT, committed)


# --------------------------------------------------------------------------- the sealed store

STORE = {"counter-3": "detachment", "plan": "the real attack goes in at dawn", "note-4": "ünïcode"}


def test_store_round_trip():
    blob = seal_store(SECRET, GAME, OWNER, 4, STORE)
    assert open_store(SECRET, GAME, OWNER, 4, blob) == STORE


def test_empty_store_round_trip():
    assert open_store(SECRET, GAME, OWNER, 2, seal_store(SECRET, GAME, OWNER, 2, {})) == {}


def test_store_does_not_contain_the_plaintext():
    blob = seal_store(SECRET, GAME, OWNER, 4, STORE)
    assert b"dawn" not in blob and b"detachment" not in blob


def test_store_with_dummy_and_with_detachment_have_equal_length():
    dummy = seal_store(SECRET, GAME, OWNER, 2, {"a": "dummy"})
    detachment = seal_store(SECRET, GAME, OWNER, 2, {"a": "detachment"})
    assert len(dummy) == len(detachment) == STORE_BLOCK + 16  # one block of plaintext + Poly1305 tag


def test_store_with_a_wrong_secret_is_refused():
    blob = seal_store(SECRET, GAME, OWNER, 4, STORE)
    with pytest.raises(HiddenInfoError, match="sealed store of message 4 does not decrypt"):
        open_store(bytes(32), GAME, OWNER, 4, blob)


@pytest.mark.parametrize("where", [0, 100, -1], ids=["first-byte", "middle-byte", "tag-byte"])
def test_tampered_store_is_refused(where):
    blob = bytearray(seal_store(SECRET, GAME, OWNER, 4, STORE))
    blob[where] ^= 0x01
    with pytest.raises(HiddenInfoError):
        open_store(SECRET, GAME, OWNER, 4, bytes(blob))


def test_truncated_store_is_refused():
    blob = seal_store(SECRET, GAME, OWNER, 4, STORE)
    with pytest.raises(HiddenInfoError):
        open_store(SECRET, GAME, OWNER, 4, blob[:-1])


@pytest.mark.parametrize(
    "game, owner, seq",
    [(GAME + "0", OWNER, 4), (GAME, OWNER + "x", 4), (GAME, OWNER, 6)],
    ids=["other-game", "other-owner", "other-message"],
)
def test_store_moved_to_another_game_owner_or_message_is_refused(game, owner, seq):
    blob = seal_store(SECRET, GAME, OWNER, 4, STORE)
    with pytest.raises(HiddenInfoError):
        open_store(SECRET, game, owner, seq, blob)


def test_store_that_decrypts_to_something_other_than_a_slot_table_is_refused():
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

    nonce = b"\x00" * 4 + (4).to_bytes(8, "big")
    aad = GAME.encode() + b"\x00" + (4).to_bytes(8, "big") + OWNER.encode()
    plain = canonical.encode({"a": 1}).ljust(STORE_BLOCK, b" ")
    blob = ChaCha20Poly1305(seal_key(SECRET)).encrypt(nonce, plain, aad)
    with pytest.raises(IntegrityError, match="not a slot table"):
        open_store(SECRET, GAME, OWNER, 4, blob)


# --------------------------------------------------------------------------- resume on another machine

NOTE = "the real attack goes in at dawn"


def test_resume_from_another_machine_with_only_the_game_files(tmp_path: Path, ann, bob):
    ann_dir, bob_dir = tmp_path / "ann", tmp_path / "bob"
    proposal = session.new_game(ann_dir, "dice", "first", bob.public, ann)
    reply, _ = session.join_game(proposal, bob_dir, bob)
    session.receive(ann_dir, [reply], ann)
    sealed_msg = session.play(ann_dir, ann, {"order": [{"type": "seal", "slot": "plan", "text": NOTE}]}).path
    assert NOTE.encode() not in sealed_msg.read_bytes()
    session.receive(bob_dir, [sealed_msg], bob)
    bob_msg = session.play(bob_dir, bob, {}).path

    # ann's machine is lost: a new machine gets only the .pbem files (no lock, no keystore)
    new_dir = tmp_path / "new-machine"
    new_dir.mkdir()
    for path in sorted(ann_dir.glob("*.pbem")):
        shutil.copy(path, new_dir / path.name)
    assert sorted(p.name for p in new_dir.iterdir()) == ["0000-first.pbem", "0001-second.pbem", "0002-first.pbem"]

    match = session.load(new_dir, ann)
    assert match.player.store == {"plan": NOTE}
    (note,) = match.view()["notes"]
    assert note["value"] == NOTE and note["private"] is True

    session.receive(new_dir, [bob_msg], ann)
    revealed = session.play(new_dir, ann, {"order": [{"type": "reveal", "slot": "plan"}]})
    assert revealed.path == new_dir / "0004-first.pbem"

    received = session.receive(bob_dir, [revealed.path], bob)
    assert received.imported == [bob_dir / "0004-first.pbem"]
    (note,) = received.match.view()["notes"]
    assert note["value"] == NOTE and note["revealed_in"] == 4
    # the store travels on: message 4 still seals the note for ann
    blob = base64.b64decode(received.match.transcript.messages[4].body["sealed"])
    secret = session.game_secret(ann, received.match.transcript.game, "first")
    assert open_store(secret, received.match.transcript.game, ann.public.fingerprint, 4, blob) == {"plan": NOTE}
