"""Fixtures of the table engine tests: an engine served on port 0 over a fresh schema, the real
ledger service, a recording stand-in for matchmaking (a later issue), scripted seat clients."""

from __future__ import annotations

import dataclasses
import queue
import random
import shutil
import tempfile
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import psycopg
import pytest
from psycopg import sql

from hebei.common import convert, embedded
from hebei.common.auth import bearer_metadata
from hebei.common.config import ServerConfig
from hebei.common.server import Server, ServiceSpec, create_server
from hebei.ledger.journal import Ledger
from hebei.ledger.servicer import SERVICE_NAME as LEDGER_SERVICE
from hebei.ledger.servicer import LedgerServicer
from hebei.table.service import TableConfig, TableEngine
from hebei.v1 import (
    ledger_pb2,
    ledger_pb2_grpc,
    matchmaking_pb2,
    matchmaking_pb2_grpc,
    table_pb2,
    table_pb2_grpc,
)
from hebei.v1 import types_pb2 as pb
from tests.conftest import unique_name
from tests.integration.table.helpers import free_port
from tests.unit.table.greedy import greedy_choice

OPERATOR_TOKEN = "operator-token-for-table-tests"
SERVICE_TOKEN = "service-token-for-table-tests"
OPERATOR = bearer_metadata(OPERATOR_TOKEN)
LOG_KEY = b"log-key-of-the-table-tests-0123456789"  # signs the engines' event logs


def server_config(service: str, **overrides: Any) -> ServerConfig:
    """A server on a free port, no metrics endpoint, the test tokens."""
    values = dict(
        service=service,
        host="127.0.0.1",
        port=0,
        metrics_port=None,
        max_workers=64,
        grace_seconds=1.0,
        operator_token=OPERATOR_TOKEN,
        service_token=SERVICE_TOKEN,
    )
    values.update(overrides)
    return ServerConfig(**values)


# ----------------------------------------------------------------------------- stand-ins


class RecordingMatchmaking(matchmaking_pb2_grpc.MatchmakingServiceServicer):
    """Records ReportMatchResult calls (the matchmaking service is a later issue)."""

    def __init__(self) -> None:
        self.results: dict[str, matchmaking_pb2.ReportMatchResultRequest] = {}
        self.calls = 0
        self.lock = threading.Lock()

    def ReportMatchResult(self, request: Any, context: Any) -> Any:
        with self.lock:
            self.calls += 1
            duplicate = request.match_id in self.results
            self.results.setdefault(request.match_id, request)
        return matchmaking_pb2.ReportMatchResultResponse(duplicate=duplicate)


@dataclass
class Running:
    """A server on port 0 and what it serves."""

    server: Server
    servicer: Any

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.server.port}"


def _serve(name: str, add: Callable, servicer: Any) -> Running:
    server = create_server(ServiceSpec(name, add, servicer), server_config(name.split(".")[-1]))
    server.start()
    return Running(server, servicer)


def serve_recording_matchmaking() -> Running:
    """A :class:`RecordingMatchmaking` served on port 0 (stop its server when done)."""
    return _serve(
        "hebei.v1.MatchmakingService",
        matchmaking_pb2_grpc.add_MatchmakingServiceServicer_to_server,
        RecordingMatchmaking(),
    )


@pytest.fixture
def matchmaking() -> Iterator[Running]:
    running = serve_recording_matchmaking()
    yield running
    running.server.stop(0)


@pytest.fixture
def ledger(database_url: str) -> Iterator[Running]:
    """The real ledger service on its own schema, on port 0."""
    schema = unique_name("tl")
    book = Ledger.open(database_url, schema, max_size=4)
    running = _serve(
        LEDGER_SERVICE, ledger_pb2_grpc.add_LedgerServiceServicer_to_server, LedgerServicer(book)
    )
    yield running
    running.server.stop(0)
    book.close()
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))


def ledger_entries(ledger: Running, match_id: str) -> list[ledger_pb2.LedgerEntry]:
    """Every journal entry the ledger booked for ``match_id`` (all pages)."""
    channel = grpc.insecure_channel(ledger.address)
    stub = ledger_pb2_grpc.LedgerServiceStub(channel)
    entries, token = [], ""
    while True:
        page = stub.GetHistory(
            ledger_pb2.GetHistoryRequest(match_id=match_id, page_size=100, page_token=token),
            timeout=10,
        )
        entries.extend(page.entries)
        token = page.next_page_token
        if not token:
            break
    channel.close()
    return entries


def ledger_audit(ledger: Running) -> ledger_pb2.AuditResponse:
    channel = grpc.insecure_channel(ledger.address)
    report = ledger_pb2_grpc.LedgerServiceStub(channel).Audit(ledger_pb2.AuditRequest(), timeout=10)
    channel.close()
    return report


@pytest.fixture
def private_postgres() -> Iterator[embedded.EmbeddedPostgres]:
    """A PostgreSQL of this test's own (embedded, even when HEBEI_DATABASE_URL is set), which
    the test may stop and start."""
    folder = Path(tempfile.mkdtemp(prefix="hebei-table-pg-"))
    server = embedded.start_postgres(folder)
    yield server
    server.start()  # a test may leave it stopped; close() wants it running
    server.close()
    shutil.rmtree(folder, ignore_errors=True)


# ----------------------------------------------------------------------------- the engine


@dataclass
class EngineUnderTest:
    engine: TableEngine
    server: Server
    channel: grpc.Channel
    stub: table_pb2_grpc.TableServiceStub
    closed: bool = False

    def close(self) -> None:
        """Stop serving and close the engine (once: the fixture closes what a test did not)."""
        if self.closed:
            return
        self.closed = True
        self.channel.close()
        self.server.stop(0)
        self.engine.close()


@pytest.fixture
def table_config(
    database_url: str, fresh_schema: str, ledger: Running, matchmaking: Running
) -> TableConfig:
    return TableConfig(
        server=server_config("table", max_workers=400),
        database_url=database_url,
        schema=fresh_schema,
        ledger_address=ledger.address,
        matchmaking_address=matchmaking.address,
        ready_seconds=5.0,
        log_key=LOG_KEY,
    )


@pytest.fixture
def start_engine(table_config: TableConfig) -> Iterator[Callable[..., EngineUnderTest]]:
    """``start_engine(**config_overrides)``: an engine served on port 0 (closed afterwards)."""
    started: list[EngineUnderTest] = []

    def start(**overrides: Any) -> EngineUnderTest:
        import dataclasses

        config = dataclasses.replace(table_config, **overrides)
        engine = TableEngine(config)
        server = create_server(engine.spec(), config.server)
        server.start()
        channel = grpc.insecure_channel(f"127.0.0.1:{server.port}")
        running = EngineUnderTest(engine, server, channel, table_pb2_grpc.TableServiceStub(channel))
        started.append(running)
        return running

    yield start
    for running in started:
        running.close()


@pytest.fixture
def engine(start_engine: Callable[..., EngineUnderTest]) -> EngineUnderTest:
    return start_engine()


@pytest.fixture
def start_replica(
    table_config: TableConfig, start_engine: Callable[..., EngineUnderTest]
) -> Callable[..., EngineUnderTest]:
    """``start_replica(replica_id, **config_overrides)``: an engine replica on a port of its own
    (its address is what it advertises), on the test's one schema (closed afterwards)."""

    def start(replica_id: str, **overrides: Any) -> EngineUnderTest:
        server = dataclasses.replace(table_config.server, port=free_port())
        return start_engine(server=server, replica_id=replica_id, **overrides)

    return start


# ----------------------------------------------------------------------------- matches


def new_match_request(
    *,
    hands: int = 2,
    seed: int = 7,
    per_decision: float = 5.0,
    bank: float = 0.0,
    kind: int = pb.SEAT_KIND_BOT,
    **fields: Any,
) -> table_pb2.OpenMatchRequest:
    """An OpenMatch request with fresh ids and tokens ``tok-<seat>-<match>``; a chosen seed
    (not 0) makes it an evaluation match, as only those may choose it. ``kind``: the seats'
    (a test leaving seats absent to be auto-played wants people: an absent bot seat pauses
    the table, the fleet's failure)."""
    match_id = fields.pop("match_id", f"m-{uuid.uuid4().hex[:10]}")
    fields.setdefault("evaluation", seed != 0)
    request = table_pb2.OpenMatchRequest(
        table_id=fields.pop("table_id", "t-1"),
        match_id=match_id,
        rule_profile=pb.RuleProfile(name="main"),
        length=pb.MatchLength(hands=hands),
        seats=[
            table_pb2.SeatAssignment(
                seat=s,
                player_id=f"p{s}",
                player_name=f"Player {s}",
                kind=kind,
                seat_token=token_of(match_id, s),
            )
            for s in range(4)
        ],
        seed=seed,
        **fields,
    )
    request.time_control.per_decision.FromNanoseconds(int(per_decision * 1e9))
    request.time_control.time_bank.FromNanoseconds(int(bank * 1e9))
    return request


def token_of(match_id: str, seat: int) -> str:
    return f"tok-{seat}-{match_id}"


@dataclass
class SeatClient:
    """A scripted seat: joins, answers every decision greedily (from its own seeded RNG),
    records every message, and stops when the match ends (or after ``stop_after`` answers,
    going silent while staying connected). ``bot``: it joins as a bot (Join.bot)."""

    channel: grpc.Channel
    match_id: str
    seat: int
    token: str | None = None
    seed: int = 0
    stop_after: int | None = None
    delay: float = 0.0
    bot: bool = False
    messages: list[table_pb2.PlayResponse] = field(default_factory=list)
    answers: int = 0
    error: grpc.RpcError | None = None
    finished: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self.token = self.token or token_of(self.match_id, self.seat)
        self._requests: queue.SimpleQueue = queue.SimpleQueue()
        self._rng = random.Random(self.seed * 10 + self.seat)
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._answered = 0
        self.call = None

    def start(self) -> SeatClient:
        self._thread.start()
        return self

    def send(self, action: pb.Action) -> None:
        self._requests.put(table_pb2.PlayRequest(action=action))

    def close(self) -> None:
        self._requests.put(None)
        if self.call is not None:
            self.call.cancel()

    def join(self, timeout: float = 60) -> None:
        self._thread.join(timeout)

    def _outgoing(self) -> Iterator[table_pb2.PlayRequest]:
        yield table_pb2.PlayRequest(
            join=table_pb2.Join(
                match_id=self.match_id,
                seat=self.seat,
                seat_token=self.token,
                client_name="test",
                bot=self.bot,
            )
        )
        while True:
            item = self._requests.get()
            if item is None:
                return
            yield item

    @property
    def observations(self) -> list[pb.Observation]:
        return [m.observation for m in self.messages if m.HasField("observation")]

    @property
    def rejections(self) -> list[table_pb2.ActionRejected]:
        return [m.rejected for m in self.messages if m.HasField("rejected")]

    def _run(self) -> None:
        stub = table_pb2_grpc.TableServiceStub(self.channel)
        self.call = stub.Play(self._outgoing())
        try:
            for message in self.call:
                self.messages.append(message)
                if not message.HasField("observation"):
                    continue
                obs = message.observation
                if obs.match_finished:
                    break
                if obs.decision_id and obs.legal_actions and obs.decision_id != self._answered:
                    # Observations come on every change: answer each decision once.
                    if self.stop_after is not None and self.answers >= self.stop_after:
                        continue
                    self._answered = obs.decision_id
                    self._answer(obs)
        except grpc.RpcError as exc:
            self.error = exc
        finally:
            self._requests.put(None)
            self.finished.set()

    def _answer(self, obs: pb.Observation) -> None:
        view = convert.observation_from_proto(obs)
        action = greedy_choice(
            view.legal_actions, view.counts(), len(view.seats[self.seat].melds), self._rng
        )
        if self.delay:
            threading.Event().wait(self.delay)
        self.answers += 1
        self.send(convert.action_to_proto(action, obs.decision_id))


def play_clients(
    channel: grpc.Channel, match_id: str, *, seed: int = 0, **kwargs: Any
) -> list[SeatClient]:
    """Four started scripted clients."""
    return [SeatClient(channel, match_id, seat, seed=seed, **kwargs).start() for seat in range(4)]
