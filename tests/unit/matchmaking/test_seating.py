"""The seating module: properties of every mode, errors, determinism, wind balance, duplicate
rotations, changed player sets, hand-edited seatings. The quality targets over the grid of
event sizes are in test_seating_benchmark.py."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from itertools import combinations, permutations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hebei.matchmaking.seating import (
    MODES,
    Quality,
    SeatedRound,
    greedy_swiss,
    pair_bounds,
    plan_event,
    play_event,
    round_quality,
    seat_round,
    simulated_scores,
)
from hebei.matchmaking.seating.clock import Clock
from hebei.matchmaking.seating.designs import design_rounds
from hebei.matchmaking.seating.planning import _greedy_rounds
from hebei.matchmaking.seating.winds import colour_plan

PLANNED = ("random", "schedule", "duplicate")
LONG = 60.0
"""A deadline that a budgeted search never reaches, even on a loaded machine."""


def names(n: int, prefix: str = "p") -> list[str]:
    return [f"{prefix}{i:04d}" for i in range(n)]


def wind_counts(rounds: list[tuple[tuple[str, ...], ...]]) -> dict[str, list[int]]:
    counts: dict[str, list[int]] = {}
    for tables in rounds:
        for table in tables:
            for wind, player in enumerate(table):
                counts.setdefault(player, [0, 0, 0, 0])[wind] += 1
    return counts


def spread(counts: list[int]) -> int:
    return max(counts) - min(counts)


def naive_quality(tables, history, standings=None) -> tuple:
    """round_quality recomputed the slow, obvious way (the model for the checks below)."""

    def pairs(rnd):
        return {frozenset(p) for table in rnd for p in combinations(table, 2)}

    now = pairs(tables)
    before = [pairs(rnd) for rnd in history]
    repeat = sum(1 for p in now if any(p in b for b in before))
    consecutive = len(now & before[-1]) if before else 0
    meetings = Counter(p for rnd in [*before, now] for p in rnd)
    winds = wind_counts([*history, tables])
    stand = 0.0
    if standings:
        stand = sum(
            max(standings.get(p, 0.0) for p in t) - min(standings.get(p, 0.0) for p in t)
            for t in tables
        ) / len(tables)
    return repeat, consecutive, max(meetings.values()), max(map(spread, winds.values())), stand


def quality_tuple(q: Quality) -> tuple:
    return (
        q.repeat_pairs,
        q.consecutive_repeats,
        q.max_pair_meetings,
        q.wind_spread,
        q.standings_spread,
    )


# --------------------------------------------------------------------------------------------
# Properties of whole events


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    mode=st.sampled_from(MODES),
    players=st.sampled_from([4, 8, 12, 16, 20, 24, 28, 32, 36, 44, 64]),
    rounds=st.integers(1, 9),
    seed=st.integers(0, 2**32),
)
def test_every_event_seats_everyone_and_keeps_winds_within_one(mode, players, rounds, seed):
    seated, standings = play_event(mode, players=players, rounds=rounds, seed=seed)
    everyone = sorted(str(p) for p in range(players))
    history: list[tuple[tuple[str, ...], ...]] = []
    for number, (rnd, points) in enumerate(zip(seated, standings, strict=True), 1):
        assert rnd.round_no == number
        assert all(len(set(table)) == 4 for table in rnd.tables)
        if mode == "duplicate":
            # every player at four tables of the round, once in each seat
            assert sorted(p for t in rnd.tables for p in t) == sorted(everyone * 4)
            for wind in range(4):
                assert sorted(t[wind] for t in rnd.tables) == everyone
        else:
            assert sorted(p for t in rnd.tables for p in t) == everyone
            assert rnd.groups == (0,) * len(rnd.tables)
        history.append(rnd.tables)
        counts = wind_counts(history)
        assert max(map(spread, counts.values())) <= 1
        if number % 4 == 0:
            assert all(spread(c) == 0 for c in counts.values())
        expected = naive_quality(rnd.tables, history[:-1], points or None)
        assert quality_tuple(rnd.quality)[:4] == expected[:4]
        assert rnd.quality.standings_spread == pytest.approx(expected[4])


@pytest.mark.parametrize("mode", MODES)
def test_a_round_is_a_function_of_the_history(mode):
    """Seating round by round gives the published plan, and any round asked again (with the
    history before it) is the same round: the service may restart between rounds."""
    # the deadline is a safety cut-off only: on a loaded machine it must not cut the searches
    seated, standings = play_event(mode, players=20, rounds=6, seed=11, deadline=LONG)
    ids = [str(p) for p in range(20)]
    for k in (1, 3, 6):
        again = seat_round(
            mode,
            players=list(reversed(ids)),  # the caller's order does not matter
            round_no=k,
            rounds=6,
            seed=11,
            history=[s.tables for s in seated[: k - 1]],
            standings=standings[k - 1] or None,
            deadline=LONG,
        )
        assert again.tables == seated[k - 1].tables
        assert again.groups == seated[k - 1].groups


@pytest.mark.parametrize(
    ("mode", "players", "rounds"),
    [(m, 16, 6) for m in MODES] + [("random", 20, 5), ("swiss", 44, 5)],
)
def test_same_inputs_give_byte_identical_json(mode, players, rounds):
    first = json.dumps(plan_event(mode, players=players, rounds=rounds, seed=7, deadline=LONG))
    again = plan_event(mode, players=players, rounds=rounds, seed=7, deadline=LONG)
    assert json.dumps(again) == first
    assert "seconds" not in first and "deadline_hit" not in first


@pytest.mark.parametrize("mode", MODES)
def test_the_seed_changes_the_seating(mode):
    one = plan_event(mode, players=16, rounds=3, seed=1)["rounds"]
    two = plan_event(mode, players=16, rounds=3, seed=2)["rounds"]
    assert one != two


def test_random_and_schedule_draw_different_plans_from_one_seed():
    assert (
        plan_event("random", players=16, rounds=5, seed=3)["rounds"]
        != plan_event("schedule", players=16, rounds=5, seed=3)["rounds"]
    )


def test_plan_event_json_shape():
    plan = plan_event("swiss", players=8, rounds=3, seed=5)
    assert plan["mode"] == "swiss" and plan["players"] == 8 and plan["seed"] == 5
    assert len(plan["rounds"]) == 3
    for tables in plan["rounds"]:
        assert sorted(p for t in tables for p in t) == list(range(8))
        assert all(isinstance(p, int) and len(t) == 4 for t in tables for p in t)
    quality = plan["quality"]
    assert len(quality["rounds"]) == 3
    assert quality["total_repeat_pairs"] == sum(q["repeat_pairs"] for q in quality["rounds"])
    assert quality["lower_bounds"] == {"max_pair_meetings": 2, "total_repeat_pairs": 8}
    assert "mean_standings_spread" in quality
    assert plan["standings"][0] == [0.0] * 8 and len(plan["standings"]) == 3
    assert "groups" in plan_event("duplicate", players=8, rounds=1, seed=5)


def test_simulated_scores_sum_to_zero_at_each_table_and_repeat():
    tables = (("a", "b", "c", "d"), ("e", "f", "g", "h"))
    scores = simulated_scores(tables, seed=4, round_no=2)
    for table in tables:
        assert sum(scores[p] for p in table) == 0
    assert scores == simulated_scores(tables, seed=4, round_no=2)
    assert scores != simulated_scores(tables, seed=4, round_no=3)


# --------------------------------------------------------------------------------------------
# Errors: one clear line each


GOOD = {"players": names(8), "round_no": 1, "rounds": 3, "seed": 1}


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"mode": "elimination"}, "unknown seating mode 'elimination'"),
        ({"players": names(7)}, "7 players is not a multiple of 4: add 1 filler"),
        ({"players": names(0)}, "players must be 4-4096, got 0"),
        ({"players": names(4100)}, "players must be 4-4096, got 4100"),
        ({"players": [*names(7), "p0001"]}, "duplicate player id 'p0001'"),
        ({"players": [*names(7), ""]}, "non-empty strings"),
        ({"players": [*names(7), 8]}, "non-empty strings"),
        ({"players": "abcdefgh"}, "not one string"),
        ({"rounds": 0}, "rounds must be 1-64, got 0"),
        ({"rounds": 65}, "rounds must be 1-64, got 65"),
        ({"round_no": 4}, "round_no must be 1-3, got 4"),
        ({"round_no": 0}, "round_no must be 1-3, got 0"),
        ({"seed": 1.5}, "seed must be an integer"),
        ({"round_no": 2}, "history has 0 rounds; round 2 needs the 1 before it"),
        (
            {"round_no": 2, "history": [[("p0000", "p0001", "p0002", "p0002")]]},
            "history round 1: a table lists 4 different player ids",
        ),
        ({"standings": {"p0000": float("nan")}}, "standings of 'p0000' must be a finite number"),
        ({"deadline": 0}, "deadline must be a positive number of seconds"),
        ({"deadline": float("inf")}, "deadline must be a positive number of seconds"),
    ],
)
def test_bad_input_raises_one_clear_line(changes, message):
    arguments = {"mode": "random", **GOOD, **changes}
    with pytest.raises(ValueError, match=re.escape(message)) as error:
        seat_round(arguments.pop("mode"), **arguments)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: plan_event("random", players=13, rounds=2, seed=0), "13 players is not"),
        (lambda: plan_event("knockout", players=16, rounds=2, seed=0), "unknown seating mode"),
        (lambda: plan_event("random", players=16, rounds=0, seed=0), "rounds must be 1-64"),
        (lambda: greedy_swiss(names(6), {}), "6 players is not a multiple of 4"),
        (lambda: round_quality([("a", "b", "c")], history=[]), "tables: a table lists 4"),
    ],
)
def test_other_entry_points_check_their_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --------------------------------------------------------------------------------------------
# Winds


@pytest.mark.parametrize("mode", ["random", "schedule", "swiss"])
@pytest.mark.parametrize("players", [16, 20, 32, 36])
def test_winds_are_exactly_equal_after_every_block_of_four_rounds(mode, players):
    seated, _ = play_event(mode, players=players, rounds=12, seed=players)
    for end in (4, 8, 12):
        counts = wind_counts([s.tables for s in seated[:end]])
        assert all(c == [end // 4] * 4 for c in counts.values())


def test_a_planned_block_is_properly_edge_coloured():
    """König: any four rounds of tables can be seated so nobody repeats a wind (here greedy
    rounds of 20 players, no design)."""
    rng = random.Random(5)
    clock = Clock(10.0)
    plan = _greedy_rounds(20, 7, rng, clock)
    seated = colour_plan(20, plan)
    for rnd, coloured in zip(plan, seated, strict=True):
        assert sorted(map(sorted, rnd)) == sorted(map(sorted, coloured))
    for start in (0, 4):
        for player in range(20):
            winds = [
                t.index(player) for rnd in seated[start : start + 4] for t in rnd if player in t
            ]
            assert len(winds) == len(set(winds))


def test_duplicate_rounds_rotate_each_group_through_the_four_seats():
    rnd = seat_round("duplicate", players=names(12), round_no=1, rounds=1, seed=3)
    assert len(rnd.tables) == 12 and rnd.groups == (0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2)
    for g in range(3):
        a, b, c, d = rnd.tables[4 * g]
        assert rnd.tables[4 * g : 4 * g + 4] == (
            (a, b, c, d),
            (b, c, d, a),
            (c, d, a, b),
            (d, a, b, c),
        )
    assert rnd.quality.wind_spread == 0


# --------------------------------------------------------------------------------------------
# Changed player sets


def run_with_changes(mode: str, seed: int, start: int, rounds: int, shrink: bool = False):
    """An event where players withdraw (replaced by fillers), register late (in fours) or,
    with ``shrink``, leave four at a time; returns the seated rounds and the player sets."""
    rng = random.Random(seed)
    players = names(start)
    fresh = start
    history: list[tuple[tuple[str, ...], ...]] = []
    points: dict[str, float] = {}
    sets = []
    for round_no in range(1, rounds + 1):
        if round_no > 1 and rng.random() < 0.5:
            leaving = rng.randint(1, 3)
            for _ in range(leaving):
                players.remove(rng.choice(players))
            for _ in range(leaving + 4 * rng.randint(0, 1)):
                players.append(f"new{fresh:04d}")
                fresh += 1
        if shrink and round_no > 1 and len(players) >= 12 and rng.random() < 0.3:
            for _ in range(4):
                players.remove(rng.choice(players))
        rnd = seat_round(
            mode,
            players=players,
            round_no=round_no,
            rounds=rounds,
            seed=seed,
            history=history,
            standings={p: points.get(p, 0.0) for p in players},
        )
        history.append(rnd.tables)
        sets.append(sorted(players))
        for player, score in simulated_scores(rnd.tables, seed, round_no).items():
            points[player] = points.get(player, 0.0) + score
    return history, sets


@pytest.mark.parametrize(
    ("mode", "start"),
    [
        ("swiss", 16),
        ("swiss", 32),
        pytest.param("random", 16, marks=pytest.mark.slow),
        pytest.param("random", 32, marks=pytest.mark.slow),
        pytest.param("schedule", 20, marks=pytest.mark.slow),
    ],
)
def test_late_registration_and_fillers_keep_every_player_within_one_wind(mode, start):
    for seed in range(8):
        history, sets = run_with_changes(mode, seed, start, rounds=10)
        for number, (tables, players) in enumerate(zip(history, sets, strict=True), 1):
            assert sorted(p for t in tables for p in t) == players
            counts = wind_counts(history[:number])
            assert max(map(spread, counts.values())) <= 1, (seed, number)


@pytest.mark.parametrize("mode", ["swiss", pytest.param("random", marks=pytest.mark.slow)])
def test_shrinking_sets_never_go_beyond_a_spread_of_two(mode):
    for seed in range(8):
        history, sets = run_with_changes(mode, seed, 32, rounds=10, shrink=True)
        for tables, players in zip(history, sets, strict=True):
            assert sorted(p for t in tables for p in t) == players
        assert max(map(spread, wind_counts(history).values())) <= 2


def test_replanned_rounds_still_avoid_repeats_among_who_is_left():
    history, sets = run_with_changes("random", 3, 64, rounds=8)
    assert len({tuple(s) for s in sets}) > 1  # the set did change
    met: set[frozenset[str]] = set()
    for tables in history:
        pairs = {frozenset(p) for t in tables for p in combinations(t, 2)}
        assert not pairs & met
        met |= pairs


# The 8-player event where four leave after round 3 and the four left lack East, East,
# South, South: their one table cannot give everyone a missing wind.
SHRINK_HISTORY = [
    [("c", "a", "e", "g"), ("d", "h", "b", "f")],
    [("e", "f", "a", "d"), ("h", "g", "c", "b")],
    [("f", "b", "h", "a"), ("g", "e", "d", "c")],
]


@pytest.mark.parametrize("mode", ["swiss", "random", "schedule"])
def test_when_balance_is_impossible_the_fewest_players_go_to_two(mode):
    counts = wind_counts(SHRINK_HISTORY)
    assert all(spread(counts[p]) == 1 for p in counts)
    best = min(
        sum(spread(c) > 1 for c in wind_counts([*SHRINK_HISTORY, [perm]]).values())
        for perm in permutations("abcd")
    )
    assert best == 2  # no seating of a, b, c, d keeps everyone within one
    rnd = seat_round(
        mode, players=list("abcd"), round_no=4, rounds=4, seed=1, history=SHRINK_HISTORY
    )
    after = wind_counts([*SHRINK_HISTORY, rnd.tables])
    assert rnd.quality.wind_spread == 2
    assert sum(spread(c) > 1 for c in after.values()) == best


# --------------------------------------------------------------------------------------------
# Hand-edited seatings (an operator swaps two players)


def test_round_quality_of_a_small_hand_made_round():
    history = [[("a", "b", "c", "d"), ("e", "f", "g", "h")]]
    tables = [("a", "e", "b", "f"), ("g", "c", "h", "d")]
    quality = round_quality(tables, history=history, standings={"a": 10, "e": -4, "c": 1.5})
    # a-b, e-f, c-d, g-h met in round 1, the round just before
    assert quality.repeat_pairs == 4 and quality.consecutive_repeats == 4
    assert quality.max_pair_meetings == 2
    assert quality.wind_spread == 2  # a sat East twice, never elsewhere
    assert quality.standings_spread == pytest.approx((14 + 1.5) / 2)
    assert not quality.deadline_hit and quality.seconds == 0.0


@pytest.mark.parametrize("mode", MODES)
def test_round_quality_of_swapped_seatings_matches_a_recount(mode):
    seated, standings = play_event(mode, players=16, rounds=6, seed=2)
    rng = random.Random(9)
    history = [s.tables for s in seated]
    for _ in range(20):
        k = rng.randrange(6)
        tables = [list(t) for t in history[k]]
        i, j = rng.sample(range(len(tables)), 2)
        x, y = rng.randrange(4), rng.randrange(4)
        if tables[j][y] in tables[i] or tables[i][x] in tables[j]:
            continue  # duplicate mode: the same group
        tables[i][x], tables[j][y] = tables[j][y], tables[i][x]
        points = standings[k] or None
        quality = round_quality(tables, history=history[:k], standings=points)
        assert quality_tuple(quality)[:4] == naive_quality(tables, history[:k], points)[:4]


@pytest.mark.parametrize("mode", ["random", "schedule", "swiss"])
def test_after_an_operator_swap_the_next_round_is_replanned_and_valid(mode):
    seated, standings = play_event(mode, players=16, rounds=5, seed=4)
    history = [list(s.tables) for s in seated[:2]]
    first, second = history[1][0], history[1][1]
    history[1][0] = (second[0], *first[1:])  # swap the two East players
    history[1][1] = (first[0], *second[1:])
    rnd = seat_round(
        mode,
        players=[str(p) for p in range(16)],
        round_no=3,
        rounds=5,
        seed=4,
        history=history,
        standings=standings[2] or None,
    )
    assert sorted(p for t in rnd.tables for p in t) == sorted(str(p) for p in range(16))
    assert rnd.quality.wind_spread <= 1
    assert rnd.quality.consecutive_repeats == 0


# --------------------------------------------------------------------------------------------
# Time


@pytest.mark.parametrize("mode", MODES)
def test_a_passed_deadline_uses_the_best_seating_so_far_and_says_so(mode):
    history = [s.tables for s in play_event(mode, players=28, rounds=2, seed=1)[0]]
    rnd = seat_round(
        mode,
        players=[str(p) for p in range(28)],
        round_no=3,
        rounds=9,
        seed=1,
        history=history,
        deadline=1e-9,
    )
    assert rnd.quality.deadline_hit
    assert rnd.quality.seconds < 1.0
    seated = sorted(p for t in rnd.tables for p in t)
    assert seated == sorted([str(p) for p in range(28)] * (4 if mode == "duplicate" else 1))


# --------------------------------------------------------------------------------------------
# Small pieces


def test_greedy_swiss_seats_the_ranking_in_fours():
    standings = {"a": 5, "b": 9, "c": -1, "d": 9, "e": 0, "f": 3, "g": 2, "h": 7}
    assert greedy_swiss(list("abcdefgh"), standings) == (
        ("b", "d", "h", "a"),
        ("f", "g", "e", "c"),
    )


@pytest.mark.parametrize(
    ("players", "rounds", "bounds"),
    [
        (16, 5, (1, 0)),
        (16, 6, (2, 24)),
        (16, 12, (3, 168)),
        (32, 10, (1, 0)),
        (32, 11, (2, 32)),
        (32, 12, (2, 80)),
        (4, 3, (3, 12)),
        (256, 12, (1, 0)),
    ],
)
def test_pair_bounds(players, rounds, bounds):
    assert pair_bounds(players, rounds) == bounds


@pytest.mark.parametrize(
    ("players", "rounds"), [(8, 1), (16, 5), (32, 10), (64, 21), (128, 41), (256, 64), (512, 64)]
)
def test_designs_never_repeat_a_pair(players, rounds):
    design = design_rounds(players)
    assert len(design) == rounds
    met: set[tuple[int, int]] = set()
    for rnd in design:
        assert sorted(p for t in rnd for p in t) == list(range(players))
        pairs = {(min(p, q), max(p, q)) for t in rnd for p, q in combinations(t, 2)}
        assert not pairs & met
        met |= pairs
    if players == 32:  # every pair but the 16 "twins" (x, x + 16)
        assert len(met) == 32 * 31 // 2 - 16
        assert all((x, x + 16) not in met for x in range(16))


def test_quality_json_keeps_only_deterministic_fields():
    quality = Quality(1, 0, 2, 1, 1.25, True, 0.5)
    assert quality.to_json() == {
        "repeat_pairs": 1,
        "consecutive_repeats": 0,
        "max_pair_meetings": 2,
        "wind_spread": 1,
        "standings_spread": 1.25,
    }
    assert isinstance(seat_round("swiss", **GOOD), SeatedRound)
