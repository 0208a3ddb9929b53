"""A history -- a replay's events and rolls, a game's record of what is
done -- as a list whose older items stay pickled until someone reads them.

Pickled, a history writes the parts it was restored with as they are and
the items added since as one more part (a pickle of at most :data:`PART`
items, more make several; each part compressed by zlib once, when it is
made: a game's record repeats itself, so its events take a ninth of the
room and a kept replay reads, decrypts and writes that much less), so keeping a
replay (:mod:`pbem.match.checkpoint`) copies the old history instead of
pickling it again, one part a command.  Restored, it unpickles nothing
until an item is asked for, and then only the part that holds it: the last
items, ``len`` and appending read next to nothing however long the game
(``pbem show`` and ``pbem log`` print the last entries); reading all of it
(``pbem log --all``, a whole-game render) unpickles every part once.
"""

from __future__ import annotations

import pickle
import zlib
from bisect import bisect_right
from typing import Any, Callable, Iterable, Iterator, Sequence


def position(index: int, length: int, what: str) -> int:
    """``index`` (negative from the end) as a place in a sequence of
    ``length`` items of ``what``; IndexError outside it."""
    if index < 0:
        index += length
    if not 0 <= index < length:
        raise IndexError(f"{what} index out of range")
    return index


#: the most items a part holds: reading the last items unpickles at most two parts of this size
PART = 256


class History(Sequence[Any]):
    __slots__ = ("_parts", "_starts", "_loaded", "_tail")

    def __init__(self, items: Iterable[Any] = ()):
        self._parts: list[tuple[bytes, int]] = []  # the older items: (pickled list, compressed; how many), oldest first
        self._starts: list[int] = []  # where each part starts
        self._loaded: dict[int, list[Any]] = {}  # parts unpickled, by their index
        self._tail = list(items)  # added since

    @property
    def _count(self) -> int:
        return self._starts[-1] + self._parts[-1][1] if self._parts else 0

    def _part(self, k: int) -> list[Any]:
        if k not in self._loaded:
            data, size = self._parts[k]
            items = pickle.loads(zlib.decompress(data))
            if not isinstance(items, list) or len(items) != size:
                raise pickle.UnpicklingError(f"a history's part holds {len(items)} items, not {size}")
            self._loaded[k] = items
        return self._loaded[k]

    def _item(self, index: int) -> Any:
        if index >= self._count:
            return self._tail[index - self._count]
        k = bisect_right(self._starts, index) - 1
        return self._part(k)[index - self._starts[k]]

    def __len__(self) -> int:
        return self._count + len(self._tail)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self._item(i) for i in range(*index.indices(len(self)))]
        return self._item(position(index, len(self), "history"))

    def __iter__(self) -> Iterator[Any]:
        for k in range(len(self._parts)):
            yield from self._part(k)
        yield from self._tail

    def since(self, keep: Callable[[Any], bool]) -> list[Any]:
        """The newest items for which ``keep`` holds, oldest first: read from
        the end, stopping at the first that fails (an older part is read
        only if every newer item passes)."""
        found = []
        for i in range(len(self) - 1, -1, -1):
            item = self._item(i)
            if not keep(item):
                break
            found.append(item)
        return found[::-1]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (History, list, tuple)):
            return len(self) == len(other) and list(self) == list(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"History({len(self)} items, {self._count} pickled in {len(self._parts)} parts)"

    def append(self, item: Any) -> None:
        self._tail.append(item)

    def extend(self, items: Iterable[Any]) -> None:
        self._tail.extend(items)

    def __iadd__(self, items: Iterable[Any]) -> "History":
        self._tail.extend(items)
        return self

    def appended(self, item: Any) -> "History":
        """A new history with ``item`` added (this one unchanged): for
        immutable game states."""
        copy = self.truncated(len(self))
        copy._tail.append(item)
        return copy

    def truncated(self, count: int) -> "History":
        """A new history of the first ``count`` items (this one unchanged):
        the parts before the cut are shared, still pickled; only a part the
        cut falls inside is unpickled."""
        count = max(0, min(count, len(self)))
        copy = History()
        whole = bisect_right(self._starts, count)  # the parts that start at or before the cut
        if whole and self._starts[whole - 1] + self._parts[whole - 1][1] > count:
            whole -= 1  # the cut falls inside that part: its items before the cut go to the tail
        copy._parts, copy._starts = self._parts[:whole], self._starts[:whole]
        copy._loaded = {k: v for k, v in self._loaded.items() if k < whole}
        done = copy._count
        if done >= self._count:
            copy._tail = self._tail[: count - done]
        else:
            copy._tail = [self._item(i) for i in range(done, count)]  # the cut falls inside the pickled parts
        return copy

    def __getstate__(self) -> dict[str, Any]:
        parts = list(self._parts)
        for i in range(0, len(self._tail), PART):
            items = self._tail[i:i + PART]
            parts.append((zlib.compress(pickle.dumps(items, protocol=pickle.HIGHEST_PROTOCOL), 1), len(items)))
        return {"parts": parts}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._parts = [(bytes(data), int(size)) for data, size in state["parts"]]
        self._starts, start = [], 0
        for _, size in self._parts:
            self._starts.append(start)
            start += size
        self._loaded = {}
        self._tail = []


def newest(items: Sequence[Any], keep: Callable[[Any], bool]) -> list[Any]:
    """:meth:`History.since` for any sequence."""
    if isinstance(items, History):
        return items.since(keep)
    found = []
    for item in reversed(items):
        if not keep(item):
            break
        found.append(item)
    return found[::-1]


def last_since(items: Sequence[Any], key: Callable[[Any], int], since: int, last: int | None) -> tuple[int, list[Any]]:
    """``(left out, shown)``: of the items whose ``key`` is ``since`` or
    more (the newest, oldest first, as :func:`newest` finds them), the last
    ``last`` (None: all), and how many before them were left out.  From the
    start (``since`` 0) and with a ``last``, only the items shown are read."""
    if since <= 0 and last is not None:
        start = max(0, len(items) - last)
        return start, list(items[start:])
    found = newest(items, lambda item: key(item) >= since)
    if last is None or len(found) <= last:
        return 0, found
    return len(found) - last, found[len(found) - last:]
