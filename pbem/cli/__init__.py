"""The ``pbem`` command line: a thin click layer over the library.

Each command parses its arguments, calls one library function and prints the
result with rich.  Library modules are imported inside the commands so that
``pbem --help`` starts fast.  Only this package turns a
:class:`~pbem.errors.PbemError` into an exit status: 1 when verification
failed or a rule was violated, 2 for usage and input errors.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Mapping, MutableMapping

import click

from pbem.cli import complete
from pbem.cli.base import (  # noqa: F401 - re-exported: the commands below and callers use them
    PbemClickError,
    console,
    emit_json,
    failure_json,
    json_text,
    handles_errors,
    keystore,
    load_identity,
    passphrase_provider,
    read_orders,
    viewer_identity,
    warn,
    write_output,
)
from pbem.games import DEFAULT_DEMO

INTERNAL_ERROR = 3  # exit status of a bug (0 ok, 1 verification failed / rule broken, 2 usage or input)


class PbemGroup(click.Group):
    """A group whose plugin commands (Calumpit, ASL, everyday use) are imported
    only when needed: ``pbem show`` does not pay for them; ``pbem --help``, a
    plugin's command, or any look at ``.commands`` registers them first."""

    @property
    def commands(self) -> MutableMapping[str, click.Command]:
        _register_plugins()
        return self._own

    @commands.setter
    def commands(self, value: MutableMapping[str, click.Command]) -> None:
        self._own = dict(value)

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        name = name or cmd.name
        if name is None:
            raise TypeError("Command has no name.")
        self._own[name] = cmd

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return self._own.get(cmd_name) or self.commands.get(cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        """A bug must not look like a verdict: an unexpected exception prints
        its traceback and exits with status 3 (1 means "verification failed")."""
        wants_json = "--json" in ctx.args  # read before: invoking takes the arguments off the context
        try:
            return super().invoke(ctx)
        except click.exceptions.UsageError as err:  # refused before the command ran: a bad path, an unknown option
            if wants_json:
                failure_json(err.format_message(), "UsageError", err.exit_code)
            raise
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except BrokenPipeError:  # `pbem log DIR | head`: the reader has seen enough; no bug, no traceback
            import os

            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # Python's own flush at exit would fail again
            ctx.exit(0)
        except Exception:  # noqa: BLE001 - the one place that reports bugs
            import traceback

            traceback.print_exc()
            click.echo("pbem: internal error -- this is a bug in pbem, not in your files; nothing was verified. "
                       "Please report it with the traceback above.", err=True)
            ctx.exit(INTERNAL_ERROR)


@click.group(cls=PbemGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="pbem")
def main() -> None:
    """pbem: play-by-email for board wargames.

    Signed, hash-chained turn files; dice neither player can bias or preview;
    hidden units and notes sealed until the rules reveal them; everything
    verifiable offline by anyone holding the files.

    \b
    Start with:   pbem demo
    Your key:     pbem key new --name "Your Name"
    A game:       pbem new DIR --game dice --as first --opponent THEIR_KEY.pub
    """


# --------------------------------------------------------------------------- key


@main.group()
def key() -> None:
    """Create, show or import your Ed25519 identity (kept in the keystore),
    or use one ssh-agent holds.

    The keystore lives in the platform config directory; PBEM_HOME overrides
    it.  The passphrase comes from PBEM_PASSPHRASE or a prompt; a key in
    ssh-agent needs none (pbem key use-agent).

    Example: pbem key new --name "Ann Smith"; pbem key show > ann.pub
    """


@key.command("new")
@click.option("--name", required=True, help="Your name, shown to opponents in your public key.")
@click.option("--no-passphrase", is_flag=True, help="Store the private key unencrypted (not recommended).")
@handles_errors
def key_new(name: str, no_passphrase: bool) -> None:
    """Create a new identity.

    Example: pbem key new --name "Ann Smith"
    """
    from pbem.protocol.keystore import new_passphrase_from_env

    passphrase = None
    if not no_passphrase:
        passphrase = new_passphrase_from_env()
        if passphrase is None:
            passphrase = click.prompt(
                "Passphrase for the new key", hide_input=True, confirmation_prompt=True
            ).encode("utf-8")
    store = keystore()
    identity = store.create(name, passphrase)
    click.echo(f"created {store.identity_path} ({'encrypted' if passphrase else 'NOT encrypted'})")
    click.echo(f"fingerprint {identity.public.fingerprint}")
    click.echo("send this public key line to your opponents:")
    click.echo(identity.public.openssh())


@key.command("show")
@click.option("--json", "as_json", is_flag=True, help="Print fingerprint and key as JSON.")
@handles_errors
def key_show(as_json: bool) -> None:
    """Print your public key as an OpenSSH line (give it to opponents).

    Example: pbem key show > ann.pub
    """
    store = keystore()
    public = store.public()
    held_by = "ssh-agent" if store.in_agent() else "keystore"
    if as_json:
        emit_json({"fingerprint": public.fingerprint, "public_key": public.openssh(), "held_by": held_by})
    else:
        click.echo(public.openssh())
        if held_by == "ssh-agent":
            click.echo("the private key is held by ssh-agent (SSH_AUTH_SOCK); pbem asks it for every signature",
                       err=True)


@key.command("where")
@click.option("--json", "as_json", is_flag=True, help="Print the paths as JSON.")
@handles_errors
def key_where(as_json: bool) -> None:
    """Print where your keystore is, and the files pbem keeps there.

    The keystore is the platform's config directory for pbem, or PBEM_HOME
    when it is set: your key (or, for a key ssh-agent holds, the note
    identity.agent, and the agent's socket), the keys you know, your mail
    settings (mail.toml: [smtp] and [imap]) and the replays pbem keeps
    (checkpoints/).

    Example: $EDITOR "$(pbem key where --json | jq -r .mail)"
    """
    import os

    store = keystore()
    home = store.path
    in_agent = store.in_agent()
    paths = {"keystore": str(home), "identity": str(store.agent_path if in_agent else store.identity_path),
             "held_by": "ssh-agent" if in_agent else "keystore", "mail": str(home / "mail.toml"),
             "known_keys": str(home / "known_keys"), "checkpoints": str(home / "checkpoints")}
    if in_agent:
        paths["agent"] = os.environ.get("SSH_AUTH_SOCK", "")
    if as_json:
        emit_json(paths)
        return
    for name, path in paths.items():
        if name == "agent":
            path = f"{path or '(SSH_AUTH_SOCK is not set)'} (the key's signatures come from there)"
        click.echo(f"{name + ':':13}{path}")


@key.command("import")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--encrypt", is_flag=True, help="Store an unencrypted key encrypted (passphrase: PBEM_PASSPHRASE or a prompt).")
@click.option("--name", help="The name it goes by (default: the comment of its .pub file, then of the key).")
@handles_errors
def key_import(path: str, encrypt: bool, name: str | None) -> None:
    """Adopt an existing OpenSSH ed25519 key, e.g. ~/.ssh/id_ed25519.

    An encrypted key keeps its passphrase.  An unencrypted one is stored
    as it is, unless --encrypt (at a terminal pbem offers to).  A key whose
    comment is not one line of printable text (at most 100 characters) is
    refused: import it with --name.

    Example: pbem key import ~/.ssh/id_ed25519 --encrypt
    """
    from pbem.protocol.keystore import new_passphrase_from_env
    from pbem.protocol.sshwire import is_encrypted

    data = Path(path).read_bytes()
    encrypted = is_encrypted(data)
    passphrase = passphrase_provider(f"Passphrase for {path}")() if encrypted else None
    new_passphrase = None
    if not encrypted:
        if not encrypt and interactive():
            encrypt = click.confirm(f"{path} is NOT encrypted: store pbem's copy encrypted with a passphrase?", default=True)
        if encrypt:
            new_passphrase = new_passphrase_from_env()
            if new_passphrase is None:
                if not interactive():
                    from pbem.errors import UsageError

                    raise UsageError("--encrypt: set PBEM_PASSPHRASE or run in a terminal to be asked for the passphrase")
                new_passphrase = click.prompt("Passphrase for pbem's copy", hide_input=True,
                                              confirmation_prompt=True).encode("utf-8")
    identity = keystore().import_key(path, passphrase, name=name, encrypt=new_passphrase)
    click.echo(f"imported {path}: fingerprint {identity.public.fingerprint}")
    if not encrypted:
        click.echo("stored encrypted with the passphrase given" if new_passphrase else
                   f"{path} is NOT encrypted, and neither is pbem's copy: anyone who can read "
                   f"{keystore().identity_path} can sign as you.  To encrypt it: pbem key import {path} --encrypt")
    click.echo(identity.public.openssh())


@key.command("use-agent")
@click.option("--key", "wanted", metavar="FINGERPRINT|COMMENT",
              help="The agent's key to use, by its SHA256: fingerprint or its comment (as ssh-add -l lists them); "
                   "needed when the agent holds more than one ssh-ed25519 key.")
@click.option("--name", help="The name it goes by (default: the comment the agent lists it with).")
@click.option("--replace", is_flag=True,
              help="The keystore holds this same key in a file: delete pbem's copy and use the agent's.")
@handles_errors
def key_use_agent(wanted: str | None, name: str | None, replace: bool) -> None:
    """Use a key ssh-agent holds as your identity: no passphrase, ever.

    pbem keeps only the public key and asks the agent (SSH_AUTH_SOCK) for
    every signature; new, join, play, receive and watch never ask for a
    passphrase.  Your per-game secrets are derived from the agent's
    signatures, the same ones the key makes from a file, so a game keeps
    working if the key moves between the keystore and the agent.  Only a
    plain ssh-ed25519 key will do: a FIDO (sk-ssh-ed25519@openssh.com) key
    signs differently each time, so no stable secret comes from it.

    Example: ssh-add ~/.ssh/id_ed25519; pbem key use-agent --key "$(ssh-keygen -lf ~/.ssh/id_ed25519.pub | cut -d' ' -f2)"
    """
    from pbem.errors import UsageError
    from pbem.protocol.agent import Agent
    from pbem.protocol.keys import comment_problem
    from pbem.protocol.keystore import check_name
    from pbem.render.literal import visible  # the agent's comment is the agent's text

    agent = Agent()
    found = agent.find(wanted)
    public = found.public
    assert public is not None  # find returns only a key pbem can use
    if name is None:
        name = found.comment
        problem = comment_problem(name) if name else "is empty"
        if problem:
            raise UsageError(f"the agent lists {found.fingerprint} with the comment {name[:120]!r}, which "
                             f"{problem}: give --name NAME for the name it goes by", field="--name")
    check_name(name)
    store = keystore()
    key = store.use_agent(public, name, replace=replace)
    click.echo(visible(f"your identity is {key.fingerprint} ({key.comment}), held by ssh-agent at {agent.path}"))
    click.echo("pbem keeps only its public key; the agent must hold it whenever pbem signs (ssh-add KEYFILE)")
    click.echo(key.openssh())


# --------------------------------------------------------------------------- a game


def read_public_key(value: str):
    from pbem.errors import InputError
    from pbem.protocol.keys import PublicKey

    path = Path(value)
    if path.is_file():
        text = path.read_text(encoding="utf-8", errors="replace").strip()
        lines = [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
        if len(lines) != 1:
            raise InputError(f"--opponent {value}: expected one 'ssh-ed25519 AAAA...' line")
        return PublicKey.from_openssh(lines[0])
    if value.startswith("ssh-"):
        return PublicKey.from_openssh(value)
    raise InputError(f"--opponent {value!r}: no such file, and not an 'ssh-ed25519 AAAA...' line")


def interactive() -> bool:
    """Someone at a terminal can answer a question."""
    return sys.stdin.isatty()


def trust_on_first_use(key: Any, transcript: Any, accepted: str | None) -> None:
    """Trust on first use (docs/protocol.md §4.1): the proposer's key, met for the first time, is shown with
    its fingerprint and confirmed (at a terminal: asked; otherwise noted);
    a new key under the name of a known one is refused unless accepted by
    fingerprint, since a key swapped in the mail looks exactly like that."""
    from pbem.errors import UsageError
    from pbem.match.session import proposal_rulings
    from pbem.render.literal import visible  # the proposal's texts and the key's comment are the proposer's

    store = keystore()
    setup = transcript.setup
    rules = (setup.get("options") or {}).get("rules") or []
    terms = f"optional rules {' '.join(rules)}" if rules else "no optional rules"
    click.echo(visible(f"proposal: {setup['module']} game {transcript.game[:12]}...; {terms}; "
                       f"data {setup['ruleset'][:16]}..."), err=True)
    rulings = proposal_rulings(setup)
    if rulings:
        declared = "" if "rulings" in (setup.get("options") or {}) else " (the proposal names none: the defaults)"
        click.echo(f"rulings of the proposal, played by both sides{declared}:", err=True)
        for ruling in rulings:
            click.echo(visible(f"  {ruling.line()}"), err=True)
    if accepted is not None and accepted != key.fingerprint:
        raise UsageError(f"--accept-key {accepted}: the proposer's key is {key.fingerprint}; nothing written")
    standing = store.check_new_key(key)
    who = visible(f"{key.fingerprint} ({key.comment or 'no name'})")
    if standing == "known":
        return
    if standing == "changed" and accepted is None:
        raise UsageError(
            f"the proposer calls itself {key.comment!r}, but its key {key.fingerprint} is not the {key.comment!r} key "
            f"you know: a key swapped in transit looks like this. Check the fingerprint with them; if it is right, "
            f"join with --accept-key {key.fingerprint}"
        )
    if accepted is None and interactive():
        terms = " and play by the rulings above" if rulings else ""
        if not click.confirm(f"First game with the key {who}. Is this your opponent's key{terms}? Check the "
                             f"fingerprint with them", default=False, err=True):
            raise UsageError("not joined: the key was not confirmed; nothing written")
    elif accepted is None:
        click.echo(f"first game with the key {who}: trusted on first use; check the fingerprint with them", err=True)
    store.remember(key)


def parse_options(rules: tuple[str, ...]) -> dict[str, Any]:
    return {"rules": sorted(set(rules))} if rules else {}


def parse_rulings(given: tuple[str, ...]) -> dict[str, str]:
    """``--ruling 6.5=landed`` (repeatable) -> ``{"6.5": "landed"}``; the game checks the names."""
    from pbem.errors import InputError

    out: dict[str, str] = {}
    for item in given:
        rule, sep, reading = item.partition("=")
        rule, reading = rule.strip(), reading.strip()
        if not sep or not rule or not reading:
            raise InputError(f"--ruling {item!r}: expected RULE=READING, e.g. --ruling 6.5=landed", field="rulings")
        if out.get(rule, reading) != reading:
            raise InputError(f"--ruling {item!r}: ruling {rule} is already given as {out[rule]!r}", field="rulings")
        out[rule] = reading
    return out


DATA_HELP = "The printed game's data: a directory of data files, or the name of a set installed with `pbem data add`."


def use_data(game_name: str, data: str | None) -> str | None:
    """A directory given as --data is installed in the keystore first, so that
    every later command finds the data message 0 pins."""
    if data is None or not Path(data).is_dir():
        return data
    from pbem.match import datasets

    found, new = datasets.install(game_name, data)
    click.echo(f"{'installed' if new else 'using installed'} {game_name} data set {found.name}: {found.ruleset}", err=True)
    return found.name


class NewCommand(click.Command):
    """``pbem new``'s help lists the installed games and their sides, loaded only for the help."""

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_help_text(ctx, formatter)
        from pbem.engine import registry
        from pbem.errors import PbemError

        rows = []
        for name in sorted(registry.available()):
            try:
                game = registry.get(name)
            except (PbemError, ImportError) as err:  # a broken plug-in must not break the help
                rows.append((name, f"(cannot be loaded: {err})"))
                continue
            rows.append((name, "--as " + " | ".join(game.sides)))
        with formatter.section("Games (--game) and their sides (--as)"):
            formatter.write_dl(rows)


def a_or_an(word: str) -> str:
    """``a dice``, ``an ambon``: the article a word takes in print."""
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


def parse_sides(ctx: click.Context, param: click.Parameter, value: str | None) -> list[str] | None:
    """``--sides german,soviet`` -> ``["german", "soviet"]``; the game checks the names."""
    if value is None:
        return None
    return [name.strip() for name in value.split(",")]


@main.command(cls=NewCommand)
@click.argument("directory", type=click.Path(file_okay=False))
@click.option("--game", "game_name", required=True, help="Game module: see Games below.",
              shell_complete=complete.game_names)
@click.option("--sides", metavar="A,B", callback=parse_sides,
              help="Name the two sides (a game that lets message 0 name them: dice), e.g. german,soviet.")
@click.option("--as", "side", required=True, help="Your side, e.g. first (or one that --sides names).",
              shell_complete=complete.side_names)
@click.option("--opponent", required=True, help="Opponent's public key: a .pub file or the line itself.")
@click.option("--rule", "rules", multiple=True, help="Optional rule to play with (repeatable), e.g. 14.2.")
@click.option("--ruling", "rulings", multiple=True, metavar="RULE=READING",
              help="How a disputed rule is read (repeatable), e.g. 6.5=landed; the others take the preset's reading.")
@click.option("--rulings", "preset", metavar="PRESET",
              help="A named set of readings of the disputed rules, e.g. tournament.  Default: each rule's default.")
@click.option("--data", help=DATA_HELP + " Default: the data shipped with pbem.")
@click.option("--json", "as_json", is_flag=True, help="Print the file written and the game as JSON.")
@handles_errors
def new(directory: str, game_name: str, sides: list[str] | None, side: str, opponent: str, rules: tuple[str, ...],
        rulings: tuple[str, ...], preset: str | None, data: str | None, as_json: bool) -> None:
    """Propose a game: write message 0 into DIRECTORY.

    The last line printed is the file to send to your opponent.

    Message 0 pins the hash of the game's data: the shipped data, or --data
    (your opponent then needs the same files: pbem data add).

    A game whose rules have sentences that can be read more than one way
    (Ambon) declares a ruling for each: message 0 pins the reading of every
    one (--ruling, --rulings; the defaults otherwise), both players see them
    before the game starts (this command, pbem join, show, verify) and both
    pbems play exactly those.

    The dice game's sides are first and second unless --sides names two
    others; message 0 pins the names, and every file and command uses them.

    \b
    Example: pbem new games/bob --game dice --as first --opponent bob.pub
             pbem new games/bob --game dice --sides german,soviet --as german --opponent bob.pub
             pbem new games/bob --game ambon --as japanese --opponent bob.pub \\
                 --rulings tournament --ruling 6.4=every-turn
    """
    from pbem.match import session

    named = parse_rulings(rulings)
    opponent_key = read_public_key(opponent)
    identity = load_identity()
    data = use_data(game_name, data)
    options = parse_options(rules) | named_sides(game_name, sides)
    path = session.new_game(directory, game_name, side, opponent_key, identity, options, data,
                            rulings=named, preset=preset)
    keystore().remember(opponent_key)  # you chose this key: it is known from now on (docs/protocol.md §4.1)
    keystore().record_game(game_id_of(path), path.parent)  # pbem status finds it wherever it is
    if as_json:
        emit_json(game_json(path, local=True))
        return
    click.echo(f"proposed {a_or_an(game_name)} game to {opponent_key.fingerprint}; you play {side}")
    declared = game_json(path, local=True)["rulings"]
    if declared:  # in brief: the proposal's summary, pbem join and pbem show say what each means
        shown = [f"{r['rule']} {r['reading']}" + ("" if r["default"] else " (not the default)") for r in declared]
        click.echo(f"rulings, pinned in message 0: {', '.join(shown)}")
    click.echo(path)


def named_sides(game_name: str, sides: list[str] | None) -> dict[str, Any]:
    """``--sides``, as the proposal's ``options.sides``, for a game whose
    message 0 may name its sides (:class:`pbem.engine.contract.Terms`)."""
    if sides is None:
        return {}
    from pbem.engine import registry
    from pbem.engine import contract
    from pbem.errors import UsageError

    game = registry.get(game_name, local=True)
    if not isinstance(game, contract.Terms):
        raise UsageError(f"--sides: the {game.name} game's sides are {', '.join(game.sides)}; they cannot be renamed")
    return {"sides": sides}


def game_id_of(path: Path) -> str:
    """The game id message file ``path`` belongs to."""
    from pbem.match.session import read_messages

    (_, msg), = read_messages([path])
    return msg.game


def game_json(path: Path, local: bool = False) -> dict[str, Any]:
    """What `new --json` and `join --json` print: the file to send and the
    game it belongs to (``local``: proposed here, by `new`)."""
    from pbem.match.session import proposal_rulings, read_messages

    (_, msg), = read_messages([path])
    (_, first), = read_messages(sorted(Path(path).parent.glob("0000-*.pbem"))[:1])
    setup = first.body["setup"]  # message 0's
    return {
        "file": str(path), "game": msg.game, "seq": msg.seq, "side": msg.side, "module": setup["module"],
        "options": setup.get("options", {}), "ruleset": setup["ruleset"],
        "keys": {side: line for side, line in setup["keys"].items()},
        "rulings": [{**r.to_json(), "line": r.line()} for r in proposal_rulings(setup, local=local)],
    }


@main.command()
@click.argument("proposal", type=click.Path(exists=True, dir_okay=False))
@click.option("--dir", "directory", required=True, type=click.Path(file_okay=False), help="New game directory.")
@click.option("--orders", "orders_path", type=click.Path(exists=True, dir_okay=False),
              help="Orders to carry in message 1 (e.g. your setup).")
@click.option("--data", type=click.Path(exists=True, file_okay=False),
              help="The data files your opponent chose, if not shipped or installed (installed first).")
@click.option("--accept-key", "accept_key", metavar="FINGERPRINT",
              help="Accept the proposer's key without asking: its SHA256:... fingerprint, as they told you.")
@click.option("--json", "as_json", is_flag=True, help="Print the file written and the game as JSON.")
@handles_errors
def join(proposal: str, directory: str, orders_path: str | None, data: str | None, accept_key: str | None,
         as_json: bool) -> None:
    """Accept a proposal (message 0) and write message 1.

    The last line printed is the file to send back.  A game that needs your
    first orders in message 1 (the Ambon Allied setup) takes them with
    --orders; `pbem orders PROPOSAL` writes their template.

    \b
    Example: pbem join 0000-first.pbem --dir games/ann
             pbem join 0000-japanese.pbem --dir games/ann --orders setup.toml
    """
    from pbem.errors import IllegalOrderError
    from pbem.match import session

    if data is not None:
        found, new = session.install_proposal_data(proposal, data)
        click.echo(f"{'installed' if new else 'using installed'} {found.game} data set {found.name}: {found.ruleset}",
                   err=True)
    identity = load_identity()
    orders = read_orders(orders_path) if orders_path else None
    try:
        path, transcript = session.join_game(proposal, directory, identity, orders, joined=keystore().path / "joined",
                                             trust=lambda key, t: trust_on_first_use(key, t, accept_key),
                                             warn=lambda finding: warn([finding]))
    except IllegalOrderError as err:
        if orders is not None:
            raise
        raise IllegalOrderError(f"{err}. Message 1 carries your first orders (e.g. your setup): "
                                f"pbem orders {proposal} --out first.toml, edit it, then "
                                f"pbem join {proposal} --dir {directory} --orders first.toml") from err
    keystore().record_game(transcript.game, path.parent)  # pbem status finds it wherever it is
    if as_json:
        emit_json(game_json(path))
        return
    proposer = transcript.messages[0].side
    click.echo(
        f"joined {transcript.setup['module']} game {transcript.game[:12]}...: "
        f"{proposer} is {transcript.keys[proposer].fingerprint} (check it with them)"
    )
    click.echo(path)


@main.command()
@click.argument("directory", type=click.Path(file_okay=False), shell_complete=complete.game_directories)
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, allow_dash=True))
@click.option("--json", "as_json", is_flag=True, help="Print the events and rolls as JSON.")
@handles_errors
def receive(directory: str, files: tuple[str, ...], as_json: bool) -> None:
    """Verify your opponent's message(s) and import them: .pbem files, text
    with a pasted message, .eml files, an mbox, a Maildir folder or - (stdin).

    Dice keyed by the opponent's message are computed now, with the chain
    value your reply will reveal.  From a mailbox, messages already imported
    are skipped and other games' messages are left alone (see `pbem import`);
    a message you already have is skipped too ("already have message 0003").

    pbem stores each message with the summary it writes itself: the lines
    above the signed block are not signed, and where the sender's said
    something else a warning quotes the first difference.

    Example: pbem receive games/bob ~/Downloads/0003-second.pbem
    """
    from pbem.match import session
    from pbem.render import console as render

    if any(f == "-" or Path(f).is_dir() or Path(f).suffix.lower() in (".mbox", ".mbx") for f in files):
        root = click.get_current_context().find_root().command
        assert isinstance(root, click.Group)  # pbem's own group: receive is one of its commands
        import_command = root.get_command(click.get_current_context(), "import")
        assert import_command is not None  # one of pbem's own commands
        return click.get_current_context().invoke(import_command, directory=directory, sources=files, as_json=as_json)

    identity = load_identity()
    result = session.receive(directory, files, identity)
    first_new = min((session_seq(p) for p in result.imported), default=len(result.match.transcript))
    if as_json:
        emit_json({**render.match_json(result.match, since=first_new), "already_had": result.had,
                   "warnings": [f.to_json() for f in result.findings]})
        return
    from pbem.render.literal import literal

    out = console()
    for seq in result.had:
        out.print(f"already have message {seq:04d}: nothing to import", highlight=False)
    for path in result.imported:
        out.print(literal(f"imported {path}"))
    warn(result.findings)
    render.print_events(out, result.match, since=first_new)
    render.print_turn(out, result.match)


def session_seq(path: Path) -> int:
    return int(Path(path).name[:4])


@main.command()
@click.argument("directory", type=click.Path(exists=True, file_okay=False), shell_complete=complete.game_directories)
@click.option("--orders", "orders_path", type=click.Path(exists=True, dir_okay=False), help="TOML orders file.")
@click.option("--json", "as_json", is_flag=True, help="Print the file written, its events and what comes next as JSON.")
@click.option("--dry-run", is_flag=True, help="Check the orders and show what the message would do; write nothing.")
@click.option("--yes", "-y", is_flag=True, help="At a terminal, write the message without asking first.")
@handles_errors
def play(directory: str, orders_path: str | None, as_json: bool, dry_run: bool, yes: bool) -> None:
    """Apply your orders and write your next message.

    Without --orders you are asked at the terminal.  With --orders at a
    terminal, pbem first shows what the message would do (any text it
    seals, and what the game warns of: a hex left overstacked...) and asks
    before writing it (--yes: write at once).  --dry-run shows it and
    writes nothing.  The last line printed is the file to send.

    \b
    Example: pbem orders games/bob --out turn.toml
             pbem play games/bob --orders turn.toml --dry-run
             pbem play games/bob --orders turn.toml
    """
    from pbem.match import session
    from pbem.render import console as render

    identity = load_identity()
    if orders_path:
        orders: Mapping[str, Any] = read_orders(orders_path)
    else:
        from pbem.errors import UsageError

        match = session.load(directory, identity)
        if match.closed:
            raise UsageError(f"the game is over; check it with: pbem verify {directory} --audit")
        if not match.my_turn:
            raise UsageError(f"it is not your turn: message {len(match.transcript):04d} is "
                             f"{match.replay.next_side}'s; send your last message and wait for the reply")
        try:
            orders = ask_for(match)
        except click.Abort:  # end of input or Ctrl-C at a prompt
            raise UsageError("stopped: no message written") from None
    ask_first = bool(orders_path) and not (yes or as_json or dry_run) and at_terminal()
    if dry_run or ask_first:
        tried = session.preview(directory, identity, orders)
        if as_json:
            emit_json({"dry_run": True, "file": str(tried.path), "warnings": tried.warnings,
                       **render.match_json(tried.match, since=session_seq(tried.path))})
            return
        from rich.text import Text

        from pbem.render.literal import literal

        out = console()
        out.print(Text.assemble(("Dry run: nothing is written." if dry_run else "Before writing:", "bold"), " ",
                                literal(f"{tried.path.name} would do:")))
        for event in tried.events:
            out.print(literal("  " + event.sentence()))
        for slot, text in tried.seals.items():
            out.print(literal(f"  sealed in slot {slot!r} (only you see this): {text}"))
        for text in tried.warnings:
            out.print(literal(f"  warning: {text}"))
        out.print("and then: ", end="")
        render.print_turn(out, tried.match)
        if dry_run:
            if tried.orders != orders:
                click.echo("What these orders leave to chance (shuffle = true) was drawn for this dry run only: "
                           "pbem play draws it afresh.")
            click.echo(f"Without --dry-run this is written as {tried.path}.")
            return
        if not click.confirm(f"Write {tried.path.name}?", default=True):
            from pbem.errors import UsageError

            raise UsageError("stopped: no message written")
        orders = tried.orders  # what was shown, its draws (e.g. shuffle = true) made once, is what is written
    result = session.play(directory, identity, orders)
    if as_json:
        seq = session_seq(result.path)
        emit_json({"file": str(result.path), **render.match_json(result.match, since=seq)})
        return
    from pbem.render.literal import literal

    out = console()
    for event in result.events:
        out.print(literal(event.sentence()))
    render.print_turn(out, result.match)
    click.echo(result.path)


def ask_for(match: Any) -> dict[str, Any]:
    """`pbem play` without --orders: the game's own terminal dialogue (its
    frontend's :class:`~pbem.engine.contract.Dialogue`)."""
    from pbem.engine import registry
    from pbem.engine.contract import Dialogue
    from pbem.errors import UsageError

    frontend = registry.frontend(match.game.name)
    if not isinstance(frontend, Dialogue):
        raise UsageError(f"the {match.game.name} game takes its orders from a file: pbem play DIR --orders FILE "
                         f"(see pbem orders DIR)")
    return frontend.ask_orders(match)


AT_HELP = "The game as it stood after message N (0 to the last)."
SPECTATOR_HELP = "Without your key: what anyone holding the files sees."
ALL_HELP = "Every event and roll, not only the last that fit the screen."
FROM_HELP = "The events and rolls from message N on."


@main.command()
@click.argument("directory", type=click.Path(exists=True, file_okay=False), shell_complete=complete.game_directories)
@click.option("--json", "as_json", is_flag=True, help="Print your side's view as JSON.")
@click.option("--svg", "svg_path", type=click.Path(dir_okay=False), help="Also draw the board as an SVG file.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False), help="Also write a self-contained HTML page.")
@click.option("--fresh", is_flag=True, help="Verify and replay every message, not going on from the replay kept last time.")
@click.option("--around", metavar="HEX", help="Draw the map around this hex (as many columns as fit, or --radius).")
@click.option("--radius", type=click.IntRange(min=0), metavar="N", help="With --around: N hexes each way.")
@click.option("--full", is_flag=True, help="Draw the whole map, however wide.")
@click.option("--at", "at", type=click.IntRange(min=0), metavar="N", help=AT_HELP)
@click.option("--spectator", is_flag=True, help=SPECTATOR_HELP)
@click.option("--all", "every", is_flag=True, help=ALL_HELP)
@click.option("--from", "since", type=click.IntRange(min=0), default=0, metavar="N", help=FROM_HELP)
@handles_errors
def show(directory: str, as_json: bool, svg_path: str | None, html_path: str | None, fresh: bool,
         around: str | None, radius: int | None, full: bool, at: int | None = None, spectator: bool = False,
         every: bool = False, since: int = 0) -> None:
    """Show the game from your side's view: board, order of battle, turn, last events.

    \b
    The map is drawn at your terminal's width, round the hexes of the last
    message's events; --around HEX [--radius N] draws another part, --full
    all of it.  Each stack has a letter, listed under the map with every
    unit's full id; [a] and (a) tell the sides apart without colour.
    A game without a map lists its last rolls, as many as fit the screen
    (--all: every one; --from N: those from message N on).

    \b
    Every command goes on from the replay it kept last time in your
    keystore (PBEM_HOME/checkpoints, sealed under your key), verifying and
    applying only the messages since; --fresh verifies and replays them all.

    \b
    --at N shows the game as it stood after message N, as pbem show drew
    it then (your own hidden values as they were; the dice message N keyed
    are rolled only in the view of the player whose reply completed them);
    the views of the past are never kept.  Without your key, or with
    --spectator, the view is a spectator's: the public record only.

    \b
    Examples: pbem show games/bob
              pbem show games/bob --around 1609 --radius 3
              pbem show games/bob --full --svg board.svg
              pbem show games/bob --at 12 --spectator
    """
    from pbem.errors import UsageError
    from pbem.match.checkpoint import Checkpoints, console_inputs
    from pbem.match.directory import GameDirectory

    if radius is not None and around is None:
        raise UsageError("--radius goes with --around HEX (the hex to centre on)")
    if full and around is not None:
        raise UsageError("--full draws the whole map: leave out --around, or leave out --full")
    identity = None if spectator else viewer_identity()
    window = {"around": around, "radius": radius, "full": full, "every": every, "since": since}
    kept = Checkpoints.of(identity) if identity is not None and at is None and not (as_json or svg_path or html_path) \
        else None
    mode = "board" + "".join(f" {k}={v}" for k, v in window.items() if v not in (None, False, 0))
    inputs = console_inputs()
    if kept is not None and not fresh:
        text = kept.drawn(directory, GameDirectory(directory).require_entries(), identity, mode, inputs)
        if text is not None:
            sys.stdout.write(text)
            return
    from pbem.match import session

    match = (session.load_view(directory, identity, fresh=fresh) if at is None
             else session.load_at(directory, identity, at, fresh=fresh))
    view = match.view()
    if (around or full) and not as_json:
        from pbem.render import board

        if not board.has_board(match.game, view):
            raise UsageError(f"--around/--full: the {match.game.name} game has no map to draw")
    if svg_path:
        write_svg(svg_path, match.game, view, f"{match.game.name} -- "
                  + (f"{match.player.side}'s view" if match.player else "a spectator's view")
                  + (f" -- {match.at.heading()}" if match.at else ""))
    if html_path:
        from pbem.render.html import match_html

        write_output(html_path, match_html(match))
    if as_json:
        from pbem.render import console as render

        emit_json(render.match_json(match))
        return
    out = console()
    with out.capture() as captured:
        draw_match(out, match, view, window)
    text = captured.get()
    sys.stdout.write(text)
    if kept is not None:
        kept.keep_drawn(directory, match, identity, mode, inputs, text)


def at_terminal() -> bool:
    """Someone types at a terminal and reads what is printed (pbem may ask)."""
    return sys.stdin.isatty() and interactive_output()


def interactive_output() -> bool:
    """Output goes to a terminal (someone will look at it, and may `pbem show` next)."""
    return sys.stdout.isatty()


def draw_match(out: Any, match: Any, view: Any, window: Mapping[str, Any] | None = None) -> None:
    """The board (or a boardless game's summary), its last events and whose turn it is."""
    from pbem.render import board
    from pbem.render import console as render

    if board.has_board(match.game, view):
        render.print_at(out, match)
        if match.player is None:
            out.print("(a spectator's view: the public record only)", highlight=False)
        last = len(match.transcript) - 1
        from pbem.engine.history import newest

        events = [e for s, e in newest(match.replay.events, lambda item: item[0] >= last) if s == last]
        ruled = render.rulings_line(render.rulings_of(match))
        shape = {k: v for k, v in (window or {}).items() if k in ("around", "radius", "full")}
        board.print_board(out, match.game, view, you=match.player.side if match.player else None, events=events,
                          notes=[ruled] if ruled else [], **shape)
        render.print_turn(out, match)
    else:
        from pbem.engine import contract
        from pbem.render.literal import literal

        ruled = render.rulings_line(render.rulings_of(match))
        if ruled:
            out.print(literal(ruled))
        for line in (match.game.summary(match.replay.state) if isinstance(match.game, contract.Summary) else []):
            out.print(literal(line))
        render.print_show(out, match, (window or {}).get("since", 0), (window or {}).get("every", False), view)


def write_svg(path: str, game: Any, view: Any, title: str) -> None:
    from pbem.errors import UsageError
    from pbem.render import board

    if not board.has_board(game, view):
        raise UsageError(f"--svg: the {game.name} game has no board to draw")
    write_output(path, board.board_svg(game, view, title))


@main.command()
@click.argument("directory", type=click.Path(exists=True, file_okay=False), shell_complete=complete.game_directories)
@click.option("--json", "as_json", is_flag=True, help="Print events and rolls as JSON.")
@click.option("--at", "at", type=click.IntRange(min=0), metavar="N", help="The events and rolls up to message N.")
@click.option("--spectator", is_flag=True, help=SPECTATOR_HELP)
@click.option("--all", "every", is_flag=True, help=ALL_HELP)
@click.option("--from", "since", type=click.IntRange(min=0), default=0, metavar="N", help=FROM_HELP)
@handles_errors
def log(directory: str, as_json: bool, at: int | None = None, spectator: bool = False, every: bool = False,
        since: int = 0) -> None:
    """The event log: the events, and each roll with its dice, result and
    keying message.

    \b
    A long game's log is cut to what fits the screen (20 of each in a
    pipe): the last events and rolls, with a line saying how many earlier
    ones are left out.  --all prints every one; --from N those from
    message N on (with --all, all of those).  --json is never cut.

    \b
    --at N lists the events up to and including message N and the rolls
    as pbem log listed them then: the dice message N keyed are rolled
    (listed under N+1) only for the player whose reply completed them.

    \b
    Examples: pbem log games/bob
              pbem log games/bob --all
              pbem log games/bob --from 120
              pbem log games/bob --at 12 --spectator
    """
    from pbem.match import session
    from pbem.render import console as render

    identity = None if spectator else viewer_identity()
    match = session.load_view(directory, identity) if at is None else session.load_at(directory, identity, at)
    if as_json:
        emit_json(render.match_json(match, since))
        return
    out = console()
    render.print_at(out, match)
    if match.player is None:
        out.print("(a spectator's view: the public record; your own dice and notes need your key)", highlight=False)
    render.print_log(out, match, since, every)


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--audit", is_flag=True, help="Also check every hidden fact (needs both closing messages).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option(
    "--extract",
    type=click.Path(file_okay=False),
    help="Write each message's body, signature and allowed_signers file here, for ssh-keygen.",
)
@click.option("--data", "data_dirs", multiple=True, type=click.Path(exists=True, file_okay=False),
              help="A directory that may hold the data message 0 pins (repeatable; installed sets are found anyway).")
@handles_errors
def verify(paths: tuple[str, ...], audit: bool, as_json: bool, extract: str | None, data_dirs: tuple[str, ...]) -> None:
    """Check a game: every signature, link, chain value, reveal and die.

    PATHS are game directories or message files.  Exit status 0 only if all
    holds, 1 if anything fails verification.  Needs no key: anyone holding
    the files can verify.  A file whose unsigned summary says something its
    signed message does not is a warning (the exit status is unchanged).

    Example: pbem verify games/bob --audit

    \b
    Checking a signature by hand with OpenSSH's ssh-keygen:
      pbem verify GAME --extract out/
      ssh-keygen -Y verify -f out/allowed_signers -I first@pbem \\
          -n pbem-turn-v1 -s out/0002.sig < out/0002.body
    The .body file holds the exact signed bytes (canonical JSON); the
    allowed_signers file lists each side's key as SIDE@pbem.  Without pbem:
    base64-decode the lines between BEGIN PBEM MESSAGE and BEGIN SSH
    SIGNATURE into the body file, and save the SSH SIGNATURE block as is.
    """
    from pbem.cli.everyday import progress_bar
    from pbem.errors import PbemError, VerificationError
    from pbem.match import session
    from pbem.render import console as render
    from pbem.render.literal import visible

    try:
        with progress_bar("verifying") as progress:
            report = session.verify(paths, audit=audit, progress=progress, data=data_dirs)
    except PbemError as err:
        if as_json:  # a script reading the report gets one either way, saying why it failed
            failure_json(str(err), type(err).__name__, err.exit_code, audited=False, paths=[str(p) for p in paths])
            raise PbemClickError(visible(err, newlines=True), err.exit_code) from err
        raise
    if extract:
        write_extract(Path(extract), report.transcript)
    if as_json:
        emit_json(render.report_json(report))
    else:
        render.print_report(console(), report)
        warn(report.warnings)
    if not report.ok:
        raise PbemClickError("audit failed: " + "; ".join(report.problems), VerificationError.exit_code)


def write_extract(out: Path, transcript: Any) -> None:
    from pbem.protocol.sshsig import armor

    out.mkdir(parents=True, exist_ok=True)
    signers = [f"{side}@pbem {key.openssh()}" for side, key in transcript.keys.items()]
    (out / "allowed_signers").write_text("\n".join(signers) + "\n")
    for msg in transcript.messages:
        (out / f"{msg.seq:04d}.body").write_bytes(msg.body_bytes)
        (out / f"{msg.seq:04d}.sig").write_text(armor(msg.signature))


# --------------------------------------------------------------------------- referee


@main.command()
@click.option("--game", "game_name", required=True, help="Game module (or module:attribute).",
              shell_complete=complete.game_names)
@click.option("--scenario", required=True, type=click.Path(exists=True, dir_okay=False), help="Position (TOML).")
@click.option("--orders", "orders_path", required=True, type=click.Path(exists=True, dir_okay=False), help="Orders (TOML).")
@click.option("--dice", default="", help="The dice, in the order the rules ask for them: 3,5,6")
@click.option("--as", "side", help="Whose orders (default: the side to act in the scenario).",
              shell_complete=complete.side_names)
@click.option("--data", "data_dir", type=click.Path(exists=True, file_okay=False), help="Use this game data directory.")
@click.option("--json", "as_json", is_flag=True, help="Print events and the new position as JSON.")
@click.option("--svg", "svg_path", type=click.Path(dir_okay=False), help="Draw the new position as an SVG file.")
@handles_errors
def adjudicate(
    game_name: str,
    scenario: str,
    orders_path: str,
    dice: str,
    side: str | None,
    data_dir: str | None,
    as_json: bool,
    svg_path: str | None,
) -> None:
    """Referee mode: apply orders to a position with dice given by hand
    (physical dice at a table, a rulebook example) and print what happens.

    Example: pbem adjudicate --game ambon --scenario pos.toml --orders o.toml --dice 3,5
    """
    from pbem.engine import contract, referee, registry
    from pbem.errors import UsageError
    from pbem.render import board

    game: contract.Game = registry.get(game_name, data_dir, local=True)
    if not isinstance(game, contract.RefereePositions):
        raise UsageError(f"the {game.name} game has no positions to adjudicate")
    position = read_orders(scenario)
    state = game.scenario_state(position)
    if side is None:
        side = game.active_side(state)
    if side not in game.sides:
        raise UsageError(f"--as {side!r}: the sides are {', '.join(game.sides)}")
    secrets = game.scenario_secrets(position) if isinstance(game, contract.RefereeSecrets) else {}
    result = referee.adjudicate(
        game, state, side, read_orders(orders_path), referee.parse_dice(dice), secrets=secrets
    )
    view = game.view(result.state, None)
    if svg_path:
        write_svg(svg_path, game, view, f"{game.name} -- after {side}'s orders")
    if as_json:
        emit_json(
            {
                "events": [e.to_json() for e in result.events],
                "rolls": [{"label": label, "values": list(values)} for label, values in result.rolls],
                "position": view,
            }
        )
        return
    from pbem.render.literal import literal

    out = console()
    for event in result.events:
        out.print(literal(event.sentence()))
    if board.has_board(game, view):
        board.print_board(out, game, view)


# --------------------------------------------------------------------------- solo


@main.group()
def data() -> None:
    """The data a game is played with: shipped, or the printed game's values.

    \b
    pbem ships data for each game (for Ambon a reconstruction: the printed
    map, counters, CRT and TEC are not public).  Owners of the printed game
    install its values once and propose games with them:
      pbem data add ambon ~/ambon-printed --name printed
      pbem new games/bob --game ambon --as japanese --opponent bob.pub --data printed
    Message 0 pins the data's hash; your opponent installs the same files
    (or joins with --data DIR), and every command then finds them by hash.

    Example: pbem data list ambon
    """


@data.command("list")
@click.argument("games", nargs=-1, shell_complete=complete.game_names)
@click.option("--json", "as_json", is_flag=True, help="Print the sets as JSON.")
@handles_errors
def data_list(games: tuple[str, ...], as_json: bool) -> None:
    """Each data set (shipped and installed) of GAMES (default: every game with data), with its hash.

    Example: pbem data list ambon
    """
    from pbem.engine import registry
    from pbem.match import datasets

    names = games or tuple(sorted(registry.available()))
    sets = [s for name in names for s in datasets.describe_all(name)]
    if as_json:
        emit_json([{"game": s.game, "name": s.name, "path": str(s.path) if s.path else None, "ruleset": s.ruleset} for s in sets],
                  "data_sets")
        return
    for s in sets:
        click.echo(f"{s.game:10s} {s.describe()}")


@data.command("add")
@click.argument("game_name", metavar="GAME", shell_complete=complete.game_names)
@click.argument("directory", type=click.Path(exists=True, file_okay=False), shell_complete=complete.game_directories)
@click.option("--name", help="Name of the set (default: the first 12 digits of its hash).")
@handles_errors
def data_add(game_name: str, directory: str, name: str | None) -> None:
    """Check DIRECTORY's data files by loading GAME with them (files it lacks
    come from the shipped set) and install them in your keystore.

    Example: pbem data add ambon ~/ambon-printed --name printed
    """
    from pbem.match import datasets

    found, new = datasets.install(game_name, directory, name)
    click.echo(f"{'installed' if new else 'already installed'}: {game_name} {found.describe()}")


@main.group(cls=PbemGroup)
def solo() -> None:
    """Play alone at the terminal; the house keeps what the rules hide.

    The house's key lives in DIR/house, on your machine: pbem keeps the
    hidden facts out of your sight, but reading that key would show them and
    the house's next dice.  A solo game's files prove that every rule and
    roll was applied (anyone can verify them), not that nobody peeked.

    Example: pbem solo ambon --dir games/solo-ambon
    """


# --------------------------------------------------------------------------- demo


class DemoCommand(click.Command):
    """``pbem demo``'s help lists the installed games' demos (their frontends'
    :class:`~pbem.engine.contract.Demo`), loaded only for the help."""

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_help_text(ctx, formatter)
        from pbem.app.demo import demos

        with formatter.section("Games"):
            formatter.write_dl([(f"pbem demo {name}", script.summary + (" (the default)" if name == DEFAULT_DEMO else ""))
                                for name, script in sorted(demos().items())])


@main.command(cls=DemoCommand)
@click.argument("game", required=False, shell_complete=complete.game_names)
@click.option("--dir", "directory", type=click.Path(file_okay=False), help="Keep the demo game here (created).")
@click.option("--ruling", "rulings", multiple=True, metavar="RULE=READING",
              help="Propose the game with this reading of a disputed rule (repeatable), as pbem new does.")
@click.option("--rulings", "preset", metavar="PRESET", help="Propose the game with a named set of readings, e.g. tournament.")
@handles_errors
def demo(game: str | None, directory: str | None, rulings: tuple[str, ...], preset: str | None) -> None:
    """Play a whole scripted game by email between two fresh identities in a
    temporary directory (or DIR), verify it with --audit, and print the
    result.  No prompts.

    \b
    Example: pbem demo ambon --dir demo-ambon
             pbem demo ambon --rulings tournament
    """
    import tempfile

    from pbem.app import demo as demo_lib
    from pbem.engine import contract, registry
    from pbem.render import console as render

    game = game or DEFAULT_DEMO
    named = parse_rulings(rulings)
    script = demo_lib.script_of(game)
    contract.proposed_options(registry.get(game), {}, named, preset)  # unknown rulings refused before anything is played
    out = console()

    def progress(line: str) -> None:
        out.print(line, markup=False)

    def run(where: Path, kept: bool):
        first, second = script.proposer, script.joiner
        out.print(f"pbem demo {game}: {first.full_name} and {second.full_name}, each with a key of their own, play a "
                  f"whole game by email in {where}{'' if kept else ' (a temporary directory, removed at the end; --dir keeps it)'}: "
                  f"every message is signed, verified on arrival and replayed by both; at the end the game is "
                  f"verified with --audit.  {script.summary}.", markup=False, highlight=False)
        report = demo_lib.play_by_email(where, game, script, progress=progress, rulings=named, preset=preset)
        if script.last_line is not None:
            progress(script.last_line(report.final))
        final = report.final
        from pbem.render import board

        if board.has_board(final.game, final.view()):
            events = [e for _, e in final.replay.events if e.rule in script.highlight]
            tally = next((e for e in reversed(events) if "breakdown" in e.data), None)
            shown = [e for e in events if e is not tally]
            ruled = render.rulings_line(render.rulings_of(final))
            board.print_board(out, final.game, final.view(), you=final.me.side, events=shown,
                              notes=[ruled] if ruled else [])
            if tally is not None:  # the VP items as a table, not one long sentence
                out.print(board.plain_table(["VP item", "VP"], [[str(why), f"{vp:+d}"] for why, vp in tally.data["breakdown"] if vp]
                                            + [["total", f"{tally.data['vp']:+d}"]],
                                            title=f"[{tally.rule}] {tally.text.split(' (')[0]}"))  # the event, less its items
        elif isinstance(final.game, contract.Summary):
            for line in final.game.summary(final.replay.state):
                out.print(line, markup=False)
        else:
            render.print_rolls(out, report.verify.replay, title="Rolls in the demo game")
        render.print_report(out, report.verify)
        out.print(report.watched, markup=False, highlight=False)
        return report

    if directory:
        report = run(Path(directory), True)
        out.print(f"the demo game is kept in {directory}")
    else:
        with tempfile.TemporaryDirectory(prefix="pbem-demo-") as tmp:
            report = run(Path(tmp), False)
    if not report.verify.ok or not report.logs_agree:
        raise PbemClickError("demo failed verification", 1)


# The everyday commands and every game's commands (pbem.engine.contract.Commands,
# the pbem.commands entry points) are registered the first time a command
# list is needed, or a command that pbem.cli does not hold itself (PbemGroup).
# Only the modules the entry points name are imported: no game's rules, not
# even the contract, so `pbem --help` stays fast.
_plugins_registered = False


def _register_plugins() -> None:
    global _plugins_registered
    if _plugins_registered:
        return
    _plugins_registered = True
    from pbem.cli import everyday
    from pbem.engine import installed

    everyday.register(main)
    for register in installed.commands():
        register(main)


if __name__ == "__main__":  # pragma: no cover
    main()
