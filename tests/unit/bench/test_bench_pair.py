"""`hebei bench pair`: two `hebei bench bots --json` runs on the same walls, paired wall by
wall; runs of different walls are refused."""

from __future__ import annotations

import copy
import json
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from hebei.bench.bots import run_duplicate
from hebei.bench.pairing import PairingError, pair_runs

HEBEI = str(Path(sys.executable).with_name("hebei"))
LINEUP = ("efficiency", "random", "random", "random")


@pytest.fixture(scope="module")
def run() -> dict:
    result = run_duplicate(LINEUP, seeds=6, hands_per_match=2, seed=3, warm_hands=0)
    return {"lineups": [result.to_json()]}


def test_the_same_run_pairs_to_nothing_moved(run: dict) -> None:
    (paired,) = pair_runs(run, copy.deepcopy(run))
    assert (paired.stronger, paired.weaker) == ("efficiency", "random")
    assert paired.walls == 6 and paired.differing == 0
    assert paired.paired.mean == 0 and paired.paired.half_width == 0
    assert paired.base.mean == pytest.approx(
        run["lineups"][0]["comparisons"][0]["difference"]["mean"], abs=1e-3
    )


def test_a_change_is_measured_wall_by_wall(run: dict) -> None:
    change = copy.deepcopy(run)
    policies = {p["policy"]: p for p in change["lineups"][0]["policies"]}
    moved = [0.0, 0.75, 0.0, -0.25, 1.0, 0.0]  # the challenger's points a hand, per wall
    for i, m in enumerate(moved):
        policies["efficiency"]["points_per_hand_by_seed"][i] += m
        policies["random"]["points_per_hand_by_seed"][i] -= m / 3  # points sum to zero
    (paired,) = pair_runs(run, change)
    expected = [m * 4 / 3 for m in moved]  # challenger minus the others' mean
    assert paired.differing == 3
    assert paired.paired.mean == pytest.approx(statistics.fmean(expected), abs=1e-5)
    assert paired.paired.half_width == pytest.approx(
        1.96 * statistics.stdev(expected) / len(expected) ** 0.5, abs=1e-5
    )
    assert paired.change.mean == pytest.approx(paired.base.mean + paired.paired.mean, abs=1e-5)


def _with(run: dict, **fields) -> dict:
    other = copy.deepcopy(run)
    for key, value in fields.items():
        if value is None:
            del other["lineups"][0][key]
        else:
            other["lineups"][0][key] = value
    return other


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"wall_seed": 4}, "wall_seed is 3 in BASE and 4 in CHANGE: not the same walls"),
        ({"seeds": 7}, "seeds is 6 in BASE and 7 in CHANGE"),
        ({"hands_per_match": 8}, "hands_per_match is 2 in BASE and 8 in CHANGE"),
        ({"profile": "classic"}, "profile is 'main' in BASE and 'classic' in CHANGE"),
        ({"lineup": ["random"] * 4}, "lineup is"),
        ({"wall_seed": None}, "CHANGE: written by an older `hebei bench bots` (no wall_seed)"),
        ({"comparisons": []}, "the two runs compare different policies"),
    ],
)
def test_runs_of_different_walls_are_refused(run: dict, fields: dict, message: str) -> None:
    with pytest.raises(PairingError, match=message.replace("(", r"\(").replace(")", r"\)")):
        pair_runs(run, _with(run, **fields))


@pytest.mark.parametrize(
    ("other", "message"),
    [
        ([1, 2], "CHANGE: not the output of `hebei bench bots --json`"),
        ({"lineups": []}, "CHANGE: no line-ups"),
        ({"lineups": [{"policies": 3}]}, "CHANGE: not the output"),
    ],
)
def test_what_is_not_a_benchmark_run_is_refused(run: dict, other: object, message: str) -> None:
    with pytest.raises(PairingError, match=message):
        pair_runs(run, other)


@pytest.mark.parametrize("figure", ["0.5", float("nan"), float("inf"), 1e308, -20_000])
def test_figures_that_are_not_numbers_of_points_are_refused(run: dict, figure: object) -> None:
    # NaN, infinities and overflowing figures broke the interval (statistics.stdev) with a
    # stack trace before: a fuzz of edited runs found them
    change = copy.deepcopy(run)
    change["lineups"][0]["policies"][0]["points_per_hand_by_seed"][2] = figure
    with pytest.raises(PairingError, match="must be numbers within"):
        pair_runs(run, change)


def test_comparisons_that_are_not_a_list_are_refused(run: dict) -> None:
    change = copy.deepcopy(run)
    change["lineups"][0]["comparisons"] = 3  # a TypeError before
    with pytest.raises(PairingError, match="comparisons must be a list"):
        pair_runs(run, change)


def _bench(tmp_path: Path, name: str, seed: int) -> Path:
    out = tmp_path / name
    done = subprocess.run(
        [HEBEI, "bench", "bots", "--json", "--seeds", "2", "--hands", "1", "--seed", str(seed),
         "-p", "1", "--lineup", ",".join(LINEUP)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out.write_text(done.stdout)
    return out


def test_two_runs_of_the_same_walls_pair_from_the_command_line(tmp_path: Path) -> None:
    first, second = _bench(tmp_path, "a.json", 3), _bench(tmp_path, "b.json", 3)
    done = subprocess.run(
        [HEBEI, "bench", "pair", str(first), str(second), "--json"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (paired,) = json.loads(done.stdout)["comparisons"]
    assert paired["walls"] == 2 and paired["walls_differing"] == 0  # play is deterministic
    assert paired["paired"] == {"mean": 0.0, "ci95": 0.0}
    table = subprocess.run(
        [HEBEI, "bench", "pair", str(first), str(second)],
        capture_output=True, text=True, timeout=60, env={"COLUMNS": "200", "PATH": "/usr/bin"},
    )  # fmt: skip
    assert "efficiency − random" in table.stdout and "0 of 2" in table.stdout
    other = _bench(tmp_path, "c.json", 4)
    refused = subprocess.run(
        [HEBEI, "bench", "pair", str(first), str(other)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert refused.returncode == 2
    assert refused.stderr == (
        f"hebei: line-up 1: wall_seed is 3 in {first} and 4 in {other}: not the same walls\n"
    )
