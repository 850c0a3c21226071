"""`hebei bench ratings`: how well OpenSkill ratings predict the winner of held-out bot matches.

Method. A pool of identities, each a bot policy at a level (:data:`POOL`, listed weakest
first as designed). A match seats four distinct identities drawn from the pool by a seeded RNG
(in a random seating order) and plays ``hands_per_match`` hands in process with
:func:`hebei.bench.bots.play_lineup`; its result is each seat's final match points.

* Training: ``train`` matches, rated one after another with
  :func:`hebei.matchmaking.ratings.rate_match`, every identity starting at the defaults.
* Held out: ``test`` further matches, on walls from a seed range disjoint from the training
  walls and with line-ups from a separate RNG; the ratings stay frozen while they are scored.

For each held-out match, with the first place possibly shared by ``k`` seats:

* top-1: the seat whose identity has the best ordinal (the ranking order) is predicted to
  finish first; a hit if it holds a first place. Chance, a seat picked at random, hits with
  probability ``k / 4`` (1/4 unless first place is shared).
* oracle: the same with the seat whose identity comes last in the pool, that is strongest
  by the designed order — what knowing the policies (not the dice) is worth.
* log-likelihood: the log of the probability that
  :func:`~hebei.matchmaking.ratings.win_probabilities` gives the first place going to the
  seat(s) that took it, against ``log(k / 4)`` for uniform chances.

The accuracies come with the half-width of a 95% interval (normal approximation over matches).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from hebei.bench.bots import Estimate, estimate, play_lineup
from hebei.bots.policies import make_policy, parse_policy
from hebei.matchmaking.ratings import (
    DEFAULT_RATING,
    SEATS,
    Rating,
    places,
    rank,
    rate_match,
    win_probabilities,
)

# Every policy at every level, weakest first by design: the oracle's strength order.
POOL = ("random", "efficiency", "expert:1", "expert:2", "expert:3")
DEFAULT_TRAIN = 400
DEFAULT_TEST = 400
DEFAULT_HANDS = 8
# Match seeds of a run: training walls in [(2 seed) M, (2 seed + 1) M), held-out walls in
# [(2 seed + 1) M, (2 seed + 2) M) with M = MAX_MATCHES, so the two sets never share a wall.
MAX_MATCHES = 1_000_000
TRAIN, TEST = 0, 1  # the two splits of a run


@dataclass(frozen=True, slots=True)
class PlayedMatch:
    """One match: the identity of each seat and its final match points."""

    seated: tuple[str, ...]
    points: tuple[int, ...]

    @property
    def first(self) -> tuple[int, ...]:
        """The seats holding first place (several when the top points are shared)."""
        return tuple(s for s, place in enumerate(places(self.points)) if place == 0)

    def results(self) -> list[tuple[str, float]]:
        """``(rating_id, points)`` per seat, as :func:`rate_match` takes them."""
        return list(zip(self.seated, self.points, strict=True))


def check_pool(pool: Sequence[str]) -> tuple[str, ...]:
    """At least four distinct valid policy specs (``name`` or ``name:level``); ValueError if not."""
    specs = tuple(s.strip() for s in pool)
    if len(set(specs)) < SEATS or len(set(specs)) != len(specs):
        raise ValueError(f"the pool needs at least {SEATS} distinct policies, got {list(specs)}")
    for spec in specs:
        make_policy(*parse_policy(spec))  # raises ValueError naming the choices
    return specs


def match_seed(seed: int, split: int, n: int) -> int:
    """The wall seed of match ``n`` of ``split`` (:data:`TRAIN` or :data:`TEST`) of a run."""
    return (2 * seed + split) * MAX_MATCHES + n


def play_split(
    pool: Sequence[str],
    count: int,
    seed: int,
    split: int,
    hands_per_match: int,
    on_match: Callable[[], None] | None = None,
) -> list[PlayedMatch]:
    """Play ``count`` matches of four identities drawn (without replacement) from ``pool``."""
    draw = random.Random(f"hebei bench ratings {seed} {split}")
    played = []
    for n in range(count):
        lineup = draw.sample(list(pool), SEATS)
        seated, points, _ = play_lineup(lineup, match_seed(seed, split, n), hands_per_match)
        played.append(PlayedMatch(seated, points))
        if on_match is not None:
            on_match()
    return played


def fit_ratings(matches: Sequence[PlayedMatch]) -> dict[str, Rating]:
    """Rate ``matches`` in order, every identity starting at the defaults."""
    ratings: dict[str, Rating] = {}
    for match in matches:
        ratings.update(rate_match(ratings, match.results()))
    return ratings


def predicted_seat(match: PlayedMatch, ratings: Mapping[str, Rating]) -> int:
    """The seat whose identity ranks best (by ordinal, as :func:`rank` orders them)."""
    order = {rating_id: i for i, (rating_id, _) in enumerate(rank(ratings))}
    return min(range(SEATS), key=lambda s: order[match.seated[s]])


def oracle_seat(match: PlayedMatch, pool: Sequence[str]) -> int:
    """The seat whose identity is strongest by the designed order (the last in ``pool``)."""
    return max(range(SEATS), key=lambda s: pool.index(match.seated[s]))


def winner_log_likelihood(match: PlayedMatch, ratings: Mapping[str, Rating]) -> float:
    """Log of the model's probability that first place goes where it went."""
    chances = win_probabilities([ratings[rating_id] for rating_id in match.seated])
    return math.log(sum(chances[s] for s in match.first))


@dataclass
class RatingsBenchResult:
    """A run: its settings, the fitted ratings and the scores of their held-out predictions."""

    pool: tuple[str, ...]
    train: int
    test: int
    seed: int
    hands_per_match: int
    seconds: float
    ratings: dict[str, Rating]
    top1: Estimate  # hit rate of the best-rated seat
    chance: float  # expected hit rate of a seat picked at random
    oracle: Estimate  # hit rate of the designed-strongest seat
    log_likelihood: float  # mean per held-out match
    uniform_log_likelihood: float

    @property
    def rated_order(self) -> list[str]:
        """The identities best first, by their ratings."""
        return [rating_id for rating_id, _ in rank(self.ratings)]

    def to_json(self) -> dict:
        return {
            "pool": list(self.pool),
            "train": self.train,
            "test": self.test,
            "seed": self.seed,
            "hands_per_match": self.hands_per_match,
            "seconds": round(self.seconds, 2),
            "top1_accuracy": round(self.top1.mean, 4),
            "top1_ci95": round(self.top1.half_width, 4),
            "chance": round(self.chance, 4),
            "oracle_accuracy": round(self.oracle.mean, 4),
            "oracle_ci95": round(self.oracle.half_width, 4),
            "log_likelihood_per_match": round(self.log_likelihood, 4),
            "uniform_log_likelihood_per_match": round(self.uniform_log_likelihood, 4),
            "ratings": [
                {
                    "rank": place,
                    "rating_id": rating_id,
                    "mu": round(rating.mu, 3),
                    "sigma": round(rating.sigma, 3),
                    "ordinal": round(rating.ordinal, 3),
                    "matches": rating.matches,
                }
                for place, (rating_id, rating) in enumerate(rank(self.ratings), start=1)
            ],
        }


def run_ratings_bench(
    train: int = DEFAULT_TRAIN,
    test: int = DEFAULT_TEST,
    seed: int = 1,
    hands_per_match: int = DEFAULT_HANDS,
    pool: Sequence[str] = POOL,
    on_match: Callable[[], None] | None = None,
) -> RatingsBenchResult:
    """Fit ratings on ``train`` matches and score their predictions on ``test`` others.

    ``on_match()`` is called after every match played (training first, then held out).
    """
    specs = check_pool(pool)
    if not (1 <= train <= MAX_MATCHES and 2 <= test <= MAX_MATCHES) or hands_per_match < 1:
        raise ValueError(
            f"need 1 to {MAX_MATCHES:,} training matches, 2 to {MAX_MATCHES:,} held-out"
            f" matches and at least 1 hand per match, got {train}, {test}, {hands_per_match}"
        )
    start = time.perf_counter()
    trained = play_split(specs, train, seed, TRAIN, hands_per_match, on_match)
    held_out = play_split(specs, test, seed, TEST, hands_per_match, on_match)
    fitted = fit_ratings(trained)
    ratings = {rating_id: fitted.get(rating_id, DEFAULT_RATING) for rating_id in specs}

    def hit(match: PlayedMatch, seat: int) -> float:
        return 1.0 if seat in match.first else 0.0

    return RatingsBenchResult(
        pool=specs,
        train=train,
        test=test,
        seed=seed,
        hands_per_match=hands_per_match,
        seconds=time.perf_counter() - start,
        ratings=ratings,
        top1=estimate([hit(m, predicted_seat(m, ratings)) for m in held_out]),
        chance=sum(len(m.first) for m in held_out) / (SEATS * test),
        oracle=estimate([hit(m, oracle_seat(m, specs)) for m in held_out]),
        log_likelihood=sum(winner_log_likelihood(m, ratings) for m in held_out) / test,
        uniform_log_likelihood=sum(math.log(len(m.first) / SEATS) for m in held_out) / test,
    )
