"""A history -- a replay's events and rolls, a game's record of what is
done -- as a list whose older part stays pickled until someone reads it
(issue 15: a command works on what is new).

A replay checkpoint (:mod:`pbem.match.checkpoint`) keeps the history as
chunks: the items each command added, pickled once, oldest first, and
joined as bytes (pickle streams one after the other) so that a checkpoint
holds at most two: what came before the replay's base, and after it.  Loading
a checkpoint does not unpickle them; appending, ``len``, and reading the
items added since (:meth:`History.since`, an index or slice among them) do
not either.  Anything that reads older items (``pbem log``, a whole-game
render) unpickles every chunk once.
"""

from __future__ import annotations

import io
import pickle
from typing import Any, Callable, Iterable, Iterator, Sequence


class History(Sequence):
    __slots__ = ("_chunks", "_sizes", "_lasts", "_count", "_items", "_tail")

    def __init__(self, items: Iterable[Any] = ()):
        self._chunks: list[bytes] = []  # pickled lists, oldest first
        self._sizes: list[int] = []  # how many items each chunk holds
        self._lasts: list[Any] = []  # each chunk's last item, kept unpickled: where since() stops
        self._count = 0  # how many items the chunks hold
        self._items: list[Any] | None = []  # the chunks unpickled (None: not yet)
        self._tail = list(items)  # added since the chunks were written

    # ------------------------------------------------------------------ reading

    def _older(self) -> list[Any]:
        if self._items is None:
            items: list[Any] = []
            for chunk in self._chunks:
                stream = io.BytesIO(chunk)
                while stream.tell() < len(chunk):
                    items.extend(pickle.load(stream))
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
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("history index out of range")
        if index >= self._count:
            return self._tail[index - self._count]
        if index == self._count - 1 and self._items is None:
            return self._lasts[-1]
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
        return f"History({len(self)} items, {self._count} pickled)"

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
        """A new history of the first ``count`` items (this one unchanged);
        the chunks it keeps whole stay pickled."""
        kept, total = 0, 0
        while kept < len(self._sizes) and total + self._sizes[kept] <= count:
            total += self._sizes[kept]
            kept += 1
        if total < min(count, self._count):  # the cut falls inside a chunk
            return History(list(self)[:count])
        copy = History(self._tail[: max(0, count - self._count)] if kept == len(self._sizes) else ())
        copy._chunks, copy._sizes, copy._count = self._chunks[:kept], self._sizes[:kept], total
        copy._lasts = self._lasts[:kept]
        copy._items = self._items[:total] if self._items is not None else None
        return copy

    def split_at(self, index: int) -> "History":
        """The same items; when pickled, its tail is two chunks cut at
        ``index`` (a replay's base), so that :meth:`truncated` there keeps
        every chunk pickled."""
        copy = self.truncated(len(self))
        if self._count < index < len(self):
            cut = index - self._count
            head, copy._tail = copy._tail[:cut], copy._tail[cut:]
            # one chunk for everything up to ``index``: the old ones joined, bytes to bytes
            copy._chunks = [b"".join(copy._chunks) + pickle.dumps(head, protocol=pickle.HIGHEST_PROTOCOL)]
            copy._lasts = [head[-1]]
            copy._count += len(head)
            copy._sizes = [copy._count]
            if copy._items is not None:
                copy._items = copy._items + head
        return copy

    # ------------------------------------------------------------------ pickling (a checkpoint)

    def __getstate__(self) -> dict[str, Any]:
        chunks, sizes, lasts = self._chunks, self._sizes, self._lasts
        if self._tail:
            chunks = chunks + [pickle.dumps(self._tail, protocol=pickle.HIGHEST_PROTOCOL)]
            sizes, lasts = sizes + [len(self._tail)], lasts + [self._tail[-1]]
        if len(chunks) > 2:  # all but the newest joined: a checkpoint holds two at most
            chunks, sizes, lasts = [b"".join(chunks[:-1]), chunks[-1]], [sum(sizes[:-1]), sizes[-1]], lasts[-2:]
        return {"chunks": chunks, "sizes": sizes, "lasts": lasts}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._chunks, self._sizes, self._lasts = list(state["chunks"]), list(state["sizes"]), list(state["lasts"])
        self._count = sum(self._sizes)
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
