"""The organiser's desk (2026-12-07): fields with no schedule free of repeats, and swiss after
roster changes.

Planned fields: the most any pair meets is at most the lower bound plus one, and the repeat
meetings are no more than a plain local search finds given the same number of swaps
(:func:`hebei.bench.seating.reference_search`) nor than the organiser's 60-second local
search found (20 x 10: 117 repeats; 20 x 6: 25). Swiss with late entrants, withdrawals and
fillers: no pair in two consecutive rounds, every player's winds within one (counted from its
first round), at most one filler a table. Everything is bounded by iterations, not seconds.
"""

from __future__ import annotations

from itertools import combinations

import pytest

from hebei.bench.seating import plan_figures, reference_search, roster_event
from hebei.matchmaking.seating import (
    anneal_budget,
    event_quality,
    pair_bounds,
    planning,
    play_event,
    seat_round,
)

# (players, rounds, mode) -> the organiser's 60-second local search: (most met, repeats)
ORGANISER = {
    (20, 10, "random"): (3, 117),
    (20, 10, "schedule"): (3, 117),
    (36, 10, "schedule"): (3, None),
    (20, 6, "random"): (2, 25),
    (20, 6, "schedule"): (2, 25),
}


SEEDS = (1, 2, 3)


def figures(mode: str, players: int, rounds: int, seed: int) -> dict:
    # the deadline is only a safety cut-off: a loaded machine must not cut the budgeted search
    seated, _ = play_event(mode, players=players, rounds=rounds, seed=seed, deadline=60.0)
    assert not any(s.quality.deadline_hit for s in seated)
    return event_quality(seated, players, rounds, mode)


@pytest.mark.parametrize(("players", "rounds", "mode"), list(ORGANISER))
def test_fields_without_a_repeat_free_schedule(players, rounds, mode):
    most, _ = pair_bounds(players, rounds)
    organiser_most, organiser_repeats = ORGANISER[(players, rounds, mode)]
    ours = reference = 0
    for seed in SEEDS:
        quality = figures(mode, players, rounds, seed)
        assert quality["max_pair_meetings"] <= min(most + 1, organiser_most), seed
        assert quality["consecutive_repeats"] == 0, seed
        assert quality["wind_spread"] <= 1, seed
        if organiser_repeats is not None:
            assert quality["total_repeat_pairs"] < organiser_repeats, seed
        ours += quality["total_repeat_pairs"]
        # the reference local search, given as many swaps as the seating's annealing
        plan = reference_search(players, rounds, seed, iterations=anneal_budget(players, rounds))
        ref_most, ref_repeats, _ = plan_figures(players, plan)
        assert quality["max_pair_meetings"] <= max(ref_most, most), seed
        reference += ref_repeats
    assert ours <= reference


def test_the_plan_memo_changes_nothing():
    planning._PLANS.clear()
    first, _ = play_event("schedule", players=20, rounds=6, seed=4)
    planning._PLANS.clear()
    ids = [str(p) for p in range(20)]
    last = seat_round("schedule", players=ids, round_no=6, rounds=6, seed=4,
                      history=[s.tables for s in first[:5]])  # fmt: skip
    assert last.tables == first[5].tables


def test_the_reference_is_deterministic_and_its_figures_recount():
    plan = reference_search(20, 6, 3, iterations=2000)
    assert plan == reference_search(20, 6, 3, iterations=2000)
    assert sorted(p for tables in plan for t in tables for p in t) == sorted(list(range(20)) * 6)
    most, repeats, consecutive = plan_figures(20, [[[0, 1, 2, 3]], [[0, 1, 4, 5]]])
    assert (most, repeats, consecutive) == (2, 1, 1)


# --------------------------------------------------------------------------------------------
# Swiss after roster changes

ROSTER = [(20, 8, seed) for seed in range(4)] + [(36, 8, 0), (36, 8, 1), (64, 6, 0)]


def balanceable(counts: dict[str, list[int]], players: list[str]) -> bool:
    """Can every one of ``players`` take one of its least winds, a quarter on each wind (Hall's
    condition)? Not when the field shrank unevenly: 16 left after three rounds, 5 lacking East."""
    masks = []
    for p in players:
        c = counts.get(p, [0, 0, 0, 0])
        masks.append({w for w in range(4) if c[w] == min(c)})
    quota = len(players) // 4
    return all(
        sum(1 for m in masks if m <= set(winds)) <= len(winds) * quota
        for size in range(1, 5)
        for winds in combinations(range(4), size)
    )


@pytest.mark.parametrize(("players", "rounds", "seed"), ROSTER)
def test_swiss_after_late_entrants_withdrawals_and_fillers(players, rounds, seed):
    events = roster_event(players, rounds, seed)
    assert any(f for _, _, f in events) and any("late" in p for p in events[-1][1])
    counts: dict[str, list[int]] = {}
    for seated, _, fillers in events:
        assert seated.quality.consecutive_repeats == 0, seated.round_no
        assert max(sum(p in fillers for p in t) for t in seated.tables) <= 1
        seated_now = [p for t in seated.tables for p in t]
        within = {p for p in seated_now if spread(counts.get(p, [0, 0, 0, 0])) <= 1}
        feasible = balanceable(counts, seated_now)
        for table in seated.tables:
            for wind, p in enumerate(table):
                counts.setdefault(p, [0, 0, 0, 0])[wind] += 1
        if feasible:  # every player within one stays so, late entrants from their first round
            assert all(spread(counts[p]) <= 1 for p in within), seated.round_no


def spread(counts: list[int]) -> int:
    return max(counts) - min(counts)


def test_swiss_roster_events_are_byte_identical():
    first = [s.tables for s, _, _ in roster_event(20, 5, 7)]
    assert first == [s.tables for s, _, _ in roster_event(20, 5, 7)]


@pytest.mark.parametrize("fillers", [2, 3])
def test_swiss_spreads_fillers_one_a_table_whatever_their_ids(fillers):
    ids = [f"p{i:02d}" for i in range(20 - fillers)] + [f"bot{i}" for i in range(fillers)]
    standings = {p: float(i) for i, p in enumerate(ids)}  # the bots side by side at the bottom
    seated = seat_round("swiss", players=ids, round_no=1, rounds=4, seed=1,
                        standings=standings, fillers=ids[-fillers:])  # fmt: skip
    assert max(sum(p.startswith("bot") for p in t) for t in seated.tables) == 1
