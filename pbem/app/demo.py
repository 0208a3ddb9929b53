"""``pbem demo``: a complete scripted game between two fresh identities.

Each game offers its demo through its frontend (the capability
:class:`pbem.engine.contract.Demo`, a :class:`~pbem.engine.contract.DemoScript`);
:func:`run` plays it by email.  Layout of the demo directory::

    DIR/NAME/keystore/   each player's identity (unencrypted: it is a demo)
    DIR/NAME/game/       each player's copy of the game
    DIR/mail/            the files "emailed" between them
    DIR/orders/          the orders each message carried, as TOML, named NNNN-SIDE.toml

The proposer writes message 0, the joiner message 1, then they alternate
until both closing messages are sent; then both directories are verified
with ``--audit`` and both players' roll logs are compared.  Running a demo
again in the same DIR keeps the identities and replaces the game.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

from pbem.app.watch import decisions_of
from pbem.engine import registry
from pbem.engine.contract import Demo, DemoScript
from pbem.errors import UsageError
from pbem.match import session
from pbem.match.orders_toml import dump_orders
from pbem.protocol.keystore import Keystore

if TYPE_CHECKING:
    from pbem.protocol.keys import Identity


#: a scripted game that has not ended after this many messages is a bug
MAX_MESSAGES = 400


@dataclass
class DemoReport:
    """A whole game played by email in ``directory``: how many messages
    (the proposal and both closing messages included), the --audit
    verification of the first player's directory, whether both directories
    verified and their roll logs agree, and the second player's final view
    of the game."""

    directory: Path
    game: str
    messages: int
    verify: session.VerifyReport
    logs_agree: bool
    final: session.Match
    by_hand: int = 0  # messages that need a player even with pbem watch (the rest decide nothing)

    @property
    def watched(self) -> str:
        """What ``pbem watch`` would have spared the players, in words."""
        turns = getattr(self.final.replay.state, "turn", None)
        per_turn = (f": {self.by_hand / turns:.1f} a game turn by hand instead of {self.messages / turns:.1f}"
                    if isinstance(turns, int) and turns > 0 else "")
        return (f"with pbem watch, {self.by_hand} of these {self.messages} messages need a player and "
                f"{self.messages - self.by_hand} are written and sent by the other's machine{per_turn}")

    @property
    def over(self) -> bool:
        return self.final.closed and self.final.game.is_over(self.final.replay.state)


def demos() -> dict[str, DemoScript]:
    """Every installed game with a demo: name -> its script."""
    found = {}
    for name in registry.frontends():
        frontend = registry.frontend(name)
        if isinstance(frontend, Demo):
            found[name] = frontend.demo()
    return found


def script_of(game: str, **options: Any) -> DemoScript:
    frontend = registry.frontend(game)
    if not isinstance(frontend, Demo):
        raise UsageError(f"no demo for the game {game!r}; demos: {', '.join(sorted(demos()))}")
    return frontend.demo(**options)


def run(directory: Path, game: str, progress: Callable[[str], Any] = lambda _: None, **options: Any) -> DemoReport:
    """Play the demo of ``game`` (its registered name) in ``directory``;
    ``options`` go to the game's :meth:`~pbem.engine.contract.Demo.demo`."""
    script = script_of(game, **options)
    report = play_by_email(directory, game, script, progress)
    if script.last_line is not None:
        progress(script.last_line(report.final))
    return report


def _players(directory: Path, names: tuple[tuple[str, str], ...]) -> dict[str, Identity]:
    players = {}
    for name, full in names:
        players[name] = Keystore(directory / name / "keystore").load_or_create(full)
    return players


def play_by_email(directory: Path, game: str, script: DemoScript,
                  progress: Callable[[str], Any] = lambda _: None, *,
                  rulings: Mapping[str, str] | None = None, preset: str | None = None) -> DemoReport:
    """The game ``game`` between ``script``'s two fresh identities (module
    docstring): every message goes through DIR/mail and its orders are kept
    in DIR/orders.  ``rulings``, ``preset``: the readings of the game's
    disputed rules the proposal declares (:func:`pbem.match.session.new_game`)."""
    proposer = (script.proposer.name, script.proposer.full_name, script.proposer.side)
    joiner = (script.joiner.name, script.joiner.full_name, script.joiner.side)
    orders_for, describe = script.orders_for, script.describe

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    players = _players(directory, (proposer[:2], joiner[:2]))
    names = {proposer[2]: proposer[0], joiner[2]: joiner[0]}
    dirs = {name: directory / name / "game" for name in players}
    for path in dirs.values():
        if path.exists():
            shutil.rmtree(path)
    mail, saved = directory / "mail", directory / "orders"
    for folder in (mail, saved):
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir()

    def send(path: Path) -> Path:
        copy = mail / path.name
        shutil.copyfile(path, copy)
        return copy

    def orders_of(match: session.Match, side: str, seq: int) -> dict[str, Any]:
        orders, text = orders_for(match, side, seq)
        if text is None:
            closing = match.replay.over and not orders.get("order")
            text = dump_orders(orders, f"message {seq:04d} ({side}, {names[side]})"
                               + ("\nthe closing message: no orders" if closing else ""))
        (saved / f"{seq:04d}-{side}.toml").write_text(text)
        return orders

    def other(name: str) -> str:
        return joiner[0] if name == proposer[0] else proposer[0]

    first = session.new_game(dirs[proposer[0]], game, proposer[2], players[joiner[0]].public, players[proposer[0]],
                             rulings=rulings, preset=preset)
    progress(f"{proposer[0]} ({proposer[2]}) proposes a game of {game} to {joiner[0]}: {first.name}")
    proposal = session.proposal_match(first, players[joiner[0]])
    orders = orders_of(proposal, joiner[2], 1)
    path, _ = session.join_game(send(first), dirs[joiner[0]], players[joiner[0]], orders)
    received = session.receive(dirs[proposer[0]], [send(path)], players[proposer[0]])

    count, match = 2, received.match
    by_hand = 2  # the proposal and the join decide the game
    shown = len(match.replay.events)  # each recipient's event list extends the last one's
    progress(f"{joiner[0]} ({joiner[2]}) joins: {path.name}" + describe(match, [e for _, e in match.replay.events]))
    while not match.closed:
        if count >= MAX_MESSAGES:
            raise RuntimeError(f"the {game} demo did not end in {MAX_MESSAGES} messages")
        seq = len(match.transcript)
        side = match.transcript.side_of(seq)
        author = names[side]
        orders = orders_of(match, side, seq)  # the author received the last message: this is its copy
        by_hand += bool(decisions_of(match))
        result = session.play(dirs[author], players[author], orders)
        count += 1
        received = session.receive(dirs[other(author)], [send(result.path)], players[other(author)])
        match = received.match
        closing = (" -- the closing reply" if match.closed else
                   " -- the game ends: it reveals its author's secret" if side in match.transcript.secrets else "")
        events = [e for _, e in match.replay.events[shown:]]
        shown = len(match.replay.events)
        progress(f"{author} ({side}) plays {result.path.name}{closing}" + describe(match, events))
    reports = [session.verify([dirs[name]], audit=True) for name in players]
    logs = [[r.to_json() for r in rep.replay.rolls] for rep in reports]
    agree = logs[0] == logs[1] and all(r.ok for r in reports)
    progress(f"both game directories verified with --audit; {count} messages"
             + ("" if agree else ": THEY DISAGREE"))
    final = session.load(dirs[joiner[0]], players[joiner[0]])
    return DemoReport(directory, game, count, reports[0], agree, final, by_hand)
