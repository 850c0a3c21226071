"""Duplicate play spread over worker processes gives the figures of one process."""

from __future__ import annotations

import pytest

from hebei.bench.bots import Lineup, lineup_of, play_seed, run_duplicate, timings_by_spec

LINEUP = ("efficiency", "random", "random", "random")


def test_two_processes_give_the_figures_of_one() -> None:
    one = run_duplicate(LINEUP, seeds=4, hands_per_match=2, seed=9, warm_hands=0, processes=1)
    two = run_duplicate(LINEUP, seeds=4, hands_per_match=2, seed=9, warm_hands=0, processes=2)
    for spec in ("efficiency", "random"):
        assert one.policies[spec].per_sample == two.policies[spec].per_sample
        assert one.policies[spec].points == two.policies[spec].points
        assert len(one.policies[spec].timings) == len(two.policies[spec].timings)
    assert one.comparisons == two.comparisons and two.processes == 2


def test_progress_is_reported_per_match() -> None:
    calls = []
    run_duplicate(
        LINEUP, seeds=2, hands_per_match=1, warm_hands=0, on_match=lambda: calls.append(1)
    )
    assert len(calls) == 2 * 4


def test_a_seed_s_four_rotations_seat_every_policy_everywhere() -> None:
    result = play_seed(("efficiency", "random", "random", "random"), 77, 1)
    assert result.seat_hands == {"efficiency": 4, "random": 12}
    assert sum(result.points.values()) == 0
    assert set(result.timings) == {"efficiency", "random"}


@pytest.mark.parametrize(
    ("seats", "comparisons"),
    [
        (("a", "b", "b", "b"), (("a", "b"),)),
        (("a", "b", "c", "c"), (("a", "b"), ("b", "c"))),
    ],
)
def test_a_custom_lineup_compares_each_policy_with_the_next(seats, comparisons) -> None:
    names = {"a": "expert", "b": "efficiency", "c": "random"}
    plan = lineup_of([names[s] for s in seats])
    assert isinstance(plan, Lineup)
    assert plan.comparisons == tuple((names[x], names[y]) for x, y in comparisons)


def test_decision_times_pool_over_lineups() -> None:
    first = run_duplicate(LINEUP, seeds=2, hands_per_match=1, warm_hands=0)
    second = run_duplicate(
        ("random", "efficiency", "efficiency", "efficiency"),
        seeds=2,
        hands_per_match=1,
        warm_hands=0,
    )
    times = timings_by_spec([first, second])
    assert times["efficiency"]["decisions"] == len(first.policies["efficiency"].timings) + len(
        second.policies["efficiency"].timings
    )
    assert times["random"]["median"] <= times["random"]["max"]


def test_each_decision_is_timed_on_the_wall_clock_and_in_cpu_time() -> None:
    result = run_duplicate(LINEUP, seeds=2, hands_per_match=1, warm_hands=0)
    for policy in result.policies.values():
        assert len(policy.cpu_timings) == len(policy.timings) > 0
        # The thread's CPU time never runs ahead of the wall clock (1 µs per call of slack
        # for the two clocks' resolutions).
        assert sum(policy.cpu_timings) <= sum(policy.timings) + 1e-6 * len(policy.timings)
        body = policy.to_json()
        assert set(body["decision_cpu_ms"]) == {"median", "p90", "p99", "max"}
    cpu = timings_by_spec([result], cpu=True)
    assert cpu["efficiency"]["decisions"] == len(result.policies["efficiency"].cpu_timings)
