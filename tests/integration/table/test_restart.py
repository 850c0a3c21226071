"""The engine process is killed with SIGKILL mid-hand and restarted: every table resumes from
its log, no event is lost, and each settlement reaches the ledger exactly once."""

from __future__ import annotations

import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import grpc
import pytest

from hebei.rules.replay import replay_match
from hebei.v1 import table_pb2, table_pb2_grpc
from hebei.v1 import types_pb2 as pb
from tests.integration.table.conftest import (
    OPERATOR,
    OPERATOR_TOKEN,
    SERVICE_TOKEN,
    SeatClient,
    ledger_audit,
    ledger_entries,
    new_match_request,
)
from tests.integration.table.helpers import rules_events, wait_for

REPO = Path(__file__).resolve().parents[3]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class EngineProcess:
    """``python -m hebei.table`` as a subprocess on a fixed port."""

    def __init__(self, env: dict[str, str], log_path: Path) -> None:
        self.env = env
        self.log_path = log_path
        self.address = f"127.0.0.1:{env['HEBEI_TABLE_PORT']}"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "hebei.table"], env=self.env, stdout=log, stderr=log,
                cwd=REPO,
            )  # fmt: skip
        channel = grpc.insecure_channel(self.address)
        stub = table_pb2_grpc.TableServiceStub(channel)

        def up() -> bool:
            assert self.process.poll() is None, self.log_path.read_text()[-2000:]
            try:
                stub.ListTables(table_pb2.ListTablesRequest(), timeout=1)
                return True
            except grpc.RpcError:
                return False

        assert wait_for(up, timeout=30, step=0.1), self.log_path.read_text()[-2000:]
        channel.close()

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()


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
    env = {
        **os.environ,
        "HEBEI_TABLE_PORT": str(free_port()),
        "HEBEI_TABLE_METRICS_PORT": "-1",
        "HEBEI_HOST": "127.0.0.1",
        "HEBEI_OPERATOR_TOKEN": OPERATOR_TOKEN,
        "HEBEI_SERVICE_TOKEN": SERVICE_TOKEN,
        "HEBEI_DATABASE_URL": database_url,
        "HEBEI_TABLE_SCHEMA": fresh_schema,
        "HEBEI_LEDGER_ADDRESS": ledger.address,
        "HEBEI_MATCHMAKING_ADDRESS": matchmaking.address,
        "HEBEI_LOG_LEVEL": "WARNING",
    }
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
