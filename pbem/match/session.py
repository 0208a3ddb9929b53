"""One player's view of one game: propose, join, receive, play, verify.

Every function here takes the player's :class:`~pbem.protocol.keys.Identity`
explicitly (the CLI loads it from the keystore), reads the game directory,
verifies everything it holds, and writes at most one new file per message,
atomically.  Nothing is written when anything fails.
"""

from __future__ import annotations

import base64
import random
import secrets as _random
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from pbem import __version__
from pbem.engine import contract, registry
from pbem.engine.history import History, newest
from pbem.engine.machine import RevealDue
from pbem.engine.ruleset import ruleset_hash as files_hash
from pbem.errors import (
    DataError,
    EquivocationError,
    HiddenInfoError,
    IllegalOrderError,
    InputError,
    IntegrityError,
    NotAPlayerError,
    PbemError,
    UsageError,
    VerificationError,
)
from pbem.match import datasets
from pbem.match.checkpoint import Checkpoints, Covered, Stamps
from pbem.match.directory import FILE_RE, GameDirectory, message_name
from pbem.match.replay import Replay, actions_for, apply_message, counted, extend, pending_rolls, replay
from pbem.match.summary import Finding, check_files, claimed_in, compare, events_of, message_summary, summary_of
from pbem.protocol import limits, sealed, sshsig
from pbem.protocol import scan as mail_scan
from pbem.protocol.chain import HashChain, chain_seed
from pbem.protocol.keys import derive_secret
from pbem.protocol.limits import read_input
from pbem.protocol.message import FORMAT_VERSION, SignedMessage, sign_body
from pbem.protocol.transcript import Transcript
from pbem.util.atomicfile import replace as write_whole


def ruleset_hash(game: Any) -> str:
    """SHA-256 over the game's data files: pins the ruleset in message 0."""
    return files_hash(game.ruleset_files())


def game_secret(identity: Any, game_id: str, side: str, joined: bytes | None = None) -> bytes:
    """The per-game secret: derived from the player's key, so it is never lost
    (protocol 7.1).  The proposer's is fixed by the game id its own pbem drew
    at random; the joiner's also by ``joined`` = SHA256 of message 0's body
    and the 16 random bytes message 1 publishes as ``fresh``, so a proposer
    who reuses an old game id (or sends one proposal twice) never meets a
    secret the joiner used before.  Games joined before ``fresh`` existed
    keep the first derivation (``joined`` None)."""
    if joined is None:
        return derive_secret(identity, b"pbem-game-secret-v1\x00" + game_id.encode() + b"\x00" + side.encode())
    return derive_secret(identity, b"pbem-game-secret-v2\x00" + game_id.encode() + b"\x00" + side.encode() + b"\x00" + joined)


def _game_for(transcript: Transcript, data: Iterable[str | Path] = ()) -> Any:
    """The game message 0 names, built with the data its ruleset hash pins
    (shipped, one of ``data``, or installed in the keystore: docs/architecture.md, "Rules as data")."""
    setup = transcript.setup
    game = contract.game_for_terms(registry.get(setup["module"]), setup["module_version"], setup["options"])
    if setup["module_version"] != game.version:
        raise IntegrityError(
            f"message 0000 pins {setup['module']} version {setup['module_version']}, this pbem has {game.version}"
        )
    if sorted(transcript.sides) != sorted(game.sides):
        raise IntegrityError(
            f"message 0000 names the sides {', '.join(sorted(transcript.sides))}; "
            f"the {setup['module']} game's are {', '.join(sorted(game.sides))}"
        )
    if setup["ruleset"] != ruleset_hash(game):
        game = datasets.for_ruleset(setup["module"], setup["ruleset"], data, proposed_with=setup.get("pbem_version"),
                                    terms=lambda built: contract.game_for_terms(built, setup["module_version"],
                                                                                setup["options"]))
    return game


def read_messages(paths: Iterable[Path], read: dict[Path, bytes] | None = None) -> list[tuple[Path, SignedMessage]]:
    """Every message in ``paths``: turn files, text with pasted armour, or a
    whole email / mbox (attachments and any transfer encoding).  ``read``:
    files' bytes by path -- those in it are not read again, and those read
    now are added to it."""
    found = []
    for path in paths:
        if read is not None and path in read:
            data = read[path]
        else:
            data = read_input(path)
            if read is not None:
                read[path] = data

        if mail_scan.looks_like_mail(data) or mail_scan.looks_like_mbox(data):
            scan = mail_scan.scan_bytes(data, Path(path).name)
            if scan.unreadable and not scan.found:
                raise IntegrityError(f"{path}: {scan.unreadable[0][1]}")
            messages = [item.message for item in scan.found]
        else:
            messages = SignedMessage.all_from_text(data, source=str(path))
        if not messages:
            # a game's own message file without its armour is damage (exit 1); any other file, wrong input (exit 2)
            error = IntegrityError if FILE_RE.match(Path(path).name) else InputError
            raise error(f"{path}: no '-----BEGIN PBEM MESSAGE-----' line; not a pbem turn file")
        found += [(Path(path), msg) for msg in messages]
    return found


def _check_same_author(a: SignedMessage, b: SignedMessage, transcript: Transcript | None) -> None:
    """Two different bodies for one seq: equivocation if one author signed both."""
    if a.game != b.game or a.side != b.side or a.author != b.author:
        return
    if a.body.get("prev") != b.body.get("prev"):
        return  # they answer different messages: the fork is earlier, not this author's doing
    if transcript is None or a.side not in transcript.keys:
        return  # without message 0 nobody can say whose key signed
    key = transcript.keys[a.side]
    try:
        signer_a = sshsig.verify(a.signature, a.body_bytes, "pbem-turn-v1", expected=key)
        sshsig.verify(b.signature, b.body_bytes, "pbem-turn-v1", expected=signer_a)
    except VerificationError:
        return
    raise EquivocationError(
        f"equivocation: two different messages {a.seq:04d} both signed by {a.side} ({a.author}); "
        f"body hashes {a.digest.hex()[:16]}... and {b.digest.hex()[:16]}... -- proof of cheating"
    )


def _refuse_equivocation(incoming: Sequence[tuple[Path, SignedMessage]], transcript: Transcript) -> None:
    """Two different bodies for one message number signed by one author, in
    what is received (one file may hold both) or against what is stored:
    :class:`EquivocationError` before any of it is kept."""
    by_seq: dict[int, SignedMessage] = {}
    for _, msg in incoming:
        first = by_seq.setdefault(msg.seq, msg)
        if first.body_bytes != msg.body_bytes:
            _check_same_author(first, msg, transcript)
        if msg.seq < len(transcript) and transcript.messages[msg.seq].body_bytes != msg.body_bytes:
            _check_same_author(transcript.messages[msg.seq], msg, transcript)


def build_transcript(messages: Iterable[SignedMessage]) -> Transcript:
    transcript = Transcript()
    for msg in messages:
        transcript.add(msg)
    return transcript


@dataclass
class Player:
    """The local player of a game: key, side, per-game secret and own sealed store."""

    identity: Any
    side: str
    secret: bytes
    chain: HashChain
    store: dict[str, str] = field(default_factory=dict)
    fresh: bytes | None = None  # the joiner's random bytes, published in message 1

    @classmethod
    def of(cls, identity: Any, transcript: Transcript, fresh: bytes | None = None) -> "Player":
        """The player ``identity`` is in ``transcript``; ``fresh``: a joiner's
        new random bytes while message 1 is being written (later they are
        read from message 1)."""
        side = transcript.side_for_key(identity.public.fingerprint)
        if side is None:
            raise NotAPlayerError(
                f"your key {identity.public.fingerprint} is not a player of game {transcript.game[:12]}..."
            )
        joined = None
        if side != transcript.messages[0].side:
            if len(transcript.messages) > 1:
                published = transcript.messages[1].body.get("fresh")
                fresh = bytes.fromhex(published) if published else None
            if fresh is not None:
                joined = transcript.messages[0].digest + fresh
        secret = game_secret(identity, transcript.game, side, joined)
        chain = HashChain(chain_seed(secret))
        if chain.anchor != transcript.anchors.get(side, chain.anchor):
            raise UsageError(f"this key does not regenerate {side}'s chain anchor; was the game started with another key?")
        return cls(identity, side, secret, chain, store=own_store(secret, side, transcript, len(transcript)), fresh=fresh)

    def next_value(self, seq: int) -> bytes:
        return self.chain.value(seq // 2)


def own_store(secret: bytes, side: str, transcript: Transcript, count: int) -> dict[str, str]:
    """``side``'s sealed store as it stood after the first ``count`` messages:
    the one sealed in its latest message among them.  Each message re-seals
    the whole store once it holds anything (compose), so an empty 'sealed'
    there means nothing is sealed yet."""
    store: dict[str, str] = {}
    for m in (count - 2, count - 1):
        if m >= 0 and transcript.side_of(m) == side and transcript.messages[m].body["sealed"]:
            msg = transcript.messages[m]
            store = sealed.open_store(secret, transcript.game, msg.author, m, base64.b64decode(msg.body["sealed"]))
    return store


@dataclass(frozen=True)
class At:
    """Where a view at a message stands (``pbem show/log --at N``): after
    message ``seq`` of the ``count`` the directory holds, written by
    ``author``; ``awaited``: what was awaited then (:func:`awaited_then`)."""

    seq: int
    count: int
    author: str
    awaited: str = ""

    @property
    def last(self) -> bool:
        return self.seq == self.count - 1

    def heading(self) -> str:
        """``the position after message 0012 (of 0000-0039), written by japanese``."""
        of = f"the last of 0000-{self.count - 1:04d}" if self.last else f"of 0000-{self.count - 1:04d}"
        return f"the position after message {self.seq:04d} ({of}), written by {self.author}"

    def lines(self) -> list[str]:
        """The heading a view at a message starts with."""
        heading = self.heading()
        return [heading[0].upper() + heading[1:], f"awaited then: {self.awaited}"]

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "messages": self.count, "author": self.author, "last": self.last,
                "awaited": self.awaited}


def awaited_then(match: "Match", last: bool) -> str:
    """What was awaited after ``match``'s last message: the next message
    (written since, unless it was the ``last``), the reveals owed and the
    dice keyed but not rolled yet."""
    replay = match.replay
    if match.closed:
        return "nothing: the game was over"
    awaited = (f"{replay.next_side}'s closing message {replay.next_seq:04d}" if replay.over
               else f"message {replay.next_seq:04d} by {replay.next_side}")
    if not last:
        awaited += f" (written since: --at {replay.next_seq})"
    owed = [a for a in match.game.awaiting(replay.state) if isinstance(a, RevealDue)]
    if owed:
        awaited += "; " + ", ".join(f"{a.side}'s reveal of {a.slot}" + (f" ({a.rule})" if a.rule else "") for a in owed)
    if replay.pending:
        pending = pending_rolls(replay)
        awaited += "; " + counted(pending, "", " keyed by " + ", ".join(sorted({f"{r.key_seq:04d}" for r in pending})))
    return awaited


@dataclass
class Match:
    """A game directory loaded, verified and replayed for one player."""

    directory: GameDirectory
    transcript: Transcript
    game: Any
    player: Player | None
    replay: Replay
    covered: Any = field(default=None, repr=False, compare=False)  # the files read (checkpoint.Covered)
    at: At | None = None  # a view at a message (load_at): where it stands

    @property
    def my_turn(self) -> bool:
        return self.player is not None and self.replay.next_side == self.player.side and not self.closed

    def last_file(self) -> Path:
        """The newest message file read (as listed when the game was loaded)."""
        names: list[str] = self.covered.stamps.names if self.covered is not None else []
        if names:
            return self.directory.path / names[-1]
        return self.directory.message_files()[-1][2]

    @property
    def closed(self) -> bool:
        """Over, and both closing messages (with the secrets) sent."""
        return self.replay.over and len(self.transcript.secrets) == len(self.transcript.sides)

    @property
    def me(self) -> Player:
        """The player, for a match loaded with a player's key (as every
        command that writes a message loads it: :meth:`Player.of` refuses
        any other key)."""
        assert self.player is not None, "the match was loaded without a player's key"
        return self.player

    def view(self) -> dict[str, Any]:
        side = self.player.side if self.player else None
        secrets = self.player.store if self.player else None
        shown: dict[str, Any] = self.game.view(self.replay.state, side, secrets)
        return shown


def load_view(directory: str | Path, identity: Any | None, *, fresh: bool = False) -> Match:
    """:func:`load` for looking on: the player's own view with a player's
    key, a spectator's (the public record only) with none or another key."""
    if identity is not None:
        try:
            return load(directory, identity, fresh=fresh)
        except NotAPlayerError:
            pass
    return load(directory, None)


def load_at(directory: str | Path, identity: Any | None, seq: int, *, fresh: bool = False) -> Match:
    """The game as it stood after message ``seq`` (``pbem show/log --at``),
    seen as :func:`load_view` sees it: the player's own view -- their sealed
    values as they stood then -- with a player's key, a spectator's without.

    The whole directory is verified (:func:`load_view`); then the verified
    messages 0..``seq`` are verified again as a transcript of their own and
    replayed from the start, so nothing after ``seq`` reaches the view: as
    ``pbem show`` drew it after message ``seq``, the dice that message keyed
    are rolled only for the player whose reply completes their key (with
    the value that reply published, so not provisional).  ``seq`` the last
    message: the same position as :func:`load_view` gives.  The checkpoint
    is the whole game's, renewed as any load renews it; nothing of the past
    is kept."""
    current = load_view(directory, identity, fresh=fresh)
    count = len(current.transcript)
    if not 0 <= seq < count:
        raise UsageError(f"--at {seq}: no such message; this game has messages 0 to {count - 1}", field="at")
    author = current.transcript.messages[seq].side
    if seq == count - 1:
        current.at = At(seq, count, author, awaited_then(current, True))
        return current
    prefix = build_transcript(current.transcript.messages[: seq + 1])
    player = current.player
    next_value = None
    if player is not None:
        player = Player(player.identity, player.side, player.secret, player.chain,
                        own_store(player.secret, player.side, prefix, seq + 1), player.fresh)
        if prefix.side_of(seq + 1) == player.side:  # as load keyed them: with the reply's value, published since
            next_value = current.transcript.chain_values[seq + 1]
    result = replay(current.game, prefix, next_value=next_value)
    if next_value is not None:  # completed by a reply that is sent now: no longer provisional
        result.rolls = History([replace(r, provisional=False) for r in result.rolls])
    match = Match(current.directory, prefix, current.game, player, result)
    match.at = At(seq, count, author, awaited_then(match, False))
    return match


def load(directory: str | Path, identity: Any | None = None, *, keep: bool = True, fresh: bool = False) -> Match:
    """Verify and replay a game directory (with the player's key, keying the
    dice of an opponent's last message provisionally).

    With the player's key, the replay kept in the keystore
    (:mod:`pbem.match.checkpoint`) covers the messages it matches: only the
    messages since are verified and applied (``fresh``: all of them), and
    the kept replay is renewed (unless not ``keep``: a command that writes a
    message renews it after)."""
    gamedir = GameDirectory(directory)
    entries = gamedir.require_entries()
    checkpoints = Checkpoints.of(identity) if identity is not None else None
    kept = checkpoints.restore(gamedir.path, entries, identity, _game_for) if checkpoints and not fresh else None
    restored, covered = kept if kept else (None, Covered(0, Stamps()))
    transcript = restored.transcript.copy() if restored else Transcript()
    for seq, side, name, _ in entries[len(transcript):]:
        path = gamedir.path / name
        try:
            data = path.read_bytes()
        except OSError as err:
            raise InputError(f"cannot read {path}: {err.strerror}") from err
        found = read_messages([path], {path: data})
        if len(found) != 1:
            raise IntegrityError(f"{path.name}: a message file must hold exactly one message, holds {len(found)}")
        msg = found[0][1]
        transcript.add(msg)
        if msg.seq != seq or msg.side != side:
            raise IntegrityError(f"{path.name} holds message {msg.seq:04d} by {msg.side} (renamed file?)")
    added = len(entries) - covered.count
    covered = Covered(len(transcript), covered.stamps.extended(Stamps.of_entries(entries[covered.count:])))
    game = restored.game if restored else _game_for(transcript)
    player = Player.of(identity, transcript) if identity is not None else None
    next_value = None
    if player is not None and transcript.side_of(len(transcript)) == player.side:
        next_value = player.next_value(len(transcript))
    if restored:
        result = extend(restored, transcript, next_value=next_value)
    else:
        result = replay(game, transcript, next_value=next_value)
    match = Match(gamedir, transcript, game, player, result, covered)
    if keep and checkpoints and added:
        checkpoints.keep(gamedir.path, covered, result, identity)
    return match


def keep_checkpoint(match: Match, identity: Any, written: Iterable[Path]) -> None:
    """Renew the kept replay after a command wrote the message files
    ``written`` on top of those its load read (receive, play)."""
    checkpoints = Checkpoints.of(identity)
    if checkpoints is None or match.covered is None:
        return
    written = list(written)
    stamps = match.covered.stamps.extended(Stamps.of_pairs([(path.name, path.stat()) for path in written]))
    covered = Covered(match.covered.count + len(written), stamps)
    if covered.count == len(match.transcript):
        checkpoints.keep(match.directory.path, covered, match.replay, identity)


# --------------------------------------------------------------------------- writing messages


def _body(transcript: Transcript | None, game_id: str, seq: int, player_side: str, identity: Any, chain_value: bytes) -> dict[str, Any]:
    return {
        "pbem": FORMAT_VERSION,
        "game": game_id,
        "seq": seq,
        "side": player_side,
        "author": identity.public.fingerprint,
        "prev": transcript.messages[-1].digest.hex() if transcript and len(transcript) else "",
        "chain": chain_value.hex(),
        "orders": [],
        "commitments": {},
        "reveals": [],
        "sealed": "",
    }


def store_with(store: Mapping[str, str], seals: Mapping[str, str]) -> dict[str, str]:
    return {**store, **seals}


def _state_before_check(game: Any, match: "Match", trial: Transcript, seq: int) -> tuple[Any, IllegalOrderError | None]:
    """The state after a message's actions, without the owed-reveal check;
    if an action is refused, the state before it and the refusal."""
    state = match.replay.state
    for action in actions_for(trial, seq):
        try:
            state, _ = game.apply(state, action)
        except IllegalOrderError as err:
            return state, err
    return state, None


def new_game(
    directory: str | Path,
    game_name: str,
    side: str,
    opponent: Any,
    identity: Any,
    options: Mapping[str, Any] | None = None,
    data: str | Path | None = None,
    rulings: Mapping[str, str] | None = None,
    preset: str | None = None,
) -> Path:
    """Propose a game: write message 0, pinning the ruleset hash of the
    shipped data or of ``data`` (a directory or an installed set's name),
    and, for a game with :class:`~pbem.engine.contract.Rulings`, the reading
    of every ruling: ``preset``'s (None: the defaults), ``rulings``
    ({rule: reading}) instead."""
    game = datasets.build(game_name, data, local=True)  # the proposer's own choice of game
    game_name = registry.registered_name(game_name)  # pinned by name, so the opponent's pbem loads it by name
    game = contract.game_for_terms(game, game.version, dict(options or {}))  # e.g. the sides options name
    if side not in game.sides:
        raise UsageError(f"--as {side!r}: {game_name} has sides {', '.join(game.sides)}")
    if opponent.fingerprint == identity.public.fingerprint:
        raise UsageError("the opponent's key is your own key; a game needs two identities")
    options = contract.proposed_options(game, dict(options or {}), dict(rulings or {}), preset)
    game.initial_state(dict(options or {}))  # the game refuses options it does not know, before anything is written
    gamedir = GameDirectory(directory)
    if gamedir.path.exists() and any(gamedir.path.iterdir()):
        raise UsageError(f"{gamedir.path} is not empty; choose a new directory for a new game")
    other = next(s for s in game.sides if s != side)
    game_id = _random.token_hex(16)
    secret = game_secret(identity, game_id, side)
    body = _body(None, game_id, 0, side, identity, HashChain(chain_seed(secret)).anchor)
    body["setup"] = {
        "module": game_name,
        "module_version": game.version,
        "ruleset": ruleset_hash(game),
        "options": dict(options or {}),
        "keys": {side: identity.public.openssh(), other: opponent.openssh()},
        "pbem_version": __version__,
    }
    msg = sign_body(identity, body)
    transcript = build_transcript([msg])  # self-check before anything touches the disk
    summary = message_summary(game, transcript, 0)
    with gamedir.lock():
        return gamedir.write_message(0, side, msg.armored(summary))


def proposal_rulings(setup: Mapping[str, Any], *, local: bool = False) -> tuple[contract.Ruling, ...]:
    """The rulings a proposal (message 0's ``setup``) declares, every one, as
    the game describes them (none for a game without rulings): what the
    opponent sees before joining, and every later show and verify.
    ``local``: the proposer's own proposal (its game may be a module of the
    current directory, :func:`pbem.engine.registry.get`)."""

    return contract.declared_rulings(registry.get(str(setup["module"]), local=local), setup.get("options") or {})


def join_game(
    proposal: str | Path,
    directory: str | Path,
    identity: Any,
    orders: Mapping[str, Any] | None = None,
    joined: str | Path | None = None,
    trust: Callable[[Any, Transcript], None] | None = None,
    warn: Callable[[Finding], None] | None = None,
) -> tuple[Path, Transcript]:
    """Accept a proposal: verify message 0, write it and message 1 (which may
    carry the joiner's first orders, e.g. a setup).  The data message 0 pins
    must be shipped or installed (``pbem data add``).  ``joined``: a folder
    that records the games joined here (the keystore's): a game is joined
    once, since a second message 1 would be a fork the proposer could choose
    from.  ``trust(key, transcript)`` sees the proposer's key before anything
    is written and raises to refuse it (trust on first use, docs/protocol.md §4.1).
    Message 0 is stored with the summary pbem writes for it; ``warn`` is
    told if the proposal's unsigned summary said something else."""
    found = read_messages([Path(proposal)])
    transcript = build_transcript([found[0][1]])
    record = Path(joined) / transcript.game if joined is not None else None
    if record is not None and record.exists():
        first = record.read_text("utf-8", "replace").strip()
        raise UsageError(
            f"you joined game {transcript.game[:12]}... already ({first}); send the message 0001 you wrote then "
            f"again -- a second one would give your opponent two versions of your move to choose from"
        )
    game = _game_for(transcript)
    my_side = transcript.side_for_key(identity.public.fingerprint)
    if my_side is None or my_side == transcript.messages[0].side:
        raise UsageError(f"this proposal is not addressed to your key {identity.public.fingerprint}")
    gamedir = GameDirectory(directory)
    if gamedir.path.exists() and any(gamedir.path.iterdir()):
        raise UsageError(f"{gamedir.path} is not empty; choose a new directory to join a game")
    player = Player.of(identity, transcript, fresh=_random.token_bytes(16))
    if trust is not None:
        trust(transcript.keys[transcript.messages[0].side], transcript)
    match = Match(gamedir, transcript, game, player, replay(game, transcript))
    draft, result = compose_all(match, drawn(match, orders or {}))
    summary = summary_of(result, 1)
    first = message_summary(game, transcript, 0)
    with gamedir.lock():
        stored = gamedir.write_message(0, transcript.messages[0].side, found[0][1].armored(first))
        path = gamedir.write_message(1, my_side, draft.armored(summary))
    claimed = claimed_in([proposal]).get(found[0][1].body_bytes)
    finding = compare(stored.name, 0, claimed[1], first, replaced=True) if claimed else None
    if finding is not None and warn is not None:
        warn(finding)
    if record is not None:
        write_whole(record, f"message 0001 written to {path.resolve()}\n".encode(), mode=0o600, parents=True)
    return path, result.transcript


def install_proposal_data(proposal: str | Path, data: str | Path) -> tuple[Any, bool]:
    """Install ``data`` (a directory of data files) for joining ``proposal``,
    if it is the data message 0 pins; else a DataError and nothing installed.
    Returns the data set and whether it is new (docs/architecture.md, "Rules as data")."""
    (_, first), *_ = read_messages([Path(proposal)])
    setup = first.body.get("setup") or {}
    module, pinned = str(setup.get("module", "")), str(setup.get("ruleset", ""))
    given = datasets.ruleset_of(datasets.build(module, data))
    if given != pinned:
        raise DataError(f"--data {data}: its files hash to {given[:16]}..., message 0000 pins {pinned[:16]}...; "
                        f"not the data your opponent chose (nothing installed)")
    if given == datasets.ruleset_of(datasets.build(module)):
        return datasets.DataSet(module, datasets.SHIPPED, None, given), False  # the shipped data: nothing to install
    return datasets.install(module, data)


def start_from(directory: str | Path, first: SignedMessage, identity: Any, summary: str = "",
               warn: Callable[[Finding], None] | None = None) -> Match:
    """Begin a game directory again from a copy of its message 0 (a player
    restoring a game from their mailbox): verified, addressed to ``identity``,
    with the data it pins at hand; the rest is imported with :func:`receive`.
    It is stored with the summary pbem writes for it; ``warn`` is told if
    ``summary``, the unsigned one it came with, said something else."""
    transcript = build_transcript([first])
    if transcript.side_for_key(identity.public.fingerprint) is None:
        raise UsageError(f"game {first.game[:12]}... is not yours: neither of its keys is {identity.public.fingerprint}")
    game = _game_for(transcript)
    gamedir = GameDirectory(directory)
    if gamedir.path.exists() and any(gamedir.path.iterdir()):
        raise UsageError(f"{gamedir.path} is not empty; restore a game into a new directory")
    gamedir.path.mkdir(parents=True, exist_ok=True)
    written = message_summary(game, transcript, 0)
    with gamedir.lock():
        stored = gamedir.write_message(0, first.side, first.armored(written))
    finding = compare(stored.name, 0, summary, written, replaced=True)
    if finding is not None and warn is not None:
        warn(finding)
    return Match(gamedir, transcript, game, Player.of(identity, transcript), replay(game, transcript))


def proposal_match(proposal: str | Path, identity: Any) -> Match:
    """The game as the player a proposal (message 0) is addressed to sees it
    before joining: what `pbem orders PROPOSAL` makes message 1's template
    from.  Nothing is written."""
    found = read_messages([Path(proposal)])
    transcript = build_transcript([found[0][1]])
    if transcript.side_for_key(identity.public.fingerprint) in (None, transcript.messages[0].side):
        raise UsageError(f"this proposal is not addressed to your key {identity.public.fingerprint}")
    game = _game_for(transcript)
    return Match(GameDirectory(Path(proposal).parent), transcript, game, Player.of(identity, transcript),
                 replay(game, transcript))


@dataclass
class ReceiveResult:
    imported: list[Path]
    match: Match
    had: list[int] = field(default_factory=list)  # messages given that were already here, byte for byte
    findings: list[Finding] = field(default_factory=list)  # unsigned summaries that said something else


def _seq_of(item: tuple[Path, SignedMessage]) -> int:
    path, msg = item
    try:
        return msg.seq
    except IntegrityError as err:
        raise IntegrityError(f"{path.name}: {err}") from None


def receive(directory: str | Path, files: Iterable[str | Path], identity: Any) -> ReceiveResult:
    """Verify the opponent's message(s) and import them, in order.

    A message of your own side is imported too when you do not hold it (a
    copy from your sent folder, or written on another machine): its
    signature is checked against your key in message 0, so it can only be
    yours, and it is byte for byte the message your opponent received.  A
    message you already hold, byte for byte, is skipped (``had``): receiving
    it again changes nothing.

    Each message is stored with the summary pbem writes for it
    (:mod:`pbem.match.summary`), not the unsigned one it came with; where
    that one said something else, the first difference is a finding."""
    gamedir = GameDirectory(directory)
    gamedir.require_any()  # before the lock, which would make the directory
    paths = [Path(f) for f in files]
    incoming = sorted(read_messages(paths), key=_seq_of)
    claims = claimed_in(paths)
    findings: list[Finding] = []
    imported: list[Path] = []
    had: list[int] = []
    with gamedir.lock():
        match = load(gamedir.path, identity, keep=False)
        covered = match.covered
        _refuse_equivocation(incoming, match.transcript)  # before anything is stored: the batch is refused whole
        for path, msg in incoming:
            transcript = match.transcript
            seq = msg.seq
            if seq < len(transcript):
                held = transcript.messages[seq]
                if held.body_bytes == msg.body_bytes:  # a copy of what is here (a replay changes nothing)
                    had.append(seq)
                    continue
                _check_same_author(held, msg, transcript)
            trial = transcript.extended(msg)
            next_value = match.me.next_value(len(trial)) if trial.side_of(len(trial)) == match.me.side else None
            result = extend(match.replay, trial, next_value=next_value)
            written = summary_of(result, seq)
            stored = gamedir.write_message(seq, msg.side, msg.armored(written))
            imported.append(stored)
            finding = compare(stored.name, seq, claims.get(msg.body_bytes, (path, ""))[1], written, replaced=True)
            if finding is not None:
                findings.append(finding)
            match = Match(gamedir, trial, match.game, Player.of(identity, trial), result, covered)
        if imported:
            keep_checkpoint(match, identity, imported)
    return ReceiveResult(imported, match, had, findings)


@dataclass
class PlayResult:
    path: Path
    events: list[Any]
    match: Match


def drawn(match: Match, orders: Mapping[str, Any]) -> Mapping[str, Any]:
    """``orders`` with the choices they leave to the player's own randomness
    drawn, once, from the operating system's (:class:`contract.Draws`, e.g.
    Ambon's ``shuffle = true``): every later step seals what was drawn."""
    return contract.drawn(match.game, orders, match.me.side, random.SystemRandom())


def play(directory: str | Path, identity: Any, orders: Mapping[str, Any]) -> PlayResult:
    """Apply my orders and write the next message.  (Orders whose draws
    :func:`preview` made are played as drawn: pass ``Preview.orders``.)"""
    gamedir = GameDirectory(directory)
    gamedir.require_any()
    with gamedir.lock():
        match = load(gamedir.path, identity, keep=False)
        draft, result = compose_all(match, drawn(match, orders))
        seq = len(match.transcript)
        events = events_of(result, seq)
        summary = message_summary(match.game, result.transcript, seq, events)
        path = gamedir.write_message(seq, match.me.side, draft.armored(summary))
        played = Match(gamedir, result.transcript, match.game, match.player, result, match.covered)
        keep_checkpoint(played, identity, [path])
    return PlayResult(path, events, played)


@dataclass
class Preview:
    """What ``pbem play --dry-run`` shows: the message that would be
    written (``path``, not written), what it does (``events``), the game as
    it would stand (``match``: whose turn, the dice it leaves awaited), the
    texts it would seal (slot -> text, only the author's to see) and what
    the game warns of (``warnings``: :class:`pbem.engine.contract.Warnings`).
    ``orders``: the orders tried, their draws made (:func:`drawn`), which
    :func:`play` writes as shown."""

    path: Path
    events: list[Any]
    match: Match
    seals: dict[str, str]
    orders: Mapping[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)  # contract.Warnings: allowed, but penalised (9.0 ...)


def preview(directory: str | Path, identity: Any, orders: Mapping[str, Any]) -> Preview:
    """Try ``orders`` as :func:`play` would -- every rule's check, the dice
    this message completes -- and write nothing, not even a checkpoint.
    (The dice it shows are those :func:`play` would show: keyed by the
    messages before and completed by this one's chain value, committed
    long before; the dice these orders declare wait for the reply.)"""
    gamedir = GameDirectory(directory)
    gamedir.require_any()
    match = load(gamedir.path, identity, keep=False)
    orders = drawn(match, orders)
    draft, result = compose_all(match, orders)
    seq = len(match.transcript)
    events = [e for _, e in newest(result.events, lambda item: item[0] == seq)]
    tried = Match(gamedir, result.transcript, match.game, match.player, result, match.covered)
    seals = dict(match.game.parse_orders(orders, match.me.side).seals)
    warnings = (list(match.game.warnings(match.replay.state, result.state, match.me.side))
                if isinstance(match.game, contract.Warnings) else [])
    return Preview(gamedir.path / message_name(seq, match.me.side), events, tried, seals, orders, warnings)


MAX_REPORTED = 10  # rule errors reported at once by compose_all


def compose_all(match: Match, orders: Mapping[str, Any]) -> tuple[SignedMessage, Replay]:
    """:func:`compose`, reporting every independent order that breaks a rule
    in one error (issue 17), each with its number in the orders document.

    When the orders are refused, the first order whose prefix is refused
    for the same reason is the culprit; it is set aside and the others are
    tried again, until they pass or :data:`MAX_REPORTED` are found.  A
    prefix is tried without the check of the sealed values (a prefix seals
    only some of them).  A refusal no single order explains (a reveal
    owed, a decision left open at the end of the message) is reported as it
    is, and so is one about the orders together (the error's ``whole``: the
    sealed values' check, a finished setup's): no order is blamed for it,
    so one misplaced unit is one mistake, not a mistake in every order
    after it (issue 26).  The orders' own mistakes past the sealed values'
    check are still looked for; the game's check of the whole comes last."""
    try:
        return compose(match, orders)
    except IllegalOrderError as first:
        listed = orders.get("order") if isinstance(orders, Mapping) else None
        if not isinstance(listed, list) or len(listed) < 2:
            raise
        numbered = list(enumerate(listed))
        found: list[str] = []
        whole: list[str] = []
        seals = True
        error: IllegalOrderError | None = first
        later = ""
        while error is not None and len(found) < MAX_REPORTED:
            if error.whole:
                if found:  # orders were set aside: the whole now checked is not the one written
                    later = " (the orders as a whole are checked once {} fixed)"
                    error = None
                    break
                if str(error) not in whole:
                    whole.append(str(error))
                if not seals:
                    error = None
                    break  # the game's check of the orders together: it comes after every order
                seals = False  # past the sealed values' check: are there mistakes in the orders?
                error = _refusal(match, {**orders, "order": [o for _, o in numbered]}, seals)
                continue
            culprit = _culprit(match, orders, numbered, str(error))
            if culprit is None:
                if not found and not whole:
                    raise
                found.append(str(error))
                error = None
                break
            number, order = numbered.pop(culprit)
            found.append(f"order {number + 1} ({_order_words(order)}): {error}")
            error = _refusal(match, {**orders, "order": [o for _, o in numbered]}, seals)
        found = whole + found
        if len(found) == 1 and whole:
            raise first
        more = (" (and maybe more: fix these first)" if error is not None and len(found) >= MAX_REPORTED
                else later.format("this is" if len(found) == 1 else "these are"))
        named = len(found) - len(whole)  # the lines that name an order
        head = (f"{len(found)} orders break the rules, each tried without the others that do" if not whole else
                f"{len(found)} mistakes in these orders" + (", each order named tried without the others named"
                                                            if named > 1 else ""))
        combined = IllegalOrderError(found[0] + more if len(found) == 1 else
                                     f"{head}{more}:\n" + "\n".join(f"  {line}" for line in found))
        combined.rule = first.rule  # each line cites its own
        raise combined from first


def _refusal(match: Match, orders: Mapping[str, Any], seals: bool) -> IllegalOrderError | None:
    """Why :func:`compose` refuses ``orders`` (None: it does not)."""
    try:
        compose(match, orders, check_seals=seals)
    except IllegalOrderError as err:
        return err
    return None


def _culprit(match: Match, orders: Mapping[str, Any], numbered: list[tuple[int, Any]], why: str) -> int | None:
    """The place in ``numbered`` of the first order whose prefix is refused with ``why``."""
    for k in range(1, len(numbered) + 1):
        try:
            compose(match, {**orders, "order": [o for _, o in numbered[:k]]}, check_seals=False)
        except IllegalOrderError as err:
            if str(err) == why:
                return k - 1
        except PbemError:
            continue
    return None


def _order_words(order: Any) -> str:
    """An order table in a few words: ``move = "3.A to 1509"``."""
    if not isinstance(order, Mapping) or not order:
        return repr(order)[:40]
    key, value = next(iter(order.items()))
    text = f"{key} = {value!r}" if not isinstance(value, str) else f'{key} = "{value}"'
    return text if len(text) <= 48 else text[:45] + "..."


def compose(match: Match, orders: Mapping[str, Any], *, check_seals: bool = True) -> tuple[SignedMessage, Replay]:
    """The player's next message for ``orders``, signed, tried on the game and
    verified; nothing is written.  (``check_seals=False``: without the game's
    check of the sealed values, for :func:`compose_all` trying a part of the orders.)"""
    player, transcript, game = match.me, match.transcript, match.game
    seq = len(transcript)
    closing = match.replay.over
    if closing and player.side in transcript.secrets:
        raise UsageError("the game is over; run `pbem verify --audit` on it")
    if transcript.side_of(seq) != player.side:
        raise UsageError(
            f"it is not your turn: message {seq:04d} is {transcript.side_of(seq)}'s; "
            f"send your last message and wait for the reply"
        )
    parsed = game.parse_orders(orders, player.side)
    if closing and (parsed.public or parsed.seals):
        raise UsageError("the game is over: your closing message may carry reveals only, no orders")
    body = _body(transcript, transcript.game, seq, player.side, player.identity, player.next_value(seq))
    if seq == 1 and player.fresh is not None:
        body["fresh"] = player.fresh.hex()
    body["orders"] = [dict(o) for o in parsed.public]
    store = dict(player.store)
    for slot, text in parsed.seals.items():
        if slot in store:
            raise IllegalOrderError(f"slot {slot!r} is already sealed", rule="sealed notes")
        store[slot] = text
        salt = sealed.salt_for(player.secret, slot)
        body["commitments"][slot] = sealed.commitment(transcript.game, body["author"], slot, salt, text).hex()
    if check_seals and isinstance(game, contract.SealChecks) and parsed.seals:
        problems = game.check_seals(match.replay.state, player.side, store)
        if problems:
            bad_seals = IllegalOrderError("; ".join(problems))  # each problem cites its rule (4.1, 14.2, 8.5.2)
            bad_seals.whole = True  # about the sealed values together, not one order
            raise bad_seals
    # Reveals owed now, or demanded by these very orders (a concealed unit
    # moving into a ZOC...), go into this message: apply, add, re-apply.
    owed = [a.slot for a in game.awaiting(match.replay.state) if isinstance(a, RevealDue) and a.side == player.side]
    reveals = list(dict.fromkeys(list(parsed.reveals) + owed))
    while True:
        body["reveals"] = []
        for slot in reveals:
            if slot not in store:
                raise IllegalOrderError(f"you hold no sealed value in slot {slot!r}", rule="sealed notes")
            salt = sealed.salt_for(player.secret, slot)
            body["reveals"].append({"slot": slot, "value": store[slot], "salt": salt.hex()})
        if store:
            blob = sealed.seal_store(player.secret, transcript.game, body["author"], seq, store)
            body["sealed"] = base64.b64encode(blob).decode("ascii")
        draft = _signed_within_limits(transcript, player, body)
        trial = transcript.extended(draft)
        after, refused = _state_before_check(game, match, trial, seq)
        # owed where the orders stopped, too: an order the rules refuse until a reveal its predecessors
        # demanded is made (7.2, 8.0: a concealed unit moved into an EZOC, then attacking) passes with it
        demanded = [
            a.slot for a in game.awaiting(after)
            if isinstance(a, RevealDue) and a.side == player.side and a.slot not in reveals
        ]
        if not demanded:
            if refused is not None:
                raise refused
            break
        reveals += demanded
    state, _ = apply_message(game, match.replay.state, actions_for(trial, seq), seq, player.side)
    if closing or parsed.ends_game or game.is_over(state) or contract.is_ending(game, state):
        body["secret"] = player.secret.hex()
        draft = _signed_within_limits(transcript, player, body)
        trial = transcript.extended(draft)
    return draft, extend(match.replay, trial)


def _signed_within_limits(transcript: Transcript, player: Player, body: dict[str, Any]) -> SignedMessage:
    """``body`` signed, once it is within the protocol's limits (docs/protocol.md
    12): a message the opponent's pbem would refuse is never written."""
    if limits.message_count_problem(body["seq"]):
        raise UsageError(f"{limits.message_count_problem(body['seq'])}: the game cannot go on")
    before = sum(1 for owner, _ in transcript.commitments if owner == player.side)
    problem = limits.body_problem(body) or limits.game_commitments_problem(player.side, before, len(body["commitments"]))
    if problem:
        raise InputError(f"message {body['seq']:04d} would break a protocol limit: {problem}")
    return sign_body(player.identity, body)


# --------------------------------------------------------------------------- verification


@dataclass
class VerifyReport:
    transcript: Transcript
    replay: Replay
    audited: bool
    problems: list[str]
    warnings: list[Finding] = field(default_factory=list)  # unsigned summaries that say something else

    @property
    def ok(self) -> bool:
        return not self.problems  # a warning is not a failure: summaries are not signed


def collect(paths: Iterable[str | Path], read: dict[Path, bytes] | None = None) -> list[SignedMessage]:
    """Messages from directories and files, by seq; duplicates and
    equivocation are reported.  ``read``: each file's bytes are added to it,
    by path, as they are read."""
    files: list[Path] = []
    named: dict[Path, tuple[int, str]] = {}
    for p in paths:
        p = Path(p)
        if p.is_dir():
            gamedir = GameDirectory(p)
            gamedir.require_any()
            for seq, side, name, _ in gamedir.message_entries(duplicates=True):
                files.append(gamedir.path / name)
                named[gamedir.path / name] = (seq, side)
        elif p.exists():
            files.append(p)
        else:
            raise InputError(f"{p}: no such file or directory")
    by_seq: dict[int, SignedMessage] = {}
    origin: dict[int, Path] = {}
    misnamed: IntegrityError | None = None
    found = read_messages(files, read)
    first = Transcript()
    for _, msg in found:
        try:
            zero = msg.body.get("seq") == 0
        except IntegrityError:
            continue  # reported with its file name below
        if zero and not first.messages:
            try:
                first.add(msg)  # the keys against which an equivocation is proven
            except VerificationError:
                break
    for path, msg in found:
        try:
            seq = msg.seq
        except IntegrityError as err:
            raise IntegrityError(f"{path.name}: {err}") from err
        said = msg.body.get("side")  # unchecked yet: a damaged one is reported by the signature check
        if seq in by_seq:  # before the file names: two signed versions are a proof, whatever the files are called
            other, where = by_seq[seq], origin[seq]
            if other.body_bytes == msg.body_bytes:
                raise IntegrityError(f"message {seq:04d} appears twice ({where.name} and {path.name}): "
                                     f"a duplicate or replay")
            _check_same_author(other, msg, first if first.messages else None)
            raise IntegrityError(f"two different messages claim seq {seq:04d} ({where.name} and {path.name}), "
                                 f"not both signed by one player")
        if path in named and isinstance(said, str) and named[path] != (seq, said) and misnamed is None:
            misnamed = IntegrityError(f"{path.name} holds message {seq:04d} by {said}: renamed or swapped files")
        by_seq[seq], origin[seq] = msg, path
    if misnamed is not None:  # after every file is read: a second version in a misnamed file is still the proof
        raise misnamed
    return [by_seq[s] for s in sorted(by_seq)]


def verify(
    paths: Iterable[str | Path],
    *,
    audit: bool = False,
    progress: Callable[[int, int, str], None] | None = None,
    data: Iterable[str | Path] = (),
) -> VerifyReport:
    """Check every signature, link, chain value, reveal and die; with
    ``audit``, every hidden fact too.  Raises on the first broken link.
    ``progress(done, total, label)`` is told of each message checked;
    ``data``: directories that may hold the data message 0 pins.  Each
    file's unsigned summary is compared with what its message says
    (``warnings``)."""
    paths = list(paths)
    contents: dict[Path, bytes] = {}
    messages = collect(paths, contents)
    transcript = Transcript()
    for done, msg in enumerate(messages, 1):
        transcript.add(msg)
        if progress is not None:
            progress(done, len(messages), f"message {msg.seq:04d}")
    game = _game_for(transcript, data)
    result = replay(game, transcript)
    problems: list[str] = []
    if audit:
        problems = transcript.audit()
        if not problems:
            stores = _final_stores(transcript)
            problems += list(game.audit(result.state, stores)) if isinstance(game, contract.Audit) else []
        if not game.is_over(result.state):
            problems.append("the game is not over: an audit needs both closing messages")
    # the summaries are read from the bytes whose signatures were checked, not from the files a second time
    return VerifyReport(transcript, result, audit, problems, check_files(paths, result, contents))


def _final_stores(transcript: Transcript) -> dict[str, dict[str, str]]:
    stores: dict[str, dict[str, str]] = {side: {} for side in transcript.sides}
    for m, msg in enumerate(transcript.messages):
        if msg.body["sealed"]:
            side = msg.side
            stores[side] = sealed.open_store(
                transcript.secrets[side], transcript.game, msg.author, m, base64.b64decode(msg.body["sealed"])
            )
    return stores


__all__ = [
    "Match",
    "Player",
    "PlayResult",
    "ReceiveResult",
    "VerifyReport",
    "join_game",
    "load",
    "load_at",
    "load_view",
    "message_name",
    "new_game",
    "play",
    "receive",
    "ruleset_hash",
    "verify",
    "HiddenInfoError",
]
