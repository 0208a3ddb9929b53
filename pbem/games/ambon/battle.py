"""The Combat Phase (11.0-11.4): declarations, HQ support, resolution,
retreats and advances.

Message flow (DESIGN 4.3): the attacker declares every combat, with its own
HQ support, in one message (11.0: "at the start of that phase"; 11.1: "the
attacker first decides").  The defender's HQ support is the defender's
decision and comes before the die, so the dice of a combat are keyed by the
defender's answer -- or at once when a standing instruction (``hq-support``)
answers it, or when no defending HQ can help.  Advances (11.4) are the
attacker's decision after the die: a standing instruction (``advance``) or
the attacker's next message.

Losses and ``r`` (retreat or extra hit) follow the owner's default policy of
:mod:`pbem.games.ambon.combat` (documented there).
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from pbem.engine.machine import Event, illegal, replace
from pbem.games.ambon import combat, entering, movement, retreat
from pbem.games.ambon.state import ELIMINATED, JAPANESE, AmbonState, Battle, CombatStage, Piece, other

if TYPE_CHECKING:
    from pbem.games.ambon.data import AmbonData

ARMY, KURE = "army", "kure"

# --------------------------------------------------------------------------- 11.0 declaring


def declare(data: "AmbonData", state: AmbonState, side: str, order: dict[str, Any], seq: int) -> tuple[AmbonState, list[Event]]:
    """11.0: one combat: attackers (units in any hexes) against one defending hex."""
    target, units, hq = order["target"], list(order["with"]), order.get("hq", "")
    gmap = data.map
    if any(b.stage is not CombatStage.DECLARED for b in state.battles):
        raise illegal("11.0", "all combats are declared at the start of the Combat Phase, in one message")
    if any(b.target == target for b in state.battles):
        raise illegal("11.0", f"{target} is already attacked this phase; a defending hex is attacked only once")
    defenders = [p for p in state.at(target) if p.side != side]
    if not defenders:
        raise illegal("11.0", f"there is no enemy unit in {target} to attack")
    if not units:
        raise illegal("11.0", f"the attack on {target} names no attacking unit")
    busy = {u for b in state.battles for u in b.attackers}
    t = gmap.hex(target)
    for uid in units:
        p = state.piece(uid)
        spec = data.spec(p)
        if p.side != side or not p.on_map:
            raise illegal("11.0", f"{uid} is not a {side} unit on the map")
        if uid in busy or units.count(uid) > 1:
            raise illegal("11.0", f"{uid} already attacks this phase; each unit attacks once")
        if spec.artillery:
            raise illegal("10.0", f"{uid} is an artillery-type unit and may not make a normal attack")
        if spec.hq:
            raise illegal("11.1", f"{uid} is an HQ: it has no combat strength")
        if p.penalty == "opposed":
            raise illegal("6.3", f"{uid} made an opposed landing this turn and may not attack")
        if movement.overstacking(data, state, p.where) == "physical":
            raise illegal("9.0", f"{uid}'s hex {p.where} is physically overstacked: no unit there may attack")
        h = gmap.hex(p.where)
        if not (h.is_adjacent(t) and not gmap.has("all_sea", h, t)):
            raise illegal("11.0", f"{uid} in {p.where} does not have {target} in its ZOC")
    if hq:
        check_support(data, state, side, hq, target, units, [p.id for p in defenders])
    battle = Battle(target=target, side=side, attackers=tuple(units), attacker_hq=hq, key_seq=seq,
                    defenders=tuple(p.id for p in defenders))
    names = ", ".join(units)
    text = f"{side} declares: {names} attack {', '.join(p.id for p in defenders)} in {target}"
    return replace(state, battles=state.battles + (battle,)), [Event("11.0", text + (f", {hq} supporting" if hq else ""))]


# --------------------------------------------------------------------------- 11.1 HQ support


def hqs_in_range(data: "AmbonData", state: AmbonState, side: str, target: str) -> list[Piece]:
    t = data.map.hex(target)
    return [p for p in state.on_map(side)
            if data.spec(p).hq and data.map.hex(p.where).distance(t) <= data.spec(p).command_range]


def check_support(data: "AmbonData", state: AmbonState, side: str, hq: str, target: str,
                  attackers: list[str], defenders: list[str]) -> None:
    """11.1: the HQ's command range covers the defending hex; it supports one
    combat a phase; a Japanese Army HQ only combats of Japanese Army units
    alone, a Kure HQ only Kure units alone; Allied HQs help anyone."""
    if not state.has_piece(hq) or state.piece(hq).side != side or not data.spec(state.piece(hq)).hq:
        raise illegal("11.1", f"{hq!r} is not a {side} HQ")
    if hq not in [p.id for p in hqs_in_range(data, state, side, target)]:
        raise illegal("11.1", f"{hq}'s command range does not cover {target}")
    used = {b.attacker_hq for b in state.battles} | {b.defender_hq for b in state.battles}
    if hq in used:
        raise illegal("11.1", f"{hq} already supports a combat this phase")
    if side == JAPANESE:
        nationality = data.spec(state.piece(hq)).nationality
        own = [u for u in attackers + defenders if state.piece(u).side == JAPANESE]
        others = {data.spec(state.piece(u)).nationality for u in own}
        if others != {nationality}:
            kind = "Kure 1 Special" if nationality == KURE else "Japanese Army"
            raise illegal("11.1", f"{hq} ({kind}) may support only a combat of {kind} units alone")


def open_support(data: "AmbonData", state: AmbonState, seq: int) -> tuple[AmbonState, list[Event]]:
    """After the declarations: each combat's defender may add HQ support (11.1),
    decided by its standing instruction or owed as a decision; lone HQs
    attacked are eliminated at once (11.1), and the attackers may then
    advance into the emptied hex (11.4)."""
    events: list[Event] = []
    for b in [x for x in state.battles if x.stage is CombatStage.DECLARED]:
        defenders = [p for p in state.at(b.target) if p.side != b.side]
        if defenders and all(data.spec(p).hq for p in defenders):
            state = state.with_pieces(replace(p, where=ELIMINATED) for p in defenders)
            events.append(Event("11.1", f"{', '.join(p.id for p in defenders)} attacked alone in {b.target}: eliminated"))
            state = _with_battle(state, replace(b, stage=CombatStage.DONE))
            state, more = offer_advance(data, state, b)
            events += more
            continue
        options = support_options(data, state, b)
        policy = state.standing.get(other(b.side), "hq-support")
        may_fire = state.option("14.1") and any(
            data.spec(p).artillery and not p.bombarded for p in state.on_map(other(b.side))
        )
        if (options and policy is None) or may_fire:
            state = _with_battle(state, replace(b, stage=CombatStage.SUPPORT))
            events.append(Event("11.1", f"{other(b.side)} may support the defence of {b.target} with {' or '.join(options)}"))
        else:
            hq = options[0] if options and policy == "always" else ""
            state = _with_battle(state, replace(b, stage=CombatStage.ROLL, defender_hq=hq, key_seq=seq))
            if hq:
                events.append(Event("11.1", f"{hq} supports the defence of {b.target} (standing instruction)"))
    return state, events


def _with_battle(state: AmbonState, new: Battle) -> AmbonState:
    """``state`` with the combat against ``new.target`` (one a phase, 11.0) replaced by ``new``."""
    return replace(state, battles=tuple(new if x.target == new.target else x for x in state.battles))


def support_options(data: "AmbonData", state: AmbonState, b: Battle) -> list[str]:
    defender = other(b.side)
    used = {x.attacker_hq for x in state.battles} | {x.defender_hq for x in state.battles}
    found = []
    for p in hqs_in_range(data, state, defender, b.target):
        if p.id in used:
            continue
        try:
            check_support(data, state, defender, p.id, b.target, list(b.attackers),
                          [u.id for u in state.at(b.target) if u.side == defender])
        except Exception:  # noqa: BLE001 - an illegal supporter is simply not an option
            continue
        found.append(p.id)
    return found


def decide_support(data: "AmbonData", state: AmbonState, side: str, hq: str, target: str | None, seq: int) -> tuple[AmbonState, list[Event]]:
    """The defender's answer (an order ``support = "NEI-HQ"`` or ``"none"``,
    ``target = "1609"`` when several combats wait)."""
    waiting = [b for b in state.battles if b.stage is CombatStage.SUPPORT and other(b.side) == side]
    if target:
        waiting = [b for b in waiting if b.target == target]
    if len(waiting) != 1:
        where = ", ".join(b.target for b in state.battles if b.stage is CombatStage.SUPPORT) or "none"
        raise illegal("11.1", f"say which combat the support is for (target = ...): combats awaiting support: {where}")
    b = waiting[0]
    if hq != "none" and hq not in support_options(data, state, b):
        raise illegal("11.1", f"{hq} cannot support the defence of {b.target} (may: {', '.join(support_options(data, state, b)) or 'none'})")
    new = replace(b, stage=CombatStage.ROLL, defender_hq="" if hq == "none" else hq, key_seq=seq)
    state = replace(state, battles=tuple(new if x is b else x for x in state.battles))
    return state, [Event("11.1", f"{hq} supports the defence of {b.target}" if hq != "none" else f"no HQ supports the defence of {b.target}")]


def decline_open_support(state: AmbonState, side: str, seq: int) -> tuple[AmbonState, list[Event]]:
    """A defender's message that leaves a support decision open declines it."""
    events = []
    battles = []
    for b in state.battles:
        if b.stage is CombatStage.SUPPORT and other(b.side) == side:
            b = replace(b, stage=CombatStage.ROLL, key_seq=seq)
            events.append(Event("11.1", f"no HQ supports the defence of {b.target}"))
        battles.append(b)
    return replace(state, battles=tuple(battles)), events


# --------------------------------------------------------------------------- 11.0-11.3 resolution


def attack_strength(data: "AmbonData", state: AmbonState, b: Battle) -> tuple[Fraction, list[str]]:
    """11.0 and 9.0: the attackers' CF, halving each unit in the EZOC of a
    defender it does not attack whose ZOC no attack of this phase targets.

    Judged when the combat is resolved, not when it was declared.  11.0's
    steps of "each combat" begin "Compare the modified CF of attacker and
    defender": the CF is modified then, as 9.0's overstacking is, in the
    position of that moment.  What the declaration fixes is the other half
    of the test, which hexes "[are] being attacked ... in the same Combat
    Phase": every unit in a declared target hex, as declared -- so a
    defender that an earlier combat retreats next to an attacker does not
    halve it (it is being attacked this phase), a defender that moves in from
    elsewhere does, and a dummy revealed and removed before the combat no
    longer does."""
    gmap = data.map
    targets = {x.target for x in state.battles}
    attacked = {uid for x in state.battles for uid in x.defenders}  # a unit attacked this phase, wherever it went
    total, notes = Fraction(0), []
    level_factor = data.value("functional_overstack_factor")
    for uid in b.attackers:
        p = state.piece(uid)
        if not p.on_map:
            continue
        cf = data.spec(p).combat
        if movement.overstacking(data, state, p.where) == "functional":
            cf *= level_factor
            notes.append(f"{uid} halved (functional overstacking, 9.0)")
        h = gmap.hex(p.where)
        engaged = [e for e in movement.zoc_sources(data, state, other(b.side), h)
                   if e.where not in targets and e.id not in attacked]
        if engaged:
            cf *= data.value("unengaged_ezoc_factor")
            notes.append(f"{uid} halved (in the EZOC of {engaged[0].id} in {engaged[0].where}, which nobody attacks: 11.0)")
        total += cf
    return total, notes


def resolve(data: "AmbonData", state: AmbonState, b: Battle, die: int) -> tuple[AmbonState, list[Event]]:
    """Resolve combat ``b`` with ``die``: results against the defender first,
    then the attacker (11.0), retreats (11.3), then the advance (11.4)."""
    defenders = [p for p in state.at(b.target) if p.side != b.side]
    attackers = [state.piece(u) for u in b.attackers if state.piece(u).on_map]
    done = replace(b, stage=CombatStage.DONE)
    state = replace(state, battles=tuple(done if x is b else x for x in state.battles))
    if not defenders or not attackers:
        return state, [Event("11.0", f"the combat at {b.target} lapses: {'no defender' if not defenders else 'no attacker'} is left")]
    attack, notes = attack_strength(data, state, b)
    across = [p.where for p in attackers]
    odds = combat.odds(data, state, attack, defenders, b.target, across=across,
                       hq={"attacker": bool(b.attacker_hq), "defender": bool(b.defender_hq)})
    rolled = combat.roll_on_crt(data, odds, die)
    a_hits, d_hits, kind = rolled.hits
    events = [Event("11.0", f"combat at {b.target}: {rolled.describe()}" + "".join(f"; {n}" for n in notes),
                    {"target": b.target, **rolled.data()})]
    state, more, _ = combat.apply_hits(data, state, defenders, d_hits, "defender")
    events += more
    survivors = [state.piece(p.id) for p in defenders if state.piece(p.id).where == b.target]
    if kind and survivors:
        busy = frozenset(x.target for x in state.battles if x.stage is not CombatStage.DONE)
        state, more = retreat.retreat_units(data, state, survivors, kind, busy)
        events += more
    state, more, _ = combat.apply_hits(data, state, attackers, a_hits, "attacker")
    events += more
    if not [p for p in state.at(b.target) if p.side != b.side]:
        state, more = offer_advance(data, state, b)
        events += more
    return state, events


# --------------------------------------------------------------------------- 11.4 advance after combat


def advance_candidates(data: "AmbonData", state: AmbonState, b: Battle) -> list[str]:
    """11.4: surviving attackers; not disrupted units or HQs (outside landings),
    never artillery-type units."""
    found = []
    for uid in b.attackers:
        p = state.piece(uid)
        spec = data.spec(p)
        if p.on_map and not p.disrupted and not spec.hq and not spec.artillery:
            found.append(uid)
    return found


def offer_advance(data: "AmbonData", state: AmbonState, b: Battle) -> tuple[AmbonState, list[Event]]:
    """11.4: the defending hex of ``b`` is empty: the attacker's standing
    instruction ``advance`` decides, or the attacker's next message."""
    candidates = advance_candidates(data, state, b)
    if not candidates:
        return state, []
    policy = state.standing.get(b.side, "advance")
    if policy == "never":
        return state, [Event("11.4", f"no unit advances into {b.target} (standing instruction)")]
    if policy == "always":
        return _advance_into(data, state, candidates, b.target, " (standing instruction)")
    state = replace(state, battles=tuple(replace(x, stage=CombatStage.ADVANCE) if x.target == b.target and x.side == b.side else x for x in state.battles))
    return state, [Event("11.4", f"{b.target} is empty: {b.side} may advance {', '.join(candidates)} into it")]


def advance(data: "AmbonData", state: AmbonState, side: str, units: list[str], target: str | None) -> tuple[AmbonState, list[Event]]:
    """11.4: the attacker's decision (an ``advance`` order)."""
    waiting = [b for b in state.battles if b.stage is CombatStage.ADVANCE and b.side == side and (target is None or b.target == target)]
    if len(waiting) != 1:
        raise illegal("11.4", "say which emptied hex to advance into (target = ...)" if waiting else f"{side} has no advance to decide")
    b = waiting[0]
    allowed = advance_candidates(data, state, b)
    wrong = [u for u in units if u not in allowed]
    if wrong:
        raise illegal("11.4", f"{wrong[0]} may not advance into {b.target} (may: {', '.join(allowed)})")
    if any(p.side != side for p in state.at(b.target)):
        raise illegal("11.4", f"{b.target} is no longer empty")
    state = replace(state, battles=tuple(replace(x, stage=CombatStage.DONE) if x is b else x for x in state.battles))
    if not units:
        return state, [Event("11.4", f"no unit advances into {b.target}", {"units": [], "target": b.target})]
    return _advance_into(data, state, units, b.target, "")


def _advance_into(data: "AmbonData", state: AmbonState, units: list[str], target: str, why: str) -> tuple[AmbonState, list[Event]]:
    """11.4: the advancing units enter the emptied hex, with every effect of
    entering a hex (3.1 control, 6.5 beachheads, 8.0 reveals)."""
    state = state.with_pieces(replace(state.piece(u), where=target) for u in units)
    events = [Event("11.4", f"{', '.join(units)} advance into {target}{why}", {"units": list(units), "target": target})]
    state, more = entering.entered_all(data, state, units, target)
    return state, events + more


def close_advances(state: AmbonState, side: str) -> tuple[AmbonState, list[Event]]:
    """11.4: advances left undecided at the end of the attacker's message
    are not taken (as an unanswered HQ support is declined): the game
    cannot stall on a decision nobody makes."""
    events = []
    battles = []
    for b in state.battles:
        if b.stage is CombatStage.ADVANCE and b.side == side:
            b = replace(b, stage=CombatStage.DONE)
            events.append(Event("11.4", f"no unit advances into {b.target} (the advance decision was left open)",
                                {"units": [], "target": b.target}))
        battles.append(b)
    return replace(state, battles=tuple(battles)), events
