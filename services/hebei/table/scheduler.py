"""One timer thread for every table: a heap of deadlines, not a thread per table.

Most timers are cancelled long before their deadline (a decision's clock, answered in
milliseconds, runs for seconds), so a cancelled timer lets go of its callback at once (the
closure holds its table) and the heap drops cancelled entries once they are more than half
of it (as asyncio's loop does): otherwise every decision of the last few seconds (bots) or
minute (people) stays queued, a closure and its cells each, for the collector to walk on
every pass (measured: 19,550 stale timers and 98,000 objects behind 32 ended tables in one
process, a full collection 90-106 ms; see :mod:`hebei.common.heap`).
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)


CLEANUP_MIN = 64  # cancelled entries below this many are left for the thread to pop


class Timer:
    """A scheduled callback; :meth:`cancel` stops it from running (if it has not yet) and
    drops the callback."""

    __slots__ = ("_scheduler", "callback", "cancelled", "when")

    def __init__(self, when: float, callback: Callable[[], None], scheduler: Scheduler) -> None:
        self.when = when
        self.callback: Callable[[], None] | None = callback
        self.cancelled = False
        self._scheduler = scheduler

    def cancel(self) -> None:
        self._scheduler._cancel(self)


class Scheduler:
    """Runs callbacks at ``time.monotonic()`` deadlines on one daemon thread.

    Callbacks run one at a time on the scheduler thread and must be short (they take a
    table's lock, auto-play a decision and return); an exception is logged, not raised.
    """

    def __init__(self, name: str = "table-timers") -> None:
        self._heap: list[tuple[float, int, Timer]] = []
        self._cancelled = 0  # cancelled entries still in the heap (at most: see _cancel)
        self._counter = itertools.count()
        self._cond = threading.Condition()
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def call_at(self, when: float, callback: Callable[[], None]) -> Timer:
        """Run ``callback`` at monotonic time ``when``."""
        timer = Timer(when, callback, self)
        with self._cond:
            heapq.heappush(self._heap, (when, next(self._counter), timer))
            if self._heap[0][2] is timer:
                self._cond.notify()
        return timer

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        """Run ``callback`` after ``delay`` seconds."""
        return self.call_at(time.monotonic() + delay, callback)

    def pending(self) -> int:
        """Timers not yet run nor cancelled (for tests and metrics)."""
        with self._cond:
            return sum(1 for _w, _n, t in self._heap if not t.cancelled)

    def queued(self) -> int:
        """Entries in the heap, cancelled ones not dropped yet included (for tests)."""
        with self._cond:
            return len(self._heap)

    def _cancel(self, timer: Timer) -> None:
        with self._cond:
            if timer.cancelled:
                return
            timer.cancelled, timer.callback = True, None
            # Counted even when the thread has popped it already: the count only decides
            # when to rebuild, and a rebuild counts afresh.
            self._cancelled += 1
            if self._cancelled >= CLEANUP_MIN and 2 * self._cancelled > len(self._heap):
                self._heap = [entry for entry in self._heap if not entry[2].cancelled]
                heapq.heapify(self._heap)
                self._cancelled = 0

    def stop(self) -> None:
        """Stop the thread; pending timers never run."""
        with self._cond:
            self._stopped = True
            self._cond.notify()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._stopped:
                    while self._heap and self._heap[0][2].cancelled:
                        heapq.heappop(self._heap)
                        self._cancelled = max(0, self._cancelled - 1)
                    if not self._heap:
                        self._cond.wait()
                        continue
                    delay = self._heap[0][0] - time.monotonic()
                    if delay <= 0:
                        break
                    self._cond.wait(delay)
                if self._stopped:
                    return
                timer = heapq.heappop(self._heap)[2]  # not cancelled: checked above
                callback, timer.callback = timer.callback, None
            try:
                callback()
            except Exception:
                log.exception("timer callback failed")
