"""Swiss rounds: players close in the standings sit together, avoiding repeat meetings (see
"Swiss" in :mod:`hebei.matchmaking.seating`); and :func:`greedy_swiss`, the plain baseline."""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from itertools import combinations

from hebei.matchmaking.seating.annealing import ANNEAL_COLD, CONSECUTIVE, MARGINAL
from hebei.matchmaking.seating.checks import check_players, check_standings
from hebei.matchmaking.seating.clock import SEARCH_SHARE, Clock, seeded_rng
from hebei.matchmaking.seating.lanes import NO_WINDS, round_winds
from hebei.matchmaking.seating.meetings import EventState, event_state
from hebei.matchmaking.seating.model import IndexedRound, Table
from hebei.matchmaking.seating.quality import pair_bounds, wind_counts
from hebei.matchmaking.seating.winds import (
    balanced_classes,
    hall_ok,
    has_distinct_winds,
    least_winds,
    seat_table,
)

_SWISS_REPEAT = 12
"""A repeat pair costs as much as widening a table by this many places of the ranking."""
_SWISS_CONSECUTIVE = 12 * CONSECUTIVE
"""A pair that sat together in the round before costs this many places of the ranking."""
_SWISS_FORCED = 2
"""A repeat the event's size forces anyway costs this many places of the ranking."""
_SWISS_REACH = 3
"""Swaps are tried between tables at most this many tables apart in the ranking."""
_SWISS_FAR = 10
"""One annealing move in this many swaps with any table, however far in the ranking."""
_SWISS_HOT = 8.0
"""The annealing's starting temperature (places of the ranking)."""
_SWISS_PER_TABLE, _SWISS_ITERATIONS = 1000, 20_000
"""Annealing moves of a swiss round: this many a table, at most that many (about 0.1 s on a
quiet machine at any size)."""


def greedy_swiss(players: Sequence[str], standings: Mapping[str, float]) -> tuple[Table, ...]:
    """The baseline Swiss: rank by points (ties by id), top four at a table, next four, ...;
    seats in ranking order. It ignores repeats and winds."""
    ids = check_players(players)
    check_standings(standings)
    ranked = sorted(ids, key=lambda p: (-standings.get(p, 0.0), p))
    return tuple(
        (ranked[i], ranked[i + 1], ranked[i + 2], ranked[i + 3]) for i in range(0, len(ranked), 4)
    )


def _ranks(points: list[float], order: list[int]) -> list[int]:
    """Competition ranks along ``order`` (best first): equal points share the first place."""
    rank = [0] * len(points)
    for place, p in enumerate(order):
        if place and points[p] == points[order[place - 1]]:
            rank[p] = rank[order[place - 1]]
        else:
            rank[p] = place
    return rank


def _swiss_initial(order: list[int], allowed: list[int]) -> IndexedRound:
    """Top down: the best remaining player with the best-ranked three that keep the table and
    the rest of the round wind-feasible."""
    remaining = list(order)
    numbers = Counter(allowed)
    tables: IndexedRound = []
    while remaining:
        table = _first_feasible_table(remaining, allowed, numbers)
        chosen = set(table)
        remaining = [p for p in remaining if p not in chosen]
        for p in table:
            numbers[allowed[p]] -= 1
        tables.append(table)
    return tables


def _first_feasible_table(remaining: list[int], allowed: list[int], numbers: Counter) -> list[int]:
    """The first table in ranking order (depth first, pruned by distinct winds) that leaves
    the rest wind-feasible; after a bounded search, the head with the best-ranked player of
    each other wind of a balanced split of the rest (always feasible)."""
    quota = len(remaining) // 4 - 1
    nodes = [256]

    def rest_feasible(table: list[int]) -> bool:
        left = Counter(numbers)
        for p in table:
            left[allowed[p]] -= 1
        return hall_ok([(c, m) for m, c in left.items() if c], quota)

    def extend(table: list[int], start: int) -> list[int] | None:
        if len(table) == 4:
            return table if rest_feasible(table) else None
        for i in range(start, len(remaining)):
            nodes[0] -= 1
            if nodes[0] < 0:
                return None
            candidate = [*table, remaining[i]]
            if has_distinct_winds(tuple(sorted(allowed[p] for p in candidate))):
                found = extend(candidate, i + 1)
                if found is not None:
                    return found
        return None

    found = extend([remaining[0]], 1)
    if found is not None:
        return found
    classes_here = balanced_classes([allowed[p] for p in remaining], range(len(remaining)))
    assert classes_here is not None, "the rest of a wind-feasible round is feasible"
    classes = dict(zip(remaining, classes_here, strict=True))
    table, taken = [remaining[0]], {classes[remaining[0]]}
    for p in remaining[1:]:
        if classes[p] not in taken:
            table.append(p)
            taken.add(classes[p])
    return table


class _SwissSearch:
    """Swaps between tables: rank spread + repeat, consecutive and filler costs."""

    def __init__(
        self,
        tables: IndexedRound,
        rank: list[int],
        state: EventState,
        allowed: list[int],
        round_no: int,
        fillers: Sequence[bool],
    ) -> None:
        self.tables = tables
        self.rank = rank
        self.state = state
        self.allowed = allowed
        self.fillers = fillers
        # a pair's meeting is cheap while no seating could have kept it below that many
        # meetings by this round (pair_bounds), and costs as in the planner beyond
        forced, _ = pair_bounds(state.n, round_no)
        self.pair_cost = [
            _SWISS_FORCED * m if m < forced else _SWISS_REPEAT * MARGINAL[m]
            for m in range(len(MARGINAL))
        ]

    def table_cost(self, table: Sequence[int]) -> int:
        """Rank spread of the table plus the cost of each pair (repeat, consecutive)."""
        n, meet, before, pair_cost = (
            self.state.n,
            self.state.meet,
            self.state.before,
            self.pair_cost,
        )
        ranks = [self.rank[p] for p in table]
        cost = max(ranks) - min(ranks)
        fillers = sum(1 for p in table if self.fillers[p])
        if fillers > 1:
            cost += _SWISS_CONSECUTIVE * (fillers - 1)
        for p, q in combinations(table, 2):
            cost += pair_cost[meet[p * n + q]]
            if before is not None and before[p] >= 0 and before[p] == before[q]:
                cost += _SWISS_CONSECUTIVE
        return cost

    def anneal(self, iterations: int, rng: random.Random, clock: Clock) -> None:
        """Simulated annealing over wind-feasible swaps of two players, mostly between tables
        near in the ranking (one in :data:`_SWISS_FAR` moves reaches any table); the best
        seating seen is kept."""
        tables, count = self.tables, len(self.tables)
        if count < 2:
            return
        costs = [self.table_cost(t) for t in tables]
        rand, exp = rng.random, math.exp
        decay = (ANNEAL_COLD / _SWISS_HOT) ** (1 / iterations)
        temperature = _SWISS_HOT
        cost = best = sum(costs)
        best_tables = [list(t) for t in tables]
        for it in range(iterations):
            if it % 256 == 0 and clock.expired(SEARCH_SHARE):
                break
            temperature *= decay
            i = int(rand() * count)
            if rand() * _SWISS_FAR < 1:
                j = int(rand() * count)
            else:
                j = i + 1 + int(rand() * _SWISS_REACH)
                if rand() < 0.5:
                    j = i - (j - i)
            if j == i or not 0 <= j < count:
                continue
            x, y = int(rand() * 4), int(rand() * 4)
            a, b = tables[i], tables[j]
            new_a = [*a[:x], b[y], *a[x + 1 :]]
            new_b = [*b[:y], a[x], *b[y + 1 :]]
            if not self._feasible(new_a, new_b):
                continue
            cost_a, cost_b = self.table_cost(new_a), self.table_cost(new_b)
            delta = cost_a + cost_b - costs[i] - costs[j]
            if delta > 0 and rand() >= exp(-delta / temperature):
                continue
            tables[i], tables[j], costs[i], costs[j] = new_a, new_b, cost_a, cost_b
            cost += delta
            if cost < best:
                best, best_tables = cost, [list(t) for t in tables]
        tables[:] = best_tables

    def improve(self, passes: int, clock: Clock) -> None:
        """Passes over pairs of nearby tables, each taking its best improving swap."""
        tables = self.tables
        costs = [self.table_cost(t) for t in tables]
        for _ in range(passes):
            improved = False
            for i in range(len(tables)):
                if clock.expired(SEARCH_SHARE):
                    return
                for j in range(i + 1, min(len(tables), i + 1 + _SWISS_REACH)):
                    improved |= self._best_swap(i, j, costs)
            if not improved:
                return

    def _best_swap(self, i: int, j: int, costs: list[int]) -> bool:
        """Apply the best improving swap between tables i and j; False when there is none."""
        a, b = self.tables[i], self.tables[j]
        best = None
        for x in range(4):
            for y in range(4):
                new_a = [*a[:x], b[y], *a[x + 1 :]]
                new_b = [*b[:y], a[x], *b[y + 1 :]]
                gain = costs[i] + costs[j] - self.table_cost(new_a) - self.table_cost(new_b)
                if gain > 0 and (best is None or gain > best[0]) and self._feasible(new_a, new_b):
                    best = (gain, new_a, new_b)
        if best is None:
            return False
        _, self.tables[i], self.tables[j] = best
        costs[i], costs[j] = self.table_cost(self.tables[i]), self.table_cost(self.tables[j])
        return True

    def consecutive(self) -> int:
        """Pairs at the tables that also sat together in the round before."""
        before = self.state.before
        if before is None:
            return 0
        return sum(
            1
            for table in self.tables
            for p, q in combinations(table, 2)
            if before[p] >= 0 and before[p] == before[q]
        )

    def _feasible(self, *tables: list[int]) -> bool:
        allowed = self.allowed
        return all(has_distinct_winds(tuple(sorted(allowed[p] for p in t))) for t in tables)


def swiss_round(
    ids: list[str],
    round_no: int,
    seed: int,
    history: list[list[Table]],
    standings: Mapping[str, float],
    fillers: Collection[str],
    clock: Clock,
) -> list[list[int]]:
    """A swiss round: tables seated East..North, ordered by their best-ranked player."""
    state = event_state(ids, history)
    rng = seeded_rng(seed, "swiss", round_no)
    points = [float(standings.get(p, 0.0)) for p in ids]
    tiebreak = [rng.random() for _ in ids]
    order = sorted(range(state.n), key=lambda p: (-points[p], tiebreak[p]))
    allowed = round_winds(ids, history, order)
    initial = _swiss_initial(order, allowed)
    filler = [p in fillers for p in ids]
    rank = _ranks(points, order)
    search = _swiss_search(initial, rank, state, allowed, round_no, filler, rng, clock)
    least = [least_winds(c) for c in _state_winds(ids, history)]
    if search.consecutive() and least != allowed and balanced_classes(least, order):
        # the wind plan leaves no seating without a pair of the round before: the least winds
        # (each player still within one) may
        retry = _swiss_search(
            _swiss_initial(order, least), rank, state, least, round_no, filler, rng, clock
        )
        if retry.consecutive() < search.consecutive():
            search, allowed = retry, least
    place = {p: i for i, p in enumerate(order)}
    tables = sorted(search.tables, key=lambda t: min(place[p] for p in t))
    return [seat_table(table, allowed, rng) for table in tables]


def _swiss_search(
    initial: IndexedRound,
    rank: list[int],
    state: EventState,
    allowed: list[int],
    round_no: int,
    filler: list[bool],
    rng: random.Random,
    clock: Clock,
) -> _SwissSearch:
    """The swiss search run from ``initial``: annealing, then passes of best swaps."""
    search = _SwissSearch(initial, rank, state, allowed, round_no, filler)
    search.anneal(min(_SWISS_ITERATIONS, _SWISS_PER_TABLE * len(initial)), rng, clock)
    search.improve(passes=8, clock=clock)
    return search


def _state_winds(ids: list[str], history: list[list[Table]]) -> list[list[int]]:
    """Each player's wind counts over the history (from the first round it played)."""
    counts = wind_counts(history)
    return [counts.get(p, list(NO_WINDS)) for p in ids]
