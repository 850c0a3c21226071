"""Ownership of work shared by a service's replicas, held in PostgreSQL (issue 46's groundwork):
a replica registry, a fair share of a fixed number of shards per replica, and leases on single
keys, every one an advisory lock on the replica's own session; no consensus of our own.

- :mod:`.shards` (pure): ``shard_of(key, count)``, ``fair_share``, the lock keys.
- :mod:`.timings` (pure): every duration and the bounds derived from them (takeover ≈ 3.6 s).
- :mod:`.session`: the replica's dedicated connection, keepalives and the validity of its locks.
- :mod:`.replica`: :class:`Replica`, the beat and watch threads, rebalancing, leases, callbacks.
- :mod:`.directory`: :class:`Directory`, who is live and who owns a shard, key or lease.
- :mod:`.statements`: the SQL, :func:`install` (the migration of the tables into a schema) and
  :func:`ownership_schema`, the one place that names a service's ownership schema.

A service keeps its ownership tables in a schema of their own, ``<its schema>_ownership``
(the table engine's ``table_engine_ownership``, matchmaking's ``matchmaking_ownership``). Use::

    schema = ownership_schema("table_engine")
    install(url, schema)
    replica = Replica(url, schema=schema, service="table", replica_id="table-0",
                      address="10.0.0.5:50051", on_shards_acquired=..., on_shards_released=...,
                      on_shards_lost=...).start()
    replica.owns_key(match_id)       # serve it?
    Directory(pool.connection, schema=schema, service="table").key_owner(match_id)
"""

from hebei.common.ownership.directory import Directory, Holder, ReplicaInfo
from hebei.common.ownership.replica import (
    LeaseLimitReached,
    OwnershipError,
    OwnershipUnavailable,
    Replica,
    ReplicaIdInUse,
    ShardCountMismatch,
)
from hebei.common.ownership.shards import fair_share, shard_of
from hebei.common.ownership.statements import install, ownership_schema
from hebei.common.ownership.timings import Timings

__all__ = [
    "Directory",
    "Holder",
    "LeaseLimitReached",
    "OwnershipError",
    "OwnershipUnavailable",
    "Replica",
    "ReplicaIdInUse",
    "ReplicaInfo",
    "ShardCountMismatch",
    "Timings",
    "fair_share",
    "install",
    "ownership_schema",
    "shard_of",
]
