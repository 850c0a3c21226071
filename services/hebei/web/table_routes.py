"""The tables' routes: the engine's matches for the lobby, one match, a spectated table's live
feed, and the expert's review of a finished match's seat.

GET    /api/tables?status=live|ended|all&tournament_id= matches at the table engine
GET    /api/tables/{match}                             one match
GET    /api/tables/{match}/events                      SSE: the public table (snapshot, deltas)
GET    /api/tables/{match}/review?seat=N               a finished match: seat N's decisions
                                                       against the expert's, agreement rate
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from hebei.v1 import table_pb2
from hebei.v1 import types_pb2 as pb
from hebei.web.backend import HttpError
from hebei.web.inputs import check_id, client_of, last_event_id
from hebei.web.views import match_json

if TYPE_CHECKING:
    from hebei.web.app import Gateway


class TableRoutes:
    """The routes above, on the gateway's state."""

    def __init__(self, gateway: Gateway) -> None:
        self.g = gateway

    def routes(self) -> list[Route]:
        return [
            Route("/api/tables", self.list_tables),
            Route("/api/tables/{match}", self.get_table),
            Route("/api/tables/{match}/events", self.table_events),
            Route("/api/tables/{match}/review", self.table_review),
        ]

    async def list_tables(self, request: Request) -> Response:
        which = request.query_params.get("status", "live")
        if which not in ("live", "ended", "all"):
            raise HttpError(400, "status must be live, ended or all")
        tournament_id = request.query_params.get("tournament_id", "")
        if tournament_id:
            check_id("tournament_id", tournament_id)
        matches = await self.g.list_matches(tournament_id=tournament_id)
        live = (pb.MATCH_STATUS_WAITING, pb.MATCH_STATUS_PLAYING)
        if which == "live":
            matches = [m for m in matches if m.status in live]
        elif which == "ended":
            matches = [m for m in matches if m.status not in live]
        return JSONResponse({"tables": [match_json(m) for m in matches]})

    async def get_table(self, request: Request) -> Response:
        match_id = check_id("match", request.path_params["match"])
        reply = await self.g.backend.call_match(
            match_id, "GetMatch", table_pb2.GetMatchRequest(match_id=match_id)
        )
        return JSONResponse(match_json(reply.match))

    async def table_events(self, request: Request) -> Response:
        match_id = check_id("match", request.path_params["match"])
        last_event_id(request)  # a bad id is refused before anything is held
        release = self.g.stream_slot(request)
        try:
            feed, unread = await self.g.hub.watch_table(match_id, client_of(request))
        except BaseException:
            release()
            raise

        def release_both() -> None:
            unread()
            release()

        return self.g.sse(request, feed, release_both)

    async def table_review(self, request: Request) -> Response:
        """A finished match: one seat's decisions against the expert's."""
        self.g.posts.take(client_of(request))
        match_id = check_id("match", request.path_params["match"])
        raw = request.query_params.get("seat", "")
        if raw not in ("0", "1", "2", "3"):
            raise HttpError(400, "seat must be 0-3")
        review = await self.g.advisor.review(match_id, int(raw), client_of(request))
        return JSONResponse(review)
