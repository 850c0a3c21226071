"""Seat leases in Redis: a seat of a match is played by at most one session at a time.

A session first *acquires* the lease of its (match, seat): ``SET NX`` with a time to live,
holding a fencing token (a per-seat counter that only grows) and the owner's name. While the
session runs, the process's :class:`LeaseKeeper` renews it: one thread renews every lease the
process holds in one pipelined round trip, every third of their time to live. Every answer
the session sends is first *recorded* under the lease in one atomic script (:meth:`SeatLease.
record`, or :meth:`SeatLease.arecord` on the seat sessions' event loop): the decision id is
stored with the fencing token, and only if the lease is still this session's. A session whose lease expired (its
worker was frozen, or lost Redis) is refused and stops; a second task for a seat whose lease
is alive finds it taken and exits; after a worker dies its leases expire within the time to
live and the redelivered task takes the seat over with a higher fencing token.

Keys (``match`` and ``seat`` substituted), all expiring a day after their last write:

- ``hebei:bots:lease:{match}:{seat}``: ``"<fence> <owner>"`` while held;
- ``hebei:bots:fence:{match}:{seat}``: the last fencing token handed out;
- ``hebei:bots:answers:{match}:{seat}``: hash decision id -> fencing token of its answer;
- ``hebei:bots:leases:{match}:{seat}``: list of JSON records (acquire/release), the audit
  trail of who held the seat when.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from dataclasses import dataclass

import redis
import redis.asyncio

log = logging.getLogger(__name__)

PREFIX = "hebei:bots"
KEEP_SECONDS = 86_400  # audit keys outlive the match by a day

_ACQUIRE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local fence = redis.call('INCR', KEYS[2])
redis.call('EXPIRE', KEYS[2], ARGV[4])
redis.call('SET', KEYS[1], fence .. ' ' .. ARGV[1], 'PX', ARGV[2])
redis.call('RPUSH', KEYS[3], cjson.encode({event='acquire', fence=fence, owner=ARGV[1], at=tonumber(ARGV[3])}))
redis.call('EXPIRE', KEYS[3], ARGV[4])
return fence
"""
_RENEW = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
"""
_RECORD = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
redis.call('HSETNX', KEYS[2], ARGV[2], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[4])
if redis.call('HGET', KEYS[2], ARGV[2]) == ARGV[3] then return 1 end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('RPUSH', KEYS[2], cjson.encode({event='release', fence=tonumber(ARGV[2]), owner=ARGV[3], at=tonumber(ARGV[4])}))
return 1
"""


def lease_keys(match_id: str, seat: int) -> dict[str, str]:
    """The Redis keys of one seat's lease."""
    tail = f"{match_id}:{seat}"
    return {
        "lease": f"{PREFIX}:lease:{tail}",
        "fence": f"{PREFIX}:fence:{tail}",
        "answers": f"{PREFIX}:answers:{tail}",
        "log": f"{PREFIX}:leases:{tail}",
    }


class LeaseLost(Exception):
    """The session no longer holds its seat's lease: it must stop playing."""


@dataclass(frozen=True, slots=True)
class LeaseRecord:
    """One line of a seat's lease audit trail."""

    event: str  # "acquire" or "release"
    fence: int
    owner: str
    at: float


class SeatLease:
    """The lease of one seat; :meth:`acquire` it, keep it with :meth:`start_heartbeat`,
    :meth:`record` each answer, :meth:`release` at the end."""

    def __init__(
        self,
        client: redis.Redis,
        match_id: str,
        seat: int,
        owner: str,
        ttl: float = 10.0,
        *,
        aclient: redis.asyncio.Redis | None = None,
    ) -> None:
        self.client = client
        self.match_id = match_id
        self.seat = seat
        self.owner = owner
        self.ttl_ms = max(100, int(ttl * 1000))
        self.keys = lease_keys(match_id, seat)
        self.fence = 0
        self._value = ""
        self._lost = threading.Event()
        self._kept = False
        self._acquire = client.register_script(_ACQUIRE)
        self._renew = client.register_script(_RENEW)
        self._record = client.register_script(_RECORD)
        self._release = client.register_script(_RELEASE)
        # The same Redis for the event loop of the seat sessions (see arecord).
        self._arecord = None if aclient is None else aclient.register_script(_RECORD)

    @property
    def held(self) -> bool:
        return bool(self.fence) and not self._lost.is_set()

    def acquire(self) -> bool:
        """Take the lease if nobody holds it; True on success (``fence`` is then set)."""
        keys = self.keys
        fence = int(
            self._acquire(
                keys=[keys["lease"], keys["fence"], keys["log"]],
                args=[self.owner, self.ttl_ms, time.time(), KEEP_SECONDS],
            )
        )
        if not fence:
            return False
        self.fence = fence
        self._value = f"{fence} {self.owner}"
        self._lost.clear()
        return True

    def holder(self) -> str | None:
        """``"<fence> <owner>"`` of the current holder, or None."""
        value = self.client.get(self.keys["lease"])
        return value.decode() if isinstance(value, bytes) else value

    def renew(self, client: redis.Redis | None = None) -> bool:
        """Extend the lease; False (and :attr:`held` turns False) if it was lost. With
        ``client`` a pipeline, the renewal is only queued on it (see :class:`LeaseKeeper`)."""
        try:
            ok = self._renew(
                keys=[self.keys["lease"]], args=[self._value, self.ttl_ms], client=client
            )
        except redis.RedisError:
            return True  # Redis unreachable: keep playing until the lease is known lost
        return client is not None or self.renewed(ok)

    def renewed(self, answer: object) -> bool:
        """The answer of a renewal: False (the lease is lost) unless it extended it."""
        if isinstance(answer, Exception):
            return True  # Redis failed: keep playing until the lease is known lost
        if not answer:
            self._lost.set()
            return False
        return True

    def start_heartbeat(self) -> None:
        """Have the process's :class:`LeaseKeeper` renew the lease until :meth:`release`."""
        self._kept = True
        KEEPER.add(self)

    def _check(self, decision_id: int) -> tuple[list[str], list[object]]:
        if self._lost.is_set():
            raise LeaseLost(f"seat {self.seat} of {self.match_id}: lease {self.fence} lost")
        keys = self.keys
        return (
            [keys["lease"], keys["answers"]],
            [self._value, decision_id, self.fence, KEEP_SECONDS],
        )

    def _recorded(self, decision_id: int, result: int) -> None:
        if result != 1:
            self._lost.set()
            why = "lease lost" if result < 0 else f"decision {decision_id} answered by another"
            raise LeaseLost(f"seat {self.seat} of {self.match_id}: {why} (fence {self.fence})")

    def record(self, decision_id: int) -> None:
        """Record that this session answers ``decision_id``; raise LeaseLost if the lease is
        not ours any more or another session already answered it."""
        keys, args = self._check(decision_id)
        self._recorded(decision_id, int(self._record(keys=keys, args=args)))

    async def arecord(self, decision_id: int) -> None:
        """:meth:`record` on the event loop of the seat sessions (the lease's ``aclient``)."""
        if self._arecord is None:
            self.record(decision_id)
            return
        keys, args = self._check(decision_id)
        self._recorded(decision_id, int(await self._arecord(keys=keys, args=args)))

    def release(self) -> None:
        """Stop renewing and give the lease up (if still ours)."""
        if self._kept:
            KEEPER.remove(self)
            self._kept = False
        if not self.fence:
            return
        with contextlib.suppress(redis.RedisError):  # else it expires by itself
            self._release(
                keys=[self.keys["lease"], self.keys["log"]],
                args=[self._value, self.fence, self.owner, time.time()],
            )


class LeaseKeeper:
    """Renews every lease of this process from one thread: each third of the shortest time to
    live, all the renewals in one pipelined round trip (a fleet process holds dozens of seats:
    a thread and a round trip each would cost more than the renewals themselves)."""

    def __init__(self) -> None:
        self._leases: set[SeatLease] = set()
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None

    def add(self, lease: SeatLease) -> None:
        with self._cond:
            sooner = all(lease.ttl_ms < other.ttl_ms for other in self._leases)
            self._leases.add(lease)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="leases", daemon=True)
                self._thread.start()
            if sooner:
                self._cond.notify_all()

    def remove(self, lease: SeatLease) -> None:
        with self._cond:
            self._leases.discard(lease)

    def _due(self) -> list[SeatLease]:
        """Wait a third of the shortest time to live held; the leases to renew then."""
        with self._cond:
            while not self._leases:
                self._cond.wait()
            interval = min(lease.ttl_ms for lease in self._leases) / 3000
            self._cond.wait(interval)
            return list(self._leases)

    def _run(self) -> None:
        while True:
            leases = self._due()
            by_client: dict[int, list[SeatLease]] = {}
            for lease in leases:
                by_client.setdefault(id(lease.client), []).append(lease)
            for group in by_client.values():
                try:
                    self.renew(group)
                except Exception:  # the next round tries again
                    log.exception("lease renewals failed")
            with self._cond:
                self._leases -= {lease for lease in leases if not lease.held}

    @staticmethod
    def renew(leases: list[SeatLease]) -> None:
        """Renew ``leases`` (one Redis client) in one pipeline."""
        pipe = leases[0].client.pipeline(transaction=False)
        for lease in leases:
            lease.renew(pipe)
        try:
            answers = pipe.execute(raise_on_error=False)
        except redis.RedisError:
            return  # Redis unreachable: keep playing until the leases are known lost
        for lease, answer in zip(leases, answers, strict=True):
            lease.renewed(answer)


KEEPER = LeaseKeeper()


def lease_history(client: redis.Redis, match_id: str, seat: int) -> list[LeaseRecord]:
    """The audit trail of a seat's leases, oldest first."""
    rows = client.lrange(lease_keys(match_id, seat)["log"], 0, -1)
    return [LeaseRecord(**json.loads(row)) for row in rows]


def answered_decisions(client: redis.Redis, match_id: str, seat: int) -> dict[int, int]:
    """decision id -> fencing token of the session that answered it."""
    raw = client.hgetall(lease_keys(match_id, seat)["answers"])
    return {int(k): int(v) for k, v in raw.items()}
