"""Seat leases on a real Redis: one holder at a time, fencing tokens, take-over after expiry."""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest
import redis
import redis.asyncio

from hebei.bots.lease import (
    KEEP_SECONDS,
    AnswerRecorder,
    LeaseLost,
    SeatLease,
    answered_decisions,
    lease_history,
)


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
    # The first answer stands, and its record keeps the answers a day.
    assert answered_decisions(lease_redis, match_id, 2) == {5: first.fence}
    assert KEEP_SECONDS - 60 < lease_redis.ttl(first.keys["answers"]) <= KEEP_SECONDS


def _on_loop(url: str, play) -> None:
    """Run ``play(aclient)`` on a fresh event loop with an asyncio client of ``url``."""

    async def main() -> None:
        aclient = redis.asyncio.Redis.from_url(url, socket_timeout=5)
        try:
            await play(aclient)
        finally:
            await aclient.aclose()

    asyncio.run(main())


def test_records_on_the_loop_are_pipelined_and_fenced(
    lease_redis: redis.Redis, bots_env: dict[str, str]
) -> None:
    """The loop's recorder: records of several seats in flight at once on one connection, each
    stored with its fence; a stale session's record is refused and its lease marked lost."""
    match_id = f"m-{uuid.uuid4().hex[:8]}"

    async def play(aclient: redis.asyncio.Redis) -> None:
        leases = [
            SeatLease(lease_redis, match_id, seat, "a", ttl=5, aclient=aclient) for seat in range(4)
        ]
        assert all(lease.acquire() for lease in leases)
        recorder = AnswerRecorder.for_client(aclient)
        assert recorder is not None and AnswerRecorder.for_client(aclient) is recorder
        sent = [await lease.send_record(100 + seat) for seat, lease in enumerate(leases)]
        sent += [await lease.send_record(200 + seat) for seat, lease in enumerate(leases)]
        assert len(recorder._pending) == 8  # all in flight before the first reply is read
        assert await asyncio.gather(*sent) == [None] * 8
        await leases[0].arecord(100)  # the same session answering again is fine
        # Another session takes seat 3 over (its lease expired meanwhile): the stale one
        # is fenced off, the new one records.
        lease_redis.delete(leases[3].keys["lease"])
        taker = SeatLease(lease_redis, match_id, 3, "b", ttl=5, aclient=aclient)
        assert taker.acquire() and taker.fence == 2
        with pytest.raises(LeaseLost, match="lease lost"):
            await leases[3].arecord(300)
        assert not leases[3].held
        with pytest.raises(LeaseLost):
            await leases[3].send_record(301)  # known lost: nothing is sent
        with pytest.raises(LeaseLost, match="decision 203 answered by another"):
            await taker.arecord(203)  # (the old holder's answer stands)
        assert not taker.held

    _on_loop(bots_env["HEBEI_BOTS_REDIS_URL"], play)
    assert {seat: answered_decisions(lease_redis, match_id, seat) for seat in range(4)} == {
        0: {100: 1, 200: 1},
        1: {101: 1, 201: 1},
        2: {102: 1, 202: 1},
        3: {103: 1, 203: 1},
    }


def test_the_recorder_reconnects_and_reloads_its_script(
    lease_redis: redis.Redis, bots_env: dict[str, str]
) -> None:
    """A dropped connection fails the record in flight (ConnectionError) and the next record
    connects again; a Redis that lost its scripts gets the script whole (EVAL) and the record
    goes in."""
    match_id = f"m-{uuid.uuid4().hex[:8]}"

    async def play(aclient: redis.asyncio.Redis) -> None:
        lease = SeatLease(lease_redis, match_id, 0, "a", ttl=5, aclient=aclient)
        assert lease.acquire()
        await lease.arecord(1)
        recorder = AnswerRecorder.for_client(aclient)
        assert recorder is not None and recorder._transport is not None
        recorder._transport.abort()  # as a Redis restart or a network cut does
        await asyncio.sleep(0.05)
        await lease.arecord(2)  # a new connection
        lease_redis.script_flush()
        await lease.arecord(3)  # NOSCRIPT: sent again as EVAL
        await lease.arecord(4)  # and cached again
        pending = await lease.send_record(5)
        recorder._transport.abort()
        with pytest.raises(redis.ConnectionError):
            await pending
        await lease.arecord(5)

    _on_loop(bots_env["HEBEI_BOTS_REDIS_URL"], play)
    assert answered_decisions(lease_redis, match_id, 0) == {d: 1 for d in range(1, 6)}


def test_the_first_records_wait_for_the_database_to_be_selected(bots_env: dict[str, str]) -> None:
    """Many sessions' first records at once on a new connection to a database other than 0:
    none is written before the connection selected it (each would find no lease there)."""
    base, _, _db = bots_env["HEBEI_BOTS_REDIS_URL"].rpartition("/")
    url = f"{base}/5" if base.startswith(("redis://", "rediss://")) and ":" in base[8:] else None
    if url is None:
        pytest.skip("the lease Redis URL names no database to change")
    client = redis.Redis.from_url(url)
    match_id = f"m-{uuid.uuid4().hex[:8]}"

    async def play(aclient: redis.asyncio.Redis) -> None:
        leases = [
            SeatLease(client, f"{match_id}{i}", i % 4, "a", ttl=5, aclient=aclient)
            for i in range(16)
        ]
        assert all(lease.acquire() for lease in leases)
        await asyncio.gather(*(lease.arecord(7) for lease in leases))
        assert all(lease.held for lease in leases)

    try:
        _on_loop(url, play)
        assert answered_decisions(client, f"{match_id}3", 3) == {7: 1}
    finally:
        client.close()
