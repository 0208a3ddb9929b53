"""The Combat Phase (11.0-11.4): declarations, HQ support, resolution,
retreats and advances.

Message flow (see docs/protocol.md on the dice rule): the attacker declares
every combat, with its own HQ support, in one message (11.0: "at the start of
that phase"; 11.1: "the attacker first decides").  What the defender decides
before the dice -- HQ support (11.1), and a defensive bombardment (14.1,
"resolved before the combat ratio is calculated") -- keys the dice: while
any of it is open, no combat's die is keyed before the defender's answer,
so nobody decides anything knowing a die of the batch.  Otherwise (every
support answered by a standing instruction or impossible) the dice are
keyed by the declaring message itself.

The combats are resolved in the order declared (:func:`proceed`), each to
its end before the next: its CRT result, then the defender's results and
retreats, then the attacker's (11.0: "Apply the result against the defender
first"), then the advance (11.4).  Every choice the rules give a player
after the die -- which units take the hits, retreat or refuse an ``r``, the
retreat hex (11.3), the advance (11.4) -- is that player's: answered by a
standing instruction, or asked in their next message (``losses``,
``retreat``, ``advance`` orders), and the combat (and every combat declared
after it) waits for it.  Nothing is chosen for a player.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from pbem.engine.machine import Event, illegal, replace
from pbem.games.ambon import bombardment, combat, entering, movement, results
from pbem.games.ambon.state import ELIMINATED, JAPANESE, AmbonState, Battle, CombatStage, Fight, Piece, other

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
    """After the declarations of message ``seq``: lone HQs attacked are
    eliminated at once (11.1) and the attackers may advance (11.4); each
    other combat's defender may add HQ support (11.1) -- decided by their
    standing ``hq-support``, or owed as a decision when an HQ can help.

    The dice: while the defender owes a decision before them (an HQ support
    no standing instruction answers, or a 14.1 defensive bombardment one of
    their artillery-type units could make), every combat's die is keyed by
    the defender's next message, ``seq + 1`` (strict alternation), so that no
    pre-die decision is made knowing a die of the same batch."""
    events: list[Event] = []
    rolling: list[str] = []
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
        if options and policy is None:
            state = _with_battle(state, replace(b, stage=CombatStage.SUPPORT))
            events.append(Event("11.1", f"{other(b.side)} may support the defence of {b.target} with "
                                        f"{' or '.join(options)}"))
            continue
        hq = options[0] if options and policy == "always" else ""
        state = _with_battle(state, replace(b, stage=CombatStage.ROLL, defender_hq=hq))
        rolling.append(b.target)
        if hq:
            events.append(Event("11.1", f"{hq} supports the defence of {b.target} (standing instruction)"))
        elif options:
            events.append(Event("11.1", f"no HQ supports the defence of {b.target} (standing instruction)"))
    attacker = next((b.side for b in state.battles), "")
    defender = other(attacker) if attacker else ""
    guns = bombardment.able_to_bombard(data, state, defender, defensive=True) if state.option("14.1") and defender else []
    asked = any(b.stage is CombatStage.SUPPORT for b in state.battles)
    key = seq + 1 if asked or guns else seq
    state = replace(state, battles=tuple(replace(b, key_seq=key) if b.target in rolling else b for b in state.battles))
    if guns and rolling:
        events.append(Event("14.1", f"the dice of the combats wait for the {defender.capitalize()} player's message: "
                                    f"{', '.join(guns)} may bombard first (14.1)"))
    return state, events


def defensive_window(state: AmbonState, seq: int) -> bool:
    """14.1: "After all combats have been declared ... Defensive bombardment
    is resolved before the combat ratio is calculated": open to message
    ``seq`` while every combat is declared and no combat's die is keyed by
    an earlier message."""
    live = [b for b in state.battles if not (b.stage is CombatStage.DONE and not b.result)]
    if not state.battles or any(b.stage is CombatStage.DECLARED for b in state.battles):
        return False
    return all(b.stage is CombatStage.SUPPORT or (b.stage is CombatStage.ROLL and b.key_seq >= seq) for b in live)


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
    return state, [Event("11.1", f"{hq} supports the defence of {b.target} (owner's choice)" if hq != "none"
                         else f"no HQ supports the defence of {b.target} (owner's choice)")]


def decline_open_support(state: AmbonState, side: str, seq: int) -> tuple[AmbonState, list[Event]]:
    """A defender's message that leaves a support decision open declines it."""
    events = []
    battles = []
    for b in state.battles:
        if b.stage is CombatStage.SUPPORT and other(b.side) == side:
            b = replace(b, stage=CombatStage.ROLL, key_seq=seq)
            events.append(Event("11.1", f"no HQ supports the defence of {b.target} (the decision was left open)"))
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
    terms = attack_terms(data, state, b)
    return sum((t.counted for t in terms), Fraction(0)), [n for t in terms for n in t.why]


def attack_terms(data: "AmbonData", state: AmbonState, b: Battle) -> list[combat.Term]:
    """Each attacker's printed CF and the CF counted, with every halving and
    why (:func:`attack_strength`)."""
    gmap = data.map
    targets = {x.target for x in state.battles}
    attacked = {uid for x in state.battles for uid in x.defenders}  # a unit attacked this phase, wherever it went
    level_factor = data.value("functional_overstack_factor")
    terms = []
    for uid in b.attackers:
        p = state.piece(uid)
        if not p.on_map:
            continue
        printed = cf = data.spec(p).combat
        why = []
        if movement.overstacking(data, state, p.where) == "functional":
            cf *= level_factor
            why.append(f"{uid} halved (functional overstacking, 9.0)")
        h = gmap.hex(p.where)
        engaged = [e for e in movement.zoc_sources(data, state, other(b.side), h)
                   if e.where not in targets and e.id not in attacked]
        if engaged:
            cf *= data.value("unengaged_ezoc_factor")
            why.append(f"{uid} halved (in the EZOC of {engaged[0].id} in {engaged[0].where}, which nobody attacks: 11.0)")
        terms.append(combat.Term(uid, printed, cf, tuple(why)))
    return terms


def rolled(data: "AmbonData", state: AmbonState, b: Battle, die: int) -> tuple[AmbonState, list[Event]]:
    """The die of combat ``b`` is known; it is resolved in declared order
    (:func:`proceed`, which the sequence of play runs after every action).
    When a combat declared before it is not resolved yet, the event says so."""
    state = _with_battle(state, replace(b, stage=CombatStage.ROLLED, die=die))
    earlier = next((x for x in state.battles[: state.battles.index(next(y for y in state.battles if y.target == b.target))]
                    if x.stage is not CombatStage.DONE), None)
    if earlier is None:
        return state, []
    return state, [Event("11.0", f"combat at {b.target}: roll {die}, applied once the combat at {earlier.target}, "
                                 f"declared before it, is resolved (11.0)", {"target": b.target, "roll": die})]


def proceed(data: "AmbonData", state: AmbonState) -> tuple[AmbonState, list[Event]]:
    """11.0: resolve the combats whose dice are known, in the order they were
    declared, each as far as the rules go before a choice its owner has
    not made (:mod:`.results`); a combat still waiting for a decision or
    its die holds up every combat declared after it."""
    events: list[Event] = []
    for target in [b.target for b in state.battles]:
        b = next(x for x in state.battles if x.target == target)
        if b.stage is CombatStage.DONE:
            continue
        if b.stage not in (CombatStage.ROLLED, CombatStage.LOSSES):
            break
        state, more = _resolve(data, state, b)
        events += more
        if next(x for x in state.battles if x.target == target).stage is not CombatStage.DONE:
            break
    return state, events


def busy_hexes(state: AmbonState, target: str) -> frozenset[str]:
    """11.3: the hexes of defenders in a combat not yet resolved, other than ``target``'s."""
    return frozenset(x.target for x in state.battles if x.stage is not CombatStage.DONE and x.target != target)


def _resolve(data: "AmbonData", state: AmbonState, b: Battle) -> tuple[AmbonState, list[Event]]:
    """Combat ``b``: its CRT result, then its results to their end or to the
    first choice its owner owes (stage LOSSES), then the advance (11.4)."""
    events: list[Event] = []
    if b.fight is None:
        state, b, events = _read_crt(data, state, b)
        if b.stage is CombatStage.DONE:
            return state, events
    state, more, fight = results.settle(data, state, b.settling, busy_hexes(state, b.target))
    events += more
    if not fight.done:
        return _with_battle(state, replace(b, stage=CombatStage.LOSSES, fight=fight)), events
    b = replace(b, stage=CombatStage.DONE, fight=fight)
    state = _with_battle(state, b)
    if not any(p.side != b.side for p in state.at(b.target)):
        state, more = offer_advance(data, state, b)
        events += more
    return state, events


def _read_crt(data: "AmbonData", state: AmbonState, b: Battle) -> tuple[AmbonState, Battle, list[Event]]:
    """11.0: the odds and the CRT result of ``b``, in the position of the moment."""
    defenders = [p for p in state.at(b.target) if p.side != b.side]
    attackers = [state.piece(u) for u in b.attackers if state.piece(u).on_map]
    if not defenders or not attackers:
        b = replace(b, stage=CombatStage.DONE)
        return _with_battle(state, b), b, [
            Event("11.0", f"the combat at {b.target} lapses: {'no defender' if not defenders else 'no attacker'} is left")]
    terms = attack_terms(data, state, b)
    attack = sum((t.counted for t in terms), Fraction(0))
    across = [p.where for p in attackers]
    odds = combat.odds(data, state, attack, defenders, b.target, across=across,
                       hq={"attacker": bool(b.attacker_hq), "defender": bool(b.defender_hq)})
    rolled_ = combat.roll_on_crt(data, odds, b.die)
    event = Event("11.0", f"combat at {b.target}: {rolled_.describe()}" + "".join(f"; {n}" for t in terms for n in t.why)
                  + f"; counted: {combat.counted(terms)} against {combat.counted(combat.defence_terms(data, state, defenders))}",
                  {"target": b.target, **rolled_.data(), "attackers": [t.data() for t in terms],
                   "defenders": [t.data() for t in combat.defence_terms(data, state, defenders)]})
    fight = Fight(b.target, b.side, b.attackers, rolled_.result, tuple(p.id for p in defenders))
    b = replace(b, fight=fight)
    return _with_battle(state, b), b, [event]


def what_is_open(data: "AmbonData", state: AmbonState, b: Battle) -> str:
    """The owner's open choice at ``b``, in words."""
    return results.what_is_open(data, state, b.settling, open_choices(data, state, b)["hexes"])


def open_choices(data: "AmbonData", state: AmbonState, b: Battle) -> dict[str, Any]:
    """The owner's open choice at ``b`` as data (:func:`results.open_choices`)."""
    return results.open_choices(data, state, b.settling, busy_hexes(state, b.target))


def answer(data: "AmbonData", state: AmbonState, side: str, kind: str, value: str, target: str | None,
           more: dict[str, str] | None = None) -> tuple[AmbonState, list[Event]]:
    """``side``'s answer to an open 11.3 choice of a combat (a ``losses`` or
    ``retreat`` order); it takes effect when the combat goes on (:func:`proceed`)."""
    waiting = [b for b in state.battles if b.stage is CombatStage.LOSSES and b.waiting == side
               and (target is None or b.target == target)]
    if len(waiting) != 1:
        open_ = [b.target for b in state.battles if b.stage is CombatStage.LOSSES and b.waiting == side]
        if not open_:
            raise illegal("11.3", f"{side} has no choice of losses or retreat open"
                                  + (f" at {target}" if target else ""))
        raise illegal("11.3", f"say which combat this answers (target = ...): choices open at {', '.join(open_)}")
    b = waiting[0]
    fight, event = results.take_answer(state, b.settling, side, kind, value, more, open_choices(data, state, b))
    return _with_battle(state, replace(b, fight=fight)), [event]


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
    instruction ``advance`` decides, or the attacker's next message (the
    combats declared after it wait for that decision)."""
    candidates = advance_candidates(data, state, b)
    if not candidates:
        return state, []
    policy = state.standing.get(b.side, "advance")
    if policy == "never":
        return state, [Event("11.4", f"no unit advances into {b.target} (standing instruction)")]
    if policy == "always":
        return _advance_into(data, state, candidates, b.target, " (standing instruction)")
    state = replace(state, battles=tuple(replace(x, stage=CombatStage.ADVANCE, asked_at=state.seq)
                                         if x.target == b.target and x.side == b.side else x for x in state.battles))
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


def close_advances(state: AmbonState, side: str, seq: int) -> tuple[AmbonState, list[Event]]:
    """11.4: advances left undecided at the end of the attacker's message
    ``seq`` are not taken (as an unanswered HQ support is declined): the
    game cannot stall on a decision nobody makes.  Only those open when the
    message began: one its own orders opened (its losses answered, the
    combat went on) was never seen by its author and waits for their next."""
    events = []
    battles = []
    for b in state.battles:
        if b.stage is CombatStage.ADVANCE and b.side == side and b.asked_at < seq:
            b = replace(b, stage=CombatStage.DONE)
            events.append(Event("11.4", f"no unit advances into {b.target} (the advance decision was left open)",
                                {"units": [], "target": b.target}))
        battles.append(b)
    return replace(state, battles=tuple(battles)), events
