"""The dice game's frontend (:mod:`pbem.engine.contract`): the terminal
dialogue of ``pbem play`` and the demo game."""

from __future__ import annotations

from typing import Any

import click


def ask_orders(match: Any) -> dict[str, Any]:
    """Ask for dice-game orders at the terminal, validating each answer."""
    from pbem.errors import InputError

    orders: list[dict[str, Any]] = []
    click.echo("Orders: roll, seal, reveal, end; 'done' sends the message.")
    while True:
        kind = click.prompt("order", type=click.Choice(["roll", "seal", "reveal", "end", "done"]), default="done")
        if kind == "done":
            break
        order: dict[str, Any] = {"type": kind}
        if kind == "roll":
            order["dice"] = click.prompt("dice (e.g. 2d6+1)")
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
    return {"order": orders}


def demo(**options: Any) -> Any:
    from pbem.games.dice.demo import script

    return script(**options)
