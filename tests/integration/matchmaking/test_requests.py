"""Requests to matchmaking: bad ones get a clear status and change nothing; operator actions
are recorded; registration, withdrawal, late registration, preview and swap; quick play."""

from __future__ import annotations

import threading
import time

import grpc
import pytest

from hebei.bots.policies import make_policy
from hebei.bots.session import SeatSession, SeatTicket
from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import types_pb2 as pb
from tests.integration.matchmaking.conftest import Stack
from tests.integration.table.conftest import SERVICE_TOKEN
from tests.integration.table.helpers import wait_for


def _code(call) -> grpc.StatusCode:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    assert len(caught.value.details() or "") < 400  # nothing echoed whole
    return caught.value.code()


def _person(stack: Stack, tid: str, name: str) -> mm.RegisterResponse:
    return stack.mm().Register(
        mm.RegisterRequest(tournament_id=tid, person=mm.PersonEntrant(name=name))
    )


@pytest.fixture
def served(stack: Stack) -> Stack:
    stack.start_matchmaking()
    return stack


def _people_only(stack: Stack, **fields) -> mm.Tournament:
    """A tournament whose absent people are never replaced (no bot tasks queued)."""
    config = {"rounds": 2, "hands": 1, **fields}
    tournament = stack.create(**config)
    return tournament


def test_bad_requests_get_clear_errors_and_change_nothing(served: Stack) -> None:
    stack = served
    stub = stack.mm()
    tid = _people_only(stack).tournament_id
    _person(stack, tid, "Ann")
    snapshot = stub.GetTournament(mm.GetTournamentRequest(tournament_id=tid)).tournament

    assert _code(lambda: stub.GetTournament(mm.GetTournamentRequest(tournament_id="t-nope"))) == (
        grpc.StatusCode.NOT_FOUND
    )
    assert _code(lambda: _person(stack, "t-nope", "Bob")) == grpc.StatusCode.NOT_FOUND
    assert _code(lambda: _person(stack, tid, "x" * 1_000_000)) == grpc.StatusCode.INVALID_ARGUMENT
    assert _code(lambda: _person(stack, tid, "A\x00nn")) == grpc.StatusCode.INVALID_ARGUMENT
    assert _code(lambda: _person(stack, tid, "Ann")) == grpc.StatusCode.ALREADY_EXISTS
    assert (
        _code(
            lambda: stub.Register(
                mm.RegisterRequest(tournament_id=tid, bot=mm.BotEntrant(policy="x"))
            )
        )
        == grpc.StatusCode.INVALID_ARGUMENT
    )
    assert _code(lambda: stub.Register(mm.RegisterRequest(tournament_id=tid))) == (
        grpc.StatusCode.INVALID_ARGUMENT
    )
    assert (
        _code(lambda: stub.GetTournament(mm.GetTournamentRequest(tournament_id="t" * 5000)))
        == grpc.StatusCode.INVALID_ARGUMENT
    )
    bad = mm.TournamentConfig(name="big", rounds=2)
    bad.length.hands = 2**31 - 1
    assert _code(lambda: stub.CreateTournament(mm.CreateTournamentRequest(config=bad))) == (
        grpc.StatusCode.INVALID_ARGUMENT
    )
    anonymous = stack.mm(token=None)
    ok = mm.TournamentConfig(name="fine", rounds=1)
    assert _code(lambda: anonymous.CreateTournament(mm.CreateTournamentRequest(config=ok))) == (
        grpc.StatusCode.UNAUTHENTICATED
    )
    service = stack.mm(token=SERVICE_TOKEN)
    assert (
        _code(lambda: service.StartTournament(mm.StartTournamentRequest(tournament_id=tid)))
        == grpc.StatusCode.PERMISSION_DENIED
    )
    player = snapshot.players[0].player_id
    assert (
        _code(
            lambda: anonymous.Unregister(
                mm.UnregisterRequest(tournament_id=tid, player_id=player, player_secret="guess")
            )
        )
        == grpc.StatusCode.PERMISSION_DENIED
    )
    after = stub.GetTournament(mm.GetTournamentRequest(tournament_id=tid)).tournament
    assert after == snapshot


def test_create_is_idempotent_by_request_id(served: Stack) -> None:
    stub = served.mm()
    config = mm.TournamentConfig(name="Autumn", rounds=3, seed=11)
    first = stub.CreateTournament(mm.CreateTournamentRequest(config=config, request_id="r-1"))
    again = stub.CreateTournament(mm.CreateTournamentRequest(config=config, request_id="r-1"))
    assert first.tournament.tournament_id == again.tournament.tournament_id
    config.rounds = 4
    assert (
        _code(
            lambda: stub.CreateTournament(
                mm.CreateTournamentRequest(config=config, request_id="r-1")
            )
        )
        == grpc.StatusCode.ALREADY_EXISTS
    )


def test_start_twice_and_registration_after_it_closed(served: Stack) -> None:
    stack = served
    stub = stack.mm()
    replace_never = mm.TournamentConfig().replace_absent_after
    replace_never.FromSeconds(3600)
    tid = _people_only(stack, replace_absent_after=replace_never).tournament_id
    for name in ("Ann", "Bob", "Cy", "Di"):
        _person(stack, tid, name)
    started = stub.StartTournament(mm.StartTournamentRequest(tournament_id=tid)).tournament
    assert started.current_round == 1 and len(started.tables) == 1
    assert _code(lambda: stub.StartTournament(mm.StartTournamentRequest(tournament_id=tid))) == (
        grpc.StatusCode.FAILED_PRECONDITION
    )
    assert _code(lambda: _person(stack, tid, "Late")) == grpc.StatusCode.FAILED_PRECONDITION
    after = stub.GetTournament(mm.GetTournamentRequest(tournament_id=tid)).tournament
    assert after.current_round == 1 and len(after.players) == 4
    cancelled = stub.CancelTournament(
        mm.CancelTournamentRequest(tournament_id=tid, reason="test over")
    ).tournament
    assert cancelled.status == mm.TOURNAMENT_STATUS_CANCELLED
    assert cancelled.tables[0].status == pb.MATCH_STATUS_DISSOLVED
    from hebei.v1 import table_pb2

    # On the engine too, unless it was cancelled before it was opened there. A cancel that
    # finds the match still pending while the director is opening it marks it dissolved, and
    # the director dissolves it on the engine once its opening is done: soon, not at once.
    request = table_pb2.GetMatchRequest(match_id=started.tables[0].match_id)
    deadline = time.monotonic() + 30
    while True:
        try:
            status = stack.table().GetMatch(request).match.status
        except grpc.RpcError as error:
            assert error.code() == grpc.StatusCode.NOT_FOUND
            break
        if status == pb.MATCH_STATUS_DISSOLVED:
            break
        assert time.monotonic() < deadline, f"still {pb.MatchStatus.Name(status)} on the engine"
        time.sleep(0.1)


def test_late_registration_withdrawal_preview_and_swap(served: Stack) -> None:
    stack = served
    stub = stack.mm()
    replace_never = mm.TournamentConfig().replace_absent_after
    replace_never.FromSeconds(3600)
    tid = _people_only(
        stack, rounds=3, last_registration_round=2, replace_absent_after=replace_never
    ).tournament_id
    people = {name: _person(stack, tid, name) for name in ("Ann", "Bob", "Cy", "Di", "Ed")}
    preview = stub.PreviewRound(mm.PreviewRoundRequest(tournament_id=tid)).round
    assert preview.round_no == 1 and len(preview.tables) == 2  # five people and three fillers
    seats = [s.player_id for t in preview.tables for s in t.seats]
    ann, bob = people["Ann"].player.player_id, people["Bob"].player.player_id
    swapped = stub.SwapSeats(
        mm.SwapSeatsRequest(tournament_id=tid, player_a=ann, player_b=bob, reason="family")
    ).round
    after = [s.player_id for t in swapped.tables for s in t.seats]
    assert after[seats.index(ann)] == bob and after[seats.index(bob)] == ann
    started = stub.StartTournament(mm.StartTournamentRequest(tournament_id=tid)).tournament
    round1 = [s.player_id for t in started.tables for s in t.seats]
    assert round1 == after  # the planned (swapped) seating was used
    late = _person(stack, tid, "Late")
    assert late.player.first_round == 2
    ed = people["Ed"]
    withdrawn = (
        stack.mm(token=None)
        .Unregister(
            mm.UnregisterRequest(
                tournament_id=tid, player_id=ed.player.player_id, player_secret=ed.player_secret
            )
        )
        .tournament
    )
    assert next(p for p in withdrawn.players if p.player_id == ed.player.player_id).withdrawn
    record = stub.ListOperatorActions(mm.ListOperatorActionsRequest(tournament_id=tid))
    assert [a.action for a in record.actions] == ["swap", "start", "withdraw"]
    assert "family" in record.actions[0].detail
    assert record.actions[2].actor == "Ed" and "by the player" in record.actions[2].detail
    gone = next(p for p in withdrawn.players if p.player_id == ed.player.player_id)
    assert gone.status == mm.PLAYER_STATUS_WITHDRAWN and gone.status_reason
    stub.CancelTournament(mm.CancelTournamentRequest(tournament_id=tid, reason="test over"))


def test_a_watching_person_learns_its_seat_and_token(served: Stack) -> None:
    stack = served
    stub = stack.mm()
    replace_never = mm.TournamentConfig().replace_absent_after
    replace_never.FromSeconds(3600)
    tid = _people_only(stack, replace_absent_after=replace_never).tournament_id
    people = [_person(stack, tid, name) for name in ("Ann", "Bob", "Cy", "Di")]
    ann = people[0]
    watch = stack.mm(token=None).WatchTournament(
        mm.WatchTournamentRequest(
            tournament_id=tid, player_id=ann.player.player_id, player_secret=ann.player_secret
        ),
        timeout=30,
    )
    first = next(watch)
    assert first.type == mm.TOURNAMENT_EVENT_TYPE_SNAPSHOT and not first.my_seating.match_id
    stub.StartTournament(mm.StartTournamentRequest(tournament_id=tid))
    seated = next(e for e in watch if e.type == mm.TOURNAMENT_EVENT_TYPE_TABLE_OPENED)
    seating = seated.my_seating
    assert seating.match_id and seating.seat_token and seating.table_endpoint
    assert seating.table_endpoint == stack.table_address
    table = seated.tables[0]
    assert table.seats[seating.seat].player_id == ann.player.player_id
    watch.cancel()
    # Nobody else learns a token: an anonymous watcher gets no seating.
    other = stack.mm(token=None).WatchTournament(
        mm.WatchTournamentRequest(tournament_id=tid), timeout=30
    )
    assert not next(other).my_seating.seat_token
    other.cancel()
    stub.CancelTournament(mm.CancelTournamentRequest(tournament_id=tid, reason="test over"))


def _play_seat(stack: Stack, seating: mm.Seating) -> threading.Thread:
    ticket = SeatTicket(
        seating.table_endpoint, seating.match_id, seating.seat, seating.seat_token, "random"
    )
    thread = threading.Thread(
        target=lambda: SeatSession(ticket, make_policy("random")).run(), daemon=True
    )
    thread.start()
    return thread


def test_quick_play_seats_a_person_with_three_bots(served: Stack, start_worker) -> None:
    stack = served
    start_worker(sessions=4)
    request = mm.QuickPlayRequest(name="Mei", bot_policy="efficiency")
    request.length.hands = 1
    stream = stack.mm(token=None).QuickPlay(request, timeout=120)
    queued = next(stream)
    assert queued.status == mm.QUICK_PLAY_STATUS_QUEUED and queued.player_id
    seated = next(stream)
    assert seated.status == mm.QUICK_PLAY_STATUS_SEATED
    assert seated.seating.seat_token and seated.HasField("ready_deadline")
    import time

    ready_in = seated.ready_deadline.ToMicroseconds() / 1e6 - time.time()
    assert 0 < ready_in <= 5.5  # the engine's ready check (5 s in these tests)
    kinds = sorted(s.kind for s in seated.seats)
    assert kinds == [pb.SEAT_KIND_PERSON, pb.SEAT_KIND_BOT, pb.SEAT_KIND_BOT, pb.SEAT_KIND_BOT]
    player = _play_seat(stack, seated.seating)
    started = next(stream)
    assert started.status == mm.QUICK_PLAY_STATUS_STARTED
    player.join(120)
    from hebei.v1 import table_pb2

    info = stack.table().GetMatch(table_pb2.GetMatchRequest(match_id=seated.seating.match_id))
    assert info.match.status == pb.MATCH_STATUS_FINISHED


def test_four_people_in_the_queue_are_seated_together(served: Stack) -> None:
    stack = served
    results: dict[str, mm.QuickPlayResponse] = {}

    def ask(name: str) -> None:
        request = mm.QuickPlayRequest(name=name)
        request.length.hands = 1
        for response in stack.mm(token=None).QuickPlay(request, timeout=60):
            if response.status == mm.QUICK_PLAY_STATUS_SEATED:
                results[name] = response
                break

    threads = [threading.Thread(target=ask, args=(n,)) for n in ("A", "B", "C", "D")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(results) == 4
    assert len({r.seating.match_id for r in results.values()}) == 1
    assert sorted(r.seating.seat for r in results.values()) == [0, 1, 2, 3]
    assert all(s.kind == pb.SEAT_KIND_PERSON for s in results["A"].seats)
    assert len({r.seating.seat_token for r in results.values()}) == 4


# The match starts when its four bots have joined: a 5 s ready check lost that race once in
# a while in CI (seat 3 absent from the start, so auto-played for the whole hand).
@pytest.mark.parametrize("stack", [{"ready_seconds": 60.0}], indirect=True)
def test_a_client_in_any_language_gets_bots_for_its_own_match(served: Stack, start_worker) -> None:
    """RequestBots: the seats of a match opened with OpenMatch are played by the fleet."""
    from hebei.v1 import table_pb2
    from tests.integration.table.conftest import OPERATOR

    stack = served
    worker = start_worker(sessions=4)
    request = table_pb2.OpenMatchRequest(table_id="own-table", match_id="own-match-1")
    request.length.hands = 1
    tokens = [f"token-of-seat-{seat}-0123456789" for seat in range(4)]
    for seat in range(4):
        request.seats.append(
            table_pb2.SeatAssignment(
                seat=seat, player_id=f"own-{seat}", kind=pb.SEAT_KIND_BOT, seat_token=tokens[seat]
            )
        )
    stack.table().OpenMatch(request, metadata=OPERATOR)
    bots = mm.RequestBotsRequest(
        match_id="own-match-1",
        seats=[mm.BotSeat(seat=s, seat_token=tokens[s], policy="efficiency") for s in range(4)],
    )
    assert _code(lambda: stack.mm(token=None).RequestBots(bots)) == grpc.StatusCode.UNAUTHENTICATED
    bad = mm.RequestBotsRequest(match_id="own-match-1", seats=[mm.BotSeat(seat=5, seat_token="x")])
    assert _code(lambda: stack.mm().RequestBots(bad)) == grpc.StatusCode.INVALID_ARGUMENT
    missing = mm.RequestBotsRequest(match_id="nope", seats=list(bots.seats))
    assert _code(lambda: stack.mm().RequestBots(missing)) == grpc.StatusCode.NOT_FOUND
    assert stack.mm(token=SERVICE_TOKEN).RequestBots(bots).queued == 4
    table = stack.table()
    import time

    deadline = time.monotonic() + 120
    while True:
        info = table.GetMatch(table_pb2.GetMatchRequest(match_id="own-match-1")).match
        if info.status == pb.MATCH_STATUS_FINISHED:
            break
        assert time.monotonic() < deadline, info
        time.sleep(0.2)
    events = list(table.Spectate(table_pb2.SpectateRequest(match_id="own-match-1", from_seq=1)))
    auto = [e.event for e in events if e.event.auto_played]
    # the bots played every decision (else: which, and the worker's account of its sessions)
    assert not auto, f"{auto[:3]}\n{worker.tail()}"


def test_a_match_result_must_add_up_and_name_the_match_s_players(served: Stack) -> None:
    stack = served
    stub = stack.mm(token=SERVICE_TOKEN)
    replace_never = mm.TournamentConfig().replace_absent_after
    replace_never.FromSeconds(3600)
    tid = _people_only(stack, replace_absent_after=replace_never).tournament_id
    for name in ("Ann", "Bob", "Cy", "Di"):
        _person(stack, tid, name)
    started = stack.mm().StartTournament(mm.StartTournamentRequest(tournament_id=tid)).tournament
    table = started.tables[0]

    def report(scores, players=None):
        players = players or [s.player_id for s in table.seats]
        return lambda: stub.ReportMatchResult(
            mm.ReportMatchResultRequest(
                match_id=table.match_id, status=pb.MATCH_STATUS_FINISHED, hands_played=1,
                seats=[mm.MatchSeatResult(seat=i, player_id=players[i], score=scores[i])
                       for i in range(4)],
            )
        )  # fmt: skip

    assert _code(report([2**63 - 1] * 4)) == grpc.StatusCode.INVALID_ARGUMENT
    assert _code(report([5, 5, 5, 5])) == grpc.StatusCode.INVALID_ARGUMENT
    assert _code(report([5, -5, 0, 0], ["x", "y", "z", "w"])) == grpc.StatusCode.INVALID_ARGUMENT
    after = stack.mm().GetTournament(mm.GetTournamentRequest(tournament_id=tid)).tournament
    assert after.tables[0].status != pb.MATCH_STATUS_FINISHED  # nothing was recorded
    stack.mm().CancelTournament(mm.CancelTournamentRequest(tournament_id=tid, reason="over"))


def test_one_address_holds_at_most_its_share_of_the_streams(stack: Stack) -> None:
    """One anonymous address used to take all of matchmaking's stream slots with watchers,
    and then nobody could watch or ask for quick play. It holds its share now."""
    stack.start_matchmaking(max_streams=8, max_streams_per_peer=3)
    streams = stack.matchmaking.servicer.streams
    tid = stack.create().tournament_id
    anonymous = stack.mm(token=None)
    watch = mm.WatchTournamentRequest(tournament_id=tid)
    held = [anonymous.WatchTournament(watch, timeout=120) for _ in range(3)]
    for call in held:
        assert next(call).type == mm.TOURNAMENT_EVENT_TYPE_SNAPSHOT
    assert streams.open == 3
    for refused in (
        lambda: next(anonymous.WatchTournament(watch, timeout=30)),
        lambda: next(anonymous.QuickPlay(mm.QuickPlayRequest(name="Mei"), timeout=30)),
    ):
        with pytest.raises(grpc.RpcError) as caught:
            refused()
        assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert caught.value.details() == (
            "at most 3 matchmaking streams from one client address; try again later"
        )
    assert streams.open == 3  # the other addresses' five slots are still free
    for call in held:
        call.cancel()
    assert wait_for(lambda: streams.open == 0, timeout=60)
    again = anonymous.WatchTournament(watch, timeout=30)
    assert next(again).type == mm.TOURNAMENT_EVENT_TYPE_SNAPSHOT
    again.cancel()
