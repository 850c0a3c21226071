"""The event log refuses one table's events: that table alone is dissolved, loudly, with its
result reported; every other table plays on and is saved (it used to wait behind the bad row
for ever, and every seat of the engine stopped hearing)."""

from __future__ import annotations

import logging

from hebei.rules.replay import replay_match
from hebei.v1 import table_pb2
from hebei.v1 import types_pb2 as pb
from tests.integration.table.conftest import OPERATOR, new_match_request, play_clients
from tests.integration.table.helpers import rules_events, stored_events, wait_for


def test_one_poisoned_table_is_dissolved_and_the_others_carry_on(
    engine, matchmaking, caplog
) -> None:
    bad, good = new_match_request(hands=2, seed=31), new_match_request(hands=2, seed=32)
    for request in (bad, good):
        engine.stub.OpenMatch(request, metadata=OPERATOR, timeout=10)
    bad_clients = play_clients(engine.channel, bad.match_id, delay=0.01)
    table = engine.engine.host.get(bad.match_id)
    assert wait_for(lambda: table.status == "playing")
    with caplog.at_level(logging.ERROR, logger="hebei.table.store"), table.lock:
        # A row PostgreSQL refuses (validation keeps NULs out; this stands for any bad row).
        table._log_event({"type": "seat_connected", "seat": 0, "note": "\x00"})
        table._commit()
    good_clients = play_clients(engine.channel, good.match_id)
    for client in good_clients + bad_clients:
        client.join(60)
        assert client.error is None, client.error
        assert client.observations[-1].match_finished
    info = engine.stub.GetMatch(table_pb2.GetMatchRequest(match_id=bad.match_id)).match
    assert info.status == pb.MATCH_STATUS_DISSOLVED
    assert wait_for(
        lambda: stored_events(engine.engine.store, bad.match_id)[-1]["type"] == ("match_dissolved")
    )
    events = stored_events(engine.engine.store, bad.match_id)
    assert events[-1]["reason"].startswith("technical: the event log refused event")
    assert [r.seq for r in engine.engine.store.load_match(bad.match_id).events] == list(
        range(1, len(events) + 1)
    )  # no gap: what was never written is gone from the table too
    assert any("failed" in r.getMessage() for r in caplog.records)  # loudly
    assert wait_for(lambda: bad.match_id in matchmaking.servicer.results)
    assert matchmaking.servicer.results[bad.match_id].status == pb.MATCH_STATUS_DISSOLVED
    # The other table was not held up: finished, saved, replayable.
    final = engine.stub.GetMatch(table_pb2.GetMatchRequest(match_id=good.match_id)).match
    assert final.status == pb.MATCH_STATUS_FINISHED
    replayed = replay_match(rules_events(stored_events(engine.engine.store, good.match_id)))
    assert [s.score for s in final.seats] == replayed.scores
