"""Smoke tests of `hebei bench rules` on a tiny sample (no timing assertions)."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from typer.testing import CliRunner

from hebei.bench import best_times_per_call
from hebei.bench.rules import TARGETS, random_hands, run_rules_bench
from hebei.cli import (
    app,
    commands,  # noqa: F401  (registers the sub-commands)
)

KEYS = {
    "shanten_us",
    "shanten_first_pass_us",
    "mahjong_lib_shanten_us",
    "shanten_speedup_vs_mahjong",
    "win_check_us",
    "ukeire_us",
    "discard_options_us",
    "random_hands_per_second",
}


def test_random_hands_are_seeded_and_legal() -> None:
    hands = random_hands(200, seed=5)
    assert hands == random_hands(200, seed=5)
    assert hands != random_hands(200, seed=6)
    for kinds in hands:
        assert len(kinds) == 14
        assert max(kinds.count(k) for k in kinds) <= 4


def test_run_rules_bench_returns_every_metric() -> None:
    stages: list[str] = []
    result = run_rules_bench(
        hands=60,
        seed=3,
        repeats=1,
        lib_repeats=1,
        ukeire_hands=20,
        discard_hands=10,
        simulated_hands=4,
        on_stage=stages.append,
    )
    assert result.keys() >= KEYS
    for key in KEYS:
        assert result[key] > 0, key
    assert result["shanten_speedup_vs_mahjong"] == (
        result["mahjong_lib_shanten_us"] / result["shanten_us"]
    )
    assert (result["hands"], result["ukeire_hands"], result["discard_options_hands"]) == (
        60,
        20,
        10,
    )
    assert result["random_hands"] == 4
    assert any("mahjong" in s for s in stages)


def test_targets_ratio() -> None:
    assert TARGETS["shanten_us"].ratio(1.5) == 2.0  # at most 3 µs: 1.5 µs is twice as good
    assert TARGETS["random_hands_per_second"].ratio(250) == 0.5
    assert str(TARGETS["shanten_us"]) == "≤ 3"


def test_cli_json_and_table() -> None:
    runner = CliRunner()
    args = ["bench", "rules", "--hands", "40", "--repeats", "1", "--play-hands", "4"]
    out = runner.invoke(app, [*args, "--json"])
    assert out.exit_code == 0, out.output
    result = json.loads(out.stdout)
    assert result.keys() >= KEYS
    assert result["hands"] == 40
    out = runner.invoke(app, args)
    assert out.exit_code == 0, out.output
    assert "shanten speed-up vs mahjong" in out.stdout
    assert "ratio" in out.stdout


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["--hands", "0"], "hebei: --hands must be 1-1,000,000, got 0"),
        (["--hands", "1000001"], "hebei: --hands must be 1-1,000,000, got 1000001"),
        (["--repeats", "101"], "hebei: --repeats must be 1-100, got 101"),
        (["--play-hands", "0"], "hebei: --play-hands must be 1-1,000,000, got 0"),
    ],
)
def test_cli_rejects_counts_out_of_their_bounds(args: list[str], line: str) -> None:
    out = CliRunner().invoke(app, ["bench", "rules", *args])
    assert out.exit_code == 2
    assert out.stderr.strip() == line


def test_best_times_per_call_runs_each_case_its_repeats() -> None:
    calls = {"a": 0, "b": 0}

    def count(name: str) -> Callable[[int], None]:
        def fn(_: int) -> None:
            calls[name] += 1

        return fn

    times = best_times_per_call([(count("a"), range(10), 3), (count("b"), range(5), 1)])
    assert calls == {"a": 30, "b": 5}
    assert len(times) == 2
    assert all(t > 0 for t in times)
