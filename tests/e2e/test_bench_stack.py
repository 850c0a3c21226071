"""`hebei bench stack` as a user runs it: a small run through the real services prints one
JSON object with the figures the issue names, consistent with each other."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from tests.e2e.conftest import hebei_program


def run_bench(env: dict[str, str], cwd, *options: str) -> subprocess.CompletedProcess:
    """``hebei bench stack --hands 1 --processes 1 --json`` with ``options``."""
    argv = [hebei_program(), "bench", "stack", "--hands", "1", "--processes", "1", *options]
    return subprocess.run(
        [*argv, "--json"], env=env, capture_output=True, text=True, timeout=600, cwd=cwd
    )


def test_a_small_stack_bench_reports_every_figure(database_url, broker_url, tmp_path):
    env = dict(
        os.environ,
        HEBEI_DATABASE_URL=database_url,
        HEBEI_BROKER_URL=broker_url,
        HEBEI_DATA_DIR=str(tmp_path / "data"),
    )
    result = run_bench(env, tmp_path, "--tables", "2", "--policy", "efficiency")
    assert result.returncode == 0, result.stderr[-3000:]
    figures = json.loads(result.stdout)
    assert figures["hands"] == 2 and figures["in_process_hands"] == 2
    assert figures["hands_per_second"] > 0 and figures["in_process_hands_per_second"] > 0
    # the rates are printed rounded, the ratio is of the unrounded rates
    assert figures["ratio"] == pytest.approx(
        figures["hands_per_second"] / figures["in_process_hands_per_second"], rel=0.02
    )
    assert 0 < figures["seat_rtt_p50_ms"] <= figures["seat_rtt_p99_ms"]
    assert 0 < figures["decision_wait_p50_ms"] <= figures["decision_wait_p99_ms"]
    # The round trip is the wait's part after the observation left (its commit came first).
    assert figures["seat_rtt_p50_ms"] <= figures["decision_wait_p50_ms"]
    latency = figures["latency_ms"]
    assert latency["decision_sent_to_answer"]["p99"] == figures["seat_rtt_p99_ms"]
    assert latency["decision_offered_to_answer"]["p99"] == figures["decision_wait_p99_ms"]
    assert "TableService/OpenMatch" in figures["method_p99_ms"]["table"]
    assert {"table", "ledger", "matchmaking", "bots", "postgres", "redis"} <= set(
        figures["cpu_seconds"]
    )
    assert figures["settlements_per_second"] > 0 and figures["events_per_second"] > 0


def test_bad_options_get_one_line(tmp_path):
    result = subprocess.run(
        [hebei_program(), "bench", "stack", "--tables", "0"],
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 2 and result.stderr.startswith("hebei: --tables must be 1-256")


def test_embedded_servers_are_the_run_s_own_and_removed_after_it(tmp_path):
    """Without configured URLs the run starts PostgreSQL and Redis in a fresh folder of its
    own (an interrupted run's unfinished tournament in the shared data would be resumed and
    played beside the measured one), removes it afterwards and keeps the logs."""
    env = {
        k: v for k, v in os.environ.items() if k not in ("HEBEI_DATABASE_URL", "HEBEI_BROKER_URL")
    }
    env["HEBEI_DATA_DIR"] = str(tmp_path / "data")
    result = run_bench(env, tmp_path, "--tables", "1", "--policy", "random")
    assert result.returncode == 0, result.stderr[-3000:]
    assert json.loads(result.stdout)["hands"] == 1
    data = tmp_path / "data"
    assert not (data / "postgres").exists() and not (data / "redis").exists()
    assert list((data / "bench").iterdir()) == []  # the run's folder is gone
    assert (data / "logs" / "table.log").stat().st_size > 0
