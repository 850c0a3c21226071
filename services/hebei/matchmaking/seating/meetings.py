"""Who met whom: meeting matrices and table indices over player indices, and the event's
state as seen from the current players (the history's meetings, the last round's tables)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

from hebei.matchmaking.seating.model import IndexedRound, Table


def meet_matrix(n: int, rounds: Iterable[IndexedRound]) -> bytearray:
    """meet[p*n + q]: how many rounds p and q met in (a pair counts once per round)."""
    meet = bytearray(n * n)
    for tables in rounds:
        pairs = {(min(p, q), max(p, q)) for table in tables for p, q in combinations(table, 2)}
        for p, q in pairs:
            meet[p * n + q] += 1
            meet[q * n + p] += 1
    return meet


def table_index(n: int, tables: IndexedRound) -> list[int]:
    """where[p]: the table of player p in a round (-1 when absent; the first one if several)."""
    where = [-1] * n
    for t, table in enumerate(tables):
        for p in table:
            if where[p] < 0:
                where[p] = t
    return where


def add_meetings(n: int, meet: bytearray, tables: IndexedRound) -> None:
    """Count the meetings of a round into ``meet``."""
    for table in tables:
        for p, q in combinations(table, 2):
            meet[p * n + q] += 1
            meet[q * n + p] += 1


@dataclass
class EventState:
    """The meetings of the history among the current players (indices into the sorted ids)
    and each one's table in the last round (None before the first round)."""

    ids: list[str]
    meet: bytearray
    before: list[int] | None

    @property
    def n(self) -> int:
        return len(self.ids)


def event_state(ids: list[str], history: list[list[Table]]) -> EventState:
    """The history as seen from the current players (ids no longer present are dropped)."""
    index = {player: i for i, player in enumerate(ids)}
    n = len(ids)
    rounds = [[[index[p] for p in table if p in index] for table in tables] for tables in history]
    meet = meet_matrix(n, rounds)
    before = table_index(n, rounds[-1]) if rounds else None
    return EventState(ids, meet, before)


def named_tables(ids: list[str], tables: Iterable[Sequence[int]]) -> tuple[Table, ...]:
    """Tables of player indices as tables of ids."""
    return tuple((ids[t[0]], ids[t[1]], ids[t[2]], ids[t[3]]) for t in tables)
