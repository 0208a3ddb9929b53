"""A self-contained HTML page of a game: a header with the position (game,
turn, phase, who is awaited, running VP and, once the game is over, the
verdict with its VP items), the board (inline SVG, :mod:`pbem.render.svg`)
or, for a game without one, its summary and the view's tables; the order
of battle, the log of events and the rolls -- one file, no external
resources, opens in any browser.

The page shows what the match's view shows: from a player's view it holds
that player's own sealed values (marked "only you"), so it says so at the
top.  Works for any game.

When the browser has laid the page out, its script checks every text of
the board against the picture and against the counter or box it belongs to
(``data-in``), and writes each one that overflows into ``<pre
id="overflow">`` (empty when all fit); ``<body>`` gets ``data-texts-checked``
and ``data-overflowing``, and the board's drawn size.  So a test -- or a
curious reader -- finds in the DOM whether every label fits.
"""

from __future__ import annotations

import json
import html
from typing import Any, Iterable, Mapping, Sequence

from pbem.engine import contract
from pbem.engine.boardview import BoardView
from pbem.render.board import board_of, board_svg
from pbem.render.console import notes_at_end
from pbem.render.hexmap import box_caption
from pbem.render.literal import visible

def escape(text: str) -> str:
    """``text`` as HTML text or attribute value: ``<&>"'`` escaped and its
    control characters made visible (:func:`pbem.render.literal.visible`)."""
    return html.escape(visible(text, newlines=True))


FONTS = "'DejaVu Sans', 'Liberation Sans', Arial, sans-serif"

CSS = """
body { font-family: %s; margin: 1.5em; color: #222; background: #fff; }
h1 { font-size: 1.4em; margin-bottom: 0.2em; }
h2 { font-size: 1.1em; margin-top: 1.6em; border-bottom: 1px solid #ccc; }
h3 { font-size: 1em; margin-top: 1em; }
.meta { color: #555; margin: 0.2em 0; font-size: 0.9em; }
.private { background: #fff3cd; border: 1px solid #e0c36c; padding: 0.4em 0.8em; display: inline-block; }
#status table { margin-top: 0.6em; }
#status th { width: 7em; }
#status td.awaited { font-weight: bold; }
#status ul { margin: 0.3em 0 0 0; padding-left: 1.4em; }
#board { overflow: auto; border: 1px solid #ddd; padding: 4px; max-width: 100%%; }
#board svg { display: block; max-width: 100%%; height: auto; }
table { border-collapse: collapse; margin-top: 0.5em; font-size: 0.92em; }
th, td { border: 1px solid #ccc; padding: 2px 8px; text-align: left; vertical-align: top; }
th { background: #f2f2f2; }
td.rule { white-space: nowrap; color: #555; }
td.seq { white-space: nowrap; color: #777; font-family: monospace; }
tr.mine td { background: #fffbea; }
footer { margin-top: 2em; color: #777; font-size: 0.85em; }
""" % FONTS

# Measures, in the page itself, what the browser drew (see the module docstring).
SCRIPT = """
window.addEventListener('load', function () {
  var body = document.body, out = [], checked = 0;
  var svg = document.querySelector('#board svg');
  if (svg) {
    var box = svg.getBoundingClientRect();
    body.setAttribute('data-board-width', Math.round(box.width));
    body.setAttribute('data-board-height', Math.round(box.height));
    body.setAttribute('data-counters', svg.querySelectorAll('.counter').length);
    var vb = svg.viewBox.baseVal;
    var texts = svg.querySelectorAll('text');
    for (var i = 0; i < texts.length; i++) {
      var t = texts[i], words = t.textContent.trim();
      if (!words) { continue; }
      var b = t.getBBox(), k = 0.2 * (parseFloat(t.getAttribute('font-size')) || 0);
      var within = [[vb.x, vb.y, vb.width, vb.height, 'the picture']];
      var id = t.getAttribute('data-in');
      if (id) {
        var c = document.getElementById(id);
        if (!c) { out.push(JSON.stringify(words) + ': no container #' + id); continue; }
        var r = c.getBBox();
        within.push([r.x, r.y, r.width, r.height, '#' + id + ' (' + (c.getAttribute('class') || c.tagName) + ')']);
      }
      for (var j = 0; j < within.length; j++) {
        var w = within[j];
        var over = Math.max(w[0] - b.x, b.x + b.width - (w[0] + w[2]),
                            w[1] - (b.y + k), b.y + b.height - k - (w[1] + w[3]));
        if (over > 0.5) { out.push(JSON.stringify(words) + ' overflows ' + w[4] + ' by ' + over.toFixed(1) + ' px'); }
      }
      checked++;
    }
  }
  var pre = document.getElementById('overflow');
  if (pre) { pre.textContent = out.join('\\n'); }
  body.setAttribute('data-texts-checked', checked);
  body.setAttribute('data-overflowing', out.length);
});
"""


def _table(headers: Iterable[str], rows: Iterable[Iterable[Any]], *, cls: str = "", row_classes: Iterable[str] = ()) -> str:
    head = "".join(f"<th>{escape(str(h))}</th>" for h in headers)
    classes = list(row_classes)
    body = []
    for i, row in enumerate(rows):
        rc = f' class="{classes[i]}"' if i < len(classes) and classes[i] else ""
        body.append(f"<tr{rc}>" + "".join(f"<td>{escape(str(c))}</td>" for c in row) + "</tr>")
    attr = f' class="{cls}"' if cls else ""
    return f"<table{attr}><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _svg(game: Any, view: Mapping[str, Any], title: str, header: Sequence[str]) -> str:
    text = board_svg(game, view, title, header=header)
    if text.startswith("<?xml"):
        text = text.split("?>", 1)[1].lstrip()
    return text


def order_of_battle_html(board: BoardView) -> str:
    """The board's rows, then each counter of a side in a box that no row names (where: the box)."""
    heads: list[str] = []
    for row in board.rows:
        heads += [h for h, _ in row.columns if h not in heads]
    rows, classes = [], []
    for r in board.rows:
        cells = dict(r.columns)
        rows.append([r.unit, r.side, *(cells.get(h, "") for h in heads), ", ".join(r.status)
                     + (" (only you)" if r.private else "")])
        classes.append("mine" if r.private else "")
    named = {r.unit for r in board.rows}
    gmap = board.map
    for box in board.boxes:
        caption = box_caption(gmap, box.where, box.name) if gmap is not None else box.name
        for c in box.counters:
            if c.side and c.label not in named:
                cells = {"where": caption}
                rows.append([c.label, c.side, *(cells.get(h, "") for h in heads), c.tooltip])
                classes.append("")
    return _table(["unit", "side", *heads, "status"], rows, cls="oob", row_classes=classes)


# --------------------------------------------------------------------------- the header


def status_of(match: Any, board: BoardView | None) -> dict[str, Any]:
    """The header's facts: game, the board's labelled header items (turn,
    phase...), awaited and the verdict's lines (empty while the game goes on)."""
    replay, game = match.replay, match.game
    you = match.player.side if match.player else None
    if match.closed:
        awaited = "nobody: the game is over and closed"
    elif replay.over:
        awaited = f"{replay.next_side}'s closing message (message {replay.next_seq:04d})" + (
            " -- yours: send it with pbem play" if you == replay.next_side else "")
    else:
        awaited = f"{replay.next_side}, message {replay.next_seq:04d}"
        if you == replay.next_side:
            awaited += " -- your move"
    verdict: list[str] = []
    if replay.over:
        verdict = list(game.result(replay.state)) if isinstance(game, contract.Result) else []
        if not verdict and board is not None and board.verdict:
            verdict = list(board.verdict)
        if not verdict:
            verdict = ["The game is over."]
    at = getattr(match, "at", None)
    if at is not None:  # a view at a message (pbem show --at N --html)
        awaited = at.awaited
    return {
        "game": f"{game.name} (game id {match.transcript.game[:12]})",
        "position": at.lines()[0] if at is not None else None,
        "items": [(item.label, item.value) for item in (board.header if board is not None else ()) if item.label],
        "awaited": awaited,
        "verdict": verdict,
        "rulings": [r.line() for r in contract.declared_rulings(game, match.transcript.setup.get("options") or {})],
    }


def _status_html(status: Mapping[str, Any]) -> str:
    rows = [("game", "Game", escape(status["game"]), "")]
    if status.get("position"):
        rows.append(("position", "Position", escape(status["position"]), "awaited"))
    for label, value in status["items"]:  # the board's header: turn, phase, VP...
        rows.append((_field(label), label[:1].upper() + label[1:], escape(value), ""))
    rows.append(("awaited", "Awaited then" if status.get("position") else "Awaited", escape(status["awaited"]), "awaited"))
    if status.get("rulings"):  # one line of the page each: a ruling's words never share a line with a piece's id
        rows.append(("rulings", "Rulings", "\n<ul>\n" + "\n".join(f"<li>{escape(line)}</li>" for line in status["rulings"])
                     + "\n</ul>\n", ""))
    if status["verdict"]:
        first, *items = status["verdict"]
        cell = f"<p>{escape(first)}</p>"
        if items:
            cell += "<ul>" + "".join(f"<li>{escape(line.strip())}</li>" for line in items) + "</ul>"
        rows.append(("verdict", "Verdict", cell, ""))
    body = "".join(f'<tr data-field="{key}"><th>{name}</th><td' + (f' class="{cls}"' if cls else "") + f">{cell}</td></tr>"
                   for key, name, cell, cls in rows)
    return f'<header id="status"><table class="status"><tbody>{body}</tbody></table></header>'


def _field(label: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in label.lower())


def _board_header(status: Mapping[str, Any]) -> list[str]:
    bits = [status["game"]]
    bits += [f"{label} {value}" for label, value in status["items"]]
    bits.append(f"awaited: {status['awaited']}")
    position = [status["position"]] if status.get("position") else []  # a view at a message
    return [*position, " | ".join(bits), *status["verdict"][:1]]  # the VP items are in the page's header


# --------------------------------------------------------------------------- a game without a board


_SHOWN_ELSEWHERE = {"game", "stacks", "rolls", "pending_rolls", "notes", "units", "over", "turn",
                    "phase", "active", "vp", "verdict"}


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Mapping):
        return ", ".join(f"{k} {_cell(v)}" for k, v in value.items() if v not in (None, "", [], {}))
    if isinstance(value, (list, tuple)):
        return ", ".join(_cell(v) for v in value)
    return str(value)


def _records(items: Sequence[Mapping[str, Any]]) -> str:
    keys: list[str] = []
    for it in items:
        keys += [k for k in it if k not in keys and k != "private"]
    rows = [[_cell(it.get(k)) for k in keys] for it in items]
    if any(it.get("private") for it in items):
        keys.append("seen by")
        for row, it in zip(rows, items, strict=True):
            row.append("only you" if it.get("private") else "")
    classes = ["mine" if it.get("private") else "" for it in items]
    return _table([k.replace("_", " ") for k in keys], rows, row_classes=classes)


def _view_tables(view: Mapping[str, Any], game: Any = None, state: Any = None,
                 notes: Sequence[Mapping[str, Any]] | None = None) -> str:
    """A game without a map: its summary, its position's
    facts and tables, its units, rolls and notes."""
    parts = []
    if game is not None and isinstance(game, contract.Summary):
        lines = game.summary(state)
        if lines:
            items = "".join(f"<li>{escape(line)}</li>" for line in lines)
            parts.append(f'<h2>Position</h2><ul class="summary">{items}</ul>')
    facts = [(k, v) for k, v in view.items() if k not in _SHOWN_ELSEWHERE and not _is_records(v) and not _is_groups(v)
             and v not in (None, "", [], {})]
    if facts:
        parts.append("<h2>Facts</h2>" + _table(["what", "value"], [[k.replace("_", " "), _cell(v)] for k, v in facts],
                                              cls="facts"))
    if _is_records(view.get("units")):
        parts.append("<h2>Units</h2>" + _records(view["units"]))
    for key, value in view.items():
        if key in _SHOWN_ELSEWHERE:
            continue
        if _is_records(value):
            parts.append(f"<h2>{escape(key.replace('_', ' ').capitalize())}</h2>" + _records(value))
        elif _is_groups(value):
            parts.append(f"<h2>{escape(key.replace('_', ' ').capitalize())}</h2>")
            for name, group in value.items():
                flat = {k: v for k, v in group.items() if not _is_records(v)}
                parts.append(f"<h3>{escape(str(name))}</h3><p>{escape(_cell(flat))}</p>")
                for v in group.values():
                    if _is_records(v):
                        parts.append(_records(v))
    if view.get("rolls") is not None:
        rows = []
        for r in view["rolls"]:
            values = " + ".join("?" if v is None else _cell(v) for v in r["values"])
            rows.append([r["label"], r["side"], r["dice"], r["note"], values, "pending" if r["total"] is None else r["total"]])
        parts.append("<h2>Declared rolls</h2>" + _table(["roll", "by", "dice", "note", "values", "total"], rows))
    if view.get("notes"):
        rows, classes = [], []
        for n in (notes if notes is not None else view["notes"]):
            status = f"revealed in {n['revealed_in']:04d}" if n.get("revealed_in") is not None else (
                "revealed at the end" if n.get("at_end") else "sealed")
            text = n.get("value", "(hidden)") + ("  (only you see this)" if n.get("private") else "")
            rows.append([n["slot"], n["side"], f"{n['sealed_in']:04d}", status, text])
            classes.append("mine" if n.get("private") else "")
        parts.append("<h2>Sealed notes</h2>" + _table(["slot", "by", "sealed in", "status", "text"], rows, row_classes=classes))
    return "".join(parts)


def _is_records(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, Mapping) for v in value)


def _is_groups(value: Any) -> bool:
    return isinstance(value, Mapping) and bool(value) and all(isinstance(v, Mapping) for v in value.values()) \
        and any(_is_records(x) for v in value.values() for x in v.values())


def _private(view: Any) -> bool:
    text = json.dumps(view, sort_keys=True, default=str)
    return '"private": true' in text


# --------------------------------------------------------------------------- the page


def match_html(match: Any, *, title: str | None = None) -> str:
    """The page for a loaded :class:`~pbem.match.session.Match`."""
    transcript, replay, game = match.transcript, match.replay, match.game
    module = transcript.setup["module"]
    you = match.player.side if match.player else None
    view = match.view()
    board = board_of(game, view)
    title = title or (f"{module} game {transcript.game[:12]}" + (f" -- {you}'s view" if you else " -- spectator's view")
                      + (f" -- after message {match.at.seq:04d}" if getattr(match, "at", None) is not None else ""))
    meta = [f"game id {transcript.game}", f"{len(transcript)} messages"]
    meta += [f"{side}: {key.fingerprint}" for side, key in transcript.keys.items()]
    status = status_of(match, board)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title>",
        f"<style>{CSS}</style>",
        f"<script>{SCRIPT}</script>",
        "</head><body>",
        f"<h1>{escape(title)}</h1>",
        _status_html(status),
    ]
    if _private(view):
        parts.append('<p class="private">This page shows your own hidden information (marked "only you"). '
                     "Keep it to yourself: send your opponent only the turn files.</p>")
    if board is not None and board.map is not None:
        parts.append(f'<h2>Board</h2><div id="board">{_svg(game, view, title, _board_header(status))}</div>')
        parts.append('<pre id="overflow" hidden></pre>')
        parts.append("<h2>Order of battle</h2>" + order_of_battle_html(board))
        markers = [(box, c) for box in board.boxes for c in box.counters if not c.side]
        if markers:
            parts.append("<h2>Markers in boxes</h2>" + _table(
                ["marker", "box", "status"],
                [[c.label, box_caption(board.map, box.where, box.name), c.tooltip] for box, c in markers]))
    else:
        parts.append(_view_tables(view, game, replay.state, notes_at_end(transcript, view.get("notes") or [])))
    events = [[f"{seq:04d}", e.rule, e.text] for seq, e in replay.events]
    parts.append("<h2>Log</h2>" + (_table(["msg", "rule", "what happened"], events, cls="log") if events else "<p>No events yet.</p>"))
    if replay.rolls:
        rows = [[r.label, r.author, r.purpose, f"{r.count}d{r.sides}", " ".join(str(v) for v in r.values),
                 f"{r.key_seq:04d}", f"{r.partner_seq:04d}" + (" (provisional: your reply)" if r.provisional else "")]
                for r in replay.rolls]
        parts.append("<h2>Rolls</h2>" + _table(["roll", "by", "purpose", "dice", "result", "keyed by", "completed by"], rows))
    if replay.pending:
        rows = [[d.label, f"{d.count}d{d.sides}", d.purpose, f"{d.key_seq:04d}"] for d in replay.pending]
        parts.append("<h2>Dice awaiting the next message</h2>" + _table(["roll", "dice", "purpose", "keyed by"], rows))
    parts.append('<footer><p class="meta">' + " &middot; ".join(escape(m) for m in meta) + "</p>"
                 "Made by pbem from the signed turn files; check them with <code>pbem verify</code>.</footer>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


__all__ = ["match_html", "order_of_battle_html", "status_of"]
