"""What every command module of the ``pbem`` command line shares: the
error bridge (a :class:`~pbem.errors.PbemError` becomes a click error with
its exit status), output helpers, and the identity (keystore, passphrase).

The core commands (:mod:`pbem.cli`), the everyday ones
(:mod:`pbem.cli.everyday`) and every game's frontend module import these
from here, never from :mod:`pbem.cli` itself, so no command module and the
package import each other.
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path
from typing import Any, Callable, Mapping

import click


class PbemClickError(click.ClickException):
    """A library error on its way to the terminal, with its exit status."""

    def __init__(self, message: str, exit_code: int):
        super().__init__(message)
        self._exit_code = exit_code

    # click declares exit_code a class variable (one status per exception
    # class); this one carries the status of the library error it wraps.
    @property
    def exit_code(self) -> int:
        return self._exit_code

    @exit_code.setter
    def exit_code(self, value: int) -> None:
        self._exit_code = value


def handles_errors(func: Callable[..., Any]) -> Callable[..., Any]:
    """The error bridge of a command: a library error becomes a click error
    with its exit status; under ``--json`` a failure is a JSON document too
    (:func:`failure_json`), so a script reading the output gets one either way."""
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from pbem.errors import PbemError

        try:
            return func(*args, **kwargs)
        except PbemError as err:  # the message may quote a file, a message or an email: shown literally
            from pbem.render.literal import visible

            if kwargs.get("as_json"):
                failure_json(str(err), type(err).__name__, err.exit_code)
            raise PbemClickError(visible(err, newlines=True), err.exit_code) from err

    return wrapper


def failure_json(error: str, kind: str, exit_code: int, **more: Any) -> None:
    """A failed ``--json`` command's document on standard output:
    ``{"ok": false, "error": ..., "error_kind": ..., "exit_code": ...}``
    (docs/json.md); the error is said on standard error as well."""
    emit_json({"ok": False, "error": error, "error_kind": kind, "exit_code": exit_code, **more})


def write_output(path: str | Path, text: str) -> None:
    """Write a file the user asked for (--svg, --html, --out): its folder is
    made if needed, and it is written whole or not at all."""
    from pbem.util.atomicfile import replace
    from pbem.errors import InputError

    try:
        replace(Path(path), text.encode("utf-8"), parents=True, durable=False)
    except OSError as err:
        raise InputError(f"cannot write {path}: {err.strerror or err}") from err


def console(stderr: bool = False):
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=True)


#: The version of every ``--json`` document's layout (docs/json.md); raised when a key changes meaning or goes.
JSON_SCHEMA = 1


def json_document(data: Mapping[str, Any] | list[Any], key: str = "items") -> dict[str, Any]:
    """``data`` as a ``--json`` document: an object carrying ``"schema"``
    (:data:`JSON_SCHEMA`); a list is the document's ``key``."""
    body = {key: list(data)} if isinstance(data, list) else dict(data)
    return {**body, "schema": JSON_SCHEMA}


def json_text(data: Mapping[str, Any] | list[Any], key: str = "items") -> str:
    return json.dumps(json_document(data, key), indent=2, sort_keys=True)


def emit_json(data: Mapping[str, Any] | list[Any], key: str = "items") -> None:
    """Print a ``--json`` document (:func:`json_document`): the one place pbem prints JSON."""
    click.echo(json_text(data, key))


def warn(findings: Any) -> None:
    """Print each warning (a :class:`pbem.match.summary.Finding`, ...) on
    standard error as ``warning: ...``: told, the exit status unchanged."""
    from pbem.render.literal import visible  # a finding quotes an unsigned summary, as it was written

    for finding in findings:
        click.echo(visible(f"warning: {finding}", newlines=True), err=True)


# --------------------------------------------------------------------------- identity


def keystore(home: str | None = None):
    from pbem.protocol.keystore import Keystore, home_dir

    return Keystore(Path(home) if home else home_dir())


def passphrase_provider(prompt: str = "Passphrase for your pbem key", *, ask: bool = True) -> Callable[[], bytes | None]:
    """The one way pbem gets the passphrase of your key: ``PBEM_PASSPHRASE``,
    else (``ask`` and at a terminal) a prompt; otherwise an IdentityError."""

    def provide() -> bytes | None:
        from pbem.errors import IdentityError
        from pbem.protocol.keystore import passphrase_from_env

        env = passphrase_from_env()
        if env is not None:
            return env
        if not ask:
            raise IdentityError("your key is encrypted and PBEM_PASSPHRASE is not set")
        if not sys.stdin.isatty():
            raise IdentityError("your key is encrypted: set PBEM_PASSPHRASE or run in a terminal to be asked")
        return click.prompt(prompt, hide_input=True, err=True).encode("utf-8")

    return provide


def secret(env: str, what: str, *, command: str = "", where: str = "", hint: str = "") -> str:
    """A mail password from ``env``, else from ``command`` (mail.toml's
    ``password_command``, named by ``where``), else at a terminal a prompt;
    never stored.  ``hint`` ends the error without a terminal (where the
    email was kept)."""
    import os

    from pbem.errors import UsageError

    value = os.environ.get(env)
    if value is not None:
        return value
    if command:
        from pbem.mail.password import PasswordCommandError, run_password_command

        try:
            return run_password_command(command, where=where or "password_command")
        except PasswordCommandError as err:
            if hint:
                raise PasswordCommandError(f"{err}{hint}") from err
            raise
    if not sys.stdin.isatty():
        raise UsageError(f"{what}: set {env} or password_command in mail.toml, or run in a terminal to be "
                         f"asked{hint}")
    return click.prompt(what, hide_input=True, err=True)


def load_identity():
    return keystore().load(passphrase_provider())


def viewer_identity():
    """Your key if this keystore holds one, else None: ``show`` and ``log``
    then give a spectator's view (the public record, which anyone may read)."""
    store = keystore()
    return store.load(passphrase_provider()) if store.exists() else None


def read_orders(path: str) -> dict[str, Any]:
    from pbem.util import tomlfile

    return tomlfile.read(path)
