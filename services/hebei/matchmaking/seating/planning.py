"""The planned modes (random, schedule, duplicate): the event's plan while the history follows
it, else the remaining rounds planned again from the history (see "Modes" and "Pair planning"
in :mod:`hebei.matchmaking.seating`)."""

from __future__ import annotations

import random

from hebei.matchmaking.seating.annealing import anneal, anneal_budget, greedy_round, plan_costs
from hebei.matchmaking.seating.clock import SEARCH_SHARE, Clock, seeded_rng, shuffled
from hebei.matchmaking.seating.designs import Draft, clash_count, design_plan, design_rounds
from hebei.matchmaking.seating.lanes import classes_for, round_winds
from hebei.matchmaking.seating.meetings import (
    EventState,
    add_meetings,
    event_state,
    meet_matrix,
    named_tables,
    table_index,
)
from hebei.matchmaking.seating.model import IndexedRound, Table
from hebei.matchmaking.seating.quality import pair_bounds
from hebei.matchmaking.seating.winds import colour_plan, seat_table


def _fresh_plan(n: int, rounds: int, rng: random.Random, clock: Clock) -> list[IndexedRound]:
    """The whole event from its start: a relabelled design or greedy rounds, then annealing."""
    draft = design_plan(n, rounds, rng) or Draft(_greedy_rounds(n, rounds, rng, clock), 0)
    most, repeats = pair_bounds(n, rounds)
    if draft.frozen < rounds and not _meets_bounds(n, draft.rounds, most, repeats):
        anneal(
            n,
            bytearray(n * n),
            None,
            draft.rounds,
            costs=plan_costs(most),
            rng=rng,
            iterations=anneal_budget(n, rounds - draft.frozen),
            clock=clock,
            frozen=draft.frozen,
        )
    return draft.rounds


_PLANS: dict[tuple[int, int, int, str], list[IndexedRound]] = {}
"""Fresh plans already made, by (players, rounds, seed, mode): each round of an event asks for
the same plan (a memo of a pure function; plans cut short by the deadline are not kept)."""
_PLANS_KEPT = 32


def _event_plan(n: int, rounds: int, seed: int, mode: str, clock: Clock) -> list[IndexedRound]:
    """The fresh plan of an event (a copy: the caller may change it)."""
    key = (n, rounds, seed, mode)
    plan = _PLANS.get(key)
    if plan is None:
        plan = _fresh_plan(n, rounds, seeded_rng(seed, mode, 0), clock)
        if clock.hit:
            return plan
        if len(_PLANS) >= _PLANS_KEPT:
            _PLANS.clear()  # (one call, safe beside another thread's)
        _PLANS[key] = plan
    return [[list(table) for table in tables] for tables in plan]


def _greedy_rounds(n: int, rounds: int, rng: random.Random, clock: Clock) -> list[IndexedRound]:
    """Greedy rounds one after the other (fewer if the deadline passes)."""
    meet = bytearray(n * n)
    plan: list[IndexedRound] = []
    for _ in range(rounds):
        if plan and clock.expired(SEARCH_SHARE):
            break
        before = table_index(n, plan[-1]) if plan else None
        tables = greedy_round(n, meet, before, rng)
        add_meetings(n, meet, tables)
        plan.append(tables)
    return plan


def _meets_bounds(n: int, plan: list[IndexedRound], most: int, repeats: int) -> bool:
    """True when a fresh plan reaches both lower bounds with no consecutive repeat."""
    meet = meet_matrix(n, plan)
    highest = max(meet, default=0)
    if highest > most:
        return False
    total = sum((m - 1) * meet.count(m) for m in range(2, highest + 1)) // 2
    if total > repeats:
        return False
    return all(clash_count(n, plan[r - 1], plan[r]) == 0 for r in range(1, len(plan)))


def _replan(
    state: EventState,
    played: int,
    remaining: int,
    allowed: list[int] | None,
    rng: random.Random,
    clock: Clock,
) -> IndexedRound:
    """The next round of a plan of the remaining rounds made from the history."""
    n = state.n
    meet = bytearray(state.meet)
    plan: list[IndexedRound] = []
    classes = classes_for(allowed, rng) if allowed is not None else None
    for r in range(remaining):
        before = state.before if r == 0 else table_index(n, plan[-1])
        tables = greedy_round(n, meet, before, rng, classes if r == 0 else None)
        add_meetings(n, meet, tables)
        plan.append(tables)
        if clock.expired(SEARCH_SHARE):
            break
    anneal(
        n,
        bytearray(state.meet),
        state.before,
        plan,
        costs=plan_costs(pair_bounds(n, played + len(plan))[0]),
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


def _duplicate_tables(groups: IndexedRound) -> tuple[list[list[int]], tuple[int, ...]]:
    """The four seat rotations of each group, consecutive, and each table's group."""
    tables, index = [], []
    for g, (a, b, c, d) in enumerate(groups):
        tables += [[a, b, c, d], [b, c, d, a], [c, d, a, b], [d, a, b, c]]
        index += [g] * 4
    return tables, tuple(index)


_WHOLE_PLAN_LIMIT = 16384
"""Player-rounds up to which an event without a design is planned whole at every call (beyond,
each round is planned from the history with a shorter look-ahead)."""


def planned_round(
    mode: str,
    ids: list[str],
    round_no: int,
    rounds: int,
    seed: int,
    history: list[list[Table]],
    clock: Clock,
) -> tuple[list[list[int]], tuple[int, ...]]:
    """random / schedule / duplicate: the round of the event plan while the history follows it,
    else the first round of a plan of the remaining rounds made from the history.

    Either way the round is a function of the history, so the seating of a whole event made
    round by round is the same as the one published up front.
    """
    n = len(ids)
    duplicate = mode == "duplicate"
    whole = bool(design_rounds(n)) or n * rounds <= _WHOLE_PLAN_LIMIT
    if whole and _same_players(ids, history, duplicate):
        plan = _event_plan(n, rounds, seed, mode, clock)
        if len(plan) == rounds:  # not cut short by the deadline
            seated = plan if duplicate else colour_plan(n, plan[: -(-round_no // 4) * 4])
            played = [_duplicate_tables(r)[0] if duplicate else r for r in seated[: round_no - 1]]
            if [named_tables(ids, tables) for tables in played] == [tuple(t) for t in history]:
                if duplicate:
                    return _duplicate_tables(seated[round_no - 1])
                return seated[round_no - 1], (0,) * len(seated[round_no - 1])
    state = event_state(ids, history)
    rng = seeded_rng(seed, mode, round_no)
    horizon = min(rounds - round_no + 1, max(2, _WHOLE_PLAN_LIMIT // n))
    if duplicate:
        return _duplicate_tables(_replan(state, round_no - 1, horizon, None, rng, clock))
    allowed = round_winds(ids, history, shuffled(n, rng))
    tables = _replan(state, round_no - 1, horizon, allowed, rng, clock)
    return [seat_table(table, allowed, rng) for table in tables], (0,) * len(tables)
