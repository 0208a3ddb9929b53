"""Real mail servers on loopback for the tests: dovecot for IMAP, aiosmtpd
for SMTP, sharing one set of mailboxes (ann and bob, each a Maildir).

Import the fixtures into a test module (pytest finds fixtures in a test
module's namespace; tests/conftest.py stays as it is)::

    from mailservers import dovecot, smtp_server  # noqa: F401 - pytest fixtures

Both fixtures of one test share the same mailboxes: mail sent through
``smtp_server`` to ``ann@pbem.test`` lands in ann's Maildir, which
``dovecot`` serves to ann.  ``smtp_server`` alone (no dovecot) is enough
for a Maildir source.

Everything listens on 127.0.0.1 only, on free ports, and lives in a short
temporary directory (unix socket paths are limited to 108 bytes, which
pytest's tmp_path can exceed) that is removed at teardown.  A ``mail``
symlink in the test's tmp_path points at it.

dovecot (Debian's ``dovecot-imapd``; .ci/run installs it, the tests skip
without) runs as a child ``dovecot -F -c CONF`` with a configuration of its
own (:func:`dovecot_conf`), never the system's.  Run as root it keeps
dovecot's own users for its login (``dovenull``) and internal
(``dovecot``) processes; mail access as root is refused by dovecot ("Mail
access not allowed for root"), so the mailboxes belong to ``nobody`` and
dovecot's mail processes run as that user.  Run as another user, all of it
runs as that user.
"""

from __future__ import annotations

import datetime
import grp
import ipaddress
import mailbox
import os
import pwd
import shutil
import signal
import smtplib
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from typing import Iterator

import pytest

HOST = "127.0.0.1"
DOMAIN = "pbem.test"
USERS = {"ann": "ann-imap-secret", "bob": "bob-imap-secret"}
NOT_INSTALLED = "dovecot-imapd not installed (.ci/run installs it)"
START_TIMEOUT = 15.0

#: the capabilities a dovecot without IDLE announces (dovecot_without_idle)
NO_IDLE_CAPABILITY = "IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE LITERAL+ UIDPLUS UNSELECT NAMESPACE CHILDREN"


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


# --------------------------------------------------------------------------- the mailboxes


@dataclass
class Mailboxes:
    """ann's and bob's Maildirs, owned by the user dovecot reads them as."""

    root: Path
    uid: int
    gid: int
    users: dict[str, str] = field(default_factory=lambda: dict(USERS))  # user -> password
    domain: str = DOMAIN

    def home(self, user: str) -> Path:
        return self.root / "home" / user

    def maildir(self, user: str) -> Path:
        return self.home(user) / "Maildir"

    @property
    def maildirs(self) -> dict[str, Path]:
        return {user: self.maildir(user) for user in self.users}

    def address(self, user: str) -> str:
        return f"{user}@{self.domain}"

    def user_of(self, address: str) -> str | None:
        """The user an address delivers to (its local part), or None."""
        local, _, domain = address.strip("<>").rpartition("@")
        local = local.lower()
        return local if local in self.users and domain.lower() == self.domain else None

    def create(self) -> None:
        (self.root / "home").mkdir(parents=True)
        os.chmod(self.root, 0o711)  # traversable by the mail processes' user, not listable
        os.chmod(self.root / "home", 0o711)
        for user in self.users:
            self.home(user).mkdir()
            mailbox.Maildir(self.maildir(user), create=True)
            for path in (self.home(user), *self.maildir(user).rglob("*"), self.maildir(user)):
                os.chown(path, self.uid, self.gid)
            os.chmod(self.home(user), 0o700)

    def deliver(self, user: str, raw: bytes) -> Path:
        """Put one message into ``user``'s Maildir (new/), as a local
        delivery agent does; readable by dovecot.  Returns its file."""
        box = mailbox.Maildir(self.maildir(user), create=False)
        key = box.add(raw)
        path = self.maildir(user) / "new" / key
        os.chown(path, self.uid, self.gid)
        return path

    def messages(self, user: str) -> list[bytes]:
        """Every message in ``user``'s Maildir (new and cur), as bytes."""
        box = mailbox.Maildir(self.maildir(user), create=False)
        return [box.get_bytes(key) for key in sorted(box.keys())]


def mail_owner() -> tuple[int, int]:
    """The user the mailboxes belong to: ``nobody`` when we are root
    (dovecot gives no mail access as root), else ourselves."""
    if os.geteuid() != 0:
        return os.getuid(), os.getgid()
    nobody = pwd.getpwnam("nobody")
    return nobody.pw_uid, nobody.pw_gid


_SHARED: dict[str, Mailboxes] = {}


def shared_mailboxes(request: pytest.FixtureRequest, tmp_path: Path) -> Mailboxes:
    """This test's mailboxes: made by the first fixture that asks (and
    removed at its teardown, after the others': pytest tears fixtures down
    in the reverse order it set them up)."""
    key = str(tmp_path)
    if key in _SHARED:
        return _SHARED[key]
    uid, gid = mail_owner()
    boxes = Mailboxes(Path(tempfile.mkdtemp(prefix="pbem-mail-")), uid, gid)
    boxes.create()
    _SHARED[key] = boxes
    link = tmp_path / "mail"
    if not link.exists():
        link.symlink_to(boxes.root, target_is_directory=True)

    def remove() -> None:
        _SHARED.pop(key, None)
        shutil.rmtree(boxes.root, ignore_errors=True)

    request.addfinalizer(remove)
    return boxes


# --------------------------------------------------------------------------- a certificate


def make_certificate(directory: Path) -> tuple[Path, Path, Path]:
    """A test CA and a server certificate it signs, for 127.0.0.1 and
    localhost: (ca.pem -- the cafile to trust --, server.pem, server.key)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = datetime.datetime.now(datetime.timezone.utc)
    start, end = now - datetime.timedelta(minutes=5), now + datetime.timedelta(days=1)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "pbem test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(start).not_valid_after(end)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                     data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                     crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, HOST)]))
        .issuer_name(ca_name).public_key(key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(start).not_valid_after(end)
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(HOST)),
                                                    x509.DNSName("localhost")]), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    ca_file, cert_file, key_file = directory / "ca.pem", directory / "server.pem", directory / "server.key"
    ca_file.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.touch(mode=0o600)
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return ca_file, cert_file, key_file


# --------------------------------------------------------------------------- dovecot


def dovecot_binary() -> str | None:
    """The dovecot master, if dovecot and its IMAP server are installed
    (Debian packages the IMAP binaries apart from dovecot-core)."""
    path = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/usr/local/sbin"])
    binary = shutil.which("dovecot", path=path)
    libexec = [Path(d) for d in ("/usr/lib/dovecot", "/usr/libexec/dovecot") if Path(d).is_dir()]
    if binary and libexec and not any((d / "imap").exists() for d in libexec):
        return None
    return binary


def dovecot_conf(work: Path, boxes: Mailboxes, *, imap_port: int, imaps_port: int, cert: Path, key: Path,
                 idle: bool = True) -> str:
    """A whole dovecot.conf for one test server: IMAP (STARTTLS) and IMAPS
    on 127.0.0.1, ann and bob in a passwd-file, Maildirs, logs to one file."""
    if os.geteuid() == 0:
        users = "default_login_user = dovenull\ndefault_internal_user = dovecot\ndefault_internal_group = dovecot\n"
    else:  # rootless dovecot: every process is us, nothing is chrooted
        me, group = pwd.getpwuid(os.getuid()).pw_name, grp.getgrgid(os.getgid()).gr_name
        users = (f"default_login_user = {me}\ndefault_internal_user = {me}\ndefault_internal_group = {group}\n"
                 "service imap-login {\n  chroot =\n}\nservice anvil {\n  chroot =\n}\n")
    capability = "" if idle else f"protocol imap {{\n  imap_capability = {NO_IDLE_CAPABILITY}\n}}\n"
    return f"""\
# pbem test server (tests/mailservers.py): 127.0.0.1 only, everything under {work}
base_dir = {work}/run
state_dir = {work}/state
instance_name = pbem-test-{imap_port}
log_path = {work}/dovecot.log
info_log_path = {work}/dovecot.log
protocols = imap
listen = {HOST}
shutdown_clients = yes
{users}first_valid_uid = {boxes.uid}
first_valid_gid = {boxes.gid}
mail_location = maildir:~/Maildir
ssl = yes
ssl_cert = <{cert}
ssl_key = <{key}
ssl_min_protocol = TLSv1.2
# the default: no password before TLS -- dovecot counts a connection from this machine to itself as secured
disable_plaintext_auth = yes
auth_mechanisms = plain
auth_verbose = yes
# a wrong password is answered at once, not after 2 s
auth_failure_delay = 0
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%n {work}/passwd
}}
userdb {{
  driver = passwd-file
  args = username_format=%n {work}/passwd
}}
service imap-login {{
  inet_listener imap {{
    address = {HOST}
    port = {imap_port}
  }}
  inet_listener imaps {{
    address = {HOST}
    port = {imaps_port}
    ssl = yes
  }}
}}
{capability}"""


class OnMailboxes:
    """What a server on the shared mailboxes tells of them."""

    mailboxes: Mailboxes

    @property
    def users(self) -> dict[str, str]:
        return self.mailboxes.users

    @property
    def maildirs(self) -> dict[str, Path]:
        return self.mailboxes.maildirs

    def address(self, user: str) -> str:
        return self.mailboxes.address(user)


@dataclass
class Dovecot(OnMailboxes):
    """A running dovecot: where it listens, whom it serves, its files."""

    mailboxes: Mailboxes
    work: Path
    imap_port: int
    imaps_port: int
    cafile: Path
    process: subprocess.Popen
    idle: bool = True
    host: str = HOST

    @property
    def conf(self) -> Path:
        return self.work / "dovecot.conf"

    @property
    def log(self) -> Path:
        return self.work / "dovecot.log"

    def password(self, user: str) -> str:
        return self.users[user]

    def deliver(self, user: str, raw: bytes) -> Path:
        return self.mailboxes.deliver(user, raw)

    def port(self, security: str) -> int:
        return self.imaps_port if security == "ssl" else self.imap_port

    def source(self, user: str = "ann", *, security: str = "ssl", **options):
        """An :class:`~pbem.mail.imap.ImapSource` for ``user`` here (not connected)."""
        from pbem.mail.imap import ImapSource

        options.setdefault("cafile", str(self.cafile))
        options.setdefault("timeout", 10.0)
        return ImapSource(self.host, user, self.password(user), port=self.port(security), security=security,
                          **options)

    def log_text(self) -> str:
        texts = [p.read_text(errors="replace") for p in (self.log, self.work / "dovecot.out") if p.exists()]
        return "\n".join(t for t in texts if t.strip())

    def kick(self, user: str) -> None:
        """Disconnect ``user``'s sessions as an administrator does (``doveadm
        kick``): the server says BYE to each."""
        doveadm = shutil.which("doveadm", path=str(Path(self.process.args[0]).parent) + os.pathsep
                               + os.environ.get("PATH", ""))
        if doveadm is None:
            pytest.skip("doveadm not installed (dovecot-core has it)")
        subprocess.run([doveadm, "-c", str(self.conf), "kick", user], check=True, capture_output=True, timeout=10)

    def stop(self) -> None:
        """Stop dovecot and every process it started, at once: they share a
        process group, and get a SIGKILL (the server's state is thrown away
        with its directory; a SIGTERM has the master wait a second for its
        children whenever a client has just left).  Clients see the
        connection close."""
        if self.process.poll() is not None:
            return
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait(10)


def start_dovecot(boxes: Mailboxes, *, idle: bool = True) -> Dovecot:
    binary = dovecot_binary()
    if binary is None:
        pytest.skip(NOT_INSTALLED)
    work = Path(tempfile.mkdtemp(prefix="dovecot-", dir=boxes.root))
    os.chmod(work, 0o711)  # the mail processes reach sockets in run/
    ca, cert, key = make_certificate(work)
    (work / "passwd").write_text("".join(
        f"{user}:{{PLAIN}}{password}:{boxes.uid}:{boxes.gid}::{boxes.home(user)}::\n"
        for user, password in boxes.users.items()))
    os.chmod(work / "passwd", 0o600)
    if os.geteuid() == 0:  # dovecot's auth process reads it as its internal user
        internal = pwd.getpwnam("dovecot")
        os.chown(work / "passwd", internal.pw_uid, internal.pw_gid)
    imap_port, imaps_port = free_port(), free_port()
    (work / "dovecot.conf").write_text(dovecot_conf(work, boxes, imap_port=imap_port, imaps_port=imaps_port,
                                                    cert=cert, key=key, idle=idle))
    with open(work / "dovecot.out", "wb") as out:
        process = subprocess.Popen([binary, "-F", "-c", str(work / "dovecot.conf")], stdout=out,
                                   stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    server = Dovecot(boxes, work, imap_port, imaps_port, ca, process, idle)
    deadline = time.monotonic() + START_TIMEOUT
    waiting = [imap_port, imaps_port]
    while waiting:
        if process.poll() is not None or time.monotonic() > deadline:
            server.stop()
            pytest.fail(f"dovecot did not start (exit {process.returncode}); {work}/dovecot.conf:\n"
                        f"{server.conf.read_text()}\nits log:\n{server.log_text()}", pytrace=False)
        try:
            with socket.create_connection((HOST, waiting[0]), timeout=1):
                waiting.pop(0)
        except OSError:
            time.sleep(0.05)
    return server


def _running(request: pytest.FixtureRequest, tmp_path: Path, idle: bool) -> Iterator[Dovecot]:
    if dovecot_binary() is None:
        pytest.skip(NOT_INSTALLED)
    failed_before = request.session.testsfailed
    server = start_dovecot(shared_mailboxes(request, tmp_path), idle=idle)
    try:
        yield server
    finally:
        if request.session.testsfailed > failed_before:  # the test failed: its server's log may say why
            capture = request.config.pluginmanager.getplugin("capturemanager")
            with capture.global_and_fixture_disabled():
                print(f"\n----- {server.log} -----\n{server.log_text()}")
        server.stop()


@pytest.fixture
def dovecot(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Dovecot]:
    """A real dovecot on 127.0.0.1: IMAPS (``imaps_port``) and IMAP with
    STARTTLS (``imap_port``), a certificate trusted through ``cafile``,
    users ann and bob (``users``: name -> password), their Maildirs
    (``maildirs``), IDLE on."""
    yield from _running(request, tmp_path, idle=True)


@pytest.fixture
def dovecot_without_idle(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Dovecot]:
    """The same, but its CAPABILITY lists no IDLE (``imap_capability``)."""
    yield from _running(request, tmp_path, idle=False)


# --------------------------------------------------------------------------- SMTP


@dataclass
class Received:
    """One message the SMTP server took: envelope and bytes as sent."""

    mail_from: str
    rcpt_tos: list[str]
    content: bytes


class MaildirDelivery:
    """An aiosmtpd handler: refuses unknown recipients, delivers each
    message to each recipient's Maildir, keeps a copy of what it took."""

    def __init__(self, boxes: Mailboxes):
        self.boxes = boxes
        self.received: list[Received] = []

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):  # noqa: N802 - aiosmtpd's hook
        if self.boxes.user_of(address) is None:
            return f"550 5.1.1 <{address}>: no such user here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 - aiosmtpd's hook name
        content = envelope.original_content or envelope.content
        if isinstance(content, str):
            content = content.encode("utf-8")
        stored = content.replace(b"\r\n", b"\n")  # a Maildir file has the machine's line ends
        for rcpt in envelope.rcpt_tos:
            trace = f"Return-Path: <{envelope.mail_from}>\nDelivered-To: {rcpt}\n".encode("utf-8")
            self.boxes.deliver(self.boxes.user_of(rcpt), trace + stored)
        self.received.append(Received(envelope.mail_from, list(envelope.rcpt_tos), content))
        return "250 OK delivered"


@dataclass
class SmtpServer(OnMailboxes):
    """aiosmtpd on 127.0.0.1 delivering to the shared Maildirs; no auth, no TLS."""

    mailboxes: Mailboxes
    handler: MaildirDelivery
    port: int
    host: str = HOST

    @property
    def received(self) -> list[Received]:
        return self.handler.received

    def send(self, sender: str, to: str, message: EmailMessage | bytes) -> None:
        """Send one message through this server (delivered when this returns)."""
        with smtplib.SMTP(self.host, self.port, timeout=10) as client:
            if isinstance(message, EmailMessage):
                client.send_message(message, from_addr=sender, to_addrs=[to])
            else:
                client.sendmail(sender, [to], message)


@pytest.fixture
def smtp_server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SmtpServer]:
    """An SMTP server (aiosmtpd) on 127.0.0.1 that delivers ``ann@pbem.test``
    and ``bob@pbem.test`` to their Maildirs (the ones ``dovecot`` serves)."""
    pytest.importorskip("aiosmtpd")
    from aiosmtpd.controller import Controller

    boxes = shared_mailboxes(request, tmp_path)
    handler = MaildirDelivery(boxes)
    controller = Controller(handler, hostname=HOST, port=free_port())
    controller.start()
    try:
        yield SmtpServer(boxes, handler, controller.port)
    finally:
        controller.stop()


def message(sender: str, to: str, subject: str, body: str = "hello\n") -> EmailMessage:
    """A small email."""
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, to, subject
    msg.set_content(body)
    return msg
