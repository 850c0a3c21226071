"""A seeded greedy player for table tests: wins, kongs and pongs when it can, else discards the
tile that leaves the lowest shanten (so hands end in wins often enough to test settlements)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from hebei.rules.actions import WIN, Action, ActionKind
from hebei.rules.shanten import shanten

CLAIMS = (ActionKind.EXPOSED_KONG, ActionKind.CONCEALED_KONG, ActionKind.ADDED_KONG)


def greedy_choice(
    options: Sequence[Action], counts: Sequence[int], n_melds: int, rng: random.Random
) -> Action:
    """The greedy pick among ``options`` for a hand of ``counts`` with ``n_melds`` melds."""
    if WIN in options:
        return WIN
    for kind in (*CLAIMS, ActionKind.PONG):
        picks = [a for a in options if a.kind is kind]
        if picks:
            return picks[0]
    discards = [a for a in options if a.kind is ActionKind.DISCARD]
    if not discards:
        return rng.choice(list(options))
    scored = []
    hand = list(counts)
    for action in discards:
        hand[action.tile] -= 1
        scored.append((shanten(hand, n_melds), rng.random(), action))
        hand[action.tile] += 1
    return min(scored, key=lambda item: item[:2])[2]
