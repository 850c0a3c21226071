"""The web gateway's Prometheus metrics, served on a port of their own
(``HEBEI_WEB_METRICS_PORT``, 9105 unless set; 0: any free one), never on the public HTTP port.

- ``hebei_web_requests_total{route,method,code}`` and ``hebei_web_request_duration_seconds
  {route}``: ``route`` is the route's template (``/api/tables/{match}``), never the raw path
  (``static`` for the pages, ``other`` for a path no route has), so the label values are a
  small fixed set; an SSE stream's duration is its whole life;
- ``hebei_web_streams`` (open SSE streams) and ``hebei_web_seats`` (seats the gateway plays
  for people), read from the hub at each scrape.

Every route's series exist from the start (0), as in the services' metrics modules.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence
from typing import Any

from prometheus_client import Counter, Gauge, Histogram
from starlette.routing import BaseRoute, Match, Mount
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hebei.common.config import EnvReader, StartupError
from hebei.common.metrics import export_known_labels, start_metrics_server

__all__ = [
    "REQUESTS",
    "REQUEST_SECONDS",
    "SEATS",
    "STREAMS",
    "RequestMetrics",
    "route_templates",
    "watch",
]

DEFAULT_METRICS_PORT = 9105
OTHER = "other"  # a path no route has, a method nobody uses
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
STATIC = "static"  # the pages and their files

REQUESTS = Counter(
    "hebei_web_requests_total",
    "HTTP requests answered, by route template, method and status code.",
    ("route", "method", "code"),
)
REQUEST_SECONDS = Histogram(
    "hebei_web_request_duration_seconds",
    "Time from a request's arrival to the end of its response (an SSE stream's whole life),"
    " by route template.",
    ("route",),
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800),
)
STREAMS = Gauge("hebei_web_streams", "Open Server-Sent Events streams.")
SEATS = Gauge("hebei_web_seats", "Seats the gateway plays for people now.")


def _template(route: BaseRoute) -> str:
    if isinstance(route, Mount) and route.path in ("", "/"):
        return STATIC
    return str(getattr(route, "path", OTHER)) or STATIC


def route_templates(routes: Sequence[BaseRoute]) -> list[tuple[str, tuple[str, ...]]]:
    """Each route's template and methods (a Mount: GET)."""
    found = []
    for route in routes:
        methods = getattr(route, "methods", None) or {"GET"}
        found.append((_template(route), tuple(sorted(m for m in methods if m != "HEAD"))))
    return found


class RequestMetrics:
    """ASGI middleware counting each HTTP request under its route's template."""

    def __init__(self, app: ASGIApp, routes: Sequence[BaseRoute]) -> None:
        self.app = app
        self.routes = list(routes)
        templates = route_templates(self.routes)
        export_known_labels(
            {
                REQUESTS: [(t, m, "200") for t, methods in templates for m in methods],
                REQUEST_SECONDS: [(t,) for t, _methods in templates],
            }
        )

    def route_of(self, scope: Scope) -> str:
        """The template of the route that answers ``scope`` (a method it does not take
        included), ``other`` when none does."""
        partial = None
        for route in self.routes:
            match, _child = route.matches(scope)
            if match is Match.FULL:
                return _template(route)
            if match is Match.PARTIAL and partial is None:
                partial = _template(route)
        return partial or OTHER

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        route = self.route_of(scope)
        status = [500]

        async def recording(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, recording)
        finally:
            method = scope.get("method", "GET")
            REQUESTS.labels(route, method if method in METHODS else OTHER, str(status[0])).inc()
            REQUEST_SECONDS.labels(route).observe(time.perf_counter() - started)


def watch(hub: Any) -> None:
    """Read ``hebei_web_streams`` and ``hebei_web_seats`` from ``hub`` at each scrape (from
    the scrape's thread: a read racing the event loop's change gives the previous value)."""
    last = {"seats": 0.0}

    def seats() -> float:
        with contextlib.suppress(RuntimeError):  # the seats changed while we counted
            last["seats"] = float(sum(1 for s in hub.sessions() if not s.closed))
        return last["seats"]

    STREAMS.set_function(lambda: float(hub.streams.count))
    SEATS.set_function(seats)


def serve_metrics(host: str) -> str:
    """Serve ``/metrics`` on ``host`` and ``HEBEI_WEB_METRICS_PORT`` (in a thread); return the
    line to announce (``web metrics: http://host:port/metrics``). The default port taken (a
    second gateway on one machine) is said in that line, not fatal; a port chosen and taken
    is a StartupError."""
    read = EnvReader("web")
    port = read.port("METRICS_PORT", DEFAULT_METRICS_PORT)
    try:
        _server, port = start_metrics_server(port, host)
    except OSError as exc:
        if read.optional_text("METRICS_PORT") is None:
            return (
                f"web metrics: not served: {host}:{port} is taken (set HEBEI_WEB_METRICS_PORT;"
                " 0: any free port)"
            )
        raise StartupError(
            f"cannot serve metrics on {host}:{port}: {exc.strerror or exc}"
        ) from None
    return f"web metrics: http://{host}:{port}/metrics"
