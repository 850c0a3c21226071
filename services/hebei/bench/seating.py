"""``hebei bench seating``: the seating's quality against the lower bounds and a reference.

For each case (players x rounds x mode) an event is seated round by round as a tournament
would (:func:`hebei.matchmaking.seating.play_event`); the figures are those of the organiser's
desk: repeat meetings, the most meetings of a pair, the widest spread of a player's seat winds,
pairs that met in consecutive rounds, the slowest round, and for swiss the mean span of
standings places at a table (ideal 3) and the most fillers at a table.

The reference is a plain local search over the whole plan (:func:`reference_search`): random
tables, then random swaps of two players in a round, kept when they do not raise the cost
(the seating's own cost: a repeat 1, a meeting above the lower bound more, a pair in two
consecutive rounds far more). It runs either for the seating's own iteration budget (equal
budgets) or for a number of seconds (the organiser's 60-second search).

Swiss after roster changes (:func:`roster_event`): late entrants join, players withdraw, and
fillers (``filler-N``, as the director names them) complete the field to a multiple of four,
the existing ones first.
"""

from __future__ import annotations

import random
import time
from dataclasses import asdict, dataclass

from hebei.matchmaking.seating import (
    FILLER_PREFIX,
    SeatedRound,
    anneal_budget,
    event_quality,
    pair_bounds,
    play_event,
    seat_round,
    simulated_scores,
)
from hebei.matchmaking.seating.annealing import (
    CONSECUTIVE,
    add_meetings,
    beside_delta,
    plan_costs,
    swap_delta,
    swap_seats,
)
from hebei.matchmaking.seating.meetings import table_index

# (players, rounds, mode): the organiser's fields, then the README's grid.
CASES: tuple[tuple[int, int, str], ...] = (
    (20, 10, "random"),
    (20, 10, "schedule"),
    (36, 10, "schedule"),
    (20, 6, "random"),
    (20, 6, "schedule"),
    (16, 8, "schedule"),
    (32, 12, "schedule"),
    (64, 12, "random"),
    (256, 12, "random"),
    (20, 8, "swiss"),
    (64, 8, "swiss"),
    (256, 8, "swiss"),
    (20, 8, "swiss+roster"),
    (64, 8, "swiss+roster"),
)
"""``swiss+roster``: swiss with late entrants, withdrawals and fillers (:func:`roster_event`)."""

PLANNED = ("random", "schedule", "duplicate")
REFERENCE_LIMIT = 64 * 12
"""Player-rounds up to which the reference runs by default (beyond, it is not cheap)."""


@dataclass(frozen=True)
class Figures:
    """One case's figures (``seconds``: the slowest round; not deterministic)."""

    players: int
    rounds: int
    mode: str
    repeats: int
    most_met: int
    wind_spread: int
    consecutive: int
    seconds: float
    bound_most: int
    bound_repeats: int
    mean_span: float | None = None
    fillers_at_a_table: int | None = None
    reference_most: int | None = None
    reference_repeats: int | None = None
    reference_consecutive: int | None = None

    def to_json(self) -> dict[str, object]:
        return asdict(self)


# --------------------------------------------------------------------------------------------
# The reference local search


def plan_figures(n: int, plan: list[list[list[int]]]) -> tuple[int, int, int]:
    """(most meetings of a pair, repeat meetings, pairs in consecutive rounds) of a plan."""
    meet = [0] * (n * n)
    repeats = consecutive = 0
    before: list[int] | None = None
    for tables in plan:
        where = [-1] * n
        for t, table in enumerate(tables):
            for i, p in enumerate(table):
                where[p] = t
                for q in table[:i]:
                    repeats += meet[p * n + q] > 0
                    meet[p * n + q] += 1
                    meet[q * n + p] += 1
                    consecutive += before is not None and before[p] == before[q] >= 0
        before = where
    return max(meet), repeats, consecutive


def reference_search(
    n: int, rounds: int, seed: int, *, iterations: int | None = None, seconds: float | None = None
) -> list[list[list[int]]]:
    """The reference: random tables, then random swaps inside a round kept when the cost does
    not rise, for ``iterations`` swaps (deterministic for the seed) or ``seconds``."""
    if (iterations is None) == (seconds is None):
        raise ValueError("give the reference either iterations or seconds")
    rng = random.Random(f"reference:{seed}:{n}:{rounds}")
    plan = []
    for _ in range(rounds):
        order = list(range(n))
        rng.shuffle(order)
        plan.append([order[i : i + 4] for i in range(0, n, 4)])
    costs = plan_costs(pair_bounds(n, rounds)[0])
    meet = bytearray(n * n)
    for tables in plan:
        add_meetings(n, meet, tables)
    where = [table_index(n, tables) for tables in plan]
    stop = time.perf_counter() + (seconds or 0.0)
    it = 0
    while (
        (it < iterations) if iterations is not None else (it % 1024 or time.perf_counter() < stop)
    ):
        it += 1
        r, x, y = rng.randrange(rounds), rng.randrange(n), rng.randrange(n)
        at, tables = where[r], plan[r]
        if at[x] == at[y]:
            continue
        delta = swap_delta(n, meet, costs, x, y, tables[at[x]], tables[at[y]])
        for around in (where[r - 1] if r else None, where[r + 1] if r + 1 < rounds else None):
            if around is not None:
                delta += CONSECUTIVE * beside_delta(around, x, y, tables[at[x]], tables[at[y]])
        if delta <= 0:
            swap_seats(n, meet, tables, at, x, y)
    return plan


# --------------------------------------------------------------------------------------------
# Swiss after roster changes


def roster_event(
    players: int, rounds: int, seed: int, *, churn: float = 0.6, mode: str = "swiss"
) -> list[tuple[SeatedRound, dict[str, float], frozenset[str]]]:
    """An event whose field changes: from round 2, with probability ``churn`` a round has 0-3
    withdrawals and 0-3 late entrants; fillers complete the field to a multiple of four (the
    existing ones first, as the director does). Returns each round's seating, the standings it
    was seated with and its fillers."""
    rng = random.Random(f"roster:{seed}:{players}:{rounds}")
    entrants = [f"p{i:04d}" for i in range(players)]
    fillers: list[str] = []
    history: list[tuple[tuple[str, str, str, str], ...]] = []
    points: dict[str, float] = {}
    late = 0
    out = []
    for round_no in range(1, rounds + 1):
        if round_no > 1 and rng.random() < churn:
            for _ in range(rng.randint(0, 3)):
                entrants.remove(rng.choice(entrants))
            for _ in range(rng.randint(0, 3)):
                entrants.append(f"late{late:04d}")
                late += 1
        need = (-len(entrants)) % 4
        while len(fillers) < need:
            fillers.append(f"{FILLER_PREFIX}{len(fillers) + 1}")
        ids = entrants + fillers[:need]
        standings = {p: points.get(p, 0.0) for p in ids}
        seated = seat_round(
            mode,
            players=ids,
            round_no=round_no,
            rounds=rounds,
            seed=seed,
            history=history,
            standings=standings if mode == "swiss" else None,
        )
        out.append((seated, standings, frozenset(fillers[:need])))
        history.append(seated.tables)
        for player, score in simulated_scores(seated.tables, seed, round_no).items():
            points[player] = points.get(player, 0.0) + score
    return out


def places(standings: dict[str, float]) -> dict[str, float]:
    """Each player's place in the standings from 0 (ties share the mean of their places)."""
    order = sorted(standings, key=lambda p: -standings[p])
    place: dict[str, float] = {}
    i = 0
    while i < len(order):
        j = i
        while j < len(order) and standings[order[j]] == standings[order[i]]:
            j += 1
        for player in order[i:j]:
            place[player] = (i + j - 1) / 2
        i = j
    return place


def mean_span(rounds: list[tuple[SeatedRound, dict[str, float]]]) -> float:
    """The mean over tables (rounds 2 on: round 1 has no standings) of the span of standings
    places at the table (max - min; 3 when a table is four neighbours in the standings)."""
    spans = []
    for seated, standings in rounds:
        if not any(standings.values()):
            continue
        place = places(standings)
        spans += [max(place[p] for p in t) - min(place[p] for p in t) for t in seated.tables]
    return sum(spans) / len(spans) if spans else 0.0


# --------------------------------------------------------------------------------------------
# The cases


def run_case(
    players: int, rounds: int, mode: str, seed: int, reference_seconds: float | None = None
) -> Figures:
    """One case's figures; the reference runs for planned modes up to :data:`REFERENCE_LIMIT`
    player-rounds (at the seating's budget, or for ``reference_seconds``)."""
    roster = mode == "swiss+roster"
    if roster:
        events = roster_event(players, rounds, seed)
        seated = [s for s, _, _ in events]
        standings = [st for _, st, _ in events]
        fillers = max(sum(p in f for p in t) for s, _, f in events for t in s.tables)
    else:
        seated, standings = play_event(mode, players=players, rounds=rounds, seed=seed)
        fillers = None
    quality = event_quality(seated, players, rounds, "random")
    most, repeats = pair_bounds(players, rounds)
    figures = Figures(
        players=players,
        rounds=rounds,
        mode=mode,
        repeats=quality["total_repeat_pairs"],
        most_met=quality["max_pair_meetings"],
        wind_spread=quality["wind_spread"],
        consecutive=quality["consecutive_repeats"],
        seconds=max(s.quality.seconds for s in seated),
        bound_most=most,
        bound_repeats=repeats,
        mean_span=(
            round(mean_span(list(zip(seated, standings, strict=True))), 2)
            if mode.startswith("swiss")
            else None
        ),
        fillers_at_a_table=fillers,
    )
    if mode in PLANNED and (players * rounds <= REFERENCE_LIMIT or reference_seconds):
        budget = None if reference_seconds else anneal_budget(players, rounds)
        plan = reference_search(players, rounds, seed, iterations=budget, seconds=reference_seconds)
        ref_most, ref_repeats, ref_consecutive = plan_figures(players, plan)
        figures = Figures(
            **{
                **asdict(figures),
                "reference_most": ref_most,
                "reference_repeats": ref_repeats,
                "reference_consecutive": ref_consecutive,
            }
        )
    return figures


def run_bench(
    seed: int = 1,
    cases: tuple[tuple[int, int, str], ...] | None = None,
    reference_seconds: float | None = None,
) -> list[Figures]:
    """Every case's figures, in order (by default :data:`CASES`)."""
    return [run_case(p, r, m, seed, reference_seconds) for p, r, m in cases or CASES]
