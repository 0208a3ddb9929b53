"""The house's Ambon player: the side pbem plays against a lone player
(``pbem solo ambon --as SIDE``).

Its inputs are the side's view and nothing else: the position
(:class:`~pbem.games.ambon.state.AmbonState`, which holds no sealed value
of either side before its reveal), the side's *own* sealed values (what its
own client holds: its concealed identities, its mines, its 14.2 note) and a
seed.  It never sees the other side's store.  Everything it decides is a
function of those, so a game replays identically.

``level`` sets how much it thinks (a count of work, never a clock, so the
same seed plays the same game on any machine); :data:`LEVELS` names them.
The player is :class:`~pbem.games.ambon.bot.player.Player` (docs/bot.md).
"""

from __future__ import annotations

from typing import Any, Mapping

from pbem.games.ambon.bot.player import Player
from pbem.games.ambon.state import AmbonState

LEVELS = {1: "quick", 2: "standard", 3: "deep"}
DEFAULT_LEVEL = 2


class HouseBot:
    """``side``'s player, seeded by ``seed`` (bytes), thinking at ``level``."""

    def __init__(self, game: Any, side: str, *, seed: bytes, level: int = DEFAULT_LEVEL):
        if level not in LEVELS:
            raise ValueError(f"level {level}: give one of {', '.join(map(str, LEVELS))}")
        self.game, self.side, self.seed, self.level = game, side, bytes(seed), level
        self._player = Player(game, side, seed=self.seed, level=level)

    def orders(self, state: AmbonState, seq: int, own: Mapping[str, str]) -> dict[str, Any]:
        """The orders document of the side's message ``seq`` in ``state``;
        ``own``: the side's own sealed values (slot -> value)."""
        return self._player.orders(state, self.side, seq, own)
