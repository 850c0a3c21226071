"""`hebei bench bots`: policy strength in duplicate play, and decision times.

Duplicate play: every match seed is played four times with the line-up rotated
over the seats (seat ``s`` plays ``lineup[(s + r) % 4]`` in rotation ``r``), so each
policy meets the same walls from every seat and the luck of the deal cancels.
One seed's four rotations form one sample: a policy's points per hand in it is
its total over the rotations divided by the hands it sat. The 95% confidence
interval of the mean (and of each pairwise difference, computed per sample,
which is where duplicate play pays off) is over those samples.
"""

from __future__ import annotations

import itertools
import math
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from hebei.bots.player import PolicyPlayer, warm_policies
from hebei.bots.policies import make_policy, parse_policy
from hebei.rules.match import Match, MatchLength
from hebei.rules.simulate import SimulationSummary, play_match

Z95 = 1.96
DEFAULT_LINEUP = ("expert", "efficiency", "random", "random")
# The default run: each policy against the next weaker one, two seats each.
DEFAULT_LINEUPS = (
    ("expert", "expert", "efficiency", "efficiency"),
    ("efficiency", "efficiency", "random", "random"),
)


@dataclass(frozen=True, slots=True)
class Estimate:
    """A mean with the half-width of its 95% confidence interval."""

    mean: float
    half_width: float

    @property
    def low(self) -> float:
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        return self.mean + self.half_width

    def to_json(self) -> dict:
        return {"mean": round(self.mean, 3), "ci95": round(self.half_width, 3)}


def estimate(samples: Sequence[float]) -> Estimate:
    """Mean and 95% half-width (normal approximation) of ``samples``."""
    if not samples:
        return Estimate(0.0, math.inf)
    mean = statistics.fmean(samples)
    if len(samples) < 2:
        return Estimate(mean, math.inf)
    return Estimate(mean, Z95 * statistics.stdev(samples) / math.sqrt(len(samples)))


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) of already sorted values, nearest rank."""
    if not sorted_values:
        return 0.0
    index = min(len(sorted_values) - 1, max(0, math.ceil(q * len(sorted_values)) - 1))
    return sorted_values[index]


@dataclass
class PolicyResult:
    """One policy of the line-up over the whole run."""

    name: str
    seats: int  # seats it holds in the line-up
    hands: int = 0  # hands it sat (seat-hands)
    points: int = 0
    per_sample: list[float] = field(default_factory=list)  # points per hand, per seed
    timings: list[float] = field(default_factory=list)

    def to_json(self) -> dict:
        times = sorted(self.timings)
        return {
            "policy": self.name,
            "seats": self.seats,
            "seat_hands": self.hands,
            "points": self.points,
            "points_per_hand": estimate(self.per_sample).to_json(),
            "decisions": len(times),
            "decision_ms": {
                "median": round(percentile(times, 0.5) * 1e3, 3),
                "p90": round(percentile(times, 0.9) * 1e3, 3),
                "p99": round(percentile(times, 0.99) * 1e3, 3),
                "max": round((times[-1] if times else 0.0) * 1e3, 3),
            },
        }


@dataclass(frozen=True, slots=True)
class Comparison:
    """``stronger`` minus ``weaker`` in points per hand, per seed sample."""

    stronger: str
    weaker: str
    difference: Estimate

    @property
    def significant(self) -> bool:
        """True when the whole 95% interval is above zero."""
        return self.difference.low > 0

    def to_json(self) -> dict:
        return {
            "stronger": self.stronger,
            "weaker": self.weaker,
            "difference": self.difference.to_json(),
            "significant": self.significant,
        }


@dataclass
class BotsBenchResult:
    lineup: tuple[str, ...]
    seeds: int
    hands_per_match: int
    hands: int  # hands played (each rotation's hands count)
    seconds: float
    policies: dict[str, PolicyResult]
    comparisons: list[Comparison]

    @property
    def ordering_holds(self) -> bool:
        """Each distinct policy, in line-up order, beats the next significantly."""
        return all(c.significant for c in self.comparisons)

    def to_json(self) -> dict:
        return {
            "lineup": list(self.lineup),
            "seeds": self.seeds,
            "hands_per_match": self.hands_per_match,
            "hands": self.hands,
            "seat_hands": sum(p.hands for p in self.policies.values()),
            "seconds": round(self.seconds, 2),
            "policies": [p.to_json() for p in self.policies.values()],
            "comparisons": [c.to_json() for c in self.comparisons],
            "ordering_holds": self.ordering_holds,
        }


def check_lineup(lineup: Sequence[str]) -> tuple[str, ...]:
    """Four policy specs (``name`` or ``name:level``), at least two distinct; ValueError if not."""
    specs = tuple(s.strip() for s in lineup)
    if len(specs) != 4:
        raise ValueError(f"a line-up has 4 seats, got {len(specs)}: {','.join(specs)}")
    for spec in specs:
        name, level = parse_policy(spec)
        make_policy(name, level)  # raises ValueError naming the choices
    if len(set(specs)) < 2:
        raise ValueError("a line-up needs at least two different policies to compare")
    return specs


def play_lineup(
    lineup: Sequence[str],
    match_seed: int,
    hands_per_match: int,
    rotation: int = 0,
    timings: Mapping[str, list[float]] | None = None,
) -> tuple[tuple[str, ...], tuple[int, ...], int]:
    """Play one in-process match of four policy specs on the wall of ``match_seed``.

    Seat ``s`` plays ``lineup[(s + rotation) % 4]``; each policy's randomness comes from the
    match seed, the rotation and its seat. With ``timings`` (a list per spec), each decision's
    seconds are appended to its spec's list. Returns the specs as seated, the final match
    points per seat and the hands played.
    """
    match = Match(match_seed, MatchLength(hands=hands_per_match))
    seated = tuple(lineup[(s + rotation) % 4] for s in range(4))
    players = []
    for s, spec in enumerate(seated):
        name, level = parse_policy(spec)
        policy = make_policy(name, level, seed=match_seed * 16 + rotation * 4 + s)
        clock = None if timings is None else timings[spec]
        players.append(PolicyPlayer(policy, match.scores, clock))
    summary = SimulationSummary()
    play_match(match, players, summary)
    return seated, tuple(match.scores), summary.hands


def run_duplicate(
    lineup: Sequence[str] = DEFAULT_LINEUP,
    seeds: int = 50,
    hands_per_match: int = 8,
    seed: int = 1,
    warm_hands: int = 16,
    on_match: Callable[[], None] | None = None,
) -> BotsBenchResult:
    """Play ``seeds`` match seeds x 4 rotations of ``lineup`` and measure every policy."""
    specs = check_lineup(lineup)
    if seeds < 2 or hands_per_match < 1:
        raise ValueError("need at least 2 seeds and 1 hand per match")
    if warm_hands:
        warm_policies(seed, warm_hands)
    results = {spec: PolicyResult(spec, specs.count(spec)) for spec in dict.fromkeys(specs)}
    timings = {spec: result.timings for spec, result in results.items()}
    hands = 0
    start = time.perf_counter()
    for n in range(seeds):
        match_seed = seed * 1_000_003 + n
        points = dict.fromkeys(results, 0)
        seat_hands = dict.fromkeys(results, 0)
        for rotation in range(4):
            seated, scores, played = play_lineup(
                specs, match_seed, hands_per_match, rotation, timings
            )
            hands += played
            for s, spec in enumerate(seated):
                points[spec] += scores[s]
                seat_hands[spec] += played
            if on_match is not None:
                on_match()
        for spec, result in results.items():
            result.points += points[spec]
            result.hands += seat_hands[spec]
            result.per_sample.append(points[spec] / seat_hands[spec])
    seconds = time.perf_counter() - start
    order = list(results)
    comparisons = []
    for stronger, weaker in itertools.pairwise(order):
        diffs = [
            a - b
            for a, b in zip(results[stronger].per_sample, results[weaker].per_sample, strict=True)
        ]
        comparisons.append(Comparison(stronger, weaker, estimate(diffs)))
    return BotsBenchResult(specs, seeds, hands_per_match, hands, seconds, results, comparisons)
