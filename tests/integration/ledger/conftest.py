"""Fixtures of the ledger tests: a Ledger on a schema of its own, and settlement builders."""

from __future__ import annotations

import random
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import psycopg
import pytest
from psycopg import sql

from hebei.common import embedded
from hebei.common.auth import bearer_metadata
from hebei.common.config import ServerConfig
from hebei.common.server import Server, ServiceSpec, create_server
from hebei.ledger.journal import Ledger
from hebei.ledger.samples import sample_settlement
from hebei.ledger.servicer import SERVICE_NAME, LedgerServicer
from hebei.v1 import ledger_pb2, ledger_pb2_grpc, types_pb2


@pytest.fixture
def ledger(database_url: str, fresh_schema: str) -> Iterator[Ledger]:
    """A migrated Ledger on a fresh schema."""
    book = Ledger.open(database_url, fresh_schema, max_size=10)
    yield book
    book.close()


@pytest.fixture
def make_settlement() -> Callable[..., dict[str, Any]]:
    """``make_settlement(match_id, hand_no, seed=..., players=..., **fields)``: a seeded valid
    settlement, with any top-level field overridden."""

    def make(
        match_id: str = "m1",
        hand_no: int = 1,
        *,
        seed: int = 0,
        players: list[str] | None = None,
        **fields: Any,
    ) -> dict[str, Any]:
        settlement = sample_settlement(
            random.Random(f"{seed}:{match_id}:{hand_no}"),
            match_id=match_id,
            hand_no=hand_no,
            players=players or ["p0", "p1", "p2", "p3"],
        )
        settlement.update(fields)
        return settlement

    return make


def hand_settlement(
    match: str,
    hand: int,
    players: list[str],
    deltas: list[int],
    *,
    kong: list[int] | None = None,
    winner: int | None = None,
    discarder: int | None = None,
    table: str = "t1",
    tournament: str = "cup",
) -> dict[str, Any]:
    """A hand of ``match`` with the given deltas by seat: a win of ``winner`` (on
    ``discarder``'s discard, else a self-draw) or, without a winner, an exhaustive draw."""
    kong = kong or [0, 0, 0, 0]
    wins = []
    if winner is not None:
        win: dict[str, Any] = {"winner": winner, "win_tile": "TILE_5M", "deltas": deltas}
        if discarder is None:
            win["kind"] = "WIN_KIND_SELF_DRAW"
        else:
            win.update(kind="WIN_KIND_DISCARD", discarder=discarder)
        wins.append(win)
    return {
        "idempotency_key": f"{match}:{hand}", "tournament_id": tournament, "round_no": 1,
        "table_id": table, "match_id": match, "hand_no": hand, "dealer": 0,
        "outcome": "HAND_OUTCOME_WIN" if wins else "HAND_OUTCOME_EXHAUSTIVE_DRAW",
        "results": [
            {"seat": s, "player_id": players[s], "hand_delta": deltas[s], "kong_delta": kong[s],
             "total_delta": deltas[s] + kong[s]}
            for s in range(4)
        ],
        "wins": wins,
    }  # fmt: skip


@pytest.fixture
def private_postgres() -> Iterator[embedded.EmbeddedPostgres]:
    """A PostgreSQL of this test's own (embedded, even when HEBEI_DATABASE_URL is set), which
    the test may stop and start."""
    folder = Path(tempfile.mkdtemp(prefix="hebei-ledger-pg-"))
    server = embedded.start_postgres(folder)
    yield server
    server.start()  # a test may leave it stopped; close() wants it running
    server.close()
    shutil.rmtree(folder, ignore_errors=True)


OPERATOR_TOKEN = "ledger-operator-token"
SERVICE_TOKEN = "ledger-service-token"


@dataclass
class LedgerServer:
    """A started ledger gRPC server on a free port and the Ledger behind it."""

    server: Server
    ledger: Ledger

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.server.port}"

    def stub(self) -> ledger_pb2_grpc.LedgerServiceStub:
        """A stub on a new plain channel (no client retries, so statuses show as they are)."""
        return ledger_pb2_grpc.LedgerServiceStub(grpc.insecure_channel(self.target))


def start_ledger_server(ledger: Ledger, **options: Any) -> LedgerServer:
    """Serve ``ledger`` through the bootstrap on free ports (gRPC and metrics); ``options``
    go to the servicer (``max_reads=...``)."""
    config = ServerConfig(
        service="ledger",
        host="127.0.0.1",
        port=0,
        metrics_port=0,
        operator_token=OPERATOR_TOKEN,
        service_token=SERVICE_TOKEN,
        grace_seconds=1.0,
    )
    spec = ServiceSpec(
        SERVICE_NAME,
        ledger_pb2_grpc.add_LedgerServiceServicer_to_server,
        LedgerServicer(ledger, **options),
    )
    server = create_server(spec, config)
    server.start()
    return LedgerServer(server, ledger)


@pytest.fixture
def ledger_server(ledger: Ledger) -> Iterator[LedgerServer]:
    """The ledger fixture served over gRPC."""
    running = start_ledger_server(ledger)
    yield running
    running.server.stop(grace=0)


def post_engine_settlement(
    stub: ledger_pb2_grpc.LedgerServiceStub, settlement: types_pb2.Settlement
) -> ledger_pb2.PostSettlementResponse:
    """Post a settlement as the table engine does; a refusal fails the test showing it."""
    try:
        return stub.PostSettlement(
            ledger_pb2.PostSettlementRequest(settlement=settlement),
            metadata=bearer_metadata(SERVICE_TOKEN),
        )
    except grpc.RpcError as error:  # show the engine's settlement that was refused
        raise AssertionError(f"{error.details()}\n{settlement}") from None


@pytest.fixture
def journal_lock(database_url: str, fresh_schema: str) -> Iterator[Any]:
    """``lock()`` takes the journal's ACCESS EXCLUSIVE lock in a transaction of the test's own
    and returns its connection (``rollback()`` releases it; so does the end of the test);
    ``lock.wait_for(n)`` waits until ``n`` statements wait for it."""
    conn = psycopg.connect(database_url)
    probe = psycopg.connect(database_url, autocommit=True)
    table = sql.Identifier(fresh_schema, "journal_entries")

    def lock() -> psycopg.Connection:
        conn.execute(sql.SQL("LOCK TABLE {} IN ACCESS EXCLUSIVE MODE").format(table))
        return conn

    def waiting() -> int:
        query = "SELECT count(*) FROM pg_locks WHERE relation = %s::regclass AND NOT granted"
        return probe.execute(query, (f"{fresh_schema}.journal_entries",)).fetchone()[0]

    def wait_for(count: int, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while waiting() != count:
            assert time.monotonic() < deadline, f"{waiting()} wait for the lock, not {count}"
            time.sleep(0.05)

    lock.wait_for = wait_for  # type: ignore[attr-defined]
    yield lock
    conn.rollback()
    conn.close()
    probe.close()
