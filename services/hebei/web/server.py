"""Serving the gateway: ``python -m hebei.web`` (:func:`run`), ``hebei web serve``, and
:func:`start_gateway` for code that wants it in a thread (tests, a launcher).

The socket is bound before the app starts, so port 0 works and the URL printed
(``web: http://127.0.0.1:PORT/``) is the real one. SIGTERM and Ctrl-C stop it: open SSE
streams get ``SHUTDOWN_SECONDS`` to end, the seats it plays are let go (the engine plays them
on), every gRPC stream is cancelled.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import socket
import threading
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import uvicorn

from hebei.common.config import StartupError, run_main
from hebei.common.logs import configure_logging
from hebei.web.app import create_app
from hebei.web.config import WebConfig

__all__ = ["RunningGateway", "bind", "main", "ready", "run", "serve", "start_gateway"]

SHUTDOWN_SECONDS = 3.0
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
    settings = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=int(SHUTDOWN_SECONDS),
        lifespan="on",
        proxy_headers=False,
    )
    return _Server(settings, hub.request_stop)


def serve(config: WebConfig, announce: Callable[[str], None] = print) -> None:
    """Run the gateway in this thread until SIGTERM/Ctrl-C; ``announce`` gets the web line."""
    sock = bind(config.host, config.port)
    server = _server(config)

    async def main() -> None:
        task = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started and not task.done():
            await asyncio.sleep(0.02)
        if server.started:
            announce(f"web: {url_of(sock)}")
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
