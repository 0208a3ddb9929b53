"""The keystore: where a player's identity lives (docs/protocol.md §4.1).

Layout under :func:`home_dir` (``$PBEM_HOME`` or the platform config dir)::

    identity        OpenSSH private key, mode 0600 (passphrase-protected if one was given)
    identity.agent  instead of ``identity``: the key line of a key ssh-agent holds (docs/protocol.md §4.4)
    identity.pub    ssh-ed25519 AAAA… name, mode 0600
    games/          per-game files kept by the match layer
    places/         one file a game created or joined here: its directory (``pbem status`` finds it)

An identity is backed by exactly one of the two: a key file pbem keeps
(``identity``), or ssh-agent (``identity.agent``), which pbem asks for every
signature and never holds the key.  Both make the same signatures, so
a game begun with one goes on with the other (``pbem key use-agent
--replace`` turns a keystore key the agent also holds into an agent one).

Writes are atomic (temporary file in the same directory, fsync, rename), so a
crash never leaves a half-written key.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import platformdirs

from pbem.errors import AgentError, IdentityError, UsageError
from pbem.protocol.agent import Agent, AgentIdentity
from pbem.protocol.keys import MAX_COMMENT, Identity, PublicKey, comment_problem, public_key_of_private
from pbem.protocol.sshwire import is_encrypted, parse_private_header
from pbem.util.atomicfile import replace

HOME_ENV = "PBEM_HOME"
PASSPHRASE_ENV = "PBEM_PASSPHRASE"


def home_dir() -> Path:
    """``$PBEM_HOME`` if set, else the platform's per-user config dir for pbem."""
    override = os.environ.get(HOME_ENV)
    if override:
        return Path(override)

    return platformdirs.user_config_path("pbem")


def passphrase_from_env() -> bytes | None:
    """The passphrase in ``$PBEM_PASSPHRASE`` (UTF-8), or None when it is unset."""
    value = os.environ.get(PASSPHRASE_ENV)
    return None if value is None else value.encode("utf-8")


def new_passphrase_from_env() -> bytes | None:
    """The passphrase to encrypt a key with, from ``$PBEM_PASSPHRASE``, or None
    when it is unset.  Set but empty is refused: it would store the key
    unencrypted though nobody asked for that (``--no-passphrase`` does)."""
    value = passphrase_from_env()
    if value == b"":
        raise UsageError(f"{PASSPHRASE_ENV} is set but empty: pbem will not store your key unencrypted unless you "
                         f"ask (pbem key new --no-passphrase); set a passphrase, or unset it to be asked")
    return value


def check_name(name: str) -> str:
    """A key's name is the comment of its one-line public key: one line of
    printable text, or the .pub file could not be read back."""
    problem = comment_problem(name) if name else "is empty"
    if problem:
        raise UsageError(f"--name {name[:120]!r}: {problem}; give one line of printable text "
                         f"(1-{MAX_COMMENT} characters)", field="--name")
    return name


class Keystore:
    """A player's identity on disk; see the module docstring for the layout."""

    def __init__(self, path: Path | str | None = None):
        self.path = Path(path) if path is not None else home_dir()

    @property
    def identity_path(self) -> Path:
        return self.path / "identity"

    @property
    def public_path(self) -> Path:
        return self.path / "identity.pub"

    @property
    def games_dir(self) -> Path:
        return self.path / "games"

    @property
    def agent_path(self) -> Path:
        return self.path / "identity.agent"

    def exists(self) -> bool:
        """True if an identity is kept here: a private key, or the note of a key ssh-agent holds."""
        return self.identity_path.is_file() or self.agent_path.is_file()

    def in_agent(self) -> bool:
        """True if the identity kept here is a key ssh-agent holds (``identity.agent``)."""
        return self.agent_path.is_file() and not self.identity_path.is_file()

    def use_agent(self, key: PublicKey, name: str, *, replace: bool = False) -> PublicKey:
        """Make ``key``, which ssh-agent holds, this keystore's identity, named ``name``.

        Refused when an identity is kept here already, unless ``replace`` and
        it is the same key: pbem's copy of it is then deleted, and the games
        begun with it go on, since the agent makes the same signatures and so
        derives the same per-game secrets (docs/protocol.md §4.4).
        """
        check_name(name)
        if self.exists():
            current = self.public()
            if current != key:
                raise UsageError(f"{self.path} keeps another identity, {current.fingerprint} ({current.comment!r}); "
                                 f"the games begun with it need it. Remove {self._files()} first (keep a copy: it is "
                                 f"that identity) to use {key.fingerprint} from ssh-agent")
            if self.in_agent():
                if current.comment == name:
                    return current
            elif not replace:
                raise UsageError(f"{self.identity_path} holds the same key, {key.fingerprint}: give --replace to delete "
                                 f"pbem's copy and use the agent's (your games go on: the agent makes the same "
                                 f"signatures); keep a copy of the key file if the agent's is your only other one")
        public = PublicKey(key.raw, name)
        self.path.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.games_dir.mkdir(mode=0o700, exist_ok=True)
        line = (public.openssh() + "\n").encode("utf-8")
        atomic_write(self.agent_path, line)
        atomic_write(self.public_path, line)
        self.identity_path.unlink(missing_ok=True)
        return public

    def create(self, name: str, passphrase: bytes | None) -> Identity:
        """Generate and store a new identity; refuses to replace an existing one."""
        check_name(name)
        self._refuse_overwrite()
        identity = Identity.generate(name)
        self._store(identity, passphrase)
        identity.keystore = self.path
        return identity

    def load_or_create(self, name: str) -> Identity:
        """The identity kept here, or a new one named ``name`` (unencrypted):
        for identities pbem makes for itself (solo's house, demo players)."""
        return self.load(lambda: None) if self.exists() else self.create(name, None)

    def import_key(self, path: Path | str, passphrase: bytes | None, *, name: str | None = None,
                   encrypt: bytes | None = None) -> Identity:
        """Adopt an existing OpenSSH ed25519 private key (e.g. ``~/.ssh/id_ed25519``).

        The stored copy is encrypted with the same passphrase if the original was
        encrypted; an unencrypted one is stored encrypted with ``encrypt`` when
        given, unencrypted otherwise.  The name defaults to the comment in the
        neighbouring ``.pub`` file, then to the key's own comment.
        """
        if name is not None:
            check_name(name)
        self._refuse_overwrite()
        path = Path(path)
        data = _read(path, "key file")
        encrypted = is_encrypted(data)
        if name is None:
            header = parse_private_header(data)
            neighbour = _read_public(path.with_name(path.name + ".pub"))
            if neighbour is not None and neighbour == PublicKey.from_blob(header.public_blob) and neighbour.comment:
                name = neighbour.comment
            else:
                name = header.comment
            problem = comment_problem(name)
            if problem:  # refused, not cleaned up: the name is what the opponent sees, so the player chooses it
                raise IdentityError(f"{path}: the key's comment {name[:120]!r} {problem}; import it with "
                                    f"--name NAME to choose the name it goes by", field="comment")
        identity = Identity.from_openssh_private(data, passphrase if encrypted else None, name=name)
        self._store(identity, passphrase if encrypted else encrypt or None)
        return identity

    def public(self) -> PublicKey:
        """The stored public key; needs no passphrase."""
        if self.public_path.is_file():
            return PublicKey.from_openssh(_read(self.public_path, "public key").decode("utf-8", errors="replace"))
        if self.in_agent():
            return PublicKey.from_openssh(_read(self.agent_path, "key note").decode("utf-8", errors="replace"))
        if self.exists():  # identity.pub lost: the private file carries the public key in clear
            return public_key_of_private(_read(self.identity_path, "key file"))
        raise self._absent()

    def load(self, passphrase_provider: Callable[[], bytes | None]) -> Identity:
        """The stored identity; ``passphrase_provider`` is called only if the key is encrypted.

        A key ssh-agent holds needs no passphrase: the identity returned
        signs through the agent at ``$SSH_AUTH_SOCK`` (an AgentError if it
        cannot be reached or no longer holds the key)."""
        if not self.exists():
            raise self._absent()
        if self.in_agent():
            return self._agent_identity()
        data = _read(self.identity_path, "key file")
        passphrase = passphrase_provider() if is_encrypted(data) else None
        public = self.public()
        identity = Identity.from_openssh_private(data, passphrase, name=public.comment or None)
        if identity.public != public:
            raise IdentityError(
                f"{self.public_path} ({public.fingerprint}) does not match {self.identity_path}"
                f" ({identity.public.fingerprint})"
            )
        identity.keystore = self.path  # where its replay checkpoints are kept (pbem.match.checkpoint)
        return identity

    # --- opponents' keys: trust on first use (docs/protocol.md §4.1) -----------------------------

    @property
    def known_path(self) -> Path:
        return self.path / "known_keys"

    def known(self) -> list[PublicKey]:
        """The opponents' keys met before (``known_keys``: one OpenSSH public key line each)."""
        try:
            lines = self.known_path.read_text("utf-8", "replace").splitlines()
        except FileNotFoundError:
            return []
        found = []
        for line in lines:
            if line.strip() and not line.startswith("#"):
                try:
                    found.append(PublicKey.from_openssh(line))
                except IdentityError:
                    continue  # a damaged line: that key counts as unknown
        return found

    @property
    def places_dir(self) -> Path:
        return self.path / "places"

    def record_game(self, game_id: str, directory: Path | str) -> None:
        """Note where the game ``game_id`` (created or joined with this key) lives."""
        if not re.fullmatch(r"[0-9a-f]{8,64}", game_id):
            raise UsageError(f"game id {game_id!r} is not hexadecimal")
        self.path.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.places_dir.mkdir(mode=0o700, exist_ok=True)
        atomic_write(self.places_dir / game_id, (str(Path(directory).resolve()) + "\n").encode("utf-8"))

    def game_places(self) -> list[Path]:
        """The directories of the games recorded by :meth:`record_game`, by game id."""
        if not self.places_dir.is_dir():
            return []
        found = []
        for entry in sorted(self.places_dir.iterdir()):
            try:
                found.append(Path(entry.read_text("utf-8").strip()))
            except (OSError, UnicodeDecodeError):
                continue  # an unreadable note: that game is named by hand
        return found

    def remember(self, key: PublicKey) -> bool:
        """Add ``key`` to the known keys; False if it was known already."""
        known = self.known()
        if any(k == key for k in known):
            return False
        self._write_known(known + [key])
        return True

    def _write_known(self, keys: list[PublicKey]) -> None:
        """The one writer of ``known_keys``: each key one line, refused before
        anything is written if a field of it could add a line."""
        data = "".join(known_line(k) + "\n" for k in keys).encode("utf-8")
        atomic_write(self.known_path, data)

    def check_new_key(self, key: PublicKey) -> str:
        """How ``key`` stands against the known keys: ``"known"``, ``"new"``,
        or ``"changed"`` (an unknown key whose name a known key already has:
        the mark of a key swapped in transit)."""
        known = self.known()
        if any(k == key for k in known):
            return "known"
        if key.comment and any(k.comment == key.comment for k in known):
            return "changed"
        return "new"

    # --- internals ----------------------------------------------------------------------

    def _absent(self) -> IdentityError:
        return IdentityError(f"no identity in {self.path}; run `pbem key new`")

    def _agent_identity(self) -> Identity:
        noted = PublicKey.from_openssh(_read(self.agent_path, "key note").decode("utf-8", errors="replace"))
        public = self.public()
        if public != noted:
            raise IdentityError(f"{self.public_path} ({public.fingerprint}) does not match {self.agent_path} "
                                f"({noted.fingerprint})")
        agent = Agent()
        if not agent.holds(public):
            raise AgentError(f"your pbem key {public.fingerprint} ({public.comment!r}) is held by ssh-agent, but the "
                             f"agent at {agent.path} does not hold it: add it (ssh-add KEYFILE), or point "
                             f"SSH_AUTH_SOCK at the agent that does")
        identity = AgentIdentity(agent, public, public.comment)
        identity.keystore = self.path
        return identity

    def _files(self) -> str:
        return str(self.agent_path if self.in_agent() else self.identity_path)

    def _refuse_overwrite(self) -> None:
        if self.in_agent():
            raise UsageError(f"your identity is a key ssh-agent holds ({self.agent_path}); remove that file first")
        if self.exists():
            raise UsageError(f"a key already exists at {self.identity_path}; remove it first")

    def _store(self, identity: Identity, passphrase: bytes | None) -> None:
        self.path.mkdir(mode=0o700, parents=True, exist_ok=True)
        # views kept for a previous key (plain text if it had no passphrase) must not outlive it
        shutil.rmtree(self.path / "views", ignore_errors=True)
        self.games_dir.mkdir(mode=0o700, exist_ok=True)
        atomic_write(self.identity_path, identity.to_openssh_private(passphrase))
        atomic_write(self.public_path, (identity.public.openssh() + "\n").encode("utf-8"))


def known_line(key: PublicKey) -> str:
    """``key`` as its line of ``known_keys``: one line that reads back as
    the same key with the same comment, or an IdentityError naming the
    comment (a comment holding a newline would add a key of its choosing)."""
    line = key.openssh()
    problem = comment_problem(key.comment)
    if problem is None and any(not c.isprintable() for c in line):
        problem = "makes the key line more than one line"
    if problem is None:
        again = PublicKey.from_openssh(line)
        if again != key or again.comment != key.comment:
            problem = "does not read back as the same key"
    if problem:
        raise IdentityError(f"known_keys: the comment {key.comment[:120]!r} of {key.fingerprint} {problem}; "
                            f"nothing written", field="comment")
    return line


def atomic_write(path: Path, data: bytes, mode: int = 0o600) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the new one, never a part."""
    replace(path, data, mode=mode)


def _read(path: Path, what: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as err:
        raise IdentityError(f"cannot read {what} {str(path)!r}: {err.strerror}") from err


def _read_public(pub_path: Path) -> PublicKey | None:
    """The ``.pub`` file next to an imported key, or None if it is absent or unreadable."""
    try:
        return PublicKey.from_openssh(pub_path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, IdentityError):
        return None
