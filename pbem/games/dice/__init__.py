"""The ``dice`` game: declared, verifiable rolls and sealed notes for any wargame."""

from typing import Any

__all__ = ["GAME", "DiceGame"]


def __getattr__(name: str) -> Any:
    """``GAME`` and ``DiceGame`` load the rules on first use, so importing the
    package (for its frontend, ``cli``) stays cheap."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from pbem.games.dice.game import DiceGame

    globals().setdefault("GAME", DiceGame())
    globals()["DiceGame"] = DiceGame
    return globals()[name]
