"""Turn files out of mail: ``.pbem`` files, ``.eml`` messages, mbox files,
Maildir folders and pasted text.  A pure scanner: it reads, finds and parses
the armour, and imports nothing (:mod:`pbem.mail.inbox` does, on top of the
match layer, which uses this module to read what it is given).

Mail does things to text.  A turn file may arrive as an attachment (base64,
quoted-printable or plain 7bit), pasted in the body (plain or HTML), inside a
forwarded message, quoted in a reply (``> `` prefixes, CRLF line ends), or
several times in one mailbox (the original, the reply that quotes it, the
copy in the sent folder).  This module finds every armoured block in all of
them, with the standard library's :mod:`email` and :mod:`mailbox`; the
armour itself is read by :class:`~pbem.protocol.message.SignedMessage`, which
verifies nothing yet -- :func:`pbem.match.session.receive` does that on import.
"""

from __future__ import annotations

import html
import os
import re
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Sequence

from pbem.errors import InputError, IntegrityError, PbemError
from pbem.protocol.limits import (
    MAX_INPUT_BYTES,
    input_too_large,
    mail_nesting_problem,
    mail_too_deep,
    read_at_most,
    read_input,
)
from pbem.protocol.message import BEGIN, END, SUMMARY_HEAD, SignedMessage, clean_lines

if TYPE_CHECKING:  # the email, mailbox and html modules cost ~20 ms: imported when a mail is read
    import mailbox
    from email.message import Message

STDIN = "-"
_HEADER = re.compile(rb"^[!-9;-~]+:")  # an RFC 5322 field name, then a colon
_MAIL_FIELDS = (
    b"from:", b"to:", b"subject:", b"date:", b"mime-version:", b"content-type:", b"received:",
    b"return-path:", b"message-id:", b"delivered-to:", b"x-", b"reply-to:", b"cc:",
)
_SKIP_TYPES = ("image/", "audio/", "video/", "font/", "model/")
# A tag ends at the first ">" and never holds a "<": from each "<" the scan stops at the next "<" at
# the latest, so 32 MiB of "<br" with no ">" cost one pass, not one pass a "<" (issue 27).
_BLOCK_TAGS = re.compile(r"<\s*(br|/p|/div|/pre|/li|/tr|/h[1-6]|/blockquote)\b[^<>]*>", re.IGNORECASE)
_TAG = re.compile(r"<[^<>]*>")
_SCRIPT_OPEN = re.compile(r"<(script|style)\b", re.IGNORECASE)
_SCRIPT_CLOSE = {name: re.compile(rf"</{name}\s*>", re.IGNORECASE) for name in ("script", "style")}

Progress = Callable[[int, int, str], Any]


# --------------------------------------------------------------------------- what was found


@dataclass(frozen=True)
class Found:
    """One armoured message found in a source: where, what, and its
    unsigned summary lines (on import pbem writes its own and compares:
    :mod:`pbem.match.summary`)."""

    origin: str
    message: SignedMessage
    summary: str = ""

    @property
    def label(self) -> str:
        try:
            return f"message {self.message.seq:04d} by {self.message.side}"
        except PbemError:
            return "a message with an unreadable body"


@dataclass
class Scan:
    """Everything found in some sources: messages, and blocks that could not be read."""

    found: list[Found] = field(default_factory=list)
    unreadable: list[tuple[str, str]] = field(default_factory=list)  # (origin, why)
    sources: list[str] = field(default_factory=list)

    def extend(self, other: "Scan") -> None:
        self.found += other.found
        self.unreadable += other.unreadable
        self.sources += other.sources


# --------------------------------------------------------------------------- armour in text


def blocks_in_text(text: str | bytes, origin: str) -> Scan:
    """Every armoured block in ``text``, quoted or not; a broken block is
    reported in ``unreadable`` and does not hide the others."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    lines = clean_lines(text)
    scan = Scan()
    i = 0
    count = 0
    while i < len(lines):
        if lines[i] != BEGIN:
            i += 1
            continue
        count += 1
        j = i + 1
        while j < len(lines) and lines[j] not in (END, BEGIN):
            j += 1
        where = origin if count == 1 and BEGIN not in lines[j:] else f"{origin}, block {count}"
        if j >= len(lines) or lines[j] == BEGIN:
            scan.unreadable.append((where, f"armour truncated: no '{END}' line"))
            i = j
            continue
        block = "\n".join(lines[i : j + 1])
        try:
            msg = SignedMessage.from_text(block, source=where)
            msg.seq, msg.game, msg.side  # noqa: B018 - the body must be readable to be sorted
        except PbemError as err:
            scan.unreadable.append((where, str(err)))
        else:
            scan.found.append(Found(where, msg, summary_above(lines, i)))
        i = j + 1
    return scan


def summary_above(lines: Sequence[str], begin: int) -> str:
    """The ``| `` summary lines just above a BEGIN line (they are not
    signed), of ``lines`` with mail quoting and surrounding blanks removed."""
    kept: list[str] = []
    k = begin - 1
    while k >= 0 and (lines[k].startswith("|") or lines[k] == SUMMARY_HEAD or not lines[k]):
        if lines[k] == SUMMARY_HEAD:
            break
        if lines[k]:  # blank lines: an HTML body's <br> and newline both made one
            kept.append(lines[k][2:] if lines[k].startswith("| ") else lines[k][1:])
        k -= 1
    return "\n".join(reversed(kept))


# --------------------------------------------------------------------------- mail


def looks_like_mail(data: bytes) -> bool:
    """True if ``data`` starts with RFC 5322 header fields (an .eml, or a
    message piped from a mail client)."""
    head = data.lstrip(b"\r\n")[:4096]
    first = head.split(b"\n", 1)[0]
    if not _HEADER.match(first):
        return False
    fields = [line.lower() for line in head.split(b"\n") if _HEADER.match(line)]
    return any(f.startswith(_MAIL_FIELDS) for f in fields)


def looks_like_mbox(data: bytes) -> bool:
    return data.startswith(b"From ")


def html_to_text(markup: str) -> str:
    """Enough of an HTML body's text to find an armoured block pasted in it."""
    markup = _without_scripts(markup)
    markup = _BLOCK_TAGS.sub("\n", markup)
    return html.unescape(_TAG.sub("", markup)).replace("\xa0", " ")


def _without_scripts(markup: str) -> str:
    """``markup`` without its ``<script>`` and ``<style>`` elements; one
    left open runs to the end, as in a browser.  One pass: each closing tag
    is looked for once, from its opening on (a lazy ``<script.*?</script>``
    looks again from every opening, so 32,000 unclosed ones took 30 s)."""
    kept: list[str] = []
    at = 0
    while opening := _SCRIPT_OPEN.search(markup, at):
        kept.append(markup[at:opening.start()])
        closing = _SCRIPT_CLOSE[opening.group(1).lower()].search(markup, opening.end())
        if closing is None:
            return "".join(kept)
        at = closing.end()
    kept.append(markup[at:])
    return "".join(kept)


def _describe(msg: Message) -> str:
    subject = str(msg.get("subject", "") or "").strip()
    sender = str(msg.get("from", "") or "").strip()
    bits = [f'"{subject[:60]}"' if subject else "", f"from {sender[:60]}" if sender else ""]
    return " ".join(b for b in bits if b)


def _part_text(part: Message) -> str | None:
    try:
        decoded = part.get_payload(decode=True)  # bytes; None for a multipart
    except Exception:  # noqa: BLE001 - a broken transfer encoding: try the raw text
        decoded = None
    payload = decoded if isinstance(decoded, bytes) else None
    if payload is None:
        raw = part.get_payload()
        if not isinstance(raw, str):
            return None
        payload = raw.encode("utf-8", errors="replace")
    charset = part.get_content_charset() or "utf-8"
    try:
        text = payload.decode(charset, errors="replace")
    except LookupError:
        text = payload.decode("utf-8", errors="replace")
    if part.get_content_type() == "text/html":
        text = html_to_text(text)
    return text


def blocks_in_mail(data: bytes | Message, origin: str) -> Scan:
    """Every armoured block in one email: each text part and attachment,
    decoded from its transfer encoding (base64, quoted-printable, 7bit,
    8bit), forwarded messages included."""

    if isinstance(data, bytes):  # docs/protocol.md 12, limit 14: before the parser can recurse
        problem = mail_nesting_problem(data)
        if problem:
            raise InputError(f"{origin}: {problem}")
    try:
        return _blocks_in_mail(data, origin)
    except RecursionError as err:  # deep in a way the count above did not see: the same refusal
        raise InputError(f"{origin}: {mail_too_deep('the email')}") from err


def _blocks_in_mail(data: bytes | Message, origin: str) -> Scan:
    import email
    import email.policy

    msg = email.message_from_bytes(data, policy=email.policy.default) if isinstance(data, bytes) else data
    described = _describe(msg)
    base = f"{origin} ({described})" if described else origin
    scan = Scan()
    seen: set[bytes] = set()
    for number, part in enumerate(msg.walk()):
        if part.is_multipart():
            continue
        if part.get_content_type().startswith(_SKIP_TYPES):
            continue
        text = _part_text(part)
        if not text or BEGIN not in text:
            continue
        name = part.get_filename()
        where = f"{base}, attachment {name}" if name else f"{base}, part {number}" if number else base
        found = blocks_in_text(text, where)
        for item in found.found:
            if item.message.body_bytes not in seen:  # the same block in text/plain and text/html
                seen.add(item.message.body_bytes)
                scan.found.append(item)
        scan.unreadable += found.unreadable
    if not scan.found and not scan.unreadable:  # a mail client's odd structure: read it raw
        raw = data if isinstance(data, bytes) else msg.as_bytes()
        scan = blocks_in_text(raw, base)
    return scan


def _mailbox_messages(box: mailbox.Mailbox, keys: Iterable[str], scan: Scan, name: str) -> Iterator[tuple[int, bytes]]:
    """Each message of the mbox ``box`` with its number, read no further
    than the input limit: one over it is noted in ``scan.unreadable`` and
    skipped."""

    for number, key in enumerate(keys, 1):
        handle = box.get_file(key)
        try:
            data = handle.read(MAX_INPUT_BYTES + 1)
        finally:
            handle.close()
        if len(data) > MAX_INPUT_BYTES:
            scan.unreadable.append((f"{name} #{number}", input_too_large("the email", len(data), over=True)))
            continue
        yield number, data


def _mailbox_message(data: bytes, origin: str) -> Scan:
    """One message of a mailbox; one nested too deeply is noted as unreadable, and the others are still read."""
    try:
        return blocks_in_mail(data, origin)
    except InputError as err:
        return Scan(unreadable=[(origin, str(err).removeprefix(f"{origin}: "))])


def blocks_in_mbox(path: Path) -> Scan:
    """Every armoured block in every message of an mbox file, in file order."""
    import mailbox

    box = mailbox.mbox(str(path), create=False)
    scan = Scan()
    try:
        for number, data in _mailbox_messages(box, box.keys(), scan, path.name):
            scan.extend(_mailbox_message(data, f"{path.name} #{number}"))
    finally:
        box.close()
    return scan


def is_maildir(path: Path) -> bool:
    return path.is_dir() and (path / "cur").is_dir() and (path / "new").is_dir()


def maildir_messages(path: Path) -> list[tuple[str, Path]]:
    """The messages of the Maildir folder ``path`` (``new`` and ``cur``) as
    ``(key, file)``, in delivery order; the key is the file's name without
    the flags a mail client adds (``:2,S``), as :mod:`mailbox` names it."""
    import mailbox

    found: list[tuple[str, Path]] = []
    for sub in ("new", "cur"):
        try:
            with os.scandir(path / sub) as entries:
                names = [entry.name for entry in entries if not entry.name.startswith(".")]
        except OSError as err:
            raise InputError(f"cannot read the Maildir folder {path}: {err.strerror or err}") from err
        found += [(name.split(mailbox.Maildir.colon, 1)[0], path / sub / name) for name in names]
    return sorted(found, key=lambda item: delivery_order(item[0]))


def maildir_message(file: Path) -> bytes | str:
    """The bytes of one Maildir message, or why it is not read: a file
    that is not a regular one (a FIFO, a device, a link to one) or one over
    the input limit is refused by its size before a byte is read.  Raises
    FileNotFoundError when a mail client moved it meanwhile."""


    info = file.stat()
    if not stat.S_ISREG(info.st_mode):
        return "the email is not a regular file; pbem reads only regular files"
    if info.st_size > MAX_INPUT_BYTES:
        return input_too_large("the email", info.st_size)
    with file.open("rb") as handle:
        data = read_at_most(handle, info.st_size)
    return data if len(data) <= MAX_INPUT_BYTES else input_too_large("the email", len(data), over=True)


def blocks_in_maildir(path: Path) -> Scan:
    """Every armoured block in a Maildir folder (``new`` and ``cur``), in
    delivery order (Maildir names start with the delivery time)."""
    scan = Scan()
    for number, (_, file) in enumerate(maildir_messages(path), 1):
        origin = f"{path.name} #{number}"
        try:
            data = maildir_message(file)
        except FileNotFoundError:  # moved by a mail client while we looked
            continue
        except OSError as err:
            scan.unreadable.append((origin, f"cannot read {file.name}: {err.strerror or err}"))
            continue
        if isinstance(data, str):
            scan.unreadable.append((origin, data))
            continue
        scan.extend(_mailbox_message(data, origin))
    return scan


def delivery_order(key: str) -> tuple[float, int, int, str]:
    """Maildir names are ``SECONDS.M<microseconds>P<pid>Q<counter>.host`` (or
    ``SECONDS.<anything>``): order by the seconds, then the microseconds and
    the counter as numbers (``M99999`` before ``M123456``), then the name."""

    head, _, rest = key.partition(".")
    try:
        seconds = float(head)
    except ValueError:
        seconds = float("inf")
    micro = re.search(r"M(\d+)", rest.split(".", 1)[0])
    counter = re.search(r"Q(\d+)", rest.split(".", 1)[0])
    return seconds, int(micro.group(1)) if micro else 0, int(counter.group(1)) if counter else 0, key


# --------------------------------------------------------------------------- sources


def scan_bytes(data: bytes, origin: str) -> Scan:
    """Text of unknown kind (a file, standard input): mbox, email or plain text."""
    if looks_like_mbox(data):
        with tempfile.NamedTemporaryFile(suffix=".mbox") as handle:
            handle.write(data)
            handle.flush()
            scan = blocks_in_mbox(Path(handle.name))
        for i, item in enumerate(scan.found):  # name the source, not the temporary file
            scan.found[i] = Found(item.origin.replace(Path(handle.name).name, origin, 1), item.message, item.summary)
        scan.unreadable = [(o.replace(Path(handle.name).name, origin, 1), why) for o, why in scan.unreadable]
        return scan
    if looks_like_mail(data):
        return blocks_in_mail(data, origin)
    return blocks_in_text(data, origin)


def scan_source(source: str | Path, *, stdin: bytes | None = None) -> Scan:
    """Every armoured block in one source: ``-`` (standard input, given as
    ``stdin``), a Maildir folder, an mbox file, an ``.eml`` or any text file."""
    if str(source) == STDIN:
        if stdin is None:
            raise InputError("'-' reads standard input, but no input was given")
        scan = scan_bytes(stdin, "standard input")
        scan.sources.append("standard input")
        return scan
    path = Path(source)
    if path.is_dir():
        if not is_maildir(path):
            raise InputError(f"{path}: a directory is read as a Maildir folder, but it has no cur/ and new/")
        scan = blocks_in_maildir(path)
    else:
        try:
            with path.open("rb") as handle:
                head = handle.read(5)
        except OSError as err:
            raise InputError(f"cannot read {path}: {err.strerror}") from err
        if looks_like_mbox(head):  # a mailbox may be large: the limit holds for each of its messages
            scan = blocks_in_mbox(path)
        else:
            data = read_input(path)
            scan = blocks_in_mail(data, path.name) if path.suffix.lower() == ".eml" else scan_bytes(data, path.name)
    scan.sources.append(str(path))
    return scan


def scan_sources(sources: Iterable[str | Path], *, stdin: bytes | None = None) -> Scan:
    scan = Scan()
    for source in sources:
        scan.extend(scan_source(source, stdin=stdin))
    return scan


def messages_in(sources: Iterable[str | Path], *, stdin: bytes | None = None) -> list[tuple[Path, SignedMessage]]:
    """``(source, message)`` for every readable message in ``sources`` -- a
    drop-in for :func:`pbem.match.session.read_messages` that also reads
    mail.  Raises if a source holds no readable message at all."""
    found: list[tuple[Path, SignedMessage]] = []
    for source in sources:
        scan = scan_source(source, stdin=stdin)
        if not scan.found:
            nothing_in(scan, str(source))
        found += [(Path(str(source)), item.message) for item in scan.found]
    return found


def nothing_in(scan: Scan, what: str) -> None:
    if scan.unreadable:
        origin, why = scan.unreadable[0]
        raise IntegrityError(f"{origin}: {why}")
    raise InputError(f"{what}: no pbem message found (no '{BEGIN}' block in any part)")


__all__ = [
    "Found",
    "STDIN",
    "Scan",
    "blocks_in_mail",
    "blocks_in_maildir",
    "maildir_message",
    "maildir_messages",
    "blocks_in_mbox",
    "blocks_in_text",
    "is_maildir",
    "looks_like_mail",
    "looks_like_mbox",
    "messages_in",
    "nothing_in",
    "scan_bytes",
    "scan_source",
    "scan_sources",
]
