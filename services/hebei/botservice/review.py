"""Review: replay finished hands and compare each decision of one seat with the expert's.

Like the reviewers riichi players use, for these rules: at every decision the seat made
(more than one legal action, not auto-played by the engine), the expert ranks the legal
actions of the seat's observation — only what the seat could see — and the review keeps
the decisions where the seat played something else, with what that cost by the expert's
estimate (its expected points for the expert's action minus those for the seat's).

:func:`parse_log` reads a hand or match log (the JSON of :mod:`hebei.rules.replay`) and checks
that it replays; :func:`review_hands` reviews its hands.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from hebei.bots.policies import POLICY_LEVELS, ExpertPolicy, Option, resolve_level
from hebei.bots.policies.explain import explain
from hebei.common.errors import InvalidArgument
from hebei.rules.actions import Action, ActionKind
from hebei.rules.errors import IllegalActionError, NotationError, ReplayError
from hebei.rules.hand import HandState
from hebei.rules.profile import get_profile
from hebei.rules.replay import ACTION_TYPES, replay_hand, replay_match
from hebei.rules.tiles import TILE_NAMES, format_tiles
from hebei.rules.views import observe
from hebei.seatclient.match_feed import MAX_EVENTS

MAX_LOG_BYTES = 2 * 1024 * 1024
MAX_HANDS = 64
CHAIN_KEY = "chain"  # an exported log's chain record (hebei.rules.chain): not checked here


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of the reviewed seat where the expert would have played otherwise."""

    hand_no: int  # 1-based
    turn: int  # 1 + the seat's discards so far in the hand
    played: Action
    expert: Action
    reason: str  # what the seat's action gives up against the expert's
    cost: float  # points, by the expert's estimate (>= 0)
    concealed: tuple[int, ...]  # the seat's hand at the decision
    claimed: int | None  # the tile on offer, for a claim

    def to_json(self) -> dict:
        return {
            "hand": self.hand_no,
            "turn": self.turn,
            "played": str(self.played),
            "expert": str(self.expert),
            "reason": self.reason,
            "cost": round(self.cost, 2),
            "concealed": format_tiles(self.concealed),
            "claimed": None if self.claimed is None else TILE_NAMES[self.claimed],
        }


@dataclass
class Review:
    """A seat's review over some hands."""

    seat: int
    level: int
    hands: int = 0
    decisions: int = 0
    agreed: int = 0
    auto_played: int = 0
    differences: list[Decision] = field(default_factory=list)  # in order of play

    @property
    def agreement(self) -> float:
        return self.agreed / self.decisions if self.decisions else 1.0

    @property
    def total_cost(self) -> float:
        return sum(d.cost for d in self.differences)

    def worst(self, limit: int = 0) -> list[Decision]:
        """The differing decisions, the costliest ``limit`` of them (0: all) in order of play."""
        if not limit or limit >= len(self.differences):
            return list(self.differences)
        ranked = sorted(range(len(self.differences)), key=lambda i: -self.differences[i].cost)
        keep = sorted(ranked[:limit])
        return [self.differences[i] for i in keep]

    def to_json(self, limit: int = 0) -> dict:
        shown = self.worst(limit)
        return {
            "seat": self.seat,
            "level": self.level,
            "hands": self.hands,
            "decisions": self.decisions,
            "agreed": self.agreed,
            "agreement": round(self.agreement, 4),
            "total_cost": round(self.total_cost, 2),
            "auto_played": self.auto_played,
            "differences": [d.to_json() for d in shown],
            "truncated": len(shown) < len(self.differences),
        }


def plain_events(events: list) -> list:
    """``events`` without the chain records of an exported log (a review ignores them)."""
    return [
        {k: v for k, v in e.items() if k != CHAIN_KEY} if isinstance(e, dict) else e for e in events
    ]


def parse_log(text: str | bytes) -> list[list[dict]]:
    """The hand logs of a hand or match log given as JSON text, checked against the rules.

    InvalidArgument names what is wrong: not JSON, too long, or a log that does not replay.
    """
    if len(text) > MAX_LOG_BYTES:
        raise InvalidArgument(f"the log is {len(text):,} bytes; at most {MAX_LOG_BYTES:,}")
    try:
        events = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InvalidArgument(f"the log is not JSON: {exc}") from None
    except RecursionError:
        raise InvalidArgument("the log is JSON nested too deeply") from None
    return hand_logs(events)


def hand_logs(events: object) -> list[list[dict]]:
    """The hand logs of a parsed hand or match log (a list of events), checked."""
    if not isinstance(events, list) or not events:
        raise InvalidArgument("a log is a non-empty JSON list of events")
    if len(events) > MAX_EVENTS:
        raise InvalidArgument(f"the log has {len(events):,} events; at most {MAX_EVENTS:,}")
    events = plain_events(events)
    first = events[0]
    try:
        if isinstance(first, dict) and first.get("type") == "match_start":
            match = replay_match(events)
            logs = [list(log) for log in match.hand_logs]
        else:
            replay_hand(events)
            logs = [list(events)]
    except (ReplayError, NotationError, IllegalActionError, ValueError, TypeError) as exc:
        raise InvalidArgument(f"the log does not replay: {exc}") from None
    if len(logs) > MAX_HANDS:
        raise InvalidArgument(f"the log has {len(logs)} hands; at most {MAX_HANDS}")
    return logs


class Reviewer:
    """Compares one seat's decisions with the expert's (at ``level``, 0: its default)."""

    def __init__(self, seat: int, level: int = 0) -> None:
        if seat not in (0, 1, 2, 3):
            raise InvalidArgument(f"seat must be 0-3, got {seat}")
        levels = POLICY_LEVELS["expert"]
        try:
            level = resolve_level("expert", level)
        except ValueError:
            raise InvalidArgument(
                f"the expert has levels {', '.join(map(str, levels))}, got {level}"
            ) from None
        self.seat = seat
        self.expert = ExpertPolicy(level)
        self.review = Review(seat, level)

    def hands(self, logs: Sequence[Sequence[dict]]) -> Review:
        """Review every hand of ``logs`` (each a checked hand log), in order."""
        scores = [0, 0, 0, 0]
        for log in logs:
            state = self._hand(log, scores)
            if state.result is not None:
                for s, delta in enumerate(state.result.settlement.total):
                    scores[s] += delta
        return self.review

    def _hand(self, log: Sequence[dict], scores: Sequence[int]) -> HandState:
        start = log[0]
        state = HandState(
            start["seed"],
            start["dealer"],
            start.get("hand_no", 0),
            get_profile(start.get("profile", "main")),
        )
        self.review.hands += 1
        turn = 1
        for event in log[len(state.events) :]:
            if event.get("type") not in ACTION_TYPES:
                continue
            seat = event["seat"]
            action = Action.from_json(
                {"type": event["type"]}
                if event["type"] in ("win", "pass")
                else {"type": event["type"], "tile": event["tile"]}
            )
            if seat == self.seat:
                self._decision(state, action, bool(event.get("auto")), turn, scores)
                if action.kind is ActionKind.DISCARD:
                    turn += 1
            state.apply(seat, action, auto=bool(event.get("auto")))
        return state

    def _decision(
        self, state: HandState, played: Action, auto: bool, turn: int, scores: Sequence[int]
    ) -> None:
        obs = observe(state, self.seat, scores)
        if len(obs.legal_actions) < 2:
            return
        if auto:
            self.review.auto_played += 1
            return
        self.review.decisions += 1
        ranked = explain(self.expert.rank(obs))
        best = ranked[0]
        if best.action is played:
            self.review.agreed += 1
            return
        mine = next((o for o in ranked if o.action is played), None)
        self.review.differences.append(
            Decision(
                hand_no=obs.hand_no + 1,
                turn=turn,
                played=played,
                expert=best.action,
                reason=mine.reason if mine is not None else best.reason,
                cost=_cost(best, mine),
                concealed=obs.hand,
                claimed=None if obs.claim is None else obs.claim.tile,
            )
        )


def _cost(best: Option, mine: Option | None) -> float:
    if mine is None or best.value is None or mine.value is None:
        return 0.0
    return round(max(0.0, best.value - mine.value), 3)


def review_hands(logs: Sequence[Sequence[dict]], seat: int, level: int = 0) -> Review:
    """The review of ``seat`` over checked hand logs (see :func:`hand_logs`)."""
    return Reviewer(seat, level).hands(logs)
