"""`hebei bench stack --soak` for a few seconds through the real services: it plays, finds no
error, samples the memory of every process and the seat round trip's p99 per window."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def hebei() -> str:
    return str(Path(sys.executable).with_name("hebei"))


def test_a_tiny_soak_reports_errors_memory_and_p99_per_window(
    database_url: str, broker_url: str, stack_env: dict[str, str], data_dir: Path
) -> None:
    env = dict(
        os.environ, HEBEI_DATABASE_URL=database_url, HEBEI_BROKER_URL=broker_url,
        HEBEI_DATA_DIR=str(data_dir), **stack_env,
    )  # fmt: skip
    result = subprocess.run(
        [hebei(), "bench", "stack", "--soak", "--minutes", "0.05", "--window", "1",
         "--tables", "1", "--hands", "1", "--processes", "1", "--policy", "random", "--json"],
        env=env, capture_output=True, text=True, timeout=600, cwd=data_dir,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    figures = json.loads(result.stdout)
    assert figures["errors"] == {"total": 0}
    assert figures["matches"] >= 1 and figures["hands"] == figures["matches"]
    soak = figures["soak"]
    assert soak["windows"] and all(w["seconds"] >= 1 for w in soak["windows"])
    assert any(w["seat_rtt_p99_ms"] for w in soak["windows"])
    assert any(w["decision_wait_p99_ms"] for w in soak["windows"])
    memory = soak["memory"]
    assert {"table", "ledger", "matchmaking", "bots-1", "redis"} <= set(memory)
    assert any(name.startswith("bots-1/") for name in memory)  # each Celery process
    for name, m in memory.items():
        assert 0 < m["start_mib"] <= m["max_mib"] and m["end_rss_mib"] > 0, name
    assert soak["memory_bound_mib"] == 64 and soak["memory_within_bound"] is True


def test_soak_options_are_checked(data_dir: Path) -> None:
    result = subprocess.run(
        [hebei(), "bench", "stack", "--soak", "--minutes", "0"],
        capture_output=True, text=True, timeout=60, cwd=data_dir,
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr.startswith("hebei: --minutes must be 0.05-1440")
