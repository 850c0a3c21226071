"""The ledger's domain logic: book settlements, adjustments and corrections, read standings,
history, audits.

Plain Python over psycopg 3 and a connection pool; the invariants themselves (balanced entries,
append-only journal, balances following postings) are enforced by the database, see
``migrations/``. Every argument is checked by :mod:`hebei.ledger.model` before any work.

Postings: one ``hand`` posting per seat, always, even for zero points (it records that the
player played the hand), plus one ``kong`` posting per seat whose kong payments are not zero.
An adjustment posts one ``penalty``, ``placement`` or ``replacement`` line per account, without
a seat. An account is a player in a tournament (``''`` for quick play); ``#tournament``
(:data:`~hebei.ledger.TOURNAMENT_ACCOUNT`) is the tournament's own account, the counterpart of
penalties and of the fixed totals of replaced matches, left out of standings.

Keys: a settlement is booked under its own key ("match_id:hand_no"); the ledger's other
entries under "<prefix>:..." keys (``adjustment:``, ``cancel:`` + the caller's key,
``reverse:``/``correct:`` + the entry id), prefixes no settlement key can take
(:data:`~hebei.ledger.model.KEY_PREFIXES`).

Group commit: settlements posted concurrently (the table engine posts from many tables at
once) are booked together, several entries per statement and per commit, so one WAL flush
serves many; each caller still returns only once its own entry has committed, and a
duplicate or refused settlement in a batch affects no other.

Standings count only *effective* entries: settlements, corrections and adjustments that were
not reversed. Points are the account balances, which equal the sum of effective entries'
postings because a reversal negates its entry exactly.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

import psycopg
from prometheus_client import Counter
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool, PoolTimeout

from hebei.common import db
from hebei.common.errors import (
    AlreadyExists,
    Conflict,
    DomainError,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
    Unavailable,
)
from hebei.ledger import TOURNAMENT_ACCOUNT, metrics
from hebei.ledger.model import (
    KEY_PREFIXES,
    MAX_ID_LENGTH,
    MAX_KEY_LENGTH,
    MAX_REASON_LENGTH,
    Adjustment,
    Settlement,
    canonical_json,
    check_entry_id,
    check_text,
    parse_entry_id,
    show,
)

__all__ = [
    "DEFAULT_PAGE_SIZE",
    "MAX_AUDIT_TOURNAMENTS",
    "MAX_PAGE_SIZE",
    "MAX_STANDINGS",
    "MIGRATIONS_PACKAGE",
    "AuditReport",
    "CancelResult",
    "Entry",
    "HistoryPage",
    "Ledger",
    "PostResult",
    "Posting",
    "ReverseResult",
    "Standing",
    "TournamentSum",
]

MIGRATIONS_PACKAGE = "hebei.ledger.migrations"
DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 500
# Standings list the first MAX_STANDINGS players by rank: all of a tournament's (it has at most
# 4,096, matchmaking's MAX_PLAYERS), the top of quick play's, which grow without end.
MAX_STANDINGS = 4096
# An audit lists the sums of at most this many tournaments, those that do not sum to zero
# first; it checks them all (AuditReport.tournaments_checked).
MAX_AUDIT_TOURNAMENTS = 1000
_RETRIES = 3  # deadlocks and serialization failures are retried this many times
_MAX_PROBLEMS = 100
# A caller waiting for a connection asks the pool again this often (see Ledger._checkout).
_PROBE_SECONDS = 0.5


def _copy_error(error: BaseException) -> BaseException:
    """A fresh instance per waiting caller (one exception object raised in many threads would
    share its traceback); other errors as they are."""
    if not isinstance(error, DomainError):
        return error
    copy = type(error)(error.message)
    copy.__cause__ = error.__cause__
    return copy


def _key(prefix: str, rest: object) -> str:
    """One of the ledger's own idempotency keys, "<prefix>:<rest>"."""
    assert prefix in KEY_PREFIXES, prefix
    return f"{prefix}:{rest}"


def _request_hash(request: Mapping[str, Any]) -> bytes:
    return hashlib.sha256(canonical_json(request).encode()).digest()


@contextlib.contextmanager
def _numeric_overflow() -> Iterator[None]:
    """A sum or balance leaving bigint in PostgreSQL (SQLSTATE 22003) becomes a clear refusal.
    Amounts are bounded (model.MAX_AMOUNT), so only an account already near the bound gets
    here; the statement, or the transaction, was rolled back."""
    try:
        yield
    except psycopg.errors.NumericValueOutOfRange as error:
        raise FailedPrecondition(
            "numbers out of range: an account balance or a sum of points would leave the "
            "64-bit range; nothing was changed"
        ) from error


T = TypeVar("T")


@dataclass(frozen=True)
class PostResult:
    """A settlement booked: its entry, and whether it had been booked before."""

    entry_id: int
    duplicate: bool


@dataclass(frozen=True)
class CancelResult:
    """An adjustment cancelled: the reversal booked, and whether it had been booked before."""

    reversal_entry_id: int
    duplicate: bool


@dataclass(frozen=True)
class ReverseResult:
    """A reversal booked, with the correction booked beside it (if any)."""

    reversal_entry_id: int
    correction_entry_id: int | None
    duplicate: bool


@dataclass(frozen=True)
class Posting:
    """One line of an entry (no seat on an adjustment's lines)."""

    player_id: str
    seat: int | None
    component: str
    amount: int


@dataclass(frozen=True)
class Entry:
    """A journal entry with its postings."""

    entry_id: int
    kind: str
    idempotency_key: str
    tournament_id: str
    settlement: dict[str, Any] | None
    postings: tuple[Posting, ...]
    reverses_entry_id: int | None
    reversed_by_entry_id: int | None
    reason: str
    booked_at: datetime
    adjustment: dict[str, Any] | None = None


@dataclass(frozen=True)
class HistoryPage:
    """Entries newest first, and the token of the next page ("" on the last)."""

    entries: tuple[Entry, ...]
    next_page_token: str


@dataclass(frozen=True)
class Standing:
    """A player's line in a tournament's standings. ``points`` include the adjustments, whose
    shares are ``penalty_points``, ``placement_points`` and ``replacement_points``."""

    rank: int
    player_id: str
    points: int
    hands_won: int
    self_draw_wins: int
    hands_dealt_in: int
    best_match_points: int
    hands_played: int
    matches_played: int
    kong_points: int
    penalty_points: int = 0
    placement_points: int = 0
    replacement_points: int = 0
    award_points: int = 0
    correction_points: int = 0


@dataclass(frozen=True)
class TournamentSum:
    """The entries booked for one tournament and the sum of their postings (zero when sound)."""

    tournament_id: str
    entries: int
    total: int


@dataclass(frozen=True)
class AuditReport:
    """The figures of an audit; ``ok`` when no problem was found."""

    entries_checked: int
    postings_checked: int
    accounts_checked: int
    unbalanced_entries: int
    balance_mismatches: int
    tournaments: tuple[TournamentSum, ...]
    problems: tuple[str, ...]
    tournaments_checked: int = 0

    @property
    def ok(self) -> bool:
        """True when every entry balances, every balance matches and every tournament sums to 0."""
        return not self.problems


@dataclass(frozen=True)
class _Line:
    player_id: str
    seat: int | None
    component: str
    amount: int


@dataclass(frozen=True)
class _Header:
    idempotency_key: str
    request_hash: bytes
    kind: str
    tournament_id: str
    round_no: int
    table_id: str
    match_id: str
    hand_no: int
    outcome: str
    settlement: dict[str, Any] | None
    reverses_entry_id: int | None = None
    reason: str = ""
    adjustment: dict[str, Any] | None = None


@dataclass(eq=False)
class _Pending:
    """A settlement waiting in the group-commit queue, and then its outcome."""

    header: _Header
    lines: Sequence[_Line]
    done: bool = False
    entry_id: int | None = None
    error: BaseException | None = None
    leads: bool = False  # its caller is (to be) a flusher
    wakeup: threading.Event = field(default_factory=threading.Event)


def _settlement_lines(settlement: Settlement) -> list[_Line]:
    lines = [_Line(r.player_id, r.seat, "hand", r.hand_delta) for r in settlement.results]
    lines += [
        _Line(r.player_id, r.seat, "kong", r.kong_delta)
        for r in settlement.results
        if r.kong_delta != 0
    ]
    return lines


def _settlement_header(
    settlement: Settlement, kind: str, key: str, request_hash: bytes, reason: str = ""
) -> _Header:
    return _Header(
        idempotency_key=key,
        request_hash=request_hash,
        kind=kind,
        tournament_id=settlement.tournament_id,
        round_no=settlement.round_no,
        table_id=settlement.table_id,
        match_id=settlement.match_id,
        hand_no=settlement.hand_no,
        outcome=settlement.outcome,
        settlement=settlement.to_dict(),
        reason=reason,
    )


def _adjustment_header(adjustment: Adjustment) -> _Header:
    return _Header(
        idempotency_key=_key("adjustment", adjustment.idempotency_key),
        request_hash=adjustment.request_hash(),
        kind="adjustment",
        tournament_id=adjustment.tournament_id,
        round_no=adjustment.round_no,
        table_id="",
        match_id=adjustment.match_id,
        hand_no=0,
        outcome="",
        settlement=None,
        reason=adjustment.reason,
        adjustment=adjustment.to_dict(),
    )


def _adjustment_lines(adjustment: Adjustment) -> list[_Line]:
    return [
        _Line(line.player_id, None, adjustment.component, line.amount) for line in adjustment.lines
    ]


@dataclass(frozen=True)
class _Original:
    """An entry about to be reversed, and its reversal if it has one."""

    entry_id: int
    kind: str
    tournament_id: str
    round_no: int
    table_id: str
    match_id: str
    hand_no: int
    outcome: str
    reversed_by: int | None


_ORIGINAL = """
SELECT e.kind, e.tournament_id, e.round_no, e.table_id, e.match_id, e.hand_no, e.outcome,
       r.entry_id
FROM journal_entries e LEFT JOIN journal_entries r ON r.reverses_entry_id = e.entry_id
WHERE e.entry_id = %s
"""


_INSERT_ACCOUNTS = """
INSERT INTO accounts (tournament_id, player_id)
SELECT %s, player_id FROM unnest(%s::text[]) AS p(player_id)
ORDER BY player_id
ON CONFLICT (tournament_id, player_id) DO NOTHING
"""

_SELECT_ACCOUNTS = """
SELECT player_id, account_id FROM accounts WHERE tournament_id = %s AND player_id = ANY(%s)
"""

# One statement books a batch of entries and their postings (in autocommit mode it is its own
# transaction and the deferred checks run at its end). Arrays go in binary (%(...)b): the text
# format would escape every quote of every settlement's JSON. An entry whose key is taken is skipped,
# with its postings; the rows returned are the entries booked. Postings go in account order.
_INSERT_ENTRIES = """
WITH entry AS (
    INSERT INTO journal_entries (idempotency_key, request_hash, kind, tournament_id, round_no,
        table_id, match_id, hand_no, outcome, settlement, reverses_entry_id, reason, adjustment)
    SELECT * FROM unnest(%(keys)b::text[], %(hashes)b::bytea[], %(kinds)b::text[],
        %(tournaments)b::text[], %(rounds)b::int[], %(tables)b::text[], %(matches)b::text[],
        %(hands)b::int[], %(outcomes)b::text[], %(settlements)b::jsonb[],
        %(reverses)b::bigint[], %(reasons)b::text[], %(adjustments)b::jsonb[])
    ON CONFLICT (idempotency_key) DO NOTHING
    RETURNING entry_id, idempotency_key
), posted AS (
    INSERT INTO postings (entry_id, account_id, component, seat, amount)
    SELECT entry.entry_id, l.account_id, l.component, l.seat, l.amount
    FROM unnest(%(line_keys)b::text[], %(accounts)b::bigint[], %(seats)b::smallint[],
                %(components)b::text[], %(amounts)b::bigint[])
         AS l(idempotency_key, account_id, seat, component, amount)
    JOIN entry USING (idempotency_key)
    ORDER BY l.account_id, l.component
)
SELECT idempotency_key, entry_id FROM entry
"""

_FIND_BY_KEY = "SELECT entry_id, request_hash, kind FROM journal_entries WHERE idempotency_key = %s"


class Ledger:
    """The ledger over a connection pool whose connections use the ledger's schema.

    Connections are in autocommit mode: a settlement is booked by one statement, its own
    transaction (one round trip); reversals and audits use explicit transactions. Account ids
    are cached (accounts are never deleted), so known players cost no extra statement.
    """

    def __init__(self, pool: ConnectionPool, *, batch_size: int = 32, flushers: int = 2) -> None:
        self.pool = pool
        self._accounts: dict[tuple[str, str], int] = {}
        self._accounts_lock = threading.Lock()
        # Group commit: settlements posted concurrently are booked together, up to batch_size
        # per statement and at most `flushers` statements in flight (see _submit).
        self._batch_size = max(1, batch_size)
        self._flushers = max(1, flushers)
        self._queue: list[_Pending] = []
        self._flushing = 0
        self._queue_lock = threading.Lock()

    @classmethod
    def open(
        cls,
        url: str,
        schema: str = "ledger",
        *,
        wait: bool = True,
        batch_size: int = 32,
        flushers: int = 2,
        **pool_options: Any,
    ) -> Ledger:
        """Apply the migrations to ``schema`` and open a pool on it (see db.create_pool)."""
        db.migrate(url, schema, MIGRATIONS_PACKAGE)
        pool = db.create_pool(
            url, schema=schema, name=f"hebei-{schema}", wait=wait, autocommit=True, **pool_options
        )
        return cls(pool, batch_size=batch_size, flushers=flushers)

    def close(self) -> None:
        """Close the pool."""
        self.pool.close()

    @contextlib.contextmanager
    def _reading(
        self, call: str, time_limit: float | None, *, isolation: str = "READ COMMITTED"
    ) -> Iterator[psycopg.Connection]:
        """A connection for a read, in one read-only transaction at ``isolation`` whose
        statements are cancelled after ``time_limit`` seconds (None: no limit). A cancelled read
        is ResourceExhausted naming ``call``; nothing was changed."""
        try:
            with self._connection() as conn, conn.transaction():
                conn.execute(f"SET TRANSACTION ISOLATION LEVEL {isolation}, READ ONLY")
                if time_limit is not None:
                    conn.execute(
                        "SELECT set_config('statement_timeout', %s, true)",
                        (f"{max(1, round(time_limit * 1000))}ms",),
                    )
                yield conn
        except Unavailable as error:
            if not isinstance(error.__cause__, psycopg.errors.QueryCanceled):
                raise
            raise ResourceExhausted(
                f"{call} ran past the {time_limit:g} s an anonymous read may take: ask for less "
                "(one tournament, a smaller page) or call with a token"
            ) from None

    @contextlib.contextmanager
    def _connection(self) -> Iterator[psycopg.Connection]:
        """A pool connection for the ``with`` block (like ``pool.connection()``, through
        :meth:`_checkout`), with the database's errors mapped to domain errors."""
        started = time.perf_counter()
        with db.database_errors(), _numeric_overflow():
            conn = self._checkout()
            metrics.POOL_WAIT_SECONDS.observe(time.perf_counter() - started)
            try:
                with conn:
                    yield conn
            finally:
                self.pool.putconn(conn)

    def _checkout(self) -> psycopg.Connection:
        """A checked connection within the pool's timeout, asked for in short probes.

        The pool tries a new connection only when a caller starts waiting, and gives up on it
        at once while PostgreSQL is down (db.create_pool's reconnect_timeout=0); between stale
        connections failing their check it sleeps 1, 2, 4 s... So a caller already waiting when
        PostgreSQL came back sat out its whole timeout, and behind a group-commit flusher every
        poster waited with it. Asking again every _PROBE_SECONDS makes the pool try again and
        caps those sleeps, so bookings resume within about a probe of the database's return;
        a busy pool still gives a caller its whole timeout (at the price of its place in the
        pool's queue at each probe).
        """
        deadline = time.monotonic() + self.pool.timeout
        while True:
            remaining = deadline - time.monotonic()
            try:
                return self.pool.getconn(timeout=max(min(remaining, _PROBE_SECONDS), 0.001))
            except PoolTimeout:
                if remaining <= _PROBE_SECONDS:
                    raise PoolTimeout(
                        f"couldn't get a connection after {self.pool.timeout:.2f} sec"
                    ) from None

    def _booking(self, book: Callable[[psycopg.Connection], T], *, transaction: bool) -> T:
        """Run ``book(conn)`` (in one transaction if asked), retrying deadlocks, serialization
        failures and stale cached account ids."""
        for attempt in range(_RETRIES):
            last = attempt == _RETRIES - 1
            try:
                with self._connection() as conn:
                    started = time.perf_counter()
                    with conn.transaction() if transaction else contextlib.nullcontext():
                        result = book(conn)
                    metrics.COMMIT_SECONDS.observe(time.perf_counter() - started)
                    return result
            except Conflict:
                if last:
                    raise
            except psycopg.errors.ForeignKeyViolation:
                with self._accounts_lock:
                    self._accounts.clear()
                if last:
                    raise
        raise AssertionError("unreachable")

    # -- booking ---------------------------------------------------------------------------

    def _account_ids(
        self, conn: psycopg.Connection, tournament_id: str, players: Iterable[str]
    ) -> dict[str, int]:
        """Account id of each player in ``tournament_id``, opening the missing accounts."""
        with self._accounts_lock:
            known = {
                player: self._accounts[tournament_id, player]
                for player in players
                if (tournament_id, player) in self._accounts
            }
        missing = sorted(set(players) - known.keys())
        if missing:
            conn.execute(_INSERT_ACCOUNTS, (tournament_id, missing))
            found = dict(conn.execute(_SELECT_ACCOUNTS, (tournament_id, missing)).fetchall())
            with self._accounts_lock:
                self._accounts.update(((tournament_id, p), int(i)) for p, i in found.items())
            known.update(found)
        return known

    def _book_entries(
        self, conn: psycopg.Connection, batch: Sequence[tuple[_Header, Sequence[_Line]]]
    ) -> dict[str, int]:
        """Book each (header, lines) of ``batch`` (distinct keys) in one statement; return the
        entry id of each key booked (a key already taken is left out, nothing booked for it)."""
        accounts: dict[tuple[str, str], int] = {}
        for tournament_id in {header.tournament_id for header, _ in batch}:
            players = {
                line.player_id
                for header, lines in batch
                if header.tournament_id == tournament_id
                for line in lines
            }
            for player, account_id in self._account_ids(conn, tournament_id, players).items():
                accounts[tournament_id, player] = account_id
        headers = [header for header, _ in batch]
        line_rows = [(header, line) for header, lines in batch for line in lines]
        params = {
            "keys": [h.idempotency_key for h in headers],
            "hashes": [h.request_hash for h in headers],
            "kinds": [h.kind for h in headers],
            "tournaments": [h.tournament_id for h in headers],
            "rounds": [h.round_no for h in headers],
            "tables": [h.table_id for h in headers],
            "matches": [h.match_id for h in headers],
            "hands": [h.hand_no for h in headers],
            "outcomes": [h.outcome for h in headers],
            "settlements": [None if h.settlement is None else Jsonb(h.settlement) for h in headers],
            "reverses": [h.reverses_entry_id for h in headers],
            "reasons": [h.reason for h in headers],
            "adjustments": [None if h.adjustment is None else Jsonb(h.adjustment) for h in headers],
            "line_keys": [h.idempotency_key for h, _ in line_rows],
            "accounts": [accounts[h.tournament_id, line.player_id] for h, line in line_rows],
            "seats": [line.seat for _, line in line_rows],
            "components": [line.component for _, line in line_rows],
            "amounts": [line.amount for _, line in line_rows],
        }
        return {key: int(entry_id) for key, entry_id in conn.execute(_INSERT_ENTRIES, params)}

    def _book_entry(
        self, conn: psycopg.Connection, header: _Header, lines: Sequence[_Line]
    ) -> int | None:
        """Book one entry; None (nothing booked) when its key is taken."""
        return self._book_entries(conn, [(header, lines)]).get(header.idempotency_key)

    def _submit(self, header: _Header, lines: Sequence[_Line]) -> int | None:
        """Book one entry through the group-commit queue; its entry id, or None when its
        key was already taken (nothing booked). Returns once the booking has committed.

        The caller queues its settlement. While fewer than ``flushers`` callers are flushing,
        the newcomer becomes a flusher: it books up to ``batch_size`` queued settlements per
        statement (one commit, one WAL flush) until its own is booked, then hands the role
        to the oldest caller still queued. Everyone else sleeps until woken: booked, or made
        a flusher. Alone, a settlement is booked at once; under load many share a commit.
        """
        item = _Pending(header, lines)
        with self._queue_lock:
            self._queue.append(item)
            if self._flushing < self._flushers:
                self._flushing += 1
                item.leads = True
        while True:
            if item.leads:
                item.leads = False
                self._lead(item)
            if item.done:
                break
            item.wakeup.wait()
            item.wakeup.clear()
        if item.error is not None:
            raise item.error
        return item.entry_id

    def _lead(self, item: _Pending) -> None:
        """Flush batches until ``item`` is booked; then pass the flusher role on (or drop it)."""
        while True:
            with self._queue_lock:
                if item.done or not self._queue:
                    if self._queue:
                        successor = self._queue[0]
                        successor.leads = True
                        successor.wakeup.set()
                    else:
                        self._flushing -= 1
                    return
                batch = self._queue[: self._batch_size]
                del self._queue[: self._batch_size]
            self._flush(batch)

    def _flush(self, batch: list[_Pending]) -> None:
        """Book ``batch`` and record each item's outcome; never raises."""
        first: dict[str, _Pending] = {}
        for item in batch:
            first.setdefault(item.header.idempotency_key, item)
        unique = list(first.values())
        try:
            booked = self._booking(
                lambda conn: self._book_entries(conn, [(i.header, i.lines) for i in unique]),
                transaction=False,
            )
            for item in unique:
                item.entry_id = booked.get(item.header.idempotency_key)
        except (Unavailable, Conflict) as error:  # the database is away, or conflicts persisted
            for item in batch:
                item.error = _copy_error(error)
        except (psycopg.Error, DomainError):  # one bad entry (an account overflowing, ...)
            # must not fail the others: book them one by one
            for item in unique:
                try:
                    item.entry_id = self._booking(
                        lambda conn, item=item: self._book_entry(conn, item.header, item.lines),
                        transaction=False,
                    )
                except Exception as error:
                    item.error = error
        except Exception as error:  # a bug: every caller reports it (INTERNAL)
            for item in batch:
                item.error = error
        finally:
            for item in batch:
                leader = first[item.header.idempotency_key]
                # a duplicate of a failed leader fails alike; else its entry_id stays None
                # and its caller reads the key's holder
                if item is not leader and leader.error is not None and item.error is None:
                    item.error = _copy_error(leader.error)
                item.done = True
                item.wakeup.set()

    def _post(
        self, counter: Counter, prepare: Callable[[], tuple[_Header, list[_Line]]]
    ) -> PostResult:
        """Book the entry ``prepare()`` checks and builds, idempotently by its key, counting
        the outcome in ``counter``.

        Settlements and adjustments alike go through the group commit: one statement books
        each batch in its own transaction (the database checks every entry balances at its
        commit), a refused or duplicate entry affects no other, and concurrent posts share a
        commit (a round's placement points are posted together with the settlements still
        coming from other tables). Adjustments are few, but nothing would be gained by a path
        of their own: the idempotency (same key, same request hash) is the same code.
        """
        try:
            header, lines = prepare()
            entry_id = self._submit(header, lines)
            if entry_id is not None:
                result = PostResult(entry_id, duplicate=False)
            else:
                with self._connection() as conn:
                    entry_id = self._existing(conn, header.idempotency_key, header.request_hash)
                result = PostResult(entry_id, duplicate=True)
        except (InvalidArgument, AlreadyExists):
            counter.labels("refused").inc()
            raise
        counter.labels("deduplicated" if result.duplicate else "posted").inc()
        return result

    def post_settlement(self, settlement: Settlement | Mapping[str, Any]) -> PostResult:
        """Book one hand's settlement, idempotently by its key.

        The same key with the same figures returns the first entry (``duplicate=True``); the
        same key with other figures raises AlreadyExists and books nothing. Concurrent
        duplicates book exactly one entry. An invalid settlement raises InvalidArgument.
        """

        def prepare() -> tuple[_Header, list[_Line]]:
            parsed = Settlement.parse(settlement)
            header = _settlement_header(
                parsed, "settlement", parsed.idempotency_key, parsed.request_hash()
            )
            return header, _settlement_lines(parsed)

        return self._post(metrics.SETTLEMENTS, prepare)

    def post_adjustment(self, adjustment: Adjustment | Mapping[str, Any]) -> PostResult:
        """Book an adjustment (a penalty, placement points, a replaced match's fixed total),
        idempotently by its key, like :meth:`post_settlement`.

        ``adjustment`` is a :class:`~hebei.ledger.model.Adjustment` or its protobuf JSON
        mapping (``{"idempotency_key", "tournament_id", "round_no", "match_id", "kind":
        "ADJUSTMENT_KIND_PENALTY", "lines": [{"player_id", "amount"}], "reason",
        "assigned_by"}``); the tournament's own account is ``TOURNAMENT_ACCOUNT``. The same key
        and body return the first entry (``duplicate=True``), the same key with another body
        raises AlreadyExists; an invalid adjustment raises InvalidArgument.
        """

        def prepare() -> tuple[_Header, list[_Line]]:
            parsed = Adjustment.parse(adjustment)
            return _adjustment_header(parsed), _adjustment_lines(parsed)

        return self._post(metrics.ADJUSTMENTS, prepare)

    @staticmethod
    def _find(conn: psycopg.Connection, key: str, request_hash: bytes) -> int | None:
        """The entry booked under ``key`` if it has ``request_hash``, None if there is none;
        AlreadyExists when it was booked for a different request."""
        row = conn.execute(_FIND_BY_KEY, (key,)).fetchone()
        if row is None:
            return None
        entry_id, booked_hash, _kind = row
        if bytes(booked_hash) != request_hash:
            raise AlreadyExists(
                f"key {show(key)} is already booked as entry {entry_id} with different figures"
            )
        return int(entry_id)

    @classmethod
    def _existing(cls, conn: psycopg.Connection, key: str, request_hash: bytes) -> int:
        """The entry holding ``key`` (whose insert was just skipped) if it has the same
        request hash, else refuse."""
        entry_id = cls._find(conn, key, request_hash)
        if entry_id is None:  # the key holder rolled back between our insert and this read
            raise Conflict(f"key {show(key)} changed hands; retry")
        return entry_id

    @staticmethod
    def _original(conn: psycopg.Connection, entry_id: int) -> _Original:
        row = conn.execute(_ORIGINAL, (entry_id,)).fetchone()
        if row is None:
            raise NotFound(f"entry {entry_id} does not exist")
        return _Original(entry_id, *row)

    def _book_reversal(
        self,
        conn: psycopg.Connection,
        original: _Original,
        key: str,
        request_hash: bytes,
        reason: str,
    ) -> int | None:
        """Book the exact negation of ``original`` under ``key`` (None: the key is taken)."""
        postings = conn.execute(
            "SELECT a.player_id, p.seat, p.component, p.amount FROM postings p"
            " JOIN accounts a USING (account_id) WHERE p.entry_id = %s",
            (original.entry_id,),
        ).fetchall()
        header = _Header(
            idempotency_key=key,
            request_hash=request_hash,
            kind="reversal",
            tournament_id=original.tournament_id,
            round_no=original.round_no,
            table_id=original.table_id,
            match_id=original.match_id,
            hand_no=original.hand_no,
            outcome=original.outcome,
            settlement=None,
            reverses_entry_id=original.entry_id,
            reason=reason,
        )
        lines = [
            _Line(player, seat, component, -amount) for player, seat, component, amount in postings
        ]
        return self._book_entry(conn, header, lines)

    def reverse_entry(
        self,
        entry_id: int,
        reason: str,
        corrected: Settlement | Mapping[str, Any] | None = None,
    ) -> ReverseResult:
        """Book the exact reverse of ``entry_id`` and, if given, the corrected settlement.

        Both entries are booked in one transaction. An entry is reversed at most once: asking
        again with the same reason and correction returns the first result
        (``duplicate=True``); asking differently raises AlreadyExists. A reversal cannot itself
        be reversed (reverse the correction instead), nor an adjustment (FailedPrecondition:
        :meth:`cancel_adjustment` is how, so that whoever booked it knows).
        """
        entry_id = check_entry_id(entry_id)
        if not check_text(reason, "reason", MAX_REASON_LENGTH).strip():
            raise InvalidArgument("reason: say why the entry is reversed")
        if corrected is not None:
            corrected = Settlement.parse(corrected, "corrected")
        request_hash = _request_hash(
            {
                "entry_id": entry_id,
                "reason": reason,
                "corrected": corrected.to_dict() if corrected is not None else None,
            }
        )
        reversal_key = _key("reverse", entry_id)
        correction_key = _key("correct", entry_id)

        def book(conn: psycopg.Connection) -> ReverseResult:
            original = self._original(conn, entry_id)
            if original.kind == "reversal":
                raise FailedPrecondition(f"entry {entry_id} is a reversal and cannot be reversed")
            if original.kind == "adjustment":
                raise FailedPrecondition(
                    f"entry {entry_id} is an adjustment: cancel it with CancelAdjustment"
                )
            same_hand = (original.tournament_id, original.match_id, original.hand_no)
            if (
                corrected is not None
                and (corrected.tournament_id, corrected.match_id, corrected.hand_no) != same_hand
            ):
                raise InvalidArgument(
                    f"corrected: must be the same hand as the entry (tournament "
                    f"{show(original.tournament_id)}, match {show(original.match_id)}, "
                    f"hand {original.hand_no})"
                )
            reversal_id = self._book_reversal(conn, original, reversal_key, request_hash, reason)
            if reversal_id is None:
                existing = self._existing(conn, reversal_key, request_hash)
                row = conn.execute(_FIND_BY_KEY, (correction_key,)).fetchone()
                return ReverseResult(existing, int(row[0]) if row else None, duplicate=True)
            correction_id = None
            if corrected is not None:
                correction = _settlement_header(
                    corrected, "correction", correction_key, request_hash, reason
                )
                correction_id = self._book_entry(conn, correction, _settlement_lines(corrected))
                if correction_id is None:
                    raise AssertionError(f"correction key {correction_key!r} taken before reversal")
            return ReverseResult(reversal_id, correction_id, duplicate=False)

        return self._booking(book, transaction=True)

    def cancel_adjustment(self, entry_id: int, reason: str, idempotency_key: str) -> CancelResult:
        """Cancel the adjustment ``entry_id`` by booking its exact reversal, with ``reason``.

        Only adjustment entries can be cancelled (FailedPrecondition otherwise), each once.
        Idempotent by ``idempotency_key``: the same key with the same entry and reason returns
        the first reversal (``duplicate=True``); the same key for another entry or reason
        raises AlreadyExists; an entry already cancelled under another key raises
        FailedPrecondition.
        """
        entry_id = check_entry_id(entry_id)
        check_text(reason, "reason", MAX_REASON_LENGTH, required=True)
        check_text(idempotency_key, "idempotency_key", MAX_KEY_LENGTH, required=True)
        request_hash = _request_hash(
            {"entry_id": entry_id, "reason": reason, "idempotency_key": idempotency_key}
        )
        key = _key("cancel", idempotency_key)

        def book(conn: psycopg.Connection) -> CancelResult:
            booked = self._find(conn, key, request_hash)
            if booked is not None:
                return CancelResult(booked, duplicate=True)
            original = self._original(conn, entry_id)
            if original.kind != "adjustment":
                raise FailedPrecondition(
                    f"entry {entry_id} is a {original.kind}, not an adjustment: only "
                    "adjustments can be cancelled"
                )
            if original.reversed_by is not None:
                raise FailedPrecondition(
                    f"entry {entry_id} is already cancelled by entry {original.reversed_by}"
                )
            try:
                reversal_id = self._book_reversal(conn, original, key, request_hash, reason)
            except psycopg.errors.UniqueViolation as error:  # cancelled meanwhile, another key
                raise Conflict(f"entry {entry_id} was cancelled concurrently; retry") from error
            if reversal_id is None:  # the same key, booked meanwhile
                return CancelResult(self._existing(conn, key, request_hash), duplicate=True)
            return CancelResult(reversal_id, duplicate=False)

        return self._booking(book, transaction=True)

    # -- reading ---------------------------------------------------------------------------

    def standings(
        self, tournament_id: str, *, time_limit: float | None = None, public: bool = False
    ) -> list[Standing]:
        """The players of ``tournament_id`` ranked by points, then hands won, fewer hands dealt
        in, best single match; players tied on all four share a rank (listed by player id).
        The tournament's own account is left out; at most the first MAX_STANDINGS.
        ``time_limit``: see :meth:`_reading`. ``public`` (an anonymous caller): PermissionDenied
        while the tournament's results are hidden (:meth:`set_results_hidden`)."""
        check_text(tournament_id, "tournament_id", MAX_ID_LENGTH)
        params = {
            "tournament_id": tournament_id,
            "tournament_account": TOURNAMENT_ACCOUNT,
            "limit": MAX_STANDINGS,
        }
        with self._reading("GetStandings", time_limit) as conn:
            if public and _hidden(conn, tournament_id):
                raise PermissionDenied(RESULTS_HIDDEN)
            rows = conn.execute(_STANDINGS, params).fetchall()
        return [Standing(*row) for row in rows]

    def set_results_hidden(self, tournament_id: str, hidden: bool) -> bool:
        """Hide a tournament's results from the public reads (or show them again); idempotent.
        Returns ``hidden``."""
        check_text(tournament_id, "tournament_id", MAX_ID_LENGTH)
        if not tournament_id:
            raise InvalidArgument("tournament_id: required")
        with self._connection() as conn:
            if hidden:
                conn.execute(
                    "INSERT INTO hidden_results (tournament_id) VALUES (%s) ON CONFLICT DO NOTHING",
                    (tournament_id,),
                )
            else:
                conn.execute(
                    "DELETE FROM hidden_results WHERE tournament_id = %s", (tournament_id,)
                )
        return hidden

    def results_hidden(self, tournament_id: str) -> bool:
        """Whether the tournament's results are hidden from the public reads."""
        with self._connection() as conn:
            return _hidden(conn, tournament_id)

    def history(
        self,
        *,
        player_id: str = "",
        table_id: str = "",
        tournament_id: str | None = None,
        match_id: str = "",
        page_size: int = 0,
        page_token: str = "",
        time_limit: float | None = None,
        public: bool = False,
    ) -> HistoryPage:
        """Journal entries newest first, filtered by the non-empty arguments, one page at a time.

        ``page_size`` 0 means the default (50); at most 500. ``page_token`` comes from the
        previous page. ``time_limit``: see :meth:`_reading`. ``public`` (an anonymous caller):
        no entry of a tournament whose results are hidden.
        """
        filters = {"player_id": player_id, "table_id": table_id, "match_id": match_id}
        for name, value in filters.items():
            check_text(value, name, MAX_ID_LENGTH)
        if tournament_id is not None:
            check_text(tournament_id, "tournament_id", MAX_ID_LENGTH)
        if page_size < 0:
            raise InvalidArgument(f"page_size: must be 0 or more, got {page_size}")
        size = min(page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        before = parse_entry_id(page_token, "page_token") if page_token else None
        params = {
            "player_id": player_id or None,
            "table_id": table_id or None,
            "tournament_id": tournament_id,
            "match_id": match_id or None,
            "entry_id": None,
            "before": before,
            "limit": size + 1,
            "public": public,
        }
        entries = self._entries(params, "GetHistory", time_limit)
        more = len(entries) > size
        entries = entries[:size]
        return HistoryPage(entries, str(entries[-1].entry_id) if more else "")

    def entry(self, entry_id: int) -> Entry:
        """One entry by id (NotFound if there is none)."""
        entry_id = check_entry_id(entry_id)
        params = dict.fromkeys(("player_id", "table_id", "tournament_id", "match_id", "before"))
        found = self._entries({**params, "entry_id": entry_id, "limit": 1, "public": False})
        if not found:
            raise NotFound(f"entry {entry_id} does not exist")
        return found[0]

    def _entries(
        self, params: Mapping[str, Any], call: str = "", time_limit: float | None = None
    ) -> tuple[Entry, ...]:
        """The entries _HISTORY selects with ``params``, with their postings."""
        with self._reading(call, time_limit) as conn:
            rows = conn.execute(_HISTORY, params).fetchall()
            ids = [row[0] for row in rows]
            postings: dict[int, list[Posting]] = {entry: [] for entry in ids}
            for entry, player, seat, component, amount in conn.execute(
                "SELECT p.entry_id, a.player_id, p.seat, p.component, p.amount FROM postings p"
                " JOIN accounts a USING (account_id) WHERE p.entry_id = ANY(%s)"
                " ORDER BY p.entry_id, p.seat, p.component DESC, a.player_id",
                (ids,),
            ):
                postings[entry].append(Posting(player, seat, component, amount))
        return tuple(
            Entry(
                entry_id=row[0],
                kind=row[1],
                idempotency_key=row[2],
                tournament_id=row[3],
                settlement=row[4],
                postings=tuple(postings[row[0]]),
                reverses_entry_id=row[5],
                reversed_by_entry_id=row[6],
                reason=row[7],
                booked_at=row[8],
                adjustment=row[9],
            )
            for row in rows
        )

    def record_audit(self) -> float:
        """Store now as the time of the last sound audit of the whole ledger; return it (Unix
        time)."""
        with self._connection() as conn:
            row = conn.execute(
                "INSERT INTO last_audit (audited_at) VALUES (now()) ON CONFLICT (singleton)"
                " DO UPDATE SET audited_at = EXCLUDED.audited_at"
                " RETURNING extract(epoch FROM audited_at)"
            ).fetchone()
        return float(row[0])

    def last_audit(self) -> float | None:
        """The time (Unix) of the last sound audit of the whole ledger, None if none was."""
        with self._connection() as conn:
            row = conn.execute("SELECT extract(epoch FROM audited_at) FROM last_audit").fetchone()
        return None if row is None else float(row[0])

    def audit(
        self, tournament_id: str | None = None, *, time_limit: float | None = None
    ) -> AuditReport:
        """Check every entry balances, every balance equals its postings and every tournament
        sums to zero, on one consistent snapshot; return the figures and the problems found.
        A tournament's sum includes its own account (TOURNAMENT_ACCOUNT). The report lists at
        most MAX_AUDIT_TOURNAMENTS tournaments' sums, those that do not sum to zero first.
        ``time_limit``: see :meth:`_reading`."""
        if tournament_id is not None:
            check_text(tournament_id, "tournament_id", MAX_ID_LENGTH)
        params = {"tournament_id": tournament_id}
        with self._reading("Audit", time_limit, isolation="REPEATABLE READ") as conn:
            entries, postings = conn.execute(_AUDIT_COUNTS, params).fetchone()
            accounts = conn.execute(_AUDIT_ACCOUNTS, params).fetchone()[0]
            unbalanced = conn.execute(_AUDIT_UNBALANCED, params).fetchall()
            mismatches = conn.execute(_AUDIT_BALANCES, params).fetchall()
            sums = conn.execute(_AUDIT_TOURNAMENTS, params).fetchall()
        problems = [
            f"entry {entry} has {count} postings summing to {total}"
            for entry, count, total in unbalanced
        ]
        problems += [
            f"account {show(player)} of tournament {show(tournament)} has balance {balance} "
            f"but its postings sum to {total}"
            for tournament, player, balance, total in mismatches
        ]
        tournaments = [TournamentSum(t, int(n), int(total)) for t, n, total in sums]
        problems += [
            f"tournament {show(t.tournament_id)} sums to {t.total}" for t in tournaments if t.total
        ]
        listed = sorted(tournaments, key=lambda t: t.total == 0)[:MAX_AUDIT_TOURNAMENTS]
        return AuditReport(
            entries_checked=int(entries),
            postings_checked=int(postings),
            accounts_checked=int(accounts),
            unbalanced_entries=len(unbalanced),
            balance_mismatches=len(mismatches),
            tournaments=tuple(listed),
            problems=tuple(problems[:_MAX_PROBLEMS]),
            tournaments_checked=len(tournaments),
        )


RESULTS_HIDDEN = (
    "this tournament's results are hidden until the organiser reveals them (matchmaking's"
    " GetStandings shows what is public)"
)


def _hidden(conn: psycopg.Connection, tournament_id: str) -> bool:
    row = conn.execute(
        "SELECT 1 FROM hidden_results WHERE tournament_id = %s", (tournament_id,)
    ).fetchone()
    return row is not None


_HISTORY = """
SELECT e.entry_id, e.kind, e.idempotency_key, e.tournament_id, e.settlement,
       e.reverses_entry_id, r.entry_id, e.reason, e.booked_at, e.adjustment
FROM journal_entries e
LEFT JOIN journal_entries r ON r.reverses_entry_id = e.entry_id
WHERE (%(entry_id)s::bigint IS NULL OR e.entry_id = %(entry_id)s)
  AND (%(tournament_id)s::text IS NULL OR e.tournament_id = %(tournament_id)s)
  AND (%(table_id)s::text IS NULL OR e.table_id = %(table_id)s)
  AND (%(match_id)s::text IS NULL OR e.match_id = %(match_id)s)
  AND (%(player_id)s::text IS NULL OR e.entry_id IN (
        SELECT p.entry_id FROM postings p JOIN accounts a USING (account_id)
        WHERE a.player_id = %(player_id)s))
  AND (%(before)s::bigint IS NULL OR e.entry_id < %(before)s)
  AND (NOT %(public)s OR NOT EXISTS (
        SELECT 1 FROM hidden_results h WHERE h.tournament_id = e.tournament_id))
ORDER BY e.entry_id DESC
LIMIT %(limit)s
"""

# Effective entries only (neither reversals nor reversed). Hand, win and match counts come from
# settlements ("hand" postings); the best match sums a match's hands, kongs, placement,
# replacement and correction points, never penalties, awards nor entries without a match;
# the tournament's own account is not ranked.
_STANDINGS = """
WITH effective AS (
    SELECT e.entry_id, e.match_id, e.settlement
    FROM journal_entries e
    WHERE e.tournament_id = %(tournament_id)s AND e.kind <> 'reversal'
      AND NOT EXISTS (SELECT 1 FROM journal_entries r WHERE r.reverses_entry_id = e.entry_id)
), lines AS (
    SELECT p.account_id, p.entry_id, p.seat, p.component, p.amount, ef.match_id, ef.settlement
    FROM effective ef JOIN postings p USING (entry_id)
), hands AS (
    SELECT account_id, count(*) AS hands_played, count(DISTINCT match_id) AS matches_played
    FROM lines WHERE component = 'hand' GROUP BY account_id
), wins AS (
    SELECT l.account_id,
           count(*) FILTER (WHERE (w ->> 'winner')::int = l.seat) AS hands_won,
           count(*) FILTER (WHERE (w ->> 'winner')::int = l.seat
                              AND w ->> 'kind' = 'WIN_KIND_SELF_DRAW') AS self_draw_wins,
           count(DISTINCT l.entry_id) FILTER (WHERE (w ->> 'discarder')::int = l.seat)
               AS hands_dealt_in
    FROM lines l CROSS JOIN LATERAL jsonb_array_elements(l.settlement -> 'wins') AS w
    WHERE l.component = 'hand'
    GROUP BY l.account_id
), matches AS (
    SELECT account_id, max(points) AS best_match_points
    FROM (SELECT account_id, match_id, sum(amount) AS points FROM lines
          WHERE component NOT IN ('penalty', 'award') AND match_id <> ''
          GROUP BY account_id, match_id) per_match
    GROUP BY account_id
), components AS (
    SELECT account_id,
           sum(amount) FILTER (WHERE component = 'kong') AS kong_points,
           sum(amount) FILTER (WHERE component = 'penalty') AS penalty_points,
           sum(amount) FILTER (WHERE component = 'placement') AS placement_points,
           sum(amount) FILTER (WHERE component = 'replacement') AS replacement_points,
           sum(amount) FILTER (WHERE component = 'award') AS award_points,
           sum(amount) FILTER (WHERE component = 'correction') AS correction_points
    FROM lines WHERE component <> 'hand'
    GROUP BY account_id
), rows AS (
    SELECT a.player_id, a.balance AS points,
           coalesce(wins.hands_won, 0) AS hands_won,
           coalesce(wins.self_draw_wins, 0) AS self_draw_wins,
           coalesce(wins.hands_dealt_in, 0) AS hands_dealt_in,
           coalesce(matches.best_match_points, 0) AS best_match_points,
           coalesce(hands.hands_played, 0) AS hands_played,
           coalesce(hands.matches_played, 0) AS matches_played,
           coalesce(components.kong_points, 0) AS kong_points,
           coalesce(components.penalty_points, 0) AS penalty_points,
           coalesce(components.placement_points, 0) AS placement_points,
           coalesce(components.replacement_points, 0) AS replacement_points,
           coalesce(components.award_points, 0) AS award_points,
           coalesce(components.correction_points, 0) AS correction_points
    FROM accounts a
    LEFT JOIN hands USING (account_id)
    LEFT JOIN wins USING (account_id)
    LEFT JOIN matches USING (account_id)
    LEFT JOIN components USING (account_id)
    WHERE a.tournament_id = %(tournament_id)s AND a.player_id <> %(tournament_account)s
      AND EXISTS (SELECT 1 FROM postings p WHERE p.account_id = a.account_id)
)
SELECT rank() OVER (ORDER BY points DESC, hands_won DESC, hands_dealt_in ASC,
                             best_match_points DESC)::int,
       player_id, points, hands_won::int, self_draw_wins::int, hands_dealt_in::int,
       best_match_points::bigint, hands_played::int, matches_played::int, kong_points::bigint,
       penalty_points::bigint, placement_points::bigint, replacement_points::bigint,
       award_points::bigint, correction_points::bigint
FROM rows
ORDER BY 1, player_id
LIMIT %(limit)s
"""

_AUDIT_COUNTS = """
SELECT (SELECT count(*) FROM journal_entries
        WHERE %(tournament_id)s::text IS NULL OR tournament_id = %(tournament_id)s),
       (SELECT count(*) FROM postings p JOIN journal_entries e USING (entry_id)
        WHERE %(tournament_id)s::text IS NULL OR e.tournament_id = %(tournament_id)s)
"""

_AUDIT_ACCOUNTS = """
SELECT count(*) FROM accounts
WHERE %(tournament_id)s::text IS NULL OR tournament_id = %(tournament_id)s
"""

_AUDIT_UNBALANCED = """
SELECT e.entry_id, count(p.entry_id), coalesce(sum(p.amount), 0)
FROM journal_entries e LEFT JOIN postings p USING (entry_id)
WHERE %(tournament_id)s::text IS NULL OR e.tournament_id = %(tournament_id)s
GROUP BY e.entry_id
HAVING count(p.entry_id) = 0 OR coalesce(sum(p.amount), 0) <> 0
ORDER BY e.entry_id
"""

_AUDIT_BALANCES = """
SELECT a.tournament_id, a.player_id, a.balance, coalesce(sum(p.amount), 0)
FROM accounts a LEFT JOIN postings p USING (account_id)
WHERE %(tournament_id)s::text IS NULL OR a.tournament_id = %(tournament_id)s
GROUP BY a.account_id
HAVING a.balance <> coalesce(sum(p.amount), 0)
ORDER BY a.tournament_id, a.player_id
"""

_AUDIT_TOURNAMENTS = """
SELECT e.tournament_id, count(DISTINCT e.entry_id), coalesce(sum(p.amount), 0)
FROM journal_entries e LEFT JOIN postings p USING (entry_id)
WHERE %(tournament_id)s::text IS NULL OR e.tournament_id = %(tournament_id)s
GROUP BY e.tournament_id
ORDER BY e.tournament_id
"""
