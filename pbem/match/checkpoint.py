"""Replay checkpoints: a command works on what is new (issue 15).

Loading a game verifies every message and replays every rule; a game of a
thousand messages would pay for all of them at each command.  So after a
command the verified transcript and the replay (:class:`~pbem.match.replay.Replay`,
with its base) are kept, and the next load verifies and applies only the
messages that came since.

A checkpoint is kept beside the kept views, in the player's keystore
(``$PBEM_HOME/checkpoints/``, mode 0600), never in the game directory.  It is
used only when everything it depends on matches, else ignored (and rebuilt
by the next command):

* **the files it covers** -- the names and exact bytes of the first *k*
  message files, which must still be the first *k* files of the directory.
  The bytes' digest is a chain (each file's digest folds in the one before),
  so a command adds only its new files to it; while every covered file's
  name, size, inode, mtime and ctime are unchanged (the ctime cannot be set
  back from user space) the files are not read again, and any change makes
  them read and compared with the digest.  This listing, one ``stat`` a
  file, is the one part of a command that still grows with the game: it is
  what keeps a checkpoint from being trusted over the files;
* **the game** -- its id, module name and version, ruleset hash;
* **the code** -- size and modification time of every file of the pbem
  package and of the game's package and data set, so an upgrade or an
  edited rule file is a miss;
* **the player** -- it is sealed with ChaCha20-Poly1305 under a key only the
  player's private key derives (:func:`pbem.protocol.keys.derive_secret`),
  the header above as associated data.  A checkpoint that does not open is
  ignored; one cannot be forged or swapped in without the private key.

What it holds is what the next load goes on from, and no more, so that a
command reads and writes little however long the game:

* the replay's *base* (the state before the last message's dice were keyed)
  and its histories up to there (:mod:`pbem.engine.history`): a history's
  large chunks are files of their own (``<checkpoint>.d/``, sealed the same
  way, named by a keyed hash of their bytes), written once and removed when
  merged into a larger one, so a command writes only what it added;
* the transcript with its messages as digests (:class:`FileMessages`): the
  first two and the last two at hand, any other read again from its file
  when asked for and checked against the digest it was verified with.

It holds what the player's own replay holds -- the opponent's sealed values
only as their commitments -- and, sealed, is never weaker than the key.
Deleting checkpoints is always safe.  ``PBEM_NO_CHECKPOINTS=1`` turns them
off (to measure, or to rule them out).
"""

from __future__ import annotations

import contextlib
import json
import operator
import os
import pickle
import sys
from array import array
from dataclasses import replace as copy_of
from itertools import chain
from pathlib import Path
from typing import Any, Callable, Iterable, NamedTuple, Sequence

from pbem.engine.history import Chunk, position
from pbem.match.viewcache import hash256 as _hash
from pbem.match.viewcache import keystore_file, write_private

FORMAT = "pbem-checkpoint-v2"
DIRECTORY = "checkpoints"
OFF_ENV = "PBEM_NO_CHECKPOINTS"
_CONTEXT = b"pbem-checkpoint-v1\x00"
_code_digest: dict[str, str] = {}


def files_digest(files: Sequence[tuple[str, bytes]], previous: str | None = None) -> str:
    """The chained BLAKE2b-256 of the names and bytes of ``files`` ((name,
    bytes), in order) after those ``previous`` covers (None: from the first)."""
    value = previous or _hash(FORMAT.encode()).hexdigest()
    for name, data in files:
        digest = _hash(bytes.fromhex(value))
        digest.update(b"%s\x00%d\x00" % (name.encode(), len(data)))
        digest.update(data)
        value = digest.hexdigest()
    return value


class Stamps:
    """What a command sees of the message files without reading them: each
    one's name, size, device, inode, mtime and ctime, in order.  A change
    detector, not a proof: when the stamps differ from a checkpoint's, the
    files' bytes are read and compared with its files digest.  Built from a
    directory listing's ``(seq, side, name, stat)`` entries, or from
    ``(name, stat)`` pairs, by C-level maps: the one part of a command that
    grows with the game (issue 15), so it does as little a file as it can."""

    __slots__ = ("names", "marks", "_digest")
    _MARKS = operator.attrgetter("st_size", "st_dev", "st_ino", "st_mtime_ns", "st_ctime_ns")

    def __init__(self, names: Sequence[str] = (), stats: Iterable[os.stat_result] = ()):
        self.names: list[str] = list(names)
        self.marks: list[tuple[int, int, int, int, int]] = list(map(self._MARKS, stats))
        self._digest: str | None = None

    @classmethod
    def of_entries(cls, entries: Sequence[tuple[int, str, str, os.stat_result]]) -> "Stamps":
        """The stamps of a listing's entries (:meth:`GameDirectory.message_entries`)."""
        return cls(list(map(_NAME, entries)), map(_STAT, entries))

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
        copy.names, copy.marks = self.names + more.names, self.marks + more.marks
        return copy

    def hexdigest(self) -> str:
        # the names and every number by BLAKE2b, the numbers packed as 64-bit
        # words in one C-level step (array): exact, not Python's hash() of a
        # tuple, whose collisions are easy to make (hash(-1) == hash(-2),
        # hash(2**61 - 1) == hash(0)) by a writer who can set a file's stamps
        if self._digest is None:
            words = array("Q", (n & 0xFFFF_FFFF_FFFF_FFFF for n in chain.from_iterable(self.marks)))
            digest = _hash("\x00".join(self.names).encode("utf-8", "surrogateescape"))
            digest.update(b"\x00\x00")
            digest.update(words.tobytes())
            self._digest = digest.hexdigest()[:48]
        return self._digest


_NAME, _STAT = operator.itemgetter(2), operator.itemgetter(3)


class Covered(NamedTuple):
    """The message files a replay covers: how many, their chained digest, and
    the stamps of their names and stats (as listed when they were read)."""

    # assignment: the field shadows tuple.count, which no caller wants from a Covered
    count: int  # type: ignore[assignment]
    digest: str | None
    stamps: Stamps


def code_digest(game: Any) -> str:
    """BLAKE2b-256 of the size and mtime of every file of the pbem package and
    of the game's package and installed data set (computed once a process)."""
    from pbem.match.datasets import source_of

    package = getattr(sys.modules.get(type(game).__module__), "__file__", None)
    data = source_of(game)
    tops = [str(Path(__file__).resolve().parent.parent)]
    tops += [str(Path(package).resolve().parent)] if package else []
    tops += [str(Path(data).resolve())] if data else []
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
        from pbem.errors import IntegrityError, InputError
        from pbem.protocol.message import SignedMessage

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


class _Chunks:
    """The chunk files of one checkpoint (``<checkpoint>.d/``): the large
    chunks of its histories (:class:`pbem.engine.history.Chunk`), each
    written once, sealed, named by a keyed hash of its bytes."""

    LEAST = 4096  # smaller chunks stay in the checkpoint itself

    def __init__(self, folder: Path, key: bytes):
        from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

        self.folder, self._key, self._aead = folder, key, ChaCha20Poly1305(key)
        self.used: set[str] = set()
        self._have: set[str] | None = None

    def name_of(self, data: bytes) -> str:
        import hashlib

        return hashlib.blake2b(data, digest_size=16, key=self._key).hexdigest()

    def put(self, data: bytes) -> str:
        name = self.name_of(data)
        if self._have is None:
            self._have = set(os.listdir(self.folder)) if self.folder.is_dir() else set()
        if name not in self._have:
            nonce = os.urandom(12)
            self.folder.parent.mkdir(mode=0o700, exist_ok=True)
            if not write_private(self.folder / name, nonce + self._aead.encrypt(nonce, data, name.encode())):
                raise OSError(f"cannot write {self.folder / name}")
            self._have.add(name)
        return name

    def get(self, name: str) -> bytes:
        from cryptography.exceptions import InvalidTag

        from pbem.errors import IntegrityError

        try:
            data = (self.folder / name).read_bytes()
            return self._aead.decrypt(data[:12], data[12:], name.encode())
        except (OSError, InvalidTag) as err:
            with contextlib.suppress(OSError):  # so that the next command replays from the files
                self.folder.with_suffix(".bin").unlink()
            raise IntegrityError(f"the replay checkpoint's chunk {name} is gone or damaged (another pbem command "
                                 f"on this game at the same time?); run the command again") from err

    def sweep(self) -> None:
        """Remove the chunk files the checkpoint just written does not use."""
        try:
            names = os.listdir(self.folder)
        except OSError:
            return
        for name in names:
            if name not in self.used:
                try:
                    os.unlink(self.folder / name)
                except OSError:
                    pass


class _Keeper(pickle.Pickler):
    """Pickles a replay with its large history chunks in chunk files."""

    def __init__(self, file: Any, chunks: _Chunks):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.chunks = chunks

    def persistent_id(self, obj: Any) -> Any:
        if type(obj) is not Chunk or (obj.name is None and len(obj.data) < _Chunks.LEAST):
            return None
        name = obj.name or self.chunks.put(obj.data)
        self.chunks.used.add(name)
        return ("chunk", name, obj.size, obj.last)


class _Restorer(pickle.Unpickler):
    """Unpickles what :class:`_Keeper` pickled: chunks that read their file
    when their items are asked for."""

    def __init__(self, file: Any, chunks: _Chunks):
        super().__init__(file)
        self.chunks = chunks
        self.names: list[str] = []

    def persistent_load(self, pid: Any) -> Any:
        from functools import partial

        kind, name, size, last = pid
        if kind != "chunk" or not isinstance(name, str) or not isinstance(size, int):
            raise pickle.UnpicklingError(f"unknown reference {kind!r} in a checkpoint")
        self.names.append(name)
        return Chunk(None, size, last, load=partial(self.chunks.get, name), name=name)


class Checkpoints:
    """The checkpoints kept in one keystore (``home``)."""

    def __init__(self, home: str | os.PathLike[str]):
        self.home = Path(home)

    @classmethod
    def of(cls, identity: Any) -> "Checkpoints | None":
        """The checkpoints of the keystore ``identity`` was loaded from (None:
        an identity not from a keystore, or checkpoints turned off)."""
        home = identity.keystore
        if home is None or os.environ.get(OFF_ENV):
            return None
        return cls(home)

    def path_for(self, directory: str | os.PathLike[str]) -> Path:
        return keystore_file(self.home, DIRECTORY, directory, ".bin")

    def _chunks(self, path: Path, identity: Any, game_id: str) -> _Chunks:
        return _Chunks(path.with_suffix(".d"), self._key(identity, game_id))

    @staticmethod
    def _header(game: Any, transcript: Any, covered: str | None, count: int, stamps: str) -> bytes:
        setup = transcript.setup
        head = {
            "format": FORMAT,
            "game": transcript.game,
            "module": setup.get("module"),
            "module_version": game.version,
            "ruleset": setup.get("ruleset"),
            "count": count,
            "files": covered,
            "stamps": stamps,
            "code": code_digest(game),
        }
        return json.dumps(head, sort_keys=True, separators=(",", ":")).encode()

    @staticmethod
    def _key(identity: Any, game_id: str) -> bytes:
        from pbem.protocol.keys import derive_secret

        return derive_secret(identity, _CONTEXT + game_id.encode())

    def keep(self, directory: str | os.PathLike[str], covered: Covered, replay: Any, identity: Any) -> bool:
        """Keep ``replay`` (verified) of the files ``covered`` describes (the
        directory's first files) for ``identity``; False if it cannot be
        written.  What is kept is what the next load goes on from: the
        replay's base (the state before its last message's dice) with the
        histories up to it, and the transcript with only its messages' digests
        and the messages at both ends; the histories' large chunks go to chunk
        files, written once."""
        import io

        from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

        transcript, game, base = replay.transcript, replay.game, replay.base
        if covered.count != len(transcript) or covered.stamps.count != covered.count or base is None:
            return False
        path = self.path_for(directory)
        header = self._header(game, transcript, covered.digest, covered.count, covered.stamps.hexdigest())
        compact = copy_of(transcript, messages=FileMessages.of(transcript.messages),
                          chain_values=b"".join(transcript.chain_values))  # one bytes: 32 a message
        kept = copy_of(replay, game=None, state=None, pending=(), transcript=compact,
                       events=replay.events.truncated(base.events), rolls=replay.rolls.truncated(base.rolls))
        chunks = self._chunks(path, identity, transcript.game)
        body = io.BytesIO()
        try:
            _Keeper(body, chunks).dump(kept)
        except OSError:
            return False
        nonce = os.urandom(12)
        sealed = ChaCha20Poly1305(self._key(identity, transcript.game)).encrypt(nonce, body.getvalue(), header)
        if not write_private(path, b"".join((len(header).to_bytes(4, "big"), header, nonce, sealed))):
            return False
        chunks.sweep()
        return True

    def restore(self, directory: str | os.PathLike[str], entries: Sequence[tuple[int, str, str, os.stat_result]],
                read: Callable[[int], bytes], identity: Any, game_for: Any) -> tuple[Any, Covered] | None:
        """The kept replay of a prefix of the directory's message files
        (``entries``: the directory's listing, :meth:`GameDirectory.message_entries`,
        in order; ``read(i)``: the bytes
        of the i-th) and what it covers, if everything it depends on matches;
        else None.  ``game_for(transcript)`` gives the game object the files
        are played with."""
        import io

        from cryptography.exceptions import InvalidTag
        from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

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
            if head["stamps"] != stamps.hexdigest():  # a file touched: its bytes decide
                if head["files"] != files_digest([(entries[i][2], read(i)) for i in range(count)]):
                    return None
            key = self._key(identity, str(head["game"]))
            body = ChaCha20Poly1305(key).decrypt(nonce, sealed, header)
        except (OSError, ValueError, KeyError, TypeError, InvalidTag):
            return None
        restorer = _Restorer(io.BytesIO(body), _Chunks(path.with_suffix(".d"), key))
        try:  # authenticated above: written by this player's own pbem
            replay = restorer.load()
        except Exception:  # noqa: BLE001 - an old or damaged checkpoint is only a miss
            return None
        if not all((restorer.chunks.folder / name).is_file() for name in restorer.names):
            return None  # a chunk file removed: replay from the files
        from pbem.errors import PbemError

        try:
            game = game_for(replay.transcript)
        except PbemError:
            return None  # the files' own load says why
        if header != self._header(game, replay.transcript, head["files"], count, head["stamps"]):
            return None  # another game version, ruleset or pbem code: replay from the files
        replay.transcript.messages.bind(Path(directory), stamps.names)
        packed = replay.transcript.chain_values  # one bytes in the checkpoint: 32 a message
        ends = range(32, len(packed) + 32, 32)
        replay.transcript.chain_values = list(map(packed.__getitem__, map(slice, range(0, len(packed), 32), ends)))
        return copy_of(replay, game=game, state=replay.base.state), Covered(count, head["files"], stamps)

    def forget(self, directory: str | os.PathLike[str]) -> None:
        import shutil

        path = self.path_for(directory)
        try:
            path.unlink()
        except FileNotFoundError:
            pass
        shutil.rmtree(path.with_suffix(".d"), ignore_errors=True)
