"""Positions for referee mode and tests (``pbem adjudicate``, tests/cases/):
a position file states everything the rules read, the hidden pieces'
identities only as what the referee knows."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from pbem.engine.machine import replace
from pbem.errors import InputError
from pbem.games.ambon import movement, orders, setup, victory
from pbem.games.ambon.state import ALLIED, ELIMINATED, JAPANESE, OFF_MAP, PHASES, SIDES, AmbonState, Mine, Phase, Piece
from pbem.util.schema import Any_, Check, Convert, Key, Refusal, Table

if TYPE_CHECKING:
    from pbem.games.ambon.game import AmbonGame


def scenario_state(game: "AmbonGame", doc: Mapping[str, Any]) -> AmbonState:
    """A position for referee mode and tests (``pbem adjudicate``)::

        turn = 2
        phase = "japanese-movement"
        options = ["14.2"]
        rulings = { "6.5" = "landed" }   (issue 26: readings of disputed rules; the defaults for the rest)
        disrupted = ["AUS-B"]
        beachheads = ["0713"]
        [positions]   "3.A" = "1410"       (units not listed are not in play)
        [concealed]   X1 = "1409"          (identity unknown to the Japanese)
        [revealed]    X2 = "detachment"    (a concealed piece already revealed; M1 = "real": a mine marker)
        [secret]      X1 = "detachment"    (what the referee knows: answers reveals)
        [mines]       M1 = "mine-1"
        [penalties]   "3.A" = "-2mp"
        [control]     "1809" = 3           (Japanese-held key location: turn taken)
        oos = ["2.A"]                      (13.0: out of supply at the turn-7 check: disrupted
                                            and never to recover; Japanese units on the map)
        surrender = "open"                 (3.2: the Allies' decision at the start of the turn is
                                            open; the Landing Phase of a turn with the option)
        [standing.allied] hq-support = "always"  (a side's standing instructions, docs/architecture.md, "Who decides":
                                              the answers the other side's decisions need)
    """
    data = game.data
    read = SCENARIO.read(dict(doc), "", _fail)
    state = game.initial_state({"rules": read["options"], "rulings": dict(read["rulings"])})
    pieces = _placed(data, read, {p.id: replace(p, where="") for p in state.pieces})
    mine_status = _revealed(data, read["revealed"], pieces)
    for pid in read["disrupted"]:
        pieces[pid] = replace(_piece(data, pieces, "disrupted", pid), disrupted=True)
    for pid in read["oos"]:
        p = _piece(data, pieces, "oos", pid)
        if p.side != JAPANESE or not p.on_map:
            raise InputError(f"scenario: oos {pid!r}: an OOS marker goes on a Japanese unit on the map (13.0)", field="oos")
        pieces[pid] = replace(p, oos=True, disrupted=True)  # 13.0: "becomes disrupted, and cannot recover"
    for pid, penalty in read["penalties"].items():
        if penalty not in ("no-move", "opposed") and movement.mp_penalty(penalty) is None:
            raise InputError(f"scenario: [penalties] {pid} = {penalty!r}: -2mp (any -Nmp), no-move or opposed",
                             field="penalties")
        pieces[pid] = replace(_piece(data, pieces, "penalties", pid), penalty=penalty)
    mines_at = read["mines"]
    for marker in mines_at:
        if marker not in data.mine_slots:
            raise InputError(f"scenario: [mines] {marker!r} is not a mine marker "
                             f"({setup.span(data.mine_slots)})", field="mines")
    for hexlabel in read["beachheads"]:
        data.map.hex(hexlabel)
    control = tuple((data.map.label(data.map.hex(h)), _number("control", t)) for h, t in read["control"].items())
    turn = _number("turn", read["turn"] if read["turn"] is not None else data.first_turn)
    if not data.first_turn <= turn <= data.last_turn:
        raise InputError(f"scenario: turn {turn} is not on the turn track "
                         f"({data.first_turn}-{data.last_turn})", field="turn")
    state = replace(
        state,
        turn=turn,
        phase=read["phase"],
        pieces=tuple(pieces.values()),
        mines=tuple(Mine(m, str(mines_at.get(m, "")), mine_status.get(m, "hidden")) for m in data.mine_slots),
        beachheads=tuple(read["beachheads"]),
        control=control,
        sealed=tuple((ALLIED, slot) for slot in data.concealed_slots + data.mine_slots),
        standing=_standing(data, state.standing, read["standing"]),
    )
    if read["surrender"] is not None:
        state = _surrender_open(data, state, read["surrender"])
    return state


def _fail(path: str, what: str, needle: str | None = None) -> InputError:
    return InputError(f"scenario: {what}", field=path.split(".")[0] or None)


def _table_of_names(key: str) -> Check[Any]:
    """``[key]``: a table of names to strings (or numbers)."""
    return Check(Any_(), lambda value: None if isinstance(value, Mapping) and all(
        isinstance(v, (str, int)) for v in value.values()) else f"[{key}] must be a table of names to strings")


def _names(key: str) -> Check[Any]:
    return Check(Any_(), lambda value: None if isinstance(value, list) and all(isinstance(v, str) for v in value)
                 else f"{key} must be a list of strings")


def _phase(phase: Any) -> Phase:
    if phase not in PHASES:
        raise Refusal(f"phase {phase!r} is not one of {', '.join(PHASES)}")
    return Phase(phase)


def _standing_tables(given: Any) -> str | None:
    return None if isinstance(given, Mapping) else "[standing] must hold one table per side, e.g. [standing.allied]"


#: A position file (see :func:`scenario_state`).
SCENARIO = Table({
    "turn": Key(Any_()), "phase": Key(Convert(Any_(), _phase), Phase.J_MOVEMENT),
    **{key: Key(_names(key), []) for key in ("options", "disrupted", "beachheads", "oos")},
    **{key: Key(_table_of_names(key), {}) for key in ("rulings", "positions", "concealed", "secret", "mines",
                                                        "penalties", "control", "revealed")},
    "standing": Key(Check(Any_(), _standing_tables), {}), "surrender": Key(Any_()),
}, unknown=lambda names, allowed: f"unknown key(s) {', '.join(sorted(names))} (known: {', '.join(sorted(allowed))})")


def _number(key: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"scenario: {key} = {value!r} must be a whole number", field=key)
    return value


def _piece(data: Any, pieces: dict[str, Piece], key: str, pid: str, concealed: bool | None = None) -> Piece:
    if pid not in pieces or (concealed is not None and pieces[pid].concealed != concealed):
        what = f"a concealed piece ({setup.span(data.concealed_slots)})" if concealed else "a unit of this game"
        raise InputError(f"scenario: [{key}] {pid!r} is not {what}", field=key)
    return pieces[pid]


def _placed(data: Any, read: Mapping[str, Any], pieces: dict[str, Piece]) -> dict[str, Piece]:
    """``[positions]`` and ``[concealed]``: where each piece in play is."""
    for key, concealed in (("positions", False), ("concealed", True)):
        for pid, where in read[key].items():
            if not isinstance(where, str):
                raise InputError(f"scenario: [{key}] {pid} = {where!r}: give a hex or box as a string", field=key)
            if where[:1].isdigit():
                data.map.hex(where)
            elif where not in data.map.boxes and where not in (ELIMINATED, OFF_MAP):
                raise InputError(f"scenario: {pid} is placed in {where!r}, neither a hex nor a box", field=key)
            pieces[pid] = replace(_piece(data, pieces, key, pid, concealed), where=where)
    return pieces


def _revealed(data: Any, revealed: Mapping[str, Any], pieces: dict[str, Piece]) -> dict[str, str]:
    """``[revealed]``: the concealed pieces revealed (in ``pieces``) and the mine markers (returned)."""
    mine_status: dict[str, str] = {}
    for pid, identity in revealed.items():
        if pid in data.mine_slots:  # a mine marker a mine check revealed (6.1), still in its box
            if identity not in ("real", "dummy"):
                raise InputError(f"scenario: [revealed] {pid} = {identity!r}: a mine marker is real or dummy",
                                 field="revealed")
            mine_status[pid] = identity
            continue
        if identity not in ("detachment", "dummy"):
            raise InputError(f"scenario: [revealed] {pid} = {identity!r}: detachment or dummy", field="revealed")
        pieces[pid] = replace(_piece(data, pieces, "revealed", pid, True), concealed=False, identity=identity)
    return mine_status


def _standing(data: Any, standing: Any, given: Mapping[str, Any]) -> Any:
    """``[standing.<side>]``: each side's standing instructions."""
    for side, instructions in given.items():
        if side not in SIDES or not isinstance(instructions, Mapping):
            raise InputError(f"scenario: [standing.{side}]: a table per side ({', '.join(SIDES)})",
                             field="standing")
        for order in orders.parse_orders(data, {"standing": dict(instructions)}, side).public:
            standing = standing.updated(side, {k: v for k, v in order.items() if k != "type"})
    return standing


def _surrender_open(data: Any, state: AmbonState, surrender: Any) -> AmbonState:
    """``surrender = "open"``: 3.2's decision still to be made, at the start of a turn that offers it."""
    if surrender != "open":
        raise InputError(f"scenario: surrender = {surrender!r}: the only value is \"open\" (3.2: the Allied "
                         f"decision is still to be made)", field="surrender")
    if not victory.may_surrender(data, state):
        turns = [str(t.number) for t in data.turn_track if t.surrender_option]
        raise InputError(f"scenario: surrender = \"open\": 3.2 offers the surrender at the start of turn "
                         f"{' or '.join(turns)} (its Landing Phase, before any landing), with an Allied HQ on the map; "
                         f"this position is turn {state.turn}, {state.phase}", field="surrender")
    return replace(state, surrender_offered=True)


def scenario_secrets(doc: Mapping[str, Any]) -> dict[str, str]:
    """What the referee knows of the hidden pieces: used to answer reveals."""
    return dict(doc.get("secret", {}))

