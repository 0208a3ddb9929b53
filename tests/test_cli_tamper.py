"""Hostile turn files, each through the CLI: a precise message, exit status 1
for verification failures and 2 for input errors, and nothing written."""

from __future__ import annotations

import base64
import hashlib
import shutil
from pathlib import Path

import pytest
from conftest import exchange, last_line

from pbem.protocol.keystore import Keystore
from pbem.protocol.message import SignedMessage, sign_body

ROLL = '[[order]]\ntype = "roll"\ndice = "2d6"\nnote = "fire"\n'
SEAL = '[[order]]\ntype = "seal"\nslot = "plan"\ntext = "left flank"\n'


def snapshot(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file()}


def identity(player):
    return Keystore(player.home).load(lambda: None)


def forge(signer, original: Path, out: Path, **changes) -> Path:
    """Re-sign ``original``'s body with ``changes`` applied (None deletes a field)."""
    body = dict(SignedMessage.from_text(original.read_text()).body)
    for name, value in changes.items():
        if value is None:
            body.pop(name, None)
        else:
            body[name] = value
    out.write_text(sign_body(signer, body).armored("forged"))
    return out


@pytest.fixture
def pending(started, tmp_path):
    """ann has played 0002 (a roll); bob has it; bob plays 0003 but ann has
    not received it yet.  Returns (ann, bob, path of 0003)."""
    a, b = started
    exchange(a, b, tmp_path, ROLL)
    orders = tmp_path / "bob3.toml"
    orders.write_text(ROLL)
    r = b.run("play", b.game, "--orders", orders)
    assert r.exit_code == 0, r.output
    return a, b, last_line(r.output)


def refused(player, path: Path, status: int, *needles: str):
    """``receive`` of ``path`` fails with ``status`` naming ``needles``; nothing written."""
    before = snapshot(player.game)
    r = player.run("receive", player.game, path)
    assert r.exit_code == status, r.output
    for needle in needles:
        assert needle in r.output, r.output
    assert snapshot(player.game) == before
    return r


def test_the_untampered_message_is_accepted(pending):
    a, _, msg = pending
    r = a.run("receive", a.game, msg)
    assert r.exit_code == 0, r.output


@pytest.mark.parametrize("where", [0, 17, 64, -1])
def test_flipped_byte_in_body(pending, tmp_path, where):
    a, _, msg = pending
    parsed = SignedMessage.from_text(msg.read_text())
    body = bytearray(parsed.body_bytes)
    body[where] ^= 0x01
    bad = tmp_path / "flipped.pbem"
    bad.write_text(SignedMessage(bytes(body), parsed.signature).armored())
    r = refused(a, bad, 1)
    assert "signature does not verify" in r.output or "canonical" in r.output or "field" in r.output


@pytest.mark.parametrize("where", [20, 60, -5])
def test_flipped_byte_in_signature(pending, tmp_path, where):
    a, _, msg = pending
    parsed = SignedMessage.from_text(msg.read_text())
    sig = bytearray(parsed.signature)
    sig[where] ^= 0x40
    bad = tmp_path / "sig.pbem"
    bad.write_text(SignedMessage(parsed.body_bytes, bytes(sig)).armored())
    r = refused(a, bad, 1)
    assert "signature" in r.output.lower()


def test_truncated_file(pending, tmp_path):
    a, _, msg = pending
    text = msg.read_text()
    bad = tmp_path / "short.pbem"
    bad.write_text(text[: len(text) * 2 // 3])
    refused(a, bad, 1, "truncated")


def test_message_from_the_future_is_out_of_order(started, tmp_path):
    a, b = started
    exchange(a, b, tmp_path, ROLL)
    third = exchange(b, a, tmp_path, ROLL)
    assert third.name == "0003-second.pbem"
    # an observer who got 0003 but never 0002
    observer = tmp_path / "observer"
    observer.mkdir()
    for name in ("0000-first.pbem", "0001-second.pbem"):
        shutil.copy(a.game / name, observer / name)
    shutil.copy(a.game / "0003-second.pbem", observer / "0003-second.pbem")
    r = a.run("verify", observer)
    assert r.exit_code == 1
    assert "message 0003 arrives where message 0002 is expected" in r.output
    assert "missing" in r.output


def test_swapped_files_are_detected(pending, tmp_path):
    a, _, msg = pending
    assert a.run("receive", a.game, msg).exit_code == 0
    two, three = a.game / "0002-first.pbem", a.game / "0003-second.pbem"
    t2, t3 = two.read_bytes(), three.read_bytes()
    two.write_bytes(t3)
    three.write_bytes(t2)
    r = a.run("verify", a.game)
    assert r.exit_code == 1
    assert "0002-first.pbem holds message 0003 by second: renamed or swapped files" in r.output


def test_dropped_message(pending, tmp_path):
    a, _, msg = pending
    assert a.run("receive", a.game, msg).exit_code == 0
    files = [p for p in sorted(a.game.glob("*.pbem")) if not p.name.startswith("0002")]
    r = a.run("verify", *files)
    assert r.exit_code == 1
    assert "message 0003 arrives where message 0002 is expected: 1 message(s) missing" in r.output


def test_replayed_message(pending, tmp_path):
    """A message received again, byte for byte, is harmless (issue 17): exit
    0, 'already have', and nothing changes on disk."""
    a, b, msg = pending
    assert a.run("receive", a.game, msg).exit_code == 0
    before = {p.name: p.read_bytes() for p in a.game.iterdir() if p.is_file()}
    for again in (msg, b.game / "0001-second.pbem"):
        r = a.run("receive", a.game, again)
        assert r.exit_code == 0 and f"already have message {again.name[:4]}: nothing to import" in r.output
        assert "imported" not in r.output
    assert {p.name: p.read_bytes() for p in a.game.iterdir() if p.is_file()} == before


def test_duplicate_in_verify(pending):
    a, _, msg = pending
    assert a.run("receive", a.game, msg).exit_code == 0
    r = a.run("verify", *sorted(a.game.glob("*.pbem")), msg)
    assert r.exit_code == 1 and "appears twice" in r.output


def test_message_spliced_from_another_game(pending, tmp_path):
    a, b, _ = pending
    # the same two players start a second game; bob's message from it is spliced in
    other_a = tmp_path / "ann2"
    other_b = tmp_path / "bob2"
    r = a.run("new", other_a, "--game", "dice", "--as", "first", "--opponent", b.pub())
    r = b.run("join", last_line(r.output), "--dir", other_b)
    assert r.exit_code == 0
    a.run("receive", other_a, last_line(r.output))
    orders = tmp_path / "x.toml"
    orders.write_text(ROLL)
    assert a.run("play", other_a, "--orders", orders).exit_code == 0
    assert b.run("receive", other_b, other_a / "0002-first.pbem").exit_code == 0
    r = b.run("play", other_b, "--orders", orders)
    assert r.exit_code == 0
    refused(a, last_line(r.output), 1, "belongs to game", "spliced")


def test_message_signed_by_a_third_key(pending, tmp_path, eve):
    a, _, msg = pending
    same_author = forge(eve, msg, tmp_path / "eve1.pbem")
    refused(a, same_author, 1, f"signed by {eve.public.fingerprint}, which is not a player of this game")
    claims_eve = forge(eve, msg, tmp_path / "eve2.pbem", author=eve.public.fingerprint)
    refused(a, claims_eve, 1, f"signed by {eve.public.fingerprint}, which is not a player of this game")


def played_twice(pending, tmp_path) -> tuple:
    """bob cheats: ann holds his 0003 (kept, a copy); he deletes it and plays
    0003 again with other orders.  Returns (ann, kept, the second version)."""
    a, b, first = pending
    kept = tmp_path / "first-0003.pbem"
    shutil.copy(first, kept)
    assert a.run("receive", a.game, kept).exit_code == 0
    first.unlink()
    orders = tmp_path / "other.toml"
    orders.write_text('[[order]]\ntype = "roll"\ndice = "1d6"\n')
    r = b.run("play", b.game, "--orders", orders)
    assert r.exit_code == 0, r.output
    return a, kept, last_line(r.output)


def test_equivocation_two_different_messages_same_seq(pending, tmp_path):
    a, kept, second = played_twice(pending, tmp_path)
    refused(a, second, 1, "equivocation", "0003", "proof of cheating")
    r = a.run("verify", kept, second, *sorted(a.game.glob("000[0-2]*.pbem")))
    assert r.exit_code == 1 and "equivocation" in r.output


@pytest.mark.parametrize("other_name", ["0003-first.pbem", "0003-second.pbem"])
def test_verify_dir_proves_equivocation_from_a_directory_holding_both_versions(pending, tmp_path, other_name):
    """Issue 18: both signed versions of bob's 0003 in one directory -- the
    second under another side's name, or appended to the same file -- are
    the proof of equivocation `verify FILES` gives, not "two files"."""
    a, _, second = played_twice(pending, tmp_path)
    evidence = tmp_path / "evidence"
    shutil.copytree(a.game, evidence, ignore=shutil.ignore_patterns(".*"))
    target = evidence / other_name
    target.write_text((target.read_text() if target.exists() else "") + second.read_text())
    r = a.run("verify", evidence)
    assert r.exit_code == 1, r.output
    assert "equivocation: two different messages 0003 both signed by second" in r.output, r.output
    assert "proof of cheating" in r.output and "two files" not in r.output


def test_verify_dir_names_both_files_of_a_duplicated_message(pending, tmp_path):
    a, _, first = pending
    assert a.run("receive", a.game, first).exit_code == 0
    shutil.copy(a.game / "0003-second.pbem", a.game / "0003-first.pbem")
    r = a.run("verify", a.game)
    assert r.exit_code == 1 and "message 0003 appears twice (0003-first.pbem and 0003-second.pbem)" in r.output, r.output


def test_wrong_chain_value(pending, tmp_path):
    a, b, msg = pending
    bad = forge(identity(b), msg, tmp_path / "chain.pbem", chain=hashlib.sha256(b"x").hexdigest())
    refused(a, bad, 1, "chain value", "does not hash")


def test_reveal_that_does_not_match_its_commitment(started, tmp_path):
    a, b = started
    exchange(a, b, tmp_path, SEAL)
    exchange(b, a, tmp_path)
    r = a.run("play", a.game, "--orders", _orders(tmp_path, '[[order]]\ntype = "reveal"\nslot = "plan"\n'))
    assert r.exit_code == 0
    genuine = last_line(r.output)
    body = SignedMessage.from_text(genuine.read_text()).body
    reveal = dict(body["reveals"][0], value="right flank")
    bad = forge(identity(a), genuine, tmp_path / "reveal.pbem", reveals=[reveal])
    refused(b, bad, 1, "does not match its commitment", "plan")
    salted = dict(body["reveals"][0], salt="00" * 32)
    bad = forge(identity(a), genuine, tmp_path / "salt.pbem", reveals=[salted])
    refused(b, bad, 1, "does not match its commitment")


def test_missing_secret_at_audit(started, tmp_path):
    a, b = started
    exchange(a, b, tmp_path, SEAL)
    exchange(b, a, tmp_path, '[[order]]\ntype = "end"\n')
    r = a.run("play", a.game, "--orders", _orders(tmp_path, ""))
    genuine = last_line(r.output)
    stripped = forge(identity(a), genuine, tmp_path / "nosecret.pbem", secret=None)
    # the closing message without its secret still verifies as a message...
    files = sorted(b.game.glob("*.pbem"))
    r = b.run("verify", *files, stripped)
    assert r.exit_code == 0, r.output
    # ...but the audit cannot check ann's hidden facts
    r = b.run("verify", *files, stripped, "--audit")
    assert r.exit_code == 1
    assert "missing reveal at audit: first never revealed its per-game secret" in r.output
    wrong = forge(identity(a), genuine, tmp_path / "wrongsecret.pbem", secret="11" * 32)
    r = b.run("verify", *files, wrong, "--audit")
    assert r.exit_code == 1 and "does not regenerate first's chain anchor" in r.output


def _orders(tmp_path: Path, text: str) -> Path:
    path = tmp_path / f"o{len(list(tmp_path.glob('o*.toml')))}.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    "orders, needle",
    [
        ('[[order]]\ntype = "attack"\n', "order 1: unknown type 'attack'"),
        ('[[order]]\ntype = "roll"\ndice = "2x6"\n', "cannot read dice expression '2x6'"),
        ('[[order]]\ntype = "roll"\ndice = "200d6"\n', "out of range"),
        ('[[order]]\ntype = "roll"\n', "field 'dice' is required"),
        ('[[order]]\ntype = "seal"\nslot = "a b"\ntext = "x"\n', "slot 'a b'"),
        ('[[order]]\ntype = "end"\n[[order]]\ntype = "roll"\ndice = "d6"\n', "no order may follow 'end'"),
        ("order = 3\n", "array of tables"),
        ("[[order]\n", "not valid TOML"),
    ],
)
def test_bad_orders_file(started, tmp_path, orders, needle):
    a, _ = started
    before = snapshot(a.game)
    r = a.run("play", a.game, "--orders", _orders(tmp_path, orders))
    assert r.exit_code == 2, r.output
    assert needle in r.output
    assert snapshot(a.game) == before


def test_reveal_of_unknown_slot_is_illegal(started, tmp_path):
    a, _ = started
    before = snapshot(a.game)
    r = a.run("play", a.game, "--orders", _orders(tmp_path, '[[order]]\ntype = "reveal"\nslot = "nope"\n'))
    assert r.exit_code == 1 and "no sealed value in slot 'nope'" in r.output
    assert snapshot(a.game) == before


def test_wrong_passphrase(tmp_path):
    from conftest import Player

    p = Player("carol", tmp_path / "home", tmp_path / "game", passphrase="right horse battery")
    assert p.run("key", "new", "--name", "carol").exit_code == 0
    private = (p.home / "identity").read_text()
    assert "BEGIN OPENSSH PRIVATE KEY" in private
    other = tmp_path / "other.pub"
    other.write_text("ssh-ed25519 " + base64.b64encode(b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20" + b"\x07" * 32).decode())
    r = p.run("new", p.game, "--game", "dice", "--as", "first", "--opponent", other, PBEM_PASSPHRASE="wrong")
    assert r.exit_code == 2
    assert "wrong passphrase" in r.output
    assert not p.game.exists()
    r = p.run("new", p.game, "--game", "dice", "--as", "first", "--opponent", other)
    assert r.exit_code == 0, r.output


# --------------------------------------------------------------------------- game id reuse (security review)


def test_7_1_a_proposal_joined_again_gives_the_joiner_a_new_secret(players, tmp_path):
    """A proposer who reuses a game id (or a proposal) must not meet a
    per-game secret the joiner already used: message 1 carries 16 fresh
    random bytes the joiner's secret is derived from (protocol 7.1)."""
    import shutil as _shutil

    a, b = players
    r = a.run("new", a.game, "--game", "dice", "--as", "first", "--opponent", b.pub())
    proposal = last_line(r.output)
    r = b.run("join", proposal, "--dir", b.game)
    assert r.exit_code == 0, r.output
    first = SignedMessage.from_text(last_line(r.output).read_text()).body
    assert len(first["fresh"]) == 32
    # the same key elsewhere (a copy of the keystore, without its record of joined games)
    elsewhere = type(b)("bob", tmp_path / "bob-elsewhere", tmp_path / "bob-game-2")
    _shutil.copytree(b.home, elsewhere.home)
    _shutil.rmtree(elsewhere.home / "joined")
    r = elsewhere.run("join", proposal, "--dir", elsewhere.game)
    assert r.exit_code == 0, r.output
    second = SignedMessage.from_text(last_line(r.output).read_text()).body
    assert second["fresh"] != first["fresh"] and second["chain"] != first["chain"]  # another secret, another chain


def test_7_1_a_game_is_joined_once_on_a_machine(players, tmp_path):
    a, b = players
    r = a.run("new", a.game, "--game", "dice", "--as", "first", "--opponent", b.pub())
    proposal = last_line(r.output)
    assert b.run("join", proposal, "--dir", b.game).exit_code == 0
    r = b.run("join", proposal, "--dir", tmp_path / "again")
    assert r.exit_code == 2 and "you joined game" in r.output and "two versions of your move" in r.output
    assert not (tmp_path / "again").exists()


def test_7_1_fresh_belongs_in_message_1_only(pending, tmp_path):
    a, b, msg = pending
    forged = forge(identity(b), msg, tmp_path / "fresh.pbem", fresh="00" * 16)
    refused(a, forged, 1, "'fresh' belongs in message 0001 only")


def test_7_1_a_game_joined_before_fresh_existed_still_loads(players, tmp_path):
    """Message 1 without 'fresh': the joiner's secret keeps the first derivation."""
    from pbem.match import session

    a, b = players
    r = a.run("new", a.game, "--game", "dice", "--as", "first", "--opponent", b.pub())
    (_, first), = session.read_messages([last_line(r.output)])
    transcript = session.build_transcript([first])
    bob = identity(b)
    player = session.Player.of(bob, transcript)  # no fresh bytes: the old derivation
    game = session._game_for(transcript)
    match = session.Match(session.GameDirectory(b.game), transcript, game, player, session.replay(game, transcript))
    draft, _ = session.compose(match, {})
    assert "fresh" not in draft.body
    b.game.mkdir()
    (b.game / "0000-first.pbem").write_text(first.armored(""))
    (b.game / "0001-second.pbem").write_text(draft.armored(""))
    loaded = session.load(b.game, bob)
    assert loaded.player.secret == session.game_secret(bob, transcript.game, "second")


def test_one_file_holding_two_signed_versions_of_a_message_is_refused_whole(pending, tmp_path):
    """Issue 27 m9: bob's 0003 and his other 0003 in one file: an
    equivocation, and neither version is kept (the first was stored before
    the second was read)."""
    a, b, first = pending
    kept = tmp_path / "first-0003.pbem"
    shutil.copy(first, kept)
    first.unlink()
    orders = tmp_path / "other.toml"
    orders.write_text('[[order]]\ntype = "roll"\ndice = "1d6"\n')
    r = b.run("play", b.game, "--orders", orders)
    assert r.exit_code == 0, r.output
    both = tmp_path / "both.pbem"
    both.write_text(kept.read_text() + "\n" + last_line(r.output).read_text())
    before = {p.name: p.read_bytes() for p in a.game.iterdir() if p.is_file()}
    refused(a, both, 1, "equivocation", "0003", "proof of cheating")
    assert {p.name: p.read_bytes() for p in a.game.iterdir() if p.is_file()} == before


def test_a_second_version_of_a_kept_message_is_named_a_fork_not_a_replay(pending, tmp_path):
    """Issue 27 nit: a different 0003 after the 0003 kept is a fork of the
    game at 0003, not "an old message replayed"."""
    from pbem.errors import IntegrityError
    from pbem.match.session import read_messages
    from pbem.protocol.transcript import Transcript

    a, kept, second = played_twice(pending, tmp_path)
    transcript = Transcript()
    for _, msg in read_messages(sorted(a.game.glob("000[0-3]-*.pbem"))):
        transcript.add(msg)
    (_, other), = read_messages([second])
    with pytest.raises(IntegrityError, match="message 0003 arrives where message 0004 is expected, and it is not "
                                             "the 0003 already here: a fork of the game at 0003"):
        transcript.add(other)


def test_a_future_message_from_a_stranger_is_refused_not_kept_waiting(pending, tmp_path, eve):
    """Issue 27 m2: a turn file numbered past the next one (it would wait for
    the messages before it) was kept unchecked, from anyone -- in watch's
    spool for ever.  One signed by a key that is not its side's is refused
    at once; the genuine future message still waits."""
    a, _, msg = pending
    future = forge(eve, msg, tmp_path / "future.pbem", seq=5)  # ann holds 0000-0002; 0005 would wait
    r = a.run("import", a.game, future)
    assert r.exit_code == 1, r.output
    assert "message 0005, which waits for message 0003 before it, is not signed by second's key" in r.output
