"""Ready-hand values under these rules: the exact fan of each wait, and the expert choosing
between equally wide waits by what they pay."""

from __future__ import annotations

import pytest

from hebei.bots.policies import make_policy
from hebei.bots.policies.waits import best_ready, wait_value, waits_of, win_fan, win_points
from hebei.rules.actions import DISCARD
from hebei.rules.tiles import parse_tile, parse_tiles, to_counts
from tests.unit.bots.observations import pongs, turn

NOTHING_SEEN = [0] * 34


def unseen(hand: str) -> list[int]:
    counts = to_counts(parse_tiles(hand))
    return [4 - c for c in counts]


@pytest.mark.parametrize(
    ("hand", "melds", "tile", "fan"),
    [
        ("123456789m1123p", "", "1p", 4),  # 门清 + 一条龙
        ("123456789m1123p", "", "4p", 4),
        ("46m123p789p456s11z", "", "5m", 7),  # 门清 + 捉五
        ("68m123p789p456s11z", "", "7m", 2),  # 门清 only
        ("68m123p789p11z", "4s", "7m", 0),  # a pong: no 门清
        ("68m123p789p456s11z", "", "9m", 0),  # not a win
    ],
)
def test_win_fan_scores_the_best_reading(hand: str, melds: str, tile: str, fan: int) -> None:
    counts = to_counts(parse_tiles(hand))
    assert win_fan(counts, pongs(melds) if melds else (), parse_tile(tile)) == fan


def test_a_self_draw_pays_the_bonus_three_times() -> None:
    # 28% self-draws: 0.28 x (8 + 3 x fan) + 0.72 x (16/3 + fan) for a non-dealer.
    assert win_points(0, dealer=False) == pytest.approx(0.28 * 8 + 0.72 * 16 / 3)
    assert win_points(5, dealer=False) - win_points(0, dealer=False) == pytest.approx(
        0.28 * 15 + 0.72 * 5
    )
    assert win_points(0, dealer=True) > win_points(0, dealer=False)


def test_wait_value_counts_only_live_copies() -> None:
    hand = "123456789m1123p"
    counts = to_counts(parse_tiles(hand))
    assert waits_of(counts, 0) == (parse_tile("1p"), parse_tile("4p"))
    live, points = wait_value(counts, 0, (), unseen(hand), dealer=False)
    assert live == 2 + 4 and points == pytest.approx(win_points(4, dealer=False))
    gone = unseen(hand)
    gone[parse_tile("4p")] = 0
    assert wait_value(counts, 0, (), gone, dealer=False)[0] == 2
    assert wait_value(to_counts(parse_tiles("1379m123p789p11z5s")), 0, (), gone, False) == (0, 0.0)


def test_best_ready_keeps_the_wait_that_pays_more() -> None:
    hand = "468m123p789p456s11z"
    live, points = best_ready(to_counts(parse_tiles(hand)), 0, (), unseen(hand), dealer=False)
    assert live == 4 and points == pytest.approx(win_points(7, dealer=False))


def test_expert_waits_on_the_paying_tile_where_efficiency_sees_a_tie() -> None:
    obs = turn("468m123p789p456s11z", dealer=1)
    assert make_policy("efficiency").choose(obs) is DISCARD[parse_tile("4m")]
    assert make_policy("expert", 3).choose(obs) is DISCARD[parse_tile("8m")]  # 捉五 on 5m
    # Every level prices hand value (level 1 may slip to its second choice: rank, not choose).
    assert make_policy("expert", 1).rank(obs)[0].action is DISCARD[parse_tile("8m")]
