"""TableService around the game: ready check, spectating, dissolving, listing, many tables."""

from __future__ import annotations

import dataclasses
import threading
import time

import grpc
import pytest
from prometheus_client import REGISTRY

from hebei.rules.replay import replay_match
from hebei.table.streams import BACKLOG_CHUNK
from hebei.v1 import table_pb2
from hebei.v1 import types_pb2 as pb
from tests.integration.table.conftest import (
    OPERATOR,
    SeatClient,
    new_match_request,
    play_clients,
)
from tests.integration.table.helpers import rules_events, stored_events, wait_for


def metric(name: str, labels: dict[str, str] | None = None) -> float:
    return REGISTRY.get_sample_value(name, labels or {}) or 0.0


def get(engine, match_id: str) -> table_pb2.MatchInfo:
    return engine.stub.GetMatch(table_pb2.GetMatchRequest(match_id=match_id)).match


def test_absent_seats_are_auto_played_after_the_ready_check(start_engine) -> None:
    engine = start_engine(ready_seconds=0.3)
    request = new_match_request(hands=1, seed=9, kind=pb.SEAT_KIND_PERSON)
    engine.stub.OpenMatch(request, metadata=OPERATOR)
    absent_before = metric("hebei_table_auto_plays_total", {"reason": "absent"})
    client = SeatClient(engine.channel, request.match_id, 2).start()
    assert get(engine, request.match_id).status in (
        pb.MATCH_STATUS_WAITING,
        pb.MATCH_STATUS_PLAYING,
    )
    client.join(30)
    assert client.error is None
    info = get(engine, request.match_id)
    assert info.status == pb.MATCH_STATUS_FINISHED
    assert [s.connected for s in info.seats] == [False, False, False, False]
    events = stored_events(engine.engine.store, request.match_id)
    absent = {e["seat"] for e in events if e["type"] == "seat_auto" and e["reason"] == "absent"}
    assert absent == {0, 1, 3}
    assert client.answers > 0  # the present seat played its own decisions
    assert metric("hebei_table_auto_plays_total", {"reason": "absent"}) > absent_before
    # The waiting client saw the table before the start.
    assert client.observations[0].phase in (pb.PHASE_WAITING, pb.PHASE_TURN, pb.PHASE_CLAIM)


def test_a_bot_seat_the_fleet_did_not_fill_pauses_the_table_until_it_comes(start_engine) -> None:
    """An absent bot seat is the platform's failure (the fleet is down or behind), not a
    player's choice: the table pauses when that seat must act, instead of playing it and
    letting the outage decide the match; the bot joining resumes it."""
    engine = start_engine(ready_seconds=0.3, pause_seconds=60)
    request = new_match_request(hands=1, seed=9)  # four bot seats
    engine.stub.OpenMatch(request, metadata=OPERATOR)
    present = [SeatClient(engine.channel, request.match_id, s).start() for s in (1, 2, 3)]
    assert wait_for(lambda: get(engine, request.match_id).paused, timeout=30)

    def paused_event() -> dict | None:  # GetTable reads memory; the log's commit comes after
        found = stored_events(engine.engine.store, request.match_id)
        return next((e for e in found if e["type"] == "match_paused"), None)

    assert wait_for(lambda: paused_event() is not None, timeout=30)
    paused = paused_event()
    events = stored_events(engine.engine.store, request.match_id)
    assert paused["reason"] == "the bot fleet has not filled seat 0"
    assert not any(e.get("auto") for e in events)  # nothing was played for the absent seat
    late = SeatClient(engine.channel, request.match_id, 0).start()  # the fleet is back
    for client in (*present, late):
        client.join(60)
        assert client.error is None
    info = get(engine, request.match_id)
    assert info.status == pb.MATCH_STATUS_FINISHED and not info.paused
    events = stored_events(engine.engine.store, request.match_id)
    assert "match_resumed" in [e["type"] for e in events]
    assert not any(e.get("auto") for e in events)


def test_spectators_follow_live_and_catch_up(engine) -> None:
    request = new_match_request(hands=3, seed=13)
    engine.stub.OpenMatch(request, metadata=OPERATOR)
    live: list[pb.Event] = []

    def watch() -> None:
        for message in engine.stub.Spectate(
            table_pb2.SpectateRequest(match_id=request.match_id, from_seq=0)
        ):
            live.append(message.event)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    time.sleep(0.2)
    for client in play_clients(engine.channel, request.match_id, delay=0.001):
        client.join(60)
    watcher.join(20)
    assert not watcher.is_alive()  # the stream ends with the match
    full = [
        m.event
        for m in engine.stub.Spectate(
            table_pb2.SpectateRequest(match_id=request.match_id, from_seq=1)
        )
    ]
    assert [e.seq for e in full] == list(range(1, len(full) + 1))
    assert len(full) > BACKLOG_CHUNK  # the backlog came in chunks: none lost or repeated
    types = [e.type for e in full]
    assert types[:5].count(pb.EVENT_TYPE_SEAT_CONNECTED) == 4  # then the match starts
    assert types[4] == pb.EVENT_TYPE_MATCH_START and types[5] == pb.EVENT_TYPE_HAND_START
    assert live and live == full[len(full) - len(live) :]
    assert full[-1].type == pb.EVENT_TYPE_MATCH_END
    hand_ends = [e for e in full if e.type == pb.EVENT_TYPE_HAND_END]
    assert [e.settlement.idempotency_key for e in hand_ends] == [
        f"{request.match_id}:{n}" for n in (1, 2, 3)
    ]
    assert get(engine, request.match_id).event_count == len(full)
    tail = list(
        engine.stub.Spectate(
            table_pb2.SpectateRequest(match_id=request.match_id, from_seq=len(full) - 1)
        )
    )
    assert [m.event.seq for m in tail] == [len(full) - 1, len(full)]


def test_dissolve_ends_the_match_and_reports_it(engine, matchmaking) -> None:
    request = new_match_request(hands=4, seed=17, per_decision=30.0)
    engine.stub.OpenMatch(request, metadata=OPERATOR)
    clients = play_clients(engine.channel, request.match_id, stop_after=3)
    assert wait_for(lambda: get(engine, request.match_id).status == pb.MATCH_STATUS_PLAYING)
    assert wait_for(lambda: sum(c.answers for c in clients) >= 6)
    with pytest.raises(grpc.RpcError) as caught:
        engine.stub.Dissolve(table_pb2.DissolveRequest(match_id=request.match_id))
    assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
    info = engine.stub.Dissolve(
        table_pb2.DissolveRequest(match_id=request.match_id, reason="operator test"),
        metadata=OPERATOR,
    ).match
    assert info.status == pb.MATCH_STATUS_DISSOLVED and info.seed == 17
    for client in clients:
        client.join(10)
        assert client.finished.is_set() and client.error is None
        assert client.observations[-1].match_finished
    events = stored_events(engine.engine.store, request.match_id)
    assert events[-1] == {"type": "match_dissolved", "reason": "operator test"}
    assert wait_for(lambda: request.match_id in matchmaking.servicer.results)
    result = matchmaking.servicer.results[request.match_id]
    assert result.status == pb.MATCH_STATUS_DISSOLVED and result.reason == "operator test"
    # Joining a dissolved match gives its final state and ends.
    late = SeatClient(engine.channel, request.match_id, 0).start()
    late.join(10)
    assert late.observations and late.observations[-1].match_finished


def test_list_tables_filters_and_pages(engine) -> None:
    requests = [new_match_request(tournament_id="cup-7", round_no=1) for _ in range(5)]
    for request in requests:
        engine.stub.OpenMatch(request, metadata=OPERATOR)
    engine.stub.OpenMatch(new_match_request(tournament_id="other"), metadata=OPERATOR)
    seen, token = [], ""
    while True:
        page = engine.stub.ListTables(
            table_pb2.ListTablesRequest(tournament_id="cup-7", page_size=2, page_token=token)
        )
        assert len(page.matches) <= 2
        seen += [m.match_id for m in page.matches]
        token = page.next_page_token
        if not token:
            break
    assert seen == sorted(r.match_id for r in requests)
    waiting = engine.stub.ListTables(
        table_pb2.ListTablesRequest(tournament_id="cup-7", status=pb.MATCH_STATUS_FINISHED)
    )
    assert list(waiting.matches) == []


def test_sixty_four_tables_at_once(start_engine) -> None:
    """64 concurrent matches in one process: 8 driven by four clients each, 56 by one client
    whose three absent opponents are auto-played after the ready check; every match finishes
    and replays."""
    engine = start_engine(ready_seconds=0.5)
    requests = [
        new_match_request(hands=1, seed=100 + i, table_id=f"t{i}", kind=pb.SEAT_KIND_PERSON)
        for i in range(64)
    ]
    for request in requests:
        engine.stub.OpenMatch(request, metadata=OPERATOR)
    assert engine.engine.host.active >= 64
    assert metric("hebei_table_tables_active") >= 64
    clients = [c for r in requests[:8] for c in play_clients(engine.channel, r.match_id)]
    clients += [SeatClient(engine.channel, r.match_id, 0).start() for r in requests[8:]]
    for client in clients:
        client.join(90)
        assert client.error is None
    for request in requests:
        assert wait_for(lambda r=request: get(engine, r.match_id).hands_played == 1, timeout=30)
        events = stored_events(engine.engine.store, request.match_id)
        assert replay_match(rules_events(events)).finished
    assert metric("hebei_table_event_log_batch_size_count") > 0
    assert (
        metric("hebei_table_hands_completed_total", {"outcome": "win"})
        + metric("hebei_table_hands_completed_total", {"outcome": "exhaustive_draw"})
        >= 64
    )


def test_spectators_beyond_their_quota_are_refused_and_seats_still_join(start_engine) -> None:
    engine = start_engine(max_spectators=2, max_spectators_per_peer=2, ready_seconds=60)
    request = new_match_request()
    engine.stub.OpenMatch(request, metadata=OPERATOR)
    spectate = table_pb2.SpectateRequest(match_id=request.match_id, from_seq=1)
    held = [engine.stub.Spectate(spectate) for _ in range(2)]
    assert wait_for(lambda: engine.engine.servicer.spectators.open == 2)
    with pytest.raises(grpc.RpcError) as caught:
        next(engine.stub.Spectate(spectate))
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "spectate streams" in caught.value.details()
    # Watchers at their quota never keep a seat from joining its match.
    seat = SeatClient(engine.channel, request.match_id, 0).start()
    assert wait_for(lambda: get(engine, request.match_id).seats[0].connected)
    seat.close()
    for call in held:
        call.cancel()
    # Once they are gone, streams are accepted again.
    assert wait_for(lambda: engine.engine.servicer.spectators.open == 0)
    engine.stub.Dissolve(table_pb2.DissolveRequest(match_id=request.match_id), metadata=OPERATOR)
    assert list(engine.stub.Spectate(spectate))[-1].event.type == pb.EVENT_TYPE_MATCH_DISSOLVED


def test_ended_tables_leave_memory_and_reload_from_the_log(start_engine) -> None:
    engine = start_engine(ready_seconds=0.2)
    host = engine.engine.host
    host.settings = dataclasses.replace(host.settings, keep_finished=1)
    requests = [new_match_request(hands=1, seed=60 + i, kind=pb.SEAT_KIND_PERSON) for i in range(2)]
    for request in requests:
        engine.stub.OpenMatch(request, metadata=OPERATOR)
        SeatClient(engine.channel, request.match_id, 0).start()  # the others are absent
    for request in requests:
        assert wait_for(lambda r=request: get(engine, r.match_id).hands_played == 1)
    first = requests[0].match_id
    # Reads let the oldest ended table go once its log is durable.
    assert wait_for(lambda: host.get(requests[1].match_id) and first not in host._tables)
    info = get(engine, first)  # rebuilt from the log by replaying it
    assert info.status == pb.MATCH_STATUS_FINISHED and info.seed == 60
    events = stored_events(engine.engine.store, first)
    assert [s.score for s in info.seats] == replay_match(rules_events(events)).scores


def test_a_flood_of_anonymous_spectators_never_keeps_seats_from_joining(start_engine) -> None:
    """~1,100 anonymous spectator streams used to take every stream slot, and then every
    seat's Join was RESOURCE_EXHAUSTED. Spectators have quotas of their own now."""
    engine = start_engine(ready_seconds=60)
    request = new_match_request(hands=1)
    engine.stub.OpenMatch(request, metadata=OPERATOR)
    watch = table_pb2.SpectateRequest(match_id=request.match_id, from_seq=1)
    quota = engine.engine.servicer.spectators.per_peer
    held = [engine.stub.Spectate(watch, timeout=120) for _ in range(quota)]
    assert wait_for(lambda: engine.engine.servicer.spectators.open == quota)
    for _ in range(1100 - quota):  # one client address: beyond its quota, refused at once
        with pytest.raises(grpc.RpcError) as caught:
            next(engine.stub.Spectate(watch, timeout=30))
        assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    for client in play_clients(engine.channel, request.match_id):
        client.join(60)
        assert client.error is None and client.observations[-1].match_finished
    for call in held:
        call.cancel()


def test_old_matches_are_read_without_taking_the_engine(start_engine) -> None:
    """An ended match no longer in memory: GetMatch answers from its stored row (no log read
    back), and reading logs back (a Spectate of it) runs ``max_cold_loads`` at once, more being
    RESOURCE_EXHAUSTED, so public calls cycling through old matches cannot take the threads
    the seats need."""
    engine = start_engine(keep_finished=0, max_cold_loads=1)
    request = new_match_request(hands=1, seed=23, per_decision=7.0, bank=3.0)
    engine.stub.OpenMatch(request, metadata=OPERATOR)
    for client in play_clients(engine.channel, request.match_id, delay=0.0):
        client.join(60)
    host = engine.engine.host
    # Evicted once its log is durable; from then on GetMatch answers from the row, loading
    # nothing.
    assert wait_for(
        lambda: bool(get(engine, request.match_id)) and request.match_id not in host._tables
    )
    info = get(engine, request.match_id)
    assert request.match_id not in host._tables
    assert info.status == pb.MATCH_STATUS_FINISHED and info.hands_played == 1
    assert info.seed == request.seed and sum(s.score for s in info.seats) == 0
    assert info.time_control.per_decision.seconds == 7 and info.time_control.time_bank.seconds == 3
    spectate = table_pb2.SpectateRequest(match_id=request.match_id, from_seq=1)

    assert host._cold_loads.acquire(blocking=False)  # another old match being read back
    try:
        with pytest.raises(grpc.RpcError) as refused:
            list(engine.stub.Spectate(spectate, timeout=30))
        assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "other finished matches" in refused.value.details()
        assert get(engine, request.match_id).status == pb.MATCH_STATUS_FINISHED  # still read
    finally:
        host._cold_loads.release()
    events = [m.event for m in engine.stub.Spectate(spectate, timeout=30)]
    assert len(events) == info.event_count and events[-1].type == pb.EVENT_TYPE_MATCH_END
