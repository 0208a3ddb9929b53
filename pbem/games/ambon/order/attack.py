"""``attack``: a combat declared in its side's Combat Phase (11.0), with an
HQ's support (11.1); :mod:`pbem.games.ambon.battle` checks the declaration
and fights it."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Mapping

from pbem.engine.contract import Section
from pbem.engine.machine import Event, Ordered, replace
from pbem.errors import InputError, PbemError
from pbem.games.ambon import battle, combat, movement
from pbem.games.ambon.order.base import Parts, PhaseOrder, hexlabel, unit_ids
from pbem.games.ambon.sequence import OWN_PHASES, Phase
from pbem.games.ambon.state import Battle, other

if TYPE_CHECKING:
    from pbem.games.ambon.data import AmbonData
    from pbem.games.ambon.state import AmbonState


class Attack(PhaseOrder):
    """11.0, 11.1: the enemy hex attacked, the attackers, the supporting HQ."""

    verb = "attack"
    required = ("with",)
    optional = ("hq",)
    types = ("attack",)
    forms = (('attack = "1609"  with = ["3.A", "3.B"]  hq = "228-HQ"', "your Combat Phase", "11.0, 11.1"),)
    rules = ("11.0", "11.1")
    typed_forms = ('attack 1609 with 3.A 3.B [hq 228-HQ] 11.0 / 11.1',)

    @staticmethod
    def on(where: str, units: list[str]) -> dict[str, Any]:
        """The table of an attack on the hex ``where`` by ``units`` (an HQ's support added as ``hq``)."""
        return {"attack": where, "with": list(units)}

    def line(self, words: list[str]) -> dict[str, Any]:
        """``attack 1609 with 3.A 3.B [hq 228-HQ]``."""
        order: dict[str, Any] = {"attack": words[0] if words else ""}
        if "with" in words:
            after = words[words.index("with") + 1:]
            if "hq" in after:
                hq = after[after.index("hq") + 1] if after.index("hq") + 1 < len(after) else ""
                after = after[: after.index("hq")]
                if hq:
                    order["hq"] = hq
            order["with"] = after
        return order

    def parse(self, data: "AmbonData", side: str, order: Mapping[str, Any], where: str, parts: Parts) -> None:
        units = order["with"]
        if not unit_ids(units):
            raise InputError(f"{where}: with must be a list of unit ids", field="with")
        hq = order.get("hq", "")
        if not isinstance(hq, str):
            raise InputError(f"{where}: hq must be an HQ's id", field="hq")
        parts.public.append({"type": "attack", "target": hexlabel(data, order["attack"], where), "with": list(units), "hq": hq})

    def phase(self, side: str) -> Phase:
        return OWN_PHASES[side][2]

    def effect(self, data: "AmbonData", state: "AmbonState", action: Ordered) -> tuple["AmbonState", list[Event]]:
        return battle.declare(data, state, action.side, dict(action.order), action.seq)

    def offer(self, game: Any, state: "AmbonState", side: str, out: Any, **context: Any) -> None:
        """11.0-11.2: every enemy hex ``side``'s units are next to, attacked by all of them, and its odds."""
        data, gmap = game.data, game.map
        now = replace(state, phase=OWN_PHASES[side][2], closing=False, battles=())
        rows, notes = [], []
        for where in sorted({p.where for p in now.on_map(other(side))}):
            defenders = [p for p in now.at(where) if p.side != side]
            t = gmap.hex(where)
            attackers = [
                p for p in now.on_map(side)
                if gmap.hex(p.where).is_adjacent(t) and not gmap.has("all_sea", gmap.hex(p.where), t)
                and not data.spec(p).hq and not data.spec(p).artillery and p.penalty != "opposed"
                and movement.overstacking(data, now, p.where) != "physical"
            ]
            if not attackers:
                continue
            ids = [p.id for p in attackers]
            b = Battle(target=where, side=side, attackers=tuple(ids))
            trial = replace(now, battles=(b,))
            attack, halved = battle.attack_strength(data, trial, b)
            try:
                odds = combat.odds(data, trial, attack, defenders, where, across=[p.where for p in attackers])
            except PbemError as err:
                notes.append(f"  {where}: {err}")
                continue
            hqs = []
            for hq in battle.hqs_in_range(data, now, side, where):
                try:
                    battle.check_support(data, now, side, hq.id, where, ids, [d.id for d in defenders])
                except PbemError:
                    continue
                hqs.append(hq.id)
            drm = ", ".join(f"{v:+d} {why}" for why, v in odds.drms)
            shift = ", ".join(f"{v:+d} {why}" for why, v in odds.shifts)
            shown_def = ", ".join(d.id + ("?" if d.concealed else "") for d in defenders)
            rows.append({
                "target": where, "defenders": [d.id for d in defenders], "with": ids,
                "attack": combat.fmt(Fraction(attack)), "defence": combat.fmt(odds.defence),
                "column": odds.column, "final": odds.final, "drm": odds.drm, "hq": hqs,
            })
            notes.append(
                f'  attack = "{where}"  with = {json.dumps(ids)}: '
                f"{shown_def}; {combat.fmt(Fraction(attack))} against {combat.fmt(odds.defence)} = {odds.column}"
                + (f" -> {odds.final} ({shift})" if odds.shifts else "")
                + (f"; DRM {drm}" if drm else "")
                + (f"; HQ support possible: {', '.join(hqs)} (hq = ..., DRM +1)" if hqs else "")
            )
            notes += [f"      {h}" for h in halved]
        out.choices["attacks"] = rows
        if rows:
            notes.insert(0, "every enemy hex your units are next to, attacked by all of them (leave some out if you "
                            "like); odds from the position now, before any move you order; '?' marks a concealed piece, "
                            "counted as a detachment (11.0-11.2)")
            out.sections.append(Section("Combat (11.0): possible attacks and the odds each would get", notes))
