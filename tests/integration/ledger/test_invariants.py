"""The database itself keeps the ledger's invariants, whatever SQL a buggy service sends."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import psycopg
import pytest

from hebei.ledger.journal import Ledger

Make = Callable[..., dict[str, Any]]

_NEW_ENTRY = (
    "INSERT INTO journal_entries (idempotency_key, request_hash, kind, tournament_id, round_no,"
    " table_id, match_id, hand_no, outcome, settlement)"
    " VALUES (%s, '\\x00', 'settlement', 'sample', 1, 't', 'm', 1, 'x', '{}') RETURNING entry_id"
)


@pytest.fixture
def booked(ledger: Ledger, make_settlement: Make) -> Ledger:
    """A ledger holding one settlement with kong payments."""
    ledger.post_settlement(make_settlement("m1", 1, seed=3))
    return ledger


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE postings SET amount = amount + 1",
        "DELETE FROM postings",
        "TRUNCATE postings CASCADE",
        "UPDATE journal_entries SET reason = 'edited'",
        "DELETE FROM journal_entries",
        "TRUNCATE journal_entries CASCADE",
        "DELETE FROM accounts",
        "UPDATE accounts SET player_id = 'someone else'",
    ],
)
def test_journal_is_append_only(booked: Ledger, statement: str):
    with (
        booked.pool.connection() as conn,
        pytest.raises(psycopg.errors.RestrictViolation, match="refused"),
    ):
        conn.execute(statement)
    assert booked.audit().ok


def _account_ids(conn: psycopg.Connection) -> list[int]:
    return [row[0] for row in conn.execute("SELECT account_id FROM accounts ORDER BY 1")]


def test_unbalanced_entry_is_refused(booked: Ledger):
    with booked.pool.connection() as conn:
        first, second = _account_ids(conn)[:2]
        with (
            pytest.raises(psycopg.errors.CheckViolation, match=r"unbalanced: .* sum to 1"),
            conn.transaction(),
        ):
            entry_id = conn.execute(_NEW_ENTRY, ("bad:1",)).fetchone()[0]
            conn.execute(
                "INSERT INTO postings (entry_id, account_id, component, seat, amount)"
                " VALUES (%s, %s, 'hand', 0, 5), (%s, %s, 'hand', 1, -4)",
                (entry_id, first, entry_id, second),
            )
    report = booked.audit()
    assert report.ok and report.entries_checked == 1


def test_entry_without_postings_is_refused_at_commit(booked: Ledger):
    with (
        booked.pool.connection() as conn,
        pytest.raises(psycopg.errors.CheckViolation, match="has no postings"),
        conn.transaction(),
    ):
        conn.execute(_NEW_ENTRY, ("empty:1",))
    assert booked.audit().entries_checked == 1


def test_posting_added_later_to_a_booked_entry_must_keep_it_balanced(booked: Ledger):
    with booked.pool.connection() as conn:
        entry_id = conn.execute("SELECT entry_id FROM journal_entries").fetchone()[0]
        account = conn.execute(
            "INSERT INTO accounts (tournament_id, player_id) VALUES ('sample', 'late')"
            " RETURNING account_id"
        ).fetchone()[0]
        with pytest.raises(psycopg.errors.CheckViolation, match="unbalanced"):
            conn.execute(
                "INSERT INTO postings (entry_id, account_id, component, seat, amount)"
                " VALUES (%s, %s, 'kong', 0, 7)",
                (entry_id, account),
            )
    assert booked.audit().ok


def test_audit_reports_a_balance_that_drifted_from_its_postings(booked: Ledger):
    with booked.pool.connection() as conn:
        conn.execute("UPDATE accounts SET balance = balance + 10 WHERE player_id = 'p2'")
    report = booked.audit()
    assert not report.ok
    assert report.balance_mismatches == 1
    assert any("'p2'" in problem and "balance" in problem for problem in report.problems)
    assert report.unbalanced_entries == 0
