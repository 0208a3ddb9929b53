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
  them read and compared with the digest;
* **the game** -- its id, module name and version, ruleset hash;
* **the code** -- size and modification time of every file of the pbem
  package and of the game's package and data set, so an upgrade or an
  edited rule file is a miss;
* **the player** -- it is sealed with ChaCha20-Poly1305 under a key only the
  player's private key derives (:func:`pbem.protocol.keys.derive_secret`),
  the header above as associated data.  A checkpoint that does not open is
  ignored; one cannot be forged or swapped in without the private key.

It holds what the player's own replay holds -- the opponent's sealed values
only as their commitments -- and, sealed, is never weaker than the key.
Deleting checkpoints is always safe.  ``PBEM_NO_CHECKPOINTS=1`` turns them
off (to measure, or to rule them out).
"""

from __future__ import annotations

import json
import os
import pickle
import sys
from dataclasses import replace as copy_of
from pathlib import Path
from typing import Any, Callable, NamedTuple, Sequence

from pbem.match.viewcache import hash256 as _hash
from pbem.match.viewcache import keystore_file, write_private

FORMAT = "pbem-checkpoint-v1"
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


def stamps_digest(entries: Sequence[tuple[str, os.stat_result]]) -> str:
    """BLAKE2b-256 of each file's name, size, device, inode, mtime and ctime."""
    digest = _hash(FORMAT.encode())
    for name, st in entries:
        digest.update(b"%s\x00%d %d %d %d %d\x00" % (name.encode(), st.st_size, st.st_dev, st.st_ino, st.st_mtime_ns,
                                                       st.st_ctime_ns))
    return digest.hexdigest()


class Covered(NamedTuple):
    """The message files a replay covers: how many, their chained digest, and
    their names and stats (as listed when they were read)."""

    count: int
    digest: str | None
    entries: tuple[tuple[str, os.stat_result], ...]


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

    @staticmethod
    def _header(game: Any, transcript: Any, covered: str, count: int, stamps: str) -> bytes:
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
        directory's first files) for ``identity``; False if it cannot be written."""
        from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

        transcript, game = replay.transcript, replay.game
        if covered.count != len(transcript) or len(covered.entries) != covered.count:
            return False
        header = self._header(game, transcript, covered.digest, covered.count, stamps_digest(covered.entries))
        kept = copy_of(replay, game=None)
        if replay.base is not None:  # chunks cut at the base: the next load extends from there unpickling nothing old
            kept = copy_of(kept, events=replay.events.split_at(replay.base.events),
                           rolls=replay.rolls.split_at(replay.base.rolls))
        body = pickle.dumps(kept, protocol=pickle.HIGHEST_PROTOCOL)
        nonce = os.urandom(12)
        sealed = ChaCha20Poly1305(self._key(identity, transcript.game)).encrypt(nonce, body, header)
        data = len(header).to_bytes(4, "big") + header + nonce + sealed
        return write_private(self.path_for(directory), data)

    def restore(self, directory: str | os.PathLike[str], entries: Sequence[tuple[str, os.stat_result]],
                read: Callable[[int], bytes], identity: Any, game_for: Any) -> tuple[Any, Covered] | None:
        """The kept replay of a prefix of the directory's message files
        (``entries``: their names and stats, in order; ``read(i)``: the bytes
        of the i-th) and what it covers, if everything it depends on matches;
        else None.  ``game_for(transcript)`` gives the game object the files
        are played with."""
        from cryptography.exceptions import InvalidTag
        from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

        try:
            data = self.path_for(directory).read_bytes()
            size = int.from_bytes(data[:4], "big")
            header, nonce, sealed = data[4:4 + size], data[4 + size:16 + size], data[16 + size:]
            head = json.loads(header)
            count = head["count"]
            if head.get("format") != FORMAT or not isinstance(count, int) or not 0 < count <= len(entries):
                return None
            if head["stamps"] != stamps_digest(entries[:count]):  # a file touched: its bytes decide
                if head["files"] != files_digest([(entries[i][0], read(i)) for i in range(count)]):
                    return None
            body = ChaCha20Poly1305(self._key(identity, str(head["game"]))).decrypt(nonce, sealed, header)
        except (OSError, ValueError, KeyError, TypeError, InvalidTag):
            return None
        try:
            replay = pickle.loads(body)  # authenticated above: written by this player's own pbem
        except Exception:  # noqa: BLE001 - an old or damaged checkpoint is only a miss
            return None
        from pbem.errors import PbemError

        try:
            game = game_for(replay.transcript)
        except PbemError:
            return None  # the files' own load says why
        if header != self._header(game, replay.transcript, head["files"], count, head["stamps"]):
            return None  # another game version, ruleset or pbem code: replay from the files
        return copy_of(replay, game=game), Covered(count, head["files"], tuple(entries[:count]))

    def forget(self, directory: str | os.PathLike[str]) -> None:
        try:
            self.path_for(directory).unlink()
        except FileNotFoundError:
            pass
