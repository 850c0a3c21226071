"""Graceful stop: health turns NOT_SERVING on SIGTERM, calls in flight complete, then exit."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from hebei.common.client import create_channel
from hebei.v1 import ledger_pb2, ledger_pb2_grpc, types_pb2
from tests.integration.common.conftest import OPERATOR_TOKEN, start_canned_server

ROOT = Path(__file__).resolve().parents[3]
SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


def slow_settlement(millis: int) -> ledger_pb2.PostSettlementRequest:
    settlement = types_pb2.Settlement(idempotency_key=f"slow:{millis}", round_no=millis)
    return ledger_pb2.PostSettlementRequest(settlement=settlement)


def call_in_flight(target: str, millis: int) -> Future:
    """Start a slow PostSettlement in a thread; the future holds its reply (or error)."""
    pool = ThreadPoolExecutor(max_workers=1)

    def call() -> ledger_pb2.PostSettlementResponse:
        with create_channel(target, token=OPERATOR_TOKEN) as channel:
            return ledger_pb2_grpc.LedgerServiceStub(channel).PostSettlement(
                slow_settlement(millis), timeout=30
            )

    future = pool.submit(call)
    pool.shutdown(wait=False)
    return future


def test_call_in_flight_completes_during_stop() -> None:
    running = start_canned_server()
    future = call_in_flight(running.target, 800)
    time.sleep(0.3)  # let the call reach the servicer
    stopped_at = time.monotonic()
    running.server.stop(grace=5)
    assert time.monotonic() - stopped_at < 4  # stop waits for the call, not the whole grace
    assert future.result(timeout=5).entry_id == "entry-slow:800"
    with create_channel(running.target, timeout=1) as channel, pytest.raises(grpc.RpcError) as new:
        ledger_pb2_grpc.LedgerServiceStub(channel).GetHistory(ledger_pb2.GetHistoryRequest())
    assert new.value.code() == grpc.StatusCode.UNAVAILABLE


@pytest.fixture
def server_process() -> Iterator[tuple[subprocess.Popen, dict]]:
    """The canned service run as a real service main, in its own process."""
    env = {
        **os.environ,
        "HEBEI_TESTSVC_HOST": "127.0.0.1",
        "HEBEI_TESTSVC_PORT": "0",
        "HEBEI_TESTSVC_METRICS_PORT": "0",
        "HEBEI_OPERATOR_TOKEN": OPERATOR_TOKEN,
        "HEBEI_DRAIN_SECONDS": "1",
        "HEBEI_GRACE_SECONDS": "10",
        "HEBEI_LOG_LEVEL": "WARNING",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.integration.common.server_main"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = process.stdout.readline()
        assert line, f"the server did not start: {process.stderr.read()}"
        yield process, json.loads(line)
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)


def test_sigterm_turns_not_serving_and_finishes_calls(
    server_process: tuple[subprocess.Popen, dict],
) -> None:
    process, ports = server_process
    target = f"127.0.0.1:{ports['port']}"
    with create_channel(target, timeout=5) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        request = health_pb2.HealthCheckRequest(service="hebei.v1.LedgerService")
        assert health.Check(request).status == SERVING
        watch = health.Watch(request, timeout=20)
        assert next(watch).status == SERVING

        future = call_in_flight(target, 1500)
        time.sleep(0.3)
        process.send_signal(signal.SIGTERM)

        assert next(watch).status == NOT_SERVING  # pushed to watchers at once
        assert health.Check(request).status == NOT_SERVING  # still answering while draining
        watch.cancel()
        assert future.result(timeout=10).entry_id == "entry-slow:1500"
    assert process.wait(timeout=15) == 0
    stderr = process.stderr.read()
    assert "Traceback" not in stderr


def test_stop_without_calls_does_not_wait_for_grace() -> None:
    running = start_canned_server(grace_seconds=30.0)
    started = time.monotonic()
    running.server.stop()
    assert time.monotonic() - started < 5


def test_the_drain_answers_calls_and_ends_once_none_arrives() -> None:
    running = start_canned_server()
    answered: list[float] = []  # when each call made during the drain was answered
    done = threading.Event()

    def calls() -> None:
        with create_channel(running.target, token=OPERATOR_TOKEN, timeout=30) as channel:
            stub = ledger_pb2_grpc.LedgerServiceStub(channel)
            for _ in range(20):
                stub.GetHistory(ledger_pb2.GetHistoryRequest())
                answered.append(time.monotonic())
                time.sleep(0.05)
        done.set()

    running.server.drain()  # NOT_SERVING, still answering
    thread = threading.Thread(target=calls)
    thread.start()
    while not answered and thread.is_alive():  # the calls are coming
        time.sleep(0.01)
    running.server.wait_drained(300)  # returns once no call arrived for DRAIN_QUIET_SECONDS
    drained = time.monotonic()
    thread.join(60)
    assert done.is_set() and len(answered) == 20  # every call of the drain answered
    assert drained > answered[-1]  # it waited for the calls to stop, not for its bound
    running.server.stop()
