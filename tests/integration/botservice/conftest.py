"""A real BotService on port 0, and a small table engine serving recorded finished matches."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import grpc
import pytest

from hebei.botservice.servicer import SERVICE_NAME, BotServicer
from hebei.common import convert
from hebei.common.config import ServerConfig
from hebei.common.errors import NotFound
from hebei.common.routing import MatchRouter
from hebei.common.server import Server, ServiceSpec, create_server
from hebei.rules.match import MatchLength
from hebei.rules.replay import replay_hand
from hebei.rules.views import public_event
from hebei.seatclient.match_feed import TableFeed
from hebei.v1 import bot_pb2_grpc, table_pb2, table_pb2_grpc
from hebei.v1 import types_pb2 as pb
from tests.unit.botservice.positions import match_log

OPERATOR_TOKEN = "botservice-operator"
HANDS = 2


def public_messages(match_id: str, log: list[dict], ended: bool) -> list[pb.Event]:
    """The public events of a match log as the engine's Spectate sends them."""
    out: list[pb.Event] = []
    hand_no = 0
    dealer = 0
    states = iter([replay_hand(h) for h in _hands(log)])
    for event in log:
        if event["type"] == "hand_start":
            hand_no += 1
            dealer = event["dealer"]
        if event["type"] == "match_end" and not ended:
            break
        seen = dict(event) if event["type"] == "match_end" else public_event(event, None)
        if seen is None:
            continue
        settlement = None
        if event["type"] == "hand_end":
            state = next(states)
            settlement = convert.settlement_to_proto(
                state.result.settlement, match_id=match_id, hand_no=hand_no, dealer=dealer,
                player_ids=["a", "b", "c", "d"],
            )  # fmt: skip
        message = convert.event_to_proto(
            seen, seq=len(out) + 1, match_id=match_id, hand_no=hand_no, settlement=settlement
        )
        if message is not None:
            out.append(message)
    return out


def _hands(log: list[dict]) -> list[list[dict]]:
    hands: list[list[dict]] = []
    for event in log:
        if event["type"] == "hand_start":
            hands.append([])
        if hands and event["type"] not in ("match_end",):
            hands[-1].append(event)
    return hands


@dataclass
class Recorded:
    """A match the fake engine knows: its log and whether it has ended."""

    log: list[dict]
    ended: bool


class RecordedTables(table_pb2_grpc.TableServiceServicer):
    """GetMatch and Spectate of recorded matches (the seed only once a match has ended)."""

    def __init__(self, matches: dict[str, Recorded]) -> None:
        self.matches = matches

    def _match(self, match_id: str) -> Recorded:
        if match_id not in self.matches:
            raise NotFound(f"no match {match_id!r}")
        return self.matches[match_id]

    def GetMatch(self, request: Any, context: Any) -> table_pb2.GetMatchResponse:
        recorded = self._match(request.match_id)
        start = recorded.log[0]
        info = table_pb2.MatchInfo(
            match_id=request.match_id,
            status=pb.MATCH_STATUS_FINISHED if recorded.ended else pb.MATCH_STATUS_PLAYING,
            rule_profile=pb.RuleProfile(name="main"),
            length=convert.length_to_proto(MatchLength.from_json(start["length"])),
            seed=start["seed"] if recorded.ended else 0,
        )
        return table_pb2.GetMatchResponse(match=info)

    def Spectate(self, request: Any, context: Any) -> Iterator[table_pb2.SpectateResponse]:
        recorded = self._match(request.match_id)
        for message in public_messages(request.match_id, recorded.log, recorded.ended):
            yield table_pb2.SpectateResponse(event=message)


def serve(spec: ServiceSpec, service: str) -> Server:
    config = ServerConfig(
        service=service, host="127.0.0.1", port=0, metrics_port=None,
        operator_token=OPERATOR_TOKEN, grace_seconds=1.0,
    )  # fmt: skip
    server = create_server(spec, config)
    server.start()
    return server


@dataclass
class Running:
    bots: Server
    bare: Server  # a bot service without a table engine
    tables: Server
    logs: dict[str, list[dict]]

    def stub(self, bare: bool = False) -> bot_pb2_grpc.BotServiceStub:
        server = self.bare if bare else self.bots
        return bot_pb2_grpc.BotServiceStub(grpc.insecure_channel(f"127.0.0.1:{server.port}"))


@pytest.fixture(scope="module")
def running() -> Iterator[Running]:
    logs = {
        "expert-done": match_log("expert", seed=21, hands=HANDS, level=3),
        "random-done": match_log("random", seed=22, hands=HANDS),
    }
    matches = {
        "expert-done": Recorded(logs["expert-done"], True),
        "random-done": Recorded(logs["random-done"], True),
        "still-playing": Recorded(logs["random-done"], False),
    }
    tables = serve(
        ServiceSpec(
            "hebei.v1.TableService",
            table_pb2_grpc.add_TableServiceServicer_to_server,
            RecordedTables(matches),
        ),
        "table",
    )
    address = f"127.0.0.1:{tables.port}"
    feed = TableFeed(MatchRouter(address, timeout=5.0), timeout=5.0)
    add = bot_pb2_grpc.add_BotServiceServicer_to_server
    bots = serve(ServiceSpec(SERVICE_NAME, add, BotServicer(feed)), "botservice")
    bare = serve(ServiceSpec(SERVICE_NAME, add, BotServicer(None)), "botservice")
    yield Running(bots, bare, tables, logs)
    for server in (bots, bare, tables):
        server.stop(grace=0)
