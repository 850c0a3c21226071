"""Logs for bot service tests (random positions: :mod:`tests.unit.bots.observations`)."""

from __future__ import annotations

from hebei.bots.player import PolicyPlayer
from hebei.bots.policies import make_policy
from hebei.rules.match import Match, MatchLength
from hebei.rules.simulate import SimulationSummary, play_match
from tests.unit.bots.observations import random_position, random_positions

__all__ = ["match_log", "random_position", "random_positions"]


def match_log(policy: str, seed: int = 42, hands: int = 2, level: int | None = None) -> list[dict]:
    """The log of a match played by four copies of ``policy``."""
    match = Match(seed, MatchLength(hands=hands))
    players = [PolicyPlayer(make_policy(policy, level, seed=s), match.scores) for s in range(4)]
    play_match(match, players, SimulationSummary())
    return match.log()
