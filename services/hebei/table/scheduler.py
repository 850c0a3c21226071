"""One timer thread for every table: a heap of deadlines, not a thread per table."""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)


class Timer:
    """A scheduled callback; :meth:`cancel` stops it from running (if it has not yet)."""

    __slots__ = ("callback", "cancelled", "when")

    def __init__(self, when: float, callback: Callable[[], None]) -> None:
        self.when = when
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class Scheduler:
    """Runs callbacks at ``time.monotonic()`` deadlines on one daemon thread.

    Callbacks run one at a time on the scheduler thread and must be short (they take a
    table's lock, auto-play a decision and return); an exception is logged, not raised.
    """

    def __init__(self, name: str = "table-timers") -> None:
        self._heap: list[tuple[float, int, Timer]] = []
        self._counter = itertools.count()
        self._cond = threading.Condition()
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def call_at(self, when: float, callback: Callable[[], None]) -> Timer:
        """Run ``callback`` at monotonic time ``when``."""
        timer = Timer(when, callback)
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
                    if not self._heap:
                        self._cond.wait()
                        continue
                    delay = self._heap[0][0] - time.monotonic()
                    if delay <= 0:
                        break
                    self._cond.wait(delay)
                if self._stopped:
                    return
                timer = heapq.heappop(self._heap)[2]
            if timer.cancelled:
                continue
            try:
                timer.callback()
            except Exception:
                log.exception("timer callback failed")
