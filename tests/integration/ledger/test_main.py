"""``python -m hebei.ledger``: starts, serves, stops on SIGTERM; bad settings give one line."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from typing import Any

import grpc
import pytest
from google.protobuf import json_format
from grpc_health.v1 import health_pb2, health_pb2_grpc

from hebei.common.auth import bearer_metadata
from hebei.v1 import ledger_pb2, ledger_pb2_grpc


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _env(**settings: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEBEI_")}
    env.update({"HEBEI_OPERATOR_TOKEN": "op", "HEBEI_LEDGER_METRICS_PORT": "-1", **settings})
    return env


def _run(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hebei.ledger"],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def test_serves_until_sigterm(database_url: str, fresh_schema: str, make_settlement: Any):
    port = _free_port()
    env = _env(
        HEBEI_DATABASE_URL=database_url,
        HEBEI_LEDGER_SCHEMA=fresh_schema,
        HEBEI_LEDGER_PORT=str(port),
        HEBEI_LEDGER_HOST="127.0.0.1",
        HEBEI_SERVICE_TOKEN="svc",
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "hebei.ledger"], env=env, stderr=subprocess.PIPE, text=True
    )
    try:
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        health = health_pb2_grpc.HealthStub(channel)
        deadline = time.monotonic() + 30
        while True:
            try:
                status = health.Check(
                    health_pb2.HealthCheckRequest(service="hebei.v1.LedgerService"), timeout=1
                ).status
                if status == health_pb2.HealthCheckResponse.SERVING:
                    break
            except grpc.RpcError:
                pass
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            assert time.monotonic() < deadline, "the ledger did not start"
            time.sleep(0.2)
        request = ledger_pb2.PostSettlementRequest()
        json_format.ParseDict(make_settlement("m1", 1), request.settlement)
        stub = ledger_pb2_grpc.LedgerServiceStub(channel)
        assert stub.PostSettlement(request, metadata=bearer_metadata("svc")).entry_id == "1"
        channel.close()
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0


@pytest.mark.parametrize(
    ("settings", "code", "line"),
    [
        (
            {"HEBEI_LEDGER_SCHEMA": "Bad-Schema"},
            2,
            "hebei-ledger: HEBEI_LEDGER_SCHEMA: schema name must match",
        ),
        (
            {"HEBEI_LEDGER_POOL_SIZE": "lots"},
            2,
            "hebei-ledger: HEBEI_LEDGER_POOL_SIZE must be an integer 1-500, got 'lots'",
        ),
        (
            {"HEBEI_LEDGER_POOL_SIZE": "4", "HEBEI_LEDGER_MAX_READS": "4"},
            2,
            "hebei-ledger: HEBEI_LEDGER_MAX_READS must be an integer 1-3, got '4'",
        ),
        (
            {"HEBEI_DATABASE_URL": "postgresql://nobody@127.0.0.1:1/none?connect_timeout=2"},
            1,
            "hebei-ledger: cannot open the ledger database: ",
        ),
    ],
)
def test_bad_settings_exit_with_one_line(settings: dict[str, str], code: int, line: str):
    result = _run(_env(HEBEI_LEDGER_PORT=str(_free_port()), **settings))
    assert result.returncode == code
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(line)
