"""The Road to Bataan: The Delay at Calumpit Bridge (Jim Birdseye, Courier
#68, 1995): pbem referees a miniatures game -- event decks, Japanese attack
generation and every dice table; players give measured distances.

Sides ``american`` and ``japanese`` (the Japanese player or the umpire; the
house in solo play).  The force pool, entry roads, failed-morale results,
the JAT's layout and the scenario are a RECONSTRUCTION (see data/README.md).
"""

from typing import Any

__all__ = ["GAME", "CalumpitGame"]


def __getattr__(name: str) -> Any:
    """``GAME`` and ``CalumpitGame`` load the rules on first use, so importing the
    package (for its frontend, ``cli``) stays cheap."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from pbem.games.calumpit.game import CalumpitGame

    globals().setdefault("GAME", CalumpitGame())
    globals()["CalumpitGame"] = CalumpitGame
    return globals()[name]
