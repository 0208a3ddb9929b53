"""Played-game property tests for Ambon, the way chess engines use perft
("randomised legal games played through the real protocol path,
checked after every message against invariants derived from the rulebook").

:func:`play_game` plays one whole game of Ambon by email between two
identities -- each with its own keystore and game directory, every message
written by :func:`pbem.match.session.play` on one side and taken in by
:func:`pbem.match.session.receive` on the other -- both sides played by
:class:`pbem.games.ambon.bot.AmbonBot` with a seeded choice policy, with a
random subset of the optional rules (14.1-14.4) in message 0.  Everything is
a function of the seed: the identities are fixed, and the game id and the
joiner's fresh bytes (the only other randomness of the protocol) are drawn
from the seed, so ``play_game(seed)`` plays the same game, message for
message and die for die, on every machine.

After every message an independent replay of the transcript, action by
action (:class:`ActionReplay`), checks the invariants below on the author's state
and on the receiver's, and checks that both players' replays agree with it.
Each finding is a :class:`Violation` naming the seed, the message and the
invariant.  The invariants (``INVARIANTS``):

``dice``       every roll due is rolled exactly once and its result applied:
               no (label, key) is rolled twice, a DiceDue never disappears
               without its roll, every roll has an event showing its die
``decisions``  nothing awaited disappears silently: a DecisionDue goes with
               its answer or an event of its rule; a RevealDue with the reveal
``6.3``        every landing whose die says "landing combat" is fought: a
               "landing combat on HEX" event (or its lone HQs eliminated,
               11.1) before the Landing Phase ends
``6.0``        every First Wave box holding units when a Landing Phase opens
               sees a landing attempt or a postponement (an event) in it
``units``      the set of pieces never changes; each is in exactly one place
               (a land hex, a box, eliminated, removed, off-map); it moves
               only with an event naming it, and only as the rules move
               pieces (eliminated and removed are final)
``5.0``        turn and phase only move forward in 5.0's order; once the
               engine emits phase events (data ``phase``) every phase of 5.0
               is opened by one, in order, and does something or says why
               not (data ``skipped``) -- until then: not yet checkable; a
               phase the author's own reveals opened inside its message is
               not passed by that message's end unless it gave orders
``position``   the marks agree with the position: no unit in a sea hex, no
               hex held by both sides, 9.0 (no attack out of a physically
               overstacked hex; the functional halving exactly where >3),
               8.0 (a concealed unit in a Japanese ZOC is revealed or owed),
               13.0 (OOS: a disrupted Japanese unit after the supply check,
               never adjacent to a beachhead then, never recovers), 6.2/6.3
               (landing markers only on units that landed this turn), 3.1
               (control), 6.5 (beachheads), 6.4 (no revealed dummy mine
               left after the landings), 14.2 (battalions off-map until the
               note is opened)
``vp``         victory.victory_points equals the VP recomputed here from the
               eliminated box, key locations, beachheads, 3.2 and 14.x, with
               the numbers read from the data files themselves
``hidden``     no concealed identity (X*, M*, the 14.2 note) in the other
               side's view, the spectator's view or any message file before
               the message that reveals it; the state knows nothing of a
               sealed value before its reveal and applies every reveal made
``replay``     this replay agrees with both players' (states, events, rolls);
               the finished game verifies with --audit in both directories

State fields are read only in the ``# state access`` helpers below, so the
engine's renames are adapted in one place.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import random
import re
import time
import tomllib
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Iterable

from conftest import dicts_of

from pbem.engine.machine import DecisionDue, DiceDue, DiceRolled, Event, MessageEnd, Opened, Ordered, RevealDue
from pbem.games.ambon import GAME, victory
from pbem.games.ambon.bot.arena import fixed_keys
from pbem.games.ambon.bot.arena import seeded_protocol as arena_seeded_protocol
from pbem.match import session
from pbem.match.replay import actions_for
from pbem.protocol.dice import dice_key, roll
from pbem.protocol.message import SignedMessage

JAPANESE, ALLIED = "japanese", "allied"
ELIMINATED, REMOVED, OFF_MAP = "eliminated", "removed", "off-map"
OPTIONAL_RULES = ("14.1", "14.2", "14.3", "14.4")
SECOND_WAVE_SLOT = "second-wave"

INVARIANTS = ("dice", "decisions", "6.3", "6.0", "units", "5.0", "position", "vp", "hidden", "replay")

#: a game that has not closed after this many messages is a stall (a finding)
MAX_MESSAGES = 400


# =========================================================================== state access
# Every read of an AmbonState field is here (the engine is being restructured).

# The phases of 5.0 by turns.toml's names, in order (game over after them).
SETUP_PHASES = ("setup-allied", "setup-japanese")
LANDING = "japanese-landing"
TURN_PHASES = (LANDING, "japanese-movement", "japanese-bombardment", "japanese-combat",
               "allied-movement", "allied-bombardment", "allied-combat", "recovery", "supply-check")
GAME_OVER = "over"
#: other spellings of a phase (the state's before module version 3) -> turns.toml's
PHASE_ALIASES = {"landing": LANDING, "supply": "supply-check", "game-over": GAME_OVER}


def phase_of(state: Any) -> str:
    return phase_name(state.phase)


def turn_of(state: Any) -> int:
    return int(state.turn)


def phase_name(value: Any) -> str:
    """A phase as the state, its events or the data name it, in turns.toml's spelling."""
    text = str(getattr(value, "value", value))
    return PHASE_ALIASES.get(text, text)


PHASING = {"setup-allied": ALLIED, "setup-japanese": JAPANESE, LANDING: JAPANESE, "japanese-movement": JAPANESE,
           "japanese-bombardment": JAPANESE, "japanese-combat": JAPANESE, "allied-movement": ALLIED,
           "allied-bombardment": ALLIED, "allied-combat": ALLIED}


def phasing(state: Any) -> str | None:
    """The side whose phase it is (5.0), None in the Recovery and Supply Phases."""
    return PHASING.get(phase_of(state))


def phasing_at(key: tuple[int, int]) -> str | None:
    order = SETUP_PHASES + TURN_PHASES
    return PHASING.get(order[key[1]]) if key[1] < len(order) else None


def sequence_key(state: Any) -> tuple[int, int]:
    """Where a state stands in 5.0's order: (turn, phase index)."""
    phase = phase_of(state)
    order = SETUP_PHASES + TURN_PHASES
    return turn_of(state), (order.index(phase) if phase in order else len(order))


@dataclass(frozen=True)
class PieceView:
    id: str
    side: str
    where: str
    disrupted: bool
    concealed: bool
    identity: str
    oos: bool
    penalty: str

    @property
    def on_map(self) -> bool:
        return self.where[:1].isdigit()


_SEEN: dict[int, tuple[Any, dict[str, "PieceView"]]] = {}


def pieces(state: Any) -> dict[str, PieceView]:
    """Piece id -> where it is and how it stands (kept for the last few states)."""
    hit = _SEEN.get(id(state))
    if hit is not None and hit[0] is state:
        return hit[1]
    found = {p.id: PieceView(p.id, str(p.side), p.where, bool(p.disrupted), bool(p.concealed), p.identity or "",
                             bool(p.oos), str(p.penalty or "")) for p in state.pieces}
    if len(_SEEN) > 16:
        _SEEN.clear()
    _SEEN[id(state)] = (state, found)
    return found


def raw_piece(state: Any, pid: str) -> Any:
    """The engine's own piece (for data.spec)."""
    return state.piece(pid)


def mines(state: Any) -> dict[str, tuple[str, str]]:
    """Mine id -> (box, status: hidden | real | dummy)."""
    return {m.id: (m.box, str(m.status)) for m in state.mines}


def control(state: Any) -> dict[str, int]:
    """Japanese-held key location -> turn taken (3.1)."""
    return {h: int(t) for h, t in state.control}


def beachheads(state: Any) -> tuple[set[str], set[str]]:
    """(beachheads on the map, beachheads the Allies captured) (6.5)."""
    return set(state.beachheads), set(state.lost_beachheads)


def surrendered(state: Any) -> bool:
    return bool(state.surrendered)


def options_of(state: Any) -> tuple[str, ...]:
    return tuple(state.options)


def second_wave_note(state: Any) -> str:
    return state.second_wave_note or ""


def battles(state: Any) -> list[tuple[str, tuple[str, ...]]]:
    """The combats of the Combat Phase: (target hex, attackers)."""
    return [(b.target, tuple(b.attackers)) for b in state.battles]


def vp_awarded_in_play(state: Any) -> list[tuple[str, int]]:
    return list(getattr(state, "vp_events", ()))


# =========================================================================== events

LANDING_COMBAT_DUE = re.compile(r"^landing on (\d{4}): .*-> landing combat")
LANDING_COMBAT_FOUGHT = re.compile(r"^landing combat on (\d{4})\b")
LONE_HQ_ON_BEACH = re.compile(r"attacked alone on (\d{4})")
LANDING_ATTEMPT = re.compile(r"attempt a landing from (\S+) on")
LANDING_POSTPONED = re.compile(r"^the landing from (\S+) is postponed")
CRT_READ = re.compile(r"^combat at (\d{4}): \S+ against ")
FUNCTIONAL_HALVING = re.compile(r"(\S+) halved \(functional overstacking")


def mentions(event: Event, pid: str) -> bool:
    """Does ``event`` name the piece ``pid`` (its text or its data)?"""
    token = re.compile(rf"(?<![\w.-]){re.escape(pid)}(?![\w-])")
    return bool(token.search(event.text) or token.search(json.dumps(dict(event.data), default=str)))


def phase_event(event: Event) -> dict[str, Any] | None:
    """The engine's 5.0 phase events: data ``{"phase": name, "turn": n}`` when a
    phase opens, ``{"phase": name, "skipped": reason}`` when it ends having done nothing."""
    data = dict(event.data)
    return data if "phase" in data else None


# =========================================================================== findings


@dataclass(frozen=True)
class Violation:
    seed: int
    seq: int  # the message after which it was seen
    invariant: str
    text: str

    def __str__(self) -> str:
        return f"seed {self.seed}, message {self.seq:04d}: [{self.invariant}] {self.text}"


@dataclass(frozen=True)
class KnownBug:
    """An engine bug the driver finds, to be fixed in the engine: its
    violations are reported apart (the tests xfail on them, naming the bug).
    ``reason``: what goes wrong, the rule, and where it is reproduced."""

    name: str
    reason: str
    matches: Callable[[Violation], bool]

    @property
    def summary(self) -> str:
        return self.reason.split(":")[0] + " " + self.name


#: Engine bugs the driver finds that are still open: empty today.  Found by
#: the driver and fixed in the engine (module version 3), each guarded since
#: by its invariant here and by a test of its own:
#:
#: - 6.3: only the last landing combat of a Landing Phase was fought (one
#:   ``state.landing_combat``): ``dice``, ``6.3``, ``decisions``; rule cases
#:   ambon-6.3-every-landing-combat-of-the-phase-is-fought and
#:   ambon-6.3-a-landing-combat-awaiting-the-hq-decision-is-not-dropped
#: - 6.0: a First Wave box neither landed from nor postponed stayed put, with
#:   no event: ``6.0``; rule case ambon-6.0-a-landing-not-postponed-is-attempted
#: - 10.0/14.3: a bombardment whose target another one of the same message
#:   had disrupted or eliminated refused its die, and the receiver could not
#:   take in the message: ``replay``; test_10_0_a_bombardment_whose_target_...
#: - 5.0: a phase its author's own reveals opened inside a message was passed
#:   by that message's end (the 14.2 note skipped the Japanese turn 2; an
#:   Allied reveal after a Japanese advance skipped the Allied turn): ``5.0``,
#:   ``6.0``; test_5_0_a_reveal_that_opens_the_authors_turn_does_not_pass_it,
#:   test_14_2_the_note_message_does_not_pass_the_japanese_turn_2
#: - 11.4: an advance decision left open vanished with no event:
#:   ``decisions``; test_11_4_an_advance_left_open_says_so
#:
#: A new one goes here, with its reason and its reproduction, until it is fixed.
KNOWN_BUGS: tuple[KnownBug, ...] = ()


def known_bug(v: Violation) -> KnownBug | None:
    return next((bug for bug in KNOWN_BUGS if bug.matches(v)), None)


@dataclass
class PlayedGame:
    seed: int
    options: tuple[str, ...]
    directory: Path
    messages: int = 0
    violations: list[Violation] = field(default_factory=list)
    unchecked: dict[str, str] = field(default_factory=dict)  # invariant -> why it could not be checked
    seconds: float = 0.0
    turn: int = 0
    phase: str = ""
    result: list[str] = field(default_factory=list)
    orders: list[dict[str, Any]] = field(default_factory=list)  # the orders of messages 2, 3, ...
    rulings: dict[str, str] = field(default_factory=dict)  # the readings message 0 declared (random per seed)
    rolls: int = 0
    events: int = 0

    @property
    def unknown(self) -> list[Violation]:
        return [v for v in self.violations if known_bug(v) is None]

    @property
    def known(self) -> list[Violation]:
        return [v for v in self.violations if known_bug(v) is not None]

    def summary(self) -> str:
        opts = ", ".join(self.options) or "no optional rules"
        return (f"seed {self.seed} ({opts}): {self.messages} messages, {self.rolls} rolls, turn {self.turn} {self.phase}, "
                f"{len(self.violations)} violation(s), {self.seconds:.1f} s" + (f"; {self.result[0]}" if self.result else ""))


# =========================================================================== the data, read on its own


class RulesData:
    """The numbers the invariants need, read from the data files themselves
    (``GAME.ruleset_files()``), not through the engine's victory code."""

    def __init__(self, game: Any):
        files = {name.rsplit("/", 1)[-1]: raw for name, raw in game.ruleset_files()}
        turns = tomllib.loads(files["turns.toml"].decode())
        gmap = tomllib.loads(files["map.toml"].decode())
        self.awards: dict[str, int] = dict(turns["vp_awards"])
        self.optional: dict[str, int] = {rule: int(spec["vp"]) for rule, spec in turns["optional_rules"].items()}
        self.first_turn = int(turns["game"].get("first_turn", 1))
        self.track = {h: list(spec["vp"]) for h, spec in gmap["key_locations"].items()}
        self.at_end = {h: int(c["uncontrolled_at_end"]) for c in turns["key_location_classes"].values() for h in c["hexes"]}
        self.phases = {int(t["number"]): [phase_name(p) for p in t["phases"] if p != "allied-surrender-option"]
                       for t in turns["turns"]}
        self.supply_turns = {n for n, phases in self.phases.items() if "supply-check" in phases}
        self.data = game.data
        self.map = game.data.map
        self.lanes = game.data.lanes
        self.lane_targets = {lane.target for lane in self.lanes.values()}
        self.first_wave = {lane.first_wave for lane in self.lanes.values()}
        self.boxes = set(self.map.boxes)
        self.key_locations = set(self.track)

    def spec(self, state: Any, pid: str) -> Any:
        return self.data.spec(raw_piece(state, pid))

    def is_sea(self, hexlabel: str) -> bool:
        return self.map.terrain_at(self.map.hex(hexlabel)) == "sea"

    def is_hex(self, label: str) -> bool:
        try:
            return self.map.contains(self.map.hex(label))
        except Exception:  # noqa: BLE001 - not a hex label at all
            return False

    def zoc_reach(self, hexlabel: str) -> set[str]:
        """8.0: the hexes a unit in ``hexlabel`` projects a ZOC into: its
        neighbours on the map, not sea, not across an all-sea hexside."""
        h = self.map.hex(hexlabel)
        return {self.map.label(n) for n in h.neighbours()
                if self.map.contains(n) and self.map.terrain_at(n) != "sea" and not self.map.has("all_sea", h, n)}

    def expected_vp(self, state: Any, truth: dict[str, str]) -> tuple[int, list[str]]:
        """3.0, 3.2, 14.0 from the eliminated box, key locations and beachheads.
        ``truth``: the Allied sealed values (what each concealed piece is)."""
        total, problems = 0, []
        for p in pieces(state).values():
            if p.where != ELIMINATED:
                continue
            if p.id in self.data.concealed_slots:
                what = truth.get(p.id) or p.identity
                if what == "dummy":
                    problems.append(f"{p.id} is a dummy in the eliminated-units box (7.2: dummies are removed)")
                total += self.awards["allied_detachment_eliminated"]
                continue
            hq = self.spec(state, p.id).hq
            if p.side == ALLIED:
                total += self.awards["allied_hq_eliminated" if hq else "allied_unit_eliminated"]
            else:
                total += self.awards["japanese_hq_eliminated" if hq else "japanese_unit_eliminated"]
        _, lost = beachheads(state)
        total += len(lost) * self.awards["beachhead_captured"]
        held = control(state)
        for h in self.key_locations:
            if h in held:
                total += self.track[h][held[h] - self.first_turn]
            elif not surrendered(state):
                total += self.at_end[h]
        if surrendered(state):
            total += self.awards["allied_surrender"]
        total += sum(self.optional[rule] for rule in options_of(state))
        return total, problems


# =========================================================================== hidden information


def leaks(hidden: dict[str, str], *, views: Iterable[Any] = (), lines: Iterable[str] = (), text: str = "") -> list[str]:
    """Sealed values of ``hidden`` (slot -> value) that the given views
    (JSON-like), text lines (event sentences) or raw text show.  The values
    are words ("dummy", "detachment", "real"), so a leak is the value
    attached to its slot: an object naming the slot (a field equal to it, or
    a label "X3:det") that holds the value, or a line where the value
    follows the slot before another piece is named.  A long value (the 14.2
    note) is a leak anywhere, verbatim."""
    found: list[str] = []
    if not hidden:
        return found
    views, lines = list(views), list(lines)
    short = {slot: value for slot, value in hidden.items() if len(value) < 12}
    dumped = [json.dumps(v, default=str) for v in views]
    for slot, value in hidden.items():
        if slot not in short and (value in text or any(value in d for d in dumped) or any(value in line for line in lines)):
            found.append(f"the sealed value of {slot} verbatim")
    words = {value: re.compile(rf"\b{re.escape(value)}\b") for value in set(short.values())}
    for view in views:
        for obj in dicts_of(view):
            names = [v for v in obj.values() if isinstance(v, str)]
            for name in names:
                slot = name.partition(":")[0]
                value = short.get(slot)
                if value is None:
                    continue
                if any(v != slot and (words[value].search(v) or v == f"{slot}:{value[:3]}") for v in names):
                    found.append(f"{slot} = {value} in {json.dumps(obj, default=str)[:160]}")
                    break
    token = re.compile(r"(?<![\w.-])([XM]\d+)(?![\w-])")
    for line in lines:
        for m in token.finditer(line):
            value = short.get(m.group(1))
            if value is None:
                continue
            rest = line[m.end():]
            nxt = token.search(rest)
            if words[value].search(rest[: nxt.start() if nxt else len(rest)]):
                found.append(f"{m.group(1)} = {value} in the line {line[:160]!r}")
    return found


def message_parts(path: Path) -> tuple[str, list[Any], list[str]]:
    """A message file: its text, its signed body (JSON) and its summary lines."""
    text = path.read_text("utf-8")
    bodies = [msg.body for msg in SignedMessage.all_from_text(text)]
    lines = [line[2:] for line in text.splitlines() if line.startswith("| ")]
    return text, bodies, lines


# =========================================================================== the players


PLAYERS = {JAPANESE: ("kenji", "Kenji (Japanese, played test)"), ALLIED: ("jack", "Jack (Allied, played test)")}


def identities(root: Path) -> dict[str, Any]:
    """The two players, each with a keystore of its own under ``root``, with
    fixed keys so that every game is reproducible from its seed."""
    return fixed_keys(root, PLAYERS, "pbem ambon played games")


def seeded_protocol(seed: int) -> contextlib.AbstractContextManager[None]:
    """The protocol's own randomness drawn from ``seed``
    (:func:`pbem.games.ambon.bot.arena.seeded_protocol`)."""
    return arena_seeded_protocol(session, seed, "protocol")


def random_options(rng: random.Random) -> tuple[str, ...]:
    """A random subset of the optional rules (14.1-14.4)."""
    return tuple(rule for rule in OPTIONAL_RULES if rng.random() < 0.4)


def rulings_for(seed: int) -> dict[str, str]:
    """A reading of each disputed sentence (pbem/games/ambon/data/rulings.toml)
    for the game of ``seed``: each ruling's readings in turn, shifted by the
    ruling's place, so that any two games in a row play every reading and
    the defaults are mixed with the others."""
    from pbem.games.ambon import rulings as ambon_rulings

    found = {}
    for k, ruling in enumerate(ambon_rulings.load().rulings):
        readings = [name for name, _ in ruling.readings if name not in ruling.unplayed]
        found[ruling.rule] = readings[(seed + k) % len(readings)]
    return found


# =========================================================================== an independent replay, action by action


class ActionReplay:
    """Replays the transcript action by action, as pbem.match.replay does,
    checking every step; one per game.  ``message(transcript, seq, partner)``
    applies message ``seq`` (the author's state) and then its dice keyed with
    ``partner`` -- the value its recipient publishes next (the receiver's)."""

    def __init__(self, game: Any, played: PlayedGame, rules: RulesData, setup_options: dict[str, Any]):
        self.game = game
        self.played = played
        self.rules = rules
        self.state = game.initial_state(setup_options)
        self.ids = set(pieces(self.state))
        self.events: list[tuple[int, Event]] = []
        self.rolled: dict[tuple[str, int], tuple[int, ...]] = {}
        self.partner: dict[int, bytes] = {}
        self.landed: dict[str, str] = {}  # units that came ashore this turn -> the marker they got
        self.landed_turn = 0
        self.combats_due: dict[str, int] = {}  # 6.3: beach -> message of the die that said "landing combat"
        self.boxes_at_open: set[str] = set()  # 6.0: First Wave boxes holding units when the Landing Phase opened
        self.boxes_seen: set[str] = set()  # 6.0: boxes landed from or postponed this Landing Phase
        self.seq = 0
        self.truth: dict[str, str] = {}  # the Allied sealed values (for VP and 13.1); set by the driver

    # ------------------------------------------------------------------ findings

    def bad(self, invariant: str, text: str, state: Any = None) -> None:
        state = self.state if state is None else state
        where = f" (turn {turn_of(state)}, {phase_of(state)})"
        self.played.violations.append(Violation(self.played.seed, self.seq, invariant, text + where))

    # ------------------------------------------------------------------ messages

    def message(self, transcript: Any, seq: int, partner: bytes) -> tuple[Any, Any]:
        """Apply message ``seq``: returns (the author's state, the state after its dice)."""
        self.seq = seq
        if seq - 1 in self.partner and transcript.chain_values[seq] != self.partner[seq - 1]:
            self.bad("replay", f"message {seq - 1:04d}'s dice were keyed with a value message {seq:04d} did not publish")
        side = transcript.messages[seq].side
        start, ordered, opened = sequence_key(self.state), False, None
        for action in actions_for(transcript, seq):
            before = self.state
            self.step(action, seq)
            if isinstance(action, Opened) and phasing(self.state) == side != phasing_at(start):
                opened = (turn_of(self.state), phase_of(self.state))  # the author's phase, opened by its reveals
            ordered = ordered or isinstance(action, Ordered)
            if isinstance(action, MessageEnd) and opened and not ordered:
                self.check_unseen_phase(side, seq, opened, before)
        owed = [a.slot for a in self.game.awaiting(self.state) if isinstance(a, RevealDue) and a.side == side]
        if owed:
            self.bad("hidden", f"{side} owed the reveal of {', '.join(owed)} and did not make it")
        author = self.state
        msg = transcript.messages[seq]
        key = dice_key(transcript.game, seq, msg.digest, transcript.chain_values[seq], partner)
        self.partner[seq] = partner
        for _ in range(1000):
            due = [d for d in self.game.awaiting(self.state) if isinstance(d, DiceDue) and d.key_seq == seq]
            if not due:
                break
            for d in due:  # as pbem.match.replay.resolve_dice: every roll due now, then again
                self.step(DiceRolled(d.label, roll(key, d.label, d.count, d.sides)), seq + 1, due=d)
        stale = [d.label for d in self.game.awaiting(self.state) if isinstance(d, DiceDue) and d.key_seq <= seq]
        if stale:
            self.bad("dice", f"rolls {', '.join(stale)} keyed by message {seq:04d} are still due after its dice")
        return author, self.state

    def check_unseen_phase(self, side: str, seq: int, opened: tuple[int, str], before: Any) -> None:
        """5.0: a phase of the author that the message's own reveals opened
        (it was written before that phase existed) is not passed by the
        message's end when the message gave no orders for it."""
        if sequence_key(self.state) > sequence_key(before):
            self.bad("5.0", f"the reveals of {side}'s message {seq:04d} ended the phase before and opened {side}'s "
                            f"turn {opened[0]} {opened[1]} inside it; the end of the message then passed it (now "
                            f"{phase_of(self.state)}): {side} never had the chance to give its orders for it")

    # ------------------------------------------------------------------ one action

    def step(self, action: Any, under: int, due: DiceDue | None = None) -> None:
        before = self.state
        awaited = self.game.awaiting(before)
        try:
            after, events = self.game.apply(before, action)
        except Exception as err:  # the players' replays took it: this one must too
            self.bad("replay", f"{type(action).__name__} {action!r} refused by the action replay: {err}")
            if isinstance(action, DiceRolled):
                self.rolled[(action.label, due.key_seq if due else -1)] = action.values
            return
        self.state = after
        self.events += [(under, e) for e in events]
        now = self.game.awaiting(after)
        self.check_dice(action, due, awaited, now, events)
        self.check_decisions(action, awaited, now, events)
        self.check_sequence(before, after, events)
        self.check_landings(before, after, action, events)
        self.check_moves(before, after, action, events)
        self.check_stacking(before, after, action, events)
        self.check_supply_marks(before, after, events)
        self.check_losses(before, after, events)

    # ------------------------------------------------------------------ 11.3: who decides

    def check_losses(self, before: Any, after: Any, events: list[Event]) -> None:
        """Issue 26: no choice of 11.3 is made for a player.  A hit or a
        retreat that says "(standing instruction)" has one behind it; nothing
        is ever decided by "default policy"; and the shipped policy
        ("protect-hq") never eliminates an HQ while another unit of the
        fight survives it (the units in its hex or box, artillery aside)."""
        old, new = pieces(before), pieces(after)
        for e in events:
            if "default policy" in e.text:
                self.bad("losses", f"a choice was made by pbem's default policy: {e.text}")
            if e.rule not in ("11.3", "14.3") or "(standing instruction)" not in e.text:
                continue
            unit = e.data.get("unit")
            if unit is None:
                continue
            side = old[unit].side
            kind = ("retreat" if e.text.startswith("refusing the retreat (standing instruction)")
                    else "losses" if " hit: " in e.text else "retreat-to" if "retreats to" in e.text else "retreat")
            if after.standing.get(side, kind) is None:
                self.bad("losses", f"{e.text!r} says a standing instruction decided it, and {side} has no "
                                   f"standing {kind}")
            if kind != "losses" or "eliminated" not in e.text or not self.rules.spec(before, unit).hq:
                continue
            if after.standing.get(side, "losses") != "protect-hq":
                continue
            where = old[unit].where
            spared = [p.id for p in old.values() if p.side == side and p.where == where and p.id != unit
                      and not self.rules.spec(before, p.id).hq and not self.rules.spec(before, p.id).artillery
                      and new[p.id].where != "eliminated"]
            if spared:
                self.bad("losses", f"protect-hq eliminated {unit} in {where} while {', '.join(spared)} could have "
                                   f"taken the hit ({e.text})")

    # ------------------------------------------------------------------ dice

    def check_dice(self, action: Any, due: DiceDue | None, awaited: tuple, now: tuple, events: list[Event]) -> None:
        def dice(items: tuple) -> dict[tuple[str, int], DiceDue]:
            return {(d.label, d.key_seq): d for d in items if isinstance(d, DiceDue)}

        before, after = dice(awaited), dice(now)
        rolled = None
        if isinstance(action, DiceRolled):
            rolled = (action.label, due.key_seq if due else -1)
            if rolled in self.rolled:
                self.bad("dice", f"{action.label!r} keyed by message {rolled[1]:04d} is rolled twice")
            self.rolled[rolled] = action.values
            if not events:
                self.bad("dice", f"{action.label!r} rolled {action.values} and nothing happened (no event)")
            elif not any(f"roll {action.values[0]}" in e.text or "lapses" in e.text for e in events):
                self.bad("dice", f"{action.label!r} rolled {action.values[0]}: no event shows the roll "
                                 f"({'; '.join(e.sentence() for e in events)[:200]})")
        for key, d in before.items():
            if key not in after and key != rolled:
                self.bad("dice", f"the roll {d.label!r} ({d.purpose}) keyed by message {d.key_seq:04d} disappeared "
                                 f"without its roll when {_describe(action)} was applied")
        for key, d in after.items():
            if key not in before and key in self.rolled:
                self.bad("dice", f"{d.label!r} keyed by message {d.key_seq:04d} is due again after it was rolled")

    # ------------------------------------------------------------------ decisions and reveals

    def check_decisions(self, action: Any, awaited: tuple, now: tuple, events: list[Event]) -> None:
        for item in awaited:
            if isinstance(item, RevealDue) and not any(isinstance(x, RevealDue) and x.slot == item.slot for x in now):
                if not (isinstance(action, Opened) and action.slot == item.slot):
                    self.bad("decisions", f"the reveal of {item.slot} ({item.rule}) owed by {item.side} disappeared "
                                          f"without the reveal when {_describe(action)} was applied")
            if isinstance(item, DecisionDue):
                same = [x for x in now if isinstance(x, DecisionDue) and (x.side, x.kind, x.prompt) == (item.side, item.kind, item.prompt)]
                if item.kind == "losses":  # its prompt says what is still open: the same choice, narrowed
                    hexes = re.findall(r"\b(\d{4})\b", item.prompt)[:1]
                    same += [x for x in now if isinstance(x, DecisionDue) and (x.side, x.kind) == (item.side, item.kind)
                             and re.findall(r"\b(\d{4})\b", x.prompt)[:1] == hexes]
                if same:
                    continue
                target = re.search(r"\b(\d{4})\b", item.prompt)
                answered = [e for e in events if e.rule == item.rule and (target is None or target.group(1) in e.text)]
                if not answered:
                    self.bad("decisions", f"{item.side}'s decision {item.kind!r} ({item.prompt}, {item.rule}) disappeared "
                                          f"without an answer or an event of {item.rule} when {_describe(action)} was applied")

    # ------------------------------------------------------------------ 5.0

    def check_sequence(self, before: Any, after: Any, events: list[Event]) -> None:
        a, b = sequence_key(before), sequence_key(after)
        if b < a:
            self.bad("5.0", f"the sequence of play went back from turn {a[0]} {phase_of(before)} to turn {b[0]} {phase_of(after)}")
        if turn_of(after) > turn_of(before) + 1:
            self.bad("5.0", f"turn {turn_of(before)} was followed by turn {turn_of(after)}")

    # ------------------------------------------------------------------ 6.0, 6.3

    def check_landings(self, before: Any, after: Any, action: Any, events: list[Event]) -> None:
        landing = (SETUP_PHASES + TURN_PHASES).index(LANDING)
        opens = (turn_of(after), landing)
        if sequence_key(before) < opens <= sequence_key(after):  # a Landing Phase opened in this step
            at_open = after if phase_of(after) == LANDING else before  # (it may have ended in this step too)
            units = pieces(at_open)
            self.boxes_at_open = {box for box in self.rules.first_wave if any(p.where == box for p in units.values())}
            self.boxes_seen = set()
        for e in events:
            m = LANDING_COMBAT_DUE.search(e.text)
            if m:
                self.combats_due[m.group(1)] = self.seq
            for pattern in (LANDING_COMBAT_FOUGHT, LONE_HQ_ON_BEACH):
                m = pattern.search(e.text)
                if m:
                    self.combats_due.pop(m.group(1), None)
            m = LANDING_ATTEMPT.search(e.text) or LANDING_POSTPONED.search(e.text)
            if m:
                self.boxes_seen.add(m.group(1))
            if e.data.get("landed"):
                if turn_of(after) != self.landed_turn:
                    self.landed, self.landed_turn = {}, turn_of(after)
                marker = str(e.data.get("result") or "opposed")
                self.landed.update({u: marker for u in e.data["landed"]})
        ends = (turn_of(before), landing)
        if sequence_key(before) <= ends < sequence_key(after) or (opens == ends and sequence_key(before) < ends < sequence_key(after)):
            for beach, seq in sorted(self.combats_due.items()):
                self.bad("6.3", f"the landing on {beach} rolled 'landing combat' (message {seq:04d}) and was never "
                                f"fought: no 'landing combat on {beach}' event before the Landing Phase ended")
            self.combats_due = {}
            if not surrendered(after):
                for box in sorted(self.boxes_at_open - self.boxes_seen):
                    self.bad("6.0", f"{box} held units when the Landing Phase opened, and it ended with neither a "
                                    f"landing attempt nor a postponement from {box}")
            self.boxes_at_open = set()

    # ------------------------------------------------------------------ units

    def check_moves(self, before: Any, after: Any, action: Any, events: list[Event]) -> None:
        old, new = pieces(before), pieces(after)
        if set(new) != self.ids:
            self.bad("units", f"the pieces changed: {sorted(set(new) ^ self.ids)}")
        if phase_of(before) in SETUP_PHASES:
            return  # setup places pieces without events
        for pid, p in new.items():
            q = old.get(pid)
            if q is None or q.where == p.where:
                continue
            if q.where in (ELIMINATED, REMOVED):
                self.bad("units", f"{pid} came back from {q.where} to {p.where}")
                continue
            if not any(mentions(e, pid) for e in events):
                self.bad("units", f"{pid} went from {q.where} to {p.where} with no event naming it ({_describe(action)})")
            kinds = (_kind(q.where), _kind(p.where))
            allowed = {("map", "map"), ("map", ELIMINATED), ("map", REMOVED), ("box", "map"), ("box", "box"),
                       ("box", ELIMINATED), (OFF_MAP, "box"), (OFF_MAP, ELIMINATED)}
            if kinds not in allowed:
                self.bad("units", f"{pid} went from {q.where} to {p.where}, which no rule does")
            if p.where == REMOVED and not (q.concealed or q.identity == "dummy"):
                self.bad("units", f"{pid} was removed from the game, and it is not a dummy (7.2)")

    # ------------------------------------------------------------------ 9.0

    def stacking(self, state: Any, where: str) -> Fraction:
        return sum((Fraction(str(self.rules.spec(state, p.id).stacking)) for p in pieces(state).values() if p.where == where),
                   Fraction(0))

    def check_stacking(self, before: Any, after: Any, action: Any, events: list[Event]) -> None:
        limit = Fraction(str(self.rules.data.value("stacking_limit")))
        physical = Fraction(str(self.rules.data.value("physical_overstack")))
        if isinstance(action, Ordered) and action.order.get("type") == "attack":
            for uid in action.order.get("with", []):
                where = pieces(before)[uid].where
                if where[:1].isdigit() and self.stacking(before, where) > physical:
                    self.bad("position", f"{uid} attacks out of {where}, physically overstacked "
                                         f"({self.stacking(before, where)} units): 9.0 forbids it")
        # A combat is resolved when its turn comes (11.0: in declared order), in
        # the action whose events read its CRT -- its die's, or a decision's
        # that let it go on: 9.0's halving is judged in the position then.
        for i, e in enumerate(events):
            resolved = CRT_READ.match(e.text)
            if not resolved:
                continue
            if any(x.rule == "11.4" or " retreats to " in x.text for x in events[:i]):
                continue  # an earlier combat of this action moved units first: the position is no longer `before`
            target = resolved.group(1)
            attackers = next((a for t, a in battles(before) if t == target), ())
            halved = {m.group(1) for m in FUNCTIONAL_HALVING.finditer(e.text)}
            for uid in attackers:
                where = pieces(before)[uid].where
                if not where[:1].isdigit():
                    continue
                over = limit < self.stacking(before, where) <= physical
                if over != (uid in halved):
                    self.bad("position", f"combat at {target}: {uid} in {where} ({self.stacking(before, where)} units) "
                                         f"{'is not' if over else 'is'} halved for functional overstacking (9.0)")

    # ------------------------------------------------------------------ 13.0

    def check_supply_marks(self, before: Any, after: Any, events: list[Event]) -> None:
        old, new = pieces(before), pieces(after)
        heads, _ = beachheads(before)
        for pid, p in new.items():
            q = old[pid]
            if q.oos and q.disrupted and not p.disrupted and p.where != ELIMINATED:
                self.bad("position", f"{pid} is out of supply and recovered: 13.0 says it 'cannot recover for the rest of the game'")
            if p.oos and not q.oos and q.on_map:
                near = [b for b in heads if self.rules.map.hex(b).distance(self.rules.map.hex(q.where)) <= 1]
                if near:
                    self.bad("position", f"{pid} in {q.where} is marked out of supply next to the beachhead {near[0]} (13.1)")


def _kind(where: str) -> str:
    if where[:1].isdigit():
        return "map"
    return where if where in (ELIMINATED, REMOVED, OFF_MAP, "") else "box"


def _describe(action: Any) -> str:
    if isinstance(action, Ordered):
        return f"order {action.index + 1} of message {action.seq:04d} {dict(action.order)}"
    if isinstance(action, DiceRolled):
        return f"the roll {action.label!r} = {action.values}"
    if isinstance(action, Opened):
        return f"the reveal of {action.slot}"
    if isinstance(action, MessageEnd):
        return f"the end of message {action.seq:04d}"
    return type(action).__name__


# =========================================================================== checks of a whole state


def check_position(ref: ActionReplay, state: Any, who: str, owed: set[str]) -> None:
    """The ``position`` and ``units`` invariants on one player's state after a message."""
    rules, bad = ref.rules, (lambda inv, text: ref.bad(inv, f"{who}: {text}", state))
    units = pieces(state)
    phase = phase_of(state)
    setup_done = phase not in SETUP_PHASES
    by_hex: dict[str, set[str]] = {}
    for p in units.values():
        if p.where == "":
            if setup_done or (phase == "setup-japanese" and p.side == ALLIED):
                bad("units", f"{p.id} is nowhere after the setup")
        elif p.on_map:
            if not rules.is_hex(p.where):
                bad("units", f"{p.id} is in {p.where}, not a hex of the map")
                continue
            if rules.is_sea(p.where):
                bad("position", f"{p.id} is in the sea hex {p.where}")
            by_hex.setdefault(p.where, set()).add(p.side)
        elif p.where in rules.boxes and p.where != ELIMINATED:
            kind = rules.map.boxes[p.where].kind
            if p.side != JAPANESE or kind not in ("first-wave", "second-wave"):
                bad("units", f"{p.id} ({p.side}) is in the {kind} box {p.where}")
        elif p.where == OFF_MAP:
            if p.side != JAPANESE or "14.2" not in options_of(state):
                bad("units", f"{p.id} is off-map without 14.2")
        elif p.where == REMOVED:
            if p.id not in rules.data.concealed_slots or ref.truth.get(p.id, "dummy") != "dummy":
                bad("units", f"{p.id} is removed from the game and is not a dummy (7.2)")
        elif p.where != ELIMINATED:
            bad("units", f"{p.id} is in {p.where!r}: not a hex, a box, eliminated, removed or off-map")
        if p.oos and (p.side != JAPANESE or not (p.on_map and p.disrupted or p.where == ELIMINATED)):
            bad("position", f"{p.id} carries the OOS marker but is {p.side}, {'disrupted' if p.disrupted else 'not disrupted'}, in {p.where} (13.0)")
        if p.oos and not any(t <= turn_of(state) for t in rules.supply_turns):
            bad("position", f"{p.id} is out of supply before any supply check (13.0)")
        if p.penalty:
            if p.side != JAPANESE or p.id not in ref.landed or ref.landed_turn != turn_of(state):
                bad("position", f"{p.id} carries the landing marker {p.penalty!r} and did not land this turn (6.2, 6.3)")
            elif ref.landed[p.id] != p.penalty:
                bad("position", f"{p.id} carries {p.penalty!r}; it landed with {ref.landed[p.id]!r} (6.2, 6.3)")
    for h, sides in by_hex.items():
        if len(sides) > 1:
            bad("position", f"{h} holds units of both sides: {sorted(u.id for u in units.values() if u.where == h)}")
    # 8.0: a concealed unit a Japanese ZOC reaches is revealed at once (owed until the Allied message)
    zone: set[str] = set()
    for p in units.values():
        if p.side == JAPANESE and p.on_map and rules.spec(state, p.id).zoc:
            zone |= rules.zoc_reach(p.where)
    for p in units.values():
        if p.side == ALLIED and p.concealed and p.on_map and p.where in zone and p.id not in owed:
            bad("position", f"{p.id} in {p.where} is concealed in a Japanese ZOC and no reveal is owed (8.0)")
    # 3.1 control
    held = control(state)
    for h in held:
        if h not in rules.key_locations:
            bad("position", f"the Japanese control {h}, not a key location")
        holders = [u for u in units.values() if u.where == h and u.side == ALLIED and not u.concealed and u.identity != "dummy"]
        if holders:
            bad("position", f"{holders[0].id} stands in {h} and the Japanese still control it (3.1)")
    for p in units.values():
        if p.side == JAPANESE and p.where in rules.key_locations and p.where not in held:
            bad("position", f"{p.id} stands in the key location {p.where} and the Japanese do not control it (3.1)")
    # 6.5 beachheads
    heads, lost = beachheads(state)
    for b in heads:
        if b not in rules.lane_targets or b in lost:
            bad("position", f"a beachhead on {b}, {'captured' if b in lost else 'not a landing hex'} (6.5)")
        if any(u.where == b and u.side == ALLIED and not u.concealed and u.identity != "dummy" for u in units.values()):
            bad("position", f"an Allied unit stands on the beachhead {b} (6.5: it removes the marker)")
    for p in units.values():  # 6.5 ruling "entry": any entry places the marker ("landed": only coming ashore)
        if p.side == JAPANESE and p.where in rules.lane_targets and p.where not in heads | lost \
                and state.ruling("6.5") == "entry":
            bad("position", f"{p.id} stands on the landing hex {p.where} and there is no beachhead (6.5)")
    # 6.4 mines
    for mid, (box, status) in mines(state).items():
        if status not in ("hidden", "real", "dummy"):
            bad("position", f"mine marker {mid} is {status!r}")
        if setup_done and box != REMOVED and (box not in rules.boxes or rules.map.boxes[box].kind != "mines"):
            bad("position", f"mine marker {mid} is in {box!r}, not a mine box")
        if status == "dummy" and box != REMOVED and phase not in (LANDING,) + SETUP_PHASES:
            bad("position", f"the revealed dummy mine {mid} is still in {box} after the landings (6.4)")
    # 14.2: off-map until the note is opened
    if "14.2" in options_of(state) and setup_done and phase != "setup-japanese":
        note, away = second_wave_note(state), [p.id for p in units.values() if p.where == OFF_MAP]
        if note and away:
            bad("position", f"the Second Wave note is open and {', '.join(away)} are still off-map (14.2)")
        if not note and len(away) != 8:
            bad("position", f"before the Second Wave note is opened, {len(away)} units are off-map, not the two battalions (14.2)")
        if not note and turn_of(state) > 1:
            bad("position", "turn 1 is over and the Second Wave note was not opened (14.2: in the Recovery Phase of turn 1)")


def check_vp(ref: ActionReplay, state: Any, who: str) -> None:
    total, problems = victory.victory_points(ref.rules.data, state)
    expected, notes = ref.rules.expected_vp(state, ref.truth)
    for note in notes:
        ref.bad("vp", f"{who}: {note}", state)
    if vp_awarded_in_play(state):
        ref.bad("vp", f"{who}: VP awarded outside the rules' tally: {vp_awarded_in_play(state)}", state)
    if total != expected:
        ref.bad("vp", f"{who}: victory_points says {total} VP, the eliminated box, key locations and beachheads "
                      f"give {expected} ({'; '.join(f'{w} {v:+d}' for w, v in problems if v)})", state)
    shown = ref.game.view(state, None)["vp"]
    if shown != expected:
        ref.bad("vp", f"{who}: the view shows {shown} VP, the rules give {expected}", state)


def check_sealed_state(ref: ActionReplay, state: Any, who: str, revealed: dict[str, str], truth: dict[str, str]) -> None:
    """``hidden``: the state knows nothing of a sealed value before its reveal, and applies each reveal made."""
    units, marks = pieces(state), mines(state)
    for slot, value in truth.items():
        opened = slot in revealed
        if slot in units:
            p = units[slot]
            if not opened and (not p.concealed or p.identity):
                ref.bad("hidden", f"{who}: {slot} is {'revealed' if not p.concealed else 'known as ' + p.identity} "
                                  f"in the state before its reveal")
            if opened and p.concealed:
                ref.bad("hidden", f"{who}: {slot} was revealed ({value}) and is still concealed in the state")
            if opened and value == "dummy" and p.where != REMOVED:
                ref.bad("hidden", f"{who}: {slot} was revealed a dummy and is in {p.where}, not removed (7.2)")
            if opened and value == "detachment" and p.identity != "detachment":
                ref.bad("hidden", f"{who}: {slot} was revealed a detachment and the state says {p.identity!r}")
        elif slot in marks:
            box, status = marks[slot]
            if not opened and status != "hidden":
                ref.bad("hidden", f"{who}: mine marker {slot} is {status!r} in the state before its reveal")
            if opened and status != value:
                ref.bad("hidden", f"{who}: mine marker {slot} was revealed {value} and the state says {status!r}")
    note = truth.get(SECOND_WAVE_SLOT)
    if note is not None:
        if SECOND_WAVE_SLOT not in revealed and second_wave_note(state):
            ref.bad("hidden", f"{who}: the Second Wave note is in the state before its reveal")
        if SECOND_WAVE_SLOT in revealed and second_wave_note(state) != note:
            ref.bad("hidden", f"{who}: the Second Wave note was revealed and the state holds {second_wave_note(state)!r}")


def check_phase_events(ref: ActionReplay, events: list[tuple[int, Event]], state: Any) -> bool:
    """``5.0``: once phase events exist -- every phase of 5.0 opened by an
    event, in order, each doing something or saying why not.  Returns
    whether there were any to check."""
    marks = [(i, d) for i, (_, e) in enumerate(events) if (d := phase_event(e)) is not None]
    if not marks:
        return False
    expected = [(t, p) for t in sorted(ref.rules.phases) for p in ref.rules.phases[t]]
    opens = [(i, d) for i, d in marks if "skipped" not in d and phase_name(d["phase"]) in TURN_PHASES]
    got = [(int(d.get("turn", 0)), phase_name(d["phase"])) for _, d in opens]
    if got != expected[: len(got)]:
        first = next(k for k, (g, w) in enumerate(zip(got + [None], expected, strict=False)) if g != w)
        ref.bad("5.0", f"phase {first + 1} of the game was opened as {got[first] if first < len(got) else 'nothing'}, "
                       f"5.0 wants {expected[first] if first < len(expected) else 'the end'}")
        return True
    now = (turn_of(state), phase_of(state))
    # 3.2: while the surrender decision "at the start of turn 8" is open, the turn has begun, its Landing Phase not yet
    deciding = bool(state.surrender_offered) and phase_of(state) == LANDING
    if phase_of(state) in TURN_PHASES and not deciding and (not got or got[-1] != now):
        ref.bad("5.0", f"the game is in turn {now[0]} {now[1]}, and the last phase opened by an event is "
                       f"{got[-1] if got else 'none'}")
    for k, (i, d) in enumerate(opens[:-1]):
        j = opens[k + 1][0]
        between = [e for _, e in events[i + 1 : j]]
        name = phase_name(d["phase"])
        if not any(phase_event(e) is None for e in between) and not any(
            (pe := phase_event(e)) is not None and "skipped" in pe and phase_name(pe["phase"]) == name for e in between
        ):
            ref.bad("5.0", f"turn {d.get('turn')} {name} passed with no event and no 'skipped' reason")
    return True


# =========================================================================== the driver


@dataclass
class Side:
    identity: Any
    directory: Path
    match: Any = None


def play_game(seed: int, root: Path, *, options: Iterable[str] | None = None, max_messages: int = MAX_MESSAGES,
              verify: bool = True) -> PlayedGame:
    """Play the game of ``seed`` in ``root/game-SEED/`` (``root`` holds the
    two keystores, made once) and check every message; the Japanese player
    proposes, the Allied player joins.  ``options``: the optional rules (a
    random subset by default)."""
    from pbem.games.ambon.bot import AmbonBot

    started = time.perf_counter()
    rng = random.Random(f"game {seed}")
    chosen = tuple(sorted(options)) if options is not None else random_options(rng)
    readings = rulings_for(seed) if options is None else {}
    where = root / f"game-{seed}"
    played = PlayedGame(seed, chosen, where, rulings=readings)
    keys = identities(root)
    sides = {side: Side(keys[side], where / PLAYERS[side][0]) for side in (JAPANESE, ALLIED)}
    for s in sides.values():
        if s.directory.exists():
            import shutil

            shutil.rmtree(s.directory)
    bot = AmbonBot(GAME, random.Random(f"bot {seed}"))
    rules = RulesData(GAME)
    setup_options = {"rules": list(chosen)} if chosen else {}
    ref = ActionReplay(GAME, played, rules, {**setup_options, **({"rulings": readings} if readings else {})})
    checker = Checker(ref, played)
    with seeded_protocol(seed):
        first = session.new_game(sides[JAPANESE].directory, "ambon", JAPANESE, keys[ALLIED].public, keys[JAPANESE],
                                 options=setup_options, rulings=readings or None)
        proposal = session.proposal_match(first, keys[ALLIED])
        orders = bot.orders(proposal.replay.state, ALLIED, 1)
        path, _ = session.join_game(first, sides[ALLIED].directory, keys[ALLIED], orders)
    sides[ALLIED].match = session.load(sides[ALLIED].directory, keys[ALLIED])
    received = session.receive(sides[JAPANESE].directory, [path], keys[JAPANESE])
    sides[JAPANESE].match = received.match
    match = received.match
    checker.proposal(match, first)  # message 0: the proposal (no orders), keyed by message 1
    checker.after(1, sides[ALLIED].match, match, path)
    while not match.closed:
        seq = len(match.transcript)
        if seq >= max_messages:
            if max_messages >= MAX_MESSAGES:
                ref.seq = seq
                ref.bad("replay", f"the game did not end in {max_messages} messages")
            break
        side = match.transcript.side_of(seq)
        author, reader = sides[side], sides[ALLIED if side == JAPANESE else JAPANESE]
        orders = bot.orders(author.match.replay.state, side, seq)  # the author's copy: it received the last message
        played.orders.append(orders)
        step = "play (the author writes it)"
        try:
            result = session.play(author.directory, author.identity, orders)
            author.match = result.match
            step = "receive (the other player takes it in)"
            received = session.receive(reader.directory, [result.path], reader.identity)
        except Exception as err:  # noqa: BLE001 - a refused legal order or a crash is a finding
            ref.seq = seq
            ref.bad("replay", f"message {seq:04d} ({side}) failed in {step}: {type(err).__name__}: {err}; "
                              f"orders {orders}")
            break
        reader.match = match = received.match
        checker.after(seq, author.match, reader.match, result.path)
        if len(played.violations) > 200:
            break
    played.messages = len(match.transcript)
    state = match.replay.state
    played.turn, played.phase, played.result = turn_of(state), phase_of(state), GAME.result(state)
    played.rolls, played.events = len(match.replay.rolls), len(match.replay.events)
    checker.finish(match)
    if verify and match.closed:
        reports = [session.verify([s.directory], audit=True) for s in sides.values()]
        for s, report in zip(sides.values(), reports, strict=False):
            for problem in report.problems:
                ref.bad("replay", f"verify --audit of {s.directory.name}'s directory: {problem}")
        logs = [[r.to_json() for r in rep.replay.rolls] for rep in reports]
        if logs[0] != logs[1]:
            ref.bad("replay", "the two directories' roll logs differ")
    played.seconds = time.perf_counter() - started
    return played


class Checker:
    """Runs the per-message checks on the author's and the receiver's matches."""

    def __init__(self, ref: ActionReplay, played: PlayedGame):
        self.ref = ref
        self.played = played
        self.phase_events_seen = False
        self.control_hits = 0  # positive control of the leak detector: revealed values it does see

    def proposal(self, reader: Any, path: Path) -> None:
        """Message 0 (the proposal): its dice, if any, are keyed by message 1."""
        self.ref.message(reader.transcript, 0, reader.transcript.chain_values[1])
        text, bodies, lines = message_parts(path)
        if bodies and bodies[0].get("orders"):
            self.ref.bad("replay", "the proposal carries orders")

    def after(self, seq: int, author: Any, reader: Any, path: Path) -> None:
        ref = self.ref
        transcript = reader.transcript
        partner = reader.player.next_value(len(transcript))
        author_state, reader_state = ref.message(transcript, seq, partner)
        if author is not None and author.replay.state != author_state:
            ref.bad("replay", f"the author's replay differs from the action replay's after its own message: "
                              f"{_diff(author.replay.state, author_state)}")
        if reader.replay.state != reader_state:
            ref.bad("replay", f"the receiver's replay differs from the action replay's: {_diff(reader.replay.state, reader_state)}")
        if [(s, e.to_json()) for s, e in reader.replay.events] != [(s, e.to_json()) for s, e in ref.events]:
            ref.bad("replay", "the receiver's events differ from the action replay's")
        seen = {(r.label, r.key_seq) for r in reader.replay.rolls}
        if len(seen) != len(reader.replay.rolls):
            ref.bad("dice", "the receiver's roll log holds a (label, key) twice")
        if seen != set(ref.rolled):
            ref.bad("replay", f"the receiver rolled {sorted(seen ^ set(ref.rolled))[:4]} differently from the action replay")
        allied = reader if reader.player.side == ALLIED else author
        japanese = reader if reader.player.side == JAPANESE else author
        truth = dict(allied.player.store) if allied is not None else {}
        truth_j = dict(japanese.player.store) if japanese is not None else {}
        ref.truth = truth
        revealed = {slot: r.value for (side, slot), r in transcript.reveals.items()}
        for who, state, match in (("the author", author_state, author), ("the receiver", reader_state, reader)):
            if match is None:
                continue
            owed = {a.slot for a in GAME.awaiting(state) if isinstance(a, RevealDue)}
            check_position(ref, state, who, owed)
            check_vp(ref, state, who)
            check_sealed_state(ref, state, who, revealed, {**truth, **truth_j})
        self.check_views(seq, reader, author, truth, truth_j, revealed, path)
        self.phase_events_seen = check_phase_events(ref, reader.replay.events, reader_state) or self.phase_events_seen

    def check_views(self, seq: int, reader: Any, author: Any, truth: dict[str, str], truth_j: dict[str, str],
                    revealed: dict[str, str], path: Path) -> None:
        ref = self.ref
        hidden_a = {s: v for s, v in truth.items() if s not in revealed}
        hidden_j = {s: v for s, v in truth_j.items() if s not in revealed}
        for match in (reader, author):
            if match is None:
                continue
            mine = match.player.side
            other_hidden = hidden_a if mine == JAPANESE else hidden_j
            view = match.view()
            for leak in leaks(other_hidden, views=[view]):
                ref.bad("hidden", f"the {mine} player's view shows {leak}")
            spectator = GAME.view(match.replay.state, None)
            for leak in leaks({**hidden_a, **hidden_j}, views=[spectator]):
                ref.bad("hidden", f"the spectator's view shows {leak}")
            if mine == JAPANESE:  # positive control: what is revealed, the detector sees
                shown = {s: v for s, v in truth.items() if s in revealed}
                self.control_hits += len(leaks(shown, views=[view]))
        text, bodies, lines = message_parts(path)
        for leak in leaks({**hidden_a, **hidden_j}, views=bodies, lines=lines, text=text):
            ref.bad("hidden", f"message file {path.name} shows {leak}")

    def finish(self, match: Any) -> None:
        if not self.phase_events_seen:
            self.played.unchecked["5.0"] = ("no phase of 5.0 passed without an event: the engine emits no phase "
                                            "events yet (Event data 'phase'); only the forward order was checked")
        if self.control_hits == 0:
            self.played.unchecked["hidden (detector)"] = "no revealed value was on show to prove the leak detector sees"


def _diff(a: Any, b: Any) -> str:
    if dataclasses.is_dataclass(a) and type(a) is type(b):
        names = [f.name for f in dataclasses.fields(a) if getattr(a, f.name) != getattr(b, f.name)]
        return "fields " + ", ".join(names)
    return f"{type(a).__name__} vs {type(b).__name__}"


def choices(games: Iterable[PlayedGame]) -> dict[str, int]:
    """What the bots' choice policy did in ``games``, counted: the kinds of
    order (land, postpone, move, attack, attack-with-hq, bombard, support-none,
    support-hq, surrender-yes/no, advance, advance-none, reveal), messages
    without orders, standing instructions changed during play, optional rules,
    and the rulings' readings played (``ruling 6.5 landed``)."""
    found: dict[str, int] = {}

    def count(key: str) -> None:
        found[key] = found.get(key, 0) + 1

    for g in games:
        for rule in g.options:
            count(f"rule {rule}")
        for rule, reading in g.rulings.items():
            count(f"ruling {rule} {reading}")
        for doc in g.orders:
            if not doc.get("order") and not doc.get("standing"):
                count("message without orders")
            if doc.get("standing") and not any("wave" in o for o in doc.get("order", [])):
                count("standing changed")  # (not the setup message's)
            for order in doc.get("order", []):
                verb = next(iter(order))
                if verb == "attack" and order.get("hq"):
                    verb = "attack-with-hq"
                elif verb == "support":
                    verb = "support-none" if order["support"] == "none" else "support-hq"
                elif verb == "surrender":
                    verb = f"surrender-{order['surrender']}"
                elif verb == "advance" and not order["advance"]:
                    verb = "advance-none"
                count(verb)
    return found


def report(games: list[PlayedGame]) -> str:
    """Every game's summary and every violation, for a failure message."""
    lines = [g.summary() for g in games]
    for g in games:
        lines += [f"  {v}" + (f"  <- known bug {known_bug(v).name}" if known_bug(v) else "") for v in g.violations[:40]]
        if len(g.violations) > 40:
            lines.append(f"  ... and {len(g.violations) - 40} more")
    return "\n".join(lines)


if __name__ == "__main__":  # python tests/ambon_played.py SEED [SEED...]: play and print
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        results = [play_game(int(s), Path(tmp)) for s in sys.argv[1:] or ["0"]]
        print(report(results))
        for g in results:
            for name, why in g.unchecked.items():
                print(f"seed {g.seed}: not checked: {name}: {why}")
