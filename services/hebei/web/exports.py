"""A tournament's exports and printable pages, for the organiser's desk (anonymous reads: a
tournament that hides results exports only what is public).

GET /api/tournaments/{id}/export/results.csv|results.json   every standings column, statuses
GET /api/tournaments/{id}/export/seating.csv|seating.json   every seated round's seats, winds
GET /tournaments/{id}/print/round/{n}                        a round's tables to print
GET /tournaments/{id}/print/results                          the results to print

The rows and columns are :mod:`hebei.common.exports`' (the CLI's ``hebei tournament export``
writes the same). The printable pages are plain HTML with /print.css (the gateway's CSP allows
no inline style).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from hebei.common import exports
from hebei.common.seating import next_request
from hebei.v1 import matchmaking_pb2 as mm
from hebei.web.backend import HttpError
from hebei.web.inputs import check_id

if TYPE_CHECKING:
    from hebei.web.app import Gateway

__all__ = ["ExportRoutes"]

MEDIA = {"csv": "text/csv; charset=utf-8", "json": "application/json"}


class ExportRoutes:
    """The routes above, on the gateway's state."""

    def __init__(self, gateway: Gateway) -> None:
        self.g = gateway

    def routes(self) -> list[Route]:
        return [
            Route("/api/tournaments/{tournament}/export/{name}", self.export),
            Route("/tournaments/{tournament}/print/round/{round}", self.print_round),
            Route("/tournaments/{tournament}/print/results", self.print_results),
        ]

    # ------------------------------------------------------------------ reads

    def _tournament_id(self, request: Request) -> str:
        return check_id("tournament", request.path_params["tournament"])

    async def _standings(self, tournament_id: str) -> mm.GetStandingsResponse:
        request = mm.GetStandingsRequest(tournament_id=tournament_id)
        return await self.g.backend.call("matchmaking", "GetStandings", request)

    async def _rounds(self, tournament_id: str) -> list[mm.RoundSeating]:
        rounds: list[mm.RoundSeating] = []
        reply = None
        while (asked := next_request(tournament_id, reply)) is not None:
            reply = await self.g.backend.call("matchmaking", "GetSeating", asked)
            rounds.extend(reply.rounds)
        return rounds

    async def _name(self, tournament_id: str) -> str:
        request = mm.GetTournamentRequest(tournament_id=tournament_id)
        reply = await self.g.backend.call("matchmaking", "GetTournament", request)
        return reply.tournament.config.name or tournament_id

    # ------------------------------------------------------------------ routes

    async def export(self, request: Request) -> Response:
        tournament_id = self._tournament_id(request)
        what, _, fmt = request.path_params["name"].partition(".")
        if what not in ("results", "seating") or fmt not in MEDIA:
            raise HttpError(404, "exports: results.csv, results.json, seating.csv, seating.json")
        extra: dict[str, Any] = {}
        if what == "results":
            standings = await self._standings(tournament_id)
            rows, columns = exports.result_rows(standings), exports.RESULT_COLUMNS
            extra["round_no"] = standings.round_no
        else:
            rows = exports.seating_rows(await self._rounds(tournament_id))
            columns = exports.SEATING_COLUMNS
        body = (
            exports.as_csv(columns, rows)
            if fmt == "csv"
            else exports.as_json(what, tournament_id, rows, **extra)
        )
        filename = f"{tournament_id}-{what}.{fmt}"
        return Response(
            body,
            media_type=MEDIA[fmt],
            headers={"Content-Disposition": f'attachment; filename="{filename}"'},
        )

    async def print_round(self, request: Request) -> Response:
        tournament_id = self._tournament_id(request)
        raw = request.path_params["round"]
        if not (raw.isascii() and raw.isdigit() and 1 <= int(raw) <= 10_000):
            raise HttpError(400, "round must be 1-10000")
        reply = await self.g.backend.call(
            "matchmaking",
            "GetSeating",
            mm.GetSeatingRequest(tournament_id=tournament_id, round_no=int(raw)),
        )
        name = await self._name(tournament_id)
        rows = exports.seating_rows(reply.rounds)
        tables: dict[str, list[dict[str, Any]]] = {}
        for row in rows:
            tables.setdefault(row["table"], []).append(row)
        sections = []
        for table, seats in tables.items():
            body = _rows(seats, ("wind", "seat", "player", "kind", "played_by"))
            sections.append(
                f'<section class="table"><h2>{_e(table)}</h2>'
                f"<table><thead><tr><th>wind</th><th>seat</th><th>player</th><th>kind</th>"
                f"<th>played by</th></tr></thead><tbody>{body}</tbody></table></section>"
            )
        return _page(f"{name} — round {int(raw)}", "".join(sections))

    async def print_results(self, request: Request) -> Response:
        tournament_id = self._tournament_id(request)
        standings = await self._standings(tournament_id)
        name = await self._name(tournament_id)
        columns = exports.RESULT_COLUMNS
        head = "".join(f"<th>{_e(c.replace('_', ' '))}</th>" for c in columns)
        body = _rows(exports.result_rows(standings), columns)
        title = f"{name} — results after round {standings.round_no}"
        return _page(title, f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _rows(rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> str:
    return "".join(
        "<tr>" + "".join(f"<td>{_e(row[c])}</td>" for c in columns) + "</tr>" for row in rows
    )


def _page(title: str, content: str) -> HTMLResponse:
    return HTMLResponse(
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f'<title>{_e(title)}</title><link rel="stylesheet" href="/print.css"></head>'
        f"<body><h1>{_e(title)}</h1>{content}</body></html>"
    )
