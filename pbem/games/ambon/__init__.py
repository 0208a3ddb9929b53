"""Ambon: Burning Sun & Little Seagulls (SNAFU Design, 2021): full adjudication.

The shipped map, counters and charts are a RECONSTRUCTION (see data/README.md).
"""

from pbem.engine.installed import lazy_game

__all__ = ["GAME", "AmbonGame"]
__getattr__ = lazy_game(__name__, "pbem.games.ambon.game", "AmbonGame")
