"""Anonymous public reads are bounded: at most ``max_reads`` (GetStandings, GetHistory, Audit
without a token) run at once, ``max_reads_per_peer`` from one client address, more are
RESOURCE_EXHAUSTED at once, and the pool's other connections stay with the bookings. Without
the bound 16 anonymous Audits of a 200,000-entry journal held the whole pool: PostSettlement
waited 5-8 s or failed UNAVAILABLE.

Reads are held busy deterministically: the test locks the journal (ACCESS EXCLUSIVE), so every
statement on it waits for the lock, holding its call and its connection; PostgreSQL's
``pg_locks`` tells how many wait."""

from __future__ import annotations

from collections.abc import Callable
from concurrent import futures
from typing import Any

import grpc
import pytest
from google.protobuf import json_format

from hebei.common.auth import bearer_metadata
from hebei.ledger.journal import Ledger
from hebei.v1 import ledger_pb2
from tests.integration.ledger.conftest import SERVICE_TOKEN, start_ledger_server

ANONYMOUS_READS = [
    lambda stub: stub.Audit(ledger_pb2.AuditRequest(), timeout=60),
    lambda stub: stub.GetStandings(
        ledger_pb2.LedgerServiceGetStandingsRequest(tournament_id="cup"), timeout=60
    ),
    lambda stub: stub.GetHistory(ledger_pb2.GetHistoryRequest(page_size=500), timeout=60),
]


@pytest.mark.parametrize(
    ("total", "per_peer", "words"),
    [
        (4, 2, "at most 2 GetStandings, GetHistory and Audit calls from one client address"),
        (2, 4, "at most 2 GetStandings, GetHistory and Audit calls in all"),
    ],
    ids=["per-peer", "total"],
)
def test_anonymous_reads_beyond_the_bound_are_refused_and_bookings_go_on(
    ledger: Ledger,
    journal_lock: Any,
    make_settlement: Callable[..., dict[str, Any]],
    total: int,
    per_peer: int,
    words: str,
) -> None:
    running = start_ledger_server(ledger, max_reads=total, max_reads_per_peer=per_peer)
    stub = running.stub()
    service = bearer_metadata(SERVICE_TOKEN)
    first, booking = ledger_pb2.PostSettlementRequest(), ledger_pb2.PostSettlementRequest()
    json_format.ParseDict(make_settlement("m1", 1, tournament_id="cup"), first.settlement)
    json_format.ParseDict(make_settlement("m1", 2, tournament_id="cup"), booking.settlement)
    stub.PostSettlement(first, metadata=service, timeout=60)
    try:
        with futures.ThreadPoolExecutor(4) as pool:
            locked = journal_lock()
            try:
                held = [pool.submit(ANONYMOUS_READS[i], stub) for i in range(2)]
                journal_lock.wait_for(2)
                for read in ANONYMOUS_READS:
                    with pytest.raises(grpc.RpcError) as refused:
                        read(stub)
                    assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                    assert words in refused.value.details()
                # a read with a token is not counted, and a booking gets a connection
                standings = pool.submit(
                    stub.GetStandings,
                    ledger_pb2.LedgerServiceGetStandingsRequest(tournament_id="cup"),
                    metadata=service,
                    timeout=60,
                )
                posted = pool.submit(stub.PostSettlement, booking, metadata=service, timeout=60)
                journal_lock.wait_for(4)
            finally:
                locked.rollback()
            for call in held:
                call.result()
            assert standings.result().standings
            assert posted.result().entry_id
        # the slots are given back
        for read in ANONYMOUS_READS:
            read(stub)
    finally:
        running.server.stop(grace=0)
