"""Settlements as the table engine makes them (rules engine + hebei.common.convert) are booked
as they are, and the ledger's points match the match's own scores."""

from __future__ import annotations

from collections import Counter

from hebei.common.convert import settlement_to_proto
from hebei.rules.match import Match, MatchLength
from hebei.rules.simulate import PLAYER_KINDS
from tests.integration.ledger.conftest import LedgerServer, post_engine_settlement


def test_self_play_settlements_are_booked(ledger_server: LedgerServer):
    stub = ledger_server.stub()
    expected: Counter[str] = Counter()
    posted = 0
    for match_no in range(3):
        players = [f"bot{(match_no + seat) % 6}" for seat in range(4)]
        match = Match(1000 + match_no, MatchLength(hands=8))
        bots = [PLAYER_KINDS["random"](match_no * 4 + seat) for seat in range(4)]
        while not match.finished:
            hand = match.next_hand()
            dealer, hand_no = match.dealer, match.hand_no + 1
            while not hand.ended:
                for seat in hand.to_act():
                    hand.apply(seat, bots[seat].choose(hand, seat, hand.legal_actions(seat)))
            settlement = settlement_to_proto(
                hand.result.settlement,
                match_id=f"self-play-{match_no}",
                hand_no=hand_no,
                dealer=dealer,
                player_ids=players,
                table_id="t1",
                tournament_id="self-play",
                round_no=1,
            )
            response = post_engine_settlement(stub, settlement)
            assert not response.duplicate
            posted += 1
            for seat, delta in enumerate(hand.result.settlement.total):
                expected[players[seat]] += delta
            match.finish_hand()
    standings = ledger_server.ledger.standings("self-play")
    assert {s.player_id: s.points for s in standings} == {p: expected[p] for p in expected}
    assert sum(s.hands_played for s in standings) == 4 * posted
    assert ledger_server.ledger.audit().ok
