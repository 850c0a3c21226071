"""Versioned migrations: applied once, in order, safely from replicas starting together."""

from __future__ import annotations

import threading

import psycopg
import pytest
from psycopg import sql

from hebei.common import db
from hebei.ledger.journal import MIGRATIONS_PACKAGE


def test_replicas_starting_together_apply_each_migration_once(database_url: str, fresh_schema: str):
    versions = [m.version for m in db.load_migrations(MIGRATIONS_PACKAGE)]
    assert versions and versions == sorted(versions)
    applied: list[list[int]] = []
    errors: list[BaseException] = []
    start = threading.Barrier(4)

    def replica() -> None:
        start.wait()
        try:
            applied.append(db.migrate(database_url, fresh_schema, MIGRATIONS_PACKAGE))
        except BaseException as error:  # asserted below
            errors.append(error)

    threads = [threading.Thread(target=replica) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sorted(applied) == [[], [], [], versions]  # one replica did the work
    with psycopg.connect(database_url) as conn:
        rows = conn.execute(
            sql.SQL("SELECT version FROM {}.schema_migrations ORDER BY 1").format(
                sql.Identifier(fresh_schema)
            )
        ).fetchall()
    assert [row[0] for row in rows] == versions
    assert db.migrate(database_url, fresh_schema, MIGRATIONS_PACKAGE) == []


def test_an_applied_migration_that_changed_is_an_error(database_url: str, fresh_schema: str):
    db.migrate(database_url, fresh_schema, MIGRATIONS_PACKAGE)
    with psycopg.connect(database_url) as conn:
        conn.execute(
            sql.SQL("UPDATE {}.schema_migrations SET checksum = 'edited'").format(
                sql.Identifier(fresh_schema)
            )
        )
    with pytest.raises(RuntimeError, match="changed after it was applied"):
        db.migrate(database_url, fresh_schema, MIGRATIONS_PACKAGE)


@pytest.mark.parametrize("name", ["Ledger", "1st", "a-b", "x;drop", ""])
def test_schema_names_are_plain_identifiers(name: str):
    with pytest.raises(ValueError, match="schema name"):
        db.validate_schema_name(name)
