"""Mail from an IMAP server: the new messages of one folder, and a wait for
the next one (IMAP IDLE, RFC 2177, where the server offers it; a poll
otherwise).  Standard library only (:mod:`imaplib`, :mod:`ssl`).

:class:`ImapSource` reads and never changes the mailbox: it fetches with
``BODY.PEEK[]``, so nothing it reads is marked ``\\Seen`` in the player's
mail client, and it deletes and moves nothing.  A message is known by
``"UIDVALIDITY:UID"``, stable across connections (RFC 3501 2.3.1.1); the
caller keeps the identifiers it has handled and hands them back to
:meth:`ImapSource.fetch_new`.

Security, as for SMTP (:mod:`pbem.mail.outbox`): TLS by default (IMAPS on
port 993; ``starttls`` on port 143), the server's certificate checked
against the system's CAs and its host name (``cafile`` adds a CA, for a
server with its own certificate).  The password is given by the caller
(``PBEM_IMAP_PASSWORD`` or a prompt, in the CLI), never stored, never in a
message or a log line; it is never sent unencrypted except to this machine
(loopback).
"""

from __future__ import annotations

import base64
import datetime
import imaplib
import io
import ipaddress
import math
import re
import select
import socket
import ssl
import time
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Iterator, Literal

from pbem.mail.outbox import LOOPBACK, MailError
from pbem.protocol import limits
from pbem.protocol.limits import input_too_large

PASSWORD_ENV = "PBEM_IMAP_PASSWORD"
DEFAULT_PORTS = {"ssl": 993, "starttls": 143, "none": 143}
IDLE_RENEW = 29 * 60  # RFC 2177 3: re-issue IDLE at least every 29 minutes (servers drop idlers after 30)

# What a server may send, and how slowly (issue 27: a hostile server must not exhaust memory or stall watch).
CHATTER_BYTES = 16 * 2**20  # the most one command but a message fetch may read (a SEARCH of 1e6 UIDs is ~7 MiB)
SLOWEST_RATE = 32 * 2**10  # bytes a second a message fetch may average: a 32 MiB message in ~17 minutes
STEP_TIMEOUTS = 4  # one command but a message fetch has this many socket timeouts to answer in all
NUMBER_MAX = 2**32 - 1  # RFC 3501 9: number and nz-number are unsigned 32-bit integers
_NUMBER = re.compile(rb"[0-9]{1,10}")

_UNTRUSTED_HINT = (
    "if this server has its own (self-signed) certificate, trust it by giving its CA certificate "
    "(a PEM file) as cafile, or set SSL_CERT_FILE"
)
_NEWS = re.compile(rb"^\* (\d+) (EXISTS|RECENT)\b", re.IGNORECASE)
_BYE = re.compile(rb"^\* BYE\b ?(.*)", re.IGNORECASE)
_LITERAL = re.compile(rb"\{(\d+)\+?\}\r?\n?$")
_UID = re.compile(rb"\bUID (\d+)", re.IGNORECASE)
_SIZE = re.compile(rb"\bRFC822\.SIZE ([^\s)]+)", re.IGNORECASE)  # whatever it is: _number() tells
_LIST = re.compile(rb'^\((?P<flags>[^)]*)\) (?:"(?:[^"\\]|\\.)*"|NIL) (?P<name>.+)$', re.IGNORECASE)


class _Dropped(Exception):
    """The server closed the connection, or said BYE (internal)."""


def is_loopback(host: str) -> bool:
    """This machine: ``localhost`` or a loopback address (127.0.0.0/8, ::1)."""
    if host in LOOPBACK:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def mailbox_name(folder: str) -> str:
    """A folder name as an IMAP astring: modified UTF-7 (RFC 3501 5.1.3)
    for what is not printable ASCII, then :func:`quoted`."""
    out: list[str] = []
    wide: list[str] = []

    def flush() -> None:
        if wide:
            packed = base64.b64encode("".join(wide).encode("utf-16-be")).decode("ascii")
            out.append("&" + packed.rstrip("=").replace("/", ",") + "-")
            wide.clear()

    for ch in folder:
        if " " <= ch <= "~":
            flush()
            out.append("&-" if ch == "&" else ch)
        else:
            wide.append(ch)
    flush()
    return quoted("".join(out))


def quoted(text: str) -> str:
    """An IMAP quoted string (RFC 3501 4.3): in quotes, ``\\`` and ``"`` escaped."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _text(err: BaseException) -> str:
    """imaplib's error text: the server's words, bytes decoded, without b'...'."""
    if isinstance(err, OSError) and not isinstance(err, ssl.SSLError):
        return err.strerror or str(err) or type(err).__name__
    arg = err.args[0] if err.args else ""
    return _said(arg if isinstance(arg, bytes) else str(arg), 200) or type(err).__name__


def _decoded(data: object) -> str:
    if isinstance(data, (list, tuple)):
        data = data[-1] if data else b""
    if isinstance(data, bytes):
        return data.decode("utf-8", errors="replace").strip()
    return "" if data is None else str(data)


def _number(text: bytes | str) -> int | None:
    """An IMAP number (RFC 3501 9: ASCII digits, unsigned 32-bit), or None:
    ``"²"`` or 5,000 digits are not one (``int()`` would take the first and
    refuse the second with a ValueError)."""
    raw = text.encode("ascii", errors="replace") if isinstance(text, str) else text
    if not _NUMBER.fullmatch(raw):
        return None
    value = int(raw)
    return value if value <= NUMBER_MAX else None


def _said(data: object, width: int = 120) -> str:
    """What the server said, for a message: decoded, and cut to ``width``
    characters (a server may send a line of a megabyte)."""
    text = _decoded(data)
    return text if len(text) <= width else f"{text[:width]}... ({len(text):,} characters)"


def _uid_set(uids: list[int]) -> str:
    """Sorted UIDs as an IMAP sequence set: ``3:5,9``."""
    parts: list[str] = []
    start = prev = uids[0]
    for uid in uids[1:] + [0]:
        if uid != prev + 1:
            parts.append(f"{start}" if start == prev else f"{start}:{prev}")
            start = uid
        prev = uid
    return ",".join(parts)


class _Refused(Exception):
    """The server broke a bound pbem keeps on what it reads (internal)."""


class _Oversized(_Refused):
    """The server sent a literal over the input limit (internal)."""


class _PacedReader(io.RawIOBase):
    """The socket as imaplib reads it, with the bounds of one command: a
    deadline for the whole answer (a socket timeout alone lets a server
    send one byte every 20 seconds forever) and an allowance of bytes (a
    server may send untagged responses without end)."""

    def __init__(self, sock: socket.socket, guard: "_Guard"):
        super().__init__()
        self._sock, self._guard = sock, guard

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: "memoryview | bytearray") -> int | None:  # type: ignore[override]
        sock, guard = self._sock, self._guard
        timeout = sock.gettimeout()
        if timeout == 0.0:  # a look without waiting (IDLE): as socket.SocketIO does
            try:
                count = sock.recv_into(buffer)
            except BlockingIOError:
                return None
        else:
            remaining = guard.deadline - time.monotonic()
            if remaining <= 0:
                raise _Refused(f"answered too slowly: no whole answer in {guard.seconds:,.0f} s")
            sock.settimeout(remaining if timeout is None else min(timeout, remaining))
            try:
                count = sock.recv_into(buffer)
            except socket.timeout:
                if time.monotonic() >= guard.deadline:
                    raise _Refused(f"answered too slowly: no whole answer in {guard.seconds:,.0f} s") from None
                raise
            finally:
                sock.settimeout(timeout)
        guard.allowance -= count
        if guard.allowance < 0:
            raise _Refused(f"sent more than the {guard.granted / 2**20:,.0f} MiB pbem reads for one answer")
        return count


if TYPE_CHECKING:  # what _Guard is mixed into, for its calls on imaplib's methods
    _MixedInto = imaplib.IMAP4
else:
    _MixedInto = object


class _Guard(_MixedInto):
    """imaplib, bounded (mixed into :class:`imaplib.IMAP4` and
    :class:`imaplib.IMAP4_SSL` through the hooks imaplib documents for
    overriding: ``open``, ``read``): every byte is read through a
    :class:`_PacedReader`, and a literal (``{n}``) over the input limit is
    refused before it is read -- imaplib would allocate ``n`` bytes for it,
    ``{999999999999}`` a MemoryError."""

    deadline: float = math.inf
    seconds: float = math.inf
    allowance: float = math.inf
    granted: float = math.inf
    sock: socket.socket
    file: "io.BufferedReader"

    def __init__(self, *args: Any, seconds: float, allowance: int, **kwargs: Any):
        self.arm(seconds, allowance)  # the greeting and the capabilities come in __init__
        super().__init__(*args, **kwargs)

    def arm(self, seconds: float, allowance: float) -> None:
        """The bounds of the next command's answer."""
        self.seconds, self.deadline = seconds, time.monotonic() + seconds
        self.granted = self.allowance = allowance

    def open(self, host: str = "", port: int = 0, timeout: float | None = None) -> None:
        super().open(host, port, timeout)
        self._pace()

    def starttls(self, ssl_context: ssl.SSLContext | None = None) -> tuple[Literal["OK"], list[None]]:
        answer = super().starttls(ssl_context)
        self._pace()  # imaplib made a new file of the TLS socket
        return answer

    def _pace(self) -> None:
        self.file = io.BufferedReader(_PacedReader(self.sock, self))

    def read(self, size: int) -> bytes:
        if size > limits.MAX_INPUT_BYTES:
            raise _Oversized(input_too_large("the email", size))
        return super().read(size)


class _IMAP4(_Guard, imaplib.IMAP4):
    pass


# misc: _Guard's file (the bounded reader) and open differ from IMAP4_SSL's, which they replace
class _IMAP4_SSL(_Guard, imaplib.IMAP4_SSL):  # type: ignore[misc]
    pass


class ImapSource:
    """One folder of an IMAP mailbox, read for new mail.

    >>> source = ImapSource("imap.example.org", "ann", password)   # doctest: +SKIP
    >>> with source:                                                # connects
    ...     seen = set()
    ...     while True:
    ...         for ident, raw in source.fetch_new(seen):
    ...             seen.add(ident)                                 # b"" when over the size limit
    ...         source.wait(25 * 60)

    ``security`` is ``"ssl"`` (IMAPS, default port 993), ``"starttls"``
    (default port 143), or ``"none"`` -- refused unless ``host`` is this
    machine.  Every failure is a :class:`~pbem.mail.outbox.MailError` that
    names the server and the step.
    """

    #: never IDLE, even where the server offers it: :meth:`wait` polls
    poll_only: bool = False

    def __init__(
        self,
        host: str,
        user: str,
        password: str,
        *,
        port: int = 0,
        folder: str = "INBOX",
        security: str = "ssl",
        cafile: str | None = None,
        timeout: float = 30.0,
        since: "datetime.date | None" = None,
    ) -> None:
        if security not in DEFAULT_PORTS:
            raise MailError(f"IMAP security {security!r}: give 'ssl' (IMAPS, port 993), 'starttls' (port 143) "
                            f"or 'none' (only for a server on this machine)")
        if not host:
            raise MailError("no IMAP host given")
        if not user:
            raise MailError(f"no IMAP user given for {host}")
        if security == "none" and not is_loopback(host):
            raise MailError(
                f"refusing to send the IMAP password of {user} to {host} unencrypted: use security 'ssl' "
                f"(IMAPS, port 993) or 'starttls' (port 143); 'none' is only for a server on this machine"
            )
        self.host = host
        self.user = user
        self.port = int(port) or DEFAULT_PORTS[security]
        self.folder = folder
        self.security = security
        self.cafile = str(cafile) if cafile else None
        self.timeout = timeout
        self.since = since  # mail that arrived before this day is never fetched (a full INBOX's first look)
        self.__password = password  # name-mangled: kept for connect() only, never shown
        shown = f"[{host}]" if ":" in host else host
        self.name = f"imap://{user}@{shown}:{self.port}/{folder}"
        self.uidvalidity: int | None = None
        self.capabilities: frozenset[str] = frozenset()
        self._imap: _Guard | None = None
        self._idle_tags = 0

    def __repr__(self) -> str:
        return f"ImapSource({self.name!r})"

    # ----------------------------------------------------------------------- connection

    @property
    def where(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def connected(self) -> bool:
        return self._imap is not None

    @property
    def idles(self) -> bool:
        """Whether :meth:`wait` uses IDLE: the server lists it (after login)
        and :attr:`poll_only` is not set."""
        return "IDLE" in self.capabilities and not self.poll_only

    def connect(self) -> None:
        """Connect, secure the connection, log in and select the folder.
        Connected already: the old connection is closed first."""
        self.close()
        context = self._tls_context() if self.security != "none" else None
        seconds, allowance = self._step_seconds, CHATTER_BYTES
        with self._step("connecting"):
            if self.security == "ssl":
                imap: _Guard = _IMAP4_SSL(self.host, self.port, ssl_context=context, timeout=self.timeout,
                                          seconds=seconds, allowance=allowance)
            else:
                imap = _IMAP4(self.host, self.port, timeout=self.timeout, seconds=seconds, allowance=allowance)
        self._imap = imap
        if self.security == "starttls":
            with self._step("STARTTLS"):
                if "STARTTLS" not in imap.capabilities:
                    raise MailError(f"IMAP server {self.where} does not offer STARTTLS: use security 'ssl' "
                                    f"(IMAPS, port 993)")
                imap.starttls(ssl_context=context)
        with self._step("login"):
            if "AUTH=PLAIN" in imap.capabilities:  # UTF-8 and any character in the password (RFC 4616)
                secret = self.__password
                imap.authenticate("PLAIN", lambda _challenge: f"\0{self.user}\0{secret}".encode("utf-8"))
            elif not (self.user + self.__password).isascii():
                raise MailError(f"IMAP server {self.where} offers only LOGIN (no AUTH=PLAIN), which takes no "
                                f"user name or password outside ASCII: cannot log in as {self.user}")
            else:  # imaplib quotes the password, not the user name
                imap.login(quoted(self.user), self.__password)
        with self._step("reading capabilities"):
            typ, data = imap.capability()  # they may change at login (RFC 3501 7.2.1)
            if typ == "OK" and data and data[-1]:
                self.capabilities = frozenset(_decoded(data).upper().split())
            else:
                self.capabilities = frozenset(imap.capabilities)
        with self._step("selecting the folder"):
            typ, data = imap.select(mailbox_name(self.folder))
            if typ != "OK":
                raise MailError(f"no folder {self.folder!r} for {self.user} at {self.where}{self._folders_hint()}; "
                                f"the server said: {typ} {_said(data)}")
            _, validity = imap.response("UIDVALIDITY")
            if not validity or not validity[-1]:
                raise MailError(f"IMAP server {self.where} gave no UIDVALIDITY for {self.folder!r}")
            self.uidvalidity = _number(_decoded(validity))
            if not self.uidvalidity:  # RFC 3501 9: an nz-number
                raise MailError(f"IMAP server {self.where} gave a UIDVALIDITY for {self.folder!r} that is not a "
                                f"32-bit number above 0: {_said(validity, 40)!r}")
            self._news()  # SELECT's own EXISTS and RECENT are not news

    def close(self) -> None:
        """Log out; never raises."""
        imap, self._imap = self._imap, None
        if imap is None:
            return
        try:
            imap.socket().settimeout(min(self.timeout, 5.0))
            imap.arm(min(self.timeout, 5.0), CHATTER_BYTES)
            imap.logout()
        except Exception:  # noqa: BLE001 - closing a connection that may be gone already
            try:
                imap.shutdown()
            except Exception:  # noqa: BLE001
                pass

    def __enter__(self) -> "ImapSource":
        if not self.connected:
            self.connect()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ----------------------------------------------------------------------- reading

    def fetch_new(self, seen: set[str]) -> Iterator[tuple[str, bytes | str]]:
        """Every message above the highest UID of ``seen`` (all of them when
        the folder's UIDVALIDITY is not the one of ``seen``), oldest first,
        as ``(ident, raw RFC 5322 bytes)``; ``ident`` is
        ``"UIDVALIDITY:UID"``.  Fetched with ``BODY.PEEK[]``, nothing is
        marked read, and one message at a time as the caller takes them: the
        caller keeps each before the next is read.  A message over
        :data:`pbem.protocol.limits.MAX_INPUT_BYTES` is not read -- by the
        size the server gives, or, when the server gave a smaller one, as
        soon as its literal says so -- and comes as ``(ident, why)``."""
        imap = self._require()
        with self._step("searching"):
            # A server answers from the mailbox as it last looked at it, and looks again (telling of new
            # mail) at the end of a command: NOOP has it look now (RFC 3501 6.1.2).  News after this is
            # of mail the search may not see, and is kept for wait().
            typ, data = imap.noop()
            if typ != "OK":
                raise MailError(f"NOOP at {self.name} refused: {_said(data)}")
            self._news()
            _, changed = imap.response("UIDVALIDITY")
            if changed and changed[-1] and (validity := _number(_decoded(changed))):
                self.uidvalidity = validity
            prefix = f"{self.uidvalidity}:"
            highest = max((uid for i in seen if i.startswith(prefix) and (uid := _number(i[len(prefix):]))),
                          default=0)
            criteria = f"UID {highest + 1}:*"
            if self.since is not None:  # RFC 3501 date: English month names whatever the locale
                month = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()[self.since.month - 1]
                criteria += f" SINCE {self.since.day}-{month}-{self.since.year}"
            typ, data = imap.uid("SEARCH", criteria)
            if typ != "OK":
                raise MailError(f"UID SEARCH in {self.name} refused: {_said(data)}")
            found = {uid for chunk in data if isinstance(chunk, bytes) for n in chunk.split()
                     if (uid := _number(n))}
            uids = sorted(u for u in found if u > highest and f"{prefix}{u}" not in seen)  # n:* holds the last
        if not uids:
            return
        with self._step("fetching sizes"):
            typ, data = imap.uid("FETCH", _uid_set(uids), "(RFC822.SIZE)")
            if typ != "OK":
                raise MailError(f"UID FETCH in {self.name} refused: {_said(data)}")
            sizes: dict[int, int | None] = {}
            for item in data:
                head = item[0] if isinstance(item, tuple) else item
                if isinstance(head, bytes) and (said_uid := _UID.search(head)) and (said_size := _SIZE.search(head)):
                    if (number := _number(said_uid.group(1))) is not None:
                        sizes[number] = _number(said_size.group(1))  # None: not a number, so no size we can trust
        for uid in uids:
            if uid not in sizes:  # expunged since the search
                continue
            ident, size = f"{prefix}{uid}", sizes[uid]
            if size is None or size > limits.MAX_INPUT_BYTES:
                yield ident, (input_too_large("the email", size) if size is not None else
                              f"the server gave no size for it that is a number; pbem reads at most "
                              f"{limits.MAX_INPUT_BYTES // 2**20} MiB an email")
                continue
            try:
                with self._step(f"fetching message {uid}", seconds=self._step_seconds + size / SLOWEST_RATE,
                                allowance=limits.MAX_INPUT_BYTES + 2**20):
                    typ, data = imap.uid("FETCH", str(uid), "(BODY.PEEK[])")
                    if typ != "OK":
                        raise MailError(f"UID FETCH {uid} in {self.name} refused: {_said(data)}")
                    raw = self._body(data, uid)
            except MailError as err:
                if not isinstance(err.__cause__, _Oversized):
                    raise
                yield ident, f"{err.__cause__} (the server had said {size:,} bytes)"
                self.connect()  # the literal is left unread: a connection of its own for the rest
                if f"{self.uidvalidity}:" != prefix:
                    return  # another folder now, as far as UIDs go: the next fetch starts over
                imap = self._require()
                continue
            if raw is None:
                continue
            yield ident, raw if len(raw) <= limits.MAX_INPUT_BYTES else input_too_large("the email", len(raw))

    @staticmethod
    def _body(data: list, uid: int) -> bytes | None:
        """The BODY[] literal of message ``uid`` in a UID FETCH answer
        (other FETCH responses the server sends unasked are passed by)."""
        bodies = [item for item in data if isinstance(item, tuple) and b"BODY[]" in item[0].upper()]
        for head, raw in bodies:
            match = _UID.search(head)
            if match and int(match.group(1)) == uid:
                return raw
        return bodies[0][1] if len(bodies) == 1 else None

    # ----------------------------------------------------------------------- waiting

    def wait(self, seconds: float) -> bool:
        """Block up to ``seconds`` until the server says new mail may be
        there: True then, False when the time ran out.  With IDLE (RFC
        2177) the server says so as mail arrives; without, this sleeps
        ``seconds`` and asks (NOOP) -- a poll.  Mail the server announced
        during the last :meth:`fetch_new` returns True at once."""
        self._require()
        if self._news():
            return True
        if not self.idles:
            return self._poll(seconds)
        deadline = time.monotonic() + max(0.0, seconds)
        while True:
            if self._idle(min(max(0.0, deadline - time.monotonic()), IDLE_RENEW)):
                return True
            if time.monotonic() >= deadline:
                return False
            if not self.idles:  # the server refused IDLE after all
                return self._poll(deadline - time.monotonic())

    def _poll(self, seconds: float) -> bool:
        time.sleep(max(0.0, seconds))
        imap = self._require()
        with self._step("polling"):
            typ, data = imap.noop()
            if typ != "OK":
                raise MailError(f"NOOP at {self.name} refused: {_said(data)}")
        return self._news()

    def _news(self) -> bool:
        """Whether an EXISTS or a RECENT (not 0) came since last asked; clears them.
        (imaplib keeps untagged responses; ``response()`` pops one.)"""
        imap = self._require()
        exists = imap.response("EXISTS")[1]
        recent = imap.response("RECENT")[1]
        return exists != [None] or any(r not in (None, b"0") for r in recent)

    def _idle(self, seconds: float) -> bool:
        """One IDLE command (RFC 2177): IDLE, the server's "+", untagged
        responses until one announces mail or ``seconds`` pass, DONE, the
        tagged OK.

        Python 3.11's imaplib has no idle() (3.14 adds one), and its
        command machinery wants a complete response per command, so this
        speaks the protocol itself over imaplib's public ``send()``,
        ``readline()``, ``read()`` and ``socket()``, with a tag of its own
        that imaplib never sees (its tags are 4 letters and a number; ours
        is ``pbemidleN``).  Waiting with a socket timeout would break the
        connection: after a timeout, the socket file imaplib reads through
        refuses every later read ("cannot read from timed out object").
        So the wait is ``select()`` on the socket, and data imaplib's
        buffered reader (``imap.file``, the one attribute used that is not
        documented) already holds is found with a non-blocking ``peek`` --
        a line may sit there, read along with the "+", while the socket
        itself has nothing more to say.
        """
        imap = self._require()
        self._idle_tags += 1
        tag = b"pbemidle%d" % self._idle_tags
        news = False
        with self._step("idling", seconds=seconds + self._step_seconds):
            imap.send(tag + b" IDLE\r\n")
            while True:  # the continuation; untagged responses may come first
                kind, text = self._idle_line(imap, tag)
                if kind == "+":
                    break
                if kind == "news":
                    news = True
                elif kind in ("OK", "NO", "BAD"):  # no IDLE here after all: poll from now on
                    self.capabilities = self.capabilities - {"IDLE"}
                    return news
            sock = imap.socket()
            deadline = time.monotonic() + seconds
            while not news:
                readable = bool(select.select([sock], [], [], 0)[0])
                chunk = self._buffered(imap, sock)
                if chunk:
                    kind, text = self._idle_line(imap, tag)
                    if kind == "news":
                        news = True
                    elif kind in ("OK", "NO", "BAD"):  # the server ended the IDLE itself
                        if kind == "OK":
                            return news
                        raise MailError(f"IDLE at {self.name} ended by the server: {kind} {text}")
                    continue
                if chunk == b"" and readable:  # readable, yet nothing to read: the end of the stream
                    raise _Dropped("the server closed the connection")
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                select.select([sock], [], [], remaining)
            imap.send(b"DONE\r\n")
            while True:
                kind, text = self._idle_line(imap, tag)
                if kind == "news":
                    news = True
                elif kind == "OK":
                    return news
                elif kind in ("NO", "BAD"):
                    raise MailError(f"IDLE at {self.name} failed: {kind} {text}")

    def _buffered(self, imap: _Guard, sock: socket.socket) -> bytes | None:
        """Without blocking: bytes ready to be read (imaplib's buffer, or the
        socket's), ``b""`` when none or at the end of the stream, None when
        TLS has half a record (more is on its way)."""
        sock.settimeout(0.0)
        try:
            return imap.file.peek(1)
        except (BlockingIOError, ssl.SSLWantReadError, ssl.SSLWantWriteError):
            return None
        finally:
            sock.settimeout(self.timeout)

    def _idle_line(self, imap: _Guard, tag: bytes) -> tuple[str, str]:
        """Read one response while idling: ``("+", ...)``, ``("news", ...)``
        (an EXISTS, or a RECENT but 0), the status of our tagged answer
        (``"OK"``, ``"NO"``, ``"BAD"``), or ``("other", ...)``."""
        line = imap.readline()
        if not line:
            raise _Dropped("the server closed the connection")
        first = line
        while literal := _LITERAL.search(line):  # an untagged response may carry a {n} literal
            size = _number(literal.group(1))
            if size is None:
                raise _Refused(f"sent a literal whose size is not a number: {_said(literal.group(1), 20)}")
            imap.read(size)
            line = imap.readline()
            if not line:
                raise _Dropped("the server closed the connection")
        text = _said(first)
        if first.startswith(b"+"):
            return "+", text
        if first.startswith(tag + b" "):
            status, _, rest = text[len(tag) + 1:].partition(" ")
            return (status.upper() if status.upper() in ("OK", "NO", "BAD") else "BAD"), rest
        if bye := _BYE.match(first):
            raise _Dropped("the server said BYE: " + bye.group(1).decode("utf-8", errors="replace").strip())
        if (news := _NEWS.match(first)) and not (news.group(2).upper() == b"RECENT" and news.group(1) == b"0"):
            return "news", text
        return "other", text

    # ----------------------------------------------------------------------- helpers

    def _require(self) -> _Guard:
        if self._imap is None:
            raise MailError(f"not connected to {self.name}: connect first (after a failure, connect again)")
        return self._imap

    def _tls_context(self) -> ssl.SSLContext:
        context = ssl.create_default_context()  # the system's CAs, host name checked
        if self.cafile:
            try:
                context.load_verify_locations(cafile=self.cafile)
            except (OSError, ssl.SSLError) as err:
                raise MailError(f"cannot read the CA file {self.cafile} for {self.where}: {err}") from err
        return context

    def _drop(self) -> None:
        imap, self._imap = self._imap, None
        if imap is not None:
            try:
                imap.shutdown()
            except Exception:  # noqa: BLE001 - already broken
                pass

    def _folders_hint(self) -> str:
        imap = self._imap
        try:
            typ, data = imap.list() if imap is not None else ("NO", [])
        except (imaplib.IMAP4.error, OSError):
            return ""
        names = []
        for item in data if typ == "OK" else []:
            match = _LIST.match(item) if isinstance(item, bytes) else None
            if match:
                names.append(match.group("name").decode("utf-8", errors="replace").strip('"'))
        return f" (its folders: {', '.join(sorted(names))})" if names else ""

    @property
    def _step_seconds(self) -> float:
        """How long one command may take to answer in all."""
        return STEP_TIMEOUTS * self.timeout

    @contextmanager
    def _step(self, step: str, *, seconds: float | None = None, allowance: int = CHATTER_BYTES) -> Iterator[None]:
        """Turn what imaplib, ssl and the socket raise into a MailError naming
        the server and ``step``, with the step's bounds armed: ``seconds``
        for its whole answer (:attr:`_step_seconds` unless given) and
        ``allowance`` bytes.  After a broken connection (or any failure
        while connecting or idling, where the protocol's state is unknown,
        or a bound broken) the source is disconnected: connect again."""
        fatal = step in ("connecting", "STARTTLS", "login", "reading capabilities", "selecting the folder",
                         "idling")
        if self._imap is not None:
            self._imap.arm(self._step_seconds if seconds is None else seconds, allowance)
        try:
            yield
        except _Refused as err:
            self._drop()
            raise MailError(f"IMAP server {self.where} {err} ({step}); disconnected") from err
        except MailError:
            if fatal:
                self._drop()
            raise
        except ssl.SSLCertVerificationError as err:
            self._drop()
            why = err.verify_message or err.reason or str(err)
            if err.verify_code in (62, 64):  # X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH
                raise MailError(f"TLS with IMAP server {self.where} failed ({step}): its certificate is not for "
                                f"{self.host} ({why}); connect by a name the certificate holds") from err
            raise MailError(f"TLS with IMAP server {self.where} failed ({step}): its certificate is not trusted "
                            f"({why}); {_UNTRUSTED_HINT}") from err
        except ssl.SSLError as err:
            self._drop()
            hint = ""
            if step == "connecting" and self.security == "ssl":
                hint = "; is this an IMAPS port? (for a plain IMAP port such as 143 use security 'starttls')"
            raise MailError(f"TLS with IMAP server {self.where} failed ({step}): {err.reason or err}{hint}") from err
        except _Dropped as err:
            self._drop()
            raise MailError(f"the connection to {self.name} dropped while {step}: {err}") from err
        except (imaplib.IMAP4.abort, OSError) as err:
            self._drop()
            if step == "connecting":
                raise MailError(f"cannot connect to IMAP server {self.where}: {_text(err)}") from err
            raise MailError(f"the connection to {self.name} dropped while {step}: {_text(err)}") from err
        except imaplib.IMAP4.error as err:
            if fatal:
                self._drop()
            if step == "login":
                raise MailError(f"IMAP login as {self.user} at {self.where} refused: {_text(err)}") from err
            if step == "connecting":
                raise MailError(f"{self.where} does not answer as an IMAP server: {_text(err)}") from err
            raise MailError(f"{step} at {self.name} failed: {_text(err)}") from err
        except ValueError as err:  # after ssl's (a certificate error is a ValueError too): imaplib's int() of a 5,000-digit literal size, and the like
            self._drop()
            raise MailError(f"IMAP server {self.where} sent what cannot be read ({step}): {_said(str(err))}; "
                            f"disconnected") from err


__all__ = ["ImapSource", "PASSWORD_ENV", "is_loopback", "mailbox_name", "quoted"]
