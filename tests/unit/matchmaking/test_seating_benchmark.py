"""The seating benchmark: quality targets over 16/32/64/128/256 players and 4-12 rounds.

random / schedule / duplicate: every event reaches both lower bounds of
:func:`~hebei.matchmaking.seating.pair_bounds` (the most meetings of a pair, ceil(3R/(P-1)),
and the total repeat pairs, max(0, 3PR/2 - P(P-1)/2)), with no pair in two consecutive rounds.
Zero repeats is possible only when P-1 >= 3R; the grid covers both regimes where 4-12 rounds
allow it: 16 players (perfect up to 5 rounds), 32 (perfect up to 10, the social golfer 8-4-10).
64, 128 and 256 players need more than 12 rounds before a repeat is forced (22, 43, 86): the
slow cases 64 x 22 and 64 x 24 cover that regime for 64; 128 is checked at 41 rounds, the most
it can play without a repeat (256 would need 86 rounds, beyond the 64-round limit).

swiss: fewer repeat pairs than the plain greedy Swiss on the same standings, tables much closer
in the standings than random tables, no consecutive repeat.

Winds, everywhere: every player's wind counts within one of each other after every round, all
equal after every fourth round (duplicate: equal after every round).

Time: the searches are budgeted by iterations and no round may reach its 2 s deadline (counted
in the seating thread's CPU time, so a loaded machine does not cut a search short); the quality
targets do not depend on the machine's speed. Wall-clock speed is `hebei bench seating`'s job.
"""

from __future__ import annotations

import random
import time
from functools import cache

import pytest

from hebei.matchmaking.seating import (
    SeatedRound,
    event_quality,
    greedy_swiss,
    pair_bounds,
    play_event,
    round_quality,
)

DEADLINE = 2.0
MARGIN = 1.5  # CPU seconds on top of a deadline for seating the winds after a cut search

GRID = [
    (16, 4),
    (16, 5),
    (16, 6),
    (16, 8),
    (16, 12),
    (32, 4),
    (32, 9),
    (32, 10),
    (32, 11),
    (32, 12),
    (64, 4),
    (64, 8),
    (64, 12),
    (128, 4),
    (128, 8),
    (128, 12),
    (256, 4),
    (256, 8),
    (256, 12),
]
BEYOND = [(64, 22), (64, 24), (128, 41)]
PLANNED = ("random", "schedule", "duplicate")


@cache
def event(mode: str, players: int, rounds: int, seed: int = 1):
    seated, standings = play_event(
        mode, players=players, rounds=rounds, seed=seed, deadline=DEADLINE
    )
    return seated, standings


def wind_spreads(seated: list[SeatedRound]) -> list[int]:
    """After each round: the largest max - min of a player's wind counts."""
    counts: dict[str, list[int]] = {}
    spreads = []
    for rnd in seated:
        for table in rnd.tables:
            for wind, player in enumerate(table):
                counts.setdefault(player, [0, 0, 0, 0])[wind] += 1
        spreads.append(max(max(c) - min(c) for c in counts.values()))
    return spreads


def check_winds(seated: list[SeatedRound], duplicate: bool) -> None:
    spreads = wind_spreads(seated)
    assert max(spreads) <= (0 if duplicate else 1)
    assert all(spreads[r - 1] == 0 for r in range(4, len(seated) + 1, 4))


def check_time(seated: list[SeatedRound]) -> None:
    """The iteration budgets fit the deadline (counted in CPU time, so a loaded machine does
    not cut them: the figures above are the budgeted search's)."""
    assert not any(r.quality.deadline_hit for r in seated)


def planned_case(mode: str, players: int, rounds: int):
    seated, _ = event(mode, players, rounds)
    quality = event_quality(seated, players, rounds, mode)
    most, repeats = pair_bounds(players, rounds)
    assert quality["max_pair_meetings"] == most
    assert quality["total_repeat_pairs"] == repeats
    assert quality["consecutive_repeats"] == 0
    check_winds(seated, duplicate=mode == "duplicate")
    check_time(seated)


@pytest.mark.parametrize("mode", PLANNED)
@pytest.mark.parametrize(("players", "rounds"), GRID)
def test_planned_modes_reach_the_lower_bounds(mode, players, rounds):
    planned_case(mode, players, rounds)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["random", "schedule"])
@pytest.mark.parametrize(("players", "rounds"), BEYOND)
def test_planned_modes_reach_the_lower_bounds_beyond_twelve_rounds(mode, players, rounds):
    planned_case(mode, players, rounds)


def test_sixteen_players_five_rounds_is_the_affine_plane():
    """Every pair meets exactly once: AG(2,4), the only way 16 players play 5 rounds."""
    seated, _ = event("schedule", 16, 5)
    pairs = [frozenset((a, b)) for r in seated for t in r.tables for a in t for b in t if a < b]
    assert len(pairs) == len(set(pairs)) == 16 * 15 // 2


# Swiss: (players, rounds) -> the most our mean standings spread may be, as a share of the
# spread of random tables on the same standings (measured: 0.8-0.9, 0.5-0.75, 0.35-0.45, 0.2,
# 0.1; small fields meet everyone within a few rounds, so avoiding repeats scatters them).
SWISS = {(16, 8): 1.0, (32, 12): 0.85, (64, 12): 0.55, (128, 12): 0.3, (256, 12): 0.2}


def swiss_comparison(players: int, rounds: int, seed: int):
    """Per round, on the same history and standings: our repeats and spread, the greedy
    Swiss's repeats, the spread of random tables."""
    seated, standings = event("swiss", players, rounds, seed)
    ids = [str(p) for p in range(players)]
    rng = random.Random(seed)
    history: list[tuple] = []
    ours = greedy = 0
    spread = random_spread = 0.0
    for rnd, points in zip(seated, standings, strict=True):
        ours += rnd.quality.repeat_pairs
        greedy += round_quality(greedy_swiss(ids, points), history=history).repeat_pairs
        shuffled = rng.sample(ids, players)
        shuffled_tables = [shuffled[i : i + 4] for i in range(0, players, 4)]
        spread += rnd.quality.standings_spread
        random_spread += round_quality(
            shuffled_tables, history=history, standings=points
        ).standings_spread
        history.append(rnd.tables)
    return seated, ours, greedy, spread / rounds, random_spread / rounds


@pytest.mark.parametrize(("players", "rounds"), list(SWISS))
@pytest.mark.parametrize("seed", [1, 2])
def test_swiss_beats_the_greedy_swiss_and_stays_close_in_the_standings(players, rounds, seed):
    seated, ours, greedy, spread, random_spread = swiss_comparison(players, rounds, seed)
    assert ours < greedy * (0.75 if players <= 16 else 0.5)
    assert spread <= SWISS[(players, rounds)] * random_spread
    quality = event_quality(seated, players, rounds, "swiss")
    assert quality["consecutive_repeats"] == 0
    assert quality["max_pair_meetings"] <= pair_bounds(players, rounds)[0] + 1
    check_winds(seated, duplicate=False)
    check_time(seated)


@pytest.mark.parametrize("mode", ["swiss", "random"])
def test_a_short_deadline_is_respected_at_256_players(mode):
    started = time.thread_time()
    seated, _ = play_event(mode, players=256, rounds=5, seed=9, deadline=0.05)
    assert time.thread_time() - started < 5 * (0.05 + MARGIN)  # CPU seconds, five rounds
    check_winds(seated, duplicate=False)
