"""Token buckets, the one rate mechanism of the gateway: per client address for its POSTs
(:class:`hebei.web.app.RateLimiter`), per seat session for hints (:mod:`hebei.web.advice`)."""

from __future__ import annotations

from collections.abc import Callable


class Bucket:
    """A token bucket: ``rate`` a second sustained, ``burst`` at once."""

    def __init__(self, rate: float, burst: float, clock: Callable[[], float]) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self.tokens, self.at = burst, clock()

    def take(self) -> float:
        """Take one token: 0.0, or the seconds until one is there (nothing taken)."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1:
            return (1 - self.tokens) / self.rate
        self.tokens -= 1
        return 0.0
