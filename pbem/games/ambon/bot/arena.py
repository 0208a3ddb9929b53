"""Whole games of Ambon between two players, through the real protocol.

Each side has a keystore and a game directory of its own; every message is
written by :func:`pbem.match.session.play` on one side and taken in by
:func:`pbem.match.session.receive` on the other, as by email.  A player is
any object with ``orders(state, seq, own) -> dict`` (the interface of
:class:`~pbem.games.ambon.bot.house.HouseBot`): it is given its own copy of
the position and its own sealed values, nothing else.  Everything is a
function of the seed: the keys are fixed, and the protocol's randomness
(the game id, the joiner's fresh bytes) is drawn from the seed.

Used by the bot benchmark (``benchmarks/run.py --only bot``) and the bot's
whole-game test, which pass in the protocol's session module
(:mod:`pbem.match.session`): a game's package does not import the match
layer above it.
"""

from __future__ import annotations

import contextlib
import hashlib
import random
import shutil
import time
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping

from pbem.games.ambon import victory
from pbem.games.ambon.bot.baseline import AmbonBot
from pbem.games.ambon.state import ALLIED, JAPANESE, SETUP_ALLIED
from pbem.protocol.keys import Identity
from pbem.protocol.keystore import Keystore

NAMES = {JAPANESE: ("kenji", "Kenji (Japanese, bot arena)"), ALLIED: ("jack", "Jack (Allied, bot arena)")}


class BaselinePlayer:
    """The simple bot (:class:`AmbonBot`, deterministic play) for one side,
    its Allied identities drawn from ``seed``."""

    def __init__(self, game: Any, side: str, *, seed: bytes):
        self.side = side
        self.bot = AmbonBot(game)
        self.bot.setup_rng = random.Random(hashlib.sha256(b"baseline setup\x00" + seed).digest())

    def orders(self, state: Any, seq: int, own: Mapping[str, str]) -> dict[str, Any]:
        return self.bot.orders(state, self.side, seq)


class PassPlayer:
    """Sets up as the scenario says (identities from ``seed``), then gives no
    orders at all: every question is left to the rules' defaults."""

    def __init__(self, game: Any, side: str, *, seed: bytes):
        self.side = side
        self.setup = BaselinePlayer(game, side, seed=seed)

    def orders(self, state: Any, seq: int, own: Mapping[str, str]) -> dict[str, Any]:
        if state.phase == SETUP_ALLIED or (state.phase == "setup-japanese" and self.side == JAPANESE):
            return self.setup.orders(state, seq, own)
        return {"order": []}


def fixed_keys(root: Path, players: Mapping[str, tuple[str, str]] = NAMES,
               label: str = "pbem ambon bot arena") -> dict[str, Any]:
    """side -> identity: each player (side -> (name, full name)) with a
    keystore of its own, ``root/NAME/keystore`` (what PBEM_HOME would point
    at), its key fixed by ``label`` and the name so that every game
    reproduces from its seed."""
    found = {}
    for side, (name, full) in players.items():
        store = Keystore(root / name / "keystore")
        if not store.exists():
            key = root / f"{name}.key"
            key.parent.mkdir(parents=True, exist_ok=True)
            secret = hashlib.sha256(f"{label}: {name}".encode()).digest()
            key.write_bytes(Identity.from_seed(secret, full).to_openssh_private())
            store.import_key(key, None, name=full)
            key.unlink()
        found[side] = store.load(lambda: None)
    return found


@contextlib.contextmanager
def seeded_protocol(session: Any, seed: int, label: str = "arena protocol") -> Iterator[None]:
    """The protocol's own randomness -- the game id of message 0 and the
    joiner's fresh bytes of message 1 (``session._random``) -- drawn from
    ``seed``, so that the game and its dice are the same on every run.
    (Keys, chains, salts and dice derive from those and the keys.)"""
    rng = random.Random(f"{label} {seed}")
    fake = types.SimpleNamespace(token_hex=lambda n=32: rng.randbytes(n).hex(), token_bytes=lambda n=32: rng.randbytes(n))
    saved = session._random
    session._random = fake
    try:
        yield
    finally:
        session._random = saved


@dataclass
class Played:
    seed: int
    options: tuple[str, ...]
    vp: int = 0
    messages: int = 0
    turn: int = 0
    result: list[str] = field(default_factory=list)
    think: dict[str, list[float]] = field(default_factory=lambda: {JAPANESE: [], ALLIED: []})  # CPU s a message
    finished: bool = False


def play(game: Any, players: Mapping[str, Any], seed: int, root: Path, *, session: Any,
         options: tuple[str, ...] = (), max_messages: int = 400) -> Played:
    """One whole game of ``players`` (side -> player) in ``root/game-SEED``,
    through ``session`` (:mod:`pbem.match.session`)."""
    keys = fixed_keys(root)
    where = root / f"game-{seed}"
    if where.exists():
        shutil.rmtree(where)
    dirs = {side: where / NAMES[side][0] for side in (JAPANESE, ALLIED)}
    played = Played(seed, tuple(options))
    setup = {"rules": list(options)} if options else {}

    def ask(side: str, match: Any, seq: int) -> dict[str, Any]:
        own = dict(match.player.store) if match is not None and match.player is not None else {}
        start = time.process_time()
        orders = players[side].orders(match.replay.state, seq, own)
        played.think[side].append(time.process_time() - start)
        return orders

    with seeded_protocol(session, seed):
        first = session.new_game(dirs[JAPANESE], "ambon", JAPANESE, keys[ALLIED].public, keys[JAPANESE], options=setup)
        proposal = session.proposal_match(first, keys[ALLIED])
        path, _ = session.join_game(first, dirs[ALLIED], keys[ALLIED], ask(ALLIED, proposal, 1))
    matches = {ALLIED: session.load(dirs[ALLIED], keys[ALLIED])}
    matches[JAPANESE] = session.receive(dirs[JAPANESE], [path], keys[JAPANESE]).match
    match = matches[JAPANESE]
    while not match.closed and len(match.transcript) < max_messages:
        seq = len(match.transcript)
        side = match.transcript.side_of(seq)
        reader = ALLIED if side == JAPANESE else JAPANESE
        result = session.play(dirs[side], keys[side], ask(side, matches[side], seq))
        matches[side] = result.match
        matches[reader] = match = session.receive(dirs[reader], [result.path], keys[reader]).match
    state = match.replay.state
    played.messages, played.turn = len(match.transcript), int(state.turn)
    played.finished = match.closed
    played.result = game.result(state)
    played.vp = victory.victory_points(game.data, state)[0]
    shutil.rmtree(where, ignore_errors=True)
    return played
