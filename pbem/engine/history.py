"""A history -- a replay's events and rolls, a game's record of what is
done -- as a list whose older part stays pickled until someone reads it
(issue 15: a command works on what is new).

The older part is a list of :class:`Chunk`\\ s: items pickled once, oldest
first, never changed after.  A replay checkpoint (:mod:`pbem.match.checkpoint`)
keeps each large chunk in a file of its own, written once, and on loading
gives back chunks that read their file only when their items are asked for;
so a command neither reads nor writes the old history, and appending, ``len``
and reading the items added since (:meth:`History.since`, an index or slice
among them) unpickle nothing.  Anything that reads older items (``pbem log``,
a whole-game render) unpickles every chunk once.

When a history is pickled, the items added since its chunks were made become
one more chunk, and the last two are merged while the older one is not more
than twice the newer: each chunk is more than twice the next, so a history of
*n* items is at most log2(*n* + 1) chunks, and an item is pickled again only
when its chunk grows by half or more.
"""

from __future__ import annotations

import io
import pickle
from typing import Any, Callable, Iterable, Iterator, Sequence


def position(index: int, length: int, what: str) -> int:
    """``index`` (negative from the end) as a place in a sequence of
    ``length`` items of ``what``; IndexError outside it."""
    if index < 0:
        index += length
    if not 0 <= index < length:
        raise IndexError(f"{what} index out of range")
    return index


class Chunk:
    """Items of a history pickled once, oldest first: their bytes (pickle
    streams one after the other), or a ``load`` that gives them; how many
    items; the last item, at hand without unpickling.  ``name``: where a
    checkpoint keeps it (None: not kept yet)."""

    __slots__ = ("size", "last", "name", "_data", "_load")

    def __init__(self, data: bytes | None, size: int, last: Any, load: Callable[[], bytes] | None = None,
                 name: str | None = None):
        if data is None and load is None:
            raise ValueError("a chunk needs its bytes or a way to load them")
        self.size, self.last, self.name = size, last, name
        self._data, self._load = data, load

    @classmethod
    def of(cls, items: list[Any]) -> "Chunk":
        return cls(pickle.dumps(items, protocol=pickle.HIGHEST_PROTOCOL), len(items), items[-1])

    @property
    def data(self) -> bytes:
        if self._data is None:
            self._data = self._load()  # type: ignore[misc]
        return self._data

    def items(self) -> list[Any]:
        data, items = self.data, []
        stream = io.BytesIO(data)
        while stream.tell() < len(data):
            items.extend(pickle.load(stream))
        if len(items) != self.size:
            raise pickle.UnpicklingError(f"a history chunk holds {len(items)} items, not {self.size}")
        return items

    def __add__(self, later: "Chunk") -> "Chunk":
        return Chunk(self.data + later.data, self.size + later.size, later.last)

    def __reduce__(self) -> tuple[Any, ...]:
        return (Chunk, (self.data, self.size, self.last))

    def __repr__(self) -> str:
        return f"Chunk({self.size} items{', kept as ' + self.name if self.name else ''})"


class History(Sequence[Any]):
    __slots__ = ("_chunks", "_count", "_items", "_tail")

    def __init__(self, items: Iterable[Any] = ()):
        self._chunks: list[Chunk] = []  # oldest first
        self._count = 0  # how many items the chunks hold
        self._items: list[Any] | None = []  # the chunks' items unpickled (None: not yet)
        self._tail = list(items)  # added since the chunks were made

    # ------------------------------------------------------------------ reading

    def _older(self) -> list[Any]:
        if self._items is None:
            items: list[Any] = []
            for chunk in self._chunks:
                items.extend(chunk.items())
            self._items = items
        return self._items

    def __len__(self) -> int:
        return self._count + len(self._tail)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step == 1 and start >= self._count:
                return self._tail[start - self._count: max(start, stop) - self._count]
            return (self._older() + self._tail)[index]
        index = position(index, len(self), "history")
        if index >= self._count:
            return self._tail[index - self._count]
        if index == self._count - 1 and self._items is None:
            return self._chunks[-1].last
        return self._older()[index]

    def __iter__(self) -> Iterator[Any]:
        if self._count:
            yield from self._older()
        yield from self._tail

    def since(self, keep: Callable[[Any], bool]) -> list[Any]:
        """The newest items for which ``keep`` holds, oldest first: read from
        the end, stopping at the first that fails (older chunks are read only
        if every item of the tail passes)."""
        found = []
        for i in range(len(self) - 1, -1, -1):
            item = self[i]
            if not keep(item):
                break
            found.append(item)
        return found[::-1]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (History, list, tuple)):
            return len(self) == len(other) and list(self) == list(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"History({len(self)} items, {self._count} in {len(self._chunks)} chunks)"

    # ------------------------------------------------------------------ growing

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
        the chunks before the cut are shared, still pickled; only a chunk the
        cut falls inside is unpickled."""
        count = max(0, min(count, len(self)))
        kept, total = 0, 0
        while kept < len(self._chunks) and total + self._chunks[kept].size <= count:
            total += self._chunks[kept].size
            kept += 1
        copy = History()
        copy._chunks, copy._count = self._chunks[:kept], total
        if self._items is not None:
            copy._items = self._items[:total]
        elif kept:
            copy._items = None
        rest = count - total
        if rest and kept < len(self._chunks):  # the cut falls inside a chunk
            inside = self._chunks[kept].items() if self._items is None else self._items[total:total + rest]
            copy._tail = inside[:rest]
        elif rest:
            copy._tail = self._tail[:rest]
        return copy

    # ------------------------------------------------------------------ pickling (a checkpoint)

    def chunks(self) -> list[Chunk]:
        """The chunks this history is pickled as: its own, one more of the
        items added since, the last two merged while the older is not more
        than twice the newer."""
        chunks = list(self._chunks)
        if self._tail:
            chunks.append(Chunk.of(self._tail))
        while len(chunks) >= 2 and chunks[-2].size <= 2 * chunks[-1].size:
            chunks[-2:] = [chunks[-2] + chunks[-1]]
        return chunks

    def __getstate__(self) -> dict[str, Any]:
        return {"chunks": self.chunks()}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._chunks = list(state["chunks"])
        self._count = sum(chunk.size for chunk in self._chunks)
        self._items = None if self._chunks else []
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
