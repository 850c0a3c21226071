"""A review by match id reads the engine's events with the service token (the engine's
service pool, which no crowd of spectators takes); its GetMatch stays anonymous. (The bot
service's own Review pools: test_review_quota.)"""

from __future__ import annotations

from typing import Any

from hebei.common.auth import bearer_metadata, token_from_metadata
from hebei.common.routing import MatchRouter
from hebei.common.server import ServiceSpec
from hebei.seatclient.match_feed import TableFeed
from hebei.v1 import table_pb2, table_pb2_grpc
from hebei.v1 import types_pb2 as pb
from tests.integration.botservice.conftest import OPERATOR_TOKEN, serve

TOKEN = bearer_metadata(OPERATOR_TOKEN)


class RecordingTables(table_pb2_grpc.TableServiceServicer):
    """A finished match with no events; records the token each call carried."""

    def __init__(self) -> None:
        self.tokens: dict[str, list[str | None]] = {"GetMatch": [], "Spectate": []}

    def GetMatch(self, request: Any, context: Any) -> Any:
        self.tokens["GetMatch"].append(token_from_metadata(context.invocation_metadata()))
        info = table_pb2.MatchInfo(
            match_id=request.match_id, status=pb.MATCH_STATUS_FINISHED, seed=7
        )
        return table_pb2.GetMatchResponse(match=info)

    def Spectate(self, request: Any, context: Any) -> Any:
        self.tokens["Spectate"].append(token_from_metadata(context.invocation_metadata()))
        return iter(())


def test_a_review_reads_the_events_through_the_engines_service_pool() -> None:
    tables = RecordingTables()
    server = serve(
        ServiceSpec(
            "hebei.v1.TableService", table_pb2_grpc.add_TableServiceServicer_to_server, tables
        ),
        "table",
    )
    address = f"127.0.0.1:{server.port}"
    try:
        feed = TableFeed(MatchRouter(address), service_token=OPERATOR_TOKEN)
        feed.finished_match("m-1")
        assert tables.tokens == {"GetMatch": [None], "Spectate": [OPERATOR_TOKEN]}
        TableFeed(MatchRouter(address)).finished_match("m-2")
        assert tables.tokens["Spectate"][-1] is None  # without a token: anonymous
    finally:
        server.stop(grace=0)
