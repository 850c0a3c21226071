"""Outbound queues of the streams: one per seat session, one per spectator.

The table pushes ``(seq, message)`` pairs under its lock; the stream's handler thread yields
them, each only once event ``seq`` of the match is durable (so nothing a seat was told can be
lost by a crash). The queue watches its match in the store (:meth:`EventStore.watch`): the
writer tells it after each commit how far the log is durable, so the stream's thread sleeps
until its next message may leave and wakes once for it. Queues are bounded: a seat's old
observations are dropped first (each one is a full snapshot), and a spectator that cannot keep
up is disconnected.
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable, Iterator
from typing import Any

from hebei.common.errors import DomainError, ResourceExhausted
from hebei.table.store import EventStore

WAIT_SLICE = 0.5  # seconds between checks that the client is still there


class Outbound:
    """A bounded queue of messages for one stream, released as their events become durable."""

    def __init__(
        self,
        match_id: str,
        store: EventStore,
        *,
        maxsize: int = 256,
        droppable: bool = True,
        decisions_only: bool = False,
    ) -> None:
        self.match_id = match_id
        self.store = store
        self.maxsize = maxsize
        self.droppable = droppable  # drop the oldest droppable message when full (seats)
        # A seat stream that wants only what it must act on (Join.decisions_only); the table
        # remembers here whether it told the stream that its seat is auto-played.
        self.decisions_only = decisions_only
        self.told_auto = False
        self._items: collections.deque[tuple[int, Any, bool]] = collections.deque()
        self._cond = threading.Condition()
        self._finished = False
        self._error: DomainError | None = None
        self.dropped = 0
        self._durable = store.watch(match_id, self)  # the last durable event of the match

    @property
    def closed(self) -> bool:
        return self._finished or self._error is not None

    def _ready(self) -> bool:
        """Whether the next message may leave (its events are durable)."""
        return bool(self._items) and self._items[0][0] <= self._durable

    def durable(self, seq: int) -> None:
        """The store committed the match's events up to ``seq`` (the writer's thread)."""
        with self._cond:
            if seq > self._durable:
                self._durable = seq
                if self._ready():
                    self._cond.notify_all()

    def push(self, seq: int, message: Any, *, keep: bool = False) -> None:
        """Queue ``message``, to be sent once event ``seq`` is durable. ``keep``: never drop
        it for room (rejections)."""
        with self._cond:
            if self.closed:
                return
            if len(self._items) >= self.maxsize:
                if not self.droppable:
                    self._error = ResourceExhausted("the stream is not read fast enough")
                    self._items.clear()
                    self._cond.notify_all()
                    return
                for i, (_s, _m, kept) in enumerate(self._items):
                    if not kept:
                        del self._items[i]
                        self.dropped += 1
                        break
                else:
                    self._items.popleft()
                    self.dropped += 1
            self._items.append((seq, message, keep))
            if self._ready():
                self._cond.notify_all()

    def discard_after(self, seq: int) -> None:
        """Drop the queued messages about events after ``seq`` (events that were never
        written: see Table.fail_storage)."""
        with self._cond:
            self._items = collections.deque(item for item in self._items if item[0] <= seq)
            self._cond.notify_all()

    def finish(self) -> None:
        """No more messages: the stream ends once the queued ones are sent."""
        with self._cond:
            self._finished = True
            self._cond.notify_all()

    def fail(self, error: DomainError) -> None:
        """End the stream now with ``error`` (queued messages are dropped)."""
        with self._cond:
            if self._error is None and not self._finished:
                self._error = error
            self._items.clear()
            self._cond.notify_all()

    def messages(self, active: Callable[[], bool]) -> Iterator[Any]:
        """Yield messages as they become durable until finished (and drained), failed or
        ``active()`` is false (the client went away); a failure raises its error."""
        try:
            while True:
                with self._cond:
                    while not self._ready() and self._error is None and active():
                        if self._finished and not self._items:
                            return
                        self._cond.wait(WAIT_SLICE)
                    if self._error is not None:
                        raise self._error
                    if not self._ready():
                        return  # the client went away
                    message = self._items.popleft()[1]
                yield message
        finally:
            self.store.unwatch(self.match_id, self)
