"""The board of a hex game in a terminal: header, map, stacks, boxes, order of battle.

Works for any game whose ``view`` carries ``stacks`` (hex or box id -> list
of ``{label, side?, marker?, concealed?}``, top first) and optionally
``units`` (the order of battle), ``eliminated`` (unit ids), ``mines``
(``{id, box, status}``), ``overstacked`` (hex -> why), ``marker_names``
(marker -> what it means), ``vp`` and ``box_names`` (box id -> caption, e.g.
for a holding box the map does not list), and whose game object has a
``map`` (:class:`GameMap`).  A ``where`` that is not a hex number is a box
(:func:`pbem.render.hexmap.is_box`).

Everything here is drawn as :class:`rich.text.Text` (no tables or panels):
a cold ``pbem show`` draws it in a few milliseconds, and it reads the same
piped into mail or with ``NO_COLOR`` as in a terminal.
"""

from __future__ import annotations

import textwrap
from typing import Any, Iterable, Mapping, Sequence

from rich.console import Console
from rich.style import Style
from rich.text import Text

from pbem.engine import contract
from pbem.render.literal import Visible, literal, visible, visible_all


def has_board(game: Any, view: Mapping[str, Any]) -> bool:
    return contract.board_of(game) is not None and "stacks" in view


def side_names(game: Any) -> dict[str, str]:
    return {side: side.capitalize() for side in game.sides}


def board_svg(game: Any, view: Mapping[str, Any], title: str | None = None, *,
              header: Sequence[str] | None = None) -> str:
    """The SVG board of ``view``: its stacks, eliminated units and mine
    markers in their boxes, overstacked hexes (``view["overstacked"]``), and
    a header (by default what the view says: turn, phase, whose move, VP)."""
    from pbem.render import svg

    return svg.board_svg(game.map, svg.board_stacks(game.map, view), side_colours=contract.side_colours(game),
                         side_names=side_names(game), title=title, box_names=view.get("box_names"),
                         header=svg.view_header(view, game.name) if header is None else header,
                         overstacked=view.get("overstacked"), marker_names=view.get("marker_names"))


def header(game: Any, view: Mapping[str, Any], you: str | None, width: int = 80) -> Text:
    """One line: game, turn, phase, who acts, running VP, whose view."""
    from pbem.render.hexmap import position_bits

    names = side_names(game)
    line = " -- ".join(position_bits(game.name, view, names))
    if you:
        whose = f"you: {names.get(you, you)}"
        line += f" -- {whose}" if len(line) + 4 + len(whose) <= width else f"\n{whose}"
    return Text(line, style="bold reverse")


def plain_table(headers: Sequence[str], rows: Iterable[Sequence[Any]], *, title: str = "",
                styles: Iterable[Style | None] = ()) -> Text:
    """Columns padded to their widest cell, a rule under the headers; one
    style a row (``styles``), none by default."""
    headers = [visible(h) for h in headers]
    rows = [[visible(cell) for cell in row] for row in rows]
    widths = [max([len(h)] + [len(row[i]) for row in rows]) for i, h in enumerate(headers)]
    keep = [i for i, w in enumerate(widths) if any(row[i] for row in rows) or i == 0]  # no empty column
    out = Text()
    if title:
        out.append(title + "\n", style="bold")
    out.append("  ".join(headers[i].ljust(widths[i]) for i in keep).rstrip() + "\n", style="bold underline")
    styles = list(styles)
    for n, row in enumerate(rows):
        if n:
            out.append("\n")
        out.append("  ".join(row[i].ljust(widths[i]) for i in keep).rstrip(), styles[n] if n < len(styles) else None)
    return out


def order_of_battle(game: Any, view: Mapping[str, Any]) -> Text:
    """The units of both sides: id, type, where, status, and the factors the view gives."""
    from pbem.render.hexmap import BRACKETS, side_palette, unit_status

    units = list(view.get("units", []))
    extra = [k for k in ("combat", "move", "bombard", "range", "command") if any(k in u for u in units)]
    heads = {"combat": "CF", "move": "MP"}
    order = list(game.sides)
    colours = side_palette(order, contract.side_colours(game))
    names = side_names(game)
    rows, styles = [], []
    for u in sorted(units, key=lambda u: order.index(u["side"]) if u.get("side") in order else len(order)):
        side = u.get("side", "")
        left, right = tuple(BRACKETS[order.index(side) % len(BRACKETS)]) if side in order else ("", "")
        status = unit_status(u, view.get("marker_names"))
        if u.get("type") == "concealed":
            status.append("concealed" + (f": {u['identity']}" if u.get("identity") else ""))
        rows.append([f"{left}{u.get('id', '')}{right}", names.get(side, side), u.get("type", ""), u.get("where", ""),
                     ", ".join(status), *(u.get(k, "") for k in extra)])
        styles.append(Style(color=colours[side]) if side in colours else None)
    return plain_table(["unit", "side", "type", "where", "status", *(heads.get(k, k) for k in extra)], rows,
                       title="Order of battle", styles=styles)


def event_hexes(game: Any, view: Mapping[str, Any], events: Iterable[Any]) -> list[str]:
    """The hexes the ``events`` name, directly or through a unit that is in one."""
    from pbem.errors import InputError
    from pbem.render.hexmap import is_box

    gmap = game.map
    where = {u.get("id"): u.get("where") for u in view.get("units", [])}
    found: list[str] = []

    def visit(value: Any) -> None:
        if isinstance(value, str):
            spot = where.get(value, value)  # a unit's hex, or the hex itself (unit ids may start with a digit)
            if isinstance(spot, str) and spot[:1].isdigit() and spot not in found:
                try:
                    if not is_box(gmap, spot):
                        found.append(spot)
                except InputError:  # not a hex of this map: a number that is something else
                    pass
        elif isinstance(value, Mapping):
            for item in value.values():
                visit(item)
        elif isinstance(value, (list, tuple)):
            for item in value:
                visit(item)

    for event in events:
        visit(dict(getattr(event, "data", {}) or {}))
    return found


def mines_text(game: Any, view: Mapping[str, Any], width: int = 80) -> Text | None:
    """The mine markers by box, revealed or hidden as the viewer may know them."""
    mines = view.get("mines")
    if not mines:
        return None
    boxes = game.map.boxes
    by_box: dict[str, list[str]] = {}
    for m in mines:
        by_box.setdefault(m["box"], []).append(f"{m['id']} {m['status']}")
    from pbem.render.hexmap import flow

    out = Text()
    for i, (box, items) in enumerate(by_box.items()):
        caption = (boxes[box].name if box in boxes else box).removeprefix("Mines: ")
        out.append("\n" if i else "")
        flow(out, f"Mines ({caption}):", [item + "," for item in items[:-1]] + items[-1:], width)
    return out


def print_board(out: Console, game: Any, view: Mapping[str, Any], *, you: str | None = None, events=(),
                around: str | None = None, radius: int | None = None, full: bool = False,
                notes: Sequence[str] = ()) -> None:
    """The whole board: header (and ``notes`` under it: the game's rulings),
    map window, stacks, boxes, mines, eliminated
    units, order of battle and the last events.  The window: ``full`` the
    whole map, ``around`` a hex (``radius`` each way), else as many columns
    as the terminal's width holds, centred on the hexes of the ``events``."""
    from pbem.render.hexmap import render_map, side_palette, window_for

    view = visible_all(view)  # the view's texts (unit ids, names, statuses) as written, control characters visible
    events = list(events)
    width = out.width or 120
    focus, why = [], ""
    if not (around or full):
        focus = event_hexes(game, view, events)
        why = f"round the last events ({', '.join(focus[:4])}{', ...' if len(focus) > 4 else ''})" if focus else ""
        if not focus:  # nothing happened on the map: round the pieces
            focus = [where for where, items in view["stacks"].items() if items and where[:1].isdigit()]
            why = "round the pieces" if focus else ""
    window = window_for(game.map, width, focus=focus, around=around, radius=radius, full=full, why=why)
    out.print(header(game, view, you, width))
    for note in notes:
        for line in textwrap.wrap(note, width, subsequent_indent="  ", break_on_hyphens=False):
            out.print(literal(line))
    out.print(Visible(render_map(  # the map's names are the data set's
            game.map,
            view["stacks"],
            side_colours=side_palette(game.sides, contract.side_colours(game)),  # the brackets in the game's order
            side_names=side_names(game),
            width=width,
            window=window,
            box_names=view.get("box_names"),
            overstacked=view.get("overstacked"),
            marker_names=view.get("marker_names"),
        )))
    mines = mines_text(game, view, width)
    if mines is not None:
        out.print(Visible(mines))
    if view.get("eliminated"):
        from pbem.render.hexmap import BRACKETS, flow

        order, sides = list(game.sides), view.get("eliminated_sides") or {}
        shown = [str(uid).join(BRACKETS[order.index(sides[uid]) % len(BRACKETS)]) if sides.get(uid) in order else str(uid)
                 for uid in view["eliminated"]]
        eliminated = Text()
        flow(eliminated, "Eliminated:", [item + "," for item in shown[:-1]] + shown[-1:], width)
        out.print(eliminated)
    if view.get("units") is not None:
        out.print(order_of_battle(game, view))
    if events:
        out.print(Text("Last events", style="bold"))
        for event in events:
            out.print(literal(event.sentence()))
