"""The referee's corrections through the ledger: a match's result corrected (points moved among
its seats), points awarded as well as taken, the last correction undone — each a new ledger
entry and an operator action with who and why; the standings follow, and the round's
cross-check of the ledger against matchmaking's own arithmetic still agrees."""

from __future__ import annotations

import grpc
import pytest
from google.protobuf.duration_pb2 import Duration

from hebei.common.auth import actor_metadata
from hebei.v1 import ledger_pb2, table_pb2
from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import types_pb2 as pb


def _points(stack, tid: str) -> dict[str, mm.TournamentStanding]:
    response = stack.mm().GetStandings(mm.GetStandingsRequest(tournament_id=tid))
    return {r.standing.player_id: r for r in response.ranking}


def test_corrections_awards_and_undo_between_rounds(stack, start_worker):
    start_worker(sessions=8)
    stack.start_matchmaking()
    tournament = stack.create(rounds=2, hands=1, round_break=Duration(seconds=8))
    tid = tournament.tournament_id
    stack.register_bots(tid, 4, "efficiency")
    stub = stack.mm()
    stub.StartTournament(mm.StartTournamentRequest(tournament_id=tid))
    stack.wait_status(tid, lambda t: t.rounds and t.rounds[0].finished)
    seating = stub.GetSeating(mm.GetSeatingRequest(tournament_id=tid, round_no=1)).rounds[0]
    match = seating.tables[0]
    seats = [s.player_id for s in match.seats]
    before = _points(stack, tid)

    referee = actor_metadata("Referee Wu")
    request = mm.CorrectMatchResultRequest(
        tournament_id=tid, match_id=match.match_id, seat_deltas=[5, -5, 0, 0],
        reason="wrong fan count in hand 1", ruled_by="Wu", request_id="ruling-1",
    )  # fmt: skip
    correction = stub.CorrectMatchResult(request, metadata=referee).correction
    again = stub.CorrectMatchResult(request, metadata=referee).correction  # idempotent
    assert again.correction_id == correction.correction_id and correction.entry_id
    award = stub.AssignPenalty(
        mm.AssignPenaltyRequest(
            tournament_id=tid, player_id=seats[2], points=-7, reason="fair play",
            assigned_by="Wu",
        ),
        metadata=referee,
    ).penalty  # fmt: skip
    after = _points(stack, tid)
    assert after[seats[0]].standing.points == before[seats[0]].standing.points + 5
    assert after[seats[0]].standing.correction_points == 5
    assert after[seats[1]].standing.points == before[seats[1]].standing.points - 5
    assert after[seats[2]].standing.award_points == 7 and award.points == -7
    assert after[seats[2]].standing.points == before[seats[2]].standing.points + 7

    record = stub.ListOperatorActions(mm.ListOperatorActionsRequest(tournament_id=tid))
    by_action = {a.action: a for a in record.actions}
    assert by_action["correct_result"].actor == "Referee Wu"
    assert "wrong fan count" in by_action["correct_result"].detail
    assert by_action["award"].actor == "Referee Wu"
    assert [c.correction_id for c in record.corrections] == [correction.correction_id]

    # Undo: the award first (the last), then the correction; then nothing is left.
    undone = stub.UndoCorrection(mm.UndoCorrectionRequest(tournament_id=tid, reason="mistake"))
    assert undone.penalty.penalty_id == award.penalty_id and undone.penalty.cancelled
    undone = stub.UndoCorrection(mm.UndoCorrectionRequest(tournament_id=tid, reason="appeal"))
    assert undone.correction.correction_id == correction.correction_id
    assert undone.correction.undone
    with pytest.raises(grpc.RpcError) as refused:
        stub.UndoCorrection(mm.UndoCorrectionRequest(tournament_id=tid, reason="again"))
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    restored = _points(stack, tid)
    assert {p: r.standing.points for p, r in restored.items()} == {
        p: r.standing.points for p, r in before.items()
    }
    entries = stack.ledger_entries(tid)
    kinds = [e.adjustment.kind for e in entries if e.kind == ledger_pb2.ENTRY_KIND_ADJUSTMENT]
    assert ledger_pb2.ADJUSTMENT_KIND_CORRECTION in kinds
    assert ledger_pb2.ADJUSTMENT_KIND_AWARD in kinds
    assert len([e for e in entries if e.kind == ledger_pb2.ENTRY_KIND_REVERSAL]) == 2

    # A correction still in force when round 2 closes: the cross-check agrees.
    stub.CorrectMatchResult(
        mm.CorrectMatchResultRequest(
            tournament_id=tid, match_id=match.match_id, seat_deltas=[0, 0, 3, -3],
            reason="chombo", ruled_by="Wu",
        )
    )  # fmt: skip
    stack.wait_finished(tid)
    final = stub.GetStandings(mm.GetStandingsRequest(tournament_id=tid))
    assert not final.mismatch, final.problems


@pytest.mark.parametrize(
    ("deltas", "code"),
    [
        ([5, -4, 0, 0], grpc.StatusCode.INVALID_ARGUMENT),
        ([0, 0, 0, 0], grpc.StatusCode.INVALID_ARGUMENT),
        ([5, -5, 0], grpc.StatusCode.INVALID_ARGUMENT),
        ([2_000_000, -2_000_000, 0, 0], grpc.StatusCode.INVALID_ARGUMENT),
    ],
)
def test_a_correction_is_refused_unless_zero_sum_per_seat(stack, deltas, code):
    stack.start_matchmaking()
    tid = stack.create(rounds=1).tournament_id
    with pytest.raises(grpc.RpcError) as refused:
        stack.mm().CorrectMatchResult(
            mm.CorrectMatchResultRequest(
                tournament_id=tid, match_id=f"{tid}-r1-t1", seat_deltas=deltas, reason="x",
                ruled_by="Wu",
            )
        )  # fmt: skip
    assert refused.value.code() == code
    with pytest.raises(grpc.RpcError) as refused:  # not started: no such match
        stack.mm().CorrectMatchResult(
            mm.CorrectMatchResultRequest(
                tournament_id=tid, match_id=f"{tid}-r1-t1", seat_deltas=[1, -1, 0, 0],
                reason="x", ruled_by="Wu",
            )
        )  # fmt: skip
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    with pytest.raises(grpc.RpcError) as refused:
        stack.mm(token=None).UndoCorrection(mm.UndoCorrectionRequest(tournament_id=tid, reason="x"))
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED


@pytest.mark.parametrize("stack", [{"ready_seconds": 120.0}], indirect=True)
def test_a_seated_round_is_re_paired_before_its_first_hand(stack):
    """Four people who have not joined: the engine waits for them (120 s), no hand is dealt;
    the round goes back to its plan, the tournament pauses, a swap changes it and resuming
    seats it anew with new match ids."""
    stack.start_matchmaking()
    stub = stack.mm()
    tid = stack.create(rounds=2, hands=1).tournament_id
    people = [
        stub.Register(
            mm.RegisterRequest(tournament_id=tid, person=mm.PersonEntrant(name=name))
        ).player.player_id
        for name in ("Mei", "Lin", "Wu", "Zhao")
    ]
    started = stub.StartTournament(mm.StartTournamentRequest(tournament_id=tid)).tournament
    first = started.tables[0]
    stack.wait_status(tid, lambda t: t.tables and t.tables[0].status == pb.MATCH_STATUS_PLAYING)
    # ... PLAYING in matchmaking's words means opened on the engine, which still waits.
    stack.table().GetMatch(table_pb2.GetMatchRequest(match_id=first.match_id))

    paused = stub.RepairRound(
        mm.RepairRoundRequest(tournament_id=tid, reason="Mei sat at the wrong table"),
        metadata=actor_metadata("Referee Wu"),
    ).tournament
    assert paused.status == mm.TOURNAMENT_STATUS_PAUSED and paused.current_round == 0
    old = stack.table().GetMatch(table_pb2.GetMatchRequest(match_id=first.match_id)).match
    assert old.status == pb.MATCH_STATUS_DISSOLVED and old.hands_played == 0
    seats = [s.player_id for s in first.seats]
    stub.SwapSeats(
        mm.SwapSeatsRequest(tournament_id=tid, player_a=seats[0], player_b=seats[1], reason="x")
    )
    stub.Resume(mm.ResumeRequest(tournament_id=tid))
    again = stack.wait_status(tid, lambda t: t.current_round == 1 and t.tables)
    table = again.tables[0]
    assert table.match_id != first.match_id and table.match_id.endswith("-r1p1-t1")
    assert [s.player_id for s in table.seats][:2] == [seats[1], seats[0]]
    assert sorted(s.player_id for s in table.seats) == sorted(people)
    record = stub.ListOperatorActions(mm.ListOperatorActionsRequest(tournament_id=tid))
    repair = next(a for a in record.actions if a.action == "repair")
    assert repair.actor == "Referee Wu" and "wrong table" in repair.detail
    assert not stack.ledger_entries(tid)  # nothing was booked
    not_started = stack.create(rounds=1).tournament_id
    with pytest.raises(grpc.RpcError) as refused:
        stub.RepairRound(mm.RepairRoundRequest(tournament_id=not_started, reason="x"))
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    stub.CancelTournament(mm.CancelTournamentRequest(tournament_id=tid, reason="done"))
