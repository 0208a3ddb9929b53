"""The board of a game in a terminal: header, map, stacks, boxes, order of battle.

Works for any game that gives a :class:`~pbem.engine.boardview.BoardView`
(:class:`pbem.engine.contract.BoardViews`): its header items, its map with
the stacks and boxes, the order of battle's rows.  Nothing here knows a
game's words: what a mark means is the board's legend.

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
from pbem.engine.boardview import BoardView, map_texts
from pbem.errors import InputError, UsageError
from pbem.render import svg
from pbem.render.hexmap import BRACKETS, header_line, render_map, side_palette, sides_of, window_for
from pbem.render.literal import Visible, literal, visible


def board_of(game: Any, view: Mapping[str, Any]) -> BoardView | None:
    """The board of ``view``, every text of it as written (control characters visible); None for a game without one."""
    board = contract.board_of(game, view)
    return None if board is None else map_texts(board, visible)


def has_board(game: Any, view: Mapping[str, Any]) -> bool:
    """True when ``game`` draws ``view`` on a map."""
    board = contract.board_of(game, view)
    return board is not None and board.map is not None


def board_svg(game: Any, view: Mapping[str, Any], title: str | None = None, *,
              header: Sequence[str] | None = None) -> str:
    """The SVG board of ``view`` (:func:`pbem.render.svg.board_svg`), with a
    header (by default what the board says: game, turn, phase, whose move,
    VP, the verdict)."""
    board = contract.board_of(game, view)
    if board is None or board.map is None:
        raise UsageError(f"the {game.name} game has no board to draw")
    return svg.board_svg(board, title=title, header=svg.board_header(board) if header is None else header)


def header(board: BoardView, you: str | None, width: int = 80) -> Text:
    """One line: game, the board's header items, whose view."""
    line = header_line(board)
    if you:
        whose = f"you: {board.side_names().get(you, you)}"
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


def order_of_battle(board: BoardView) -> Text:
    """The units of every side: label, side, the board's columns, status."""
    order = sides_of(board)
    colours = side_palette(order, board.side_colours())
    names = board.side_names()
    heads: list[str] = []
    for row in board.rows:
        heads += [h for h, _ in row.columns if h not in heads]
    rows, styles = [], []
    for r in sorted(board.rows, key=lambda r: order.index(r.side) if r.side in order else len(order)):
        left, right = tuple(BRACKETS[order.index(r.side) % len(BRACKETS)]) if r.side in order else ("", "")
        cells = dict(r.columns)
        rows.append([f"{left}{r.unit}{right}", names.get(r.side, r.side), *(cells.get(h, "") for h in heads),
                     ", ".join(r.status)])
        styles.append(Style(color=colours[r.side]) if r.side in colours else None)
    return plain_table(["unit", "side", *heads, "status"], rows, title="Order of battle", styles=styles)


def event_hexes(board: BoardView, events: Iterable[Any]) -> list[str]:
    """The hexes the ``events`` name, directly or through a counter that is in one."""
    gmap = board.map
    if gmap is None:
        return []
    where = board.where_is()
    found: list[str] = []

    def visit(value: Any) -> None:
        if isinstance(value, str):
            spot = where.get(value, value)  # a counter's hex, or the hex itself (labels may start with a digit)
            if spot[:1].isdigit() and spot not in found and spot not in gmap.boxes:
                try:
                    gmap.hex(spot)
                except InputError:  # not a hex of this map: a number that is something else
                    return
                found.append(spot)
        elif isinstance(value, Mapping):
            for item in value.values():
                visit(item)
        elif isinstance(value, (list, tuple)):
            for item in value:
                visit(item)

    for event in events:
        visit(dict(getattr(event, "data", {}) or {}))
    return found


def print_board(out: Console, game: Any, view: Mapping[str, Any], *, you: str | None = None, events=(),
                around: str | None = None, radius: int | None = None, full: bool = False,
                notes: Sequence[str] = ()) -> None:
    """The whole board: header (and ``notes`` under it: the game's rulings),
    map window, stacks, boxes, order of battle and the last events.  The
    window: ``full`` the whole map, ``around`` a hex (``radius`` each way),
    else as many columns as the terminal's width holds, centred on the
    hexes of the ``events``."""
    board = board_of(game, view)
    if board is None or board.map is None:
        raise UsageError(f"the {game.name} game has no board to draw")
    events = list(events)
    width = out.width or 120
    focus: list[str] = []
    why = ""
    if not (around or full):
        focus = event_hexes(board, events)
        why = f"round the last events ({', '.join(focus[:4])}{', ...' if len(focus) > 4 else ''})" if focus else ""
        if not focus:  # nothing happened on the map: round the pieces
            focus = [st.where for st in board.stacks if st.counters]
            why = "round the pieces" if focus else ""
    window = window_for(board.map, width, focus=focus, around=around, radius=radius, full=full, why=why)
    out.print(header(board, you, width))
    for note in notes:
        for line in textwrap.wrap(note, width, subsequent_indent="  ", break_on_hyphens=False):
            out.print(literal(line))
    out.print(Visible(render_map(board, width=width, window=window)))  # the map's names are the data set's
    if board.rows:
        out.print(order_of_battle(board))
    if events:
        out.print(Text("Last events", style="bold"))
        for event in events:
            out.print(literal(event.sentence()))
