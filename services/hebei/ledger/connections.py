"""The ledger's connections to PostgreSQL: checkouts that ride out a restart of the database,
read-only transactions with a time limit, bookings retried on deadlocks, serialization failures
and stale cached account ids, and the database's errors as domain errors (a sum leaving bigint
included)."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from typing import TypeVar

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from hebei.common import db
from hebei.common.errors import Conflict, FailedPrecondition, ResourceExhausted, Unavailable
from hebei.ledger import metrics

__all__ = ["LedgerConnections"]

_RETRIES = 3  # deadlocks and serialization failures are retried this many times
# A caller waiting for a connection asks the pool again this often (see _checkout).
_PROBE_SECONDS = 0.5


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


class LedgerConnections:
    """The ledger's connections: a pool whose connections use the ledger's schema, in
    autocommit mode, with the database's errors mapped to domain errors; reads in read-only
    transactions with a time limit, bookings retried on conflicts. Account ids are cached here
    (accounts are never deleted) and dropped when a booking finds one stale."""

    def __init__(self, pool: ConnectionPool) -> None:
        self.pool = pool
        self._accounts: dict[tuple[str, str], int] = {}
        self._accounts_lock = threading.Lock()

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
