"""Solo play: one person at the terminal against the house.

The game is an ordinary two-key game: the player's own key plays one side,
a *house key* kept in ``DIR/house/`` plays the other, each side keeps its
own copy of the game (``DIR/game/mine``, the player's; ``DIR/game/house``,
the house's) and every message goes through :mod:`pbem.match.session`
exactly as by email, so a solo game is just as verifiable (a reload cannot
change a roll).  The Japanese side always proposes (message 0).

``--as japanese`` / ``--as allied``: the house plays the other side with
:class:`~pbem.games.ambon.bot.HouseBot`, from that side's copy only: the
position its own pbem replays (which holds no sealed value of the
player's) and its own sealed store.  ``--both``: the player gives both
sides' orders, and the Allied hidden facts are the house's: the player
places the concealed pieces and the mine markers, the house decides -- from
its own secret, by a fair shuffle -- which are dummies and which mines are
real, and reveals them only when the rules demand; the player is shown the
spectator's view of the Allied side.

Each side's orders are checked against that side's own copy: the dice the
other side's last message called for are rolled there (with the value its
reply publishes), so the phases they open are the ones the orders meet.

Orders are typed as short lines (``help`` lists them), each tried on the
position at once and answered with what it does (the path and MP left of a
move, the odds of an attack with every halving named); a refused line is
explained and nothing is kept of it.  An empty line asks before the message
is signed.  A message of the player's that decides nothing (every question
answered by a standing instruction: it only keys the dice and makes the
reveals the rules demand) is sent without asking, as ``pbem watch`` does.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable

from pbem.engine import contract, registry
from pbem.engine.machine import DecisionDue, Opened, Ordered, RevealDue, describe_awaited
from pbem.errors import PbemError, UsageError
from pbem.games.ambon import battle, combat
from pbem.games.ambon.bot import DEFAULT_LEVEL, LEVELS, HouseBot
from pbem.games.ambon.order import typed, typed_help
from pbem.games.ambon.sequence import SPEC, following, phasing_side, title
from pbem.games.ambon.state import CombatStage
from pbem.match import session
from pbem.protocol.dice import DiceStream
from pbem.protocol.keystore import Keystore
from pbem.util.atomicfile import replace as write_whole

HELP = ("orders, one per line (an empty line or 'done' ends the message; you are asked before it is signed):\n"
        + typed_help())  # each kind's typed lines (pbem.games.ambon.order)

#: the solo loop's own commands, besides the orders of :data:`HELP`
SOLO_COMMANDS = """\
  show                                 the board as your orders so far leave it
  list                                 the orders typed so far in this message
  undo                                 take back the last order typed
  quit                                 stop here (nothing of this message is written); run the same command to resume
"""

def parse_line(line: str) -> dict[str, Any] | tuple[str, Any] | None:
    """One typed line -> the ``[[order]]`` table a file would hold for it
    (or a ``[standing]`` entry, ``("standing", (name, value))``), made by
    the verb's own kind (:func:`pbem.games.ambon.order.typed`): the table
    is then parsed as a file's is, by the same kind, with the same errors."""
    return typed(line)


def prompt_orders(match: session.Match, ask: Callable[[str], str], say: Callable[[str], None]) -> dict[str, Any] | None:
    """``pbem play DIR`` without ``--orders``, for Ambon: typed lines (see
    HELP), each checked on the position and its consequence shown; at the end
    the whole message is shown and confirmed.  None: the player gave up."""
    me = match.me  # pbem play loads the match with the player's key
    game, side = match.game, me.side
    state, seq = match.replay.state, len(match.transcript)
    waiting = [describe_awaited(a) for a in game.awaiting(state) if getattr(a, "side", side) == side]
    say(f"message {seq:04d}, {side}, {state.phase}" + (f"; awaited from you: {', '.join(waiting)}" if waiting else ""))
    doc: dict[str, Any] = {"order": []}
    while True:
        line = ask(f"{side}> ").strip()
        if line in ("", "done"):
            break
        if line == "help":
            say(HELP)
            continue
        if line == "quit":
            return None
        try:
            parsed = parse_line(line)
            trial: dict[str, Any] = {"order": list(doc["order"]), **({"standing": dict(doc["standing"])} if doc.get("standing") else {})}
            if isinstance(parsed, tuple):
                trial.setdefault("standing", {})[parsed[1][0]] = parsed[1][1]
            else:
                trial["order"].append(parsed)
            trial = dict(session.drawn(match, trial))  # shuffle = true drawn now, once: what is shown is what is sent
            events = []
            after = state
            for i, order in enumerate(game.parse_orders(trial, side).public):
                after, new = game.apply(after, Ordered(side, seq, i, order))
                after, made = own_reveals(game, after, side, seq, me.store)
                events = new + made
        except PbemError as err:
            say(f"not accepted: {err}")
            continue
        doc = trial
        for event in events:
            say(f"  -> {event.sentence()}")
    say(f"{len(doc['order'])} order(s)" + (f", standing: {doc['standing']}" if doc.get("standing") else ""))
    for slot, text in game.parse_orders(doc, side).seals.items():  # what the message seals, before it is sent
        say(f"  sealed in slot {slot!r} (only you see this): {text}")
    if ask("send this message? [Y/n] ").strip().lower() in ("n", "no"):
        return None
    return doc


def own_reveals(game: Any, state: Any, side: str, seq: int, store: Any) -> tuple[Any, list[Any]]:
    """The reveals the rules now demand of ``side`` made from its sealed
    values, as its client makes them in the message (7.2, 8.0: a concealed
    unit moved into an EZOC), so that the orders after it are checked as
    ``pbem play`` will apply them."""
    events: list[Any] = []
    for due in game.awaiting(state):
        if isinstance(due, RevealDue) and due.side == side and due.slot in store:
            state, more = game.apply(state, Opened(side, due.slot, store[due.slot], seq))
            events += more
    return state, events


SETTINGS = "solo.json"
#: --as: the side the player's key plays; "both": the player types both sides' orders
MODES = ("japanese", "allied", "both")
PROPOSER = "japanese"  # message 0 is the Japanese side's, whoever plays it


def _other(side: str) -> str:
    return "allied" if side == "japanese" else "japanese"


def _unchecked(error: PbemError) -> bool:
    """Whether ``error`` refuses the orders *as a whole* only because they are
    not finished yet (4.1's counts of dummies and mines, 14.2's note): a
    line-by-line check lets them pass until the message is sent."""
    return bool(getattr(error, "whole", False))


@dataclass
class Solo:
    """A solo game of Ambon in ``directory`` for the player ``identity``.

    ``side``: ``japanese`` or ``allied`` (the house plays the other with
    :class:`~pbem.games.ambon.bot.HouseBot` at ``level``), ``both`` (the
    player types both sides' orders), or None: as the game in ``directory``
    remembers (``DIR/solo.json``).  ``options``, ``rulings``, ``preset``: a
    new game's optional rules and readings, as ``pbem new`` takes them.
    ``show(game, view, you)`` draws a board; ``bot``: the house's player
    class (``HouseBot``'s interface)."""

    directory: Path
    identity: Any
    ask: Callable[[str], str]
    say: Callable[[str], None]
    show: Callable[..., None]
    side: str | None = None
    level: int | None = None
    options: dict[str, Any] = field(default_factory=dict)
    rulings: dict[str, str] = field(default_factory=dict)
    preset: str | None = None
    bot: Any = None
    house: Any = None
    game_name: str = "ambon"
    log: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.directory = Path(self.directory)
        self.house = Keystore(self.directory / "house").load_or_create("pbem house")
        self.games = self.directory / "game"
        self.mine_dir, self.house_dir = self.games / "mine", self.games / "house"
        self._bot: Any = None
        self._shown = ""  # the board last drawn (its stacks, mines and eliminated units)
        self.seen = 0  # the first message whose events the player has not been shown

    # ------------------------------------------------------------------ who plays what

    @property
    def mode(self) -> str:
        return self.side or "both"

    @property
    def key_side(self) -> str:
        """The side the player's key plays (with --both: the Japanese; the house's key holds the Allied facts)."""
        return "allied" if self.mode == "allied" else "japanese"

    def typed(self, side: str) -> bool:
        """Whether the player gives ``side``'s orders."""
        return self.mode in ("both", side)

    def dir_of(self, side: str) -> Path:
        return self.mine_dir if side == self.key_side else self.house_dir

    def key_of(self, side: str) -> Any:
        return self.identity if side == self.key_side else self.house

    # ------------------------------------------------------------------ what the directory remembers

    def settle(self) -> None:
        """The side and level: as given for a new game (and remembered in
        ``DIR/solo.json``, written atomically), as remembered for a game
        that goes on -- a different one given is refused.  A directory of a
        solo game from before --as (no solo.json) is a --both game."""
        if self.level is not None and self.level not in LEVELS:
            raise UsageError(f"--level {self.level}: give one of "
                             + ", ".join(f"{n} ({name})" for n, name in LEVELS.items()), field="level")
        if self.side is not None and self.side not in MODES:
            raise UsageError(f"--as {self.side!r}: give japanese or allied (or --both)", field="as")
        path = self.directory / SETTINGS
        remembered: dict[str, Any] | None = None
        if path.exists():
            try:
                remembered = json.loads(path.read_text("utf-8"))
                if remembered.get("as") not in MODES or remembered.get("level") not in LEVELS:
                    raise ValueError(remembered)
            except (ValueError, OSError, AttributeError) as err:
                raise UsageError(f"{path}: not a solo game's settings ({err}); it should read like "
                                 f'{{"as": "allied", "level": 2}}') from err
        elif any(self.games.glob("*/*.pbem")):
            remembered = {"as": "both", "level": DEFAULT_LEVEL}  # a solo game begun before --as
        if remembered is not None:
            if self.side is not None and self.side != remembered["as"]:
                was = "--both" if remembered["as"] == "both" else f"--as {remembered['as']}"
                raise UsageError(f"this solo game in {self.directory} is played {was}, not "
                                 f"{'--both' if self.side == 'both' else '--as ' + self.side}; run it {was} "
                                 f"(or without it), or start another game in a new directory", field="as")
            if self.level is not None and self.level != remembered["level"] and remembered["as"] != "both":
                raise UsageError(f"this solo game in {self.directory} is played at --level {remembered['level']}, "
                                 f"not {self.level}: the house keeps its level for the whole game (a new game in a "
                                 f"new directory may have another)", field="level")
            if (self.options or self.rulings or self.preset) and any(self.games.glob("*/0000-*.pbem")):
                raise UsageError("--rule, --ruling and --rulings choose a new game's rules; this game goes on "
                                 "with those its message 0 pinned (pbem show DIR/game/mine lists them)", field="rule")
            self.side, self.level = remembered["as"], remembered["level"]
            return
        if self.side is None:
            raise UsageError("a new solo game needs your side: --as japanese or --as allied (the house plays "
                             "the other), or --both (you give both sides' orders)", field="as")
        self.level = DEFAULT_LEVEL if self.level is None else self.level
        text = json.dumps({"as": self.side, "level": self.level}, sort_keys=True) + "\n"
        write_whole(path, text.encode(), mode=0o600, parents=True)

    # ------------------------------------------------------------------ identities the house decides (--both)

    def house_identities(self, game_id: str) -> dict[str, str]:
        """4.1: which concealed pieces are dummies and which mines are real:
        a Fisher-Yates shuffle keyed by the house's per-game secret."""
        secret = session.game_secret(self.house, game_id, "allied")
        key = hmac.new(secret, b"pbem-solo-identities", hashlib.sha256).digest()
        data = registry.get("ambon").data
        pieces = ["dummy"] * data.identities["dummy"] + ["detachment"] * data.identities["detachment"]
        mines = ["real"] * data.mine_kinds["real"] + ["dummy"] * data.mine_kinds["dummy"]
        stream = DiceStream(key, "identities")
        stream.shuffle(pieces)
        stream.shuffle(mines)
        # as many identities as slots, and mine kinds as mine slots: AmbonData counts the slots from them
        return {**dict(zip(data.concealed_slots, pieces, strict=True)),
                **dict(zip(data.mine_slots, mines, strict=True))}

    def _house_orders(self, orders: dict[str, Any], game_id: str) -> dict[str, Any]:
        """--both: the identities the house decides added to the Allied setup typed."""
        if not any("conceal" in o or "mine" in o or o.get("setup") for o in orders.get("order", [])):
            return orders
        identities = self.house_identities(game_id)
        data = registry.get(self.game_name).data
        out = []
        for o in orders["order"]:
            o = dict(o)
            if o.get("setup") == "historical":  # the scenario's hexes, the house's identities (whatever was typed)
                o = {"setup": "historical",
                     "identities": {slot: identities[slot] for slot in data.concealed_slots},
                     "mines": {slot: identities[slot] for slot in data.mine_slots}}
            if "conceal" in o:
                o["is"] = identities.get(o["conceal"], "dummy")
            if "mine" in o:
                o["is"] = identities.get(o["mine"], "real")
            out.append(o)
        return {**orders, "order": out}

    # ------------------------------------------------------------------ the house's player

    def house_bot(self, game: Any, game_id: str) -> Any:
        """The house's player: seeded by the house's per-game secret, so a
        resumed game plays on as it would have."""
        if self._bot is None:
            side = _other(self.mode)
            secret = session.game_secret(self.house, game_id, side)
            seed = hmac.new(secret, b"pbem-solo-house-bot", hashlib.sha256).digest()
            assert self.level is not None, "settle() gives the level, and run() settles before the house plays"
            self._bot = (self.bot or HouseBot)(game, side, seed=seed, level=self.level)
        return self._bot

    def house_orders(self, match: session.Match) -> dict[str, Any]:
        """The house's orders for its next message, from its own copy: its
        position and its own sealed store, nothing of the player's."""
        if match.replay.over:
            return {}
        bot = self.house_bot(match.game, match.transcript.game)
        return bot.orders(match.replay.state, len(match.transcript), dict(match.me.store))

    # ------------------------------------------------------------------ the files

    def _files(self, where: Path) -> list[Path]:
        return sorted(where.glob("[0-9][0-9][0-9][0-9]-*.pbem")) if where.exists() else []

    def sync(self) -> None:
        """Each copy receives what the other holds and it does not (after a
        stop between writing a message and its delivery)."""
        mine, house = self._files(self.mine_dir), self._files(self.house_dir)
        if len(mine) > len(house) and house:
            session.receive(self.house_dir, mine[len(house):], self.house)
        elif len(house) > len(mine) and mine:
            session.receive(self.mine_dir, house[len(mine):], self.identity)

    def start(self) -> None:
        """Message 0 (the Japanese proposal) and message 1 (the Allied setup,
        which joins), unless written already."""
        if self._files(self.mine_dir) and self._files(self.house_dir):
            return  # resume from the files
        japanese = self.dir_of(PROPOSER)
        first = next(iter(self._files(japanese)), None)
        if first is None:  # (a game stopped before its first Allied message restarts from message 0)
            first = session.new_game(japanese, self.game_name, PROPOSER, self.key_of("allied").public,
                                     self.key_of(PROPOSER), options=self.options, rulings=self.rulings,
                                     preset=self.preset)
            if self.mode != "japanese":
                self.say(f"a new solo game in {self.directory}: " + (
                    "you give both sides' orders; the house keeps the Allied hidden facts" if self.mode == "both"
                    else f"you play the Allies; the house plays the Japanese (level {self.level})"))
            else:
                self.say(f"a new solo game in {self.directory}: you play the Japanese; the house plays the Allies "
                         f"(level {self.level})")
        allied = self.dir_of("allied")
        joiner = self.key_of("allied")
        proposal = session.proposal_match(first, joiner)
        game_id = proposal.transcript.game

        def join(orders: dict[str, Any]) -> Path:
            path, _ = session.join_game(first, allied, joiner,
                                        self._house_orders(orders, game_id) if self.mode == "both" else orders)
            return path

        if self.typed("allied"):
            path = self.ask_orders("allied", proposal, send=join, hidden=self.mode == "both",
                                   decisions=("the Allied setup (4.1)",))
            if path is None:
                raise SystemExit(0)
        else:
            path = join(self.house_orders(proposal))
        session.receive(japanese, [path], self.key_of(PROPOSER))
        self._remember_seen(2 if self.typed("allied") else 1)

    # ------------------------------------------------------------------ the loop

    def run(self) -> session.Match:
        self.settle()
        self.seen = self._settings().get("seen", 0)
        self.start()
        while True:
            self.sync()
            mine = session.load(self.mine_dir, self.identity)
            if mine.closed:
                self.what_happened(mine, self.key_side)
                self.draw(mine.game, mine.view(), self.key_side)
                for line in mine.game.result(mine.replay.state):
                    self.say(line)
                self.say(f"the game is over; check it: pbem verify {self.mine_dir} --audit")
                return mine
            seq = len(mine.transcript)
            side = mine.transcript.side_of(seq)
            # each side's orders are checked against its own copy: the one that holds the dice the
            # other side's last message called for, rolled with the value this message publishes
            match = mine if side == self.key_side else session.load(self.house_dir, self.house)
            if not self.typed(side):
                path = self._play_house(side, self.house_orders(match), match).path
            else:
                state = match.replay.state
                open_ = contract.decisions_for(match.game, state, side,
                                               closing=match.replay.over or contract.is_ending(match.game, state))
                if not open_:
                    path = session.play(self.dir_of(side), self.key_of(side), {}).path
                    self.say(f"message {seq:04d} ({side}): "
                             + ("your closing message (the game is over)" if match.replay.over else
                                "nothing for you to decide (the rules and your standing instructions answer "
                                "everything): it only keys the dice")
                             + "; written and sent")
                else:
                    hidden = self.mode == "both" and side == "allied"
                    self.draw(match.game, match.game.view(state, None if hidden else side,
                                                          None if hidden else match.me.store), side)
                    self.what_happened(match, side)  # after the board: the last thing read before the prompt

                    def send(orders: dict[str, Any], side: str = side) -> Path:
                        return session.play(self.dir_of(side), self.key_of(side), orders).path

                    path = self.ask_orders(side, match, send=send,
                                           hidden=self.mode == "both" and side == "allied", decisions=open_)
                    if path is None:
                        raise SystemExit(0)
                    self._remember_seen(seq + 1)
            session.receive(self.dir_of(_other(side)), [path], self.key_of(_other(side)))

    def _play_house(self, side: str, orders: dict[str, Any], match: session.Match) -> session.PlayResult:
        try:
            return session.play(self.house_dir, self.house, orders)
        except PbemError as err:  # the house's player erred: it passes, and says so
            self.say(f"the house's {side} orders were refused ({err}); the house sends message "
                     f"{len(match.transcript):04d} without orders")
            return session.play(self.house_dir, self.house, {})

    def _settings(self) -> dict[str, Any]:
        path = self.directory / SETTINGS
        try:
            return json.loads(path.read_text("utf-8")) if path.exists() else {}
        except (ValueError, OSError):
            return {}

    def _remember_seen(self, seen: int) -> None:
        """The first message whose events the player has not been shown, kept
        for a resumed game (``DIR/solo.json``, written atomically)."""
        self.seen = seen
        settings = {**self._settings(), "as": self.mode, "level": self.level, "seen": seen}
        write_whole(self.directory / SETTINGS, (json.dumps(settings, sort_keys=True) + "\n").encode(), mode=0o600)

    # ------------------------------------------------------------------ what the player sees

    def draw(self, game: Any, view: dict[str, Any], side: str, *, force: bool = False) -> None:
        """The board, when it changed since it was last drawn (or ``force``: asked for)."""
        shown = json.dumps([view.get(k) for k in ("stacks", "mines", "eliminated", "turn")], sort_keys=True, default=str)
        if force or shown != self._shown:
            self.show(game, view, side)
            self._shown = shown

    def what_happened(self, match: session.Match, side: str) -> None:
        """Every event since the player last saw: the house's message (its
        landings, bombardments, combats, reveals) and the dice it called for,
        rolled on its arrival."""
        count = len(match.transcript)
        events = [(seq, e) for seq, e in match.replay.events if seq >= self.seen]
        if not events:
            return
        self.say(f"what happened since message {max(self.seen - 1, 0):04d}:")
        last = None
        for seq, event in events:
            if seq != last:
                if seq < count:
                    author = match.transcript.side_of(seq)
                    who = "the house" if not self.typed(author) else "you" if self.mode != "both" else author
                    self.say(f" message {seq:04d} ({author}, {who}):")
                else:
                    self.say(f" the dice message {seq - 1:04d} called for, rolled as it arrived:")
                last = seq
            self.say(f"   {event.sentence()}")

    def header(self, match: session.Match, side: str, decisions: Any) -> None:
        state = match.replay.state
        spec = SPEC.get(state.phase)
        phase = f"{spec.title} ({spec.rule})" if spec else str(state.phase)
        when = f"turn {state.turn}, " if spec is None or spec.in_turn else ""
        you = "you give both sides' orders" if self.mode == "both" else f"you play the {'Allies' if side == 'allied' else 'Japanese'}"
        self.say(f"== message {len(match.transcript):04d}: {side.capitalize()} to write -- {when}{phase} -- {you}")
        if decisions:
            self.say("   to decide: " + "; ".join(decisions))
        after = following(match.game.data, state.turn, state.phase) if spec is not None and spec.side not in (
            side, None) else None
        if spec is not None and after is not None and phasing_side(after[1]) == side and after[0] == state.turn:
            self.say(f"   then your {title(after[1])}: its orders may follow in this message, once the rest of "
                     f"the {spec.title} is settled, or wait for your next")
        self.say("   orders one a line ('help' lists them); an empty line ends the message")

    # ------------------------------------------------------------------ one message's orders

    def ask_orders(self, side: str, match: session.Match, *, send: Callable[[dict[str, Any]], Any],
                   hidden: bool = False, decisions: Any = ()) -> Any:
        """Ask for one message's orders of ``side`` on ``match`` (that side's
        own copy), each line tried on the position and answered with its
        effect; an empty line asks, then ``send(orders)`` writes the message
        (a refusal is shown and the orders can be mended).  ``hidden``:
        --both's Allied side, whose identities the house decides (and the
        player does not see).  Returns what ``send`` returned, or None when
        the player quits."""
        game, state, seq = match.game, match.replay.state, len(match.transcript)
        store = dict(match.me.store)
        self.draw(game, game.view(state, None if hidden else side, None if hidden else store), side)
        self.header(match, side, decisions)
        lines: list[str] = []
        docs: list[dict[str, Any]] = [{"order": []}]
        tried: list[tuple[Any, list[Any]]] = [(state, [])]
        odds: dict[str, str] = {}
        while True:
            line = self.ask(f"{side}> ").strip()
            doc = docs[-1]
            if line in ("", "done"):
                if not self._confirm(game, side, seq, doc, lines, hidden, tried[-1][0]):
                    self.say("not sent: go on with the orders (undo takes back the last one, quit stops)")
                    continue
                try:
                    return send(doc)
                except PbemError as err:
                    self.say(f"not sent: {err}")
                    continue
            if line in ("help", "?"):
                self.say(HELP + SOLO_COMMANDS)
                continue
            if line == "show":
                after = tried[-1][0]
                self.draw(game, game.view(after, None if hidden else side, None if hidden else store), side, force=True)
                continue
            if line == "list":
                self.say("\n".join(f"  {i + 1}. {text}" for i, text in enumerate(lines)) if lines
                         else "  no orders yet")
                continue
            if line == "undo":
                if not lines:
                    self.say("nothing to take back")
                    continue
                self.say(f"taken back: {lines.pop()}")
                docs.pop()
                tried.pop()
                odds = {}
                continue
            if line == "quit":
                return None
            try:
                trial = self._with_line(match, doc, line, hidden)
                after, events = self._try(game, state, seq, side,
                                          self._house_orders(trial, match.transcript.game) if hidden else trial, store)
            except PbemError as err:
                self.say(f"not accepted: {err}")
                continue
            before = tried[-1]
            new = _new_events(before[1], events)
            lines.append(line)
            docs.append(trial)
            tried.append((after, events))
            self._effects(game, side, line, state, before[0], after, new, odds, hidden)

    def _with_line(self, match: session.Match, doc: dict[str, Any], line: str, hidden: bool) -> dict[str, Any]:
        """``doc`` with the order (or standing instruction) ``line`` says; its draws made (4.1's shuffle)."""
        parsed = parse_line(line)
        trial: dict[str, Any] = {"order": list(doc["order"])}
        if doc.get("standing"):
            trial["standing"] = dict(doc["standing"])
        if isinstance(parsed, tuple):
            key, value = parsed[1]
            trial.setdefault("standing", {})[key] = value
            return trial
        if parsed is None:  # a blank line (ask_orders takes one as the end of the message)
            raise UsageError("no order on this line; type 'help'")
        if not hidden:
            for verb, place, kinds in (("conceal", "hex", "dummy or detachment"), ("mine", "box", "real or dummy")):
                if verb in parsed and place in parsed and "is" not in parsed:  # (what a file's error names: is)
                    raise UsageError(f"4.1: {verb} {parsed[verb]} {parsed[place]}: say what "
                                     f"it is, {kinds} (it is sealed: only you see it): "
                                     f"{verb} {parsed[verb]} {parsed[place]} "
                                     f"{kinds.split()[0]}", field="is")
            if parsed.get("setup") == "historical" and match.me.side == "allied" and not (
                    parsed.get("shuffle") or parsed.get("identities") or parsed.get("mines")):
                raise UsageError("4.1: the Allied identities are yours to choose: 'setup historical shuffle' (your "
                                 "pbem draws them) or 'setup historical X1=dummy ... M1=real ...' (you give them)",
                                 field="identities")
        trial["order"].append(parsed)
        return dict(session.drawn(match, trial))  # shuffle drawn now, once: what is shown is what is sent

    @staticmethod
    def _try(game: Any, state: Any, seq: int, side: str, orders: dict[str, Any], store: Any) -> tuple[Any, list[Any]]:
        """The orders tried on the position (nothing is written), the reveals
        they demand made from ``store`` (and the values they seal) as the
        side's client will: the state after them and their events."""
        parsed = game.parse_orders(orders, side)
        own = {**dict(store or {}), **parsed.seals}
        state, events = own_reveals(game, state, side, seq, own)
        for i, order in enumerate(parsed.public):
            state, new = game.apply(state, Ordered(side, seq, i, order))
            events += new
            state, made = own_reveals(game, state, side, seq, own)
            events += made
        return state, events

    def _effects(self, game: Any, side: str, line: str, start: Any, before: Any, after: Any, events: list[Any],
                 odds: dict[str, str], hidden: bool) -> None:
        """What one order did: its events (a move's path and MP left, a
        landing's die due...), the odds of every attack declared so far
        that it changed, what the rules penalise (9.0's stacking)."""
        for event in events:
            self.say(f"  -> {event.sentence()}")
        for target, text in attack_odds(game, after, side).items():
            if odds.get(target) != text:
                self.say(f"  -> {text}")
                odds[target] = text
        warned = set(game.warnings(start, before, side)) if hasattr(game, "warnings") else set()
        for warning in (game.warnings(start, after, side) if hasattr(game, "warnings") else ()):
            if warning not in warned:
                self.say(f"  !! {warning}")
        if not events:
            self.say(f"  -> {_placed(before, after)}")

    def _confirm(self, game: Any, side: str, seq: int, doc: dict[str, Any], lines: list[str], hidden: bool,
                 after: Any = None) -> bool:
        """The message in brief, what it leaves undecided, then: send it? [Y/n]"""
        count = len(doc["order"])
        what = f"{count} order{'' if count == 1 else 's'}" if count else "no orders"
        if doc.get("standing"):
            what += ", standing: " + ", ".join(f"{k}={v}" for k, v in doc["standing"].items())
        self.say(f"message {seq:04d} ({side}): {what}")
        for i, text in enumerate(lines):
            self.say(f"  {i + 1}. {text}")
        if not hidden:
            try:
                seals = game.parse_orders(doc, side).seals
            except PbemError:
                seals = {}
            if seals:
                self.say("  sealed (only you see it until the rules reveal it): "
                         + " ".join(f"{slot}={text}" if " " not in text else f"{slot}={text!r}"
                                    for slot, text in seals.items()))
        if after is not None:
            open_ = [describe_awaited(d) for d in game.awaiting(after) if isinstance(d, DecisionDue) and d.side == side]
            if open_:
                self.say("  still yours to decide (the game waits for it; nothing decides it for you): "
                         + "; ".join(open_))
        answer = self.ask("send this message? [Y/n] ").strip().lower()
        return answer not in ("n", "no")


def _placed(before: Any, after: Any) -> str:
    """What an order without events did: the pieces and markers it set up (4.1, 4.2, 14.2)."""
    moved = [p for p in after.pieces if before.has_piece(p.id) and before.piece(p.id).where != p.where]
    mines = [m for m in after.mines if m.box != before.mine(m.id).box]
    if not moved and not mines:
        return "accepted; nothing on the map changes yet"
    if len(moved) + len(mines) > 4:
        said = f"{len(moved)} units" + (f" and {len(mines)} mine markers" if mines else "") + " set up"
        off = sum(1 for p in moved if not p.on_map)
        return said + (f" ({off} of them in boxes off the map)" if off else "") + "; 'show' draws the board"
    return "set up: " + ", ".join([f"{p.id} in {p.where}" for p in moved] + [f"{m.id} in {m.box}" for m in mines])


def _new_events(before: list[Any], after: list[Any]) -> list[Any]:
    """The events of ``after`` that ``before`` did not have (a standing
    instruction goes first in a message: the order of the others may shift)."""
    seen = Counter(e.sentence() for e in before)
    out = []
    for event in after:
        if seen[event.sentence()]:
            seen[event.sentence()] -= 1
        else:
            out.append(event)
    return out


def attack_odds(game: Any, state: Any, side: str) -> dict[str, str]:
    """11.0-11.2: the odds each attack ``side`` has declared would get in
    ``state``, every halving and shift named: target hex -> a sentence.
    (A defending HQ's support, 11.1, and the bombardments still due may
    change them before the die.)"""
    data = game.data
    out: dict[str, str] = {}
    for b in state.battles:
        if b.side != side or b.stage is not CombatStage.DECLARED:
            continue
        defenders = [p for p in state.at(b.target) if p.side != side]
        attackers = [state.piece(u) for u in b.attackers if state.piece(u).on_map]
        if not defenders or not attackers:
            continue
        terms = battle.attack_terms(data, state, b)
        attack = sum((t.counted for t in terms), Fraction(0))
        try:
            odds = combat.odds(data, state, attack, defenders, b.target, across=[p.where for p in attackers],
                               hq={"attacker": bool(b.attacker_hq)})
        except PbemError as err:
            out[b.target] = f"[11.0] odds at {b.target}: {err}"
            continue
        text = f"[11.0] odds at {b.target}: {odds.column}"
        if odds.shifts:
            text += f", read on the {odds.final} column (" + ", ".join(f"{v:+d} {why}" for why, v in odds.shifts) + ")"
        text += "; DRM " + (", ".join(f"{v:+d} {why}" for why, v in odds.drms) if odds.drms else "none so far")
        text += (f"; attack {combat.counted(terms)}; defence "
                 f"{combat.counted(combat.defence_terms(data, state, defenders))}")
        halved = [n for t in terms for n in t.why]
        if halved:
            text += "; " + "; ".join(halved)
        if any(p.concealed for p in defenders):
            text += "; a concealed piece counts as a detachment until revealed"
        out[b.target] = text
    return out
