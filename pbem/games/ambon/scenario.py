"""Positions for referee mode and tests (``pbem adjudicate``, tests/cases/):
a position file states everything the rules read, the hidden pieces'
identities only as what the referee knows."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from pbem.engine.machine import replace
from pbem.errors import InputError
from pbem.games.ambon import movement, orders, setup, victory
from pbem.games.ambon.state import ALLIED, ELIMINATED, JAPANESE, OFF_MAP, PHASES, SIDES, AmbonState, Mine, Phase, Piece

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
    known = {"turn", "phase", "options", "rulings", "disrupted", "beachheads", "positions", "concealed", "secret",
             "mines", "penalties", "control", "revealed", "standing", "oos", "surrender"}
    unknown = sorted(set(doc) - known)
    if unknown:
        raise InputError(f"scenario: unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})", field=unknown[0])

    def table(key: str) -> Mapping[str, Any]:
        value = doc.get(key, {})
        if not isinstance(value, Mapping) or not all(isinstance(v, (str, int)) for v in value.values()):
            raise InputError(f"scenario: [{key}] must be a table of names to strings", field=key)
        return value

    def names(key: str) -> list[str]:
        value = doc.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise InputError(f"scenario: {key} must be a list of strings", field=key)
        return value

    def number(key: str, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(f"scenario: {key} = {value!r} must be a whole number", field=key)
        return value

    options = names("options")
    state = game.initial_state({"rules": options, "rulings": dict(table("rulings"))})
    phase = doc.get("phase", Phase.J_MOVEMENT.value)
    if phase not in PHASES:
        raise InputError(f"scenario: phase {phase!r} is not one of {', '.join(PHASES)}", field="phase")
    phase = Phase(phase)
    pieces = {p.id: replace(p, where="") for p in state.pieces}

    def piece(key: str, pid: str, concealed: bool | None = None) -> Piece:
        if pid not in pieces or (concealed is not None and pieces[pid].concealed != concealed):
            what = f"a concealed piece ({setup.span(data.concealed_slots)})" if concealed else "a unit of this game"
            raise InputError(f"scenario: [{key}] {pid!r} is not {what}", field=key)
        return pieces[pid]

    for key, concealed in (("positions", False), ("concealed", True)):
        for pid, where in table(key).items():
            if not isinstance(where, str):
                raise InputError(f"scenario: [{key}] {pid} = {where!r}: give a hex or box as a string", field=key)
            if where[:1].isdigit():
                data.map.hex(where)
            elif where not in data.map.boxes and where not in (ELIMINATED, OFF_MAP):
                raise InputError(f"scenario: {pid} is placed in {where!r}, neither a hex nor a box", field=key)
            pieces[pid] = replace(piece(key, pid, concealed), where=where)
    mine_status: dict[str, str] = {}
    for pid, identity in table("revealed").items():
        if pid in data.mine_slots:  # a mine marker a mine check revealed (6.1), still in its box
            if identity not in ("real", "dummy"):
                raise InputError(f"scenario: [revealed] {pid} = {identity!r}: a mine marker is real or dummy",
                                 field="revealed")
            mine_status[pid] = identity
            continue
        if identity not in ("detachment", "dummy"):
            raise InputError(f"scenario: [revealed] {pid} = {identity!r}: detachment or dummy", field="revealed")
        pieces[pid] = replace(piece("revealed", pid, True), concealed=False, identity=identity)
    for pid in names("disrupted"):
        pieces[pid] = replace(piece("disrupted", pid), disrupted=True)
    for pid in names("oos"):
        p = piece("oos", pid)
        if p.side != JAPANESE or not p.on_map:
            raise InputError(f"scenario: oos {pid!r}: an OOS marker goes on a Japanese unit on the map (13.0)", field="oos")
        pieces[pid] = replace(p, oos=True, disrupted=True)  # 13.0: "becomes disrupted, and cannot recover"
    for pid, penalty in table("penalties").items():
        if penalty not in ("no-move", "opposed") and movement.mp_penalty(penalty) is None:
            raise InputError(f"scenario: [penalties] {pid} = {penalty!r}: -2mp (any -Nmp), no-move or opposed",
                             field="penalties")
        pieces[pid] = replace(piece("penalties", pid), penalty=penalty)
    mines_at = table("mines")
    for marker in mines_at:
        if marker not in data.mine_slots:
            raise InputError(f"scenario: [mines] {marker!r} is not a mine marker "
                             f"({setup.span(data.mine_slots)})", field="mines")
    for hexlabel in names("beachheads"):
        data.map.hex(hexlabel)
    control = tuple((data.map.label(data.map.hex(h)), number("control", t)) for h, t in table("control").items())
    turn = number("turn", doc.get("turn", data.first_turn))
    if not data.first_turn <= turn <= data.last_turn:
        raise InputError(f"scenario: turn {turn} is not on the turn track "
                         f"({data.first_turn}-{data.last_turn})", field="turn")
    standing = state.standing
    given = doc.get("standing", {})
    if not isinstance(given, Mapping):
        raise InputError("scenario: [standing] must hold one table per side, e.g. [standing.allied]", field="standing")
    for side, instructions in given.items():
        if side not in SIDES or not isinstance(instructions, Mapping):
            raise InputError(f"scenario: [standing.{side}]: a table per side ({', '.join(SIDES)})",
                             field="standing")
        for order in orders.parse_orders(data, {"standing": dict(instructions)}, side).public:
            standing = standing.updated(side, {k: v for k, v in order.items() if k != "type"})
    state = replace(
        state,
        turn=turn,
        phase=phase,
        pieces=tuple(pieces.values()),
        mines=tuple(Mine(m, str(mines_at.get(m, "")), mine_status.get(m, "hidden")) for m in data.mine_slots),
        beachheads=tuple(names("beachheads")),
        control=control,
        sealed=tuple((ALLIED, slot) for slot in data.concealed_slots + data.mine_slots),
        standing=standing,
    )
    surrender = doc.get("surrender")
    if surrender is not None:
        if surrender != "open":
            raise InputError(f"scenario: surrender = {surrender!r}: the only value is \"open\" (3.2: the Allied "
                             f"decision is still to be made)", field="surrender")
        if not victory.may_surrender(data, state):
            turns = [str(t.number) for t in data.turn_track if t.surrender_option]
            raise InputError(f"scenario: surrender = \"open\": 3.2 offers the surrender at the start of turn "
                             f"{' or '.join(turns)} (its Landing Phase, before any landing), with an Allied HQ on the map; "
                             f"this position is turn {turn}, {phase}", field="surrender")
        state = replace(state, surrender_offered=True)
    return state

def scenario_secrets(doc: Mapping[str, Any]) -> dict[str, str]:
    """What the referee knows of the hidden pieces: used to answer reveals."""
    return dict(doc.get("secret", {}))

