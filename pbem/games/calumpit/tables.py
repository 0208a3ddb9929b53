"""The dice tables of the TACTICAL RULES as pure functions of the data.

Nothing here reads or changes a game state; each function takes the numbers
from ``tables.toml`` (a :class:`~pbem.games.calumpit.data.CalumpitData`) and
the dice, and returns the result.  Section names in docstrings are the rule
text's headings, which events and errors cite.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence


def clock(direction: int) -> str:
    return f"{direction} o'clock"


def inches(value: float) -> str:
    return f"{value:g}\""


def half(value: int) -> float:
    """Half a move, rounded down to the half inch (MOVEMENT: "Half move")."""
    return value / 2


# --------------------------------------------------------------------------- EVENT CARDS


def event_check(tables: Mapping[str, Any], a: int, b: int) -> tuple[str, ...]:
    """EVENT CARDS: the decks a 2D6 roll of ``a`` and ``b`` draws from."""
    ec = tables["event_check"]
    total = a + b
    if total in ec["both"]:
        return ("red", "black")
    if total in ec["black"]:
        return ("black",)
    if ec.get("red_on_doubles", True) and a == b:
        return ("red",)
    return ()


# --------------------------------------------------------------------------- MOVEMENT


def movement(tables: Mapping[str, Any], kind: str, terrain: str, dice: Sequence[int], modifier: int = 0) -> float:
    """MOVEMENT: inches a unit of ``kind`` may move through ``terrain``."""
    spec = tables["movement"]["kinds"][kind]
    total = sum(dice) + spec["plus"] + modifier
    total = max(0, total)
    return half(total) if terrain in tables["movement"]["half"] else total


def movement_prohibited(tables: Mapping[str, Any], kind: str, terrain: str) -> bool:
    return terrain in tables["movement"]["kinds"][kind].get("prohibited", ())


# --------------------------------------------------------------------------- DIRECT FIRE


def target_range(tables: Mapping[str, Any], distance: int) -> int:
    """DIRECT FIRE: "Measured from target to shooter in inches, subtract 10"
    - the result is the TARGET RANGE" -- below zero for a target closer than
    10 inches (the text sets no floor)."""
    return distance - tables["direct_fire"]["range_deduction"]


def hit_number(tables: Mapping[str, Any], weapon: str, distance: int) -> int:
    """DIRECT FIRE: the (modified) D20 score that hits: the TARGET RANGE with
    the weapon's correction (HMG -3, LMG +3) divided by two (SMG: by one),
    rounded up -- negative too, so that a modifier still counts at close
    range (a natural 1 misses and a natural 20 hits all the same, see
    :func:`d20_hits`); snipers 15."""
    spec = tables["direct_fire"]["weapons"][weapon]
    if "fixed" in spec:
        return spec["fixed"]
    adjusted = target_range(tables, distance) + spec.get("range_modifier", 0)
    return -(-adjusted // spec["divisor"])  # the roll must be >= adjusted / divisor: the ceiling, also below zero


def shots(tables: Mapping[str, Any], weapon: str, *, figures: int = 0, targets: int = 0, area: int = 2,
          nationality: str = "scouts") -> int:
    """DIRECT FIRE: how many D20 the fire rolls."""
    spec = tables["direct_fire"]["weapons"][weapon]
    if spec["shots"] == "figures":
        per = tables["direct_fire"]["figures_per_die"][nationality]
        return max(1, figures // per) if figures > 0 else 0
    if spec["shots"] == "area":
        return targets * spec["area_shots"][str(area)]
    return 1


def shots_per_target(tables: Mapping[str, Any], weapon: str, area: int = 2) -> int:
    spec = tables["direct_fire"]["weapons"][weapon]
    return spec["area_shots"][str(area)] if spec["shots"] == "area" else 1


def fire_modifier(tables: Mapping[str, Any], flags: Mapping[str, Any]) -> int:
    """DIRECT FIRE MODIFIERS of the firing unit: moving -10, in cover +5, under fire -5."""
    return sum(v for k, v in tables["direct_fire"]["modifiers"].items() if flags.get(k))


def d20_hits(tables: Mapping[str, Any], natural: int, modifier: int, needed: int) -> bool:
    """A natural 1 always misses, a natural 20 always hits; else the modified roll must reach ``needed``."""
    df = tables["direct_fire"]
    if natural == df["natural_miss"]:
        return False
    if natural == df["natural_hit"]:
        return True
    return natural + modifier >= needed


# --------------------------------------------------------------------------- SAVING THROWS


def tdf(tables: Mapping[str, Any], terrain: str) -> int:
    return tables["terrain"][terrain]["tdf"]


def saved(tables: Mapping[str, Any], terrain: str, die: int) -> bool:
    """SAVING THROWS: a D6 greater than the TERRAIN DEFENSE FACTOR saves."""
    return die > tdf(tables, terrain)


# --------------------------------------------------------------------------- Morale


def morale_modifier(tables: Mapping[str, Any], position: str = "", officer: bool = False, extra: int = 0) -> int:
    """MORALE MODIFIERS: open +10, foxhole/trench -10 (by terrain), officer attached -5."""
    mod = tables["terrain"][position]["morale"] if position else 0
    if officer:
        mod += tables["morale"]["officer"]
    return mod + extra


def morale_passes(grade: int, natural: int, modifier: int) -> bool:
    """Morale: the (modified) D20 must be equal to or less than the MORALE GRADE."""
    return natural + modifier <= grade


def grade_loss(tables: Mapping[str, Any], men: int = 0, weapons: int = 0, sergeants: int = 0) -> int:
    m = tables["morale"]
    return men * m["per_man"] + weapons * m["per_weapon"] + sergeants * m["per_sergeant"]


def escalate(tables: Mapping[str, Any], result: str) -> str:
    """Hand to hand: "pinned results are treated as retreat and retreat are treated as rout"."""
    return tables["hand_to_hand"]["escalate"].get(result, result)


# --------------------------------------------------------------------------- INDIRECT FIRE / bursts


def burst_hits(tables: Mapping[str, Any], weapon: str, dice: Sequence[int]) -> int:
    """Kills: figures in a burst hit on the weapon's faces (D6 1-3 for shells)."""
    faces = tables["bursts"][weapon]["kill_faces"]
    return sum(1 for d in dice if d in faces)


def burst_save_terrain(tables: Mapping[str, Any], weapon: str, terrain: str) -> str:
    return tables["bursts"][weapon].get("save_terrain") or terrain


def misfires(tables: Mapping[str, Any], weapon: str, die: int) -> bool:
    return die in tables["indirect_fire"]["weapons"][weapon].get("misfire", ())


# --------------------------------------------------------------------------- grenades


def grenade_miss(tables: Mapping[str, Any], distance: int, die: int) -> tuple[int, int]:
    """Hand-grenades: (modified miss die, inches off target; 0 = on target)."""
    g = tables["grenades"]
    mod = 0
    if g["long_range"]["over"] < distance < g["long_range"]["under"]:
        mod += g["long_range"]["modifier"]
    if distance > g["very_long_range"]["over"]:
        mod += g["very_long_range"]["modifier"]
    if distance < g["short_range"]["under"]:
        mod += g["short_range"]["modifier"]
    modified = die + mod
    if modified < 1:
        return modified, g["below_one_base"] - modified
    return modified, g["miss_inches"].get(str(modified), 0)


def grenade_dud(tables: Mapping[str, Any], die: int) -> bool:
    return die in tables["grenades"]["dud_faces"]


# --------------------------------------------------------------------------- TANK FIRE ACTIONS


@dataclass(frozen=True)
class TankShot:
    column: int
    base: int
    modifier: int

    @property
    def chance(self) -> int:
        return self.base + self.modifier


def tank_column(tables: Mapping[str, Any], distance: int) -> int | None:
    """The range column (index) of a shot at ``distance`` inches; None beyond the last."""
    for i, col in enumerate(tables["tank_fire"]["columns"]):
        if distance <= col:
            return i
    return None


def tank_shot(tables: Mapping[str, Any], gun: str, distance: int, flags: Mapping[str, Any]) -> TankShot:
    tf = tables["tank_fire"]
    column = tank_column(tables, distance)
    if column is None:
        raise ValueError(f"{distance}\" is beyond the table's last column ({tf['columns'][-1]}\")")
    mod = sum(v for k, v in tf["modifiers"].items() if flags.get(k))
    return TankShot(column, tf["guns"][gun]["chances"][column], mod)


def hit_effects(tables: Mapping[str, Any], gun: str, target: str, dice: Sequence[int]) -> dict[str, Any]:
    """Hit tanks: one D6 per crew member, one for the engine, one for a fire;
    5 or 6 hits, with the gun's modifier and the target's armour."""
    tf = tables["tank_fire"]
    spec = tf["targets"][target]
    mod = tf["guns"][gun]["modifier"] + spec["armour"]
    low = min(tf["hit_faces"])
    marks = [d + mod >= low for d in dice]
    crew = spec["crew"]
    return {
        "modifier": mod,
        "crew_hit": sum(marks[:crew]),
        "engine": bool(marks[crew]) if len(marks) > crew else False,
        "fire": bool(marks[crew + 1]) if len(marks) > crew + 1 else False,
    }


# --------------------------------------------------------------------------- the Joker


def demolition(tables: Mapping[str, Any], die: int, flags: Mapping[str, Any]) -> tuple[int, str]:
    """Joker: (modified roll, "blown" / "gave-up" / "failed")."""
    d = tables["demolition"]
    modified = die + sum(d[k] for k in ("japanese_within_6", "friendly_on_bridge", "officer") if flags.get(k))
    if modified <= d["success_at_most"]:
        return modified, "blown"
    if die == d["give_up_natural"]:
        return modified, "gave-up"
    return modified, "failed"


# --------------------------------------------------------------------------- VISIBILITY/SPOTTING


def spotting(tables: Mapping[str, Any], *, vehicle: bool, in_jungle: bool, in_los: bool, moved_or_fired: bool,
             distance: int) -> str:
    """VISIBILITY/SPOTTING: "spotted", "heard" or "unseen".

    "A unit is spotted if it fires or moves within enemy line-of-sight. Units
    cannot be spotted if in Jungle. Tanks/vehicles not sighted as above are
    heard (spotted) if not in line-of-sight but within 24" of spotting unit."
    A vehicle in line-of-sight that neither moves nor fires is not heard: the
    text hears only vehicles out of sight."""
    if in_los and moved_or_fired and not in_jungle:
        return "spotted"
    if vehicle and not in_los and distance <= tables["spotting"]["heard_inches"]:
        return "heard"
    return "unseen"


# --------------------------------------------------------------------------- JAPANESE ENTRANCE


def jagt_rolls(attack: Mapping[str, Any], die: int) -> int:
    """JAGT: how many JAT rolls a D10 (0 = 10) gives."""
    return next(row["jat_rolls"] for row in attack["jagt"]["rows"] if die in row["rolls"])


def jat_unit(data: Any, roll_number: int, die: int) -> str:
    """JAT: the unit type a d20 gives on the roll's number (1-4) column."""
    return next(k for k in data.jat_order if die in data.jat_units[k].columns[roll_number - 1])


def entry_road(data: Any, die: int) -> str:
    return next(road for faces, road in data.roads if die in faces)
