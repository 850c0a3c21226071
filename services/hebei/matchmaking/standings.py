"""Rankings and placement points, in plain Python.

The figures come from the ledger (points, hands won, best match, ...); this module only orders
them. Points decide first, then the tournament's tie-break chain, which always ends with a draw
from the tournament seed, so every rank is distinct and the same seed always ranks a tie the
same way. Each row says which criterion separated it from the row above.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

__all__ = ["Figures", "Ranked", "placement_shares", "rank_players", "seed_draw"]


@dataclass(frozen=True, slots=True)
class Figures:
    """One player's figures, as the ledger books them."""

    player_id: str
    points: int = 0
    hands_won: int = 0
    self_draw_wins: int = 0
    hands_dealt_in: int = 0
    best_match_points: int = 0


@dataclass(frozen=True, slots=True)
class Ranked:
    """A ranked row: 1-based rank and the criterion that separated it from the row above
    (``"points"``, a tie-break name, or ``""`` for the first row)."""

    rank: int
    figures: Figures
    decided_by: str


def seed_draw(seed: int, player_id: str) -> int:
    """The player's lot in the tournament's draw (a larger lot ranks higher)."""
    digest = hashlib.sha256(f"hebei.tie:{seed}:{player_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


# Each criterion: a key where larger is better.
_CRITERIA: Mapping[str, Callable[[Figures, int], int]] = {
    "points": lambda f, _seed: f.points,
    "hands_won": lambda f, _seed: f.hands_won,
    "best_match": lambda f, _seed: f.best_match_points,
    "fewer_dealt_in": lambda f, _seed: -f.hands_dealt_in,
    "self_draws": lambda f, _seed: f.self_draw_wins,
    "seed_draw": lambda f, seed: seed_draw(seed, f.player_id),
}
TIE_BREAKS = tuple(name for name in _CRITERIA if name != "points")


def rank_players(rows: Sequence[Figures], chain: Sequence[str], seed: int) -> list[Ranked]:
    """``rows`` ranked by points, then ``chain`` (names of :data:`TIE_BREAKS`; the seed draw
    is appended when missing, so ranks are always distinct)."""
    unknown = [name for name in chain if name not in TIE_BREAKS]
    if unknown:
        raise ValueError(f"unknown tie-break {unknown[0]!r}; known: {', '.join(TIE_BREAKS)}")
    order = ["points", *chain]
    if order[-1] != "seed_draw":
        order.append("seed_draw")

    def key(figures: Figures) -> tuple[int, ...]:
        return tuple(_CRITERIA[name](figures, seed) for name in order)

    ranked: list[Ranked] = []
    previous: tuple[int, ...] | None = None
    for index, figures in enumerate(sorted(rows, key=key, reverse=True)):
        current = key(figures)
        decided = ""
        if previous is not None:
            decided = next(
                (name for name, a, b in zip(order, previous, current, strict=True) if a != b),
                "seed_draw",
            )
        ranked.append(Ranked(index + 1, figures, decided))
        previous = current
    return ranked


def placement_shares(scores: Sequence[int], points: Sequence[int]) -> list[int]:
    """Placement points (uma) of each seat from the match ``scores``: ``points[k]`` for the
    (k+1)-th place; tied seats share their places' points equally, the indivisible remainder
    going one point each to the tied seats in seat order, so the shares still sum to
    ``sum(points)``."""
    if len(scores) != len(points):
        raise ValueError(f"{len(scores)} scores but {len(points)} placement values")
    order = sorted(range(len(scores)), key=lambda seat: -scores[seat])
    shares = [0] * len(scores)
    place = 0
    while place < len(order):
        tied = [s for s in order[place:] if scores[s] == scores[order[place]]]
        total = sum(points[place : place + len(tied)])
        base, extra = divmod(total, len(tied))
        for i, seat in enumerate(sorted(tied)):
            shares[seat] = base + (1 if i < extra else 0)
        place += len(tied)
    return shares
