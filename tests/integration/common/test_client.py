"""Client channels: retries on UNAVAILABLE and CANCELLED for idempotent methods only, default
deadlines."""

from __future__ import annotations

import grpc
import pytest

from hebei.common.client import create_channel
from hebei.v1 import ledger_pb2, ledger_pb2_grpc, types_pb2
from tests.integration.common.conftest import OPERATOR_TOKEN, CannedServer


@pytest.mark.parametrize("kind", ["flaky", "cancelled"])  # UNAVAILABLE, CANCELLED
def test_idempotent_method_retried_on_unavailable_and_cancelled(
    kind: str, canned: CannedServer, channel: grpc.Channel
) -> None:
    stub = ledger_pb2_grpc.LedgerServiceStub(channel)
    reply = stub.GetHistory(ledger_pb2.GetHistoryRequest(player_id=f"{kind}:2"))
    assert [e.entry_id for e in reply.entries] == ["e1"]
    assert canned.ledger.attempts[f"{kind}:2"] == 3


@pytest.mark.parametrize(
    ("kind", "code"),
    [("flaky", grpc.StatusCode.UNAVAILABLE), ("cancelled", grpc.StatusCode.CANCELLED)],
)
def test_non_idempotent_method_not_retried(
    kind: str, code: grpc.StatusCode, canned: CannedServer, channel: grpc.Channel
) -> None:
    stub = ledger_pb2_grpc.LedgerServiceStub(channel)
    with pytest.raises(grpc.RpcError) as failure:
        stub.ReverseEntry(ledger_pb2.ReverseEntryRequest(entry_id=f"{kind}:1"))
    assert failure.value.code() == code
    assert canned.ledger.attempts[f"{kind}:1"] == 1


def test_other_codes_not_retried(canned: CannedServer, channel: grpc.Channel) -> None:
    stub = ledger_pb2_grpc.LedgerServiceStub(channel)
    before = canned.ledger.attempts["conflict"]
    with pytest.raises(grpc.RpcError) as failure:
        stub.GetStandings(ledger_pb2.LedgerServiceGetStandingsRequest(tournament_id="conflict"))
    assert failure.value.code() == grpc.StatusCode.ABORTED
    assert canned.ledger.attempts["conflict"] - before == 1


def test_retries_give_up(canned: CannedServer, channel: grpc.Channel) -> None:
    stub = ledger_pb2_grpc.LedgerServiceStub(channel)
    with pytest.raises(grpc.RpcError) as failure:
        stub.GetHistory(ledger_pb2.GetHistoryRequest(player_id="flaky:99"))
    assert failure.value.code() == grpc.StatusCode.UNAVAILABLE
    assert canned.ledger.attempts["flaky:99"] == 5  # RETRY_POLICY maxAttempts


def test_default_deadline_applies(canned: CannedServer) -> None:
    slow = ledger_pb2.PostSettlementRequest(
        settlement=types_pb2.Settlement(idempotency_key="slow:1", round_no=500)
    )
    with create_channel(canned.target, token=OPERATOR_TOKEN, timeout=0.1) as channel:
        stub = ledger_pb2_grpc.LedgerServiceStub(channel)
        with pytest.raises(grpc.RpcError) as failure:
            stub.PostSettlement(slow)
        assert failure.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        # an explicit deadline wins over the default
        assert stub.PostSettlement(slow, timeout=5).entry_id == "entry-slow:1"
