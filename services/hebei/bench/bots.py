"""`hebei bench bots`: policy strength in duplicate play, and decision times.

Duplicate play: every match seed is played four times with the line-up rotated
over the seats (seat ``s`` plays ``lineup[(s + r) % 4]`` in rotation ``r``), so each
policy meets the same walls from every seat and the luck of the deal cancels.
One seed's four rotations form one sample: a policy's points per hand in it is
its total over the rotations divided by the hands it sat. The 95% confidence
interval of the mean (and of each pairwise difference, computed per sample,
which is where duplicate play pays off) is over those samples.

The default run (:data:`DEFAULT_LINEUPS`) is four line-ups, each one challenger against
three copies of a baseline, or a mixed table; "expert" there is its strongest level
(``expert:4``, :data:`STRONGEST`), not the default level 3 a seat gets when none is given:

- ``expert:4`` against three ``efficiency``: expert − efficiency;
- ``efficiency`` against three ``expert:4``: expert − efficiency again, among experts;
- ``expert:4``, ``expert:3``, ``expert:2`` and ``expert:1`` at one table: each level
  against the next;
- ``efficiency`` against three ``random``.

Walls: evaluation runs use ``--seed 1`` (match seeds 1,000,003 + n). The expert was tuned on
other walls only (seeds 5 and 7, i.e. 5,000,015 + n and 7,000,021 + n, and its models were
fitted on self-play of seeds 11-71): keep those apart when judging a change.

Decision times are measured twice: on the wall clock (what a table waits for) and as the
CPU time of the deciding thread (what a decision costs, whatever else the machine runs: on
a shared, loaded machine the wall clock also counts the time the process waits for a core).

Seeds are spread over worker processes (``processes``, default: one per core) with the
``spawn`` start method; every sample is a function of its seed, so the figures do not depend
on how many processes played them. The workers are started with Ctrl-C ignored: a terminal
sends SIGINT to the whole process group, and only the parent answers it (its
``KeyboardInterrupt`` ends the pool, which stops the workers), so an interrupted run prints no
worker's traceback; a SIGTERM during their start comes to the parent once they are started
(:func:`hebei.bench.signals.starting_workers`).
"""

from __future__ import annotations

import itertools
import math
import multiprocessing
import os
import statistics
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from hebei.bench.signals import starting_workers
from hebei.bots.player import PolicyPlayer, warm_policies
from hebei.bots.policies import make_policy, parse_policy, strongest_level
from hebei.bots.policies.base import Policy
from hebei.rules.actions import Action
from hebei.rules.hand import HandState
from hebei.rules.match import Match, MatchLength
from hebei.rules.profile import MAIN, RuleProfile, get_profile
from hebei.rules.simulate import SimulationSummary, play_match

Z95 = 1.96
SEED_STRIDE = 1_000_003  # match seed of sample n: seed * SEED_STRIDE + n
DEFAULT_LINEUP = ("expert", "efficiency", "random", "random")


@dataclass(frozen=True, slots=True)
class Lineup:
    """Four seats and the differences to report, each ``(stronger, weaker)``."""

    title: str
    seats: tuple[str, ...]
    comparisons: tuple[tuple[str, str], ...]


STRONGEST = f"expert:{strongest_level('expert')}"  # the "expert": its strongest level

DEFAULT_LINEUPS = (
    Lineup(
        "expert vs 3 efficiency",
        (STRONGEST, "efficiency", "efficiency", "efficiency"),
        ((STRONGEST, "efficiency"),),
    ),
    Lineup(
        "efficiency vs 3 expert",
        ("efficiency", STRONGEST, STRONGEST, STRONGEST),
        ((STRONGEST, "efficiency"),),
    ),
    Lineup(
        "expert levels, mixed table",
        ("expert:4", "expert:3", "expert:2", "expert:1"),
        (("expert:4", "expert:3"), ("expert:3", "expert:2"), ("expert:2", "expert:1")),
    ),
    Lineup(
        "efficiency vs 3 random",
        ("efficiency", "random", "random", "random"),
        (("efficiency", "random"),),
    ),
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


def timing_json(timings: Sequence[float]) -> dict:
    """Decision-time percentiles of ``timings`` (seconds), in milliseconds."""
    times = sorted(timings)
    return {
        "decisions": len(times),
        "median": round(percentile(times, 0.5) * 1e3, 3),
        "p90": round(percentile(times, 0.9) * 1e3, 3),
        "p99": round(percentile(times, 0.99) * 1e3, 3),
        "max": round((times[-1] if times else 0.0) * 1e3, 3),
    }


@dataclass
class PolicyResult:
    """One policy of the line-up over the whole run."""

    name: str
    seats: int  # seats it holds in the line-up
    hands: int = 0  # hands it sat (seat-hands)
    points: int = 0
    per_sample: list[float] = field(default_factory=list)  # points per hand, per seed
    timings: list[float] = field(default_factory=list)
    cpu_timings: list[float] = field(default_factory=list)

    def to_json(self) -> dict:
        times = timing_json(self.timings)
        cpu = timing_json(self.cpu_timings)
        cpu.pop("decisions")
        return {
            "policy": self.name,
            "seats": self.seats,
            "seat_hands": self.hands,
            "points": self.points,
            "points_per_hand": estimate(self.per_sample).to_json(),
            # One entry per wall seed, in seed order: two runs on the same walls (a change
            # and the current policy) pair per seed, which is much tighter than comparing
            # their intervals.
            "points_per_hand_by_seed": [round(x, 6) for x in self.per_sample],
            "decisions": times.pop("decisions"),
            "decision_ms": times,
            "decision_cpu_ms": cpu,
        }


@dataclass(frozen=True, slots=True)
class Comparison:
    """``stronger`` minus ``weaker`` in points per hand, per seed sample."""

    stronger: str
    weaker: str
    difference: Estimate
    samples: int = 0

    @property
    def significant(self) -> bool:
        """True when the whole 95% interval is above zero."""
        return self.difference.low > 0

    def to_json(self) -> dict:
        return {
            "stronger": self.stronger,
            "weaker": self.weaker,
            "difference": self.difference.to_json(),
            "low": round(self.difference.low, 3),
            "samples": self.samples,
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
    title: str = ""
    processes: int = 1
    profile: str = MAIN.name
    wall_seed: int = 1  # the run's --seed: match seed n is wall_seed * SEED_STRIDE + n

    @property
    def ordering_holds(self) -> bool:
        """Each compared stronger policy beats its weaker one significantly."""
        return all(c.significant for c in self.comparisons)

    def to_json(self) -> dict:
        return {
            "title": self.title or " / ".join(self.lineup),
            "profile": self.profile,
            "lineup": list(self.lineup),
            "wall_seed": self.wall_seed,
            "seeds": self.seeds,
            "hands_per_match": self.hands_per_match,
            "hands": self.hands,
            "seat_hands": sum(p.hands for p in self.policies.values()),
            "seconds": round(self.seconds, 2),
            "processes": self.processes,
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


def lineup_of(specs: Sequence[str]) -> Lineup:
    """A checked line-up comparing each distinct policy with the next, in seat order."""
    seats = check_lineup(specs)
    order = list(dict.fromkeys(seats))
    return Lineup(" / ".join(seats), seats, tuple(itertools.pairwise(order)))


class TimedPlayer(PolicyPlayer):
    """A policy player recording each decision's wall-clock and thread CPU seconds."""

    def __init__(
        self, policy: Policy, scores: Sequence[int], wall: list[float], cpu: list[float]
    ) -> None:
        super().__init__(policy, scores)
        self.wall = wall
        self.cpu = cpu

    def choose(self, state: HandState, seat: int, options: tuple[Action, ...]) -> Action:
        wall, cpu = time.perf_counter(), time.thread_time()
        action = super().choose(state, seat, options)
        self.cpu.append(time.thread_time() - cpu)
        self.wall.append(time.perf_counter() - wall)
        return action


def play_lineup(
    lineup: Sequence[str],
    match_seed: int,
    hands_per_match: int,
    rotation: int = 0,
    timings: Mapping[str, list[float]] | None = None,
    cpu_timings: Mapping[str, list[float]] | None = None,
    profile: RuleProfile = MAIN,
) -> tuple[tuple[str, ...], tuple[int, ...], int]:
    """Play one in-process match of four policy specs on the wall of ``match_seed``.

    Seat ``s`` plays ``lineup[(s + rotation) % 4]``; each policy's randomness comes from the
    match seed, the rotation and its seat. With ``timings`` and ``cpu_timings`` (a list per
    spec), each decision's wall-clock and CPU seconds are appended to its spec's lists. Returns the specs as seated, the final match
    points per seat and the hands played.
    """
    match = Match(match_seed, MatchLength(hands=hands_per_match), profile)
    seated = tuple(lineup[(s + rotation) % 4] for s in range(4))
    players = []
    for s, spec in enumerate(seated):
        name, level = parse_policy(spec)
        policy = make_policy(name, level, seed=match_seed * 16 + rotation * 4 + s)
        if timings is None or cpu_timings is None:
            players.append(PolicyPlayer(policy, match.scores))
        else:
            players.append(TimedPlayer(policy, match.scores, timings[spec], cpu_timings[spec]))
    summary = SimulationSummary()
    play_match(match, players, summary)
    return seated, tuple(match.scores), summary.hands


@dataclass(frozen=True, slots=True)
class SeedResult:
    """One seed's four rotations: points and seat-hands per spec, hands, decision times."""

    points: dict[str, int]
    seat_hands: dict[str, int]
    hands: int
    timings: dict[str, list[float]]
    cpu_timings: dict[str, list[float]]


def play_seed(
    specs: tuple[str, ...], match_seed: int, hands_per_match: int, profile: RuleProfile = MAIN
) -> SeedResult:
    """The four rotations of one wall seed, at tables of ``profile``."""
    distinct = list(dict.fromkeys(specs))
    points = dict.fromkeys(distinct, 0)
    seat_hands = dict.fromkeys(distinct, 0)
    timings: dict[str, list[float]] = {spec: [] for spec in distinct}
    cpu: dict[str, list[float]] = {spec: [] for spec in distinct}
    hands = 0
    for rotation in range(4):
        seated, scores, played = play_lineup(
            specs, match_seed, hands_per_match, rotation, timings, cpu, profile
        )
        hands += played
        for s, spec in enumerate(seated):
            points[spec] += scores[s]
            seat_hands[spec] += played
    return SeedResult(points, seat_hands, hands, timings, cpu)


def _worker_start(seed: int, warm_hands: int) -> None:
    warm_policies(seed, warm_hands)


def _worker_seed(args: tuple[tuple[str, ...], int, int, str]) -> tuple[int, SeedResult]:
    specs, match_seed, hands_per_match, profile = args
    return match_seed, play_seed(specs, match_seed, hands_per_match, get_profile(profile))


def default_processes() -> int:
    """One worker process per core."""
    return max(1, os.cpu_count() or 1)


def _seed_results(
    specs: tuple[str, ...],
    match_seeds: Sequence[int],
    hands_per_match: int,
    processes: int,
    seed: int,
    warm_hands: int,
    profile: str = MAIN.name,
) -> Iterator[tuple[int, SeedResult]]:
    jobs = [(specs, ms, hands_per_match, profile) for ms in match_seeds]
    if processes <= 1:
        if warm_hands:
            warm_policies(seed, warm_hands)
        for job in jobs:
            yield _worker_seed(job)
        return
    context = multiprocessing.get_context("spawn")
    with starting_workers():  # see the module docstring
        pool = context.Pool(processes, initializer=_worker_start, initargs=(seed, warm_hands))
    with pool:
        yield from pool.imap_unordered(_worker_seed, jobs)


def run_duplicate(
    lineup: Sequence[str] | Lineup = DEFAULT_LINEUP,
    seeds: int = 50,
    hands_per_match: int = 8,
    seed: int = 1,
    warm_hands: int = 16,
    on_match: Callable[[], None] | None = None,
    processes: int = 1,
    profile: RuleProfile = MAIN,
) -> BotsBenchResult:
    """Play ``seeds`` match seeds x 4 rotations of ``lineup`` and measure every policy.
    Every table plays the rules of ``profile``.

    ``on_match`` is called after each match (four per seed); ``processes`` > 1 spreads the
    seeds over that many worker processes (same figures, see the module docstring).
    """
    plan = lineup if isinstance(lineup, Lineup) else lineup_of(lineup)
    specs = check_lineup(plan.seats)
    if seeds < 2 or hands_per_match < 1:
        raise ValueError("need at least 2 seeds and 1 hand per match")
    results = {spec: PolicyResult(spec, specs.count(spec)) for spec in dict.fromkeys(specs)}
    match_seeds = [seed * SEED_STRIDE + n for n in range(seeds)]
    by_seed: dict[int, SeedResult] = {}
    start = time.perf_counter()
    stream = _seed_results(
        specs, match_seeds, hands_per_match, processes, seed, warm_hands, profile.name
    )
    for match_seed, result in stream:
        by_seed[match_seed] = result
        for spec, times in result.timings.items():
            results[spec].timings.extend(times)
            results[spec].cpu_timings.extend(result.cpu_timings[spec])
        if on_match is not None:
            for _ in range(4):
                on_match()
    seconds = time.perf_counter() - start
    hands = 0
    for match_seed in match_seeds:  # in seed order: the figures do not depend on scheduling
        result = by_seed[match_seed]
        hands += result.hands
        for spec, policy in results.items():
            policy.points += result.points[spec]
            policy.hands += result.seat_hands[spec]
            policy.per_sample.append(result.points[spec] / result.seat_hands[spec])
    comparisons = []
    for stronger, weaker in plan.comparisons:
        diffs = [
            a - b
            for a, b in zip(results[stronger].per_sample, results[weaker].per_sample, strict=True)
        ]
        comparisons.append(Comparison(stronger, weaker, estimate(diffs), len(diffs)))
    return BotsBenchResult(
        specs,
        seeds,
        hands_per_match,
        hands,
        seconds,
        results,
        comparisons,
        title=plan.title,
        processes=max(1, processes),
        profile=profile.name,
        wall_seed=seed,
    )


def timings_by_spec(results: Sequence[BotsBenchResult], cpu: bool = False) -> dict[str, dict]:
    """Decision-time percentiles per policy spec over every line-up of a run (``cpu``: of
    the CPU times, else of the wall-clock ones)."""
    pooled: dict[str, list[float]] = {}
    for result in results:
        for spec, policy in result.policies.items():
            pooled.setdefault(spec, []).extend(policy.cpu_timings if cpu else policy.timings)
    return {spec: timing_json(times) for spec, times in sorted(pooled.items())}
