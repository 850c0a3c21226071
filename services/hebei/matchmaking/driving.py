"""Which tournaments this matchmaking replica drives (issue 46): one lease per tournament, and
one keyed ``quickplay`` for the quick-play matches, held by a
:class:`hebei.common.ownership.Replica` of service ``matchmaking`` (advisory locks on a
session of its own; no shards).

Every replica serves the RPCs; the driving (seating rounds, opening and following matches,
settling them, closing rounds, starting scheduled events, the quick-play matches) is done for
each key by the replica holding its lease. Each director pass calls :meth:`Driving.claim` with
the keys that have work: it releases the keys whose work is over, gives up what is above its
fair share (``ceil(keys / live replicas)``, :meth:`Directory.live_replicas`, so two replicas
split the work; ``quickplay`` is never given up for balance, only at a stop) and tries free keys
below it, in an order of its own (a rendezvous hash of key and replica id, so replicas starting
together prefer different keys). A key whose holder died is served only after the ownership
grace (:attr:`Timings.takeover_grace_seconds`): by then the dead holder has declared the loss.

Quick play: its queue needs no driver. A QuickPlay stream waits on the replica it reached, and
that replica seats its own waiting people (the cap on live quick-play tables is counted in the
store under a transaction lock, so it holds across replicas; people waiting on two replicas
are not seated together). The quick-play matches once stored (following them, settling them,
dissolving a stalled one) are driven like a tournament's, by the holder of the ``quickplay``
lease: taken by whichever replica finds it free, not counted in the fair share, never handed
over for balance; the replica that takes it makes the quick-play tables left by a replica that
died due to be dissolved (:meth:`hebei.matchmaking.quickplay.QuickPlay.resume_left`: the
engine keeps those a person joined or that started).

A lost lease (the session failed or was ended by the server) makes :meth:`drives` say no at
once, before ``on_leases_lost`` runs; the director asks :meth:`drives` before each step and
calls :meth:`fence` inside each driving transaction, after locking the tournament's row, so
nothing is written on behalf of a lost tournament once the loss is detected. A write already
past its fence is safe by the store's own keys and checks under the row locks (see
:mod:`hebei.matchmaking.director`).
"""

from __future__ import annotations

import hashlib
import logging
import math
import threading
import time
from collections.abc import Callable, Iterable

from hebei.common.errors import FailedPrecondition
from hebei.common.ownership import Directory, Replica
from hebei.common.ownership.directory import Connect
from hebei.matchmaking import metrics

__all__ = [
    "QUICK_PLAY",
    "SERVICE",
    "Driving",
    "LeaseLost",
    "key_of",
]

log = logging.getLogger(__name__)

SERVICE = "matchmaking"
QUICK_PLAY = "quickplay"  # the lease on the quick-play matches (tournament_id "")
LIVE_SECONDS = 1.0  # the live replicas are read at most this often


class LeaseLost(FailedPrecondition):
    """This replica does not (or no longer) hold the lease of what it was about to write."""


def key_of(tournament_id: str) -> str:
    """The lease key of a match's tournament (``""``: quick play)."""
    return tournament_id or QUICK_PLAY


def preference(key: str, replica_id: str) -> int:
    """The rendezvous score of ``key`` for ``replica_id`` (higher: claimed first, kept last)."""
    digest = hashlib.blake2b(f"{key}\x00{replica_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def fair_target(keys: int, replicas: int) -> int:
    """How many of ``keys`` one of ``replicas`` live replicas drives at most."""
    return math.ceil(keys / max(1, replicas))


class Driving:
    """The leases of one replica (see the module docstring). ``on_lost(keys)`` runs on the
    ownership's thread when leases are lost (after :meth:`drives` already says no)."""

    def __init__(
        self,
        replica: Replica,
        directory: Directory,
        *,
        on_lost: Callable[[frozenset[str]], None] | None = None,
    ) -> None:
        self.replica = replica
        self.directory = directory
        self._on_lost = on_lost
        self._live: tuple[str, ...] = ()  # the live replicas' ids, as last read
        self._live_read = -math.inf
        self._claimed_with: tuple[str, ...] = ()  # ... as the last claim saw them
        self.retry_soon = False  # the last claim left a free key, or one in its grace, untaken
        self._lock = threading.Lock()
        self._driven: set[str] = set()  # keys driven after the last claim

    @classmethod
    def create(
        cls,
        url: str,
        *,
        schema: str,
        replica_id: str,
        address: str,
        connect: Connect,
        timings=None,
        on_lost: Callable[[frozenset[str]], None] | None = None,
    ) -> Driving:
        """A replica of service ``matchmaking`` whose ownership tables live in ``schema``."""
        holder: list[Driving] = []
        replica = Replica(
            url,
            schema=schema,
            service=SERVICE,
            replica_id=replica_id,
            address=address,
            shard_count=0,
            timings=timings,
            max_leases=65536,
            on_leases_lost=lambda keys: holder[0].lost(keys),
            on_leases_released=lambda keys: holder[0].released(keys),
        )
        directory = Directory(connect, schema=schema, service=SERVICE, shard_count=0)
        driving = cls(replica, directory, on_lost=on_lost)
        holder.append(driving)
        return driving

    # -- life cycle ----------------------------------------------------------------------------

    def start(self) -> Driving:
        self.replica.start()
        return self

    def stop(self) -> None:
        """Release every lease (``quickplay`` too) and leave the registry."""
        self.replica.stop()
        metrics.TOURNAMENTS_DRIVEN.set(0)

    # -- the ownership's callbacks ---------------------------------------------------------------

    def lost(self, keys: frozenset[str]) -> None:
        with self._lock:
            self._driven -= keys
        metrics.LEASES_LOST.inc(len(keys))
        metrics.TOURNAMENTS_DRIVEN.set(len(self._driven - {QUICK_PLAY}))
        log.warning("replica %s lost the lease of %s", self.replica.replica_id, sorted(keys))
        if self._on_lost is not None:
            self._on_lost(keys)

    def released(self, keys: frozenset[str]) -> None:
        with self._lock:
            self._driven -= keys

    # -- what it drives --------------------------------------------------------------------------

    def drives(self, key: str) -> bool:
        """Whether this replica may act for ``key`` now (a tournament id, or ``quickplay``)."""
        return self.replica.holds(key)

    def fence(self, key: str) -> None:
        """Raise :class:`LeaseLost` unless this replica holds ``key``'s lease now (called in a
        driving transaction after its row locks: the write is rolled back)."""
        if not self.replica.holds(key):
            raise LeaseLost(f"this replica no longer drives {key}")

    def live_replicas(self) -> tuple[str, ...]:
        """The ids of the live replicas of matchmaking (read at most every LIVE_SECONDS; while
        the database cannot be read, the last ones read)."""
        if time.monotonic() - self._live_read >= LIVE_SECONDS:
            self._live_read = time.monotonic()
            try:
                self._live = tuple(r.replica_id for r in self.directory.live_replicas())
            except Exception as error:
                log.warning("cannot read the live replicas: %s", error)
        return self._live

    def live_changed(self) -> bool:
        """Whether a replica came or went since the last :meth:`claim` (a share to take or
        give up: the director passes at once)."""
        return self.live_replicas() != self._claimed_with

    def claim(self, wanted: Iterable[str]) -> tuple[frozenset[str], frozenset[str]]:
        """Hold a fair share of the tournaments in ``wanted`` (the keys with work), the
        quick-play lease when it is free, and nothing else; return what this replica drives
        now and what it began to drive on this call."""
        wanted = set(wanted)
        replica = self.replica
        me = replica.replica_id
        with self._lock:
            before = set(self._driven)
        for key in replica.held() - wanted:  # its work is over
            replica.release(key)
        held = set(replica.held()) & wanted
        self._claimed_with = live = self.live_replicas()
        tournaments = wanted - {QUICK_PLAY}
        target = fair_target(len(tournaments), len(live))
        mine = sorted(held & tournaments, key=lambda k: preference(k, me))
        for key in mine[: max(0, len(mine) - target)]:
            replica.release(key)
            held.discard(key)
            log.info("replica %s hands %s over (its fair share: %d)", me, key, target)
        untaken = []
        candidates = sorted(tournaments - held, key=lambda k: preference(k, me), reverse=True)
        if QUICK_PLAY in wanted - held:
            candidates.insert(0, QUICK_PLAY)  # never counted in the share, never handed over
        for key in candidates:
            if key != QUICK_PLAY and len(held & tournaments) >= target:
                break
            if replica.try_claim(key):
                held.add(key)
            else:
                untaken.append(key)
        self.retry_soon = any(self._claimable(key) for key in untaken)
        held &= set(replica.held())  # a loss meanwhile
        with self._lock:
            self._driven = set(held)
        metrics.TOURNAMENTS_DRIVEN.set(len(held - {QUICK_PLAY}))
        return frozenset(held), frozenset(held - before)

    def _claimable(self, key: str) -> bool:
        """A key not taken on this claim that may be soon: nobody holds it (its holder just
        released it or died), or this replica does and waits for the takeover grace."""
        try:
            holder = self.directory.lease_owner(key)
        except Exception:
            return True
        return holder is None or holder.replica_id == self.replica.replica_id
