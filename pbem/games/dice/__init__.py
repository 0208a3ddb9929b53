"""The ``dice`` game: declared, verifiable rolls and sealed notes for any wargame."""

from pbem.engine.installed import lazy_game

__all__ = ["GAME", "DiceGame"]
__getattr__ = lazy_game(__name__, "pbem.games.dice.game", "DiceGame")
