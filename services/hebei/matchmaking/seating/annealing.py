"""Pair planning by search: greedy tables round by round, then simulated annealing over swaps
of two players inside a round (see "Pair planning" in :mod:`hebei.matchmaking.seating`)."""

from __future__ import annotations

import math
import random

from hebei.matchmaking.seating.clock import SEARCH_SHARE, Clock
from hebei.matchmaking.seating.meetings import add_meetings, table_index
from hebei.matchmaking.seating.model import MAX_ROUNDS, IndexedRound
from hebei.matchmaking.seating.winds import has_distinct_winds

_GROWTH = 12
CONSECUTIVE = 5000
MARGINAL = [0] + [min(_GROWTH ** (m - 1), 10**12) for m in range(1, MAX_ROUNDS + 2)]
"""MARGINAL[m]: the cost of a pair's (m+1)-th meeting."""


def greedy_round(
    n: int,
    meet: bytearray,
    before: list[int] | None,
    rng: random.Random,
    classes: list[int] | None = None,
) -> IndexedRound:
    """One round's tables, each seat given to the best of a few candidates (least added cost).

    With ``classes`` (a wind for each player) every table takes one player of each wind.
    """
    pools: list[list[int]]
    if classes is None:
        pools = [list(range(n))]
    else:
        pools = [[p for p in range(n) if classes[p] == w] for w in range(4)]
    for pool in pools:
        rng.shuffle(pool)
    sample = 24 if n <= 512 else 8
    tables: IndexedRound = []
    for _ in range(n // 4):
        table: list[int] = []
        for slot in range(4):
            pool = pools[0] if classes is None else pools[slot]
            if not table:
                table.append(pool.pop())
                continue
            best, best_cost = len(pool) - 1, None
            for i in range(len(pool) - 1, max(-1, len(pool) - 1 - sample), -1):
                c = pool[i]
                cost = 0
                for t in table:
                    cost += MARGINAL[meet[c * n + t]]
                    if before is not None and before[c] >= 0 and before[c] == before[t]:
                        cost += CONSECUTIVE
                if best_cost is None or cost < best_cost:
                    best, best_cost = i, cost
                    if cost == 0:
                        break
            pool[best], pool[-1] = pool[-1], pool[best]
            table.append(pool.pop())
        tables.append(table)
    return tables


_ANNEAL_ITERATIONS = 150_000
"""The most annealing moves of a plan (one swap of two players in a round each): about 0.4 s
on a quiet machine whatever the field's size (a move costs the same), so a round stays well
under the 2 s deadline; iterations, not time, so the plan is a function of its inputs."""
_ANNEAL_PER_TABLE = 4000
"""Annealing moves per table of the rounds searched, up to :data:`_ANNEAL_ITERATIONS`."""


def anneal_budget(players: int, rounds: int) -> int:
    """The annealing moves given to a plan of ``rounds`` rounds searched for ``players``."""
    return min(_ANNEAL_ITERATIONS, _ANNEAL_PER_TABLE * rounds * (players // 4))


_ANNEAL_HOT, ANNEAL_COLD = 2.0, 0.05
"""The temperature falls geometrically from hot to cold over the budget (one repeat costs 1)."""
_BEYOND = 1000
"""A meeting beyond the lower bound plus one (:func:`.quality.pair_bounds`) costs this much."""
_FOCUS = 8
"""A move's first player is drawn again up to this many times until it is in a repeat."""


def plan_costs(most: int) -> list[int]:
    """costs[m]: the cost of a pair's (m+1)-th meeting when ``most`` is the event's lower bound
    on the most meetings of a pair: 1 for a repeat up to the bound, 2 for the one above it
    (so the search weighs the most meetings as well as the repeats), far more beyond."""
    return [0] + [1] * (most - 1) + [2] + [_BEYOND * m for m in range(1, MAX_ROUNDS + 2)]


def anneal(
    n: int,
    meet: bytearray,
    before: list[int] | None,
    rounds: list[IndexedRound],
    *,
    costs: list[int],
    rng: random.Random,
    iterations: int,
    clock: Clock,
    frozen: int = 0,
    allowed: list[int] | None = None,
) -> None:
    """Simulated annealing over the rounds from ``frozen`` on, in place: a move swaps two
    players at different tables of one round; a pair's (m+1)-th meeting costs ``costs[m]``
    and a pair at one table in two consecutive rounds :data:`CONSECUTIVE` (``before``: each
    player's table in the round played before the plan). ``meet`` holds the history's meetings
    (the plan's are added). With ``allowed`` (wind masks), swaps in the first round keep its
    tables wind-feasible. The best plan seen is kept."""
    R = len(rounds)
    for tables in rounds:
        add_meetings(n, meet, tables)
    where = [table_index(n, tables) for tables in rounds]
    free = range(frozen, R)
    if not free or n <= 4:
        return
    exp, rand = math.exp, rng.random
    decay = (ANNEAL_COLD / _ANNEAL_HOT) ** (1 / iterations)
    temperature = _ANNEAL_HOT
    cost = best = 0
    since_best: list[tuple[int, int, int]] = []
    for it in range(iterations):
        if it % 1024 == 0 and clock.expired(SEARCH_SHARE):
            break
        temperature *= decay
        r = frozen + int(rand() * len(free))
        at, tables = where[r], rounds[r]
        x, y = int(rand() * n), int(rand() * n)
        for _ in range(_FOCUS):  # a player in a repeat, if one is found soon (meet[x, x] = 0)
            xn, a, b, c, d = x * n, *tables[at[x]]
            if meet[xn + a] > 1 or meet[xn + b] > 1 or meet[xn + c] > 1 or meet[xn + d] > 1:
                break
            x = int(rand() * n)
        if at[x] == at[y]:
            continue
        mates_x, mates_y = tables[at[x]], tables[at[y]]
        delta = swap_delta(n, meet, costs, x, y, mates_x, mates_y)
        if r:
            delta += CONSECUTIVE * beside_delta(where[r - 1], x, y, mates_x, mates_y)
        elif before is not None:
            delta += CONSECUTIVE * beside_delta(before, x, y, mates_x, mates_y)
        if r + 1 < R:
            delta += CONSECUTIVE * beside_delta(where[r + 1], x, y, mates_x, mates_y)
        if delta > 0 and rand() >= exp(-delta / temperature):
            continue
        if r == 0 and allowed is not None and not _swap_keeps_winds(allowed, tables, at, x, y):
            continue
        swap_seats(n, meet, tables, at, x, y)
        cost += delta
        since_best.append((r, x, y))
        if cost < best:
            best = cost
            since_best.clear()
    for r, x, y in reversed(since_best):
        swap_seats(n, meet, rounds[r], where[r], x, y)


def swap_delta(
    n: int, meet: bytearray, costs: list[int], x: int, y: int, at_x: list[int], at_y: list[int]
) -> int:
    """The change in meeting costs when x (at table ``at_x``) and y (at ``at_y``) swap."""
    delta = 0
    xn, yn = x * n, y * n
    for a in at_x:
        if a != x:
            delta += costs[meet[yn + a]] - costs[meet[xn + a] - 1]
    for b in at_y:
        if b != y:
            delta += costs[meet[xn + b]] - costs[meet[yn + b] - 1]
    return delta


def beside_delta(around: list[int], x: int, y: int, at_x: list[int], at_y: list[int]) -> int:
    """The change in pairs that also sat together in the round ``around`` (each player's table
    there, -1: absent) when x (at table ``at_x``) and y (at ``at_y``) swap."""
    sx, sy = around[x], around[y]
    if sx == sy:
        return 0
    seats_x = [around[a] for a in at_x]
    seats_y = [around[b] for b in at_y]
    delta = 0
    if sy >= 0:  # y joins x's mates and leaves its own
        delta += seats_x.count(sy) - seats_y.count(sy) + 1
    if sx >= 0:
        delta += seats_y.count(sx) - seats_x.count(sx) + 1
    return delta


def _swap_keeps_winds(
    allowed: list[int], tables: IndexedRound, at: list[int], x: int, y: int
) -> bool:
    """Swapping x and y keeps both tables wind-feasible."""
    a = [allowed[y] if p == x else allowed[p] for p in tables[at[x]]]
    b = [allowed[x] if p == y else allowed[p] for p in tables[at[y]]]
    return has_distinct_winds(tuple(sorted(a))) and has_distinct_winds(tuple(sorted(b)))


def swap_seats(
    n: int, meet: bytearray, tables: IndexedRound, at: list[int], x: int, y: int
) -> None:
    """x and y (at different tables of a round) swap seats; the meetings follow."""
    tx, ty = at[x], at[y]
    for mover, stayer, mates in ((x, y, tables[tx]), (y, x, tables[ty])):
        for a in mates:
            if a != mover:
                meet[mover * n + a] -= 1
                meet[a * n + mover] -= 1
                meet[stayer * n + a] += 1
                meet[a * n + stayer] += 1
    tables[tx][tables[tx].index(x)] = y
    tables[ty][tables[ty].index(y)] = x
    at[x], at[y] = ty, tx
