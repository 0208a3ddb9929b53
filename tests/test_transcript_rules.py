"""Transcript rules found by review: strict bodies, no dice in message 0,
secrets only when closing, nothing after the close, equivocation only when
the right key signed twice, and an audit that a later sealed store cannot fool."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from pbem.errors import EquivocationError, IntegrityError
from pbem.match import session
from pbem.protocol import sealed
from pbem.protocol.message import SignedMessage, sign_body
from pbem.protocol.transcript import Transcript


def play(directory: Path, who, orders: list[dict]) -> Path:
    return session.play(directory, who, {"order": orders}).path


@pytest.fixture
def game(tmp_path, ann, bob):
    """ann (first) and bob (second) with messages 0 and 1 exchanged."""
    da, db = tmp_path / "ann", tmp_path / "bob"
    m0 = session.new_game(da, "dice", "first", bob.public, ann)
    m1, _ = session.join_game(m0, db, bob)
    session.receive(da, [m1], ann)
    return da, db


def resigned(signer, path: Path, **changes) -> SignedMessage:
    body = dict(SignedMessage.from_text(path.read_text()).body)
    body.update(changes)
    return sign_body(signer, body)


def messages(directory: Path) -> list[SignedMessage]:
    return [SignedMessage.from_text(p.read_text()) for p in sorted(directory.glob("*.pbem"))]


def test_unknown_body_field_is_refused(game, ann):
    da, _ = game
    m2 = play(da, ann, [])
    bad = resigned(ann, m2, extra="x")
    t = Transcript()
    for msg in messages(da)[:2]:
        t.add(msg)
    with pytest.raises(IntegrityError, match="unknown field 'extra'"):
        t.add(bad)


def test_message_0_may_not_declare_rolls(game, ann):
    da, _ = game
    bad = resigned(ann, da / "0000-first.pbem", orders=[{"type": "roll", "dice": "d6", "note": ""}])
    with pytest.raises(IntegrityError, match="message 0000 may carry no orders"):
        Transcript().add(bad)


def test_uppercase_hex_chain_value_is_refused(game, ann):
    da, _ = game
    m2 = play(da, ann, [])
    body = SignedMessage.from_text(m2.read_text()).body
    bad = resigned(ann, m2, chain=body["chain"].upper())
    t = Transcript()
    for msg in messages(da)[:2]:
        t.add(msg)
    with pytest.raises(IntegrityError, match="lowercase hex"):
        t.add(bad)


def test_secret_revealed_mid_game_is_refused(game, ann):
    da, _ = game
    m2 = play(da, ann, [])
    secret = session.game_secret(ann, messages(da)[0].game, "first").hex()
    bad = resigned(ann, m2, secret=secret)
    t = session.build_transcript(messages(da)[:2] + [bad])  # the protocol layer accepts the secret itself
    with pytest.raises(IntegrityError, match="reveals its per-game secret while the game goes on"):
        session.replay(session._game_for(t), t)


def test_nothing_may_follow_the_closing_message(game, ann, bob):
    da, db = game
    session.receive(db, [play(da, ann, [{"type": "end"}])], bob)
    session.receive(da, [play(db, bob, [])], ann)
    t = session.build_transcript(messages(da))
    body = dict(messages(da)[-1].body)
    extra = sign_body(ann, {**body, "seq": 4, "side": "first", "author": ann.public.fingerprint,
                            "prev": messages(da)[-1].digest.hex(), "chain": "00" * 32})
    with pytest.raises(IntegrityError, match="closed by message 0003; nothing may follow"):
        t.add(extra)


def test_a_third_party_forging_two_bodies_is_not_equivocation_by_the_player(game, ann, eve, tmp_path):
    da, _ = game
    m2 = play(da, ann, [])
    forged = [resigned(eve, m2, orders=[{"type": "roll", "dice": f"{n}d6", "note": ""}]) for n in (1, 2)]
    paths = []
    for i, msg in enumerate(forged):
        path = tmp_path / f"forged{i}.pbem"
        path.write_text(msg.armored())
        paths.append(path)
    with pytest.raises(IntegrityError) as caught:
        session.collect([da / "0000-first.pbem", da / "0001-second.pbem", *paths])
    assert not isinstance(caught.value, EquivocationError)
    # while the same two bodies signed by ann ARE proof against ann
    real = [resigned(ann, m2, orders=[{"type": "roll", "dice": f"{n}d6", "note": ""}]) for n in (1, 2)]
    for path, msg in zip(paths, real, strict=False):
        path.write_text(msg.armored())
    with pytest.raises(EquivocationError, match="both signed by first"):
        session.collect([da / "0000-first.pbem", da / "0001-second.pbem", *paths])


def test_audit_catches_a_later_store_rewriting_a_sealed_value(game, ann, bob, tmp_path):
    da, db = game
    session.receive(db, [play(da, ann, [])], bob)
    m3 = play(db, bob, [{"type": "seal", "slot": "mines", "text": "5 real"}])
    session.receive(da, [m3], ann)
    session.receive(db, [play(da, ann, [])], bob)
    # bob's next message carries a store that claims the slot held "4 real"
    m5 = play(db, bob, [])
    t = session.build_transcript(messages(db)[:5])
    secret = session.game_secret(bob, t.game, "second")
    blob = sealed.seal_store(secret, t.game, bob.public.fingerprint, 5, {"mines": "4 real"})
    cheat = resigned(bob, m5, sealed=base64.b64encode(blob).decode())
    t.add(cheat)
    t.secrets["second"] = secret
    t.secrets["first"] = session.game_secret(ann, t.game, "first")
    problems = t.audit()
    assert any("message 0005: sealed store: reveal of slot 'mines' does not match" in p for p in problems), problems


def test_verify_reports_progress_message_by_message(game, ann, bob):
    da, db = game
    session.receive(db, [play(da, ann, [])], bob)
    seen = []
    session.verify([db], progress=lambda done, total, label: seen.append((done, total, label)))
    assert seen == [(1, 3, "message 0000"), (2, 3, "message 0001"), (3, 3, "message 0002")]


@pytest.mark.parametrize("slot", ["../x", "x" * 70, "", ".hidden", "a b", "a/b"])
def test_a_slot_name_outside_protocol_7_2_is_refused_from_either_side(game, ann, bob, slot):
    """Issue 18: the opponent's slot names are checked like one's own
    (docs/protocol.md 7.2): a path, an overlong or empty name is refused
    before anything of the message is kept."""
    da, db = game
    m2 = play(da, ann, [])
    commitment = "0" * 64
    bad = resigned(ann, m2, commitments={slot: commitment})
    t = Transcript()
    for msg in messages(da)[:2]:
        t.add(msg)
    with pytest.raises(IntegrityError, match=r"slot name .* is not 1-64 characters .*\(protocol 7.2\)"):
        t.add(bad)
    assert len(t) == 2 and not t.commitments


def test_slot_names_the_games_use_fit_protocol_7_2():
    from pbem.protocol.transcript import SLOT

    for slot in ("X1", "M8", "second-wave", "dd-A", "dd-3-3-7+", "plan", "ambush.1"):
        assert SLOT.fullmatch(slot), slot
