"""``bombard``: one artillery-type unit bombards one enemy unit (10.0), in
its side's Bombardment Phase or, with 14.1, defensively in the enemy's
Combat Phase; :mod:`pbem.games.ambon.bombardment` holds the rule's checks
and resolves the die."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from pbem.engine.contract import Section
from pbem.engine.machine import Event, Ordered, illegal, replace
from pbem.errors import InputError, PbemError
from pbem.games.ambon import battle, bombardment, phases
from pbem.games.ambon.order.base import Kind, Parts
from pbem.games.ambon.sequence import OWN_PHASES
from pbem.games.ambon.state import Bombardment, CombatStage, other

if TYPE_CHECKING:
    from pbem.games.ambon.data import AmbonData
    from pbem.games.ambon.state import AmbonState


class Bombard(Kind):
    """10.0 (and 14.1 defensive bombardment in the enemy's Combat Phase)."""

    verb = "bombard"
    required = ("target",)
    types = ("bombard",)
    forms = (('bombard = "3.D"  target = "NEI-2.B"', "your Bombardment Phase (the defender's: 14.1)", "10.0, 14.1"),)
    rules = ("10.0", "14.1")
    typed_forms = ('bombard 3.D NEI-2.B                  10.0',)

    @staticmethod
    def at(unit: str, target: str) -> dict[str, Any]:
        """The table of ``unit``'s bombardment of the enemy unit ``target``."""
        return {"bombard": unit, "target": target}

    def line(self, words: list[str]) -> dict[str, Any]:  # bombard 3.D NEI-2.B
        return {"bombard": words[0] if words else "", **({"target": words[1]} if len(words) > 1 else {})}

    def parse(self, data: "AmbonData", side: str, order: Mapping[str, Any], where: str, parts: Parts) -> None:
        target = order["target"]
        if not isinstance(target, str):
            raise InputError(f"{where}: target must be a unit id", field="target")
        parts.public.append({"type": "bombard", "unit": order["bombard"], "target": target})

    def apply(self, data: "AmbonData", state: "AmbonState", action: Ordered) -> tuple["AmbonState", list[Event]]:
        side, unit, target = action.side, action.order["unit"], action.order["target"]
        enemy_combat = OWN_PHASES[other(side)][2]
        defensive = state.phase == enemy_combat
        events: list[Event] = []
        if defensive:
            if not state.option("14.1"):
                raise illegal("10.0", f"{side} may bombard only in its own Bombardment Phase (14.1 is not in use)")
            if not state.battles or any(b.stage is CombatStage.DECLARED for b in state.battles):
                raise illegal("14.1", "defensive bombardment comes after all combats have been declared")
            if not battle.defensive_window(state, action.seq):
                raise illegal("14.1", "defensive bombardment is resolved before the combat ratio is calculated: "
                                      "it belongs in the message that answers the declarations")
        else:
            state, events = phases.reach(data, state, OWN_PHASES[side][1], side, action.index, "bombard")
        if any(b.unit == unit for b in state.bombardments):
            raise illegal("10.0", f"{unit} already bombards this turn")
        bombardment.check_bombardment(data, state, unit, target, defensive=defensive)
        state = replace(state, bombardments=state.bombardments + (Bombardment(unit, target, action.seq, defensive),))
        events += [Event("14.1" if defensive else "10.0",
                         f"{unit} {'defensively ' if defensive else ''}bombards {target}; one die is due")]
        return replace(state, acted=True), events

    def offer(self, game: Any, state: "AmbonState", side: str, out: Any, **context: Any) -> None:
        """10.0: the legal targets of each artillery-type unit (``defensive``: 14.1's, in the enemy's Combat Phase)."""
        defensive = bool(context.get("defensive"))
        data = game.data
        phase_state = state if defensive else replace(state, phase=OWN_PHASES[side][1], closing=False)
        rows, notes = [], []
        for unit in bombardment.artillery_units(data, phase_state, side):
            targets = []
            for target in sorted(phase_state.on_map(other(side)), key=lambda p: p.id):
                try:
                    bombardment.check_bombardment(data, phase_state, unit.id, target.id, defensive=defensive)
                except PbemError:
                    continue
                targets.append(target)
            if not targets:
                continue
            spec = data.spec(unit)
            rows.append({"unit": unit.id, "where": unit.where, "strength": spec.bombard, "range": spec.range,
                         "targets": [{"id": t.id, "where": t.where} for t in targets]})
            notes.append(f"  {unit.id} in {unit.where} (bombardment {spec.bombard}, range {spec.range}): "
                         + ", ".join(f"{t.id} in {t.where}" for t in targets))
        out.choices["defensive_bombardment" if defensive else "bombardment"] = rows
        if rows:
            title = "Defensive bombardment (14.1)" if defensive else "Bombardment (10.0): legal targets from where your units are now"
            notes.insert(0, 'bombard = "UNIT"  target = "ENEMY UNIT" -- a die <= the strength disrupts the target'
                         + ("" if defensive else "; your attacks then wait for the bombardment dice (next message)"))
            out.sections.append(Section(title, notes))
