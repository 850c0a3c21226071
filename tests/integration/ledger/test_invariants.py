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


_ADJUSTMENT_ENTRY = (
    "INSERT INTO journal_entries (idempotency_key, request_hash, kind, tournament_id, round_no,"
    " table_id, match_id, hand_no, outcome, settlement, adjustment)"
    " VALUES (%s, '\\x00', %s, 'sample', 1, '', 'm', 0, '', %s, %s) RETURNING entry_id"
)


@pytest.mark.parametrize(
    ("kind", "settlement", "adjustment", "components", "seats", "amounts", "message"),
    [
        # adjustment postings have no seat; hand and kong postings have one
        ("adjustment", None, "{}", ("penalty", "penalty"), (0, None), (5, -5), "seat_presence"),
        ("settlement", "{}", None, ("hand", "hand"), (0, None), (5, -5), "seat_presence"),
        ("adjustment", None, "{}", ("bonus", "bonus"), (None, None), (5, -5), "component_check"),
        # every amount within 10^12
        ("adjustment", None, "{}", ("placement",) * 2, (None, None), (10**12 + 1, -(10**12) - 1),
         "amount_bound"),
        # an adjustment entry carries its adjustment, and no settlement
        ("adjustment", None, None, ("penalty", "penalty"), (None, None), (5, -5), "adjustment_check"),
        ("adjustment", "{}", "{}", ("penalty", "penalty"), (None, None), (5, -5), "settlement_check"),
        ("settlement", "{}", "{}", ("hand", "hand"), (0, 1), (5, -5), "adjustment_check"),
        # and balances like every entry
        ("adjustment", None, "{}", ("penalty", "penalty"), (None, None), (5, -4), "unbalanced"),
    ],
)  # fmt: skip
def test_adjustment_rows_are_checked_by_the_database(
    booked: Ledger, kind, settlement, adjustment, components, seats, amounts, message
):
    with booked.pool.connection() as conn:
        first, second = _account_ids(conn)[:2]
        with pytest.raises(psycopg.errors.CheckViolation, match=message), conn.transaction():
            entry_id = conn.execute(
                _ADJUSTMENT_ENTRY, ("adj:1", kind, settlement, adjustment)
            ).fetchone()[0]
            conn.execute(
                "INSERT INTO postings (entry_id, account_id, component, seat, amount)"
                " VALUES (%s, %s, %s, %s, %s), (%s, %s, %s, %s, %s)",
                (entry_id, first, components[0], seats[0], amounts[0],
                 entry_id, second, components[1], seats[1], amounts[1]),
            )  # fmt: skip
    report = booked.audit()
    assert report.ok and report.entries_checked == 1


def test_a_booked_adjustment_is_append_only(booked: Ledger):
    booked.post_adjustment(
        {"idempotency_key": "pen", "tournament_id": "sample", "kind": "ADJUSTMENT_KIND_PENALTY",
         "lines": [{"player_id": "p0", "amount": -5}, {"player_id": "#tournament", "amount": 5}]}
    )  # fmt: skip
    with booked.pool.connection() as conn:
        for statement in (
            "UPDATE journal_entries SET adjustment = '{}' WHERE kind = 'adjustment'",
            "UPDATE postings SET amount = 0 WHERE component = 'penalty'",
            "DELETE FROM postings WHERE component = 'penalty'",
        ):
            with pytest.raises(psycopg.errors.RestrictViolation, match="refused"):
                conn.execute(statement)
    assert booked.audit().ok
