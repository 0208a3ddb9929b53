"""Everyday commands for players who live in their mail client: ``import``
(turn files out of .eml, mbox, Maildir or standard input), ``mail`` (an .eml
to send, or SMTP), ``orders`` (what is awaited, as a TOML template),
``status`` (all my games) and ``html`` (a page with the board and the log).

Thin click commands over :mod:`pbem.mail.inbox`, :mod:`pbem.mail.outbox`,
:mod:`pbem.app.orders_template`, :mod:`pbem.app.status` and
:mod:`pbem.render.html`; :func:`register` adds them to the ``pbem`` group.
Library modules are imported inside the commands (``pbem --help`` stays
fast).  Long operations show a rich progress bar on a terminal, none when
piped.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Any, Iterator

import click

from pbem.cli import complete
from pbem.cli.base import (
    console,
    emit_json,
    handles_errors,
    keystore,
    load_identity,
    passphrase_provider,
    secret,
    warn,
    write_output,
)


def register(main: click.Group) -> None:
    """Add the everyday commands to ``main`` (those it does not have yet)."""
    for command in COMMANDS:
        if command.name not in main.commands:
            main.add_command(command)


# --------------------------------------------------------------------------- helpers


def identity() -> Any:
    """The player's key (a passphrase is asked on standard error, so that
    standard output stays clean for data: ``pbem orders DIR > o.toml``)."""
    return load_identity()


def identity_if_free() -> Any:
    """The player's key when it needs no prompt (unencrypted, or
    PBEM_PASSPHRASE set), else None."""
    from pbem.errors import PbemError

    try:
        return keystore().load(passphrase_provider(ask=False))
    except PbemError:
        return None


def my_fingerprint() -> str | None:
    """The player's fingerprint from the public key (no passphrase), or None without a key."""
    from pbem.errors import PbemError

    try:
        return keystore().public().fingerprint
    except PbemError:
        return None


def read_stdin() -> bytes:
    """Standard input, up to the protocol's limit on an input (docs/protocol.md 12)."""
    from pbem.errors import InputError
    from pbem.protocol.limits import MAX_INPUT_BYTES, input_too_large

    stream = getattr(sys.stdin, "buffer", None)
    if stream is not None:
        data = stream.read(MAX_INPUT_BYTES + 1)
    else:
        data = sys.stdin.read(MAX_INPUT_BYTES + 1).encode("utf-8", errors="replace")
    if len(data) > MAX_INPUT_BYTES:
        raise InputError(input_too_large("standard input", len(data)).replace(" is ", " is over ", 1))
    return data


@contextlib.contextmanager
def progress_bar(description: str) -> Iterator[Any]:
    """A progress callback ``(done, total, label)`` drawing a rich bar on a
    terminal (standard error); ``None`` when piped or redirected."""
    out = console(stderr=True)
    if not out.is_terminal:
        yield None
        return
    from rich.markup import escape
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from pbem.render.literal import visible

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), console=out, transient=True) as bar:
        task = bar.add_task(description, total=None)

        def update(done: int, total: int, label: str) -> None:
            bar.update(task, completed=done, total=total, description=escape(visible(f"{description}: {label}")))  # a label: a file or an email's

        yield update


# --------------------------------------------------------------------------- import


@click.command("import", short_help="Import a game's messages from .pbem, .eml, mbox, Maildir or stdin.")
@click.argument("directory", type=click.Path(file_okay=False))
@click.argument("sources", nargs=-1, required=True, type=click.Path(exists=True, allow_dash=True))
@click.option("--json", "as_json", is_flag=True, help="Print what was imported, skipped and left alone, with the events, as JSON.")
@click.option("--game", "game_id", help="Restoring into an empty DIRECTORY: the game (id or its first digits) to restore.")
@handles_errors
def import_mail(directory: str, sources: tuple[str, ...], as_json: bool, game_id: str | None = None) -> None:
    """Import your opponent's messages from mail: a .pbem file, an .eml
    (attached or pasted, quoted or not, any transfer encoding), an mbox
    file, a Maildir folder, or '-' for standard input.

    Every message of this game is verified and imported in order; one you
    already hold is skipped; messages of other games are listed and left
    alone; a message after a gap waits for the one missing.  Your own
    messages (a sent folder) are imported too when you lack them.

    Into an empty or new DIRECTORY the game is restored: begun again from
    its message 0 in SOURCES (the one game there with your key, or --game
    ID) -- a whole game back from your mailbox and your key.

    \b
    Examples:
      pbem import games/bob ~/Downloads/turn.eml
      pbem import games/bob ~/mail/pbem.mbox
      pbem import games/bob ~/Maildir/.pbem
      pbem import games/restored ~/mail/pbem.mbox ~/mail/sent.mbox
      mutt: | pbem import games/bob -
    """
    from pbem.mail import inbox
    from pbem.protocol import scan
    from pbem.render import console as render

    stdin = read_stdin() if scan.STDIN in sources else None
    player = identity()
    with progress_bar("importing") as progress:
        report = inbox.import_sources(directory, sources, player, stdin=stdin, progress=progress, game=game_id)
    match = report.match
    if as_json:
        data = report.to_json()
        data["match"] = render.match_json(match, since=report.first_new if report.first_new is not None else len(match.transcript))
        emit_json(data)
        return
    from pbem.render.literal import literal

    out = console()
    if report.restored is not None:
        first = report.restored.message
        out.print(literal(f"restored game {first.game[:12]}... ({match.transcript.setup['module']}) into {directory} "
                          f"from its message 0000 ({report.restored.origin})"))
    for path in report.imported:
        out.print(literal(f"imported {path}"))
    warn(report.findings)
    if report.already:
        out.print(literal("already imported, skipped: " + ", ".join(f"{f.message.seq:04d}" for f in report.already)))
    others: dict[str, list[Any]] = {}
    for item in report.other_games:
        others.setdefault(item.message.game, []).append(item)
    for game, items in others.items():
        seqs = ", ".join(sorted({f"{i.message.seq:04d}" for i in items}))
        out.print(literal(f"left alone: message(s) {seqs} of another game, {game[:12]}..."))
    for item in report.waiting:
        out.print(literal(f"waiting: {item.label} needs message {len(match.transcript):04d} first ({item.origin})"))
    for origin, why in report.unreadable:
        out.print(literal(f"unreadable: {origin}: {why}"))
    if not report.imported and report.restored is None:
        out.print(literal(f"nothing new for game {match.transcript.game[:12]}..."))
    else:
        # a restore that brought nothing past message 0 has no new events to list
        render.print_events(out, match, since=report.first_new if report.first_new is not None else len(match.transcript))
    render.print_turn(out, match)


# --------------------------------------------------------------------------- mail


@click.command(short_help="Write your last message as an .eml (with a summary); --send by SMTP.")
@click.argument("directory", type=click.Path(exists=True, file_okay=False), shell_complete=complete.game_directories)
@click.option("--to", "to", help="Your opponent's address; remembered for this game (DIR/mail.toml).")
@click.option("--from", "sender", help="Your address; remembered for this game (default: from in PBEM_HOME/mail.toml).")
@click.option("--message", "seq", type=int, help="Send this message number (default: your last one).")
@click.option("--out", "out_path", type=click.Path(dir_okay=False), help="Write the .eml here (default DIR/outbox/NNNN-SIDE.eml).")
@click.option("--send", is_flag=True, help="Also deliver it by SMTP.")
@click.option("--host", help="SMTP server (default: host in PBEM_HOME/mail.toml).")
@click.option("--port", type=int, help="SMTP port (default 587 with STARTTLS, 465 with --ssl, else 25).")
@click.option("--starttls/--no-starttls", default=None, help="Upgrade the connection with STARTTLS (the default).")
@click.option("--ssl/--no-ssl", "use_ssl", default=None, help="Connect with TLS from the start (port 465).")
@click.option("--user", help="SMTP login; the password comes from PBEM_SMTP_PASSWORD, the password_command of [smtp] "
                            "in mail.toml, or a prompt; never a file.")
@handles_errors
def mail(
    directory: str,
    to: str | None,
    sender: str | None,
    seq: int | None,
    out_path: str | None,
    send: bool,
    host: str | None,
    port: int | None,
    starttls: bool | None,
    use_ssl: bool | None,
    user: str | None,
) -> None:
    """Write your last message as an email (.eml) to send, with the turn
    file attached and a summary of what happened in the body; --send
    delivers it by SMTP.

    The summary is made from the public record only: nothing sealed can
    reach the mail.  Settings live in PBEM_HOME/mail.toml:

    \b
      [smtp]
      host = "smtp.example.org"
      port = 587
      starttls = true
      user = "ann@example.org"
      from = "Ann <ann@example.org>"
      password_command = "pass show mail/smtp"

    The password is PBEM_SMTP_PASSWORD, else the first line the
    password_command prints (run without a shell; a keyring works too:
    "secret-tool lookup service smtp user ann"), else asked at a terminal.

    The last line printed is the .eml file.

    Example: pbem mail games/bob --to bob@example.org --send
    """
    from pbem.mail import outbox as mail_out
    from pbem.protocol.keystore import home_dir

    settings = mail_out.load_settings(home_dir()).merged(
        host=host, port=port, starttls=starttls, ssl=use_ssl, user=user, sender=sender
    )
    outgoing = mail_out.build_email(
        directory, fingerprint=my_fingerprint(), seq=seq, to=to, sender=sender, default_sender=settings.sender or None
    )
    path = mail_out.write_eml(outgoing, out_path)  # first: if sending fails, the email is there to send by hand
    click.echo(f"{outgoing.message_file.name} to {outgoing.to or '(no address: give --to)'}: {outgoing.email['Subject']}")
    if send:
        password = None
        if settings.user:
            password = secret(mail_out.PASSWORD_ENV, f"SMTP password for {settings.user}",
                              command=settings.password_command,
                              where=f"password_command of [smtp] in {home_dir() / mail_out.HOME_MAIL}",
                              hint=f" (the email is saved as {path})")
        try:
            click.echo(mail_out.send(outgoing, settings, password))
        except mail_out.MailError as err:
            raise mail_out.MailError(f"{err}; the email is saved as {path} to send by hand") from err
    click.echo(path)


# --------------------------------------------------------------------------- orders


@click.command(short_help="What is awaited from you, as a commented TOML orders template.")
@click.argument("directory", type=click.Path(exists=True), shell_complete=complete.game_directories)
@click.option("--json", "as_json", is_flag=True, help="Print what is awaited, the choices and the template as JSON.")
@click.option("--out", "out_path", type=click.Path(dir_okay=False), help="Write the template to this file.")
@handles_errors
def orders(directory: str, as_json: bool, out_path: str | None) -> None:
    """What is awaited from you, and a commented TOML orders template with
    the legal choices now: for Ambon the units that may move and how far,
    legal bombardment targets, the odds each attack would get, the reveals
    owed and the open decisions.

    Lines starting '# ' are example orders, legal together: remove the '# '
    to use one.  Then play the file with pbem play DIR --orders FILE.

    DIRECTORY may also be a proposal you received (message 0): the template
    is then for message 1, e.g. your setup, for pbem join PROPOSAL --orders.

    \b
    Example: pbem orders games/bob --out turn.toml
             pbem orders 0000-japanese.pbem --out setup.toml
    """
    from pbem.app import orders_template
    from pbem.match import session

    if Path(directory).is_file():
        match = session.proposal_match(directory, identity())
    else:
        match = session.load(directory, identity())
    proposal = directory if Path(directory).is_file() else None
    template = orders_template.for_match(match, proposal=proposal, file=out_path)
    if as_json:
        emit_json(template.to_json())
        return
    if out_path:
        from pbem.render.literal import visible  # what is awaited may quote a roll's note

        write_output(out_path, template.toml)
        for line in template.awaited:
            click.echo(visible(f"awaited: {line}"))
        click.echo(out_path)
        return
    click.echo(template.toml, nl=False)


# --------------------------------------------------------------------------- status


@click.command(short_help="All your games: opponent, turn and phase, whose move, age.")
@click.argument("directories", nargs=-1, type=click.Path(exists=True, file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print every game's status as JSON.")
@handles_errors
def status(directories: tuple[str, ...], as_json: bool) -> None:
    """All your games: game, opponent, turn and phase, whose move, age of the
    last message.  Without DIRECTORIES, every game created (pbem new) or
    joined (pbem join) with this keystore's key, wherever its directory is,
    and every game directory in the keystore's games folder (PBEM_HOME/games).

    Never asks for a passphrase: with an encrypted key and no
    PBEM_PASSPHRASE, a game whose last message is your opponent's shows the
    phase before the dice it keys (which your key computes on receipt).

    Example: pbem status games/bob games/carol
    """
    from rich.table import Table
    from rich.text import Text

    from pbem.app import status as status_lib
    from pbem.protocol.keystore import Keystore, home_dir
    from pbem.render.literal import literal

    with progress_bar("checking games") as progress:
        found = status_lib.statuses(directories, my_fingerprint(), identity=identity_if_free(), progress=progress)
    if as_json:
        emit_json([s.to_json() for s in found], "games")
        return
    out = console()
    if not found:
        where = Keystore(home_dir()).games_dir
        out.print(f"no games: none created or joined with this key, none in {where}; "
                  f"name a game's directory: pbem status DIR ...", markup=False)
        return
    def shown(directory: Path) -> str:  # as the player would type it: from here, or from ~
        whole = Path(directory).resolve()
        for base, prefix in ((Path.cwd(), ""), (Path.home(), "~/")):
            try:
                return prefix + str(whole.relative_to(base))
            except ValueError:
                continue
        return str(whole)

    table = Table(title="Your games")
    for column in ("directory", "game", "you", "opponent", "turn / phase", "next", "last message"):
        table.add_column(column)
    for s in found:
        if s.error:
            what = Text("does not verify", style="red") if s.fails_verification else Text("not a readable game", style="yellow")
            table.add_row(literal(shown(s.directory)), what, "", "", literal(s.error[:80]), "?", "")
            continue
        opponent = s.opponent + (f" {s.opponent_key[:15]}..." if s.opponent_key else "")
        opponent_cell = literal(opponent)
        if s.opponent_address:
            opponent_cell.append("\n").append(literal(s.opponent_address))
        stands = (" / ".join(str(x) for x in ((f"turn {s.turn}" if s.turn is not None else ""), s.phase) if x)
                 or f"{s.messages} message{'' if s.messages == 1 else 's'}")
        who = literal(s.whose_move, "bold" if s.your_move else "")
        table.add_row(literal(shown(s.directory)), literal(f"{s.module} {s.game[:8]}"), literal(s.you or "-"), opponent_cell,
                      literal(stands), who, literal(f"{s.last_file} ({status_lib.age(s.last_age)} ago)"))
    out.print(table)


# --------------------------------------------------------------------------- html


@click.command(short_help="Write a self-contained HTML page: board, order of battle, log.")
@click.argument("directory", type=click.Path(exists=True, file_okay=False), shell_complete=complete.game_directories)
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--spectator", is_flag=True, help="Without your key: what anyone holding the files sees.")
@handles_errors
def html(directory: str, path: str, spectator: bool) -> None:
    """Write a self-contained HTML page of the game: the board (for hex
    games), the order of battle, the log and the rolls.  From your side's
    view it shows your own hidden information: keep it to yourself.

    Example: pbem html games/bob board.html
    """
    from pbem.match import session
    from pbem.render.html import match_html

    match = session.load(directory, None if spectator else identity())
    write_output(path, match_html(match))
    click.echo(path)


from pbem.cli.watch import watch  # noqa: E402 - beside the others it registers

COMMANDS = (import_mail, mail, orders, status, html, watch)

__all__ = ["COMMANDS", "register"]
