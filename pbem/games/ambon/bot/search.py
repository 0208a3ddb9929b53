"""The new bot's search: which combats to declare together.

Each candidate combat (:mod:`.candidates`) is valued by the exact CRT
distribution of its odds (:func:`.evaluate.attack_value`).  The plan is
built greedily, best combat first, each unit and each HQ used once; then
every combat in it is valued again against the whole plan (a unit in the
EZOC of a defender nobody attacks is halved, 11.0, so one combat changes
another's odds) and the ones no longer worth it are dropped, until the plan
is stable.  ``level`` widens the candidates (:func:`.candidates.attack_options`)
and the number of refining rounds: a count of work, never a clock.
"""

from __future__ import annotations

from typing import Any

from pbem.games.ambon.bot import candidates, evaluate
from pbem.games.ambon.state import AmbonState

Plan = list[tuple[str, tuple[str, ...], str]]


def plan_attacks(data: Any, state: AmbonState, side: str, level: int, *, threshold: float = 0.0,
                 p_dummy: float = 0.0, aggression: float = 1.0) -> Plan:
    plan: Plan = []
    used: set[str] = set()
    used_hq: set[str] = set()
    targets = candidates.enemy_hexes(data, state, side)
    for _ in range(len(targets)):
        best = None
        for target in targets:
            if any(t == target for t, _, _ in plan):
                continue
            for units, hq in candidates.attack_options(data, state, side, target, level, used, used_hq):
                found = evaluate.attack_value(data, state, side, target, units, hq, plan, p_dummy, aggression)
                if found is None:
                    continue
                value = found[0]
                if value > threshold and (best is None or value > best[0]):
                    best = (value, target, units, hq)
        if best is None:
            break
        _, target, units, hq = best
        plan.append((target, units, hq))
        used.update(units)
        if hq:
            used_hq.add(hq)
    for _ in range(level + 1):  # refine against the whole plan
        kept = []
        for entry in plan:
            found = evaluate.attack_value(data, state, side, *entry, plan=plan, p_dummy=p_dummy, aggression=aggression)
            if found is not None and found[0] > threshold:
                kept.append(entry)
        if kept == plan:
            break
        plan = kept
    return plan
