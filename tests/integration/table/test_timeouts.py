"""Time control: a silent seat is auto-played after its deadline, then reconnects and plays on."""

from __future__ import annotations

from hebei.rules.replay import replay_match
from hebei.v1 import table_pb2
from hebei.v1 import types_pb2 as pb
from tests.integration.table.conftest import OPERATOR, SeatClient, new_match_request
from tests.integration.table.helpers import rules_events, stored_events, wait_for


def test_a_silent_seat_is_auto_played_then_reconnects(engine) -> None:
    request = new_match_request(hands=2, seed=5, per_decision=0.2, bank=0.0)
    engine.stub.OpenMatch(request, metadata=OPERATOR)
    match_id = request.match_id
    others = [SeatClient(engine.channel, match_id, seat, delay=0.01).start() for seat in (0, 2, 3)]
    silent = SeatClient(engine.channel, match_id, 1, stop_after=2).start()
    table = engine.engine.host.get(match_id)

    assert wait_for(lambda: table.info().seats[1].auto_played, timeout=30)
    assert silent.answers == 2
    assert table.info().seats[1].connected  # still connected: late, not gone
    # The silent client is told it is auto-played.
    assert wait_for(lambda: silent.observations[-1].seats[1].auto_played)

    comeback = SeatClient(engine.channel, match_id, 1, delay=0.0).start()
    assert wait_for(lambda: comeback.answers >= 3, timeout=30)
    for client in (*others, comeback):
        client.join(60)
        assert client.error is None
    # The replaced stream was closed by the engine.
    silent.join(10)
    assert silent.finished.is_set()

    events = stored_events(engine.engine.store, match_id)
    autos = [i for i, e in enumerate(events) if e["type"] == "seat_auto" and e["seat"] == 1]
    resumed = [i for i, e in enumerate(events) if e["type"] == "seat_resumed" and e["seat"] == 1]
    assert events[autos[0]]["reason"] == "timeout"
    assert resumed and resumed[0] > autos[0]
    assert events[resumed[0]]["reason"] == "reconnect"
    played = {"discard", "win", "pong", "exposed_kong", "concealed_kong", "added_kong", "pass"}
    between = [
        e for e in events[autos[0] : resumed[0]] if e.get("seat") == 1 and e["type"] in played
    ]
    after = [e for e in events[resumed[0] :] if e.get("seat") == 1 and e["type"] in played]
    assert between and all(e.get("auto") for e in between)  # marked in the log
    assert after and not any(e.get("auto") for e in after)  # plays on by itself
    replayed = replay_match(rules_events(events))
    assert replayed.finished
    info = engine.stub.GetMatch(table_pb2.GetMatchRequest(match_id=match_id)).match
    assert info.status == pb.MATCH_STATUS_FINISHED
    assert [s.score for s in info.seats] == replayed.scores


def test_hand_over_and_take_over(engine) -> None:
    request = new_match_request(hands=1, seed=8, per_decision=5.0)
    engine.stub.OpenMatch(request, metadata=OPERATOR)
    clients = [
        SeatClient(engine.channel, request.match_id, seat, delay=0.01).start() for seat in range(4)
    ]
    table = engine.engine.host.get(request.match_id)
    assert wait_for(lambda: clients[2].answers >= 1)
    clients[2].send(pb.Action(kind=pb.ACTION_KIND_HAND_OVER))
    assert wait_for(lambda: table.info().seats[2].auto_played)
    clients[2].send(pb.Action(kind=pb.ACTION_KIND_TAKE_OVER))
    assert wait_for(lambda: not table.info().seats[2].auto_played)
    for client in clients:
        client.join(60)
    events = stored_events(engine.engine.store, request.match_id)
    reasons = [(e["type"], e.get("reason")) for e in events if e.get("seat") == 2]
    assert ("seat_auto", "hand_over") in reasons and ("seat_resumed", "take_over") in reasons
