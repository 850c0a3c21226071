"""The engine process is killed with SIGKILL mid-hand and restarted: every table resumes from
its log, no event is lost, and each settlement reaches the ledger exactly once."""

from __future__ import annotations

import logging
import queue
import threading
import time

import grpc
import psycopg
import pytest
from psycopg import sql

from hebei.rules.replay import replay_match
from hebei.v1 import table_pb2, table_pb2_grpc
from hebei.v1 import types_pb2 as pb
from tests.integration.table.conftest import (
    OPERATOR,
    SeatClient,
    ledger_audit,
    ledger_entries,
    new_match_request,
)
from tests.integration.table.helpers import EngineProcess, engine_env, rules_events, wait_for


class ResilientClient(SeatClient):
    """A seat client that reconnects (new channel, same token) whenever its stream breaks."""

    def __init__(self, address: str, match_id: str, seat: int, **kwargs) -> None:
        self.address = address
        super().__init__(None, match_id, seat, **kwargs)

    def _run(self) -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            self.channel = grpc.insecure_channel(self.address)
            self._requests = queue.SimpleQueue()
            self.finished.clear()
            super()._run()
            self.channel.close()
            observations = self.observations
            if observations and observations[-1].match_finished:
                return
            time.sleep(0.1)


def spectate(address: str, match_id: str, into: list) -> threading.Thread:
    def run() -> None:
        channel = grpc.insecure_channel(address)
        stub = table_pb2_grpc.TableServiceStub(channel)
        try:
            for message in stub.Spectate(table_pb2.SpectateRequest(match_id=match_id, from_seq=1)):
                into.append(message.event)
        except grpc.RpcError:
            pass
        channel.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def without_time(event: pb.Event) -> pb.Event:
    copy = pb.Event()
    copy.CopyFrom(event)
    copy.ClearField("time")
    if copy.HasField("settlement"):
        copy.settlement.ClearField("ended_at")
    return copy


@pytest.mark.slow
def test_sigkill_mid_hand_then_restart(
    database_url, fresh_schema, ledger, matchmaking, tmp_path
) -> None:
    env = engine_env(
        database_url, fresh_schema, ledger=ledger.address, matchmaking=matchmaking.address
    )
    engine = EngineProcess(env, tmp_path / "engine.log")
    engine.start()
    try:
        channel = grpc.insecure_channel(engine.address)
        stub = table_pb2_grpc.TableServiceStub(channel)
        requests = [new_match_request(hands=2, seed=40 + i, per_decision=3.0) for i in range(3)]
        for request in requests:
            stub.OpenMatch(request, metadata=OPERATOR, timeout=10)
        before: dict[str, list[pb.Event]] = {r.match_id: [] for r in requests}
        watchers = [spectate(engine.address, m, before[m]) for m in before]
        clients = [
            ResilientClient(engine.address, r.match_id, seat, delay=0.004, seed=i).start()
            for i, r in enumerate(requests)
            for seat in range(4)
        ]

        def mid_second_hand() -> bool:
            infos = [
                stub.GetMatch(table_pb2.GetMatchRequest(match_id=r.match_id), timeout=5).match
                for r in requests
            ]
            return any(i.hands_played >= 1 for i in infos) and all(
                i.status == pb.MATCH_STATUS_PLAYING for i in infos
            )

        assert wait_for(mid_second_hand, timeout=60, step=0.05)
        engine.kill()
        channel.close()
        for watcher in watchers:
            watcher.join(10)
        seen_before = {m: list(events) for m, events in before.items()}
        acknowledged = [(c, list(c.observations)) for c in clients]
        # Killed mid-match: every table had started and none had ended.
        for events in seen_before.values():
            assert events and all(e.type != pb.EVENT_TYPE_MATCH_END for e in events)

        engine.start()
        for client in clients:
            client.join(120)
        channel = grpc.insecure_channel(engine.address)
        stub = table_pb2_grpc.TableServiceStub(channel)
        for request in requests:
            match_id = request.match_id
            info = stub.GetMatch(table_pb2.GetMatchRequest(match_id=match_id), timeout=5).match
            assert info.status == pb.MATCH_STATUS_FINISHED, info
            after = [
                m.event
                for m in stub.Spectate(
                    table_pb2.SpectateRequest(match_id=match_id, from_seq=1), timeout=10
                )
            ]
            # Nothing a spectator saw before the kill is lost or changed.
            old = seen_before[match_id]
            assert [without_time(e) for e in after[: len(old)]] == [without_time(e) for e in old]
            assert [e.seq for e in after] == list(range(1, len(after) + 1))
            # The whole log replays; the seed is published at the end.
            stored = rules_events([r.event for r in _load(env, match_id)])
            replayed = replay_match(stored)
            assert [s.score for s in info.seats] == replayed.scores
            assert after[-1].type == pb.EVENT_TYPE_MATCH_END and after[-1].seed == request.seed
            # Each hand booked exactly once.
            assert wait_for(lambda m=match_id: len(ledger_entries(ledger, m)) == 2, timeout=20)
            keys = sorted(e.idempotency_key for e in ledger_entries(ledger, match_id))
            assert keys == [f"{match_id}:1", f"{match_id}:2"]
            assert wait_for(lambda m=match_id: m in matchmaking.servicer.results, timeout=20)
        # A seat's decision ids grow, across the restart too (its own count is their top part).
        for client in clients:
            counts = [o.decision_id >> 31 for o in client.observations if o.decision_id]
            assert counts == sorted(counts)
        # What each seat was told before the kill is still in the log.
        for client, observations in acknowledged:
            finals = {e.seq: without_time(e) for e in _spectated(stub, client.match_id)}
            for obs in observations:
                event = obs.last_event
                if (
                    event.seq
                    and event.type != pb.EVENT_TYPE_PASS
                    and not (event.type == pb.EVENT_TYPE_DRAW and event.seat == client.seat)
                ):
                    assert finals[event.seq] == without_time(event)
        report = ledger_audit(ledger)
        assert report.ok, report.problems
        channel.close()
    finally:
        engine.stop()


def _spectated(stub, match_id: str) -> list[pb.Event]:
    request = table_pb2.SpectateRequest(match_id=match_id, from_seq=1)
    return [m.event for m in stub.Spectate(request, timeout=10)]


def _load(env: dict[str, str], match_id: str):
    from hebei.table.store import EventStore

    store = EventStore.open(env["HEBEI_DATABASE_URL"], env["HEBEI_TABLE_SCHEMA"])
    try:
        return store.load_match(match_id).events
    finally:
        store.close()


def test_a_stored_match_that_cannot_resume_is_dissolved_loudly(
    start_engine, table_config, matchmaking, caplog
) -> None:
    """A match stored with a length beyond today's bounds (it used to wedge the engine after
    every restart) and one whose log no longer replays are dissolved, each with an error line
    and a reported result; the engine starts and the other match plays on."""
    first = start_engine(ready_seconds=0.2)
    huge, tampered, good = (
        new_match_request(hands=2, seed=50 + i, kind=pb.SEAT_KIND_PERSON) for i in range(3)
    )
    for request in (huge, tampered, good):
        first.stub.OpenMatch(request, metadata=OPERATOR, timeout=10)
    quiet = [
        SeatClient(first.channel, r.match_id, 0, stop_after=2).start() for r in (tampered, good)
    ]
    assert wait_for(lambda: all(c.answers == 2 for c in quiet), timeout=30)
    first.close()
    with psycopg.connect(table_config.database_url, autocommit=True) as conn:
        conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(table_config.schema)))
        conn.execute(
            "UPDATE matches SET spec = jsonb_set(spec, '{length}', '{\"hands\": 2147483647}')"
            " WHERE match_id = %s",
            (huge.match_id,),
        )
        conn.execute(
            "UPDATE events SET event = jsonb_set(event, '{seed}', '1')"
            " WHERE match_id = %s AND event->>'type' = 'hand_start'",
            (tampered.match_id,),
        )
    with caplog.at_level(logging.ERROR, logger="hebei.table.host"):
        second = start_engine(ready_seconds=0.2)
    broken = [r.getMessage() for r in caplog.records if "could not be resumed" in r.getMessage()]
    assert len(broken) == 2
    for request in (huge, tampered):
        info = second.stub.GetMatch(table_pb2.GetMatchRequest(match_id=request.match_id)).match
        assert info.status == pb.MATCH_STATUS_DISSOLVED
        last = second.engine.store.load_match(request.match_id).events[-1].event
        assert last["type"] == "match_dissolved"
        assert last["reason"].startswith("technical: the match could not be resumed")
        assert wait_for(lambda r=request: r.match_id in matchmaking.servicer.results)
    player = SeatClient(second.channel, good.match_id, 0).start()
    player.join(60)
    assert player.error is None and player.observations[-1].match_finished
