"""In-process players for self-play and tests. Bots with strategy live in hebei.bots."""

from __future__ import annotations

import random
from typing import Protocol

from hebei.rules.actions import Action
from hebei.rules.hand import HandState


class Player(Protocol):
    def choose(self, state: HandState, seat: int, options: tuple[Action, ...]) -> Action: ...


class RandomPlayer:
    """A uniformly random legal action, from its own seeded RNG."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def choose(self, state: HandState, seat: int, options: tuple[Action, ...]) -> Action:
        return options[self._rng.randrange(len(options))]


class AutoPlayer:
    """Plays exactly what the engine's auto-play (托管) would play."""

    def choose(self, state: HandState, seat: int, options: tuple[Action, ...]) -> Action:
        return state.auto_action(seat)
