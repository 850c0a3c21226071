"""Seat leases in Redis: a seat of a match is played by at most one session at a time.

A session first *acquires* the lease of its (match, seat): ``SET NX`` with a time to live,
holding a fencing token (a per-seat counter that only grows) and the owner's name. A
heartbeat thread renews it while the session runs. Every answer the session sends is first
*recorded* under the lease in one atomic script: the decision id is stored with the fencing
token, and only if the lease is still this session's. A session whose lease expired (its
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
import threading
import time
from dataclasses import dataclass

import redis

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
        self, client: redis.Redis, match_id: str, seat: int, owner: str, ttl: float = 10.0
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
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._acquire = client.register_script(_ACQUIRE)
        self._renew = client.register_script(_RENEW)
        self._record = client.register_script(_RECORD)
        self._release = client.register_script(_RELEASE)

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

    def renew(self) -> bool:
        """Extend the lease; False (and :attr:`held` turns False) if it was lost."""
        try:
            ok = bool(self._renew(keys=[self.keys["lease"]], args=[self._value, self.ttl_ms]))
        except redis.RedisError:
            return True  # Redis unreachable: keep playing until the lease is known lost
        if not ok:
            self._lost.set()
        return ok

    def start_heartbeat(self) -> None:
        """Renew the lease every third of its time to live, in a daemon thread."""
        interval = self.ttl_ms / 3000

        def beat() -> None:
            while not self._stop.wait(interval):
                if not self.renew():
                    return

        self._thread = threading.Thread(
            target=beat, name=f"lease-{self.match_id}-{self.seat}", daemon=True
        )
        self._thread.start()

    def record(self, decision_id: int) -> None:
        """Record that this session answers ``decision_id``; raise LeaseLost if the lease is
        not ours any more or another session already answered it."""
        if self._lost.is_set():
            raise LeaseLost(f"seat {self.seat} of {self.match_id}: lease {self.fence} lost")
        keys = self.keys
        result = int(
            self._record(
                keys=[keys["lease"], keys["answers"]],
                args=[self._value, decision_id, self.fence, KEEP_SECONDS],
            )
        )
        if result != 1:
            self._lost.set()
            why = "lease lost" if result < 0 else f"decision {decision_id} answered by another"
            raise LeaseLost(f"seat {self.seat} of {self.match_id}: {why} (fence {self.fence})")

    def release(self) -> None:
        """Stop the heartbeat and give the lease up (if still ours)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        if not self.fence:
            return
        with contextlib.suppress(redis.RedisError):  # else it expires by itself
            self._release(
                keys=[self.keys["lease"], self.keys["log"]],
                args=[self._value, self.fence, self.owner, time.time()],
            )


def lease_history(client: redis.Redis, match_id: str, seat: int) -> list[LeaseRecord]:
    """The audit trail of a seat's leases, oldest first."""
    rows = client.lrange(lease_keys(match_id, seat)["log"], 0, -1)
    return [LeaseRecord(**json.loads(row)) for row in rows]


def answered_decisions(client: redis.Redis, match_id: str, seat: int) -> dict[int, int]:
    """decision id -> fencing token of the session that answered it."""
    raw = client.hgetall(lease_keys(match_id, seat)["answers"])
    return {int(k): int(v) for k, v in raw.items()}
