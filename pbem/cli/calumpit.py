"""``pbem solo calumpit --dir DIR``: Calumpit Bridge alone at the terminal.

pbem plays the ``japanese`` side of the protocol with a house key kept in
the game's directory (DESIGN 4.5): it draws the events and generates the
Japanese attacks, and both sides' messages go through
:mod:`pbem.match.session` exactly as in a game by email, so a solo game is
just as verifiable (``pbem verify DIR/game``) and a reload cannot change a
roll.  Layout::

    DIR/house/   the house's key (unencrypted: it is pbem's own)
    DIR/game/    the message files, NNNN-SIDE.pbem

The lead wires it in with ``register(main)``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from pbem.cli import handles_errors, load_identity

HOUSE_NAME = "pbem house (japanese)"
COMMANDS = ("help", "show", "send", "done", "end", "quit")


def register(main: click.Group) -> None:
    """Add ``pbem solo calumpit`` to ``main`` (creating the ``solo`` group if
    needed); calling it twice changes nothing."""
    solo = main.commands.get("solo")
    if solo is None:
        solo = click.Group("solo", help="Play a game alone at the terminal; pbem plays the other side (DESIGN 4.5).")
        main.add_command(solo)
    if isinstance(solo, click.Group) and "calumpit" not in solo.commands:
        solo.add_command(calumpit)


@click.command("calumpit")
@click.option("--dir", "directory", required=True, type=click.Path(file_okay=False),
              help="The solo game's directory (created; run again to resume).")
@handles_errors
def calumpit(directory: str) -> None:
    """Play Calumpit Bridge alone: you command the Americans at your table,
    pbem is the umpire and the Japanese.

    Type one order per line, e.g. ``fire weapon=rifle range=30 figures=12
    terrain=open unit=1-SQD`` (1-SQD is one of your squads from the start;
    add target=ID to name a Japanese unit once the events have put it on the
    table, e.g. target=J-INF-1); ``done`` sends your orders and ends your
    part of the turn, ``send`` sends them without ending it, ``end`` ends the
    game, ``help`` lists every order, ``help ORDER`` (e.g. ``help move``)
    gives that order's fields, their allowed values and an example, ``show``
    the position, ``quit`` stops (the game is kept; run the command again to
    resume).

    Example: pbem solo calumpit --dir ~/games/calumpit-1
    """
    from pbem.match import session

    root = Path(directory)
    human = load_identity()
    house = _house(root)
    game_dir = root / "game"
    if not any(game_dir.glob("*.pbem")):
        _start(game_dir, human, house)
        click.echo(f"a new solo game in {game_dir}; you play american, pbem plays japanese")
    match = session.load(game_dir, human)
    printed = 0
    while True:
        printed = _print_events(match, printed)
        if match.closed:
            click.echo(match.game.view(match.replay.state, None)["verdict"] or "the game is over")
            click.echo(f"check it: pbem verify {game_dir} --audit")
            return
        if not match.my_turn:  # the house's move: resumed after a stop, or its reply
            session.play(game_dir, house, _house_orders(match))
            match = session.load(game_dir, human)
            continue
        if match.replay.over:  # your closing message
            session.play(game_dir, human, {})
            match = session.load(game_dir, human)
            continue
        orders = _ask(match)
        if orders is None:
            click.echo(f"stopped; resume with: pbem solo calumpit --dir {root}")
            return
        session.play(game_dir, human, {"order": orders})
        match = session.load(game_dir, human)


# --------------------------------------------------------------------------- keys and setup


def _house(root: Path) -> Any:
    from pbem.protocol.keystore import Keystore

    return Keystore(root / "house").load_or_create(HOUSE_NAME)


def _start(game_dir: Path, human: Any, house: Any) -> None:
    from pbem import games
    from pbem.match import session

    name = "calumpit" if "calumpit" in games.available() else "pbem.games.calumpit:GAME"
    session.new_game(game_dir, name, "american", house.public, human)
    session.play(game_dir, house, {})  # message 1: the house accepts; turn 1's event check is keyed by message 0


def _house_orders(match: Any) -> dict[str, Any]:
    """The house moves no figures (you do, at your table, as the cards and
    JAPANESE ENTRANCE say): it only declares its part of each turn done."""
    state = match.replay.state
    if match.replay.over or state.ending_by:
        return {}
    return {"order": [{"type": "done"}]} if "japanese" not in state.done else {}


# --------------------------------------------------------------------------- the terminal


def _print_events(match: Any, printed: int) -> int:
    events = match.replay.events
    for seq, event in events[printed:]:
        click.echo(f"{seq:04d} {event.sentence()}")
    return len(events)


def ask_orders(match: Any) -> dict[str, Any]:
    """Calumpit orders typed at the terminal, for ``pbem play DIR`` without
    ``--orders`` (the same lines as in solo play)."""
    from pbem.errors import UsageError

    orders = _ask(match)
    if orders is None:
        raise UsageError("stopped: no message written")
    return {"order": orders}


def _ask(match: Any) -> list[dict[str, Any]] | None:
    """Orders for the next message, one per line; None to stop."""
    from pbem.engine.machine import Ordered
    from pbem.errors import InputError, PbemError

    game, state = match.game, match.replay.state
    side = match.player.side
    seq = len(match.transcript)
    trial = state  # each order is tried on the position at once: a rule it breaks is reported now
    for line in game.summary(state):
        click.echo(f"  {line}")
    orders: list[dict[str, Any]] = []
    while True:
        try:
            line = click.prompt(f"turn {state.turn} order", default="", show_default=False).strip()
        except click.exceptions.Abort:
            return None
        if not line:
            continue
        word = line.split()[0]
        if word == "quit":
            return None
        if word == "help":
            for text in _help(game, trial, side, line.split()[1:]):
                click.echo(f"  {text}")
            continue
        if word == "show":
            for text in game.summary(state):
                click.echo(f"  {text}")
            continue
        if word == "send":
            return orders
        try:
            order = game.parse_line(line)
            game.parse_orders({"order": orders + [order]}, side)
            trial, _ = game.apply(trial, Ordered(side, seq, len(orders), order))
        except (InputError, PbemError) as err:
            click.echo(f"not accepted: {err}")
            continue
        orders.append(order)
        if order["type"] in ("done", "end"):
            return orders
        click.echo(f"  queued: {order['type']} (send with 'done' or 'send')")


def _help(game: Any, state: Any, side: str, words: list[str]) -> list[str]:
    """``help``: every order and the commands; ``help ORDER``: that order's
    fields, their allowed values and an example this position accepts."""
    from pbem.games.calumpit import orders, template

    if not words:
        return orders.help_lines() + ["commands: " + ", ".join(COMMANDS)]
    kind = words[0]
    if kind not in orders.ORDERS:
        return [f"no order {kind!r}; the orders: {', '.join(orders.ORDERS)} (commands: {', '.join(COMMANDS)})"]
    example = template.example_line(game, state, side, kind)
    lines = orders.order_help(kind, game.choices, game.modifiers, example)
    if example is None and orders.ORDERS[kind][2]:
        lines[-1] += "  (it needs units or events that are not on the table now: show lists the units)"
    return lines
