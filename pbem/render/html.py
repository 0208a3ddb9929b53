"""A self-contained HTML page of a game: the board (inline SVG), the order
of battle, the log of events and the rolls -- one file, no external
resources, opens in any browser.

The page shows what the match's view shows: from a player's view it holds
that player's own sealed values (marked "only you"), so it says so at the
top.  Works for any game: without a board the view's tables are shown.
"""

from __future__ import annotations

import json
from html import escape
from typing import Any, Iterable, Mapping

CSS = """
body { font-family: Helvetica, Arial, sans-serif; margin: 1.5em; color: #222; background: #fff; }
h1 { font-size: 1.4em; margin-bottom: 0.2em; }
h2 { font-size: 1.1em; margin-top: 1.6em; border-bottom: 1px solid #ccc; }
.meta { color: #555; margin: 0.2em 0; }
.private { background: #fff3cd; border: 1px solid #e0c36c; padding: 0.4em 0.8em; display: inline-block; }
.turn { font-weight: bold; margin: 0.6em 0; }
#board { overflow: auto; border: 1px solid #ddd; padding: 4px; max-width: 100%; }
#board svg { display: block; }
table { border-collapse: collapse; margin-top: 0.5em; font-size: 0.92em; }
th, td { border: 1px solid #ccc; padding: 2px 8px; text-align: left; vertical-align: top; }
th { background: #f2f2f2; }
td.rule { white-space: nowrap; color: #555; }
td.seq { white-space: nowrap; color: #777; font-family: monospace; }
tr.mine td { background: #fffbea; }
footer { margin-top: 2em; color: #777; font-size: 0.85em; }
"""

# Records, in the page itself, that the browser laid the board out: a test
# (or a curious reader) finds the drawn size on <body data-board-width=...>.
SCRIPT = """
window.addEventListener('load', function () {
  var svg = document.querySelector('#board svg');
  if (!svg) { return; }
  var box = svg.getBoundingClientRect();
  document.body.setAttribute('data-board-width', Math.round(box.width));
  document.body.setAttribute('data-board-height', Math.round(box.height));
  document.body.setAttribute('data-counters', svg.querySelectorAll('rect.counter').length);
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


def _svg(game: Any, view: Mapping[str, Any], title: str) -> str:
    from pbem.render.board import board_svg

    text = board_svg(game, view, title)
    if text.startswith("<?xml"):
        text = text.split("?>", 1)[1].lstrip()
    return text


def order_of_battle_html(view: Mapping[str, Any]) -> str:
    units = list(view.get("units", []))
    extra = [k for k in ("combat", "move", "bombard", "range", "command") if any(k in u for u in units)]
    rows, classes = [], []
    for u in units:
        status = "disrupted" if u.get("flipped") else u.get("status", "")
        ident = u.get("identity", "")
        if u.get("private"):
            ident = f"{ident} (only you)"
        rows.append([u.get("id", ""), u.get("side", ""), u.get("type", "") + (f": {ident}" if ident else ""),
                     u.get("where", ""), status, *(u.get(k, "") for k in extra)])
        classes.append("mine" if u.get("private") else "")
    for uid in view.get("eliminated", []):
        rows.append([uid, "", "", "eliminated", "", *("" for _ in extra)])
        classes.append("")
    return _table(["unit", "side", "type", "where", "status", *extra], rows, cls="oob", row_classes=classes)


def _view_tables(view: Mapping[str, Any]) -> str:
    """A board-less game (dice): its rolls and notes."""
    parts = []
    if view.get("rolls") is not None:
        rows = []
        for r in view["rolls"]:
            values = " + ".join("?" if v is None else str(v) for v in r["values"])
            rows.append([r["label"], r["side"], r["dice"], r["note"], values, "pending" if r["total"] is None else r["total"]])
        parts.append("<h2>Declared rolls</h2>" + _table(["roll", "by", "dice", "note", "values", "total"], rows))
    if view.get("notes"):
        rows, classes = [], []
        for n in view["notes"]:
            status = f"revealed in {n['revealed_in']:04d}" if n.get("revealed_in") is not None else "sealed"
            text = n.get("value", "(hidden)") + ("  (only you see this)" if n.get("private") else "")
            rows.append([n["slot"], n["side"], f"{n['sealed_in']:04d}", status, text])
            classes.append("mine" if n.get("private") else "")
        parts.append("<h2>Sealed notes</h2>" + _table(["slot", "by", "sealed in", "status", "text"], rows, row_classes=classes))
    return "".join(parts)


def _private(view: Any) -> bool:
    text = json.dumps(view, sort_keys=True, default=str)
    return '"private": true' in text


def match_html(match: Any, *, title: str | None = None) -> str:
    """The page for a loaded :class:`~pbem.match.session.Match`."""
    from pbem.render.board import has_board

    transcript, replay, game = match.transcript, match.replay, match.game
    module = transcript.setup["module"]
    you = match.player.side if match.player else None
    view = match.view()
    title = title or f"{module} game {transcript.game[:12]}" + (f" -- {you}'s view" if you else " -- spectator's view")
    meta = [f"game id {transcript.game}", f"{len(transcript)} messages"]
    meta += [f"{side}: {key.fingerprint}" for side, key in transcript.keys.items()]
    if match.closed:
        turn = "The game is over and closed."
    elif replay.over:
        turn = f"The game is over; {replay.next_side} sends the closing message."
    else:
        who = replay.next_side
        turn = f"Next: message {replay.next_seq:04d} by {who}" + (" -- your move" if you == who else "")
    where = ", ".join(b for b in (f"turn {view['turn']}" if "turn" in view else "",
                                  f"phase {view['phase']}" if view.get("phase") else "") if b)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title>",
        f"<style>{CSS}</style>",
        f"<script>{SCRIPT}</script>",
        "</head><body>",
        f"<h1>{escape(title)}</h1>",
        "".join(f'<p class="meta">{escape(m)}</p>' for m in meta),
    ]
    if _private(view):
        parts.append('<p class="private">This page shows your own hidden information (marked "only you"). '
                     "Keep it to yourself: send your opponent only the turn files.</p>")
    parts.append(f'<p class="turn">{escape((where + ". ") if where else "")}{escape(turn)}</p>')
    if has_board(game, view):
        parts.append(f'<h2>Board</h2><div id="board">{_svg(game, view, title)}</div>')
        parts.append("<h2>Order of battle</h2>" + order_of_battle_html(view))
        if view.get("mines"):
            parts.append("<h2>Mine markers</h2>" + _table(["marker", "box", "status"],
                                                           [[m["id"], m["box"], m["status"]] for m in view["mines"]]))
    else:
        parts.append(_view_tables(view))
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
    parts.append("<footer>Made by pbem from the signed turn files; check them with <code>pbem verify</code>.</footer>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


__all__ = ["match_html", "order_of_battle_html"]
