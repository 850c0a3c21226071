"""The gateway's HTTP API (Starlette): JSON for lists and standings, Server-Sent Events for live
tables and tournaments, POST for a person's actions, the static pages.

This module holds the routes' state (:class:`Gateway`) and puts the app together
(:func:`create_app`); the routes live by area: :mod:`~hebei.web.table_routes`,
:mod:`~hebei.web.seat_routes`, :mod:`~hebei.web.tournament_routes`,
:mod:`~hebei.web.operator_routes`, a person's event :mod:`~hebei.web.me`, the match history
:mod:`~hebei.web.history` and the exports :mod:`~hebei.web.exports`. A request's input is read by
:mod:`~hebei.web.inputs`, the middleware is :mod:`~hebei.web.middleware`, the SSE responses
:mod:`~hebei.web.sse`.

Routes (every error is ``{"error": message, "code": NAME}`` with the matching HTTP status):

====== =============================================== ==========================================
GET    /api/health                                     the gateway is up (and what it holds)
GET    /api/bots                                       bot policies and levels for quick play
GET    /api/tables?status=live|ended|all&tournament_id= matches at the table engine
GET    /api/tables/{match}                             one match
GET    /api/tables/{match}/events                      SSE: the public table (snapshot, deltas)
POST   /api/quickplay                                  play against bots: ``{name, policy, level,
                                                       hands}`` -> a seat session
POST   /api/seats                                      a seat you hold: ``{match_id, seat,
                                                       seat_token}`` (a tournament's person plays
                                                       from its page: see hebei.web.me)
GET    /api/seats/{key}                                the session: match, seat
GET    /api/seats/{key}/events                         SSE: the seat's table (own hand, options)
POST   /api/seats/{key}/commands                       ``{command}``: a key as in ``hebei play``
POST   /api/seats/{key}/auto                           ``{on}``: auto-play (托管) on or off
DELETE /api/seats/{key}                                leave (the engine plays the seat on)
GET    /api/seats/{key}/hint[?seat=N]                  the expert's suggestion for the seat's
                                                       open decision (its own seat only; bounded)
GET    /api/tables/{match}/review?seat=N               a finished match: seat N's decisions
                                                       against the expert's, agreement rate
GET    /api/tournaments                                tournaments with tables (and seen ones)
GET    /api/tournaments/{id}                           summary
GET    /api/tournaments/{id}/seating                   every round's tables and quality
GET    /api/tournaments/{id}/standings                 ranking with tie-breaks (decided_by)
GET    /api/tournaments/{id}/events                    SSE: summary, rounds and standings
(...)  /api/tournaments/{id}/register, /me/...         a person's event by cookie: hebei.web.me
GET    /api/operator/overview                          (operator) health, tables, stalls, metrics
POST   /api/operator/tables/{match}/dissolve           (operator) ``{reason, tournament_id?}``
POST   /api/operator/tournaments/{id}/pause            (operator) ``{reason}``
POST   /api/operator/tournaments/{id}/resume           (operator)
====== =============================================== ==========================================

The SSE streams (``snapshot``, ``delta`` and ``end`` events, resumed by ``Last-Event-ID``) are
:mod:`hebei.web.sse`'s.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from hebei.v1 import table_pb2
from hebei.web.advice import Advisor
from hebei.web.backend import Backend, HttpError
from hebei.web.config import WebConfig
from hebei.web.feeds import Feed
from hebei.web.hub import Hub
from hebei.web.inputs import client_of, error_response
from hebei.web.limits import Bucket, TrustedProxies
from hebei.web.middleware import ClientAddress, SecurityHeaders, StateChangeGuard
from hebei.web.sse import sse_response
from hebei.web.tables import SeatSession

log = logging.getLogger(__name__)

STATIC = Path(__file__).with_name("static")
POST_RATE = 10.0  # POSTs per second per client address, sustained ...
POST_BURST = 30.0  # ... with this burst


class RateLimiter:
    """A token bucket per client address (bounded: idle buckets are forgotten)."""

    def __init__(self, rate: float, burst: float, max_clients: int = 10_000) -> None:
        self.rate, self.burst, self.max_clients = rate, burst, max_clients
        self.buckets: dict[str, Bucket] = {}

    def take(self, client: str) -> None:
        bucket = self.buckets.get(client)
        if bucket is None:
            bucket = self.buckets[client] = Bucket(self.rate, self.burst, time.monotonic)
        if bucket.take() > 0:
            raise HttpError(429, "too many requests from your address: slow down")
        if len(self.buckets) > self.max_clients:  # forget the full ones: as new again
            cutoff = bucket.at - self.burst / self.rate
            self.buckets = {k: b for k, b in self.buckets.items() if b.at > cutoff}


class Gateway:
    """The routes' state: configuration, backend, hub, limits."""

    def __init__(self, config: WebConfig, backend: Backend | None = None) -> None:
        self.config = config
        self.backend = backend or Backend(config)
        self.hub = Hub(config, self.backend)
        self.posts = RateLimiter(POST_RATE, POST_BURST)
        self.advisor = Advisor(config, self.backend)

    def sse(self, request: Request, feed: Feed, release: Callable[[], None]) -> Response:
        """A feed as an SSE response (:func:`hebei.web.sse.sse_response`) for this gateway's
        stream length, ended when the gateway stops."""
        return sse_response(request, feed, release, self.config.stream_seconds, self.hub.stopping)

    def stream_slot(
        self, request: Request, session: SeatSession | None = None
    ) -> Callable[[], None]:
        """A stream's place: a seat's own pool for a seat session's stream (never taken by
        spectators), else the spectators' pool of the client's address."""
        if session is not None:
            return self.hub.seat_streams.acquire(session.key)
        return self.hub.streams.acquire(client_of(request))

    async def list_matches(self, status: int = 0, tournament_id: str = "") -> list[Any]:
        return await self.backend.list_tables(
            table_pb2.ListTablesRequest(tournament_id=tournament_id, status=status, page_size=200)
        )

    async def health(self, request: Request) -> Response:
        return JSONResponse({"status": "ok", **self.hub.stats(), "advice": self.advisor.stats()})


async def _http_error(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HttpError)
    return error_response(exc.status, exc.message, exc.code)


async def _starlette_error(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    messages = {404: "no such page or API route", 405: "that method is not allowed here"}
    codes = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED"}
    message = messages.get(exc.status_code, str(exc.detail))
    return error_response(exc.status_code, message, codes.get(exc.status_code, "ERROR"))


async def _unexpected(_request: Request, exc: Exception) -> Response:
    log.error("unexpected error in the gateway", exc_info=exc)
    return error_response(500, "the gateway failed on this request (it is logged)", "INTERNAL")


def create_app(config: WebConfig, backend: Backend | None = None) -> Starlette:
    """The ASGI app; its lifespan starts and stops the hub (feeds, seats, janitor)."""
    gateway = Gateway(config, backend)

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        gateway.hub.start()
        try:
            yield
        finally:
            await gateway.hub.close()
            gateway.backend.close()

    from hebei.web.exports import ExportRoutes
    from hebei.web.history import History
    from hebei.web.me import PersonRoutes
    from hebei.web.metrics import RequestMetrics, watch
    from hebei.web.operator_routes import OperatorRoutes
    from hebei.web.seat_routes import SeatRoutes
    from hebei.web.table_routes import TableRoutes
    from hebei.web.tournament_routes import TournamentRoutes

    routes = [
        *PersonRoutes(gateway).routes(),
        *History(gateway).routes(),
        Route("/api/health", gateway.health),
        *TableRoutes(gateway).routes(),
        *SeatRoutes(gateway).routes(),
        *TournamentRoutes(gateway).routes(),
        *ExportRoutes(gateway).routes(),  # hebei.web.exports: CSV/JSON exports, printable pages
        *OperatorRoutes(gateway).routes(),
        Mount("/", app=StaticFiles(directory=STATIC, html=True), name="static"),
    ]
    app = Starlette(
        routes=routes,
        middleware=[
            Middleware(ClientAddress, proxies=TrustedProxies(config.trusted_proxies)),
            Middleware(SecurityHeaders),
            Middleware(RequestMetrics, routes=routes),
            Middleware(StateChangeGuard),
        ],
        exception_handlers={
            HttpError: _http_error,
            HTTPException: _starlette_error,
            Exception: _unexpected,
        },
        lifespan=lifespan,
    )
    app.state.gateway = gateway
    watch(gateway.hub)
    return app
