"""A table whose every seat is auto-played pauses instead of playing the match out by itself: a
seat coming back resumes it; nobody coming back within the pause dissolves it as a technical
draw, recorded in the log and reported to matchmaking."""

from __future__ import annotations

import time

from hebei.table import seat as table_module  # where BOT_SETTLE_SECONDS is read
from hebei.v1 import table_pb2
from hebei.v1 import types_pb2 as pb
from tests.integration.table.conftest import OPERATOR, SeatClient, new_match_request, play_clients
from tests.integration.table.helpers import stored_events, wait_for

PLAYED = {"discard", "win", "pong", "exposed_kong", "concealed_kong", "added_kong", "pass"}


def get(engine, match_id: str) -> table_pb2.MatchInfo:
    return engine.stub.GetMatch(table_pb2.GetMatchRequest(match_id=match_id), timeout=10).match


def auto_actions(events: list[dict]) -> list[dict]:
    return [e for e in events if e["type"] in PLAYED and e.get("auto")]


def logged(engine, match_id: str) -> list[dict]:
    """The match's log as the table has it now (the stored one may lag by a few ms)."""
    table = engine.engine.host.get(match_id)
    with table.lock:
        return [entry.event for entry in table.log]


def _state(engine, match_id: str) -> str:
    """What a failed wait saw: the match as GetMatch reports it and the log's last events."""
    tail = [(e["type"], e.get("seat"), e.get("reason")) for e in logged(engine, match_id)[-12:]]
    return f"{get(engine, match_id)} last events: {tail}"


def test_a_match_nobody_joins_pauses_then_is_dissolved_as_a_technical_draw(
    start_engine, matchmaking
) -> None:
    engine = start_engine(ready_seconds=0.2, pause_seconds=1.5)
    request = new_match_request(hands=8)
    engine.stub.OpenMatch(request, metadata=OPERATOR, timeout=10)
    match_id = request.match_id
    assert wait_for(lambda: get(engine, match_id).paused, timeout=20)
    info = get(engine, match_id)
    assert info.status == pb.MATCH_STATUS_PLAYING and info.hands_played == 0
    assert wait_for(lambda: get(engine, match_id).status == pb.MATCH_STATUS_DISSOLVED, timeout=30)
    stored = lambda: stored_events(engine.engine.store, match_id)  # noqa: E731
    assert wait_for(lambda: stored()[-1]["type"] == "match_dissolved", timeout=10)
    events = stored()
    assert not auto_actions(events)  # the machine played nothing for anybody
    kinds = [e["type"] for e in events]
    assert "match_paused" in kinds and kinds[-1] == "match_dissolved"
    assert events[-1]["reason"].startswith("technical draw: nobody came back within 1.5 s")
    assert wait_for(lambda: match_id in matchmaking.servicer.results, timeout=20)
    result = matchmaking.servicer.results[match_id]
    assert result.status == pb.MATCH_STATUS_DISSOLVED and result.reason == events[-1]["reason"]
    assert [s.score for s in result.seats] == [0, 0, 0, 0]


def test_a_seat_joining_a_paused_match_resumes_it(start_engine) -> None:
    engine = start_engine(ready_seconds=0.2, pause_seconds=60)
    request = new_match_request(hands=1, kind=pb.SEAT_KIND_PERSON)
    engine.stub.OpenMatch(request, metadata=OPERATOR, timeout=10)
    match_id = request.match_id
    assert wait_for(lambda: get(engine, match_id).paused, timeout=20)
    client = SeatClient(engine.channel, match_id, 2).start()
    client.join(60)
    assert client.error is None and client.answers > 0
    info = get(engine, match_id)
    assert info.status == pb.MATCH_STATUS_FINISHED and not info.paused
    events = stored_events(engine.engine.store, match_id)
    kinds = [e["type"] for e in events]
    resumed = kinds.index("match_resumed")
    assert kinds.index("match_paused") < resumed
    assert not auto_actions(events[:resumed])  # nothing was played while nobody was there
    assert auto_actions(events[resumed:])  # then the three absent seats are auto-played


def test_every_seat_dropping_at_once_pauses_without_any_auto_play(start_engine) -> None:
    """A bot worker holding all four seats dies: its four streams end together."""
    engine = start_engine(pause_seconds=60)
    request = new_match_request(hands=2, per_decision=30.0)
    engine.stub.OpenMatch(request, metadata=OPERATOR, timeout=10)
    match_id = request.match_id
    clients = play_clients(engine.channel, match_id, delay=0.02)
    assert wait_for(lambda: sum(c.answers for c in clients) >= 8, timeout=30)
    for client in clients:
        client.close()
    assert wait_for(lambda: get(engine, match_id).paused, timeout=20), _state(engine, match_id)
    time.sleep(1.0)  # well past the moment the engine would play for a dropped seat
    assert not auto_actions(logged(engine, match_id))
    # The seats come back (the worker's tasks are redelivered) and finish the match.
    again = play_clients(engine.channel, match_id, seed=5)
    for client in again:
        client.join(60)
        assert client.error is None
    assert get(engine, match_id).status == pb.MATCH_STATUS_FINISHED
    events = stored_events(engine.engine.store, match_id)
    assert not auto_actions(events)


def test_one_bot_seat_not_taken_over_pauses_the_others_and_its_return_resumes(
    start_engine, monkeypatch
) -> None:
    """A bot worker holding one seat dies and the fleet does not take the seat over within
    BOT_SETTLE_SECONDS: the table pauses when that seat must act (the three others waiting),
    instead of playing it for the rest of the match; it comes back and the match goes on."""
    monkeypatch.setattr(table_module, "BOT_SETTLE_SECONDS", 0.5)
    engine = start_engine(pause_seconds=60)
    request = new_match_request(hands=2, per_decision=30.0)  # seat 1 acts again, surely
    engine.stub.OpenMatch(request, metadata=OPERATOR, timeout=10)
    match_id = request.match_id
    clients = play_clients(engine.channel, match_id, delay=0.02)
    assert wait_for(lambda: sum(c.answers for c in clients) >= 8, timeout=30)
    clients[1].close()
    assert wait_for(lambda: get(engine, match_id).paused, timeout=30), _state(engine, match_id)
    events = logged(engine, match_id)
    paused = [e for e in events if e["type"] == "match_paused"]
    assert paused[-1]["reason"] == "the bot fleet has not filled seat 1"
    assert not auto_actions(events)
    back = SeatClient(engine.channel, match_id, 1, seed=7).start()
    for client in (clients[0], clients[2], clients[3], back):
        client.join(60)
        assert client.error is None
    assert get(engine, match_id).status == pb.MATCH_STATUS_FINISHED
    assert not auto_actions(stored_events(engine.engine.store, match_id))


def test_every_seat_handing_over_pauses_and_taking_over_resumes(start_engine) -> None:
    engine = start_engine(pause_seconds=60)
    request = new_match_request(hands=1, per_decision=30.0)
    engine.stub.OpenMatch(request, metadata=OPERATOR, timeout=10)
    match_id = request.match_id
    clients = play_clients(engine.channel, match_id, delay=0.05)  # a match of some seconds
    assert wait_for(lambda: clients[0].answers >= 1, timeout=30)
    for client in clients:
        client.send(pb.Action(kind=pb.ACTION_KIND_HAND_OVER))
    assert wait_for(lambda: get(engine, match_id).paused, timeout=20)
    played_before = len(auto_actions(logged(engine, match_id)))
    time.sleep(0.5)
    assert len(auto_actions(logged(engine, match_id))) == played_before
    clients[1].send(pb.Action(kind=pb.ACTION_KIND_TAKE_OVER))
    assert wait_for(lambda: not get(engine, match_id).paused, timeout=20)
    assert wait_for(lambda: get(engine, match_id).status == pb.MATCH_STATUS_FINISHED, timeout=60)
