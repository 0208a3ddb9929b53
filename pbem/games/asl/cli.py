"""``pbem asl ...``: the ASL assistant's helper commands.

``register(main)`` adds the ``asl`` group to the ``pbem`` command line:

    pbem asl note "Type 92 Infantry Gun"          the excerpt's notes and rules, looked up
    pbem asl check-berserk POSITION.toml          8.5.2 / Berserk box against a described position
    pbem asl human-wave POSITION.toml             8.5.1 against a described position
    pbem asl charge POSITION.toml --unit A --target J [--route "Y1 Y2 X2"]
    pbem asl stats DIR                            each player's DR/dr distribution in a game

Library modules are imported inside the commands, so ``pbem --help`` stays fast.
"""

from __future__ import annotations

import json
from typing import Any

import click

from pbem.cli.base import PbemClickError as _ClickError
from pbem.cli.base import handles_errors as _handles_errors
from pbem.cli.base import read_orders as _read_toml


def _echo(text: str) -> None:
    """Print a line that may quote a position file or the excerpt's data:
    control characters visible (:func:`pbem.render.literal.visible`)."""
    from pbem.render.literal import visible

    click.echo(visible(text, newlines=True))


def _emit(data: Any) -> None:
    click.echo(json.dumps({**data, "schema": 1}, indent=2, sort_keys=True, ensure_ascii=False))  # docs/json.md


def _game():
    from pbem.games.asl import GAME

    return GAME


# --------------------------------------------------------------------------- the group


@click.group("asl")
def asl() -> None:
    """ASL Starter Kit Expansion Pack #2: notes and rules look-up, Berserk,
    Charge and Human Wave checks against a position you describe.

    pbem does not see the board: a POSITION file states the units, leaders,
    markers, hexes, LOS and MF the checks need (examples/asl/ has one).

    In a game, pbem asl stats DIR counts each player's DR and dr.

    Example: pbem asl check-berserk examples/asl/dare-death-example.toml
    """


@asl.command("note")
@click.argument("query")
@click.option("--json", "as_json", is_flag=True, help="Print the entry as JSON.")
@click.option("--year", type=int, help="Also give the RF for this year (with --month, --where, --vs).")
@click.option("--month", type=click.IntRange(1, 12), help="Month, for RF that change within a year (with --year).")
@click.option("--where", "theatre", help="Theatre, e.g. China, Java, Burma (with --year).")
@click.option("--vs", "opponent", help="Opponent, e.g. Russians (with --year).")
@_handles_errors
def note(query: str, as_json: bool, year: int | None, month: int | None, theatre: str | None, opponent: str | None) -> None:
    """Look up a vehicle or ordnance note, or a rule section, by name.

    Case, spaces and punctuation do not matter; close misspellings match.

    Example: pbem asl note "Type 92 Infantry Gun" --year 1938 --vs Russians
    """
    from pbem.errors import InputError
    from pbem.games.asl.data import Note, best_match

    for name, value in (("--month", month), ("--where", theatre), ("--vs", opponent)):
        if value is not None and year is None:
            raise click.UsageError(f"{name} needs --year: the RF is given for a date (e.g. --year 1942 {name} ...)")
    data = _game().data
    match, candidates = best_match(data, query)
    if match is None:
        if not candidates:
            raise InputError(f"no note or rule section matches {_shown(query)}")
        names = "; ".join(m.entry.name for m in candidates)
        raise InputError(f"{_shown(query)} matches several entries: {names} -- name one of them")
    entry = match.entry
    rf = entry.rf_for(year, month, theatre, opponent) if isinstance(entry, Note) and year is not None else None
    if as_json:
        _emit(_note_json(entry, rf))
        return
    for line in _note_lines(entry, rf):
        _echo(line)


ECHO_LIMIT = 60


def _shown(text: str, limit: int = ECHO_LIMIT) -> str:
    """``text`` quoted for an error message: its first ``limit`` characters,
    each unprintable one shown as '?', and how long it was if cut."""
    shown = "".join(c if c.isprintable() else "?" for c in text[:limit])
    return repr(shown) + (f" (the first {limit} of {len(text)} characters)" if len(text) > limit else "")


def _split(option: str, text: str | None, noun: str, example: str) -> list[str] | None:
    """A comma-separated option's items (None if the option is not given); a
    value that names no item is a usage error naming the option."""
    if text is None:
        return None
    items = [part.strip() for part in text.split(",") if part.strip()]
    if not items:
        raise click.BadParameter(f"{_shown(text)} names no {noun}; give them comma-separated, e.g. {example}",
                                 param_hint=f"'{option}'")
    return items


def _note_json(entry: Any, rf: Any) -> dict[str, Any]:
    from pbem.games.asl.data import Note, period

    if not isinstance(entry, Note):
        return {"kind": "rule", "number": entry.number, "title": entry.title, "text": list(entry.text),
                "remark": entry.remark}
    out: dict[str, Any] = {
        "kind": entry.kind, "id": entry.id, "name": entry.name, "nationality": entry.nationality,
        "heading": entry.heading, "aliases": list(entry.aliases), "text": list(entry.text),
        "special": list(entry.special), "bpv": entry.bpv,
        "rf": [{"rf": None if e.na else str(e.rf), "na": e.na, "period": period(e.start, e.end), "where": e.where,
                "vs": e.vs, "step": str(e.step) if e.step else None, "exclusive": e.exclusive} for e in entry.rf],
        "dates": [{"where": d.where, "period": period(d.start, d.end), "na": d.na, "note": d.note} for d in entry.dates],
    }
    if entry.movement:
        out["movement"] = entry.movement
    if entry.example:
        out["example"] = entry.example
    if rf is not None:
        out["rf_for"] = {"value": rf.value, "available": rf.available, "why": rf.why}
    return out


def _note_lines(entry: Any, rf: Any) -> list[str]:
    from pbem.games.asl.data import Note, period

    if not isinstance(entry, Note):
        lines = [entry.name, ""]
        lines += list(entry.text)
        if entry.remark:
            lines += ["", entry.remark]
        return lines
    lines = [f"{entry.name} -- {entry.heading or entry.nationality + ' ' + entry.kind}"]
    if isinstance(entry.bpv, dict):
        lines.append("BPV: " + ", ".join(f"{k} {v}" for k, v in entry.bpv.items()))
    elif entry.bpv is not None:
        lines.append(f"BPV: {entry.bpv}")
    for e in entry.rf:
        lines.append("RF: " + e.describe() + (f" (the only dates vs {e.vs})" if e.exclusive else ""))
    for d in entry.dates:
        lines.append(f"Dates: {d.where} " + ("NA" if d.na else period(d.start, d.end)) + (f" ({d.note})" if d.note else ""))
    if entry.movement == "truck":
        lines.append("Movement: Truck (7.14)")
    if rf is not None:
        if rf.available is False:
            lines.append(f"RF for the date asked: {rf.shown}")
        else:
            lines.append(f"RF for the date asked: {rf.value if rf.value is not None else 'not decided by the notes'} ({rf.why})")
    lines.append("")
    lines += list(entry.text)
    for s in entry.special:
        lines.append(f"† {s}")
    if entry.example:
        lines += ["", entry.example]
    return lines


def _position(path: str):
    from pbem.games.asl.position import parse_position

    doc = _read_toml(path)
    return doc, parse_position(doc, _game().data)


@asl.command("check-berserk")
@click.argument("position_path", metavar="POSITION", type=click.Path(exists=True, dir_okay=False))
@click.option("--unit", "units", multiple=True, help="A unit declared Berserk (repeatable); with --target.")
@click.option("--target", help="The Known Enemy Unit the declared units Charge.")
@click.option("--leader", help="A leader going Berserk with them.")
@click.option("--all", "report_all", is_flag=True, help="Report every friendly squad and HS; ignore declarations.")
@click.option("--json", "as_json", is_flag=True, help="Print the checks as JSON.")
@_handles_errors
def check_berserk(position_path: str, units: tuple[str, ...], target: str | None, leader: str | None,
                  report_all: bool, as_json: bool) -> None:
    """May these Dare-Death squads go Berserk (8.5.2, the Berserk box)?

    Declarations come from --unit/--target, else from the file's [[berserk]]
    tables (units, target, leader); the exit status is 1 unless all hold.
    Without any (or with --all), every friendly squad and HS is reported and
    the status is 0.

    Example: pbem asl check-berserk examples/asl/dare-death-example.toml
    """
    from pbem.errors import IllegalOrderError, InputError
    from pbem.games.asl import berserk
    from pbem.games.asl.position import unit_ids

    data = _game().data
    doc, position = _position(position_path)
    declarations = []
    if units:
        if not target:
            raise InputError("--unit needs --target: the Known Enemy Unit they Charge", field="target")
        declarations.append(berserk.Declaration(tuple(units), target, leader))
    for i, spec in enumerate([] if units or report_all else doc.get("berserk", [])):
        where = f"{position_path}: berserk[{i}]"
        if not isinstance(spec, dict) or set(spec) - {"units", "target", "leader"} or "target" not in spec:
            raise InputError(f"{where}: must be {{ units = [\"A\"], target = \"J\", leader = \"8-0\" }}", field="berserk")
        declarations.append(berserk.Declaration(unit_ids(spec.get("units"), where), spec["target"], spec.get("leader")))
    if declarations and not report_all:
        results, problems = berserk.check_declarations(position, declarations, data)
        ok = all(r.eligible for r in results) and all(c.ok for c in problems)
        out: dict[str, Any] = {"ok": ok, "units": [r.to_json() for r in results], "declaration": [c.to_json() for c in problems],
               "effects": {}}
        for d in declarations:
            for uid in d.units:
                out["effects"][uid] = [c.to_json() for c in berserk.effects(position, uid, d.target, data)]
    else:
        mmc = [u for u in position.friendly() if u.kind in ("squad", "half-squad")]
        results = [berserk.eligibility(position, u.id, data) for u in mmc]
        problems, ok = [], True
        out = {"ok": True, "units": [r.to_json() for r in results], "declaration": [], "effects": {}}
    if as_json:
        _emit(out)
    else:
        for r in results:
            _echo(r.summary())
            for c in r.checks:
                _echo(f"  {c.sentence()}")
        for c in problems:
            _echo(c.sentence())
        for uid, lines in out["effects"].items():
            if all(r.eligible for r in results if r.unit == uid):
                _echo(f"{uid} Berserk:")
                for c in lines:
                    _echo(f"  [{c['rule']}] {c['text']}")
    if not ok:
        raise _ClickError("not all may go Berserk", IllegalOrderError.exit_code)


@asl.command("human-wave")
@click.argument("position_path", metavar="POSITION", type=click.Path(exists=True, dir_okay=False))
@click.option("--units", help="The units of the wave, comma-separated (else the file's [human_wave]).")
@click.option("--hexes", help="The hexes of the wave, comma-separated: every friendly unit in them.")
@click.option("--json", "as_json", is_flag=True, help="Print the checks as JSON.")
@_handles_errors
def human_wave_command(position_path: str, units: str | None, hexes: str | None, as_json: bool) -> None:
    """Is this a valid Human Wave (8.5.1)?  Exit status 1 if not.

    Six or more MMC, an average of two or more per hex, a contiguous chain of
    three or more hexes, none adjacent to an enemy unit.

    Example: pbem asl human-wave wave.toml --hexes P4,P5,P6
    """
    from pbem.errors import IllegalOrderError, InputError
    from pbem.games.asl import human_wave

    doc, position = _position(position_path)
    spec = doc.get("human_wave", {})
    if not isinstance(spec, dict) or set(spec) - {"units", "hexes"}:
        raise InputError(f"{position_path}: [human_wave] takes units = [...] or hexes = [...]", field="human_wave")
    unit_list, hex_list = _split("--units", units, "unit", "A,B,C"), _split("--hexes", hexes, "hex", "P4,P5,P6")
    if unit_list is None and hex_list is None:
        unit_list, hex_list = spec.get("units"), spec.get("hexes")
    result = human_wave.check(position, _game().data, units=unit_list, hexes=hex_list)
    if as_json:
        _emit(result.to_json())
    else:
        _echo(result.summary())
        for c in result.checks:
            _echo(f"  {c.sentence()}")
    if not result.valid:
        raise _ClickError("not a valid Human Wave", IllegalOrderError.exit_code)


@asl.command("charge")
@click.argument("position_path", metavar="POSITION", type=click.Path(exists=True, dir_okay=False))
@click.option("--unit", required=True, help="The Berserk unit.")
@click.option("--target", required=True, help="The unit it Charges.")
@click.option("--route", help="The hexes it enters, e.g. \"Y1 Y2 X2\": checked to be a shortest route in MF.")
@_handles_errors
def charge(position_path: str, unit: str, target: str, route: str | None) -> None:
    """The shortest Charge route in MF (Berserk box), over the file's [entry_cost].

    Example: pbem asl charge examples/asl/dare-death-example.toml --unit A --target J --route "Y1 Y2 X2"
    """
    from pbem.errors import IllegalOrderError, InputError
    from pbem.games.asl import berserk

    _, position = _position(position_path)
    u, t = position.unit(unit), position.unit(target)
    best = berserk.charge_route(position, u.hex, t.hex)
    if best is None:
        raise InputError(f"{position_path}: give [entry_cost] (MF to enter each hex) to find a route from {u.at} to {t.at}")
    _echo(f"shortest Charge route for {u.name} into {t.at}: "
               f"{' '.join(position.label(h) for h in best.hexes[1:])} ({berserk.mf_text(best.cost)})")
    if route:
        result = berserk.check_route(position, unit, target, route.split())
        _echo(result.sentence())
        if not result.ok:
            raise _ClickError("not a shortest Charge route", IllegalOrderError.exit_code)


@asl.command("stats")
@click.argument("directory", type=click.Path(exists=True, file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the statistics as JSON.")
@click.option("--spectator", is_flag=True, help="Without your key: what anyone holding the files sees.")
@_handles_errors
def stats(directory: str, as_json: bool, spectator: bool) -> None:
    """Each player's DR and dr in an ASL game: count, mean, distribution.

    A DR counts as its Original DR (both dice, no DRM): its 2..12
    histogram with the share expected of fair dice, doubles, snake eyes
    (1-1) and boxcars (6-6); a dr its die, 1..6.  Rolls awaiting their
    dice are not counted.

    Example: pbem asl stats games/asl-bob
    """
    from pbem.cli.base import viewer_identity
    from pbem.errors import UsageError
    from pbem.games.asl import stats as asl_stats
    from pbem.match import session

    match = session.load_view(directory, None if spectator else viewer_identity())
    if match.game.name != "asl":
        raise UsageError(f"pbem asl stats: {directory} holds a {match.game.name} game, not an asl game "
                         f"(pbem log {directory} lists its rolls)")
    view = match.view()
    you = match.player.side if match.player else None
    if as_json:
        _emit({"game": match.transcript.game, "module_version": match.game.version, "you": you,
               "messages": len(match.transcript), **asl_stats.stats(view, match.game.sides)})
        return
    for line in asl_stats.report(view, match.game.sides, you):
        _echo(line)


def register(main: click.Group) -> None:
    """Add the ``asl`` command group to ``main`` (once)."""
    if "asl" not in main.commands:
        main.add_command(asl)


# --------------------------------------------------------------------------- pbem play, without --orders


def _ids(text: str) -> list[str]:
    return [part.strip() for part in text.replace(";", ",").split(",") if part.strip()]


def _squads(text: str) -> dict[str, str]:
    """``"A=3-3-7, B=4-4-7"`` -> ``{"A": "3-3-7", "B": "4-4-7"}`` (the parser names a bad entry)."""
    roster: dict[str, str] = {}
    for part in _ids(text):
        sid, _, type_ = part.partition("=")
        roster[sid.strip()] = type_.strip()
    return roster


def ask_orders(match: Any, prompt: Any = click.prompt, say: Any = click.echo) -> dict[str, Any]:
    """`pbem play DIR` for ASL: the orders asked one by one, each tried on the
    game with those before it as the message would be (8.5.1-8.5.2 against
    the position for Berserk and Human Wave), until 'done'."""
    from pbem.errors import PbemError
    from pbem.match.session import compose

    game, side = match.game, match.player.side
    orders: list[dict[str, Any]] = []
    document: dict[str, Any] = {"order": orders}
    kinds = ["setup", "DR", "dr", "berserk", "human-wave", "dare-death", "seal", "reveal", "end", "done"]
    if getattr(game, "stamps_rolls", False):
        kinds.insert(1, "phase")
    say("Orders: " + ", ".join(kinds[:-1]) + "; 'done' sends the message.  (pbem orders DIR writes the same as a file.)")
    while True:
        kind = prompt("order", type=click.Choice(kinds), default="done")
        if kind == "done":
            break
        order: dict[str, Any] = {"type": kind}
        trial = dict(document)
        if kind == "setup":
            names = sorted(game.data.nationalities)
            order["nationality"] = prompt("nationality", type=click.Choice(names))
            squads = prompt("squads, as ID=TYPE, ... (empty: none)", default="", show_default=False)
            if squads:
                order["squads"] = _squads(squads)
            chosen = prompt("Dare-Death squads, sealed (IDs, comma-separated; empty: none)", default="",
                            show_default=False, hide_input=True)
            if chosen:
                order["dare_death"] = _ids(chosen)
        elif kind in ("DR", "dr"):
            order["purpose"] = prompt("purpose (public)")
            drm = prompt("drm", type=int, default=0)
            if drm:
                order["drm"] = drm
            if getattr(game, "stamps_rolls", False):
                _ask_when(order, match.replay.state.clock, game.sides, prompt, optional=True)
        elif kind == "phase":
            _ask_when(order, match.replay.state.clock, game.sides, prompt, optional=False)
        elif kind in ("berserk", "human-wave"):
            if "position" not in document:
                path = prompt("position file (TOML with a [position] table, as in examples/asl/)",
                              type=click.Path(exists=True, dir_okay=False))
                try:
                    loaded = _read_toml(path)
                    if "position" not in loaded:
                        raise _ClickError(f"{path} has no [position] table", 2)
                    game.parse_orders({"position": loaded["position"]}, side)  # the position alone
                except (PbemError, click.ClickException) as err:
                    say(f"not accepted: {err.format_message() if isinstance(err, click.ClickException) else err}")
                    continue
                document["position"] = trial["position"] = loaded["position"]  # kept for the orders that follow
            if kind == "berserk":
                order["units"] = _ids(prompt("units going Berserk (IDs)"))
                order["target"] = prompt("Known Enemy Unit they Charge")
                leader = prompt("leader going with them (empty: none)", default="", show_default=False)
                if leader:
                    order["leader"] = leader
            else:
                units = prompt("units of the wave (IDs; empty: give hexes)", default="", show_default=False)
                if units:
                    order["units"] = _ids(units)
                else:
                    order["hexes"] = _ids(prompt("hexes of the wave"))
        elif kind == "dare-death":
            order["squad"] = prompt("squad whose Dare-Death designation you reveal (8.5.2)")
            purpose = prompt("purpose (public; empty: none)", default="", show_default=False)
            if purpose:
                order["purpose"] = purpose
        elif kind in ("seal", "reveal"):
            order["slot"] = prompt("slot name")
            if kind == "seal":
                order["text"] = prompt("text to seal", hide_input=True)
        trial["order"] = orders + [order]
        try:
            game.parse_orders(trial, side)
            compose(match, trial)  # the rules' checks, as `pbem play --orders` makes them; nothing is written
        except PbemError as err:
            say(f"not accepted: {err}")
            continue
        orders.append(order)
        document.update({k: v for k, v in trial.items() if k != "order"})
        if kind == "end":
            break
    return document


def _ask_when(order: dict[str, Any], now: Any, sides: tuple[str, ...], prompt: Any, *, optional: bool) -> None:
    """Ask the turn record's point (asl.phase) into ``order``: for a roll,
    an empty phase keeps the game's current one (``now``) when it has one."""
    from pbem.games.asl.clock import ORDER

    if now is not None and optional:
        phase = prompt(f"phase ({', '.join(ORDER)}; empty: the game's, {now.short()})", default="", show_default=False)
        if not phase:
            return
    else:
        phase = prompt(f"phase ({', '.join(ORDER)})")
    order["phase"] = phase
    order["player_turn"] = prompt("whose Player Turn", type=click.Choice(list(sides)),
                                  default=now.player_turn if now is not None else None)
    turn = prompt("Game Turn (empty: " + (f"{now.turn}, or the next" if now is not None and now.turn else "not kept")
                  + ")", default="", show_default=False)
    if turn:
        order["turn"] = int(turn) if turn.strip().isdigit() else turn


# --------------------------------------------------------------------------- pbem demo asl


def demo(**options: Any) -> Any:
    from pbem.games.asl.demo import script

    return script(**options)
