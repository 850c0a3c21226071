"""Versioned migrations: applied once, in order, safely from replicas starting together."""

from __future__ import annotations

import importlib
import shutil
import sys
import threading
from importlib import resources
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from hebei.common import db
from hebei.ledger.journal import MIGRATIONS_PACKAGE, Ledger


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


@pytest.mark.parametrize("name", ["Ledger", "1st", "a-b", "x;drop", "", "ledger\n"])
def test_schema_names_are_plain_identifiers(name: str):
    with pytest.raises(ValueError, match="schema name"):
        db.validate_schema_name(name)


def test_0002_upgrades_a_ledger_holding_settlements(
    database_url: str, fresh_schema: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """A schema migrated by 0001 alone, with a settlement and a reversal booked (as the
    service of the previous version did), takes 0002 and keeps its figures."""
    package = tmp_path / "ledger_0001_only"
    package.mkdir()
    (package / "__init__.py").write_text("")
    shutil.copy(resources.files(MIGRATIONS_PACKAGE) / "0001_ledger.sql", package)
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    assert db.migrate(database_url, fresh_schema, "ledger_0001_only") == [1]
    sys.modules.pop("ledger_0001_only", None)
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(fresh_schema)))
        conn.execute(
            "INSERT INTO accounts (tournament_id, player_id) VALUES ('cup', 'a'), ('cup', 'b')"
        )
        with conn.transaction():
            for key, kind, reverses in (("m1:1", "settlement", None),
                                        ("reverse:1", "reversal", 1)):  # fmt: skip
                conn.execute(
                    "INSERT INTO journal_entries (idempotency_key, request_hash, kind,"
                    " tournament_id, round_no, table_id, match_id, hand_no, outcome, settlement,"
                    " reverses_entry_id) VALUES (%s, '\\x00', %s, 'cup', 1, 't', 'm1', 1, 'x',"
                    " %s, %s)",
                    (key, kind, None if reverses else "{}", reverses),
                )
            conn.execute(
                "INSERT INTO postings (entry_id, account_id, component, seat, amount)"
                " SELECT e.entry_id, a.account_id, 'hand', 0, s.sign * (CASE a.player_id"
                " WHEN 'a' THEN 7 ELSE -7 END)"
                " FROM journal_entries e, accounts a,"
                " (VALUES ('m1:1', 1), ('reverse:1', -1)) AS s(key, sign)"
                " WHERE e.idempotency_key = s.key"
            )
    ledger = Ledger.open(database_url, fresh_schema)  # applies 0002
    try:
        report = ledger.audit()
        assert report.ok and report.entries_checked == 2
        entries = ledger.history().entries
        assert [(e.kind, e.adjustment) for e in entries] == [
            ("reversal", None),
            ("settlement", None),
        ]
        ledger.post_adjustment(
            {"idempotency_key": "pen", "tournament_id": "cup", "kind": "ADJUSTMENT_KIND_PENALTY",
             "lines": [{"player_id": "a", "amount": -2}, {"player_id": "#tournament", "amount": 2}]}
        )  # fmt: skip
        assert [(s.player_id, s.points) for s in ledger.standings("cup")] == [("b", 0), ("a", -2)]
        assert ledger.audit().ok
    finally:
        ledger.close()
