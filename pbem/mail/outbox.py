"""Turn files into mail: an ``.eml`` ready for any mail client, and SMTP.

:func:`build_email` makes an :class:`email.message.EmailMessage` with the
turn file attached (``NNNN-SIDE.pbem``, ``text/plain``, 7bit whenever it is
plain ASCII, so even a raw saved copy still holds the armoured block as
text) and a readable summary in the body: the game, the turn and phase, what
happened in the message, and whose move is next.  The summary comes from a
*spectator's* replay of the files -- the public record -- so nothing sealed
can reach the mail.

Addresses and SMTP settings, none of them part of the game's signed files:

* ``DIR/mail.toml`` -- per game: the opponent's address (remembered from
  ``--to``) and a log of what was sent;
* ``PBEM_HOME/mail.toml`` -- the player's ``[smtp]`` table: ``host``,
  ``port``, ``starttls``, ``ssl``, ``user``, ``from``, ``password_command``.

The SMTP password is never stored: :func:`send` takes it from the caller
(``PBEM_SMTP_PASSWORD``, the output of ``password_command``
(:mod:`pbem.mail.password`) or a prompt, in the CLI), and a ``password`` key
in a mail.toml is refused.  A password is never sent over a connection that is
not encrypted, except to this machine (loopback).
"""

from __future__ import annotations

import smtplib
import ssl
import textwrap
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from email.message import EmailMessage
from email.policy import SMTP as SMTP_POLICY
from email.utils import formatdate, make_msgid, parseaddr
from pathlib import Path
from typing import Any, Mapping

from pbem.engine import contract
from pbem.engine.history import newest
from pbem.errors import InputError, IntegrityError, UsageError
from pbem.mail.password import check_file
from pbem.match import session
from pbem.match.directory import GameDirectory
from pbem.match.replay import counted, pending_rolls
from pbem.util import tomlfile
from pbem.util.atomicfile import replace as write_whole

GAME_MAIL = "mail.toml"
HOME_MAIL = "mail.toml"
PASSWORD_ENV = "PBEM_SMTP_PASSWORD"
OUTBOX = "outbox"
SMTP_KEYS = {"host", "port", "starttls", "ssl", "user", "from", "password_command"}
LOOPBACK = ("localhost", "127.0.0.1", "::1")


class MailError(InputError):
    """Mail could not be written or sent (exit 2)."""


# --------------------------------------------------------------------------- small TOML files


def _read_toml(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}

    return tomlfile.read(path)


def _refuse_password(doc: Mapping[str, Any], path: Path) -> None:
    tables = [doc] + [v for v in doc.values() if isinstance(v, Mapping)]
    if any("password" in t for t in tables):
        raise MailError(
            f"{path}: holds a 'password'; pbem never reads a password from a file -- remove it, and set "
            f"password_command (e.g. \"pass show mail/smtp\", or \"secret-tool lookup ...\" for the system "
            f"keyring), or set {PASSWORD_ENV} / PBEM_IMAP_PASSWORD, or answer the prompt"
        )


def _write_atomic(path: Path, data: bytes) -> None:
    write_whole(path, data, parents=True)


# --------------------------------------------------------------------------- per game: DIR/mail.toml


@dataclass
class GameMail:
    """``DIR/mail.toml``: the opponent's address, yours for this game (the
    ``From:`` last given with --from), and what was sent."""

    to: str = ""
    sent: dict[str, str] = field(default_factory=dict)  # "0004" -> "when, to whom"
    sender: str = ""

    @classmethod
    def load(cls, directory: str | Path) -> "GameMail":
        path = Path(directory) / GAME_MAIL
        doc = _read_toml(path)
        _refuse_password(doc, path)
        sent = doc.get("sent", {})
        return cls(to=str(doc.get("to", "")), sent={str(k): str(v) for k, v in sent.items()} if isinstance(sent, dict) else {},
                   sender=str(doc.get("from", "")))

    def save(self, directory: str | Path) -> Path:
        doc: dict[str, Any] = {}
        if self.to:
            doc["to"] = self.to
        if self.sender:
            doc["from"] = self.sender
        if self.sent:
            doc["sent"] = dict(sorted(self.sent.items()))
        body = tomlfile.dumps(doc)
        text = "# pbem: mail settings of this game -- not part of the game's signed files\n" + (
            "\n" if body.startswith("[") else "") + body
        path = Path(directory) / GAME_MAIL
        _write_atomic(path, text.encode("utf-8"))
        return path


def remember_address(directory: str | Path, address: str, sender: str = "") -> GameMail:
    """Keep ``address`` as this game's opponent address and ``sender`` (if
    given) as yours (``DIR/mail.toml``)."""
    check_address(address, "--to")
    if sender:
        check_address(sender, "--from")
    record = GameMail.load(directory)
    if record.to != address or (sender and record.sender != sender):
        record.to = address
        record.sender = sender or record.sender
        record.save(directory)
    return record


def check_address(address: str, what: str) -> str:
    name, addr = parseaddr(address)
    if any(ord(c) < 32 or ord(c) == 127 for c in address):  # a line break would smuggle in a header (Bcc: ...)
        raise MailError(f"{what} {address!r} holds a line break or control character; give one address")
    if "@" not in addr or any(c in addr for c in " \t\r\n<>"):
        raise MailError(f"{what} {address!r} is not an email address")
    return address


# --------------------------------------------------------------------------- SMTP settings


@dataclass(frozen=True)
class SmtpSettings:
    host: str = ""
    port: int = 0
    starttls: bool = True
    ssl: bool = False
    user: str = ""
    sender: str = ""
    password_command: str = ""  # run for the password (pbem.mail.password); never the password itself

    @property
    def effective_port(self) -> int:
        return self.port or (465 if self.ssl else 587 if self.starttls else 25)

    def merged(self, **flags: Any) -> "SmtpSettings":
        """These settings with every flag that was given (not None) on top."""
        return replace(self, **{k: v for k, v in flags.items() if v is not None})


def home_table(home: str | Path, name: str, keys: set[str]) -> tuple[Path, dict[str, Any]]:
    """``PBEM_HOME/mail.toml`` and its table ``[name]`` (``{}`` when absent),
    every key one of ``keys``; a password anywhere in the file is refused."""
    path = Path(home) / HOME_MAIL
    doc = _read_toml(path)
    _refuse_password(doc, path)
    table = doc.get(name, {})
    if not isinstance(table, dict):
        raise InputError(f"{path}: [{name}] must be a table")
    unknown = sorted(set(table) - keys)
    if unknown:
        raise InputError(f"{path}: unknown key(s) in [{name}]: {', '.join(unknown)} (known: {', '.join(sorted(keys))})")
    if "password_command" in table:
        if not isinstance(table["password_command"], str):
            raise InputError(f"{path}: [{name}] password_command must be a string, e.g. \"pass show mail/{name}\"")
        check_file(path)
    return path, table


def load_settings(home: str | Path) -> SmtpSettings:
    """The ``[smtp]`` table of ``PBEM_HOME/mail.toml`` (all keys optional)."""
    path, table = home_table(home, "smtp", SMTP_KEYS)
    try:
        return SmtpSettings(
            host=str(table.get("host", "")),
            port=int(table.get("port", 0)),
            starttls=bool(table.get("starttls", True)),
            ssl=bool(table.get("ssl", False)),
            user=str(table.get("user", "")),
            sender=str(table.get("from", "")),
            password_command=str(table.get("password_command", "")),
        )
    except (TypeError, ValueError) as err:
        raise InputError(f"{path}: [smtp] port must be a number: {err}") from err


# --------------------------------------------------------------------------- the email


@dataclass
class Outgoing:
    """An email ready to write or send, and what it carries."""

    email: EmailMessage
    message_file: Path
    seq: int
    side: str
    game: str
    module: str
    to: str
    body: str
    sender: str = ""  # the From: address ("" when none is known)


def my_side(transcript: Any, fingerprint: str | None) -> str | None:
    return transcript.side_for_key(fingerprint) if fingerprint else None


def _pick_message(files: list[tuple[int, str, Path]], side: str | None, seq: int | None) -> tuple[int, str, Path]:
    if seq is not None:
        for item in files:
            if item[0] == seq:
                return item
        raise UsageError(f"--message {seq}: there is no message {seq:04d} in this game directory")
    if side is None:
        return files[-1]
    mine = [item for item in files if item[1] == side]
    if not mine:
        raise UsageError(f"you ({side}) have written no message in this game yet: run pbem play first")
    last = mine[-1]
    if last[0] != files[-1][0]:
        raise UsageError(
            f"your last message {last[0]:04d} has been answered by {files[-1][1]}'s {files[-1][0]:04d}: "
            f"play your next one first, or send {last[0]:04d} again with --message {last[0]}"
        )
    return last


def summary_text(match: Any, seq: int) -> str:
    """The body of the email for message ``seq``: the public record only."""
    transcript, replay, game = match.transcript, match.replay, match.game
    module = transcript.setup["module"]
    msg = transcript.messages[seq]
    side = msg.side
    other = transcript.opponent(side)
    sender = transcript.keys[side]
    lines = [
        f"pbem -- {module} game {transcript.game[:12]}...: message {seq:04d} from {side}"
        + (f" ({sender.comment})" if getattr(sender, "comment", "") else ""),
        "",
    ]
    view = game.view(replay.state, None) if seq == len(transcript) - 1 else {}
    where = []
    if "turn" in view:
        where.append(f"turn {view['turn']}")
    if view.get("phase"):
        where.append(f"phase {view['phase']}")
    if where:
        lines += ["Now: " + ", ".join(where) + ".", ""]
    if seq == 0:
        options = transcript.setup.get("options", {}).get("rules", [])
        lines += [
            f"{_who(sender, side)} proposes a game of {module} to {_who(transcript.keys[other], other)}"
            f" ({transcript.keys[other].fingerprint}).",
            f"{side} is {sender.fingerprint}: check this fingerprint with your opponent.",
        ]
        if options:
            lines.append("Optional rules: " + ", ".join(options))
        declared = contract.declared_rulings(game, transcript.setup.get("options") or {})
        if declared:
            lines += ["Rulings (how the disputed sentences of the rules are read; both sides play these):"]
            lines += [f"  {r.line()}" for r in declared]
        lines += [
            "",
            "To accept: save the attached file and run",
            f"    pbem join {msg.seq:04d}-{side}.pbem --dir YOUR_GAME_DIR",
            "then send back the file it names (pbem mail YOUR_GAME_DIR).",
        ]
    else:
        events = [e for s, e in newest(replay.events, lambda item: item[0] >= seq) if s == seq]
        lines.append("What happened:" if events else "What happened: nothing but the turn passing (no orders).")
        lines += [f"  {e.sentence()}" for e in events]
        pending = pending_rolls(replay, seq)
        if pending:
            lines += ["", f"Keyed by this message: {counted(pending)}.", f"They are rolled when {other}'s reply arrives:"]
            lines += [f"  {r.label} {r.shown()}" + (f" -- {r.purpose}" if r.purpose else "") for r in pending]
        lines.append("")
        if seq < len(transcript) - 1:  # an older message sent again: the game has moved on since
            lines.append(f"This is message {seq:04d} sent again; the game has {len(transcript)} messages now "
                         f"(the last, {len(transcript) - 1:04d}, by {transcript.messages[-1].side}).")
        elif match.closed:
            lines.append("The game is over and closed. Check it: pbem verify YOUR_GAME_DIR --audit")
        elif replay.over:
            lines.append(f"The game is over; {replay.next_side} sends the closing message (it reveals the secrets for the audit).")
        else:
            lines.append(f"Next: message {replay.next_seq:04d} by {replay.next_side}.")
        lines += [
            "",
            "To continue: save the attached file, then",
            f"    pbem receive YOUR_GAME_DIR {msg.seq:04d}-{side}.pbem",
            "or save this whole email and give it to pbem:",
            "    pbem import YOUR_GAME_DIR saved-email.eml",
            "then see what is awaited from you: pbem orders YOUR_GAME_DIR",
        ]
    lines += [
        "",
        "Only the attached file counts: it is signed and chained; this text is not.",
    ]
    return "\n".join(_wrap(lines)) + "\n"


def _who(key: Any, side: str) -> str:
    name = getattr(key, "comment", "")
    return f"{name} ({side})" if name else side


def _wrap(lines: list[str], width: int = 76) -> list[str]:
    """Mail-friendly lines: long ones wrapped, continued with an indent."""
    out: list[str] = []
    for line in lines:
        if len(line) <= width:
            out.append(line)
            continue
        indent = " " * (len(line) - len(line.lstrip()))
        out += textwrap.wrap(line, width, subsequent_indent=indent + "    ", break_long_words=False, break_on_hyphens=False)
    return out


def subject_line(match: Any, seq: int) -> str:
    transcript = match.transcript
    module = transcript.setup["module"]
    side = transcript.messages[seq].side
    tail = ""
    if seq == len(transcript) - 1 and seq > 0:
        view = match.game.view(match.replay.state, None)
        bits = [f"turn {view['turn']}" if "turn" in view else "", str(view.get("phase") or "")]
        tail = ", ".join(b for b in bits if b)
    if seq == 0:
        tail = "a new game"
    return f"[pbem {module} {transcript.game[:8]}] {seq:04d} from {side}" + (f": {tail}" if tail else "")


def build_email(
    directory: str | Path,
    *,
    fingerprint: str | None = None,
    seq: int | None = None,
    to: str | None = None,
    sender: str | None = None,
    default_sender: str | None = None,
) -> Outgoing:
    """The email carrying one of my messages (by default the last one I
    wrote, if it is still the last of the game).  ``to`` and ``sender``
    default to the addresses remembered for this game (``sender`` then to
    ``default_sender``, PBEM_HOME/mail.toml's); new ones are remembered once
    the email is written (:func:`write_eml`)."""
    directory = Path(directory)
    if to:
        check_address(to, "--to")
    if sender:
        check_address(sender, "--from")
    match = session.load(directory, None)  # a spectator: only the public record reaches the mail
    files = GameDirectory(directory).require()
    side = my_side(match.transcript, fingerprint)
    if fingerprint and side is None:
        raise UsageError(f"your key {fingerprint} is not a player of the game in {directory}")
    number, author, path = _pick_message(files, side, seq)
    remembered = GameMail.load(directory)
    address = to or remembered.to
    sender = sender or remembered.sender or default_sender or ""
    msg = EmailMessage()
    msg["Subject"] = subject_line(match, number)
    if sender:
        msg["From"] = sender
    if address:
        msg["To"] = address
    msg["Date"] = formatdate(localtime=True)
    msg["Message-ID"] = make_msgid(idstring=f"pbem.{number:04d}", domain="pbem.invalid")
    msg["References"] = f"<game-{match.transcript.game}@pbem.invalid>"
    msg["X-Pbem-Game"] = match.transcript.game
    msg["X-Pbem-Message"] = f"{number:04d}"
    body = summary_text(match, number)
    msg.set_content(body)
    attach_message_file(msg, path)
    return Outgoing(msg, path, number, author, match.transcript.game, match.transcript.setup["module"], address, body,
                    sender)


def attach_message_file(msg: EmailMessage, path: Path) -> None:
    """Attach a turn file as ``text/plain`` named like the file; 7bit when
    it is ASCII with short lines (a raw copy of the mail keeps the block
    readable as it is), else the encoding the email package picks."""
    text = Path(path).read_text(encoding="utf-8")
    plain = text.isascii() and all(len(line) <= 900 for line in text.splitlines())
    msg.add_attachment(text, subtype="plain", filename=Path(path).name, cte="7bit" if plain else None)


def write_eml(outgoing: Outgoing, path: str | Path | None = None) -> Path:
    """Write the email as an ``.eml`` file (default ``DIR/outbox/NNNN-SIDE.eml``)."""
    box = outgoing.message_file.parent / OUTBOX
    target = Path(path) if path else box / (outgoing.message_file.stem + ".eml")
    if target.parent == box and box.is_symlink():  # a planted DIR/outbox -> elsewhere would write there
        raise IntegrityError(f"{box} is a link; pbem writes the game's emails only into a directory of the game "
                             f"itself (remove the link, or give --out PATH)")
    _write_atomic(target, outgoing.email.as_bytes(policy=SMTP_POLICY))
    if outgoing.to:
        remember_address(outgoing.message_file.parent, outgoing.to, outgoing.sender)
    return target


# --------------------------------------------------------------------------- SMTP


def send(outgoing: Outgoing, settings: SmtpSettings, password: str | None = None, *, timeout: float = 30.0) -> str:
    """Deliver by SMTP; returns a line saying where it went.  Logs the
    sending in ``DIR/mail.toml``."""
    if not settings.host:
        raise MailError("no SMTP host: give --host or set host in the [smtp] table of PBEM_HOME/mail.toml")
    if not outgoing.to:
        raise MailError("no recipient: give --to ADDRESS once; it is remembered for this game")
    sender = outgoing.sender or settings.sender or (settings.user if "@" in settings.user else "")
    if not sender:
        raise MailError("no sender address: give --from or set from in the [smtp] table of PBEM_HOME/mail.toml")
    msg = outgoing.email
    if "From" not in msg:
        msg["From"] = sender
    encrypted = settings.ssl or settings.starttls
    if settings.user and not encrypted and settings.host not in LOOPBACK:
        raise MailError(
            f"refusing to send your SMTP password to {settings.host} unencrypted: use --starttls or --ssl"
        )
    port = settings.effective_port
    context = ssl.create_default_context()
    step = "connecting"
    try:
        if settings.ssl:
            client: smtplib.SMTP = smtplib.SMTP_SSL(settings.host, port, timeout=timeout, context=context)
        else:
            client = smtplib.SMTP(settings.host, port, timeout=timeout)
        with client:
            client.ehlo()
            if settings.starttls and not settings.ssl:
                step = "STARTTLS"
                client.starttls(context=context)
                client.ehlo()
            if settings.user:
                step = "login"
                if password is None:
                    raise MailError(f"the SMTP server wants a password for {settings.user}: set {PASSWORD_ENV}")
                client.login(settings.user, password)
            step = "sending"
            refused = client.send_message(msg, from_addr=parseaddr(sender)[1], to_addrs=[parseaddr(outgoing.to)[1]])
    except smtplib.SMTPAuthenticationError as err:
        raise MailError(f"SMTP login as {settings.user} at {settings.host} failed: {_smtp_text(err)}") from err
    except smtplib.SMTPNotSupportedError as err:
        hint = {
            "STARTTLS": "it does not offer STARTTLS: use --ssl (port 465), or --no-starttls for a relay on this machine",
            "login": "it offers no login on this connection (many servers offer it only after --starttls)",
        }.get(step, str(err))
        raise MailError(f"{settings.host}:{port}: {hint}") from err
    except smtplib.SMTPException as err:
        raise MailError(f"{step} at {settings.host}:{port} failed: {_smtp_text(err)}") from err
    except (OSError, ssl.SSLError) as err:
        raise MailError(f"{step} at SMTP server {settings.host}:{port} failed: {err}") from err
    if refused:
        raise MailError(f"{settings.host} refused {', '.join(refused)}")
    when = datetime.now(timezone.utc).replace(microsecond=0).isoformat()
    directory = outgoing.message_file.parent
    record = GameMail.load(directory)
    record.sent[f"{outgoing.seq:04d}"] = f"{when} to {outgoing.to} via {settings.host}:{port}"
    record.save(directory)
    return f"sent {outgoing.message_file.name} to {outgoing.to} via {settings.host}:{port}"


def _smtp_text(err: smtplib.SMTPException) -> str:
    code = getattr(err, "smtp_code", None)
    text = getattr(err, "smtp_error", b"")
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    return f"{code} {text}".strip() if code else str(err)


__all__ = [
    "GameMail",
    "MailError",
    "Outgoing",
    "PASSWORD_ENV",
    "SmtpSettings",
    "build_email",
    "load_settings",
    "remember_address",
    "send",
    "summary_text",
    "write_eml",
]
