"""A classic tournament (RULES.md §9) through the matchmaking service: the config's rule
profile opens every table in the classic rules, the bot seats play them to the end, and the
ledger books classic settlements that add up."""

from __future__ import annotations

import threading

import grpc
import pytest

from hebei.v1 import ledger_pb2, table_pb2
from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import types_pb2 as pb
from tests.integration.matchmaking.test_tournament import _check_books


def test_a_classic_tournament_round_is_played_and_booked_in_the_classic_rules(stack, start_worker):
    start_worker(sessions=16)
    stack.start_matchmaking()
    tournament = stack.create(
        rounds=1,
        hands=3,
        seating=mm.SEATING_MODE_RANDOM,
        rule_profile=pb.RuleProfile(name="classic"),
    )
    assert tournament.config.rule_profile.name == "classic"
    tid = tournament.tournament_id
    for policy in ("random", "efficiency"):
        stack.register_bots(tid, 4, policy)
    stack.mm().StartTournament(mm.StartTournamentRequest(tournament_id=tid))
    finished = stack.wait_finished(tid)
    assert finished.status == mm.TOURNAMENT_STATUS_FINISHED

    seating = stack.mm().GetSeating(mm.GetSeatingRequest(tournament_id=tid)).rounds
    tables = [t for r in seating for t in r.tables]
    assert len(tables) == 2 and all(t.status == pb.MATCH_STATUS_FINISHED for t in tables)
    for table in tables:  # each table was opened in the classic rules
        info = stack.table().GetMatch(table_pb2.GetMatchRequest(match_id=table.match_id)).match
        assert info.rule_profile.name == "classic"
        assert info.hands_played == 3
    _check_books(stack, finished)
    settlements = [
        e.settlement
        for e in stack.ledger_entries(tid)
        if e.kind == ledger_pb2.ENTRY_KIND_SETTLEMENT
    ]
    assert len(settlements) == 6
    assert all(s.rule_profile == "classic" for s in settlements)
    for settlement in settlements:
        assert sum(r.total_delta for r in settlement.results) == 0
        assert not settlement.false_wins  # bots never declare a false win
        for win in settlement.wins:  # classic wins: points, no additive bonus
            assert win.points > 0 and win.bonus == 0


def test_an_unknown_rule_profile_is_refused_at_creation(stack):
    stack.start_matchmaking()
    with pytest.raises(grpc.RpcError) as caught:
        stack.create(rule_profile=pb.RuleProfile(name="riichi"))
    assert caught.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert "unknown rule profile 'riichi'" in caught.value.details()


def test_quick_play_seats_people_asking_for_classic_at_a_classic_table(stack) -> None:
    stack.start_matchmaking()
    results: dict[str, mm.QuickPlayResponse] = {}

    def ask(name: str, profile: str) -> None:
        request = mm.QuickPlayRequest(name=name, rule_profile=pb.RuleProfile(name=profile))
        request.length.hands = 1
        try:
            for response in stack.mm(token=None).QuickPlay(request, timeout=20):
                if response.status == mm.QUICK_PLAY_STATUS_SEATED:
                    results[name] = response
                    break
        except grpc.RpcError:
            pass  # still queued when the call times out

    asks = [(n, "classic") for n in "ABCD"] + [("M", "main")]
    threads = [threading.Thread(target=ask, args=a, daemon=True) for a in asks]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert set("ABCD") <= set(results)
    (match_id,) = {results[n].seating.match_id for n in "ABCD"}
    info = stack.table().GetMatch(table_pb2.GetMatchRequest(match_id=match_id)).match
    assert info.rule_profile.name == "classic"
    assert all(s.kind == pb.SEAT_KIND_PERSON for s in info.seats)
    if "M" in results:  # the main player is never seated at the classic table (bots fill its)
        other = results["M"].seating.match_id
        assert other != match_id
        info = stack.table().GetMatch(table_pb2.GetMatchRequest(match_id=other)).match
        assert info.rule_profile.name == "main"
