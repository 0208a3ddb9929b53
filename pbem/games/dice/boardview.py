"""The dice game's board for the renderers (:class:`pbem.engine.contract.BoardViews`):
no map; its header says who ends the game, its verdict that it is over."""

from __future__ import annotations

from typing import Any, Mapping

from pbem.engine.boardview import BoardView, HeaderItem, sides_of


def board_view(sides: tuple[str, ...], view: Mapping[str, Any]) -> BoardView:
    """The board of a dice game's ``view``: the rolls and notes stay the view's own tables."""
    header = [HeaderItem("rolls", str(view.get("rolls_declared", 0)))]
    if view.get("ending_by") and not view.get("over"):
        header.append(HeaderItem("", f"{str(view['ending_by']).capitalize()} ends the game"))
    return BoardView(game="dice", sides=sides_of(sides), header=tuple(header),
                     verdict=("The game is over.",) if view.get("over") else ())
