"""The Road to Bataan: The Delay at Calumpit Bridge (Jim Birdseye, Courier
#68, 1995): pbem referees a miniatures game -- event decks, Japanese attack
generation and every dice table; players give measured distances.

Sides ``american`` and ``japanese`` (the Japanese player or the umpire; the
house in solo play).  The force pool, entry roads, failed-morale results,
the JAT's layout and the scenario are a RECONSTRUCTION (see data/README.md).
"""

from pbem.engine.installed import lazy_game

__all__ = ["GAME", "CalumpitGame"]
__getattr__ = lazy_game(__name__, "pbem.games.calumpit.game", "CalumpitGame")
