"""Live feeds: a state, the ordered deltas that made it, and the browsers that follow it.

A :class:`Feed` lives on the event loop. A producer thread (a gRPC stream: Spectate, Play or
WatchTournament) folds each message into a JSON state, computes the delta from the previous
state (:func:`diff`) and hands both to the loop with :meth:`Feed.post` (thread-safe, never
blocking the producer on a slow browser, nor the loop on gRPC). Each delta carries a sequence
number: the engine's event number for a spectated table (so ids stay meaningful across the
gateway's feeds), the observation count for a seat, the tournament's change number.

A browser gets a snapshot (the whole state, with its sequence number as the SSE id), then every
delta in order; on reconnection with ``Last-Event-ID`` it gets exactly the deltas after that
id while they are still kept (:data:`HISTORY`), else a fresh snapshot. Nothing is lost either
way: a snapshot is the whole state.

A delta is ``{"seq", "patch", "event"?, "log"?, "notice"?}``; ``patch`` is a list of
``["set", path, value]``, ``["push", path, items]`` and ``["del", path]`` operations that
:file:`static/js/feed.js` applies.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

HISTORY = 4096  # deltas kept per feed for reconnecting browsers

Path = list[Any]


def diff(old: Any, new: Any, path: tuple[Any, ...] = ()) -> list[list[Any]]:
    """The operations turning ``old`` into ``new`` (JSON values): changed keys are set, a list
    that only grew is pushed to, lists of the same length are compared item by item."""
    if isinstance(old, dict) and isinstance(new, dict):
        ops: list[list[Any]] = []
        for key, value in new.items():
            if key not in old:
                ops.append(["set", [*path, key], value])
            elif old[key] != value:
                ops.extend(diff(old[key], value, (*path, key)))
        ops.extend(["del", [*path, key]] for key in old if key not in new)
        return ops
    if isinstance(old, list) and isinstance(new, list) and old != new:
        if len(new) > len(old) and new[: len(old)] == old:
            return [["push", list(path), new[len(old) :]]]
        if len(new) == len(old) and all(isinstance(v, dict) for v in (*old, *new)):
            return [op for i in range(len(new)) for op in diff(old[i], new[i], (*path, i))]
        return [["set", list(path), new]]
    if old == new and type(old) is type(new):
        return []
    return [["set", list(path), new]]


def apply_patch(state: Any, patch: list[list[Any]]) -> Any:
    """Apply :func:`diff`'s operations to ``state`` in place (the pages do the same in JS)."""
    for op, path, *value in patch:
        if not path:
            state = copy.deepcopy(value[0])
            continue
        target = state
        for key in path[:-1]:
            target = target[key]
        last = path[-1]
        if op == "set":
            target[last] = copy.deepcopy(value[0])
        elif op == "push":
            target[last].extend(copy.deepcopy(value[0]))
        elif op == "del":
            del target[last]
    return state


class Feed:
    """A state and its recent deltas, followed by any number of browsers (see the module doc).

    Every method but :meth:`post` and :meth:`post_end` runs on the event loop.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, key: str, history: int = HISTORY):
        self.loop = loop
        self.key = key
        self.seq = 0
        self.base = 0  # the seq of the state the oldest kept delta applies to
        self.state: Any = None  # None until the first snapshot
        self.deltas: deque[tuple[int, str]] = deque()
        self.history = history
        self.ended: str | None = None  # why no more deltas will come
        self.subscribers = 0
        self.idle_since = time.monotonic()
        self.ended_at: float | None = None
        self._snapshot: tuple[int, str] | None = None
        self._changed = asyncio.Event()

    # ----------------------------------------------------------------- from producers

    def post(self, seq: int, state: Any, delta: dict[str, Any] | None) -> None:
        """Thread-safe: a new state; ``delta`` None makes it a fresh snapshot (no resume)."""
        text = None if delta is None else json.dumps({"seq": seq, **delta}, ensure_ascii=False)
        self._call(self._publish, seq, state, text)

    def post_end(self, reason: str) -> None:
        """Thread-safe: no more deltas (the match or stream ended)."""
        self._call(self._end, reason)

    def _call(self, fn: Callable[..., None], *args: Any) -> None:
        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody is listening
            self.loop.call_soon_threadsafe(fn, *args)

    # ----------------------------------------------------------------- on the loop

    def _publish(self, seq: int, state: Any, text: str | None) -> None:
        if text is None or self.state is None:
            self.deltas.clear()
            self.base = seq
        else:
            self.deltas.append((seq, text))
            while len(self.deltas) > self.history:
                self.base = self.deltas.popleft()[0]
        self.seq, self.state, self._snapshot = seq, state, None
        self._wake()

    def _end(self, reason: str) -> None:
        if self.ended is None:
            self.ended = reason
            self.ended_at = time.monotonic()
            self._wake()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    def snapshot(self) -> tuple[int, str]:
        """``(seq, JSON text)`` of the whole state, cached until the next change."""
        if self._snapshot is None or self._snapshot[0] != self.seq:
            text = json.dumps({"seq": self.seq, "state": self.state}, ensure_ascii=False)
            self._snapshot = (self.seq, text)
        return self._snapshot

    def deltas_after(self, seq: int) -> list[tuple[int, str]] | None:
        """The kept deltas after ``seq``; None when they no longer connect to it."""
        if seq > self.seq or seq < self.base:
            return None
        return [(s, text) for s, text in self.deltas if s > seq]

    def signal(self) -> asyncio.Event:
        """The event the next change sets (take it before reading the state)."""
        return self._changed

    @staticmethod
    async def wait(signal: asyncio.Event, timeout: float) -> bool:
        """Wait for ``signal`` (True) or ``timeout`` seconds (False)."""
        try:
            await asyncio.wait_for(signal.wait(), timeout)
        except TimeoutError:
            return False
        return True

    def attach(self) -> None:
        self.subscribers += 1

    def detach(self) -> None:
        self.subscribers -= 1
        if self.subscribers <= 0:
            self.subscribers = 0
            self.idle_since = time.monotonic()


class Poster:
    """Posts a producer's successive states to a feed, each with its delta from the last."""

    def __init__(self, feed: Feed) -> None:
        self.feed = feed
        self._state: Any = None
        self._lock = threading.Lock()

    def publish(self, seq: int, state: Any, *, reset: bool = False, **extra: Any) -> None:
        """Post ``state`` (copied) with its delta from the last one posted; ``extra`` keys
        (event, log, notice) travel with the delta."""
        state = copy.deepcopy(state)
        with self._lock:
            if reset or self._state is None:
                self.feed.post(seq, state, None)
            else:
                self.feed.post(seq, state, {"patch": diff(self._state, state), **extra})
            self._state = state


class Producer:
    """A thread that feeds a :class:`Feed` from a gRPC stream until stopped or the stream ends.

    Subclasses implement :meth:`run` (call :meth:`publish` per change, watch :attr:`stopped`;
    return why the stream ended) and :meth:`cancel` (end the blocking call from another
    thread).
    """

    def __init__(self, feed: Feed, name: str) -> None:
        self.feed = feed
        self.stopped = threading.Event()
        self.poster = Poster(feed)
        self.publish = self.poster.publish
        self._thread = threading.Thread(target=self._main, name=name, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.stopped.set()
        self.cancel()

    def join(self, timeout: float) -> None:
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout)

    def cancel(self) -> None:
        """End a blocking gRPC call (override)."""

    def run(self) -> str | None:
        """Read the stream, publish changes; return why it ended (override)."""
        raise NotImplementedError

    def _main(self) -> None:
        reason = "the stream ended"
        try:
            reason = self.run() or reason
        except Exception as exc:  # one line for the page, the details in the log
            log.exception("feed %s failed", self.feed.key)
            reason = f"the gateway lost this feed ({type(exc).__name__})"
        self.feed.post_end(reason)
