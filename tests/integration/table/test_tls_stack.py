"""TLS across the stack: the ledger, the table engine and matchmaking each served with mutual
TLS on port 0, every channel between them using the services' one client TLS configuration,
the bot seats played by real seat sessions over TLS with the worker's certificate. A
tournament is played: its match's settlement is booked in the ledger (the engine's outbox
empties), its result reported to matchmaking, placement points booked; clients without the
CA, or without a client certificate, are refused by every service."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from hebei.bots.policies import make_policy
from hebei.bots.session import Outcome, SeatSession, SeatTicket
from hebei.common.client import create_channel, handshake_error, is_tls_failure
from hebei.common.server import Server, ServiceSpec, create_server
from hebei.common.tls import ClientTls, TlsConfig
from hebei.ledger.journal import Ledger
from hebei.ledger.servicer import SERVICE_NAME as LEDGER_SERVICE
from hebei.ledger.servicer import LedgerServicer
from hebei.matchmaking.gateways import BotFleet
from hebei.matchmaking.service import Matchmaking, MatchmakingConfig
from hebei.rules.replay import replay_log
from hebei.table.export import export_match_log
from hebei.table.service import TableConfig, TableEngine
from hebei.v1 import ledger_pb2, ledger_pb2_grpc, matchmaking_pb2_grpc
from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import types_pb2 as pb
from tests.conftest import drop_schemas
from tests.integration.table.conftest import LOG_KEY, OPERATOR_TOKEN, server_config
from tests.integration.table.helpers import free_port, wait_for

CERTS = Path(__file__).resolve().parents[1] / "common" / "certs"
MUTUAL = TlsConfig(CERTS / "server.pem", CERTS / "server.key", CERTS / "ca.pem")
CLIENT = ClientTls(CERTS / "ca.pem", CERTS / "client.pem", CERTS / "client.key")


class SessionFleet(BotFleet):
    """The bot fleet as seat sessions in this process, with the worker's TLS settings (what a
    Celery worker does with HEBEI_BOTS_TLS_*), instead of tasks on a broker."""

    def __init__(self, table_address: str, *, tls: bool) -> None:
        super().__init__(table_address, tls=tls)
        self.tickets: list[SeatTicket] = []
        self.sessions: list[SeatSession] = []
        self.stop = threading.Event()

    def queue(self, ticket: SeatTicket) -> None:
        policy = make_policy(ticket.policy, ticket.level, seed=ticket.seed)
        session = SeatSession(ticket, policy, stop=self.stop, tls=CLIENT)
        self.tickets.append(ticket)
        self.sessions.append(session)
        threading.Thread(target=session.run, daemon=True).start()


@dataclass
class TlsStack:
    ledger: Ledger
    ledger_server: Server
    engine: TableEngine
    table_server: Server
    matchmaking: Matchmaking
    matchmaking_server: Server
    fleet: SessionFleet
    channels: list = field(default_factory=list)

    def address(self, server: Server) -> str:
        return f"127.0.0.1:{server.port}"

    def _channel(self, server: Server):
        channel = create_channel(self.address(server), token=OPERATOR_TOKEN, timeout=30, tls=CLIENT)
        self.channels.append(channel)
        return channel

    def mm(self) -> matchmaking_pb2_grpc.MatchmakingServiceStub:
        return matchmaking_pb2_grpc.MatchmakingServiceStub(self._channel(self.matchmaking_server))

    def ledger_stub(self) -> ledger_pb2_grpc.LedgerServiceStub:
        return ledger_pb2_grpc.LedgerServiceStub(self._channel(self.ledger_server))


@pytest.fixture
def tls_stack(database_url: str) -> Iterator[TlsStack]:
    suffix = uuid.uuid4().hex[:10]
    schemas = {name: f"t_tls_{name[:4]}_{suffix}" for name in ("ledger", "table", "matchmaking")}

    def config(service: str, port: int = 0):
        return server_config(service, port=port, max_workers=200, tls=MUTUAL, client_tls=CLIENT)

    ledger = Ledger.open(database_url, schemas["ledger"], min_size=1, max_size=4)
    ledger_server = create_server(
        ServiceSpec(LEDGER_SERVICE, ledger_pb2_grpc.add_LedgerServiceServicer_to_server,
                    LedgerServicer(ledger)),
        config("ledger"),
    )  # fmt: skip
    ledger_server.start()
    matchmaking_port = free_port()
    engine = TableEngine(
        TableConfig(
            server=config("table"),
            database_url=database_url,
            schema=schemas["table"],
            ledger_address=f"127.0.0.1:{ledger_server.port}",
            matchmaking_address=f"127.0.0.1:{matchmaking_port}",
            ready_seconds=10.0,
            log_key=LOG_KEY,
        )
    )
    table_server = create_server(engine.spec(), engine.config.server)
    table_server.start()
    service = Matchmaking(
        MatchmakingConfig(
            server=config("matchmaking", matchmaking_port),
            table_address=f"127.0.0.1:{table_server.port}",
            ledger_address=f"127.0.0.1:{ledger_server.port}",
            database_url=database_url,
            schema=schemas["matchmaking"],
            tick_seconds=0.2,
            ledger_grace=20.0,
        )
    )
    fleet = SessionFleet(service.tournaments.fleet.table_address, tls=service.tournaments.fleet.tls)
    service.tournaments.fleet = fleet
    matchmaking_server = create_server(service.spec(), service.config.server)
    matchmaking_server.start()
    stack = TlsStack(
        ledger, ledger_server, engine, table_server, service, matchmaking_server, fleet
    )
    yield stack
    fleet.stop.set()
    for channel in stack.channels:
        channel.close()
    matchmaking_server.stop(0)
    service.close()
    table_server.stop(0)
    engine.close()
    ledger_server.stop(0)
    ledger.close()
    drop_schemas(database_url, schemas.values())


def _finished(stub, tournament_id: str, timeout: float = 180) -> mm.Tournament:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        request = mm.GetTournamentRequest(tournament_id=tournament_id)
        tournament = stub.GetTournament(request).tournament
        if tournament.status == mm.TOURNAMENT_STATUS_FINISHED:
            return tournament
        time.sleep(0.3)
    pytest.fail(f"tournament {tournament_id} not finished after {timeout}s: {tournament}")


def test_a_tournament_over_mutual_tls_books_and_reports_its_match(tls_stack: TlsStack) -> None:
    stub = tls_stack.mm()
    config = mm.TournamentConfig(name="TLS cup", rounds=1, seed=11, placement_points=[3, 1, -1, -3])
    config.length.hands = 1
    config.time_control.per_decision.FromMilliseconds(3000)
    tid = stub.CreateTournament(mm.CreateTournamentRequest(config=config)).tournament.tournament_id
    for _ in range(4):
        bot = mm.BotEntrant(policy="efficiency")
        stub.Register(mm.RegisterRequest(tournament_id=tid, bot=bot))
    stub.StartTournament(mm.StartTournamentRequest(tournament_id=tid))
    finished = _finished(stub, tid)  # matchmaking -> engine (OpenMatch) over mutual TLS

    seating = stub.GetSeating(mm.GetSeatingRequest(tournament_id=tid)).rounds
    (table,) = seating[0].tables
    match_id = table.match_id
    assert table.status == pb.MATCH_STATUS_FINISHED and table.hands_played == 1
    # Bot seats: the tickets say TLS; the sessions used the worker's certificate.
    assert {t.seat for t in tls_stack.fleet.tickets if t.match_id == match_id} == {0, 1, 2, 3}
    assert all(t.tls for t in tls_stack.fleet.tickets)
    sessions = [s for s in tls_stack.fleet.sessions if s.ticket.match_id == match_id]
    assert wait_for(lambda: all(s.result.outcome is Outcome.FINISHED for s in sessions[:4]))
    # engine -> ledger and engine -> matchmaking: the outbox empties, nothing failed.
    store = tls_stack.engine.store
    assert wait_for(lambda: all(r["delivered"] for r in store.outbox_rows(match_id)), timeout=30)
    rows = store.outbox_rows(match_id)
    assert sorted(r["kind"] for r in rows) == ["match_result", "settlement"]
    assert not any(r["failed"] for r in rows)
    history = tls_stack.ledger_stub().GetHistory(ledger_pb2.GetHistoryRequest(match_id=match_id))
    settlements = [e for e in history.entries if e.kind == ledger_pb2.ENTRY_KIND_SETTLEMENT]
    assert [e.idempotency_key for e in settlements] == [f"{match_id}:1"]
    # matchmaking -> ledger: placement points booked, standings from the ledger agree.
    standings = stub.GetStandings(mm.GetStandingsRequest(tournament_id=tid))
    assert not standings.mismatch, standings.problems
    assert len(standings.ranking) == 4 and finished.current_round == 1
    # And the match's log, exported, is signed by the engine.
    assert replay_log(export_match_log(store, match_id), LOG_KEY).check.verified


def test_clients_without_the_ca_or_a_certificate_are_refused(tls_stack: TlsStack) -> None:
    refused = {
        "plaintext": False,
        "without the CA": ClientTls(None, CERTS / "client.pem", CERTS / "client.key"),
        "without a client certificate": ClientTls(CERTS / "ca.pem"),
    }
    for server in (tls_stack.ledger_server, tls_stack.table_server, tls_stack.matchmaking_server):
        target = tls_stack.address(server)
        assert handshake_error(target, CLIENT) is None
        for what, tls in refused.items():
            error = handshake_error(target, tls, timeout=3)
            assert error is not None and is_tls_failure(error), (server.service_names, what)
