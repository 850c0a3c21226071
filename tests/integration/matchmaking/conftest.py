"""Fixtures of the matchmaking tests: the whole stack in real parts — the ledger, the table
engine and matchmaking as gRPC servers on loopback (fresh schemas of the session's
PostgreSQL), and real ``hebei bots worker`` processes on the session's Redis."""

from __future__ import annotations

import socket
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import grpc
import pytest

from hebei.common.client import create_channel
from hebei.common.server import Server, ServiceSpec, create_server
from hebei.ledger.journal import Ledger
from hebei.ledger.servicer import SERVICE_NAME as LEDGER_SERVICE
from hebei.ledger.servicer import LedgerServicer
from hebei.matchmaking.service import Matchmaking, MatchmakingConfig
from hebei.table.service import TableConfig, TableEngine
from hebei.v1 import (
    ledger_pb2,
    ledger_pb2_grpc,
    matchmaking_pb2,
    matchmaking_pb2_grpc,
    table_pb2_grpc,
)
from tests.conftest import drop_schemas
from tests.integration.seat_queues import purge_seat_queues
from tests.integration.table.conftest import OPERATOR_TOKEN, server_config

mm = matchmaking_pb2
EVENT = mm.TournamentEventType


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _config(service: str, port: int = 0):
    return server_config(service, max_workers=200, port=port)


@dataclass
class Stack:
    """The running services and operator stubs to them."""

    database_url: str
    schemas: dict[str, str]
    ledger_server: Server
    engine: TableEngine
    table_server: Server
    matchmaking_port: int
    matchmaking: Matchmaking | None = None
    matchmaking_server: Server | None = None
    channels: list[grpc.Channel] = field(default_factory=list)

    @property
    def table_address(self) -> str:
        return f"127.0.0.1:{self.table_server.port}"

    @property
    def ledger_address(self) -> str:
        return f"127.0.0.1:{self.ledger_server.port}"

    @property
    def matchmaking_address(self) -> str:
        return f"127.0.0.1:{self.matchmaking_port}"

    def matchmaking_config(self, **overrides) -> MatchmakingConfig:
        values = dict(
            server=_config("matchmaking", self.matchmaking_port),
            table_address=self.table_address,
            ledger_address=self.ledger_address,
            database_url=self.database_url,
            schema=self.schemas["matchmaking"],
            quick_play_wait=1.0,
            tick_seconds=0.2,
            ledger_grace=20.0,
        )
        values.update(overrides)
        return MatchmakingConfig(**values)

    def start_matchmaking(self, **overrides) -> None:
        """Serve matchmaking in this process on its fixed port."""
        self.matchmaking = Matchmaking(self.matchmaking_config(**overrides))
        self.matchmaking_server = create_server(
            self.matchmaking.spec(), self.matchmaking.config.server
        )
        self.matchmaking_server.start()

    def stop_matchmaking(self) -> None:
        if self.matchmaking_server is not None:
            self.matchmaking_server.stop(0)
            self.matchmaking_server = None
        if self.matchmaking is not None:
            self.matchmaking.close()
            self.matchmaking = None

    def _channel(self, address: str, token: str | None) -> grpc.Channel:
        channel = create_channel(address, token=token, timeout=30.0)
        self.channels.append(channel)
        return channel

    def mm(self, token: str | None = OPERATOR_TOKEN):
        return matchmaking_pb2_grpc.MatchmakingServiceStub(
            self._channel(self.matchmaking_address, token)
        )

    def ledger(self):
        return ledger_pb2_grpc.LedgerServiceStub(self._channel(self.ledger_address, OPERATOR_TOKEN))

    def table(self):
        return table_pb2_grpc.TableServiceStub(self._channel(self.table_address, OPERATOR_TOKEN))

    # -- helpers of the tests ---------------------------------------------------------------

    def create(self, *, rounds: int = 2, hands: int = 1, **fields) -> mm.Tournament:
        config = mm.TournamentConfig(name=f"cup {uuid.uuid4().hex[:6]}", rounds=rounds, seed=7)
        config.length.hands = hands
        config.time_control.per_decision.FromMilliseconds(3000)
        for key, value in fields.items():
            if isinstance(value, list):
                getattr(config, key).extend(value)
            elif hasattr(value, "CopyFrom"):
                getattr(config, key).CopyFrom(value)
            else:
                setattr(config, key, value)
        return self.mm().CreateTournament(mm.CreateTournamentRequest(config=config)).tournament

    def register_bots(self, tournament_id: str, count: int, policy: str = "efficiency"):
        stub = self.mm()
        return [
            stub.Register(
                mm.RegisterRequest(tournament_id=tournament_id, bot=mm.BotEntrant(policy=policy))
            ).player
            for _ in range(count)
        ]

    def wait_status(
        self, tournament_id: str, done: Callable[[mm.Tournament], bool], timeout: float = 240
    ) -> mm.Tournament:
        deadline = time.monotonic() + timeout
        stub = self.mm()
        while True:
            try:
                tournament = stub.GetTournament(
                    mm.GetTournamentRequest(tournament_id=tournament_id)
                ).tournament
                if done(tournament):
                    return tournament
            except grpc.RpcError as error:
                if error.code() != grpc.StatusCode.UNAVAILABLE:
                    raise
                tournament = None
            if time.monotonic() > deadline:
                pytest.fail(f"tournament {tournament_id} not there after {timeout}s: {tournament}")
            time.sleep(0.3)

    def wait_finished(self, tournament_id: str, timeout: float = 300) -> mm.Tournament:
        return self.wait_status(
            tournament_id,
            lambda t: t.status in (mm.TOURNAMENT_STATUS_FINISHED, mm.TOURNAMENT_STATUS_CANCELLED),
            timeout,
        )

    def ledger_entries(self, tournament_id: str) -> list[ledger_pb2.LedgerEntry]:
        stub = self.ledger()
        entries, token = [], ""
        while True:
            page = stub.GetHistory(
                ledger_pb2.GetHistoryRequest(
                    tournament_id=tournament_id, page_size=500, page_token=token
                )
            )
            entries.extend(page.entries)
            token = page.next_page_token
            if not token:
                return entries


@pytest.fixture
def stack(
    request: pytest.FixtureRequest, database_url: str, bots_env: dict[str, str]
) -> Iterator[Stack]:
    """Ledger, table engine and matchmaking on loopback (matchmaking started by the test via
    ``stack.start_matchmaking()`` or in a process of its own); fresh schemas, dropped after.
    The engine's ready check is 5 s; a test may ask for another by parametrising this
    fixture indirectly with ``{"ready_seconds": S}``."""
    ready_seconds = getattr(request, "param", {}).get("ready_seconds", 5.0)
    suffix = uuid.uuid4().hex[:10]
    schemas = {name: f"t_{name[:4]}_{suffix}" for name in ("ledger", "table", "matchmaking")}
    ledger = Ledger.open(database_url, schemas["ledger"], min_size=1, max_size=8)
    ledger_server = create_server(
        ServiceSpec(LEDGER_SERVICE, ledger_pb2_grpc.add_LedgerServiceServicer_to_server,
                    LedgerServicer(ledger)),
        _config("ledger"),
    )  # fmt: skip
    ledger_server.start()
    matchmaking_port = free_port()
    engine = TableEngine(
        TableConfig(
            server=_config("table"),
            database_url=database_url,
            schema=schemas["table"],
            ledger_address=f"127.0.0.1:{ledger_server.port}",
            matchmaking_address=f"127.0.0.1:{matchmaking_port}",
            ready_seconds=ready_seconds,
        )
    )
    table_server = create_server(engine.spec(), engine.config.server)
    table_server.start()
    stack = Stack(database_url, schemas, ledger_server, engine, table_server, matchmaking_port)
    purge_seat_queues()
    yield stack
    purge_seat_queues()
    stack.stop_matchmaking()
    for channel in stack.channels:
        channel.close()
    table_server.stop(0)
    engine.close()
    ledger_server.stop(0)
    ledger.close()
    drop_schemas(database_url, schemas.values())
