"""Classic settlements (RULES.md §9) as the table engine makes them are booked as they are:
points paid double by or to the dealer, false-win penalties, all zero-sum, and the ledger's
points match the matches' own scores. A settlement whose figures do not add up within the
message is refused (whether the engine scored its fans right is tested where it scores them,
tests/unit/contracts/test_settlement_payments.py)."""

from __future__ import annotations

import random
from collections import Counter

import grpc
import pytest

from hebei.common.auth import bearer_metadata
from hebei.common.convert import settlement_to_proto
from hebei.rules.actions import WIN
from hebei.rules.match import Match, MatchLength
from hebei.rules.profile import CLASSIC
from hebei.v1 import ledger_pb2, types_pb2
from tests.integration.ledger.conftest import SERVICE_TOKEN, LedgerServer, post_engine_settlement
from tests.unit.table.greedy import greedy_choice

TOURNAMENT = "classic-play"


def play_and_post(stub, match_no: int, players: list[str], outcomes: Counter) -> list[int]:
    """Play a classic match with greedy seats, seat 1 a person who now and then declares a
    win it does not have; post each hand's settlement; return the match's scores."""
    rng = random.Random(match_no)
    match = Match(4000 + match_no, MatchLength(hands=8), CLASSIC)
    while not match.finished:
        hand = match.next_hand()
        dealer, hand_no = match.dealer, match.hand_no + 1
        while not hand.ended:
            seat = hand.to_act()[0]
            if seat == 1 and hand.accepts_false_win(seat) and rng.random() < 0.03:
                hand.apply(seat, WIN)
                continue
            options = hand.legal_actions(seat)
            melds = len(hand.melds[seat])
            hand.apply(seat, greedy_choice(options, hand.hands[seat], melds, rng))
        settlement = settlement_to_proto(
            hand.result.settlement,
            match_id=f"classic-{match_no}",
            hand_no=hand_no,
            dealer=dealer,
            player_ids=players,
            table_id="t1",
            tournament_id=TOURNAMENT,
            round_no=1,
            rule_profile="classic",
        )
        outcomes[types_pb2.HandOutcome.Name(settlement.outcome)] += 1
        response = post_engine_settlement(stub, settlement)
        assert not response.duplicate
        match.finish_hand()
    return match.scores


def test_classic_self_play_settlements_are_booked(ledger_server: LedgerServer):
    stub = ledger_server.stub()
    expected: Counter[str] = Counter()
    outcomes: Counter[str] = Counter()
    for match_no in range(4):
        players = [f"p{(match_no + seat) % 6}" for seat in range(4)]
        for seat, score in enumerate(play_and_post(stub, match_no, players, outcomes)):
            expected[players[seat]] += score
    assert outcomes["HAND_OUTCOME_WIN"] >= 5 and outcomes["HAND_OUTCOME_FALSE_WIN"] >= 1
    standings = ledger_server.ledger.standings(TOURNAMENT)
    assert {s.player_id: s.points for s in standings} == dict(expected)
    assert sum(s.points for s in standings) == 0
    assert ledger_server.ledger.audit().ok
    # The classic figures are kept as sent.
    entries = ledger_server.ledger.history(tournament_id=TOURNAMENT, page_size=500).entries
    booked = [e.settlement for e in entries]
    assert any(s["outcome"] == "HAND_OUTCOME_FALSE_WIN" and s["false_wins"] for s in booked)
    wins = [w for s in booked for w in s["wins"]]
    assert wins and all(w["points"] > 0 and not w.get("bonus") for w in wins)
    assert all(s["rule_profile"] == "classic" for s in booked)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda s: setattr(s.wins[0].payments[0], "amount", 10**6), "not to the win's deltas"),
        (lambda s: setattr(s.wins[0].payments[0], "payee", 4), "payee: unknown seat 4"),
        (lambda s: s.wins[0].deltas.__setitem__(0, s.wins[0].deltas[0] + 1), "unbalanced"),
    ],
)
def test_a_classic_win_whose_figures_disagree_is_refused(
    ledger_server: LedgerServer, change, message
):
    stub = ledger_server.stub()
    match = Match(7, MatchLength(hands=1), CLASSIC)
    hand = match.next_hand()
    rng = random.Random(3)
    while True:  # replay seeds until a hand is won
        while not hand.ended:
            seat = hand.to_act()[0]
            options = hand.legal_actions(seat)
            hand.apply(seat, greedy_choice(options, hand.hands[seat], 0, rng))
        if hand.result.settlement.wins:
            break
        match = Match(match.seed + 1, MatchLength(hands=1), CLASSIC)
        hand = match.next_hand()
    settlement = settlement_to_proto(
        hand.result.settlement,
        match_id="bad-1",
        hand_no=1,
        dealer=match.dealer,
        player_ids=["a", "b", "c", "d"],
        table_id="t1",
        rule_profile="classic",
    )
    change(settlement)
    with pytest.raises(grpc.RpcError) as caught:
        stub.PostSettlement(
            ledger_pb2.PostSettlementRequest(settlement=settlement),
            metadata=bearer_metadata(SERVICE_TOKEN),
        )
    assert caught.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert message in caught.value.details()
    assert ledger_server.ledger.history(match_id="bad-1").entries == ()
