"""Ambon's bots.

- :mod:`.baseline` (:class:`AmbonBot`): the simple, deterministic player of
  ``pbem demo`` and, with a seeded choice policy, of the played-game
  property tests; kept as the baseline opponent of the bot benchmark.
- :mod:`.house` (:class:`HouseBot`): the house's player in solo games,
  from its side's view only.
"""

from pbem.games.ambon.bot.baseline import EVERY_STANDING, MIN_ODDS, RANDOM_STANDING, STANDING, AmbonBot
from pbem.games.ambon.bot.house import DEFAULT_LEVEL, LEVELS, HouseBot

__all__ = ["AmbonBot", "DEFAULT_LEVEL", "HouseBot", "LEVELS", "EVERY_STANDING", "MIN_ODDS", "RANDOM_STANDING", "STANDING"]
