"""The ASL assistant's board for the renderers (:class:`pbem.engine.contract.BoardViews`):
no map (the players' own boards); the rolls made, and the
squads each side set up, Dare-Death ones as their owner may see them."""

from __future__ import annotations

from typing import Any, Mapping

from pbem.engine.boardview import BoardView, HeaderItem, Row, sides_of


def board_view(sides: tuple[str, ...], view: Mapping[str, Any]) -> BoardView:
    """The board of an ASL ``view``."""
    header = [HeaderItem("rolls", str(len(view.get("rolls") or ())))]
    if view.get("over"):
        header.append(HeaderItem("", "game over"))
    rows = []
    for side, entry in (view.get("sides") or {}).items():
        if not isinstance(entry, Mapping):
            continue
        for squad in entry.get("squads", ()):
            if isinstance(squad, Mapping) and "id" in squad:
                columns = tuple((k.replace("_", " "), str(v)) for k, v in squad.items()
                                if k not in ("id", "private") and isinstance(v, (str, int, bool)))
                rows.append(Row(str(side), str(squad["id"]), columns, private=bool(squad.get("private"))))
    return BoardView(game="asl", sides=sides_of(sides), header=tuple(header), rows=tuple(rows),
                     verdict=("The game is over.",) if view.get("over") else ())
