"""Issue 19: `pbem watch` -- the opponent's machine answers what needs no
decision, by real mail.  Two players, two keystores, two Maildir folders and
a real SMTP server on loopback (aiosmtpd) that delivers into them; each
player's watch reads its own folder and sends through the server.  (The
same through a real IMAP server: tests/test_watch_imap.py.)"""

from __future__ import annotations

import email
import email.policy
import mailbox
from pathlib import Path

import pytest
from mailservers import MaildirDelivery, free_port, shared_mailboxes

from pbem.app import watch as watching
from pbem.engine import contract
from pbem.mail import outbox
from pbem.mail.maildir import MaildirSource
from pbem.match import session
from pbem.protocol.keystore import Keystore

aiosmtpd = pytest.importorskip("aiosmtpd.controller", reason="needs aiosmtpd (pip install -e '.[test]')")

END = {"order": [{"type": "end"}]}
ROLL = {"order": [{"type": "roll", "dice": "2d6", "note": "charge"}]}


class Player:
    """One player: keystore (PBEM_HOME), game directory, Maildir, watch."""

    def __init__(self, root: Path, name: str, port: int, box: Path):
        self.name, self.home, self.game, self.box = name, root / f"home-{name}", root / name, box
        self.identity = Keystore(self.home).load_or_create(name)
        (self.home / "mail.toml").write_text(f'[smtp]\nhost = "127.0.0.1"\nport = {port}\nstarttls = false\n'
                                             f'from = "{name}@pbem.test"\n')
        self.lines: list[str] = []
        self.told: list[str] = []

    def watch(self, **kwargs) -> watching.Watch:
        """Its watch with --close (the tests answer the dice game's closing
        reply as the message that decides nothing) unless ``close=False``."""
        settings = outbox.load_settings(self.home)
        kwargs.setdefault("close", True)
        return watching.Watch(self.home, self.identity, [self.game], MaildirSource(self.box), watching.Sending(settings),
                              log=self.lines.append, notify=self.told.append, **kwargs)

    def send_last(self) -> str:
        """What a player does by hand: `pbem mail DIR --send` of the last message."""
        outgoing = outbox.build_email(self.game, fingerprint=self.identity.public.fingerprint)
        return outbox.send(outgoing, outbox.load_settings(self.home))

    def files(self) -> list[str]:
        return sorted(p.name for p in self.game.glob("*.pbem"))


class Server:
    """The SMTP server on loopback, stopped and started again at will."""

    def __init__(self, handler: MaildirDelivery, port: int):
        self.handler, self.port, self.controller = handler, port, None

    def start(self) -> None:
        from aiosmtpd.controller import Controller

        self.controller = Controller(self.handler, hostname="127.0.0.1", port=self.port)
        self.controller.start()

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None


@pytest.fixture
def mail(request, tmp_path):
    """ann (first) and bob (second), messages 0 and 1 exchanged, each with a
    Maildir and the other's address; the SMTP server delivering to both."""
    port, boxes = free_port(), shared_mailboxes(request, tmp_path)
    ann, bob = (Player(tmp_path, name, port, boxes.maildir(name)) for name in ("ann", "bob"))
    handler = MaildirDelivery(boxes)
    server = Server(handler, port)
    server.start()
    m0 = session.new_game(ann.game, "dice", "first", bob.identity.public, ann.identity)
    m1, _ = session.join_game(m0, bob.game, bob.identity)
    session.receive(ann.game, [m1], ann.identity)
    outbox.remember_address(ann.game, "bob@pbem.test")
    outbox.remember_address(bob.game, "ann@pbem.test")
    yield ann, bob, handler, server
    server.stop()


def test_19_the_closing_message_is_answered_by_itself_and_the_game_ends_verified(mail):
    """ann ends the dice game (dice.end) and mails it by hand; bob's watch
    imports it and, the closing message deciding nothing (protocol 7.6),
    writes, signs and sends it; ann's watch imports that: the game is over
    and closed on both sides, with no human touching bob's side."""
    ann, bob, handler, _ = mail
    session.play(ann.game, ann.identity, END)
    ann.send_last()
    report = bob.watch().run(once=True)
    assert [Path(p).name for p in report.imported] == ["0002-first.pbem"]
    assert [Path(p).name for p in report.answered] == ["0003-second.pbem"]
    assert any("wrote 0003-second.pbem (no decision of yours" in line for line in bob.lines), bob.lines
    assert any("sent 0003-second.pbem to ann@pbem.test" in line for line in bob.lines), bob.lines
    report = ann.watch().run(once=True)
    assert [Path(p).name for p in report.imported] == ["0003-second.pbem"] and not report.answered
    assert ann.files() == bob.files() == ["0000-first.pbem", "0001-second.pbem", "0002-first.pbem", "0003-second.pbem"]
    audit = session.verify([ann.game], audit=True)
    assert audit.ok and audit.replay.over
    assert not list((ann.home / "watch" / "spool").glob("*")) and not list((bob.home / "watch" / "spool").glob("*"))


def test_19_a_message_with_a_decision_is_left_to_the_player_and_told_once(mail):
    """A dice game's message may declare rolls: every one but the closing
    message is the player's.  watch says so once, and writes nothing."""
    ann, bob, _, _ = mail
    session.play(ann.game, ann.identity, ROLL)
    ann.send_last()
    watch = bob.watch()
    report = watch.run(once=True)
    assert report.imported and not report.answered and report.awaiting
    assert bob.files()[-1] == "0002-first.pbem"
    assert len(bob.told) == 1 and "your move" in bob.told[0]
    assert any("message 0003 is yours to write" in line for line in bob.lines), bob.lines
    watch.run(once=True)
    assert len(bob.told) == 1  # told once a message, not once a pass


def test_19_an_answer_whose_sending_failed_is_sent_again_as_the_same_bytes_never_written_twice(mail):
    """The SMTP server is down when bob's watch answers: the message is
    written and its email kept in DIR/outbox, the journal says it is
    pending.  The next pass (the server back) sends that very email."""
    ann, bob, handler, server = mail
    session.play(ann.game, ann.identity, END)
    ann.send_last()
    server.stop()
    report = bob.watch().run(once=True)
    assert report.errors and not report.answered
    assert watching.Journal.load(bob.game, watching.journal_key(bob.identity)).pending == 3
    kept = (bob.game / "outbox" / "0003-second.eml").read_bytes()
    server.start()
    report = bob.watch().run(once=True)
    assert [Path(p).name for p in report.answered] == ["0003-second.pbem"]
    assert bob.files()[-1] == "0003-second.pbem" and len(bob.files()) == 4
    sent = email.message_from_bytes(handler.received[-1].content, policy=email.policy.default)
    kept_mail = email.message_from_bytes(kept, policy=email.policy.default)
    assert sent["Message-ID"] == kept_mail["Message-ID"]
    attached = next(part.get_content() for part in sent.iter_attachments())
    assert attached.replace("\r\n", "\n") == (bob.game / "0003-second.pbem").read_text()  # SMTP ends lines CRLF
    assert watching.Journal.load(bob.game, watching.journal_key(bob.identity)) == watching.Journal(None, None, None)
    assert bob.watch().run(once=True).answered == []  # and never again


def test_19_killed_after_writing_before_mailing_the_message_is_mailed_not_written_again(mail):
    ann, bob, handler, _ = mail
    session.play(ann.game, ann.identity, END)
    ann.send_last()
    session.receive(bob.game, [ann.game / "0002-first.pbem"], bob.identity)
    watching.Journal(answering=3).save(bob.game, watching.journal_key(bob.identity))  # the watch was about to answer 0003 ...
    written = session.play(bob.game, bob.identity, {}).path  # ... wrote it, and was killed
    before = written.read_bytes()
    report = bob.watch().run(once=True)
    assert [Path(p).name for p in report.answered] == ["0003-second.pbem"]
    assert any("(again, after an interruption)" in line for line in bob.lines), bob.lines
    assert written.read_bytes() == before and len(bob.files()) == 4


def test_19_killed_before_writing_the_answer_is_written_once(mail):
    ann, bob, _, _ = mail
    session.play(ann.game, ann.identity, END)
    ann.send_last()
    watching.Journal(answering=3).save(bob.game, watching.journal_key(bob.identity))  # killed before the message existed
    report = bob.watch().run(once=True)
    assert [Path(p).name for p in report.answered] == ["0003-second.pbem"] and len(bob.files()) == 4


def test_19_a_game_another_watch_is_tending_is_left_to_it(mail):
    ann, bob, _, _ = mail
    session.play(ann.game, ann.identity, END)
    ann.send_last()
    with watching.game_lock(bob.game) as mine:
        assert mine
        report = bob.watch().run(once=True)
    assert not report.answered and any("another pbem watch is tending this game" in line for line in bob.lines)
    assert bob.watch().run(once=True).answered  # once free, the next pass answers


@pytest.mark.parametrize("where", ["body", "signature"])
def test_19_a_forged_turn_file_is_refused_kept_as_evidence_and_told(mail, tmp_path, where):
    """A block whose body no longer parses, or whose signature no longer
    verifies: refused, never imported, the email kept, the player told."""
    ann, bob, _, _ = mail
    path = session.play(ann.game, ann.identity, ROLL).path
    lines = path.read_text().splitlines(keepends=True)
    at = lines.index("-----BEGIN PBEM MESSAGE-----\n") + 1 if where == "body" else \
        lines.index("-----BEGIN SSH SIGNATURE-----\n") + 3
    lines[at] = lines[at][:8] + ("B" if lines[at][8] != "B" else "C") + lines[at][9:]  # one character changed
    forged = "".join(lines)
    message = email.message.EmailMessage()
    message["From"], message["To"], message["Subject"] = "ann@pbem.test", "bob@pbem.test", "turn"
    message.set_content("my move")
    message.add_attachment(forged, subtype="plain", filename=path.name)
    mailbox.Maildir(str(bob.box)).add(message.as_bytes())
    report = bob.watch().run(once=True)
    assert report.refused and not report.imported and not report.answered
    assert len(list((bob.home / "watch" / "refused").glob("*.eml"))) == 1
    assert bob.told and "refused" in bob.told[0]
    assert bob.files() == ["0000-first.pbem", "0001-second.pbem"]


def test_19_mail_that_is_no_turn_file_or_a_copy_already_held_is_dropped(mail):
    ann, bob, _, _ = mail
    mailbox.Maildir(str(bob.box)).add(b"From: x@y\nSubject: hello\n\nno turn file here\n")
    outgoing = outbox.build_email(bob.game, fingerprint=bob.identity.public.fingerprint)  # bob's own 0001, a copy
    mailbox.Maildir(str(bob.box)).add(outgoing.email.as_bytes())
    report = bob.watch().run(once=True)
    assert not report.imported and not report.errors
    assert any("no pbem turn file in it; dropped" in line for line in bob.lines)
    assert not list((bob.home / "watch" / "spool").glob("*"))
    assert len(bob.watch().spool.seen()) == 2  # neither is read again


def test_27_mail_nested_1200_levels_is_set_aside_and_later_mail_gets_through(mail):
    """Issue 27: an email the parser cannot follow (1,200 nested
    message/rfc822 parts) once crashed every pass and stayed in the spool.
    It is moved to the evidence, told once, and the turn file mailed after
    it is imported."""
    ann, bob, _, _ = mail
    deep = b"Content-Type: text/plain\n\nhello\n"
    for level in range(1200):
        deep = b"From: x@y\nSubject: fwd %d\nContent-Type: message/rfc822\n\n" % level + deep
    mailbox.Maildir(str(bob.box)).add(b"To: bob@pbem.test\n" + deep)
    session.play(ann.game, ann.identity, ROLL)
    ann.send_last()
    report = bob.watch().run(once=True)
    assert [Path(p).name for p in report.imported] == ["0002-first.pbem"], bob.lines
    assert len(report.refused) == 1 and "more than 100 multipart or message parts" in report.refused[0]
    assert len(list((bob.home / "watch" / "refused").glob("*.eml"))) == 1
    assert not list((bob.home / "watch" / "spool").glob("*"))
    set_aside = [text for text in bob.told if "an email that cannot be read arrived and was set aside" in text]
    assert len(set_aside) == 1 and "(docs/protocol.md 12, limit 14)" in set_aside[0], bob.told
    report = bob.watch().run(once=True)  # the next pass, or a restart: not read again, not told again
    assert not report.refused and sum("cannot be read" in text for text in bob.told) == 1


class Down:
    """A mail server that is not there."""

    name = "imap://nobody@127.0.0.1:1/INBOX"

    def connect(self):
        raise outbox.MailError("connecting to 127.0.0.1:1 failed: connection refused")

    def fetch_new(self, seen):
        raise AssertionError("not connected")

    def wait(self, seconds):
        raise AssertionError("not connected")

    def close(self):
        pass


def test_19_server_errors_are_retried_with_a_bounded_back_off(mail):
    _, bob, _, _ = mail
    slept: list[float] = []
    w = watching.Watch(bob.home, bob.identity, [bob.game], Down(), watching.Sending(outbox.load_settings(bob.home)),
                       log=bob.lines.append)
    w.run(passes=10, sleep=slept.append)
    assert slept == [5, 10, 20, 40, 80, 160, 300, 300, 300]
    assert sum("connection refused" in line for line in bob.lines) == 10


def test_19_the_command_watches_once_for_cron(mail):
    from click.testing import CliRunner

    from pbem.cli import main

    ann, bob, _, _ = mail
    session.play(ann.game, ann.identity, END)
    ann.send_last()
    r = CliRunner().invoke(main, ["watch", "--maildir", str(bob.box), "--dir", str(bob.game), "--once", "--close", "--close"],
                           env={"PBEM_HOME": str(bob.home)})
    assert r.exit_code == 0, r.output
    assert "imported 0002-first.pbem" in r.output and "sent 0003-second.pbem to ann@pbem.test" in r.output
    r = CliRunner().invoke(main, ["watch", "--once", "--close"], env={"PBEM_HOME": str(bob.home)})
    assert r.exit_code == 2 and "give --maildir DIR or --imap HOST" in r.output


def test_19_ambon_asks_the_player_in_its_phases_and_for_open_questions_only(ambon_demo_messages):
    """5.0: a side decides in its own phases; in the opponent's it only keys
    dice and reveals what the rules demand, unless a question is open (11.1,
    11.4, 3.2) or, with 14.1, its artillery could bombard defensively.
    Walked over a whole demo game: watch would never have answered a
    message the bot gave orders in."""
    answered = 0
    for state, side, orders in ambon_demo_messages:
        from pbem.games.ambon import GAME

        owed = contract.decisions_for(GAME, state, side, closing=GAME.is_over(state))
        if not owed:
            answered += 1
            assert not orders, (state.turn, state.phase, side, orders)
        if state.phase in ("japanese-movement", "allied-movement") and side == str(state.phase).split("-")[0]:
            assert owed and "Movement Phase (7.0)" in owed[0]
    # how many messages decide nothing depends on the demo game's dice (4 to 9 seen): some always do
    # (the closing reply, the messages that only key the dice of the opponent's phases)
    assert answered >= 2


@pytest.fixture(scope="module")
def ambon_demo_messages(tmp_path_factory):
    """(the state its author saw, its side, its orders and commitments) of
    every message from 0002 of the Ambon demo: each prefix of the game loaded
    by the player about to write, as watch loads it (the opponent's last
    dice keyed provisionally)."""
    import shutil

    from demo_games import ambon_game

    played = ambon_game(tmp_path_factory)
    files = played.messages()
    from pbem.protocol.message import SignedMessage

    found = []
    work = tmp_path_factory.mktemp("prefix")
    for n in range(2, len(files)):
        prefix = work / f"{n:04d}"
        prefix.mkdir()
        for f in files[:n]:
            shutil.copy(f, prefix / f.name)
        body = SignedMessage.from_text(files[n].read_text()).body
        author = next(who for who, ident in played.identities.items()
                      if session.load(prefix, ident, keep=False).player.side == body["side"])
        match = session.load(prefix, played.identities[author], keep=False)
        found.append((match.replay.state, body["side"], body["orders"] + list(body["commitments"])))
    return found


def test_19_a_game_that_does_not_say_leaves_every_message_but_the_closing_one_to_its_player():
    """No contract.Decisions (Calumpit): watch writes nothing but the
    closing message; any DecisionDue is the player's whatever a game says."""
    from pbem.engine import registry

    calumpit = registry.get("calumpit")
    assert not isinstance(calumpit, contract.Decisions)
    state = calumpit.initial_state({"options": {}})
    assert contract.decisions_for(calumpit, state, "american", closing=False) == (
        "your orders (a calumpit game leaves every message but the closing one to you)",)
    assert contract.decisions_for(calumpit, state, "american", closing=True) == ()
    dice = registry.get("dice")
    assert isinstance(dice, contract.Decisions)
    assert "dice.roll" in contract.decisions_for(dice, dice.initial_state({}), "first", closing=False)[0]


def test_19_notify_runs_the_players_command_with_the_text(mail, tmp_path):
    import sys

    from click.testing import CliRunner

    from pbem.cli import main

    ann, bob, _, _ = mail
    session.play(ann.game, ann.identity, ROLL)
    ann.send_last()
    told = tmp_path / "told.txt"
    command = f"{sys.executable} -c \"import sys; open({str(told)!r}, 'a').write(sys.argv[1])\""
    r = CliRunner().invoke(main, ["watch", "--maildir", str(bob.box), "--dir", str(bob.game), "--once", "--close",
                                  "--notify", command], env={"PBEM_HOME": str(bob.home)})
    assert r.exit_code == 0, r.output
    assert told.read_text().startswith(f"pbem: your move in {bob.game}: your rolls, notes and reveals")


def test_19_without_an_smtp_host_watch_says_so_at_the_start_and_keeps_the_answer(mail):
    from click.testing import CliRunner

    from pbem.cli import main

    ann, bob, _, _ = mail
    session.play(ann.game, ann.identity, END)
    ann.send_last()
    (bob.home / "mail.toml").write_text('[smtp]\nfrom = "bob@pbem.test"\n')
    r = CliRunner().invoke(main, ["watch", "--maildir", str(bob.box), "--dir", str(bob.game), "--once", "--close", "--close"],
                           env={"PBEM_HOME": str(bob.home)})
    assert r.exit_code == 2, r.output
    assert "no SMTP host" in r.output.splitlines()[1] and "cannot be sent until it is set" in r.output
    assert "0003-second.pbem is written but not sent" in r.output and (bob.game / "outbox" / "0003-second.eml").is_file()
    assert watching.Journal.load(bob.game, watching.journal_key(bob.identity)).pending == 3


# --------------------------------------------------------------------------- issue 27 (M3): a busy game

# A second process that holds a game's .pbem.lock as pbem's own commands take
# it (GameDirectory.lock, what play and receive hold while they write) until
# its stdin closes.
HOLD = (
    "import sys\n"
    "from pbem.match.directory import GameDirectory\n"
    "with GameDirectory(sys.argv[1]).lock():\n"
    "    print('locked', flush=True)\n"
    "    sys.stdin.read()\n"
)


class Holder:
    """``pbem play`` at that moment: the game's lock held by another process."""

    def __init__(self, directory: Path):
        import subprocess
        import sys

        self.process = subprocess.Popen([sys.executable, "-c", HOLD, str(directory)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)
        assert self.process.stdout.readline().strip() == "locked"

    def release(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=30)


def spooled(player: Player) -> list[Path]:
    return sorted((player.home / "watch" / "spool").glob("*.eml"))


def test_27_a_turn_file_that_arrives_while_a_play_holds_the_game_is_kept_and_imported_once_after(mail):
    """Old: the import failed, the spooled email was deleted and stayed seen,
    `--once` exited 0: the turn file was lost.  Now it stays in the spool,
    `--once` exits 75 (EX_TEMPFAIL) with one line saying so, and the next run imports it."""
    from click.testing import CliRunner

    from pbem.cli import main

    ann, bob, _, _ = mail
    session.play(ann.game, ann.identity, ROLL)
    ann.send_last()
    argv = ["watch", "--maildir", str(bob.box), "--dir", str(bob.game), "--once", "--close", "--close"]
    holder = Holder(bob.game)
    try:
        r = CliRunner().invoke(main, argv, env={"PBEM_HOME": str(bob.home)})
    finally:
        holder.release()
    assert r.exit_code == 75, r.output
    assert r.output.count("busy: another pbem command (play, receive) has the game; its mail stays in the spool "
                          "and is imported on the next pass") == 1, r.output
    assert bob.files() == ["0000-first.pbem", "0001-second.pbem"]
    assert len(spooled(bob)) == 1 and not list((bob.home / "watch" / "refused").glob("*"))
    r = CliRunner().invoke(main, argv, env={"PBEM_HOME": str(bob.home)})
    assert r.exit_code == 0, r.output
    assert r.output.count("imported 0002-first.pbem") == 1 and "busy" not in r.output, r.output
    assert not spooled(bob)
    r = CliRunner().invoke(main, argv, env={"PBEM_HOME": str(bob.home)})
    assert r.exit_code == 0 and "imported" not in r.output, r.output
    assert bob.files() == ["0000-first.pbem", "0001-second.pbem", "0002-first.pbem"]
    assert session.verify([bob.game]).ok


def test_27_a_busy_game_is_told_once_and_looked_at_again_within_seconds(mail):
    """A watch left running: a busy game is not a server error (no back-off)
    and not a new-mail wait (IMAP IDLE could wait for hours): the next pass
    comes BUSY_RETRY seconds later; the player is told once, not each pass."""
    ann, bob, _, _ = mail
    session.play(ann.game, ann.identity, END)
    ann.send_last()
    slept: list[float] = []
    watch = bob.watch()
    holder = Holder(bob.game)
    try:
        report = watch.run(passes=3, sleep=slept.append)
    finally:
        holder.release()
    assert report.busy == [str(bob.game)] and not report.imported and not report.errors
    assert slept == [watching.BUSY_RETRY] * 2
    assert sum("busy" in line for line in bob.lines) == 1, bob.lines
    assert watching.Journal.load(bob.game, watching.journal_key(bob.identity)).answering is None
    report = watch.run(once=True)  # free: imported, and the closing message answered
    assert [Path(p).name for p in report.imported] == ["0002-first.pbem"]
    assert [Path(p).name for p in report.answered] == ["0003-second.pbem"]
    assert not report.busy and not spooled(bob)


class Running:
    """``pbem watch`` in its own process (Maildir source, one pass a second),
    its output read line by line as it comes."""

    def __init__(self, player: Player):
        import os
        import queue
        import subprocess
        import sys
        import threading

        argv = [sys.executable, "-c", "from pbem.cli import main; main()", "watch", "--close", "--maildir", str(player.box),
                "--dir", str(player.game), "--interval", "1"]
        env = {**os.environ, "PBEM_HOME": str(player.home), "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        self.output: list[str] = []
        threading.Thread(target=lambda: [self.lines.put(line) for line in self.process.stdout], daemon=True).start()

    def wait_for(self, needle: str, timeout: float = 10.0) -> str:
        import queue
        import time

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.05)
            except queue.Empty:
                if self.process.poll() is not None and self.lines.empty():
                    break
                continue
            self.output.append(line)
            if needle in line:
                return line
        raise AssertionError(f"{needle!r} not in {''.join(self.output)}")

    def kill(self) -> None:
        import signal

        self.process.send_signal(signal.SIGKILL)  # no cleanup, no finally
        self.process.wait(timeout=10)


def test_27_watch_killed_with_sigkill_while_the_game_is_busy_and_after_loses_nothing(mail):
    """Issue 27: a real `pbem watch` process, killed -9 (1) once it has said
    the game is busy, (2) at once after a restart, still busy, (3) the game
    free, as soon as it has imported the turn file (while it answers), and
    (4) once it has sent the answer: the turn file is imported once, the
    answer written once and sent, the spool empty, both directories verify."""
    import time

    ann, bob, _, _ = mail
    session.play(ann.game, ann.identity, END)
    ann.send_last()
    holder = Holder(bob.game)
    try:
        watch = Running(bob)
        watch.wait_for("busy: another pbem command (play, receive) has the game")
        watch.kill()  # 1
        assert bob.files() == ["0000-first.pbem", "0001-second.pbem"] and len(spooled(bob)) == 1
        watch = Running(bob)
        time.sleep(0.2)
        watch.kill()  # 2
        assert bob.files() == ["0000-first.pbem", "0001-second.pbem"] and len(spooled(bob)) == 1
    finally:
        holder.release()
    watch = Running(bob)
    watch.wait_for("imported 0002-first.pbem")
    watch.kill()  # 3
    watch = Running(bob)
    watch.wait_for("sent 0003-second.pbem to ann@pbem.test")
    watch.kill()  # 4
    assert not any("imported" in line for line in watch.output), watch.output  # imported by (3), once
    assert bob.files() == ["0000-first.pbem", "0001-second.pbem", "0002-first.pbem", "0003-second.pbem"]
    assert not spooled(bob) and not list((bob.home / "watch" / "refused").glob("*"))
    journal = watching.Journal.load(bob.game, watching.journal_key(bob.identity))
    assert journal.answering is None and journal.pending is None
    report = ann.watch().run(once=True)
    assert [Path(p).name for p in report.imported] == ["0003-second.pbem"] and not report.refused
    for player in (ann, bob):
        audit = session.verify([player.game], audit=True)
        assert audit.ok and audit.replay.over


def test_27_a_planted_journal_and_outbox_email_make_watch_send_nothing_of_theirs(mail):
    """Issue 27 major 6: whoever can write bob's game directory plants
    .pbem-watch.json ({"answering": 1}) and outbox/0001-second.eml (their
    own email): watch sent that email verbatim from bob's account. The
    journal carries an HMAC under bob's key; a planted one is ignored and
    replaced, and an email is only ever rebuilt from a verified turn file."""
    ann, bob, handler, _ = mail
    (bob.game / watching.JOURNAL).write_text('{"answering": 1, "pending": null, "notified": null}')
    (bob.game / "outbox").mkdir(exist_ok=True)
    (bob.game / "outbox" / "0001-second.eml").write_text(
        "To: victim@example.org\nFrom: bob@example.org\nSubject: PWNED\n\nsend money to the attacker\n")
    before = len(handler.received)
    bob.watch().run(once=True)
    sent = [m.content for m in handler.received[before:]]
    assert not any(b"PWNED" in m or b"attacker" in m for m in sent)
    assert any(".pbem-watch.json is not one this watch wrote" in line for line in bob.lines), bob.lines
    assert watching.Journal.load(bob.game, watching.journal_key(bob.identity)) == watching.Journal()


def test_27_on_a_retry_the_outbox_email_is_rebuilt_not_trusted(mail):
    """A genuine retry (the journal bob's watch wrote: 0003 pending) with the
    kept email replaced by another: the email sent is the one rebuilt from
    the verified 0003, and the log says the outbox file was replaced."""
    ann, bob, handler, server = mail
    session.play(ann.game, ann.identity, END)
    ann.send_last()
    server.stop()
    bob.watch().run(once=True)  # written, not sent
    kept = bob.game / "outbox" / "0003-second.eml"
    kept.write_text("To: victim@example.org\nFrom: bob@example.org\nSubject: PWNED\n\nsend money\n")
    server.start()
    report = bob.watch().run(once=True)
    assert [Path(p).name for p in report.answered] == ["0003-second.pbem"]
    sent = email.message_from_bytes(handler.received[-1].content, policy=email.policy.default)
    assert "PWNED" not in str(sent["Subject"])
    attached = next(part.get_content() for part in sent.iter_attachments())
    assert attached.replace("\r\n", "\n") == (bob.game / "0003-second.pbem").read_text()
    assert any("0003-second.eml in the outbox is not the email of 0003-second.pbem" in line for line in bob.lines)


def test_27_three_hundred_damaged_blocks_in_one_email_are_told_once(mail):
    """Issue 27 m3: every damaged block was a log line and a --notify run (300
    broken attachments: 300 notifications). One email is told once, saying
    how many blocks were damaged."""
    import mailbox

    ann, bob, _, _ = mail
    session.play(ann.game, ann.identity, ROLL)
    good = (ann.game / "0002-first.pbem").read_text()
    block = good[good.index("-----BEGIN"):]
    damaged = block[: len(block) // 2] + "\n"  # a block cut in two: unreadable
    msg = email.message.EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "mallory@pbem.test", "bob@pbem.test", "many"
    msg.set_content(damaged * 300)
    box = mailbox.Maildir(str(bob.box))
    box.add(msg)
    box.close()
    bob.watch().run(once=True)
    damaged_lines = [line for line in bob.lines if "a damaged turn file" in line]
    assert len(damaged_lines) == 1 and len(bob.told) == 1, (damaged_lines, bob.told)
    assert "(and 299 more damaged blocks in the same email)" in damaged_lines[0]


def test_27_without_close_the_closing_message_is_the_players(mail):
    """Issue 27 nit: watch sent the dice game's closing reply within seconds,
    publishing the player's per-game secret -- docs/protocol.md 11 leaves the
    choice never to send it to them. Without --close it is the player's
    decision, told once; with --close watch sends it."""
    ann, bob, _, _ = mail
    session.play(ann.game, ann.identity, END)
    ann.send_last()
    report = bob.watch(close=False).run(once=True)
    assert report.imported and not report.answered
    assert len(bob.told) == 1 and "the closing message" in bob.told[0] and "--close" in bob.told[0]
    assert bob.files()[-1] == "0002-first.pbem"
    report = bob.watch(close=True).run(once=True)
    assert [Path(p).name for p in report.answered] == ["0003-second.pbem"]


def test_27_a_54_mib_mail_is_skipped_by_its_size_and_the_turn_file_after_it_comes_in(mail):
    """Issue 27 m1: watch reads new mail one message at a time, and one over
    the limit by its size before reading a byte of it."""
    ann, bob, _, _ = mail
    giant = bob.box / "new" / "1700000000.M1P1Q1.giant"
    with giant.open("wb") as handle:  # sparse: reading it would cost 54 MiB, skipping it nothing
        handle.truncate(54 * 2**20)
    session.play(ann.game, ann.identity, ROLL)
    ann.send_last()
    bob.watch().run_pass()
    assert any(line.endswith("message 1700000000.M1P1Q1.giant is not read: the email is 54.0 MiB; pbem reads at "
                             "most 32 MiB a file or email for turn files (docs/protocol.md 12); skipped")
               for line in bob.lines), bob.lines
    assert "0002-first.pbem" in bob.files()
    before = list(bob.lines)
    bob.watch().run_pass()  # marked: never looked at again
    assert not any("giant" in line for line in bob.lines[len(before):])
