"""``pbem watch``: your machine answers what needs no decision of yours (issue 19).

Fair dice without a server cost round trips: a message's dice are keyed by
the opponent's next message, and many messages decide nothing -- they key
dice, make the reveals the rules demand, or answer questions the standing
instructions already answer.  ``watch`` reads a mailbox (a Maildir folder,
or IMAP), imports every new turn file of your games through the one receive
path (every check; nothing lost), and then, for each game:

* when the message owed by you decides nothing
  (:func:`pbem.engine.contract.decisions_for`), it writes it with no orders
  (``pbem play`` of an empty orders file: the owed reveals and the chain
  value), signs it and sends it by SMTP;
* otherwise it says what is awaited -- a log line, and the ``notify``
  callback (a desktop or mail notification) once per message -- and leaves
  the message to you.  It never answers a decision you did not pre-declare.
  Each notice names the rolls whose results the arriving message made known
  (:func:`results_text`, at most :data:`NOTICE_ROLLS` of them);
* a proposal (message 0 of a new game) addressed to your key is kept in
  ``PBEM_HOME/watch/proposals`` and told, with the ``pbem join`` that
  accepts it: watch never joins a game by itself.

Safe to run forever and to kill at any moment:

* **mail** is spooled (``PBEM_HOME/watch/spool``, private) before it is
  marked seen, and a spooled email is removed only once every turn file in
  it is imported, held already or of a game not watched here; one that
  arrives before the message it follows waits in the spool; one refused
  (a forgery, a cheat) is kept in ``PBEM_HOME/watch/refused`` as evidence;
* **answers** are journaled in the game directory (``.pbem-watch.json``)
  before anything is written: ``answering`` before the message is composed,
  ``pending`` once its email is in ``DIR/outbox``, cleared once sent.  After
  a crash the journal says what was being done: a message already written
  is sent (the same signed bytes, the same email), never composed again;
  one not yet written is composed as if for the first time;
* **one watch per game**: a non-blocking lock (``.pbem-watch.lock``) held
  while a game is tended; a second watch skips the game and says so;
* **a busy game** -- its ``.pbem.lock`` held by a ``play`` or ``receive``
  at that moment (:class:`pbem.errors.BusyError`) -- is tried again, never
  dropped: its mail stays in the spool and the next pass, :data:`BUSY_RETRY`
  seconds later, imports it (and tends the game); the player is told once;
* **errors** of the mail servers are retried with a bounded back-off
  (:data:`BACKOFF`); ``once`` makes one pass (for cron) and reports them.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator, Protocol

from pbem.engine import contract
from pbem.errors import BusyError, InputError, PbemError, VerificationError
from pbem.mail import outbox
from pbem.mail.inbox import import_sources
from pbem.mail.outbox import GameMail, MailError
from pbem.match import session
from pbem.match.replay import declared_rolls
from pbem.match.session import build_transcript
from pbem.match.directory import GameDirectory
from pbem.protocol.keys import derive_secret
from pbem.protocol.message import SignedMessage
from pbem.protocol.scan import scan_source
from pbem.util.atomicfile import replace
from pbem.util.filelock import OPEN_FLAGS, try_lock

JOURNAL = ".pbem-watch.json"
LOCK = ".pbem-watch.lock"
BACKOFF = (5, 10, 20, 40, 80, 160, 300)  # seconds after consecutive failed passes; then 300 each
BUSY_RETRY = 5  # seconds to the next pass after one that found a game busy (at most --interval)
DIRECTORY = "watch"
PROPOSALS = "proposals"  # under DIRECTORY: proposals addressed to the player, kept for ``pbem join``
NOTICE_ROLLS = 5  # rolls named in one notice; the rest are counted
NOTICE_ROLL_CHARS = 100  # the most of one roll's text a notice shows
NOTICE_EVENTS = 5  # events named in the line of an answer written by watch; the rest are counted


class Source(Protocol):
    """A mailbox (:class:`pbem.mail.maildir.MaildirSource`, :class:`pbem.mail.imap.ImapSource`)."""

    name: str

    def connect(self) -> None: ...

    def fetch_new(self, seen: set[str]) -> Iterator[tuple[str, bytes | str]]:
        """New mail, one message at a time: ``(ident, raw bytes)``, or
        ``(ident, why)`` for one not read (over the size limit)."""

    def wait(self, seconds: float) -> bool: ...

    def close(self) -> None: ...


#: what a closing message decides when the player has not let watch send it
CLOSING = ("the closing message: it publishes your per-game secret and so your hidden facts (docs/protocol.md "
           "7.6); whether and when to send it is yours (pbem watch --close sends it for you)",)


def decisions_of(match: Any, *, close: bool = True) -> tuple[str, ...]:
    """What the next message of ``match``'s player decides (empty: watch
    writes it): :func:`pbem.engine.contract.decisions_for` of the position
    the player sees.  A closing message -- once a secret is published, the
    game over or ending (docs/protocol.md 7.6) -- decides nothing of the
    rules', but it publishes the player's secret, which docs/protocol.md 11
    leaves them the choice never to do: it is theirs (:data:`CLOSING`)
    unless ``close`` (``pbem watch --close``)."""
    state = match.replay.state
    closing = bool(match.transcript.secrets) or match.replay.over or contract.is_ending(match.game, state)
    found = contract.decisions_for(match.game, state, match.player.side, closing=closing)
    return found if found or not closing or close else CLOSING


def rolls_of(match: Any, seq: int) -> list[Any]:
    """The rolls whose results message ``seq`` made known to ``match``'s
    player, oldest first (:class:`pbem.match.replay.DeclaredRoll`): those it
    completed (keyed by message ``seq - 1``) and, for its recipient, those
    keyed by it (computed on receipt, provisional until the reply,
    docs/protocol.md §6.3).  Read from the end of the replay's rolls."""
    return declared_rolls(match.replay.rolls.since(lambda r: r.key_seq >= seq - 1))


def _clipped(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def roll_text(roll: Any) -> str:
    """One roll as a notice names it: ``fire 1: 2d6+1 = 9 (4 + 4 + 1)``
    (purpose, expression, total, then the dice as the game writes them, and
    what the game says after the total: ``DR = 12 (colored 6 + white 6),
    boxcars``)."""
    head = f"{roll.purpose}: {roll.expression}" if roll.purpose else roll.expression
    result = roll.result()
    tail = f" = {roll.total}"
    at = result.rfind(tail) if roll.total is not None else -1
    after = result[at + len(tail):] if at >= 0 else ""
    if at >= 0 and (not after or after.startswith(",")):
        return _clipped(f"{head} = {roll.total} ({result[:at]}){after}", NOTICE_ROLL_CHARS)
    return _clipped(f"{head} = {result}", NOTICE_ROLL_CHARS)


def results_text(rolls: list[Any], me: str, where: str) -> str:
    """``rolls`` as a notice lists them -- the player's own first, then the
    opponent's, each side's together -- at most :data:`NOTICE_ROLLS`, the
    rest counted (``pbem log`` shows them all): ``"your rolls: fire 1: 2d6+1
    = 9 (4 + 4 + 1); second's rolls: ..."``; empty without rolls."""
    if not rolls:
        return ""
    ordered = sorted(rolls, key=lambda r: r.author != me)  # stable: each side's in the order declared
    shown = ordered[:NOTICE_ROLLS]
    parts: list[str] = []
    for author in dict.fromkeys(r.author for r in shown):
        mine = [roll_text(r) for r in shown if r.author == author]
        parts.append(("your rolls: " if author == me else f"{author}'s rolls: ") + "; ".join(mine))
    more = len(rolls) - len(shown)
    return "; ".join(parts) + (f" (and {more} more: pbem log {where})" if more else "")


def _bounded(items: list[str], limit: int) -> str:
    more = len(items) - limit
    return "; ".join(items[:limit]) + (f" (and {more} more)" if more > 0 else "")


def now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S")


# --------------------------------------------------------------------------- the spool


class Spool:
    """Mail fetched and not yet wholly imported (``PBEM_HOME/watch/``)."""

    def __init__(self, home: Path, source_name: str):
        self.root = home / DIRECTORY
        self.folder = self.root / "spool"
        self.refused = self.root / "refused"
        self._seen_file = self.root / f"seen-{hashlib.sha256(source_name.encode()).hexdigest()[:16]}.txt"
        self._seen: set[str] | None = None

    def seen(self) -> set[str]:
        """The idents of the source's messages spooled already (one a line, appended)."""
        if self._seen is None:
            try:
                self._seen = set(self._seen_file.read_text("utf-8").split("\n")) - {""}
            except FileNotFoundError:
                self._seen = set()
        return self._seen

    def put(self, ident: str, data: bytes) -> Path:
        """Keep ``data``, then mark ``ident`` seen: a crash between them spools it again, under the same name."""
        path = self.folder / f"{time.time_ns():020d}-{hashlib.sha256(ident.encode()).hexdigest()[:16]}.eml"
        self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
        replace(path, data, parents=True, mode=0o600)
        self.mark_seen(ident)
        return path

    def mark_seen(self, ident: str) -> None:
        self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(self._seen_file, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, (ident.replace("\n", " ") + "\n").encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)
        self.seen().add(ident)

    def files(self) -> list[Path]:
        """Spooled mail, in the order it was fetched."""
        return sorted(self.folder.glob("*.eml")) if self.folder.is_dir() else []

    def keep_refused(self, path: Path) -> Path:
        self.refused.mkdir(mode=0o700, parents=True, exist_ok=True)
        target = self.refused / path.name
        os.replace(path, target)
        return target


# --------------------------------------------------------------------------- one game's journal and lock


@dataclass
class Journal:
    """What ``watch`` was doing in one game (``DIR/.pbem-watch.json``).

    The game directory is not the watch's own: whoever can write it could
    plant a journal that says "message 1 is being answered" and so drive an
    email out (issue 27).  The journal carries an HMAC under a key only the
    player's identity computes (:func:`journal_key`); one without a valid
    HMAC is not this watch's, and is read as empty."""

    answering: int | None = None  # about to compose this message
    pending: int | None = None  # composed, its email in DIR/outbox, not yet sent
    notified: int | None = None  # the message the player was last told is theirs to write
    forged: bool = False  # a journal was there whose HMAC this watch did not write

    FIELDS = ("answering", "pending", "notified")

    @classmethod
    def load(cls, directory: Path, key: bytes) -> "Journal":
        try:
            doc = json.loads((directory / JOURNAL).read_text("utf-8"))
        except FileNotFoundError:
            return cls()
        except (OSError, ValueError):
            return cls(forged=True)
        if not isinstance(doc, dict):
            return cls(forged=True)
        values = [doc.get(k) if isinstance(doc.get(k), int) and not isinstance(doc.get(k), bool) else None
                  for k in cls.FIELDS]
        if not isinstance(doc.get("mac"), str) or not hmac.compare_digest(doc["mac"], _mac(key, values)):
            return cls(forged=True)
        answering, pending, notified = values
        return cls(answering, pending, notified)

    def save(self, directory: Path, key: bytes) -> None:
        values = [self.answering, self.pending, self.notified]
        doc = {**dict(zip(self.FIELDS, values, strict=True)), "mac": _mac(key, values)}
        replace(directory / JOURNAL, json.dumps(doc).encode("utf-8"))


def journal_key(identity: Any) -> bytes:
    """The key of the journals' HMAC: derived from the player's identity, so
    only their watch can write a journal it will act on."""
    return derive_secret(identity, b"pbem-watch-journal-v1")


def _mac(key: bytes, values: list[int | None]) -> str:
    return hmac.new(key, json.dumps(values).encode("ascii"), hashlib.sha256).hexdigest()


@contextlib.contextmanager
def game_lock(directory: Path) -> Iterator[bool]:
    """Hold ``directory``'s watch lock without waiting: yields False when another watch has it."""
    fd = os.open(directory / LOCK, OPEN_FLAGS, 0o600)
    try:
        yield try_lock(fd)
    finally:
        os.close(fd)


# --------------------------------------------------------------------------- the watch


@dataclass
class Sending:
    """How answers leave: by SMTP, with these settings and the password
    (never stored).  ``send`` returns the line saying where it went."""

    settings: Any  # pbem.mail.outbox.SmtpSettings
    password: str | None = None

    def send(self, outgoing: Any) -> str:
        return outbox.send(outgoing, self.settings, self.password)


@dataclass
class PassReport:
    """What one pass did."""

    imported: list[str] = field(default_factory=list)  # message files
    answered: list[str] = field(default_factory=list)  # message files written and sent by watch
    awaiting: list[str] = field(default_factory=list)  # "DIR: what" for messages left to the player
    errors: list[str] = field(default_factory=list)  # mail servers, sending: retried
    refused: list[str] = field(default_factory=list)  # turn files that failed verification: evidence kept
    busy: list[str] = field(default_factory=list)  # game directories another pbem process held: tried again
    proposals: list[str] = field(default_factory=list)  # proposals addressed to the player, kept for pbem join


def _same_email(kept: Path, outgoing: Any) -> bool:
    """Whether the ``.eml`` kept in the outbox is the email of ``outgoing``
    (rebuilt from the verified turn file): the same recipients, sender,
    subject and attachment.  Anything else in the outbox is not sent."""
    import email
    import email.policy

    try:
        before = email.message_from_bytes(kept.read_bytes()[: 64 * 1024 * 1024], policy=email.policy.default)
    except Exception:  # noqa: BLE001 - what cannot be read is not the email pbem wrote
        return False

    def facts(msg: Any) -> tuple:
        parts = [(p.get_payload(decode=True) or b"").replace(b"\r\n", b"\n") for p in msg.walk() if p.get_filename()]
        return (str(msg["To"]), str(msg["From"]), str(msg["Subject"]), parts, str(msg.get_body(("plain",))))

    try:
        return facts(before) == facts(outgoing.email)
    except Exception:  # noqa: BLE001
        return False


class Watch:
    """Watch ``source`` for the games in ``directories`` (played with ``identity``)."""

    def __init__(self, home: Path, identity: Any, directories: list[Path], source: Source, sending: Sending, *,
                 log: Callable[[str], None] = print, notify: Callable[[str], None] | None = None,
                 close: bool = False, discover: Callable[[], list[Path]] | None = None):
        self.home, self.identity, self.source, self.sending = Path(home), identity, source, sending
        self.directories = [Path(d) for d in directories]
        self.discover = discover  # the games of the keystore, asked each pass: a game joined meanwhile is watched
        self.spool = Spool(self.home, source.name)
        self._log, self.notify = log, notify
        self.connected = False
        self._told_busy: set[Path] = set()  # busy games the player was told of, until they are not
        self.journal_key = journal_key(identity)
        self.close = close  # --close: send the closing message too (docs/protocol.md 7.6, 11)

    def log(self, text: str) -> None:
        self._log(f"{now()} {text}")

    # ------------------------------------------------------------------ one pass

    def run_pass(self) -> PassReport:
        """Fetch, import, answer: once."""
        report = PassReport()
        self._fetch(report)
        games = self._games()
        self._import(games, report)
        for directory in games.values():
            if str(directory) not in report.busy:  # its mail not yet in: tended on the next pass
                self._tend(directory, report)
        self._told_busy &= {Path(d) for d in report.busy}
        return report

    def _busy(self, directory: Path, report: PassReport, what: str) -> None:
        """``directory`` is held by another pbem process: ``what`` waits for the next pass (told once)."""
        if str(directory) not in report.busy:
            report.busy.append(str(directory))
        if directory not in self._told_busy:
            self._told_busy.add(directory)
            self.log(f"{directory}: busy: another pbem command (play, receive) has the game; {what} "
                     f"on the next pass")

    def _fetch(self, report: PassReport) -> None:
        try:
            if not self.connected:
                self.source.connect()
                self.connected = True
            for ident, data in self.source.fetch_new(self.spool.seen()):  # kept one at a time, as read
                if isinstance(data, str):
                    self.log(f"{self.source.name}: message {ident} is not read: {data}; skipped")
                    self.spool.mark_seen(ident)
                    continue
                self.spool.put(ident, data)
        except MailError as err:
            self.connected = False
            self.source.close()
            report.errors.append(str(err))
            self.log(f"{self.source.name}: {err}")

    def _games(self) -> dict[str, Path]:
        """game id -> directory, for every watched directory holding a game
        (and, with ``discover``, every game the keystore knows of now)."""
        found: dict[str, Path] = {}
        directories = list(self.directories)
        if self.discover is not None:
            directories += [d for d in self.discover() if d not in directories]
        for directory in directories:
            files = GameDirectory(directory).message_files()
            if not files:
                continue
            try:
                found[SignedMessage.from_text(files[0][2].read_bytes()).game] = directory
            except (OSError, PbemError):
                self.log(f"{directory}: its message 0000 cannot be read; not watched")
        return found

    def _import(self, games: dict[str, Path], report: PassReport) -> None:
        """Every spooled email into the game it belongs to, as long as that
        makes progress (an email may wait for another that follows it)."""
        progress = True
        while progress:
            progress = False
            for path in self.spool.files():
                try:
                    scan = scan_source(path)
                except PbemError as err:  # unreadable (too large, nested too deeply): out of the spool, told once
                    why = str(err).removeprefix(f"{path.name}: ")  # the errors of a file name it first
                    report.refused.append(f"{path.name}: {why}")
                    self.log(f"mail {path.name}: cannot be read: {why}; kept as evidence: "
                             f"{self.spool.keep_refused(path)}")
                    self._tell(f"pbem: an email that cannot be read arrived and was set aside: {why}")
                    continue
                found = scan.found
                if scan.unreadable:  # damaged blocks: nobody's move, everybody's concern -- told once a mail
                    origin, why = scan.unreadable[0]
                    more = len(scan.unreadable) - 1
                    also = f" (and {more} more damaged block{'s' if more > 1 else ''} in the same email)" if more else ""
                    report.refused.append(f"{origin}: {why}{also}")
                    self.log(f"mail {path.name}: a damaged turn file: {why}{also}")
                    self._tell(f"pbem: a damaged turn file arrived and was refused: {why}{also}")
                if scan.unreadable and not found:
                    self.log(f"mail {path.name}: kept as evidence: {self.spool.keep_refused(path)}")
                    continue
                waiting = False
                for game_id in dict.fromkeys(item.message.game for item in found):
                    directory = games.get(game_id)
                    if directory is None:
                        if not any(self._proposal(item, report) for item in found if item.message.game == game_id):
                            self.log(f"mail {path.name}: a turn file of game {game_id[:12]}..., not one watched "
                                     f"here; left alone")
                        continue
                    if str(directory) in report.busy:  # it stays busy this pass: the mail waits
                        waiting = True
                        continue
                    outcome = self._receive(directory, path, report)
                    if outcome is None:  # refused: the email moved to the evidence
                        waiting = False
                        break
                    imported, waits = outcome
                    progress |= imported
                    waiting |= waits
                else:
                    if not found:
                        self.log(f"mail {path.name}: no pbem turn file in it; dropped")
                if path.exists() and not waiting:
                    path.unlink()

    def _proposal(self, found: Any, report: PassReport) -> bool:
        """Whether ``found`` (a turn file of a game not watched here) is a
        proposal addressed to the player: message 0, verified (the
        proposer's signature, its setup), naming the player's key for the
        other side.  A new one is kept in ``PBEM_HOME/watch/proposals`` and
        told once, with the ``pbem join`` that accepts it; watch never
        joins by itself -- the terms, the opponent's key and the directory
        are the player's to accept."""
        msg = found.message
        try:
            if msg.seq != 0:
                return False
            transcript = build_transcript([msg])
        except PbemError:
            return False
        proposer = msg.side
        mine = transcript.side_for_key(self.identity.public.fingerprint)
        if mine is None or mine == proposer:
            return False
        game_id = transcript.game
        if any((self.home / folder / game_id).exists() for folder in ("joined", "places")):
            return True  # joined (or proposed) here already: nothing new
        kept = self.spool.root / PROPOSALS / f"{game_id}-0000-{proposer}.pbem"
        if kept.exists():
            return True  # told already
        replace(kept, msg.armored().encode("utf-8"), parents=True, mode=0o600)
        report.proposals.append(str(kept))
        key = transcript.keys[proposer]
        name = f"{key.comment} " if key.comment else ""
        module = transcript.setup.get("module", "?")
        how = f"pbem join {kept} --dir DIR"
        self.log(f"a proposal addressed to you: a {module} game ({game_id[:12]}...) from {name}({key.fingerprint}), "
                 f"{proposer} against your {mine}; watch never joins by itself -- to accept it: {how} (DIR: a new "
                 f"directory for the game), then pbem mail DIR --to THEIR-ADDRESS --send")
        self._tell(f"pbem: {name}proposes a {module} game to you (you would play {mine}): {how}")
        return True

    def _receive(self, directory: Path, path: Path, report: PassReport) -> tuple[bool, bool] | None:
        """Import ``path``'s turn files of the game in ``directory``: (any
        imported, any waiting for a message before it); None when refused."""
        try:
            result = import_sources(directory, [path], self.identity)
        except VerificationError as err:
            kept = self.spool.keep_refused(path)
            report.refused.append(f"{directory}: {err}")
            self.log(f"{directory}: REFUSED a turn file: {err} (the email is kept as evidence: {kept})")
            self._tell(f"pbem: {directory}: a turn file was refused: {err}")
            return None
        except BusyError:
            self._busy(directory, report, "its mail stays in the spool and is imported")
            return False, True  # waiting: the email stays in the spool
        except InputError as err:
            self.log(f"{directory}: mail {path.name}: {err}")
            return False, False
        for finding in result.findings:
            self.log(f"{directory}: warning: {finding}")
        for written in result.imported:
            report.imported.append(str(written))
            self.log(f"{directory}: imported {Path(written).name}")
        return bool(result.imported), bool(result.waiting)

    # ------------------------------------------------------------------ one game

    def _tend(self, directory: Path, report: PassReport) -> None:
        with game_lock(directory) as mine:
            if not mine:
                self.log(f"{directory}: another pbem watch is tending this game; left to it")
                return
            try:
                self._tend_locked(directory, report)
            except BusyError:
                self._busy(directory, report, "it is tended")
            except VerificationError as err:
                report.refused.append(f"{directory}: {err}")
                self.log(f"{directory}: the game does not verify: {err}")
            except PbemError as err:
                report.errors.append(f"{directory}: {err}")
                self.log(f"{directory}: {err}")

    def _tend_locked(self, directory: Path, report: PassReport) -> None:
        journal = Journal.load(directory, self.journal_key)
        if journal.forged:
            self.log(f"{directory}: {JOURNAL} is not one this watch wrote (no valid HMAC under your key): "
                     f"ignored, and replaced by an empty one; nothing is sent on its word")
            journal = Journal()
            journal.save(directory, self.journal_key)
        match = session.load(directory, self.identity)
        transcript, me = match.transcript, match.me.side
        sent = GameMail.load(directory).sent
        for seq in {journal.answering, journal.pending} - {None}:  # a crash left an answer unsent: send it
            assert seq is not None  # the set difference took None out
            if seq < len(transcript) and transcript.messages[seq].side == me and f"{seq:04d}" not in sent:
                self._send(directory, seq, journal, report, again=True)
                return
        if journal.answering is not None or journal.pending is not None:
            journal.answering = journal.pending = None
            journal.save(directory, self.journal_key)
        seq = len(transcript)
        closed = len(transcript.secrets) == len(transcript.sides)
        if closed or transcript.side_of(seq) != me:
            if closed and journal.notified != seq and transcript.messages[seq - 1].side != me:
                results = results_text(rolls_of(match, seq - 1), me, str(directory))
                if results:  # the closing reply completed rolls: told once
                    self.log(f"{directory}: the game is closed; {results}")
                    self._tell(f"pbem: {directory}: the game is closed; {results}")
                    journal.notified = seq
                    journal.save(directory, self.journal_key)
            return  # the game is closed, or the opponent's move
        owed = decisions_of(match, close=self.close)
        if owed:
            what = "; ".join(owed)
            report.awaiting.append(f"{directory}: {what}")
            if journal.notified != seq:
                results = results_text(rolls_of(match, seq - 1), me, str(directory)) if seq else ""
                also = f"; {results}" if results else ""
                self.log(f"{directory}: message {seq:04d} is yours to write: {what} (pbem orders {directory}){also}")
                self._tell(f"pbem: your move in {directory}: {what}{also}")
                journal.notified = seq
                journal.save(directory, self.journal_key)
            return
        completed = [r for r in rolls_of(match, seq - 1) if r.key_seq < seq - 1] if seq else []
        journal.answering = seq
        journal.save(directory, self.journal_key)  # before the message exists: after a crash, the journal says whose it was
        try:
            played = session.play(directory, self.identity, {})
        except BusyError:  # nothing written: message seq may be the player's own, by hand, now
            journal.answering = None
            journal.save(directory, self.journal_key)
            raise
        said = _bounded([e.sentence() for e in played.events], NOTICE_EVENTS) or "keys the dice"
        results = results_text(completed, me, str(directory))
        self.log(f"{directory}: wrote {played.path.name} (no decision of yours: {said})"
                 + (f"; {results}" if results else ""))
        self._send(directory, seq, journal, report)

    def _send(self, directory: Path, seq: int, journal: Journal, report: PassReport, *, again: bool = False) -> None:
        """The email of my message ``seq``: written to DIR/outbox once, then sent
        (the same bytes every time); the journal cleared once it is sent."""
        import email
        import email.policy


        outgoing = outbox.build_email(directory, fingerprint=self.identity.public.fingerprint, seq=seq,
                                      default_sender=self.sending.settings.sender or None)
        kept = directory / outbox.OUTBOX / (outgoing.message_file.stem + ".eml")
        if again and kept.is_file() and _same_email(kept, outgoing):
            # the email composed before the crash: its Message-ID and Date, so the opponent sees one email;
            # its content is the one rebuilt from the verified turn file, never the file's word for it
            before = email.message_from_bytes(kept.read_bytes(), policy=email.policy.default)
            for header in ("Message-ID", "Date"):
                del outgoing.email[header]
                outgoing.email[header] = before[header]
        else:
            if again and kept.is_file():
                self.log(f"{directory}: {kept.name} in the outbox is not the email of {outgoing.message_file.name}: "
                         f"replaced by the one rebuilt from the verified turn file")
            outbox.write_eml(outgoing, kept)
        journal.answering, journal.pending = None, seq
        journal.save(directory, self.journal_key)
        try:
            line = self.sending.send(outgoing)
        except outbox.MailError as err:
            report.errors.append(f"{directory}: {err}")
            self.log(f"{directory}: {outgoing.message_file.name} is written but not sent: {err} (kept: {kept}; "
                     f"watch tries again)")
            return
        journal.pending = None
        journal.save(directory, self.journal_key)
        report.answered.append(str(outgoing.message_file))
        self.log(f"{directory}: {line}{' (again, after an interruption)' if again else ''}")

    def _tell(self, text: str) -> None:
        if self.notify is None:
            return
        try:
            self.notify(text)
        except Exception as err:  # noqa: BLE001 - a notifier's failure must not stop the watch
            self.log(f"notification failed: {err}")

    # ------------------------------------------------------------------ for ever

    def run(self, *, interval: float = 60.0, once: bool = False, passes: int | None = None,
            sleep: Callable[[float], None] = time.sleep) -> PassReport:
        """Pass after pass, waiting for mail between them (IMAP IDLE where the
        server has it); after a pass with errors, the next after a back-off
        (:data:`BACKOFF`).  ``once``: one pass.  ``passes``: at most that many
        (tests).  Returns the last pass's report."""
        failures = 0
        done = 0
        try:
            while True:
                report = self.run_pass()
                done += 1
                if once or (passes is not None and done >= passes):
                    return report
                if report.errors:
                    delay = BACKOFF[min(failures, len(BACKOFF) - 1)]
                    failures += 1
                    self.log(f"trying again in {delay} s")
                    sleep(delay)
                    continue
                failures = 0
                if report.busy:  # a play or receive takes seconds: look again soon, mail or not
                    sleep(min(interval, BUSY_RETRY))
                    continue
                if self.connected:
                    try:
                        self.source.wait(interval)
                    except PbemError as err:
                        self.connected = False
                        self.source.close()
                        self.log(f"{self.source.name}: {err}")
                else:
                    sleep(interval)
        finally:
            self.source.close()


__all__ = ["BACKOFF", "BUSY_RETRY", "Journal", "PassReport", "Sending", "Spool", "Watch", "game_lock", "results_text",
           "rolls_of"]
