"""Serving the gateway: ``python -m hebei.web`` (:func:`run`), ``hebei web serve``, and
:func:`start_gateway` for code that wants it in a thread (tests, a launcher).

The socket is bound before the app starts, so port 0 works and the URL printed
(``web: http://127.0.0.1:PORT/``) is the real one. SIGTERM and Ctrl-C stop it: open SSE
streams get ``SHUTDOWN_SECONDS`` to end, the seats it plays are let go (the engine plays them
on), every gRPC stream is cancelled.

Connections are bounded before any request is read (:class:`ConnectionGuard`): at most
``max_connections_per_client`` from one client address and ``max_connections`` in all (beyond
them the connection is answered 429 or 503 and closed within a second), and a request's head and body must
arrive in full within ``request_seconds`` of the connection opening or of the previous response
(otherwise 408, or the connection is closed if the request was already being answered). So
connections that send nothing, or trickle a request byte by byte, can never hold the
gateway's file descriptors; a response, an SSE stream included, is not limited by it.

The guard counts a connection by its TCP peer, before any header is read: it cannot see the
clients behind a reverse proxy. A peer in ``HEBEI_WEB_TRUSTED_PROXIES`` is therefore not held
to ``max_connections_per_client`` (its connections count towards ``max_connections`` only, and
the proxy bounds its own clients' connections: ingress-nginx ``limit-connections``, nginx
``limit_conn``); every bound after the request head — POST rates, streams, seats, tables,
reviews — counts the client the proxy names (:class:`hebei.web.middleware.ClientAddress`). uvicorn's
own ``proxy_headers`` stays off: only the gateway's list of proxies is believed.
"""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import socket
import threading
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from hebei.common.config import StartupError, run_main
from hebei.common.logs import configure_logging
from hebei.common.quota import client_key
from hebei.web.app import create_app
from hebei.web.config import WebConfig
from hebei.web.limits import TrustedProxies

__all__ = [
    "ConnectionGuard",
    "RunningGateway",
    "bind",
    "main",
    "ready",
    "run",
    "serve",
    "start_gateway",
]

SHUTDOWN_SECONDS = 3.0
REFUSAL_SECONDS = 1.0  # a refused connection is closed this long after its answer at most
log = logging.getLogger(__name__)


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (StartupError in one line if it cannot)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise StartupError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.setblocking(False)
    return sock


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def _refusal(status: int, reason: str, message: str, code: str) -> bytes:
    """A whole HTTP/1.1 response ``{"error", "code"}`` that closes the connection."""
    body = json.dumps({"error": message, "code": code}).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body


class ConnectionGuard:
    """The gateway's TCP connections: how many per client address and in total, and how long
    a request may take to arrive (see the module docstring). Used on the event loop only.

    A refused connection is told why (429 or 503) and closed once the client has read it, within
    :data:`REFUSAL_SECONDS`; while it is told it counts too, and an address (or the gateway)
    already telling ``per_client`` more has the next one closed at once: an address holds at
    most twice its share of sockets, and never longer than that."""

    def __init__(
        self,
        per_client: int,
        total: int,
        request_seconds: float,
        proxies: TrustedProxies | None = None,
    ) -> None:
        self.per_client = per_client
        self.total = total
        self.request_seconds = request_seconds
        self.proxies = proxies or TrustedProxies()
        self.held: dict[str, int] = {}
        self.open = 0

    def admit(self, client: str) -> bytes | None:
        """Count a new connection of ``client``: None to serve it, the response refusing it,
        or ``b""`` to close it at once (then it is not counted)."""
        held = self.held.get(client, 0)
        if self.proxies.trusts(client):  # many clients behind it: the total bounds it
            held = 0
        if held >= 2 * self.per_client or self.open >= self.total + self.per_client:
            return b""
        self.held[client] = held + 1
        self.open += 1
        if held >= self.per_client:
            message = f"too many connections from your address ({self.per_client}); try again"
            return _refusal(429, "Too Many Requests", message, "RESOURCE_EXHAUSTED")
        if self.open > self.total:
            message = f"the gateway has {self.total} connections open: try again later"
            return _refusal(503, "Service Unavailable", message, "UNAVAILABLE")
        return None

    def release(self, client: str) -> None:
        self.open -= 1
        left = self.held.get(client, 0) - 1
        if left > 0:
            self.held[client] = left
        else:
            self.held.pop(client, None)

    def protocol(self) -> type[H11Protocol]:
        """uvicorn's HTTP/1.1 protocol, bounded by this guard."""
        return _guarded_protocol(self)


def _guarded_protocol(guard: ConnectionGuard) -> type[H11Protocol]:
    class GuardedH11Protocol(H11Protocol):
        _client_host: str | None = None  # set while counted (released when lost)
        _refused = False
        _request_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            client = client_key(self.client[0]) if self.client else "unknown"
            refusal = guard.admit(client)
            if refusal == b"":
                transport.close()
                return
            self._client_host = client
            if refusal is None:
                self._await_request()
                return
            # Told why, then closed: what the client sends is read and dropped meanwhile (a
            # socket closed with unread data resets, and the client would lose the answer).
            self._refused = True
            transport.write(refusal)
            if transport.can_write_eof():
                transport.write_eof()
            self._request_timer = self.loop.call_later(
                min(REFUSAL_SECONDS, guard.request_seconds), transport.close
            )

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_waiting()
            if self._client_host is not None:
                guard.release(self._client_host)
                self._client_host = None
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            if self._refused:
                return
            super().data_received(data)
            if self.conn.their_state in (h11.DONE, h11.MUST_CLOSE):
                self._stop_waiting()  # the request arrived in full

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if self.transport.is_closing():
                return
            if self.conn.their_state in (h11.DONE, h11.MUST_CLOSE):
                self._stop_waiting()  # a pipelined request, already here
            else:
                self._await_request()  # the next request (or the rest of this one's body)

        def _await_request(self) -> None:
            self._stop_waiting()
            self._request_timer = self.loop.call_later(guard.request_seconds, self._too_slow)

        def _stop_waiting(self) -> None:
            if self._request_timer is not None:
                self._request_timer.cancel()
                self._request_timer = None

        def _too_slow(self) -> None:
            self._request_timer = None
            if self.transport.is_closing():
                return
            if self.cycle is None or self.cycle.response_complete:  # nobody answers it yet
                message = f"the request did not arrive within {guard.request_seconds:g} s"
                self.transport.write(_refusal(408, "Request Timeout", message, "DEADLINE_EXCEEDED"))
            self.transport.close()

    return GuardedH11Protocol


class _Server(uvicorn.Server):
    """uvicorn's server that first ends the gateway's SSE responses when asked to stop (they
    would otherwise hold the graceful shutdown until its timeout)."""

    def __init__(self, config: uvicorn.Config, stopping: Callable[[], None]) -> None:
        super().__init__(config)
        self.stopping = stopping

    def handle_exit(self, sig: int, frame: Any) -> None:
        self.stopping()
        super().handle_exit(sig, frame)
        captured = getattr(self, "_captured_signals", None)
        if sig == signal.SIGTERM and isinstance(captured, list) and sig in captured:
            captured.remove(sig)  # SIGTERM is the normal stop: exit 0, as the services do

    def stop(self) -> None:
        self.stopping()
        self.should_exit = True


def _server(config: WebConfig) -> _Server:
    app = create_app(config)
    hub = app.state.gateway.hub
    guard = ConnectionGuard(
        config.max_connections_per_client,
        config.max_connections,
        config.request_seconds,
        TrustedProxies(config.trusted_proxies),
    )
    settings = uvicorn.Config(
        app,
        http=guard.protocol(),
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=int(SHUTDOWN_SECONDS),
        lifespan="on",
        proxy_headers=False,
    )
    return _Server(settings, hub.request_stop)


def serve(config: WebConfig, announce: Callable[[str], None] = print) -> None:
    """Run the gateway in this thread until SIGTERM/Ctrl-C; ``announce`` gets the web line,
    then the /metrics line (hebei.web.metrics)."""
    from hebei.web.metrics import serve_metrics

    sock = bind(config.host, config.port)
    metrics = serve_metrics(config.host)
    server = _server(config)

    async def main() -> None:
        task = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started and not task.done():
            await asyncio.sleep(0.02)
        if server.started:
            announce(f"web: {url_of(sock)}")
            announce(metrics)
        await task

    try:
        asyncio.run(main())
    finally:
        sock.close()


def ready(address: str, timeout: float = 2.0) -> bool:
    """Whether the gateway at ``host:port`` answers its health route (for a launcher's
    readiness check, as grpc.health.v1 is for the services)."""
    try:
        with urllib.request.urlopen(f"http://{address}/api/health", timeout=timeout) as reply:
            return reply.status == 200
    except OSError:
        return False


def main() -> None:
    config = WebConfig.from_env()
    configure_logging("web", config.log_level)
    serve(config, lambda line: print(line, flush=True))


def run() -> None:
    """``python -m hebei.web``: :func:`main` with one-line configuration errors."""
    run_main("hebei-web", main)


@dataclass
class RunningGateway:
    """A gateway served in a thread of this process."""

    url: str
    server: _Server
    thread: threading.Thread

    def stop(self, timeout: float = 10.0) -> None:
        self.server.stop()
        self.thread.join(timeout)


def start_gateway(config: WebConfig, timeout: float = 15.0) -> RunningGateway:
    """Serve the gateway in a daemon thread (no signal handlers); return once it answers."""
    sock = bind(config.host, config.port)
    url = url_of(sock)
    server = _server(config)  # uvicorn installs no signal handlers outside the main thread
    failed: list[BaseException] = []

    def target() -> None:
        try:
            asyncio.run(server.serve(sockets=[sock]))
        except BaseException as exc:  # reported by start_gateway
            failed.append(exc)
        finally:
            sock.close()

    thread = threading.Thread(target=target, name="hebei-web", daemon=True)
    thread.start()
    ready = threading.Event()
    for _ in range(int(timeout / 0.02)):
        if server.started or failed or not thread.is_alive():
            break
        ready.wait(0.02)
    if not server.started:
        server.stop()
        thread.join(5)
        reason = failed[0] if failed else "it did not start in time"
        raise StartupError(f"the web gateway did not start: {reason}")
    return RunningGateway(url, server, thread)
