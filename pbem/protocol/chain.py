"""Per-player hash chains (docs/protocol.md §4.3).

A player commits, in the setup message, to the anchor ``x_0`` of a chain built
backwards from a secret seed::

    x_N = seed
    x_{i-1} = SHA256("pbem-chain-v1" || x_i)

Each later message of that player reveals the next value ``x_1, x_2, ...``;
anyone checks ``SHA256(label || x_i) == x_{i-1}``.  Because the chain is fixed
before any orders exist, no value can be chosen to suit a roll.
"""

from __future__ import annotations

import hashlib
import hmac
from functools import lru_cache

from pbem.errors import IntegrityError

CHAIN_LABEL = b"pbem-chain-v1"
CHAIN_LENGTH = 4096  # values per player: far more messages than any game needs


def step_back(value: bytes) -> bytes:
    """``x_{i-1}`` from ``x_i``."""
    return hashlib.sha256(CHAIN_LABEL + value).digest()


def chain_seed(game_secret: bytes) -> bytes:
    """The seed ``x_N`` a player's per-game secret determines."""
    return hmac.new(game_secret, b"pbem-chain-seed-v1", hashlib.sha256).digest()


@lru_cache(maxsize=16)
def _chain_values(seed: bytes, length: int) -> tuple[bytes, ...]:
    values = [seed]
    for _ in range(length):
        values.append(step_back(values[-1]))
    values.reverse()  # values[0] is the anchor x_0, values[length] the seed
    return tuple(values)


class HashChain:
    """The full chain of one player, computed from the seed (once per process)."""

    def __init__(self, seed: bytes, length: int = CHAIN_LENGTH):
        if len(seed) != 32:
            raise ValueError("chain seed must be 32 bytes")
        self._values = _chain_values(bytes(seed), length)
        self.length = length

    @property
    def anchor(self) -> bytes:
        return self._values[0]

    def value(self, index: int) -> bytes:
        if not 0 <= index < self.length:
            raise IntegrityError(f"hash chain exhausted: value {index} of {self.length}")
        return self._values[index]


def check_link(previous: bytes, value: bytes, *, who: str, index: int) -> None:
    """Raise unless ``value`` is the successor of ``previous`` in a chain."""
    if len(value) != 32 or not hmac.compare_digest(step_back(value), previous):
        raise IntegrityError(
            f"{who}'s chain value #{index} ({value.hex()[:16]}...) does not hash to "
            f"the previous one ({previous.hex()[:16]}...)"
        )
