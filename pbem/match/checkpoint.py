"""The one cache: each game's verified replay, kept in the player's keystore.

Loading a game verifies every message and replays every rule; a game of a
thousand messages would pay for all of them at each command.  So after a
command the verified transcript and the replay (:class:`~pbem.match.replay.Replay`,
with its base) are kept, and the next load verifies and applies only the
messages that came since.  Everything a command shows -- the board, the
log, the orders template, the status line -- is drawn from the replay it
loads, so nothing else is kept: a view is drawn again each time, and the
game's data files are parsed again each time.

A kept replay lives in the keystore (``$PBEM_HOME/checkpoints/``, mode
0600), never in the game directory.  It is used only when everything it
depends on matches, else ignored (and rebuilt by the next command):

* **the files it covers** -- the stamps of the first *k* message files:
  each one's name, size, device, inode, mtime and ctime, which must still
  be those of the directory's first *k* files.  A message file is never
  rewritten, so a changed stamp means a changed, copied or restored file:
  the kept replay is not trusted and the game is replayed from its files.
  Listing the stamps, one ``stat`` a file, is the one part of a command
  that grows with the game;
* **the game** -- its id, module name and version, ruleset hash;
* **the code** -- size and modification time of every file of the pbem
  package and of the game's package and data set, so an upgrade or an
  edited rule file is a miss;
* **the player** -- it is sealed with ChaCha20-Poly1305 under a key only the
  player's private key derives (:func:`pbem.protocol.keys.derive_secret`),
  the header above as associated data.  A kept replay that does not open is
  ignored; one cannot be forged or swapped in without the private key.

What it holds is what the next load goes on from, and no more: the
replay's *base* (the state before the last message's dice were keyed) and
its histories up to there (:mod:`pbem.engine.history`: the older items as
the bytes they were pickled as, so keeping copies them and restoring reads
none), and the transcript with its messages as digests
(:class:`FileMessages`): the first two and the last two at hand, any other
read again from its file when asked for and checked against the digest it
was verified with.

It holds what the player's own replay holds -- the opponent's sealed values
only as their commitments -- and, sealed, is never weaker than the key.
Deleting it is always safe.  ``PBEM_NO_CHECKPOINTS=1`` turns it off (to
measure, or to rule it out).
"""

from __future__ import annotations

import contextlib
import json
import operator
import os
import pickle
import shutil
import struct
import sys
from dataclasses import replace as copy_of
from hashlib import blake2b
from pathlib import Path
from typing import Any, Iterable, Mapping, NamedTuple, Sequence

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from pbem.engine.datafiles import source_of
from pbem.engine.history import position
from pbem.errors import InputError, IntegrityError, PbemError
from pbem.protocol.keys import derive_secret
from pbem.protocol.message import SignedMessage
from pbem.util.atomicfile import replace

FORMAT = "pbem-checkpoint-v4"  # 4: history parts compressed (pbem.engine.history)
DIRECTORY = "checkpoints"
OFF_ENV = "PBEM_NO_CHECKPOINTS"
_CONTEXT = b"pbem-checkpoint-v1\x00"
_VIEWS_CONTEXT = b"pbem-drawn-view-v1\x00"
VIEWS = ".view"  # beside a kept replay: the texts drawn from it
DRAWN = 4  # texts kept a game: a board and its --json, two terminal widths
_code_digest: dict[str, str] = {}


def _hash(data: bytes = b"") -> "blake2b":
    """BLAKE2b-256: the digests that key a kept replay."""
    return blake2b(data, digest_size=32)


def keystore_file(home: Path, folder: str, directory: str | os.PathLike[str], suffix: str) -> Path:
    """Where a keystore keeps a file about the game directory ``directory``:
    ``home/folder/`` and a name digested from the directory's full path."""
    where = str(Path(directory).resolve())
    return home / folder / (_hash(where.encode("utf-8")).hexdigest()[:32] + suffix)


def write_private(path: Path, data: bytes) -> bool:
    """Write a keystore file ``path`` whole or not at all, readable by its
    owner only (a cache may be rewritten; message files never are); False
    if the keystore cannot be written."""
    try:
        path.parent.mkdir(mode=0o700, exist_ok=True)
        replace(path, data, mode=0o600, durable=False)
        return True
    except OSError:
        return False  # a read-only keystore: no cache, nothing else changes


class Stamps:
    """What a command sees of the message files without reading them: each
    one's name, size, device, inode, mtime and ctime, in order: what a kept
    replay is keyed by (a stamp changed: the files are replayed).  Built from a
    directory listing's ``(seq, side, name, stat)`` entries, or from
    ``(name, stat)`` pairs.  The one part of a command that grows with the
    game, so it does as little a file as it can: the five numbers of each
    file are packed into 40 bytes by C-level maps (sizes, devices and inodes
    as unsigned 64-bit words, the times as signed ones: exact, no number is
    cut or confused with another), and the digest is one BLAKE2b of the
    names and those bytes."""

    __slots__ = ("names", "packed", "_digest")
    _FIELDS = tuple(map(operator.attrgetter, ("st_size", "st_dev", "st_ino", "st_mtime_ns", "st_ctime_ns")))
    _PACK = struct.Struct("<QQQqq").pack
    SIZE = 40  # bytes a file

    def __init__(self, names: Sequence[str] = (), stats: Iterable[os.stat_result] = ()):
        self.names: list[str] = list(names)
        stats = stats if isinstance(stats, (list, tuple)) else list(stats)
        self.packed: bytes = b"".join(map(self._PACK, *(map(field, stats) for field in self._FIELDS)))
        self._digest: str | None = None

    @classmethod
    def of_entries(cls, entries: Sequence[tuple[int, str, str, os.stat_result]]) -> "Stamps":
        """The stamps of a listing's entries (:meth:`GameDirectory.message_entries`)."""
        return cls(list(map(_NAME, entries)), list(map(_STAT, entries)))

    @classmethod
    def of_pairs(cls, pairs: Iterable[tuple[str, os.stat_result]]) -> "Stamps":
        pairs = list(pairs)
        names, stats = zip(*pairs, strict=True) if pairs else ((), ())
        return cls(names, stats)

    @property
    def count(self) -> int:
        return len(self.names)

    def extended(self, more: "Stamps") -> "Stamps":
        """These stamps and then ``more`` (these unchanged)."""
        copy = Stamps()
        copy.names, copy.packed = self.names + more.names, self.packed + more.packed
        return copy

    def hexdigest(self) -> str:
        # the names and every number by BLAKE2b: exact, not Python's hash() of
        # a tuple, whose collisions are easy to make (hash(-1) == hash(-2),
        # hash(2**61 - 1) == hash(0)) by a writer who can set a file's stamps
        if self._digest is None:
            digest = _hash("\x00".join(self.names).encode("utf-8", "surrogateescape"))
            digest.update(b"\x00\x00")
            digest.update(self.packed)
            self._digest = digest.hexdigest()[:48]
        return self._digest


_NAME, _STAT = operator.itemgetter(2), operator.itemgetter(3)


class Covered(NamedTuple):
    """The message files a replay covers: how many, and the stamps of their
    names and stats (as listed when they were read)."""

    # assignment: the field shadows tuple.count, which no caller wants from a Covered
    count: int  # type: ignore[assignment]
    stamps: Stamps


def code_tops(game: Any) -> list[str]:
    """The folders whose files a replay of ``game`` depends on: the pbem
    package, the game's package and its installed data set."""
    package = getattr(sys.modules.get(type(game).__module__), "__file__", None)
    data = source_of(game)
    tops = [str(Path(__file__).resolve().parent.parent)]
    tops += [str(Path(package).resolve().parent)] if package else []
    tops += [str(Path(data).resolve())] if data else []
    return tops


def code_digest(game: Any) -> str:
    """BLAKE2b-256 of the size and mtime of every file of the pbem package and
    of the game's package and installed data set (computed once a process)."""
    return tops_digest(code_tops(game))


def tops_digest(tops: Sequence[str]) -> str:
    """:func:`code_digest` of the folders ``tops``."""
    key = "\x00".join(tops)
    if key not in _code_digest:
        digest = _hash()
        for top in tops:
            for root, dirs, names in os.walk(top):
                dirs[:] = sorted(d for d in dirs if d != "__pycache__")
                for name in sorted(names):
                    path = os.path.join(root, name)
                    try:
                        st = os.stat(path)
                    except OSError:
                        continue
                    digest.update(b"%s\x00%d\x00%d\x00" % (path.encode("utf-8", "surrogateescape"), st.st_size,
                                                             st.st_mtime_ns))
        _code_digest[key] = digest.hexdigest()
    return _code_digest[key]


class FileMessages(Sequence[Any]):
    """A restored transcript's messages: the first two and the last two at
    hand, every other read again from its file when asked for (``pbem log``,
    an old message mailed again) and checked against the digest it had when
    it was verified; the messages added since the restore, in memory.
    Pickled, it keeps only the digests and the messages at hand."""

    AT_HAND = 2

    def __init__(self, digests: bytes, at_hand: dict[int, Any], count: int):
        self._digests, self._at_hand, self._count = digests, at_hand, count
        self._directory = Path()
        self._names: Sequence[str] = ()
        self._tail: list[Any] = []

    @classmethod
    def of(cls, messages: Sequence[Any]) -> "FileMessages":
        if isinstance(messages, FileMessages):
            digests = messages._digests + b"".join(msg.digest for msg in messages._tail)
        else:
            digests = b"".join(msg.digest for msg in messages)
        n = len(messages)
        ends = set(range(min(cls.AT_HAND, n))) | set(range(max(0, n - cls.AT_HAND), n))
        return cls(digests, {i: messages[i] for i in sorted(ends)}, n)

    def bind(self, directory: Path, names: Sequence[str]) -> None:
        """Where the messages are read from: ``directory``, its files ``names`` in order."""
        self._directory, self._names = directory, names

    def digest_of(self, index: int) -> bytes:
        if index >= self._count:
            digest: bytes = self._tail[index - self._count].digest
            return digest
        return self._digests[32 * index: 32 * index + 32]

    def __len__(self) -> int:
        return self._count + len(self._tail)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        index = position(index, len(self), "message")
        if index >= self._count:
            return self._tail[index - self._count]
        if index in self._at_hand:
            return self._at_hand[index]
        return self._read(index)

    def _read(self, index: int) -> Any:
        path = self._directory / self._names[index]
        try:
            data = path.read_bytes()
        except OSError as err:
            raise InputError(f"cannot read {path}: {err.strerror}") from err
        found = [m for m in SignedMessage.all_from_text(data, source=str(path)) if m.digest == self.digest_of(index)]
        if not found:
            raise IntegrityError(f"{path.name} changed since it was verified; check the game with pbem verify "
                                 f"{path.parent}")
        return found[0]

    def append(self, msg: Any) -> None:
        self._tail.append(msg)

    def copy(self) -> "FileMessages":
        copy = FileMessages(self._digests, self._at_hand, self._count)
        copy._directory, copy._names, copy._tail = self._directory, self._names, list(self._tail)
        return copy

    def __reduce__(self) -> tuple[Any, ...]:
        kept = FileMessages.of(self) if self._tail else self  # compact already: as keep() makes it
        return (FileMessages, (kept._digests, kept._at_hand, kept._count))


class Checkpoints:
    """The replays kept in one keystore (``home``): one a game directory."""

    def __init__(self, home: str | os.PathLike[str]):
        self.home = Path(home)

    @classmethod
    def of(cls, identity: Any) -> "Checkpoints | None":
        """The kept replays of the keystore ``identity`` was loaded from (None:
        an identity not from a keystore, or kept replays turned off)."""
        home = identity.keystore
        if home is None or os.environ.get(OFF_ENV):
            return None
        return cls(home)

    def path_for(self, directory: str | os.PathLike[str]) -> Path:
        return keystore_file(self.home, DIRECTORY, directory, ".bin")

    @staticmethod
    def _header(game: Any, transcript: Any, count: int, stamps: str) -> bytes:
        setup = transcript.setup
        head = {
            "format": FORMAT,
            "game": transcript.game,
            "module": setup.get("module"),
            "module_version": game.version,
            "ruleset": setup.get("ruleset"),
            "count": count,
            "stamps": stamps,
            "code": code_digest(game),
        }
        return json.dumps(head, sort_keys=True, separators=(",", ":")).encode()

    @staticmethod
    def _key(identity: Any, game_id: str) -> bytes:
        return derive_secret(identity, _CONTEXT + game_id.encode())

    def keep(self, directory: str | os.PathLike[str], covered: Covered, replay: Any, identity: Any) -> bool:
        """Keep ``replay`` (verified) of the files ``covered`` describes (the
        directory's first files) for ``identity``; False if it cannot be
        written.  What is kept is what the next load goes on from: the
        replay's base (the state before its last message's dice) with the
        histories up to it, and the transcript with only its messages'
        digests and the messages at both ends."""
        transcript, game, base = replay.transcript, replay.game, replay.base
        if covered.count != len(transcript) or covered.stamps.count != covered.count or base is None:
            return False
        header = self._header(game, transcript, covered.count, covered.stamps.hexdigest())
        compact = copy_of(transcript, messages=FileMessages.of(transcript.messages),
                          chain_values=b"".join(transcript.chain_values))  # one bytes: 32 a message
        kept = copy_of(replay, game=None, state=None, pending=(), transcript=compact,
                       events=replay.events.truncated(base.events), rolls=replay.rolls.truncated(base.rolls))
        body = pickle.dumps(kept, protocol=pickle.HIGHEST_PROTOCOL)
        nonce = os.urandom(12)
        sealed = ChaCha20Poly1305(self._key(identity, transcript.game)).encrypt(nonce, body, header)
        return write_private(self.path_for(directory),
                             b"".join((len(header).to_bytes(4, "big"), header, nonce, sealed)))

    def restore(self, directory: str | os.PathLike[str], entries: Sequence[tuple[int, str, str, os.stat_result]],
                identity: Any, game_for: Any) -> tuple[Any, Covered] | None:
        """The kept replay of a prefix of the directory's message files
        (``entries``: the directory's listing, :meth:`GameDirectory.message_entries`,
        in order) and what it covers, if everything it depends on matches;
        else None.  ``game_for(transcript)`` gives the game object the files
        are played with."""
        path = self.path_for(directory)
        try:
            data = path.read_bytes()
            size = int.from_bytes(data[:4], "big")
            header, nonce, sealed = data[4:4 + size], data[4 + size:16 + size], data[16 + size:]
            head = json.loads(header)
            count = head["count"]
            if head.get("format") != FORMAT or not isinstance(count, int) or not 0 < count <= len(entries):
                return None
            stamps = Stamps.of_entries(entries[:count])
            if head["stamps"] != stamps.hexdigest():
                return None  # a file changed, copied or restored: replay from the files
            body = ChaCha20Poly1305(self._key(identity, str(head["game"]))).decrypt(nonce, sealed, header)
        except (OSError, ValueError, KeyError, TypeError, InvalidTag):
            return None
        try:  # authenticated above: written by this player's own pbem
            replay = pickle.loads(body)
        except Exception:  # noqa: BLE001 - an old or damaged kept replay is only a miss
            return None
        try:
            game = game_for(replay.transcript)
        except PbemError:
            return None  # the files' own load says why
        if header != self._header(game, replay.transcript, count, head["stamps"]):
            return None  # another game version, ruleset or pbem code: replay from the files
        replay.transcript.messages.bind(Path(directory), stamps.names)
        packed = replay.transcript.chain_values  # one bytes in the kept replay: 32 a message
        ends = range(32, len(packed) + 32, 32)
        replay.transcript.chain_values = list(map(packed.__getitem__, map(slice, range(0, len(packed), 32), ends)))
        return copy_of(replay, game=game, state=replay.base.state), Covered(count, stamps)

    # ----------------------------------------------------------------- what was drawn from it

    def _views_key(self, identity: Any, directory: str | os.PathLike[str]) -> bytes:
        return derive_secret(identity, _VIEWS_CONTEXT + str(Path(directory).resolve()).encode("utf-8"))

    def drawn(self, directory: str | os.PathLike[str], entries: Sequence[tuple[int, str, str, os.stat_result]],
              identity: Any, mode: str, inputs: Mapping[str, Any]) -> str | None:
        """The text drawn last time in ``mode`` for terminal ``inputs``
        (:func:`console_inputs`), if the files' stamps and pbem's code are
        as they were then; else None.  Nothing is replayed or imported."""
        try:
            kept = json.loads(self.path_for(directory).with_suffix(VIEWS).read_bytes())
            if kept.get("format") != FORMAT or kept.get("stamps") != Stamps.of_entries(entries).hexdigest():
                return None
            if not isinstance(kept["tops"], list) or tops_digest([str(t) for t in kept["tops"]]) != kept["code"]:
                return None
            for entry in kept["entries"]:
                if entry["mode"] == mode and entry["inputs"] == json.loads(json.dumps(inputs)):
                    nonce, sealed = bytes.fromhex(entry["nonce"]), bytes.fromhex(entry["text"])
                    aead = ChaCha20Poly1305(self._views_key(identity, directory))
                    text: str = aead.decrypt(nonce, sealed, _views_head(kept, entry)).decode("utf-8")
                    return text
        except (OSError, ValueError, KeyError, TypeError, AttributeError, InvalidTag):
            return None
        return None

    def keep_drawn(self, directory: str | os.PathLike[str], match: Any, identity: Any, mode: str,
                   inputs: Mapping[str, Any], text: str) -> bool:
        """Keep ``text``, what ``match`` (loaded now) was drawn as, beside its
        replay: sealed, bound to the same stamps, at most :data:`DRAWN` modes."""
        covered = match.covered
        if covered is None or covered.count != len(match.transcript):
            return False
        stamps, tops = covered.stamps.hexdigest(), code_tops(match.game)
        path = self.path_for(directory).with_suffix(VIEWS)
        try:
            old = json.loads(path.read_bytes())
            others = [e for e in old["entries"] if e["mode"] != mode or e["inputs"] != inputs] \
                if old.get("stamps") == stamps and old.get("tops") == tops else []
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            others = []
        kept = {"format": FORMAT, "stamps": stamps, "tops": tops, "code": tops_digest(tops)}
        entry = {"mode": mode, "inputs": json.loads(json.dumps(inputs)), "nonce": os.urandom(12).hex()}
        sealed = ChaCha20Poly1305(self._views_key(identity, directory)).encrypt(
            bytes.fromhex(entry["nonce"]), text.encode("utf-8"), _views_head(kept, entry))
        entry["text"] = sealed.hex()
        kept["entries"] = [entry, *others][:DRAWN]
        return write_private(path, json.dumps(kept, sort_keys=True).encode("utf-8"))

    def forget(self, directory: str | os.PathLike[str]) -> None:
        path = self.path_for(directory)
        for kept in (path, path.with_suffix(VIEWS)):
            with contextlib.suppress(FileNotFoundError):
                kept.unlink()
        shutil.rmtree(path.with_suffix(".d"), ignore_errors=True)  # what an older pbem kept beside it


def _views_head(kept: Mapping[str, Any], entry: Mapping[str, Any]) -> bytes:
    """What a drawn text is sealed with as associated data: it opens only for its stamps, code, mode and terminal."""
    head = {k: kept[k] for k in ("format", "stamps", "code")} | {"mode": entry["mode"], "inputs": entry["inputs"]}
    return json.dumps(head, sort_keys=True, separators=(",", ":")).encode()


#: what the terminal library reads from the environment to choose width, colours and features
CONSOLE_ENV = (
    "COLUMNS", "LINES", "TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE",
    "JUPYTER_COLUMNS", "JUPYTER_LINES", "DATABRICKS_RUNTIME_VERSION", "UNICODE_VERSION",
)


def console_inputs() -> dict[str, Any]:
    """Everything the terminal library reads to lay out text for standard
    output: what a drawn text is kept for."""
    sizes: list[list[int] | None] = []
    for fd in (0, 1, 2):
        try:
            sizes.append(list(os.get_terminal_size(fd)))
        except (OSError, ValueError):
            sizes.append(None)
    stream = sys.stdout
    return {
        "env": {name: os.environ.get(name) for name in CONSOLE_ENV},
        "sizes": sizes,
        "tty": bool(stream and stream.isatty()),
        "encoding": getattr(stream, "encoding", None),
        "platform": sys.platform,
    }
