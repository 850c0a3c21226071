"""Seat leases on a real Redis: one holder at a time, fencing tokens, take-over after expiry."""

from __future__ import annotations

import time
import uuid

import pytest
import redis

from hebei.bots.lease import LeaseLost, SeatLease, answered_decisions, lease_history


def lease(client: redis.Redis, match_id: str, owner: str, ttl: float = 0.5) -> SeatLease:
    return SeatLease(client, match_id, 2, owner, ttl=ttl)


def test_one_holder_at_a_time_and_a_higher_fence_after_expiry(lease_redis: redis.Redis) -> None:
    match_id = f"m-{uuid.uuid4().hex[:8]}"
    first, second = lease(lease_redis, match_id, "a"), lease(lease_redis, match_id, "b")
    assert first.acquire() and first.fence == 1
    assert not second.acquire()
    assert second.holder() == "1 a"
    first.record(10)
    first.record(10)  # the same session answering again (after a reconnect) is fine
    time.sleep(0.7)  # no heartbeat: the lease expires
    assert second.acquire() and second.fence == 2
    second.record(11)
    with pytest.raises(LeaseLost):
        first.record(12)  # the stale session is fenced off
    assert not first.held
    assert answered_decisions(lease_redis, match_id, 2) == {10: 1, 11: 2}
    second.release()
    history = lease_history(lease_redis, match_id, 2)
    assert [(r.event, r.fence, r.owner) for r in history] == [
        ("acquire", 1, "a"),
        ("acquire", 2, "b"),
        ("release", 2, "b"),
    ]


def test_the_heartbeat_keeps_the_lease_and_release_frees_it(lease_redis: redis.Redis) -> None:
    match_id = f"m-{uuid.uuid4().hex[:8]}"
    holder = lease(lease_redis, match_id, "a", ttl=0.3)
    assert holder.acquire()
    holder.start_heartbeat()
    time.sleep(1.0)  # three times the time to live
    assert holder.held and not lease(lease_redis, match_id, "b").acquire()
    holder.record(1)
    holder.release()
    assert holder.holder() is None
    assert lease(lease_redis, match_id, "b").acquire()


def test_a_decision_answered_by_another_session_is_refused(lease_redis: redis.Redis) -> None:
    match_id = f"m-{uuid.uuid4().hex[:8]}"
    first = lease(lease_redis, match_id, "a", ttl=0.2)
    assert first.acquire()
    first.record(5)
    time.sleep(0.4)
    second = lease(lease_redis, match_id, "b")
    assert second.acquire()
    with pytest.raises(LeaseLost, match="decision 5 answered by another"):
        second.record(5)
