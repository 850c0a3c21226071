"""Self-play in one process: whole matches with in-process players."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from hebei.rules.match import Match, MatchLength
from hebei.rules.players import AutoPlayer, Player, RandomPlayer
from hebei.rules.profile import MAIN, RuleProfile

PLAYER_KINDS: dict[str, Callable[[int], Player]] = {
    "random": RandomPlayer,
    "auto": lambda seed: AutoPlayer(),
}


@dataclass
class SimulationSummary:
    hands: int = 0
    outcomes: Counter = field(default_factory=Counter)
    wins: int = 0
    total_fan: int = 0
    fan_counts: Counter = field(default_factory=Counter)
    seconds: float = 0.0
    actions: int = 0

    @property
    def average_fan(self) -> float:
        return self.total_fan / self.wins if self.wins else 0.0

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.seconds if self.seconds else 0.0

    def to_json(self) -> dict:
        return {
            "hands": self.hands,
            "outcomes": dict(self.outcomes),
            "wins": self.wins,
            "average_fan": round(self.average_fan, 3),
            "fans": dict(self.fan_counts.most_common()),
            "actions": self.actions,
            "seconds": round(self.seconds, 3),
            "hands_per_second": round(self.hands_per_second, 1),
        }


def play_match(
    match: Match,
    players: Sequence[Player],
    summary: SimulationSummary,
    on_hand: Callable[[], None] | None = None,
) -> None:
    """Play ``match`` to its end with one player per seat, adding to ``summary``."""
    while not match.finished:
        hand = match.next_hand()
        actions = 0
        while not hand.ended:
            for seat in hand.to_act():
                options = hand.legal_actions(seat)
                hand.apply(seat, players[seat].choose(hand, seat, options))
                actions += 1
        result = hand.result
        summary.hands += 1
        summary.actions += actions
        summary.outcomes[result.outcome.value] += 1
        for win in result.settlement.wins:
            summary.wins += 1
            summary.total_fan += win.bonus
            summary.fan_counts.update(f.id for f in win.fans)
        match.finish_hand()
        if on_hand is not None:
            on_hand()


def simulate(
    hands: int,
    seed: int,
    players: str | Sequence[str] = "random",
    profile: RuleProfile = MAIN,
    on_hand: Callable[[], None] | None = None,
    hands_per_match: int = 8,
) -> SimulationSummary:
    """Play ``hands`` hands of self-play (matches of ``hands_per_match``) from ``seed``."""
    kinds = [players] * 4 if isinstance(players, str) else list(players)
    for kind in kinds:
        if kind not in PLAYER_KINDS:
            raise ValueError(
                f"unknown player kind {kind!r}; known: {', '.join(sorted(PLAYER_KINDS))}"
            )
    summary = SimulationSummary()
    start = time.perf_counter()
    match_no = 0
    while summary.hands < hands:
        n = min(hands_per_match, hands - summary.hands)
        match_seed = seed * 1_000_003 + match_no
        match = Match(match_seed, MatchLength(hands=n), profile)
        seated = [PLAYER_KINDS[kinds[i]](match_seed * 4 + i) for i in range(4)]
        play_match(match, seated, summary, on_hand)
        match_no += 1
    summary.seconds = time.perf_counter() - start
    return summary
