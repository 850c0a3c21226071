"""Ratings across tournaments: OpenSkill's Plackett–Luce model, four players per match.

Each player has a skill belief, a normal distribution with mean ``mu`` and deviation
``sigma``. After a match, :func:`rate_match` ranks the four seats by their final match
points (more points place higher; equal points share a place) and asks openskill's
:class:`~openskill.models.PlackettLuce` (Weng & Lin 2011, algorithm 4) for the posterior of
each: the winners' ``mu`` rises, the losers' falls, and ``sigma`` shrinks as evidence
accumulates (``tau`` adds a little back before each match so that a rating can still follow a
player who changes). Players are ranked by ``ordinal = mu - 3 sigma``, a conservative
estimate that a newcomer must earn.

:func:`win_probabilities` gives the same model's chance of each seat finishing first.

Pure: no I/O, deterministic; the model is one module-level object with every parameter
spelled out.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

SEATS = 4
MU = 25.0  # the prior mean of a new player
SIGMA = MU / 3  # the prior deviation: a new player's ordinal is 0
BETA = SIGMA / 2  # the spread of one match's performance around a player's skill
TAU = MU / 300  # added (in quadrature) to sigma before each match: skill may drift
KAPPA = 0.0001  # the floor of the factor sigma^2 may shrink by in one match
ORDINAL_Z = 3.0  # ordinal = mu - ORDINAL_Z * sigma

MODEL = PlackettLuce(
    mu=MU,
    sigma=SIGMA,
    beta=BETA,
    kappa=KAPPA,
    tau=TAU,
    margin=0.0,  # the order of the points counts, not their margin
    limit_sigma=False,
    balance=False,
)


@dataclass(frozen=True, slots=True)
class Rating:
    """One identity's skill belief and the number of matches rated into it."""

    mu: float
    sigma: float
    matches: int = 0

    @property
    def ordinal(self) -> float:
        """``mu - 3 sigma``: the conservative rating players are ranked by."""
        return self.mu - ORDINAL_Z * self.sigma


DEFAULT_RATING = Rating(MODEL.mu, MODEL.sigma)


def places(points: Sequence[float]) -> list[int]:
    """0-based places by points, higher first; equal points share the better place.

    ``[10, 30, 10, -50]`` -> ``[1, 0, 1, 3]`` (standard competition ranking).
    """
    return [sum(other > mine for other in points) for mine in points]


def _check_results(results: Sequence[tuple[str, float]]) -> None:
    """ValueError unless ``results`` are 2-4 distinct ids with finite points (a table's
    fillers and replaced seats are left out of its rating)."""
    if not 2 <= len(results) <= SEATS:
        raise ValueError(f"a rated match has 2-{SEATS} players, got {len(results)}")
    ids = [rating_id for rating_id, _ in results]
    if len(set(ids)) != len(ids):
        raise ValueError(f"a rated match needs distinct rating ids, got {ids}")
    for rating_id, points in results:
        if not math.isfinite(points):
            raise ValueError(f"points of {rating_id!r} must be a finite number, got {points!r}")


def rate_match(
    ratings: Mapping[str, Rating], results: Sequence[tuple[str, float]]
) -> dict[str, Rating]:
    """The new ratings after one match of 2-4 ``(rating_id, match points)`` results.

    Ids missing from ``ratings`` start at :data:`DEFAULT_RATING`. Each new rating counts one
    more match. ValueError for anything but 2-4 distinct ids with finite points.

    Equal points share a place, scored as Weng & Lin score ties: each tied player counts as
    possibly first of the tied group, so a shared first place earns less than a sole first
    (with four equal players, as much as a sole third: openskill.py issue #155).
    """
    _check_results(results)
    before = [ratings.get(rating_id, DEFAULT_RATING) for rating_id, _ in results]
    teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in before]
    after = MODEL.rate(teams, ranks=places([points for _, points in results]))
    return {
        rating_id: Rating(team[0].mu, team[0].sigma, old.matches + 1)
        for (rating_id, _), old, team in zip(results, before, after, strict=True)
    }


def win_probabilities(ratings: Sequence[Rating]) -> list[float]:
    """Each player's chance to finish first under the Plackett–Luce model.

    ``P(i first) = exp(mu_i / c) / sum_j exp(mu_j / c)`` with ``c^2 = sum_j (sigma_j^2 +
    beta^2)``: the first factor of the likelihood :func:`rate_match` updates on. (openskill's
    ``predict_win`` instead averages pairwise chances, which among four players can never give
    anyone more than 1/2, however lopsided the match.) The chances sum to 1.
    """
    if not ratings:
        raise ValueError("win probabilities need at least one rating")
    c = math.sqrt(sum(r.sigma**2 + MODEL.beta**2 for r in ratings))
    top = max(r.mu for r in ratings)
    weights = [math.exp((r.mu - top) / c) for r in ratings]
    total = sum(weights)
    return [w / total for w in weights]


def rank(ratings: Mapping[str, Rating]) -> list[tuple[str, Rating]]:
    """``(rating_id, rating)`` pairs best first: ordinal descending, then id ascending."""
    return sorted(ratings.items(), key=lambda item: (-item[1].ordinal, item[0]))
