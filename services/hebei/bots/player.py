"""In-process adapter: a policy as a :class:`hebei.rules.players.Player` (for self-play)."""

from __future__ import annotations

import time
from collections.abc import Sequence

from hebei.bots.policies import POLICIES, Policy, make_policy
from hebei.rules.actions import Action
from hebei.rules.hand import HandState
from hebei.rules.match import Match, MatchLength
from hebei.rules.shanten import warm_up
from hebei.rules.simulate import SimulationSummary, play_match
from hebei.rules.views import observe


class PolicyPlayer:
    """Plays ``policy`` at a seat of an in-process hand; can time its decisions.

    ``scores`` is the running match total shown to the policy (a live list may be passed);
    with ``timings`` set, each decision's seconds are appended to it.
    """

    def __init__(
        self,
        policy: Policy,
        scores: Sequence[int] = (0, 0, 0, 0),
        timings: list[float] | None = None,
    ) -> None:
        self.policy = policy
        self.scores = scores
        self.timings = timings

    def choose(self, state: HandState, seat: int, options: tuple[Action, ...]) -> Action:
        """``policy.choose(observe(state, seat, scores))``."""
        if self.timings is None:
            return self.policy.choose(observe(state, seat, self.scores))
        start = time.perf_counter()
        action = self.policy.choose(observe(state, seat, self.scores))
        self.timings.append(time.perf_counter() - start)
        return action


def warm_policies(seed: int = 0, hands: int = 16) -> None:
    """Fill the shanten tables as a long-running worker has them: build the fixed part, then
    self-play ``hands`` hands with the policies (decisions on a cold table are slower)."""
    warm_up()
    if hands <= 0:
        return
    names = list(POLICIES)
    players = [PolicyPlayer(make_policy(names[i % len(names)], seed=seed + i)) for i in range(4)]
    play_match(Match(seed ^ 0x5EED, MatchLength(hands=hands)), players, SimulationSummary())
