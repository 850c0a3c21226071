"""``python -m hebei.botservice``: starts, serves, stops on SIGTERM; bad settings give one line."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from hebei.v1 import bot_pb2, bot_pb2_grpc


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _env(**settings: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEBEI_")}
    env.update({"HEBEI_OPERATOR_TOKEN": "op", "HEBEI_BOTSERVICE_METRICS_PORT": "-1", **settings})
    return env


def test_serves_until_sigterm() -> None:
    port = _free_port()
    env = _env(HEBEI_BOTSERVICE_PORT=str(port))
    process = subprocess.Popen(
        [sys.executable, "-m", "hebei.botservice"], env=env, stderr=subprocess.PIPE, text=True
    )
    try:
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        health = health_pb2_grpc.HealthStub(channel)
        deadline = time.monotonic() + 60
        while True:
            try:
                status = health.Check(
                    health_pb2.HealthCheckRequest(service="hebei.v1.BotService"), timeout=1
                ).status
                if status == health_pb2.HealthCheckResponse.SERVING:
                    break
            except grpc.RpcError:
                pass
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            assert time.monotonic() < deadline, "the bot service did not start"
            time.sleep(0.2)
        reply = bot_pb2_grpc.BotServiceStub(channel).ListPolicies(bot_pb2.ListPoliciesRequest())
        assert [p.name for p in reply.policies] == ["random", "efficiency", "expert"]
        channel.close()
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0


@pytest.mark.parametrize(
    ("settings", "line"),
    [
        ({"HEBEI_BOTSERVICE_PORT": "abc"}, "HEBEI_BOTSERVICE_PORT must be an integer 0-65535"),
        (
            {"HEBEI_BOTSERVICE_TABLE_TIMEOUT_SECONDS": "0"},
            "HEBEI_BOTSERVICE_TABLE_TIMEOUT_SECONDS must be a number 0.1-600",
        ),
        (
            {"HEBEI_BOTSERVICE_MAX_REVIEWS_PER_PEER": "0"},
            "HEBEI_BOTSERVICE_MAX_REVIEWS_PER_PEER must be an integer 1-1000",
        ),
    ],
)
def test_bad_settings_give_one_line(settings: dict[str, str], line: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "hebei.botservice"],
        env=_env(**settings), capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip().startswith(f"hebei-botservice: {line}")
