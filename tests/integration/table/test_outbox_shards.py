"""Each engine replica delivers the outbox rows of its own shards (issue 46), not the whole
shared outbox: two replicas on one schema, each reporting match results to a receiver of its
own, so a receiver's calls say which replica delivered. Rows written before they had a shard
are shard 0's. A killed replica's pending rows are delivered by the replica that takes its
shards over (the time is printed)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import psycopg
import pytest
from psycopg import sql

from hebei.common.ownership import shard_of
from hebei.table.store import EventRow, EventStore, Group, OutboxRow
from hebei.v1 import matchmaking_pb2
from tests.integration.table.conftest import Running, serve_recording_matchmaking
from tests.integration.table.helpers import EngineProcess, engine_env, wait_for
from tests.integration.table.test_replicas import SHARDS, TAKEOVER_LIMIT, split
from tests.integration.table.test_store import new_match


@pytest.fixture
def receivers() -> Iterator[list[Running]]:
    """Two recording matchmaking stand-ins: each replica delivers its results to its own."""
    running = [serve_recording_matchmaking() for _ in range(2)]
    yield running
    for receiver in running:
        receiver.server.stop(0)


@pytest.fixture
def writer(database_url: str, fresh_schema: str) -> Iterator[EventStore]:
    """The engine's store on the replicas' schema, outside any replica: its rows wake no
    poster, so every poster finds them by polling, as rows another replica left."""
    store = EventStore.open(database_url, fresh_schema, shard_count=SHARDS)
    yield store
    store.close()


def write_results(store: EventStore, match_ids: list[str]) -> None:
    """A match row and its result in the outbox for each id, committed."""
    for match_id in match_ids:
        store.create_match(new_match(match_id))
        payload = matchmaking_pb2.ReportMatchResultRequest(match_id=match_id).SerializeToString()
        store.submit(
            Group(
                match_id,
                events=[EventRow(1, 0, {"type": "x"}, time.time())],
                outbox=[OutboxRow("match_result", match_id, payload)],
            )
        )
    for match_id in match_ids:
        assert store.wait_durable(match_id, 1, timeout=10)


def write_legacy_result(store: EventStore, database_url: str, schema: str, match_id: str) -> None:
    """A result row as the engine wrote it before rows had a shard (shard NULL)."""
    store.create_match(new_match(match_id))
    payload = matchmaking_pb2.ReportMatchResultRequest(match_id=match_id).SerializeToString()
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(
            sql.SQL(
                "INSERT INTO {}.outbox (match_id, kind, key, payload)"
                " VALUES (%s, 'match_result', %s, %s)"
            ).format(sql.Identifier(schema)),
            (match_id, match_id, payload),
        )


def delivered(store: EventStore, match_ids: list[str]) -> bool:
    return all(row["delivered"] for m in match_ids for row in store.outbox_rows(m))


def test_each_row_is_delivered_by_its_shard_s_owner_only(
    start_replica, receivers, writer, database_url, fresh_schema
) -> None:
    replicas = [
        start_replica(name, matchmaking_address=receiver.address)
        for name, receiver in zip(("a", "b"), receivers, strict=True)
    ]
    assert wait_for(lambda: split(replicas), timeout=20)
    match_ids = [f"m-{n}" for n in range(24)]
    legacy = ["m-legacy-1", "m-legacy-2"]
    for match_id in legacy:
        write_legacy_result(writer, database_url, fresh_schema, match_id)
    write_results(writer, match_ids)
    assert {shard_of(m, SHARDS) for m in match_ids} & replicas[0].engine.host.shards
    assert {shard_of(m, SHARDS) for m in match_ids} & replicas[1].engine.host.shards
    assert wait_for(lambda: delivered(writer, match_ids + legacy), timeout=20)
    for replica, receiver in zip(replicas, receivers, strict=True):
        shards = replica.engine.host.shards
        mine = {m for m in match_ids if shard_of(m, SHARDS) in shards}
        mine |= set(legacy) if 0 in shards else set()  # rows without a shard: shard 0's
        assert set(receiver.servicer.results) == mine
        assert receiver.servicer.calls == len(mine)  # each delivered once
    assert all(row["shard"] is None for m in legacy for row in writer.outbox_rows(m))


@pytest.mark.slow
def test_a_killed_replica_s_pending_rows_are_delivered_by_the_taker(
    start_replica, receivers, writer, database_url, fresh_schema, tmp_path
) -> None:
    # The victim has no receiver for match results: its rows wait in the outbox.
    env = engine_env(database_url, fresh_schema, HEBEI_TABLE_REPLICA_ID="victim")
    victim = EngineProcess(env, tmp_path / "victim.log")
    victim.start()
    try:
        survivor = start_replica("survivor", matchmaking_address=receivers[0].address)
        results = receivers[0].servicer.results
        assert wait_for(lambda: len(survivor.engine.host.shards) == SHARDS // 2, timeout=20)
        ours = survivor.engine.host.shards
        match_ids = [f"m-{n}" for n in range(24)]
        write_results(writer, match_ids)
        theirs = [m for m in match_ids if shard_of(m, SHARDS) not in ours]
        assert theirs and len(theirs) < len(match_ids)
        assert wait_for(lambda: delivered(writer, sorted(set(match_ids) - set(theirs))), 20)
        time.sleep(2.5)  # more than two polls of the survivor's poster
        assert set(results) == set(match_ids) - set(theirs)  # not the victim's rows
        assert not any(row["delivered"] for m in theirs for row in writer.outbox_rows(m))
        victim.kill()
        killed_at = time.monotonic()
        assert wait_for(lambda: set(results) == set(match_ids), TAKEOVER_LIMIT + 5, step=0.01)
        elapsed = time.monotonic() - killed_at
    finally:
        victim.stop()
    print(f"the killed replica's {len(theirs)} pending rows delivered after {elapsed:.2f} s")
    assert elapsed < TAKEOVER_LIMIT + 1  # the takeover, then one pass of the poster
    assert receivers[0].servicer.calls == len(match_ids)  # each delivered once
