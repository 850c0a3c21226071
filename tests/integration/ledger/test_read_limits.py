"""The bounds of the public reads beyond the call quota (test_read_quota): an anonymous read
runs for at most ``read_seconds`` (HEBEI_LEDGER_READ_SECONDS), a read with a token has no
limit; standings and an audit's list of tournaments have a size; and only an audit of the
whole ledger sets the problems gauge that HebeiLedgerAuditFailed watches.

Reads are held busy as in test_read_quota: the test locks the journal, so a read's statement
waits for the lock (and PostgreSQL's statement_timeout counts that wait)."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent import futures
from typing import Any

import grpc
import pytest
from google.protobuf import json_format
from prometheus_client import REGISTRY

from hebei.common.auth import bearer_metadata
from hebei.ledger import audit as ledger_audit
from hebei.ledger import standings as ledger_standings
from hebei.ledger.journal import Ledger
from hebei.v1 import ledger_pb2
from tests.integration.ledger.conftest import OPERATOR_TOKEN, SERVICE_TOKEN, start_ledger_server

Make = Callable[..., dict[str, Any]]
AS_SERVICE = bearer_metadata(SERVICE_TOKEN)

READS = {
    "Audit": lambda stub, **kw: stub.Audit(ledger_pb2.AuditRequest(), timeout=60, **kw),
    "GetStandings": lambda stub, **kw: stub.GetStandings(
        ledger_pb2.LedgerServiceGetStandingsRequest(tournament_id="cup"), timeout=60, **kw
    ),
    "GetHistory": lambda stub, **kw: stub.GetHistory(
        ledger_pb2.GetHistoryRequest(page_size=500), timeout=60, **kw
    ),
}


def _post(stub: Any, settlement: dict[str, Any]) -> None:
    request = ledger_pb2.PostSettlementRequest()
    json_format.ParseDict(settlement, request.settlement)
    stub.PostSettlement(request, metadata=AS_SERVICE, timeout=60)


def test_an_anonymous_read_is_cut_at_its_time_and_a_read_with_a_token_is_not(
    ledger: Ledger, journal_lock: Any, make_settlement: Make
) -> None:
    running = start_ledger_server(ledger, read_seconds=0.5)
    stub = running.stub()
    try:
        _post(stub, make_settlement("m1", 1, tournament_id="cup"))
        with futures.ThreadPoolExecutor(1) as pool:
            locked = journal_lock()
            try:
                for name, read in READS.items():
                    started = time.monotonic()
                    with pytest.raises(grpc.RpcError) as cut:
                        read(stub)
                    assert cut.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, name
                    assert f"{name} ran past the 0.5 s an anonymous read may take" in (
                        cut.value.details()
                    )
                    assert time.monotonic() - started < 30  # cut, not waiting for the lock
                # with the operator's token the same Audit waits for the lock, past 0.5 s
                operator = pool.submit(READS["Audit"], stub, metadata=[
                    ("authorization", f"Bearer {OPERATOR_TOKEN}")
                ])  # fmt: skip
                journal_lock.wait_for(1)
                time.sleep(1.0)
                journal_lock.wait_for(1)
                assert not operator.done()
            finally:
                locked.rollback()
            assert operator.result().ok
        # the limit was the read's own: the pool's connections carry none afterwards
        for read in READS.values():
            read(stub)
        for _ in range(ledger.pool.get_stats().get("pool_size", 1)):
            with ledger.pool.connection() as conn:
                assert conn.execute("SHOW statement_timeout").fetchone()[0] == "0"
    finally:
        running.server.stop(grace=0)


def _gauge() -> float | None:
    return REGISTRY.get_sample_value("hebei_ledger_audit_problems")


def test_only_an_audit_of_the_whole_ledger_sets_the_problems_gauge(
    ledger: Ledger, make_settlement: Make
) -> None:
    running = start_ledger_server(ledger)
    stub = running.stub()
    try:
        _post(stub, make_settlement("m1", 1, tournament_id="cup"))
        _post(
            stub, make_settlement("m2", 1, tournament_id="plate", players=["q0", "q1", "q2", "q3"])
        )
        with ledger.pool.connection() as conn:
            conn.execute("UPDATE accounts SET balance = balance + 10 WHERE player_id = 'p2'")
        whole = stub.Audit(ledger_pb2.AuditRequest(), timeout=60)
        assert not whole.ok and _gauge() == len(whole.problems) == 1
        # an anonymous audit of the sound tournament is ok, and leaves the alert standing
        plate = stub.Audit(ledger_pb2.AuditRequest(tournament_id="plate"), timeout=60)
        assert plate.ok and _gauge() == 1
        with ledger.pool.connection() as conn:
            conn.execute("UPDATE accounts SET balance = balance - 10 WHERE player_id = 'p2'")
        cup = stub.Audit(ledger_pb2.AuditRequest(tournament_id="cup"), timeout=60)
        assert cup.ok and _gauge() == 1  # still the whole ledger's last word
        assert stub.Audit(ledger_pb2.AuditRequest(), timeout=60).ok and _gauge() == 0
    finally:
        running.server.stop(grace=0)


def test_an_audit_lists_a_bounded_number_of_tournaments_those_off_zero_first(
    ledger: Ledger, make_settlement: Make, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ledger_audit, "MAX_AUDIT_TOURNAMENTS", 2)
    for tournament in ("a", "b", "c"):
        ledger.post_settlement(make_settlement(f"m-{tournament}", 1, tournament_id=tournament))
    with ledger.pool.connection() as conn, conn.transaction():
        # a posting the ledger would refuse, slipped in with the triggers off: "c" is off zero
        conn.execute("SET LOCAL session_replication_role = replica")
        conn.execute(
            "INSERT INTO postings (entry_id, account_id, component, seat, amount)"
            " SELECT e.entry_id, p.account_id, 'kong', 0, 7 FROM journal_entries e"
            " JOIN postings p USING (entry_id) WHERE e.tournament_id = 'c' LIMIT 1"
        )
    running = start_ledger_server(ledger)
    try:
        report = running.stub().Audit(ledger_pb2.AuditRequest(), timeout=60)
    finally:
        running.server.stop(grace=0)
    assert report.tournaments_checked == 3
    assert [(t.tournament_id, t.total) for t in report.tournaments] == [("c", 7), ("a", 0)]
    assert "tournament 'c' sums to 7" in report.problems


def test_standings_list_at_most_their_bound_from_the_top(
    ledger: Ledger, make_settlement: Make, monkeypatch: pytest.MonkeyPatch
) -> None:
    settlement = make_settlement("q-1", 1, tournament_id="", seed=4)
    ledger.post_settlement(settlement)
    everyone = ledger.standings("")
    assert len(everyone) == 4
    monkeypatch.setattr(ledger_standings, "MAX_STANDINGS", 2)
    assert ledger.standings("") == everyone[:2]
