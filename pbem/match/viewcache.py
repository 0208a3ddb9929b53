"""The last views drawn of a game, so that showing an unchanged game again
costs little more than starting Python (docs/performance.md: ``pbem show``
within 1.5x of bare start-up plus the imports it needs).

Drawing a game's board means reading and verifying every message, replaying
every rule and laying out the map: a quarter of a second for a 10-turn Ambon
game, most of it imports.  Yet a game directory changes only when a message
is added (a message file is never rewritten).  So the text a view produced
is kept, and handed back while nothing it depends on has changed:

* **the game** -- the name and exact bytes of every message file;
* **the player** -- the bytes of the key files in the keystore;
* **the output** -- what is drawn (``mode``) and everything the terminal
  library reads to lay it out: terminal sizes, whether output is a terminal,
  its encoding, and the environment variables it consults;
* **the code** -- size and modification time of every source file imported
  while drawing, and of every file of the game's package (its rule data), so
  an upgrade or an edited data file is a miss.

Anything else is a miss: the game is then verified, replayed and drawn as if
there were no cache, and the new text replaces the old.

Where entries live, and how they are protected, follows the key: they are
kept in the keystore (``$PBEM_HOME/views/``, mode 0600), never in the game
directory, which players copy and send.  When the private key is stored
without a passphrase, anyone who can read the keystore can already read the
player's hidden units, so the text is kept as it is (with a checksum), and a
cached ``show`` needs neither the key nor ``cryptography``.  When the key is
passphrase-protected the text is sealed with ChaCha20-Poly1305 under a key
only the unlocked private key derives (:func:`pbem.protocol.keys.derive_secret`
of the files' digest), so the cache is never weaker than the key: showing
needs the passphrase as before, and skips only the replay and the drawing.
Deleting the cache is always safe; a damaged entry is ignored and replaced.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Any, Callable, Mapping, NamedTuple

from pbem.errors import PbemError

try:  # CPython's own BLAKE2: importing hashlib would load OpenSSL first, a kept view's largest import
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - other interpreters
    from hashlib import blake2b

FORMAT = "pbem-views-v1"
KEEP = 4  # entries kept per game: a board and its --json, two terminal widths
VIEWS_DIR = "views"
_CONTEXT = b"pbem-view-cache-v1\x00"
# what rich's Console reads from the environment to choose width, colours and terminal features
CONSOLE_ENV = (
    "COLUMNS", "LINES", "TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE",
    "JUPYTER_COLUMNS", "JUPYTER_LINES", "DATABRICKS_RUNTIME_VERSION", "UNICODE_VERSION",
)


def _hash(data: bytes = b"") -> blake2b:
    """BLAKE2b-256: the digests that key and check kept views (and replay checkpoints)."""
    return blake2b(data, digest_size=32)


hash256 = _hash  # for pbem.match.checkpoint, which keeps its files beside the views


def keystore_file(home: Path, folder: str, directory: str | os.PathLike[str], suffix: str) -> Path:
    """Where a keystore keeps a file about the game directory ``directory``:
    ``home/folder/`` and a name digested from the directory's full path."""
    where = str(Path(directory).resolve())
    return home / folder / (_hash(where.encode("utf-8")).hexdigest()[:32] + suffix)


def files_digest(directory: str | os.PathLike[str]) -> str | None:
    """BLAKE2b-256 of the names and bytes of every message file, in order (None:
    no game here, or files the full load must report on: never cached)."""
    from pbem.match.directory import GameDirectory

    digest = _hash(FORMAT.encode())
    try:
        files = GameDirectory(directory).message_files()
        for _, _, path in files:
            data = path.read_bytes()
            digest.update(b"%s\x00%d\x00" % (path.name.encode(), len(data)))
            digest.update(data)
    except (OSError, PbemError):  # unreadable, or two files for one message: the full load says which
        return None
    return digest.hexdigest() if files else None


def console_inputs() -> dict[str, Any]:
    """Everything the terminal library reads to lay out text for standard output."""
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


class Owner(NamedTuple):
    """The keystore whose player the views were drawn for."""

    home: Path
    tag: str  # BLAKE2b of the key files
    sealed: bool  # the private key is passphrase-protected: entries are sealed

    @classmethod
    def of(cls, home: str | os.PathLike[str]) -> Owner | None:
        """None if the keystore holds no readable key (the full load says why)."""
        from pbem.protocol.sshwire import is_encrypted

        home = Path(home)
        try:
            private = (home / "identity").read_bytes()
            public = (home / "identity.pub").read_bytes()
            sealed = is_encrypted(private)
        except (OSError, PbemError):
            return None
        tag = _hash(b"%d\x00" % len(private) + private + public).hexdigest()
        return cls(home, tag, sealed)

    def path_for(self, directory: str | os.PathLike[str]) -> Path:
        return keystore_file(self.home, VIEWS_DIR, directory, ".json")


def code_files(game: Any) -> dict[str, list[int]]:
    """``path -> [size, mtime_ns]`` of every imported source file, every
    file of the game's package (its shipped data) and of its installed data set."""
    paths: set[str] = set()
    for module in list(sys.modules.values()):
        where = getattr(module, "__file__", None)
        if where:
            paths.add(where)
    package = getattr(sys.modules.get(type(game).__module__), "__file__", None)
    from pbem.match.datasets import source_of

    data = source_of(game)  # an installed data set
    tops = ([Path(package).parent] if package else []) + ([Path(data)] if data else [])
    for top in tops:
        for root, dirs, names in os.walk(top):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            paths.update(os.path.join(root, name) for name in names)
    return {path: _stamp(path) for path in sorted(paths)}


def _stamp(path: str) -> list[int]:
    try:
        st = os.stat(path)
    except OSError:
        return [-1, -1]
    return [st.st_size, st.st_mtime_ns]


def _code_unchanged(code: Any) -> bool:
    return isinstance(code, dict) and all(_stamp(path) == stamp for path, stamp in code.items())


def _key(identity: Any, digest: str) -> bytes:
    from pbem.protocol.keys import derive_secret

    return derive_secret(identity, _CONTEXT + bytes.fromhex(digest))


def _associated(digest: str, mode: str, console: Mapping[str, Any]) -> bytes:
    head = {"format": FORMAT, "files": digest, "mode": mode, "console": console}
    return json.dumps(head, sort_keys=True, separators=(",", ":")).encode()


def _read(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("entries"), list):
        return None
    return data


def _current(data: dict[str, Any] | None, owner: Owner, digest: str) -> bool:
    return (
        data is not None and data.get("files") == digest and data.get("owner") == owner.tag
        and _code_unchanged(data.get("code"))
    )


def lookup(
    directory: str | os.PathLike[str],
    owner: Owner,
    digest: str,
    mode: str,
    console: Mapping[str, Any],
    unlock: Callable[[], Any],
) -> str | None:
    """The text drawn before for the game whose files hash to ``digest`` (see
    :func:`files_digest`), for this player, mode and console, if nothing it
    depends on has changed; else None.  ``unlock()`` gives the player's
    identity; it is called only to open a sealed entry that is current."""
    data = _read(owner.path_for(directory))
    if data is None or not _current(data, owner, digest):
        return None
    for entry in data["entries"]:
        if not isinstance(entry, dict) or entry.get("mode") != mode or entry.get("console") != console:
            continue
        text = _open(entry, owner, digest, mode, console, unlock)
        if text is not None:
            return text
    return None


def _open(entry: dict[str, Any], owner: Owner, digest: str, mode: str, console: Mapping[str, Any], unlock: Callable[[], Any]) -> str | None:
    try:
        if not owner.sealed:
            text = entry["text"]
            if not isinstance(text, str) or _hash(text.encode("utf-8")).hexdigest() != entry["blake2b"]:
                return None
            return text
        import base64

        nonce, sealed = base64.b64decode(entry["nonce"]), base64.b64decode(entry["sealed"])
    except (KeyError, TypeError, ValueError):
        return None
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

    try:
        plain = ChaCha20Poly1305(_key(unlock(), digest)).decrypt(nonce, sealed, _associated(digest, mode, console))
        return plain.decode("utf-8")
    except (InvalidTag, ValueError):
        return None


def store(
    directory: str | os.PathLike[str],
    owner: Owner,
    digest: str | None,
    mode: str,
    console: Mapping[str, Any],
    game: Any,
    text: str,
    identity: Any,
) -> bool:
    """Keep ``text`` as drawn for ``digest`` (the files' digest taken *before*
    the game was loaded).  Nothing is kept if the files changed meanwhile (a
    message arrived while drawing) or the keystore cannot be written."""
    if digest is None or files_digest(directory) != digest:
        return False
    if owner.sealed:
        import base64

        from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

        nonce = os.urandom(12)
        sealed = ChaCha20Poly1305(_key(identity, digest)).encrypt(nonce, text.encode("utf-8"), _associated(digest, mode, console))
        entry: dict[str, Any] = {"nonce": base64.b64encode(nonce).decode(), "sealed": base64.b64encode(sealed).decode()}
    else:
        entry = {"text": text, "blake2b": _hash(text.encode("utf-8")).hexdigest()}
    entry.update(mode=mode, console=dict(console))
    path = owner.path_for(directory)
    old = _read(path)
    code = code_files(game)
    kept: list[dict[str, Any]] = []
    if old is not None and _current(old, owner, digest):
        kept = [e for e in old["entries"] if isinstance(e, dict) and (e.get("mode"), e.get("console")) != (mode, entry["console"])]
        code = {**old["code"], **code}
    data = {
        "format": FORMAT,
        "game_dir": str(Path(directory).resolve()),
        "files": digest,
        "owner": owner.tag,
        "code": code,
        "entries": [entry, *kept][:KEEP],
    }
    return write_private(path, json.dumps(data, sort_keys=True).encode("utf-8"))


def write_private(path: Path, data: bytes) -> bool:
    """Write a keystore file ``path`` whole or not at all, readable by its
    owner only (a cache may be rewritten; message files never are); False
    if the keystore cannot be written."""
    from pbem.util.atomicfile import replace

    try:
        path.parent.mkdir(mode=0o700, exist_ok=True)
        replace(path, data, mode=0o600, durable=False)
        return True
    except OSError:
        return False  # a read-only keystore: no cache, nothing else changes


def forget(owner: Owner, directory: str | os.PathLike[str]) -> None:
    """Drop the views kept for ``directory``."""
    with contextlib.suppress(FileNotFoundError):
        owner.path_for(directory).unlink()
