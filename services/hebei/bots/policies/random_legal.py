"""``random``: a uniformly random legal action (the floor every other policy must beat)."""

from __future__ import annotations

import random

from hebei.bots.policies.options import Option
from hebei.rules.actions import Action
from hebei.rules.views import Observation


class RandomPolicy:
    """A random legal action from its own seeded RNG."""

    name = "random"
    description = "a uniformly random legal action (the floor every policy must beat)"

    def __init__(self, level: int = 1, seed: int = 0) -> None:
        self.level = level
        self.level_description = self.description
        self._rng = random.Random(seed)

    def choose(self, obs: Observation) -> Action:
        """One of ``obs.legal_actions``, uniformly."""
        options = obs.legal_actions
        return options[self._rng.randrange(len(options))]

    def rank(self, obs: Observation) -> list[Option]:
        """Its random choice first, then the other legal actions in their order; it weighs
        nothing, so no figures."""
        if not obs.legal_actions:
            return []
        chosen = self.choose(obs)
        rest = [a for a in obs.legal_actions if a is not chosen]
        return [Option(a) for a in (chosen, *rest)]
