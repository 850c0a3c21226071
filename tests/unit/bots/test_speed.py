"""The measured worth of a hand's shape, the cost of giving up a step, the win chance."""

from __future__ import annotations

import pytest

from hebei.bots.policies.speed import break_cost, shape_value, win_probability


@pytest.mark.parametrize("shanten", [0, 1, 2, 3, 4, 6])
@pytest.mark.parametrize("wall", [10, 40, 70])
def test_more_useful_tiles_are_worth_more(shanten: int, wall: int) -> None:
    useful = [2, 6, 12, 24, 48]
    values = [shape_value(shanten, u, wall) for u in useful]
    chances = [win_probability(shanten, u, wall) for u in useful]
    assert values == sorted(values)
    assert chances == sorted(chances) and chances[0] > 0 and chances[-1] < 1


@pytest.mark.parametrize(("useful_ready", "useful_one_away"), [(4, 20), (8, 30), (2, 12)])
def test_a_typical_ready_hand_beats_a_typical_hand_one_step_away(
    useful_ready: int, useful_one_away: int
) -> None:
    for wall in (20, 40, 60):
        assert shape_value(0, useful_ready, wall) > shape_value(1, useful_one_away, wall)
        assert win_probability(0, useful_ready, wall) > win_probability(1, useful_one_away, wall)


@pytest.mark.parametrize("fastest", [0, 1, 2, 3])
def test_giving_up_a_step_costs_more_early_than_late(fastest: int) -> None:
    early, late = break_cost(fastest, fastest + 1, 60), break_cost(fastest, fastest + 1, 10)
    assert early > late >= 0
    assert break_cost(fastest, fastest + 2, 60) > early


def test_breaking_a_ready_hand_costs_the_most() -> None:
    assert break_cost(0, 1, 40) > break_cost(1, 2, 40) > break_cost(2, 3, 40) > 0
    assert break_cost(3, 4, 10) == 0.0  # a far hand late would not have won anyway
    assert break_cost(1, 1, 40) == 0.0


def test_a_complete_hand_is_certain() -> None:
    assert win_probability(-1, 0, 30) == 1.0
    assert shape_value(-1, 0, 30) > shape_value(0, 8, 70)
