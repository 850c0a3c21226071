"""A table's pauses and rejoin window (a mixin of :class:`hebei.table.table.Table`).

The machine's failures do not decide matches: when every seat is auto-played, or the bot fleet
has not filled a bot seat that must act, the table *pauses* instead of playing the match out by
itself (a ``match_paused`` event); a seat coming back resumes it, and after ``pause_seconds``
without anyone it is dissolved as a technical draw. A match resumed from its log gives its seats
``rejoin_seconds`` to come back before the absent ones are auto-played.

A mixin: pausing reads and changes the seats and the table's timers in the table's own step,
and ends in its flow, declared below.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from hebei.table import metrics
from hebei.table.scheduler import Scheduler, Timer
from hebei.table.seat import Seat, settle_seconds
from hebei.table.spec import PLAYING

log = logging.getLogger(__name__)

PAUSED_REASON = "every seat is auto-played"
RESUME_GRACE_SECONDS = 5.0  # a paused match resumed: the seats that dropped may follow


class Pauses:
    """The pauses of a table (see the module docstring)."""

    # What it reads of the table (see hebei.table.table.Table.__init__).
    match_id: str
    scheduler: Scheduler
    status: str
    suspended: bool
    over: bool
    seats: list[Seat]
    pause_seconds: float
    paused: bool
    paused_at: float | None
    pause_reason: str
    _pause_timer: Timer | None
    _rejoin_timer: Timer | None
    _log_event: Callable[..., None]

    def _pause(self, reason: str = PAUSED_REASON, *, at_least: float = 0.0) -> None:
        """Every seat is auto-played, or the fleet did not fill a bot seat that must act: wait
        for a seat to come back (see the module docstring)."""
        if not self.paused:
            self.paused, self.paused_at = True, time.time()
            self.pause_reason = reason
            metrics.PAUSES.labels("paused").inc()
            log.info("match %s paused: %s", self.match_id, reason)
            self._log_event({"type": "match_paused", "reason": reason})
        if self._pause_timer is None:
            left = self.paused_at + self.pause_seconds - time.time()
            self._pause_timer = self.scheduler.call_later(
                max(left, at_least), self._on_pause_timeout
            )

    def _unpause(self) -> None:
        """A seat is back: the match goes on. The seats that had dropped get a few seconds to
        come back too (a restarted bot worker's seats rejoin one after the other) before the
        engine plays for them."""
        if not self.paused:
            return
        self.paused, self.paused_at = False, None
        now = time.monotonic()
        for seat in self.seats:
            if not seat.connected and seat.auto_reason == "disconnect":
                seat.settle_until = now + max(RESUME_GRACE_SECONDS, settle_seconds(seat))
        if self._pause_timer is not None:
            self._pause_timer.cancel()
            self._pause_timer = None
        metrics.PAUSES.labels("resumed").inc()
        self._log_event({"type": "match_resumed"})

    def _rejoined(self) -> None:
        """Every seat that plays itself is back: the rejoin window of a resumed match ends."""
        if self._rejoin_timer is not None and all(
            s.connected or s.auto_reason is not None for s in self.seats
        ):
            self._rejoin_timer.cancel()
            self._rejoin_timer = None

    def _on_pause_timeout(self) -> None:
        """Nobody came back to the paused match: it is dissolved as a technical draw."""
        with self.lock:
            self._pause_timer = None
            if not self.paused or self.over or self.suspended:
                return
            reason = (
                f"technical draw: nobody came back within {self.pause_seconds:g} s"
                f" ({self.pause_reason})"
            )
            log.warning("match %s dissolved: %s", self.match_id, reason)
            metrics.PAUSES.labels("dissolved").inc()
            self._dissolve(reason)

    def _on_rejoin_timeout(self) -> None:
        """A resumed match waited long enough: the seats not back are auto-played."""
        with self.lock:
            self._rejoin_timer = None
            if self.status != PLAYING or self.suspended:
                return
            for seat in self.seats:
                if not seat.connected and seat.auto_reason is None:
                    self._set_auto(seat, "absent")
            self._progress()
            self._broadcast()
            self._commit()
