"""An engine replica hands its matches over (issue 46): its ownership tables in the schema of
their own (``<schema>_ownership``) also when its schema was made with them inside (migration
0005), and at the start of its drain on SIGTERM, not after it: a peer serves its matches within
about a beat, seats follow, nothing is auto-played, the logs run on. The handover time is
printed."""

from __future__ import annotations

import shutil
from importlib import resources
from pathlib import Path

import psycopg
from psycopg import sql

from hebei.common.db import load_migrations, migrate
from hebei.common.ownership import Directory, Replica, ownership_schema
from hebei.v1 import matchmaking_pb2
from tests.integration.table.conftest import OPERATOR, new_match_request
from tests.integration.table.helpers import wait_for
from tests.integration.table.test_replicas import (
    SHARDS,
    address_of,
    split,
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
