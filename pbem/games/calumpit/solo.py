"""Calumpit Bridge alone at the terminal: the workflow of ``pbem solo
calumpit --dir DIR``, on top of :mod:`pbem.match.session`.

You play the ``american`` side at your table; pbem plays the ``japanese``
side of the protocol with a house key kept in the game's directory.  pbem is
the umpire -- it draws the event cards, generates the Japanese attacks and
rolls every table -- and the house plays the Japanese
(:class:`pbem.games.calumpit.house.House`): it moves the arrived Japanese
down their road toward the bridge, fires at the American units it has seen
firing, assaults when the tables favour it, takes its morale checks, sends
back its units that are going back, and reports the Japanese at the bridge
when they get there.  Each turn it says what it did and why, and you move
its figures on your table as it says.

Both sides' messages go through the session exactly as in a game by email,
so a solo game is just as verifiable (``pbem verify DIR/game``) and a reload
cannot change a roll: the house's orders follow from the record, and their
dice are the protocol's.  Layout::

    DIR/house/   the house's key (unencrypted: it is pbem's own)
    DIR/game/    the message files, NNNN-SIDE.pbem

The terminal is two functions: ``ask(prompt)`` returns a typed line (None:
end of input), ``say(text)`` prints.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pbem.engine.machine import Ordered
from pbem.errors import InputError, PbemError
from pbem.games.calumpit import orders as calumpit_orders
from pbem.games.calumpit import template
from pbem.games.calumpit.house import JUNGLE_LINE, House
from pbem.match import session
from pbem.protocol.keystore import Keystore

HOUSE_NAME = "pbem house (japanese)"
COMMANDS = ("help", "show", "send", "done", "end", "quit")

Ask = Callable[[str], "str | None"]
Say = Callable[[str], Any]


def run(root: Path, human: Any, ask: Ask, say: Say) -> bool:
    """Play (or resume) the solo game in ``root`` until it is over (True) or
    the player stops (False)."""
    root = Path(root)
    house = _house(root)
    game_dir = root / "game"
    resumed = any(game_dir.glob("*.pbem"))
    if not resumed:
        _start(game_dir, human, house)
        say(f"a new solo game in {game_dir}; you play american, pbem plays japanese")
        say(f"the house's table: the Jungle line is {JUNGLE_LINE} inches up each road from the bridge;")
        say("the Japanese the cards bring advance from it down their road; the house")
        say("sees your units when they fire at its units (target=ID), where range= puts them")
    match = session.load(game_dir, human)
    printed = _turn_start(match) if resumed else 0
    if printed:
        say(f"resumed: {printed} earlier events not shown (pbem log {game_dir} lists them all)")
    while True:
        printed = _print_events(match, printed, say)
        if match.closed:
            say(match.game.view(match.replay.state, None)["verdict"] or "the game is over")
            say(f"check it: pbem verify {game_dir} --audit")
            return True
        if not match.my_turn:  # the house's move: resumed after a stop, or its reply
            printed = house_turn(game_dir, house, say, printed)
            match = session.load(game_dir, human)
            continue
        if match.replay.over:  # your closing message
            session.play(game_dir, human, {})
            match = session.load(game_dir, human)
            continue
        orders = ask_orders(match, ask, say)
        if orders is None:
            say(f"stopped; resume with: pbem solo calumpit --dir {root}")
            return False
        session.play(game_dir, human, {"order": orders})
        match = session.load(game_dir, human)


# --------------------------------------------------------------------------- keys and setup


def _house(root: Path) -> Any:
    return Keystore(root / "house").load_or_create(HOUSE_NAME)


def _start(game_dir: Path, human: Any, house: Any) -> None:
    session.new_game(game_dir, "calumpit", "american", house.public, human)
    session.play(game_dir, house, {})  # message 1: the house accepts; turn 1's event check is keyed by message 0


def house_turn(game_dir: Path, house: Any, say: Say, printed: int | None = None) -> int:
    """The house's message: its orders for the position it sees (with its
    own key: the dice your last message keyed are known to it, and their
    events are printed first, from ``printed`` on, unless None), each said
    with why; their dice are keyed by this message and rolled by your reply.
    Returns how many events are printed."""
    match = session.load(game_dir, house)
    if printed is not None:
        printed = _print_events(match, printed, say)
    steps = House(match.game).steps(match)
    for step in steps:
        if step.order["type"] == "done":
            continue
        say(f"  house: {calumpit_orders.to_line(step.order)}")
        if step.why:
            say(f"         {step.why}")
    acts = [s for s in steps if s.order["type"] != "done"]
    state = match.replay.state
    if not acts and not match.replay.over and not state.ending_by:
        on_table = [u for u in state.units if u.side == "japanese" and u.in_action]
        snipers = [u.id for u in on_table if u.kind == "sniper"]
        if not on_table:
            say("  house: no Japanese unit on the table yet (the Hearts cards' JAGT brings them)")
        elif len(snipers) == len(on_table):
            say(f"  house: nothing to move: {', '.join(snipers)} (the cards' snipers) fire on their own")
        else:
            shaken = [f"{u.id} {u.status}" for u in on_table if u.kind != "sniper"]
            say(f"  house: no Japanese unit can move or fire ({', '.join(shaken)})")
    session.play(game_dir, house, {"order": [s.order for s in steps]} if steps else {})
    return printed if printed is not None else len(match.replay.events)


# --------------------------------------------------------------------------- the terminal


def _turn_start(match: Any) -> int:
    """The index of the event that began the current turn (0 if none)."""
    events = match.replay.events
    starts = [i for i, (_, e) in enumerate(events) if e.rule == "SEQUENCE" and e.text.endswith(" begins")]
    return starts[-1] if starts else 0


def _print_events(match: Any, printed: int, say: Say) -> int:
    events = match.replay.events
    for seq, event in events[printed:]:
        if event.rule == "SEQUENCE" and (event.data or {}).get("side") == "japanese":  # the house's done
            say(f"{seq:04d} [SEQUENCE] the house (japanese) has finished its part of the turn"
                + (f"; {event.text.split('; ', 1)[1]}" if "; " in event.text else ""))
            continue
        say(f"{seq:04d} {event.sentence()}")
    return len(events)


def ask_orders(match: Any, ask: Ask, say: Say) -> list[dict[str, Any]] | None:
    """Orders for the next message, one per line, each tried on the position
    at once; None to stop."""
    game, state = match.game, match.replay.state
    side = match.player.side
    seq = len(match.transcript)
    trial = state  # each order is tried on the position at once: a rule it breaks is reported now
    for line in game.summary(state):
        say(f"  {line}")
    orders: list[dict[str, Any]] = []
    while True:
        line = ask(f"turn {state.turn} order")
        if line is None:
            return None
        line = line.strip()
        if not line:
            continue
        word = line.split()[0]
        if word == "quit":
            return None
        if word == "help":
            for text in _help(game, trial, side, line.split()[1:]):
                say(f"  {text}")
            continue
        if word == "show":
            for text in game.summary(state):
                say(f"  {text}")
            continue
        if word == "send":
            return orders
        try:
            order = game.parse_line(line)
            game.parse_orders({"order": orders + [order]}, side)
            trial, _ = game.apply(trial, Ordered(side, seq, len(orders), order))
        except (InputError, PbemError) as err:
            say(f"not accepted: {err}")
            continue
        orders.append(order)
        if order["type"] in ("done", "end"):
            return orders
        say(f"  queued: {order['type']} (send with 'done' or 'send')")


def _help(game: Any, state: Any, side: str, words: list[str]) -> list[str]:
    """``help``: every order and the commands; ``help ORDER``: that order's
    fields, their allowed values and an example this position accepts."""
    if not words:
        return calumpit_orders.help_lines() + ["commands: " + ", ".join(COMMANDS)]
    kind = words[0]
    if kind not in calumpit_orders.ORDERS:
        return [f"no order {kind!r}; the orders: {', '.join(calumpit_orders.ORDERS)} (commands: {', '.join(COMMANDS)})"]
    example = template.example_line(game, state, side, kind)
    lines = calumpit_orders.order_help(kind, game.choices, game.modifiers, example)
    if example is None and calumpit_orders.ORDERS[kind][2]:
        lines[-1] += "  (it needs units or events that are not on the table now: show lists the units)"
    return lines
