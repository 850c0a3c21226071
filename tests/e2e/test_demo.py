"""`hebei demo` (what `make run` runs): a Swiss tournament through the matchmaking service on
the whole local stack, as a user runs it."""

from __future__ import annotations

import json
import os
import subprocess

from tests.e2e.conftest import hebei_program


def run_demo(args: list[str], env: dict[str, str], cwd) -> subprocess.CompletedProcess:
    return subprocess.run(
        [hebei_program(), "demo", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=600,
    )


def test_demo_plays_a_swiss_tournament_and_the_ledger_books_every_hand(
    database_url, broker_url, tmp_path
):
    env = dict(
        os.environ,
        HEBEI_DATABASE_URL=database_url,
        HEBEI_BROKER_URL=broker_url,
        HEBEI_DATA_DIR=str(tmp_path / "data"),
    )
    result = run_demo(
        ["--players", "6", "--rounds", "2", "--hands", "1", "--seed", "3", "--json"], env, tmp_path
    )
    assert result.returncode == 0, result.stderr[-3000:]
    summary = json.loads(result.stdout)
    assert summary["audit_ok"] is True and summary["mismatch"] is False
    assert summary["hands"] == 2 * 2  # two tables (six bots and two fillers), two rounds
    rows = summary["standings"]
    ranked = [r for r in rows if not r["filler"]]
    assert len(ranked) == 6 and [r["rank"] for r in ranked] == list(range(1, 7))
    assert len([r for r in rows if r["filler"]]) == 2
    assert all(r["decided_by"] for r in ranked[1:])
    points = [r["points"] for r in ranked]
    assert points == sorted(points, reverse=True)
    assert sum(r["points"] for r in rows) == 0
    assert [q["round"] for q in summary["seating"]] == [1, 2]
    assert all(q["tables"] == 2 for q in summary["seating"])


def test_demo_refuses_bad_options_in_one_line(tmp_path):
    result = run_demo(["--players", "2"], dict(os.environ), tmp_path)
    assert result.returncode == 2 and "--players must be 4-256" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
