"""The waits of a stream's rejoin loop (a person's Play stream, a bot seat's, issue 46): how long
a client waits before it opens a match's stream again after it ended with a routing failure.

Three kinds of wait, in this order:

- **redirect** (0 s): the refusal names the match's owner: join it at once, at most
  ``max_hops`` (:data:`~hebei.common.routing.plan.MAX_HOPS`, 3) in a row.
- **takeover** (:data:`TAKEOVER_RETRY_SECONDS`, 0.25 s, each drawn from 80-120 %: 0.2-0.3 s):
  the match is being taken over — a refusal saying so ("being taken over; try again", no owner
  named), or the owner a refusal named was not reachable (a survivor's directory still named the
  dead replica) — and, once such a sign was seen, every failure after it while the takeover
  window lasts (the dead replica, still among the entries, fails too). The new owner serves the
  match within the takeover bound (3.6 s after the old one died): a seat asking every 0.25 s is
  back within ~0.3 s of it, where a doubling backoff (0.2, 0.4, 0.8, 1.6, 3.2 s) left it up to
  2.7 s behind.
- **backoff** (``backoff``: a :class:`~hebei.common.routing.plan.RouteBackoff`, doubling up to
  its cap; the seats' start at 0.1-0.2 s, cap 5 s, no jitter): every other failure —
  the engine out of reach everywhere, a stream closed, a redirect loop — so an engine that is
  down is not hammered; and a takeover that outlived its window.

The takeover window opens at the first sign of a takeover after the stream was last served and
lasts ``takeover_window`` seconds (the router's deadline, twice the takeover bound: 7.2 s); it
opens once per outage (:meth:`RejoinSchedule.served` starts a new one), so a replica that says
"being taken over" for ever gets the backoff after 7.2 s.

Worst case per seat (whatever the replicas answer): at most 1 + ``max_hops`` (4) joins between
two waits; takeover waits are at least 0.2 s and happen within the window only, so at most 20
joins a second for at most 7.2 s once per outage, ~150 joins (~4 a second in a real takeover:
one refusal per wait, the dead replica passed over); then the backoff, whose waits reach the cap after a
few steps (5 s for a seat, unjittered): at most 0.8 joins a second, 0.2 in practice.

Pure: no I/O; the clock and the jitter are injectable for tests. One schedule per stream, used
by the stream's own loop (not thread-safe).
"""

from __future__ import annotations

import enum
import random
import time
from collections.abc import Callable
from typing import NamedTuple

import grpc

from hebei.common.routing.convention import is_refusal, owner_of
from hebei.common.routing.plan import (
    DEFAULT_DEADLINE_SECONDS,
    MAX_HOPS,
    RouteBackoff,
    check_settings,
)

__all__ = [
    "TAKEOVER_RETRY_JITTER",
    "TAKEOVER_RETRY_SECONDS",
    "RejoinSchedule",
    "RejoinWait",
    "WaitKind",
]

TAKEOVER_RETRY_SECONDS = 0.25  # between joins while the match is being taken over
TAKEOVER_RETRY_JITTER = 0.2  # each such wait drawn from 80-120 % of it (0.2-0.3 s)


class WaitKind(enum.StrEnum):
    """Why a rejoin waits what it waits (see the module docstring)."""

    REDIRECT = "redirect"  # the owner is named: at once
    TAKEOVER = "takeover"  # the match is being taken over: the short fixed interval
    BACKOFF = "backoff"  # anything else: the doubling backoff


class RejoinWait(NamedTuple):
    """The wait before the next join: its seconds and its kind."""

    seconds: float
    kind: WaitKind


class RejoinSchedule:
    """The waits of one stream's rejoin loop (see the module docstring): :meth:`after` once
    per failed stream, :meth:`served` when a stream was answered."""

    def __init__(
        self,
        backoff: RouteBackoff,
        *,
        takeover_window: float = DEFAULT_DEADLINE_SECONDS,
        max_hops: int = MAX_HOPS,
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
    ) -> None:
        check_settings(takeover_window, max_hops=max_hops)
        self.backoff = backoff
        self.takeover_window = takeover_window
        self.max_hops = max_hops
        self.clock = clock
        self.rng = rng or random.Random()
        self.served()

    def served(self) -> None:
        """A stream was answered: the next failure starts a new outage."""
        self.failures = 0  # backoff waits since the last served stream
        self.hops = 0  # redirects followed in a row, without waiting
        self.named: str | None = None  # the owner the last failure named
        self.window_opened: float | None = None  # the takeover window's start, this outage

    def taking_over(self) -> bool:
        """Whether the takeover window is open now."""
        opened = self.window_opened
        return opened is not None and self.clock() - opened < self.takeover_window

    def after(self, error: BaseException | None, address: str) -> RejoinWait:
        """The wait after the stream at ``address`` ended with ``error`` (None: it closed
        without one), before the next join."""
        owner = owner_of(error) if error is not None else None
        named_before, self.named = self.named, owner
        if self.window_opened is None and _sign_of_takeover(error, owner, address, named_before):
            self.window_opened = self.clock()
        if owner is not None and owner != address and self.hops < self.max_hops:
            self.hops += 1
            return RejoinWait(0.0, WaitKind.REDIRECT)
        self.hops = 0
        if self.taking_over():
            jitter = self.rng.uniform(1 - TAKEOVER_RETRY_JITTER, 1 + TAKEOVER_RETRY_JITTER)
            return RejoinWait(TAKEOVER_RETRY_SECONDS * jitter, WaitKind.TAKEOVER)
        self.failures += 1
        return RejoinWait(self.backoff.delay(self.failures, self.rng), WaitKind.BACKOFF)


def _sign_of_takeover(
    error: BaseException | None, owner: str | None, address: str, named_before: str | None
) -> bool:
    """A refusal saying the match is being taken over (no owner named), or the owner the last
    refusal named out of reach."""
    if error is None:
        return False
    if is_refusal(error):
        return owner is None
    code = getattr(error, "code", None)
    unavailable = callable(code) and code() == grpc.StatusCode.UNAVAILABLE
    return unavailable and address == named_before
