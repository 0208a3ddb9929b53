"""Ambon: Burning Sun & Little Seagulls -- the rules as a pure state machine.

Sides ``japanese`` and ``allied``.  This class is the game's face to the
engine contract; the rules live in the modules it calls:

* :mod:`.orders` -- the syntax of orders;  :mod:`.scenario` -- positions;
* :mod:`.sequence` -- the sequence of play (5.0), written once, and
  :mod:`.phases` -- walking it: what ends a phase, what opens the next,
  and :mod:`.awaited` -- what the game waits for;
* :mod:`.handlers` -- each order applied;  :mod:`.rolls` -- each die;
* :mod:`.hidden` and :mod:`.reveals` -- hidden slots, reveals owed and made;
* :mod:`.entering` -- the effects of entering a hex;  :mod:`.landing`,
  :mod:`.battle`, :mod:`.retreat`, :mod:`.bombardment`, :mod:`.recovery`,
  :mod:`.supply`, :mod:`.victory` -- the rules of each phase;
* :mod:`.views` -- what each side sees, and the audit of the hidden setup.

This module imports them all with itself; the game's package imports it
only when the game is first used (:func:`pbem.engine.installed.lazy_game`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Mapping, Sequence

from pbem.engine.machine import (
    DecisionDue,
    DiceRolled,
    Event,
    MessageEnd,
    Opened,
    Ordered,
    ParsedOrders,
    Sealed,
    describe_awaited,
    illegal,
    replace,
)
from pbem.errors import InputError
from pbem.games.ambon import awaited, handlers, hidden, orders, phases, reveals, rolls, scenario, setup, template, views
from pbem.games.ambon import rulings as ambon_rulings
from pbem.games.ambon.battle import defensive_window
from pbem.games.ambon.boardview import board_view
from pbem.games.ambon.bombardment import able_to_bombard
from pbem.games.ambon.data import OPTIONAL_RULES, AmbonData
from pbem.games.ambon.movement import overstacking_warnings
from pbem.games.ambon.sequence import COMBAT_PHASES, SPEC, other, phasing_side
from pbem.games.ambon.state import ALLIED, GAME_OVER, JAPANESE, SETUP_ALLIED, AmbonState, Mine, Piece

if TYPE_CHECKING:
    from pbem.engine.boardview import BoardView

OPTIONS = OPTIONAL_RULES
STANDING_KINDS = orders.STANDING_KINDS


class AmbonGame:
    """Full adjudication of Ambon."""

    name: ClassVar[str] = "ambon"
    # 3: the sequence of play of 2026-12-01 (every landing combat fought, unpostponed landings attempted, phase events)
    version: ClassVar[str] = "4"  # 4: 11.3 choices asked, combats in declared order, rulings (issue 26)
    sides: ClassVar[tuple[str, str]] = (JAPANESE, ALLIED)
    side_colours: ClassVar[dict[str, str]] = {JAPANESE: "#c8a165", ALLIED: "#3b6fb6"}

    def __init__(self, data_dir: str | None = None):
        self.data = AmbonData(data_dir)
        self.map = self.data.map

    # ------------------------------------------------------------------ contract

    def ruleset_files(self) -> Sequence[tuple[str, bytes]]:
        return self.data.files()

    def initial_state(self, setup_options: Mapping[str, Any]) -> AmbonState:
        options = tuple(sorted(setup_options.get("rules", [])))
        unknown = [o for o in options if o not in OPTIONS]
        if unknown:
            raise InputError(f"unknown optional rule(s) {', '.join(unknown)}; Ambon's are {', '.join(OPTIONS)}")
        pieces = [Piece(u, ALLIED, "") for u in setup.allied_units(self.data, options)]
        pieces += [Piece(x, ALLIED, "", concealed=True) for x in self.data.concealed_slots]
        pieces += [Piece(u, JAPANESE, "") for u in self.data.unit_ids(JAPANESE)]
        mines = tuple(Mine(m, "") for m in self.data.mine_slots)
        return AmbonState(turn=self.data.first_turn, phase=SETUP_ALLIED, pieces=tuple(pieces), mines=mines,
                          options=options, rulings=ambon_rulings.declared(setup_options))

    def choose_rulings(self, named: Mapping[str, str], preset: str | None = None) -> dict[str, str]:
        """Issue 26: the rulings a proposal pins, every one: ``preset``'s
        readings (None: the defaults), those ``named`` instead
        (:func:`pbem.games.ambon.rulings.choose`; the table is
        ``data/rulings.toml``)."""
        return ambon_rulings.choose(named, preset)

    def rulings(self, options: Mapping[str, Any]) -> tuple[Any, ...]:
        """The rulings message 0's ``options`` declare, described for the players (the defaults where it names none)."""
        return ambon_rulings.described(ambon_rulings.declared(options))

    def scenario_state(self, doc: Mapping[str, Any]) -> AmbonState:
        """A position for referee mode and tests (``pbem adjudicate``): the
        document is described by :func:`pbem.games.ambon.scenario.scenario_state`."""
        return scenario.scenario_state(self, doc)

    def scenario_secrets(self, doc: Mapping[str, Any]) -> dict[str, str]:
        """What the referee knows of the hidden pieces: used to answer reveals."""
        return scenario.scenario_secrets(doc)

    def is_over(self, state: AmbonState) -> bool:
        return state.phase == GAME_OVER

    def active_side(self, state: AmbonState) -> str:
        return phasing_side(state.phase) or ALLIED

    def parse_orders(self, document: Mapping[str, Any], side: str) -> ParsedOrders:
        return orders.parse_orders(self.data, document, side)

    def draw_orders(self, document: Mapping[str, Any], side: str, rng: Any) -> dict[str, Any]:
        """4.1: ``setup = "historical"  shuffle = true`` drawn with the client's ``rng`` (:func:`orders.draw`)."""
        return orders.draw(self.data, document, side, rng)

    # ------------------------------------------------------------------ the state machine

    def apply(self, state: AmbonState, action: Any) -> tuple[AmbonState, list[Event]]:
        data = self.data
        if state.phase == GAME_OVER and not isinstance(action, MessageEnd):
            raise illegal("5.0", "the game is over")
        seq = getattr(action, "seq", None)
        if seq is not None and seq != state.seq:  # a new message: what its author saw when writing it
            state = replace(state, seq=seq, seen=(state.turn, str(state.phase)))
        events: list[Event]
        if isinstance(action, Sealed):
            state, events = hidden.sealed(data, state, action), []
        elif isinstance(action, Opened):
            state, events = hidden.published(data, replace(state, seq=action.seq), action), []
        elif isinstance(action, Ordered):
            state, events = handlers.ordered(data, replace(state, seq=action.seq), action)
        elif isinstance(action, DiceRolled):
            state, events = rolls.rolled(data, state, action)
        elif isinstance(action, MessageEnd):
            state, events = phases.message_end(data, replace(state, seq=action.seq), action)
        else:
            raise TypeError(f"unknown action {action!r}")
        state, more = reveals.settle(data, state)
        events += more
        state, more = phases.progress(data, state)
        if isinstance(action, MessageEnd):
            reveals.refused_voluntary(data, state, action.side)
        return state, events + more

    def awaiting(self, state: AmbonState) -> tuple[Any, ...]:
        return awaited.awaiting(self.data, state)

    def decisions(self, state: AmbonState, side: str) -> tuple[str, ...]:
        """What ``side``'s next message decides: its orders in a phase of its
        own (5.0; the setups 4.1, 4.2), a defensive bombardment its artillery
        could make in the enemy's Combat Phase (14.1, when in use), and every
        question no standing instruction answers (11.1 support, 11.4 advance,
        3.2 surrender).  Otherwise -- the opponent's phases, the recovery,
        the supply check -- a message only keys dice and makes the reveals
        the rules demand.  (A voluntary reveal, 13.1, is open in any message
        and is never made for you: not revealing is no decision.)"""
        spec = SPEC.get(state.phase)
        phasing = phasing_side(state.phase)
        found = [f"your {spec.title} ({spec.rule})"] if spec is not None and phasing == side else []
        if state.option("14.1") and state.phase in COMBAT_PHASES and phasing == other(side):
            if not defensive_window(state, state.seq + 1):  # 14.1: after the declarations, before the dice
                return tuple(found + [describe_awaited(a) for a in self.awaiting(state)
                                      if isinstance(a, DecisionDue) and a.side == side])

            able = able_to_bombard(self.data, state, side, defensive=True)
            if able:
                found.append(f"a defensive bombardment by {', '.join(able)} (14.1)")
        found += [describe_awaited(a) for a in self.awaiting(state) if isinstance(a, DecisionDue) and a.side == side]
        return tuple(found)

    def describe_roll(self, state: AmbonState, due: Any, values: tuple[int, ...] | None = None,
                      events: Sequence[Event] = ()) -> dict[str, Any] | None:
        """A die with its DRMs and the modified roll, once rolled
        (:func:`pbem.games.ambon.rolls.describe`); before, the die alone."""
        if values is None:
            return None
        return rolls.describe(values, events)

    def orders_template(self, state: AmbonState, side: str, secrets: Mapping[str, str]) -> Any:
        """The game's part of ``pbem orders DIR``: reveals owed, open
        decisions, setup, landings, movement, bombardment targets, attacks
        and their odds, the bot's example orders
        (:mod:`pbem.games.ambon.template`)."""
        return template.sections(self, state, side, secrets)

    # ------------------------------------------------------------------ views

    def result(self, state: AmbonState) -> list[str]:
        """3.0: the outcome of a finished game, in words (empty while it goes on)."""
        return views.result(self.data, state)

    def view(self, state: AmbonState, side: str | None, secrets: Mapping[str, str] | None = None) -> dict[str, Any]:
        return views.view(self.data, state, side, secrets)

    def board_view(self, view: Mapping[str, Any]) -> "BoardView":
        return board_view(self.map, self.side_colours, self.sides, view)

    def warnings(self, before: AmbonState, after: AmbonState, side: str) -> list[str]:
        """What ``side``'s message would bring about that the rules allow but
        penalise: hexes left overstacked (9.0,
        :func:`pbem.games.ambon.movement.overstacking_warnings`)."""
        return overstacking_warnings(self.data, before, after, side)

    def check_seals(self, state: AmbonState, side: str, store: Mapping[str, str]) -> list[str]:
        """The owner's client checks its sealed values before sending (4.1, 14.2)."""
        return views.check_seals(self.data, state, side, store)

    def audit(self, state: AmbonState, stores: Mapping[str, Mapping[str, str]]) -> list[str]:
        """After the game: the hidden setup obeyed 4.1 (and 14.2)."""
        return views.audit(self.data, state, stores)
