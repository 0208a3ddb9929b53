"""The whole plugin contract of a pbem game (docs/architecture.md).

A game is an object registered under the ``pbem.games`` entry-point group.
It must be a :class:`Game`; it may offer any of the optional capabilities
below.  The layers above ``engine`` (match, the application workflows,
render, cli) ask a game for a capability with ``isinstance(game,
Capability)`` -- never by probing attribute names, never by the game's
name -- so a third-party game is treated exactly like the shipped ones.

The actions a game receives and the events and awaited items it returns are
:mod:`pbem.engine.machine`'s; the parts of an orders template are
:class:`Section` and :class:`Sections`, here beside the capability that
returns them.

A game may also have a *frontend*: what it offers above its rules -- the
terminal dialogue of ``pbem play``, a scripted demo game.  It is a module
(or any object) registered under the ``pbem.frontends`` entry-point group by
the game's name, found by :func:`pbem.engine.registry.frontend`, and asked with
``isinstance`` for :class:`Dialogue` and :class:`Demo`.  A game's CLI
commands are a :class:`Commands` registered under ``pbem.commands``: listing
``pbem``'s commands imports just those, not every game's rules.  A frontend
module may import click and the layers above ``engine``; the rules modules
of a game may not.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Mapping, Protocol, Sequence, runtime_checkable

from pbem.engine.machine import Action, Awaited, DecisionDue, DiceDue, Event, ParsedOrders, describe_awaited
from pbem.errors import InputError

if TYPE_CHECKING:  # annotations only
    from pbem.engine.boardview import BoardView


@runtime_checkable
class Game(Protocol):
    """What every game provides.  Register an instance under the
    ``pbem.games`` entry-point group."""

    name: ClassVar[str]
    version: ClassVar[str]
    sides: ClassVar[tuple[str, str]]

    def ruleset_files(self) -> Sequence[tuple[str, bytes]]:
        """(name, bytes) of every data file; their hash pins the ruleset."""

    def initial_state(self, setup: Mapping[str, Any]) -> Any:
        """The position before message 0's orders; ``setup`` holds options."""

    def parse_orders(self, document: Mapping[str, Any], side: str) -> ParsedOrders:
        """Syntax only: raise :class:`~pbem.errors.InputError` naming the field."""

    def apply(self, state: Any, action: Action) -> tuple[Any, list[Event]]:
        """Pure: the next state and what happened.  Raises
        :class:`~pbem.errors.IllegalOrderError` citing the rule."""

    def awaiting(self, state: Any) -> tuple[Awaited, ...]:
        """Input needed before the game can go on."""

    def view(self, state: Any, side: str | None, secrets: Mapping[str, str] | None = None) -> dict[str, Any]:
        """JSON-able picture of the state as ``side`` may see it (None = spectator)."""

    def is_over(self, state: Any) -> bool:
        """True once no further message is expected."""


#: The members every :class:`Game` has, in the order written above, for messages that say what a non-game lacks.
GAME_MEMBERS = tuple(Game.__annotations__) + tuple(
    name for name, value in vars(Game).items() if callable(value) and not name.startswith("_"))


def lacking(obj: Any) -> list[str]:
    """The members of :class:`Game` that ``obj`` does not have."""
    return [m for m in GAME_MEMBERS if not hasattr(obj, m)]


# --------------------------------------------------------------------------- optional capabilities


@runtime_checkable
class RefereePositions(Protocol):
    """Referee mode (``pbem adjudicate``): a position read from a file, and
    whose orders it awaits."""

    def scenario_state(self, doc: Mapping[str, Any]) -> Any: ...

    def active_side(self, state: Any) -> str: ...


@runtime_checkable
class RefereeSecrets(Protocol):
    """What a referee knows of a position's hidden facts, to answer the reveals the rules demand."""

    def scenario_secrets(self, doc: Mapping[str, Any]) -> dict[str, str]: ...


@runtime_checkable
class OrdersTemplates(Protocol):
    """The game's part of ``pbem orders``: what is awaited and the legal choices (:class:`Sections`)."""

    def orders_template(self, state: Any, side: str, secrets: Mapping[str, str]) -> "Sections": ...


@runtime_checkable
class SealChecks(Protocol):
    """The owner's client checks its sealed values before sending (problems, in words)."""

    def check_seals(self, state: Any, side: str, store: Mapping[str, str]) -> list[str]: ...


@dataclass(frozen=True)
class Ruling:
    """One sentence of a game's rules that can be read more than one way,
    and the reading a game plays (issue 26)."""

    rule: str  # its rule number, e.g. "6.5"
    title: str  # what it is about, in a few words
    sentence: str  # the rulebook's sentence, quoted
    reading: str  # the reading played, e.g. "landed"
    meaning: str  # what that reading means, in one line
    default: bool  # it is the game's default reading
    readings: tuple[tuple[str, str], ...] = ()  # every reading the game offers: (name, meaning)

    def line(self) -> str:
        """``6.5 beachheads: landed -- a beachhead is placed only where ...``"""
        return f"{self.short()} -- {self.meaning}"

    def short(self) -> str:
        """``6.5 beachheads: landed (not the default)``"""
        return f"{self.rule} {self.title}: {self.reading}{'' if self.default else ' (not the default)'}"

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "title": self.title, "sentence": self.sentence, "reading": self.reading,
                "meaning": self.meaning, "default": self.default,
                "readings": [{"name": n, "meaning": m} for n, m in self.readings]}


@runtime_checkable
class Rulings(Protocol):
    """Declared rulings: the proposer chooses a reading of each disputed
    sentence; message 0 pins every one, as ``setup.options.rulings``
    (``{rule: reading}``), and both players' pbem play exactly those.

    ``choose_rulings(named, preset)`` is that whole table: ``preset``'s
    readings (None: the defaults), with those ``named`` ({rule: reading})
    instead; an unknown rule, reading or preset is an
    :class:`~pbem.errors.InputError` naming the field and listing the
    choices.  ``rulings(options)`` describes the rulings a proposal's
    options declare, every one (the default where it names none: a proposal
    made before the game declared rulings)."""

    def choose_rulings(self, named: Mapping[str, str], preset: str | None = None) -> dict[str, str]: ...

    def rulings(self, options: Mapping[str, Any]) -> Sequence[Ruling]: ...


def proposed_options(game: Any, options: Mapping[str, Any], named: Mapping[str, str],
                     preset: str | None) -> dict[str, Any]:
    """A proposal's options with the game's :class:`Rulings` table filled in
    (every ruling named, so message 0 pins them all); ``named`` or
    ``preset`` for a game without rulings is an InputError."""
    if isinstance(game, Rulings):
        return {**options, "rulings": game.choose_rulings(named, preset)}
    if named or preset:
        raise InputError(f"--ruling/--rulings: the {getattr(game, 'name', 'game')} game declares no rulings",
                         field="rulings")
    return dict(options)


def declared_rulings(game: Any, options: Mapping[str, Any]) -> tuple[Ruling, ...]:
    """The rulings ``game`` plays under a proposal's ``options`` (none for a game without :class:`Rulings`)."""
    return tuple(game.rulings(options)) if isinstance(game, Rulings) else ()


@runtime_checkable
class Terms(Protocol):
    """A game whose message 0 pins more than one set of rules or names its
    own sides (the dice game: the dice rules of its ``module_version``, the
    sides of ``options.sides``).  ``for_terms(version, options)`` is the game
    a message 0 pinning ``module_version = version`` and ``options`` is
    played with: its ``version``, ``sides`` and ``ruleset_files()`` are
    those the proposal pins (the game itself for a version it does not know,
    which the caller then refuses); malformed options are an
    :class:`~pbem.errors.InputError` naming the field."""

    def for_terms(self, version: str, options: Mapping[str, Any]) -> Any: ...


def game_for_terms(game: Any, version: str, options: Mapping[str, Any]) -> Any:
    """``game`` as a message 0 pinning ``version`` and ``options`` plays it (itself without :class:`Terms`)."""
    return game.for_terms(version, options) if isinstance(game, Terms) else game


@runtime_checkable
class Draws(Protocol):
    """Orders that leave a choice to the player's own randomness (Ambon's
    ``shuffle = true`` for the 4.1 identities).  The owner's client draws
    it once, with ``rng`` (the operating system's randomness), before the
    message is composed, shown or written; the message seals what was drawn,
    so the player is shown exactly what is sent.  Pure given ``rng``."""

    def draw_orders(self, document: Mapping[str, Any], side: str, rng: Any) -> Mapping[str, Any]: ...


def drawn(game: Any, document: Mapping[str, Any], side: str, rng: Any) -> Mapping[str, Any]:
    """``document`` with ``game``'s :class:`Draws` made (as it is for a game without them)."""
    return game.draw_orders(document, side, rng) if isinstance(game, Draws) else document


@runtime_checkable
class Warnings(Protocol):
    """What a message would bring about that the rules allow but its author
    may not want, in words citing the rule (``"9.0: 1508 would hold 4 units
    (...): functionally overstacked, every CF halved"``): ``pbem play
    --dry-run`` and the preview before writing show them.  ``before``: the
    state the message starts from; ``after``: the state it leaves (its own
    dice not rolled yet); ``side``: its author.  Only what ``side`` may see."""

    def warnings(self, before: Any, after: Any, side: str) -> Sequence[str]: ...


@runtime_checkable
class Audit(Protocol):
    """After the game: the hidden facts of both sides checked against the rules (``verify --audit``)."""

    def audit(self, state: Any, stores: Mapping[str, Mapping[str, str]]) -> list[str]: ...


@runtime_checkable
class Ending(Protocol):
    """A game whose end is announced one message before it is over: the
    closing message may carry reveals only."""

    def is_ending(self, state: Any) -> bool: ...


@runtime_checkable
class Summary(Protocol):
    """Lines that describe the position, for a game without a board."""

    def summary(self, state: Any) -> list[str]: ...


@runtime_checkable
class Result(Protocol):
    """The outcome of a finished game, in words (empty while it goes on)."""

    def result(self, state: Any) -> list[str]: ...


@runtime_checkable
class BoardViews(Protocol):
    """What the renderers draw of a view: ``board_view(view)`` builds a
    :class:`~pbem.engine.boardview.BoardView` from what ``view(state,
    side, secrets)`` gave that side -- the map (if the game has one), its
    stacks and boxes, the header, the order of battle, the VP, and what
    each mark means -- in words that belong to no game, so that the
    renderers read none of the game's.  Only what the view holds, so only
    what that side may see."""

    def board_view(self, view: Mapping[str, Any]) -> BoardView: ...


@runtime_checkable
class DescribesRolls(Protocol):
    """How a game's dice groups make up the rolls its players read (``pbem
    log``, ``pbem play``, the mail summary); nothing of it is in the files:
    like the rolls, it is recomputed from them.

    ``describe_roll(state, due)`` describes a group ``due`` awaited in
    ``state``; ``describe_roll(state, due, values, events)`` the group once
    rolled, ``state`` the state it was rolled in and ``events`` what applying
    ``values`` produced.  The answer is a mapping with any of

    ``roll``        the declared roll's label, shared by all its groups
                    (default: the group's own label);
    ``expression``  the roll as its players write it: ``"2d6+1"``, ``"DR+1"``
                    (default ``"NdS"``);
    ``sign``        the group's sign in the sum, 1 or -1 (default 1);
    ``modifiers``   ``[(why, value), ...]`` added to the dice, ``why`` the rule
                    or ``""`` (default none);
    ``total``       what the game computes, once the roll's last group is
                    rolled (default none: the values are read one by one);
    ``shown``       the result as the game writes it, once the roll's last
                    group is rolled: ``"6 + 2 + 5 (dropped 1) = 13"`` for a
                    roll whose dice are not simply summed (default: the dice
                    and modifiers summed),

    or None: the group is a roll of its own, read value by value.
    """

    def describe_roll(self, state: Any, due: DiceDue, values: tuple[int, ...] | None = None,
                      events: Sequence[Event] = ()) -> Mapping[str, Any] | None: ...


@runtime_checkable
class SideColours(Protocol):
    """Each side's counter colour, ``#rrggbb`` by side id."""

    side_colours: dict[str, str]


def board_of(game: Any, view: Mapping[str, Any]) -> BoardView | None:
    """The :class:`BoardViews` board of ``view`` (None for a game without one)."""
    return game.board_view(view) if isinstance(game, BoardViews) else None


def side_colours(game: Any) -> dict[str, str] | None:
    return game.side_colours if isinstance(game, SideColours) else None


def is_ending(game: Any, state: Any) -> bool:
    return isinstance(game, Ending) and game.is_ending(state)


@runtime_checkable
class Decisions(Protocol):
    """What ``side``'s next message would decide in ``state``, in words
    citing the rule (``"your Japanese Movement Phase (7.0)"``); empty when it
    decides nothing -- it only reveals what the rules demand and keys the
    dice with its chain value, every question answered by a standing
    instruction.  ``pbem watch`` answers such a message by itself; a game
    that does not say is asked about every message but the closing one."""

    def decisions(self, state: Any, side: str) -> Sequence[str]: ...


def decisions_for(game: Any, state: Any, side: str, *, closing: bool) -> tuple[str, ...]:
    """:class:`Decisions` of ``game``, conservatively: a closing message
    (the game over or ending: reveals only, 7.6 of docs/protocol.md) decides
    nothing; a game without the capability decides in every other message;
    and every :class:`~pbem.engine.machine.DecisionDue` of ``side`` is a
    decision whatever the game says."""
    if closing:
        return ()
    asked = [describe_awaited(a) for a in game.awaiting(state) if isinstance(a, DecisionDue) and a.side == side]
    own = list(game.decisions(state, side)) if isinstance(game, Decisions) else [
        f"your orders (a {getattr(game, 'name', 'game')} game leaves every message but the closing one to you)"]
    return tuple(dict.fromkeys(own + asked))


# --------------------------------------------------------------------------- orders templates


@dataclass
class Section:
    """Part of a template: a title, explanation lines and example orders.

    An example that is a list of orders is a group, kept or left out as a
    whole: a setup that is legal only once complete (Ambon's 14.2 setup)."""

    title: str
    notes: list[str] = field(default_factory=list)
    examples: list[dict[str, Any] | list[dict[str, Any]]] = field(default_factory=list)


@dataclass
class Sections:
    """What a game says about one side's next message."""

    awaited: list[str] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    standing: dict[str, str] = field(default_factory=dict)  # an example [standing] table
    choices: dict[str, Any] = field(default_factory=dict)  # the same, as data (--json)


# --------------------------------------------------------------------------- frontends


@runtime_checkable
class Commands(Protocol):
    """CLI commands of the game (the object a ``pbem.commands`` entry point
    names, e.g. a module's ``register`` function): ``register(main)`` adds
    them to the ``pbem`` click group (and may add subcommands to its groups,
    e.g. ``solo``); registering twice changes nothing.  Called whenever the
    command list is needed, so the module defining it must import little at
    its top."""

    def __call__(self, main: Any) -> None: ...


@runtime_checkable
class Dialogue(Protocol):
    """``pbem play DIR`` without ``--orders``: the orders asked at the
    terminal.  ``match`` is the player's :class:`pbem.match.session.Match`;
    returns the orders document (raises :class:`~pbem.errors.UsageError` to
    stop with no message written)."""

    def ask_orders(self, match: Any) -> dict[str, Any]: ...


@runtime_checkable
class Demo(Protocol):
    """``pbem demo GAME``: a whole scripted game (:class:`DemoScript`), played
    by email between two fresh identities by :mod:`pbem.app.demo`."""

    def demo(self, **options: Any) -> "DemoScript": ...


@dataclass(frozen=True)
class DemoPlayer:
    """One of the two players of a demo."""

    name: str  # the keystore's directory name, e.g. "kenji"
    full_name: str  # the identity's name, e.g. "Kenji (Japanese, demo)"
    side: str


def _nothing(match: Any, events: Sequence[Event]) -> str:
    return ""


@dataclass(frozen=True)
class DemoScript:
    """A scripted demo game: ``proposer`` writes message 0, ``joiner``
    message 1, then they alternate until both closing messages are sent.

    ``orders_for(match, side, seq)`` gives the orders document of message
    ``seq`` from its author's copy of the game (``match``), and the TOML text
    kept in DIR/orders (None: pbem writes it from the document).
    ``describe(match, events)`` adds to each message's progress line (the
    events are those the message brought); ``last_line(match)``, if given,
    is the demo's last progress line.  ``highlight`` names the rules whose
    events the final board shows (a game whose :class:`BoardViews` board has a map)."""

    summary: str  # one line for ``pbem demo --help``
    proposer: DemoPlayer
    joiner: DemoPlayer
    orders_for: Callable[[Any, str, int], tuple[dict[str, Any], str | None]]
    describe: Callable[[Any, Sequence[Event]], str] = _nothing
    last_line: Callable[[Any], str] | None = None
    highlight: tuple[str, ...] = ()
