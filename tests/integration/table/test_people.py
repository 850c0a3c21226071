"""People in tournaments, on the table engine: ReplaceSeat (a bot takes a removed player's seat,
the old token revoked at once and after a restart), bots filling people's seats (Join.bot,
SeatInfo.played_by), SeatInfo.person_joined, ConcludeMatch (a round's time limit) and the seeds
of evaluation matches, withheld while a match sharing the wall is live.

Every wait is for a state (``wait_for`` with a long bound), never a margin of time: the seats
that must not move are idle clients with the longest decision time there is."""

from __future__ import annotations

import uuid

import grpc
import pytest

from hebei.rules.replay import replay_log
from hebei.table.export import export_match_log
from hebei.v1 import table_pb2
from hebei.v1 import types_pb2 as pb
from tests.integration.table.conftest import (
    LOG_KEY,
    OPERATOR,
    SeatClient,
    new_match_request,
    play_clients,
    token_of,
)
from tests.integration.table.helpers import rules_events, stored_events, wait_for

IDLE = 300.0  # seconds a decision may take: the longest there is (an idle seat never times out)
REASON = "removed by the operator"
REVOKED = f"your seat was given to a bot: {REASON}"
BOT_NAME = "bot for Player 0"


def get(engine, match_id: str) -> table_pb2.MatchInfo:
    return engine.stub.GetMatch(table_pb2.GetMatchRequest(match_id=match_id), timeout=10).match


def people_match(engine, **fields) -> table_pb2.OpenMatchRequest:
    """A match of four people (a drawn seed unless one is given), opened."""
    fields.setdefault("seed", 0)
    request = new_match_request(kind=pb.SEAT_KIND_PERSON, per_decision=IDLE, **fields)
    engine.stub.OpenMatch(request, metadata=OPERATOR, timeout=10)
    return request


def idle(engine, match_id: str, seats=range(4), **kwargs) -> list[SeatClient]:
    """Seat clients that join and never answer (the match stands at its first decision)."""
    return [
        SeatClient(engine.channel, match_id, seat, stop_after=0, **kwargs).start() for seat in seats
    ]


def playing(engine, match_id: str) -> bool:
    info = get(engine, match_id)
    return info.status == pb.MATCH_STATUS_PLAYING and info.hand_no >= 1


def refusal(engine, match_id: str, seat: int, token: str) -> grpc.RpcError:
    """The error a Join with ``token`` ends with."""
    client = SeatClient(engine.channel, match_id, seat, token=token, stop_after=0).start()
    assert client.finished.wait(30), "the Join was not answered"
    assert client.error is not None, "the Join was accepted"
    return client.error


def close(clients: list[SeatClient]) -> None:
    for client in clients:
        client.close()
    for client in clients:
        client.join(30)


def replace(engine, match_id: str, **fields) -> table_pb2.MatchInfo:
    request = table_pb2.ReplaceSeatRequest(match_id=match_id, **fields)
    return engine.stub.ReplaceSeat(request, metadata=OPERATOR, timeout=10).match


def conclude(engine, match_id: str, reason: str = "the round's time limit") -> table_pb2.MatchInfo:
    request = table_pb2.ConcludeMatchRequest(match_id=match_id, reason=reason)
    return engine.stub.ConcludeMatch(request, metadata=OPERATOR, timeout=10).match


def last_seats(client: SeatClient) -> list[pb.SeatView]:
    return list(client.observations[-1].seats) if client.observations else []


def shown_at(client: SeatClient, seat: int) -> str | None:
    """The name the client's last observation shows at ``seat``; None before it shows seats
    (a wait polls from the match's first moment, when the last observation may have none)."""
    seats = last_seats(client)
    return seats[seat].player_name if seat < len(seats) else None


# ----------------------------------------------------------------------------- ReplaceSeat


def test_replace_seat_revokes_the_old_token_at_once_and_after_a_restart(start_engine) -> None:
    first = start_engine(ready_seconds=IDLE)
    request = people_match(first)
    match_id, old = request.match_id, token_of(request.match_id, 0)
    clients = idle(first, match_id)
    assert wait_for(lambda: playing(first, match_id))
    new = f"bot-token-{uuid.uuid4().hex}"

    info = replace(first, match_id, seat=0, seat_token=new, played_by=BOT_NAME, reason=REASON)
    assert info.seats[0].played_by == BOT_NAME and info.seats[0].player_name == "Player 0"
    # The stream holding the seat with the old token ends at once, with the reason.
    assert clients[0].finished.wait(30)
    assert clients[0].error.code() == grpc.StatusCode.PERMISSION_DENIED
    assert clients[0].error.details() == REVOKED
    assert not any(c.finished.is_set() for c in clients[1:])  # the others play on
    # The other seats see the seat as played by the bot, never as the person.
    assert wait_for(lambda: [v.player_name for v in last_seats(clients[1])][:1] == [BOT_NAME])
    # A Join with the old token is refused with the same reason; a wrong token as before.
    error = refusal(first, match_id, 0, old)
    assert (error.code(), error.details()) == (grpc.StatusCode.PERMISSION_DENIED, REVOKED)
    error = refusal(first, match_id, 0, "not-the-token-of-any-seat")
    assert error.code() == grpc.StatusCode.UNAUTHENTICATED
    # The same request again changes nothing.
    replace(first, match_id, seat=0, seat_token=new, played_by=BOT_NAME, reason=REASON)
    # The new token joins.
    bot = SeatClient(first.channel, match_id, 0, token=new, bot=True, stop_after=0).start()
    assert wait_for(lambda: get(first, match_id).seats[0].connected)
    assert wait_for(lambda: [v.player_name for v in last_seats(bot)][:1] == [BOT_NAME])
    # Its observation left once its join was durable, and so was all that came before it: one
    # replacement, logged without the tokens.
    events = stored_events(first.engine.store, match_id)
    assert {"type": "seat_connected", "seat": 0, "bot": True} in events
    assert sum(e["type"] == "seat_replaced" for e in events) == 1
    assert new not in str(events) and old not in str(events)
    close([bot, *clients[1:]])
    first.close()

    second = start_engine(ready_seconds=IDLE)  # the replacement is read back from the log
    error = refusal(second, match_id, 0, old)
    assert (error.code(), error.details()) == (grpc.StatusCode.PERMISSION_DENIED, REVOKED)
    assert get(second, match_id).seats[0].played_by == BOT_NAME
    bot = SeatClient(second.channel, match_id, 0, token=new, bot=True, stop_after=0).start()
    assert wait_for(lambda: get(second, match_id).seats[0].connected)
    assert wait_for(lambda: [v.player_name for v in last_seats(bot)][:1] == [BOT_NAME])
    close([bot])


def test_replace_seat_without_a_token_changes_only_who_is_shown(start_engine) -> None:
    engine = start_engine(ready_seconds=IDLE)  # it starts once the four seats joined
    request = people_match(engine)
    match_id = request.match_id
    clients = idle(engine, match_id)
    assert wait_for(lambda: playing(engine, match_id))
    info = replace(engine, match_id, seat=2, played_by="bot for Player 2")
    assert [s.played_by for s in info.seats] == ["", "", "bot for Player 2", ""]
    assert wait_for(lambda: shown_at(clients[0], 2) == "bot for Player 2")
    assert not clients[2].finished.is_set()  # the seat keeps its stream and its token
    again = SeatClient(engine.channel, match_id, 2, stop_after=0).start()
    assert wait_for(lambda: clients[2].finished.is_set())
    assert clients[2].error.code() == grpc.StatusCode.ABORTED  # replaced by the new stream
    assert again.error is None
    close([again, *clients])


def test_replace_seat_refusals(engine) -> None:
    request = people_match(engine)
    match_id = request.match_id

    def refused(**fields) -> grpc.RpcError:
        with pytest.raises(grpc.RpcError) as caught:
            replace(engine, **fields)
        return caught.value

    token = "a-new-seat-token-0123"
    error = refused(match_id="no-such-match", seat=0, seat_token=token, played_by="bot")
    assert error.code() == grpc.StatusCode.NOT_FOUND
    for fields, words in (
        (dict(seat=4, played_by="bot"), "seat must be 0-3"),
        (dict(seat=0, played_by=""), "played_by is required"),
        (dict(seat=0, played_by="b" * 65), "played_by must be at most 64"),
        (dict(seat=0, played_by="bot", seat_token="short"), "seat_token must be 16-256"),
        (dict(seat=0, played_by="bot", seat_token="with space 0123456"), "seat_token"),
        (dict(seat=0, played_by="bot", reason="r" * 257), "reason must be at most 256"),
        (dict(seat=0, played_by="bot\n"), "control characters"),
    ):
        error = refused(match_id=match_id, **fields)
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, fields
        assert words in error.details(), (fields, error.details())
    with pytest.raises(grpc.RpcError) as caught:  # the service token's role at least
        engine.stub.ReplaceSeat(
            table_pb2.ReplaceSeatRequest(match_id=match_id, seat=0, played_by="bot"), timeout=10
        )
    assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
    engine.stub.Dissolve(table_pb2.DissolveRequest(match_id=match_id), metadata=OPERATOR)
    error = refused(match_id=match_id, seat=0, seat_token=token, played_by="bot")
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert get(engine, match_id).seats[0].played_by == ""


# ----------------------------------------------------------------------------- bots, people


def test_a_bot_in_a_persons_seat_is_shown_as_a_filler_until_the_person_is_back(
    start_engine,
) -> None:
    engine = start_engine(ready_seconds=IDLE)  # it starts once the four seats joined
    request = people_match(engine)
    match_id = request.match_id
    filler = idle(engine, match_id, seats=[0], bot=True)[0]
    people = idle(engine, match_id, seats=[1, 2, 3])
    assert wait_for(lambda: playing(engine, match_id))
    info = get(engine, match_id)
    assert [s.played_by for s in info.seats] == ["filler for Player 0", "", "", ""]
    assert [s.person_joined for s in info.seats] == [False, True, True, True]
    assert info.seats[0].player_name == "Player 0"  # the player's name stays the player's
    assert wait_for(lambda: shown_at(people[0], 0) == "filler for Player 0")
    # The person takes the seat back: the filler's stream ends, the seat is theirs again.
    person = idle(engine, match_id, seats=[0])[0]
    assert wait_for(lambda: filler.finished.is_set())
    # FAILED_PRECONDITION, which the fleet's sessions do not retry (ABORTED they would, and
    # push the person out again with their lease).
    assert filler.error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert filler.error.details() == "the seat's person took it back"
    info = get(engine, match_id)
    assert [s.played_by for s in info.seats] == ["", "", "", ""]
    assert all(s.person_joined for s in info.seats)
    assert wait_for(lambda: shown_at(people[0], 0) == "Player 0")
    # A filler sent again meanwhile (a requeue) is refused and the person plays on.
    again = idle(engine, match_id, seats=[0], bot=True)[0]
    assert wait_for(lambda: again.finished.is_set())
    assert again.error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "the seat's person is at the table" in again.error.details()
    assert get(engine, match_id).seats[0].played_by == ""
    assert person.error is None and not person.finished.is_set()
    close([person, *people])


def test_person_joined_and_played_by_are_kept_in_the_stored_row(start_engine) -> None:
    """Seat 0's person never came, a bot filled seat 3: after the match and a restart (the
    ended match is answered from its row, not its log) that is still what GetMatch and
    ListTables say."""
    first = start_engine(ready_seconds=0.5)
    request = people_match(first, tournament_id="tour-people", round_no=3)
    match_id = request.match_id
    clients = [
        *idle(first, match_id, seats=[1, 2]),
        *idle(first, match_id, seats=[3], bot=True),
    ]
    assert wait_for(lambda: playing(first, match_id))  # the ready check ends: seat 0 absent
    assert wait_for(lambda: all(s.connected for s in get(first, match_id).seats[1:]))
    info = get(first, match_id)
    assert [s.person_joined for s in info.seats] == [False, True, True, False]
    assert [s.played_by for s in info.seats] == ["", "", "", "filler for Player 3"]
    first.stub.Dissolve(table_pb2.DissolveRequest(match_id=match_id), metadata=OPERATOR)
    close(clients)
    first.close()

    second = start_engine()
    assert match_id not in second.engine.host._tables  # read from its row
    listed = second.stub.ListTables(
        table_pb2.ListTablesRequest(tournament_id="tour-people"), timeout=10
    ).matches
    for info in (get(second, match_id), *listed):
        assert info.status == pb.MATCH_STATUS_DISSOLVED
        assert [s.person_joined for s in info.seats] == [False, True, True, False]
        assert [s.played_by for s in info.seats] == ["", "", "", "filler for Player 3"]


# ----------------------------------------------------------------------------- ConcludeMatch


def test_conclude_mid_hand_ends_after_that_hand_even_across_a_restart(
    start_engine, matchmaking
) -> None:
    first = start_engine(ready_seconds=IDLE)
    request = people_match(first, hands=4)
    match_id = request.match_id
    clients = idle(first, match_id)
    assert wait_for(lambda: playing(first, match_id))

    info = conclude(first, match_id)
    assert info.concluding and info.status == pb.MATCH_STATUS_PLAYING and info.hand_no == 1
    # (nothing moves: the four seats are connected and never answer)
    assert conclude(first, match_id, "asked twice").concluding  # idempotent: nothing more
    close(clients)
    first.close()

    second = start_engine(ready_seconds=IDLE)  # the conclusion is read back from the log
    info = get(second, match_id)
    assert info.concluding and info.status == pb.MATCH_STATUS_PLAYING
    for client in play_clients(second.channel, match_id, seed=4):
        client.join(120)
        assert client.error is None, client.error
    info = get(second, match_id)
    # It ended after the hand in progress, not after its four hands: finished, as it stands.
    assert info.status == pb.MATCH_STATUS_FINISHED and info.hands_played == 1
    assert info.concluding
    events = stored_events(second.engine.store, match_id)
    assert [e for e in events if e["type"] == "match_concluding"] == [
        {"type": "match_concluding", "reason": "the round's time limit"}
    ]
    rules = rules_events(events)
    assert [e["type"] for e in rules[-3:]] == ["hand_end", "match_concluded", "match_end"]
    assert rules[-2]["reason"] == "the round's time limit"
    replayed = replay_log(export_match_log(second.engine.store, match_id), LOG_KEY)
    assert replayed.check.verified and replayed.match.hand_no == 1
    assert replayed.match.scores == [s.score for s in info.seats]
    results = matchmaking.servicer.results
    assert wait_for(lambda: match_id in results)
    assert results[match_id].status == pb.MATCH_STATUS_FINISHED
    assert results[match_id].hands_played == 1 and results[match_id].reason == ""


def test_conclude_a_waiting_match_ends_it_at_once(start_engine, matchmaking) -> None:
    engine = start_engine(ready_seconds=IDLE)  # it waits for its seats until concluded
    request = people_match(engine, hands=4)
    match_id = request.match_id
    info = conclude(engine, match_id)
    assert info.status == pb.MATCH_STATUS_FINISHED and info.concluding
    assert info.hands_played == 0 and [s.score for s in info.seats] == [0, 0, 0, 0]
    assert conclude(engine, match_id, "again").status == pb.MATCH_STATUS_FINISHED
    assert wait_for(
        lambda: "match_end" in [e["type"] for e in stored_events(engine.engine.store, match_id)]
    )
    replayed = replay_log(export_match_log(engine.engine.store, match_id), LOG_KEY)
    assert replayed.check.verified and replayed.match.finished and replayed.match.hand_no == 0
    assert wait_for(lambda: match_id in matchmaking.servicer.results)
    assert matchmaking.servicer.results[match_id].status == pb.MATCH_STATUS_FINISHED
    with pytest.raises(grpc.RpcError) as caught:
        conclude(engine, "no-such-match")
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    with pytest.raises(grpc.RpcError) as caught:
        conclude(engine, match_id, "r" * 257)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT


# ----------------------------------------------------------------------------- seeds


def spectated_seed(engine, match_id: str) -> int:
    request = table_pb2.SpectateRequest(match_id=match_id, from_seq=1)
    events = [m.event for m in engine.stub.Spectate(request, timeout=30)]
    assert events[-1].type == pb.EVENT_TYPE_MATCH_END
    return events[-1].seed


def test_an_evaluation_seed_is_withheld_while_a_match_sharing_its_wall_is_live(
    start_engine,
) -> None:
    """Duplicate mode: the matches of a tournament round share a wall (one seed). The seed of
    one that ended is published only once none of them is live, on every read: GetMatch,
    ListTables, Spectate's MATCH_END, live or read back after a restart."""
    first = start_engine(ready_seconds=IDLE)  # the matches wait for their seats throughout
    tour = f"tour-{uuid.uuid4().hex[:8]}"
    a, b, c = (people_match(first, seed=4242, tournament_id=tour, round_no=2) for _ in range(3))
    other_round = people_match(first, seed=77, tournament_id=tour, round_no=1)
    conclude(first, a.match_id)
    conclude(first, b.match_id)
    conclude(first, other_round.match_id)  # another wall, nothing live shares it
    for match_id in (a.match_id, b.match_id):
        assert get(first, match_id).status == pb.MATCH_STATUS_FINISHED
        assert get(first, match_id).seed == 0
        assert spectated_seed(first, match_id) == 0
    assert get(first, other_round.match_id).seed == 77
    first.close()

    second = start_engine(
        ready_seconds=IDLE
    )  # a and b are read from their rows and logs, c is live
    listed = {
        m.match_id: m
        for m in second.stub.ListTables(
            table_pb2.ListTablesRequest(tournament_id=tour), timeout=10
        ).matches
    }
    assert listed[a.match_id].status == pb.MATCH_STATUS_FINISHED
    assert listed[a.match_id].seed == listed[b.match_id].seed == 0
    assert get(second, a.match_id).seed == 0 and spectated_seed(second, a.match_id) == 0

    conclude(second, c.match_id)  # the last match of the wall ends: all three are published
    for match_id in (a.match_id, b.match_id, c.match_id):
        assert get(second, match_id).seed == 4242
        assert spectated_seed(second, match_id) == 4242
    listed = second.stub.ListTables(table_pb2.ListTablesRequest(tournament_id=tour)).matches
    assert {m.seed for m in listed} == {4242, 77}
