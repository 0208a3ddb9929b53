"""Dare-Death Squads (8.5.2): which squads may be designated, how many, and
how a designation is sealed.

"The Chinese player may, during setup, secretly designate 10% (fractions
rounded up) of his non-5-3-7 squads (only) as Dare-Death Squads; record their
IDs."  In a game the Chinese setup declares the squads publicly and seals
**one slot per eligible squad** (``dd-A``, ``dd-B`` ...), each holding
``"dare-death"`` or ``"regular"`` padded to the same length, so neither the
commitments nor the sealed store tell how many -- or which -- squads were
designated.  The count is checked by the owner's client before the setup is
sent (``check_seals``) and by ``verify --audit`` after the game; a squad's
designation is revealed when it goes Berserk, or when its owner claims it
with a ``dare-death`` order (8.5.2's CC benefits hold Berserk or not).

Reading of "may ... designate 10%": the player designates either exactly 10%
(rounded up) or none at all (he does not use the rule); any other number is
an error.

>>> quota(4), quota(10), quota(11), quota(0)
(1, 1, 2, 0)
"""

from __future__ import annotations

from typing import Iterable, Mapping

from pbem.errors import InputError
from pbem.games.asl.data import Nationality, counter_id

RULE = "8.5.2"
SLOT_PREFIX = "dd-"
DARE_DEATH = "dare-death"
REGULAR = "regular"
WIDTH = max(len(DARE_DEATH), len(REGULAR))


def quota(eligible: int, percent: int = 10) -> int:
    """``percent`` of ``eligible`` squads, fractions rounded up."""
    return -(-eligible * percent // 100)


def slot(squad: str) -> str:
    return SLOT_PREFIX + squad


def squad_of(slot_id: str) -> str | None:
    return slot_id[len(SLOT_PREFIX):] if slot_id.startswith(SLOT_PREFIX) else None


def sealed_value(designated: bool) -> str:
    """The value sealed in a squad's slot: both forms are ``WIDTH`` characters."""
    return (DARE_DEATH if designated else REGULAR).ljust(WIDTH)


def read_value(value: str, where: str = "") -> bool:
    """True for a Dare-Death designation; anything but the two padded forms is an error."""
    if value == sealed_value(True):
        return True
    if value == sealed_value(False):
        return False
    raise InputError(f"{where}{value!r} is not a Dare-Death designation ({DARE_DEATH!r} or {REGULAR!r}, padded)")


def eligible(nationality: Nationality, roster: Mapping[str, str]) -> list[str]:
    """The roster squads that may be designated: the nationality's squads
    other than the excluded types (8.5.2: "non-5-3-7 squads (only)")."""
    out = []
    for sid, type_ in roster.items():
        counter = nationality.counter(type_, "squad")
        if counter is not None and counter.type not in nationality.dare_death_excluded:
            out.append(sid)
    return out


def check_count(designated: int, eligible_count: int, percent: int = 10) -> list[str]:
    """8.5.2: exactly ``percent`` % rounded up, or none."""
    wanted = quota(eligible_count, percent)
    if designated in (0, wanted):
        return []
    return [
        f"{RULE}: {designated} Dare-Death Squads designated among {eligible_count} eligible (non-5-3-7) squads; "
        f"10% rounded up is {wanted} (or none, if the rule is not used)"
    ]


def check_store(store: Mapping[str, str], percent: int = 10, squads: Iterable[str] | None = None) -> list[str]:
    """The designations in a sealed store: every value well formed, one slot
    per eligible squad (when ``squads`` is known), and the count (8.5.2)."""
    problems = []
    slots = {s: v for s, v in store.items() if s.startswith(SLOT_PREFIX)}
    if squads is not None:
        wanted = {slot(s) for s in squads}
        missing, extra = sorted(wanted - set(slots)), sorted(set(slots) - wanted)
        if missing:
            problems.append(f"{RULE}: no sealed designation for {', '.join(missing)}")
        if extra:
            problems.append(f"{RULE}: designations sealed for squads that are not eligible: {', '.join(extra)}")
    count = 0
    for s, v in sorted(slots.items()):
        try:
            count += read_value(v, f"{RULE}: slot {s}: ")
        except InputError as err:
            problems.append(str(err))
    return problems + check_count(count, len(slots), percent)


def roster_types(value: object, where: str) -> dict[str, str]:
    """A setup's ``squads`` table ``{id = "3-3-7"}`` read as id -> counter ID."""
    if not isinstance(value, Mapping):
        raise InputError(f"{where}: squads must be a table like {{ A = \"3-3-7\", B = \"4-4-7\" }}", field="squads")
    out = {}
    for sid, type_ in value.items():
        if not isinstance(type_, str):
            raise InputError(f"{where}: squad {sid!r} must be given its counter ID as a string", field="squads")
        out[str(sid)] = counter_id(type_)
    return out
