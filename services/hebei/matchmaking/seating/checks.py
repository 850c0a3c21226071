"""Input checks of the seating's entry points: each raises ValueError with what is wrong."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from hebei.matchmaking.seating.model import MAX_PLAYERS, MAX_ROUNDS, MIN_PLAYERS, MODES, Table


def check_mode(mode: str) -> None:
    if mode not in MODES:
        raise ValueError(f"unknown seating mode {mode!r}; choose one of {', '.join(MODES)}")


def check_count(players: int) -> None:
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"players must be {MIN_PLAYERS}-{MAX_PLAYERS}, got {players}")
    if players % 4:
        missing = 4 - players % 4
        raise ValueError(
            f"{players} players is not a multiple of 4: add {missing} filler bot(s) first"
        )


def check_players(players: Sequence[str]) -> list[str]:
    """The player ids, sorted (the seating depends on the set, not on the caller's order)."""
    if isinstance(players, str):
        raise ValueError("players must be a sequence of ids, not one string")
    ids = list(players)
    for player in ids:
        if not isinstance(player, str) or not player:
            raise ValueError(f"player ids must be non-empty strings, got {player!r}")
    check_count(len(ids))
    seen: set[str] = set()
    for player in ids:
        if player in seen:
            raise ValueError(f"duplicate player id {player!r}")
        seen.add(player)
    return sorted(ids)


def check_int(value: object, name: str) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{name} must be an integer, got {value!r}")


def check_rounds(round_no: int, rounds: int) -> None:
    check_int(rounds, "rounds")
    check_int(round_no, "round_no")
    if not 1 <= rounds <= MAX_ROUNDS:
        raise ValueError(f"rounds must be 1-{MAX_ROUNDS}, got {rounds}")
    if not 1 <= round_no <= rounds:
        raise ValueError(f"round_no must be 1-{rounds}, got {round_no}")


def check_deadline(deadline: float) -> None:
    if not (isinstance(deadline, int | float) and math.isfinite(deadline) and deadline > 0):
        raise ValueError(f"deadline must be a positive number of seconds, got {deadline!r}")


def check_tables(tables: Iterable[Sequence[str]], where: str) -> list[Table]:
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


def check_history(history: Sequence[Sequence[Sequence[str]]], round_no: int) -> list[list[Table]]:
    if len(history) != round_no - 1:
        raise ValueError(
            f"history has {len(history)} rounds; round {round_no} needs the {round_no - 1} before it"
        )
    return [check_tables(rnd, f"history round {i}") for i, rnd in enumerate(history, 1)]


def check_standings(standings: Mapping[str, float] | None) -> None:
    for player, points in (standings or {}).items():
        if not isinstance(points, int | float) or not math.isfinite(points):
            raise ValueError(f"standings of {player!r} must be a finite number, got {points!r}")
