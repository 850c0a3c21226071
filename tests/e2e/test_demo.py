"""`hebei demo` (what `make run` runs): a tournament on the whole local stack, as a user runs it."""

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
        timeout=300,
    )


def test_demo_plays_two_rounds_and_the_ledger_books_every_hand(database_url, broker_url, tmp_path):
    env = dict(os.environ, HEBEI_DATABASE_URL=database_url, HEBEI_BROKER_URL=broker_url)
    result = run_demo(
        ["--tables", "1", "--rounds", "2", "--hands", "2", "--seed", "3", "--json"], env, tmp_path
    )
    assert result.returncode == 0, result.stderr[-2000:]
    summary = json.loads(result.stdout)
    assert summary["hands"] == 4 and summary["audit_ok"] is True
    rows = summary["standings"]
    assert sorted(r["player_id"] for r in rows) == ["bot-01", "bot-02", "bot-03", "bot-04"]
    assert [r["rank"] for r in rows] == [1, 2, 3, 4]
    assert sum(r["points"] for r in rows) == 0
    assert [r["points"] for r in rows] == sorted((r["points"] for r in rows), reverse=True)


def test_demo_refuses_bad_options_in_one_line(tmp_path):
    result = run_demo(["--tables", "0"], dict(os.environ), tmp_path)
    assert result.returncode == 2 and "--tables must be 1-16" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
