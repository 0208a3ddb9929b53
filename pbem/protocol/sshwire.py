"""OpenSSH wire format and the clear part of OpenSSH private key files.

Standard library only, so that code which needs to know *whether* a key is
passphrase-protected (or to read SSH wire data) does not pay for importing
``cryptography``; :mod:`pbem.protocol.keys` builds keys on top of it.
"""

from __future__ import annotations

import binascii
import re
import struct
from typing import NamedTuple

from pbem.errors import IdentityError, PbemError

KEY_TYPE = "ssh-ed25519"
KEY_TYPE_BYTES = KEY_TYPE.encode("ascii")
_PRIVATE_MAGIC = b"openssh-key-v1\0"
_PRIVATE_PEM = re.compile(
    rb"-----BEGIN OPENSSH PRIVATE KEY-----(.*?)-----END OPENSSH PRIVATE KEY-----", re.DOTALL
)


# --- SSH wire format (RFC 4251 section 5) ---------------------------------------------


def ssh_string(data: bytes) -> bytes:
    """Encode ``data`` as an SSH ``string``: uint32 big-endian length, then the bytes."""
    return struct.pack(">I", len(data)) + data


class WireReader:
    """Strict reader of SSH wire data; every fault raises ``error("malformed <what>: …")``."""

    def __init__(self, data: bytes, error: type[PbemError], what: str):
        self._data = bytes(data)
        self._pos = 0
        self._error = error
        self._what = what

    def fail(self, detail: str) -> PbemError:
        """The error to raise for a structural fault, naming what was being read."""
        return self._error(f"malformed {self._what}: {detail}")

    def fixed(self, n: int, name: str) -> bytes:
        """Read exactly ``n`` raw bytes (the field ``name``)."""
        end = self._pos + n
        if end > len(self._data):
            left = len(self._data) - self._pos
            raise self.fail(f"{name} truncated (needs {n} bytes at offset {self._pos}, {left} left)")
        chunk = self._data[self._pos : end]
        self._pos = end
        return chunk

    def u32(self, name: str) -> int:
        """Read a uint32."""
        return int.from_bytes(self.fixed(4, name), "big")

    def string(self, name: str) -> bytes:
        """Read an SSH ``string``."""
        return self.fixed(self.u32(f"length of {name}"), name)

    def text(self, name: str) -> str:
        """Read an SSH ``string`` that must be UTF-8 text."""
        raw = self.string(name)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as err:
            raise self.fail(f"{name} {raw!r} is not UTF-8") from err

    @property
    def left(self) -> int:
        """Bytes not read yet."""
        return len(self._data) - self._pos

    def end(self) -> None:
        """Require that everything was consumed."""
        if self._pos != len(self._data):
            raise self.fail(f"{len(self._data) - self._pos} trailing bytes after offset {self._pos}")



# --- private key files ------------------------------------------------------------


def is_encrypted(data: bytes) -> bool:
    """True if the OpenSSH private key file ``data`` is passphrase-protected (ciphername != "none")."""
    return parse_private_header(data).encrypted


class PrivateHeader(NamedTuple):
    encrypted: bool
    public_blob: bytes
    comment: str  # "" when encrypted: the comment lives in the encrypted part
    seed: bytes | None = None  # unencrypted: the 32-byte Ed25519 private key (RFC 8032 seed)


def parse_private_header(data: bytes) -> PrivateHeader:
    """Parse the clear part of an openssh-key-v1 file (OpenSSH PROTOCOL.key)."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    match = _PRIVATE_PEM.search(data)
    if not match:
        raise IdentityError("not an OpenSSH private key: no '-----BEGIN OPENSSH PRIVATE KEY-----' block")
    try:
        raw = binascii.a2b_base64(b"".join(match.group(1).split()), strict_mode=True)  # = b64decode(validate=True)
    except (binascii.Error, ValueError) as err:
        raise IdentityError(f"not an OpenSSH private key: bad base64 ({err})") from err
    if not raw.startswith(_PRIVATE_MAGIC):
        raise IdentityError("not an OpenSSH private key: missing 'openssh-key-v1' magic")
    reader = WireReader(raw[len(_PRIVATE_MAGIC) :], IdentityError, "OpenSSH private key")
    ciphername = reader.string("ciphername")
    reader.string("kdfname")
    reader.string("kdfoptions")
    if (count := reader.u32("number of keys")) != 1:
        raise reader.fail(f"holds {count} keys, pbem reads files with exactly one")
    public_blob = reader.string("public key")
    key_type = WireReader(public_blob, IdentityError, "public key").string("key type")
    if key_type != KEY_TYPE_BYTES:
        raise IdentityError(f"unsupported key type {show_key_type(key_type)}: pbem needs an {KEY_TYPE} key")
    encrypted = ciphername != b"none"
    if encrypted:
        return PrivateHeader(True, public_blob, "")
    # checkint, checkint, key type, public key, private key (seed || public), comment, padding 1, 2, 3...
    section = reader.string("private section")
    reader.end()
    private = WireReader(section, IdentityError, "OpenSSH private key")
    if private.u32("checkint") != private.u32("checkint"):
        raise private.fail("the two check integers differ")
    if private.string("key type") != KEY_TYPE_BYTES:
        raise private.fail("the private key's type is not the public key's")
    public = private.string("public key")
    pair = private.string("private key")
    if len(public) != 32 or len(pair) != 64 or pair[32:] != public or public_blob != ssh_string(KEY_TYPE_BYTES) + ssh_string(public):
        raise private.fail("the private key does not hold the public key it is filed under")
    comment = private.string("comment").decode("utf-8", errors="replace")
    padding = section[len(section) - private.left:]
    if padding != bytes(range(1, len(padding) + 1)) or len(section) % 8:
        raise private.fail("bad padding after the comment")
    return PrivateHeader(False, public_blob, comment, pair[:32])


def show_key_type(raw: bytes) -> str:
    """Quote a key-type field for an error message."""
    return repr(raw.decode("ascii", errors="replace"))

