"""One routed call's course, without I/O: after each failed attempt, where to try next and how
long to wait first, or the end of the call (:class:`NoRoute`, or the failure itself).

- A refusal naming an owner (:func:`~hebei.common.routing.convention.owner_of`): go there at
  once; at most ``max_hops`` such redirects in a row, and never back to an address already in
  the chain (replicas whose directories disagree for a moment bounce a call between them):
  past either, the call is treated as finding no owner.
- No owner (a refusal while the match is taken over, a replica that is down or unreachable,
  an attempt's own timeout while the call's deadline is still ahead): the match's owner is
  forgotten, the next entry address (passing over the entries found down) is tried after a
  capped, jittered backoff
  (:class:`RouteBackoff`: 50 ms doubling to 0.8 s, each wait 50-100 % of its step).
- Anything else (NOT_FOUND, INVALID_ARGUMENT...): the failure is the call's answer.

A non-idempotent call is sent again only after a refusal (which did nothing); any other
failure of it ends the call, since it may have been applied.

The call ends with :class:`NoRoute` (UNAVAILABLE) when its deadline passes: by default
:data:`DEFAULT_DEADLINE_SECONDS`, twice :data:`TAKEOVER_BOUND_SECONDS` (the ownership
machinery's bound from an owner's death to its successor serving, 3.6 s): a call that starts as
an owner dies still finds the successor, with room for a backoff step and the call itself.
The last attempt gets at least :data:`MIN_ATTEMPT_SECONDS`; a call never outlives its deadline
by more than that attempt's own overrun.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

import grpc

from hebei.common.routing.caches import RouteBook
from hebei.common.routing.convention import is_refusal, owner_of

__all__ = [
    "DEFAULT_BACKOFF",
    "DEFAULT_DEADLINE_SECONDS",
    "MAX_HOPS",
    "TAKEOVER_BOUND_SECONDS",
    "CallPlan",
    "NoRoute",
    "RouteBackoff",
    "check_settings",
]

# hebei.common.ownership.Timings().takeover_bound_seconds (a unit test holds them equal): not
# imported, so a client (the web gateway, the terminal) never loads the database driver.
TAKEOVER_BOUND_SECONDS = 3.6
DEFAULT_DEADLINE_SECONDS = 2 * TAKEOVER_BOUND_SECONDS
MAX_HOPS = 3  # redirects followed in a row before backing off
MIN_ATTEMPT_SECONDS = 0.05
MAX_PATH_SHOWN = 6  # addresses named in a NoRoute's message


@dataclass(frozen=True, slots=True)
class RouteBackoff:
    """Waits between attempts that found no owner: ``first`` doubling up to ``cap``, each
    drawn from ``1 - jitter`` to 100 % of its step (by default 50-100 %: callers that failed
    together do not come back together; 0: the steps exactly)."""

    first: float = 0.05
    cap: float = 0.8
    jitter: float = 0.5

    def __post_init__(self) -> None:
        if not 0 < self.first <= self.cap <= 60:
            raise ValueError(
                f"backoff must be 0 < first <= cap <= 60, got {self.first}, {self.cap}"
            )
        if not 0 <= self.jitter < 1:
            raise ValueError(f"backoff jitter must be 0 <= jitter < 1, got {self.jitter}")

    def step(self, failures: int) -> float:
        """The step after ``failures`` (>= 1) attempts that found no owner, before jitter."""
        return min(self.cap, self.first * 2 ** min(max(failures, 1) - 1, 30))

    def delay(self, failures: int, rng: random.Random) -> float:
        step = self.step(failures)
        return step * rng.uniform(1 - self.jitter, 1.0) if self.jitter else step


DEFAULT_BACKOFF = RouteBackoff()


class NoRoute(grpc.RpcError):
    """A routed call that found no replica serving its match within its deadline: status
    UNAVAILABLE like the failures it stands for, so existing handlers of ``grpc.RpcError``
    (HTTP 503, a domain Unavailable, a reconnect) treat it as they did; ``last_error`` is the
    last attempt's failure."""

    def __init__(self, details: str, last_error: BaseException | None = None) -> None:
        super().__init__(details)
        self._details = details
        self.last_error = last_error

    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.UNAVAILABLE

    def details(self) -> str:
        return self._details

    def trailing_metadata(self) -> tuple[tuple[str, str], ...]:
        return ()

    def initial_metadata(self) -> tuple[tuple[str, str], ...]:
        return ()

    def __str__(self) -> str:
        return self._details


def _describe(error: BaseException | None) -> str:
    if error is None:
        return "none"
    code = getattr(error, "code", None)
    details = getattr(error, "details", None)
    try:
        name = code().name if code is not None else type(error).__name__
        text = (details() if details is not None else str(error)) or ""
    except Exception:
        name, text = type(error).__name__, str(error)
    line = text.strip().splitlines()[0][:160] if text.strip() else ""
    return f"{name}: {line}" if line else name


def check_settings(
    deadline_seconds: float, attempt_seconds: float | None = None, max_hops: int = MAX_HOPS
) -> None:
    """ValueError unless a call's deadline and attempt timeout are 0-3600 s and ``max_hops``
    is 0-16."""
    for name, value in (
        ("deadline_seconds", deadline_seconds),
        ("attempt_seconds", attempt_seconds),
    ):
        if value is None and name == "attempt_seconds":
            continue
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 3600:
            raise ValueError(f"{name} must be above 0 and at most 3600 seconds, got {value!r}")
    if isinstance(max_hops, bool) or not isinstance(max_hops, int) or not 0 <= max_hops <= 16:
        raise ValueError(f"max_hops must be 0-16, got {max_hops!r}")


class CallPlan:
    """The course of one call on ``match_id`` through ``book`` (see the module docstring);
    ``clock`` and ``rng`` are injectable for tests."""

    def __init__(
        self,
        match_id: str,
        book: RouteBook,
        *,
        deadline_seconds: float = DEFAULT_DEADLINE_SECONDS,
        attempt_seconds: float | None = None,
        max_hops: int = MAX_HOPS,
        backoff: RouteBackoff = DEFAULT_BACKOFF,
        idempotent: bool = True,
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
    ) -> None:
        check_settings(deadline_seconds, attempt_seconds, max_hops)
        self.match_id = match_id
        self.book = book
        self.deadline_seconds = deadline_seconds
        self.attempt_seconds = attempt_seconds
        self.max_hops = max_hops
        self.backoff = backoff
        self.idempotent = idempotent
        self.clock = clock
        self.rng = rng or random.Random()
        self.deadline = clock() + deadline_seconds
        self.address = book.address_for(match_id)
        self.attempts = 0
        self.failures = 0  # attempts that found no owner
        self.path: list[str] = []  # every address tried, in order
        self.chain: list[str] = []  # the redirects followed since the last backoff
        self.loop = ""  # the last redirect loop seen, for the final message
        self.last_error: BaseException | None = None

    def remaining(self) -> float:
        return self.deadline - self.clock()

    def attempt_timeout(self) -> float:
        """The timeout of the next attempt: what is left of the deadline (at least
        :data:`MIN_ATTEMPT_SECONDS`), at most ``attempt_seconds``."""
        left = max(self.remaining(), MIN_ATTEMPT_SECONDS)
        return min(left, self.attempt_seconds) if self.attempt_seconds else left

    def starting(self) -> str:
        """The address of the next attempt (counted)."""
        self.attempts += 1
        self.path.append(self.address)
        return self.address

    def served(self) -> None:
        """The attempt at :attr:`address` was answered: that replica serves the match."""
        self.book.learn(self.match_id, self.address)
        self.book.reached(self.address)

    def failed(self, error: BaseException) -> float:
        """The attempt at :attr:`address` failed with ``error``: set :attr:`address` to the next
        one and return the seconds to wait before it; raises ``error`` when it is the call's
        answer, :class:`NoRoute` when the deadline does not leave room for another attempt."""
        self.last_error = error
        failed_at = self.address
        owner = owner_of(error)
        if owner is not None and owner != failed_at:
            self.chain.append(failed_at)
            if len(self.chain) <= self.max_hops and owner not in self.chain:
                self.book.learn(self.match_id, owner)
                self.address = owner
                if self.remaining() < MIN_ATTEMPT_SECONDS:
                    raise self.no_route()
                return 0.0
            self.loop = " → ".join([*self.chain, owner])
        elif not self._worth_another_address(error):
            raise error
        self.chain = []
        self.failures += 1
        unreachable = owner is None and not is_refusal(error)
        self.address = self.book.forget(self.match_id, failed_at, unreachable=unreachable)
        wait = min(
            self.backoff.delay(self.failures, self.rng), self.remaining() - MIN_ATTEMPT_SECONDS
        )
        if wait < 0:
            raise self.no_route()
        return wait

    def _worth_another_address(self, error: BaseException) -> bool:
        """A failure that says nothing of the match, only of the replica: try elsewhere."""
        if is_refusal(error):
            return True
        if not self.idempotent or not isinstance(error, grpc.RpcError):
            return False
        code = getattr(error, "code", None)
        code = code() if code is not None else None
        if code == grpc.StatusCode.UNAVAILABLE:
            return True
        # An attempt's own timeout: that replica is stuck (the next step checks the time left).
        return code == grpc.StatusCode.DEADLINE_EXCEEDED

    def no_route(self) -> NoRoute:
        tried = list(dict.fromkeys(self.path))
        shown = ", ".join(tried[:MAX_PATH_SHOWN]) + (", …" if len(tried) > MAX_PATH_SHOWN else "")
        loop = f"; redirects went round in a loop ({self.loop})" if self.loop else ""
        return NoRoute(
            f"match {self.match_id}: no table replica served it within "
            f"{self.deadline_seconds:g} s ({self.attempts} attempts at {shown}{loop}; "
            f"last: {_describe(self.last_error)})",
            self.last_error,
        )
