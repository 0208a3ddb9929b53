"""Dice nobody can bias or preview (docs/protocol.md §6).

The rolls that become due while message *m* is applied are keyed by::

    D_m = HKDF-SHA256(ikm  = x_author(m) || y_recipient(m+1),
                      salt = "pbem-dice-v1",
                      info = game_id || 0x00 || u64be(m) || SHA256(body_m))

and each roll (an engine *label*) reads its own substream::

    K_label  = HMAC-SHA256(D_m, "pbem-roll-v1" || 0x00 || label)
    block_i  = HMAC-SHA256(K_label, u32be(i))      i = 0, 1, 2 ...

consumed eight bytes at a time as unsigned big-endian 64-bit integers.
``below(n)`` rejects values >= 2^64 - (2^64 mod n) and returns ``u mod n``:
no modulo bias.  A die of *s* faces is ``below(s) + 1``; shuffles are
Fisher-Yates from the top (``j = below(i + 1)`` for ``i = n-1 .. 1``); a deck
draws lazily: ``below(cards_left)`` at the moment of the draw.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any, MutableSequence

DICE_SALT = b"pbem-dice-v1"
ROLL_PREFIX = b"pbem-roll-v1\x00"
U64 = 1 << 64


def hkdf_sha256(ikm: bytes, salt: bytes, info: bytes, length: int = 32) -> bytes:
    """RFC 5869 HKDF with SHA-256."""
    prk = hmac.new(salt, ikm, hashlib.sha256).digest()
    out, block, counter = b"", b"", 1
    while len(out) < length:
        block = hmac.new(prk, block + info + bytes([counter]), hashlib.sha256).digest()
        out += block
        counter += 1
    return out[:length]


def dice_key(game_id: str, seq: int, body_hash: bytes, author_value: bytes, recipient_value: bytes) -> bytes:
    """``D_m`` for message ``seq`` (see module docstring)."""
    info = game_id.encode("ascii") + b"\x00" + seq.to_bytes(8, "big") + body_hash
    return hkdf_sha256(author_value + recipient_value, DICE_SALT, info)


class DiceStream:
    """The deterministic substream of one labelled roll."""

    def __init__(self, key: bytes, label: str):
        self._key = hmac.new(key, ROLL_PREFIX + label.encode("utf-8"), hashlib.sha256).digest()
        self._counter = 0
        self._buffer = b""

    def _u64(self) -> int:
        if len(self._buffer) < 8:
            self._buffer += hmac.new(self._key, self._counter.to_bytes(4, "big"), hashlib.sha256).digest()
            self._counter += 1
        value, self._buffer = int.from_bytes(self._buffer[:8], "big"), self._buffer[8:]
        return value

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` by rejection sampling."""
        if not 1 <= n <= U64:
            raise ValueError("below(n) needs 1 <= n <= 2**64")
        limit = U64 - (U64 % n)
        while True:
            value = self._u64()
            if value < limit:
                return value % n

    def die(self, sides: int) -> int:
        return self.below(sides) + 1

    def dice(self, count: int, sides: int) -> tuple[int, ...]:
        return tuple(self.die(sides) for _ in range(count))

    def shuffle(self, items: MutableSequence[Any]) -> None:
        """Fisher-Yates, in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def draw(self, cards_left: int) -> int:
        """Index of the card drawn from a deck of ``cards_left`` (lazy draw)."""
        return self.below(cards_left)


def roll(key: bytes, label: str, count: int, sides: int) -> tuple[int, ...]:
    """``count`` dice of ``sides`` faces from the substream of ``label``:
    ``DiceStream(key, label).dice(count, sides)``, written out with one-shot
    HMACs (the engine's every roll comes here; see benchmarks/run.py)."""
    if not 1 <= sides <= U64:
        raise ValueError("below(n) needs 1 <= n <= 2**64")
    digest = hmac.digest
    substream = digest(key, ROLL_PREFIX + label.encode("utf-8"), "sha256")
    limit = U64 - (U64 % sides)
    block = digest(substream, _BLOCK_0, "sha256")
    if count == 1:  # the common case: the first word, unless rejected (for a d6: 1 in 10^18)
        value = int.from_bytes(block[:8], "big")
        if value < limit:
            return (value % sides + 1,)
    values: list[int] = []
    buffer, counter = block, 1
    while len(values) < count:
        if len(buffer) < 8:
            buffer += digest(substream, counter.to_bytes(4, "big"), "sha256")
            counter += 1
        value, buffer = int.from_bytes(buffer[:8], "big"), buffer[8:]
        if value < limit:
            values.append(value % sides + 1)
    return tuple(values)


_BLOCK_0 = (0).to_bytes(4, "big")


# --------------------------------------------------------------------------- dice expressions
