"""One log line per call with method, ids, status code and duration."""

from __future__ import annotations

import logging

import grpc
import pytest

from hebei.v1 import ledger_pb2, ledger_pb2_grpc, table_pb2, table_pb2_grpc, types_pb2


def _call_records(caplog: pytest.LogCaptureFixture, method: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "hebei.calls" and r.method == method]


def test_unary_call_logged_with_ids(
    channel: grpc.Channel, caplog: pytest.LogCaptureFixture
) -> None:
    settlement = types_pb2.Settlement(idempotency_key="m7:2", match_id="m7", hand_no=2)
    with caplog.at_level(logging.INFO, logger="hebei.calls"):
        ledger_pb2_grpc.LedgerServiceStub(channel).PostSettlement(
            ledger_pb2.PostSettlementRequest(settlement=settlement)
        )
    [record] = _call_records(caplog, "/hebei.v1.LedgerService/PostSettlement")
    assert (record.code, record.match_id, record.hand_no) == ("OK", "m7", 2)
    assert record.idempotency_key == "m7:2" and record.duration_ms >= 0


def test_failed_call_logged_with_its_code(
    channel: grpc.Channel, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="hebei.calls"), pytest.raises(grpc.RpcError):
        ledger_pb2_grpc.LedgerServiceStub(channel).ReverseEntry(
            ledger_pb2.ReverseEntryRequest(entry_id="missing")
        )
    [record] = _call_records(caplog, "/hebei.v1.LedgerService/ReverseEntry")
    assert (record.code, record.entry_id, record.details) == (
        "NOT_FOUND",
        "missing",
        "no entry 'missing'",
    )


def test_stream_logged_with_ids_of_first_message(
    channel: grpc.Channel, caplog: pytest.LogCaptureFixture
) -> None:
    join = table_pb2.Join(match_id="m8", seat=3, seat_token="seat-3")
    with caplog.at_level(logging.INFO, logger="hebei.calls"):
        replies = table_pb2_grpc.TableServiceStub(channel).Play(
            iter([table_pb2.PlayRequest(join=join)]), timeout=5
        )
        assert len(list(replies)) == 1
    [record] = _call_records(caplog, "/hebei.v1.TableService/Play")
    assert (record.code, record.match_id, record.seat) == ("OK", "m8", 3)
