"""pbem mail: an .eml ready for any mail client, and delivery by SMTP to a
real server on loopback (aiosmtpd), read back with the standard library and
imported on the other side."""

from __future__ import annotations

import datetime
import email
import email.policy
import ipaddress
import json
import socket
import ssl
import tomllib

import pytest
from everyday_support import ROLL, SEAL, mail, play

from pbem.mail import outbox as mail_out


def read_eml(path) -> email.message.EmailMessage:
    return email.message_from_bytes(path.read_bytes(), policy=email.policy.default)


def test_mail_writes_an_eml_the_standard_library_reads_back(started, tmp_path):
    a, b = started
    sent = play(a, tmp_path, ROLL)
    eml = mail(a, "--to", "bob@example.org", "--from", "Ann <ann@example.org>")
    assert eml == a.game / "outbox" / "0002-first.eml"
    msg = read_eml(eml)
    assert msg["To"] == "bob@example.org" and msg["From"] == "Ann <ann@example.org>"
    assert msg["Subject"].startswith("[pbem dice ") and "0002 from first" in msg["Subject"]
    body = msg.get_body(("plain",)).get_content()
    assert "message 0002 from first" in body
    assert "[dice.roll] first declares 2d6 for 'charge'" in body
    assert "Next: message 0003 by second." in body
    assert "rolled when second's reply arrives" in body
    (attachment,) = list(msg.iter_attachments())
    assert attachment.get_filename() == "0002-first.pbem" and attachment.get_content_type() == "text/plain"
    assert attachment.get_content().replace("\r\n", "\n") == sent.read_text()  # the .eml is CRLF, as RFC 5322 has it
    assert attachment["Content-Transfer-Encoding"] == "7bit"  # a raw saved copy still holds the block
    # the other side reads the whole email, or joins/receives the raw file as it is
    r = b.run("import", b.game, eml)
    assert r.exit_code == 0, r.output and (b.game / "0002-first.pbem").exists()


def test_the_address_is_remembered_per_game_outside_the_message_files(started, tmp_path):
    a, _ = started
    play(a, tmp_path, ROLL)
    mail(a, "--to", "bob@example.org")
    assert tomllib.loads((a.game / "mail.toml").read_text())["to"] == "bob@example.org"
    again = read_eml(mail(a, "--out", tmp_path / "again.eml"))
    assert again["To"] == "bob@example.org"
    assert a.run("verify", a.game).exit_code == 0  # mail.toml and outbox/ are not message files
    assert a.run("show", a.game).exit_code == 0


def test_the_from_address_is_remembered_per_game_like_the_to(started, tmp_path):
    """Issue 17: --from once, then every .eml of the game has its From: (a
    mail kept to send by hand is ready to send)."""
    a, _ = started
    play(a, tmp_path, ROLL)
    first = read_eml(mail(a, "--to", "bob@example.org", "--from", "Ann Smith <ann@example.org>"))
    assert first["From"] == "Ann Smith <ann@example.org>"
    assert tomllib.loads((a.game / "mail.toml").read_text())["from"] == "Ann Smith <ann@example.org>"
    again = read_eml(mail(a, "--out", tmp_path / "again.eml"))
    assert again["From"] == "Ann Smith <ann@example.org>" and again["To"] == "bob@example.org"
    other = read_eml(mail(a, "--from", "ann@work.example", "--out", tmp_path / "other.eml"))
    assert other["From"] == "ann@work.example"  # a new --from replaces it
    assert tomllib.loads((a.game / "mail.toml").read_text())["from"] == "ann@work.example"


def test_no_sealed_value_reaches_the_mail(started, tmp_path):
    a, _ = started
    play(a, tmp_path, SEAL)
    raw = mail(a, "--to", "bob@example.org").read_bytes()
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    text = raw.decode() + "".join(part.get_content() for part in msg.walk() if not part.is_multipart())
    assert "dawn" not in text
    assert "seals a note in slot 'plan'" in text  # the public event is there


def test_a_game_by_eml_from_the_proposal_on(players, tmp_path):
    a, b = players
    r = a.run("new", a.game, "--game", "dice", "--as", "first", "--opponent", b.pub())
    assert r.exit_code == 0, r.output
    proposal = mail(a, "--to", "bob@example.org")
    assert proposal == a.game / "outbox" / "0000-first.eml"
    text = read_eml(proposal).get_body(("plain",)).get_content()
    assert "ann (first) proposes a game of dice to bob (second)" in text and "pbem join 0000-first.pbem" in text
    r = b.run("join", proposal, "--dir", b.game)  # the raw .eml holds the block as text (7bit)
    assert r.exit_code == 0, r.output
    reply = mail(b, "--to", "ann@example.org")
    assert reply.name == "0001-second.eml"
    assert a.run("import", a.game, reply).exit_code == 0
    r = a.run("mail", a.game)  # Ann holds Bob's 0001: her 0000 has been answered
    assert r.exit_code == 2 and "answered by second's 0001" in r.output and "--message 0" in r.output
    assert a.run("mail", a.game, "--message", "0").exit_code == 0
    r = a.run("mail", a.game, "--to", "not an address")
    assert r.exit_code == 2 and "not an email address" in r.output


def test_a_password_is_never_read_from_a_file_nor_sent_unencrypted(started, tmp_path):
    a, _ = started
    play(a, tmp_path, ROLL)
    (a.home / "mail.toml").write_text('[smtp]\nhost = "smtp.example.org"\nuser = "ann"\npassword = "hunter2"\n')
    r = a.run("mail", a.game, "--to", "bob@example.org", "--send")
    assert r.exit_code == 2 and "never reads a password from a file" in r.output
    (a.home / "mail.toml").write_text('[smtp]\nhost = "smtp.example.org"\nuser = "ann@example.org"\n')
    r = a.run("mail", a.game, "--to", "bob@example.org", "--send", "--no-starttls", PBEM_SMTP_PASSWORD="hunter2")
    assert r.exit_code == 2 and "unencrypted" in r.output
    outgoing = mail_out.build_email(a.game, to="bob@example.org")
    with pytest.raises(mail_out.MailError, match="no SMTP host"):
        mail_out.send(outgoing, mail_out.SmtpSettings(sender="ann@example.org"))


# --------------------------------------------------------------------------- a real SMTP server


class Inbox:
    """An aiosmtpd handler keeping what it is given."""

    def __init__(self):
        self.delivered: list[tuple[str, list[str], bytes]] = []

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 - aiosmtpd's hook name
        self.delivered.append((envelope.mail_from, list(envelope.rcpt_tos), envelope.content))
        return "250 OK"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def loopback_certificate(tmp_path):
    """A self-signed certificate for 127.0.0.1 and the CA file that trusts it."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "pbem test SMTP")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = tmp_path / "smtp-cert.pem", tmp_path / "smtp-key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_file, key_file


@pytest.fixture
def smtp_server(tmp_path):
    """An SMTP server on 127.0.0.1 with STARTTLS required and two accounts."""
    pytest.importorskip("aiosmtpd")
    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import AuthResult, LoginPassword

    accounts = {b"ann@example.org": b"ann-secret", b"bob@example.org": b"bob-secret"}

    def authenticator(server, session, envelope, mechanism, auth_data):
        ok = isinstance(auth_data, LoginPassword) and accounts.get(auth_data.login) == auth_data.password
        return AuthResult(success=ok, handled=False)  # not handled: the server answers 535

    cert_file, key_file = loopback_certificate(tmp_path)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert_file, key_file)
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port(), authenticator=authenticator,
                            tls_context=context, require_starttls=True, auth_required=True)
    controller.start()
    try:
        yield controller, inbox, cert_file
    finally:
        controller.stop()


def test_a_full_exchange_through_a_real_smtp_server_with_starttls(started, tmp_path, smtp_server):
    controller, inbox, ca_file = smtp_server
    a, b = started
    for player, me in ((a, "ann"), (b, "bob")):
        (player.home / "mail.toml").write_text(
            f'[smtp]\nhost = "127.0.0.1"\nport = {controller.port}\nstarttls = true\n'
            f'user = "{me}@example.org"\nfrom = "{me.title()} <{me}@example.org>"\n'
        )
    tls = {"SSL_CERT_FILE": str(ca_file)}

    def send(player, password, *extra):
        r = player.run("mail", player.game, "--send", *extra, PBEM_SMTP_PASSWORD=password, **tls)
        assert r.exit_code == 0, r.output
        assert f"via 127.0.0.1:{controller.port}" in r.output
        return inbox.delivered[-1]

    def receive(player, delivered, name):
        mail_from, rcpt, content = delivered
        eml = tmp_path / name
        eml.write_bytes(content)  # what the mail client saves
        msg = email.message_from_bytes(content, policy=email.policy.default)
        assert msg["X-Pbem-Game"]
        r = player.run("import", player.game, eml)
        assert r.exit_code == 0, r.output
        return mail_from, rcpt, msg

    play(a, tmp_path, ROLL)
    mail_from, rcpt, msg = receive(b, send(a, "ann-secret", "--to", "bob@example.org"), "in-bob-1.eml")
    assert mail_from == "ann@example.org" and rcpt == ["bob@example.org"]
    assert "declares 2d6" in msg.get_body(("plain",)).get_content()
    play(b, tmp_path, '[[order]]\ntype = "end"\n')
    mail_from, rcpt, _ = receive(a, send(b, "bob-secret", "--to", "ann@example.org"), "in-ann-1.eml")
    assert rcpt == ["ann@example.org"]
    play(a, tmp_path)  # the closing reply: the game is over
    receive(b, send(a, "ann-secret"), "in-bob-2.eml")  # the address was remembered
    for player in (a, b):
        r = player.run("verify", player.game, "--audit")
        assert r.exit_code == 0 and "VERIFIED" in r.output
    sent = tomllib.loads((a.game / "mail.toml").read_text())["sent"]
    assert sorted(sent) == ["0002", "0004"] and all("bob@example.org" in v for v in sent.values())
    assert len(inbox.delivered) == 3
    logs = [json.loads(p.run("log", p.game, "--json").output)["rolls"] for p in (a, b)]
    assert logs[0] == logs[1] and logs[0][0]["dice"] == "2d6"


def test_a_wrong_password_and_a_missing_starttls_are_clear_errors(started, tmp_path, smtp_server):
    controller, inbox, ca_file = smtp_server
    a, _ = started
    play(a, tmp_path, ROLL)
    args = ["--send", "--to", "bob@example.org", "--host", "127.0.0.1", "--port", str(controller.port),
            "--user", "ann@example.org", "--from", "ann@example.org"]
    r = a.run("mail", a.game, *args, PBEM_SMTP_PASSWORD="wrong", SSL_CERT_FILE=str(ca_file))
    assert r.exit_code == 2 and "SMTP login as ann@example.org at 127.0.0.1 failed" in r.output
    r = a.run("mail", a.game, *args, "--no-starttls", PBEM_SMTP_PASSWORD="ann-secret")
    assert r.exit_code == 2 and "offers no login on this connection" in r.output  # only after STARTTLS
    r = a.run("mail", a.game, *args)  # no password, and no terminal to ask at
    assert r.exit_code == 2 and "set PBEM_SMTP_PASSWORD" in r.output
    r = a.run("mail", a.game, *args, PBEM_SMTP_PASSWORD="ann-secret")  # a certificate nobody vouches for
    assert r.exit_code == 2 and "STARTTLS at SMTP server 127.0.0.1" in r.output and "CERTIFICATE_VERIFY_FAILED" in r.output
    assert inbox.delivered == []


def test_sending_without_tls_to_loopback_works_for_a_local_relay(started, tmp_path):
    pytest.importorskip("aiosmtpd")
    from aiosmtpd.controller import Controller

    a, b = started
    play(a, tmp_path, ROLL)
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        r = a.run("mail", a.game, "--send", "--to", "bob@example.org", "--from", "ann@example.org",
                  "--host", "127.0.0.1", "--port", str(controller.port), "--no-starttls")
    finally:
        controller.stop()
    assert r.exit_code == 0, r.output
    (_, _, content), = inbox.delivered
    r = b.run("import", b.game, "-", input=content.decode())
    assert r.exit_code == 0 and (b.game / "0002-first.pbem").exists()
    assert "next: message 0003 by second -- your move" in r.output


def test_an_older_message_sent_again_does_not_speak_for_the_game_now(started, tmp_path):
    """Issue 17: the mail of message 0002 sent again after the game moved on
    says so, instead of whose move it is now."""
    from conftest import exchange

    a, b = started
    exchange(a, b, tmp_path, ROLL)
    exchange(b, a, tmp_path, "")
    body = " ".join(read_eml(mail(a, "--to", "bob@example.org", "--message", "2")).get_body(("plain",)).get_content().split())
    assert "This is message 0002 sent again; the game has 4 messages now (the last, 0003, by second)." in body
    assert "Next: message" not in body
