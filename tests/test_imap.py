"""pbem.mail.imap against a real IMAP server on loopback (dovecot, started
per test by tests/mailservers.py; skipped when it is not installed) and a
real SMTP server delivering to it (aiosmtpd)."""

from __future__ import annotations

import imaplib
import socket
import ssl
import threading
import time

import pytest
from mailservers import dovecot, dovecot_without_idle, message, smtp_server  # noqa: F401 - pytest fixtures

from pbem.mail.imap import ImapSource, is_loopback, mailbox_name
from pbem.mail.outbox import MailError
from pbem.protocol import limits


def raw_client(server, user: str = "ann") -> imaplib.IMAP4_SSL:
    """A plain imaplib connection of our own, to look at the mailbox behind the source's back."""
    client = imaplib.IMAP4_SSL(server.host, server.imaps_port,
                               ssl_context=ssl.create_default_context(cafile=str(server.cafile)), timeout=10)
    client.login(user, server.password(user))
    return client


def append(server, raw: bytes, user: str = "ann", folder: str = "INBOX") -> None:
    client = raw_client(server, user)
    try:
        typ, data = client.append(mailbox_name(folder), None, None, raw)
        assert typ == "OK", data
    finally:
        client.logout()


def flags(server, user: str = "ann") -> dict[int, str]:
    client = raw_client(server, user)
    try:
        client.select("INBOX", readonly=True)
        typ, data = client.uid("FETCH", "1:*", "(FLAGS)")
        assert typ == "OK", data
        out = {}
        for line in data:
            text = line.decode()
            out[int(text.split("UID ")[1].split()[0])] = text.split("FLAGS (")[1].split(")")[0]
        return out
    finally:
        client.logout()


def email_bytes(subject: str, body: str = "hello\n") -> bytes:
    return bytes(message("ann@pbem.test", "ann@pbem.test", subject, body))


def later(seconds: float, action) -> threading.Thread:
    thread = threading.Thread(target=lambda: (time.sleep(seconds), action()), daemon=True)
    thread.start()
    return thread


# --------------------------------------------------------------------------- connecting


def test_imaps_with_the_test_ca_connects_logs_in_and_selects(dovecot):
    source = dovecot.source("ann")
    assert source.name == f"imap://ann@127.0.0.1:{dovecot.imaps_port}/INBOX"
    with source:
        assert source.connected and isinstance(source.uidvalidity, int)
        assert source.idles and "IDLE" in source.capabilities
    assert not source.connected
    assert dovecot.password("ann") not in repr(source) + source.name


def test_an_untrusted_certificate_is_refused_saying_how_to_trust_it(dovecot, monkeypatch):
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    source = dovecot.source("ann", cafile=None)
    with pytest.raises(MailError) as err:
        source.connect()
    text = str(err.value)
    assert text.startswith(f"TLS with IMAP server 127.0.0.1:{dovecot.imaps_port} failed (connecting): "
                           "its certificate is not trusted (unable to get local issuer certificate)")
    assert "cafile" in text and "SSL_CERT_FILE" in text
    assert not source.connected


def test_a_ca_file_that_cannot_be_read_is_named(dovecot, tmp_path):
    (tmp_path / "not-a-cert.pem").write_text("hello\n")
    with pytest.raises(MailError, match=r"cannot read the CA file .*not-a-cert\.pem for 127\.0\.0\.1:"):
        dovecot.source("ann", cafile=str(tmp_path / "not-a-cert.pem")).connect()


def test_starttls_on_the_imap_port(dovecot):
    with dovecot.source("bob", security="starttls") as source:
        assert source.port == dovecot.imap_port
        assert isinstance(source._imap.socket(), ssl.SSLSocket)  # noqa: SLF001 - the connection is encrypted
        assert list(source.fetch_new(set())) == []


def test_plain_imap_is_allowed_to_this_machine_only(dovecot, monkeypatch):
    with dovecot.source("ann", security="none", cafile=None) as source:
        assert not isinstance(source._imap.socket(), ssl.SSLSocket)  # noqa: SLF001
        assert list(source.fetch_new(set())) == []

    def no_network(*args, **kwargs):
        raise AssertionError("connected")

    monkeypatch.setattr(socket, "create_connection", no_network)
    with pytest.raises(MailError) as err:
        ImapSource("imap.example.org", "ann", "hunter2", security="none").connect()
    assert str(err.value) == (
        "refusing to send the IMAP password of ann to imap.example.org unencrypted: use security 'ssl' "
        "(IMAPS, port 993) or 'starttls' (port 143); 'none' is only for a server on this machine")
    assert "hunter2" not in str(err.value)
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost") and is_loopback("127.1.2.3")
    assert not is_loopback("10.0.0.1") and not is_loopback("localhost.example.org")


def test_unknown_security_and_defaults():
    with pytest.raises(MailError, match="IMAP security 'tls': give 'ssl'"):
        ImapSource("imap.example.org", "ann", "pw", security="tls")
    assert ImapSource("imap.example.org", "ann", "pw").port == 993
    assert ImapSource("imap.example.org", "ann", "pw", security="starttls").port == 143


def test_tls_to_a_plain_port_and_no_server_at_all_say_what_failed(dovecot):
    plain = ImapSource(dovecot.host, "ann", "pw", port=dovecot.imap_port, cafile=str(dovecot.cafile))
    with pytest.raises(MailError, match=rf"TLS with IMAP server 127\.0\.0\.1:{dovecot.imap_port} failed "
                                        r"\(connecting\): .*is this an IMAPS port\?"):
        plain.connect()
    dovecot.stop()
    with pytest.raises(MailError, match=rf"^cannot connect to IMAP server 127\.0\.0\.1:{dovecot.imaps_port}: "
                                        r".*Connection refused"):
        dovecot.source("ann").connect()


def test_a_wrong_password_is_a_login_error_naming_the_user(dovecot):
    source = ImapSource(dovecot.host, "ann", "not-her-password", port=dovecot.imaps_port, cafile=str(dovecot.cafile))
    with pytest.raises(MailError) as err:
        source.connect()
    assert str(err.value) == (f"IMAP login as ann at 127.0.0.1:{dovecot.imaps_port} refused: "
                              "[AUTHENTICATIONFAILED] Authentication failed.")
    assert not source.connected


def test_without_auth_plain_the_login_command_is_used(dovecot, monkeypatch):
    import pbem.mail.imap as imap_module

    class WithoutAuthPlain(imap_module._IMAP4_SSL):
        def _connect(self):
            super()._connect()
            self.capabilities = tuple(c for c in self.capabilities if c != "AUTH=PLAIN")

    monkeypatch.setattr(imap_module, "_IMAP4_SSL", WithoutAuthPlain)
    with dovecot.source("ann") as source:
        assert list(source.fetch_new(set())) == []
    with pytest.raises(MailError, match=r"offers only LOGIN \(no AUTH=PLAIN\), which takes no user name or password "
                                        "outside ASCII: cannot log in as ann$"):
        ImapSource(dovecot.host, "ann", "pässword", port=dovecot.imaps_port, cafile=str(dovecot.cafile)).connect()


def test_no_such_folder_lists_the_folders_there(dovecot):
    with pytest.raises(MailError) as err:
        dovecot.source("ann", folder="Turns").connect()
    assert str(err.value).startswith(f"no folder 'Turns' for ann at 127.0.0.1:{dovecot.imaps_port} (its folders: "
                                     "INBOX); the server said: NO Mailbox doesn't exist: Turns")


def test_folder_names_are_quoted_and_in_modified_utf7(dovecot):
    assert mailbox_name("INBOX") == '"INBOX"'
    assert mailbox_name("Entwürfe") == '"Entw&APw-rfe"'  # RFC 3501 5.1.3
    assert mailbox_name("~peter/mail/台北/日本語") == '"~peter/mail/&U,BTFw-/&ZeVnLIqe-"'
    assert mailbox_name('A&B "x"\\') == '"A&-B \\"x\\"\\\\"'
    client = raw_client(dovecot)
    assert client.create(mailbox_name("Züge & Karten"))[0] == "OK"
    client.logout()
    append(dovecot, email_bytes("in a folder"), folder="Züge & Karten")
    with dovecot.source("ann", folder="Züge & Karten") as source:
        ((ident, raw),) = list(source.fetch_new(set()))
        assert b"Subject: in a folder" in raw


# --------------------------------------------------------------------------- reading


def test_fetch_new_returns_delivered_and_appended_mail_once_and_leaves_it_unread(dovecot, smtp_server):
    smtp_server.send("bob@pbem.test", "ann@pbem.test", message("bob@pbem.test", "ann@pbem.test", "by SMTP"))
    assert [r.rcpt_tos for r in smtp_server.received] == [["ann@pbem.test"]]
    append(dovecot, email_bytes("by APPEND"))
    with dovecot.source("ann") as source:
        got = list(source.fetch_new(set()))
        v = source.uidvalidity
        assert [ident for ident, _ in got] == [f"{v}:1", f"{v}:2"]
        assert b"Subject: by SMTP" in got[0][1] and b"Delivered-To: ann@pbem.test" in got[0][1]
        assert b"Subject: by APPEND" in got[1][1]
        seen = {ident for ident, _ in got}
        assert list(source.fetch_new(seen)) == []
        dovecot.deliver("ann", email_bytes("third"))
        ((ident, raw),) = list(source.fetch_new(seen))
        assert ident == f"{v}:3" and b"Subject: third" in raw
        seen.add(ident)
        assert list(source.fetch_new(seen)) == []
        assert [i for i, _ in list(source.fetch_new({f"{v + 1}:3"}))] == [f"{v}:1", f"{v}:2", f"{v}:3"]  # another UIDVALIDITY
    assert "\\Seen" not in " ".join(flags(dovecot).values())  # BODY.PEEK[]
    assert smtp_server.maildirs["bob"] and dovecot.mailboxes.messages("bob") == []


def test_a_message_over_the_size_limit_comes_with_why_it_was_not_read(dovecot, monkeypatch):
    monkeypatch.setattr(limits, "MAX_INPUT_BYTES", 4000)
    dovecot.deliver("ann", email_bytes("small"))
    dovecot.deliver("ann", email_bytes("big", ("x" * 70 + "\n") * 80))
    dovecot.deliver("ann", email_bytes("small again"))
    with dovecot.source("ann") as source:
        got = list(source.fetch_new(set()))
    v = source.uidvalidity
    assert [(ident, type(raw)) for ident, raw in got] == [(f"{v}:1", bytes), (f"{v}:2", str), (f"{v}:3", bytes)]
    assert got[1][1].startswith("the email is 0.0 MiB; pbem reads at most 0 MiB")


# --------------------------------------------------------------------------- waiting


def test_idle_wakes_up_when_mail_arrives(dovecot, smtp_server):
    with dovecot.source("ann") as source:
        assert list(source.fetch_new(set())) == []
        later(0.5, lambda: smtp_server.send("bob@pbem.test", "ann@pbem.test",
                                            message("bob@pbem.test", "ann@pbem.test", "while idling")))
        start = time.monotonic()
        assert source.wait(10) is True
        assert 0.4 < time.monotonic() - start < 2.5
        ((_, raw),) = list(source.fetch_new(set()))
        assert b"Subject: while idling" in raw


def test_idle_times_out_and_the_connection_goes_on(dovecot):
    with dovecot.source("ann") as source:
        start = time.monotonic()
        assert source.wait(0.5) is False
        assert 0.45 < time.monotonic() - start < 1.5
        dovecot.deliver("ann", email_bytes("after the timeout"))
        assert len(list(source.fetch_new(set()))) == 1
        assert source.wait(0) is False


def test_mail_seen_by_the_server_during_a_fetch_makes_wait_return_at_once(dovecot):
    with dovecot.source("ann") as source:
        list(source.fetch_new(set()))
        dovecot.deliver("ann", email_bytes("between"))
        source._imap.noop()  # noqa: SLF001 - any command: the server tells of the new message in its answer
        start = time.monotonic()
        assert source.wait(5) is True and time.monotonic() - start < 0.5


def test_a_server_without_idle_is_polled(dovecot_without_idle):
    server = dovecot_without_idle
    with server.source("ann") as source:
        assert "IDLE" not in source.capabilities and not source.idles
        start = time.monotonic()
        assert source.wait(0.3) is False
        assert time.monotonic() - start >= 0.3
        server.deliver("ann", email_bytes("polled"))
        assert source.wait(0.2) is True  # the NOOP after the sleep brings the news
        assert len(list(source.fetch_new(set()))) == 1


def test_poll_only_never_idles(dovecot):
    with dovecot.source("ann") as source:
        source.poll_only = True
        assert not source.idles
        later(0.1, lambda: dovecot.deliver("ann", email_bytes("polled")))
        start = time.monotonic()
        assert source.wait(0.6) is True
        assert time.monotonic() - start >= 0.6


def test_a_connection_dropped_while_idling_is_a_mail_error(dovecot):
    source = dovecot.source("ann")
    source.connect()
    later(0.3, lambda: dovecot.kick("ann"))
    with pytest.raises(MailError) as err:
        source.wait(5)
    assert str(err.value) == (f"the connection to imap://ann@127.0.0.1:{dovecot.imaps_port}/INBOX dropped while "
                              "idling: the server said BYE: Server shutting down.")
    assert not source.connected
    with pytest.raises(MailError, match="not connected to imap://ann@"):
        list(source.fetch_new(set()))
    source.close()
    source.close()  # never raises


def test_a_killed_server_is_a_dropped_connection_too(dovecot):
    with dovecot.source("ann") as source:
        later(0.3, dovecot.stop)
        with pytest.raises(MailError, match="dropped while idling: the server closed the connection"):
            source.wait(5)
