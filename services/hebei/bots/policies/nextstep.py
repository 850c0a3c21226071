"""The next step's quality: what a hand two or more steps from ready is worth one step on.

The shape value (:mod:`hebei.bots.policies.speed`) prices a hand by its shanten and useful
tiles only: two discards leaving the same shanten and the same number of useful tiles are
equal to it, and so they are to the efficiency player. They are not equal in play: after one
leaves a hand whose useful draws lead to wide hands at the next step, the other to narrow
ones. :func:`next_step_value` looks one draw ahead: over every useful draw (weighted by its
copies unseen), the best discard after it (the most useful tiles at the lower shanten), and
the shape value of that hand a few turns later. The expert adds the differences of this
figure between its fastest discards (:attr:`~hebei.bots.policies.expert.ExpertLevel.step`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from hebei.bots.policies.speed import shape_value
from hebei.rules.shanten import improving_kinds

# The next step is priced this many tiles of the wall later (a useful draw takes a few turns).
STEP_WALL = 16


@functools.lru_cache(maxsize=200_000)
def _kinds(hand: bytes, n_melds: int) -> tuple[int, tuple[int, ...]]:
    """Shanten of a 3n+1 hand and its improving kinds (memoised by the hand's bytes)."""
    return improving_kinds(hand, n_melds)


def next_step_value(
    counts: Sequence[int],
    n_melds: int,
    shanten: int,
    useful: Sequence[tuple[int, int]],
    unseen: Sequence[int],
    wall: int,
) -> float:
    """Expected shape value of the hand one step on, over the useful draws of the 3n+1 hand
    ``counts`` (``useful``: its improving kinds with their copies unseen) at ``shanten``."""
    hand = bytearray(counts)
    target = shanten - 1
    later = wall - STEP_WALL
    weight = 0
    total = 0.0
    for drawn, copies in useful:
        hand[drawn] += 1
        best = -1
        for kind in range(len(hand)):
            if not hand[kind] or kind == drawn:
                continue
            hand[kind] -= 1
            step, kinds = _kinds(bytes(hand), n_melds)
            hand[kind] += 1
            if step != target:
                continue
            u = 0
            for k in kinds:
                u += unseen[k]
            if drawn in kinds:
                u -= 1  # the drawn copy is no longer unseen
            if u > best:
                best = u
        hand[drawn] -= 1
        if best >= 0:
            total += copies * shape_value(target, best, later)
            weight += copies
    return total / weight if weight else 0.0
