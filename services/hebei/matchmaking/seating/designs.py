"""Designs over GF(2): rounds in which no pair meets twice, for 2^k players (GF(4) and GF(8)
spreads, the 32-player twin design), and the plans that repeat them in cycles (see "Pair
planning" in :mod:`hebei.matchmaking.seating`)."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

from hebei.matchmaking.seating.meetings import table_index
from hebei.matchmaking.seating.model import MAX_ROUNDS, IndexedRound


def _coset_round(subspace: Sequence[int], players: int) -> IndexedRound:
    """The tables x + V of the 2-dimensional subspace V = {0} + ``subspace`` of GF(2)^k."""
    a, b, c = subspace
    return [[x, x ^ a, x ^ b, x ^ c] for x in range(players) if x < min(x ^ a, x ^ b, x ^ c)]


_GF4_MUL = ((0, 0, 0, 0), (0, 1, 2, 3), (0, 2, 3, 1), (0, 3, 1, 2))
"""Multiplication in GF(4) = {0, 1, w, w^2} coded 0, 1, 2, 3 (addition is XOR)."""


def _gf4_scale(scalar: int, vector: int, digits: int) -> int:
    """``scalar`` times a vector of GF(4)^digits packed two bits a coordinate."""
    out = 0
    for i in range(digits):
        out |= _GF4_MUL[scalar][(vector >> 2 * i) & 3] << 2 * i
    return out


def _gf4_spread(k: int) -> list[tuple[int, int, int]]:
    """The GF(4)-points of GF(4)^(k/2): (2^k - 1)/3 subspaces covering every vector once."""
    digits = k // 2
    lines = []
    for v in range(1, 1 << k):
        leading = (v >> 2 * ((v.bit_length() - 1) // 2)) & 3
        if leading == 1:
            lines.append((v, _gf4_scale(2, v, digits), _gf4_scale(3, v, digits)))
    return lines


def _gf8_mul(a: int, b: int) -> int:
    """Multiplication in GF(8) = GF(2)[x]/(x^3 + x + 1), elements as 3-bit masks."""
    out = 0
    for i in range(3):
        if b >> i & 1:
            out ^= a << i
    for bit in (4, 3):
        if out >> bit & 1:
            out ^= 0b1011 << (bit - 3)
    return out


def _odd_spread(k: int) -> list[tuple[int, int, int]]:
    """(2^k - 8)/3 + 1 pairwise disjoint lines of PG(k-1, 2), k odd (the most there are).

    GF(2)^k = W + U with W = GF(2)^3 (low bits) and U of even dimension k-3. For each line
    {a, b, a+b} of the GF(4)-spread of U and each g in GF(8), the graph of v -> g * i(v), with
    i(a) = 1, i(b) = x, is a line; two graphs over one line differ by an injective map, so the
    8(2^(k-3) - 1)/3 graphs cover every vector outside W once. A line of W comes last.
    """
    lines = []
    for a, b, _ in _gf4_spread(k - 3) if k > 3 else ():
        for g in range(8):
            first = _gf8_mul(g, 1) | a << 3
            second = _gf8_mul(g, 2) | b << 3
            lines.append((first, second, first ^ second))
    lines.append((1, 2, 3))
    return lines


def _solve_gf2(rows: list[int], unknowns: int) -> int | None:
    """A solution of a linear system over GF(2): each row is a bit mask of its unknowns with
    the right-hand side in bit ``unknowns``. Free unknowns are 0; None when inconsistent."""
    rhs = 1 << unknowns
    pivots: dict[int, int] = {}
    for row in rows:
        for column, pivot in pivots.items():
            if row >> column & 1:
                row ^= pivot
        if row & (rhs - 1) == 0:
            if row & rhs:
                return None
            continue
        column = (row & (rhs - 1)).bit_length() - 1
        for other, pivot in pivots.items():
            if pivot >> column & 1:
                pivots[other] = pivot ^ row
        pivots[column] = row
    return sum(1 << column for column, row in pivots.items() if row & rhs)


def _lines_of(spread: Iterable[tuple[int, int, int]]) -> set[frozenset[int]]:
    return {frozenset(line) for line in spread}


def _second_spread(first: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """The image of the spread ``first`` of GF(2)^4 under an invertible linear map that moves
    every one of its lines (tried in a fixed pseudo-random order)."""
    rng = random.Random("hebei-seating:second-spread")
    taken = _lines_of(first)
    while True:
        columns = [rng.randrange(1, 16) for _ in range(4)]
        image = [0] * 16
        for v in range(16):
            for i in range(4):
                if v >> i & 1:
                    image[v] ^= columns[i]
        if len(set(image)) < 16:
            continue
        moved = [(image[a], image[b], image[c]) for a, b, c in first]
        if not _lines_of(moved) & taken:
            return moved


def _twin_design() -> list[IndexedRound]:
    """10 rounds for 32 players where every pair meets at most once (see the package doc).

    Player 16*s + x is letter x of GF(2)^4 with sign s; the pairs (x, 16 + x) never meet.
    """
    first = _gf4_spread(4)
    classes = [_coset_round(line, 16) for line in [*first, *_second_spread(first)]]
    blocks = [block for letter_class in classes for block in letter_class]
    # unknown 4*i + j: the sign of the j-th letter of block i; every letter pair lies in two
    # blocks, and its relative sign must differ between them.
    seen: dict[tuple[int, int], tuple[int, int, int]] = {}
    rows = []
    for i, block in enumerate(blocks):
        for j, k in combinations(range(4), 2):
            pair = (min(block[j], block[k]), max(block[j], block[k]))
            here = (1 << 4 * i + j) | (1 << 4 * i + k)
            if pair in seen:
                rows.append(seen[pair][2] | here | 1 << 4 * len(blocks))
            else:
                seen[pair] = (i, j, here)
    signs = _solve_gf2(rows, 4 * len(blocks))
    if signs is None:  # pragma: no cover - the construction is checked by the tests
        raise AssertionError("the 32-player design has no signs")
    rounds = []
    for c, letter_class in enumerate(classes):
        tables = []
        for b, block in enumerate(letter_class):
            i = 4 * c + b
            sign = [signs >> 4 * i + j & 1 for j in range(4)]
            tables.append([16 * sign[j] + block[j] for j in range(4)])
            tables.append([16 * (1 - sign[j]) + block[j] for j in range(4)])
        rounds.append(tables)
    return rounds


@lru_cache(maxsize=32)
def design_rounds(players: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Rounds over players 0..P-1 in which no pair meets twice; () when P is no power of 2."""
    k = players.bit_length() - 1
    if players < 4 or players != 1 << k:
        return ()
    if players == 32:
        rounds = _twin_design()
    else:
        lines = _gf4_spread(k) if k % 2 == 0 else _odd_spread(k)
        rounds = [_coset_round(line, players) for line in lines[:MAX_ROUNDS]]
    return tuple(tuple(tuple(table) for table in rnd) for rnd in rounds)


@dataclass
class Draft:
    """A first plan of the rounds to play: its first ``frozen`` rounds are already optimal and
    the search leaves them alone."""

    rounds: list[IndexedRound]
    frozen: int


def design_plan(players: int, rounds: int, rng: random.Random) -> Draft | None:
    """``rounds`` rounds of the design, relabelled by a random permutation, repeated in cycles
    (each in a new order, never starting with the round that ended the previous cycle).

    A full spread repeats exactly: every pair meets once per cycle, so the whole plan is
    optimal. The 32-player design leaves the pairs (x, x+16) apart: a *twin round* seats two
    such pairs at each table after each cycle.
    """
    design = design_rounds(players)
    if not design:
        return None
    label = list(range(players))
    rng.shuffle(label)
    twins = [(label[x], label[x + 16]) for x in range(16)] if players == 32 else None
    plan: list[IndexedRound] = []
    previous = -1
    while len(plan) < rounds:
        order = list(range(len(design)))
        rng.shuffle(order)
        if order[0] == previous and len(order) > 1:
            order[0], order[-1] = order[-1], order[0]
        for index in order[: rounds - len(plan)]:
            plan.append([[label[p] for p in table] for table in design[index]])
            previous = index
        if twins and len(plan) < rounds:
            plan.append(_twin_round(twins, plan[-1], rng))
            previous = -1
    full_spread = 3 * len(design) == players - 1
    frozen = rounds if full_spread else min(rounds, len(design))
    # a twin round that shares no pair with the round before is optimal too
    if (
        twins
        and rounds > len(design)
        and clash_count(players, plan[len(design) - 1], plan[len(design)]) == 0
    ):
        frozen += 1
    return Draft(plan, frozen)


def _twin_round(
    twins: list[tuple[int, int]], previous: IndexedRound, rng: random.Random
) -> IndexedRound:
    """Two twin pairs at each table, sharing as few pairs with the previous round as found."""
    n = 2 * len(twins)
    best: tuple[int, IndexedRound] | None = None
    for _ in range(256):
        order = list(twins)
        rng.shuffle(order)
        tables = [[*order[i], *order[i + 1]] for i in range(0, len(order), 2)]
        clashes = clash_count(n, previous, tables)
        if best is None or clashes < best[0]:
            best = (clashes, tables)
        if clashes == 0:
            break
    assert best is not None
    return best[1]


def clash_count(n: int, previous: IndexedRound, tables: IndexedRound) -> int:
    """How many pairs of ``tables`` also sat together in ``previous``."""
    where = table_index(n, previous)
    return sum(where[p] == where[q] for table in tables for p, q in combinations(table, 2))
