"""``python -m hebei.common.healthcheck``: the containers' HEALTHCHECK, against real servers."""

from __future__ import annotations

import http.server
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent import futures

import grpc
import pytest
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from hebei.common import healthcheck
from hebei.common.config import DEFAULT_PORTS


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Health:
    def __init__(self) -> None:
        self.servicer = health.HealthServicer()
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        health_pb2_grpc.add_HealthServicer_to_server(self.servicer, self.server)
        self.port = self.server.add_insecure_port("127.0.0.1:0")
        self.server.start()
        self.address = f"127.0.0.1:{self.port}"

    def set(self, status: int, service: str = "") -> None:
        self.servicer.set(service, status)


@pytest.fixture
def server() -> Iterator[Health]:
    served = Health()
    yield served
    served.server.stop(0)


SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


def test_a_serving_server_is_healthy_and_a_draining_one_is_not(server: Health):
    server.set(SERVING)
    assert healthcheck.main([server.address]) == 0
    server.set(NOT_SERVING)
    assert healthcheck.main([server.address]) == 1
    server.set(SERVING, "hebei.v1.LedgerService")
    assert healthcheck.main([server.address, "--service", "hebei.v1.LedgerService"]) == 0
    assert healthcheck.main([server.address, "--service", "hebei.v1.Nothing"]) == 1  # NOT_FOUND


def test_nothing_listening_is_unhealthy_in_one_line(capsys):
    assert healthcheck.main([f"127.0.0.1:{closed_port()}", "--timeout", "2"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("healthcheck: 127.0.0.1:") and len(err.strip().splitlines()) == 1


def test_without_a_target_the_service_listening_here_is_checked(server: Health, monkeypatch):
    for name in DEFAULT_PORTS:  # every other service's port closed (the bot service's too)
        monkeypatch.setenv(f"HEBEI_{name.upper()}_PORT", str(closed_port()))
    monkeypatch.setenv("HEBEI_LEDGER_PORT", str(server.port))
    monkeypatch.delenv("HEBEI_HEALTHCHECK", raising=False)
    server.set(SERVING)
    assert healthcheck.check(None) == server.address
    server.set(NOT_SERVING)
    with pytest.raises(healthcheck.Unhealthy, match="NOT_SERVING"):
        healthcheck.check(None)
    monkeypatch.setenv("HEBEI_LEDGER_PORT", str(closed_port()))
    with pytest.raises(healthcheck.Unhealthy, match="no hebei service listens"):
        healthcheck.check(None)
    monkeypatch.setenv("HEBEI_HEALTHCHECK", server.address)  # the variable names the target
    server.set(SERVING)
    assert healthcheck.check(None) == server.address


def test_an_http_target_must_answer_200():
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200 if self.path == "/metrics" else 503)
            self.end_headers()

        def log_message(self, *_args) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    try:
        assert healthcheck.main([f"{base}/metrics"]) == 0
        assert healthcheck.main([f"{base}/other"]) == 1
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert healthcheck.main([f"{base}/metrics", "--timeout", "2"]) == 1


def test_bad_usage_exits_2(capsys):
    assert healthcheck.main(["no-port-here"]) == 2
    assert "host:port" in capsys.readouterr().err


def test_the_module_runs_as_the_image_runs_it(server: Health):
    server.set(SERVING)
    argv = [sys.executable, "-m", "hebei.common.healthcheck", server.address]
    assert subprocess.run(argv, capture_output=True, timeout=60).returncode == 0
    server.set(NOT_SERVING)
    result = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and "NOT_SERVING" in result.stderr
