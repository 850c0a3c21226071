"""What a table books as its match goes, for the other services: each hand's settlement (for
the ledger) and the match's result (for matchmaking), as outbox rows written with the events
that made them (:meth:`hebei.table.eventlog.EventLog.book`), so neither is lost nor sent twice.

Built from the match's spec and the rules' hand alone: the same live and when a settlement is
rebuilt from the log (:mod:`hebei.table.recovery`).
"""

from __future__ import annotations

from collections.abc import Sequence

from hebei.common import convert
from hebei.rules.hand import HandState
from hebei.table.spec import STATUSES, MatchSpec
from hebei.table.store import OutboxRow
from hebei.v1 import ledger_pb2, matchmaking_pb2
from hebei.v1 import types_pb2 as pb


def settlement_of(spec: MatchSpec, hand: HandState, ended_at: float) -> pb.Settlement:
    """The settlement of ``hand`` (ended), each winner's hand revealed."""
    revealed = {}
    for win in hand.result.settlement.wins:
        counts = list(hand.hands[win.winner])
        if counts[win.win_tile] and win.discarder is None:
            counts[win.win_tile] -= 1
        concealed = [k for k, c in enumerate(counts) for _ in range(c)]
        revealed[win.winner] = (concealed, tuple(hand.melds[win.winner]))
    return convert.settlement_to_proto(
        hand.result.settlement,
        match_id=spec.match_id,
        hand_no=hand.hand_no + 1,
        dealer=hand.dealer,
        player_ids=[s.player_id for s in spec.seats],
        table_id=spec.table_id,
        tournament_id=spec.tournament_id,
        round_no=spec.round_no,
        rule_profile=spec.profile,
        ended_at=ended_at,
        revealed=revealed,
    )


def settlement_row(settlement: pb.Settlement) -> OutboxRow:
    """The outbox row that posts ``settlement`` to the ledger."""
    return OutboxRow(
        "settlement",
        settlement.idempotency_key,
        ledger_pb2.PostSettlementRequest(settlement=settlement).SerializeToString(),
    )


def result_row(
    spec: MatchSpec,
    status: str,
    hands_played: int,
    scores: Sequence[int],
    reason: str,
    ended_at: float,
) -> OutboxRow:
    """The outbox row that reports the ended match's result to matchmaking."""
    result = matchmaking_pb2.ReportMatchResultRequest(
        match_id=spec.match_id,
        table_id=spec.table_id,
        tournament_id=spec.tournament_id,
        round_no=spec.round_no,
        status=STATUSES[status],
        hands_played=hands_played,
        seats=[
            matchmaking_pb2.MatchSeatResult(seat=s.seat, player_id=s.player_id, score=scores[i])
            for i, s in enumerate(spec.seats)
        ],
        reason=reason,
        ended_at=convert.timestamp_from_seconds(ended_at),
    )
    return OutboxRow("match_result", spec.match_id, result.SerializeToString())
