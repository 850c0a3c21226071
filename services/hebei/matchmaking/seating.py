"""Tournament seating: tables of four for every round, each table listed East, South, West, North.

Pure: standard library only, no I/O. Every function is deterministic in its inputs; the
``deadline`` (CPU seconds) only cuts a search short (and says so in the round's quality).

Modes
=====
``random`` and ``schedule``
    The event is planned for the fewest repeat meetings (a *meeting* is two players at one
    table in a round) and the round asked for is returned. Both use the same planner;
    ``schedule`` publishes the plan up front (:func:`plan_event`), ``random`` is drawn under
    another seed label. While the history is exactly the plan's first rounds (same players,
    same seats), every call returns the next round of that one plan; otherwise (players joined
    or left, an operator swapped seats) the remaining rounds are planned again from the history
    and the first of them is returned. Either way a round is a function of the history, so an
    event seated round by round is the plan published up front. (Events of more than 16384
    player-rounds without a design are planned from the history only, looking ahead a few
    rounds.)
``swiss``
    Players close in the caller's standings sit together, avoiding repeat meetings.
``duplicate``
    Bot evaluation: players are grouped in fours as in ``random``; each group plays the round's
    wall under the four seat rotations, so a round has four tables per group, consecutive:
    (a, b, c, d), (b, c, d, a), (c, d, a, b), (d, a, b, c).

Pair planning (random, schedule, duplicate)
===========================================
1. Designs. With 2^k players and nothing played yet, the rounds come from geometry over GF(2):
   players are the vectors of GF(2)^k, a round is a 2-dimensional subspace V and its tables are
   the cosets x + V; two players meet in that round iff their sum lies in V. Rounds whose
   subspaces share only 0 (a *partial spread*) never repeat a pair.

   * k even (16, 64, 256, 1024, 4096 players): GF(2)^k = GF(4)^(k/2) and its GF(4)-lines form a
     spread: (P-1)/3 rounds in which every pair meets exactly once (16 players: the affine
     plane AG(2,4)).
   * 32 players: the 16 "letters" GF(2)^4 carry two disjoint spreads of PG(3,2), 10 classes in
     which every letter pair shares a block twice. A player is a letter with a sign; each letter
     block splits into two tables by a sign vector, and a linear system over GF(2) chooses the
     signs so that the two blocks of a letter pair give it opposite relative signs. Result: 10
     rounds in which every pair meets at most once (all but the 16 pairs of one letter), the
     social golfer instance 8-4-10, the most rounds 32 players can play without a repeat.
   * other odd k (8, 128, 512, 2048 players): GF(2)^k = W + U with W = GF(2)^3; over each line
     of the GF(4)-spread of U the 8 graphs of the maps v -> g * i(v) into W = GF(8) are lines
     covering all vectors outside W, plus one line of W: (2^k - 8)/3 + 1 rounds, the largest
     partial spread there is (41 rounds for 128 players).

   A design is relabelled by a permutation drawn from the seed. Longer events repeat it in
   cycles, each cycle in a new order that never starts with the round that ended the last one
   (for 32 players a *twin round* after each cycle seats two never-met pairs at each table).
2. Otherwise tables are built greedily round by round (each seat goes to the candidate adding
   the least cost), then simulated annealing swaps two players inside a round (designs: only
   in the rounds after the part that is already optimal), the first player drawn again a few
   times until it is in a repeat. A pair's meeting costs 1 for a repeat up to the lower bound
   on the most meetings (:func:`pair_bounds`), 2 for the one above it and far more beyond; a
   pair in two consecutive rounds costs more than any of that. The temperature falls
   geometrically over an iteration budget (4000 moves a table searched, at most 150,000), so
   the plan is a function of its inputs; plans are memoised per event.
3. Lower bounds (:func:`pair_bounds`): a player meets 3R opponents among P-1, so some pair meets
   ceil(3R/(P-1)) times, and at least 3PR/2 - P(P-1)/2 meetings repeat. The plans reach both
   bounds with no pair in two consecutive rounds for 16, 64 and 256 players and any number of
   rounds, for 32 players up to 12 rounds and for 128 players up to 41 (no repeat at all): see
   tests/unit/matchmaking/test_seating_benchmark.py.

Seat winds
==========
Every player's count of each wind stays within one of its other counts (max - min <= 1); so
after 4k rounds each wind is taken exactly k times. Write A(p) for the winds p has taken least:
p must take one of them. A state is *regular* when every A(p) has the same size s and every wind
lies in exactly s * P/4 of them (so it is at the start of the event and stays so while the player
set is fixed).

* A planned block of four rounds is a bipartite multigraph players x tables, 4-regular (or of
  degree at most 4 for the last, shorter block); König's theorem gives a proper 4-edge colouring,
  found with alternating paths: the colour of an edge is the player's wind at that table.
* Online (swiss, re-planned rounds) in a regular state a table is allowed iff its players have a
  system of distinct representatives in their A(p). Any such round leaves a regular state: each
  wind is taken by exactly P/4 players who all had it available, so every wind is now in
  (s-1) * P/4 sets. A regular state always has a valid round (split each wind into P/4 copies:
  the graph players x copies is s-regular, so it has a perfect matching), so seating never
  paints itself into a corner.
* After players join or leave mid-block the state is not regular. Then the round follows a
  *lane plan*: each player's winds in the next four rounds, A(p) first, then the other winds,
  with P/4 players on every wind in every round. A lane plan rotated by one round is a lane
  plan for the next state, so while the set stays fixed everyone keeps within one for good; the
  round's winds are the plan's first and every table takes one player of each. The plan is
  rebuilt from the history at each call: the players of the last regular state get lanes by
  balanced matchings (a regular state splits into them round by round), a followed plan is
  rotated, players who stay keep their lane, arrivals take the lanes of those who left (or come
  in fours on the cyclic lanes). So late registrations and fillers replacing withdrawals always
  keep every player within one. When the set shrinks without arrivals, balance can become
  impossible (8 players after three rounds, four leave and two of the other four both still
  lack East: their one table has one East); then a max flow seats as many players as possible
  on their least winds, the others one above (spread 2), and later rounds repair them.

Swiss
=====
Players are ranked by points (ties in a seeded random order). Tables are formed top down: the
best remaining player with the three best-ranked players that keep the table and the rest of the
round wind-feasible. Simulated annealing then swaps players between tables (mostly tables near
in the ranking; 1000 moves a table, at most 20,000), then passes of best swaps finish,
minimising each table's spread of ranks plus, per pair: little for a meeting that the event's
size forces by this round anyway (:func:`pair_bounds`), 12 places of the ranking for a repeat
beyond that (growing with the meetings), far more for a pair that met in the round before or a
second filler at a table (fillers: ids starting with ``filler-`` unless the caller names them).
When the wind plan leaves no seating without a pair of the round before, the round is searched
again on each player's least winds (everyone still within one). :func:`greedy_swiss` is the
plain baseline (top four together, next four, ...). Every fourth round each player must take
the one wind it has not had, so those rounds' tables are bound by winds and span more places.

Determinism and time
====================
Every random choice comes from ``random.Random`` seeded with the seed, the mode label and the
round number; searches are bounded by iteration budgets. ``deadline`` (seconds, default 2.0) is
a safety cut-off only, counted in the seating thread's CPU time (a loaded machine slows a round
but does not change it): when it passes, the best seating found so far is used and the round's
quality says ``deadline_hit``.
"""

from __future__ import annotations

import math
import random
import time
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from itertools import combinations, permutations

MODES = ("swiss", "random", "schedule", "duplicate")
WINDS = ("East", "South", "West", "North")
MIN_PLAYERS = 4
MAX_PLAYERS = 4096
MAX_ROUNDS = 64
FILLER_PREFIX = "filler-"
"""The ids of the bots that complete a field to a multiple of four (the director's)."""

Table = tuple[str, str, str, str]
"""A table's players: East, South, West, North."""

_Round = list[list[int]]
"""Inside the module, a round's tables as lists of player indices."""


# --------------------------------------------------------------------------------------------
# Public results


@dataclass(frozen=True)
class Quality:
    """The quality of one round's seating, given the rounds before it."""

    repeat_pairs: int
    """Pairs at this round's tables that met in an earlier round."""
    consecutive_repeats: int
    """Pairs that also met in the round just before."""
    max_pair_meetings: int
    """The most times any pair has met over the event so far (this round included)."""
    wind_spread: int
    """The largest max - min of one player's four wind counts so far."""
    standings_spread: float
    """Mean over tables of max - min standings points at the table (0.0 without standings)."""
    deadline_hit: bool
    """True when the search stopped at its deadline and the best seating so far was used."""
    seconds: float
    """Time spent (not deterministic: keep it out of anything compared byte for byte)."""

    def to_json(self) -> dict[str, int | float]:
        """The deterministic fields (no ``seconds``, no ``deadline_hit``)."""
        fields = asdict(self)
        del fields["seconds"], fields["deadline_hit"]
        fields["standings_spread"] = round(self.standings_spread, 6)
        return fields


@dataclass(frozen=True)
class SeatedRound:
    """One round's seating."""

    round_no: int
    tables: tuple[Table, ...]
    groups: tuple[int, ...]
    """Duplicate mode: the group index of each table (four tables per group); else all 0."""
    quality: Quality


# --------------------------------------------------------------------------------------------
# Validation


def _check_mode(mode: str) -> None:
    if mode not in MODES:
        raise ValueError(f"unknown seating mode {mode!r}; choose one of {', '.join(MODES)}")


def _check_count(players: int) -> None:
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"players must be {MIN_PLAYERS}-{MAX_PLAYERS}, got {players}")
    if players % 4:
        missing = 4 - players % 4
        raise ValueError(
            f"{players} players is not a multiple of 4: add {missing} filler bot(s) first"
        )


def _check_players(players: Sequence[str]) -> list[str]:
    """The player ids, sorted (the seating depends on the set, not on the caller's order)."""
    if isinstance(players, str):
        raise ValueError("players must be a sequence of ids, not one string")
    ids = list(players)
    for player in ids:
        if not isinstance(player, str) or not player:
            raise ValueError(f"player ids must be non-empty strings, got {player!r}")
    _check_count(len(ids))
    seen: set[str] = set()
    for player in ids:
        if player in seen:
            raise ValueError(f"duplicate player id {player!r}")
        seen.add(player)
    return sorted(ids)


def _check_int(value: object, name: str) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{name} must be an integer, got {value!r}")


def _check_rounds(round_no: int, rounds: int) -> None:
    _check_int(rounds, "rounds")
    _check_int(round_no, "round_no")
    if not 1 <= rounds <= MAX_ROUNDS:
        raise ValueError(f"rounds must be 1-{MAX_ROUNDS}, got {rounds}")
    if not 1 <= round_no <= rounds:
        raise ValueError(f"round_no must be 1-{rounds}, got {round_no}")


def _check_deadline(deadline: float) -> None:
    if not (isinstance(deadline, int | float) and math.isfinite(deadline) and deadline > 0):
        raise ValueError(f"deadline must be a positive number of seconds, got {deadline!r}")


def _check_tables(tables: Iterable[Sequence[str]], where: str) -> list[Table]:
    checked = []
    for table in tables:
        if (
            isinstance(table, str)
            or len(table) != 4
            or len(set(table)) != 4
            or not all(isinstance(p, str) and p for p in table)
        ):
            raise ValueError(f"{where}: a table lists 4 different player ids, got {table!r}")
        checked.append((table[0], table[1], table[2], table[3]))
    return checked


def _check_history(history: Sequence[Sequence[Sequence[str]]], round_no: int) -> list[list[Table]]:
    if len(history) != round_no - 1:
        raise ValueError(
            f"history has {len(history)} rounds; round {round_no} needs the {round_no - 1} before it"
        )
    return [_check_tables(rnd, f"history round {i}") for i, rnd in enumerate(history, 1)]


def _check_standings(standings: Mapping[str, float] | None) -> None:
    for player, points in (standings or {}).items():
        if not isinstance(points, int | float) or not math.isfinite(points):
            raise ValueError(f"standings of {player!r} must be a finite number, got {points!r}")


# --------------------------------------------------------------------------------------------
# Quality of a seating (ids as strings)


def _round_pairs(tables: Iterable[Sequence[str]]) -> set[tuple[str, str]]:
    """The pairs that meet in a round (a pair at several tables of the round counts once)."""
    pairs = set()
    for table in tables:
        for a, b in combinations(table, 2):
            pairs.add((a, b) if a < b else (b, a))
    return pairs


def _wind_counts(rounds: Iterable[Iterable[Sequence[str]]]) -> dict[str, list[int]]:
    """Each player's count of East, South, West, North over the rounds."""
    counts: dict[str, list[int]] = {}
    for tables in rounds:
        for table in tables:
            for wind, player in enumerate(table):
                counts.setdefault(player, [0, 0, 0, 0])[wind] += 1
    return counts


def _standings_spread(
    tables: Sequence[Sequence[str]], standings: Mapping[str, float] | None
) -> float:
    """Mean over tables of max - min points at the table (missing players count 0)."""
    if not standings or not tables:
        return 0.0
    spreads = [
        max(standings.get(p, 0.0) for p in table) - min(standings.get(p, 0.0) for p in table)
        for table in tables
    ]
    return sum(spreads) / len(spreads)


def round_quality(
    tables: Sequence[Sequence[str]],
    *,
    history: Sequence[Sequence[Sequence[str]]],
    standings: Mapping[str, float] | None = None,
) -> Quality:
    """The quality of ``tables`` played after ``history`` (e.g. after an operator's swap)."""
    checked = _check_tables(tables, "tables")
    past = [_check_tables(rnd, f"history round {i}") for i, rnd in enumerate(history, 1)]
    _check_standings(standings)
    meetings: Counter[tuple[str, str]] = Counter()
    for rnd in past:
        meetings.update(_round_pairs(rnd))
    pairs = _round_pairs(checked)
    previous = _round_pairs(past[-1]) if past else set()
    repeat_pairs = sum(1 for pair in pairs if meetings[pair])
    meetings.update(pairs)
    winds = _wind_counts([*past, checked])
    return Quality(
        repeat_pairs=repeat_pairs,
        consecutive_repeats=len(pairs & previous),
        max_pair_meetings=max(meetings.values(), default=0),
        wind_spread=max((max(c) - min(c) for c in winds.values()), default=0),
        standings_spread=_standings_spread(checked, standings),
        deadline_hit=False,
        seconds=0.0,
    )


def pair_bounds(players: int, rounds: int) -> tuple[int, int]:
    """Lower bounds over ``rounds`` rounds: (most meetings of one pair, total repeat pairs).

    A player meets 3 opponents a round, 3R in all, among P-1 others: some pair meets at least
    ceil(3R/(P-1)) times, and at least 3R-(P-1) of a player's meetings repeat.
    """
    meetings = 3 * rounds
    most = max(1, -(-meetings // (players - 1)))
    repeats = max(0, players * meetings // 2 - players * (players - 1) // 2)
    return most, repeats


# --------------------------------------------------------------------------------------------
# Time


class _Clock:
    """The safety cut-off: ``expired`` turns true (and stays) once the seating has used the
    deadline's seconds of its thread's CPU time. CPU time, not the wall clock: a machine
    loaded by other work slows a round down but does not cut its budgeted search short, so the
    round stays a function of its inputs; the cut-off still bounds a search that would run
    too long anywhere. ``seconds`` is the wall-clock time taken."""

    def __init__(self, deadline: float) -> None:
        self.start = time.perf_counter()
        self.cpu_start = time.thread_time()
        self.deadline = deadline
        self.hit = False

    def expired(self, share: float = 1.0) -> bool:
        """True once ``share`` of the deadline has passed (the rest is left for finishing)."""
        if not self.hit and time.thread_time() - self.cpu_start > self.deadline * share:
            self.hit = True
        return self.hit

    def seconds(self) -> float:
        return time.perf_counter() - self.start


_SEARCH_SHARE = 0.8
"""Searches stop at this share of the deadline, leaving time to seat the winds."""


def _rng(seed: int, label: str, round_no: int) -> random.Random:
    """The random source of one decision: seeded by the seed, a label and the round."""
    return random.Random(f"hebei-seating:{label}:{seed}:{round_no}")


# --------------------------------------------------------------------------------------------
# Designs over GF(2): rounds of tables in which no pair meets twice


def _coset_round(subspace: Sequence[int], players: int) -> _Round:
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


def _twin_design() -> list[_Round]:
    """10 rounds for 32 players where every pair meets at most once (see the module doc).

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
def _design(players: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
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
class _Draft:
    """A first plan of the rounds to play: its first ``frozen`` rounds are already optimal and
    the search leaves them alone."""

    rounds: list[_Round]
    frozen: int


def _design_plan(players: int, rounds: int, rng: random.Random) -> _Draft | None:
    """``rounds`` rounds of the design, relabelled by a random permutation, repeated in cycles
    (each in a new order, never starting with the round that ended the previous cycle).

    A full spread repeats exactly: every pair meets once per cycle, so the whole plan is
    optimal. The 32-player design leaves the pairs (x, x+16) apart: a *twin round* seats two
    such pairs at each table after each cycle.
    """
    design = _design(players)
    if not design:
        return None
    label = list(range(players))
    rng.shuffle(label)
    twins = [(label[x], label[x + 16]) for x in range(16)] if players == 32 else None
    plan: list[_Round] = []
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
        and _clashes(players, plan[len(design) - 1], plan[len(design)]) == 0
    ):
        frozen += 1
    return _Draft(plan, frozen)


def _twin_round(twins: list[tuple[int, int]], previous: _Round, rng: random.Random) -> _Round:
    """Two twin pairs at each table, sharing as few pairs with the previous round as found."""
    n = 2 * len(twins)
    best: tuple[int, _Round] | None = None
    for _ in range(256):
        order = list(twins)
        rng.shuffle(order)
        tables = [[*order[i], *order[i + 1]] for i in range(0, len(order), 2)]
        clashes = _clashes(n, previous, tables)
        if best is None or clashes < best[0]:
            best = (clashes, tables)
        if clashes == 0:
            break
    assert best is not None
    return best[1]


def _clashes(n: int, previous: _Round, tables: _Round) -> int:
    """How many pairs of ``tables`` also sat together in ``previous``."""
    where = _table_index(n, previous)
    return sum(where[p] == where[q] for table in tables for p, q in combinations(table, 2))


# --------------------------------------------------------------------------------------------
# Pair planning: greedy tables, then a tabu search over swaps inside a round

_GROWTH = 12
_CONSECUTIVE = 5000
_MARGINAL = [0] + [min(_GROWTH ** (m - 1), 10**12) for m in range(1, MAX_ROUNDS + 2)]
"""_MARGINAL[m]: the cost of a pair's (m+1)-th meeting."""


def _meet_matrix(n: int, rounds: Iterable[_Round]) -> bytearray:
    """meet[p*n + q]: how many rounds p and q met in (a pair counts once per round)."""
    meet = bytearray(n * n)
    for tables in rounds:
        pairs = {(min(p, q), max(p, q)) for table in tables for p, q in combinations(table, 2)}
        for p, q in pairs:
            meet[p * n + q] += 1
            meet[q * n + p] += 1
    return meet


def _table_index(n: int, tables: _Round) -> list[int]:
    """where[p]: the table of player p in a round (-1 when absent; the first one if several)."""
    where = [-1] * n
    for t, table in enumerate(tables):
        for p in table:
            if where[p] < 0:
                where[p] = t
    return where


def _greedy_round(
    n: int,
    meet: bytearray,
    before: list[int] | None,
    rng: random.Random,
    classes: list[int] | None = None,
) -> _Round:
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
    tables: _Round = []
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
                    cost += _MARGINAL[meet[c * n + t]]
                    if before is not None and before[c] >= 0 and before[c] == before[t]:
                        cost += _CONSECUTIVE
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


_ANNEAL_HOT, _ANNEAL_COLD = 2.0, 0.05
"""The temperature falls geometrically from hot to cold over the budget (one repeat costs 1)."""
_BEYOND = 1000
_FOCUS = 8
"""A move's first player is drawn again up to this many times until it is in a repeat."""
"""A meeting beyond the lower bound plus one (:func:`pair_bounds`) costs this much."""


def _plan_costs(most: int) -> list[int]:
    """costs[m]: the cost of a pair's (m+1)-th meeting when ``most`` is the event's lower bound
    on the most meetings of a pair: 1 for a repeat up to the bound, 2 for the one above it
    (so the search weighs the most meetings as well as the repeats), far more beyond."""
    return [0] + [1] * (most - 1) + [2] + [_BEYOND * m for m in range(1, MAX_ROUNDS + 2)]


def _anneal(
    n: int,
    meet: bytearray,
    before: list[int] | None,
    rounds: list[_Round],
    *,
    costs: list[int],
    rng: random.Random,
    iterations: int,
    clock: _Clock,
    frozen: int = 0,
    allowed: list[int] | None = None,
) -> None:
    """Simulated annealing over the rounds from ``frozen`` on, in place: a move swaps two
    players at different tables of one round; a pair's (m+1)-th meeting costs ``costs[m]``
    and a pair at one table in two consecutive rounds :data:`_CONSECUTIVE` (``before``: each
    player's table in the round played before the plan). ``meet`` holds the history's meetings
    (the plan's are added). With ``allowed`` (wind masks), swaps in the first round keep its
    tables wind-feasible. The best plan seen is kept."""
    R = len(rounds)
    for tables in rounds:
        _add_meetings(n, meet, tables)
    where = [_table_index(n, tables) for tables in rounds]
    free = range(frozen, R)
    if not free or n <= 4:
        return
    exp, rand = math.exp, rng.random
    decay = (_ANNEAL_COLD / _ANNEAL_HOT) ** (1 / iterations)
    temperature = _ANNEAL_HOT
    cost = best = 0
    since_best: list[tuple[int, int, int]] = []
    for it in range(iterations):
        if it % 1024 == 0 and clock.expired(_SEARCH_SHARE):
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
        delta = _swap_delta(n, meet, costs, x, y, mates_x, mates_y)
        if r:
            delta += _CONSECUTIVE * _beside_delta(where[r - 1], x, y, mates_x, mates_y)
        elif before is not None:
            delta += _CONSECUTIVE * _beside_delta(before, x, y, mates_x, mates_y)
        if r + 1 < R:
            delta += _CONSECUTIVE * _beside_delta(where[r + 1], x, y, mates_x, mates_y)
        if delta > 0 and rand() >= exp(-delta / temperature):
            continue
        if r == 0 and allowed is not None and not _swap_keeps_winds(allowed, tables, at, x, y):
            continue
        _swap(n, meet, tables, at, x, y)
        cost += delta
        since_best.append((r, x, y))
        if cost < best:
            best = cost
            since_best.clear()
    for r, x, y in reversed(since_best):
        _swap(n, meet, rounds[r], where[r], x, y)


def _swap_delta(
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


def _beside_delta(around: list[int], x: int, y: int, at_x: list[int], at_y: list[int]) -> int:
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


def _swap_keeps_winds(allowed: list[int], tables: _Round, at: list[int], x: int, y: int) -> bool:
    """Swapping x and y keeps both tables wind-feasible."""
    a = [allowed[y] if p == x else allowed[p] for p in tables[at[x]]]
    b = [allowed[x] if p == y else allowed[p] for p in tables[at[y]]]
    return _has_distinct_winds(tuple(sorted(a))) and _has_distinct_winds(tuple(sorted(b)))


def _swap(n: int, meet: bytearray, tables: _Round, at: list[int], x: int, y: int) -> None:
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


# --------------------------------------------------------------------------------------------
# Winds


_PERMUTATIONS = tuple(permutations(range(4)))


@lru_cache(maxsize=4096)
def _has_distinct_winds(masks: tuple[int, ...]) -> bool:
    """True when players (up to four) with these wind masks can take different winds."""
    k = len(masks)
    return any(all(masks[i] >> perm[i] & 1 for i in range(k)) for perm in permutations(range(4), k))


def _seat(table: Sequence[int], allowed: list[int], rng: random.Random) -> list[int]:
    """The table East..North: each player on a wind of its mask (fewest misses if impossible)."""
    best: list[tuple[int, ...]] = []
    best_misses = 5
    for perm in _PERMUTATIONS:
        misses = sum(1 for i in range(4) if not allowed[table[i]] >> perm[i] & 1)
        if misses < best_misses:
            best, best_misses = [perm], misses
        elif misses == best_misses:
            best.append(perm)
    perm = best[rng.randrange(len(best))]
    seats = [0, 0, 0, 0]
    for i in range(4):
        seats[perm[i]] = table[i]
    return seats


def _colour_block(n: int, block: list[_Round]) -> list[_Round]:
    """Seat up to four rounds so no player takes a wind twice: a proper 4-edge colouring of the
    bipartite graph players x tables (König), by alternating-path recolouring."""
    tables = [table for tables in block for table in tables]
    at = [[-1, -1, -1, -1] for _ in range(n + len(tables))]
    for t, table in enumerate(tables):
        v = n + t
        for p in table:
            a = at[p].index(-1)
            b = at[v].index(-1)
            if at[v][a] != -1:
                _flip_path(at, v, a, b)
            at[p][a] = v
            at[v][a] = p
    seated, t = [], 0
    for rnd in block:
        seated.append([list(at[n + t + i]) for i in range(len(rnd))])
        t += len(rnd)
    return seated


def _flip_path(at: list[list[int]], start: int, a: int, b: int) -> None:
    """Swap colours a and b along the path from ``start`` whose edges alternate a, b, a, ..."""
    path, colour, node = [start], a, start
    while at[node][colour] != -1:
        node = at[node][colour]
        path.append(node)
        colour = b if colour == a else a
    for i in range(len(path) - 1):
        old = a if i % 2 == 0 else b
        at[path[i]][old] = -1
        at[path[i + 1]][old] = -1
    for i in range(len(path) - 1):
        new = b if i % 2 == 0 else a
        at[path[i]][new] = path[i + 1]
        at[path[i + 1]][new] = path[i]


def _colour_plan(n: int, plan: list[_Round]) -> list[_Round]:
    """Every round of a plan made from the start of the event, seated block by block."""
    seated: list[_Round] = []
    for start in range(0, len(plan), 4):
        seated.extend(_colour_block(n, plan[start : start + 4]))
    return seated


def _least_winds(counts: Sequence[int]) -> int:
    """The mask of the winds a player has taken least."""
    low = min(counts)
    return sum(1 << w for w in range(4) if counts[w] == low)


def _is_regular(available: list[int]) -> bool:
    """Every mask of least winds has one size s and each wind is in s/4 of them (module doc)."""
    size = available[0].bit_count()
    if any(mask.bit_count() != size for mask in available):
        return False
    target = size * len(available) // 4
    return all(sum(mask >> w & 1 for mask in available) == target for w in range(4))


def _max_allocation(
    groups: list[tuple[int, int]], quota: int, turn: int = 0
) -> tuple[list[list[int]], list[int]]:
    """Share out groups of (count, wind mask), at most ``quota`` players per wind, each player
    on a wind of its mask, as many players as possible: a max flow started from an even share.
    Returns each group's count per wind and how many of it were left out."""
    share = [[0, 0, 0, 0] for _ in groups]
    room = [quota] * 4
    order = sorted(range(len(groups)), key=lambda g: (groups[g][1].bit_count(), g))
    left = [0] * len(groups)
    for g in order:
        count, mask = groups[g]
        winds = [w for w in ((turn + i) % 4 for i in range(4)) if mask >> w & 1]
        for _ in range(count):
            w = max(winds, key=lambda w: room[w]) if winds else None
            if w is None or room[w] == 0:
                left[g] += 1
            else:
                share[g][w] += 1
                room[w] -= 1
    for g in order:
        while left[g]:
            path = _augmenting_path(groups, share, room, g)
            if path is None:
                break  # no path now means none later either (Berge)
            for giver, taken, given in path:
                share[giver][taken] -= 1
                share[giver][given] += 1
            left[g] -= 1
    return share, left


def _allocate(groups: list[tuple[int, int]], quota: int, turn: int = 0) -> list[list[int]] | None:
    """Like :func:`_max_allocation`, when every player is placed (else None)."""
    share, left = _max_allocation(groups, quota, turn)
    return None if any(left) else share


def _augmenting_path(
    groups: list[tuple[int, int]], share: list[list[int]], room: list[int], start: int
) -> list[tuple[int, int, int]] | None:
    """Place one more player of group ``start``: a chain of moves ending at a wind with room.

    Returns the moves (group, from wind, to wind) after the new player took the first wind;
    updates ``room``. Breadth-first over winds.
    """
    mask = groups[start][1]
    parent: dict[int, tuple[int, int] | None] = {}
    queue = []
    for w in range(4):
        if mask >> w & 1:
            parent[w] = None
            queue.append(w)
    while queue:
        w = queue.pop(0)
        if room[w] > 0:
            moves = []
            node = w
            while parent[node] is not None:
                giver, previous = parent[node]  # type: ignore[misc]
                moves.append((giver, previous, node))
                node = previous
            share[start][node] += 1
            room[w] -= 1
            return list(reversed(moves))
        for g, (_, other) in enumerate(groups):
            if share[g][w] == 0:
                continue
            for u in range(4):
                if other >> u & 1 and u not in parent:
                    parent[u] = (g, w)
                    queue.append(u)
    return None


def _hall_ok(groups: list[tuple[int, int]], quota: int) -> bool:
    """Hall's condition: for every set S of winds, the players allowed only S fit in S."""
    for subset in range(1, 16):
        inside = sum(count for count, mask in groups if mask & ~subset == 0)
        if inside > subset.bit_count() * quota:
            return False
    return True


def _lane_first_round(available: list[int]) -> dict[int, list[int]] | None:
    """A lane plan for the next four rounds, at the level of player types (see the module doc):
    for each mask of least winds, how many of its players take each wind in the first round
    (None when no plan is found).

    A type is a pair of wind masks (now, then): the player takes the winds of ``now`` first,
    then those of ``then``. Depth-first over the four rounds, a few allocations per round.
    """
    quota = len(available) // 4
    types = Counter((mask, 15 & ~mask) for mask in available)
    states = sorted(types.items())
    budget = [64]

    def search(states: list[tuple[tuple[int, int], int]], depth: int) -> list[list[int]] | None:
        if depth == 4:
            return []
        groups = [(count, now or then) for (now, then), count in states]
        if not _hall_ok(groups, quota):
            return None
        for turn in range(4):
            budget[0] -= 1
            if budget[0] < 0:
                return None
            share = _allocate(groups, quota, turn)
            if share is None:
                return None
            following: Counter[tuple[int, int]] = Counter()
            for ((now, then), _), taken in zip(states, share, strict=True):
                for w in range(4):
                    if taken[w]:
                        rest = (now & ~(1 << w), then) if now else (then & ~(1 << w), 0)
                        if rest[0] == 0:
                            rest = (rest[1], 0)
                        following[rest] += taken[w]
            if search(sorted(following.items()), depth + 1) is not None:
                return share
        return None

    share = search(states, 0)
    if share is None:
        return None
    return {now: taken for ((now, _), _), taken in zip(states, share, strict=True)}


def _take_turns(
    keys: Sequence[int], order: Iterable[int], shares: Mapping[int, list[int]]
) -> list[int]:
    """A wind for each player: the players of each key take the key's share of each wind in
    turn along ``order`` (so winds alternate along it); -1 for those beyond the share."""
    left = {key: list(taken) for key, taken in shares.items()}
    turn = dict.fromkeys(shares, 0)
    classes = [-1] * len(keys)
    for p in order:
        taken, w = left[keys[p]], turn[keys[p]]
        if not any(taken):
            continue
        while taken[w % 4] == 0:
            w += 1
        classes[p] = w % 4
        taken[w % 4] -= 1
        turn[keys[p]] = w + 1
    return classes


def _balanced_classes(masks: Sequence[int], order: Iterable[int]) -> list[int] | None:
    """A wind for each player from its mask, a quarter of the players on each wind, winds
    alternating along ``order`` (along the standings, for swiss); None when impossible."""
    kinds = sorted(set(masks))
    numbers = Counter(masks)
    share = _allocate([(numbers[kind], kind) for kind in kinds], len(masks) // 4)
    if share is None:
        return None
    return _take_turns(masks, order, dict(zip(kinds, share, strict=True)))


def _fallback_classes(counts: list[list[int]], order: list[int]) -> list[int]:
    """Winds when no lane plan is found: a quarter of the players per wind, as many players as
    possible on their least winds (a max flow), the others on their least excess wind."""
    quota = len(counts) // 4
    excess = [tuple(c - min(counts[p]) for c in counts[p]) for p in range(len(counts))]
    kinds = sorted(set(excess))
    numbers = Counter(excess)
    strict = [(numbers[kind], sum(1 << w for w in range(4) if kind[w] == 0)) for kind in kinds]
    share, _ = _max_allocation(strict, quota)
    classes = _take_turns(excess, order, dict(zip(kinds, share, strict=True)))
    room = [quota - classes.count(w) for w in range(4)]
    for p in order:
        if classes[p] < 0:
            w = min((w for w in range(4) if room[w]), key=lambda w: (excess[p][w], -room[w], w))
            classes[p] = w
            room[w] -= 1
    return classes


_Lane = tuple[int, ...]
"""A player's winds in the next four rounds."""
_CYCLIC_LANES: tuple[_Lane, ...] = ((0, 1, 2, 3), (1, 2, 3, 0), (2, 3, 0, 1), (3, 0, 1, 2))
_NO_WINDS = (0, 0, 0, 0)


def _regular_lanes(players: list[str], available: Mapping[str, int]) -> dict[str, _Lane] | None:
    """Lanes of a regular state: the least winds, then the others, each cut into rounds by
    balanced matchings (each one leaves the rest regular, so the next one exists)."""
    lanes: dict[str, list[int]] = {p: [] for p in players}
    for part in (
        [available[p] for p in players],
        [15 & ~available[p] for p in players],
    ):
        while part[0]:
            classes = _balanced_classes(part, range(len(players)))
            if classes is None:
                return None
            for i, w in enumerate(classes):
                lanes[players[i]].append(w)
                part[i] &= ~(1 << w)
    return {p: tuple(lane) for p, lane in lanes.items()}


def _lane_fits(lane: _Lane, available: int) -> bool:
    """A lane fits a player who must first take the winds ``available``."""
    return sum(1 << w for w in lane[: available.bit_count()]) == available


def _balanced_lanes(lanes: list[_Lane]) -> bool:
    """Each of the four rounds has every wind on the same number of these lanes."""
    return all(
        len(set(Counter(lane[s] for lane in lanes).values())) <= 1
        and len({lane[s] for lane in lanes}) in (0, 4)
        for s in range(4)
    )


def _repair_lanes(
    base: Mapping[str, _Lane], players: list[str], available: Mapping[str, int]
) -> dict[str, _Lane] | None:
    """Lanes for ``players`` from those of the last round's players: who stays keeps its lane,
    who arrives takes the lane of one who left (if it fits), further arrivals come in fours on
    the cyclic lanes; the lanes left over must be balanced. None when that fails."""
    lanes: dict[str, _Lane] = {}
    staying = set(players)
    for p in players:
        if p in base:
            if not _lane_fits(base[p], available[p]):
                return None
            lanes[p] = base[p]
    freed = [base[p] for p in sorted(base) if p not in staying]
    arrivals = sorted((p for p in players if p not in base), key=lambda p: (available[p], p))
    extra = []
    for p in arrivals:
        fitting = [i for i, lane in enumerate(freed) if _lane_fits(lane, available[p])]
        if fitting:
            lanes[p] = freed.pop(fitting[0])
        else:
            extra.append(p)
    if len(extra) % 4 or any(available[p] != 15 for p in extra) or not _balanced_lanes(freed):
        return None
    for i, p in enumerate(extra):
        lanes[p] = _CYCLIC_LANES[i % 4]
    return lanes


def _wind_rule(
    carried: Mapping[str, _Lane] | None,
    previous: list[str],
    players: list[str],
    counts: Mapping[str, list[int]],
) -> dict[str, _Lane] | bool:
    """How a round's winds are chosen: True when the state is regular (any distinct least
    winds at each table), else the lanes to follow, or False when none were found."""
    available = {p: _least_winds(counts.get(p, _NO_WINDS)) for p in players}
    if _is_regular(list(available.values())):
        return True
    base = carried
    if base is None and previous:
        before = {p: _least_winds(counts.get(p, _NO_WINDS)) for p in previous}
        if _is_regular(list(before.values())):
            base = _regular_lanes(previous, before)
    if base is not None:
        return _repair_lanes(base, players, available) or False
    return False


def _carried_lanes(
    history: list[list[Table]],
) -> tuple[dict[str, _Lane] | None, list[str], dict[str, list[int]]]:
    """Replay the wind rule over the history: the lanes to carry into the next round (when the
    last round followed its lanes, rotated by one), its players and everyone's wind counts."""
    counts: dict[str, list[int]] = {}
    carried: dict[str, _Lane] | None = None
    previous: list[str] = []
    for tables in history:
        seated = list(dict.fromkeys(p for table in tables for p in table))
        rule = _wind_rule(carried, previous, seated, counts)
        winds = {p: w for table in tables for w, p in enumerate(table)}
        carried = None
        if isinstance(rule, dict) and all(rule[p][0] == winds[p] for p in seated):
            carried = {p: (*lane[1:], lane[0]) for p, lane in rule.items()}
        for p, w in winds.items():
            counts.setdefault(p, [0, 0, 0, 0])[w] += 1
        previous = seated
    return carried, previous, counts


def _round_winds(ids: list[str], history: list[list[Table]], order: list[int]) -> list[int]:
    """The wind masks this round's players may take (see the module doc on seat winds)."""
    carried, previous, by_id = _carried_lanes(history)
    rule = _wind_rule(carried, previous, ids, by_id)
    counts = [by_id.get(p, list(_NO_WINDS)) for p in ids]
    available = [_least_winds(c) for c in counts]
    if rule is True:
        return available
    if isinstance(rule, dict):
        return [1 << rule[p][0] for p in ids]
    shares = _lane_first_round(available)
    if shares is not None:
        classes = _take_turns(available, order, shares)
    elif _balanced_classes(available, order) is not None:
        return available  # no plan for four rounds, but this one keeps everyone within one
    else:
        classes = _fallback_classes(counts, order)
    return [1 << w for w in classes]


def _classes_for(allowed: list[int], rng: random.Random) -> list[int]:
    """One wind per player from its mask, a quarter of the players per wind."""
    classes = _balanced_classes(allowed, _shuffled(len(allowed), rng))
    if classes is None:  # pragma: no cover - masks come from _round_winds, always feasible
        raise AssertionError("wind masks without a balanced round")
    return classes


# --------------------------------------------------------------------------------------------
# Event state from the history


@dataclass
class _State:
    """The meetings of the history among the current players (indices into the sorted ids)
    and each one's table in the last round (None before the first round)."""

    ids: list[str]
    meet: bytearray
    before: list[int] | None

    @property
    def n(self) -> int:
        return len(self.ids)


def _state(ids: list[str], history: list[list[Table]]) -> _State:
    """The history as seen from the current players (ids no longer present are dropped)."""
    index = {player: i for i, player in enumerate(ids)}
    n = len(ids)
    rounds = [[[index[p] for p in table if p in index] for table in tables] for tables in history]
    meet = _meet_matrix(n, rounds)
    before = _table_index(n, rounds[-1]) if rounds else None
    return _State(ids, meet, before)


def _named(ids: list[str], tables: Iterable[Sequence[int]]) -> tuple[Table, ...]:
    """Tables of player indices as tables of ids."""
    return tuple((ids[t[0]], ids[t[1]], ids[t[2]], ids[t[3]]) for t in tables)


# --------------------------------------------------------------------------------------------
# Planned modes: random, schedule, duplicate


def _fresh_plan(n: int, rounds: int, rng: random.Random, clock: _Clock) -> list[_Round]:
    """The whole event from its start: a relabelled design or greedy rounds, then annealing."""
    draft = _design_plan(n, rounds, rng) or _Draft(_greedy_rounds(n, rounds, rng, clock), 0)
    most, repeats = pair_bounds(n, rounds)
    if draft.frozen < rounds and not _meets_bounds(n, draft.rounds, most, repeats):
        _anneal(
            n,
            bytearray(n * n),
            None,
            draft.rounds,
            costs=_plan_costs(most),
            rng=rng,
            iterations=anneal_budget(n, rounds - draft.frozen),
            clock=clock,
            frozen=draft.frozen,
        )
    return draft.rounds


_PLANS: dict[tuple[int, int, int, str], list[_Round]] = {}
"""Fresh plans already made, by (players, rounds, seed, mode): each round of an event asks for
the same plan (a memo of a pure function; plans cut short by the deadline are not kept)."""
_PLANS_KEPT = 32


def _event_plan(n: int, rounds: int, seed: int, mode: str, clock: _Clock) -> list[_Round]:
    """The fresh plan of an event (a copy: the caller may change it)."""
    key = (n, rounds, seed, mode)
    plan = _PLANS.get(key)
    if plan is None:
        plan = _fresh_plan(n, rounds, _rng(seed, mode, 0), clock)
        if clock.hit:
            return plan
        if len(_PLANS) >= _PLANS_KEPT:
            _PLANS.clear()  # (one call, safe beside another thread's)
        _PLANS[key] = plan
    return [[list(table) for table in tables] for tables in plan]


def _greedy_rounds(n: int, rounds: int, rng: random.Random, clock: _Clock) -> list[_Round]:
    """Greedy rounds one after the other (fewer if the deadline passes)."""
    meet = bytearray(n * n)
    plan: list[_Round] = []
    for _ in range(rounds):
        if plan and clock.expired(_SEARCH_SHARE):
            break
        before = _table_index(n, plan[-1]) if plan else None
        tables = _greedy_round(n, meet, before, rng)
        _add_meetings(n, meet, tables)
        plan.append(tables)
    return plan


def _add_meetings(n: int, meet: bytearray, tables: _Round) -> None:
    """Count the meetings of a round into ``meet``."""
    for table in tables:
        for p, q in combinations(table, 2):
            meet[p * n + q] += 1
            meet[q * n + p] += 1


def _meets_bounds(n: int, plan: list[_Round], most: int, repeats: int) -> bool:
    """True when a fresh plan reaches both lower bounds with no consecutive repeat."""
    meet = _meet_matrix(n, plan)
    highest = max(meet, default=0)
    if highest > most:
        return False
    total = sum((m - 1) * meet.count(m) for m in range(2, highest + 1)) // 2
    if total > repeats:
        return False
    return all(_clashes(n, plan[r - 1], plan[r]) == 0 for r in range(1, len(plan)))


def _replan(
    state: _State,
    played: int,
    remaining: int,
    allowed: list[int] | None,
    rng: random.Random,
    clock: _Clock,
) -> _Round:
    """The next round of a plan of the remaining rounds made from the history."""
    n = state.n
    meet = bytearray(state.meet)
    plan: list[_Round] = []
    classes = _classes_for(allowed, rng) if allowed is not None else None
    for r in range(remaining):
        before = state.before if r == 0 else _table_index(n, plan[-1])
        tables = _greedy_round(n, meet, before, rng, classes if r == 0 else None)
        _add_meetings(n, meet, tables)
        plan.append(tables)
        if clock.expired(_SEARCH_SHARE):
            break
    _anneal(
        n,
        bytearray(state.meet),
        state.before,
        plan,
        costs=_plan_costs(pair_bounds(n, played + len(plan))[0]),
        rng=rng,
        iterations=anneal_budget(n, len(plan)),
        clock=clock,
        allowed=allowed,
    )
    return plan[0]


def _same_players(ids: list[str], history: list[list[Table]], duplicate: bool) -> bool:
    """Every round of the history seated exactly the current players (4 times: duplicate)."""
    everyone = set(ids)
    for tables in history:
        seated = [p for table in tables for p in table]
        if set(seated) != everyone or len(seated) != (4 if duplicate else 1) * len(ids):
            return False
    return True


def _duplicate_tables(groups: _Round) -> tuple[list[list[int]], tuple[int, ...]]:
    """The four seat rotations of each group, consecutive, and each table's group."""
    tables, index = [], []
    for g, (a, b, c, d) in enumerate(groups):
        tables += [[a, b, c, d], [b, c, d, a], [c, d, a, b], [d, a, b, c]]
        index += [g] * 4
    return tables, tuple(index)


_WHOLE_PLAN_LIMIT = 16384
"""Player-rounds up to which an event without a design is planned whole at every call (beyond,
each round is planned from the history with a shorter look-ahead)."""


def _planned_round(
    mode: str,
    ids: list[str],
    round_no: int,
    rounds: int,
    seed: int,
    history: list[list[Table]],
    clock: _Clock,
) -> tuple[list[list[int]], tuple[int, ...]]:
    """random / schedule / duplicate: the round of the event plan while the history follows it,
    else the first round of a plan of the remaining rounds made from the history.

    Either way the round is a function of the history, so the seating of a whole event made
    round by round is the same as the one published up front.
    """
    n = len(ids)
    duplicate = mode == "duplicate"
    whole = bool(_design(n)) or n * rounds <= _WHOLE_PLAN_LIMIT
    if whole and _same_players(ids, history, duplicate):
        plan = _event_plan(n, rounds, seed, mode, clock)
        if len(plan) == rounds:  # not cut short by the deadline
            seated = plan if duplicate else _colour_plan(n, plan[: -(-round_no // 4) * 4])
            played = [_duplicate_tables(r)[0] if duplicate else r for r in seated[: round_no - 1]]
            if [_named(ids, tables) for tables in played] == [tuple(t) for t in history]:
                if duplicate:
                    return _duplicate_tables(seated[round_no - 1])
                return seated[round_no - 1], (0,) * len(seated[round_no - 1])
    state = _state(ids, history)
    rng = _rng(seed, mode, round_no)
    horizon = min(rounds - round_no + 1, max(2, _WHOLE_PLAN_LIMIT // n))
    if duplicate:
        return _duplicate_tables(_replan(state, round_no - 1, horizon, None, rng, clock))
    allowed = _round_winds(ids, history, _shuffled(n, rng))
    tables = _replan(state, round_no - 1, horizon, allowed, rng, clock)
    return [_seat(table, allowed, rng) for table in tables], (0,) * len(tables)


def _shuffled(n: int, rng: random.Random) -> list[int]:
    """0..n-1 in a random order."""
    order = list(range(n))
    rng.shuffle(order)
    return order


# --------------------------------------------------------------------------------------------
# Swiss

_SWISS_REPEAT = 12
"""A repeat pair costs as much as widening a table by this many places of the ranking."""
_SWISS_CONSECUTIVE = 12 * _CONSECUTIVE
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
    ids = _check_players(players)
    _check_standings(standings)
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


def _swiss_initial(order: list[int], allowed: list[int]) -> _Round:
    """Top down: the best remaining player with the best-ranked three that keep the table and
    the rest of the round wind-feasible."""
    remaining = list(order)
    numbers = Counter(allowed)
    tables: _Round = []
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
        return _hall_ok([(c, m) for m, c in left.items() if c], quota)

    def extend(table: list[int], start: int) -> list[int] | None:
        if len(table) == 4:
            return table if rest_feasible(table) else None
        for i in range(start, len(remaining)):
            nodes[0] -= 1
            if nodes[0] < 0:
                return None
            candidate = [*table, remaining[i]]
            if _has_distinct_winds(tuple(sorted(allowed[p] for p in candidate))):
                found = extend(candidate, i + 1)
                if found is not None:
                    return found
        return None

    found = extend([remaining[0]], 1)
    if found is not None:
        return found
    classes_here = _balanced_classes([allowed[p] for p in remaining], range(len(remaining)))
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
        tables: _Round,
        rank: list[int],
        state: _State,
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
            _SWISS_FORCED * m if m < forced else _SWISS_REPEAT * _MARGINAL[m]
            for m in range(len(_MARGINAL))
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

    def anneal(self, iterations: int, rng: random.Random, clock: _Clock) -> None:
        """Simulated annealing over wind-feasible swaps of two players, mostly between tables
        near in the ranking (one in :data:`_SWISS_FAR` moves reaches any table); the best
        seating seen is kept."""
        tables, count = self.tables, len(self.tables)
        if count < 2:
            return
        costs = [self.table_cost(t) for t in tables]
        rand, exp = rng.random, math.exp
        decay = (_ANNEAL_COLD / _SWISS_HOT) ** (1 / iterations)
        temperature = _SWISS_HOT
        cost = best = sum(costs)
        best_tables = [list(t) for t in tables]
        for it in range(iterations):
            if it % 256 == 0 and clock.expired(_SEARCH_SHARE):
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

    def improve(self, passes: int, clock: _Clock) -> None:
        """Passes over pairs of nearby tables, each taking its best improving swap."""
        tables = self.tables
        costs = [self.table_cost(t) for t in tables]
        for _ in range(passes):
            improved = False
            for i in range(len(tables)):
                if clock.expired(_SEARCH_SHARE):
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
        return all(_has_distinct_winds(tuple(sorted(allowed[p] for p in t))) for t in tables)


def _swiss_round(
    ids: list[str],
    round_no: int,
    seed: int,
    history: list[list[Table]],
    standings: Mapping[str, float],
    fillers: Collection[str],
    clock: _Clock,
) -> list[list[int]]:
    """A swiss round: tables seated East..North, ordered by their best-ranked player."""
    state = _state(ids, history)
    rng = _rng(seed, "swiss", round_no)
    points = [float(standings.get(p, 0.0)) for p in ids]
    tiebreak = [rng.random() for _ in ids]
    order = sorted(range(state.n), key=lambda p: (-points[p], tiebreak[p]))
    allowed = _round_winds(ids, history, order)
    initial = _swiss_initial(order, allowed)
    filler = [p in fillers for p in ids]
    rank = _ranks(points, order)
    search = _swiss_search(initial, rank, state, allowed, round_no, filler, rng, clock)
    least = [_least_winds(c) for c in _state_winds(ids, history)]
    if search.consecutive() and least != allowed and _balanced_classes(least, order):
        # the wind plan leaves no seating without a pair of the round before: the least winds
        # (each player still within one) may
        retry = _swiss_search(
            _swiss_initial(order, least), rank, state, least, round_no, filler, rng, clock
        )
        if retry.consecutive() < search.consecutive():
            search, allowed = retry, least
    place = {p: i for i, p in enumerate(order)}
    tables = sorted(search.tables, key=lambda t: min(place[p] for p in t))
    return [_seat(table, allowed, rng) for table in tables]


def _swiss_search(
    initial: _Round,
    rank: list[int],
    state: _State,
    allowed: list[int],
    round_no: int,
    filler: list[bool],
    rng: random.Random,
    clock: _Clock,
) -> _SwissSearch:
    """The swiss search run from ``initial``: annealing, then passes of best swaps."""
    search = _SwissSearch(initial, rank, state, allowed, round_no, filler)
    search.anneal(min(_SWISS_ITERATIONS, _SWISS_PER_TABLE * len(initial)), rng, clock)
    search.improve(passes=8, clock=clock)
    return search


def _state_winds(ids: list[str], history: list[list[Table]]) -> list[list[int]]:
    """Each player's wind counts over the history (from the first round it played)."""
    counts = _wind_counts(history)
    return [counts.get(p, list(_NO_WINDS)) for p in ids]


# --------------------------------------------------------------------------------------------
# Entry points


def seat_round(
    mode: str,
    *,
    players: Sequence[str],
    round_no: int,
    rounds: int,
    seed: int,
    history: Sequence[Sequence[Sequence[str]]] = (),
    standings: Mapping[str, float] | None = None,
    deadline: float = 2.0,
    fillers: Collection[str] | None = None,
) -> SeatedRound:
    """Seat round ``round_no`` of ``rounds`` for ``players`` (a multiple of 4; fillers are the
    caller's), after ``history`` (the tables of rounds 1..round_no-1, East..North).

    Stateless and deterministic: the same arguments give the same tables. ``standings`` (swiss)
    maps ids to points; missing ids count 0. ``fillers`` (swiss: at most one a table when
    there are no more fillers than tables) defaults to the ids starting with
    :data:`FILLER_PREFIX`. Raises ValueError on bad input.
    """
    clock = _Clock(deadline)
    _check_mode(mode)
    _check_deadline(deadline)
    ids = _check_players(players)
    _check_rounds(round_no, rounds)
    _check_int(seed, "seed")
    past = _check_history(history, round_no)
    _check_standings(standings)
    if mode == "swiss":
        if fillers is None:
            fillers = [p for p in ids if p.startswith(FILLER_PREFIX)]
        tables = _swiss_round(ids, round_no, seed, past, standings or {}, set(fillers), clock)
        groups: tuple[int, ...] = (0,) * len(tables)
    else:
        tables, groups = _planned_round(mode, ids, round_no, rounds, seed, past, clock)
    named = _named(ids, tables)
    quality = round_quality(named, history=past, standings=standings)
    quality = Quality(**{**asdict(quality), "deadline_hit": clock.hit, "seconds": clock.seconds()})
    return SeatedRound(round_no=round_no, tables=named, groups=groups, quality=quality)


def simulated_scores(tables: Sequence[Table], seed: int, round_no: int) -> dict[str, int]:
    """Match scores for a simulated round: four random scores summing to zero at each table."""
    rng = _rng(seed, "results", round_no)
    scores: dict[str, int] = {}
    for table in tables:
        draws = [rng.randint(-40, 40) for _ in range(4)]
        excess = sum(draws)
        draws = [d - excess // 4 for d in draws]
        draws[rng.randrange(4)] -= sum(draws)
        for player, score in zip(table, draws, strict=True):
            scores[player] = scores.get(player, 0) + score
    return scores


def play_event(
    mode: str, *, players: int, rounds: int, seed: int, deadline: float = 2.0
) -> tuple[list[SeatedRound], list[dict[str, float]]]:
    """Seat a whole event of players "0".."P-1", round by round as a tournament would; swiss
    standings come from :func:`simulated_scores`. Returns the rounds and, for each, the
    standings it was seated with (empty for the other modes)."""
    _check_mode(mode)
    if not isinstance(players, int) or isinstance(players, bool):
        raise ValueError(f"players must be a number, got {players!r}")
    _check_count(players)
    _check_rounds(1, rounds)
    ids = [str(p) for p in range(players)]
    history: list[tuple[Table, ...]] = []
    points = dict.fromkeys(ids, 0.0)
    seated, standings = [], []
    for round_no in range(1, rounds + 1):
        swiss = mode == "swiss"
        seating = seat_round(
            mode,
            players=ids,
            round_no=round_no,
            rounds=rounds,
            seed=seed,
            history=history,
            standings=dict(points) if swiss else None,
            deadline=deadline,
        )
        seated.append(seating)
        standings.append(dict(points) if swiss else {})
        history.append(seating.tables)
        if swiss:
            for player, score in simulated_scores(seating.tables, seed, round_no).items():
                points[player] += score
    return seated, standings


def event_quality(
    seated: Sequence[SeatedRound], players: int, rounds: int, mode: str
) -> dict[str, object]:
    """Per-round reports and event totals (deterministic fields only)."""
    most, repeats = pair_bounds(players, rounds)
    per_round = [s.quality.to_json() for s in seated]
    totals: dict[str, object] = {
        "rounds": per_round,
        "total_repeat_pairs": sum(q.quality.repeat_pairs for q in seated),
        "max_pair_meetings": max((q.quality.max_pair_meetings for q in seated), default=0),
        "consecutive_repeats": sum(q.quality.consecutive_repeats for q in seated),
        "wind_spread": max((q.quality.wind_spread for q in seated), default=0),
        "lower_bounds": {"max_pair_meetings": most, "total_repeat_pairs": repeats},
    }
    if mode == "swiss":
        spreads = [q.quality.standings_spread for q in seated]
        totals["mean_standings_spread"] = round(sum(spreads) / len(spreads), 6)
    return totals


def plan_event(mode: str, *, players: int, rounds: int, seed: int, deadline: float = 2.0) -> dict:
    """The CLI's JSON: every round's tables (players 0..P-1, East..North) and the quality.

    ``{"mode", "players", "seed", "rounds": [[[p, p, p, p], ...], ...], "quality": {...}}``;
    duplicate adds ``"groups"`` (each table's group); swiss adds ``"standings"`` (the simulated
    points each round was seated with, by player). Deterministic: no timings.
    """
    seated, standings = play_event(
        mode, players=players, rounds=rounds, seed=seed, deadline=deadline
    )
    plan: dict[str, object] = {
        "mode": mode,
        "players": players,
        "seed": seed,
        "rounds": [[[int(p) for p in table] for table in s.tables] for s in seated],
        "quality": event_quality(seated, players, rounds, mode),
    }
    if mode == "duplicate":
        plan["groups"] = [list(s.groups) for s in seated]
    if mode == "swiss":
        plan["standings"] = [[points[str(p)] for p in range(players)] for points in standings]
    return plan
