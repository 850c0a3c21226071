"""The durable side of the table engine: matches, the event log and the outbox, on PostgreSQL.

Tables hand :class:`Group` objects to :meth:`EventStore.submit`; one writer thread takes every
group queued by then (up to ``max_batch`` events; ``flush_seconds``, 0 by default, waits that
long for more: a fixed wait only adds to every decision's latency, since the groups queued
while a commit is in flight make the next batch anyway) and writes them with one statement on a connection of its own (:data:`WRITE_BATCH`: the events,
the outbox rows and the match rows' updates of every table at once; one round trip and one
commit), so the log does not bound throughput: the more tables wait, the bigger the batch
(group commit). A group is never split across commits: a hand's ``hand_end`` event and its
settlement's outbox row commit together.
After each commit the per-match durable watermark advances; :meth:`EventStore.wait_durable`
lets a seat's stream send an observation only once the events it reflects are durable, and
:meth:`EventStore.durable_time` tells a table when that was (a decision's clock does not run
while the seat cannot be told of it).

Failures: when PostgreSQL is unreachable (a connection or pool error) the writer retries the
same batch until it is back, however long that takes, and nothing is lost. Any other error is
about the data: after :data:`DATA_RETRIES` attempts the writer writes the batch's groups one by
one, and a group that still fails is *poisoned*: its match is failed loudly (an error line,
``on_failed(match_id, reason)``; the table dissolves itself) and its later groups are dropped
until the table's own ``reset`` group, while every other table carries on.

Fence: ``admits(match_id)`` (set by the host: whether this replica may still write the match,
see :mod:`hebei.table.ownership`) is asked of every group as the writer takes it and again
before each retry: a group of a match this replica no longer serves is dropped, never written.

The outbox by shard: each row records its match's shard (``shard_of(match_id, shard_count)``)
as it is written, and the poster's reads (:meth:`EventStore.due_messages`,
:meth:`~EventStore.next_due_in`, :meth:`~EventStore.outbox_backlog`) take the shards whose rows
they want (None: every row). A row without a usable shard (NULL: written before the column; or
beyond ``shard_count``: written under a larger count) belongs to shard 0, so every row belongs
to exactly one shard, and to one replica at a time.
"""

from __future__ import annotations

import base64
import collections
import datetime as dt
import json
import logging
import queue
import threading
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import psycopg
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from hebei.common.db import create_pool, database_errors, migrate
from hebei.common.errors import AlreadyExists
from hebei.table import metrics
from hebei.table.ownership import shard_of, validate_shard_count

log = logging.getLogger(__name__)

MIGRATIONS = "hebei.table.migrations"
DEFAULT_SCHEMA = "table_engine"
UNFINISHED = ("waiting", "playing")
DATA_RETRIES = 3  # attempts of a batch failing for a reason other than an outage
DURABLE_HISTORY = 256  # commit times kept per match (see EventStore.durable_time)

# A whole batch in one statement (its data-modifying parts commit together, or none does):
# the events, the outbox rows (a row already there is kept) and the match rows' new state,
# all in one JSON document (one parameter: json.dumps is one C call for the batch, where
# arrays cost psycopg a Python step per element; each event is stored as the jsonb it is in
# the document, times are JSON numbers read back as the same float8, payloads base64).
WRITE_BATCH = """
WITH batch AS (SELECT %s::jsonb AS doc), new_events AS (
    INSERT INTO events (match_id, seq, hand_no, event, logged_at, chain, mac)
    SELECT r.m, r.s, r.h, r.e, to_timestamp(r.t), r.c, r.x
    FROM batch, jsonb_to_recordset(batch.doc->'events')
        AS r(m text, s int, h int, e jsonb, t float8, c text, x text)
), new_outbox AS (
    INSERT INTO outbox (match_id, kind, key, payload, shard)
    SELECT r.m, r.k, r.y, decode(r.p, 'base64'), r.n
    FROM batch, jsonb_to_recordset(batch.doc->'outbox')
        AS r(m text, k text, y text, p text, n int)
    ON CONFLICT (kind, key) DO NOTHING
)
UPDATE matches SET status = u.status, hands_played = u.hands, scores = u.scores,
    event_count = u.events, ended_at = CASE WHEN u.ended THEN now() ELSE ended_at END,
    table_state = COALESCE(u.state, matches.table_state)
FROM batch, jsonb_to_recordset(batch.doc->'matches')
    AS u(match_id text, status text, hands int, scores jsonb, events bigint, ended bool,
         state jsonb)
WHERE matches.match_id = u.match_id
"""


@dataclass(frozen=True, slots=True)
class EventRow:
    """One logged event: its sequence number in the match, hand (1-based, 0 = match level),
    and for a rules event its link in the match's hash chain and signature (hex; see
    :mod:`hebei.rules.chain`)."""

    seq: int
    hand_no: int
    event: dict
    time: float
    chain: str | None = None
    mac: str | None = None


@dataclass(frozen=True, slots=True)
class OutboxRow:
    """A message to deliver to another service (a serialized request)."""

    kind: str  # "settlement" or "match_result"
    key: str
    payload: bytes


@dataclass(frozen=True, slots=True)
class MatchUpdate:
    """The match row's new state."""

    status: str
    hands_played: int
    scores: tuple[int, ...]
    event_count: int
    ended: bool = False
    table_state: dict | None = None  # see Table.table_state; None: unchanged


@dataclass(slots=True)
class Group:
    """What one step of one table writes, atomically."""

    match_id: str
    events: list[EventRow] = field(default_factory=list)
    outbox: list[OutboxRow] = field(default_factory=list)
    update: MatchUpdate | None = None
    reset: bool = False  # the table's first group after its match failed (see the docstring)


@dataclass(slots=True)
class StoredMatch:
    """A match row (and, when loaded with them, its events)."""

    match_id: str
    table_id: str
    tournament_id: str
    round_no: int
    fingerprint: str
    spec: dict
    status: str
    hands_played: int
    scores: list[int]
    event_count: int
    opened_at: float
    ended_at: float | None
    events: list[EventRow] = field(default_factory=list)
    table_state: dict | None = None  # see Table.table_state (None: stored before it)


@dataclass(frozen=True, slots=True)
class PendingMessage:
    """An outbox row due for delivery."""

    id: int
    kind: str
    key: str
    payload: bytes
    attempts: int


class Watcher(Protocol):
    """Told (on the writer's thread) each time more of a match's events are durable."""

    def durable(self, seq: int) -> None: ...


class _Watermark:
    __slots__ = ("cond", "seq", "times", "watchers")

    def __init__(self, seq: int) -> None:
        self.seq = seq
        self.cond = threading.Condition()
        # (seq, monotonic time) of the last commits: when each event became durable.
        self.times: collections.deque[tuple[int, float]] = collections.deque(maxlen=DURABLE_HISTORY)
        self.watchers: set[Watcher] = set()


def is_outage(error: BaseException) -> bool:
    """True when ``error`` means the database is out of reach (retry until it is back), not
    that this data was refused."""
    return isinstance(error, psycopg.OperationalError | psycopg.InterfaceError)


_MATCH_COLUMNS = (
    "match_id, table_id, tournament_id, round_no, fingerprint, spec, status, hands_played,"
    " scores, event_count, opened_at, ended_at, table_state"
)


def _stored(row: Sequence[Any]) -> StoredMatch:
    return StoredMatch(
        match_id=row[0],
        table_id=row[1],
        tournament_id=row[2],
        round_no=row[3],
        fingerprint=row[4],
        spec=row[5],
        status=row[6],
        hands_played=row[7],
        scores=list(row[8]),
        event_count=row[9],
        opened_at=row[10].timestamp(),
        ended_at=None if row[11] is None else row[11].timestamp(),
        table_state=row[12],
    )


def load_events(conn: Any, match_id: str) -> list[EventRow]:
    """Every stored event of a match, in order (``conn``'s search_path: the engine's schema)."""
    rows = conn.execute(
        "SELECT seq, hand_no, event, logged_at, chain, mac FROM events WHERE match_id = %s"
        " ORDER BY seq",
        (match_id,),
    ).fetchall()
    return [EventRow(r[0], r[1], r[2], r[3].timestamp(), r[4], r[5]) for r in rows]


def _error_text(error: str) -> str:
    """An error to store: what another service said may hold anything (a NUL would make
    PostgreSQL refuse the row, and the outbox row would be stuck)."""
    return "".join(c if c.isprintable() else "?" for c in error[:1000])


def _always(_: str) -> bool:
    return True


def _ts(seconds: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(seconds, dt.UTC)


class EventStore:
    """Matches, events and outbox on one schema, with a batching writer thread."""

    def __init__(
        self,
        pool: ConnectionPool,
        *,
        flush_seconds: float = 0.0,
        max_batch: int = 1000,
        on_outbox: Any = None,
        on_failed: Callable[[str, str], None] | None = None,
        log_key: bytes | None = None,
        shard_count: int = 64,
    ) -> None:
        """``shard_count``: the engine's (HEBEI_TABLE_SHARD_COUNT), for the outbox rows' shard."""
        self.pool = pool
        self.shard_count = validate_shard_count(shard_count)
        self.log_key = log_key  # signs the events' chain (hebei.table.logkey); None: unsigned
        self.flush_seconds = flush_seconds
        self.max_batch = max_batch
        self.on_outbox = on_outbox  # called after a commit that wrote outbox rows
        self.on_failed = on_failed  # called (writer thread) when a match's group is poisoned
        self.admits: Callable[[str], bool] = _always  # the fence (see the module docstring)
        self._queue: queue.SimpleQueue[Group | None] = queue.SimpleQueue()
        self._marks: dict[str, _Watermark] = {}
        self._marks_lock = threading.Lock()
        self._failed: set[str] = set()  # matches whose groups are dropped until a reset
        self._outage_since: float | None = None
        self._conn: psycopg.Connection | None = None  # the writer's own (autocommit)
        self._pool_autocommit = False
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="table-log-writer", daemon=True)
        self._thread.start()

    @classmethod
    def open(
        cls, url: str, schema: str = DEFAULT_SCHEMA, *, max_size: int = 8, **kwargs: Any
    ) -> EventStore:
        """Migrate ``schema`` and open a store on it."""
        migrate(url, schema, MIGRATIONS)
        # Autocommit: most of the store's calls are one statement (the outbox poster's, per
        # settlement), each one round trip instead of three (BEGIN, statement, COMMIT); the
        # few that must be atomic open a transaction (fail_match).
        pool = create_pool(
            url, schema=schema, min_size=2, max_size=max_size, name="hebei-table", autocommit=True
        )
        return cls(pool, **kwargs)

    def close(self) -> None:
        """Write what is queued, stop the writer and close the pool."""
        self._queue.put(None)
        self._thread.join(timeout=10)
        self._stopped.set()
        if not self._thread.is_alive():
            self._drop_connection()
        self.pool.close()

    # ------------------------------------------------------------------ matches

    def create_match(self, match: StoredMatch) -> StoredMatch:
        """Insert a new match row; an existing match with the same fingerprint is returned
        as it is, one with another fingerprint is :class:`AlreadyExists`."""
        with database_errors(), self.pool.connection() as conn:
            row = conn.execute(
                "INSERT INTO matches (match_id, table_id, tournament_id, round_no, fingerprint,"
                " spec, status, opened_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
                " ON CONFLICT (match_id) DO NOTHING RETURNING match_id",
                (
                    match.match_id,
                    match.table_id,
                    match.tournament_id,
                    match.round_no,
                    match.fingerprint,
                    Jsonb(match.spec),
                    match.status,
                    _ts(match.opened_at),
                ),
            ).fetchone()
            if row is not None:
                self._mark(match.match_id, 0)
                return match
            existing = self._select(conn, "WHERE match_id = %s", (match.match_id,))[0]
        if existing.fingerprint != match.fingerprint:
            raise AlreadyExists(
                f"match {match.match_id} was already opened with a different request"
            )
        return existing

    def _select(self, conn: Any, where: str, params: Sequence[Any]) -> list[StoredMatch]:
        rows = conn.execute(f"SELECT {_MATCH_COLUMNS} FROM matches {where}", params).fetchall()
        return [_stored(row) for row in rows]

    def _load_events(self, conn: Any, match: StoredMatch) -> StoredMatch:
        match.events = load_events(conn, match.match_id)
        self._durable_through(match.match_id, len(match.events))  # read back: durable
        return match

    def load_match(self, match_id: str, *, events: bool = True) -> StoredMatch | None:
        """One match (with its events), or None."""
        with database_errors(), self.pool.connection() as conn:
            found = self._select(conn, "WHERE match_id = %s", (match_id,))
            if not found:
                return None
            return self._load_events(conn, found[0]) if events else found[0]

    def load_unfinished(self, keep: Callable[[str], bool] = _always) -> list[StoredMatch]:
        """Every match still waiting or playing whose id ``keep`` keeps (a replica's shards),
        with its events (to resume it)."""
        with database_errors(), self.pool.connection() as conn:
            rows = conn.execute(
                "SELECT match_id FROM matches WHERE status IN ('waiting', 'playing')"
                " ORDER BY match_id"
            ).fetchall()
            found = []
            for (match_id,) in rows:
                if not keep(match_id):
                    continue
                match = self._select(conn, "WHERE match_id = %s", (match_id,))
                if match and match[0].status in UNFINISHED:
                    found.append(self._load_events(conn, match[0]))
            return found

    def live_match_shares_wall(
        self, seed: int, tournament_id: str, round_no: int, *, besides: Sequence[str]
    ) -> bool:
        """Whether a stored match still waiting or playing (on any replica), other than
        ``besides`` (the caller knows of those), has ``seed`` or is of ``tournament_id``'s
        round ``round_no``."""
        with database_errors(), self.pool.connection() as conn:
            row = conn.execute(
                "SELECT 1 FROM matches WHERE status IN ('waiting', 'playing')"
                " AND match_id <> ALL(%s) AND (spec->>'seed' = %s"
                " OR (%s <> '' AND tournament_id = %s AND round_no = %s)) LIMIT 1",
                (list(besides), str(seed), tournament_id, tournament_id, round_no),
            ).fetchone()
        return row is not None

    def list_matches(
        self, *, tournament_id: str = "", status: str = "", after: str = "", limit: int = 50
    ) -> list[StoredMatch]:
        """Match rows by match id, filtered, from after ``after``."""
        where, params = ["match_id > %s"], [after]
        if tournament_id:
            where.append("tournament_id = %s")
            params.append(tournament_id)
        if status:
            where.append("status = %s")
            params.append(status)
        with database_errors(), self.pool.connection() as conn:
            return self._select(
                conn, f"WHERE {' AND '.join(where)} ORDER BY match_id LIMIT %s", [*params, limit]
            )

    def reveal_results(self, tournament_id: str, round_no: int) -> list[str]:
        """Clear ``results_hidden`` of the tournament's matches (of ``round_no``; 0: every
        round); return the ids of those that had it."""
        with database_errors(), self.pool.connection() as conn:
            rows = conn.execute(
                "UPDATE matches SET spec = spec - 'results_hidden'"
                " WHERE tournament_id = %s AND (%s = 0 OR round_no = %s)"
                " AND spec ? 'results_hidden' RETURNING match_id",
                (tournament_id, round_no, round_no),
            ).fetchall()
        return [row[0] for row in rows]

    def seed_used(self, seed: int) -> bool:
        """True when a match already has this seed (a drawn seed must be fresh)."""
        with database_errors(), self.pool.connection() as conn:
            row = conn.execute(
                "SELECT 1 FROM matches WHERE spec->>'seed' = %s LIMIT 1", (str(seed),)
            ).fetchone()
        return row is not None

    def fail_match(
        self, match_id: str, seq: int, event: dict, outbox: Sequence[OutboxRow] = ()
    ) -> None:
        """Dissolve a match that cannot go on (e.g. it does not resume): ``event`` logged at
        ``seq``, the status dissolved and ``outbox`` queued, in one transaction."""
        with database_errors(), self.pool.connection() as conn, conn.transaction():
            conn.execute(
                "INSERT INTO events (match_id, seq, hand_no, event, logged_at)"
                " VALUES (%s, %s, 0, %s, now()) ON CONFLICT DO NOTHING",
                (match_id, seq, Jsonb(event)),
            )
            for row in outbox:
                conn.execute(
                    "INSERT INTO outbox (match_id, kind, key, payload, shard)"
                    " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (kind, key) DO NOTHING",
                    (match_id, row.kind, row.key, row.payload, self.shard_of(match_id)),
                )
            conn.execute(
                "UPDATE matches SET status = 'dissolved', ended_at = now(), event_count = %s"
                " WHERE match_id = %s",
                (seq, match_id),
            )

    # ------------------------------------------------------------------ the log

    def submit(self, group: Group) -> None:
        """Queue a group for the writer (returns at once; see :meth:`wait_durable`)."""
        self._queue.put(group)

    def _mark(self, match_id: str, seq: int) -> _Watermark:
        with self._marks_lock:
            mark = self._marks.get(match_id)
            if mark is None:
                mark = self._marks[match_id] = _Watermark(seq)
            return mark

    def watch(self, match_id: str, watcher: Watcher) -> int:
        """Tell ``watcher`` of every commit of ``match_id`` from now on; returns the last
        durable event now. Each stream's queue watches its match, so that its thread wakes
        once, when its next message may leave (see :mod:`hebei.table.sessions`)."""
        mark = self._mark(match_id, 0)
        with mark.cond:
            mark.watchers.add(watcher)
            return mark.seq

    def unwatch(self, match_id: str, watcher: Watcher) -> None:
        with self._marks_lock:
            mark = self._marks.get(match_id)
        if mark is not None:
            with mark.cond:
                mark.watchers.discard(watcher)

    def forget(self, match_id: str) -> None:
        """Drop what is kept in memory about an ended match whose log is durable (a table
        evicted from memory; loading it again starts afresh)."""
        with self._marks_lock:
            self._marks.pop(match_id, None)

    def durable_seq(self, match_id: str) -> int:
        """The last event of ``match_id`` known to be committed."""
        return self._mark(match_id, 0).seq

    def wait_durable(self, match_id: str, seq: int, timeout: float) -> bool:
        """Wait until event ``seq`` of ``match_id`` is committed; False on timeout."""
        mark = self._mark(match_id, 0)
        with mark.cond:
            return mark.cond.wait_for(lambda: mark.seq >= seq, timeout)

    def durable_time(self, match_id: str, seq: int) -> float | None:
        """The ``time.monotonic()`` at which event ``seq`` of ``match_id`` was committed (0.0
        when long ago or before this process), None while it is not."""
        mark = self._mark(match_id, 0)
        with mark.cond:
            if mark.seq < seq:
                return None
            return next((t for s, t in mark.times if s >= seq), 0.0)

    @property
    def outage_seconds(self) -> float:
        """How long the database has been out of reach for the writer (0 when it is not)."""
        since = self._outage_since
        return 0.0 if since is None else time.monotonic() - since

    def _admit(self, group: Group) -> bool:
        """False for a group of a match this replica no longer serves, and for one of a failed
        match (dropped), until the table's reset group."""
        if not self.admits(group.match_id):
            log.debug("event log: dropped a group of match %s (not served here)", group.match_id)
            return False
        if group.match_id not in self._failed:
            return True
        if group.reset:
            self._failed.discard(group.match_id)
            return True
        log.debug("event log: dropped a group of failed match %s", group.match_id)
        return False

    def _run(self) -> None:
        while True:
            first = self._queue.get()
            if first is None:
                return
            if not self._admit(first):
                continue
            batch, n_events, stop = [first], len(first.events), False
            deadline = time.monotonic() + self.flush_seconds
            while n_events < self.max_batch:
                remaining = deadline - time.monotonic()
                try:
                    group = (
                        self._queue.get(timeout=remaining)
                        if remaining > 0
                        else (self._queue.get_nowait())
                    )
                except queue.Empty:
                    break
                if group is None:
                    stop = True
                    break
                if self._admit(group):
                    batch.append(group)
                    n_events += len(group.events)
            if self._write_until_done(batch) is not None:
                self._write_one_by_one(batch)
            if stop:
                return

    def _write_until_done(self, batch: list[Group]) -> Exception | None:
        """Write ``batch`` in one transaction: retried for as long as the database is out of
        reach, :data:`DATA_RETRIES` times for any other error (returned)."""
        delay, refused = 0.05, 0
        while True:
            batch[:] = [group for group in batch if self.admits(group.match_id)]
            if not batch:
                return None
            started = time.perf_counter()
            try:
                self._write(batch)
            except Exception as exc:
                if self._stopped.is_set():
                    return None
                if is_outage(exc):
                    self._drop_connection()
                    if self._outage_since is None:
                        self._outage_since = time.monotonic()
                    metrics.EVENT_LOG_WRITE_FAILURES.labels("outage").inc()
                    log.warning("event log unreachable, retrying in %.2fs: %s", delay, exc)
                else:
                    refused += 1
                    metrics.EVENT_LOG_WRITE_FAILURES.labels("refused").inc()
                    log.warning("event log write refused (attempt %d): %s", refused, exc)
                    if refused >= DATA_RETRIES:
                        return exc
                time.sleep(delay)
                delay = min(delay * 2, 2.0)
                continue
            self._outage_since = None
            metrics.EVENT_LOG_WRITE_SECONDS.observe(time.perf_counter() - started)
            metrics.EVENT_LOG_BATCH_SIZE.observe(sum(len(g.events) for g in batch))
            self._committed(batch)
            return None

    def _write_one_by_one(self, batch: list[Group]) -> None:
        """A batch that keeps failing: each group alone, so one bad row fails only its match."""
        for group in batch:
            if group.match_id in self._failed:
                continue  # an earlier group of this match was poisoned
            error = self._write_until_done([group])
            if error is not None:
                self._poisoned(group, error)

    def _poisoned(self, group: Group, error: Exception) -> None:
        self._failed.add(group.match_id)
        first = group.events[0].seq if group.events else self.durable_seq(group.match_id) + 1
        reason = f"the event log refused event {first}: {type(error).__name__}"
        log.error(
            "match %s failed: %s (%s); its table is dissolved, the other tables carry on",
            group.match_id,
            reason,
            str(error).splitlines()[0][:300] if str(error) else "",
            extra={"match_id": group.match_id},
        )
        metrics.MATCHES_FAILED.labels("event_log").inc()
        if self.on_failed is not None:
            try:
                self.on_failed(group.match_id, reason)
            except Exception:
                log.exception("on_failed of match %s failed", group.match_id)

    def _committed(self, batch: list[Group]) -> None:
        now = time.monotonic()
        tops: dict[str, int] = {}
        for group in batch:
            if group.events:
                tops[group.match_id] = max(tops.get(group.match_id, 0), group.events[-1].seq)
        for match_id, seq in tops.items():
            self._durable_through(match_id, seq, now)
        if self.on_outbox is not None and any(group.outbox for group in batch):
            self.on_outbox()

    def _durable_through(self, match_id: str, seq: int, now: float | None = None) -> None:
        """Events of ``match_id`` up to ``seq`` are durable (committed ``now``, or read back
        from the log): raise its watermark (never lower it) and tell its watchers."""
        mark = self._mark(match_id, 0)
        with mark.cond:
            if seq > mark.seq:
                mark.seq = seq
                if now is not None:
                    mark.times.append((seq, now))
            mark.cond.notify_all()
            watchers = list(mark.watchers)
        for watcher in watchers:
            watcher.durable(seq)

    def _connection(self) -> psycopg.Connection:
        """The writer's connection, taken from the pool once (and again after an outage):
        autocommit, so that a batch's one statement is its one round trip and commit."""
        if self._conn is None or self._conn.closed:
            conn = self.pool.getconn()
            try:
                self._pool_autocommit = conn.autocommit  # given back as the pool made it
                conn.autocommit = True
            except BaseException:
                self.pool.putconn(conn)
                raise
            self._conn = conn
        return self._conn

    def _drop_connection(self) -> None:
        """Give the writer's connection back to the pool (which replaces a broken one)."""
        conn, self._conn = self._conn, None
        if conn is None:
            return
        try:
            if not conn.closed:
                conn.autocommit = self._pool_autocommit
        except psycopg.Error:
            conn.close()
        self.pool.putconn(conn)

    def _write(self, batch: list[Group]) -> None:
        ended = {g.match_id for g in batch if g.update is not None and g.update.ended}
        updates = {  # the last state of each match in the batch
            g.match_id: {
                "match_id": g.match_id,
                "status": g.update.status,
                "hands": g.update.hands_played,
                "scores": list(g.update.scores),
                "events": g.update.event_count,
                "ended": g.match_id in ended,
                "state": g.update.table_state,
            }
            for g in batch
            if g.update is not None
        }
        doc = {
            "events": [
                {
                    "m": g.match_id,
                    "s": r.seq,
                    "h": r.hand_no,
                    "e": r.event,
                    "t": r.time,
                    "c": r.chain,
                    "x": r.mac,
                }
                for g in batch
                for r in g.events
            ],
            "outbox": [
                {
                    "m": g.match_id,
                    "k": o.kind,
                    "y": o.key,
                    "p": base64.b64encode(o.payload).decode("ascii"),
                    "n": self.shard_of(g.match_id),
                }
                for g in batch
                for o in g.outbox
            ],
            "matches": list(updates.values()),
        }
        self._connection().execute(WRITE_BATCH, (json.dumps(doc),))

    # ------------------------------------------------------------------ the outbox

    def shard_of(self, match_id: str) -> int:
        """The shard of ``match_id`` (recorded with its outbox rows)."""
        return shard_of(match_id, self.shard_count)

    def _of_shards(self, shards: Collection[int] | None) -> tuple[str, dict[str, Any]]:
        """The condition (`` AND ...``) and parameters keeping the outbox rows of ``shards``
        (None: every row); rows without a usable shard are shard 0's (module docstring)."""
        if shards is None:
            return "", {}
        condition = "shard = ANY(%(shards)s)"
        if 0 in shards:
            condition = f"({condition} OR shard IS NULL OR shard >= %(shard_count)s)"
        return f" AND {condition}", {"shards": sorted(shards), "shard_count": self.shard_count}

    def due_messages(
        self, shards: Collection[int] | None = None, limit: int = 100
    ) -> list[PendingMessage]:
        """Undelivered outbox rows of ``shards`` (None: all) whose next attempt is due, oldest
        first."""
        of_shards, params = self._of_shards(shards)
        with database_errors(), self.pool.connection() as conn:
            rows = conn.execute(
                "SELECT id, kind, key, payload, attempts FROM outbox"
                " WHERE delivered_at IS NULL AND failed_at IS NULL AND next_attempt_at <= now()"
                f"{of_shards} ORDER BY id LIMIT %(limit)s",
                {**params, "limit": limit},
            ).fetchall()
        return [PendingMessage(r[0], r[1], r[2], bytes(r[3]), r[4]) for r in rows]

    def next_due_in(self, shards: Collection[int] | None = None) -> float | None:
        """Seconds until the next undelivered row of ``shards`` (None: any) is due (0 if one is
        due), None if none."""
        of_shards, params = self._of_shards(shards)
        with database_errors(), self.pool.connection() as conn:
            row = conn.execute(
                "SELECT EXTRACT(EPOCH FROM min(next_attempt_at) - now()) FROM outbox"
                f" WHERE delivered_at IS NULL AND failed_at IS NULL{of_shards}",
                params,
            ).fetchone()
        return None if row is None or row[0] is None else max(0.0, float(row[0]))

    def outbox_backlog(self, shards: Collection[int] | None = None) -> dict[str, tuple[int, float]]:
        """Per kind: the undelivered rows of ``shards`` (None: all; not refused for good) and
        the age in seconds of the oldest of them; kinds without one are absent. One query on
        the pending rows' index: the replicas' answers for their own shards add up to the
        whole backlog, each row counted once."""
        of_shards, params = self._of_shards(shards)
        with database_errors(), self.pool.connection() as conn:
            rows = conn.execute(
                "SELECT kind, count(*), EXTRACT(EPOCH FROM now() - min(created_at)) FROM outbox"
                f" WHERE delivered_at IS NULL AND failed_at IS NULL{of_shards} GROUP BY kind",
                params,
            ).fetchall()
        return {kind: (int(count), max(0.0, float(age))) for kind, count, age in rows}

    def mark_delivered(self, message_ids: Sequence[int]) -> None:
        """Mark the rows delivered, in one statement."""
        with database_errors(), self.pool.connection() as conn:
            conn.execute(
                "UPDATE outbox SET delivered_at = now(), attempts = attempts + 1"
                " WHERE id = ANY(%s)",
                (list(message_ids),),
            )

    def mark_retry(self, message_id: int, error: str, delay: float) -> None:
        with database_errors(), self.pool.connection() as conn:
            conn.execute(
                "UPDATE outbox SET attempts = attempts + 1, last_error = %s,"
                " next_attempt_at = now() + make_interval(secs => %s) WHERE id = %s",
                (_error_text(error), delay, message_id),
            )

    def mark_failed(self, message_id: int, error: str) -> None:
        with database_errors(), self.pool.connection() as conn:
            conn.execute(
                "UPDATE outbox SET attempts = attempts + 1, last_error = %s, failed_at = now()"
                " WHERE id = %s",
                (_error_text(error), message_id),
            )

    def outbox_rows(self, match_id: str) -> list[dict]:
        """Every outbox row of a match (for tests and operators)."""
        with database_errors(), self.pool.connection() as conn:
            rows = conn.execute(
                "SELECT kind, key, attempts, delivered_at IS NOT NULL, failed_at IS NOT NULL,"
                " last_error, shard FROM outbox WHERE match_id = %s ORDER BY id",
                (match_id,),
            ).fetchall()
        names = ("kind", "key", "attempts", "delivered", "failed", "error", "shard")
        return [dict(zip(names, r, strict=True)) for r in rows]
