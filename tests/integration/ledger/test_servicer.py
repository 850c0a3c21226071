"""LedgerService over a real gRPC server (the bootstrap's, on a free port) and real Postgres."""

from __future__ import annotations

import urllib.request
from collections.abc import Callable
from typing import Any

import grpc
import pytest
from google.protobuf import json_format
from prometheus_client.parser import text_string_to_metric_families

from hebei.common.auth import bearer_metadata
from hebei.common.embedded import EmbeddedPostgres
from hebei.ledger.journal import Ledger
from hebei.v1 import ledger_pb2, types_pb2
from tests.integration.ledger.conftest import (
    OPERATOR_TOKEN,
    SERVICE_TOKEN,
    LedgerServer,
    start_ledger_server,
)

Make = Callable[..., dict[str, Any]]
AS_SERVICE = bearer_metadata(SERVICE_TOKEN)
AS_OPERATOR = bearer_metadata(OPERATOR_TOKEN)


def _post_request(settlement: dict[str, Any]) -> ledger_pb2.PostSettlementRequest:
    request = ledger_pb2.PostSettlementRequest()
    json_format.ParseDict(settlement, request.settlement)
    return request


def _status(call: Callable[[], Any]) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as raised:
        call()
    return raised.value.code(), raised.value.details()


def test_post_is_idempotent_and_reads_back(ledger_server: LedgerServer, make_settlement: Make):
    stub = ledger_server.stub()
    settlement = make_settlement("m1", 1, seed=5, tournament_id="cup")
    first = stub.PostSettlement(_post_request(settlement), metadata=AS_SERVICE)
    again = stub.PostSettlement(_post_request(settlement), metadata=AS_SERVICE)
    assert (first.duplicate, again.duplicate) == (False, True)
    assert again.entry_id == first.entry_id
    history = stub.GetHistory(ledger_pb2.GetHistoryRequest(player_id="p1"), metadata=AS_SERVICE)
    (entry,) = history.entries
    assert entry.entry_id == first.entry_id and entry.kind == ledger_pb2.ENTRY_KIND_SETTLEMENT
    assert entry.settlement == _post_request(settlement).settlement  # the same hand, exactly
    assert sum(p.amount for p in entry.postings) == 0
    assert entry.booked_at.seconds > 0
    standings = stub.GetStandings(
        ledger_pb2.LedgerServiceGetStandingsRequest(tournament_id="cup"), metadata=AS_SERVICE
    ).standings
    points = {s.player_id: s.points for s in standings}
    assert points == {r["player_id"]: r["total_delta"] for r in settlement["results"]}
    assert [s.rank for s in standings] == sorted(s.rank for s in standings)
    audit = stub.Audit(ledger_pb2.AuditRequest(), metadata=AS_SERVICE)
    assert audit.ok and audit.entries_checked == 1 and list(audit.problems) == []
    assert [(t.tournament_id, t.total) for t in audit.tournaments] == [("cup", 0)]


def test_refusals_carry_a_clear_status(ledger_server: LedgerServer, make_settlement: Make):
    stub = ledger_server.stub()
    post = stub.PostSettlement
    stub.PostSettlement(_post_request(make_settlement("m1", 1, seed=1)), metadata=AS_SERVICE)
    changed = make_settlement("m1", 1, seed=2)
    assert _status(lambda: post(_post_request(changed), metadata=AS_SERVICE)) == (
        grpc.StatusCode.ALREADY_EXISTS,
        "key 'm1:1' is already booked as entry 1 with different figures",
    )
    missing = ledger_pb2.PostSettlementRequest()
    assert _status(lambda: post(missing, metadata=AS_SERVICE)) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "settlement: missing",
    )
    no_key = make_settlement("m1", 2)
    del no_key["idempotency_key"]
    code, message = _status(lambda: post(_post_request(no_key), metadata=AS_SERVICE))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert message == "settlement.idempotency_key: missing"
    bad_seat = make_settlement("m1", 3)
    bad_seat["results"][3]["seat"] = 9
    assert _status(lambda: post(_post_request(bad_seat), metadata=AS_SERVICE)) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "settlement.results[3].seat: unknown seat 9",
    )
    unbalanced = make_settlement("m1", 4)
    unbalanced["results"][0]["kong_delta"] += 3
    unbalanced["results"][0]["total_delta"] += 3
    code, message = _status(lambda: post(_post_request(unbalanced), metadata=AS_SERVICE))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "unbalanced" in message
    assert _status(lambda: post(_post_request(make_settlement("m1", 5))))[0] == (
        grpc.StatusCode.UNAUTHENTICATED
    )


def test_history_page_token_is_checked(ledger_server: LedgerServer):
    stub = ledger_server.stub()
    request = ledger_pb2.GetHistoryRequest(page_token="not-a-token")
    code, message = _status(lambda: stub.GetHistory(request, metadata=AS_SERVICE))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and message.startswith("page_token")


def test_reverse_entry_is_for_the_operator(ledger_server: LedgerServer, make_settlement: Make):
    stub = ledger_server.stub()
    entry = stub.PostSettlement(
        _post_request(make_settlement("m1", 1, seed=1)), metadata=AS_SERVICE
    ).entry_id
    corrected = _post_request(make_settlement("m1", 1, seed=2)).settlement
    request = ledger_pb2.ReverseEntryRequest(entry_id=entry, reason="fans", corrected=corrected)
    assert _status(lambda: stub.ReverseEntry(request))[0] == grpc.StatusCode.UNAUTHENTICATED
    assert _status(lambda: stub.ReverseEntry(request, metadata=AS_SERVICE))[0] == (
        grpc.StatusCode.PERMISSION_DENIED
    )
    result = stub.ReverseEntry(request, metadata=AS_OPERATOR)
    assert result.reversal_entry_id and result.correction_entry_id
    entries = stub.GetHistory(ledger_pb2.GetHistoryRequest(), metadata=AS_SERVICE).entries
    kinds = {e.entry_id: (e.kind, e.reverses_entry_id, e.reversed_by_entry_id) for e in entries}
    assert kinds == {
        entry: (ledger_pb2.ENTRY_KIND_SETTLEMENT, "", result.reversal_entry_id),
        result.reversal_entry_id: (ledger_pb2.ENTRY_KIND_REVERSAL, entry, ""),
        result.correction_entry_id: (ledger_pb2.ENTRY_KIND_CORRECTION, "", ""),
    }
    unknown = ledger_pb2.ReverseEntryRequest(entry_id="424242", reason="typo")
    assert _status(lambda: stub.ReverseEntry(unknown, metadata=AS_OPERATOR)) == (
        grpc.StatusCode.NOT_FOUND,
        "entry 424242 does not exist",
    )
    malformed = ledger_pb2.ReverseEntryRequest(entry_id="m1:1", reason="typo")
    assert _status(lambda: stub.ReverseEntry(malformed, metadata=AS_OPERATOR)) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "entry_id: expected an entry id, got 'm1:1'",
    )


def test_metrics_count_posted_deduplicated_and_refused(
    ledger_server: LedgerServer, make_settlement: Make
):
    stub = ledger_server.stub()

    def scrape() -> dict[tuple[str, str], float]:
        url = f"http://127.0.0.1:{ledger_server.server.metrics_port}/metrics"
        text = urllib.request.urlopen(url, timeout=5).read().decode()
        return {
            (sample.name, sample.labels.get("result", "")): sample.value
            for family in text_string_to_metric_families(text)
            for sample in family.samples
            if sample.name.startswith("hebei_ledger_")
        }

    before = scrape()
    stub.PostSettlement(_post_request(make_settlement("m9", 1)), metadata=AS_SERVICE)
    stub.PostSettlement(_post_request(make_settlement("m9", 1)), metadata=AS_SERVICE)
    with pytest.raises(grpc.RpcError):
        stub.PostSettlement(_post_request(make_settlement("m9", 1, seed=7)), metadata=AS_SERVICE)
    after = scrape()

    def delta(name: str, result: str = "") -> float:
        return after[name, result] - before.get((name, result), 0.0)

    assert delta("hebei_ledger_settlements_total", "posted") == 1
    assert delta("hebei_ledger_settlements_total", "deduplicated") == 1
    assert delta("hebei_ledger_settlements_total", "refused") == 1
    assert delta("hebei_ledger_commit_seconds_count") >= 2
    assert delta("hebei_ledger_pool_wait_seconds_count") >= 3


def test_unavailable_while_postgres_is_down_then_back_without_restart(
    private_postgres: EmbeddedPostgres, make_settlement: Make
):
    ledger = Ledger.open(private_postgres.url, "ledger", timeout=1.0)
    running = start_ledger_server(ledger)
    try:
        stub = running.stub()
        stub.PostSettlement(_post_request(make_settlement("m1", 1)), metadata=AS_SERVICE)
        private_postgres.stop()
        request = _post_request(make_settlement("m1", 2))
        code, message = _status(lambda: stub.PostSettlement(request, metadata=AS_SERVICE))
        assert code == grpc.StatusCode.UNAVAILABLE
        assert message.startswith("database unavailable")
        audit_request = ledger_pb2.AuditRequest()
        assert _status(lambda: stub.Audit(audit_request, metadata=AS_SERVICE))[0] == (
            grpc.StatusCode.UNAVAILABLE
        )
        private_postgres.start()
        assert not stub.PostSettlement(request, metadata=AS_SERVICE).duplicate
        assert stub.Audit(audit_request, metadata=AS_SERVICE).entries_checked == 2
    finally:
        running.server.stop(grace=0)
        ledger.close()


def test_settlement_message_fields_all_survive(ledger_server: LedgerServer, make_settlement: Make):
    """Every field the table engine may fill comes back from GetHistory unchanged."""
    settlement = make_settlement("m1", 1, seed=5)
    request = _post_request(settlement)
    request.settlement.ended_at.FromSeconds(1_700_000_000)
    win = request.settlement.wins[0]
    win.concealed.extend([types_pb2.TILE_1M, types_pb2.TILE_2M])
    win.melds.add(kind=types_pb2.MELD_KIND_PONG, tile=types_pb2.TILE_RED, from_seat=1)
    stub = ledger_server.stub()
    stub.PostSettlement(request, metadata=AS_SERVICE)
    (entry,) = stub.GetHistory(ledger_pb2.GetHistoryRequest(), metadata=AS_SERVICE).entries
    assert entry.settlement == request.settlement


def test_adjustments_over_grpc(ledger_server: LedgerServer, make_settlement: Make):
    stub = ledger_server.stub()
    stub.PostSettlement(
        _post_request(make_settlement("m1", 1, seed=5, tournament_id="cup")), metadata=AS_SERVICE
    )
    uma = ledger_pb2.Adjustment(
        idempotency_key="placement:m1", tournament_id="cup", round_no=1, match_id="m1",
        kind=ledger_pb2.ADJUSTMENT_KIND_PLACEMENT, reason="placement points",
        lines=[ledger_pb2.AdjustmentLine(player_id=p, amount=a)
               for p, a in (("p0", 15), ("p1", 5), ("p2", -5), ("p3", -15))],
    )  # fmt: skip
    penalty = ledger_pb2.Adjustment(
        idempotency_key="penalty:1", tournament_id="cup", kind=ledger_pb2.ADJUSTMENT_KIND_PENALTY,
        lines=[ledger_pb2.AdjustmentLine(player_id="p2", amount=-20),
               ledger_pb2.AdjustmentLine(player_id="#tournament", amount=20)],
        reason="late", assigned_by="referee",
    )  # fmt: skip
    post = stub.PostAdjustment
    request = ledger_pb2.PostAdjustmentRequest(adjustment=uma)
    assert _status(lambda: post(request))[0] == grpc.StatusCode.UNAUTHENTICATED
    first = post(request, metadata=AS_SERVICE)
    assert not first.duplicate and post(request, metadata=AS_OPERATOR).duplicate
    changed = ledger_pb2.PostAdjustmentRequest(adjustment=uma)
    changed.adjustment.lines[0].amount, changed.adjustment.lines[1].amount = 5, 15
    assert _status(lambda: post(changed, metadata=AS_SERVICE)) == (
        grpc.StatusCode.ALREADY_EXISTS,
        f"key 'adjustment:placement:m1' is already booked as entry {first.entry_id} with "
        "different figures",
    )
    assert _status(lambda: post(ledger_pb2.PostAdjustmentRequest(), metadata=AS_SERVICE)) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "adjustment: missing",
    )
    penalty_id = post(
        ledger_pb2.PostAdjustmentRequest(adjustment=penalty), metadata=AS_SERVICE
    ).entry_id

    history = stub.GetHistory(ledger_pb2.GetHistoryRequest(tournament_id="cup")).entries
    entry = next(e for e in history if e.entry_id == penalty_id)
    assert entry.kind == ledger_pb2.ENTRY_KIND_ADJUSTMENT and not entry.HasField("settlement")
    assert entry.adjustment.kind == ledger_pb2.ADJUSTMENT_KIND_PENALTY
    assert entry.adjustment.assigned_by == "referee" and entry.reason == "late"
    assert sorted((p.player_id, p.seat, p.component, p.amount) for p in entry.postings) == [
        ("#tournament", -1, "penalty", 20), ("p2", -1, "penalty", -20),
    ]  # fmt: skip

    def standings() -> dict[str, types_pb2.Standing]:
        request = ledger_pb2.LedgerServiceGetStandingsRequest(tournament_id="cup")
        return {s.player_id: s for s in stub.GetStandings(request).standings}

    assert set(standings()) == {"p0", "p1", "p2", "p3"}
    p2 = standings()["p2"]
    assert (p2.penalty_points, p2.placement_points, p2.replacement_points) == (-20, -5, 0)

    cancel = ledger_pb2.CancelAdjustmentRequest(
        entry_id=penalty_id, reason="appeal upheld", idempotency_key="cancel:penalty:1"
    )
    assert _status(lambda: stub.CancelAdjustment(cancel))[0] == grpc.StatusCode.UNAUTHENTICATED
    cancelled = stub.CancelAdjustment(cancel, metadata=AS_SERVICE)
    assert cancelled.reversal_entry_id and not cancelled.duplicate
    again = stub.CancelAdjustment(cancel, metadata=AS_SERVICE)
    assert (again.reversal_entry_id, again.duplicate) == (cancelled.reversal_entry_id, True)
    assert standings()["p2"].penalty_points == 0
    settlement = ledger_pb2.CancelAdjustmentRequest(
        entry_id="1", reason="typo", idempotency_key="c2"
    )
    assert _status(lambda: stub.CancelAdjustment(settlement, metadata=AS_SERVICE)) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "entry 1 is a settlement, not an adjustment: only adjustments can be cancelled",
    )
    reverse = ledger_pb2.ReverseEntryRequest(entry_id=first.entry_id, reason="typo")
    assert _status(lambda: stub.ReverseEntry(reverse, metadata=AS_OPERATOR))[0] == (
        grpc.StatusCode.FAILED_PRECONDITION
    )
    audit = stub.Audit(ledger_pb2.AuditRequest(tournament_id="cup"))
    assert audit.ok and [(t.tournament_id, t.total) for t in audit.tournaments] == [("cup", 0)]
