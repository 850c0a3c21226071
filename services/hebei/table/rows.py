"""A table's logs in memory, kept so that the garbage collector has nothing in them to walk.

A table keeps every event of its match (the log) and every event spectators see (the public
log) for as long as it is in memory: a row per event, 150 or so a hand. An object per row
(a class instance, or a tuple holding the event's dict: CPython never untracks those) was
the bulk of what the engine's collector walked on every pass of its older generations, and
such a pass stalls every stream of the engine (a 16-table stack run: a middle-generation
pass of 58 ms of CPU, 21 ms with these rows; 32 tables of 8 hands in one process: 82,000
tracked objects and a full collection of 67-73 ms, 6,700 and 10 ms with them).
:class:`DictRows` keeps the rows as two flat lists instead: the dicts (events are dicts of
plain values, which CPython does not track) and, beside each, a tuple of its plain fields
(untracked at its first collection), so the only objects of a log the collector sees are its
two lists. A row is rebuilt when read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Generic, TypeVar, overload

Row = TypeVar("Row")


class DictRows(Generic[Row]):
    """A list of rows, each a dict and some plain values (numbers, strings, None), stored
    apart; ``make(data, values)`` builds the row read back from its two parts."""

    __slots__ = ("_data", "_make", "_values")

    def __init__(self, make: Callable[[dict, tuple], Row]) -> None:
        self._make = make
        self._data: list[dict] = []
        self._values: list[tuple] = []

    def append(self, data: dict, *values: object) -> None:
        """Add a row: ``data`` and its plain ``values``."""
        self._data.append(data)
        self._values.append(values)

    def __len__(self) -> int:
        return len(self._data)

    @overload
    def __getitem__(self, index: int) -> Row: ...

    @overload
    def __getitem__(self, index: slice) -> list[Row]: ...

    def __getitem__(self, index: int | slice) -> Row | list[Row]:
        if isinstance(index, slice):
            make = self._make
            return [make(d, v) for d, v in zip(self._data[index], self._values[index], strict=True)]
        return self._make(self._data[index], self._values[index])

    def __iter__(self) -> Iterator[Row]:
        make = self._make
        for data, values in zip(self._data, self._values, strict=True):
            yield make(data, values)

    def __reversed__(self) -> Iterator[Row]:
        make = self._make
        for data, values in zip(reversed(self._data), reversed(self._values), strict=True):
            yield make(data, values)

    def data(self) -> list[dict]:
        """Every row's dict, in order (a new list)."""
        return list(self._data)

    def truncate(self, length: int) -> None:
        """Keep the first ``length`` rows."""
        del self._data[length:]
        del self._values[length:]
