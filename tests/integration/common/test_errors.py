"""Domain and rules errors reach the client as their status with a human message; others as
INTERNAL "internal error", the stack trace only in the server log."""

from __future__ import annotations

import logging

import grpc
import pytest

from hebei.v1 import ledger_pb2, ledger_pb2_grpc
from tests.integration.common.servicers import SECRET_DETAIL


@pytest.mark.parametrize(
    ("entry_id", "code", "message"),
    [
        ("missing", grpc.StatusCode.NOT_FOUND, "no entry 'missing'"),
        ("illegal", grpc.StatusCode.FAILED_PRECONDITION, "not your turn"),
        ("boom", grpc.StatusCode.INTERNAL, "internal error"),
    ],
)
def test_error_becomes_status(
    channel: grpc.Channel, entry_id: str, code: grpc.StatusCode, message: str
) -> None:
    stub = ledger_pb2_grpc.LedgerServiceStub(channel)
    with pytest.raises(grpc.RpcError) as failure:
        stub.ReverseEntry(ledger_pb2.ReverseEntryRequest(entry_id=entry_id))
    assert failure.value.code() == code
    assert failure.value.details() == message


def test_internal_error_is_logged_with_its_trace(
    channel: grpc.Channel, caplog: pytest.LogCaptureFixture
) -> None:
    stub = ledger_pb2_grpc.LedgerServiceStub(channel)
    with caplog.at_level(logging.ERROR, logger="hebei.errors"), pytest.raises(grpc.RpcError):
        stub.ReverseEntry(ledger_pb2.ReverseEntryRequest(entry_id="boom"))
    traces = [r for r in caplog.records if r.exc_info and SECRET_DETAIL in str(r.exc_info[1])]
    assert traces, "the server log must keep the stack trace of an internal error"
    assert "/hebei.v1.LedgerService/ReverseEntry" in traces[0].getMessage()
