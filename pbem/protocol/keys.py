"""Ed25519 identities in OpenSSH formats (docs/protocol.md §4.1).

A player's public key travels as the one-line ``ssh-ed25519 AAAA… name``
form, the private key is stored as an OpenSSH private key file (optionally
passphrase-protected), and players are named in files by the SHA256
fingerprint exactly as ``ssh-keygen -l`` prints it.  An existing
``~/.ssh/id_ed25519`` therefore works unchanged.

The SSH wire-format helpers (``string`` = uint32 length + bytes) and the
reading of a private key file's clear part live in
:mod:`pbem.protocol.sshwire` (no ``cryptography`` import) and are re-exported
here.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cryptography.exceptions import InvalidSignature, InvalidTag, UnsupportedAlgorithm
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from pbem.errors import IdentityError

if TYPE_CHECKING:
    from pathlib import Path

    from cryptography.hazmat.primitives.serialization.ssh import SSHPrivateKeyTypes
from pbem.protocol.sshwire import (  # noqa: F401 - WireReader, ssh_string: re-exported
    KEY_TYPE_BYTES,
    KEY_TYPE,
    WireReader,
    parse_private_header,
    show_key_type,
    ssh_string,
)

MAX_COMMENT = 100  # characters of a key's comment, the name it goes by (docs/protocol.md 3.3)

_SECRET_LABEL = b"pbem-derived-secret-v1"
_SECRET_SIGNED_PREFIX = b"pbem-secret-v1\0"


# --- public keys ----------------------------------------------------------------------


def comment_problem(comment: str) -> str | None:
    """What keeps ``comment`` from being a key's comment, in words; None if nothing.

    docs/protocol.md 3.3: a comment is at most 100 characters of printable
    text -- no control character (newline, CR, tab, NUL...), no format or
    separator character but the space -- and does not start or end with a
    space.  A key line is one line, and ``known_keys`` keeps one key a
    line: a comment holding a newline would add a line of its choosing.
    """
    if not isinstance(comment, str):
        return f"is a {type(comment).__name__}, not text"
    if len(comment) > MAX_COMMENT:
        return f"is {len(comment):,} characters; at most {MAX_COMMENT}"
    bad = next((c for c in comment if not c.isprintable()), None)
    if bad is not None:
        return (f"holds the character {bad!r} (U+{ord(bad):04X}): a key's comment is one line of printable text, "
                f"no control characters")
    if comment != comment.strip():
        return "starts or ends with a space"
    return None


@dataclass(frozen=True)
class PublicKey:
    """An Ed25519 public key; equality and hashing use the key bytes only, not the comment."""

    raw: bytes
    comment: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.raw, bytes) or len(self.raw) != 32:
            raise IdentityError(f"an ssh-ed25519 key is 32 bytes, got {len(self.raw)}")
        problem = comment_problem(self.comment)
        if problem:
            raise IdentityError(f"the key's comment {str(self.comment)[:120]!r} {problem}", field="comment")

    @classmethod
    def from_blob(cls, blob: bytes, comment: str = "") -> PublicKey:
        """Parse the SSH wire blob: string "ssh-ed25519", string key (32 bytes)."""
        reader = WireReader(blob, IdentityError, "public key")
        key_type = reader.string("key type")
        if key_type != KEY_TYPE_BYTES:
            raise IdentityError(f"unsupported key type {show_key_type(key_type)}: pbem needs an {KEY_TYPE} key")
        raw = reader.string("key")
        reader.end()
        if len(raw) != 32:
            raise reader.fail(f"an {KEY_TYPE} key is 32 bytes, got {len(raw)}")
        return cls(raw, comment)

    @classmethod
    def from_openssh(cls, line: str) -> PublicKey:
        """Parse ``ssh-ed25519 AAAA… comment`` (the ``.pub`` / authorized_keys form)."""
        parts = line.strip().split(None, 2)
        if len(parts) < 2:
            raise IdentityError(f"not an OpenSSH public key line: {line.strip()!r}")
        key_type, b64 = parts[0], parts[1]
        comment = parts[2].strip() if len(parts) == 3 else ""
        if key_type != KEY_TYPE:
            raise IdentityError(f"unsupported key type {key_type!r}: pbem needs an {KEY_TYPE} key")
        try:
            blob = base64.b64decode(b64, validate=True)
        except (binascii.Error, ValueError) as err:
            raise IdentityError(f"bad base64 in public key {b64!r}: {err}") from err
        return cls.from_blob(blob, comment)

    @property
    def blob(self) -> bytes:
        """The SSH wire blob: string "ssh-ed25519" + string key."""
        return ssh_string(KEY_TYPE_BYTES) + ssh_string(self.raw)

    @property
    def fingerprint(self) -> str:
        """``SHA256:`` + unpadded base64 of SHA-256(blob), as ``ssh-keygen -l`` prints it."""
        digest = hashlib.sha256(self.blob).digest()
        return "SHA256:" + base64.b64encode(digest).decode("ascii").rstrip("=")

    def openssh(self) -> str:
        """One line: ``ssh-ed25519 AAAA… comment`` (no comment if there is none)."""
        line = f"{KEY_TYPE} {base64.b64encode(self.blob).decode('ascii')}"
        return f"{line} {self.comment}" if self.comment else line

    def verify_raw(self, signature: bytes, data: bytes) -> bool:
        """True if ``signature`` is a valid plain Ed25519 signature of ``data`` by this key."""
        try:
            Ed25519PublicKey.from_public_bytes(self.raw).verify(signature, data)
        except (InvalidSignature, ValueError):
            return False
        return True

    def __str__(self) -> str:
        return self.fingerprint


# --- private keys ---------------------------------------------------------------------


class Identity:
    """An Ed25519 private key and the name (OpenSSH comment) it goes by."""

    def __init__(self, private_key: Ed25519PrivateKey, name: str = ""):
        if not isinstance(private_key, Ed25519PrivateKey):
            raise IdentityError(f"unsupported private key {type(private_key).__name__}: pbem needs an {KEY_TYPE} key")
        problem = comment_problem(name)
        if problem:  # the name is the public key's comment: refused here, not when it is first written
            raise IdentityError(f"the key's name {str(name)[:120]!r} {problem}", field="comment")
        self._key = private_key
        self.name = name
        self.keystore: Path | None = None  # the keystore it was loaded from, if any (its replay checkpoints)

    @classmethod
    def generate(cls, name: str) -> Identity:
        """A fresh random identity."""
        return cls(Ed25519PrivateKey.generate(), name)

    @classmethod
    def from_seed(cls, seed: bytes, name: str = "") -> Identity:
        """The identity whose RFC 8032 private key is the 32-byte ``seed`` (tests, fixtures)."""
        if len(seed) != 32:
            raise IdentityError(f"an Ed25519 seed is 32 bytes, got {len(seed)}")
        return cls(Ed25519PrivateKey.from_private_bytes(seed), name)

    @property
    def public(self) -> PublicKey:
        """The public half, carrying the name as its comment."""
        raw = self._key.public_key().public_bytes_raw()
        return PublicKey(raw, self.name)

    def sign_raw(self, data: bytes) -> bytes:
        """A plain 64-byte Ed25519 signature of ``data`` (deterministic, RFC 8032)."""
        return self._key.sign(data)

    def to_openssh_private(self, passphrase: bytes | None = None) -> bytes:
        """The OpenSSH private key file, encrypted (bcrypt KDF) when a passphrase is given."""
        from cryptography.hazmat.primitives import serialization  # its SSH module costs ~10 ms: only to write keys

        encryption: serialization.KeySerializationEncryption
        if passphrase:
            encryption = serialization.BestAvailableEncryption(passphrase)
        else:
            encryption = serialization.NoEncryption()
        return self._key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH, encryption)

    @classmethod
    def from_openssh_private(cls, data: bytes, passphrase: bytes | None = None, *, name: str | None = None) -> Identity:
        """Load an OpenSSH ed25519 private key file.

        The passphrase is used only if the key is encrypted.  The name defaults to
        the key's own comment when it is readable (unencrypted keys), else "".
        """
        if isinstance(data, str):
            data = data.encode("utf-8")
        header = parse_private_header(data)
        public = PublicKey.from_blob(header.public_blob)
        if header.encrypted and not passphrase:
            raise IdentityError(
                f"wrong passphrase for key {public.fingerprint}: it is passphrase-protected and none was given"
            )
        key: SSHPrivateKeyTypes
        try:
            if header.seed is not None:  # unencrypted: read and checked by parse_private_header
                key = Ed25519PrivateKey.from_private_bytes(header.seed)
            else:
                from cryptography.hazmat.primitives import serialization

                key = serialization.load_ssh_private_key(data, passphrase)
        except UnsupportedAlgorithm as err:
            raise IdentityError(f"cannot read key {public.fingerprint}: {err}") from err
        except (ValueError, TypeError, InvalidTag) as err:
            if header.encrypted:
                raise IdentityError(f"wrong passphrase for key {public.fingerprint}") from err
            raise IdentityError(f"corrupt private key {public.fingerprint}: {err}") from err
        # arg-type: an OpenSSH file may hold any kind of key; Identity refuses all but Ed25519
        identity = cls(key, name if name is not None else header.comment)  # type: ignore[arg-type]
        if identity.public != public:
            raise IdentityError(f"corrupt private key {public.fingerprint}: private and public halves differ")
        return identity

    def __repr__(self) -> str:
        return f"Identity({self.public.fingerprint}, name={self.name!r})"



def public_key_of_private(data: bytes) -> PublicKey:
    """The public key an OpenSSH private key file carries in clear (no passphrase needed)."""
    header = parse_private_header(data)
    return PublicKey.from_blob(header.public_blob, header.comment)


# --- derived secrets ------------------------------------------------------------------


def derive_secret(identity: Identity, context: bytes) -> bytes:
    """A 32-byte secret only ``identity`` can compute, fixed by ``context`` (docs/protocol.md §7.1).

    SHA256("pbem-derived-secret-v1" ‖ Ed25519-sign("pbem-secret-v1\\0" ‖ context)).
    Ed25519 signatures are deterministic, so a player recovers the same secret
    from the same key and context on any machine.
    """
    signature = identity.sign_raw(_SECRET_SIGNED_PREFIX + context)
    return hashlib.sha256(_SECRET_LABEL + signature).digest()
