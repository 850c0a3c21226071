"""``random``: a uniformly random legal action (the floor every other policy must beat)."""

from __future__ import annotations

import random

from hebei.rules.actions import Action
from hebei.rules.views import Observation


class RandomPolicy:
    """A random legal action from its own seeded RNG."""

    name = "random"

    def __init__(self, level: int = 1, seed: int = 0) -> None:
        self.level = level
        self._rng = random.Random(seed)

    def choose(self, obs: Observation) -> Action:
        """One of ``obs.legal_actions``, uniformly."""
        options = obs.legal_actions
        return options[self._rng.randrange(len(options))]
