"""Issue 19: a whole Ambon game played by two bots through two real
mailboxes -- dovecot for IMAP (IMAPS with its own CA, IDLE), aiosmtpd for
SMTP, both on loopback -- with `pbem watch` on both sides.  The bots play
only the messages watch leaves to them; watch writes and sends the rest.
At the end both directories hold the same verified game, and the count of
messages the bots wrote is the figure of docs/watch.md."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from mailservers import dovecot, smtp_server  # noqa: F401 - pytest fixtures

from pbem.app import demo, watch as watching
from pbem.mail import outbox
from pbem.match import session
from pbem.protocol.keystore import Keystore

MAX_ROUNDS = 200


class Side:
    """One player: keystore, game directory, IMAP watch, and the bot that
    stands in for the player where watch leaves the message to them."""

    def __init__(self, root: Path, user: str, side: str, imap, smtp):
        self.user, self.side = user, side
        self.home, self.game = root / f"home-{user}", root / f"game-{user}"
        self.identity = Keystore(self.home).load_or_create(user)
        (self.home / "mail.toml").write_text(f'[smtp]\nhost = "{smtp.host}"\nport = {smtp.port}\nstarttls = false\n'
                                             f'from = "{smtp.address(user)}"\n')
        self.address = smtp.address(user)
        self.source = imap.source(user)  # IMAPS, trusting the test CA
        self.lines: list[str] = []
        self.by_hand = 0

    def watch(self) -> watching.Watch:
        return watching.Watch(self.home, self.identity, [self.game], self.source,
                              watching.Sending(outbox.load_settings(self.home)), log=self.lines.append)

    def play_by_hand(self, script) -> None:
        """What the player does when watch says the message is theirs: the
        bot's orders, `pbem play`, `pbem mail --send`."""
        match = session.load(self.game, self.identity)
        orders, _ = script.orders_for(match, self.side, len(match.transcript))
        session.play(self.game, self.identity, orders)
        outbox.send(outbox.build_email(self.game, fingerprint=self.identity.public.fingerprint),
                    outbox.load_settings(self.home))
        self.by_hand += 1


def test_19_a_whole_ambon_game_by_imap_and_smtp_with_watch_on_both_sides(dovecot, smtp_server, tmp_path):
    script = demo.script_of("ambon")
    first = Side(tmp_path, "ann", script.proposer.side, dovecot, smtp_server)
    second = Side(tmp_path, "bob", script.joiner.side, dovecot, smtp_server)
    proposal = session.new_game(first.game, "ambon", first.side, second.identity.public, first.identity)
    orders, _ = script.orders_for(session.proposal_match(proposal, second.identity), second.side, 1)
    joined, _ = session.join_game(proposal, second.game, second.identity, orders)
    session.receive(first.game, [joined], first.identity)
    outbox.remember_address(first.game, second.address)
    outbox.remember_address(second.game, first.address)
    watches = {first.user: first.watch(), second.user: second.watch()}
    started, idled = time.monotonic(), 0
    answered = 0
    for _ in range(MAX_ROUNDS):
        if session.load(first.game, first.identity).closed and session.load(second.game, second.identity).closed:
            break
        for player in (first, second):
            report = watches[player.user].run_pass()
            assert not report.errors and not report.refused, (report, player.lines[-5:])
            answered += len(report.answered)
            if report.awaiting:
                player.play_by_hand(script)
                other = second if player is first else first
                if other.source.connected:  # IDLE: the other's server says the mail is there
                    idled += other.source.wait(5)
    else:
        pytest.fail(f"the game did not end in {MAX_ROUNDS} rounds")
    elapsed = time.monotonic() - started
    files = sorted(p.name for p in first.game.glob("*.pbem"))
    assert files == sorted(p.name for p in second.game.glob("*.pbem"))
    assert all((first.game / n).read_bytes() == (second.game / n).read_bytes() for n in files)
    for player in (first, second):
        verified = session.verify([player.game], audit=True)
        assert verified.ok and verified.replay.over, verified.problems
    total = len(files)
    by_hand = first.by_hand + second.by_hand + 2  # the proposal and the join decide the game
    assert by_hand + answered == total and answered > 0
    assert idled > 0  # at least one delivery was announced by IDLE, not found by a poll
    turns = session.load(first.game, first.identity).replay.state.turn
    print(f"\nAmbon by IMAP with watch on both sides: {total} messages, {by_hand} written by the players "
          f"({by_hand / turns:.1f} a game turn), {answered} by watch; {elapsed:.0f} s")


def test_30_a_roll_sent_by_smtp_comes_back_keyed_by_the_opponents_watch(dovecot, smtp_server, tmp_path):
    """Issue 30, dice at the speed of mail: ann's roll, sent by SMTP, is
    seen by bob's watch through IMAP (IDLE), keyed there by a message that
    declares nothing (bob's key-rolls = "auto"), sent back, and ann's watch
    shows the result -- no human on bob's side."""
    ann = Side(tmp_path, "ann", "first", dovecot, smtp_server)
    bob = Side(tmp_path, "bob", "second", dovecot, smtp_server)
    proposal = session.new_game(ann.game, "dice", "first", bob.identity.public, ann.identity)
    joined, _ = session.join_game(proposal, bob.game, bob.identity, {"standing": {"key-rolls": "auto"}})
    session.receive(ann.game, [joined], ann.identity)
    outbox.remember_address(ann.game, bob.address)
    outbox.remember_address(bob.game, ann.address)
    watches = {side.user: side.watch() for side in (ann, bob)}
    for w in watches.values():
        w.run_pass()  # connected, the mailbox read: from now on IDLE says when mail comes
    session.play(ann.game, ann.identity, {"order": [{"type": "roll", "dice": "2d6+1", "note": "fire 1"}]})
    outbox.send(outbox.build_email(ann.game, fingerprint=ann.identity.public.fingerprint),
                outbox.load_settings(ann.home))
    started = time.monotonic()
    assert bob.source.wait(10)  # IDLE: the server says the mail is there
    report = watches["bob"].run_pass()
    assert [Path(p).name for p in report.answered] == ["0003-second.pbem"], bob.lines
    assert ann.source.wait(10)
    report = watches["ann"].run_pass()
    assert [Path(p).name for p in report.imported] == ["0003-second.pbem"], ann.lines
    elapsed = time.monotonic() - started
    roll = session.load(ann.game, ann.identity).replay.rolls[-1]
    assert roll.key_seq == 2 and roll.partner_seq == 3 and not roll.provisional
    assert any(f"your rolls: fire 1: 2d6+1 = {roll.total} (" in line for line in ann.lines), ann.lines
    assert elapsed < 30
    for side in (ann, bob):
        side.source.close()
