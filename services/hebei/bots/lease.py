"""Seat leases in Redis: a seat of a match is played by at most one session at a time.

A session first *acquires* the lease of its (match, seat): ``SET NX`` with a time to live,
holding a fencing token (a per-seat counter that only grows) and the owner's name. While the
session runs, the process's :class:`LeaseKeeper` renews it: one thread renews every lease the
process holds in one pipelined round trip, every third of their time to live. Every answer
the session sends is first *recorded* under the lease in one atomic script (:meth:`SeatLease.
record`, or :meth:`SeatLease.arecord` on the seat sessions' event loop): the decision id is
stored with the fencing token, and only if the lease is still this session's (on the event
loop, over one connection of the loop's own: :class:`AnswerRecorder`). A session whose lease
expired (its worker was frozen, or lost Redis) is refused and stops; a second task for a seat
whose lease is alive finds it taken and exits; after a worker dies its leases expire within
the time to live and the redelivered task takes the seat over with a higher fencing token.

Keys (``match`` and ``seat`` substituted), all expiring a day after their last write:

- ``hebei:bots:lease:{match}:{seat}``: ``"<fence> <owner>"`` while held;
- ``hebei:bots:fence:{match}:{seat}``: the last fencing token handed out;
- ``hebei:bots:answers:{match}:{seat}``: hash decision id -> fencing token of its answer;
- ``hebei:bots:leases:{match}:{seat}``: list of JSON records (acquire/release), the audit
  trail of who held the seat when.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import json
import logging
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import redis
import redis.asyncio

from hebei.common.threads import name_os_threads

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
# A new decision is recorded (and the answers' key kept a day more) without reading it back;
# one already recorded is ours only with our fence (answered again after a reconnect).
_RECORD = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
if redis.call('HSETNX', KEYS[2], ARGV[2], ARGV[3]) == 1 then
  redis.call('EXPIRE', KEYS[2], ARGV[4])
  return 1
end
if redis.call('HGET', KEYS[2], ARGV[2]) == ARGV[3] then return 1 end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('RPUSH', KEYS[2], cjson.encode({event='release', fence=tonumber(ARGV[2]), owner=ARGV[3], at=tonumber(ARGV[4])}))
return 1
"""


_RECORD_SHA = hashlib.sha1(_RECORD.encode()).hexdigest()


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
        # The same Redis for the event loop of the seat sessions (see send_record).
        self._aclient = aclient
        self._arecord = None if aclient is None else aclient.register_script(_RECORD)
        self._recorder: AnswerRecorder | None = None
        self._record_head = self._record_tail = b""  # a record's bytes but its decision id

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
        self._record_head = b"".join(
            [
                _EVALSHA_HEAD,
                _bulk(2),
                _bulk(keys["lease"]),
                _bulk(keys["answers"]),
                _bulk(self._value),
            ]
        )
        self._record_tail = _bulk(fence) + _bulk(KEEP_SECONDS)
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
        """Nothing when the record went in; LeaseLost (and the lease marked lost) else."""
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
        await (await self.send_record(decision_id))

    async def send_record(self, decision_id: int) -> asyncio.Future[None]:
        """Send the record of ``decision_id`` now, and return what to await for its outcome
        (None, or LeaseLost as :meth:`record` raises): the session's policy thinks meanwhile.
        Over the loop's :class:`AnswerRecorder` (redis-py's client when it cannot speak to
        this Redis; without ``aclient``, :meth:`record` blocks the loop)."""
        if self._lost.is_set():
            raise LeaseLost(f"seat {self.seat} of {self.match_id}: lease {self.fence} lost")
        loop = asyncio.get_running_loop()
        if self._aclient is None:
            self.record(decision_id)
            done = loop.create_future()
            done.set_result(None)
            return done
        recorder = self._recorder
        if recorder is None or recorder._loop is not loop:
            recorder = self._recorder = AnswerRecorder.for_client(self._aclient)
        if recorder is None:
            task = asyncio.ensure_future(self._record_script(decision_id))
            await asyncio.sleep(0)  # it leaves now
            return task
        await recorder.connected()
        payload = self._record_head + _bulk(decision_id) + self._record_tail
        return recorder.send(payload, functools.partial(self._recorded, decision_id))

    async def _record_script(self, decision_id: int) -> None:
        keys, args = self._check(decision_id)
        self._recorded(decision_id, int(await self._arecord(keys=keys, args=args)))  # type: ignore[misc]

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
        name_os_threads()
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


# ---------------------------------------------------------------------- answers on the loop


def _bulk(value: str | bytes | int) -> bytes:
    data = value if isinstance(value, bytes) else str(value).encode()
    return b"$%d\r\n%s\r\n" % (len(data), data)


def _command(*parts: str | bytes | int) -> bytes:
    """A Redis command in the protocol's form (an array of bulk strings)."""
    return b"*%d\r\n%s" % (len(parts), b"".join(_bulk(part) for part in parts))


# A record is EVALSHA of the record script: this head, then its keys and arguments.
_EVALSHA_HEAD = b"*9\r\n" + _bulk("EVALSHA") + _bulk(_RECORD_SHA)
_EVAL_HEAD = b"*9\r\n" + _bulk("EVAL") + _bulk(_RECORD)  # when Redis lost its script cache
_CRLF = b"\r\n"


class AnswerRecorder(asyncio.Protocol):
    """The answers' records of one event loop, over one Redis connection of its own.

    A record is one EVALSHA of the record script, its bytes built from each lease's fixed
    head and tail around the decision id, written at once (no task, no pool, no retry layer);
    the replies come back in order, so the records of the loop's sessions in flight share the
    connection, pipelined. Measured (32 leases on one loop, a local Redis): ~13 µs of CPU per
    record, where redis-py's asyncio client spent ~110 on its machinery (pool, retries, command
    building, a task per record); hiredis did not change that.

    A script Redis does not have cached (a restart, SCRIPT FLUSH) is sent again as EVAL; a
    lost connection fails the records in flight with :class:`redis.ConnectionError` (as
    redis-py did) and the next record connects again; a record without an answer for the
    client's ``socket_timeout`` (between one and two of it) fails with
    :class:`redis.TimeoutError` and drops the connection. Only plain TCP and Unix-socket
    connections are spoken here (with the URL's user, password and database): for another
    (TLS) :meth:`for_client` returns None and the lease keeps redis-py's path."""

    def __init__(self, params: dict[str, Any], loop: asyncio.AbstractEventLoop) -> None:
        self._params = params
        self._loop = loop
        self._timeout: float | None = params.get("socket_timeout")
        self._transport: asyncio.Transport | None = None
        self._connecting: asyncio.Future[None] | None = None
        # Per request in flight, in order: (future, decode of the reply, the bytes sent).
        self._pending: deque[tuple[asyncio.Future[Any], Callable[[Any], Any], bytes]] = deque()
        self._buffer = b""
        self._timer: asyncio.TimerHandle | None = None
        self._replies = 0  # replies read, to tell a slow Redis from a silent one
        self._replies_at_timer = 0
        self._hello_commands: list[bytes] = []
        if params["password"]:
            auth = [params["username"]] if params["username"] else []
            self._hello_commands.append(_command("AUTH", *auth, params["password"]))
        if params["db"]:
            self._hello_commands.append(_command("SELECT", params["db"]))
        self._hello: list[asyncio.Future[Any]] = []

    @classmethod
    def for_client(cls, client: redis.asyncio.Redis) -> AnswerRecorder | None:
        """The recorder of ``client``'s Redis on the running loop (one per client and loop);
        None when the client's connections are not plain TCP or a Unix socket."""
        loop = asyncio.get_running_loop()
        recorder = _RECORDERS.get(client)
        if recorder is not None and recorder._loop is loop:
            return recorder
        pool = client.connection_pool
        kwargs = pool.connection_kwargs
        plain = pool.connection_class in (
            redis.asyncio.Connection,
            redis.asyncio.UnixDomainSocketConnection,
        )
        if not plain or kwargs.get("credential_provider") is not None:
            return None
        params = {
            key: kwargs.get(key)
            for key in ("host", "port", "path", "db", "username", "password", "socket_timeout")
        }
        params["connect_timeout"] = kwargs.get("socket_connect_timeout") or params["socket_timeout"]
        recorder = _RECORDERS[client] = cls(params, loop)
        return recorder

    # ------------------------------------------------------------------ requests

    async def connected(self) -> None:
        """Connect (and log in, select the database) unless connected."""
        if self._transport is not None:
            return
        if self._connecting is None:
            self._connecting = self._loop.create_future()
            try:
                await self._connect()
            except BaseException as exc:
                self._connecting.set_exception(exc)
                self._connecting.exception()  # retrieved: the next caller connects again
                raise
            finally:
                connecting, self._connecting = self._connecting, None
                if not connecting.done():
                    connecting.set_result(None)
            return
        await asyncio.shield(self._connecting)

    async def _connect(self) -> None:
        params = self._params
        try:
            async with asyncio.timeout(params["connect_timeout"]):
                if params["path"]:
                    await self._loop.create_unix_connection(lambda: self, params["path"])
                else:
                    await self._loop.create_connection(
                        lambda: self, params["host"] or "localhost", params["port"] or 6379
                    )
        except TimeoutError:
            raise redis.TimeoutError("timed out connecting to the lease Redis") from None
        except OSError as exc:
            raise redis.ConnectionError(f"cannot connect to the lease Redis: {exc}") from None
        try:
            for reply in self._hello:
                await reply
        except redis.RedisError as exc:  # a wrong password, a database it does not have
            self._drop(exc)
            raise

    def send(self, payload: bytes, decode: Callable[[Any], Any]) -> asyncio.Future[Any]:
        """Write ``payload`` (one command) now; the future of ``decode(its reply)`` (an error
        reply is raised as :class:`redis.ResponseError` unless ``decode`` is given it)."""
        transport = self._transport
        if transport is None:
            raise redis.ConnectionError("the lease Redis connection is closed")
        future = self._loop.create_future()
        self._pending.append((future, decode, payload))
        transport.write(payload)
        if self._timer is None and self._timeout:
            self._arm()
        return future

    # ------------------------------------------------------------------ protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport  # type: ignore[assignment]
        self._buffer = b""
        # Log in and select the database first thing, before any record can be written.
        self._hello = [self.send(command, _ok) for command in self._hello_commands]

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(redis.ConnectionError(f"lease Redis connection lost: {exc or 'closed'}"))

    def data_received(self, data: bytes) -> None:
        buffer = self._buffer + data if self._buffer else data
        pos, end_of_data = 0, len(buffer)
        while pos < end_of_data:
            end = buffer.find(_CRLF, pos)
            if end < 0:
                break
            kind = buffer[pos]
            if kind == 0x3A:  # ":" integer
                reply: Any = int(buffer[pos + 1 : end])
            elif kind == 0x2B:  # "+" simple string
                reply = buffer[pos + 1 : end].decode()
            elif kind == 0x2D:  # "-" error
                reply = redis.ResponseError(buffer[pos + 1 : end].decode(errors="replace"))
            elif kind == 0x24:  # "$" bulk string
                size = int(buffer[pos + 1 : end])
                if size >= 0:
                    if end + 4 + size > end_of_data:
                        break
                    reply = buffer[end + 2 : end + 2 + size]
                    end += 2 + size
                else:
                    reply = None
            else:  # nothing the record or the log-in answers
                self._drop(redis.ResponseError(f"unexpected Redis reply {buffer[pos:end]!r}"))
                return
            pos = end + 2
            self._reply(reply)
        self._buffer = buffer[pos:]

    def _reply(self, reply: Any) -> None:
        self._replies += 1
        if not self._pending:
            self._drop(redis.ResponseError("a Redis reply to no request"))
            return
        future, decode, payload = self._pending.popleft()
        if (
            isinstance(reply, redis.ResponseError)
            and str(reply).startswith("NOSCRIPT")
            and payload.startswith(_EVALSHA_HEAD)
        ):  # Redis forgot the script: send this one whole (it caches it again)
            again = _EVAL_HEAD + payload[len(_EVALSHA_HEAD) :]
            self._pending.append((future, decode, again))
            self._transport.write(again)  # type: ignore[union-attr]
            return
        if future.done():  # its caller went away
            return
        try:
            if isinstance(reply, redis.ResponseError) and decode is not _ok:
                raise reply
            future.set_result(decode(reply))
        except Exception as exc:
            future.set_exception(exc)

    # ------------------------------------------------------------------ failures

    def _arm(self) -> None:
        self._replies_at_timer = self._replies
        self._timer = self._loop.call_later(self._timeout, self._expire)  # type: ignore[arg-type]

    def _expire(self) -> None:
        self._timer = None
        if not self._pending:
            return
        if self._replies == self._replies_at_timer:  # nothing came back for a whole timeout
            self._drop(redis.TimeoutError("the lease Redis did not answer in time"))
        else:
            self._arm()

    def _drop(self, error: Exception) -> None:
        """Close the connection and fail every request in flight with ``error``."""
        transport = self._transport
        self._fail(error)
        if transport is not None:
            transport.abort()

    def _fail(self, error: Exception) -> None:
        self._transport = None
        self._buffer = b""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        pending, self._pending = self._pending, deque()
        for future, _decode, _payload in pending:
            if not future.done():
                future.set_exception(error)
                future.exception()  # a record given up on is not "never retrieved"


_RECORDERS: weakref.WeakKeyDictionary[Any, AnswerRecorder] = weakref.WeakKeyDictionary()


def _ok(reply: Any) -> None:
    if isinstance(reply, Exception):
        raise reply


def lease_history(client: redis.Redis, match_id: str, seat: int) -> list[LeaseRecord]:
    """The audit trail of a seat's leases, oldest first."""
    rows = client.lrange(lease_keys(match_id, seat)["log"], 0, -1)
    return [LeaseRecord(**json.loads(row)) for row in rows]


def answered_decisions(client: redis.Redis, match_id: str, seat: int) -> dict[int, int]:
    """decision id -> fencing token of the session that answered it."""
    raw = client.hgetall(lease_keys(match_id, seat)["answers"])
    return {int(k): int(v) for k, v in raw.items()}
