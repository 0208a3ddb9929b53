"""SSHSIG signatures, the format of ``ssh-keygen -Y sign`` (docs/protocol.md §4.2).

Turn files are signed in namespace ``pbem-turn-v1`` so that anyone can check
them with stock ``ssh-keygen -Y verify``.  The format is OpenSSH's
PROTOCOL.sshsig (section 1 armour, 2 blob, 3 signed data); the numbered
steps in :func:`verify` cite those sections.

Blob::

    byte[6] "SSHSIG" | uint32 version=1 | string publickey | string namespace
    | string reserved | string hash_algorithm | string signature

Only ssh-ed25519 keys are produced or accepted.  Parsing is strict: every
length is checked and no trailing byte is allowed.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from dataclasses import dataclass

from pbem.errors import AuthenticityError, InputError, IntegrityError
from pbem.protocol.keys import Identity, PublicKey
from pbem.protocol.sshwire import KEY_TYPE, WireReader, ssh_string

MAGIC = b"SSHSIG"
VERSION = 1
TURN_NAMESPACE = "pbem-turn-v1"
BEGIN = "-----BEGIN SSH SIGNATURE-----"
END = "-----END SSH SIGNATURE-----"
_WRAP = 70  # sshsig 1 suggests 76, but ssh-keygen itself wraps at 70; we match ssh-keygen
_HASHES = {"sha512": hashlib.sha512, "sha256": hashlib.sha256}
_SIGN_HASH = "sha512"  # what ssh-keygen uses by default


@dataclass(frozen=True)
class SshSignature:
    """The fields of an SSHSIG blob, unverified; ``from_bytes`` / ``bytes()`` round-trip."""

    public_key: bytes
    namespace: str
    reserved: bytes
    hash_algorithm: str
    signature: bytes

    @classmethod
    def from_bytes(cls, blob: bytes) -> SshSignature:
        """Parse the blob (PROTOCOL.sshsig 2) without checking anything cryptographic."""
        reader = WireReader(blob, IntegrityError, "SSH signature")
        if (magic := reader.fixed(len(MAGIC), "magic")) != MAGIC:
            raise reader.fail(f"magic is {magic!r}, expected {MAGIC!r}")
        if (version := reader.u32("version")) != VERSION:
            raise reader.fail(f"version is {version}, expected {VERSION}")
        fields = cls(
            public_key=reader.string("publickey"),
            namespace=reader.text("namespace"),
            reserved=reader.string("reserved"),
            hash_algorithm=reader.text("hash_algorithm"),
            signature=reader.string("signature"),
        )
        reader.end()
        return fields

    def __bytes__(self) -> bytes:
        return b"".join(
            [
                MAGIC,
                VERSION.to_bytes(4, "big"),
                ssh_string(self.public_key),
                ssh_string(self.namespace.encode("utf-8")),
                ssh_string(self.reserved),
                ssh_string(self.hash_algorithm.encode("utf-8")),
                ssh_string(self.signature),
            ]
        )


def _signed_data(namespace: str, hash_algorithm: str, data: bytes) -> bytes:
    """PROTOCOL.sshsig 3: what the key actually signs (never the message itself)."""
    digest = _HASHES[hash_algorithm](data).digest()
    return b"".join(
        [
            MAGIC,
            ssh_string(namespace.encode("utf-8")),
            ssh_string(b""),  # reserved
            ssh_string(hash_algorithm.encode("utf-8")),
            ssh_string(digest),
        ]
    )


def sign(identity: Identity, data: bytes, namespace: str) -> bytes:
    """The binary SSHSIG blob for ``data`` in ``namespace``, as ``ssh-keygen -Y sign`` makes it."""
    if not namespace:
        raise InputError("an SSH signature needs a non-empty namespace")
    raw = identity.sign_raw(_signed_data(namespace, _SIGN_HASH, data))
    signature = ssh_string(KEY_TYPE.encode("ascii")) + ssh_string(raw)
    return bytes(SshSignature(identity.public.blob, namespace, b"", _SIGN_HASH, signature))


def verify(blob: bytes, data: bytes, namespace: str, expected: PublicKey | None = None) -> PublicKey:
    """Check that ``blob`` signs ``data`` in ``namespace``; return the signer's key.

    IntegrityError when the blob is malformed, AuthenticityError when it is
    well formed but does not prove that ``expected`` (or anyone) signed ``data``.
    """
    # 1. Parse the blob (sshsig 2): magic "SSHSIG", version 1 ("MUST reject versions
    #    greater than those they support"), five strings, nothing after.
    sig = SshSignature.from_bytes(blob)
    # 2. The namespace must be the one the verifier expects (sshsig 2: it "prevents
    #    cross-protocol attacks"); a signature for another purpose is refused.
    if sig.namespace != namespace:
        raise AuthenticityError(f"signature is for namespace {sig.namespace!r}, expected {namespace!r}")
    # 3. The reserved field (sshsig 2): the spec says to ignore a non-empty one; pbem
    #    refuses it instead, since ssh-keygen writes it empty and so a signature then
    #    has exactly one encoding.
    if sig.reserved:
        raise IntegrityError(f"malformed SSH signature: reserved field holds {len(sig.reserved)} bytes, expected none")
    # 4. hash_algorithm is one of the two the spec supports, "sha256" or "sha512" (sshsig 2).
    if sig.hash_algorithm not in _HASHES:
        raise AuthenticityError(f"signature uses hash {sig.hash_algorithm!r}; only sha512 and sha256 are accepted")
    # 5. publickey: the usual SSH encoding of the key (sshsig 2); only ssh-ed25519.
    signer = _parse_public_key(sig.public_key)
    # 6. signature: the SSH encoding for the key type (sshsig 2), for ed25519
    #    string "ssh-ed25519" + string of the 64-byte signature.
    raw = _parse_signature(sig.signature)
    # 7. The signer must be the key the caller expects.
    if expected is not None and signer != expected:
        raise AuthenticityError(f"signed by {signer.fingerprint}, expected {expected.fingerprint}")
    # 8. Ed25519 verification of the signed data (sshsig 3), rebuilt from the expected
    #    namespace and a fresh hash of the data received.
    if not signer.verify_raw(raw, _signed_data(namespace, sig.hash_algorithm, data)):
        raise AuthenticityError("signature does not verify")
    return signer


def _parse_public_key(blob: bytes) -> PublicKey:
    reader = WireReader(blob, IntegrityError, "SSH signature")
    key_type = reader.string("publickey type")
    if key_type != KEY_TYPE.encode("ascii"):
        shown = key_type.decode("ascii", errors="replace")
        raise AuthenticityError(f"signed with a {shown!r} key; pbem accepts only {KEY_TYPE}")
    raw = reader.string("publickey key")
    reader.end()
    if len(raw) != 32:
        raise reader.fail(f"{KEY_TYPE} key is {len(raw)} bytes, expected 32")
    return PublicKey(raw)


def _parse_signature(blob: bytes) -> bytes:
    reader = WireReader(blob, IntegrityError, "SSH signature")
    sig_type = reader.string("signature type")
    if sig_type != KEY_TYPE.encode("ascii"):
        shown = sig_type.decode("ascii", errors="replace")
        raise AuthenticityError(f"signature type {shown!r} does not match key type {KEY_TYPE!r}")
    raw = reader.string("signature bytes")
    reader.end()
    if len(raw) != 64:
        raise reader.fail(f"{KEY_TYPE} signature is {len(raw)} bytes, expected 64")
    return raw


def armor(blob: bytes) -> str:
    """The armoured text ``ssh-keygen -Y sign`` writes (sshsig 1): BEGIN, base64 at 70 columns, END."""
    b64 = base64.b64encode(blob).decode("ascii")
    lines = [BEGIN, *(b64[i : i + _WRAP] for i in range(0, len(b64), _WRAP)), END]
    return "\n".join(lines) + "\n"


def dearmor(text: str) -> bytes:
    """The blob inside an armoured signature; any whitespace and line endings are tolerated."""
    body = text.strip()
    if not body.startswith(BEGIN):
        raise IntegrityError(f"malformed SSH signature: does not start with {BEGIN!r}: {body[:40]!r}")
    if not body.endswith(END):
        raise IntegrityError(f"malformed SSH signature: does not end with {END!r}: {body[-40:]!r}")
    b64 = "".join(body[len(BEGIN) : len(body) - len(END)].split())
    try:
        return base64.b64decode(b64, validate=True)
    except (binascii.Error, ValueError) as err:
        raise IntegrityError(f"malformed SSH signature: bad base64 ({err})") from err
