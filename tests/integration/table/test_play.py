"""Four scripted clients play whole matches over gRPC; the result is the rules' replay. Also
with a claim window's floor: every discard is then followed by nothing for that long."""

from __future__ import annotations

import itertools

import pytest

from hebei.rules.replay import replay_match
from hebei.v1 import table_pb2
from hebei.v1 import types_pb2 as pb
from tests.integration.table.conftest import (
    OPERATOR,
    ledger_audit,
    ledger_entries,
    new_match_request,
    play_clients,
)
from tests.integration.table.helpers import rules_events, stored_events, wait_for


@pytest.mark.parametrize("claim_window", [0.0, 0.02], ids=["no-floor", "floor-20ms"])
def test_four_clients_play_a_whole_match(engine, ledger, matchmaking, claim_window) -> None:
    request = new_match_request(hands=3, seed=11)
    request.time_control.claim_window.FromMilliseconds(round(claim_window * 1000))
    opened = engine.stub.OpenMatch(request, metadata=OPERATOR)
    assert opened.match.status == pb.MATCH_STATUS_WAITING
    assert opened.match.seed == 0
    assert opened.match.time_control.claim_window.ToMilliseconds() == claim_window * 1000
    clients = play_clients(engine.channel, request.match_id, seed=1)
    for client in clients:
        client.join(60)
        assert client.error is None, client.error
        assert not client.rejections  # a well-behaved client is never refused
    info = engine.stub.GetMatch(table_pb2.GetMatchRequest(match_id=request.match_id)).match
    assert info.status == pb.MATCH_STATUS_FINISHED
    assert info.hands_played == 3 and info.seed == 11

    # The stored log replays through the rules to the same scores.
    events = stored_events(engine.engine.store, request.match_id)
    replayed = replay_match(rules_events(events))
    assert replayed.finished and replayed.hand_no == 3
    assert list(info.seats[s].score for s in range(4)) == replayed.scores
    last = clients[0].observations[-1]
    assert last.match_finished and last.phase == pb.PHASE_MATCH_END
    assert [v.score for v in last.seats] == replayed.scores
    assert sum(replayed.scores) == 0

    # Every hand was booked once with the ledger, the result reported to matchmaking.
    assert wait_for(lambda: len(ledger_entries(ledger, request.match_id)) == 3)
    booked = {e.idempotency_key: e for e in ledger_entries(ledger, request.match_id)}
    assert sorted(booked) == [f"{request.match_id}:{n}" for n in (1, 2, 3)]
    for n, hand_log in enumerate(replayed.hand_logs, start=1):
        entry = booked[f"{request.match_id}:{n}"]
        assert [r.total_delta for r in entry.settlement.results] == (
            hand_log[-1]["settlement"]["total"]
        )
        assert sum(p.amount for p in entry.postings) == 0
    assert ledger_audit(ledger).ok
    assert wait_for(lambda: request.match_id in matchmaking.servicer.results)
    result = matchmaking.servicer.results[request.match_id]
    assert result.status == pb.MATCH_STATUS_FINISHED
    assert [s.score for s in result.seats] == replayed.scores
    # Nothing was auto-played: the clients answered every decision in time.
    assert not any(e.get("auto") for e in events)
    if claim_window:  # after each discard, the next rules event came the floor later
        rows = [r for r in engine.engine.store.load_match(request.match_id).events]
        rules = [r for r in rows if r.event["type"] in {e["type"] for e in rules_events(events)}]
        gaps = [
            after.time - row.time
            for row, after in itertools.pairwise(rules)
            if row.event["type"] in ("discard", "added_kong")
        ]
        assert len(gaps) > 100 and min(gaps) >= claim_window - 0.002
