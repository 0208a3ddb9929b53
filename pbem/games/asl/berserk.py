"""Berserk Dare-Death squads (8.5.2 and the Berserk box), checked against a
position the players describe.

8.5.2: "If a Dare-Death Squad(s) (or its surviving HS) at the start of its MPh
can move, is adjacent to (or in the same location as) a Good Order leader not
marked with a Prep Fire or Pin counter, and is within 8 MF of a Known Enemy
Unit (the target) in LOS of it and the leader, the MMC may go Berserk."

:func:`eligibility` checks one unit, naming every condition met or failed;
:func:`check_declaration` checks units declared Berserk together (one target;
the leader that goes along Charges it too; units of one hex Charge as one
stack).  :func:`effects` lists what Berserk means for the unit,
:func:`charge_route` and :func:`check_route` the shortest Charge route in MF,
:func:`morale_check` a Berserk unit's MC, :func:`close_combat` the Dare-Death
CC modifiers, for a Hand-to-Hand and a non-Hand-to-Hand attack apart.
Locations are hexes: levels inside a hex are not modelled.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from pbem.engine.hexes import Hex
from pbem.engine.paths import format_mp
from pbem.errors import InputError
from pbem.games.asl.data import AslData, Nationality
from pbem.games.asl.position import MARKER_NAMES, Position, Unit

RULE = "8.5.2"
BOX = "Berserk"


def mf_text(halves: int) -> str:
    return format_mp(halves, unit=False) + " MF"


@dataclass(frozen=True)
class Check:
    """One condition of a rule: met or not, in a sentence."""

    rule: str
    ok: bool
    text: str

    def sentence(self) -> str:
        return f"[{self.rule}] {'yes' if self.ok else 'NO'}: {self.text}"

    def to_json(self) -> dict:
        return {"rule": self.rule, "ok": self.ok, "text": self.text}


@dataclass(frozen=True)
class Eligibility:
    unit: str
    eligible: bool
    checks: tuple[Check, ...]
    targets: tuple[str, ...]  # Known Enemy Units it may Charge (with a qualifying leader)
    leaders: tuple[str, ...]  # leaders that qualify

    @property
    def failures(self) -> tuple[Check, ...]:
        return tuple(c for c in self.checks if not c.ok)

    def summary(self) -> str:
        if self.eligible:
            return f"{self.unit} may go Berserk (targets: {', '.join(self.targets)})"
        return f"{self.unit} may not go Berserk: " + "; ".join(c.text for c in self.failures)

    def to_json(self) -> dict:
        return {
            "unit": self.unit,
            "eligible": self.eligible,
            "targets": list(self.targets),
            "leaders": list(self.leaders),
            "checks": [c.to_json() for c in self.checks],
        }


def _marked(u: Unit, *names: str) -> list[str]:
    return [MARKER_NAMES[n] for n in names if n in u.markers]


def leader_problems(leader: Unit) -> list[str]:
    """Why ``leader`` cannot let a Dare-Death squad go Berserk (empty: it can)."""
    why = []
    if not leader.good_order:
        why.append("is not in Good Order (broken)")
    marks = _marked(leader, "prep-fire", "pin")
    if marks:
        why.append(f"is marked with a {' and a '.join(marks)} counter")
    return why


def _with(position: Position, h: Hex) -> str:
    return position.label(h)


def eligibility(
    position: Position,
    unit_id: str,
    data: AslData,
    *,
    target: str | None = None,
    dare_death: bool | None = None,
    squad_type: str | None = None,
) -> Eligibility:
    """May ``unit_id`` go Berserk (8.5.2)?  ``dare_death`` overrides what the
    position says (in a game the sealed designation decides); ``target``
    restricts the check to that enemy unit; ``squad_type`` is the counter of
    the squad a HS came from (in a game, as declared at setup): the HS must
    be that squad's HS on the chart."""
    limit = 2 * int(data.dare_death["max_mf_to_target"])  # half-MF
    u = position.unit(unit_id)
    if u.enemy:
        raise InputError(f"{u.name} is an enemy unit; only the Chinese player's own squads may go Berserk")
    checks: list[Check] = []
    # 1. a squad or its surviving HS
    checks.append(Check(RULE, u.kind in ("squad", "half-squad"),
                        f"{u.name} is a {u.kind}" + ("" if u.kind in ("squad", "half-squad")
                                                     else "; only a Dare-Death squad or its surviving HS may go Berserk")))
    if u.kind == "half-squad" and squad_type is not None:
        checks.append(surviving_hs(u, squad_type, data.nationality(position.nationality)))
    # 2. a Dare-Death Squad
    dd = u.dare_death if dare_death is None else dare_death
    if dd:
        text = f"{u.id} is a Dare-Death " + ("Squad" if u.squad == u.id else f"Squad's surviving HS (of {u.squad})")
    elif dd is None:
        text = f"the position does not say that {u.id} is a Dare-Death Squad (dare_death = true)"
    else:
        text = f"{u.id} is not a Dare-Death Squad"
    checks.append(Check(RULE, bool(dd), text))
    # 3. at the start of its MPh
    in_mph = position.phase.lower() in ("mph", "start of mph", "movement phase")
    checks.append(Check(RULE, in_mph, "at the start of its MPh" if in_mph else
                        f"the position is in the {position.phase}, not at the start of the Chinese MPh"))
    # 4. can move
    why = u.cannot_move()
    checks.append(Check(RULE, not why, f"{u.id} can move" if not why else f"{u.id} cannot move: {', '.join(why)}"))
    # 5. a Good Order leader, not Prep Fire / Pin, in or adjacent to its Location
    near = [ldr for ldr in position.friendly() if ldr.is_leader and ldr.hex.distance(u.hex) <= 1]
    qualified = [ldr for ldr in near if not leader_problems(ldr)]
    if qualified:
        text = "leader " + ", ".join(ldr.name for ldr in qualified) + (" in its hex" if qualified[0].hex == u.hex else " adjacent")
        checks.append(Check(RULE, True, f"Good Order {text}, not marked Prep Fire or Pin"))
    elif near:
        parts = [f"{ldr.name} {' and '.join(leader_problems(ldr))}" for ldr in near]
        only = "the only leader in or adjacent to its hex" if len(near) == 1 else "every leader in or adjacent to its hex"
        checks.append(Check(RULE, False, f"{only}: " + "; ".join(parts)))
    else:
        checks.append(Check(RULE, False, f"no leader in or adjacent to {u.at}"))
    # 6. a Known Enemy Unit within 8 MF, in LOS of it (and of the leader)
    enemies = position.enemies()
    if target is not None:
        t = position.unit(target)
        if not t.enemy:
            raise InputError(f"the target {t.name} is not an enemy unit")
        enemies = (t,)
    reachable, reasons = [], []
    for e in enemies:
        if not e.known:
            reasons.append(f"{e.name} is not a Known Enemy Unit")
            continue
        if not position.has_los(u.hex, e.hex):
            reasons.append(f"{e.name} is not in LOS of {u.id} ({u.at})")
            continue
        mf = position.mf_between(u.hex, e.hex)
        if mf is None:
            reasons.append(f"the position does not give the MF from {u.at} to {e.at} (add mf = [...] or [entry_cost])")
            continue
        if mf > limit:
            reasons.append(f"{e.name} is {mf_text(mf)} from {u.at}, more than {mf_text(limit)}")
            continue
        reachable.append((e, mf))
    if reachable:
        checks.append(Check(RULE, True, f"within {mf_text(limit)} and in its LOS: " + ", ".join(
            f"{e.name}, {mf_text(mf)}" for e, mf in reachable)))
    elif not enemies:
        checks.append(Check(RULE, False, "the position holds no enemy unit"))
    else:
        checks.append(Check(RULE, False, f"no Known Enemy Unit in its LOS within {mf_text(limit)}: " + "; ".join(reasons)))
    targets: list[str] = []
    if qualified and reachable:
        seen_by = {e.id: [ldr for ldr in qualified if position.has_los(ldr.hex, e.hex)] for e, _ in reachable}
        targets = [e.id for e, _ in reachable if seen_by[e.id]]
        if targets:
            checks.append(Check(RULE, True, "in LOS of the leader: " + ", ".join(
                f"{t} (seen by {', '.join(ldr.id for ldr in seen_by[t])})" for t in targets)))
        else:
            checks.append(Check(RULE, False, "no qualifying leader has LOS to " + ", ".join(e.name for e, _ in reachable)))
    eligible = all(c.ok for c in checks)
    return Eligibility(u.id, eligible, tuple(checks), tuple(targets) if eligible else (),
                       tuple(ldr.id for ldr in qualified))


def surviving_hs(hs: Unit, squad_type: str, nationality: Nationality) -> Check:
    """8.5.2 "(or its surviving HS)": is ``hs`` the HS that the chart gives
    ``squad_type``, the squad it came from?  Where the excerpt names no HS for
    that squad (it names only the 3-3-7's 1-2-7), the check passes and says so."""
    parent = nationality.counter(squad_type, "squad")
    expected = parent.half_squad if parent is not None else ""
    if not expected:
        return Check(RULE, True, f"{hs.name} came from squad {hs.squad} (a {squad_type}); the excerpt does not name a "
                                 f"{squad_type}'s HS, so pbem cannot check that it is a {hs.type}")
    if hs.type != expected:
        return Check(RULE, False, f"{hs.name} is not the surviving HS of squad {hs.squad}: a {squad_type}'s HS is a {expected}")
    return Check(RULE, True, f"{hs.name} is the surviving HS of squad {hs.squad} (a {squad_type})")


@dataclass(frozen=True)
class Declaration:
    units: tuple[str, ...]
    target: str
    leader: str | None = None  # a leader going Berserk with them


def check_declarations(
    position: Position,
    declarations: Sequence[Declaration],
    data: AslData,
    dare_death: Mapping[str, bool] | None = None,
    squad_types: Mapping[str, str] | None = None,
) -> tuple[list[Eligibility], list[Check]]:
    """Units declared Berserk: each eligible against its declared target; a
    leader going along qualifies for one of them and Charges the same target;
    all units of one hex that go Berserk Charge one target as one stack.
    ``dare_death`` and ``squad_types`` are by roster squad (a HS's ``squad``)."""
    dare_death = dare_death or {}
    squad_types = squad_types or {}
    results: list[Eligibility] = []
    problems: list[Check] = []
    target_of: dict[str, str] = {}
    for d in declarations:
        t = position.unit(d.target)
        for uid in d.units:
            if uid in target_of:
                problems.append(Check(RULE, False, f"{uid} is declared Berserk twice"))
                continue
            unit = position.unit(uid)
            result = eligibility(position, uid, data, target=d.target,
                                 dare_death=dare_death.get(unit.squad, dare_death.get(uid)),
                                 squad_type=squad_types.get(unit.squad))
            results.append(result)
            target_of[uid] = d.target
        if d.leader is not None:
            leader = position.unit(d.leader)
            if not leader.is_leader or leader.enemy:
                problems.append(Check(RULE, False, f"{leader.name} is not a friendly leader"))
                continue
            mates = [position.unit(uid) for uid in d.units]
            why = leader_problems(leader)
            close = [m.id for m in mates if m.hex.distance(leader.hex) <= 1]
            if why or not close:
                reason = " and ".join(why) if why else f"is not in or adjacent to the hex of {', '.join(d.units)}"
                problems.append(Check(RULE, False, f"leader {leader.name} may not go Berserk with them: it {reason}"))
            elif not position.has_los(leader.hex, t.hex):
                problems.append(Check(RULE, False, f"leader {leader.name} has no LOS to the target {t.name}"))
            else:
                problems.append(Check(RULE, True, f"leader {leader.id} goes Berserk too and must Charge the same target {t.id}"))
            if leader.id in target_of:
                problems.append(Check(RULE, False, f"{leader.id} is declared Berserk twice"))
            target_of[leader.id] = d.target
    by_hex: dict[Hex, set[str]] = {}
    for uid, target in target_of.items():
        by_hex.setdefault(position.unit(uid).hex, set()).add(target)
    for h, targets in by_hex.items():
        if len(targets) > 1:
            problems.append(Check(RULE, False, f"the units going Berserk in {position.label(h)} must Charge as a single "
                                               f"stack, one target, not {', '.join(sorted(targets))}"))
    return results, problems


# --------------------------------------------------------------------------- effects


def effects(position: Position, unit_id: str, target: str | None, data: AslData) -> list[Check]:
    """What going Berserk means for ``unit_id`` (the Berserk box, 8.5.2 and the
    Dare-Death Example), as sentences about the unit, citing the rule."""
    u = position.unit(unit_id)
    b = data.berserk
    out = []
    if "wounded" in u.markers:
        out.append(Check(BOX, True, f"wounded: not the Berserk {b['mf']} MF but a wounded unit's (not in the excerpt), never increased"))
    else:
        out.append(Check(BOX, True, f"{b['mf']} MF, which can never be increased"))
    out.append(Check(BOX, True, f"Morale Level {b['morale']}"))
    if "concealed" in u.markers:
        out.append(Check(BOX, True, "loses its Concealment (8.3)"))
    if "cx" in u.markers:
        out.append(Check("Dare-Death Example", True, "loses its CX"))
    heavy = [w for w in u.sw if w.gun or w.pp > int(b["max_sw_pp"])]
    if heavy:
        out.append(Check(BOX, True, "drops " + ", ".join(f"{w.name} ({'Gun' if w.gun else f'{w.pp} PP'})" for w in heavy)
                         + f" before Charging (Guns and SW greater than {b['max_sw_pp']} PP)"))
    if target is not None:
        t = position.unit(target)
        route = charge_route(position, u.hex, t.hex)
        how = f": {' '.join(position.label(h) for h in route.hexes[1:])} for {mf_text(route.cost)}" if route else ""
        out.append(Check(BOX, True, f"must immediately Charge {t.name}, entering its hex by the shortest route in MF{how}"))
    out += [
        Check(BOX, True, "cannot use Assault Movement or expend MF except to enter a new hex; cannot advance in the APh"),
        Check(BOX, True, "a failed MC is Casualty Reduction instead of breaking"),
        Check(BOX, True, "never receives leadership benefit, takes no PAATC or LLMC/LLTC, never cowers"),
        Check(BOX, True, "is pinned only by collapsing Huts (8.2.1) or entering Bamboo"),
        Check(BOX, True, "loses Berserk status at the end of the Player Turn"),
        Check(RULE, True, f"in CC (a Dare-Death MMC, Berserk or not): may enter Hand-to-Hand CC as if Japanese (8.1.8.4); "
                          f"{data.dare_death['cc_drm']} DRM on non-Hand-to-Hand CC attacks vs Infantry while unpinned; "
                          f"ambush drm +{data.dare_death['ambush_drm_inexperienced']} Inexperienced (5.4) and "
                          f"+{data.dare_death['ambush_drm_berserk']} Berserk"),
    ]
    return out


def charge_route(position: Position, start: Hex, target: Hex):
    """The cheapest route in MF from ``start`` into ``target``'s hex over the
    stated entry costs (None without them)."""
    return position.cheapest_route(start, target)


def check_route(position: Position, unit_id: str, target: str, route: Sequence[str]) -> Check:
    """Is ``route`` (the hexes entered, ending in the target's hex) a shortest
    Charge route in MF (Berserk box: "taking the shortest (in MF) route")?"""
    u, t = position.unit(unit_id), position.unit(target)
    hexes = [position.board.parse(h) for h in route]
    if not hexes or hexes[-1] != t.hex:
        return Check(BOX, False, f"a Charge ends in the target's hex {t.at}, not {route[-1] if route else 'nowhere'}")
    cost, at = 0, u.hex
    for h in hexes:
        if not at.is_adjacent(h):
            return Check(BOX, False, f"{position.label(h)} is not adjacent to {position.label(at)}")
        step = position.entry(h)
        if step is None:
            return Check(BOX, False, f"the position gives no MF to enter {position.label(h)}")
        cost, at = cost + step, h
    best = charge_route(position, u.hex, t.hex)
    if best is None:
        return Check(BOX, False, f"no route from {u.at} to {t.at} over the stated entry costs")
    written = " ".join(position.label(h) for h in hexes)
    if cost > best.cost:
        shortest = " ".join(position.label(h) for h in best.hexes[1:])
        return Check(BOX, False, f"{written} costs {mf_text(cost)}; the shortest route costs {mf_text(best.cost)} ({shortest})")
    return Check(BOX, True, f"{written} is a shortest route in MF ({mf_text(cost)})")


# --------------------------------------------------------------------------- dice


@dataclass(frozen=True)
class MoraleCheck:
    final: int
    passed: bool
    text: str


def morale_check(dr: int, mc: int, data: AslData, drm: int = 0, casualty: str = "") -> MoraleCheck:
    """A Berserk unit's MC: ``dr`` (the DR) + ``mc`` (a 1MC adds 1) + ``drm``
    against Morale Level 10.  Passing is never a pin (pin NA); failing is
    Casualty Reduction, not breaking (``casualty`` names what it becomes)."""
    if not 2 <= dr <= 12:
        raise InputError(f"a DR is 2-12, not {dr}")
    morale = int(data.berserk["morale"])
    final = dr + mc + drm
    shown = f"DR {dr}" + (f" +{mc}" if mc else "") + (f" {drm:+d}" if drm else "") + f" = {final} vs Morale Level {morale}"
    if final <= morale:
        return MoraleCheck(final, True, f"{shown}: passed" + (" (pin NA)" if final == morale else ""))
    return MoraleCheck(final, False, f"{shown}: failed -- Casualty Reduction" + (f": {casualty}" if casualty else ""))


def casualty_reduction(unit: Unit, data: AslData, nationality: str) -> str:
    """What a Berserk unit's failed MC leaves (the excerpt shows a 3-3-7
    becoming "an unbroken 1-2-7 HS")."""
    counter = data.nationality(nationality).counter(unit.type, unit.kind) if unit.kind == "squad" else None
    if counter is not None and counter.half_squad:
        return f"replaced with an unbroken {counter.half_squad} HS"
    if unit.kind == "squad":
        return "replaced with its HS (the excerpt does not say which counter)"
    return "Casualty Reduction (the excerpt shows only a squad's: it becomes an HS)"


HAND_TO_HAND, NON_HAND_TO_HAND = "Hand-to-Hand", "non-Hand-to-Hand"


@dataclass(frozen=True)
class CCAttack:
    """One CC attack by the Chinese units: which CC it is and its DRM."""

    kind: str  # HAND_TO_HAND | NON_HAND_TO_HAND
    dare_death_drm: int  # 8.5.2's extra DRM: non-Hand-to-Hand only
    hand_to_hand_drm: int  # Hand-to-Hand CC's own DRM (the Dare-Death Example), either side's attack

    @property
    def drm(self) -> int:
        return self.dare_death_drm + self.hand_to_hand_drm


@dataclass(frozen=True)
class CloseCombat:
    """8.5.2 for the Chinese units in one CC, the two kinds of attack apart."""

    dare_death: tuple[str, ...]  # the Dare-Death MMC taking part
    hand_to_hand_allowed: bool  # 8.5.2 lets them make it Hand-to-Hand, as if Japanese
    non_hand_to_hand: CCAttack
    hand_to_hand: CCAttack | None  # None: 8.5.2 gives these units no Hand-to-Hand CC
    ambush_drm: int
    checks: tuple[Check, ...]

    def attack(self, hand_to_hand: bool) -> CCAttack:
        """The attack as the players make it: Hand-to-Hand or not."""
        if not hand_to_hand:
            return self.non_hand_to_hand
        if self.hand_to_hand is None:
            raise InputError(f"{RULE}: no Dare-Death MMC takes part, so 8.5.2 gives these units no Hand-to-Hand CC "
                             f"(when the Japanese make it one is 8.1.8.4, which is not in the excerpt)")
        return self.hand_to_hand


def close_combat(units: Iterable[Unit], data: AslData, dare_death: Mapping[str, bool] | None = None,
                 berserk: Iterable[str] = (), vs_infantry: bool = True) -> CloseCombat:
    """8.5.2 for the Chinese ``units`` in one CC, reported for each kind of
    attack they may make.

    The reading (8.5.2 and the Dare-Death Example):

    * "Dare-Death MMC enter into and resolve Hand-to-Hand CC as if they were
      Japanese (8.1.8.4)": with a Dare-Death MMC taking part the Chinese *may*
      make the CC Hand-to-Hand, as the Japanese may; they need not
      (``hand_to_hand_allowed``, and :meth:`CloseCombat.attack` for the one
      they make).
    * "each non-Hand-to-Hand CC attack against Infantry in which an unpinned
      Dare-Death MMC participates receives an extra -1 DRM": only a
      non-Hand-to-Hand attack, vs Infantry, with one unpinned
      (``non_hand_to_hand.dare_death_drm``).  A Hand-to-Hand attack never
      gets it.
    * The Example: "the Chinese attack at 3-2 in Hand-to-Hand CC (5 FP to 3
      FP) with a -1 DRM. The Japanese attack at 1-2 with -1 DRM for
      Hand-to-Hand CC."  Both sides' attacks get the same -1: the
      Hand-to-Hand DRM (8.1.8.4, outside the excerpt), not 8.5.2's extra -1
      (which would make the Chinese -2).  It is ``hand_to_hand_drm`` here,
      from the Example's number (``dare_death.hand_to_hand_drm``).
    * "When determining ambush, Berserk units receive both the +1
      Inexperienced (5.4) drm and a +1 Berserk drm" (``ambush_drm``).

    pbem does not compute the CC odds: the CC Table is not in the excerpt."""
    dare_death = dare_death or {}
    berserk = set(berserk)
    units = list(units)

    def is_dd(u: Unit) -> bool:
        return bool(dare_death.get(u.squad, dare_death.get(u.id, u.dare_death)))

    dd = [u for u in units if u.is_mmc and is_dd(u)]
    unpinned = [u for u in dd if "pin" not in u.markers]
    mad = [u for u in units if u.id in berserk or "berserk" in u.markers]
    d = data.dare_death
    checks = []
    htoh_drm = int(d["hand_to_hand_drm"])
    if dd:
        checks.append(Check(RULE, True, f"{', '.join(u.id for u in dd)}: Dare-Death MMC, so the Chinese may make it "
                                        f"Hand-to-Hand CC as if {d['hand_to_hand_as'].title()} (8.1.8.4); they need not"))
        checks.append(Check("Dare-Death Example", True, f"in Hand-to-Hand CC every attack, by either side, has {htoh_drm} DRM "
                                                        f"(\"The Japanese attack at 1-2 with -1 DRM for Hand-to-Hand CC\"); "
                                                        f"8.5.2's extra DRM does not apply to it"))
    else:
        checks.append(Check(RULE, False, "no Dare-Death MMC takes part: 8.5.2 gives no Hand-to-Hand CC and no extra DRM"))
    dd_drm = int(d["cc_drm"]) if unpinned and vs_infantry else 0
    if dd_drm:
        checks.append(Check(RULE, True, f"{dd_drm} DRM on a non-Hand-to-Hand CC attack vs Infantry "
                                        f"({unpinned[0].id} unpinned takes part)"))
    elif dd:
        why = "not vs Infantry" if not vs_infantry else f"every Dare-Death MMC ({', '.join(u.id for u in dd)}) is pinned"
        checks.append(Check(RULE, False, f"no extra DRM on a non-Hand-to-Hand CC attack: {why}"))
    ambush = (int(d["ambush_drm_inexperienced"]) + int(d["ambush_drm_berserk"])) if mad else 0
    if mad:
        checks.append(Check(RULE, True, f"ambush drm +{ambush}: +{d['ambush_drm_inexperienced']} Inexperienced (5.4) "
                                        f"and +{d['ambush_drm_berserk']} Berserk ({', '.join(u.id for u in mad)})"))
    return CloseCombat(
        tuple(u.id for u in dd), bool(dd), CCAttack(NON_HAND_TO_HAND, dd_drm, 0),
        CCAttack(HAND_TO_HAND, 0, htoh_drm) if dd else None, ambush, tuple(checks),
    )
