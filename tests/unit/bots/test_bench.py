"""`hebei bench bots`: duplicate play reports the policies' ordering with confidence intervals."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import psutil
import pytest
from typer.testing import CliRunner

from hebei.bench.bots import DEFAULT_LINEUPS, check_lineup, estimate, percentile, run_duplicate
from hebei.cli import (
    app,
    commands,  # noqa: F401  (registers the sub-commands)
)

HEBEI = str(Path(sys.executable).with_name("hebei"))


def test_a_short_run_orders_efficiency_above_random() -> None:
    result = run_duplicate(
        ("efficiency", "efficiency", "random", "random"), seeds=6, hands_per_match=4, seed=3
    )
    body = result.to_json()
    assert body["hands"] == 6 * 4 * 4
    by_name = {p["policy"]: p for p in body["policies"]}
    assert by_name["efficiency"]["seat_hands"] == by_name["random"]["seat_hands"] == 2 * 96
    # Points only move between the seats: the two policies mirror each other.
    assert by_name["efficiency"]["points"] == -by_name["random"]["points"]
    (comparison,) = result.comparisons
    assert (comparison.stronger, comparison.weaker) == ("efficiency", "random")
    assert comparison.significant and result.ordering_holds
    assert (
        by_name["random"]["decision_ms"]["median"] < by_name["efficiency"]["decision_ms"]["median"]
    )


def test_the_strength_ordering_holds_on_a_short_fixed_run() -> None:
    """expert > efficiency > random, each against three copies of the next, on fixed walls
    (deterministic: the same figures on any machine). The margins are well above zero, so a
    reversed ordering fails; the interval of 288 hands is about ±1 point, which is why only
    the sign with a margin is checked, not the size."""
    expert = run_duplicate(
        ("expert", "efficiency", "efficiency", "efficiency"), seeds=24, hands_per_match=3,
        seed=1, warm_hands=0,
    )  # fmt: skip
    (versus_efficiency,) = expert.comparisons
    assert expert.hands == 24 * 4 * 3
    assert versus_efficiency.difference.mean > 0.5, versus_efficiency
    efficiency = run_duplicate(
        ("efficiency", "random", "random", "random"), seeds=8, hands_per_match=3, seed=1,
        warm_hands=0,
    )  # fmt: skip
    (versus_random,) = efficiency.comparisons
    assert versus_random.difference.low > 3.0, versus_random


def test_the_default_lineups_report_what_the_issue_asks() -> None:
    titles = [lineup.title for lineup in DEFAULT_LINEUPS]
    assert titles == [
        "expert vs 3 efficiency",
        "efficiency vs 3 expert",
        "expert levels, mixed table",
        "efficiency vs 3 random",
    ]
    for lineup in DEFAULT_LINEUPS:
        assert check_lineup(lineup.seats) == lineup.seats
        for stronger, weaker in lineup.comparisons:
            assert stronger in lineup.seats and weaker in lineup.seats
    # "expert" in the issue's line-ups is its strongest level, named explicitly.
    assert DEFAULT_LINEUPS[0].comparisons == (("expert:4", "efficiency"),)
    assert DEFAULT_LINEUPS[1].comparisons == (("expert:4", "efficiency"),)
    assert DEFAULT_LINEUPS[2].seats == ("expert:4", "expert:3", "expert:2", "expert:1")


def test_the_expert_also_beats_random_on_a_short_run() -> None:
    result = run_duplicate(("expert", "random", "expert", "random"), seeds=4, hands_per_match=4)
    assert result.ordering_holds, result.to_json()["comparisons"]


def test_a_reversed_ordering_is_reported_as_not_holding() -> None:
    result = run_duplicate(
        ("random", "random", "efficiency", "efficiency"), seeds=4, hands_per_match=3, warm_hands=0
    )
    assert not result.ordering_holds
    assert result.comparisons[0].difference.high < 0


def test_statistics() -> None:
    assert estimate([1.0, 3.0]).mean == 2.0
    assert estimate([1.0, 3.0]).half_width == pytest.approx(1.96 * math.sqrt(2) / math.sqrt(2))
    assert estimate([5.0]).half_width == math.inf
    values = sorted(float(v) for v in range(1, 101))
    assert percentile(values, 0.5) == 50 and percentile(values, 0.99) == 99
    assert percentile(values, 1.0) == 100 and percentile([], 0.5) == 0.0


@pytest.mark.parametrize(
    ("lineup", "message"),
    [
        (["expert", "random", "random"], "a line-up has 4 seats"),
        (["expert"] * 4, "at least two different policies"),
        (["expert:9", "random", "random", "random"], "levels 1, 2, 3"),
        (["smart", "random", "random", "random"], "unknown policy 'smart'"),
    ],
)
def test_bad_lineups_are_refused(lineup: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check_lineup(lineup)


def test_cli_json_and_check_exit_codes() -> None:
    ok = subprocess.run(
        [HEBEI, "bench", "bots", "--seeds", "3", "--hands", "2", "--json", "--check",
         "--processes", "1", "--lineup", "efficiency,efficiency,random,random"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert ok.returncode == 0, ok.stderr
    body = json.loads(ok.stdout)
    assert body["ordering_holds"] and body["lineups"][0]["comparisons"][0]["significant"]
    assert set(body["decision_ms"]) == {"efficiency", "random"}
    assert body["decision_ms"]["efficiency"]["p99"] >= body["decision_ms"]["efficiency"]["median"]
    reversed_run = subprocess.run(
        [HEBEI, "bench", "bots", "--seeds", "3", "--hands", "2", "--json", "--check",
         "--processes", "1", "--lineup", "random,random,efficiency,efficiency"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert reversed_run.returncode == 1
    bad = subprocess.run(
        [HEBEI, "bench", "bots", "--lineup", "expert,random"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert bad.returncode == 2
    assert bad.stderr.strip() == "hebei: a line-up has 4 seats, got 2: expert,random"


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["--seeds", "1"], "hebei: --seeds must be 2-10,000, got 1"),
        (["--seeds", "10001"], "hebei: --seeds must be 2-10,000, got 10001"),
        (["--hands", "0"], "hebei: --hands must be 1-64, got 0"),
        (["--hands", "65"], "hebei: --hands must be 1-64, got 65"),
        (["--processes", "65"], "hebei: --processes must be 0-64, got 65"),
    ],
)
def test_counts_out_of_their_bounds_are_one_line(args: list[str], line: str) -> None:
    out = CliRunner().invoke(app, ["bench", "bots", *args])
    assert out.exit_code == 2
    assert out.stderr.strip() == line


def _interrupted(
    args: list[str], how: str, ready: Callable[[int], set[psutil.Process] | None]
) -> tuple[int, str, str, set[psutil.Process]]:
    """Run ``hebei bench bots ARGS`` in its own process group; once ``ready(pid)`` names the
    workers (polled until it does), interrupt it (``ctrl-c``: SIGINT to the whole group, as a
    terminal sends it; else SIGTERM to the command). Its exit code, stdout, stderr and the
    workers named."""
    run = subprocess.Popen(
        [HEBEI, "bench", "bots", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 180
        workers = None
        while workers is None and time.monotonic() < deadline:
            time.sleep(0.1)
            workers = ready(run.pid)
        assert workers is not None, "the run never got to where it should be interrupted"
        if how == "ctrl-c":
            os.killpg(run.pid, signal.SIGINT)
        else:
            run.send_signal(signal.SIGTERM)
        out, err = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
    return run.returncode, out, err, workers


def _children(pid: int) -> set[psutil.Process]:
    return set(psutil.Process(pid).children())


def _pool_started(pid: int) -> set[psutil.Process] | None:
    workers = _children(pid)
    if len(workers) < 3:  # two workers and the resource tracker
        return None
    time.sleep(1.0)  # past the start, where a Ctrl-C is lost (hebei.bench.signals)
    return workers


@pytest.mark.parametrize("how", ["ctrl-c", "sigterm"])
def test_an_interrupted_run_stops_its_workers_and_says_so_in_one_line(how: str) -> None:
    """Ctrl-C or SIGTERM: exit 130, one line, no worker's traceback, no worker left running."""
    args = ["--seeds", "10000", "--processes", "2", "--lineup", "efficiency,random,random,random"]
    code, out, err, workers = _interrupted(args, how, _pool_started)
    assert code == 130, err
    assert out == ""
    (line,) = err.strip().splitlines()
    assert line.startswith(
        "hebei: interrupted in line-up 1 of 1 (efficiency / random / random / random), "
    )
    assert line.endswith("of 40000 matches played: no figures")
    _, alive = psutil.wait_procs(workers, timeout=30)
    assert not alive


def test_an_interrupted_run_shows_the_line_ups_it_finished() -> None:
    """Stopped in its second line-up, the run prints the first one's figures (whole: every
    seed of it played) and says so in its one line."""
    first: set[psutil.Process] = set()

    def second_pool(pid: int) -> set[psutil.Process] | None:
        if not first:
            first.update(_pool_started(pid) or ())
            return None
        new = _children(pid) - first
        return new or None

    args = ["--seeds", "30", "--hands", "4", "--processes", "2",
            "--lineup", "efficiency,random,random,random",
            "--lineup", "expert:4,expert:3,expert:3,expert:3"]  # fmt: skip
    code, out, err, _ = _interrupted(args, "sigterm", second_pool)
    assert code == 130, err
    assert "30 seeds x 4" in out and "efficiency −" in out and "expert:4" not in out
    (line,) = err.strip().splitlines()
    assert line.startswith("hebei: interrupted in line-up 2 of 2 (expert:4 / expert:3 / ")
    assert line.endswith("matches played: the figures above are of the line-up finished")
