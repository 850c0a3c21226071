"""`hebei bench bots`: duplicate play reports the policies' ordering with confidence intervals."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from hebei.bench.bots import DEFAULT_LINEUPS, check_lineup, estimate, percentile, run_duplicate

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
