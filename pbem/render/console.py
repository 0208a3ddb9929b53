"""Terminal output of a match: events, rolls, turn panel, verification report."""

from __future__ import annotations

import operator
import shlex
import textwrap
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from rich.console import Console
from rich.text import Text

from pbem.engine import contract
from pbem.engine.history import last_since, newest
from pbem.match.replay import counted, declared_rolls, describe, pending_rolls
from pbem.match.summary import revealed_at_end
from pbem.render.literal import literal

if TYPE_CHECKING:  # rich's tables and panels are imported where drawn: the board (print_turn) needs neither
    from rich.table import Table


def _seq(n: int) -> str:
    return f"{n:04d}"


def rulings_of(match: Any) -> tuple[contract.Ruling, ...]:
    """The rulings message 0 declares (every one; none for a game without rulings)."""
    return contract.declared_rulings(match.game, match.transcript.setup.get("options") or {})


def rulings_line(rulings: Iterable[contract.Ruling]) -> str:
    """``rulings: 6.4 per-landing, 6.5 landed (not the default), ...`` -- "" for none."""
    shown = [f"{r.rule} {r.reading}" + ("" if r.default else " (not the default)") for r in rulings]
    return ("rulings: " + ", ".join(shown)) if shown else ""


def match_json(match: Any, since: int = 0) -> dict[str, Any]:
    """A match as JSON: ``rolls`` lists dice groups, ``declared_rolls`` the
    rolls they make (each term, the modifiers, the total), then those pending."""
    replay = match.replay
    records = newest(replay.rolls, lambda r: r.key_seq >= since)
    return {
        "game": match.transcript.game,
        "module": match.transcript.setup["module"],
        "you": match.player.side if match.player else None,
        "messages": len(match.transcript),
        "next": None if replay.over else {"seq": replay.next_seq, "side": replay.next_side},
        "over": replay.over,
        "events": [{"seq": s, **e.to_json()} for s, e in newest(replay.events, lambda item: item[0] >= since)],
        "rolls": [r.to_json() for r in records],
        "pending_dice": [{"label": d.label, "dice": f"{d.count}d{d.sides}", "keyed_by": d.key_seq,
                          "roll": shape[0], "expression": shape[1]}
                         for d, shape in ((d, describe(replay.game, replay.state, d)) for d in replay.pending)],
        "declared_rolls": [r.to_json() for r in declared_rolls(records) + pending_rolls(replay)],
        "rulings": [r.to_json() for r in rulings_of(match)],
        "view": match.view(),
        **({"at": match.at.to_json()} if getattr(match, "at", None) is not None else {}),
    }


_SEQ = operator.itemgetter(0)  # an event's message

#: entries of a long history printed in a pipe when no --all is given (at a terminal: what fits the screen)
PIPE_ENTRIES = 20


def fitting(out: Console, parts: int = 1) -> int:
    """How many entries of a history each of ``parts`` lists may print so
    that the command's output fits a screen: the terminal's rows less room
    for the rest (at least 5 each), or :data:`PIPE_ENTRIES` in a pipe."""
    if not out.is_terminal:
        return PIPE_ENTRIES
    return max(5, (out.size.height - 8) // parts)


def _hidden(out: Console, match: Any, hidden: int, what: str, since: int) -> None:
    """The line that says ``hidden`` earlier entries were left out, and how to see them."""
    if hidden > 0:
        start = f"--from {since} " if since else ""
        out.print(literal(f"... {hidden:,} earlier {what} not shown (pbem log {_shell(match)} {start}--all shows "
                          f"every one; --from N those from message N on)", "dim"))


def print_events(out: Console, match: Any, since: int = 0, last: int | None = None) -> None:
    """The events from message ``since`` on; only the ``last`` of them when given."""
    hidden, events = last_since(match.replay.events, _SEQ, since, last)
    _hidden(out, match, hidden, "events", since)
    for seq, event in events:
        out.print(Text.assemble((_seq(seq), "dim"), " ", literal(event.sentence())))


def bounded_rolls(out: Console, match: Any, since: int = 0, last: int | None = None) -> list[Any]:
    """The declared rolls (those awaiting their dice last) keyed from
    message ``since`` on, only the ``last`` of them when given (a line says
    how many earlier ones were left out).  Only the rolls shown are read:
    a record's ``declared`` number says how many came before it."""
    replay = match.replay
    pending = [r for r in pending_rolls(replay) if r.key_seq >= since]
    if last is None:
        return declared_rolls(newest(replay.rolls, lambda r: r.key_seq >= since)) + pending
    records: list[Any] = []
    for i in range(len(replay.rolls) - 1, -1, -1):  # from the newest, as far as the rolls shown go
        r = replay.rolls[i]
        if r.key_seq < since or (records and records[0].declared != r.declared
                                 and records[-1].declared - r.declared + len(pending) >= last):
            break
        records.insert(0, r)
    rolls = declared_rolls(records) + pending
    first = records[0].declared if records else None
    earlier = 0
    if first is not None and first > 0:  # how many declared rolls from message ``since`` on came before these
        if since <= 0:
            earlier = first
        else:
            start = newest(replay.rolls, lambda r: r.key_seq >= since)  # the window asked for: read to its start
            earlier = first - start[0].declared
    if len(rolls) > last:
        earlier += len(rolls) - last
        rolls = rolls[len(rolls) - last:]
    _hidden(out, match, earlier, "rolls", since)
    return rolls


def _shell(match: Any) -> str:
    """The game's directory as a shell word, for advice the player copies
    (issue 17: no ``DIR`` placeholder where the real one is known)."""
    return shlex.quote(str(match.directory.path))


def past(match: Any) -> bool:
    """A view of the past (``--at N`` before the last message)."""
    return getattr(match, "at", None) is not None and not match.at.last


def print_at(out: Console, match: Any) -> None:
    """Where a view at a message stands (:meth:`pbem.match.session.At.lines`),
    in bold, when ``match`` is one (else nothing)."""
    if getattr(match, "at", None) is not None:
        for line in match.at.lines():
            out.print(literal(line, "bold"))


def print_turn(out: Console, match: Any) -> None:
    replay = match.replay
    if replay.over:
        for line in (match.game.result(replay.state) if isinstance(match.game, contract.Result) else []):
            indent = line[: len(line) - len(line.lstrip(" "))]
            for part in textwrap.wrap(line, max(20, out.width), initial_indent="", subsequent_indent=indent + "  ",
                                      break_on_hyphens=False) or [line]:
                out.print(literal(part))
    if past(match):  # what was awaited then is in the heading (print_at); "your move" is not true now
        return
    if match.closed:
        out.print(Text.assemble(("The game is over.", "bold"), " ", literal(f"Check it with: pbem verify {_shell(match)} --audit")))
        return
    if replay.over:
        mine = match.player is not None and replay.next_side == match.player.side
        out.print(Text.assemble(
            ("The game is over.", "bold"), " ",
            literal(f"Send your closing message (it reveals your secret for the audit): pbem play {_shell(match)}" if mine
                    else f"Waiting for {replay.next_side}'s closing message.")))
        return
    who = replay.next_side
    mine = match.player is not None and who == match.player.side
    text = f"next: message {_seq(replay.next_seq)} by {who}" + (" -- your move" if mine else " -- waiting for the reply")
    if replay.pending:
        pending = pending_rolls(replay)
        text += "; " + counted(pending, "await", " the reply that keys " + ("it" if len(pending) == 1 else "them"))
    out.print(literal(text))


def _purpose(r: Any) -> str:
    return r.purpose + (f" ({r.why})" if r.why else "")


def rolls_table(declared: Iterable[Any], title: str = "Rolls") -> Table:
    """Declared rolls (:class:`pbem.match.replay.DeclaredRoll`), one a row:
    ``2d6+1: 2 + 2 + 1 = 5``, or ``pending (keyed by 0005)``."""
    from rich.table import Table

    table = Table(title=title)
    table.add_column("roll")
    table.add_column("by")
    table.add_column("purpose", min_width=12)
    table.add_column("result", no_wrap=True)  # a sum read whole: 1d20+1d4-2: 13 + 1 - 2 = 12
    table.add_column("keyed -> done", no_wrap=True)  # the message that keyed it, the one whose value completed it
    provisional = False
    for r in declared:
        provisional = provisional or (r.provisional and not r.pending)
        done = _seq(r.partner_seq) + (" (awaited)" if r.pending else " *" if r.provisional else "")
        table.add_row(*map(literal, (r.label, r.author, _purpose(r), r.shown(), f"{_seq(r.key_seq)} -> {done}")))
    if provisional:
        table.caption = "* provisional: completed by your reply, which is not sent yet"
    return table


def print_rolls(out: Console, replay: Any, title: str = "Rolls") -> None:
    """Every roll of ``replay``, those awaiting their dice last."""
    out.print(rolls_table(declared_rolls(replay.rolls) + pending_rolls(replay), title))


def print_log(out: Console, match: Any, since: int = 0, every: bool = False) -> None:
    """`pbem log`: the events and the rolls from message ``since`` on --
    every one with ``every``, else the last that fit a screen."""
    last = None if every else fitting(out, 2)
    print_events(out, match, since, last)
    out.print(rolls_table(bounded_rolls(out, match, since, last)))


def print_show(out: Console, match: Any, since: int = 0, every: bool = False,
               view: Mapping[str, Any] | None = None) -> None:
    """A game without a map: its rolls and notes (``view``: the side's view, when the caller has it)."""
    from rich.panel import Panel
    from rich.table import Table

    view = match.view() if view is None else view
    head = (
        f"{match.transcript.setup['module']} game {match.transcript.game[:12]}... -- "
        + (f"you play {match.player.side}" if match.player else "a spectator's view")
        + f"; {len(match.transcript)} messages"
    )
    print_at(out, match)
    out.print(Panel(literal(head)))
    if "rolls" in view or "rolls_declared" in view:
        table = Table(title="Declared rolls")
        for column in ("roll", "by", "note", "result"):
            table.add_column(column)
        for r in bounded_rolls(out, match, since, None if every else fitting(out)):
            table.add_row(*map(literal, (r.label, r.author, _purpose(r), r.shown())))
        out.print(table)
    if view.get("notes"):
        table = Table(title="Sealed notes")
        for column in ("slot", "by", "sealed in", "status", "text"):
            table.add_column(column)
        for n in notes_at_end(match.transcript, view["notes"]):
            status = f"revealed in {_seq(n['revealed_in'])}" if n.get("revealed_in") is not None else (
                "revealed at the end" if n.get("at_end") else "sealed")
            text = literal(n.get("value", "(hidden)"))
            if n.get("private"):
                text.append("  [only you see this]")
            table.add_row(*map(literal, (n["slot"], n["side"], _seq(n["sealed_in"]), status)), text)
        out.print(table)
    print_turn(out, match)


def notes_at_end(transcript: Any, notes: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """A view's sealed ``notes``, each one nobody revealed during the game
    given its value (and ``at_end``; no longer ``private``) once its side's
    closing message has published the secret that opens it (issue 30)."""
    shown = [dict(n) for n in notes]
    if all(n.get("revealed_in") is not None for n in shown):
        return shown
    known = revealed_at_end(transcript)
    for n in shown:
        if n.get("revealed_in") is None and (n.get("side"), n.get("slot")) in known:  # the owner's, too: no longer only theirs
            n.update(value=known[n["side"], n["slot"]].strip(), at_end=True, private=False)
    return shown


def report_json(report: Any) -> dict[str, Any]:
    t = report.transcript
    view = report.replay.game.view(report.replay.state, None)
    notes = notes_at_end(t, view.get("notes") or []) if isinstance(view, Mapping) else []
    return {
        **({"notes": notes} if notes else {}),
        "ok": report.ok,
        "audited": report.audited,
        "game": t.game,
        "module": t.setup["module"],
        "messages": len(t),
        "players": {side: key.fingerprint for side, key in t.keys.items()},
        "rolls": [r.to_json() for r in report.replay.rolls],
        "declared_rolls": [r.to_json() for r in declared_rolls(report.replay.rolls)],
        "pending_dice": len(report.replay.pending),
        "over": report.replay.over,
        "problems": report.problems,
        "warnings": [f.to_json() for f in getattr(report, "warnings", ())],
        "rulings": [r.to_json() for r in contract.declared_rulings(report.replay.game, t.setup.get("options") or {})],
    }


def print_report(out: Console, report: Any) -> None:
    from rich.panel import Panel

    t = report.transcript
    lines = [
        f"game {t.game} ({t.setup['module']}), {len(t)} messages",
        *(f"{side}: {key.fingerprint}" for side, key in t.keys.items()),
        *(f"ruling {r.short()}" for r in contract.declared_rulings(report.replay.game, t.setup.get("options") or {})),
        f"signatures, hash links and chain values: all {len(t)} verified",
        f"dice recomputed: {counted(declared_rolls(report.replay.rolls))}"
        + (f"; {counted(pending_rolls(report.replay))} awaiting the next message"
           if report.replay.pending else ""),
    ]
    if report.audited:
        lines.append("audit: " + ("every commitment, sealed store and secret checks out" if report.ok else "FAILED"))
        lines += [f"  - {p}" for p in report.problems]
    verdict = Text("VERIFIED", style="bold green") if report.ok else Text("FAILED", style="bold red")
    out.print(Panel(Text("\n").join(literal(line) for line in lines), title=verdict))
