"""Ratings across tournaments: OpenSkill Plackett–Luce over four-player matches."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hebei.matchmaking.ratings import (
    DEFAULT_RATING,
    MODEL,
    Rating,
    places,
    rank,
    rate_match,
    win_probabilities,
)

IDS = ("a", "b", "c", "d")


def fresh(points: tuple[float, ...]) -> dict[str, Rating]:
    """One match of four new players scoring ``points`` in seat order."""
    return rate_match({}, list(zip(IDS, points, strict=True)))


def test_defaults_are_the_models() -> None:
    assert (DEFAULT_RATING.mu, DEFAULT_RATING.sigma, DEFAULT_RATING.matches) == (25.0, 25 / 3, 0)
    assert DEFAULT_RATING.ordinal == pytest.approx(0.0)
    assert Rating(30.0, 2.0).ordinal == 24.0


@pytest.mark.parametrize(
    ("points", "expected"),
    [
        ((40, 10, -20, -30), [0, 1, 2, 3]),
        ((-30, -20, 10, 40), [3, 2, 1, 0]),
        ((10, 30, 10, -50), [1, 0, 1, 3]),
        ((0, 0, 0, 0), [0, 0, 0, 0]),
        ((5.5, 5.5, -1, -10), [0, 0, 2, 3]),
    ],
)
def test_places_are_by_points_with_shared_places(
    points: tuple[float, ...], expected: list[int]
) -> None:
    assert places(points) == expected


@pytest.mark.parametrize(
    ("points", "winner", "loser"),
    [
        ((40, 10, -20, -30), "a", "d"),
        ((-30, -20, 10, 40), "d", "a"),
        ((1, 0, 0, 0), "a", None),  # the other three share last place
        ((0, 0, 0, -1), None, "d"),  # the other three share first place
        ((2.5, -1, 0.5, 0), "a", "b"),
    ],
)
def test_a_winner_rises_and_a_loser_falls(
    points: tuple[float, ...], winner: str | None, loser: str | None
) -> None:
    after = fresh(points)
    assert set(after) == set(IDS)
    if winner is not None:
        assert after[winner].mu > DEFAULT_RATING.mu
        assert after[winner] == max(after.values(), key=lambda r: r.mu)
    if loser is not None:
        assert after[loser].mu < DEFAULT_RATING.mu
        assert after[loser] == min(after.values(), key=lambda r: r.mu)


def test_places_in_between_are_ordered() -> None:
    after = fresh((40, 10, -20, -30))
    assert after["a"].mu > after["b"].mu > after["c"].mu > after["d"].mu
    assert all(r.matches == 1 for r in after.values())


def test_only_the_order_of_the_points_counts() -> None:
    assert fresh((40, 10, -20, -30)) == fresh((4, 3, 2, 1))


@pytest.mark.parametrize(
    ("points", "tied"),
    [
        ((10, 10, 0, -20), ("a", "b")),
        ((30, -5, -5, -20), ("b", "c")),
        ((30, 0, -15, -15), ("c", "d")),
        ((7, 7, 7, -21), ("a", "b", "c")),
    ],
)
def test_equal_points_tie_and_equal_players_stay_equal(
    points: tuple[float, ...], tied: tuple[str, ...]
) -> None:
    after = fresh(points)
    assert len({after[t] for t in tied}) == 1
    untied = [i for i in IDS if i not in tied]
    assert all(after[i] != after[tied[0]] for i in untied)


def test_a_four_way_tie_of_equals_moves_no_mean_but_shrinks_sigma() -> None:
    after = rate_match({}, [(i, 0) for i in IDS])
    for rating in after.values():
        assert rating.mu == pytest.approx(DEFAULT_RATING.mu, abs=1e-12)
        assert rating.sigma < DEFAULT_RATING.sigma


@pytest.mark.parametrize("matches", [1, 5, 30])
def test_sigma_shrinks_match_after_match(matches: int) -> None:
    ratings: dict[str, Rating] = {}
    sigmas = [DEFAULT_RATING.sigma]
    for n in range(matches):
        # "a" alternates between first and last place against the same three.
        points = (3, 2, 1, 0) if n % 2 == 0 else (0, 1, 2, 3)
        ratings.update(rate_match(ratings, list(zip(IDS, points, strict=True))))
        sigmas.append(ratings["a"].sigma)
    assert all(later < earlier for earlier, later in itertools.pairwise(sigmas))
    assert ratings["a"].matches == matches


def test_unknown_ids_start_at_the_defaults_and_known_ones_carry_on() -> None:
    known = {"a": Rating(40.0, 3.0, matches=12), "x": Rating(10.0, 1.0, matches=3)}
    after = rate_match(known, [("a", 10), ("b", 0), ("c", -4), ("d", -6)])
    assert set(after) == set(IDS)  # only the four players of the match
    assert after["a"].matches == 13 and after["b"].matches == 1
    # Three newcomers behind the same strong player, in places 2 to 4, as from scratch.
    scratch = rate_match({"a": known["a"]}, [("a", 10), ("b", 0), ("c", -4), ("d", -6)])
    assert after == scratch
    # The settled winner moves less, and stays surer, than a newcomer winning the same match.
    newcomer = fresh((10, 0, -4, -6))["a"]
    assert 0 < after["a"].mu - 40.0 < newcomer.mu - DEFAULT_RATING.mu
    assert after["a"].sigma < 3.0 < newcomer.sigma
    assert known == {"a": Rating(40.0, 3.0, matches=12), "x": Rating(10.0, 1.0, matches=3)}


@pytest.mark.parametrize(
    ("results", "message"),
    [
        ([("a", 1)], "2-4 players, got 1"),
        ([("a", 1), ("b", 2), ("c", 3), ("d", 4), ("e", 5)], "2-4 players, got 5"),
        ([("a", 1), ("b", 2), ("a", 3), ("d", 4)], "distinct rating ids"),
        ([("a", 1), ("b", math.nan), ("c", 3), ("d", 4)], "points of 'b' must be a finite"),
        ([("a", 1), ("b", 2), ("c", math.inf), ("d", 4)], "points of 'c' must be a finite"),
        ([("a", -math.inf), ("b", 2), ("c", 3), ("d", 4)], "points of 'a' must be a finite"),
    ],
)
def test_bad_results_are_refused(results: list[tuple[str, float]], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        rate_match({}, results)


def test_a_table_without_its_fillers_is_rated_among_the_rest() -> None:
    after = rate_match({}, [("a", 30), ("b", -10), ("c", -20)])
    assert set(after) == {"a", "b", "c"}
    assert after["a"].mu > DEFAULT_RATING.mu > after["c"].mu
    assert all(r.matches == 1 for r in after.values())


def test_win_probabilities() -> None:
    equal = win_probabilities([DEFAULT_RATING] * 4)
    assert equal == pytest.approx([0.25] * 4)
    strong, weak = Rating(40.0, 1.0), Rating(10.0, 1.0)
    lopsided = win_probabilities([strong, weak, weak, weak])
    assert sum(lopsided) == pytest.approx(1.0)
    assert lopsided[0] > 0.5 > lopsided[1] == lopsided[2] == lopsided[3]
    # Uncertainty pulls the chances towards uniform.
    unsure = win_probabilities([Rating(40.0, 8.0), weak, weak, weak])
    assert 0.25 < unsure[0] < lopsided[0]
    with pytest.raises(ValueError, match="at least one rating"):
        win_probabilities([])


def test_rank_is_by_ordinal_then_id() -> None:
    ratings = {
        "settled": Rating(30.0, 1.0),  # ordinal 27
        "lucky": Rating(35.0, 4.0),  # ordinal 23: higher mu, less sure
        "b": Rating(20.0, 2.0),  # ordinal 14
        "a": Rating(17.0, 1.0),  # ordinal 14, same as "b": by id
    }
    assert [i for i, _ in rank(ratings)] == ["settled", "lucky", "a", "b"]
    assert rank({}) == []


def test_rating_is_deterministic() -> None:
    results = [("a", 12), ("b", -3), ("c", -3), ("d", -6)]
    assert rate_match({}, results) == rate_match({}, results)


# Properties, over any ratings and any results.
mus = st.floats(min_value=0.0, max_value=50.0)
sigmas = st.floats(min_value=0.5, max_value=10.0)
points = st.integers(min_value=-200, max_value=200)


@given(st.lists(mus, min_size=4, max_size=4), sigmas, st.lists(points, min_size=4, max_size=4))
def test_with_equal_sigmas_the_mean_changes_sum_to_zero(
    mu: list[float], sigma: float, score: list[int]
) -> None:
    before = {i: Rating(m, sigma) for i, m in zip(IDS, mu, strict=True)}
    after = rate_match(before, list(zip(IDS, score, strict=True)))
    assert sum(after[i].mu - before[i].mu for i in IDS) == pytest.approx(0.0, abs=1e-9)


@given(
    st.lists(mus, min_size=4, max_size=4),
    st.lists(sigmas, min_size=4, max_size=4),
    st.lists(points, min_size=4, max_size=4, unique=True),
)
def test_the_precision_weighted_mean_changes_sum_to_zero(
    mu: list[float], sigma: list[float], score: list[int]
) -> None:
    """The update moves ``mu_i`` by ``(sigma_i^2 + tau^2) * Omega_i / c`` where the
    ``Omega_i`` sum to zero (Weng & Lin, algorithm 4): so with unequal sigmas it is the
    changes divided by the (tau-widened) variances that cancel, not the changes."""
    before = {i: Rating(m, s) for i, m, s in zip(IDS, mu, sigma, strict=True)}
    after = rate_match(before, list(zip(IDS, score, strict=True)))
    weighted = sum(
        (after[i].mu - before[i].mu) / (before[i].sigma ** 2 + MODEL.tau**2) for i in IDS
    )
    assert weighted == pytest.approx(0.0, abs=1e-9)


@given(
    st.lists(mus, min_size=4, max_size=4),
    st.lists(sigmas, min_size=4, max_size=4),
    st.lists(points, min_size=4, max_size=4),
)
def test_any_match_lifts_a_sole_winner_sinks_a_sole_loser_and_never_widens_beyond_tau(
    mu: list[float], sigma: list[float], score: list[int]
) -> None:
    before = {i: Rating(m, s) for i, m, s in zip(IDS, mu, sigma, strict=True)}
    after = rate_match(before, list(zip(IDS, score, strict=True)))
    top, bottom = max(score), min(score)
    if score.count(top) == 1:
        best = IDS[score.index(top)]
        assert after[best].mu > before[best].mu
    if score.count(bottom) == 1:
        worst = IDS[score.index(bottom)]
        assert after[worst].mu < before[worst].mu
    for i in IDS:
        assert after[i].sigma <= math.hypot(before[i].sigma, MODEL.tau) * (1 + 1e-12)
        assert after[i].matches == 1
