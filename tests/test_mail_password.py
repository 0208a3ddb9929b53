"""Mail passwords from a command (mail.toml's password_command): the password
it prints logs in, a failing command is named with its exit status, and the
password is never shown."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from everyday_support import ROLL, play
from test_everyday_mail import smtp_server  # noqa: F401 - the fixture

from pbem.cli import main
from pbem.mail.password import PasswordCommandError, run_password_command

NO_ENV = {"PBEM_SMTP_PASSWORD": None, "PBEM_IMAP_PASSWORD": None}


def script(tmp_path: Path, name: str, body: str) -> str:
    """A command line running a small Python script (no shell)."""
    path = tmp_path / f"{name}.py"
    path.write_text(body)
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(path))}"


def toml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def test_the_first_line_of_its_output_is_the_password(tmp_path):
    command = script(tmp_path, "pw", "print('s3cret p\\u00e4ss\\r'); print('second line')")
    assert run_password_command(command, where="here") == "s3cret p\u00e4ss"


def test_a_command_that_prints_without_end_costs_no_memory(tmp_path):
    """Only the first 64 KiB of what the command prints is kept: 40 MB
    after the password line are read and dropped, never held."""
    import tracemalloc

    command = script(tmp_path, "pw", "import sys; print('s3cret')\n"
                                     "for _ in range(40): sys.stdout.write('x' * 1_000_000)\n"
                                     "sys.stderr.write('e' * 5_000_000)")
    tracemalloc.start()
    try:
        assert run_password_command(command, where="here") == "s3cret"
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4_000_000, peak


@pytest.mark.parametrize(("body", "expected"), [
    ("import sys; sys.stderr.write('Error: mail/imap is not in the password store.\\n'); sys.exit(1)",
     "failed with exit status 1: Error: mail/imap is not in the password store."),
    ("pass", "printed no password"),
    ("import time; time.sleep(5)", "did not finish within 0.5 s"),
])
def test_a_failing_command_is_named_with_what_went_wrong(tmp_path, body, expected):
    command = script(tmp_path, "pw", body)
    with pytest.raises(PasswordCommandError) as err:
        run_password_command(command, where="password_command of [imap] in mail.toml", timeout=0.5)
    assert expected in str(err.value) and command in str(err.value)
    assert str(err.value).startswith("password_command of [imap] in mail.toml: ")


def test_a_command_that_cannot_be_run(tmp_path):
    with pytest.raises(PasswordCommandError, match="no such program 'no-such-pbem-program'"):
        run_password_command("no-such-pbem-program show mail", where="x")
    with pytest.raises(PasswordCommandError, match="cannot split"):
        run_password_command("pass show 'unclosed", where="x")
    with pytest.raises(PasswordCommandError, match="is empty"):
        run_password_command("   ", where="x")


def test_smtp_login_with_the_password_a_command_prints(started, tmp_path, smtp_server):  # noqa: F811
    controller, inbox, ca_file = smtp_server
    a, _ = started
    play(a, tmp_path, ROLL)
    command = script(tmp_path, "pw", "print('ann-secret')")
    mail_toml = a.home / "mail.toml"
    mail_toml.write_text(f'[smtp]\nhost = "127.0.0.1"\nport = {controller.port}\nuser = "ann@example.org"\n'
                         f'from = "ann@example.org"\npassword_command = {toml_string(command)}\n')
    os.chmod(mail_toml, 0o600)
    r = a.run("mail", a.game, "--send", "--to", "bob@example.org", SSL_CERT_FILE=str(ca_file), **NO_ENV)
    assert r.exit_code == 0, r.output
    assert len(inbox.delivered) == 1 and "ann-secret" not in r.output
    # a failing command: named, with its status; the email is kept to send by hand
    failing = script(tmp_path, "fail", "import sys; sys.exit(3)")
    mail_toml.write_text(mail_toml.read_text().replace(toml_string(command), toml_string(failing)))
    r = a.run("mail", a.game, "--send", SSL_CERT_FILE=str(ca_file), **NO_ENV)
    assert r.exit_code == 2 and f"password_command of [smtp] in {mail_toml}" in r.output
    assert failing in r.output and "exit status 3" in r.output and "the email is saved as" in r.output
    # PBEM_SMTP_PASSWORD still comes first
    r = a.run("mail", a.game, "--send", SSL_CERT_FILE=str(ca_file), PBEM_SMTP_PASSWORD="ann-secret")
    assert r.exit_code == 0, r.output
    assert len(inbox.delivered) == 2


def test_a_password_in_the_file_is_refused_and_a_command_others_may_change_too(started, tmp_path):
    a, _ = started
    play(a, tmp_path, ROLL)
    mail_toml = a.home / "mail.toml"
    mail_toml.write_text('[smtp]\nhost = "127.0.0.1"\nuser = "ann"\npassword = "hunter2"\n')
    r = a.run("mail", a.game, "--send", **NO_ENV)
    assert r.exit_code == 2 and "never reads a password from a file" in r.output and "password_command" in r.output
    assert "hunter2" not in r.output
    mail_toml.write_text('[smtp]\nhost = "127.0.0.1"\nuser = "ann"\npassword_command = "pass show mail/smtp"\n')
    if os.name == "posix":
        os.chmod(mail_toml, 0o666)
        r = a.run("mail", a.game, "--send", **NO_ENV)
        assert r.exit_code == 2 and "other users may change this file" in r.output and "chmod go-w" in r.output
        os.chmod(mail_toml, 0o600)
    mail_toml.write_text('[smtp]\nhost = "127.0.0.1"\nuser = "ann"\npassword_command = ["pass", "show"]\n')
    r = a.run("mail", a.game, "--send", **NO_ENV)
    assert r.exit_code == 2 and "password_command must be a string" in r.output


def test_watch_takes_the_imap_password_from_its_command(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    failing = script(tmp_path, "fail", "import sys; sys.stderr.write('gpg: decryption failed\\n'); sys.exit(2)")
    (home / "mail.toml").write_text(f'[imap]\nhost = "127.0.0.1"\nuser = "ann"\n'
                                    f'password_command = {toml_string(failing)}\n')
    os.chmod(home / "mail.toml", 0o600)
    r = CliRunner().invoke(main, ["watch", "--once"], env={"PBEM_HOME": str(home), **NO_ENV})
    assert r.exit_code == 2, r.output
    assert f"password_command of [imap] in {home / 'mail.toml'}" in r.output
    assert "exit status 2: gpg: decryption failed" in r.output
