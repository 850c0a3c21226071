"""Hidden means hidden: the last rounds of a tournament that hides them show no score on any
read an anonymous caller or a player can reach — matchmaking's standings, tournament and change
feed, the table engine's ListTables, GetMatch and Spectate, the ledger's standings and
entries — until the organiser reveals them; the operator's token sees everything all along."""

from __future__ import annotations

import grpc
import pytest
from starlette.testclient import TestClient

from hebei.v1 import ledger_pb2, ledger_pb2_grpc, table_pb2, table_pb2_grpc
from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import types_pb2 as pb
from hebei.web.app import create_app
from hebei.web.config import WebConfig
from tests.integration.matchmaking.conftest import EVENT, Stack


def _anonymous_table(stack: Stack):
    return table_pb2_grpc.TableServiceStub(stack._channel(stack.table_address, None))


def _anonymous_ledger(stack: Stack):
    return ledger_pb2_grpc.LedgerServiceStub(stack._channel(stack.ledger_address, None))


def _points(rows) -> list[tuple[str, int]]:
    return sorted((s.player_id, s.points) for s in rows)


def _listed(stub, tid: str, **filters) -> list[table_pb2.MatchInfo]:
    request = table_pb2.ListTablesRequest(tournament_id=tid, page_size=500, **filters)
    return list(stub.ListTables(request).matches)


def test_the_last_round_stays_hidden_on_every_public_read_until_revealed(stack, start_worker):
    start_worker(sessions=8)
    stack.start_matchmaking()
    tournament = stack.create(rounds=2, hands=2, hide_last_rounds=1)
    tid = tournament.tournament_id
    stack.register_bots(tid, 4, "efficiency")
    stack.mm().StartTournament(mm.StartTournamentRequest(tournament_id=tid))
    finished = stack.wait_finished(tid)
    assert finished.status == mm.TOURNAMENT_STATUS_FINISHED

    operator_engine = stack.table()
    every = {m.match_id: m for m in _listed(operator_engine, tid)}
    hidden_ids = {m for m, info in every.items() if info.round_no == 2}
    assert len(hidden_ids) == 1 and len(every) == 2
    secret = every[next(iter(hidden_ids))]
    assert secret.results_hidden and secret.seed  # the operator sees the seed (and scores)
    operator_standings = stack.mm().GetStandings(mm.GetStandingsRequest(tournament_id=tid))
    assert operator_standings.round_no == 2

    # Matchmaking: standings, the tournament, the change feed (a player's view).
    anonymous = stack.mm(token=None)
    public = anonymous.GetStandings(mm.GetStandingsRequest(tournament_id=tid))
    assert public.round_no == 1
    feed = list(
        anonymous.WatchTournament(
            mm.WatchTournamentRequest(tournament_id=tid, from_seq=1), timeout=60
        )
    )
    round1 = next(
        e for e in feed if e.type == EVENT.TOURNAMENT_EVENT_TYPE_ROUND_FINISHED and e.round_no == 1
    )
    assert _points(public.standings) == _points(round1.standings)
    for event in feed:
        if event.standings:
            assert _points(event.standings) == _points(round1.standings), event.type
    shown = anonymous.GetTournament(mm.GetTournamentRequest(tournament_id=tid)).tournament
    assert list(shown.hidden_rounds) == [2]

    # The table engine: ListTables (all, ended), GetMatch, Spectate.
    engine = _anonymous_table(stack)
    for listed in (_listed(engine, tid), _listed(engine, tid, status=pb.MATCH_STATUS_FINISHED)):
        for info in listed:
            if info.match_id in hidden_ids:
                assert info.results_hidden and not info.seed
                assert [s.score for s in info.seats] == [0, 0, 0, 0]
            else:
                assert info.seed and not info.results_hidden
    unfiltered = [m for m in _listed(engine, "") if m.match_id in hidden_ids]
    assert unfiltered and all(not any(s.score for s in m.seats) for m in unfiltered)
    one = engine.GetMatch(table_pb2.GetMatchRequest(match_id=secret.match_id)).match
    assert not one.seed and not any(s.score for s in one.seats)
    with pytest.raises(grpc.RpcError) as refused:
        list(engine.Spectate(table_pb2.SpectateRequest(match_id=secret.match_id, from_seq=1)))
    assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED

    # The ledger: standings refused, no entry of the tournament in any history.
    ledger = _anonymous_ledger(stack)
    with pytest.raises(grpc.RpcError) as refused:
        ledger.GetStandings(ledger_pb2.LedgerServiceGetStandingsRequest(tournament_id=tid))
    assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
    player = secret.seats[0].player_id
    for request in (
        ledger_pb2.GetHistoryRequest(tournament_id=tid),
        ledger_pb2.GetHistoryRequest(player_id=player),
        ledger_pb2.GetHistoryRequest(match_id=secret.match_id),
        ledger_pb2.GetHistoryRequest(page_size=500),
    ):
        entries = ledger.GetHistory(request).entries
        assert not [e for e in entries if e.settlement.tournament_id == tid], request
        assert not [e for e in entries if e.adjustment.tournament_id == tid], request
    assert stack.ledger().GetHistory(ledger_pb2.GetHistoryRequest(tournament_id=tid)).entries

    # The web gateway's public reads (it calls the services without a token).
    config = WebConfig(
        table_address=stack.table_address, matchmaking_address=stack.matchmaking_address,
        ledger_address=stack.ledger_address, port=0,
    )  # fmt: skip
    with TestClient(create_app(config)) as web:
        for query in (f"status=ended&tournament_id={tid}", "status=all", "status=ended"):
            listed = web.get(f"/api/tables?{query}").json()["tables"]
            hidden_rows = [t for t in listed if t["match_id"] in hidden_ids]
            assert hidden_rows or "tournament_id" not in query, query
            for row in hidden_rows:
                assert row["seed"] is None and not any(s["score"] for s in row["seats"])
        page = web.get(f"/api/tables/{secret.match_id}").json()
        assert page["seed"] is None and not any(s["score"] for s in page["seats"])
        standings = web.get(f"/api/tournaments/{tid}/standings").json()
        assert standings["round_no"] == 1
        exported = web.get(f"/api/tournaments/{tid}/export/results.json").json()
        assert exported["round_no"] == 1
        assert sorted((r["player_id"], r["points"]) for r in exported["rows"]) == _points(
            round1.standings
        )

    # The organiser reveals them: every read shows them, the action is recorded.
    revealed = (
        stack.mm()
        .RevealResults(mm.RevealResultsRequest(tournament_id=tid, reason="prize giving"))
        .tournament
    )
    assert not revealed.hidden_rounds
    public = anonymous.GetStandings(mm.GetStandingsRequest(tournament_id=tid))
    assert public.round_no == 2
    assert _points(public.standings) == _points(operator_standings.standings)
    one = engine.GetMatch(table_pb2.GetMatchRequest(match_id=secret.match_id)).match
    assert one.seed == secret.seed and [s.score for s in one.seats] == [
        s.score for s in secret.seats
    ]
    assert list(engine.Spectate(table_pb2.SpectateRequest(match_id=secret.match_id, from_seq=1)))
    booked = ledger.GetStandings(ledger_pb2.LedgerServiceGetStandingsRequest(tournament_id=tid))
    assert _points(booked.standings) == _points(operator_standings.standings)
    actions = stack.mm().ListOperatorActions(mm.ListOperatorActionsRequest(tournament_id=tid))
    assert [a.detail for a in actions.actions if a.action == "reveal"] == [
        "results of rounds 1, 2 revealed: prize giving"
    ]
    # Idempotent: a second reveal records nothing new.
    stack.mm().RevealResults(mm.RevealResultsRequest(tournament_id=tid))
    again = stack.mm().ListOperatorActions(mm.ListOperatorActionsRequest(tournament_id=tid))
    assert len(again.actions) == len(actions.actions)


def test_hide_last_rounds_is_bounded_by_the_rounds(stack):
    stack.start_matchmaking()
    with pytest.raises(grpc.RpcError) as refused:
        stack.create(rounds=2, hide_last_rounds=3)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    plain = stack.create(rounds=1)
    with pytest.raises(grpc.RpcError) as refused:
        stack.mm().RevealResults(mm.RevealResultsRequest(tournament_id=plain.tournament_id))
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    with pytest.raises(grpc.RpcError) as refused:
        stack.mm(token=None).RevealResults(
            mm.RevealResultsRequest(tournament_id=plain.tournament_id)
        )
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
