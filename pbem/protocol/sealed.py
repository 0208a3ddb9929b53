"""Sealed secrets (docs/protocol.md §7): slots, salted commitments, the sealed store.

Every secret of a player derives from one 32-byte **per-game secret** ``S``
(see :func:`pbem.protocol.keys.derive_secret`: a player's key and the game id
determine it, so a player resumes on any machine from the files plus the key):

* ``salt(slot)   = HMAC-SHA256(S, "pbem-salt-v1" || 0x00 || slot)``
* ``seal_key     = HMAC-SHA256(S, "pbem-seal-key-v1")``
* ``commitment   = SHA256(lp("pbem-commit-v1") || lp(game) || lp(owner) ||
                          lp(slot) || lp(salt) || lp(pad(value)))``
  where ``lp(x) = u32be(len(x)) || x`` and ``owner`` is the owner's key
  fingerprint;
* ``pad(value)`` = UTF-8 bytes, then 0x80, then zero bytes up to a multiple
  of 32 (so "dummy" and "detachment" commit and seal to equal lengths);
* the **sealed store** (every slot value the owner holds) travels in each of
  the owner's messages as ``ChaCha20-Poly1305(seal_key, nonce = 0^4 ||
  u64be(seq), aad = game || 0x00 || u64be(seq) || owner)`` over the canonical
  JSON of ``{slot: value}`` padded with spaces to a multiple of 256 bytes.

A **reveal** publishes ``(slot, value, salt)``; anyone recomputes the
commitment.  At the end of the game each player reveals ``S``; the audit then
decrypts every store and rechecks every commitment.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Mapping

from pbem.errors import HiddenInfoError, IntegrityError
from pbem.protocol.canonical import decode, encode

COMMIT_LABEL = b"pbem-commit-v1"
PAD_BLOCK = 32
STORE_BLOCK = 4096  # protocol 7.4: a store's length tells nothing of a note's length below 4 KiB


def salt_for(game_secret: bytes, slot: str) -> bytes:
    return hmac.new(game_secret, b"pbem-salt-v1\x00" + slot.encode("utf-8"), hashlib.sha256).digest()


def seal_key(game_secret: bytes) -> bytes:
    return hmac.new(game_secret, b"pbem-seal-key-v1", hashlib.sha256).digest()


def pad(value: str) -> bytes:
    data = value.encode("utf-8") + b"\x80"
    return data + b"\x00" * (-len(data) % PAD_BLOCK)


def _lp(data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + data


def commitment(game: str, owner: str, slot: str, salt: bytes, value: str) -> bytes:
    parts = (COMMIT_LABEL, game.encode(), owner.encode(), slot.encode("utf-8"), salt, pad(value))
    return hashlib.sha256(b"".join(_lp(p) for p in parts)).digest()


def check_opening(game: str, owner: str, slot: str, value: str, salt: bytes, committed: bytes) -> None:
    """Raise :class:`HiddenInfoError` unless ``(slot, value, salt)`` opens ``committed``."""
    if not hmac.compare_digest(commitment(game, owner, slot, salt, value), committed):
        raise HiddenInfoError(
            f"reveal of slot {slot!r} does not match its commitment "
            f"{committed.hex()[:16]}... (value or salt altered)"
        )


def _nonce_aad(game: str, owner: str, seq: int) -> tuple[bytes, bytes]:
    nonce = b"\x00" * 4 + seq.to_bytes(8, "big")
    aad = game.encode() + b"\x00" + seq.to_bytes(8, "big") + owner.encode()
    return nonce, aad


def seal_store(game_secret: bytes, game: str, owner: str, seq: int, values: Mapping[str, str]) -> bytes:
    """Encrypt the owner's slot values for message ``seq``."""
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305


    plain = encode(dict(values))
    plain += b" " * (-len(plain) % STORE_BLOCK)
    nonce, aad = _nonce_aad(game, owner, seq)
    return ChaCha20Poly1305(seal_key(game_secret)).encrypt(nonce, plain, aad)


def open_store(game_secret: bytes, game: str, owner: str, seq: int, blob: bytes) -> dict[str, str]:
    """Decrypt a sealed store; a wrong secret or altered blob is an error."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305


    nonce, aad = _nonce_aad(game, owner, seq)
    try:
        plain = ChaCha20Poly1305(seal_key(game_secret)).decrypt(nonce, blob, aad)
    except InvalidTag as err:
        raise HiddenInfoError(f"sealed store of message {seq} does not decrypt with the revealed secret") from err
    values = decode(plain.rstrip(b" "))
    if not isinstance(values, dict) or not all(isinstance(v, str) for v in values.values()):
        raise IntegrityError(f"sealed store of message {seq} is not a slot table")
    return values
