"""The shape of a TOML table, stated once: which keys it must and may hold,
of which type, with which defaults, enumerations, ranges, nested tables and
arrays of tables, unknown keys refused, and any check of the loader's own.
Reading a value against its shape gives back typed values -- or refuses,
naming the key's path (``turns[3].half``) and what was wrong.

A shape knows no file: how a refusal is worded and located is the caller's,
a :data:`Fail` called as ``fail(path, what, needle)`` that returns the
error to raise (:func:`simple_fail` puts the file's name first; the game
data loader also finds the line).  ``needle`` is the text to look for on
that line, when the value is a string worth finding (``'"0512"'``).

::

    TURN = Table({
        "number": Int(low=1),
        "half": Str(choices=("AM", "PM")),
        "phases": Array(Str()),
        "note": Key(Str(), default=""),
    })
    turns = Array(TURN).read(document["turns"], "turns", fail)

Every refusal is a :class:`~pbem.errors.PbemError` the ``fail`` makes;
a custom check or conversion refuses by raising :class:`Refusal` (or
``ValueError`` / :class:`~pbem.errors.InputError`, whose text becomes the
complaint).
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence, TypeVar

from pbem.errors import DataError, InputError, PbemError

T = TypeVar("T")
U = TypeVar("U")

if TYPE_CHECKING:
    from typing import Generic as _Generic
else:
    class _Generic:
        """``typing.Generic`` for the type checker; at run time a plain base
        whose subscript is itself (Generic's ``__init_subclass__`` would add a
        millisecond to every cold load of a game's data)."""

        def __class_getitem__(cls, item):
            return cls

#: ``fail(path, what, needle)``: the error that refuses the value at ``path``.
Fail = Callable[[str, str, "str | None"], PbemError]

__all__ = [
    "OMIT", "Any_", "Array", "Bool", "Check", "Convert", "Entries", "Fail", "Int", "Key", "Number", "Refusal",
    "Shape",
    "Str", "Table", "TypeSwitch", "at", "kind", "quoted", "simple_fail",
]


class Refusal(Exception):
    """Raised by a custom check or conversion: ``what`` was wrong with the
    value; ``needle`` the text that finds it in the file; ``path`` a path
    below the value's own (``"[2]"``, ``".colour"``) when the fault is there."""

    def __init__(self, what: str, needle: str | None = None, path: str = ""):
        super().__init__(what)
        self.what = what
        self.needle = needle
        self.path = path


def kind(value: Any) -> str:
    """What a TOML value is, in words: ``"an integer"``, ``"a table"``."""
    return _KINDS.get(type(value)) or type(value).__name__


_KINDS = {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "an array", dict: "a table"}


def at(path: str, name: str) -> str:
    """The path of key ``name`` inside the table at ``path`` (``""``: the file's top)."""
    return f"{path}.{name}" if path else name


def quoted(value: Any) -> str | None:
    """The needle of a string value: how it is written in the file."""
    return f'"{value}"' if isinstance(value, str) else None


def simple_fail(label: str, error: type[PbemError] = DataError) -> Fail:
    """A :data:`Fail` whose errors read ``label: path: what``."""

    def fail(path: str, what: str, needle: str | None = None) -> PbemError:
        return error(f"{label}: {path}: {what}" if path else f"{label}: {what}", field=path or None)

    return fail


class Shape(_Generic[T]):
    """A value's shape: :meth:`read` gives it typed, or raises what ``fail`` makes.

    ``plain``, when a shape has one, tells at little cost that :meth:`read`
    would give the value back as it is: the tables and arrays holding it then
    skip naming its path (most values of a good file are plain)."""

    plain: Callable[[Any], bool] | None = None

    def read(self, value: Any, path: str, fail: Fail) -> T:
        raise NotImplementedError


class Any_(Shape[Any]):
    """Any value at all, as it is."""

    def __init__(self) -> None:
        self.plain = _always

    def read(self, value: Any, path: str, fail: Fail) -> Any:
        return value


class Str(Shape[str]):
    """A string; ``choices`` the only ones allowed, ``pattern`` a regular
    expression it must match whole, ``nonempty`` not blank, ``longest`` a limit
    on its length, ``strip`` read without the spaces round it."""

    def __init__(self, *, choices: Sequence[str] | None = None, pattern: str | None = None, nonempty: bool = False,
                 longest: int | None = None, strip: bool = False):
        self.choices = tuple(choices) if choices is not None else None
        self.pattern = re.compile(pattern) if pattern is not None else None
        self.nonempty = nonempty
        self.longest = longest
        self.strip = strip
        if choices is None and pattern is None and not nonempty and longest is None and not strip:
            self.plain = _is_str

    def read(self, value: Any, path: str, fail: Fail) -> str:
        if type(value) is not str:
            raise fail(path, f"expected a string, got {kind(value)} {value!r}", None)
        if self.strip:
            value = value.strip()
        if self.nonempty and not value.strip():
            raise fail(path, "expected a non-empty string, got \"\"" if not value else
                       f"expected a non-empty string, got {value!r}", None)
        if self.longest is not None and len(value) > self.longest:
            raise fail(path, f"longer than {self.longest} characters", None)
        if self.choices is not None and value not in self.choices:
            raise fail(path, f"expected one of {', '.join(map(repr, self.choices))}, got {value!r}", quoted(value))
        if self.pattern is not None and not self.pattern.fullmatch(value):
            raise fail(path, f"{value!r} does not match {self.pattern.pattern!r}", quoted(value))
        return value


def _always(value: Any) -> bool:
    return True


def _is_str(value: Any) -> bool:
    return type(value) is str


def _is_int(value: Any) -> bool:
    return type(value) is int


def _is_bool(value: Any) -> bool:
    return type(value) is bool


class Int(Shape[int]):
    """An integer (never a boolean) from ``low`` to ``high`` (either unbounded when None)."""

    def __init__(self, *, low: int | None = None, high: int | None = None):
        self.low = low
        self.high = high
        lo = -math.inf if low is None else low
        hi = math.inf if high is None else high
        self.plain = _is_int if low is None and high is None else (lambda v: type(v) is int and lo <= v <= hi)

    def read(self, value: Any, path: str, fail: Fail) -> int:
        if type(value) is not int:
            raise fail(path, f"expected an integer, got {kind(value)} {value!r}", None)
        low, high = self.low, self.high
        if low is not None and value < low or high is not None and value > high:
            raise fail(path, f"expected an integer {_range(low, high)}, got {value}", None)
        return value


def _range(low: float | None, high: float | None, above: bool = False) -> str:
    if low is not None and high is not None:
        return f"from {low} to {high}"
    if low is not None:
        return f"greater than {low}" if above else f"of at least {low}"
    return f"of at most {high}"


class Number(Shape[float]):
    """A finite number, integer or not (never a boolean): at least ``low``
    (above it when ``above``), at most ``high``."""

    def __init__(self, *, low: float | None = None, high: float | None = None, above: bool = False):
        self.low = low
        self.high = high
        self.above = above
        lo = -math.inf if low is None else low
        hi = math.inf if high is None else high
        if above:
            self.plain = lambda v: type(v) in (int, float) and lo < v <= hi and v != math.inf
        else:
            self.plain = lambda v: type(v) in (int, float) and lo <= v <= hi and math.isfinite(v)

    def read(self, value: Any, path: str, fail: Fail) -> float:
        if type(value) not in (int, float) or not math.isfinite(value):
            raise fail(path, f"expected a number, got {kind(value)} {value!r}", None)
        low, high = self.low, self.high
        if (low is not None and (value <= low if self.above else value < low)) or high is not None and value > high:
            raise fail(path, f"expected a number {_range(low, high, self.above)}, got {value!r}", None)
        return value


class Bool(Shape[bool]):
    """``true`` or ``false``."""

    def __init__(self) -> None:
        self.plain = _is_bool

    def read(self, value: Any, path: str, fail: Fail) -> bool:
        if type(value) is not bool:
            raise fail(path, f"expected true or false, got {kind(value)} {value!r}", None)
        return value


class Array(Shape[list[T]]):
    """An array of ``item``; ``length`` exactly that many, ``least`` at least
    that many (``complaint``: what is said when there are not, before ``, got [...]``)."""

    def __init__(self, item: Shape[T], *, length: int | None = None, least: int | None = None,
                 complaint: str | None = None):
        self.item = item
        self.length = length
        self.least = least
        self.complaint = complaint

    def read(self, value: Any, path: str, fail: Fail) -> list[T]:
        if type(value) is not list:
            raise fail(path, f"expected an array, got {kind(value)}", None)
        if self.length is not None and len(value) != self.length:
            raise fail(path, f"{self.complaint or f'expected {self.length} items'}, got {value!r}", None)
        if self.least is not None and len(value) < self.least:
            raise fail(path, f"{self.complaint or f'expected at least {self.least} items'}, got {value!r}", None)
        plain = self.item.plain
        if plain is not None and all(map(plain, value)):
            return list(value)
        read = self.item.read
        return [read(v, f"{path}[{i}]", fail) for i, v in enumerate(value)]


class Key(_Generic[T]):
    """A key of a :class:`Table`: its shape, and the default when it is
    absent (none: the key is required; :data:`OMIT`: absent from the result too)."""

    __slots__ = ("shape", "default")

    def __init__(self, shape: Shape[T], default: Any = None, *, required: bool = False):
        self.shape = shape
        self.default = _REQUIRED if required else default

    @property
    def required(self) -> bool:
        return self.default is _REQUIRED


class _Marker:
    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


_REQUIRED = _Marker("REQUIRED")
#: The default of a :class:`Key` left out of the result when absent.
OMIT = _Marker("OMIT")


def _unknown(names: list[str], allowed: Iterable[str]) -> str:
    return f"unknown key {names[0]!r} (allowed: {', '.join(allowed)})"


class Table(Shape[dict[str, Any]]):
    """A table of named keys: ``keys`` maps each to a :class:`Key`, or to a
    bare :class:`Shape` for a required one.  Any other key is refused (named
    at its own path) unless ``others`` gives the shape of the rest.

    ``unknown_first``: an unknown key is refused before a missing one (a
    misspelt key is both).  ``missing``: the complaint for a missing key
    (default ``missing key 'k'``).  ``unknown``: the complaint for the
    unknown keys (all of them, in the file's order; default ``unknown key
    'k' (allowed: ...)`` for the first), refused at the first one's path."""

    def __init__(self, keys: Mapping[str, Key[Any] | Shape[Any]], *, others: Shape[Any] | None = None,
                 unknown_first: bool = False, missing: Callable[[str], str] | None = None,
                 unknown: Callable[[list[str], tuple[str, ...]], str] = _unknown):
        self.keys: dict[str, Key[Any]] = {k: v if isinstance(v, Key) else Key(v, required=True) for k, v in keys.items()}
        self.allowed = tuple(self.keys)
        self.required = tuple(k for k, v in self.keys.items() if v.required)
        self.others = others
        self.unknown_first = unknown_first
        self.missing = missing or (lambda k: f"missing key {k!r}")
        self.unknown = unknown
        self._reads = tuple((k, v.shape.read, v.shape.plain, v.default) for k, v in self.keys.items())

    def read(self, value: Any, path: str, fail: Fail) -> dict[str, Any]:
        if type(value) is not dict:
            raise fail(path, f"expected a table, got {kind(value)}", None)
        keys = self.keys
        refuse = self.others is None and not keys.keys() >= value.keys()
        if refuse and self.unknown_first:
            self._refuse_unknown(value, path, fail)
        for k in self.required:
            if k not in value:
                raise fail(path, self.missing(k), None)
        if refuse:
            self._refuse_unknown(value, path, fail)
        out: dict[str, Any] = {}
        for k, read, plain, default in self._reads:
            if k in value:
                v = value[k]
                out[k] = v if plain is not None and plain(v) else read(v, at(path, k), fail)
            elif default is not OMIT:
                out[k] = default
        if self.others is not None:
            read = self.others.read
            for k, v in value.items():
                if k not in keys:
                    out[k] = read(v, at(path, k), fail)
        return out

    def _refuse_unknown(self, value: dict[str, Any], path: str, fail: Fail) -> None:
        keys = self.keys
        names = [k for k in value if k not in keys]
        if names:
            raise fail(at(path, names[0]), self.unknown(names, self.allowed), None)


class Entries(Shape[dict[str, T]]):
    """A table of free names (``[terrain.<name>]``), each holding ``item``;
    ``name`` a test of each name, returning the complaint (a string) that
    refuses the entry, else None; ``least`` how many entries there must be
    at least (``empty``: the complaint when there are fewer)."""

    def __init__(self, item: Shape[T], *, name: Callable[[str], str | None] | None = None, least: int = 0,
                 empty: str = "declares nothing"):
        self.item = item
        self.name = name
        self.least = least
        self.empty = empty

    def read(self, value: Any, path: str, fail: Fail) -> dict[str, T]:
        if type(value) is not dict:
            raise fail(path, f"expected a table, got {kind(value)}", None)
        if len(value) < self.least:
            raise fail(path, self.empty, None)
        read, test, plain = self.item.read, self.name, self.item.plain
        if test is None and plain is not None and all(map(plain, value.values())):
            return dict(value)
        out: dict[str, T] = {}
        for k, v in value.items():
            key = at(path, k)
            if test is not None:
                complaint = _run(test, k, key, fail)
                if complaint:
                    raise fail(key, complaint, None)
            out[k] = read(v, key, fail)
        return out


def _run(fn: Callable[[Any], U], value: Any, path: str, fail: Fail) -> U:
    """``fn(value)``; a refusal (Refusal, ValueError, InputError) becomes ``fail``'s error at ``path``."""
    try:
        return fn(value)
    except (Refusal, InputError, ValueError) as err:
        raise _refused(err, value, path, fail) from None


def _refused(err: Exception, value: Any, path: str, fail: Fail) -> PbemError:
    if isinstance(err, Refusal):
        return fail(path + err.path, err.what, err.needle)
    return fail(path, str(err), quoted(value))


class Convert(Shape[U]):
    """``shape``'s value turned into another by ``fn`` (a hex label into a
    hex): a Refusal, ValueError or InputError it raises refuses the value,
    its text the complaint."""

    def __init__(self, shape: Shape[T], fn: Callable[[T], U]):
        self.shape = shape
        self.fn = fn

    def read(self, value: Any, path: str, fail: Fail) -> U:
        shape = self.shape
        plain = shape.plain
        if plain is None or not plain(value):
            value = shape.read(value, path, fail)
        try:
            return self.fn(value)
        except (Refusal, InputError, ValueError) as err:
            raise _refused(err, value, path, fail) from None


class Check(Shape[T]):
    """``shape``'s value, which ``test`` must pass: ``test(value)`` returns
    the complaint (a string) when it does not, else None."""

    def __init__(self, shape: Shape[T], test: Callable[[T], str | None]):
        self.shape = shape
        self.test = test

    def read(self, value: Any, path: str, fail: Fail) -> T:
        typed = self.shape.read(value, path, fail)
        complaint = _run(self.test, typed, path, fail)
        if complaint:
            raise fail(path, complaint, quoted(typed))
        return typed


class TypeSwitch(Shape[Any]):
    """One of several shapes, chosen by the TOML type of the value (an array
    of results or a table of them); ``what`` names the types allowed."""

    def __init__(self, shapes: Mapping[type, Shape[Any]], what: str):
        self.shapes = dict(shapes)
        self.what = what

    def read(self, value: Any, path: str, fail: Fail) -> Any:
        shape = self.shapes.get(type(value))
        if shape is None:
            raise fail(path, f"expected {self.what}, got {kind(value)}", None)
        return shape.read(value, path, fail)
