"""Ambon: Burning Sun & Little Seagulls (SNAFU Design, 2021): full adjudication.

The shipped map, counters and charts are a RECONSTRUCTION (see data/README.md).
"""

from typing import Any

__all__ = ["GAME", "AmbonGame"]


def __getattr__(name: str) -> Any:
    """``GAME`` and ``AmbonGame`` load the rules on first use, so importing the
    package (for its frontend, ``cli``) stays cheap."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from pbem.games.ambon.game import AmbonGame

    globals().setdefault("GAME", AmbonGame())
    globals()["AmbonGame"] = AmbonGame
    return globals()[name]
