"""An engine replica hands its matches over (issue 46): its ownership tables in the schema of
their own (``<schema>_ownership``) also when its schema was made with them inside (migration
0005), and at the start of its drain on SIGTERM, not after it: a peer serves its matches within
about a beat, seats follow, nothing is auto-played, the logs run on. The handover time is
printed."""

from __future__ import annotations

import shutil
import threading
import time
from importlib import resources
from pathlib import Path

import grpc
import psycopg
import pytest
from psycopg import sql

from hebei.common.db import load_migrations, migrate
from hebei.common.ownership import Directory, Replica, Timings, ownership_schema, shard_of
from hebei.rules.replay import replay_match
from hebei.table import metrics
from hebei.v1 import matchmaking_pb2, table_pb2, table_pb2_grpc
from hebei.v1 import types_pb2 as pb
from tests.integration.table.conftest import LOG_KEY, OPERATOR, new_match_request
from tests.integration.table.helpers import (
    EngineProcess,
    replica_env,
    rules_events,
    shards_served_by,
    wait_for,
)
from tests.integration.table.test_replicas import (
    SHARDS,
    FollowingSeat,
    address_of,
    check_log,
    counter,
    split,
    stored_rows,
)

OLD_OWNERSHIP = (  # what migration 0005 made in the engine's schema, views first
    "live_leases", "live_shard_owners", "live_replicas", "advisory_locks_held",
    "leases", "shard_owners", "replicas",
)  # fmt: skip


def migrate_through(database_url: str, schema: str, last: int, folder: Path) -> None:
    """Migrate ``schema`` with the engine's migrations up to ``last`` only (as an engine of that
    time did): a package of copies of those files, under ``folder``."""
    package = folder / f"engine_through_{last:04d}"
    package.mkdir()
    (package / "__init__.py").write_text("")
    source = resources.files("hebei.table.migrations")
    for migration in load_migrations("hebei.table.migrations"):
        if migration.version <= last:
            name = f"{migration.version:04d}_{migration.name}.sql"
            with resources.as_file(source / name) as path:
                shutil.copyfile(path, package / name)
    migrate(database_url, schema, package.name)


def relation_exists(database_url: str, schema: str, name: str) -> bool:
    with psycopg.connect(database_url) as conn:
        found = conn.execute("SELECT to_regclass(%s)", (f"{schema}.{name}",)).fetchone()
    return found[0] is not None


def test_an_engine_schema_of_the_old_layout_moves_its_ownership_and_replicas_share(
    start_replica, database_url, fresh_schema, matchmaking, tmp_path, monkeypatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    migrate_through(database_url, fresh_schema, 5, tmp_path)
    assert all(relation_exists(database_url, fresh_schema, name) for name in OLD_OWNERSHIP)
    # A finished match whose result waits in the outbox, written before rows had a shard.
    legacy = "m-legacy"
    payload = matchmaking_pb2.ReportMatchResultRequest(match_id=legacy).SerializeToString()
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(fresh_schema)))
        conn.execute(
            "INSERT INTO matches (match_id, table_id, fingerprint, spec, status)"
            " VALUES (%s, 't', 'f', '{}', 'finished')",
            (legacy,),
        )
        conn.execute(
            "INSERT INTO outbox (match_id, kind, key, payload) VALUES (%s, 'match_result', %s, %s)",
            (legacy, legacy, payload),
        )
    # A replica of the old code: its ownership tables (and lock keys) in the engine's schema.
    lost: list[frozenset[int]] = []
    old = Replica(
        database_url, schema=fresh_schema, service="table", replica_id="old", address="old:1",
        on_shards_lost=lost.append,
    ).start()  # fmt: skip
    try:
        assert wait_for(lambda: len(old.shards()) == SHARDS, timeout=10)

        first = start_replica("new-1")  # migrates 0006 (and 0007) while "old" runs
        assert lost == [frozenset(range(SHARDS))]  # it failed its beat, stopped serving first
        assert old.shards() == frozenset()
        assert wait_for(lambda: len(first.engine.host.shards) == SHARDS, timeout=10)
        for name in OLD_OWNERSHIP:
            assert not relation_exists(database_url, fresh_schema, name), name
        directory = Directory(
            lambda: psycopg.connect(database_url), schema=ownership_schema(fresh_schema),
            service="table",
        )  # fmt: skip
        assert [r.replica_id for r in directory.live_replicas()] == ["new-1"]

        # The row written before shards were recorded belongs to shard 0: delivered once.
        assert wait_for(lambda: legacy in matchmaking.servicer.results, timeout=10)
        (row,) = first.engine.store.outbox_rows(legacy)
        assert row["delivered"] and row["shard"] is None and matchmaking.servicer.calls == 1

        second = start_replica("new-2")
        assert wait_for(lambda: split([first, second]), timeout=20)
        assert {r.replica_id for r in directory.live_replicas()} == {"new-1", "new-2"}
        request = new_match_request(hands=1)
        owner = first if first.engine.host.serves(request.match_id) else second
        owner.stub.OpenMatch(request, metadata=OPERATOR, timeout=10)
        assert directory.key_owner(request.match_id).address == address_of(owner)
    finally:
        old.stop()


@pytest.mark.slow
def test_a_drain_hands_the_matches_over_at_its_start(
    start_replica, database_url, fresh_schema, ledger, matchmaking, tmp_path
) -> None:
    bound = Timings().takeover_bound_seconds  # 3.6 s: a death's; a clean handover is faster
    env = replica_env(
        database_url, fresh_schema, "leaving", LOG_KEY.decode(),
        ledger=ledger.address, matchmaking=matchmaking.address,
    )  # fmt: skip
    leaving = EngineProcess(env, tmp_path / "leaving.log")
    leaving.start()
    seats: list[FollowingSeat] = []
    try:
        staying = start_replica("staying", rejoin_seconds=20.0)
        directory = staying.engine.ownership.directory

        def leaving_shards() -> frozenset[int]:
            return shards_served_by(directory, "leaving")

        assert wait_for(lambda: len(leaving_shards()) == SHARDS // 2, timeout=20)
        while True:
            request = new_match_request(hands=2, per_decision=5.0)
            if shard_of(request.match_id, SHARDS) in leaving_shards():
                break
        request.seats[0].kind = pb.SEAT_KIND_PERSON
        match_id = request.match_id
        channel = grpc.insecure_channel(leaving.address)
        stub = table_pb2_grpc.TableServiceStub(channel)
        stub.OpenMatch(request, metadata=OPERATOR, timeout=10)
        addresses = [leaving.address, address_of(staying)]
        seats = [
            FollowingSeat(addresses, match_id, seat, bot=seat != 0).start() for seat in range(4)
        ]

        def playing() -> bool:
            info = stub.GetMatch(table_pb2.GetMatchRequest(match_id=match_id), timeout=5).match
            return info.status == pb.MATCH_STATUS_PLAYING and info.event_count > 10

        assert wait_for(playing, timeout=60, step=0.05)
        channel.close()
        takeovers = counter(metrics.TAKEOVERS)
        handovers = counter(metrics.MATCHES_RESUMED, "handover")
        exited: list[float] = []
        stopped_at = time.monotonic()
        waiter = threading.Thread(target=lambda: exited.append(leaving.terminate(60)))
        waiter.start()  # SIGTERM; the engine drains, then exits by itself
        assert wait_for(
            lambda: (
                staying.engine.host.serves(match_id) and match_id in staying.engine.host._tables
            ),
            timeout=bound + 10,
            step=0.01,
        )
        handover = time.monotonic() - stopped_at
        waiter.join(60)
        drained = time.monotonic() - stopped_at
        print(
            f"drain handover: the match served by the peer {handover:.2f} s after SIGTERM; "
            f"the leaving replica exited after {drained:.2f} s"
        )
        assert exited == [0] and "Traceback" not in leaving.log()
        assert handover < bound  # never the takeover grace of a death
        assert handover < drained
        assert counter(metrics.TAKEOVERS) == takeovers  # released cleanly: no grace waited
        assert counter(metrics.MATCHES_RESUMED, "handover") > handovers
        assert all(seat.finished.wait(120) for seat in seats)
    finally:
        for seat in seats:
            seat.stop()
        leaving.stop()
    events = check_log(staying.engine.store, match_id)
    assert events[-1]["type"] == "match_end"
    machine = [e for e in events if e["type"] == "seat_auto" or e.get("auto")]
    assert not machine, machine[:3]  # nothing played by the machine
    info = staying.stub.GetMatch(table_pb2.GetMatchRequest(match_id=match_id), timeout=10).match
    assert [s.score for s in info.seats] == replay_match(rules_events(events)).scores
    assert len(stored_rows(staying.engine.store, match_id)) == len(events)
