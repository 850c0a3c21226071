"""A match at a table (RULES.md §8): hands in a row with dealer rotation (§2) and running totals."""

from __future__ import annotations

import random
from dataclasses import dataclass

from hebei.rules.hand import HandState, Outcome
from hebei.rules.profile import MAIN, RuleProfile


@dataclass(frozen=True, slots=True)
class MatchLength:
    """Either a fixed number of hands, or a wind round (一圈) with a cap on hands."""

    hands: int = 0  # fixed number of hands; 0 means "a wind round"
    cap: int = 16  # with a wind round: stop after this many hands anyway

    def __post_init__(self) -> None:
        if self.hands < 0 or self.cap < 1:
            raise ValueError(
                f"match length needs hands >= 0 and cap >= 1, got {self.hands}, {self.cap}"
            )

    @property
    def wind_round(self) -> bool:
        return self.hands == 0

    def to_json(self) -> dict:
        return {"hands": self.hands} if self.hands else {"wind_round": True, "cap": self.cap}

    @classmethod
    def from_json(cls, obj: dict) -> MatchLength:
        if not isinstance(obj, dict):
            raise ValueError(f"a match length is an object, got {obj!r}"[:200])
        if obj.get("wind_round"):
            return cls(0, int(obj.get("cap", 16)))
        return cls(int(obj["hands"]))


def next_dealer(
    dealer: int,
    outcome: Outcome,
    winners: tuple[int, ...],
    profile: RuleProfile,
    false_winners: tuple[int, ...] = (),
) -> int:
    """轮庄 (§2): the dealer stays on a dealer win or an exhaustive draw, else the deal passes on.
    Several winners: the dealer stays if among them (profile decision). §9: a dealer's false
    win passes the deal (``false_win_passes_deal``); **Decision:** another seat's false win,
    with no real win, leaves the deal where it is, like a draw."""
    if dealer in false_winners and profile.false_win_passes_deal:
        return (dealer + 1) % 4
    if outcome is not Outcome.WIN:
        return dealer
    if dealer in winners and (len(winners) == 1 or profile.dealer_stays_if_among_winners):
        return dealer
    return (dealer + 1) % 4


class Match:
    """A series of hands driven by one seeded RNG: seating, first dealer, each hand's seed."""

    def __init__(
        self, seed: int, length: MatchLength = MatchLength(hands=8), profile: RuleProfile = MAIN
    ):
        self.seed = seed
        self.length = length
        self.profile = profile
        self._rng = random.Random(seed)
        # Seat assignment (each player draws a wind tile): seating[i] = seat of the i-th player.
        order = [0, 1, 2, 3]
        self._rng.shuffle(order)
        self.seating = tuple(order)
        self.first_dealer = self._rng.randrange(4)
        self.dealer = self.first_dealer
        self.scores = [0, 0, 0, 0]
        self.hand_no = 0
        self.deal_passes = 0
        self.hand: HandState | None = None
        self.hand_logs: list[list[dict]] = []
        self.finished = False
        # Why the match ends early, after the hand in progress (conclude); None: it runs its
        # length.
        self.conclusion: str | None = None

    def start_event(self) -> dict:
        return {
            "type": "match_start",
            "seed": self.seed,
            "profile": self.profile.name,
            "length": self.length.to_json(),
            "seating": list(self.seating),
            "first_dealer": self.first_dealer,
        }

    def next_hand(self) -> HandState:
        """Deal the next hand (the current one must have ended)."""
        if self.finished:
            raise ValueError("the match has finished")
        if self.hand is not None and not self.hand.ended:
            raise ValueError(f"hand {self.hand_no} is still being played")
        seed = self._rng.getrandbits(63)
        self.hand = HandState(seed, self.dealer, self.hand_no, self.profile)
        return self.hand

    def finish_hand(self) -> bool:
        """Book the ended hand's totals, rotate the dealer; True when the match is over."""
        hand = self.hand
        if hand is None or not hand.ended or hand.result is None:
            raise ValueError("no ended hand to finish")
        result = hand.result
        for seat, delta in enumerate(result.settlement.total):
            self.scores[seat] += delta
        self.hand_logs.append(hand.events)
        new_dealer = next_dealer(
            self.dealer,
            result.outcome,
            result.winners,
            self.profile,
            result.settlement.false_wins,
        )
        if new_dealer != self.dealer:
            self.deal_passes += 1
        self.dealer = new_dealer
        self.hand_no += 1
        self.hand = None
        if self.conclusion is not None:
            self.finished = True
        elif self.length.wind_round:
            self.finished = self.deal_passes >= 4 or self.hand_no >= self.length.cap
        else:
            self.finished = self.hand_no >= self.length.hands
        return self.finished

    def conclude(self, reason: str = "") -> None:
        """End the match early, after the hand in progress (a round's time limit): no hand is
        dealt after it, the scores stand as they are. With no hand in progress the match is
        finished now. Its log holds :meth:`conclusion_event` before ``match_end``."""
        if self.finished or self.conclusion is not None:
            return
        self.conclusion = reason
        if self.hand is None:
            self.finished = True

    def conclusion_event(self) -> dict:
        """The ``match_concluded`` event of a match ended early (see :meth:`conclude`)."""
        return {"type": "match_concluded", "reason": self.conclusion or ""}

    def end_event(self) -> dict:
        return {"type": "match_end", "hands": self.hand_no, "scores": list(self.scores)}

    def log(self) -> list[dict]:
        """The match log so far: match_start, every finished hand's events, match_end if over."""
        events = [self.start_event()]
        for hand_events in self.hand_logs:
            events.extend(hand_events)
        if self.finished and self.conclusion is not None:
            events.append(self.conclusion_event())
        if self.finished:
            events.append(self.end_event())
        return events
