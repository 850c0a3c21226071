"""One replica of a service sharing work with its peers through PostgreSQL: it registers in the
replica registry, holds a fair share of the service's shards and claims leases on single keys,
every one by an advisory lock on its own :class:`~hebei.common.ownership.session.LockSession`.

Threads: the *beat* thread (``own-beat``) beats every ``heartbeat_seconds``: it updates the
replica's registry row, reads the live replicas, serves the shards whose takeover grace passed,
gives up shards above its fair share (calling ``on_shards_released`` first) and tries free ones
below it; when the session is gone it opens a new one and registers again. The *watch* thread
(``own-watch``) looks every ``check_seconds`` at the session: past its validity, or ended by the
server, it declares the loss. Callers' threads use :meth:`Replica.owns`, :meth:`try_claim`,
:meth:`release` and :meth:`held`.

Callbacks, each given a frozenset, run one at a time (never two at once, in the order things
happened) on the beat or the watch thread, or in :meth:`Replica.stop`:

- ``on_shards_acquired(shards)``: start serving them (after the grace, if their previous holder
  did not release them cleanly);
- ``on_shards_released(shards)``: stop serving them; called before their locks are released (a
  rebalance or a clean stop), :meth:`owns` already says no. It may return the shards it could
  not stop cleanly (a write of theirs may still land); any other return value means none;
- ``on_shards_lost(shards)`` / ``on_leases_lost(keys)``: they may be held by another soon; stop
  at once. Called as soon as the loss is detected (a statement on the session failed, the
  server ended it, or ``validity_seconds`` passed since its last confirmed round trip: see
  :mod:`~hebei.common.ownership.timings`), before the replica takes anything again; :meth:`owns`
  and :meth:`held` say no from the moment of detection. A callback that raises is logged.
- ``on_leases_released(keys)``: the leases still held when :meth:`stop` runs.

A clean release hands a shard or lease over without the takeover grace: the holder stopped
(its callback returned), then deleted its owner row, then unlocked, so its next holder finds no
row and serves at once. The grace guards against a previous holder that may still act without
knowing it lost the lock; one that stopped before it let go cannot. So the row is kept (and the
next holder waits the grace, as after a death) for what was not stopped cleanly: the shards the
callback returns, and the shards and leases still in their own grace when released (their
previous holder died, and may not know it yet: the grace it called for is not over).

A callback must not wait for a thread that is calling into this replica. Bounds: at most
``shard_count`` (≤ 1024) shards, ``max_leases`` (≤ 65536, default 256) leases, one connection,
two threads; a beat is 2 statements, plus one per shard tried and 2 per batch released.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from hebei.common.db import validate_schema_name
from hebei.common.ownership.session import LockSession, SessionLost
from hebei.common.ownership.shards import (
    fair_share,
    lock_key,
    shard_of,
    shards_to_release,
    shards_to_try,
    validate_key,
    validate_shard,
    validate_shard_count,
)
from hebei.common.ownership.statements import Statements
from hebei.common.ownership.timings import Timings

__all__ = [
    "LeaseLimitReached",
    "OwnershipError",
    "OwnershipUnavailable",
    "Replica",
    "ReplicaIdInUse",
    "ShardCountMismatch",
]

log = logging.getLogger(__name__)

ShardsCallback = Callable[[frozenset[int]], None]
LeasesCallback = Callable[[frozenset[str]], None]
MAX_LEASES = 65536


class OwnershipError(Exception):
    """A replica could not do what was asked; the message says why."""


class OwnershipUnavailable(OwnershipError):
    """The database could not be reached or failed while the replica registered."""


class ReplicaIdInUse(OwnershipError):
    """Another live process registered the same service and replica id."""


class ShardCountMismatch(OwnershipError):
    """The live replicas of the service use another number of shards."""


class LeaseLimitReached(OwnershipError):
    """The replica already holds (or waits for) ``max_leases`` leases."""


def _ignore(_: frozenset) -> None:
    pass


class Replica:
    """A replica of ``service``: registry entry, fair share of shards, leases; see the module."""

    def __init__(
        self,
        url: str,
        *,
        schema: str,
        service: str,
        replica_id: str,
        address: str,
        shard_count: int = 64,
        timings: Timings | None = None,
        max_leases: int = 256,
        on_shards_acquired: ShardsCallback = _ignore,
        on_shards_released: ShardsCallback = _ignore,
        on_shards_lost: ShardsCallback = _ignore,
        on_leases_lost: LeasesCallback = _ignore,
        on_leases_released: LeasesCallback = _ignore,
        lock_scope: str | None = None,
    ) -> None:
        """``lock_scope``: the name the advisory-lock keys derive from (default ``schema``):
        replicas exclude each other only when they share it. The table engine keeps its own
        schema's name here, the one its locks had while its ownership tables lived in that
        schema, so replicas from before and after the move never hold a shard at once."""
        self.schema = validate_schema_name(schema)
        self.lock_scope = validate_schema_name(lock_scope or schema)
        self.service = validate_key(service, "service name")
        self.replica_id = validate_key(replica_id, "replica id")
        if not isinstance(address, str):
            raise ValueError(f"an address is a string such as 'host:port', got {address!r}")
        self.address = address
        self.shard_count = validate_shard_count(shard_count, allow_zero=True)
        if isinstance(max_leases, bool) or not isinstance(max_leases, int):
            raise ValueError(f"max_leases must be an integer, got {max_leases!r}")
        if not 0 <= max_leases <= MAX_LEASES:
            raise ValueError(f"max_leases must be 0 to {MAX_LEASES}, got {max_leases}")
        self.max_leases = max_leases
        self.timings = timings if timings is not None else Timings()
        self._url = url
        self._sql = Statements.for_schema(schema)
        self._callbacks = {
            "on_shards_acquired": on_shards_acquired,
            "on_shards_released": on_shards_released,
            "on_shards_lost": on_shards_lost,
            "on_leases_lost": on_leases_lost,
            "on_leases_released": on_leases_released,
        }
        scope = self.lock_scope
        self._replica_key = lock_key(scope, service, "replica", replica_id)
        self._shard_keys = [lock_key(scope, service, "shard", str(n)) for n in range(shard_count)]
        self._state = threading.RLock()  # the sets below and _session
        self._calling = threading.RLock()  # callbacks one at a time, in order
        self._leasing = threading.Lock()  # try_claim / release one at a time
        self._session: LockSession | None = None
        self._dropped: list[LockSession] = []
        self._serving: set[int] = set()
        self._pending: dict[int, float] = {}  # shard -> monotonic time it may be served
        self._leases: set[str] = set()
        self._pending_leases: dict[str, float] = {}
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._threads: list[threading.Thread] = []

    # -- life cycle -------------------------------------------------------------------------

    def start(self) -> Replica:
        """Register (raises :class:`ReplicaIdInUse`, :class:`ShardCountMismatch` or
        :class:`OwnershipUnavailable`) and start the beat and watch threads."""
        if self._threads:
            raise RuntimeError("this replica was started already")
        self._session = self._open_session()
        name = self.replica_id[:12]
        self._threads = [
            threading.Thread(target=self._beat_loop, name=f"own-beat-{name}", daemon=True),
            threading.Thread(target=self._watch_loop, name=f"own-watch-{name}", daemon=True),
        ]
        for thread in self._threads:
            thread.start()
        return self

    def stop(self) -> None:
        """Release everything (``on_shards_released`` / ``on_leases_released`` first), leave the
        registry and close the session; returns within about one statement timeout."""
        self._stop.set()
        self._wake.set()
        beat = self._threads[0] if self._threads else None
        if beat is not None:
            beat.join(timeout=self.timings.validity_seconds + 5)
        with self._leasing, self._calling:
            with self._state:
                session, self._session = self._session, None
                shards = frozenset(self._serving)
                leases = frozenset(self._leases)
                self._clear()
            if session is not None and not session.dead:
                unclean = self._call("on_shards_released", shards)
                self._call("on_leases_released", leases)
                # Rows of what is pending or unclean stay (see the module docstring).
                clean = sorted(shards - unclean)
                try:
                    session.run(self._sql.disown_shards, (self.service, clean))
                    session.run(self._sql.disown_leases, (self.service, sorted(leases)))
                    session.run(self._sql.unregister, (self.service, self.replica_id))
                    session.run(self._sql.unlock_all)
                except SessionLost as error:
                    log.warning(
                        "replica %s stopped on a failed session: %s", self.replica_id, error
                    )
            elif shards or leases:
                self._call("on_shards_lost", shards)
                self._call("on_leases_lost", leases)
        for old in [*self._dropped, *([session] if session else [])]:
            old.close()
        self._dropped.clear()
        for thread in self._threads[1:]:
            thread.join(timeout=5)

    def __enter__(self) -> Replica:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    # -- what this replica holds ------------------------------------------------------------

    def _alive(self) -> bool:
        session = self._session
        return session is not None and not session.dead

    def owns(self, shard: int) -> bool:
        """Whether this replica serves ``shard`` now (False from the moment a loss is detected
        or the session's validity passed, even before the watchdog runs)."""
        validate_shard(shard, self.shard_count)
        return self._alive() and shard in self._serving

    def owns_key(self, key: str) -> bool:
        """Whether this replica serves the shard of ``key`` (see :func:`shard_of`)."""
        return self.owns(shard_of(key, self.shard_count))

    def shards(self) -> frozenset[int]:
        """The shards this replica serves now."""
        with self._state:
            return frozenset(self._serving) if self._alive() else frozenset()

    def held(self) -> frozenset[str]:
        """The lease keys this replica holds and may act on now."""
        with self._state:
            return frozenset(self._leases) if self._alive() else frozenset()

    def holds(self, key: str) -> bool:
        """Whether this replica holds the lease on ``key`` now."""
        return validate_key(key, "lease key") in self.held()

    # -- leases -----------------------------------------------------------------------------

    def try_claim(self, key: str) -> bool:
        """Claim the lease on ``key``: True when this replica holds it and may act on it now.
        False when another replica holds it, the session is down, or the previous holder did
        not release it cleanly and the takeover grace has not passed (the lock is kept: a
        later call returns True once it has). :class:`LeaseLimitReached` beyond ``max_leases``."""
        validate_key(key, "lease key")
        with self._leasing:
            with self._state:
                session = self._session
                if session is None or session.dead:
                    return False
                if key in self._leases:
                    return True
                if key in self._pending_leases:
                    if self._pending_leases[key] > time.monotonic():
                        return False
                    del self._pending_leases[key]
                    self._leases.add(key)
                    return True
                if len(self._leases) + len(self._pending_leases) >= self.max_leases:
                    raise LeaseLimitReached(
                        f"replica {self.replica_id} holds {self.max_leases} leases already"
                    )
            lease_lock = lock_key(self.lock_scope, self.service, "lease", key)
            try:
                if not session.run(self._sql.lock, (lease_lock,))[0][0]:
                    return False
                replaced = session.run(self._sql.own_lease, self._row(key, lease_lock))[0][0]
            except SessionLost as error:
                self._declare_lost(session, str(error))
                return False
            with self._state:
                if self._session is not session:
                    return False  # lost meanwhile: the lock went with the session
                if replaced:
                    self._pending_leases[key] = (
                        time.monotonic() + self.timings.takeover_grace_seconds
                    )
                    return False
                self._leases.add(key)
                return True

    def release(self, key: str) -> bool:
        """Give up the lease on ``key`` (stop acting on it first); whether it was held."""
        validate_key(key, "lease key")
        with self._leasing:
            with self._state:
                if key not in self._leases and key not in self._pending_leases:
                    return False
                held = key in self._leases  # else still in its grace: its row stays
                self._leases.discard(key)
                self._pending_leases.pop(key, None)
                session = self._session
            if session is None or session.dead:
                return True
            try:
                if held:
                    session.run(self._sql.disown_leases, (self.service, [key]))
                session.run(
                    self._sql.unlock, ([lock_key(self.lock_scope, self.service, "lease", key)],)
                )
            except SessionLost as error:
                self._declare_lost(session, str(error))
            return True

    # -- the beat thread --------------------------------------------------------------------

    def _beat_loop(self) -> None:
        while not self._stop.is_set():
            with self._state:
                dropped, self._dropped = self._dropped, []
                session = self._session
            for old in dropped:
                old.close()
            if session is None:
                session = self._reconnect()
            if session is not None:
                try:
                    self._beat(session)
                except SessionLost as error:
                    self._declare_lost(session, str(error))
                except Exception:
                    log.exception("replica %s: a beat failed", self.replica_id)
            self._wake.wait(self._next_wait())
            self._wake.clear()

    def _next_wait(self) -> float:
        now = time.monotonic()
        with self._state:
            due = [*self._pending.values(), now + self.timings.heartbeat_seconds]
        return max(0.0, min(due) - now)

    def _reconnect(self) -> LockSession | None:
        try:
            session = self._open_session()
        except OwnershipError as error:
            log.warning("replica %s cannot register again yet: %s", self.replica_id, error)
            return None
        with self._state:
            if self._stop.is_set():
                session.close()
                return None
            self._session = session
        log.info("replica %s registered again (backend %d)", self.replica_id, session.backend_pid)
        return session

    def _open_session(self) -> LockSession:
        try:
            session = LockSession(
                self._url,
                timings=self.timings,
                application_name=f"hebei-own-{self.service}-{self.replica_id}",
            )
        except SessionLost as error:
            raise OwnershipUnavailable(str(error)) from error
        try:
            if not session.run(self._sql.lock, (self._replica_key,))[0][0]:
                raise ReplicaIdInUse(
                    f"replica id {self.replica_id!r} of service {self.service!r} is live in "
                    "another process (its registry lock is held)"
                )
            counts = session.run(self._sql.shard_counts, (self.service, self.replica_id))
            others = sorted({count for (count,) in counts} - {self.shard_count})
            if others:
                raise ShardCountMismatch(
                    f"the live replicas of {self.service!r} use {others[0]} shards, "
                    f"this one {self.shard_count}: a service's shard count is fixed"
                )
            session.run(
                self._sql.register,
                (self.service, self.replica_id, self.address, self.shard_count, self._replica_key),
            )
        except SessionLost as error:
            session.close()
            raise OwnershipUnavailable(str(error)) from error
        except OwnershipError:
            session.close()
            raise
        return session

    def _beat(self, session: LockSession) -> None:
        if not session.run(self._sql.heartbeat, (self.service, self.replica_id)):
            raise SessionLost("this replica's registry row belongs to another session")
        live = [replica for (replica,) in session.run(self._sql.live_ids, (self.service,))]
        if self.replica_id not in live:
            raise SessionLost("this replica's registry lock is not held")
        self._serve_ready(session)
        if self.shard_count:
            self._rebalance(session, fair_share(self.shard_count, live, self.replica_id))

    def _serve_ready(self, session: LockSession) -> None:
        """Serve the pending shards and leases whose grace has passed."""
        now = time.monotonic()
        with self._calling:
            with self._state:
                if self._session is not session or session.dead:
                    return
                ready = frozenset(s for s, due in self._pending.items() if due <= now)
                for shard in ready:
                    del self._pending[shard]
                self._serving |= ready
                for key in [k for k, due in self._pending_leases.items() if due <= now]:
                    del self._pending_leases[key]
                    self._leases.add(key)
            if ready:
                self._call("on_shards_acquired", ready)

    def _rebalance(self, session: LockSession, target: int) -> None:
        with self._state:
            serving, pending = set(self._serving), dict(self._pending)
        excess = shards_to_release(serving, pending, target)
        if excess:
            self._release_shards(session, excess)
        deficit = target - (len(serving) + len(pending) - len(excess))
        if deficit <= 0:
            return
        others = [n for n in range(self.shard_count) if n not in serving and n not in pending]
        rows = session.run(self._sql.free_shards, (others, [self._shard_keys[n] for n in others]))
        grace = self.timings.takeover_grace_seconds
        for shard in shards_to_try([n for (n,) in rows], self.shard_count, self.replica_id):
            if deficit == 0:
                break
            if not session.run(self._sql.lock, (self._shard_keys[shard],))[0][0]:
                continue
            replaced = session.run(self._sql.own_shard, self._row(shard, self._shard_keys[shard]))
            deficit -= 1
            with self._state:
                if self._session is not session:
                    raise SessionLost("the session was given up while taking shards")
                self._pending[shard] = time.monotonic() + (grace if replaced[0][0] else 0.0)
        self._serve_ready(session)

    def _release_shards(self, session: LockSession, shards: list[int]) -> None:
        with self._calling:
            with self._state:
                if self._session is not session:
                    raise SessionLost("the session was given up")
                stopping = frozenset(s for s in shards if s in self._serving)
                self._serving.difference_update(shards)
                for shard in shards:
                    self._pending.pop(shard, None)
            unclean = self._call("on_shards_released", stopping)
        # Only the shards stopped cleanly lose their rows (see the module docstring).
        session.run(self._sql.disown_shards, (self.service, sorted(stopping - unclean)))
        session.run(self._sql.unlock, ([self._shard_keys[s] for s in shards],))

    def _row(self, name: int | str, lock: int) -> dict[str, object]:
        return {
            "service": self.service,
            "name": name,
            "replica": self.replica_id,
            "address": self.address,
            "lock": lock,
            "grace": self.timings.takeover_grace_seconds,
        }

    # -- losses -----------------------------------------------------------------------------

    def _watch_loop(self) -> None:
        while not self._stop.wait(self.timings.check_seconds):
            session = self._session
            if session is None:
                continue
            if session.dead:
                self._declare_lost(session, "no round trip confirmed the locks in time")
                continue
            try:
                session.check_idle()
            except SessionLost as error:
                self._declare_lost(session, str(error))

    def _declare_lost(self, session: LockSession, reason: str) -> None:
        """Everything held on ``session`` is lost: say so (callbacks), then break the session
        (a statement stuck on it returns) and let the beat thread close it and register again."""
        session.kill()
        with self._calling:
            with self._state:
                if self._session is not session:
                    return
                self._session = None
                self._dropped.append(session)
                shards, leases = frozenset(self._serving), frozenset(self._leases)
                self._clear()
            log.warning(
                "replica %s lost its locks (%d shards, %d leases): %s",
                self.replica_id,
                len(shards),
                len(leases),
                reason,
            )
            if shards:
                self._call("on_shards_lost", shards)
            if leases:
                self._call("on_leases_lost", leases)
        session.abort()
        self._wake.set()

    def _clear(self) -> None:
        self._serving.clear()
        self._pending.clear()
        self._leases.clear()
        self._pending_leases.clear()

    def _call(self, name: str, items: frozenset) -> frozenset:
        """Run a callback on ``items`` (none: not called); what it returned of ``items`` as a
        set (``on_shards_released``: those not stopped cleanly), else the empty set."""
        if not items:
            return frozenset()
        try:
            answer = self._callbacks[name](items)
        except Exception:
            log.exception("replica %s: %s raised", self.replica_id, name)
            return frozenset(items)  # not known to have stopped: never a clean release
        return frozenset(answer) & items if isinstance(answer, set | frozenset) else frozenset()
