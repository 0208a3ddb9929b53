"""The board of a hex game: terminal map, SVG, order of battle, turn panel.

Works for any game whose ``view`` carries ``stacks`` (hex or box id -> list
of ``{label, side?, marker?}``, top first) and optionally ``units`` (the order
of battle) and ``box_names`` (box id -> caption, e.g. for a holding box the
map does not list), and whose game object has a ``map`` (:class:`GameMap`).
A ``where`` that is not a hex number is a box (:func:`pbem.render.hexmap.is_box`).
"""

from __future__ import annotations

from typing import Any, Mapping

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table

from pbem.engine import contract


def has_board(game: Any, view: Mapping[str, Any]) -> bool:
    return contract.board_of(game) is not None and "stacks" in view


def side_names(game: Any) -> dict[str, str]:
    return {side: side.capitalize() for side in game.sides}


def board_svg(game: Any, view: Mapping[str, Any], title: str | None = None) -> str:
    from pbem.render.svg import board_svg as draw

    return draw(game.map, view["stacks"], side_colours=contract.side_colours(game), side_names=side_names(game),
                title=title, box_names=view.get("box_names"))


def turn_panel(game: Any, view: Mapping[str, Any], you: str | None) -> Panel:
    bits = [f"{game.name}"]
    if "turn" in view:
        bits.append(f"turn {view['turn']}")
    if view.get("phase"):
        bits.append(f"phase {view['phase']}")
    if view.get("active"):
        bits.append(f"{view['active']} to act")
    if view.get("over"):
        bits.append("game over")
    if you:
        bits.append(f"you play {you}")
    return Panel(" -- ".join(bits))


def order_of_battle(game: Any, view: Mapping[str, Any]) -> Table:
    table = Table(title="Order of battle")
    units = list(view.get("units", []))
    extra = [k for k in ("combat", "move", "bombard", "range", "command") if any(k in u for u in units)]
    for column in ("unit", "side", "type", "where", "status", *extra):
        table.add_column(column)
    for u in units:
        status = "disrupted" if u.get("flipped") else u.get("status", "")
        table.add_row(
            escape(str(u.get("id", ""))),
            u.get("side", ""),
            escape(str(u.get("type", ""))),
            escape(str(u.get("where", ""))),
            status,
            *(str(u.get(k, "")) for k in extra),
        )
    for uid in view.get("eliminated", []):
        table.add_row(escape(str(uid)), "", "", "eliminated", "", *("" for _ in extra))
    return table


def focus(game: Any, view: Mapping[str, Any], margin: int = 2) -> tuple[str, str] | None:
    """The map window around the pieces on the map (None: draw it all)."""
    from pbem.render.hexmap import is_box

    gmap = game.map
    grid = gmap.grid
    spots = [grid.layout.split(where) for where in view["stacks"] if not is_box(gmap, where)]
    if not spots:
        return None
    (c0, c1), (r0, r1) = grid.columns, grid.rows
    cols = [c for c, _ in spots]
    rows = [r for _, r in spots]
    lo_c, hi_c = max(c0, min(cols) - margin), min(c1, max(cols) + margin)
    lo_r, hi_r = max(r0, min(rows) - margin), min(r1, max(rows) + margin)
    return grid.layout.number(lo_c, lo_r), grid.layout.number(hi_c, hi_r)


def print_board(out: Console, game: Any, view: Mapping[str, Any], *, you: str | None = None, events=()) -> None:
    from pbem.render.hexmap import render_map

    out.print(turn_panel(game, view, you))
    width = out.width or 120
    window = focus(game, view)
    out.print(render_map(
            game.map,
            view["stacks"],
            side_colours=contract.side_colours(game),
            side_names=side_names(game),
            width=width,
            window=window,
            box_names=view.get("box_names"),
        ))
    if view.get("units") is not None:
        out.print(order_of_battle(game, view))
    events = list(events)
    if events:
        out.print("[bold]Last events[/bold]")
        for event in events:
            out.print(escape(event.sentence()))
