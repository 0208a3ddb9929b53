"""Mail passwords from a command: ``password_command`` in mail.toml.

As mail clients do (``PassCmd``, ``passwordeval``), ``[smtp]`` and
``[imap]`` of ``PBEM_HOME/mail.toml`` may name a command whose output is the
password -- a password manager (``pass show mail/imap``) or the system
keyring (``secret-tool lookup service imap user ann``).  The command is
split like a shell would (:func:`shlex.split`) and run without one; the
first line of its standard output is the password.  It is never logged,
never written and never part of an error message.

A password written in the file itself is still refused (docs/watch.md), and
so is a command in a mail.toml that other users may change: pbem would run
what they wrote.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import threading
from pathlib import Path
from typing import IO

from pbem.errors import InputError

TIMEOUT = 30.0  # seconds: a password manager may ask for its own passphrase (gpg-agent's pinentry)
MAX_OUTPUT = 64 * 1024  # bytes of standard output kept; a password is one line


class PasswordCommandError(InputError):
    """The password command could not be run, failed, or printed no password (exit 2)."""


def run_password_command(command: str, *, where: str, timeout: float = TIMEOUT) -> str:
    """The password ``command`` prints: the first line of its standard output.

    ``where`` names the setting in errors (``password_command of [imap] in
    FILE``); an error names the command and its exit status, never its output.
    """
    try:
        argv = shlex.split(command)
    except ValueError as err:
        raise PasswordCommandError(f"{where}: cannot split {command!r} into words: {err}") from err
    if not argv:
        raise PasswordCommandError(f"{where} is empty: name the command that prints the password")
    try:
        returncode, stdout, stderr = _run_bounded(argv, timeout)
    except FileNotFoundError as err:
        raise PasswordCommandError(f"{where}: no such program {argv[0]!r} (the command {command!r})") from err
    except subprocess.TimeoutExpired as err:
        raise PasswordCommandError(f"{where}: the command {command!r} did not finish within {timeout:g} s") from err
    except OSError as err:
        raise PasswordCommandError(f"{where}: cannot run the command {command!r}: {err.strerror or err}") from err
    if returncode != 0:
        status = (f"was killed by signal {-returncode}" if returncode < 0
                  else f"failed with exit status {returncode}")
        said = _first_line(stderr)
        raise PasswordCommandError(f"{where}: the command {command!r} {status}" + (f": {said[:200]}" if said else ""))
    line = stdout.split(b"\n", 1)[0].rstrip(b"\r")
    if not line:
        raise PasswordCommandError(f"{where}: the command {command!r} printed no password (its first line of "
                                   f"output is empty)")
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError as err:
        raise PasswordCommandError(f"{where}: the command {command!r} printed a first line that is not UTF-8") from err


def _run_bounded(argv: list[str], timeout: float) -> tuple[int, bytes, bytes]:
    """Run ``argv``: its exit status and the first :data:`MAX_OUTPUT` bytes
    of its standard output and error.  What it prints past them is read
    and dropped, so a command that prints without end costs no memory; one
    that does not finish within ``timeout`` is killed (TimeoutExpired)."""
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    kept = (bytearray(), bytearray())

    def drain(stream: IO[bytes], into: bytearray) -> None:
        for chunk in iter(lambda: stream.read(65536), b""):
            into += chunk[: MAX_OUTPUT - len(into)]

    readers = [threading.Thread(target=drain, args=(stream, into), daemon=True)
               for stream, into in zip((proc.stdout, proc.stderr), kept, strict=True) if stream is not None]
    for reader in readers:
        reader.start()
    try:
        returncode = proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise
    finally:
        for reader in readers:
            reader.join(5)
    return returncode, bytes(kept[0]), bytes(kept[1])


def check_file(path: Path) -> None:
    """Refuse to take a command from ``path`` when users other than its owner may change it."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return
    if os.name == "posix" and mode & 0o022:
        raise PasswordCommandError(f"{path}: other users may change this file (mode {mode & 0o777:o}), and pbem would "
                                   f"run the password_command they wrote; chmod go-w {shlex.quote(str(path))}")


def _first_line(data: bytes) -> str:
    return data.decode("utf-8", errors="replace").strip().split("\n", 1)[0].strip()


__all__ = ["PasswordCommandError", "check_file", "run_password_command"]
