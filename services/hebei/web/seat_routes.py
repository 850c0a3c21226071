"""A person's seat in the browser: quick play against bots, a seat held by its token, and the
seat session's routes (its live table, the commands typed or clicked, auto-play, the expert's
hint, leaving). A tournament's person plays the same way from its page
(:mod:`hebei.web.me`, through :func:`command`, :func:`auto` and :func:`hint`).

GET    /api/bots                                       bot policies and levels for quick play
POST   /api/quickplay                                  ``{name, policy, level, hands}`` -> a seat
POST   /api/seats                                      ``{match_id, seat, seat_token}``
GET    /api/seats/{key}                                the session: match, seat
GET    /api/seats/{key}/events                         SSE: the seat's table (own hand, options)
POST   /api/seats/{key}/commands                       ``{command}``: a key as in ``hebei play``
POST   /api/seats/{key}/auto                           ``{on}``: auto-play (托管) on or off
DELETE /api/seats/{key}                                leave (the engine plays the seat on)
GET    /api/seats/{key}/hint[?seat=N]                  the expert's suggestion (own seat only)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import grpc
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import types_pb2 as pb
from hebei.web.backend import HttpError, http_error
from hebei.web.history import remember
from hebei.web.inputs import (
    MAX_NAME,
    TOKEN,
    check_id,
    client_of,
    decision_of,
    int_field,
    last_event_id,
    read_json,
    text_field,
)
from hebei.web.tables import SeatSession

if TYPE_CHECKING:
    from hebei.web.app import Gateway

MAX_HANDS = 16
DEFAULT_LEVEL = 3  # quick play's expert level unless asked (the expert's own default)
UNNAMED = frozenset({"", "you"})  # the lobby's placeholder is no name: distinct defaults


class SeatRoutes:
    """The routes above, on the gateway's state."""

    def __init__(self, gateway: Gateway) -> None:
        self.g = gateway

    def routes(self) -> list[Route]:
        return [
            Route("/api/bots", self.bots),
            Route("/api/quickplay", self.quick_play, methods=["POST"]),
            Route("/api/seats", self.join_seat, methods=["POST"]),
            Route("/api/seats/{key}", self.get_seat, methods=["GET"]),
            Route("/api/seats/{key}", self.leave_seat, methods=["DELETE"]),
            Route("/api/seats/{key}/events", self.seat_events),
            Route("/api/seats/{key}/commands", self.seat_command, methods=["POST"]),
            Route("/api/seats/{key}/auto", self.seat_auto, methods=["POST"]),
            Route("/api/seats/{key}/hint", self.seat_hint),
        ]

    async def bots(self, request: Request) -> Response:
        from hebei.fleet.catalogue import POLICY_LEVELS

        return JSONResponse(
            {
                "policies": [{"name": n, "levels": list(v)} for n, v in POLICY_LEVELS.items()],
                "max_hands": MAX_HANDS,
                "default": {"policy": "expert", "level": DEFAULT_LEVEL, "hands": 1},
            }
        )

    async def quick_play(self, request: Request) -> Response:
        self.g.posts.take(client_of(request))
        from hebei.fleet.catalogue import POLICY_LEVELS

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
        release = self.g.hub.quick_play.acquire(client_of(request))
        try:
            reply = await self.g.backend.run(self._seat_me, request_message)
        finally:
            release()
        seating = reply.seating
        session = self.g.hub.open_seat(
            seating.match_id,
            seating.seat,
            seating.seat_token,
            client_of(request),
            reply.player_id,
        )
        return self._seated(request, session)

    def _seat_me(self, request_message: mm.QuickPlayRequest) -> mm.QuickPlayResponse:
        """QuickPlay until seated (blocking: runs in the call pool)."""
        call = self.g.backend.matchmaking.QuickPlay(
            request_message, timeout=self.g.config.quick_play_timeout
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
        self.g.posts.take(client_of(request))
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
        session = self.g.hub.open_seat(match_id, seat, token, client_of(request))
        await self.g.hub.accepted(session, self.g.config.call_timeout)
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
        return JSONResponse(self._seat_json(self.g.hub.seat(request.path_params["key"])))

    async def seat_events(self, request: Request) -> Response:
        session = self.g.hub.seat(request.path_params["key"])
        last_event_id(request)
        release = self.g.stream_slot(request, session)
        return self.g.sse(request, session.feed, release)

    async def seat_command(self, request: Request) -> Response:
        self.g.posts.take(client_of(request))
        session = self.g.hub.seat(request.path_params["key"])
        return await command(session, await read_json(request))

    async def seat_auto(self, request: Request) -> Response:
        self.g.posts.take(client_of(request))
        session = self.g.hub.seat(request.path_params["key"])
        return await auto(session, await read_json(request))

    async def seat_hint(self, request: Request) -> Response:
        return await hint(self.g, request, self.g.hub.seat(request.path_params["key"]))

    async def leave_seat(self, request: Request) -> Response:
        self.g.hub.seat(request.path_params["key"])
        self.g.hub.close_seat(request.path_params["key"])
        return Response(status_code=204)


async def command(session: SeatSession, data: dict[str, Any]) -> Response:
    """``{command, decision_id}`` for a seat session (by key, or a person's by cookie): the
    action answers that decision, or nothing is sent (409 DECISION_OVER: it was answered or
    closed). Without ``decision_id`` (older clients) it answers the decision open now."""
    typed = text_field(data, "command", max_length=16, required=False)
    return JSONResponse(session.command(typed, decision_of(data)), status_code=202)


async def auto(session: SeatSession, data: dict[str, Any]) -> Response:
    """``{on}``: auto-play (托管) of a seat session on or off."""
    on = data.get("on")
    if not isinstance(on, bool):
        raise HttpError(400, "on must be true or false")
    return JSONResponse(session.toggle_auto(on), status_code=202)


async def hint(gateway: Gateway, request: Request, session: SeatSession) -> Response:
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
    if len(gateway.advisor.hints) > 2 * gateway.config.max_sessions:  # every seat that asked
        gateway.advisor.forget({s.key for s in gateway.hub.sessions()})
    return JSONResponse(await gateway.advisor.hint(key, session.seat, session.obs))
