"""BotService: protobuf in, the domain (:mod:`advice`, :mod:`review`), protobuf out."""

from __future__ import annotations

from typing import Any

from hebei.bots.policies import Option, catalogue
from hebei.botservice.advice import suggest
from hebei.botservice.review import Decision, Review, parse_log, review_hands
from hebei.common import convert
from hebei.common.auth import has_token
from hebei.common.errors import InvalidArgument, Unavailable
from hebei.common.quota import CallQuota, peer_host
from hebei.seatclient.match_feed import TableFeed
from hebei.v1 import bot_pb2

SERVICE_NAME = "hebei.v1.BotService"
MAX_DIFFERENCES = 1000
# Reviews running at once, in all and from one client address (see service.py) ...
MAX_REVIEWS = 4
MAX_REVIEWS_PER_PEER = 1
# ... and those of the services (calls with a service or operator token: the web gateway)
MAX_SERVICE_REVIEWS = 2


def option_to_proto(rank: int, option: Option) -> bot_pb2.Suggestion:
    """One ranked option as a ``Suggestion`` message."""
    message = bot_pb2.Suggestion(
        rank=rank,
        action=convert.action_to_proto(option.action),
        useful_tiles=[
            bot_pb2.TileCount(tile=convert.tile_to_proto(k), count=n) for k, n in option.useful
        ],
        useful_unseen=option.useful_unseen,
        reason=option.reason,
    )
    if option.shanten is not None:
        message.shanten_after = option.shanten
    if option.danger is not None:
        message.danger = round(option.danger, 4)
    if option.value is not None:
        message.expected_value = round(option.value, 4)
    if option.then is not None:
        message.next_discard.CopyFrom(convert.action_to_proto(option.then))
    return message


def decision_to_proto(decision: Decision) -> bot_pb2.ReviewedDecision:
    """One differing decision as a ``ReviewedDecision`` message."""
    return bot_pb2.ReviewedDecision(
        hand_no=decision.hand_no,
        turn=decision.turn,
        played=convert.action_to_proto(decision.played),
        expert=convert.action_to_proto(decision.expert),
        reason=decision.reason,
        cost=decision.cost,
        concealed=[convert.tile_to_proto(k) for k in decision.concealed],
        claimed_tile=convert.tile_to_proto(decision.claimed),
    )


def review_to_proto(review: Review, limit: int) -> bot_pb2.ReviewResponse:
    """A review as a ``ReviewResponse`` (at most ``limit`` differences, 0: all)."""
    shown = review.worst(limit)
    return bot_pb2.ReviewResponse(
        seat=review.seat,
        level=review.level,
        hands=review.hands,
        decisions=review.decisions,
        agreed=review.agreed,
        agreement=review.agreement,
        total_cost=round(review.total_cost, 3),
        auto_played=review.auto_played,
        differences=[decision_to_proto(d) for d in shown],
        truncated=len(shown) < len(review.differences),
    )


class BotServicer:
    """The BotService; ``table`` reads finished matches (None: no table engine configured).

    A review replays and ranks every decision of up to 64 hands (about half a second of CPU),
    so at most ``max_reviews`` anonymous ones run at once, ``max_reviews_per_peer`` from one
    client address, and ``max_service_reviews`` of calls carrying a token (the web gateway's:
    a pool of their own, which no anonymous crowd takes); more are RESOURCE_EXHAUSTED before
    any work, and Suggest keeps the other threads."""

    def __init__(
        self,
        table: TableFeed | None = None,
        *,
        max_reviews: int = MAX_REVIEWS,
        max_reviews_per_peer: int = MAX_REVIEWS_PER_PEER,
        max_service_reviews: int = MAX_SERVICE_REVIEWS,
    ) -> None:
        self.table = table
        self.reviews = CallQuota("Review", max_reviews, max_reviews_per_peer)
        self.service_reviews = CallQuota(
            "Review (services)", max_service_reviews, max_service_reviews
        )

    def ListPolicies(
        self, request: bot_pb2.ListPoliciesRequest, context: Any
    ) -> bot_pb2.ListPoliciesResponse:
        return bot_pb2.ListPoliciesResponse(
            policies=[
                bot_pb2.PolicyInfo(
                    name=info.name,
                    description=info.description,
                    levels=[bot_pb2.PolicyLevel(level=lv, description=d) for lv, d in info.levels],
                    default_level=info.default_level,
                )
                for info in catalogue()
            ]
        )

    def Suggest(self, request: bot_pb2.SuggestRequest, context: Any) -> bot_pb2.SuggestResponse:
        if not request.HasField("observation"):
            raise InvalidArgument("observation is required")
        obs = convert.observation_from_proto(request.observation)
        advice = suggest(obs, request.policy, request.level, request.seed)
        return bot_pb2.SuggestResponse(
            policy=advice.policy,
            level=advice.level,
            suggestions=[option_to_proto(i + 1, o) for i, o in enumerate(advice.options)],
        )

    def Review(self, request: bot_pb2.ReviewRequest, context: Any) -> bot_pb2.ReviewResponse:
        if not 0 <= request.max_differences <= MAX_DIFFERENCES:
            raise InvalidArgument(f"max_differences must be 0-{MAX_DIFFERENCES}")
        if request.seat not in (0, 1, 2, 3):
            raise InvalidArgument(f"seat must be 0-3, got {request.seat}")
        quota = self.service_reviews if has_token(context) else self.reviews
        with quota.slot(peer_host(context.peer())):
            return self._review(request)

    def _review(self, request: bot_pb2.ReviewRequest) -> bot_pb2.ReviewResponse:
        source = request.WhichOneof("source")
        if source == "log_json":
            logs = parse_log(request.log_json)
        elif source == "match_id":
            if self.table is None:
                raise Unavailable(
                    "this bot service has no table engine (HEBEI_BOTSERVICE_TABLE_ADDRESS): "
                    "give the log instead"
                )
            logs = self.table.finished_match(request.match_id).hand_logs()
        else:
            raise InvalidArgument("give log_json or match_id")
        review = review_hands(logs, request.seat, request.level)
        return review_to_proto(review, request.max_differences)
