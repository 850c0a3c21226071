"""The tournaments' public routes: the tournaments the gateway knows of, one tournament's
summary, every round's seating and quality, the standings with their tie-breaks, and the live
feed of all three. (A person's own event is :mod:`hebei.web.me`; exports and printable pages
are :mod:`hebei.web.exports`.)

GET    /api/tournaments                                tournaments with tables (and seen ones)
GET    /api/tournaments/{id}                           summary
GET    /api/tournaments/{id}/seating                   every round's tables and quality
GET    /api/tournaments/{id}/standings                 ranking with tie-breaks (decided_by)
GET    /api/tournaments/{id}/events                    SSE: summary, rounds and standings
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from hebei.common.seating import next_request
from hebei.v1 import matchmaking_pb2 as mm
from hebei.web.backend import HttpError
from hebei.web.inputs import check_id, last_event_id
from hebei.web.tournament_views import round_json, standings_json, tournament_json

if TYPE_CHECKING:
    from hebei.web.app import Gateway


class TournamentRoutes:
    """The routes above, on the gateway's state."""

    def __init__(self, gateway: Gateway) -> None:
        self.g = gateway
        self._tournament_cache: tuple[float, list[dict[str, Any]]] | None = None

    def routes(self) -> list[Route]:
        return [
            Route("/api/tournaments", self.list_tournaments),
            Route("/api/tournaments/{tournament}", self.get_tournament),
            Route("/api/tournaments/{tournament}/seating", self.tournament_seating),
            Route("/api/tournaments/{tournament}/standings", self.tournament_standings),
            Route("/api/tournaments/{tournament}/events", self.tournament_events),
        ]

    async def list_tournaments(self, request: Request) -> Response:
        now = time.monotonic()
        if self._tournament_cache is not None and now - self._tournament_cache[0] < 2.0:
            return JSONResponse({"tournaments": self._tournament_cache[1]})
        matches = await self.g.list_matches()
        ids = list(dict.fromkeys(m.tournament_id for m in matches if m.tournament_id))
        ids += [t for t in reversed(self.g.hub.seen_tournaments) if t not in ids]
        found = await asyncio.gather(*(self._tournament(t) for t in ids[:20]))
        listed = [t for t in found if t is not None]
        order = {"running": 0, "paused": 1, "registration": 2, "finished": 3, "cancelled": 4}
        listed.sort(key=lambda t: (order.get(t["status"], 5), -(t["created_ms"] or 0)))
        self._tournament_cache = (now, listed)
        return JSONResponse({"tournaments": listed})

    async def _tournament(self, tournament_id: str) -> dict[str, Any] | None:
        try:
            reply = await self.g.backend.call(
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
        reply = await self.g.backend.call(
            "matchmaking", "GetTournament", mm.GetTournamentRequest(tournament_id=tournament_id)
        )
        self.g.hub.remember_tournament(tournament_id)
        return JSONResponse(tournament_json(reply.tournament))

    async def tournament_seating(self, request: Request) -> Response:
        tournament_id = check_id("tournament", request.path_params["tournament"])
        rounds, reply = [], None
        while (asked := next_request(tournament_id, reply)) is not None:
            reply = await self.g.backend.call("matchmaking", "GetSeating", asked)
            rounds += [round_json(r) for r in reply.rounds]
        return JSONResponse({"rounds": rounds})

    async def tournament_standings(self, request: Request) -> Response:
        tournament_id = check_id("tournament", request.path_params["tournament"])
        reply = await self.g.backend.call(
            "matchmaking", "GetStandings", mm.GetStandingsRequest(tournament_id=tournament_id)
        )
        return JSONResponse(standings_json(reply))

    async def tournament_events(self, request: Request) -> Response:
        tournament_id = check_id("tournament", request.path_params["tournament"])
        last_event_id(request)
        release = self.g.stream_slot(request)
        try:
            feed = await self.g.hub.tournament_feed(tournament_id)
        except BaseException:
            release()
            raise
        return self.g.sse(request, feed, release)
