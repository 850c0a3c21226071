"""The quality of a seating (ids as strings): repeat pairs, consecutive repeats, the most
meetings of a pair, the wind spread, the standings spread; and the lower bounds
(:func:`pair_bounds`) a plan is measured against."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations

from hebei.matchmaking.seating.checks import check_standings, check_tables
from hebei.matchmaking.seating.model import Quality


def _round_pairs(tables: Iterable[Sequence[str]]) -> set[tuple[str, str]]:
    """The pairs that meet in a round (a pair at several tables of the round counts once)."""
    pairs = set()
    for table in tables:
        for a, b in combinations(table, 2):
            pairs.add((a, b) if a < b else (b, a))
    return pairs


def wind_counts(rounds: Iterable[Iterable[Sequence[str]]]) -> dict[str, list[int]]:
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
    checked = check_tables(tables, "tables")
    past = [check_tables(rnd, f"history round {i}") for i, rnd in enumerate(history, 1)]
    check_standings(standings)
    meetings: Counter[tuple[str, str]] = Counter()
    for rnd in past:
        meetings.update(_round_pairs(rnd))
    pairs = _round_pairs(checked)
    previous = _round_pairs(past[-1]) if past else set()
    repeat_pairs = sum(1 for pair in pairs if meetings[pair])
    meetings.update(pairs)
    winds = wind_counts([*past, checked])
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
