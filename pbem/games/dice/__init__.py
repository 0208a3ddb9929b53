"""The ``dice`` game: declared, verifiable rolls and sealed notes for any wargame."""

from pbem.games.dice.game import DiceGame

GAME = DiceGame()

__all__ = ["GAME", "DiceGame"]
