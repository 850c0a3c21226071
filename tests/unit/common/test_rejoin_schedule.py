"""The waits of a stream's rejoin loop (:class:`hebei.common.routing.RejoinSchedule`), on a fake
clock: a named owner at once, a takeover asked again every ~0.25 s within its window, a
doubling backoff for the rest, and the worst-case rate of joins whatever the replicas answer."""

from __future__ import annotations

import random

import grpc
import pytest

from hebei.common.routing import (
    DEFAULT_DEADLINE_SECONDS,
    MAX_HOPS,
    TAKEOVER_RETRY_SECONDS,
    MatchRouter,
    Owner,
    RejoinSchedule,
    RouteBackoff,
    RouteSettings,
    WaitKind,
)
from hebei.common.routing.rejoin import TAKEOVER_RETRY_JITTER
from tests.unit.common.test_routing import UNAVAILABLE, FakeClock, FakeError, refused

SEAT_BACKOFF = RouteBackoff(0.2, 5.0, jitter=0.0)  # a person's seat's (hebei.seatclient.stream)
SHORTEST = TAKEOVER_RETRY_SECONDS * (1 - TAKEOVER_RETRY_JITTER)
LONGEST = TAKEOVER_RETRY_SECONDS * (1 + TAKEOVER_RETRY_JITTER)
TAKING_OVER = refused("m", None)  # "match m is being taken over; try again"
UNREACHABLE = FakeError(UNAVAILABLE, "failed to connect to all addresses")


def schedule(clock: FakeClock, **options) -> RejoinSchedule:
    return RejoinSchedule(SEAT_BACKOFF, clock=clock, rng=random.Random(4), **options)


def served_by(address: str) -> FakeError:
    return refused("m", Owner("r", address))


def test_a_takeover_is_asked_again_every_quarter_second_until_the_new_owner_serves() -> None:
    """A kill -9 of the owner "a": its stream drops, the survivor "b" says "being taken over"
    until it serves the match 3.6 s after; the entries are tried in turn, the dead one too."""
    clock = FakeClock()
    rejoins = schedule(clock)
    killed = clock.now
    waits = [rejoins.after(UNREACHABLE, "a")]  # the owner's stream dropped: not a sign yet
    assert waits[0] == (0.2, WaitKind.BACKOFF)
    clock.now += waits[0].seconds
    address = "b"
    while clock.now - killed < 3.6:  # the new owner does not serve yet
        failure = TAKING_OVER if address == "b" else UNREACHABLE
        wait = rejoins.after(failure, address)
        waits.append(wait)
        clock.now += wait.seconds
        address = "a" if address == "b" else "b"
    assert {w.kind for w in waits[1:]} == {WaitKind.TAKEOVER}
    assert all(SHORTEST <= w.seconds <= LONGEST for w in waits[1:])
    # The next join comes at most one short wait after the owner serves (doubling: up to 2.7 s).
    assert clock.now - killed - 3.6 <= LONGEST
    assert len(waits) >= 3.4 / LONGEST
    rejoins.served()
    assert rejoins.after(UNREACHABLE, "b") == (0.2, WaitKind.BACKOFF)  # a new outage


def test_an_owner_named_but_not_reachable_yet_is_a_takeover() -> None:
    """A survivor's directory still names the dead owner for a moment: the redirect goes there
    at once, and its failure opens the takeover window."""
    clock = FakeClock()
    rejoins = schedule(clock)
    assert rejoins.after(served_by("a"), "b") == (0.0, WaitKind.REDIRECT)
    wait = rejoins.after(UNREACHABLE, "a")
    assert wait.kind is WaitKind.TAKEOVER and SHORTEST <= wait.seconds <= LONGEST
    assert rejoins.taking_over()


def test_an_engine_out_of_reach_everywhere_gets_the_doubling_backoff() -> None:
    clock = FakeClock()
    rejoins = schedule(clock)
    waits = []
    for n in range(8):
        wait = rejoins.after(UNREACHABLE, "ab"[n % 2])
        waits.append(wait.seconds)
        assert wait.kind is WaitKind.BACKOFF
        clock.now += wait.seconds
    assert waits == [0.2, 0.4, 0.8, 1.6, 3.2, 5.0, 5.0, 5.0]
    assert not rejoins.taking_over()
    # A stream that closed without an error, or a failure of another kind: the backoff too.
    assert rejoins.after(None, "a").kind is WaitKind.BACKOFF
    assert rejoins.after(FakeError(grpc.StatusCode.INTERNAL, "x"), "a").kind is WaitKind.BACKOFF


def test_the_takeover_window_is_bounded_and_opens_once_per_outage() -> None:
    """A replica that says "being taken over" for ever: short waits for the router's deadline
    (7.2 s) from the first sign, then the backoff, doubling, even though the sign goes on."""
    clock = FakeClock()
    rejoins = schedule(clock)
    opened = clock.now
    kinds = []
    while clock.now - opened < 30:
        wait = rejoins.after(TAKING_OVER, "b")
        kinds.append((clock.now - opened, wait))
        clock.now += wait.seconds
    short = [t for t, w in kinds if w.kind is WaitKind.TAKEOVER]
    assert short and max(short) < DEFAULT_DEADLINE_SECONDS
    backoff = [w.seconds for t, w in kinds if w.kind is WaitKind.BACKOFF]
    assert backoff[:5] == [0.2, 0.4, 0.8, 1.6, 3.2]
    assert all(t >= DEFAULT_DEADLINE_SECONDS for t, w in kinds if w.kind is WaitKind.BACKOFF)
    rejoins.served()  # the stream was answered: the next takeover has a window of its own
    assert rejoins.after(TAKING_OVER, "b").kind is WaitKind.TAKEOVER


def test_redirects_are_followed_at_once_a_few_in_a_row_then_waited() -> None:
    clock = FakeClock()
    rejoins = schedule(clock)
    kinds = [rejoins.after(served_by("ab"[n % 2]), "ba"[n % 2]).kind for n in range(MAX_HOPS + 2)]
    assert kinds == [WaitKind.REDIRECT] * MAX_HOPS + [WaitKind.BACKOFF, WaitKind.REDIRECT]
    # A refusal naming the replica that refused is no redirect.
    assert rejoins.after(served_by("a"), "a").kind is WaitKind.BACKOFF


def test_the_worst_case_rate_of_joins_is_bounded_whatever_the_replicas_answer() -> None:
    """Random answers of every kind, over and over, with no stream ever served: at most
    1 + MAX_HOPS joins between two waits, at most 20 a second within the window (7.2 s), at
    most 0.8 a second once the backoff is at its cap."""
    rng = random.Random(11)
    answers = [TAKING_OVER, UNREACHABLE, served_by("a"), served_by("b"), served_by("c"), None]
    for _ in range(20):
        clock = FakeClock()
        rejoins = schedule(clock)
        start = clock.now
        joins: list[float] = []
        while clock.now - start < 120:
            joins.append(clock.now - start)
            wait = rejoins.after(rng.choice(answers), rng.choice("abc"))
            clock.now += wait.seconds
        window = DEFAULT_DEADLINE_SECONDS + LONGEST
        assert sum(1 for t in joins if t < window) <= (1 + MAX_HOPS) * (window / SHORTEST + 1)
        late = [t for t in joins if t >= 60]  # the backoff at its cap long since
        assert len(late) <= (1 + MAX_HOPS) * (60 / SEAT_BACKOFF.cap + 1)


def test_the_router_makes_schedules_with_its_own_bounds() -> None:
    settings = RouteSettings(deadline_seconds=3.0, max_hops=1)
    with MatchRouter("a:1", lambda address: None, settings=settings) as router:
        rejoins = router.rejoin_schedule(SEAT_BACKOFF)
    assert rejoins.takeover_window == 3.0 and rejoins.max_hops == 1
    assert rejoins.backoff is SEAT_BACKOFF


def test_an_unjittered_backoff_waits_its_steps_exactly() -> None:
    rng = random.Random(0)
    assert [SEAT_BACKOFF.delay(n, rng) for n in range(1, 7)] == [0.2, 0.4, 0.8, 1.6, 3.2, 5.0]
    with pytest.raises(ValueError, match="jitter"):
        RouteBackoff(0.1, 1.0, jitter=1.0)
    with pytest.raises(ValueError, match="jitter"):
        RouteBackoff(0.1, 1.0, jitter=-0.1)
