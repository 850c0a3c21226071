"""`hebei bench scale` as a user runs it: a small run (4 tables of one scripted person and three
bots, on 2 engine replicas, a short window) through the real services prints one JSON object
with every figure the issue names, consistent with each other, and no error."""

from __future__ import annotations

import json
import os
import subprocess

import psycopg

from tests.e2e.conftest import hebei_program

TABLES, PACE, BOT_PACE = 4, 0.3, 0.05


def test_a_small_scale_bench_reports_every_figure_and_no_error(database_url, broker_url, tmp_path):
    env = dict(
        os.environ,
        HEBEI_DATABASE_URL=database_url,
        HEBEI_BROKER_URL=broker_url,
        HEBEI_DATA_DIR=str(tmp_path / "data"),
        # The people's pace here is short: the engine's bot pace (the discard's hold) must be
        # shorter still (hebei bench scale refuses a pace within it).
        HEBEI_TABLE_BOT_PACE_SECONDS=str(BOT_PACE),
    )
    argv = [
        hebei_program(), "bench", "scale", "--tables", str(TABLES), "--pace", str(PACE),
        "--table-replicas", "2", "--measure-seconds", "8", "--warm-up-seconds", "1",
        "--policy", "efficiency", "--processes", "1", "--json",
    ]  # fmt: skip
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    assert result["errors_total"] == 0
    (c,) = result["configurations"]
    assert c["errors"]["total"] == 0, c["errors"]
    assert (c["table_replicas"], c["tables"], c["tables_live"]) == (2, TABLES, TABLES)
    replicas = c["engine"]["replicas"]
    assert [r["name"] for r in replicas] == ["table-0", "table-1"]
    assert sum(r["tables"] for r in replicas) == TABLES
    # The people's round trip at their client: many answers, timed from the action sent (the
    # median below the shortest thinking time: that is not in it; a discard's less the
    # engine's hold); the bots' at the engine.
    people = c["people_rtt_ms"]
    assert people["samples"] >= 10 and c["people_decisions"] >= people["samples"]
    assert 0 < people["p50"] <= people["p99"]
    assert people["p50"] < 1000 * PACE * 0.75
    discards = c["people_rtt_ms_by_kind"]["discard"]
    assert discards["samples"] > 0 and discards["p50"] >= 1000 * BOT_PACE  # the hold is in it
    assert c["discard_hold_ms"] == 1000 * BOT_PACE
    assert 0 < c["bots_rtt_ms"]["p50"] <= c["bots_rtt_ms"]["p99"]
    # The engine's CPU and memory, per replica and per live table.
    assert c["engine"]["cores"] > 0 and c["engine"]["cpu_ms_per_table_second"] > 0
    for replica in replicas:
        assert replica["pss_before_mib"] > 0 and replica["rss_mib"] > 0
        if replica["tables"]:
            assert replica["cpu_ms_per_table_second"] > 0
            assert replica["pss_mib_per_table"] is not None
    assert {"engine", "bots", "postgres", "redis", "matchmaking", "ledger"} <= set(c["cores"])
    assert c["events_per_second"] > 0 and c["hands_per_second"] >= 0
    assert c["pg_connections"]["engine"] > 0
    # The limits, the first of them, and the projection from the measured costs.
    assert len(c["limits"]) == 6
    assert c["first_limit"]["tables"] > 0
    assert c["first_limit"]["tables"] == min(
        limit["tables"] for limit in c["limits"] if limit["tables"] is not None
    )
    # The run's schemas (on the configured PostgreSQL) are gone, matchmaking's leases too.
    with psycopg.connect(database_url, autocommit=True) as conn:
        left = conn.execute(
            "SELECT nspname FROM pg_namespace WHERE starts_with(nspname, %s)",
            (c["run"].replace("-", "_") + "_",),
        ).fetchall()
    assert left == []
    scenarios = {s["people_per_table"]: s for s in result["projection"]["scenarios"]}
    assert scenarios[1]["tables"] == 10_000 and scenarios[4]["tables"] == 2_500
    assert scenarios[1]["engine_replicas"] >= scenarios[4]["engine_replicas"] >= 1
    assert scenarios[1]["bot_seats"] == 30_000 and scenarios[4]["bot_seats"] == 0
    assert scenarios[1]["events_per_second"] > 0


def test_a_pace_within_the_engines_bot_pace_gets_one_line(tmp_path):
    done = subprocess.run(
        [hebei_program(), "bench", "scale", "--pace", "0.5"],
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
        env={k: v for k, v in os.environ.items() if k != "HEBEI_TABLE_BOT_PACE_SECONDS"},
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.startswith("hebei: --pace 0.5 answers as early as 0.38 s, within")
