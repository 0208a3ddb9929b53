"""The Calumpit Bridge board for the renderers (:class:`pbem.engine.contract.BoardViews`):
no map (the table is the players' own); the turn, whose Japanese force is on
the road, the units with their figures, grade and status, and the verdict."""

from __future__ import annotations

from typing import Any, Mapping

from pbem.engine.boardview import BoardView, HeaderItem, Row, sides_of


def board_view(sides: tuple[str, ...], colours: Mapping[str, str] | None, view: Mapping[str, Any]) -> BoardView:
    """The board of a Calumpit ``view``."""
    header = [HeaderItem("turn", str(view["turn"]))]
    if view.get("over"):
        header.append(HeaderItem("", "game over"))
    decks = view.get("decks") or {}
    if decks:
        header.append(HeaderItem("decks", ", ".join(f"{deck} {n}" for deck, n in decks.items())))
    rows = []
    for u in view.get("units", ()):
        columns = [("name", str(u.get("name", ""))), ("kind", str(u.get("kind", ""))),
                   ("figures", str(u.get("figures", ""))), ("grade", str(u.get("grade", "")))]
        if "ammo" in u:
            columns.append(("ammo", str(u["ammo"])))
        rows.append(Row(str(u["side"]), str(u["id"]), tuple(columns), (str(u["status"]),) if u.get("status") else ()))
    return BoardView(game="calumpit", sides=sides_of(sides, colours=colours), header=tuple(header), rows=tuple(rows),
                     verdict=(str(view["verdict"]),) if view.get("verdict") else ())
