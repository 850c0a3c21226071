"""The SQL of ownership, qualified by the schema that holds its tables, and the migration that
creates them (``migrations/NNNN_*.sql``, applied with :func:`hebei.common.db.migrate`).

Every statement names its tables as ``<schema>.<table>``, so it runs on any connection whatever
its search_path (a service's pool, a replica's lock session, a reader's own connection).
"""

from __future__ import annotations

from dataclasses import dataclass

from psycopg import sql

from hebei.common.db import migrate, validate_schema_name

__all__ = ["MIGRATIONS", "OWNERSHIP_SUFFIX", "Statements", "install", "ownership_schema"]

MIGRATIONS = "hebei.common.ownership.migrations"
OWNERSHIP_SUFFIX = "_ownership"


def ownership_schema(service_schema: str) -> str:
    """The schema holding the ownership tables of a service whose own tables are in
    ``service_schema``: ``<service_schema>_ownership`` (one migration history per schema, so
    they never share the service's). ValueError when either name is not a valid schema name
    (a service schema of at most 53 characters); services check it with their configuration."""
    validate_schema_name(service_schema)
    return validate_schema_name(f"{service_schema}{OWNERSHIP_SUFFIX}")


def install(url: str, schema: str) -> list[int]:
    """Create or update the ownership tables in ``schema`` (idempotent, safe for replicas
    starting together); the versions applied now."""
    return migrate(url, validate_schema_name(schema), MIGRATIONS)


_TEXTS = {
    # the lock session
    "lock": "SELECT pg_try_advisory_lock(%s)",
    "unlock": "SELECT count(*) FILTER (WHERE pg_advisory_unlock(k)) FROM unnest(%s::bigint[]) AS k",
    "unlock_all": "SELECT pg_advisory_unlock_all()",
    "shard_counts": "SELECT DISTINCT shard_count FROM {s}.live_replicas"
    " WHERE service = %s AND replica_id <> %s",
    "register": "INSERT INTO {s}.replicas"
    " (service, replica_id, address, shard_count, backend_pid, lock_key)"
    " VALUES (%s, %s, %s, %s, pg_backend_pid(), %s)"
    " ON CONFLICT (service, replica_id) DO UPDATE SET address = EXCLUDED.address,"
    " shard_count = EXCLUDED.shard_count, backend_pid = EXCLUDED.backend_pid,"
    " lock_key = EXCLUDED.lock_key, started_at = now(), heartbeat_at = now()",
    "heartbeat": "UPDATE {s}.replicas SET heartbeat_at = now()"
    " WHERE service = %s AND replica_id = %s AND backend_pid = pg_backend_pid() RETURNING 1",
    "unregister": "DELETE FROM {s}.replicas"
    " WHERE service = %s AND replica_id = %s AND backend_pid = pg_backend_pid()",
    "live_ids": "SELECT replica_id FROM {s}.live_replicas WHERE service = %s ORDER BY replica_id",
    "free_shards": "SELECT t.shard FROM unnest(%s::integer[], %s::bigint[]) AS t(shard, lock_key)"
    " WHERE NOT EXISTS (SELECT 1 FROM {s}.advisory_locks_held h WHERE h.lock_key = t.lock_key)",
    # (xmax <> 0): the row was there already, left by a holder that did not release cleanly
    "own_shard": "INSERT INTO {s}.shard_owners"
    " (service, shard, replica_id, address, backend_pid, lock_key, serving_after)"
    " VALUES (%(service)s, %(name)s, %(replica)s, %(address)s, pg_backend_pid(), %(lock)s, now())"
    " ON CONFLICT (service, shard) DO UPDATE SET replica_id = EXCLUDED.replica_id,"
    " address = EXCLUDED.address, backend_pid = EXCLUDED.backend_pid,"
    " lock_key = EXCLUDED.lock_key, acquired_at = now(),"
    " serving_after = now() + make_interval(secs => %(grace)s)"
    " RETURNING (xmax <> 0)",
    "disown_shards": "DELETE FROM {s}.shard_owners"
    " WHERE service = %s AND shard = ANY(%s) AND backend_pid = pg_backend_pid()",
    # the shards a replica holds that it took from a holder that did not release them (the row
    # was replaced: serving_after is the grace after acquired_at)
    "shards_taken_over": "SELECT shard FROM {s}.shard_owners"
    " WHERE service = %s AND replica_id = %s AND shard = ANY(%s)"
    " AND serving_after > acquired_at ORDER BY shard",
    "own_lease": "INSERT INTO {s}.leases"
    " (service, key, replica_id, address, backend_pid, lock_key, serving_after)"
    " VALUES (%(service)s, %(name)s, %(replica)s, %(address)s, pg_backend_pid(), %(lock)s, now())"
    " ON CONFLICT (service, key) DO UPDATE SET replica_id = EXCLUDED.replica_id,"
    " address = EXCLUDED.address, backend_pid = EXCLUDED.backend_pid,"
    " lock_key = EXCLUDED.lock_key, acquired_at = now(),"
    " serving_after = now() + make_interval(secs => %(grace)s)"
    " RETURNING (xmax <> 0)",
    "disown_leases": "DELETE FROM {s}.leases"
    " WHERE service = %s AND key = ANY(%s) AND backend_pid = pg_backend_pid()",
    # readers
    "replicas": "SELECT replica_id, address, shard_count, started_at, heartbeat_at"
    " FROM {s}.live_replicas WHERE service = %s ORDER BY replica_id",
    "replica": "SELECT replica_id, address, shard_count, started_at, heartbeat_at"
    " FROM {s}.live_replicas WHERE service = %s AND replica_id = %s",
    "shard_owner": "SELECT shard, replica_id, address, acquired_at, serving_after <= now()"
    " FROM {s}.live_shard_owners WHERE service = %s AND shard = %s",
    "shard_owners": "SELECT shard, replica_id, address, acquired_at, serving_after <= now()"
    " FROM {s}.live_shard_owners WHERE service = %s ORDER BY shard",
    "lease_owner": "SELECT key, replica_id, address, acquired_at, serving_after <= now()"
    " FROM {s}.live_leases WHERE service = %s AND key = %s",
}


@dataclass(frozen=True)
class Statements:
    """The statements for one schema, composed once (``Statements.for_schema(schema).lock``)."""

    texts: dict[str, sql.Composed]

    @classmethod
    def for_schema(cls, schema: str) -> Statements:
        name = sql.Identifier(validate_schema_name(schema))
        return cls({key: sql.SQL(text).format(s=name) for key, text in _TEXTS.items()})

    def __getattr__(self, key: str) -> sql.Composed:
        try:
            return self.texts[key]
        except KeyError:
            raise AttributeError(key) from None
