"""Requests are parsed by the bootstrap, not by grpcio: bytes that are not a valid message are
INVALID_ARGUMENT with a short message (grpcio would answer INTERNAL "Exception deserializing
request!", log a stack trace and leak memory), for every service on every kind of RPC. Error
details and call-log lines never echo a huge value whole. Health checks run on threads of
their own, answered however busy the workers are."""

from __future__ import annotations

import contextlib
import logging
import threading
import time

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from hebei.common.client import create_channel
from hebei.common.errors import MAX_DETAILS
from hebei.common.logs import MAX_LOGGED
from hebei.v1 import ledger_pb2, ledger_pb2_grpc, table_pb2
from tests.integration.common.conftest import OPERATOR_TOKEN, CannedServer, start_canned_server

VALID = table_pb2.PlayRequest(join=table_pb2.Join(match_id="m1", seat=1, seat_token="seat-1"))
UNDECODABLE = [
    b"\xff\xff\xff\xff",  # wire type 7 does not exist
    VALID.SerializeToString()[:-3],  # truncated inside a length-delimited field
    b"\x0a\x02\xff\xfe",  # a string field that is not UTF-8
    b"\x0a" + b"\xff" * 11,  # a length that is not a valid varint
]


def raw(channel: grpc.Channel, method: str, kind: str):
    factory = {"unary": channel.unary_unary, "server": channel.unary_stream}
    factory["bidi"] = channel.stream_stream
    return factory[kind](method)  # no serializers: bytes go out as they are


def status_of(call) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        result = call()
        if not isinstance(result, bytes):
            list(result)
    return caught.value


@pytest.mark.parametrize("data", UNDECODABLE)
@pytest.mark.parametrize(
    ("method", "kind"),
    [
        ("/hebei.v1.TableService/GetMatch", "unary"),
        ("/hebei.v1.TableService/Spectate", "server"),
        ("/hebei.v1.TableService/Play", "bidi"),
        ("/grpc.health.v1.Health/Check", "unary"),
    ],
)
def test_undecodable_requests_are_invalid_argument(canned: CannedServer, method, kind, data):
    with grpc.insecure_channel(canned.target) as channel:
        call = raw(channel, method, kind)
        if kind == "bidi":
            error = status_of(lambda: call(iter([data]), timeout=5))
        else:
            error = status_of(lambda: call(data, timeout=5))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, (error.code(), error.details())
    assert "not a valid message" in error.details() and "Traceback" not in error.details()


def test_a_bad_message_after_good_ones_ends_the_stream_with_invalid_argument(canned):
    with grpc.insecure_channel(canned.target) as channel:
        call = raw(channel, "/hebei.v1.TableService/Play", "bidi")
        good = VALID.SerializeToString()
        error = status_of(lambda: call(iter([good, good, b"\xff\xff"]), timeout=5))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_good_bytes_still_work_and_undecodable_calls_are_logged(canned, caplog):
    with grpc.insecure_channel(canned.target) as channel:
        call = raw(channel, "/grpc.health.v1.Health/Check", "unary")
        reply = health_pb2.HealthCheckResponse.FromString(call(b"", timeout=5))
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
        with caplog.at_level(logging.INFO, logger="hebei.calls"):
            status_of(lambda: raw(channel, "/hebei.v1.LedgerService/Audit", "unary")(b"\xff"))
    lines = [r for r in caplog.records if getattr(r, "method", "").endswith("/Audit")]
    assert [r.code for r in lines] == ["INVALID_ARGUMENT"]


def test_huge_values_are_not_echoed_whole(channel: grpc.Channel, caplog) -> None:
    huge = "echo:" + "x" * 200_000
    stub = ledger_pb2_grpc.LedgerServiceStub(channel)
    with caplog.at_level(logging.INFO, logger="hebei.calls"), pytest.raises(grpc.RpcError) as e:
        stub.ReverseEntry(ledger_pb2.ReverseEntryRequest(entry_id=huge), timeout=5)
    assert e.value.code() == grpc.StatusCode.NOT_FOUND
    assert len(e.value.details()) <= MAX_DETAILS and e.value.details().endswith("…")
    [line] = [r for r in caplog.records if getattr(r, "method", "").endswith("/ReverseEntry")]
    assert len(line.entry_id) <= MAX_LOGGED and len(line.details) <= MAX_LOGGED


def test_health_is_answered_while_every_worker_is_busy() -> None:
    running = start_canned_server(max_workers=2)
    try:
        slow = ledger_pb2.PostSettlementRequest()
        slow.settlement.round_no = 3000  # each call holds a worker for 3 s
        channel = create_channel(running.target, token=OPERATOR_TOKEN)
        stub = ledger_pb2_grpc.LedgerServiceStub(channel)

        def hold_a_worker() -> None:
            with contextlib.suppress(grpc.RpcError):  # cancelled when the server stops
                stub.PostSettlement(slow, timeout=10)

        busy = [threading.Thread(target=hold_a_worker, daemon=True) for _ in range(4)]
        for thread in busy:
            thread.start()
        time.sleep(0.5)  # both workers taken, two calls queued behind them
        health = health_pb2_grpc.HealthStub(channel)
        started = time.monotonic()
        reply = health.Check(health_pb2.HealthCheckRequest(), timeout=2)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
        assert time.monotonic() - started < 2
        running.server.drain()  # health turns NOT_SERVING at once, busy or not
        reply = health.Check(health_pb2.HealthCheckRequest(), timeout=2)
        assert reply.status == health_pb2.HealthCheckResponse.NOT_SERVING
    finally:
        running.server.stop(grace=0)
    for thread in busy:
        thread.join(15)
    channel.close()
