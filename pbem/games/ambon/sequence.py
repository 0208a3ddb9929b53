"""The sequence of play (5.0), written once.

    - Japanese Player Turn  a. Landing Phase  b. Movement Phase
                            c. Bombardment Phase  d. Combat Phase
    - Allied Player Turn    a. Movement Phase  b. Bombardment Phase
                            c. Combat Phase
    - Recovery Phase
    - Supply Check Phase (turn 7 only)

:data:`SEQUENCE` is that list, with the two setup phases (4.1, 4.2) before
it and the surrender option (3.2) at the start of a turn.  Everything else
derives from it: the phase names of ``turns.toml`` (checked against it by
:func:`check_turn_phases`), which phase follows which (:func:`following`,
from the turn's own list in the data), whose phase it is
(:func:`phasing_side`), the phases an orders template may offer
(:func:`phases_from`), and the event each phase leaves in the log
(:func:`opened`, and :func:`pbem.games.ambon.phases.skipped`): a game
turn's log shows all of 5.0, each phase with what happened in it or why
nothing did.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Iterable

from pbem.engine.machine import Event

if TYPE_CHECKING:
    from pbem.games.ambon.data import AmbonData
    from pbem.games.ambon.state import AmbonState

JAPANESE = "japanese"
ALLIED = "allied"
SIDES = (JAPANESE, ALLIED)


def other(side: str) -> str:
    return ALLIED if side == JAPANESE else JAPANESE


class Phase(StrEnum):
    """The phases of the game, by the names ``turns.toml`` and position files use."""

    SETUP_ALLIED = "setup-allied"  # 4.1
    SETUP_JAPANESE = "setup-japanese"  # 4.2
    SURRENDER = "allied-surrender-option"  # 3.2: offered as the turn begins, decided during the Landing Phase
    LANDING = "japanese-landing"  # 6.0
    J_MOVEMENT = "japanese-movement"  # 7.0
    J_BOMBARDMENT = "japanese-bombardment"  # 10.0
    J_COMBAT = "japanese-combat"  # 11.0
    A_MOVEMENT = "allied-movement"
    A_BOMBARDMENT = "allied-bombardment"
    A_COMBAT = "allied-combat"
    RECOVERY = "recovery"  # 12.0
    SUPPLY = "supply-check"  # 13.0
    GAME_OVER = "over"  # 3.0


@dataclass(frozen=True)
class PhaseSpec:
    """One step of 5.0: whose it is, the rule that governs it, what players call it."""

    phase: Phase
    side: str | None  # the phasing side; None: both sides or neither (recovery, supply)
    rule: str
    title: str
    in_turn: bool = True  # False: the setup, played once before turn 1
    state_phase: bool = True  # False: a step that opens no phase of its own (3.2's decision)


SEQUENCE: tuple[PhaseSpec, ...] = (
    PhaseSpec(Phase.SETUP_ALLIED, ALLIED, "4.1", "Allied setup", in_turn=False),
    PhaseSpec(Phase.SETUP_JAPANESE, JAPANESE, "4.2", "Japanese setup", in_turn=False),
    PhaseSpec(Phase.SURRENDER, ALLIED, "3.2", "Allied surrender option", state_phase=False),
    PhaseSpec(Phase.LANDING, JAPANESE, "6.0", "Japanese Landing Phase"),
    PhaseSpec(Phase.J_MOVEMENT, JAPANESE, "7.0", "Japanese Movement Phase"),
    PhaseSpec(Phase.J_BOMBARDMENT, JAPANESE, "10.0", "Japanese Bombardment Phase"),
    PhaseSpec(Phase.J_COMBAT, JAPANESE, "11.0", "Japanese Combat Phase"),
    PhaseSpec(Phase.A_MOVEMENT, ALLIED, "7.0", "Allied Movement Phase"),
    PhaseSpec(Phase.A_BOMBARDMENT, ALLIED, "10.0", "Allied Bombardment Phase"),
    PhaseSpec(Phase.A_COMBAT, ALLIED, "11.0", "Allied Combat Phase"),
    PhaseSpec(Phase.RECOVERY, None, "12.0", "Recovery Phase"),
    PhaseSpec(Phase.SUPPLY, None, "13.0", "Supply Check Phase"),
)
SPEC: dict[Phase, PhaseSpec] = {s.phase: s for s in SEQUENCE}
#: Every phase a position can be in, in the order of play.
PHASES: tuple[Phase, ...] = tuple(s.phase for s in SEQUENCE if s.state_phase)
#: The phases every turn plays (5.0); the surrender option and the supply check only where the data says.
EVERY_TURN: tuple[Phase, ...] = tuple(s.phase for s in SEQUENCE if s.in_turn and s.phase not in (Phase.SURRENDER, Phase.SUPPLY))
#: A side's own phases, in order: (movement, bombardment, combat).
OWN_PHASES = {
    JAPANESE: (Phase.J_MOVEMENT, Phase.J_BOMBARDMENT, Phase.J_COMBAT),
    ALLIED: (Phase.A_MOVEMENT, Phase.A_BOMBARDMENT, Phase.A_COMBAT),
}
MOVEMENT_PHASES = (Phase.J_MOVEMENT, Phase.A_MOVEMENT)
BOMBARDMENT_PHASES = (Phase.J_BOMBARDMENT, Phase.A_BOMBARDMENT)
COMBAT_PHASES = (Phase.J_COMBAT, Phase.A_COMBAT)


def phasing_side(phase: str) -> str | None:
    spec = SPEC.get(phase)  # type: ignore[call-overload]
    return spec.side if spec is not None and spec.phase is not Phase.GAME_OVER else None


def title(phase: str) -> str:
    spec = SPEC.get(phase)  # type: ignore[call-overload]
    return spec.title if spec else str(phase)


def order_of(phase: str) -> int:
    """The place of ``phase`` in 5.0 (setup first); the game's end after all."""
    return PHASES.index(phase) if phase in PHASES else len(PHASES)


# --------------------------------------------------------------------------- the data's turn track


def check_turn_phases(phases: Iterable[str]) -> str:
    """5.0 for one ``turns.toml`` turn: its phases are phases of the turn,
    each once, in 5.0's order, with every phase 5.0 plays each turn.  Returns
    what is wrong ("" when nothing is)."""
    phases = list(phases)
    names = [s.phase.value for s in SEQUENCE if s.in_turn]
    unknown = [p for p in phases if p not in names]
    if unknown:
        return f"unknown phase {unknown[0]!r} (known: {', '.join(names)})"
    if len(set(phases)) != len(phases) or sorted(phases, key=names.index) != phases:
        return f"each phase once, in the order of 5.0: {', '.join(names)}"
    missing = [p.value for p in EVERY_TURN if p.value not in phases]
    if missing:
        return f"every turn plays {', '.join(p.value for p in EVERY_TURN)} (5.0); missing: {', '.join(missing)}"
    return ""


def turn_phases(data: "AmbonData", turn: int) -> tuple[Phase, ...]:
    """The phases turn ``turn`` plays, in order, from the turn track."""
    return tuple(Phase(p) for p in data.turn(turn).phases if SPEC[Phase(p)].state_phase)


def following(data: "AmbonData", turn: int, phase: str) -> tuple[int, Phase] | None:
    """(turn, phase) that comes after ``phase`` of ``turn``; None after the last turn's last phase."""
    if phase == Phase.SETUP_ALLIED:
        return turn, Phase.SETUP_JAPANESE
    if phase == Phase.SETUP_JAPANESE:
        return data.first_turn, turn_phases(data, data.first_turn)[0]
    phases = turn_phases(data, turn)
    i = phases.index(Phase(phase))
    if i + 1 < len(phases):
        return turn, phases[i + 1]
    if turn >= data.last_turn:
        return None
    return turn + 1, turn_phases(data, turn + 1)[0]


def phases_from(data: "AmbonData", turn: int, phase: str, side: str) -> list[Phase]:
    """The phases a message of ``side`` may give orders for when the game is
    in ``phase``: the current one if it is the side's, and the side's own
    phases that follow it before the other side's first (5.0).  None while
    the other side is phasing (its message answers reveals and decisions)."""
    if phase == Phase.GAME_OVER or phasing_side(phase) != side:
        return []
    found = [Phase(phase)]
    at: tuple[int, Phase] | None = (turn, Phase(phase))
    while True:
        at = following(data, *at) if at else None
        if at is None or at[0] != turn or phasing_side(at[1]) != side:
            return found
        found.append(at[1])


# --------------------------------------------------------------------------- what each phase leaves in the log


def opened(state: "AmbonState") -> Event:
    """The event of a phase beginning (5.0)."""
    spec = SPEC[Phase(state.phase)]
    when = f"turn {state.turn}: " if spec.in_turn else ""
    return Event("5.0", f"{when}the {spec.title} begins", {"phase": spec.phase.value, "turn": state.turn})
