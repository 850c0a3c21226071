"""Who is live and who owns what, for anyone (a client routing a call, a servicer naming the
owner in its error, an operator): read-only queries on the ownership tables.

Every answer comes from the ``live_*`` views, which keep a row only while its advisory lock is
held by the backend that wrote it (``pg_locks``): a row left by a replica that died is never
returned, so a reader never routes to a dead address. A shard or lease in the middle of a
takeover has no owner for a moment (``None``), or an owner whose ``serving`` is False until its
grace passes: callers retry shortly (UNAVAILABLE, say).

``connect`` is anything that gives a connection as a context manager: a psycopg_pool pool's
``pool.connection``, or ``lambda: psycopg.connect(url)``. One statement per call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg

from hebei.common.ownership.shards import (
    shard_of,
    validate_key,
    validate_shard,
    validate_shard_count,
)
from hebei.common.ownership.statements import Statements

__all__ = ["Directory", "Holder", "ReplicaInfo"]

Connect = Callable[[], AbstractContextManager[psycopg.Connection[Any]]]


@dataclass(frozen=True)
class ReplicaInfo:
    """A live replica of a service."""

    replica_id: str
    address: str
    shard_count: int
    started_at: datetime
    heartbeat_at: datetime


@dataclass(frozen=True)
class Holder:
    """Who holds a shard or a lease (``name``: the shard number or the lease key)."""

    name: int | str
    replica_id: str
    address: str
    acquired_at: datetime
    serving: bool  # False during the takeover grace: it holds the lock, serves soon


class Directory:
    """Read the registry and the owners of ``service``'s shards and leases in ``schema``."""

    def __init__(
        self, connect: Connect, *, schema: str, service: str, shard_count: int = 64
    ) -> None:
        self._connect = connect
        self._sql = Statements.for_schema(schema)
        self.service = validate_key(service, "service name")
        self.shard_count = validate_shard_count(shard_count, allow_zero=True)

    def _rows(self, query: Any, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        with self._connect() as conn:
            return conn.execute(query, params).fetchall()

    def live_replicas(self) -> list[ReplicaInfo]:
        """The live replicas, by replica id."""
        return [ReplicaInfo(*row) for row in self._rows(self._sql.replicas, (self.service,))]

    def replica_address(self, replica_id: str) -> str | None:
        """The address of ``replica_id`` while it is live, else None."""
        rows = self._rows(self._sql.replica, (self.service, validate_key(replica_id, "replica id")))
        return rows[0][1] if rows else None

    def shard_owner(self, shard: int) -> Holder | None:
        """The holder of ``shard`` now, or None (nobody, or in the middle of a takeover)."""
        validate_shard(shard, self.shard_count)
        rows = self._rows(self._sql.shard_owner, (self.service, shard))
        return Holder(*rows[0]) if rows else None

    def shard_owners(self) -> dict[int, Holder]:
        """Every held shard's holder."""
        return {row[0]: Holder(*row) for row in self._rows(self._sql.shard_owners, (self.service,))}

    def key_owner(self, key: str) -> Holder | None:
        """The holder of the shard of ``key`` (a match id, say)."""
        return self.shard_owner(shard_of(key, self.shard_count))

    def shards_taken_over(self, replica_id: str, shards: Iterable[int]) -> frozenset[int]:
        """Which of ``shards`` ``replica_id`` holds after taking them from a holder that did
        not release them (it died or lost its session: they were served after the grace)."""
        wanted = sorted({validate_shard(shard, self.shard_count) for shard in shards})
        params = (self.service, validate_key(replica_id, "replica id"), wanted)
        return frozenset(row[0] for row in self._rows(self._sql.shards_taken_over, params))

    def lease_owner(self, key: str) -> Holder | None:
        """The holder of the lease on ``key``, or None."""
        rows = self._rows(self._sql.lease_owner, (self.service, validate_key(key, "lease key")))
        return Holder(*rows[0]) if rows else None
