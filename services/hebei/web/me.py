"""The routes of a person's tournament, authenticated by the registration's cookie (see
:mod:`hebei.web.people`):

====== ============================================== ===========================================
POST   /api/tournaments/{id}/register                  ``{name, registration_code?}``: register a
                                                       person; sets the cookie; the player id and
                                                       secret come back once (another device)
POST   /api/tournaments/{id}/me/session                ``{player_id, player_secret}``: this
                                                       device joins a registration (sets the cookie)
DELETE /api/tournaments/{id}/me/session                this device signs out (clears the cookie)
POST   /api/tournaments/{id}/me/check-in               check in (a tournament with a check-in
                                                       window)
GET    /api/tournaments/{id}/me                        who the cookie is, their seat
GET    /api/tournaments/{id}/me/events                 SSE: the tournament as the person sees it
GET    /api/tournaments/{id}/me/seat/events            SSE: their open table (own hand, options);
                                                       ``?match=&session=`` as ``me.seat`` names
                                                       them (another session: 404)
POST   /api/tournaments/{id}/me/seat/commands          ``{command}``, as ``/api/seats/KEY/...``
POST   /api/tournaments/{id}/me/seat/auto              ``{on}``
GET    /api/tournaments/{id}/me/seat/hint              the expert's hint for the open decision
====== ============================================== ===========================================

Every POST and DELETE here must come from the gateway's own pages (Origin, Sec-Fetch-Site) as
``application/json``, and counts against the address's POST rate.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from hebei.v1 import matchmaking_pb2 as mm
from hebei.web.backend import HttpError
from hebei.web.history import remember, remember_tables
from hebei.web.inputs import (
    MAX_NAME,
    check_id,
    client_of,
    error_response,
    last_event_id,
    read_json,
    text_field,
)
from hebei.web.people import (
    Credentials,
    Follower,
    check_json_type,
    check_same_origin,
    clear_cookie,
    credentials_of,
    set_cookie,
)
from hebei.web.seat_routes import auto, command, hint

if TYPE_CHECKING:
    from hebei.web.app import Gateway

VERIFY_SECONDS = 20.0  # how long a request waits for matchmaking to take a registration
MAX_CODE = 64


class PersonRoutes:
    """The routes above, on the gateway's state."""

    def __init__(self, gateway: Gateway) -> None:
        self.g = gateway

    def routes(self) -> list[Route]:
        base = "/api/tournaments/{tournament}"
        return [
            Route(f"{base}/register", self.register, methods=["POST"]),
            Route(f"{base}/me", self.me, methods=["GET"]),
            Route(f"{base}/me/session", self.sign_in, methods=["POST"]),
            Route(f"{base}/me/session", self.sign_out, methods=["DELETE"]),
            Route(f"{base}/me/check-in", self.check_in, methods=["POST"]),
            Route(f"{base}/me/events", self.events, methods=["GET"]),
            Route(f"{base}/me/seat/events", self.seat_events, methods=["GET"]),
            Route(f"{base}/me/seat/commands", self.seat_command, methods=["POST"]),
            Route(f"{base}/me/seat/auto", self.seat_auto, methods=["POST"]),
            Route(f"{base}/me/seat/hint", self.seat_hint, methods=["GET"]),
        ]

    # ------------------------------------------------------------------ helpers

    def _tournament(self, request: Request) -> str:
        return check_id("tournament", request.path_params["tournament"])

    async def _body(self, request: Request) -> dict[str, Any]:
        """A state-changing request's JSON body, from the gateway's own pages only."""
        check_same_origin(request)
        self.g.posts.take(client_of(request))
        check_json_type(request)
        return await read_json(request)

    async def _follower(self, request: Request, credentials: Credentials | None = None) -> Follower:
        """The person's follower once matchmaking took the registration (403 if it refused,
        503 if it did not answer in time)."""
        tournament_id = self._tournament(request)
        credentials = credentials or credentials_of(request, tournament_id)
        follower = self.g.hub.follower(credentials, client_of(request))
        verified = follower.producer.verified
        deadline = time.monotonic() + VERIFY_SECONDS
        while not verified.is_set() and time.monotonic() < deadline:
            await asyncio.sleep(0.05)  # polled: no thread held while matchmaking is away
        refused = follower.producer.refused
        if refused is not None:
            self.g.hub.drop_follower(follower)  # holds nothing for a cookie that never works
            status = 404 if "not found" in refused.lower() or "no such" in refused.lower() else 403
            raise HttpError(status, f"matchmaking refused this registration: {refused}")
        if not verified.is_set():
            raise HttpError(503, "matchmaking did not answer in time; try again shortly")
        return follower

    @staticmethod
    def _me_json(follower: Follower) -> dict[str, Any]:
        me = follower.producer.me
        player = me["player"] or {}
        return {
            "tournament_id": follower.credentials.tournament_id,
            "player_id": follower.credentials.player_id,
            "name": player.get("name", ""),
            "player": me["player"],
            "seat": follower.seat_json(),
        }

    def _refused(self, request: Request, error: HttpError) -> Response:
        """A refused cookie: the error, and the cookie cleared (it will not work again)."""
        response = error_response(error.status, error.message, error.code)
        if error.status in (401, 403, 404):
            clear_cookie(response, request, request.path_params["tournament"])
        return response

    # ------------------------------------------------------------------ routes

    async def register(self, request: Request) -> Response:
        tournament_id = self._tournament(request)
        data = await self._body(request)
        name = text_field(data, "name", max_length=MAX_NAME, required=True)
        code = text_field(data, "registration_code", max_length=MAX_CODE, required=False)
        asked = mm.RegisterRequest(
            tournament_id=tournament_id,
            person=mm.PersonEntrant(name=name),
            registration_code=code,
        )
        try:
            reply = await self.g.backend.call(
                "matchmaking",
                "Register",
                asked,
                token=self.g.config.service_token,
                client=client_of(request),
            )
        except HttpError as error:
            if error.status == 403:
                word = "wrong" if code else "missing"
                raise HttpError(403, f"the registration code is {word}") from None
            raise
        self.g.hub.remember_tournament(tournament_id)
        credentials = Credentials(tournament_id, reply.player.player_id, reply.player_secret)
        response = JSONResponse(
            {
                "tournament_id": tournament_id,
                "player_id": reply.player.player_id,
                "name": reply.player.name,
                # shown once, to type on another device: the cookie keeps it from scripts
                "player_secret": reply.player_secret,
            },
            status_code=201,
        )
        set_cookie(response, request, credentials)
        return response

    async def sign_in(self, request: Request) -> Response:
        tournament_id = self._tournament(request)
        data = await self._body(request)
        player_id = check_id(
            "player_id", text_field(data, "player_id", max_length=128, required=True)
        )
        secret = text_field(data, "player_secret", max_length=256, required=True)
        credentials = Credentials(tournament_id, player_id, secret)
        try:
            follower = await self._follower(request, credentials)
        except HttpError as error:
            if error.status == 403:
                error = HttpError(403, "the player id or secret is wrong")
            raise error from None
        response = JSONResponse(self._me_json(follower))
        set_cookie(response, request, credentials)
        return response

    async def sign_out(self, request: Request) -> Response:
        self._tournament(request)
        check_same_origin(request)
        response = Response(status_code=204)
        clear_cookie(response, request, request.path_params["tournament"])
        return response

    async def check_in(self, request: Request) -> Response:
        await self._body(request)
        follower = await self._follower(request)
        c = follower.credentials
        reply = await self.g.backend.call(
            "matchmaking",
            "CheckIn",
            mm.CheckInRequest(
                tournament_id=c.tournament_id, player_id=c.player_id, player_secret=c.secret
            ),
        )
        return JSONResponse({"checked_in": reply.player.checked_in})

    async def me(self, request: Request) -> Response:
        try:
            follower = await self._follower(request)
        except HttpError as error:
            return self._refused(request, error)
        return JSONResponse(self._me_json(follower))

    async def events(self, request: Request) -> Response:
        last_event_id(request)
        try:
            follower = await self._follower(request)
        except HttpError as error:
            return self._refused(request, error)
        response = self.g.sse(request, follower.feed, self.g.stream_slot(request))
        me = follower.producer.me  # every table of theirs so far joins My matches
        tables = [*me["results"], *([me["table"]] if me["table"] else [])]
        remember_tables(response, request, tables, follower.credentials.tournament_id)
        return response

    async def seat_events(self, request: Request) -> Response:
        last_event_id(request)
        follower = await self._follower(request)
        session = follower.live_session()
        match_id, session_id = (request.query_params.get(k) for k in ("match", "session"))
        if (match_id is not None and match_id != session.match_id) or (
            session_id is not None and session_id != follower.session_id()
        ):
            raise HttpError(404, "that is not your open table now (a new round, or a new session)")
        response = self.g.sse(request, session.feed, self.g.stream_slot(request, session))
        remember(response, request, session, follower.credentials.tournament_id)
        return response

    async def seat_command(self, request: Request) -> Response:
        data = await self._body(request)
        session = (await self._follower(request)).live_session()
        return await command(session, data)

    async def seat_auto(self, request: Request) -> Response:
        data = await self._body(request)
        session = (await self._follower(request)).live_session()
        return await auto(session, data)

    async def seat_hint(self, request: Request) -> Response:
        session = (await self._follower(request)).live_session()
        return await hint(self.g, request, session)
