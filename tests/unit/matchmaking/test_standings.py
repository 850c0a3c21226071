"""Rankings with the tie-break chain, and placement points (hebei.matchmaking.standings)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hebei.matchmaking.standings import Figures, placement_shares, rank_players, seed_draw


def test_points_decide_first() -> None:
    rows = [Figures("a", points=5), Figures("b", points=12), Figures("c", points=-3)]
    ranked = rank_players(rows, ["hands_won", "best_match"], seed=1)
    assert [r.figures.player_id for r in ranked] == ["b", "a", "c"]
    assert [r.rank for r in ranked] == [1, 2, 3]
    assert [r.decided_by for r in ranked] == ["", "points", "points"]


@pytest.mark.parametrize(
    ("chain", "decider", "winner"),
    [
        (["hands_won", "best_match"], "hands_won", "b"),
        (["best_match", "hands_won"], "best_match", "a"),
        (["fewer_dealt_in"], "fewer_dealt_in", "a"),
        (["self_draws"], "self_draws", "b"),
    ],
)
def test_the_first_differing_tie_break_decides(chain, decider, winner) -> None:
    rows = [
        Figures("a", points=10, hands_won=2, best_match_points=9, hands_dealt_in=1),
        Figures("b", points=10, hands_won=3, best_match_points=4, hands_dealt_in=2,
                self_draw_wins=2),
    ]  # fmt: skip
    ranked = rank_players(rows, chain, seed=7)
    assert ranked[0].figures.player_id == winner
    assert ranked[1].decided_by == decider


def test_a_complete_tie_goes_to_the_seed_draw_and_is_stable() -> None:
    rows = [Figures(pid, points=4, hands_won=1) for pid in ("x", "y", "z")]
    first = rank_players(rows, ["hands_won"], seed=42)
    again = rank_players(list(reversed(rows)), ["hands_won"], seed=42)
    assert [r.figures.player_id for r in first] == [r.figures.player_id for r in again]
    assert [r.decided_by for r in first] == ["", "seed_draw", "seed_draw"]
    lots = sorted(rows, key=lambda f: seed_draw(42, f.player_id), reverse=True)
    assert [r.figures.player_id for r in first] == [f.player_id for f in lots]


def test_another_seed_can_order_a_tie_differently() -> None:
    rows = [Figures(f"p{i}", points=0) for i in range(8)]
    orders = {tuple(r.figures.player_id for r in rank_players(rows, [], seed=s)) for s in range(5)}
    assert len(orders) > 1


def test_unknown_tie_break_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown tie-break 'luck'"):
        rank_players([Figures("a")], ["luck"], seed=1)


@pytest.mark.parametrize(
    ("scores", "points", "shares"),
    [
        ([30, 10, -10, -30], [15, 5, -5, -15], [15, 5, -5, -15]),
        ([-30, 10, 30, -10], [15, 5, -5, -15], [-15, 5, 15, -5]),
        ([20, 20, -10, -30], [15, 5, -5, -15], [10, 10, -5, -15]),
        ([0, 0, 0, 0], [15, 5, -5, -15], [0, 0, 0, 0]),
        ([5, 5, 5, -15], [20, 10, 0, -30], [10, 10, 10, -30]),
        ([5, 5, 5, -15], [20, 11, 0, -31], [11, 10, 10, -31]),
    ],
)
def test_placement_shares(scores, points, shares) -> None:
    assert placement_shares(scores, points) == shares


@given(
    st.lists(st.integers(-50, 50), min_size=4, max_size=4),
    st.lists(st.integers(-100, 100), min_size=3, max_size=3),
)
def test_placement_shares_keep_the_total(scores, three) -> None:
    points = sorted([*three, -sum(three)], reverse=True)
    shares = placement_shares(scores, points)
    assert sum(shares) == sum(points) == 0
    for a in range(4):
        for b in range(4):
            if scores[a] > scores[b]:
                assert shares[a] >= shares[b]
