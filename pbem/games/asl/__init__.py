"""ASL Starter Kit Expansion Pack #2: a play-by-email assistant -- verifiable
DR/dr, sealed Dare-Death designations, Berserk and Human Wave checks, and the
excerpt's rules and notes as data.  See README.md beside this file."""

from pbem.engine.installed import lazy_game

__all__ = ["GAME", "AslGame"]
__getattr__ = lazy_game(__name__, "pbem.games.asl.game", "AslGame")
