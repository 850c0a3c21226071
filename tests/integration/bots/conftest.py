"""Fixtures of the bot fleet tests: a table engine on port 0 (fresh schema, no ledger), real
``hebei bots worker`` processes on the session's Redis, and the lease store to audit."""

from __future__ import annotations

import socket
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import grpc
import pytest

from hebei.common.server import Server, create_server
from hebei.table.service import TableConfig, TableEngine
from hebei.v1 import table_pb2, table_pb2_grpc
from hebei.v1 import types_pb2 as pb
from tests.integration.table.conftest import OPERATOR, new_match_request, server_config, token_of

__all__ = ["OPERATOR", "new_match_request", "token_of"]


@dataclass
class Engine:
    engine: TableEngine
    server: Server
    channel: grpc.Channel
    stub: table_pb2_grpc.TableServiceStub

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.server.port}"

    def match(self, match_id: str) -> table_pb2.MatchInfo:
        return self.stub.GetMatch(table_pb2.GetMatchRequest(match_id=match_id), timeout=5).match

    def wait_for(
        self, match_id: str, done: Callable[[table_pb2.MatchInfo], bool], timeout: float
    ) -> table_pb2.MatchInfo:
        """Poll the match until ``done(info)``; fail the test after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            info = self.match(match_id)
            if done(info):
                return info
            if time.monotonic() > deadline:
                pytest.fail(f"match {match_id} not there after {timeout}s: {info}")
            time.sleep(0.1)

    def events(self, match_id: str) -> list[pb.Event]:
        """Every public event of a finished match."""
        stream = self.stub.Spectate(
            table_pb2.SpectateRequest(match_id=match_id, from_seq=1), timeout=20
        )
        return [message.event for message in stream]


def start_engine(database_url: str, schema: str, **fields) -> Engine:
    """A table engine on port 0 over ``schema`` (it resumes the unfinished matches there);
    ``fields``: other :class:`TableConfig` fields. Stop it with :func:`stop_engine`."""
    config = TableConfig(
        server=server_config("table", max_workers=200),
        database_url=database_url,
        schema=schema,
        ready_seconds=30.0,
        **fields,
    )
    table_engine = TableEngine(config)
    server = create_server(table_engine.spec(), config.server)
    server.start()
    channel = grpc.insecure_channel(f"127.0.0.1:{server.port}")
    return Engine(table_engine, server, channel, table_pb2_grpc.TableServiceStub(channel))


def stop_engine(engine: Engine, grace: float = 0) -> None:
    engine.channel.close()
    engine.server.stop(grace)
    engine.engine.close()


@pytest.fixture
def engine(
    request: pytest.FixtureRequest, database_url: str, fresh_schema: str
) -> Iterator[Engine]:
    """A table engine on port 0; a test may set other :class:`TableConfig` fields by
    parametrising this fixture indirectly with a dict of them."""
    running = start_engine(database_url, fresh_schema, **getattr(request, "param", {}))
    yield running
    stop_engine(running)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def scrape(port: int) -> dict[str, float]:
    """The samples of a /metrics page: ``'name{labels}' -> value``."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
        text = response.read().decode()
    samples = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.rpartition(" ")
            samples[key] = float(value)
    return samples


def open_bot_match(engine: Engine, *, hands: int, seed: int, per_decision: float) -> str:
    request = new_match_request(hands=hands, seed=seed, per_decision=per_decision)
    engine.stub.OpenMatch(request, metadata=OPERATOR, timeout=10)
    return request.match_id
