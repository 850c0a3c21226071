"""People in tournaments, end to end on the real stack: a seat is told only once the engine
holds its match (TABLE_OPENED), no-shows, check-in, player statuses and where they rank,
bots in people's seats shown as bots, duplicate mode refusing people."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta

import grpc
import psycopg
import pytest

from hebei.bots.policies import make_policy
from hebei.bots.session import Outcome, SeatSession, SeatTicket
from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import table_pb2
from hebei.v1 import types_pb2 as pb
from tests.integration.matchmaking.conftest import EVENT, Stack
from tests.integration.table.conftest import SeatClient
from tests.integration.table.helpers import wait_for


def _person(stack: Stack, tid: str, name: str) -> mm.RegisterResponse:
    return stack.mm().Register(
        mm.RegisterRequest(tournament_id=tid, person=mm.PersonEntrant(name=name))
    )


def _watch(stack: Stack, tid: str, who: mm.RegisterResponse, from_seq: int = 0):
    return stack.mm(token=None).WatchTournament(
        mm.WatchTournamentRequest(
            tournament_id=tid,
            player_id=who.player.player_id,
            player_secret=who.player_secret,
            from_seq=from_seq,
        ),
        timeout=300,
    )


def _seconds(value: float):
    duration = mm.TournamentConfig().round_break
    duration.FromMilliseconds(int(value * 1000))
    return duration


def _refused(call) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    return caught.value


def _actions(stack: Stack, tid: str) -> list[mm.OperatorAction]:
    return list(
        stack.mm().ListOperatorActions(mm.ListOperatorActionsRequest(tournament_id=tid)).actions
    )


def test_a_person_is_told_its_seat_only_once_the_engine_holds_the_match(
    stack: Stack, start_worker
) -> None:
    """Watching from before the start: round 1 and 2 seatings come on TABLE_OPENED, when
    GetMatch finds the match; never on ROUND_SEATED. A replay from seq 1 and a snapshot in
    the round tell it too. Mei never comes: a filler plays her seat, shown as one; after two
    missed rounds she is a no-show, not seated in round 3, ranked after the active players."""
    start_worker(sessions=8)
    stack.start_matchmaking()
    tid = stack.create(
        rounds=3, hands=16, seating=mm.SEATING_MODE_RANDOM,
        replace_absent_after=_seconds(0), no_show_limit=2,
    ).tournament_id  # fmt: skip
    mei = _person(stack, tid, "Mei")
    stack.register_bots(tid, 3, "efficiency")
    table = stack.table()
    watch = _watch(stack, tid, mei)
    first = next(watch)
    assert first.type == EVENT.TOURNAMENT_EVENT_TYPE_SNAPSHOT and not first.my_seating.match_id
    stack.mm().StartTournament(mm.StartTournamentRequest(tournament_id=tid))
    told: list[int] = []
    finished_tables: list[mm.TableAssignment] = []
    for event in watch:
        if event.type == EVENT.TOURNAMENT_EVENT_TYPE_ROUND_SEATED:
            assert not event.my_seating.match_id, "a seat told before the engine has its match"
        if event.type == EVENT.TOURNAMENT_EVENT_TYPE_MATCH_FINISHED:
            finished_tables.extend(event.tables)
        if event.my_seating.match_id:
            seating = event.my_seating
            # at this moment the engine holds the match: a Join would find it
            info = table.GetMatch(table_pb2.GetMatchRequest(match_id=seating.match_id)).match
            assert info.match_id == seating.match_id
            assert event.type == EVENT.TOURNAMENT_EVENT_TYPE_TABLE_OPENED
            assert seating.round_no == event.round_no and seating.seat_token
            assert seating.table_endpoint == stack.table_address
            (opened,) = event.tables
            assert opened.match_id == seating.match_id
            assert opened.seats[seating.seat].player_id == mei.player.player_id
            told.append(seating.round_no)
            if seating.round_no == 2:
                replay, again = _watch(stack, tid, mei, from_seq=1), []
                for earlier in replay:  # up to this event
                    again.append(earlier)
                    if earlier.seq >= event.seq:
                        break
                replay.cancel()
                opened_again = [
                    e for e in again if e.type == EVENT.TOURNAMENT_EVENT_TYPE_TABLE_OPENED
                ]
                assert [e.round_no for e in opened_again] == [1, 2]
                # round 1 has ended: only the live round's seat is told
                assert not opened_again[0].my_seating.match_id
                assert opened_again[1].my_seating == seating
                snapshot = next(_watch(stack, tid, mei))
                assert snapshot.type == EVENT.TOURNAMENT_EVENT_TYPE_SNAPSHOT
                assert snapshot.my_seating == seating
        if event.type == EVENT.TOURNAMENT_EVENT_TYPE_FINISHED:
            break
    watch.cancel()
    assert told == [1, 2]  # a no-show after two missed rounds: not seated in round 3

    # the filler in her seat was shown as one, never as Mei
    hers = [s for t in finished_tables for s in t.seats if s.player_id == mei.player.player_id]
    assert len(hers) == 2 and all(s.played_by == "filler for Mei" for s in hers)
    seating = stack.mm().GetSeating(mm.GetSeatingRequest(tournament_id=tid)).rounds
    assert mei.player.player_id not in [s.player_id for t in seating[2].tables for s in t.seats]
    assert all(
        s.played_by == "filler for Mei"
        for r in seating[:2] for t in r.tables for s in t.seats
        if s.player_id == mei.player.player_id
    )  # fmt: skip

    tournament = stack.mm().GetTournament(mm.GetTournamentRequest(tournament_id=tid)).tournament
    player = next(p for p in tournament.players if p.player_id == mei.player.player_id)
    assert player.status == mm.PLAYER_STATUS_NO_SHOW
    assert player.status_reason == "missed 2 rounds"
    assert list(player.missed_rounds) == [1, 2]
    assert any(
        a.action == "no_show" and a.actor == "rules" and a.player_id == mei.player.player_id
        and "missed 2 rounds" in a.detail
        for a in _actions(stack, tid)
    )  # fmt: skip
    ranking = stack.mm().GetStandings(mm.GetStandingsRequest(tournament_id=tid)).ranking
    ranked = [r for r in ranking if not r.filler]
    assert [r.standing.rank for r in ranked] == [1, 2, 3, 4]
    assert ranked[-1].standing.player_id == mei.player.player_id  # after every active player
    assert ranked[-1].status == mm.PLAYER_STATUS_NO_SHOW and ranked[-1].withdrawn
    assert ranked[-1].decided_by == "status"
    assert all(r.status == mm.PLAYER_STATUS_ACTIVE for r in ranked[:-1])


def test_check_in_and_a_scheduled_start(stack: Stack, start_worker) -> None:
    """The director starts the tournament at its scheduled time by itself; a person who did
    not check in is a no-show, not seated; CheckIn outside its window says the window."""
    start_worker(sessions=8)
    stack.start_matchmaking()
    # Time to register and check in first, even on a loaded machine.
    start_at = datetime.now(UTC) + timedelta(seconds=20)
    config = {"seating": mm.SEATING_MODE_RANDOM, "check_in_window": _seconds(600)}
    scheduled = mm.TournamentConfig().scheduled_start
    scheduled.FromDatetime(start_at)
    created = stack.create(rounds=1, hands=1, scheduled_start=scheduled, **config)
    tid = created.tournament_id
    assert abs((created.next_round_at.ToDatetime(tzinfo=UTC) - start_at).total_seconds()) < 1e-3
    assert created.check_in_closes_at == created.next_round_at
    opens = created.check_in_opens_at.ToDatetime(tzinfo=UTC)
    assert abs((start_at - opens).total_seconds() - 600) < 1e-3
    ann, bob = _person(stack, tid, "Ann"), _person(stack, tid, "Bob")
    stack.register_bots(tid, 4, "efficiency")
    anonymous = stack.mm(token=None)
    wrong = _refused(
        lambda: anonymous.CheckIn(
            mm.CheckInRequest(tournament_id=tid, player_id=ann.player.player_id, player_secret="x")
        )
    )
    assert wrong.code() == grpc.StatusCode.PERMISSION_DENIED
    checked = anonymous.CheckIn(
        mm.CheckInRequest(
            tournament_id=tid, player_id=ann.player.player_id, player_secret=ann.player_secret
        )
    ).player
    assert checked.checked_in and checked.status == mm.PLAYER_STATUS_ACTIVE
    again = anonymous.CheckIn(  # idempotent
        mm.CheckInRequest(
            tournament_id=tid, player_id=ann.player.player_id, player_secret=ann.player_secret
        )
    ).player
    assert again.checked_in

    # Started and round 1 seated (the start comes first: it may be read between the two).
    running = stack.wait_status(
        tid, lambda t: t.status != mm.TOURNAMENT_STATUS_REGISTRATION and bool(t.tables)
    )
    assert running.started_at.ToDatetime(tzinfo=UTC) >= start_at  # not before its time
    assert not running.HasField("next_round_at")
    late = _refused(
        lambda: anonymous.CheckIn(
            mm.CheckInRequest(
                tournament_id=tid, player_id=bob.player.player_id, player_secret=bob.player_secret
            )
        )
    )
    assert late.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "check-in is open from" in late.details() and "UTC" in late.details()
    seated = [s.player_id for t in running.tables for s in t.seats]
    assert ann.player.player_id in seated and bob.player.player_id not in seated
    gone = next(p for p in running.players if p.player_id == bob.player.player_id)
    assert (gone.status, gone.status_reason) == (mm.PLAYER_STATUS_NO_SHOW, "did not check in")
    actions = [(a.action, a.actor, a.player_id) for a in _actions(stack, tid)]
    assert ("start", "schedule", "") in actions
    assert ("no_show", "rules", bob.player.player_id) in actions
    stack.mm().CancelTournament(mm.CancelTournamentRequest(tournament_id=tid, reason="done"))


def test_withdrawals_are_recorded_and_rank_last_or_are_left_out(stack: Stack, start_worker) -> None:
    start_worker(sessions=8)
    stack.start_matchmaking()
    tid = stack.create(
        rounds=2, hands=1, inactive_players=mm.INACTIVE_PLAYERS_LEFT_OUT,
        seating=mm.SEATING_MODE_RANDOM,
    ).tournament_id  # fmt: skip
    gone_early = _person(stack, tid, "Early")
    bots = stack.register_bots(tid, 5, "efficiency")
    anonymous = stack.mm(token=None)
    anonymous.Unregister(
        mm.UnregisterRequest(
            tournament_id=tid, player_id=gone_early.player.player_id,
            player_secret=gone_early.player_secret,
        )
    )  # fmt: skip
    stack.mm().StartTournament(mm.StartTournamentRequest(tournament_id=tid))
    leaving = bots[0].player_id
    stack.mm().Unregister(mm.UnregisterRequest(tournament_id=tid, player_id=leaving))
    removed = bots[1].player_id
    stack.mm().RemovePlayer(
        mm.RemovePlayerRequest(tournament_id=tid, player_id=removed, reason="rude")
    )
    finished = stack.wait_finished(tid)
    statuses = {p.player_id: (p.status, p.status_reason) for p in finished.players}
    assert statuses[leaving] == (mm.PLAYER_STATUS_WITHDRAWN, "withdrawn by the operator")
    assert statuses[removed] == (mm.PLAYER_STATUS_REMOVED, "rude")
    records = [(a.action, a.actor, a.player_id) for a in _actions(stack, tid)]
    assert ("withdraw", "Early", gone_early.player.player_id) in records  # before the start
    assert ("withdraw", "operator", leaving) in records
    assert ("remove", "operator", removed) in records
    response = stack.mm().GetStandings(mm.GetStandingsRequest(tournament_id=tid))
    ranked = [r for r in response.ranking if not r.filler]
    assert [r.standing.rank for r in ranked] == [1, 2, 3, 0, 0]  # left out, still listed
    assert {r.standing.player_id for r in ranked[3:]} == {leaving, removed}
    assert all(r.status != mm.PLAYER_STATUS_ACTIVE for r in ranked[3:])
    # they keep the points booked so far
    points = {s.player_id: s.points for s in response.standings}
    assert leaving in points and removed in points


def test_a_duplicate_tournament_refuses_people(stack: Stack) -> None:
    stack.start_matchmaking()
    tid = stack.create(rounds=1, seating=mm.SEATING_MODE_DUPLICATE).tournament_id
    refused = _refused(lambda: _person(stack, tid, "Mei"))
    assert refused.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "duplicate" in refused.details() and "\n" not in refused.details()
    stack.register_bots(tid, 1)  # bots are welcome


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("check_in_window", 59),
        ("check_in_window", 24 * 3600 + 1),
        ("round_break", -1),
        ("round_break", 24 * 3600 + 1),
        ("round_time_limit", 59),
        ("round_time_limit", 24 * 3600 + 1),
        ("no_show_limit", 65),
        ("no_show_limit", -1),
        ("inactive_players", 7),
        ("scheduled_start", -60),
        ("scheduled_start", 367 * 24 * 3600),
    ],
)
def test_schedule_bounds_are_checked(stack: Stack, field: str, value: int) -> None:
    stack.start_matchmaking()
    config = mm.TournamentConfig(name="bounds", rounds=1)
    if field == "scheduled_start":
        config.scheduled_start.FromSeconds(int(time.time()) + value)
    elif field in ("no_show_limit", "inactive_players"):
        setattr(config, field, value)
    else:
        getattr(config, field).FromSeconds(value)
    refused = _refused(
        lambda: stack.mm().CreateTournament(mm.CreateTournamentRequest(config=config))
    )
    assert refused.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert f"config.{field}" in refused.details()


def _seated_at(stack: Stack, tid: str) -> dict[int, tuple[datetime | None, datetime | None]]:
    """Each round's seating and closing times as stored."""
    with psycopg.connect(stack.database_url) as conn:
        conn.execute(f'SET search_path TO "{stack.schemas["matchmaking"]}"')
        rows = conn.execute(
            "SELECT round_no, seated_at, finished_at FROM rounds WHERE tournament_id = %s",
            (tid,),
        ).fetchall()
    return {r[0]: (r[1], r[2]) for r in rows}


def test_a_break_between_rounds_and_a_pause_that_stops_its_clock(
    stack: Stack, start_worker
) -> None:
    start_worker(sessions=4)
    stack.start_matchmaking()
    pause = 15.0
    tid = stack.create(rounds=2, hands=1, round_break=_seconds(pause)).tournament_id
    stack.register_bots(tid, 4, "efficiency")
    started = stack.mm().StartTournament(mm.StartTournamentRequest(tournament_id=tid))
    assert not started.tournament.HasField("next_round_at")  # round 1 is seated at once
    between = stack.wait_status(tid, lambda t: t.HasField("next_round_at"))
    assert between.current_round == 1 and between.rounds[0].finished
    planned = between.next_round_at.ToDatetime(tzinfo=UTC)
    closed = _seated_at(stack, tid)[1][1]
    assert abs((planned - closed).total_seconds() - pause) < 1e-3
    paused_from = datetime.now(UTC)
    paused = stack.mm().Pause(mm.PauseRequest(tournament_id=tid, reason="lunch")).tournament
    paused_by = datetime.now(UTC)
    assert paused.current_round == 1, "the break ended before the pause"
    assert not paused.HasField("next_round_at")  # the clock stopped
    while datetime.now(UTC) < planned + timedelta(seconds=1):
        time.sleep(0.2)
    still = stack.mm().GetTournament(mm.GetTournamentRequest(tournament_id=tid)).tournament
    assert still.current_round == 1  # not seated while paused, though its time came
    resumed_from = datetime.now(UTC)
    resumed = stack.mm().Resume(mm.ResumeRequest(tournament_id=tid)).tournament
    resumed_by = datetime.now(UTC)
    moved = resumed.next_round_at.ToDatetime(tzinfo=UTC)
    # on by the time paused, which lies between what the calls' bounds say
    assert resumed_from - paused_by <= moved - planned <= resumed_by - paused_from
    stack.wait_finished(tid)
    assert _seated_at(stack, tid)[2][0] >= moved


def _slow_play(claim_ms: int) -> pb.TimeControl:
    """Every discard held ``claim_ms``: a match lasts long enough to act on it while live."""
    control = pb.TimeControl()
    control.per_decision.FromMilliseconds(3000)
    control.claim_window.FromMilliseconds(claim_ms)
    return control


def test_a_removed_or_withdrawn_person_s_seat_gets_a_new_token_and_a_bot(
    stack: Stack, start_worker
) -> None:
    start_worker(sessions=8)
    stack.start_matchmaking()
    tid = stack.create(
        rounds=1, hands=2, time_control=_slow_play(150), replace_absent_after=_seconds(3600)
    ).tournament_id
    mei, lin = _person(stack, tid, "Mei"), _person(stack, tid, "Lin")
    stack.register_bots(tid, 2, "efficiency")
    seatings = {}
    for who in (mei, lin):
        watch = _watch(stack, tid, who)
        if not seatings:
            next(watch)  # the snapshot, before the start
            stack.mm().StartTournament(mm.StartTournamentRequest(tournament_id=tid))
        seatings[who.player.name] = next(e for e in watch if e.my_seating.match_id).my_seating
        watch.cancel()
    sessions = {}
    for name, seating in seatings.items():
        ticket = SeatTicket(
            seating.table_endpoint, seating.match_id, seating.seat, seating.seat_token, "random"
        )
        session = SeatSession(ticket, make_policy("random"))
        thread = threading.Thread(target=session.run, daemon=True)
        thread.start()
        sessions[name] = (ticket, session, thread)
    match_id = seatings["Mei"].match_id
    table = stack.table()

    def seats() -> list[table_pb2.SeatInfo]:
        return list(table.GetMatch(table_pb2.GetMatchRequest(match_id=match_id)).match.seats)

    assert wait_for(lambda: all(seats()[s.seat].connected for s in seatings.values()), 60)
    stack.mm().RemovePlayer(
        mm.RemovePlayerRequest(tournament_id=tid, player_id=mei.player.player_id, reason="rude")
    )
    stack.mm(token=None).Unregister(
        mm.UnregisterRequest(
            tournament_id=tid, player_id=lin.player.player_id, player_secret=lin.player_secret
        )
    )
    for name, (ticket, session, thread) in sessions.items():
        thread.join(timeout=60)
        assert not thread.is_alive(), f"{name}'s old token still plays"
        assert session.result.outcome is Outcome.REFUSED, (name, session.result)
        again = SeatSession(ticket, make_policy("random"))
        again.run()  # a Join with the old token
        assert again.result.outcome is Outcome.REFUSED, (name, again.result)
    by_seat = {s.seat: s for s in seats()}
    assert by_seat[seatings["Mei"].seat].played_by == "replacement for Mei"
    assert by_seat[seatings["Lin"].seat].played_by == "replacement for Lin"
    shown = stack.mm().GetTournament(mm.GetTournamentRequest(tournament_id=tid)).tournament
    played_by = {s.player_name: s.played_by for t in shown.tables for s in t.seats}
    assert played_by["Mei"] == "replacement for Mei" and played_by["Lin"] == "replacement for Lin"
    finished = stack.wait_finished(tid)  # the bots with the new tokens played the match out
    (done,) = stack.mm().GetSeating(mm.GetSeatingRequest(tournament_id=tid)).rounds[0].tables
    assert done.status == pb.MATCH_STATUS_FINISHED and done.hands_played == 2
    statuses = {p.name: (p.status, p.status_reason) for p in finished.players}
    assert statuses["Mei"] == (mm.PLAYER_STATUS_REMOVED, "rude")
    assert statuses["Lin"] == (mm.PLAYER_STATUS_WITHDRAWN, "withdrawn by the player")
    points = {
        s.player_name
        for s in stack.mm().GetStandings(mm.GetStandingsRequest(tournament_id=tid)).standings
    }
    assert {"Mei", "Lin"} <= points  # they keep what was booked


def test_a_round_s_time_limit_ends_its_matches_after_the_hand_in_progress(
    stack: Stack, start_worker
) -> None:
    start_worker(sessions=4)
    stack.start_matchmaking()
    tid = stack.create(
        rounds=1, hands=64, time_control=_slow_play(300), round_time_limit=_seconds(60)
    ).tournament_id
    stack.register_bots(tid, 4, "efficiency")
    started = stack.mm().StartTournament(mm.StartTournamentRequest(tournament_id=tid))
    ends = started.tournament.round_ends_at.ToDatetime(tzinfo=UTC)
    seated = _seated_at(stack, tid)[1][0]
    assert abs((ends - seated).total_seconds() - 60) < 1e-3
    finished = stack.wait_finished(tid, timeout=600)
    assert not finished.HasField("round_ends_at")
    (done,) = stack.mm().GetSeating(mm.GetSeatingRequest(tournament_id=tid)).rounds[0].tables
    info = stack.table().GetMatch(table_pb2.GetMatchRequest(match_id=done.match_id)).match
    assert info.status == pb.MATCH_STATUS_FINISHED and info.concluding
    assert 1 <= info.hands_played < 64  # ended early, after a whole hand
    assert info.ended_at.ToDatetime(tzinfo=UTC) >= ends
    assert done.hands_played == info.hands_played


def test_a_person_who_played_is_no_no_show_and_one_who_never_came_is(
    stack: Stack, start_worker
) -> None:
    """The engine's person_joined decides: Mei joins (not as a bot) and plays round 1; Ann
    never comes. With a no-show limit of 1, Ann is a no-show after round 1 and not seated in
    round 2; Mei plays on with no missed round."""
    start_worker(sessions=8)
    stack.start_matchmaking()
    tid = stack.create(
        rounds=2, hands=1, seating=mm.SEATING_MODE_RANDOM, no_show_limit=1,
        replace_absent_after=_seconds(0),
    ).tournament_id  # fmt: skip
    mei, ann = _person(stack, tid, "Mei"), _person(stack, tid, "Ann")
    stack.register_bots(tid, 2, "efficiency")
    watch = _watch(stack, tid, mei)
    next(watch)
    stack.mm().StartTournament(mm.StartTournamentRequest(tournament_id=tid))
    seating = next(e for e in watch if e.my_seating.match_id).my_seating
    watch.cancel()
    client = SeatClient(
        stack._channel(stack.table_address, None), seating.match_id, seating.seat,
        token=seating.seat_token,
    ).start()  # fmt: skip
    client.join(timeout=240)
    assert client.finished.is_set() and client.error is None, client.error
    info = stack.table().GetMatch(table_pb2.GetMatchRequest(match_id=seating.match_id)).match
    assert info.seats[seating.seat].person_joined
    second = stack.wait_status(tid, lambda t: t.current_round == 2)
    players = {p.name: p for p in second.players}
    assert players["Mei"].status == mm.PLAYER_STATUS_ACTIVE
    assert not players["Mei"].missed_rounds
    assert players["Ann"].status == mm.PLAYER_STATUS_NO_SHOW
    assert (players["Ann"].status_reason, list(players["Ann"].missed_rounds)) == (
        "missed 1 round", [1]
    )  # fmt: skip
    seated = [s.player_id for t in second.tables for s in t.seats]
    assert mei.player.player_id in seated and ann.player.player_id not in seated
    stack.mm().CancelTournament(mm.CancelTournamentRequest(tournament_id=tid, reason="done"))


def test_a_tournament_nobody_checked_in_for_is_cancelled_at_its_start(stack: Stack) -> None:
    stack.start_matchmaking()
    tid = stack.create(rounds=1, check_in_window=_seconds(600)).tournament_id
    mei = _person(stack, tid, "Mei")
    started = stack.mm().StartTournament(mm.StartTournamentRequest(tournament_id=tid)).tournament
    assert started.status == mm.TOURNAMENT_STATUS_CANCELLED and not started.tables
    assert started.status_reason == "nobody is left to seat in round 1"
    (player,) = started.players
    assert (player.player_id, player.status) == (mei.player.player_id, mm.PLAYER_STATUS_NO_SHOW)
    assert started.check_in_closes_at == started.started_at  # the start closed it
