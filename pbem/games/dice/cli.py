"""The dice game's frontend (:mod:`pbem.engine.contract`): the terminal
dialogue of ``pbem play`` and the demo game."""

from __future__ import annotations

from typing import Any

import click


def ask_orders(match: Any) -> dict[str, Any]:
    """Ask for dice-game orders at the terminal, validating each answer; a
    message with nothing in it is signed only once confirmed."""
    while True:
        orders = _ask(match)
        if orders or _sign_empty(match):
            return {"order": orders}


def _ask(match: Any) -> list[dict[str, Any]]:
    from pbem.errors import InputError

    orders: list[dict[str, Any]] = []
    click.echo("Orders: roll, seal, reveal, end; 'done' sends the message.")
    while True:
        kind = click.prompt("order", type=click.Choice(["roll", "seal", "reveal", "end", "done"]), default="done")
        if kind == "done":
            break
        order: dict[str, Any] = {"type": kind}
        if kind == "roll":
            order["dice"] = click.prompt("dice (e.g. 2d6+1)" if match.game.version == "1"
                                         else "dice (e.g. 2d6+1, d66, d%, 4d6kh3)")
            order["note"] = click.prompt("note", default="", show_default=False)
        elif kind in ("seal", "reveal"):
            order["slot"] = click.prompt("slot name")
            if kind == "seal":
                order["text"] = click.prompt("text to seal", hide_input=True)
        try:
            match.game.parse_orders({"order": orders + [order]}, match.player.side)
        except InputError as err:
            click.echo(f"not accepted: {err}")
            continue
        orders.append(order)
        if kind == "end":
            break
    return orders


def _sign_empty(match: Any) -> bool:
    """Before signing a message with no roll, no note and no reveal: asked,
    default No (one Enter too many at the first prompt would otherwise send
    it).  A closing message with nothing left to reveal is not asked about:
    that is what closes the game."""
    state, side = match.replay.state, match.player.side
    closing = state.ending_by is not None and state.ending_by != side
    sealed = [n.slot for n in state.notes if n.side == side and n.value is None]
    if closing and not sealed:
        return True
    what = (f"This closing message reveals none of your sealed notes ({', '.join(sealed)})" if closing
            else "This message has no roll, no note and no reveal")
    return click.confirm(f"{what}. Sign and write it anyway?", default=False)


def demo(**options: Any) -> Any:
    from pbem.games.dice.demo import script

    return script(**options)
