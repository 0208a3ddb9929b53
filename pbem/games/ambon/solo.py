"""Solo play (DESIGN 4.5): one person at the terminal, the house keeping what
the rules hide.

The game is an ordinary two-key game in one directory: the player's own key
plays one side, a *house key* kept in ``DIR/house/`` plays the other, and
every message goes through :mod:`pbem.match.session` exactly as by email, so
a solo game is just as verifiable (a reload cannot change a roll).

For Ambon the player gives the orders of both sides, but the Allied hidden
facts are the house's: the player places the concealed pieces and the mine
markers, and the house decides -- from its own secret, by a fair shuffle --
which are dummies and which mines are real, and reveals them only when the
rules demand.  The player's view is the spectator's: it never shows them.

Orders are typed as short lines (``help`` lists them) and checked one by one
against the position; a rejected line is explained and asked again.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from pbem.errors import PbemError, UsageError
from pbem.match import session
from pbem.protocol.keystore import Keystore

HELP = """\
orders, one per line (Enter or 'done' sends the message):
  setup historical                     the scenario's setup (Japanese; in solo, Allied too: the house decides)
  setup historical shuffle             Allied: the scenario's hexes, the identities drawn by your pbem (4.1)
  setup historical X1=dummy ... M1=real ...   Allied: ... and the identities you choose (sealed)
  land fw-laha | postpone fw-liang     6.0
  move 3.A: 1410 1509 | move 3.A to 1509   7.0 (a path, or the cheapest one there)
  bombard 3.D NEI-2.B                  10.0
  attack 1609 with 3.A 3.B [hq 228-HQ] 11.0 / 11.1
  support NEI-HQ [1609] | support none 11.1 (the defender's HQ)
  advance 3.A 3.B [1609] | advance     11.4 (nothing: stay)
  losses NEI-2.B X2 [1609]             11.3 (your units, in the order they take the hits)
  retreat [hit] [to 1708 1607] [1609]  11.3 (retreat, or refuse an r with an extra hit; where to)
  place AUS-HQ 1215 | conceal X1 0713 | mine M1 mine-1     4.1 (the house seals the identities)
  wave fw-laha 3.A 3.B 3.C 3.D 228-HQ  4.2
  second_wave 1:hitu-lama 2:laha 3:laha   14.2 (the note is sealed)
  surrender yes|no                     3.2
  standing advance=always              standing instructions (hq-support, advance, retreat, retreat-to, losses, surrender)
  show                                 the board
  quit                                 stop here; run the same command to resume
"""


def parse_line(line: str) -> dict[str, Any] | tuple[str, Any] | None:
    """One typed line -> an order table (or a standing instruction)."""
    words = line.split()
    if not words:
        return None
    verb, rest = words[0], words[1:]

    def need(n: int) -> None:
        if len(rest) < n:
            raise UsageError(f"'{verb}' needs more: see 'help'")

    if verb == "setup":  # setup historical [shuffle] [X1=dummy ... M1=real ...]
        order: dict[str, Any] = {"setup": rest[0] if rest else "historical"}
        for word in rest[1:]:
            slot, eq, kind = word.partition("=")
            if word == "shuffle":
                order["shuffle"] = True
            elif eq and slot[:1] in ("X", "M"):
                order.setdefault("identities" if slot[:1] == "X" else "mines", {})[slot] = kind
            else:
                raise UsageError(f"setup: {word!r} is not 'shuffle' nor SLOT=IDENTITY (X1=dummy, M1=real)")
        return order
    if verb in ("land", "postpone"):
        need(1)
        return {verb: rest[0]}
    if verb == "move":
        need(2)
        if ":" in line or rest[1] == "to":  # move 3.A: 1410 1509 | move 3.A to 1509
            return {"move": " ".join(rest)}
        return {"move": f"{rest[0]}: {' '.join(rest[1:])}"}
    if verb == "bombard":
        need(2)
        return {"bombard": rest[0], "target": rest[1]}
    if verb == "attack":
        need(3)
        if "with" not in rest:
            raise UsageError("attack HEX with UNIT UNIT ... [hq HQ]")
        target, after = rest[0], rest[rest.index("with") + 1:]
        hq = ""
        if "hq" in after:
            hq = after[after.index("hq") + 1] if after.index("hq") + 1 < len(after) else ""
            after = after[: after.index("hq")]
        order = {"attack": target, "with": after}
        if hq:
            order["hq"] = hq
        return order
    if verb == "support":
        need(1)
        return {"support": rest[0], **({"target": rest[1]} if len(rest) > 1 else {})}
    if verb == "advance":
        hexes = [w for w in rest if w[:1].isdigit() and len(w) == 4]
        return {"advance": [w for w in rest if w not in hexes], **({"target": hexes[0]} if hexes else {})}
    if verb == "losses":  # losses NEI-2.B X2 [1609]
        need(1)
        hexes = [w for w in rest if w[:1].isdigit() and len(w) == 4]
        return {"losses": [w for w in rest if w not in hexes], **({"target": hexes[-1]} if hexes else {})}
    if verb == "retreat":  # retreat [hit] [to 1708 1607] [1609]
        answer = "hit" if rest[:1] == ["hit"] else "retreat"
        rest = rest[1:] if rest[:1] in (["hit"], ["retreat"]) else rest
        to = rest[rest.index("to") + 1:] if "to" in rest else []
        target = [w for w in rest[: rest.index("to")] if w[:1].isdigit()] if "to" in rest else rest
        return {"retreat": answer, **({"to": " ".join(to)} if to else {}), **({"target": target[0]} if target else {})}
    if verb == "place":
        need(2)
        return {"place": rest[0], "hex": rest[1]}
    if verb == "conceal":
        need(2)
        return {"conceal": rest[0], "hex": rest[1]}
    if verb == "mine":
        need(2)
        return {"mine": rest[0], "box": rest[1]}
    if verb == "second_wave":  # 14.2: second_wave 1:hitu-lama 2:laha 3:laha, the sealed note
        need(1)
        return {"second_wave": " ".join(rest)}
    if verb == "wave":
        need(2)
        return {"wave": rest[0], "units": rest[1:]}
    if verb == "surrender":
        need(1)
        return {"surrender": rest[0]}
    if verb == "standing":
        need(1)
        key, _, value = " ".join(rest).partition("=")
        return ("standing", (key.strip(), value.strip()))
    raise UsageError(f"unknown order {verb!r}; type 'help'")


def prompt_orders(match: session.Match, ask: Callable[[str], str], say: Callable[[str], str]) -> dict[str, Any] | None:
    """``pbem play DIR`` without ``--orders``, for Ambon: typed lines (see
    HELP), each checked on the position and its consequence shown; at the end
    the whole message is shown and confirmed.  None: the player gave up."""
    from pbem.engine.machine import Ordered, describe_awaited

    game, side = match.game, match.player.side
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
                after, made = own_reveals(game, after, side, seq, match.player.store)
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
    from pbem.engine.machine import Opened, RevealDue

    events: list[Any] = []
    for due in game.awaiting(state):
        if isinstance(due, RevealDue) and due.side == side and due.slot in store:
            state, more = game.apply(state, Opened(side, due.slot, store[due.slot], seq))
            events += more
    return state, events


@dataclass
class Solo:
    """A solo game of Ambon in ``directory`` for the player ``identity``."""

    directory: Path
    identity: Any
    ask: Callable[[str], str]
    say: Callable[[str], None]
    show: Callable[[session.Match], None]
    house: Any = None
    game_name: str = "ambon"
    log: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.house = Keystore(self.directory / "house").load_or_create("pbem house")
        self.games = self.directory / "game"

    # ------------------------------------------------------------------ identities the house decides

    def house_identities(self, game_id: str) -> dict[str, str]:
        """4.1: which concealed pieces are dummies and which mines are real:
        a Fisher-Yates shuffle keyed by the house's per-game secret."""
        from pbem import games
        from pbem.protocol.dice import DiceStream

        secret = session.game_secret(self.house, game_id, "allied")
        key = hmac.new(secret, b"pbem-solo-identities", hashlib.sha256).digest()
        data = games.get("ambon").data
        pieces = ["dummy"] * data.identities["dummy"] + ["detachment"] * data.identities["detachment"]
        mines = ["real"] * data.mine_kinds["real"] + ["dummy"] * data.mine_kinds["dummy"]
        stream = DiceStream(key, "identities")
        stream.shuffle(pieces)
        stream.shuffle(mines)
        return {**dict(zip(data.concealed_slots, pieces)), **dict(zip(data.mine_slots, mines))}

    # ------------------------------------------------------------------ the loop

    def start(self) -> None:
        if any((self.games / "house").glob("*.pbem")):
            return  # resume from the files
        first = self.games / "mine" / "0000-japanese.pbem"
        if not first.exists():  # (a game stopped before its first Allied message restarts from message 0)
            first = session.new_game(self.games / "mine", self.game_name, "japanese", self.house.public, self.identity)
        orders = self.ask_orders("allied", None, first_message=True)
        session.join_game(first, self.games / "house", self.house, self._house_orders(orders, first))
        session.receive(self.games / "mine", [self.games / "house" / "0001-allied.pbem"], self.identity)

    def _house_orders(self, orders: dict[str, Any], proposal: Path | None) -> dict[str, Any]:
        """Add the identities the house decides to the player's Allied setup."""
        if not any("conceal" in o or "mine" in o or o.get("setup") for o in orders.get("order", [])):
            return orders
        from pbem import games
        from pbem.protocol.message import SignedMessage

        source = proposal or (self.games / "mine" / "0000-japanese.pbem")
        game_id = SignedMessage.from_text(Path(source).read_text()).game
        identities = self.house_identities(game_id)
        data = games.get(self.game_name).data
        out = []
        for o in orders["order"]:
            o = dict(o)
            if o.get("setup") == "historical":  # the scenario's hexes, the house's identities (whatever was typed)
                o = {"setup": "historical",
                     "identities": {slot: identities[slot] for slot in data.concealed_slots},
                     "mines": {slot: identities[slot] for slot in data.mine_slots}}
            if "conceal" in o:
                o["is"] = identities[o["conceal"]]
            if "mine" in o:
                o["is"] = identities[o["mine"]]
            out.append(o)
        return {**orders, "order": out}

    def run(self) -> session.Match:
        self.start()
        while True:
            mine = session.load(self.games / "mine", self.identity)
            if mine.closed:
                self.say("the game is over")
                return mine
            side = mine.transcript.side_of(len(mine.transcript))
            if side == "japanese":
                orders = {} if mine.replay.over else self.ask_orders("japanese", mine)
                result = session.play(self.games / "mine", self.identity, orders)
                session.receive(self.games / "house", [result.path], self.house)
            else:
                house = session.load(self.games / "house", self.house)
                orders = {} if house.replay.over else self._house_orders(self.ask_orders("allied", mine), None)
                result = session.play(self.games / "house", self.house, orders)
                session.receive(self.games / "mine", [result.path], self.identity)
            for event in result.events:
                self.say(event.sentence())

    def ask_orders(self, side: str, match: session.Match | None, first_message: bool = False) -> dict[str, Any]:
        """Ask for one message's orders, checking each line on the position."""
        from pbem import games

        game = match.game if match else games.get(self.game_name)
        if match is not None:
            self.show(match)
            waiting = [self._describe(a) for a in game.awaiting(match.replay.state)]
            if waiting:
                self.say("awaiting: " + "; ".join(waiting))
            state, seq = match.replay.state, len(match.transcript)
        else:
            state, seq = game.initial_state({}), 1
        self.say(f"{side} orders ('help' for the list, Enter to send):")
        doc: dict[str, Any] = {"order": []}
        while True:
            line = self.ask(f"{side}> ").strip()
            if line in ("", "done"):
                return doc
            if line == "help":
                self.say(HELP)
                continue
            if line == "show":
                if match is not None:
                    self.show(match)
                continue
            if line == "quit":
                raise SystemExit(0)
            try:
                parsed = parse_line(line)
                trial: dict[str, Any] = {"order": list(doc["order"])}
                if doc.get("standing"):
                    trial["standing"] = dict(doc["standing"])
                if isinstance(parsed, tuple):
                    trial.setdefault("standing", {})[parsed[1][0]] = parsed[1][1]
                else:
                    trial["order"].append(parsed)
                checked = self._house_orders(trial, None) if side == "allied" else trial
                store = self.house_identities(match.transcript.game) if side == "allied" and match else {}
                self._check(game, state, seq, side, checked, store)
            except PbemError as err:
                self.say(f"not accepted: {err}")
                continue
            doc = trial
            self.say("ok")

    @staticmethod
    def _describe(awaited: Any) -> str:
        from pbem.engine.machine import describe_awaited

        return describe_awaited(awaited)

    @staticmethod
    def _check(game: Any, state: Any, seq: int, side: str, orders: dict[str, Any], store: Any = None) -> None:
        """Try the orders on the position (nothing is written), the reveals
        they demand made from ``store`` as the house's client will."""
        from pbem.engine.machine import Ordered

        parsed = game.parse_orders(orders, side)
        for i, order in enumerate(parsed.public):
            state, _ = game.apply(state, Ordered(side, seq, i, order))
            state, _ = own_reveals(game, state, side, seq, store or {})
