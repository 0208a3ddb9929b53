"""The adjudication state machine: the contract every game implements.

A game is a pure state machine (docs/architecture.md)::

    state = game.initial_state(setup)
    state, events = game.apply(state, action)
    game.awaiting(state)          # whose input is needed next, of what kind
    game.view(state, side)        # what that side may see

No I/O, clock or randomness here: dice arrive as :class:`DiceRolled` actions
from the match layer, which derives them from the protocol's chains; openings of
sealed values arrive as :class:`Opened` actions once their commitments have been
checked.  Unrevealed hidden values are never in the state at all, so no view
can leak them; a side's own secrets are overlaid by ``view`` from the
``secrets`` mapping its client holds.

Actions
    :class:`Ordered`      one public order of a side, from message ``seq``
    :class:`DiceRolled`   the values of one awaited :class:`DiceDue`
    :class:`Opened`       a verified reveal of a sealed slot
    :class:`MessageEnd`   the end of message ``seq`` (the turn passes)

Awaited input (``awaiting``)
    :class:`DecisionDue`  a side must decide; the legal options are listed
    :class:`RevealDue`    a side owes the opening of a slot
    :class:`DiceDue`      dice are due, keyed by message ``key_seq``
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from pbem.errors import IllegalOrderError

# --------------------------------------------------------------------------- actions


@dataclass(frozen=True)
class Ordered:
    """A public order of ``side`` carried in message ``seq`` (index ``index``)."""

    side: str
    seq: int
    index: int
    order: Mapping[str, Any]


@dataclass(frozen=True)
class DiceRolled:
    """The dice for the awaited :class:`DiceDue` with this ``label``."""

    label: str
    values: tuple[int, ...]


@dataclass(frozen=True)
class Opened:
    """A sealed slot of ``side`` opened (its commitment already checked)."""

    side: str
    slot: str
    value: str
    seq: int


@dataclass(frozen=True)
class Sealed:
    """``side`` committed to a value for ``slot`` in message ``seq``."""

    side: str
    slot: str
    seq: int


@dataclass(frozen=True)
class MessageEnd:
    """Message ``seq`` by ``side`` is fully applied; the turn passes."""

    side: str
    seq: int


Action = Ordered | DiceRolled | Opened | Sealed | MessageEnd

# --------------------------------------------------------------------------- awaited input


@dataclass(frozen=True)
class DiceDue:
    """``count`` dice of ``sides`` faces are due, labelled ``label``.

    ``key_seq`` is the message whose dice key resolves them (docs/protocol.md §6.3): the
    engine, not a player, decides it -- always the message being applied when
    the roll became due.
    """

    label: str
    count: int
    sides: int
    key_seq: int
    purpose: str = ""


@dataclass(frozen=True)
class DecisionDue:
    """``side`` must decide: a question of ``kind``, put as ``prompt``, with the ``options`` listed."""

    side: str
    kind: str
    prompt: str
    options: tuple[str, ...] = ()
    rule: str = ""


@dataclass(frozen=True)
class RevealDue:
    """``side`` owes the opening of its sealed ``slot``."""

    side: str
    slot: str
    rule: str = ""


Awaited = DiceDue | DecisionDue | RevealDue


def describe_awaited(item: Awaited) -> str:
    """What is awaited, in a player's words (``"allied decides: surrender? (yes/no)"``)."""
    rule = getattr(item, "rule", "")
    cite = f" ({rule})" if rule else ""
    if isinstance(item, DiceDue):
        what = item.purpose or item.label
        return f"dice: {item.count}d{item.sides} for {what}, keyed by message {item.key_seq:04d}"
    if isinstance(item, DecisionDue):
        options = f" ({'/'.join(item.options)})" if item.options else ""
        return f"{item.side} decides: {item.prompt or item.kind}{options}{cite}"
    if isinstance(item, RevealDue):
        return f"{item.side} reveals {item.slot}{cite}"
    return str(item)

# --------------------------------------------------------------------------- events


@dataclass(frozen=True)
class Event:
    """Something that happened, rendered as one sentence citing its rule."""

    rule: str
    text: str
    data: Mapping[str, Any] = field(default_factory=dict)

    def sentence(self) -> str:
        return f"[{self.rule}] {self.text}" if self.rule else self.text

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "text": self.text, "data": dict(self.data)}


# --------------------------------------------------------------------------- orders


@dataclass(frozen=True)
class ParsedOrders:
    """An orders document split into what is public and what stays sealed.

    ``public`` goes into the signed message body as-is; ``seals`` maps slot ids
    to the plaintext the author commits to (never written in clear);
    ``reveals`` lists slots the author opens in this message.
    """

    public: tuple[Mapping[str, Any], ...] = ()
    seals: Mapping[str, str] = field(default_factory=dict)
    reveals: tuple[str, ...] = ()
    ends_game: bool = False


class Dispatching:
    """For games whose ``apply`` routes each kind of action to its own
    method: ``_order``, ``_rolled``, ``_sealed``, ``_opened``, ``_message_end``."""

    _HANDLERS = {Ordered: "_order", DiceRolled: "_rolled", Sealed: "_sealed", Opened: "_opened", MessageEnd: "_message_end"}

    def dispatch(self, state: Any, action: Action) -> tuple[Any, list[Event]]:
        name = self._HANDLERS.get(type(action))
        if name is None:
            raise TypeError(f"unknown action {action!r}")
        handler: Callable[[Any, Action], tuple[Any, list[Event]]] = getattr(self, name)
        return handler(state, action)


def apply_all(game: Any, state: Any, actions: Sequence[Action]) -> tuple[Any, list[Event]]:
    """Apply ``actions`` in order; the events of all of them."""
    events: list[Event] = []
    for action in actions:
        state, new = game.apply(state, action)
        events.extend(new)
    return state, events


def replace(obj: Any, **changes: Any) -> Any:
    """``dataclasses.replace``, for the frozen records rules code changes
    thousands of times a game.  A frozen dataclass whose fields are all plain
    ``__init__`` arguments and which has no ``__post_init__`` is copied field
    by field without running ``__init__`` again (``dataclasses.replace``
    re-reads the fields and re-runs it: a third of an Ambon replay's time).
    Values a record keeps on itself besides its fields (a
    ``cached_property``) are not carried over; anything else, or a name that
    is not a field, goes through ``dataclasses.replace`` and its checks."""
    cls: Any = type(obj)
    names = _copied_fields(cls)
    if names is None or not changes.keys() <= names:
        return dataclasses.replace(obj, **changes)
    values = obj.__dict__
    new = object.__new__(cls)
    kept = new.__dict__
    if len(values) == len(names):
        kept.update(values)
    else:
        kept.update({name: values[name] for name in names})
    kept.update(changes)
    return new


@functools.cache
def _copied_fields(cls: Any) -> frozenset[str] | None:
    """The field names of ``cls`` when :func:`replace` may copy it field by
    field (see there), else None.  A property of the class, fixed once it
    is defined."""
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or hasattr(cls, "__post_init__") or hasattr(cls, "__slots__"):
        return None
    written = getattr(getattr(cls, "__init__", None), "__code__", None)
    if written is None or written.co_filename != "<string>":
        return None  # an __init__ of the class's own (hexes.Hexside orders its ends), not the one dataclass wrote
    fields = dataclasses.fields(cls)
    if len(fields) != len(cls.__dataclass_fields__) or not all(f.init for f in fields):
        return None  # a ClassVar, an InitVar or a field __init__ does not take
    return frozenset(f.name for f in fields)


def illegal(rule: str, message: str, *, whole: bool = False) -> IllegalOrderError:
    """An :class:`IllegalOrderError` citing ``rule`` (``whole``: the orders
    together break it, not one of them, e.g. a finished setup's check)."""
    err = IllegalOrderError(message, rule=rule)
    err.whole = whole
    return err
