"""Applying a combat's results (11.3), step by step, with every choice its
owner's: the one procedure of the Combat Phase's combats (:mod:`.battle`)
and the landing combats of 6.3 (:mod:`.landing`).

11.0: "Apply the result against the defender first, then apply the result
against the attacker."  The steps, in that order (``Fight.step`` 1 to 3,
and 4 once all are applied): the defender's hits, the defender's retreat
(an ``r`` retreats or is refused with an extra hit; ``R`` retreats), the
attacker's hits.  Each choice a step
holds -- which units take the hits, whether to refuse an ``r``, which hex
to retreat into when 11.3 allows more than one -- is decided by the owner's
answer in a message, or by their standing instructions, or is no choice at
all; otherwise the fight stops there, waiting for its owner (``waiting``),
and whatever the caller does next (the advance of 11.4, a landing coming
ashore, the next combat) waits with it.  The defender answers their hits
and their retreat together: their losses are applied once both are
decided, so one message of theirs settles both.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from pbem.engine.machine import Event, illegal
from pbem.games.ambon import combat, retreat
from pbem.games.ambon.state import ELIMINATED, REMOVED, AmbonState, Fight

if TYPE_CHECKING:
    from pbem.games.ambon.data import AmbonData

def settle(data: "AmbonData", state: AmbonState, fight: Fight,
           busy: frozenset[str] = frozenset()) -> tuple[AmbonState, list[Event], Fight]:
    """Apply ``fight``'s results from the step it stands at, as far as the
    owners' choices are made (``busy``: hexes of defenders in unresolved
    combats, 11.3).  Returns the fight as it then stands: done, or asked."""
    events: list[Event] = []
    a_hits, d_hits, kind = combat.parse_result(fight.result)
    where = f" at {fight.target}"
    while not fight.done:
        owner = fight.owner
        answers = fight.answers if fight.waiting == owner else ()
        held = replace(fight, answers=answers)
        more: list[Event] = []
        skip = 0
        if fight.step == 1:
            defenders = _defenders(state, fight)
            refused = stack_refusal(state, held, owner, defenders, d_hits, data)
            hits = d_hits + (refused == "hit")
            victims = combat.choose_victims(data, defenders, hits, answer=_words(held.answer("losses")),
                                            standing=state.standing.get(owner, "losses"), where=where)
            decided = victims is not None and refused is not None and (
                not kind or refused == "hit" or _retreat_decided(data, state, held, victims, busy))
            if decided and victims is not None:  # decided: victims chosen
                state, more, _ = combat.take_hits(state, data, victims, fight.names[0])
                if refused == "hit":  # 11.3 ruling per-stack: one extra hit for all, and nobody retreats
                    more.append(Event("11.3", f"{fight.label} {fight.target}: the defenders refuse the retreat with "
                                              f"one extra hit in all (11.3 ruling per-stack)", {"target": fight.target}))
                    skip = 1
        elif fight.step == 2:
            survivors = _defenders(state, fight)
            decided = True
            if kind and survivors:
                moved = retreat.retreat_units(data, state, survivors, kind, busy, refuse=held.answer("retreat"),
                                              to=held.answer("to"), where=where)
                decided = moved is not None
                if moved is not None:
                    state, more = moved
        else:
            attackers = _attackers(state, fight)
            victims = combat.choose_victims(data, attackers, a_hits, answer=_words(held.answer("losses")),
                                            standing=state.standing.get(owner, "losses"), where=where)
            decided = victims is not None
            if victims is not None:
                state, more, _ = combat.take_hits(state, data, victims, fight.names[1])
        if not decided:
            if not (fight.asked and fight.waiting == owner):
                fight = replace(fight, waiting=owner, asked=True, answers=answers)
                hexes = open_choices(data, state, fight, busy)["hexes"]
                events.append(Event("11.3", f"{fight.label} {fight.target}: {owner} chooses "
                                            f"{what_is_open(data, state, fight, hexes)} (11.3: the owning player chooses)",
                                    {"target": fight.target, "owner": owner}))
            return state, events, fight
        if fight.asked and fight.waiting == owner and not answers:
            events.append(Event("11.3", f"{fight.label} {fight.target}: {owner}'s open choice is made by the standing "
                                        f"instructions they have just given", {"target": fight.target, "owner": owner}))
        events += more
        keep = answers if fight.step == 1 else ()  # the defender's answer covers their retreat too
        fight = replace(fight, step=fight.step + 1 + skip, waiting=owner if keep else "", asked=False, answers=keep)
    return state, events, fight


def stack_refusal(state: AmbonState, fight: Fight, owner: str, defenders: list[Any], hits: int,
                  data: "AmbonData") -> str | None:
    """11.3, ruling per-stack: whether the defending stack refuses an ``r``
    (``"hit"``: one extra hit in all, the owner choosing who takes it, as
    every hit) or retreats (``"retreat"``); None while it is the owner's
    open choice.  ``"retreat"`` under the per-unit reading and for any
    other result: each unit then answers for itself (:func:`retreat.retreat_units`)."""
    _, _, kind = combat.parse_result(fight.result)
    if kind != "r" or state.ruling("11.3") != "per-stack" or hits >= combat.capacity(data, defenders):
        return "retreat"
    answer = fight.answer("retreat") or state.standing.get(owner, "retreat")
    return answer


def _attackers(state: AmbonState, fight: Fight) -> list[Any]:
    """The attackers still in the fight: on the map, or in their First Wave box (6.3)."""
    return [state.piece(u) for u in fight.attackers if state.piece(u).where not in (ELIMINATED, REMOVED)]


def _defenders(state: AmbonState, fight: Fight) -> list[Any]:
    return [state.piece(u) for u in fight.fought if state.piece(u).where == fight.target]


def _words(text: str | None) -> list[str] | None:
    return None if text is None else text.split()


def _retreat_decided(data: "AmbonData", state: AmbonState, fight: Fight, victims: list[tuple[str, str]],
                     busy: frozenset[str]) -> bool:
    """Whether the defender's retreat after ``victims`` is decided too (their
    answer or standing instructions)."""
    trial, _, _ = combat.take_hits(state, data, victims, fight.names[0])
    survivors = _defenders(trial, fight)
    if not survivors:
        return True
    _, _, kind = combat.parse_result(fight.result)
    return retreat.retreat_units(data, trial, survivors, kind, busy, refuse=fight.answer("retreat"),
                                 to=fight.answer("to"), where=f" at {fight.target}") is not None


def what_is_open(data: "AmbonData", state: AmbonState, fight: Fight, hexes: dict[str, list[str]] | None = None) -> str:
    """The owner's open choice, in words (the decision's prompt): only what
    their standing instructions leave open (``hexes``: each unit's legal
    retreat hexes, :func:`open_choices`, to name the ones with a choice)."""
    a_hits, d_hits, kind = combat.parse_result(fight.result)
    if fight.waiting == fight.side:
        units = [p.id for p in _attackers(state, fight)]
        return f"which of {', '.join(units)} take{'s' if a_hits == 1 else ''} the {_hits(a_hits)}"
    owner = fight.waiting or fight.owner
    units = [p.id for p in _defenders(state, fight)]
    parts = []
    standing = state.standing.get(owner, "losses")
    if fight.step == 1 and d_hits and combat.choose_victims(data, _defenders(state, fight), d_hits, standing=standing) is None:
        parts.append(f"which of {', '.join(units)} take{'s' if d_hits == 1 else ''} the {_hits(d_hits)}")
    if kind == "r" and state.standing.get(owner, "retreat") is None:
        parts.append("whether to retreat or take an extra hit (r)")
    if kind and state.standing.get(owner, "retreat-to") is None:
        several = {u: h for u, h in (hexes or {}).items() if len(h) > 1}
        if hexes is None:
            parts.append("where to retreat")
        elif several:
            parts.append("where to retreat (" + "; ".join(f"{u}: {' or '.join(h)}" for u, h in several.items()) + ")")
    return ", ".join(parts) or "the results"


def _hits(n: int) -> str:
    return "hit" if n == 1 else f"{n} hits"


def open_choices(data: "AmbonData", state: AmbonState, fight: Fight, busy: frozenset[str] = frozenset()) -> dict[str, Any]:
    """The owner's open choice as data: the units that may take the hits and
    how many, the ``r``/``R`` to answer, each unit's legal retreat hexes now
    (after their own losses they may be fewer)."""
    a_hits, d_hits, kind = combat.parse_result(fight.result)
    if fight.waiting == fight.side:
        return {"hits": a_hits, "units": [p.id for p in _attackers(state, fight)], "retreat": "",
                "hexes": {}}
    units = [p.id for p in _defenders(state, fight)]
    hexes = {u: retreat.retreat_choices(data, state, state.piece(u),
                                        retreat.retreat_options(data, state, state.piece(u), busy)) for u in units}
    return {"hits": d_hits if fight.step == 1 else 0, "units": units, "retreat": kind, "hexes": hexes}


def take_answer(state: AmbonState, fight: Fight, side: str, kind: str, value: str, more: dict[str, str] | None,
                choices: dict[str, Any]) -> tuple[Fight, Event]:
    """``side``'s answer to the open choice of ``fight`` (``kind`` "losses":
    the units in the order they take the hits; "retreat": "retreat" or
    "hit", with ``more["to"]``: hexes in order of preference), checked
    against ``choices`` (:func:`open_choices`); it takes effect when the
    fight is settled again."""
    if kind == "losses":
        wrong = [n for n in value.split() if n not in choices["units"]]
        if wrong:
            hint = "" if state.has_piece(wrong[0]) else state.did_you_mean(wrong[0])
            raise illegal("11.3", f"losses at {fight.target}: {wrong[0]!r}{hint} is not one of the units that took "
                                  f"part ({', '.join(choices['units'])})")
        given: tuple[tuple[str, str], ...] = (("losses", value),)
    else:
        if fight.waiting == fight.side or not choices["retreat"]:
            raise illegal("11.3", f"retreat at {fight.target}: no retreat is {side}'s to decide there")
        if value == "hit" and choices["retreat"] == "R":
            raise illegal("11.3", f"retreat at {fight.target}: the result is R, which no extra hit can refuse")
        given = (("retreat", value),) + ((("to", more["to"]),) if more and more.get("to") else ())
    answers = tuple((k, v) for k, v in fight.answers if k not in {g for g, _ in given}) + given
    said = {"losses": "the hits go to", "retreat": "answers the retreat:", "to": "retreats to"}
    event = Event("11.3", f"{side} chooses at {fight.target}: " + "; ".join(f"{said[k]} {v}" for k, v in given),
                  {"target": fight.target, "answer": dict(given)})
    return replace(fight, answers=answers), event
