"""Outbound queues of the streams: one per seat session, one per spectator.

The table pushes ``(seq, message)`` pairs under its lock (on the event loop, or on the timer
thread); the stream's handler, a coroutine on the engine's one event loop, sends them, each
only once event ``seq`` of the match is durable (so nothing a seat was told can be lost by a
crash). The queue watches its match in the store (:meth:`EventStore.watch`): the writer thread
tells it after each commit how far the log is durable, and a stream waiting for that is woken
through ``loop.call_soon_threadsafe`` (one call for all the streams a commit wakes: see
:class:`LoopWaker`). Queues are bounded: a seat's old observations are dropped first (each one
is a full snapshot), and a spectator that cannot keep up is disconnected.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import threading
import time
import weakref
from collections.abc import AsyncIterator
from typing import Any

from hebei.common.errors import DomainError, ResourceExhausted
from hebei.table.store import EventStore


class LoopWaker:
    """Sets asyncio events of one event loop from any thread: on the loop's own thread at
    once, from another thread with one ``call_soon_threadsafe`` for a burst of them (the
    writer commits a batch: every stream of it wakes on one call)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.thread = threading.get_ident()  # built on the loop's thread (see waker_of)
        self._pending: list[asyncio.Event] = []
        self._lock = threading.Lock()

    def wake(self, event: asyncio.Event) -> None:
        if threading.get_ident() == self.thread:
            event.set()
            return
        with self._lock:
            self._pending.append(event)
            if len(self._pending) > 1:
                return  # a call is on its way
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits any more
            self.loop.call_soon_threadsafe(self._flush)

    def _flush(self) -> None:
        with self._lock:
            pending, self._pending = self._pending, []
        for event in pending:
            event.set()


_wakers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, LoopWaker] = (
    weakref.WeakKeyDictionary()
)


def waker_of(loop: asyncio.AbstractEventLoop) -> LoopWaker:
    """The waker of ``loop`` (call on the loop's thread)."""
    waker = _wakers.get(loop)
    if waker is None:
        waker = _wakers[loop] = LoopWaker(loop)
    return waker


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
        self._lock = threading.Lock()
        # Set by messages(): the stream waiting on the loop, and how to wake it.
        self._event: asyncio.Event | None = None
        self._waker: LoopWaker | None = None
        self._waiting = False
        self._finished = False
        self._error: DomainError | None = None
        self.dropped = 0
        self.sent_at = 0.0  # when the last message was handed to the stream (monotonic)
        self._durable = store.watch(match_id, self)  # the last durable event of the match

    @property
    def closed(self) -> bool:
        return self._finished or self._error is not None

    def _ready(self) -> bool:
        """Whether the next message may leave (its events are durable)."""
        return bool(self._items) and self._items[0][0] <= self._durable

    def _wake(self) -> None:
        """Wake the stream if it waits (under ``_lock``)."""
        if self._waiting:
            self._waiting = False
            self._waker.wake(self._event)

    def durable(self, seq: int) -> None:
        """The store committed the match's events up to ``seq`` (the writer's thread)."""
        with self._lock:
            if seq > self._durable:
                self._durable = seq
                if self._ready():
                    self._wake()

    def push(self, seq: int, message: Any, *, keep: bool = False) -> None:
        """Queue ``message``, to be sent once event ``seq`` is durable. ``keep``: never drop
        it for room (rejections)."""
        with self._lock:
            if self.closed:
                return
            if len(self._items) >= self.maxsize:
                if not self.droppable:
                    self._error = ResourceExhausted("the stream is not read fast enough")
                    self._items.clear()
                    self._wake()
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
                self._wake()

    def discard_after(self, seq: int) -> None:
        """Drop the queued messages about events after ``seq`` (events that were never
        written: see Table.fail_storage)."""
        with self._lock:
            self._items = collections.deque(item for item in self._items if item[0] <= seq)
            self._wake()

    def finish(self) -> None:
        """No more messages: the stream ends once the queued ones are sent."""
        with self._lock:
            self._finished = True
            self._wake()

    def fail(self, error: DomainError) -> None:
        """End the stream now with ``error`` (queued messages are dropped)."""
        with self._lock:
            if self._error is None and not self._finished:
                self._error = error
            self._items.clear()
            self._wake()

    async def messages(self) -> AsyncIterator[Any]:
        """Yield messages as they become durable until finished (and drained) or failed (a
        failure raises its error). Runs on the event loop; a client that goes away cancels
        the stream's task, which ends this."""
        self._event = asyncio.Event()
        self._waker = waker_of(asyncio.get_running_loop())
        try:
            while True:
                with self._lock:
                    if self._error is not None:
                        raise self._error
                    # Every message whose events are durable, taken under one lock round.
                    ready = []
                    while self._ready():
                        ready.append(self._items.popleft()[1])
                    if not ready:
                        if self._finished and not self._items:
                            return
                        self._event.clear()
                        self._waiting = True
                if not ready:
                    await self._event.wait()
                    continue
                for message in ready:
                    if self._error is not None:  # failed meanwhile: end now, as before
                        raise self._error
                    self.sent_at = time.monotonic()
                    yield message
        finally:
            with self._lock:
                self._waiting = False
            self.store.unwatch(self.match_id, self)
