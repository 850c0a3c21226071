"""PostgreSQL plumbing shared by the services: connection pools, migrations, error mapping.

- :func:`create_pool` builds a ``psycopg_pool.ConnectionPool`` whose connections use one
  service's schema, are checked before each use (so a pool survives a PostgreSQL restart: broken
  connections are replaced, no service restart needed) and time out quickly when the database
  is down.
- :func:`migrate` applies a package's versioned ``NNNN_name.sql`` files to a schema, once each,
  recorded in ``<schema>.schema_migrations``, under an advisory lock so that replicas starting
  together do not race.
- :func:`database_errors` turns psycopg's connection failures and pool timeouts into the
  domain's :class:`~hebei.common.errors.Unavailable` (gRPC UNAVAILABLE) with a clear message.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import re
import select
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib import resources

import psycopg
from psycopg import pq, sql
from psycopg_pool import ConnectionPool, PoolTimeout

from hebei.common.errors import Conflict, Unavailable

__all__ = [
    "Migration",
    "check_idle_connection",
    "create_pool",
    "database_errors",
    "load_migrations",
    "migrate",
    "validate_schema_name",
]

log = logging.getLogger(__name__)

# SQLSTATE class 40: the transaction was rolled back and may simply be run again.
_ROLLED_BACK = (
    psycopg.errors.TransactionRollback,
    psycopg.errors.SerializationFailure,
    psycopg.errors.DeadlockDetected,
)
_SCHEMA_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
_MIGRATION_FILE = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")


def validate_schema_name(schema: str) -> str:
    """Return ``schema`` if it is a plain lower-case identifier, else raise ValueError."""
    if not _SCHEMA_NAME.fullmatch(schema):
        raise ValueError(f"schema name must match {_SCHEMA_NAME.pattern}, got {schema!r}")
    return schema


def first_line(error: BaseException) -> str:
    """A database error's message in one line (psycopg's run over several)."""
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


@contextlib.contextmanager
def opening(what: str) -> Iterator[None]:
    """A service opening its database at start: any failure to (a URL that is not one, a
    server out of reach, a pool that times out) is :class:`StartupError` "cannot open
    ``what``: <the first line>", one line for ``run_main``, never a stack trace."""
    from hebei.common.config import StartupError

    try:
        yield
    except (Unavailable, PoolTimeout, psycopg.Error) as error:
        raise StartupError(f"cannot open {what}: {first_line(error)}") from None


@contextlib.contextmanager
def database_errors() -> Iterator[None]:
    """Map database failures to domain errors inside the ``with`` block.

    A pool timeout or a lost/refused connection becomes :class:`Unavailable`; a serialization
    failure or deadlock (the transaction was rolled back, retrying is safe) becomes
    :class:`Conflict`. Other psycopg errors are programming errors and pass through.
    """
    try:
        yield
    except PoolTimeout as error:
        raise Unavailable(f"database unavailable: no connection ({first_line(error)})") from error
    except _ROLLED_BACK as error:
        raise Conflict(f"database conflict, retry: {first_line(error)}") from error
    except psycopg.OperationalError as error:
        raise Unavailable(f"database unavailable: {first_line(error)}") from error


def _readable(fd: int) -> bool:
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(0))


def check_idle_connection(conn: psycopg.Connection) -> None:
    """The pool's check before it hands ``conn`` out: a round trip (an empty query, raising
    when the connection is broken) only when something may be wrong, not on every use.

    An idle connection's socket has nothing to read unless the server sent something: a
    restart or an administrator's termination sends its error and closes the socket, a
    backend that dies closes it (both make it readable). So a connection that is idle, not
    marked broken and whose socket has nothing to read is handed out as it is; any other is
    checked with the round trip, as psycopg_pool's own check does for every connection."""
    if (
        not conn.broken
        and conn.info.transaction_status == pq.TransactionStatus.IDLE
        and not _readable(conn.pgconn.socket)
    ):
        return
    ConnectionPool.check_connection(conn)


def create_pool(
    url: str,
    *,
    schema: str | None = None,
    min_size: int = 2,
    max_size: int = 10,
    timeout: float = 5.0,
    connect_timeout: int = 3,
    name: str = "hebei",
    wait: bool = False,
    autocommit: bool = False,
) -> ConnectionPool:
    """Open a connection pool on ``url`` whose sessions use ``schema`` as search_path.

    ``timeout`` bounds how long a caller waits for a connection (then PoolTimeout, which
    :func:`database_errors` maps to UNAVAILABLE). Connections are checked before being handed
    out, so after a PostgreSQL restart the stale ones are dropped and new ones made. With
    ``wait=True`` the call blocks until ``min_size`` connections are open (and raises if the
    database cannot be reached within ``timeout``). With ``autocommit=True`` each statement
    commits by itself unless run inside ``conn.transaction()`` (one round trip fewer for
    single-statement writes).
    """
    search_path = validate_schema_name(schema) if schema else None

    def configure(conn: psycopg.Connection) -> None:
        if search_path:
            conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(search_path)))
        conn.commit()

    pool = ConnectionPool(
        url,
        min_size=min_size,
        max_size=max_size,
        timeout=timeout,
        name=name,
        kwargs={
            "connect_timeout": connect_timeout,
            "application_name": name,
            "autocommit": autocommit,
        },
        configure=configure,
        check=check_idle_connection,
        # A failed connection attempt is given up at once; the next caller needing a
        # connection tries again, so the pool recovers as soon as the database is back.
        reconnect_timeout=0,
        open=False,
    )
    pool.open(wait=wait, timeout=timeout)
    return pool


@dataclass(frozen=True)
class Migration:
    """One versioned migration file."""

    version: int
    name: str
    text: str

    @property
    def checksum(self) -> str:
        """SHA-256 of the file's text; an applied migration must never change."""
        return hashlib.sha256(self.text.encode()).hexdigest()


def load_migrations(package: str) -> list[Migration]:
    """The ``NNNN_name.sql`` files of ``package``, in version order."""
    migrations = []
    for entry in resources.files(package).iterdir():
        match = _MIGRATION_FILE.match(entry.name)
        if match:
            migrations.append(
                Migration(int(match.group(1)), match.group(2), entry.read_text(encoding="utf-8"))
            )
    migrations.sort(key=lambda migration: migration.version)
    versions = [migration.version for migration in migrations]
    if len(set(versions)) != len(versions):
        raise RuntimeError(f"duplicate migration versions in {package}: {versions}")
    return migrations


def _lock_key(schema: str) -> int:
    digest = hashlib.blake2b(f"hebei.migrate:{schema}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def migrate(
    url: str,
    schema: str,
    package: str,
    *,
    on_apply: Callable[[Migration], None] | None = None,
) -> list[int]:
    """Apply ``package``'s migrations to ``schema`` (created if needed); return new versions.

    Migration files use unqualified names: each runs in its own transaction with the
    search_path set to ``schema`` (functions should say ``SET search_path FROM CURRENT``).
    A session advisory lock keyed on the schema serialises concurrent starts; an applied
    migration whose file changed since is an error.
    """
    validate_schema_name(schema)
    schema_id = sql.Identifier(schema)
    applied_now: list[int] = []
    with database_errors(), psycopg.connect(url, autocommit=True, connect_timeout=5) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (_lock_key(schema),))
        try:
            conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(schema_id))
            conn.execute(
                sql.SQL(
                    "CREATE TABLE IF NOT EXISTS {}.schema_migrations ("
                    " version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL,"
                    " applied_at timestamptz NOT NULL DEFAULT now())"
                ).format(schema_id)
            )
            rows = conn.execute(
                sql.SQL("SELECT version, checksum FROM {}.schema_migrations").format(schema_id)
            ).fetchall()
            applied = {int(version): str(checksum) for version, checksum in rows}
            for migration in load_migrations(package):
                if migration.version in applied:
                    if applied[migration.version] != migration.checksum:
                        raise RuntimeError(
                            f"migration {migration.version:04d}_{migration.name} of {package} "
                            f"changed after it was applied to schema {schema}"
                        )
                    continue
                with conn.transaction():
                    conn.execute(sql.SQL("SET LOCAL search_path TO {}").format(schema_id))
                    conn.execute(migration.text.encode())
                    conn.execute(
                        sql.SQL(
                            "INSERT INTO {}.schema_migrations (version, name, checksum)"
                            " VALUES (%s, %s, %s)"
                        ).format(schema_id),
                        (migration.version, migration.name, migration.checksum),
                    )
                log.info(
                    "applied migration %04d_%s to schema %s",
                    migration.version,
                    migration.name,
                    schema,
                )
                if on_apply is not None:
                    on_apply(migration)
                applied_now.append(migration.version)
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_lock_key(schema),))
    return applied_now


def drop_schema(url: str, schema: str) -> None:
    """Drop ``schema`` and everything in it (best effort: a leftover only takes disk space).

    For throw-away schemas only: a local table of ``hebei play`` or ``hebei demo``.
    """
    validate_schema_name(schema)
    with (
        contextlib.suppress(psycopg.Error),
        psycopg.connect(url, autocommit=True, connect_timeout=5) as conn,
    ):
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))
