"""Ownership on a real PostgreSQL: the registry, fair shares as replicas come and go, takeover of
a dead replica's shards within the bound (measured and printed), never two holders of a shard or
a lease at once, leases taken over, owners' addresses, and bad input refused clearly."""

from __future__ import annotations

import itertools
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest

from hebei.common.ownership import (
    Directory,
    LeaseLimitReached,
    Replica,
    ReplicaIdInUse,
    ShardCountMismatch,
    Timings,
    install,
    ownership_schema,
    shard_of,
)

SERVICE = "table"
TAKEOVER_BOUND = 10.0  # generous on a loaded machine; the target (and the documented bound) is 5 s
ROOT = Path(__file__).resolve().parents[3]


class OwnerLog:
    """Every holding of a shard or lease as [start, end) on one clock, from the replicas'
    callbacks: a holding starts when it is acquired and ends when it is released or lost."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.holdings: dict[object, list[list]] = {}

    def start(self, replica: str, names: frozenset) -> None:
        now = time.monotonic()
        with self._lock:
            for name in names:
                self.holdings.setdefault(name, []).append([replica, now, None])

    def end(self, replica: str, names: frozenset) -> None:
        now = time.monotonic()
        with self._lock:
            for name in names:
                open_ = [h for h in self.holdings[name] if h[0] == replica and h[2] is None]
                assert len(open_) == 1, (name, replica, self.holdings[name])
                open_[0][2] = now

    def holder(self, name: object) -> str | None:
        with self._lock:
            current = [h[0] for h in self.holdings.get(name, []) if h[2] is None]
        assert len(current) <= 1, (name, current)
        return current[0] if current else None

    def assert_never_two_holders(self) -> None:
        with self._lock:
            for name, holdings in self.holdings.items():
                ordered = sorted(holdings, key=lambda h: h[1])
                for before, after in itertools.pairwise(ordered):
                    assert before[2] is not None and before[2] <= after[1], (name, before, after)


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> float:
    started = time.monotonic()
    while not condition():
        if time.monotonic() - started > timeout:
            raise AssertionError(f"not within {timeout} s: {what}")
        time.sleep(0.02)
    return time.monotonic() - started


@pytest.fixture
def schema(database_url: str, fresh_schema: str) -> str:
    install(database_url, fresh_schema)
    return fresh_schema


@pytest.fixture
def owner_log() -> OwnerLog:
    return OwnerLog()


@pytest.fixture
def start_replica(
    database_url: str, schema: str, owner_log: OwnerLog
) -> Iterator[Callable[..., Replica]]:
    started: list[Replica] = []

    def start(replica_id: str, **overrides: object) -> Replica:
        settings: dict = {
            "schema": schema,
            "service": SERVICE,
            "replica_id": replica_id,
            "address": f"{replica_id}.engine:50051",
            "on_shards_acquired": lambda shards: owner_log.start(replica_id, shards),
            "on_shards_released": lambda shards: owner_log.end(replica_id, shards),
            "on_shards_lost": lambda shards: owner_log.end(replica_id, shards),
            "on_leases_lost": lambda keys: owner_log.end(replica_id, keys),
            "on_leases_released": lambda keys: owner_log.end(replica_id, keys),
        }
        settings.update(overrides)
        replica = Replica(database_url, **settings).start()
        started.append(replica)
        return replica

    yield start
    for replica in started:
        replica.stop()
    owner_log.assert_never_two_holders()


@pytest.fixture
def directory(database_url: str, schema: str) -> Directory:
    return Directory(lambda: psycopg.connect(database_url), schema=schema, service=SERVICE)


def terminate(database_url: str, replica: Replica) -> None:
    """End the replica's lock session from the server, as an administrator or a failover would."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("SELECT pg_terminate_backend(%s)", (replica._session.backend_pid,))


def shares(*replicas: Replica) -> list[int]:
    return [len(replica.shards()) for replica in replicas]


def start_victim(database_url: str, schema: str) -> subprocess.Popen:
    """A replica "victim" in a process of its own (for a test to kill -9), registered."""
    victim = subprocess.Popen(
        [sys.executable, "-m", "tests.integration.common.ownership_replica_main",
         database_url, schema, SERVICE, "victim"],
        cwd=ROOT, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert victim.stdout is not None and victim.stdout.readline().strip() == "ready"
    return victim


def started_at(owner_log: OwnerLog, replica: str, shard: int) -> float:
    """When ``replica`` began to serve ``shard`` (its last holding of it)."""
    return [h[1] for h in owner_log.holdings[shard] if h[0] == replica][-1]


def test_shards_are_shared_fairly_by_one_two_and_three_replicas(start_replica, directory) -> None:
    a = start_replica("a")
    wait_for(lambda: shares(a) == [64], 10, "a alone holds 64 shards")
    b = start_replica("b")
    wait_for(lambda: shares(a, b) == [32, 32], 15, "a newcomer gets half")
    c = start_replica("c")
    wait_for(lambda: shares(a, b, c) == [22, 21, 21], 15, "three share 22/21/21")
    owners = directory.shard_owners()
    assert sorted(owners) == list(range(64))
    assert all(holder.serving for holder in owners.values())
    for replica in (a, b, c):
        assert {
            n for n, h in owners.items() if h.replica_id == replica.replica_id
        } == replica.shards()
    assert [r.replica_id for r in directory.live_replicas()] == ["a", "b", "c"]
    c.stop()  # a clean stop: its shards go at once (no grace) to the two left
    wait_for(lambda: shares(a, b) == [32, 32], 10, "the two left share again")
    assert [r.replica_id for r in directory.live_replicas()] == ["a", "b"]


def test_a_key_s_owner_and_a_replica_s_address_are_found(start_replica, directory) -> None:
    a, b = start_replica("a"), start_replica("b")
    wait_for(lambda: shares(a, b) == [32, 32], 15, "two share the shards")
    for match_id in ("match-1", "match-2", "match-3", "match-4"):
        holder = directory.key_owner(match_id)
        owner = a if a.owns_key(match_id) else b
        assert owner.owns(shard_of(match_id, 64))
        assert holder is not None and holder.replica_id == owner.replica_id
        assert holder.address == f"{owner.replica_id}.engine:50051"
    assert directory.replica_address("b") == "b.engine:50051"
    assert directory.replica_address("nobody") is None


def test_a_released_shard_is_stopped_before_anyone_else_can_own_it(
    start_replica, directory, owner_log
) -> None:
    seen: list[tuple[int, str | None]] = []

    def stopping(shards: frozenset[int]) -> None:
        owner_log.end("a", shards)
        for shard in sorted(shards)[:3]:  # the row and lock are still this replica's
            holder = directory.shard_owner(shard)
            seen.append((shard, holder.replica_id if holder else None))

    a = start_replica("a", on_shards_released=stopping)
    wait_for(lambda: shares(a) == [64], 10, "a holds everything")
    b = start_replica("b")
    wait_for(lambda: shares(a, b) == [32, 32], 15, "b gets half")
    assert seen and all(replica == "a" for _, replica in seen)


def test_a_terminated_session_s_shards_are_lost_first_then_taken_within_the_bound(
    database_url, start_replica, owner_log
) -> None:
    a, b = start_replica("a"), start_replica("b")
    wait_for(lambda: shares(a, b) == [32, 32], 15, "two share the shards")
    lost_by_a = a.shards()
    started = time.monotonic()
    terminate(database_url, a)
    detected = wait_for(lambda: owner_log.holder(min(lost_by_a)) is None, 5, "a declares the loss")
    # a registers again and competes, so each shard is served again by a or b
    taken = wait_for(
        lambda: all(owner_log.holder(n) is not None for n in lost_by_a), TAKEOVER_BOUND, "takeover"
    )
    elapsed = time.monotonic() - started
    print(
        f"\nterminated session: loss seen in {detected:.2f} s, shards served again in {elapsed:.2f} s"
    )
    assert taken <= TAKEOVER_BOUND
    owner_log.assert_never_two_holders()


def test_a_killed_replica_s_shards_are_taken_over_within_the_bound(
    database_url, schema, start_replica, directory
) -> None:
    victim = start_victim(database_url, schema)
    try:
        survivor = start_replica("survivor")
        wait_for(lambda: shares(survivor) == [32], 20, "the survivor gets half")
        wait_for(lambda: len(directory.shard_owners()) == 64, 10, "every shard held")
        started = time.monotonic()
        victim.kill()  # SIGKILL: PostgreSQL sees its socket close and frees its locks
        wait_for(lambda: shares(survivor) == [64], TAKEOVER_BOUND, "the survivor takes everything")
        elapsed = time.monotonic() - started
    finally:
        victim.kill()
        victim.wait()
    print(f"\nkill -9 of a replica: its 32 shards served by the survivor after {elapsed:.2f} s")
    assert elapsed <= TAKEOVER_BOUND
    assert {holder.replica_id for holder in directory.shard_owners().values()} == {"survivor"}
    assert [r.replica_id for r in directory.live_replicas()] == ["survivor"]


def test_a_shard_released_in_its_grace_keeps_it_for_the_next_holder(
    database_url, schema, start_replica, directory, owner_log
) -> None:
    """A replica that took a dead holder's shards and stops before their grace passed does not
    hand them over cleanly (the dead holder may not know yet): the next holder waits the
    grace for those, and serves the shards the stopping replica had served at once."""
    grace = Timings().takeover_grace_seconds
    victim = start_victim(database_url, schema)
    try:
        a = start_replica("a")
        wait_for(lambda: shares(a) == [32], 20, "a gets half")
        wait_for(lambda: len(directory.shard_owners()) == 64, 10, "every shard held")
        served_by_a = a.shards()
        victim.kill()
        victim.wait()
        in_grace = frozenset(range(64)) - served_by_a

        def a_waits_for_them() -> bool:
            owners = directory.shard_owners()
            return all(
                n in owners and owners[n].replica_id == "a" and not owners[n].serving
                for n in in_grace
            )

        wait_for(a_waits_for_them, 10, "a holds the victim's shards, in their grace")
        a.stop()
    finally:
        victim.kill()
        victim.wait()
    c_started = time.monotonic()
    c = start_replica("c")
    wait_for(lambda: shares(c) == [64], 15, "c takes everything")
    clean = max(started_at(owner_log, "c", n) for n in served_by_a) - c_started
    waited = min(started_at(owner_log, "c", n) for n in in_grace) - c_started
    print(
        f"\nafter a stop: a's own shards served in {clean:.2f} s, those in grace in {waited:.2f} s"
    )
    assert waited >= grace - 0.5  # a lower bound: load only makes it later
    assert clean < waited


def test_shards_the_release_callback_reports_unclean_keep_the_grace(
    start_replica, owner_log
) -> None:
    """``on_shards_released`` may say which shards it could not stop cleanly: their next holder
    waits the grace, the others change hands at once."""
    grace = Timings().takeover_grace_seconds
    unclean: list[int] = []

    def releasing(shards: frozenset[int]) -> frozenset[int]:
        owner_log.end("a", shards)
        if not unclean:
            unclean.append(max(shards))
        return frozenset(unclean) & shards

    a = start_replica("a", on_shards_released=releasing)
    wait_for(lambda: shares(a) == [64], 10, "a holds everything")
    b = start_replica("b")
    wait_for(lambda: shares(a, b) == [32, 32], 15, "b gets half")
    (slow,) = unclean
    others = b.shards() - {slow}
    at_once = max(started_at(owner_log, "b", n) for n in others)
    print(
        f"\nthe shard released unclean served {started_at(owner_log, 'b', slow) - at_once:.2f} s later"
    )
    assert started_at(owner_log, "b", slow) - at_once >= grace - 1.5  # a beat may separate them


def test_replicas_of_two_registries_sharing_a_lock_scope_never_hold_a_shard_at_once(
    database_url, schema, start_replica, owner_log
) -> None:
    """The table engine's ownership tables moved to a schema of their own but its locks kept
    their keys (``lock_scope``): a replica of either layout takes only what the other let go."""
    moved = ownership_schema(schema)
    install(database_url, moved)
    old = start_replica("old")
    wait_for(lambda: shares(old) == [64], 10, "the old layout's replica holds everything")
    new = start_replica("new", schema=moved, lock_scope=schema)
    time.sleep(2.5)  # two beats: it sees no free shard
    assert shares(old, new) == [64, 0]
    old.stop()
    wait_for(lambda: shares(new) == [64], 10, "the new one takes what the old one let go")
    owner_log.assert_never_two_holders()


def test_a_stuck_statement_counts_as_a_loss(database_url, schema, start_replica, owner_log) -> None:
    timings = Timings(
        heartbeat_seconds=0.5, statement_timeout_seconds=0.5, server_idle_timeout_seconds=3
    )
    a = start_replica("a", timings=timings)
    wait_for(lambda: shares(a) == [64], 10, "a holds everything")
    with psycopg.connect(database_url) as blocker:  # holds a's registry row: its beat waits
        blocker.execute(f"SELECT 1 FROM {schema}.replicas WHERE replica_id = 'a' FOR UPDATE")
        # owns() turns false at once, then the loss callback runs (both within the bound)
        waited = wait_for(
            lambda: not a.shards() and owner_log.holder(0) is None, 5, "a declares the loss"
        )
    print(f"\nstuck beat: loss declared after {waited:.2f} s")
    wait_for(lambda: shares(a) == [64], 15, "a registers again and serves after the grace")


def test_a_lease_has_one_holder_and_is_taken_over(
    database_url, start_replica, directory, owner_log
) -> None:
    a = start_replica("a", shard_count=0)
    b = start_replica("b", shard_count=0)
    assert a.try_claim("tournament-1") is True
    owner_log.start("a", frozenset({"tournament-1"}))
    assert a.try_claim("tournament-1") is True and a.held() == {"tournament-1"}
    assert b.try_claim("tournament-1") is False
    holder = directory.lease_owner("tournament-1")
    assert holder is not None and (holder.replica_id, holder.address) == ("a", "a.engine:50051")
    assert directory.lease_owner("tournament-2") is None

    def b_claims() -> bool:
        if b.try_claim("tournament-1"):
            owner_log.start("b", frozenset({"tournament-1"}))
            return True
        return False

    started = time.monotonic()
    terminate(database_url, a)
    wait_for(b_claims, TAKEOVER_BOUND, "b takes the tournament over")
    elapsed = time.monotonic() - started
    print(f"\nlease takeover after its holder's session ended: {elapsed:.2f} s")
    assert a.held() == frozenset() and b.holds("tournament-1")
    owner_log.assert_never_two_holders()
    assert directory.lease_owner("tournament-1").replica_id == "b"
    # a clean release hands it over at once (no grace)
    assert b.release("tournament-1") is True and b.release("tournament-1") is False
    owner_log.end("b", frozenset({"tournament-1"}))
    wait_for(lambda: a.try_claim("tournament-1"), 5, "a registered again and claims it")
    owner_log.start("a", frozenset({"tournament-1"}))


def test_stop_releases_everything(start_replica, directory) -> None:
    a = start_replica("a", max_leases=2)
    assert a.try_claim("t1") and a.try_claim("t2")
    with pytest.raises(LeaseLimitReached, match="holds 2 leases already"):
        a.try_claim("t3")
    wait_for(lambda: shares(a) == [64], 10, "a holds everything")
    a.stop()
    assert directory.shard_owners() == {} and directory.live_replicas() == []
    assert directory.lease_owner("t1") is None and a.shards() == frozenset()


def test_bad_input_is_refused_clearly(database_url, schema, start_replica, directory) -> None:
    def make(**overrides: object) -> Replica:
        settings: dict = {"schema": schema, "service": SERVICE, "replica_id": "x", "address": "x:1"}
        return Replica(database_url, **(settings | overrides))

    with pytest.raises(ValueError, match="shard_count must be 0 to 1024, got -1"):
        make(shard_count=-1)
    with pytest.raises(ValueError, match="max_leases must be 0 to 65536, got -5"):
        make(max_leases=-5)
    with pytest.raises(ValueError, match="schema name must match"):
        make(schema="Bad-Schema")
    with pytest.raises(ValueError, match="a replica id is a non-empty string"):
        make(replica_id="")
    a = start_replica("a")
    with pytest.raises(ValueError, match="unknown shard 64: this service has shards 0 to 63"):
        a.owns(64)
    with pytest.raises(ValueError, match="unknown shard -1"):
        directory.shard_owner(-1)
    with pytest.raises(ValueError, match="a lease key is a non-empty string"):
        a.try_claim("")
    with pytest.raises(ReplicaIdInUse, match="replica id 'a' of service 'table' is live"):
        make(replica_id="a").start()
    with pytest.raises(ShardCountMismatch, match="use 64 shards, this one 32"):
        make(replica_id="b", shard_count=32).start()
