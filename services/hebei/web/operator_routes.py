"""The operators' routes, behind the gateway's operator token (``Authorization: Bearer``):
an overview of the services' health, the live tables (stalled ones flagged) and a few of the
services' metrics; dissolving a table; pausing and resuming a tournament. Who acts is the
``X-Hebei-Actor`` header, passed on to the services.

GET    /api/operator/overview                          health, tables, stalls, metrics
POST   /api/operator/tables/{match}/dissolve           ``{reason, tournament_id?}``
POST   /api/operator/tournaments/{id}/pause            ``{reason}``
POST   /api/operator/tournaments/{id}/resume
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import urllib.request
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from hebei.common.auth import same_token
from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import table_pb2
from hebei.v1 import types_pb2 as pb
from hebei.web.backend import HttpError
from hebei.web.inputs import MAX_REASON, actor_of, check_id, client_of, read_json, text_field
from hebei.web.tournament_views import tournament_json
from hebei.web.views import match_json

if TYPE_CHECKING:
    from hebei.web.app import Gateway

STALL_DEFAULT = 60
METRICS_SHOWN = (
    "hebei_table_tables_active",
    "hebei_table_streams_open",
    "hebei_matchmaking_matches_live",
    "hebei_matchmaking_quick_play_queue",
    "hebei_matchmaking_bot_requeues_total",
    "hebei_matchmaking_watch_streams",
    "hebei_bot_seat_sessions_active",
)


class OperatorRoutes:
    """The routes above, on the gateway's state."""

    def __init__(self, gateway: Gateway) -> None:
        self.g = gateway

    def routes(self) -> list[Route]:
        return [
            Route("/api/operator/overview", self.overview),
            Route("/api/operator/tables/{match}/dissolve", self.dissolve, methods=["POST"]),
            Route("/api/operator/tournaments/{tournament}/pause", self.pause, methods=["POST"]),
            Route("/api/operator/tournaments/{tournament}/resume", self.resume, methods=["POST"]),
        ]

    def operator(self, request: Request) -> tuple[str, str]:
        """The operator's token (checked against the gateway's) and name; 401/503 otherwise."""
        expected = self.g.config.operator_token
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
            *(self.g.backend.run(self.g.backend.health, s) for s in self.g.backend.addresses)
        )
        try:
            matches = await self.g.list_matches()
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
                self.g.hub.activity.pop(info.match_id, None)
                continue
            count, since = self.g.hub.activity.get(info.match_id, (-1, now))
            if count != info.event_count:
                since = now
            self.g.hub.activity[info.match_id] = (info.event_count, since)
            data["idle_seconds"] = round(now - since, 1)
            data["stalled"] = data["idle_seconds"] >= stall or data["paused"]
            tables.append(data)
        for match_id in [m for m in self.g.hub.activity if m not in {t.match_id for t in matches}]:
            self.g.hub.activity.pop(match_id, None)
        metrics = await self.g.backend.run(self._metrics) if self.g.config.metrics else None
        return JSONResponse(
            {
                "services": health,
                "engines": [
                    {
                        "address": self.g.config.table_address,
                        "counts": counts,
                        "error": engine_error,
                    }
                ],
                "tables": tables,
                "stall_seconds": stall,
                "metrics": metrics,
                "gateway": self.g.hub.stats(),
            }
        )

    def _metrics(self) -> dict[str, Any]:
        """A few series from the services' Prometheus endpoints (blocking)."""
        found: dict[str, Any] = {}
        for name, address in self.g.config.metrics.items():
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
        self.g.posts.take(client_of(request))
        match_id = check_id("match", request.path_params["match"])
        data = await read_json(request)
        reason = text_field(data, "reason", max_length=MAX_REASON, required=True)
        tournament_id = text_field(data, "tournament_id", max_length=128, required=False)
        if tournament_id:
            check_id("tournament_id", tournament_id)
            reply = await self.g.backend.call(
                "matchmaking",
                "DissolveTable",
                mm.DissolveTableRequest(
                    tournament_id=tournament_id, match_id=match_id, reason=reason
                ),
                token=token,
                actor=actor,
            )
            return JSONResponse({"dissolved": match_id, "status": reply.table.status})
        reply = await self.g.backend.call_match(
            match_id,
            "Dissolve",
            table_pb2.DissolveRequest(match_id=match_id, reason=f"{reason} ({actor})"),
            token=token,
            actor=actor,
        )
        return JSONResponse({"dissolved": match_id, "table": match_json(reply.match)})

    async def pause(self, request: Request) -> Response:
        token, actor = self.operator(request)
        self.g.posts.take(client_of(request))
        tournament_id = check_id("tournament", request.path_params["tournament"])
        data = await read_json(request)
        reason = text_field(data, "reason", max_length=MAX_REASON, required=False)
        reply = await self.g.backend.call(
            "matchmaking",
            "Pause",
            mm.PauseRequest(tournament_id=tournament_id, reason=reason or "paused from the web"),
            token=token,
            actor=actor,
        )
        return JSONResponse(tournament_json(reply.tournament))

    async def resume(self, request: Request) -> Response:
        token, actor = self.operator(request)
        self.g.posts.take(client_of(request))
        tournament_id = check_id("tournament", request.path_params["tournament"])
        await read_json(request)
        reply = await self.g.backend.call(
            "matchmaking",
            "Resume",
            mm.ResumeRequest(tournament_id=tournament_id),
            token=token,
            actor=actor,
        )
        return JSONResponse(tournament_json(reply.tournament))
