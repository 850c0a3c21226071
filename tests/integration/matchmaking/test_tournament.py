"""Whole tournaments through the matchmaking service, on the real table engine, ledger,
PostgreSQL and a Celery bot worker: seating, booking, standings, fillers, penalties,
removals."""

from __future__ import annotations

from collections import Counter

import grpc
import pytest

from hebei.common.auth import actor_metadata
from hebei.common.seating import every_round
from hebei.matchmaking import tournaments
from hebei.table.eventlog import TABLE_EVENTS
from hebei.v1 import ledger_pb2, table_pb2
from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import types_pb2 as pb
from tests.integration.matchmaking.conftest import EVENT, Stack

LINE_UP = ("random", "efficiency", "expert")


def _events(stack: Stack, tournament_id: str) -> list[mm.WatchTournamentResponse]:
    stream = stack.mm().WatchTournament(
        mm.WatchTournamentRequest(tournament_id=tournament_id, from_seq=1), timeout=60
    )
    return list(stream)


def _check_books(stack: Stack, tournament: mm.Tournament) -> None:
    """Every hand of every match booked exactly once; standings equal the ledger's; audit ok."""
    tid = tournament.tournament_id
    seating = stack.mm().GetSeating(mm.GetSeatingRequest(tournament_id=tid)).rounds
    hands = sum(t.hands_played for r in seating for t in r.tables)
    entries = stack.ledger_entries(tid)
    settlements = [e for e in entries if e.kind == ledger_pb2.ENTRY_KIND_SETTLEMENT]
    keys = [e.idempotency_key for e in settlements]
    assert len(keys) == len(set(keys)) == hands > 0
    expected_keys = {
        f"{t.match_id}:{n}" for r in seating for t in r.tables for n in range(1, t.hands_played + 1)
    }
    assert set(keys) == expected_keys
    ledger = {
        s.player_id: s
        for s in stack.ledger()
        .GetStandings(ledger_pb2.LedgerServiceGetStandingsRequest(tournament_id=tid))
        .standings
    }
    response = stack.mm().GetStandings(mm.GetStandingsRequest(tournament_id=tid))
    assert not response.mismatch, response.problems
    for row in response.ranking:
        assert row.standing.points == ledger.get(row.standing.player_id, pb.Standing()).points
    audit = stack.ledger().Audit(ledger_pb2.AuditRequest(tournament_id=tid))
    assert audit.ok, audit.problems


def test_a_16_player_swiss_tournament_plays_three_rounds_end_to_end(
    stack, start_worker, monkeypatch
):
    start_worker(sessions=24)
    stack.start_matchmaking()
    tournament = stack.create(rounds=3, hands=1, seating=mm.SEATING_MODE_SWISS)
    tid = tournament.tournament_id
    for policy in LINE_UP:
        stack.register_bots(tid, 5 if policy != "expert" else 6, policy)
    started = stack.mm().StartTournament(mm.StartTournamentRequest(tournament_id=tid)).tournament
    assert started.status == mm.TOURNAMENT_STATUS_RUNNING and started.current_round == 1
    assert len(started.tables) == 4  # round 1 is seated by the call itself

    finished = stack.wait_finished(tid)
    assert finished.status == mm.TOURNAMENT_STATUS_FINISHED
    assert finished.current_round == 3 and all(r.finished for r in finished.rounds)

    seating = stack.mm().GetSeating(mm.GetSeatingRequest(tournament_id=tid)).rounds
    players = {p.player_id for p in finished.players}
    assert len(players) == 16 and not any(p.filler for p in finished.players)
    for round_ in seating:
        seated = [s.player_id for t in round_.tables for s in t.seats]
        assert sorted(seated) == sorted(players)  # everyone exactly once per round
        assert all(t.status == pb.MATCH_STATUS_FINISHED for t in round_.tables)
    _check_books(stack, finished)

    # GetSeating's replies hold whole rounds up to their size: here one round fits, not two
    assert [r.round_no for r in seating] == [1, 2, 3]
    monkeypatch.setattr(tournaments, "SEATING_REPLY_BYTES", max(r.ByteSize() for r in seating) + 1)
    ask = stack.mm(token=None).GetSeating
    first = ask(mm.GetSeatingRequest(tournament_id=tid))
    assert ([r.round_no for r in first.rounds], first.next_round) == ([1], 2)
    last = ask(mm.GetSeatingRequest(tournament_id=tid, from_round=3))
    assert ([r.round_no for r in last.rounds], last.next_round) == ([3], 0)
    one = ask(mm.GetSeatingRequest(tournament_id=tid, round_no=2))
    assert (list(one.rounds), one.next_round) == ([seating[1]], 0)
    assert every_round(ask, tid) == list(seating)  # three replies, the whole seating

    response = stack.mm().GetStandings(mm.GetStandingsRequest(tournament_id=tid))
    assert [r.standing.rank for r in response.ranking] == list(range(1, 17))
    assert response.round_no == 3
    points = [r.standing.points for r in response.ranking]
    assert points == sorted(points, reverse=True)
    assert all(r.decided_by for r in response.ranking[1:])

    events = _events(stack, tid)
    seated_rounds = [
        e.round_no for e in events if e.type == EVENT.TOURNAMENT_EVENT_TYPE_ROUND_SEATED
    ]
    assert seated_rounds == [1, 2, 3]  # a round is never seated twice
    closed = [e.round_no for e in events if e.type == EVENT.TOURNAMENT_EVENT_TYPE_ROUND_FINISHED]
    assert closed == [1, 2, 3]
    assert events[-1].type == EVENT.TOURNAMENT_EVENT_TYPE_FINISHED
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert sum(e.type == EVENT.TOURNAMENT_EVENT_TYPE_MATCH_FINISHED for e in events) == 12


@pytest.mark.parametrize(("players", "fillers_needed"), [(13, 3), (30, 2)])
def test_players_not_a_multiple_of_four_get_fillers_booked_but_not_ranked(
    stack, start_worker, players, fillers_needed
):
    start_worker(sessions=36)
    stack.start_matchmaking()
    tournament = stack.create(rounds=1, hands=1, seating=mm.SEATING_MODE_RANDOM)
    tid = tournament.tournament_id
    stack.register_bots(tid, players, "efficiency")
    stack.mm().StartTournament(mm.StartTournamentRequest(tournament_id=tid))
    finished = stack.wait_finished(tid)
    fillers = [p for p in finished.players if p.filler]
    assert len(fillers) == fillers_needed and all(p.kind == pb.SEAT_KIND_BOT for p in fillers)
    response = stack.mm().GetStandings(mm.GetStandingsRequest(tournament_id=tid))
    ranked = [r for r in response.ranking if not r.filler]
    assert [r.standing.rank for r in ranked] == list(range(1, players + 1))
    assert {r.standing.player_id for r in response.ranking if r.filler} == {
        p.player_id for p in fillers
    }
    assert all(r.standing.rank == 0 for r in response.ranking if r.filler)
    assert {s.player_id for s in response.standings}.isdisjoint(p.player_id for p in fillers)
    _check_books(stack, finished)


def test_the_tournament_s_claim_window_floor_reaches_its_tables(stack, start_worker) -> None:
    start_worker(sessions=4)
    stack.start_matchmaking()
    control = pb.TimeControl()
    control.per_decision.FromMilliseconds(3000)
    control.claim_window.FromMilliseconds(20)
    tid = stack.create(rounds=1, hands=1, time_control=control).tournament_id
    stack.register_bots(tid, 4, "efficiency")
    stack.mm().StartTournament(mm.StartTournamentRequest(tournament_id=tid))
    finished = stack.wait_finished(tid)
    assert finished.status == mm.TOURNAMENT_STATUS_FINISHED
    seating = stack.mm().GetSeating(mm.GetSeatingRequest(tournament_id=tid))
    (table,) = seating.rounds[0].tables
    match = stack.table().GetMatch(table_pb2.GetMatchRequest(match_id=table.match_id)).match
    assert match.status == pb.MATCH_STATUS_FINISHED
    assert match.time_control.claim_window.ToMilliseconds() == 20
    rows = stack.engine.store.load_match(table.match_id).events
    times = [r.time for r in rows if r.event["type"] not in TABLE_EVENTS]
    kinds = [r.event["type"] for r in rows if r.event["type"] not in TABLE_EVENTS]
    gaps = [b - a for k, a, b in zip(kinds, times, times[1:], strict=False) if k == "discard"]
    assert gaps and min(gaps) >= 0.02 - 0.002


def test_a_penalty_counts_in_the_standings_and_its_cancellation_restores_them(stack, start_worker):
    start_worker(sessions=8)
    stack.start_matchmaking()
    tournament = stack.create(rounds=1, hands=1)
    tid = tournament.tournament_id
    players = stack.register_bots(tid, 4, "random")
    # a name outside printable ASCII (gRPC metadata's alphabet) travels percent-encoded
    stack.mm().StartTournament(
        mm.StartTournamentRequest(tournament_id=tid), metadata=actor_metadata("李裁判")
    )
    stack.wait_finished(tid)
    target = players[2].player_id

    def points() -> int:
        response = stack.mm().GetStandings(mm.GetStandingsRequest(tournament_id=tid))
        return next(r.standing.points for r in response.ranking if r.standing.player_id == target)

    before = points()
    penalty = (
        stack.mm()
        .AssignPenalty(
            mm.AssignPenaltyRequest(
                tournament_id=tid, player_id=target, points=25, reason="late to the table",
                assigned_by="chief referee", request_id="pen-1",
            ),
            metadata=(("hebei-actor", "chief referee"),),
        )
        .penalty
    )  # fmt: skip
    assert penalty.entry_id and not penalty.cancelled
    assert points() == before - 25
    again = stack.mm().AssignPenalty(
        mm.AssignPenaltyRequest(
            tournament_id=tid, player_id=target, points=25, reason="late to the table",
            assigned_by="chief referee", request_id="pen-1",
        )
    ).penalty  # fmt: skip
    assert again.penalty_id == penalty.penalty_id and points() == before - 25
    cancelled = stack.mm().CancelPenalty(
        mm.CancelPenaltyRequest(
            tournament_id=tid, penalty_id=penalty.penalty_id, reason="the clock was wrong",
            cancelled_by="appeals",
        )
    ).penalty  # fmt: skip
    assert cancelled.cancelled and cancelled.cancel_reason == "the clock was wrong"
    assert points() == before
    record = stack.mm().ListOperatorActions(mm.ListOperatorActionsRequest(tournament_id=tid))
    actions = [(a.action, a.actor, a.player_id) for a in record.actions]
    assert ("penalty", "chief referee", target) in actions
    assert ("cancel_penalty", "appeals", target) in actions
    assert ("start", "李裁判", "") in actions
    assert all(a.HasField("at") for a in record.actions)
    with pytest.raises(grpc.RpcError) as refused:
        stack.mm().CancelPenalty(
            mm.CancelPenaltyRequest(tournament_id=tid, penalty_id=penalty.penalty_id, reason="x")
        )
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    audit = stack.ledger().Audit(ledger_pb2.AuditRequest(tournament_id=tid))
    assert audit.ok, audit.problems


@pytest.mark.parametrize("placement", [(), (15, 5, -5, -15)], ids=["no-placement", "placement"])
def test_a_removed_player_is_replaced_by_a_bot_and_its_match_counts_fixed_points(
    stack, start_worker, placement
):
    """Removed mid-match: its whole match (hands by it and by its replacement, placement
    points) is exactly the fixed figure, through one correction entry at most."""
    start_worker(sessions=12)
    stack.start_matchmaking()
    tournament = stack.create(
        rounds=2, hands=3, replaced_match=mm.REPLACED_MATCH_COUNTING_FIXED,
        replaced_match_points=-20, seating=mm.SEATING_MODE_RANDOM,
        placement_points=list(placement),
    )  # fmt: skip
    tid = tournament.tournament_id
    players = stack.register_bots(tid, 8, "efficiency")
    stack.mm().StartTournament(mm.StartTournamentRequest(tournament_id=tid))
    leaving = players[0].player_id
    stack.mm().RemovePlayer(
        mm.RemovePlayerRequest(tournament_id=tid, player_id=leaving, reason="left the venue")
    )
    finished = stack.wait_finished(tid)
    gone = next(p for p in finished.players if p.player_id == leaving)
    assert gone.removed and gone.replaced_by.startswith("bot:")
    seating = stack.mm().GetSeating(mm.GetSeatingRequest(tournament_id=tid)).rounds
    round2 = [s.player_id for t in seating[1].tables for s in t.seats]
    assert leaving not in round2 and len(round2) == 8  # a filler took the place
    assert sum(p.filler for p in finished.players) == 1
    entries = stack.ledger_entries(tid)
    adjustments = [
        e for e in entries if e.adjustment.kind == ledger_pb2.ADJUSTMENT_KIND_REPLACEMENT
    ]
    assert len(adjustments) <= 1  # none when the seat happened to book exactly -20
    round1 = next(t for t in seating[0].tables if leaving in [s.player_id for s in t.seats])
    of_match = [
        e for e in entries if round1.match_id in (e.settlement.match_id, e.adjustment.match_id)
    ]
    booked = sum(p.amount for e in of_match for p in e.postings if p.player_id == leaving)
    assert booked == -20  # the hands, the placement points and the correction
    response = stack.mm().GetStandings(mm.GetStandingsRequest(tournament_id=tid))
    row = next(r for r in response.ranking if r.standing.player_id == leaving)
    assert row.standing.points == -20 and row.withdrawn
    assert not response.mismatch, response.problems
    _check_books(stack, finished)


def test_placement_points_are_booked_per_match_and_ranked(stack, start_worker):
    start_worker(sessions=8)
    stack.start_matchmaking()
    tournament = stack.create(rounds=1, hands=2, placement_points=[15, 5, -5, -15])
    tid = tournament.tournament_id
    stack.register_bots(tid, 4, "efficiency")
    stack.mm().StartTournament(mm.StartTournamentRequest(tournament_id=tid))
    finished = stack.wait_finished(tid)
    response = stack.mm().GetStandings(mm.GetStandingsRequest(tournament_id=tid))
    # Once seen failing in CI with no placement entry (cause not found): say what ended how.
    why = (
        f"status {mm.TournamentStatus.Name(finished.status)}, problems {list(response.problems)},"
        f" points {[(r.standing.points, r.placement_points) for r in response.ranking]}"
    )
    placements = [
        e for e in stack.ledger_entries(tid)
        if e.adjustment.kind == ledger_pb2.ADJUSTMENT_KIND_PLACEMENT
    ]  # fmt: skip
    assert len(placements) == 1, why
    assert sum(p.amount for p in placements[0].postings) == 0
    assert sum(r.placement_points for r in response.ranking) == 0
    assert any(r.placement_points for r in response.ranking)
    _check_books(stack, finished)


def test_ratings_follow_the_matches_of_distinct_identities(stack, start_worker):
    start_worker(sessions=8)
    stack.start_matchmaking()
    tournament = stack.create(rounds=2, hands=1)
    tid = tournament.tournament_id
    stub = stack.mm()
    for policy, level in (("random", 0), ("efficiency", 0), ("expert", 1), ("expert", 3)):
        stub.Register(
            mm.RegisterRequest(tournament_id=tid, bot=mm.BotEntrant(policy=policy, level=level))
        )
    stub.StartTournament(mm.StartTournamentRequest(tournament_id=tid))
    stack.wait_finished(tid)
    ratings = stub.GetRatings(
        mm.GetRatingsRequest(rating_ids=["bot:random:1", "bot:efficiency:1", "bot:expert:1",
                                         "bot:expert:3"])
    ).ratings  # fmt: skip
    assert len(ratings) == 4
    assert all(r.matches == 2 for r in ratings)
    assert [r.rank for r in ratings] == [1, 2, 3, 4]
    assert all(r.sigma < 25 / 3 for r in ratings)
    ordinals = [r.ordinal for r in ratings]
    assert ordinals == sorted(ordinals, reverse=True)


def test_every_round_seats_everyone_once_with_balanced_winds_in_random_mode(stack, start_worker):
    start_worker(sessions=12)
    stack.start_matchmaking()
    tournament = stack.create(rounds=4, hands=1, seating=mm.SEATING_MODE_RANDOM)
    tid = tournament.tournament_id
    players = stack.register_bots(tid, 8, "random")
    stack.mm().StartTournament(mm.StartTournamentRequest(tournament_id=tid))
    stack.wait_finished(tid)
    seating = stack.mm().GetSeating(mm.GetSeatingRequest(tournament_id=tid)).rounds
    winds = {p.player_id: Counter() for p in players}
    for round_ in seating:
        for table in round_.tables:
            for seat in table.seats:
                winds[seat.player_id][seat.seat] += 1
    assert all(sorted(c.values()) == [1, 1, 1, 1] for c in winds.values())
    assert all(r.quality.wind_spread == 0 for r in seating[-1:])


def test_hidden_round_results_show_players_the_last_finished_round(stack, start_worker):
    start_worker(sessions=8)
    stack.start_matchmaking()
    tournament = stack.create(rounds=2, hands=24, hide_round_results=True)
    tid = tournament.tournament_id
    stack.register_bots(tid, 4, "efficiency")
    stack.mm().StartTournament(mm.StartTournamentRequest(tournament_id=tid))
    stack.wait_status(
        tid, lambda t: t.current_round == 2 and any(x.hands_played >= 1 for x in t.tables)
    )
    # A player's read, bracketed by two organiser's reads that show round 2 still playing
    # (24 hands leave ample time; on a loaded machine a read may be retried).
    for _ in range(5):
        seen = stack.mm(token=None).GetStandings(mm.GetStandingsRequest(tournament_id=tid))
        running = stack.mm().GetTournament(mm.GetTournamentRequest(tournament_id=tid)).tournament
        if not running.rounds[-1].finished:
            break
    assert not running.rounds[-1].finished, "round 2 ended before a read in it"
    assert seen.round_no == 1
    feed = stack.mm().WatchTournament(
        mm.WatchTournamentRequest(tournament_id=tid, from_seq=1), timeout=60
    )
    round1 = next(
        e for e in feed if e.type == EVENT.TOURNAMENT_EVENT_TYPE_ROUND_FINISHED and e.round_no == 1
    )
    feed.cancel()
    assert [(s.player_id, s.points) for s in seen.standings] == [
        (s.player_id, s.points) for s in round1.standings
    ]

    def live_and_booked() -> tuple[list[int], list[int]]:
        live = stack.mm().GetStandings(mm.GetStandingsRequest(tournament_id=tid))
        ledger = {
            s.player_id: s.hands_played
            for s in stack.ledger()
            .GetStandings(ledger_pb2.LedgerServiceGetStandingsRequest(tournament_id=tid))
            .standings
        }
        return [s.hands_played for s in live.standings], [
            ledger[s.player_id] for s in live.standings
        ]

    # The round plays on between the two reads (a hand may settle in between): the organiser's
    # live standings must match the ledger on a read where nothing settled meanwhile.
    pairs = [live_and_booked() for _ in range(5)]
    assert any(live == booked for live, booked in pairs), pairs
    stack.wait_finished(tid)
    after = stack.mm(token=None).GetStandings(mm.GetStandingsRequest(tournament_id=tid))
    assert after.round_no == 2


def test_duplicate_seating_replays_one_wall_under_the_four_rotations(stack, start_worker):
    from hebei.v1 import table_pb2

    start_worker(sessions=20)
    stack.start_matchmaking()
    tournament = stack.create(rounds=1, hands=1, seating=mm.SEATING_MODE_DUPLICATE)
    tid = tournament.tournament_id
    players = {p.player_id for p in stack.register_bots(tid, 4, "efficiency")}
    stack.mm().StartTournament(mm.StartTournamentRequest(tournament_id=tid))
    stack.wait_finished(tid)
    tables = stack.mm().GetSeating(mm.GetSeatingRequest(tournament_id=tid)).rounds[0].tables
    assert len(tables) == 4 and {t.duplicate_group for t in tables} == {1}
    for seat in range(4):  # every player sits at every seat once
        assert {t.seats[seat].player_id for t in tables} == players
    infos = [
        stack.table().GetMatch(table_pb2.GetMatchRequest(match_id=t.match_id)).match for t in tables
    ]
    assert all(i.evaluation for i in infos)  # the walls were chosen: marked as evaluation
    assert len({i.seed for i in infos}) == 1 and infos[0].seed != 0
    _check_books(
        stack, stack.mm().GetTournament(mm.GetTournamentRequest(tournament_id=tid)).tournament
    )
