"""``pbem demo``: complete scripted games between two fresh identities.

Layout of the demo directory::

    DIR/ann/keystore/   Ann's identity (unencrypted: it is a demo)
    DIR/ann/game/       Ann's copy of the game (she plays "first")
    DIR/bob/keystore/
    DIR/bob/game/
    DIR/mail/           the files "emailed" between them (dice, Calumpit, ASL)
    DIR/orders/         the orders each message carried, as TOML (Ambon,
                        Calumpit, ASL), named NNNN-SIDE.toml

The players: ann and bob (dice), kenji and jack (Ambon), amy and ken
(Calumpit), sato and wei (ASL).  Running a demo again in the same DIR keeps
the identities and replaces the game.

The dice demo exercises every dice-game order: rolls each turn, a sealed
note revealed later, ``end`` and the closing reply.  The Ambon demo plays a
whole game, both sides by pbem's bot.  The Calumpit demo plays a referee
game, both sides by :mod:`pbem.games.calumpit.bot`, until the victory
conditions end it.  The ASL demo plays examples/asl/ (the Dare-Death
Example).  Each ends with both closing messages; then both directories are
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
        players[name] = Keystore(directory / name / "keystore").load_or_create(full)
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
    players = _players(directory, (("ann", "Ann (demo)"), ("bob", "Bob (demo)")))
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


# --------------------------------------------------------------------------- Calumpit Bridge and ASL


#: a scripted game that has not ended after this many messages is a bug
MAX_MESSAGES = 200


@dataclass
class GameDemoReport:
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

    @property
    def over(self) -> bool:
        return self.final.closed and self.final.game.is_over(self.final.replay.state)


def _play_by_email(
    directory: Path,
    game: str,
    proposer: tuple[str, str, str],
    joiner: tuple[str, str, str],
    orders_for: Callable[[session.Match, str, int], tuple[dict[str, Any], str | None]],
    progress: Callable[[str], Any],
    describe: Callable[[session.Match, list[Any]], str] = lambda match, events: "",
) -> GameDemoReport:
    """A game of ``game`` between two fresh identities, each ``(name, full
    name, side)``: the proposer writes message 0, the joiner message 1, then
    they alternate until both closing messages are sent.  ``orders_for(match,
    side, seq)`` gives the orders document of message ``seq``, made from its
    author's copy of the game, and its TOML text (None: written from the
    document); every message goes through DIR/mail and its orders are kept
    in DIR/orders."""
    from pbem.match.orders_toml import dump_orders

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

    first = session.new_game(dirs[proposer[0]], game, proposer[2], players[joiner[0]].public, players[proposer[0]])
    progress(f"{proposer[0]} ({proposer[2]}) proposes a game of {game} to {joiner[0]}: {first.name}")
    proposal = session.proposal_match(first, players[joiner[0]])
    orders = orders_of(proposal, joiner[2], 1)
    path, _ = session.join_game(send(first), dirs[joiner[0]], players[joiner[0]], orders)
    received = session.receive(dirs[proposer[0]], [send(path)], players[proposer[0]])
    count, match = 2, received.match
    shown = len(match.replay.events)  # each recipient's event list extends the last one's
    progress(f"{joiner[0]} ({joiner[2]}) joins: {path.name}" + describe(match, [e for _, e in match.replay.events]))
    while not match.closed:
        if count >= MAX_MESSAGES:
            raise RuntimeError(f"the {game} demo did not end in {MAX_MESSAGES} messages")
        seq = len(match.transcript)
        side = match.transcript.side_of(seq)
        author = names[side]
        orders = orders_of(match, side, seq)  # the author received the last message: this is its copy
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
    return GameDemoReport(directory, game, count, reports[0], agree, final)


# ----------------------------------------------------------------- Calumpit Bridge


#: events of every turn, counted in the progress lines but not printed
ROUTINE = ("DIRECT FIRE", "INDIRECT FIRE", "SAVING THROWS", "HAND-GRENADES", "HAND-TO-HAND", "TANK FIRE ACTIONS",
           "MOVEMENT", "MORALE", "SEQUENCE", "AMMO", "VISIBILITY/SPOTTING")


def _calumpit_events(match: session.Match, events: list[Any]) -> str:
    """Progress: the turn, how many events (fire, morale, ...), and the cards,
    the Joker's demolition and the victory conditions (a turn with no card
    says nothing)."""
    from pbem.games.calumpit.events import ROUTINE as NO_CARD

    lines = [f": turn {match.replay.state.turn}, {len(events)} event(s)"]
    for event in events:
        if event.rule not in ROUTINE and not event.text.endswith(NO_CARD):
            text = event.sentence()
            lines.append(f"\n  {text if len(text) <= 160 else text[:157] + '...'}")
    return "".join(lines)


def run_calumpit_demo(directory: Path, progress: Callable[[str], Any] = lambda _: None,
                      last_turn: int = 8) -> GameDemoReport:
    """A whole game of Calumpit Bridge by email: Amy commands the Americans,
    Ken is the Japanese player and umpire, both played by
    :class:`pbem.games.calumpit.bot.CalumpitBot`.  The dice differ from run
    to run, so the orders are made for the position each message finds.
    The game ends by the victory conditions: Ken reports the Japanese at the
    bridge once no American rifle unit stands; Amy ends the game (``end``)
    when the Japanese force is destroyed or all retreating, or after turn
    ``last_turn``.  Then both closing messages, and --audit."""
    from pbem import games
    from pbem.games.calumpit.bot import CalumpitBot

    bot = CalumpitBot(games.get("calumpit"), last_turn=last_turn)

    def orders_for(match: session.Match, side: str, seq: int) -> tuple[dict[str, Any], None]:
        if seq == 1:
            return bot.join_orders(), None
        return bot.play(match), None

    report = _play_by_email(directory, "calumpit", ("amy", "Amy (American, demo)", "american"),
                            ("ken", "Ken (Japanese and umpire, demo)", "japanese"), orders_for, progress,
                            _calumpit_events)
    progress(report.final.replay.state.verdict or "the game is over")
    return report


# ----------------------------------------------------------------- ASL

#: examples/asl/1-allied-setup.toml ... 7-allied-closing.toml (tests/test_demos.py
#: checks that they say the same): (side, orders file)
ASL_SCRIPT: list[tuple[str, str]] = [
    ("allied", '''# Message 1 (allied, joins the game with it): the Chinese setup.  8.5.2: of
# the 11 eligible squads, 2 are Dare-Death -- sealed, one designation each.
[[order]]
type = "setup"
nationality = "chinese"
squads = { A = "3-3-7", B = "3-3-7", C = "3-3-7", D = "3-3-7", E = "4-4-7", F = "3-3-7", G = "3-3-7", H = "3-3-7", I = "3-3-6", K = "3-3-6", M = "4-4-7", L = "5-3-7", N = "5-3-7" }
dare_death = ["A", "C"]
'''),
    ("axis", '''# Message 2 (axis): the Japanese side declares its nationality.
[[order]]
type = "setup"
nationality = "japanese"
'''),
    ("allied", '''# Message 3 (allied): squad A goes Berserk against the 4-4-8; pbem checks 8.5.2
# against the position and reveals A's sealed designation in this message.
[position]
nationality = "chinese"
phase = "MPh"
los = [["Z0", "X2"], ["Z1", "X2"], ["Z2", "X2"], ["AA2", "X2"], ["X3", "X2"]]
no_los = [["AA1", "X2"]]
unit = [
  { id = "A", type = "3-3-7", hex = "Z0", markers = ["CX"] },
  { id = "8-0", type = "8-0", hex = "Z0" },
  { id = "B", type = "3-3-7", hex = "Z1", markers = ["Prep Fire"] },
  { id = "C", type = "3-3-7", hex = "Z2" },
  { id = "7-0", type = "7-0", hex = "AA2", markers = ["Prep Fire"] },
  { id = "D", type = "3-3-7", hex = "AA1" },
  { id = "E", type = "4-4-7", hex = "X3" },
  { id = "J", type = "4-4-8", hex = "X2", enemy = true },
]
entry_cost = { default = 1, X1 = 2, Z1 = 2 }

[[order]]
type = "berserk"
units = ["A"]
target = "J"
'''),
    ("axis", '''# Message 4 (axis): the 4-4-8 First Fires at squad A entering Y1 -- 4 FP, -2 DRM.
[[order]]
type = "DR"
purpose = "First Fire on A in Y1: 4 FP IFT"
drm = -2
'''),
    ("allied", '''# Message 5 (allied): Berserk A takes the 1MC; then an ambush dr.
[[order]]
type = "DR"
purpose = "1MC for Berserk A (Morale Level 10)"
drm = 1

[[order]]
type = "dr"
purpose = "ambush: Chinese +3 (+1 ATTACKER in jungle, +2 Berserk)"
drm = 3
'''),
    ("axis", '''# Message 6 (axis): the players stop here; the reply closes the game.
[[order]]
type = "end"
'''),
    ("allied", '''# Message 7 (allied): the closing message; it carries no orders.
'''),
]


def _asl_events(match: session.Match, events: list[Any]) -> str:
    return "".join(f"\n  {e.sentence()}" for e in events)


def run_asl_demo(directory: Path, progress: Callable[[str], Any] = lambda _: None) -> GameDemoReport:
    """The ASL game of examples/asl/ by email between two fresh identities:
    Sato (axis, Japanese) proposes, Wei (allied, Chinese) joins with the
    Chinese setup and its sealed Dare-Death designations; A goes Berserk
    (its designation revealed), the 4-4-8 First Fires, A takes its 1MC, the
    game ends.  None of the orders depends on a die.  --audit then checks
    every designation against 8.5.2."""
    from pbem.util import tomlfile

    script = {seq: (side, text) for seq, (side, text) in enumerate(ASL_SCRIPT, 1)}

    def orders_for(match: session.Match, side: str, seq: int) -> tuple[dict[str, Any], str]:
        want, text = script[seq]
        if want != side:
            raise AssertionError(f"ASL demo: message {seq:04d} is {side}'s, the script has it {want}'s")
        return tomlfile.parse(text.encode(), f"ASL demo message {seq:04d}")[1], text

    return _play_by_email(directory, "asl", ("sato", "Sato (axis, Japanese, demo)", "axis"),
                          ("wei", "Wei (allied, Chinese, demo)", "allied"), orders_for, progress, _asl_events)
