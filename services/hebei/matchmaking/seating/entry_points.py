"""The seating's entry points: seat one round (:func:`seat_round`), seat a whole simulated
event (:func:`play_event`, :func:`plan_event`) and report its quality (:func:`event_quality`)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict

from hebei.matchmaking.seating.checks import (
    check_count,
    check_deadline,
    check_history,
    check_int,
    check_mode,
    check_players,
    check_rounds,
    check_standings,
)
from hebei.matchmaking.seating.clock import Clock, seeded_rng
from hebei.matchmaking.seating.meetings import named_tables
from hebei.matchmaking.seating.model import FILLER_PREFIX, Quality, SeatedRound, Table
from hebei.matchmaking.seating.planning import planned_round
from hebei.matchmaking.seating.quality import pair_bounds, round_quality
from hebei.matchmaking.seating.swiss import swiss_round


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
    clock = Clock(deadline)
    check_mode(mode)
    check_deadline(deadline)
    ids = check_players(players)
    check_rounds(round_no, rounds)
    check_int(seed, "seed")
    past = check_history(history, round_no)
    check_standings(standings)
    if mode == "swiss":
        if fillers is None:
            fillers = [p for p in ids if p.startswith(FILLER_PREFIX)]
        tables = swiss_round(ids, round_no, seed, past, standings or {}, set(fillers), clock)
        groups: tuple[int, ...] = (0,) * len(tables)
    else:
        tables, groups = planned_round(mode, ids, round_no, rounds, seed, past, clock)
    named = named_tables(ids, tables)
    quality = round_quality(named, history=past, standings=standings)
    quality = Quality(**{**asdict(quality), "deadline_hit": clock.hit, "seconds": clock.seconds()})
    return SeatedRound(round_no=round_no, tables=named, groups=groups, quality=quality)


def simulated_scores(tables: Sequence[Table], seed: int, round_no: int) -> dict[str, int]:
    """Match scores for a simulated round: four random scores summing to zero at each table."""
    rng = seeded_rng(seed, "results", round_no)
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
    check_mode(mode)
    if not isinstance(players, int) or isinstance(players, bool):
        raise ValueError(f"players must be a number, got {players!r}")
    check_count(players)
    check_rounds(1, rounds)
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
