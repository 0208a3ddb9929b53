"""Ambon's order kinds, each one unit in one place: its syntax (the
``[[order]]`` table's fields, and the typed line of solo play that stands
for the same table), its legality and effect (or the call into the rules
module that resolves it: combats stay in :mod:`pbem.games.ambon.battle`,
landings in :mod:`pbem.games.ambon.landing`), and what the orders template
offers for it.  :class:`~pbem.games.ambon.order.base.Kind` says what a kind
has; :data:`KINDS` is the registry the parser, the rules' dispatch
(:mod:`pbem.games.ambon.handlers`), the template and solo play read.

Each kind's module imports the rules it applies, so the kinds bring the
rules modules with them.
"""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, Any, Mapping

from pbem.errors import InputError
from pbem.games.ambon.order.answers import Advance, Losses, Retreat, Support, Surrender
from pbem.games.ambon.order.attack import Attack
from pbem.games.ambon.order.base import Form, Kind, Parts, where
from pbem.games.ambon.order.bombard import Bombard
from pbem.games.ambon.order.landing import Land, Postpone
from pbem.games.ambon.order.move import Move
from pbem.games.ambon.order.reveal import Reveal
from pbem.games.ambon.order.setup import Conceal, Mine, Place, SecondWave, Setup, Wave
from pbem.games.ambon.order.standing import Standing

if TYPE_CHECKING:
    from pbem.games.ambon.data import AmbonData

#: every ``[[order]]`` kind by its verb, in the order an error lists them
KINDS: dict[str, Kind] = {k.verb: k for k in (
    Place(), Conceal(), Mine(), Wave(), SecondWave(), Setup(), Land(), Postpone(), Move(), Attack(), Bombard(),
    Surrender(), Support(), Advance(), Losses(), Retreat(), Reveal(),
)}
#: the ``[standing]`` table's kind
STANDING = Standing()
#: the kind that applies each parsed order's ``type``
BY_TYPE: dict[str, Kind] = {t: k for k in (STANDING, *KINDS.values()) for t in k.types}

#: the template's reference of every order, in this sequence of verbs (a kind's own rows in turn)
REFERENCE = ("place", "conceal", "mine", "wave", "second_wave", "setup", "land", "move", "bombard", "attack",
             "support", "losses", "retreat", "advance", "surrender", "reveal")
FORMS: tuple[Form, ...] = tuple(form for verb in REFERENCE for form in KINDS[verb].forms)
#: solo play's help of the typed lines, in this sequence of verbs (a kind's own lines in turn)
TYPED = ("setup", "land", "move", "bombard", "attack", "support", "advance", "losses", "retreat", "place", "wave",
         "second_wave", "surrender", "reveal", "standing")


def kind(verb: str) -> Kind:
    """The kind of ``verb`` (``standing``: the ``[standing]`` table's)."""
    return STANDING if verb == STANDING.verb else KINDS[verb]


def typed_help() -> str:
    """Solo play's help of the typed lines, one a line (each kind's :attr:`~Kind.typed_forms`)."""
    return "".join(f"  {line}\n" for verb in TYPED for line in kind(verb).typed_forms)


def parse_order(data: "AmbonData", side: str, i: int, order: Any, parts: Parts) -> None:
    """Order ``i`` of a document, checked and added to ``parts``; an
    InputError naming it when it is wrong: not a table, not exactly one
    verb, a field unknown or missing, a value of the wrong type (the
    kind's own :meth:`~Kind.parse` checks the rest)."""
    if not isinstance(order, Mapping):
        raise InputError(f"order {i + 1}: must be a table", field="order")
    verbs = [k for k in order if k in KINDS]
    if len(verbs) != 1:
        guesses = [g for k in order if k not in KINDS for g in difflib.get_close_matches(str(k), list(KINDS), n=1)]
        raise InputError(
            f"order {i + 1}: give exactly one of {', '.join(KINDS)} (got {', '.join(sorted(order)) or 'nothing'})"
            + (f"; did you mean {' or '.join(repr(g) for g in guesses)}?" if guesses and not verbs else ""),
            field="order",
        )
    verb = verbs[0]
    of = KINDS[verb]
    at = where(i, verb)
    extra = set(order) - {verb} - set(of.required) - set(of.optional)
    missing = [k for k in of.required if k not in order]
    if extra or missing:
        raise InputError(
            f"{at}: " + ", ".join([f"unknown field {k!r}" for k in sorted(extra)] + [f"missing field {k!r}" for k in missing]),
            field=(sorted(extra) + missing)[0],
        )
    if of.string_value and not isinstance(order[verb], str):
        raise InputError(f"{at}: {verb} must be a string, got {order[verb]!r}", field=verb)
    of.parse(data, side, order, at, parts)


def typed(line: str) -> dict[str, Any] | tuple[str, Any] | None:
    """Solo play: a typed line as the table it stands for -- an
    ``[[order]]`` table, or ``("standing", (name, value))`` for one entry
    of the ``[standing]`` table; None for a blank line.  The verb's kind
    makes the table (:meth:`Kind.line`) and nothing is checked here: the
    table is parsed as a file's is, with the same errors.  A word that is
    no verb makes a table of that key, which the parser refuses as it
    refuses a file's (``give exactly one of ...``)."""
    words = line.split()
    if not words:
        return None
    verb, rest = words[0], words[1:]
    if verb == STANDING.verb:
        ((key, value),) = STANDING.line(rest).items()
        return ("standing", (key, value))
    if verb in KINDS:
        return KINDS[verb].line(rest)
    return {verb: " ".join(rest)}


__all__ = ["BY_TYPE", "FORMS", "KINDS", "REFERENCE", "STANDING", "Kind", "Parts", "kind", "parse_order", "typed", "typed_help"]
