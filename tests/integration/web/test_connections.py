"""The gateway's connection bounds (hebei.web.server.ConnectionGuard) on a real gateway: a
client address holds at most its share of connections, and a connection that sends nothing or
trickles its request is answered 408 and closed, so idle sockets can never use up the
gateway's file descriptors. No backend is needed: nothing here reaches the services."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator

import pytest

from hebei.web.config import WebConfig
from hebei.web.server import RunningGateway, start_gateway

PER_CLIENT = 4
WAIT = 30.0  # generous: the bounds must hold on a loaded machine, not be fast
HEALTH = b"GET /api/health HTTP/1.1\r\nHost: gateway\r\n\r\n"
HEALTH_ONCE = b"GET /api/health HTTP/1.1\r\nHost: gateway\r\nConnection: close\r\n\r\n"


@pytest.fixture
def gateway() -> Iterator[RunningGateway]:
    config = WebConfig(
        table_address="127.0.0.1:1",
        matchmaking_address="127.0.0.1:2",
        port=0,
        max_connections_per_client=PER_CLIENT,
        request_seconds=0.5,
    )
    running = start_gateway(config)
    yield running
    running.stop()


def _connect(gateway: RunningGateway, data: bytes = b"") -> socket.socket:
    host, port = gateway.url.removeprefix("http://").rstrip("/").rsplit(":", 1)
    sock = socket.create_connection((host, int(port)), timeout=WAIT)
    if data:
        sock.sendall(data)
    return sock


def _read_all(sock: socket.socket) -> bytes:
    """Everything the gateway sends until it closes the connection (WAIT at most)."""
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    return received


def _status_and_body(reply: bytes) -> tuple[int, dict]:
    head, _, body = reply.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), json.loads(body)


def test_one_address_holds_at_most_its_connections(gateway: RunningGateway) -> None:
    held = [_connect(gateway) for _ in range(PER_CLIENT)]
    try:
        refused = _connect(gateway, HEALTH)
        status, body = _status_and_body(_read_all(refused))
        refused.close()
        assert status == 429 and body["code"] == "RESOURCE_EXHAUSTED"
        assert f"too many connections from your address ({PER_CLIENT})" in body["error"]
    finally:
        for sock in held:
            sock.close()
    # Closed connections are given back: the address is served again.
    deadline = time.monotonic() + WAIT
    while True:
        sock = _connect(gateway, HEALTH_ONCE)
        status, body = _status_and_body(_read_all(sock))
        sock.close()
        if status == 200 or time.monotonic() > deadline:
            break
    assert status == 200 and body["status"] == "ok"


@pytest.mark.parametrize(
    "sent",
    [
        b"",  # connects and sends nothing
        b"GET /api/health HTTP/1.1\r\nHost: gateway\r\n",  # a head that never ends
        HEALTH + b"GET /api/hea",  # a full request, then a next one that never ends
    ],
    ids=["nothing", "partial-head", "partial-second-request"],
)
def test_a_request_that_does_not_arrive_in_time_is_answered_408(
    gateway: RunningGateway, sent: bytes
) -> None:
    sock = _connect(gateway, sent)
    reply = _read_all(sock)  # the gateway closes the connection (WAIT: the socket's timeout)
    sock.close()
    last = reply[reply.rfind(b"HTTP/1.1 ") :]
    status, body = _status_and_body(last)
    assert status == 408 and body["code"] == "DEADLINE_EXCEEDED"
    assert "did not arrive within 0.5 s" in body["error"]


def test_a_trickled_body_is_cut_and_the_gateway_goes_on(gateway: RunningGateway) -> None:
    sock = _connect(
        gateway,
        b"POST /api/quickplay HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\n"
        b'Content-Length: 100\r\n\r\n{"na',
    )
    _read_all(sock)  # closed by the gateway (the request was being answered: no 408 body)
    sock.close()
    sock = _connect(gateway, HEALTH_ONCE)
    status, body = _status_and_body(_read_all(sock))
    sock.close()
    assert status == 200 and body["status"] == "ok"
