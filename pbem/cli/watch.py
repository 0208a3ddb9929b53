"""``pbem watch``: the thin command over :mod:`pbem.app.watch`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from pbem.cli import complete
from pbem.cli.base import handles_errors, keystore, load_identity, secret

IMAP_PASSWORD_ENV = "PBEM_IMAP_PASSWORD"
IMAP_KEYS = {"host", "port", "user", "folder", "security", "cafile", "password_command"}


def imap_settings(home: Path) -> dict[str, Any]:
    """The ``[imap]`` table of PBEM_HOME/mail.toml (host, port, user, folder,
    security, cafile, password_command; a password there is refused, as for SMTP)."""
    from pbem.mail.outbox import home_table

    return home_table(home, "imap", IMAP_KEYS)[1]


def notifier(command: str | None):
    """``--notify CMD``: run CMD with the text as its last argument (no shell)."""
    if not command:
        return None
    import shlex
    import subprocess

    argv = shlex.split(command)

    from pbem.render.literal import visible

    def notify(text: str) -> None:
        subprocess.run([*argv, visible(text, newlines=True)], check=True, timeout=30, stdin=subprocess.DEVNULL)

    return notify


@click.command(short_help="Watch your mailbox: import turn files, answer what needs no decision.")
@click.option("--maildir", type=click.Path(exists=True, file_okay=False), help="Read this Maildir folder.")
@click.option("--imap", "imap_host", metavar="HOST", help="Read this IMAP server (default: host in [imap] of PBEM_HOME/mail.toml).")
@click.option("--imap-port", type=int, help="IMAP port (default 993 with ssl, 143 with starttls).")
@click.option("--imap-user", help="IMAP login; the password comes from PBEM_IMAP_PASSWORD, the password_command of "
                                  "[imap] in mail.toml, or a prompt; never a file.")
@click.option("--imap-folder", help="IMAP folder to watch (default INBOX).")
@click.option("--imap-security", type=click.Choice(["ssl", "starttls", "none"]),
              help="ssl (the default), starttls, or none (this machine only).")
@click.option("--imap-cafile", type=click.Path(exists=True, dir_okay=False), help="Also trust this CA certificate.")
@click.option("--dir", "directories", multiple=True, type=click.Path(exists=True, file_okay=False),
              shell_complete=complete.game_directories,
              help="Watch this game (repeatable; default: every game of your key that pbem knows of, a game joined "
                   "meanwhile included).")
@click.option("--since", type=click.DateTime(formats=["%Y-%m-%d"]), metavar="YYYY-MM-DD",
              help="Read mail that arrived from this day on (default: the last 30 days).")
@click.option("--once", is_flag=True, help="One pass, then exit (for cron): status 1 if a turn file was refused, 2 on mail "
                                          "errors, 75 if a game was busy (its mail waits in the spool for the next run).")
@click.option("--close", is_flag=True,
              help="Also send your closing message (it publishes your per-game secret, docs/protocol.md 7.6); "
                   "without it, that message is left to you.")
@click.option("--interval", type=click.FloatRange(min=1), default=60.0, show_default=True,
              help="Seconds between looks at the mailbox (IMAP IDLE answers at once where the server has it).")
@click.option("--notify", "notify_command", metavar="COMMAND",
              help="Run COMMAND with the text as its last argument when a message is yours to write (with the "
                   "rolls it made known) or a game is proposed to you, e.g. \"notify-send pbem\".")
@handles_errors
def watch(maildir: str | None, imap_host: str | None, imap_port: int | None, imap_user: str | None,
          imap_folder: str | None, imap_security: str | None, imap_cafile: str | None, directories: tuple[str, ...],
          since: Any, once: bool, close: bool, interval: float, notify_command: str | None) -> None:
    """Watch a mailbox for your games' turn files: import each as it
    arrives (every check of pbem receive), and when the message owed by
    you needs no decision -- only the reveals the rules demand, the chain
    value that keys the dice, questions your standing instructions answer
    -- write it, sign it and send it by SMTP (the [smtp] table of
    PBEM_HOME/mail.toml; the password from PBEM_SMTP_PASSWORD or its
    password_command).  Any other message is left to
    you: a line says what is awaited and the rolls the opponent's message
    made known (and --notify tells you).  With `[standing] key-rolls =
    "auto"` in a dice or ASL game, a message whose only need is keying
    the opponent's rolls is answered by itself.  A proposal addressed to
    you is told with the `pbem join` that accepts it; watch never joins.

    Safe to stop at any moment: mail is spooled before it is marked seen,
    and an answer is recorded before it is written and before it is sent,
    so after a crash it is sent once more as the same signed bytes, never
    written twice.  The IMAP settings may live in PBEM_HOME/mail.toml:

    \b
      [imap]
      host = "imap.example.org"
      user = "ann@example.org"
      password_command = "pass show mail/imap"

    Example: pbem watch --imap imap.example.org --imap-user ann@example.org
    """
    from pbem.app import watch as watching
    from pbem.errors import UsageError
    from pbem.mail import outbox

    from pbem.protocol.keystore import home_dir

    home = Path(home_dir())
    if maildir and imap_host:
        raise UsageError("give --maildir or --imap, not both")
    import datetime

    day = since.date() if since else datetime.date.today() - datetime.timedelta(days=30)
    source: Any
    if maildir:
        from pbem.mail.maildir import MaildirSource

        source = MaildirSource(maildir, since=day)
    else:
        table = imap_settings(home)
        host = imap_host or table.get("host")
        if not host:
            raise UsageError("nothing to watch: give --maildir DIR or --imap HOST (or host in [imap] of PBEM_HOME/mail.toml)")
        user = imap_user or table.get("user")
        if not user:
            raise UsageError(f"--imap {host}: give --imap-user (or user in [imap] of PBEM_HOME/mail.toml)")
        from pbem.mail.imap import ImapSource

        imap_password = secret(IMAP_PASSWORD_ENV, f"IMAP password for {user}",
                               command=str(table.get("password_command") or ""),
                               where=f"password_command of [imap] in {home / outbox.HOME_MAIL}")
        source = ImapSource(str(host), str(user), imap_password,
                            port=int(imap_port or table.get("port") or 0), folder=str(imap_folder or table.get("folder") or "INBOX"),
                            security=str(imap_security or table.get("security") or "ssl"),
                            cafile=imap_cafile or table.get("cafile"), since=day)
    from pbem.render.literal import visible  # a log line may name an email's sender or subject

    identity = load_identity()
    games = [Path(d) for d in directories]
    discover = None if games else (lambda: [p for p in keystore().game_places() if p.is_dir()])
    settings = outbox.load_settings(home)
    password: str | None = None
    if settings.user:
        password = secret(outbox.PASSWORD_ENV, f"SMTP password for {settings.user}", command=settings.password_command,
                          where=f"password_command of [smtp] in {home / outbox.HOME_MAIL}")
    session = watching.Watch(home, identity, games, source, watching.Sending(settings, password),
                             log=lambda line: click.echo(visible(line, newlines=True)), notify=notifier(notify_command),
                             close=close, discover=discover)
    count = len(games) if discover is None else len(discover())
    if count:
        click.echo(f"{watching.now()} watching {source.name} for {count} game(s) and for proposals to you; "
                   f"Ctrl-C stops")
    else:  # a player waiting for their first game: a proposal addressed to them is told, never joined
        click.echo(f"{watching.now()} watching {source.name}: no game yet (pbem knows the games you start or join "
                   f"with this key, or give --dir DIR); a proposal addressed to you is told with the pbem join "
                   f"that accepts it; Ctrl-C stops")
    if not settings.host:
        click.echo(f"{watching.now()} no SMTP host (host in the [smtp] table of {home / outbox.HOME_MAIL}): answers "
                   f"are written to DIR/outbox but cannot be sent until it is set")
    try:
        report = session.run(interval=interval, once=once)
    except KeyboardInterrupt:
        click.echo(f"{watching.now()} stopped")
        return
    if once:
        if report.refused:
            sys.exit(1)
        if report.errors:
            sys.exit(2)
        if report.busy:
            sys.exit(75)  # EX_TEMPFAIL (sysexits.h): nothing lost, run again; 3 is pbem's own bug


__all__ = ["watch"]
