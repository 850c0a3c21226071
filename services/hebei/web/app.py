"""The gateway's HTTP API (Starlette): JSON for lists and standings, Server-Sent Events for live
tables and tournaments, POST for a person's actions, the static pages.

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

SSE: ``event: snapshot`` (``{seq, state}``), ``event: delta`` (``{seq, patch, ...}``), ``event:
end`` (``{reason}``); every snapshot and delta has ``id: seq``. A browser reconnecting with
``Last-Event-ID`` (or ``?last_event_id=``) gets the deltas after it. One response lasts at most
``HEBEI_WEB_STREAM_SECONDS``; the browser then resumes where it was.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
import urllib.parse
import urllib.request
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import grpc
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from hebei.common.auth import same_token
from hebei.common.quota import client_key
from hebei.common.seating import next_request
from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import table_pb2
from hebei.v1 import types_pb2 as pb
from hebei.web.advice import Advisor
from hebei.web.backend import Backend, HttpError, http_error
from hebei.web.config import WebConfig
from hebei.web.feeds import Feed
from hebei.web.history import remember
from hebei.web.hub import Hub
from hebei.web.limits import Bucket, TrustedProxies
from hebei.web.tables import SeatSession
from hebei.web.tournament_views import round_json, standings_json, tournament_json
from hebei.web.views import match_json

log = logging.getLogger(__name__)

STATIC = Path(__file__).with_name("static")
MAX_BODY_BYTES = 8 * 1024
MAX_NAME = 32
MAX_REASON = 256
MAX_HANDS = 16
DEFAULT_LEVEL = 3  # quick play's expert level unless asked (the expert's own default)
UNNAMED = frozenset({"", "you"})  # the lobby's placeholder is no name: distinct defaults
ID = re.compile(r"^[!-~]{1,128}$")  # printable ASCII, no spaces
TOKEN = re.compile(r"^[!-~]{16,256}$")
KEEPALIVE_SECONDS = 15.0
RETRY_MS = 500  # how soon a browser comes back after a response ends
FIRST_STATE_SECONDS = 20.0
POST_RATE = 10.0  # POSTs per second per client address, sustained ...
POST_BURST = 30.0  # ... with this burst
STALL_DEFAULT = 60
SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),  # seat keys live in page URLs
    (b"x-frame-options", b"DENY"),
    (
        b"content-security-policy",
        b"default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        b"connect-src 'self'; frame-ancestors 'none'",
    ),
]
METRICS_SHOWN = (
    "hebei_table_tables_active",
    "hebei_table_streams_open",
    "hebei_matchmaking_matches_live",
    "hebei_matchmaking_quick_play_queue",
    "hebei_matchmaking_bot_requeues_total",
    "hebei_matchmaking_watch_streams",
    "hebei_bot_seat_sessions_active",
)


# ------------------------------------------------------------------------------ helpers


def client_of(request: Request) -> str:
    """The client address bounds count (an IPv6 client by its /64: see client_key): the
    peer's, or behind a trusted proxy the client it names (see :class:`ClientAddress`)."""
    return client_key(request.client.host) if request.client else "unknown"


class ClientAddress:
    """Puts the real client's address in ``scope["client"]`` for every route and bound: the
    peer's own, or, from a trusted proxy (``HEBEI_WEB_TRUSTED_PROXIES``), the client its
    ``X-Forwarded-For`` / ``Forwarded`` header names (see :class:`TrustedProxies`)."""

    def __init__(self, app: ASGIApp, proxies: TrustedProxies) -> None:
        self.app = app
        self.proxies = proxies

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        peer = scope.get("client")
        if scope["type"] == "http" and peer and self.proxies.networks:
            headers = {
                k.decode("latin-1").lower(): v.decode("latin-1")
                for k, v in scope.get("headers", ())
                if k.lower() in (b"x-forwarded-for", b"forwarded")
            }
            host = self.proxies.client(peer[0], headers)
            if host != peer[0]:
                scope = {**scope, "client": (host, 0)}
        await self.app(scope, receive, send)


SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def check_state_change(request: Request) -> None:
    """Every state-changing request of the gateway: from its own pages (Origin,
    Sec-Fetch-Site) and, for a body-carrying method, sent as JSON even with an empty body (a
    form or a ``text/plain`` fetch of another site cannot), else 403 or 415."""
    from hebei.web.people import check_json_type, check_same_origin

    check_same_origin(request)
    if request.method != "DELETE":
        check_json_type(request)


class StateChangeGuard:
    """:func:`check_state_change` before any route that is not a plain read."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] not in SAFE_METHODS:
            try:
                check_state_change(Request(scope))
            except HttpError as error:
                response = error_response(error.status, error.message, error.code)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def error_response(status: int, message: str, code: str) -> JSONResponse:
    return JSONResponse({"error": message, "code": code}, status_code=status)


async def read_json(request: Request) -> dict[str, Any]:
    """The request's JSON object body, at most :data:`MAX_BODY_BYTES` (413 beyond)."""
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY_BYTES):
        raise HttpError(413, f"the body must be at most {MAX_BODY_BYTES} bytes")
    body = b""
    try:
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY_BYTES:
                raise HttpError(413, f"the body must be at most {MAX_BODY_BYTES} bytes")
    except ClientDisconnect:  # gone mid-body (or too slow: see hebei.web.server)
        raise HttpError(408, "the body did not arrive in full") from None
    check_state_change(request)  # also keeps other sites' forms from posting here
    if not body.strip():
        return {}
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):  # RecursionError: nested deep
        raise HttpError(400, "the body is not valid JSON") from None
    if not isinstance(data, dict):
        raise HttpError(400, "the body must be a JSON object")
    return data


def text_field(data: dict[str, Any], name: str, *, max_length: int, required: bool) -> str:
    value = data.get(name, "")
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise HttpError(400, f"{name} must be a string")
    value = value.strip()
    if required and not value:
        raise HttpError(400, f"{name} is required")
    if len(value) > max_length:
        raise HttpError(400, f"{name} must be at most {max_length} characters")
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise HttpError(400, f"{name} must not contain control characters")
    return value


def int_field(data: dict[str, Any], name: str, default: int, lo: int, hi: int) -> int:
    value = data.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise HttpError(400, f"{name} must be an integer {lo}-{hi}")
    return value


def check_id(name: str, value: str) -> str:
    if not ID.fullmatch(value) or ":" in value:
        raise HttpError(400, f"{name} must be 1-128 printable characters without spaces or ':'")
    return value


def actor_of(request: Request) -> str:
    """Who acts, as the operator page names them: ``X-Hebei-Actor`` percent-encoded (UTF-8,
    as ``hebei.common.auth.actor_metadata`` sends it: a header carries ASCII only), decoded
    here, at most 64 characters; "" when absent or not printable."""
    raw = request.headers.get("x-hebei-actor", "")[:1024]
    actor = urllib.parse.unquote(raw, errors="replace").strip()[:64]
    return actor if actor.isprintable() and "\ufffd" not in actor else ""


def decision_of(data: dict[str, Any]) -> int | None:
    """The ``decision_id`` a command answers (the page's ``state.decision_id``: a string of
    digits, as JSON numbers lose precision past 2^53; an integer is taken too), None if
    absent."""
    value = data.get("decision_id")
    if value is None or value == "":
        return None
    if isinstance(value, str) and value.isdigit() and len(value) <= 20:
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 2**64:
        raise HttpError(400, "decision_id must be the decision's id (a positive integer)")
    return value


def last_event_id(request: Request) -> int | None:
    raw = request.headers.get("last-event-id") or request.query_params.get("last_event_id")
    if raw is None or raw == "":
        return None
    if not raw.isdigit() or len(raw) > 19:
        raise HttpError(400, "Last-Event-ID must be a number")
    return int(raw)


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


class SecurityHeaders:
    """Adds :data:`SECURITY_HEADERS` to every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], *SECURITY_HEADERS]
            await send(message)

        await self.app(scope, receive, with_headers)


# ------------------------------------------------------------------------------- the app


class Gateway:
    """The routes' state: configuration, backend, hub, limits."""

    def __init__(self, config: WebConfig, backend: Backend | None = None) -> None:
        self.config = config
        self.backend = backend or Backend(config)
        self.hub = Hub(config, self.backend)
        self.posts = RateLimiter(POST_RATE, POST_BURST)
        self.advisor = Advisor(config, self.backend)
        self._tournament_cache: tuple[float, list[dict[str, Any]]] | None = None

    # ------------------------------------------------------------------- SSE

    def sse(self, request: Request, feed: Feed, release: Callable[[], None]) -> Response:
        """A feed as an SSE response (see the module doc)."""
        resume = last_event_id(request)
        stream_seconds = self.config.stream_seconds
        stopping = self.hub.stopping
        feed.attach()

        def finish() -> None:
            if release.__dict__.get("done"):
                return
            release.__dict__["done"] = True
            feed.detach()
            release()

        async def body() -> AsyncIterator[str]:
            gone = asyncio.Event()  # set when the client's connection closes
            watcher = asyncio.ensure_future(until_disconnected(request, gone))
            try:
                yield f"retry: {RETRY_MS}\n\n"
                deadline = time.monotonic() + stream_seconds
                first = time.monotonic() + FIRST_STATE_SECONDS
                while feed.state is None and feed.ended is None and not stopping.is_set():
                    if gone.is_set():
                        return
                    if not await wait_any((feed.signal(), stopping, gone), 1.0):
                        yield ": waiting for the table\n\n"
                        if time.monotonic() > first:
                            yield frame("end", None, {"reason": "no state arrived in time"})
                            return
                resumable = resume is not None and feed.deltas_after(resume) is not None
                cursor = resume if resumable else None
                while True:
                    signal = feed.signal()  # before reading: a change while we send sets it
                    deltas = None if cursor is None else feed.deltas_after(cursor)
                    if deltas is None and feed.state is not None:
                        seq, text = feed.snapshot()
                        yield f"event: snapshot\nid: {seq}\ndata: {text}\n\n"
                        cursor = seq
                    for seq, text in deltas or ():
                        yield f"event: delta\nid: {seq}\ndata: {text}\n\n"
                        cursor = seq
                    if feed.ended is not None and cursor is not None and cursor >= feed.seq:
                        yield frame("end", None, {"reason": feed.ended})
                        return
                    left = deadline - time.monotonic()
                    if left <= 0:
                        return  # the browser comes back with Last-Event-ID
                    woken = await wait_any((signal, stopping, gone), min(KEEPALIVE_SECONDS, left))
                    if gone.is_set():
                        return  # its slot is given back now, not at the next keepalive
                    if stopping.is_set() or time.monotonic() >= deadline:
                        return  # the browser comes back with Last-Event-ID
                    if not woken:
                        yield ": keepalive\n\n"
            finally:
                watcher.cancel()
                finish()

        return StreamingResponse(
            body(),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
            background=BackgroundTask(finish),
        )

    def _stream_slot(
        self, request: Request, session: SeatSession | None = None
    ) -> Callable[[], None]:
        """A stream's place: a seat's own pool for a seat session's stream (never taken by
        spectators), else the spectators' pool of the client's address."""
        if session is not None:
            return self.hub.seat_streams.acquire(session.key)
        return self.hub.streams.acquire(client_of(request))

    # ------------------------------------------------------------------- routes: tables

    async def health(self, request: Request) -> Response:
        return JSONResponse({"status": "ok", **self.hub.stats(), "advice": self.advisor.stats()})

    async def bots(self, request: Request) -> Response:
        from hebei.bots.policies import POLICY_LEVELS

        return JSONResponse(
            {
                "policies": [{"name": n, "levels": list(v)} for n, v in POLICY_LEVELS.items()],
                "max_hands": MAX_HANDS,
                "default": {"policy": "expert", "level": DEFAULT_LEVEL, "hands": 1},
            }
        )

    async def _list_matches(self, status: int = 0, tournament_id: str = "") -> list[Any]:
        reply = await self.backend.call(
            "table",
            "ListTables",
            table_pb2.ListTablesRequest(tournament_id=tournament_id, status=status, page_size=200),
        )
        return list(reply.matches)

    async def list_tables(self, request: Request) -> Response:
        which = request.query_params.get("status", "live")
        if which not in ("live", "ended", "all"):
            raise HttpError(400, "status must be live, ended or all")
        tournament_id = request.query_params.get("tournament_id", "")
        if tournament_id:
            check_id("tournament_id", tournament_id)
        matches = await self._list_matches(tournament_id=tournament_id)
        live = (pb.MATCH_STATUS_WAITING, pb.MATCH_STATUS_PLAYING)
        if which == "live":
            matches = [m for m in matches if m.status in live]
        elif which == "ended":
            matches = [m for m in matches if m.status not in live]
        return JSONResponse({"tables": [match_json(m) for m in matches]})

    async def get_table(self, request: Request) -> Response:
        match_id = check_id("match", request.path_params["match"])
        reply = await self.backend.call(
            "table", "GetMatch", table_pb2.GetMatchRequest(match_id=match_id)
        )
        return JSONResponse(match_json(reply.match))

    async def table_events(self, request: Request) -> Response:
        match_id = check_id("match", request.path_params["match"])
        last_event_id(request)  # a bad id is refused before anything is held
        release = self._stream_slot(request)
        try:
            feed, unread = await self.hub.watch_table(match_id, client_of(request))
        except BaseException:
            release()
            raise

        def release_both() -> None:
            unread()
            release()

        return self.sse(request, feed, release_both)

    # ------------------------------------------------------------------- routes: seats

    async def quick_play(self, request: Request) -> Response:
        self.posts.take(client_of(request))
        from hebei.bots.policies import POLICY_LEVELS

        data = await read_json(request)
        name = text_field(data, "name", max_length=MAX_NAME, required=False)
        if name.casefold() in UNNAMED:  # no name: matchmaking gives "Player 1", "Player 2", ...
            name = ""
        policy = text_field(data, "policy", max_length=32, required=False) or "expert"
        if policy not in POLICY_LEVELS:
            raise HttpError(400, f"policy must be one of {', '.join(POLICY_LEVELS)}")
        level = int_field(data, "level", 0, 0, 9)
        hands = int_field(data, "hands", 1, 1, MAX_HANDS)
        request_message = mm.QuickPlayRequest(
            name=name, bot_policy=policy, bot_level=level, length=pb.MatchLength(hands=hands)
        )
        release = self.hub.quick_play.acquire(client_of(request))
        try:
            reply = await self.backend.run(self._seat_me, request_message)
        finally:
            release()
        seating = reply.seating
        session = self.hub.open_seat(
            seating.match_id,
            seating.seat,
            seating.seat_token,
            client_of(request),
            reply.player_id,
        )
        return self._seated(request, session)

    def _seat_me(self, request_message: mm.QuickPlayRequest) -> mm.QuickPlayResponse:
        """QuickPlay until seated (blocking: runs in the call pool)."""
        call = self.backend.matchmaking.QuickPlay(
            request_message, timeout=self.config.quick_play_timeout
        )
        try:
            for reply in call:
                if reply.status in (mm.QUICK_PLAY_STATUS_SEATED, mm.QUICK_PLAY_STATUS_STARTED):
                    return reply
        except grpc.RpcError as error:
            raise http_error(error, "matchmaking") from None
        finally:
            call.cancel()
        raise HttpError(503, "matchmaking ended the quick-play request without a seat")

    async def join_seat(self, request: Request) -> Response:
        self.posts.take(client_of(request))
        data = await read_json(request)
        if "tournament_id" in data or "player_secret" in data:
            raise HttpError(
                400,
                "a tournament is played from its page (tournament.html?id=ID): sign in there "
                "with your player id and secret once, and it follows you from round to round",
            )
        match_id = check_id("match_id", text_field(data, "match_id", max_length=128, required=True))
        seat = int_field(data, "seat", -1, 0, 3)
        token = text_field(data, "seat_token", max_length=256, required=True)
        if not TOKEN.fullmatch(token):
            raise HttpError(400, "seat_token must be 16-256 printable characters")
        session = self.hub.open_seat(match_id, seat, token, client_of(request))
        await self.hub.accepted(session, self.config.call_timeout)
        return self._seated(request, session)

    def _seated(self, request: Request, session: SeatSession) -> Response:
        """A seat session opened for this browser (201): its match joins My matches."""
        response = JSONResponse(self._seat_json(session), status_code=201)
        remember(response, request, session)
        return response

    def _seat_json(self, session: SeatSession) -> dict[str, Any]:
        return {
            "key": session.key,
            "match_id": session.match_id,
            "seat": session.seat,
            "player_id": session.player_id,
            "url": f"/table.html?seat={session.key}",
            "ended": session.feed.ended,
        }

    async def get_seat(self, request: Request) -> Response:
        return JSONResponse(self._seat_json(self.hub.seat(request.path_params["key"])))

    async def seat_events(self, request: Request) -> Response:
        session = self.hub.seat(request.path_params["key"])
        last_event_id(request)
        release = self._stream_slot(request, session)
        return self.sse(request, session.feed, release)

    async def seat_command(self, request: Request) -> Response:
        self.posts.take(client_of(request))
        session = self.hub.seat(request.path_params["key"])
        return await self.command(session, await read_json(request))

    async def command(self, session: SeatSession, data: dict[str, Any]) -> Response:
        """``{command, decision_id}`` for a seat session (by key, or a person's by cookie): the
        action answers that decision, or nothing is sent (409 DECISION_OVER: it was answered or
        closed). Without ``decision_id`` (older clients) it answers the decision open now."""
        command = text_field(data, "command", max_length=16, required=False)
        return JSONResponse(session.command(command, decision_of(data)), status_code=202)

    async def seat_auto(self, request: Request) -> Response:
        self.posts.take(client_of(request))
        session = self.hub.seat(request.path_params["key"])
        return await self.auto(session, await read_json(request))

    async def auto(self, session: SeatSession, data: dict[str, Any]) -> Response:
        """``{on}``: auto-play (托管) of a seat session on or off."""
        on = data.get("on")
        if not isinstance(on, bool):
            raise HttpError(400, "on must be true or false")
        return JSONResponse(session.toggle_auto(on), status_code=202)

    async def seat_hint(self, request: Request) -> Response:
        return await self.hint(request, self.hub.seat(request.path_params["key"]))

    async def hint(self, request: Request, session: SeatSession) -> Response:
        """The expert's suggestion for the open decision of the session's own seat (bounded by
        the seat's own hint bucket, not the address's POST rate: a remembered hint is free)."""
        key = session.key
        raw = request.query_params.get("seat")
        if raw is not None and raw != str(session.seat):
            raise HttpError(
                403,
                f"a hint is only for your own seat ({session.seat}): "
                "no one at a table sees another seat's tiles",
            )
        session.check_live()
        if len(self.advisor.hints) > 2 * self.config.max_sessions:  # every seat that asked
            self.advisor.forget({s.key for s in self.hub.sessions()})
        return JSONResponse(await self.advisor.hint(key, session.seat, session.obs))

    async def table_review(self, request: Request) -> Response:
        """A finished match: one seat's decisions against the expert's."""
        self.posts.take(client_of(request))
        match_id = check_id("match", request.path_params["match"])
        raw = request.query_params.get("seat", "")
        if raw not in ("0", "1", "2", "3"):
            raise HttpError(400, "seat must be 0-3")
        review = await self.advisor.review(match_id, int(raw), client_of(request))
        return JSONResponse(review)

    async def leave_seat(self, request: Request) -> Response:
        self.hub.seat(request.path_params["key"])
        self.hub.close_seat(request.path_params["key"])
        return Response(status_code=204)

    # ------------------------------------------------------------- routes: tournaments

    async def list_tournaments(self, request: Request) -> Response:
        now = time.monotonic()
        if self._tournament_cache is not None and now - self._tournament_cache[0] < 2.0:
            return JSONResponse({"tournaments": self._tournament_cache[1]})
        matches = await self._list_matches()
        ids = list(dict.fromkeys(m.tournament_id for m in matches if m.tournament_id))
        ids += [t for t in reversed(self.hub.seen_tournaments) if t not in ids]
        found = await asyncio.gather(*(self._tournament(t) for t in ids[:20]))
        listed = [t for t in found if t is not None]
        order = {"running": 0, "paused": 1, "registration": 2, "finished": 3, "cancelled": 4}
        listed.sort(key=lambda t: (order.get(t["status"], 5), -(t["created_ms"] or 0)))
        self._tournament_cache = (now, listed)
        return JSONResponse({"tournaments": listed})

    async def _tournament(self, tournament_id: str) -> dict[str, Any] | None:
        try:
            reply = await self.backend.call(
                "matchmaking",
                "GetTournament",
                mm.GetTournamentRequest(tournament_id=tournament_id),
            )
        except HttpError:
            return None
        data = tournament_json(reply.tournament)
        data.pop("tables")
        return data

    async def get_tournament(self, request: Request) -> Response:
        tournament_id = check_id("tournament", request.path_params["tournament"])
        reply = await self.backend.call(
            "matchmaking", "GetTournament", mm.GetTournamentRequest(tournament_id=tournament_id)
        )
        self.hub.remember_tournament(tournament_id)
        return JSONResponse(tournament_json(reply.tournament))

    async def tournament_seating(self, request: Request) -> Response:
        tournament_id = check_id("tournament", request.path_params["tournament"])
        rounds, reply = [], None
        while (asked := next_request(tournament_id, reply)) is not None:
            reply = await self.backend.call("matchmaking", "GetSeating", asked)
            rounds += [round_json(r) for r in reply.rounds]
        return JSONResponse({"rounds": rounds})

    async def tournament_standings(self, request: Request) -> Response:
        tournament_id = check_id("tournament", request.path_params["tournament"])
        reply = await self.backend.call(
            "matchmaking", "GetStandings", mm.GetStandingsRequest(tournament_id=tournament_id)
        )
        return JSONResponse(standings_json(reply))

    async def tournament_events(self, request: Request) -> Response:
        tournament_id = check_id("tournament", request.path_params["tournament"])
        last_event_id(request)
        release = self._stream_slot(request)
        try:
            feed = await self.hub.tournament_feed(tournament_id)
        except BaseException:
            release()
            raise
        return self.sse(request, feed, release)

    # ---------------------------------------------------------------- routes: operator

    def operator(self, request: Request) -> tuple[str, str]:
        """The operator's token (checked against the gateway's) and name; 401/503 otherwise."""
        expected = self.config.operator_token
        if not expected:
            raise HttpError(503, "the gateway has no operator token (set HEBEI_OPERATOR_TOKEN)")
        header = request.headers.get("authorization", "")
        token = header[7:].strip() if header[:7].lower() == "bearer " else ""
        if not token or len(token) > 512 or not same_token(expected, token):
            raise HttpError(401, "the operator token is missing or wrong")
        return token, actor_of(request) or "web operator"

    async def overview(self, request: Request) -> Response:
        self.operator(request)
        raw = request.query_params.get("stall_seconds", str(STALL_DEFAULT))
        if not raw.isdigit() or not 5 <= int(raw) <= 86_400:
            raise HttpError(400, "stall_seconds must be an integer 5-86400")
        stall = int(raw)
        health = await asyncio.gather(
            *(self.backend.run(self.backend.health, s) for s in self.backend.addresses)
        )
        try:
            matches = await self._list_matches()
            engine_error = None
        except HttpError as error:
            matches, engine_error = [], error.message
        now = time.monotonic()
        live = (pb.MATCH_STATUS_WAITING, pb.MATCH_STATUS_PLAYING)
        tables, counts = [], {}
        for info in matches:
            data = match_json(info)
            counts[data["status"]] = counts.get(data["status"], 0) + 1
            if info.status not in live:
                self.hub.activity.pop(info.match_id, None)
                continue
            count, since = self.hub.activity.get(info.match_id, (-1, now))
            if count != info.event_count:
                since = now
            self.hub.activity[info.match_id] = (info.event_count, since)
            data["idle_seconds"] = round(now - since, 1)
            data["stalled"] = data["idle_seconds"] >= stall or data["paused"]
            tables.append(data)
        for match_id in [m for m in self.hub.activity if m not in {t.match_id for t in matches}]:
            self.hub.activity.pop(match_id, None)
        metrics = await self.backend.run(self._metrics) if self.config.metrics else None
        return JSONResponse(
            {
                "services": health,
                "engines": [
                    {
                        "address": self.config.table_address,
                        "counts": counts,
                        "error": engine_error,
                    }
                ],
                "tables": tables,
                "stall_seconds": stall,
                "metrics": metrics,
                "gateway": self.hub.stats(),
            }
        )

    def _metrics(self) -> dict[str, Any]:
        """A few series from the services' Prometheus endpoints (blocking)."""
        found: dict[str, Any] = {}
        for name, address in self.config.metrics.items():
            try:
                with urllib.request.urlopen(f"http://{address}/metrics", timeout=2) as reply:
                    text = reply.read(4 * 1024 * 1024).decode("utf-8", "replace")
            except OSError as exc:
                found[name] = {"error": str(getattr(exc, "reason", exc))[:200]}
                continue
            series = {}
            for line in text.splitlines():
                if line.startswith(METRICS_SHOWN):
                    key, _, value = line.rpartition(" ")
                    with contextlib.suppress(ValueError):
                        series[key] = float(value)
            found[name] = series
        return found

    async def dissolve(self, request: Request) -> Response:
        token, actor = self.operator(request)
        self.posts.take(client_of(request))
        match_id = check_id("match", request.path_params["match"])
        data = await read_json(request)
        reason = text_field(data, "reason", max_length=MAX_REASON, required=True)
        tournament_id = text_field(data, "tournament_id", max_length=128, required=False)
        if tournament_id:
            check_id("tournament_id", tournament_id)
            reply = await self.backend.call(
                "matchmaking",
                "DissolveTable",
                mm.DissolveTableRequest(
                    tournament_id=tournament_id, match_id=match_id, reason=reason
                ),
                token=token,
                actor=actor,
            )
            return JSONResponse({"dissolved": match_id, "status": reply.table.status})
        reply = await self.backend.call(
            "table",
            "Dissolve",
            table_pb2.DissolveRequest(match_id=match_id, reason=f"{reason} ({actor})"),
            token=token,
            actor=actor,
        )
        return JSONResponse({"dissolved": match_id, "table": match_json(reply.match)})

    async def pause(self, request: Request) -> Response:
        token, actor = self.operator(request)
        self.posts.take(client_of(request))
        tournament_id = check_id("tournament", request.path_params["tournament"])
        data = await read_json(request)
        reason = text_field(data, "reason", max_length=MAX_REASON, required=False)
        reply = await self.backend.call(
            "matchmaking",
            "Pause",
            mm.PauseRequest(tournament_id=tournament_id, reason=reason or "paused from the web"),
            token=token,
            actor=actor,
        )
        return JSONResponse(tournament_json(reply.tournament))

    async def resume(self, request: Request) -> Response:
        token, actor = self.operator(request)
        self.posts.take(client_of(request))
        tournament_id = check_id("tournament", request.path_params["tournament"])
        await read_json(request)
        reply = await self.backend.call(
            "matchmaking",
            "Resume",
            mm.ResumeRequest(tournament_id=tournament_id),
            token=token,
            actor=actor,
        )
        return JSONResponse(tournament_json(reply.tournament))


async def until_disconnected(request: Request, gone: asyncio.Event) -> None:
    """Set ``gone`` once the client's connection closes (``http.disconnect`` on the ASGI receive
    channel), so that a stream's slot is given back at once rather than at its next write."""
    try:
        while (await request.receive())["type"] != "http.disconnect":
            pass
    except Exception:  # the channel is done with (the response ended): nothing to watch
        return
    gone.set()


async def wait_any(events: tuple[asyncio.Event, ...], timeout: float) -> bool:
    """Wait until one of ``events`` is set (True) or ``timeout`` seconds pass (False)."""
    waiters = [asyncio.ensure_future(event.wait()) for event in events]
    try:
        done, _ = await asyncio.wait(waiters, timeout=timeout, return_when="FIRST_COMPLETED")
    finally:
        for waiter in waiters:
            waiter.cancel()
    return bool(done)


def frame(event: str, seq: int | None, data: Any) -> str:
    head = f"event: {event}\n" + (f"id: {seq}\n" if seq is not None else "")
    return f"{head}data: {json.dumps(data, ensure_ascii=False)}\n\n"


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

    g = gateway
    from hebei.web.exports import ExportRoutes
    from hebei.web.history import History
    from hebei.web.me import PersonRoutes
    from hebei.web.metrics import RequestMetrics, watch

    routes = [
        *PersonRoutes(gateway).routes(),
        *History(gateway).routes(),
        Route("/api/health", g.health),
        Route("/api/bots", g.bots),
        Route("/api/tables", g.list_tables),
        Route("/api/tables/{match}", g.get_table),
        Route("/api/tables/{match}/events", g.table_events),
        Route("/api/tables/{match}/review", g.table_review),
        Route("/api/quickplay", g.quick_play, methods=["POST"]),
        Route("/api/seats", g.join_seat, methods=["POST"]),
        Route("/api/seats/{key}", g.get_seat, methods=["GET"]),
        Route("/api/seats/{key}", g.leave_seat, methods=["DELETE"]),
        Route("/api/seats/{key}/events", g.seat_events),
        Route("/api/seats/{key}/commands", g.seat_command, methods=["POST"]),
        Route("/api/seats/{key}/auto", g.seat_auto, methods=["POST"]),
        Route("/api/seats/{key}/hint", g.seat_hint),
        Route("/api/tournaments", g.list_tournaments),
        Route("/api/tournaments/{tournament}", g.get_tournament),
        Route("/api/tournaments/{tournament}/seating", g.tournament_seating),
        Route("/api/tournaments/{tournament}/standings", g.tournament_standings),
        Route("/api/tournaments/{tournament}/events", g.tournament_events),
        *ExportRoutes(g).routes(),  # hebei.web.exports: CSV/JSON exports, printable pages
        Route("/api/operator/overview", g.overview),
        Route("/api/operator/tables/{match}/dissolve", g.dissolve, methods=["POST"]),
        Route("/api/operator/tournaments/{tournament}/pause", g.pause, methods=["POST"]),
        Route("/api/operator/tournaments/{tournament}/resume", g.resume, methods=["POST"]),
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
