"""Which matches this engine replica serves (issue 46): N replicas share the matches through
:mod:`hebei.common.ownership`, always on (one replica alone simply holds all the shards).

A match belongs to shard ``shard_of(match_id, shard_count)``; each replica holds a fair share
of the shards by advisory locks on a PostgreSQL session of its own. The ownership tables live in
the schema ``<engine schema>_ownership`` (:func:`hebei.common.ownership.ownership_schema`,
installed by the engine with :func:`hebei.common.ownership.install`, as matchmaking does); the
advisory locks keep the keys of the engine's schema name (``lock_scope``), those they had while
the tables lived in the engine's own schema (migrations 0005, dropped by 0006), so replicas of
both layouts exclude each other during an upgrade. :class:`MatchOwnership` wires the replica's
callbacks to the :class:`~hebei.table.host.TableHost`:

- shards acquired: served at once (:meth:`TableHost.serve_shards`), then their unfinished
  matches resumed from the log on a thread of their own (never the replica's beat thread),
  exactly as after a crash: seats have ``rejoin_seconds`` to come back, clocks held meanwhile;
  a shard whose holder died (its row was still there: served after the takeover grace) counts
  as a takeover;
- shards released (a rebalance, a clean stop, the start of a drain): their tables are
  suspended, their logs flushed, then dropped; streams end with :class:`NotServed`. A shard
  whose log could not be flushed in time is reported unclean: its next holder waits the
  takeover grace (see :mod:`hebei.common.ownership.replica`), the others serve it at once;
- shards lost (the session ended or could not be confirmed in time): the store refuses their
  groups at once, their streams end with :class:`NotServed`, their tables leave memory, all
  before the callback returns. The log's ``(match_id, seq)`` key stays the last fence.

:meth:`MatchOwnership.owner` names a match's owner for the refusal of a call this replica does
not serve (:func:`hebei.common.routing.abort_not_owner_async`), read from the
:class:`~hebei.common.ownership.Directory` and kept :data:`OWNER_CACHE_SECONDS` per shard.

Settings (``HEBEI_TABLE_*``): ``REPLICA_ID`` (default ``table-<host name>-<port>``: stable
across a restart on the same port; with port 0 a random suffix), ``ADVERTISE_ADDRESS`` (the
address clients reach this replica at; default the listen host and port, the host name when
listening on every interface), ``SHARD_COUNT`` (64; 1 to 1024, the same on every replica: a
replica with another count is refused at start).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import psycopg

from hebei.common.errors import Unavailable
from hebei.common.ownership import (
    Directory,
    Holder,
    Replica,
    ReplicaInfo,
    Timings,
    fair_share,
    install,
    ownership_schema,
    shard_of,
)
from hebei.common.ownership.shards import validate_shard_count
from hebei.table import metrics

# The rest of the engine reaches the ownership machinery through this module only (an import
# contract): it re-exports what they need of it.
__all__ = [
    "OWNER_CACHE_SECONDS",
    "SERVICE",
    "MatchOwnership",
    "NotServed",
    "OwnershipSettings",
    "install",
    "ownership_schema",
    "shard_of",
    "validate_shard_count",
]

log = logging.getLogger(__name__)

SERVICE = "table"  # the service name of the engine's replicas in the ownership tables
OWNER_CACHE_SECONDS = 0.5  # a shard's serving owner is looked up again after this long


class NotServed(Unavailable):
    """This replica does not serve the match (any more): the call or the stream ends with the
    routing refusal naming the match's owner (UNAVAILABLE: clients try again, elsewhere)."""

    def __init__(self, match_id: str) -> None:
        super().__init__(f"match {match_id} is being taken over; try again")
        self.match_id = match_id


@dataclass(frozen=True, slots=True)
class OwnershipSettings:
    """Who this replica is and how the matches are shared."""

    replica_id: str
    address: str
    shard_count: int = 64
    timings: Timings = field(default_factory=Timings)


ShardsCall = Callable[[frozenset[int]], Any]
ReleaseCall = Callable[[frozenset[int]], frozenset[int]]


class MatchOwnership:
    """This replica's share of the matches (see the module docstring)."""

    def __init__(
        self,
        url: str,
        *,
        schema: str,
        settings: OwnershipSettings,
        connect: Callable[[], Any],
        serve: ShardsCall,
        resume: Callable[[frozenset[int], str], Any],
        release: ReleaseCall,
        lose: ShardsCall,
    ) -> None:
        """``schema``: the engine's (its ownership tables are in ``ownership_schema(schema)``,
        installed by the caller); ``connect``: the engine's pool's connections (reads);
        ``serve``, ``resume``, ``release`` (returns the shards not released cleanly), ``lose``:
        the host's (see :class:`~hebei.table.host.TableHost`)."""
        self.settings = settings
        self.schema = ownership_schema(schema)
        self._serve, self._resume = serve, resume
        self._resumer = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="table-resume")
        self.replica = Replica(
            url,
            schema=self.schema,
            lock_scope=schema,
            service=SERVICE,
            replica_id=settings.replica_id,
            address=settings.address,
            shard_count=settings.shard_count,
            timings=settings.timings,
            on_shards_acquired=self._acquired,
            on_shards_released=release,
            on_shards_lost=lose,
        )
        self.directory = Directory(
            connect, schema=self.schema, service=SERVICE, shard_count=settings.shard_count
        )
        self._owners: dict[int, tuple[float, Holder]] = {}
        self._owners_lock = threading.Lock()

    @property
    def replica_id(self) -> str:
        return self.settings.replica_id

    # ------------------------------------------------------------------ life cycle

    def start(self, settle_seconds: float | None = None) -> MatchOwnership:
        """Register and take this replica's share; wait (at most ``settle_seconds``, default
        the takeover bound plus 2 s) until it serves its fair share and has resumed their
        matches, so that a lone replica serves every match when this returns."""
        self.replica.start()
        timings = self.settings.timings
        wait = timings.takeover_bound_seconds + 2.0 if settle_seconds is None else settle_seconds
        if not self.wait_settled(wait):
            log.warning(
                "replica %s serves %d shards %.1f s after its start (not its fair share yet)",
                self.replica_id,
                len(self.replica.shards()),
                wait,
            )
        return self

    def wait_settled(self, timeout: float) -> bool:
        """Wait until this replica serves its fair share of the shards (among the live
        replicas) and its queued resumptions are done; whether it did within ``timeout``."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                live = [r.replica_id for r in self.directory.live_replicas()]
                settled = self.replica_id in live and len(self.replica.shards()) >= fair_share(
                    self.settings.shard_count, live, self.replica_id
                )
            except psycopg.Error:
                settled = False
            if settled:
                left = max(0.0, deadline - time.monotonic())
                try:
                    self._resumer.submit(lambda: None).result(timeout=left)
                except concurrent.futures.TimeoutError:
                    return False
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.05)

    def stop(self) -> None:
        """Release every shard (their tables suspended and flushed first) and leave; once
        (a second call does nothing)."""
        self.replica.stop()
        self._resumer.shutdown(wait=True, cancel_futures=True)

    # ------------------------------------------------------------------ reading

    def owns(self, match_id: str) -> bool:
        """Whether this replica serves ``match_id`` now (no from the moment a loss is
        detected)."""
        return self.replica.owns_key(match_id)

    def owner(self, match_id: str) -> Holder | None:
        """Who serves ``match_id`` (None: nobody now, or the directory cannot say, or this
        replica while it lets the shard go: a refusal never names the replica that refuses):
        a serving owner is kept :data:`OWNER_CACHE_SECONDS` per shard (at most
        ``shard_count``)."""
        shard = shard_of(match_id, self.settings.shard_count)
        now = time.monotonic()
        with self._owners_lock:
            cached = self._owners.get(shard)
        if cached is not None and cached[0] > now:
            return cached[1]
        try:
            holder = self.directory.shard_owner(shard)
        except psycopg.Error as error:
            log.warning("the owner of shard %d cannot be read: %s", shard, error)
            return None
        if holder is None or holder.replica_id == self.replica_id:
            return None
        if holder.serving:
            with self._owners_lock:
                self._owners[shard] = (now + OWNER_CACHE_SECONDS, holder)
        return holder

    def peers(self) -> list[ReplicaInfo]:
        """The other live replicas."""
        return [r for r in self.directory.live_replicas() if r.replica_id != self.replica_id]

    def has_peers(self) -> bool:
        """Whether another replica is live (False when the directory cannot say)."""
        try:
            return bool(self.peers())
        except psycopg.Error as error:
            log.warning("the other replicas cannot be read: %s", error)
            return False

    # ------------------------------------------------------------------ callbacks

    def _acquired(self, shards: frozenset[int]) -> None:
        """Serve at once; resume their matches on the resumer thread (the replica's beat
        thread must not wait on the log)."""
        self._serve(shards)
        with self._owners_lock:
            for shard in shards:
                self._owners.pop(shard, None)
        with contextlib.suppress(RuntimeError):  # stopping: nothing more is resumed
            self._resumer.submit(self._resume_acquired, shards)

    def _resume_acquired(self, shards: frozenset[int]) -> None:
        try:
            self._resume_shards(shards)
        except Exception:
            log.exception("replica %s: resuming %d shards failed", self.replica_id, len(shards))

    def _resume_shards(self, shards: frozenset[int]) -> None:
        try:
            taken = self.directory.shards_taken_over(self.replica_id, shards)
        except psycopg.Error as error:
            log.warning("cannot tell which shards were taken over: %s", error)
            taken = frozenset()
        if taken:
            metrics.TAKEOVERS.inc(len(taken))
            log.warning("replica %s took over %d shards", self.replica_id, len(taken))
            self._resume(taken, "takeover")
        if shards - taken:
            self._resume(shards - taken, "handover")
