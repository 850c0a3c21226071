"""``hebei ledger audit`` and ``hebei bench ledger`` on a real database."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from typer.testing import CliRunner

from hebei.cli import (
    app,
    commands,  # noqa: F401  (registers the sub-commands)
)
from hebei.ledger.journal import Ledger


def test_audit_reports_figures_and_fails_on_a_problem(
    ledger: Ledger, database_url: str, fresh_schema: str, make_settlement: Callable[..., Any]
):
    ledger.post_settlement(make_settlement("m1", 1))
    ledger.post_settlement(make_settlement("m1", 2))
    args = ["ledger", "audit", "--database-url", database_url, "--schema", fresh_schema]
    result = CliRunner().invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    assert figures["ok"] and figures["entries_checked"] == 2 and figures["problems"] == []
    with ledger.pool.connection() as conn:
        conn.execute("UPDATE accounts SET balance = balance - 1 WHERE player_id = 'p0'")
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1
    assert "account 'p0' of tournament 'sample' has balance" in result.output


def test_audit_of_an_unreachable_database_is_one_line():
    result = CliRunner().invoke(
        app, ["ledger", "audit", "--database-url", "postgresql://x@127.0.0.1:1/none"]
    )
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and result.output.startswith("hebei: ")


def test_bench_ledger_reports_both_rates(database_url: str):
    args = ["bench", "ledger", "--database-url", database_url, "-n", "40", "--plain-rows", "40"]
    result = CliRunner().invoke(app, [*args, "--rounds", "1", "-c", "2", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    assert figures["settlements_per_second"] > 0 and figures["plain_inserts_per_second"] > 0
    assert (
        figures["ratio"] == figures["settlements_per_second"] / figures["plain_inserts_per_second"]
    )
    assert figures["audit_ok"] and figures["entries_booked"] == 40
    assert figures["concurrency"] == 2 and figures["fsync"] in ("on", "off")


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["-n", "0"], "hebei: --settlements must be 1-1,000,000, got 0"),
        (["--plain-rows", "1000001"], "hebei: --plain-rows must be 1-1,000,000, got 1000001"),
        (["-c", "65"], "hebei: --concurrency must be 1-64, got 65"),
        (["--rounds", "101"], "hebei: --rounds must be 1-100, got 101"),
    ],
)
def test_bench_ledger_counts_out_of_their_bounds_are_one_line(args: list[str], line: str):
    # Refused before any connection: the database URL is never tried.
    url = "postgresql://x@127.0.0.1:1/none"
    result = CliRunner().invoke(app, ["bench", "ledger", "--database-url", url, *args])
    assert result.exit_code == 2
    assert result.output.strip() == line
