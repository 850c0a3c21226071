"""Tile efficiency on top of :mod:`hebei.rules.shanten`, pruned for speed.

A discard is ranked by the shanten of the hand it leaves and then by its ukeire
(the unseen copies of the tiles that would lower that shanten). Shanten is a few
microseconds, ukeire tens, so ukeire is computed only for the discards within
``slack`` of the best shanten.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hebei.rules.actions import Action, ActionKind
from hebei.rules.shanten import improving_kinds, shanten, ukeire
from hebei.rules.tiles import N_KINDS


@dataclass(frozen=True, slots=True)
class Candidate:
    """One discard: the hand left has ``shanten`` and ``ukeire`` unseen improving tiles."""

    kind: int
    shanten: int
    ukeire: int


def discard_shantens(counts: list[int], n_melds: int) -> list[tuple[int, int]]:
    """``(kind, shanten after discarding it)`` for every kind held, 3n+2 hand."""
    out = []
    for kind in range(N_KINDS):
        if counts[kind]:
            counts[kind] -= 1
            try:
                out.append((kind, shanten(counts, n_melds)))
            finally:
                counts[kind] += 1
    return out


def discard_ukeire(counts: list[int], n_melds: int, visible: Sequence[int], kind: int) -> int:
    """Ukeire of the hand left after discarding ``kind`` (copies counted on the 14 tiles)."""
    counts[kind] -= 1
    seen = list(visible)
    seen[kind] += 1  # the discard itself is no longer drawable
    try:
        return ukeire(counts, n_melds, seen).total
    finally:
        counts[kind] += 1


def candidates(
    counts: list[int], n_melds: int, visible: Sequence[int], slack: int = 0
) -> list[Candidate]:
    """Discards within ``slack`` of the best shanten, best first (shanten, then ukeire)."""
    shantens = discard_shantens(counts, n_melds)
    best = min(s for _, s in shantens)
    # Copies unseen as counted on the 3n+2 hand: for the discarded kind one fewer held and
    # one more seen, so the same figure as :func:`discard_ukeire` counts after the discard.
    unseen = [u if (u := 4 - c - v) > 0 else 0 for c, v in zip(counts, visible, strict=True)]
    unseen_of = unseen.__getitem__
    out = []
    for kind, s in shantens:
        if s <= best + slack:
            counts[kind] -= 1
            try:
                _, kinds = improving_kinds(counts, n_melds)
            finally:
                counts[kind] += 1
            out.append(Candidate(kind, s, sum(map(unseen_of, kinds))))
    out.sort(key=lambda c: (c.shanten, -c.ukeire, c.kind))
    return out


def hand_ukeire(counts: list[int], n_melds: int, visible: Sequence[int]) -> tuple[int, int]:
    """``(shanten, ukeire)`` of a 3n+1 hand."""
    result = ukeire(counts, n_melds, visible)
    return result.shanten, result.total


def without(counts: Sequence[int], kind: int, copies: int) -> list[int]:
    """A copy of ``counts`` with ``copies`` fewer of ``kind``."""
    out = list(counts)
    out[kind] -= copies
    return out


def kong_keeps_pace(counts: list[int], n_melds: int, action: Action) -> bool:
    """True when a concealed or added kong (``action``, on the own turn) leaves the hand as
    close to complete as the best discard would: the kong then costs nothing and brings a
    replacement draw and kong points."""
    best = min(s for _, s in discard_shantens(counts, n_melds))
    if action.kind is ActionKind.CONCEALED_KONG:
        return shanten(without(counts, action.tile, 4), n_melds + 1) <= best
    if action.kind is ActionKind.ADDED_KONG:
        return shanten(without(counts, action.tile, 1), n_melds) <= best
    return False


def best_after_pong(
    counts: Sequence[int], n_melds: int, visible: Sequence[int], tile: int
) -> Candidate:
    """The best discard after ponging ``tile`` (two from hand, one more declared meld)."""
    return candidates(without(counts, tile, 2), n_melds + 1, visible)[0]
