"""pbem import: turn files out of .eml messages (attached or pasted, quoted or
not, any transfer encoding), mbox files, Maildir folders and standard input."""

from __future__ import annotations

import json
import mailbox
from pathlib import Path

import pytest
from conftest import Player, last_line
from everyday_support import ROLL, SEAL, copy_of, email_with, play

from pbem.mail import inbox
from pbem.protocol import scan as mailbox_io
from pbem.errors import IntegrityError
from pbem.protocol.message import SignedMessage


def files_of(player) -> list[str]:
    return sorted(p.name for p in player.game.glob("*.pbem"))


@pytest.mark.parametrize(
    "how", ["attachment-7bit", "attachment-base64", "body-qp", "body-base64", "quoted-reply", "html"]
)
def test_an_eml_in_every_shape_mail_gives_it_is_imported(started, tmp_path, how):
    """Imported byte for byte as sent, its summary included: an honest
    summary in any shape of mail is not flagged (issue 18), by import or verify."""
    a, b = started
    sent = play(a, tmp_path, ROLL)
    eml = tmp_path / "turn.eml"
    eml.write_bytes(email_with(sent.read_text(), how))
    r = b.run("import", b.game, eml)
    assert r.exit_code == 0 and "warning:" not in r.output, r.output
    assert f"imported {b.game / '0002-first.pbem'}" in r.output
    assert "declares 2d6 for 'charge'" in r.output and "your move" in r.output
    assert (b.game / "0002-first.pbem").read_bytes() == sent.read_bytes()  # pbem's own summary is the sender's
    assert b.run("verify", b.game).exit_code == 0
    r = b.run("verify", eml, *sorted(b.game.glob("000[01]-*.pbem")))
    assert r.exit_code == 0 and "warning:" not in r.output, r.output


@pytest.mark.parametrize("how", ["attachment-base64", "body-qp", "body-base64"])
def test_encoded_mail_needs_decoding_a_raw_read_would_not_find_the_message(started, tmp_path, how):
    a, _ = started
    raw = email_with(play(a, tmp_path, ROLL).read_text(), how)
    try:
        raw_found = SignedMessage.all_from_text(raw)
    except IntegrityError:
        raw_found = []
    assert not raw_found
    (found,) = mailbox_io.blocks_in_mail(raw, "turn.eml").found
    assert found.message.seq == 2 and "attachment turn.pbem" in found.origin or how != "attachment-base64"


def test_standard_input_takes_a_pasted_message_or_a_whole_email(started, tmp_path):
    a, b = started
    sent = play(a, tmp_path, ROLL)
    r = b.run("import", b.game, "-", input="> " + sent.read_text().replace("\n", "\r\n> "))
    assert r.exit_code == 0, r.output
    assert "imported" in r.output and (b.game / "0002-first.pbem").exists()
    sent = play(b, tmp_path)
    eml = email_with(sent.read_text(), "body-qp").decode()
    r = a.run("import", a.game, "-", input=eml)
    assert r.exit_code == 0, r.output
    assert (a.game / "0003-second.pbem").exists()


def test_a_single_message_already_held_is_skipped_not_an_error(started, tmp_path):
    a, b = started
    sent = play(a, tmp_path, ROLL)
    assert b.run("import", b.game, sent).exit_code == 0
    r = b.run("import", b.game, sent, "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["imported"] == [] and [m["seq"] for m in data["already_imported"]] == [2]
    r = b.run("import", b.game, sent)
    assert "already imported, skipped: 0002" in r.output and "nothing new" in r.output


def test_no_message_at_all_is_an_input_error(started, tmp_path):
    _, b = started
    empty = tmp_path / "hello.eml"
    empty.write_bytes(b"From: ann@example.org\nSubject: hi\n\nJust saying hello.\n")
    r = b.run("import", b.game, empty)
    assert r.exit_code == 2 and "no pbem message found" in r.output


def _mailbox_game(started, tmp_path):
    """Bob's game at 0000-0003; the mails of a longer game, as they pile up
    in a mailbox: Ann's 0002, 0004 and 0006, Bob's own 0003 and 0005 (from a
    copy of his game on another machine), another game's proposal, copies."""
    a, b = started
    a2_ = play(a, tmp_path, ROLL)
    assert b.run("import", b.game, a2_).exit_code == 0
    b3 = play(b, tmp_path, SEAL.replace("plan", "bob-plan"))
    assert a.run("import", a.game, b3).exit_code == 0
    a4 = play(a, tmp_path, SEAL)
    bob2 = copy_of(b, tmp_path / "bob-elsewhere")
    assert bob2.run("import", bob2.game, a4).exit_code == 0
    b5 = play(bob2, tmp_path, ROLL)
    ann2 = copy_of(a, tmp_path / "ann-elsewhere")
    assert ann2.run("import", ann2.game, b5).exit_code == 0
    a6 = play(ann2, tmp_path, ROLL)
    r = a.run("new", tmp_path / "other-game", "--game", "dice", "--as", "first", "--opponent", b.pub())
    other = last_line(r.output)
    mails = [
        email_with(a6.read_text(), "attachment-base64", "0006"),
        email_with(a2_.read_text(), "attachment-7bit", "0002"),
        email_with(b3.read_text(), "body-qp", "0003 (sent folder)"),
        email_with(other.read_text(), "attachment-7bit", "a new game"),
        email_with(a4.read_text(), "quoted-reply", "Re: 0004"),
        email_with(a2_.read_text(), "quoted-reply", "Re: Re: 0002"),
    ]
    return a, b, mails, {"b5": b5, "other": other}


def test_an_mbox_imports_this_games_messages_in_order_skipping_copies_leaving_others_alone(started, tmp_path):
    a, b, mails, extra = _mailbox_game(started, tmp_path)
    path = tmp_path / "inbox.mbox"
    box = mailbox.mbox(str(path))
    for data in mails:
        box.add(data)
    box.flush()
    box.close()
    r = b.run("import", b.game, path, "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert [Path(p).name for p in data["imported"]] == ["0004-first.pbem"]
    assert sorted(m["seq"] for m in data["already_imported"]) == [2, 3]
    (other,) = data["other_games"]
    assert other["seq"] == 0 and other["game"] != data["match"]["game"] and "a new game" in other["origin"]
    assert [m["seq"] for m in data["waiting"]] == [6]  # 0005 is missing: it waits
    assert files_of(b) == ["0000-first.pbem", "0001-second.pbem", "0002-first.pbem", "0003-second.pbem", "0004-first.pbem"]
    assert not (tmp_path / "bob" / "other-game").exists()
    r = b.run("import", b.game, path)  # again: nothing new, the same report in words
    assert r.exit_code == 0, r.output
    assert "nothing new" in r.output and f"left alone: message(s) 0000 of another game, {other['game'][:12]}..." in r.output
    assert "waiting: message 0006 by first needs message 0005 first" in r.output


def test_a_maildir_folder_is_read_new_and_cur_and_an_own_missing_message_is_restored(started, tmp_path):
    a, b, mails, extra = _mailbox_game(started, tmp_path)
    folder = tmp_path / "Maildir"
    box = mailbox.Maildir(str(folder), create=True)
    for data in mails:
        box.add(data)
    key = box.add(email_with(extra["b5"].read_text(), "attachment-7bit", "0005 (sent)"))
    message = box.get_message(key)
    message.set_subdir("cur")  # one already read
    box[key] = message
    box.close()
    r = b.run("import", b.game, folder)
    assert r.exit_code == 0, r.output
    assert "imported" in r.output and (b.game / "0004-first.pbem").exists()
    assert (b.game / "0005-second.pbem").exists()  # bob's own, from his sent folder: signed by his key
    assert (b.game / "0005-second.pbem").read_bytes() != b""
    assert "waiting" not in r.output and (b.game / "0006-first.pbem").exists()


def test_a_broken_block_in_a_mailbox_is_reported_and_the_rest_imported(started, tmp_path):
    a, b = started
    sent = play(a, tmp_path, ROLL).read_text()
    truncated = sent[: len(sent) // 2]
    path = tmp_path / "inbox.mbox"
    box = mailbox.mbox(str(path))
    box.add(email_with(truncated, "attachment-7bit", "cut short"))
    box.add(email_with(sent, "attachment-7bit", "the real one"))
    box.close()
    r = b.run("import", b.game, path)
    assert r.exit_code == 0, r.output
    assert "imported" in r.output and "unreadable: inbox.mbox #1" in r.output and "truncated" in r.output


def test_a_message_that_fails_verification_stops_the_import_with_exit_1(started, tmp_path):
    a, b = started
    text = play(a, tmp_path, ROLL).read_text()
    lines = text.splitlines()
    i = lines.index("-----BEGIN PBEM MESSAGE-----") + 2
    lines[i] = lines[i][:10] + ("A" if lines[i][10] != "A" else "B") + lines[i][11:]
    bad = tmp_path / "bad.eml"
    bad.write_bytes(email_with("\n".join(lines) + "\n", "attachment-base64"))
    r = b.run("import", b.game, bad)
    assert r.exit_code == 1, r.output
    assert not (b.game / "0002-first.pbem").exists()


def test_the_library_reports_progress_for_each_message(started, tmp_path):
    from pbem.protocol.keystore import Keystore

    a, b = started
    sent = play(a, tmp_path, ROLL)
    seen = []
    report = inbox.import_sources(
        b.game, [sent], Keystore(b.home).load(lambda: None), progress=lambda done, total, label: seen.append((done, total, label))
    )
    assert [p.name for p in report.imported] == ["0002-first.pbem"]
    assert seen == [(0, 1, "message 0002 by first"), (1, 1, "done")]


def test_messages_in_reads_every_kind_of_source_like_read_messages(started, tmp_path):
    a, _ = started
    sent = play(a, tmp_path, ROLL)
    eml = tmp_path / "x.eml"
    eml.write_bytes(email_with(sent.read_text(), "body-base64"))
    ((source, msg),) = mailbox_io.messages_in([eml])
    assert source == eml and msg.seq == 2
    ((_, again),) = mailbox_io.messages_in(["-"], stdin=sent.read_bytes())
    assert again.body_bytes == msg.body_bytes


def _mbox_of(path: Path, files: list[Path], subject: str) -> Path:
    box = mailbox.mbox(str(path))
    for n, f in enumerate(files):
        box.add(email_with(f.read_text(), "attachment-7bit", f"{subject} {n}"))
    box.close()
    return path


def test_a_whole_game_is_restored_from_the_inbox_and_the_sent_folder(started, tmp_path):
    """A player who lost the game directory gets it back from the mail they
    sent and received plus their key, and plays on (protocol §7)."""
    a, b = started
    exchange_files = [play(a, tmp_path, ROLL)]
    assert b.run("import", b.game, exchange_files[-1]).exit_code == 0
    exchange_files.append(play(b, tmp_path, SEAL.replace("plan", "bob-plan")))
    assert a.run("import", a.game, exchange_files[-1]).exit_code == 0
    held = sorted(p.name for p in b.game.glob("*.pbem"))
    received = [b.game / n for n in held if "-first" in n]
    sent = [b.game / n for n in held if "-second" in n]
    inbox, outbox = _mbox_of(tmp_path / "inbox.mbox", received, "turn"), _mbox_of(tmp_path / "sent.mbox", sent, "my turn")
    shown = b.run("show", b.game, "--json").output

    restored = tmp_path / "bob-restored"
    r = b.run("import", restored, inbox, outbox)
    assert r.exit_code == 0, r.output
    assert "restored game" in r.output
    assert sorted(p.name for p in restored.glob("*.pbem")) == held
    for name in held:  # byte for byte the signed messages
        assert SignedMessage.from_text((restored / name).read_text()).body_bytes == \
            SignedMessage.from_text((b.game / name).read_text()).body_bytes
    moved = Player(b.name, b.home, restored)
    assert json.loads(moved.run("show", restored, "--json").output)["view"] == json.loads(shown)["view"]  # the sealed note too
    assert moved.run("verify", restored).exit_code == 0
    nxt = play(a, tmp_path, ROLL)  # and the game goes on from the restored directory
    assert moved.run("import", restored, nxt).exit_code == 0


def test_restoring_needs_message_0_of_a_game_with_your_key(started, tmp_path):
    a, b = started
    sent = play(a, tmp_path, ROLL)
    r = b.run("import", tmp_path / "r1", sent)  # no message 0 in it
    assert r.exit_code == 2 and "no message 0000" in r.output and not (tmp_path / "r1").exists()
    outsider = Player("eve", tmp_path / "eve-home", tmp_path / "eve")
    assert outsider.run("key", "new", "--name", "eve", "--no-passphrase").exit_code == 0
    r = outsider.run("import", tmp_path / "r2", *sorted(b.game.glob("*.pbem")))
    assert r.exit_code == 2 and "no message 0000 of a game with your key" in r.output
    assert not (tmp_path / "r2").exists()


def test_restoring_refuses_two_different_proposals_with_one_game_id(started, tmp_path):
    """Security review: a forged message 0 reusing the game id, first in the mailbox, hijacked the restore."""
    from pbem.protocol.keystore import Keystore
    from pbem.protocol.message import sign_body

    a, b = started
    eve = Player("eve", tmp_path / "eve-home", tmp_path / "eve")
    assert eve.run("key", "new", "--name", "eve", "--no-passphrase").exit_code == 0
    real = SignedMessage.from_text(sorted(b.game.glob("0000-*"))[0].read_text())
    body = dict(real.body)
    eve_key = (eve.home / "identity.pub").read_text().strip()
    body["setup"] = {**body["setup"], "keys": {"first": eve_key, "second": body["setup"]["keys"]["second"]}}
    body["author"] = Keystore(eve.home).load(lambda: None).public.fingerprint
    forged = tmp_path / "forged-0000.pbem"
    forged.write_text(sign_body(Keystore(eve.home).load(lambda: None), body).armored("a proposal"))
    held = sorted(b.game.glob("*.pbem"))
    box = _mbox_of(tmp_path / "box.mbox", [forged, *held], "turn")
    r = b.run("import", tmp_path / "restored", box)
    assert r.exit_code == 1 and "two different messages 0000" in r.output
    assert not (tmp_path / "restored").exists()


def test_maildir_mail_of_one_second_is_read_in_delivery_order():
    """Maildir names carry microseconds unpadded: M99999 came after M123456 when compared as text."""
    from pbem.protocol.scan import delivery_order

    names = ["1700000000.M123456P1Q2.host", "1700000000.M99999P1Q1.host", "1699999999.M5P1Q9.host"]
    assert sorted(names, key=delivery_order) == [names[2], names[1], names[0]]
