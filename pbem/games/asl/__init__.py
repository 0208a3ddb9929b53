"""ASL Starter Kit Expansion Pack #2: a play-by-email assistant -- verifiable
DR/dr, sealed Dare-Death designations, Berserk and Human Wave checks, and the
excerpt's rules and notes as data.  See README.md beside this file."""

from typing import Any

__all__ = ["GAME", "AslGame"]


def __getattr__(name: str) -> Any:
    """``GAME`` and ``AslGame`` load the rules on first use, so importing the
    package (for its frontend, ``cli``) stays cheap."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from pbem.games.asl.game import AslGame

    globals().setdefault("GAME", AslGame())
    globals()["AslGame"] = AslGame
    return globals()[name]
