"""Ambon: Burning Sun & Little Seagulls (SNAFU Design, 2021): full adjudication.

The shipped map, counters and charts are a RECONSTRUCTION (see data/README.md).
"""

from pbem.games.ambon.game import AmbonGame

GAME = AmbonGame()

__all__ = ["GAME", "AmbonGame"]
