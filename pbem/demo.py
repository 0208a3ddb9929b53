"""``pbem demo``: a complete scripted dice game between two fresh identities.

Layout of the demo directory::

    DIR/ann/keystore/   Ann's identity (unencrypted: it is a demo)
    DIR/ann/game/       Ann's copy of the game (she plays "first")
    DIR/bob/keystore/
    DIR/bob/game/
    DIR/mail/           the files "emailed" between them (dice demo)
    DIR/orders/         the orders each message carried (Ambon demo), as TOML

The script exercises every dice-game order: rolls each turn, a sealed note
revealed later, ``end`` and the closing reply; then both directories are
verified with ``--audit`` and both players' logs are compared.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from pbem.match import session
from pbem.protocol.keystore import Keystore

SCRIPT: list[tuple[str, list[dict[str, Any]]]] = [
    ("ann", [{"type": "roll", "dice": "2d6", "note": "artillery on the ridge"},
             {"type": "seal", "slot": "ambush", "text": "2nd platoon waits in the orchard at 1509"}]),
    ("bob", [{"type": "roll", "dice": "1d10+2", "note": "recovery check"},
             {"type": "roll", "dice": "d20", "note": "morale"}]),
    ("ann", [{"type": "reveal", "slot": "ambush"},
             {"type": "roll", "dice": "3d6", "note": "ambush fire"}]),
    ("bob", [{"type": "roll", "dice": "2d6-1", "note": "counter-attack"}]),
    ("ann", [{"type": "end"}]),
    ("bob", []),
]


@dataclass
class DemoReport:
    directory: Path
    files: list[Path]
    verify: session.VerifyReport
    logs_agree: bool


def _players(directory: Path, names: tuple[tuple[str, str], ...]) -> dict[str, object]:
    players = {}
    for name, full in names:
        store = Keystore(directory / name / "keystore")
        players[name] = store.load(lambda: None) if store.exists() else store.create(full, None)
    return players


@dataclass
class AmbonDemoReport:
    directory: Path
    messages: int
    verify: session.VerifyReport
    logs_agree: bool
    final: session.Match


def run_ambon_demo(directory: Path, progress: Callable[[str], Any] = lambda _: None) -> AmbonDemoReport:
    """A whole game of Ambon by email between two fresh identities, both
    sides played by the bot (pbem.games.ambon.bot): every message signed,
    every die fair, every reveal checked; then both directories are verified
    with --audit."""
    from pbem import games
    from pbem.games.ambon.bot import AmbonBot

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    players = _players(directory, (("kenji", "Kenji (Japanese, demo)"), ("jack", "Jack (Allied, demo)")))
    sides = {"japanese": "kenji", "allied": "jack"}
    dirs = {name: directory / name / "game" for name in players}
    for path in dirs.values():
        if path.exists():
            shutil.rmtree(path)
    bot = AmbonBot(games.get("ambon"))
    saved = directory / "orders"
    if saved.exists():
        shutil.rmtree(saved)
    saved.mkdir()

    def keep(seq: int, side: str, orders: dict) -> None:
        from pbem.match.orders_toml import dump_orders

        (saved / f"{seq:04d}-{side}.toml").write_text(dump_orders(orders, f"the bot's orders for message {seq:04d} ({side})"))

    first = session.new_game(dirs["kenji"], "ambon", "japanese", players["jack"].public, players["kenji"])
    proposal = session.load(dirs["kenji"], players["kenji"])
    orders = bot.orders(proposal.game.initial_state({}), "allied", 1)
    keep(1, "allied", orders)
    path, _ = session.join_game(first, dirs["jack"], players["jack"], orders)
    session.receive(dirs["kenji"], [path], players["kenji"])
    count = 2
    match = session.load(dirs["kenji"], players["kenji"])
    while not match.closed:
        side = match.transcript.side_of(len(match.transcript))
        author = sides[side]
        reader = sides["allied" if side == "japanese" else "japanese"]
        mine = session.load(dirs[author], players[author])
        orders = bot.orders(mine.replay.state, side, len(mine.transcript))
        keep(len(mine.transcript), side, orders)
        result = session.play(dirs[author], players[author], orders)
        count += 1
        received = session.receive(dirs[reader], [result.path], players[reader])
        match = received.match
        state = match.replay.state
        progress(f"{result.path.name}: turn {state.turn}, {state.phase}, {len(result.events)} events")
    reports = [session.verify([dirs[name]], audit=True) for name in players]
    logs = [[r.to_json() for r in rep.replay.rolls] for rep in reports]
    final = session.load(dirs["jack"], players["jack"])
    return AmbonDemoReport(directory, count, reports[0], logs[0] == logs[1] and all(r.ok for r in reports), final)


def run_dice_demo(directory: Path, progress: Callable[[str], Any] = lambda _: None) -> DemoReport:
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    players = {}
    for name, full in (("ann", "Ann (demo)"), ("bob", "Bob (demo)")):
        store = Keystore(directory / name / "keystore")
        players[name] = store.load(lambda: None) if store.exists() else store.create(full, None)
    mail = directory / "mail"
    mail.mkdir(exist_ok=True)
    games = {name: directory / name / "game" for name in players}
    for path in games.values():
        if path.exists():
            shutil.rmtree(path)
    for old in mail.glob("*.pbem"):
        old.unlink()

    def send(path: Path) -> Path:
        copy = mail / path.name
        shutil.copyfile(path, copy)
        return copy

    files = [session.new_game(games["ann"], "dice", "first", players["bob"].public, players["ann"])]
    progress(f"ann proposes a dice game: {files[-1].name}")
    path, _ = session.join_game(send(files[-1]), games["bob"], players["bob"])
    files.append(path)
    progress(f"bob joins: {path.name}")
    session.receive(games["ann"], [send(path)], players["ann"])
    for author, orders in SCRIPT:
        other = "bob" if author == "ann" else "ann"
        result = session.play(games[author], players[author], {"order": orders})
        files.append(result.path)
        progress(f"{author} plays {result.path.name}: " + "; ".join(e.sentence() for e in result.events) if result.events else f"{author} plays {result.path.name}")
        received = session.receive(games[other], [send(result.path)], players[other])
        for seq, event in received.match.replay.events:
            if seq == len(received.match.transcript) and "rolled" in event.text:
                progress(f"  {other} receives it and computes: {event.sentence()}")
    reports = [session.verify([games[name]], audit=True) for name in players]
    logs = [[r.to_json() | {"provisional": False} for r in rep.replay.rolls] for rep in reports]
    progress(f"both game directories verified with --audit; {len(files)} messages")
    return DemoReport(directory, files, reports[0], logs[0] == logs[1] and all(r.ok for r in reports))
