"""The asyncio server (``ServiceSpec(asyncio=True)``, the table engine's): the same standard
interceptors in their asyncio forms, so a caller sees what the synchronous server answers:
domain errors mapped to their status and message, unknown errors INTERNAL, undecodable bytes
INVALID_ARGUMENT on every kind of RPC, tokens checked, one call-log line and the same
Prometheus samples per call, health and reflection."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Iterator

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from hebei.common.auth import bearer_metadata
from hebei.common.config import ServerConfig
from hebei.common.errors import FailedPrecondition, NotFound
from hebei.common.server import Server, ServiceSpec, create_server
from hebei.v1 import table_pb2, table_pb2_grpc, types_pb2
from tests.integration.common.conftest import OPERATOR_TOKEN, SERVICE_TOKEN
from tests.integration.common.test_decode import UNDECODABLE, raw, status_of
from tests.integration.common.test_metrics import scrape, value

TABLE = "hebei.v1.TableService"


def eventually(predicate, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


class AsyncCannedTable(table_pb2_grpc.TableServiceServicer):
    """TableService with coroutine handlers: canned answers and canned failures."""

    async def GetMatch(self, request: table_pb2.GetMatchRequest, context) -> object:
        if request.match_id == "missing":
            raise NotFound("no match 'missing'")
        if request.match_id == "broken":
            raise RuntimeError("a secret detail")
        return table_pb2.GetMatchResponse(match=table_pb2.MatchInfo(match_id=request.match_id))

    async def OpenMatch(self, request: table_pb2.OpenMatchRequest, context) -> object:
        return table_pb2.OpenMatchResponse(match=table_pb2.MatchInfo(match_id=request.match_id))

    async def Spectate(self, request: table_pb2.SpectateRequest, context) -> AsyncIterator:
        for seq in range(1, request.from_seq + 1):
            event = types_pb2.Event(seq=seq, match_id=request.match_id)
            yield table_pb2.SpectateResponse(event=event)
            if request.match_id == "slow":
                await asyncio.sleep(0.01)
        if request.match_id == "fails":
            raise FailedPrecondition("the match is over")

    async def Play(self, request_iterator, context) -> AsyncIterator:
        async for message in request_iterator:
            decision = message.action.decision_id + 1
            observation = types_pb2.Observation(seat=message.join.seat, decision_id=decision)
            yield table_pb2.PlayResponse(observation=observation)


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    config = ServerConfig(
        service="aiotest",
        host="127.0.0.1",
        port=0,
        metrics_port=0,
        operator_token=OPERATOR_TOKEN,
        service_token=SERVICE_TOKEN,
        grace_seconds=1.0,
    )
    add = table_pb2_grpc.add_TableServiceServicer_to_server
    running = create_server(ServiceSpec(TABLE, add, AsyncCannedTable(), asyncio=True), config)
    running.start()
    yield running
    running.stop(grace=0)


@pytest.fixture
def channel(server: Server) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        yield channel


@pytest.fixture
def stub(channel: grpc.Channel) -> table_pb2_grpc.TableServiceStub:
    return table_pb2_grpc.TableServiceStub(channel)


def test_domain_errors_map_to_their_status_and_unknown_ones_to_internal(
    server: Server, stub
) -> None:
    labels = {"grpc_type": "unary", "grpc_service": TABLE, "grpc_method": "GetMatch"}
    before = scrape(server.metrics_port)
    assert stub.GetMatch(table_pb2.GetMatchRequest(match_id="m1")).match.match_id == "m1"
    with pytest.raises(grpc.RpcError) as missing:
        stub.GetMatch(table_pb2.GetMatchRequest(match_id="missing"))
    assert missing.value.code() == grpc.StatusCode.NOT_FOUND
    assert missing.value.details() == "no match 'missing'"
    with pytest.raises(grpc.RpcError) as broken:
        stub.GetMatch(table_pb2.GetMatchRequest(match_id="broken"))
    assert broken.value.code() == grpc.StatusCode.INTERNAL
    assert broken.value.details() == "internal error"  # never the exception's text
    # An aborted call's status leaves before the outer interceptors see the abort: the
    # samples follow a moment later.
    for code in ("OK", "NOT_FOUND", "INTERNAL"):
        name, extra = "grpc_server_handled_total", {**labels, "grpc_code": code}
        assert eventually(
            lambda n=name, e=extra: (
                value(scrape(server.metrics_port), n, **e) == value(before, n, **e) + 1
            )
        )


def test_a_stream_failing_after_messages_ends_with_the_mapped_status(stub) -> None:
    responses = stub.Spectate(table_pb2.SpectateRequest(match_id="fails", from_seq=2))
    got = []
    with pytest.raises(grpc.RpcError) as caught:
        for response in responses:
            got.append(response.event.seq)
    assert got == [1, 2]
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert caught.value.details() == "the match is over"


@pytest.mark.parametrize("data", UNDECODABLE)
@pytest.mark.parametrize(
    ("method", "kind"),
    [(f"/{TABLE}/GetMatch", "unary"), (f"/{TABLE}/Spectate", "server"), (f"/{TABLE}/Play", "bidi")],
)
def test_undecodable_bytes_are_invalid_argument(
    channel: grpc.Channel, method: str, kind: str, data: bytes
) -> None:
    call = raw(channel, method, kind)
    error = status_of(lambda: call(iter([data]) if kind == "bidi" else data, timeout=10))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "not a valid message of this method" in error.details()


def test_tokens_are_checked(stub) -> None:
    request = table_pb2.OpenMatchRequest(match_id="m2")
    with pytest.raises(grpc.RpcError) as anonymous:
        stub.OpenMatch(request)
    assert anonymous.value.code() == grpc.StatusCode.UNAUTHENTICATED
    with pytest.raises(grpc.RpcError) as unknown:
        stub.OpenMatch(request, metadata=bearer_metadata("nobody"))
    assert unknown.value.code() == grpc.StatusCode.UNAUTHENTICATED
    answer = stub.OpenMatch(request, metadata=bearer_metadata(SERVICE_TOKEN))
    assert answer.match.match_id == "m2"


def test_a_bidi_stream_is_logged_and_counted_like_on_the_sync_server(
    server: Server, stub, caplog: pytest.LogCaptureFixture
) -> None:
    labels = {"grpc_type": "bidi_stream", "grpc_service": TABLE, "grpc_method": "Play"}
    before = scrape(server.metrics_port)
    join = table_pb2.PlayRequest(join=table_pb2.Join(match_id="m9", seat=2))
    actions = [table_pb2.PlayRequest(action=types_pb2.Action(decision_id=d)) for d in (4, 7)]
    with caplog.at_level(logging.INFO, logger="hebei.calls"):
        replies = list(stub.Play(iter([join, *actions])))
    assert [r.observation.decision_id for r in replies] == [1, 5, 8]
    after = scrape(server.metrics_port)

    def delta(name: str, **extra: str) -> float:
        return value(after, name, **labels, **extra) - value(before, name, **labels, **extra)

    assert delta("grpc_server_started_total") == 1
    assert delta("grpc_server_handled_total", grpc_code="OK") == 1
    assert delta("grpc_server_msg_received_total") == 3
    assert delta("grpc_server_msg_sent_total") == 3
    assert delta("grpc_server_handling_seconds_count") == 1
    [record] = [
        r for r in caplog.records if r.name == "hebei.calls" and r.method == f"/{TABLE}/Play"
    ]
    assert (record.code, record.match_id, record.seat) == ("OK", "m9", 2)


def test_a_client_that_goes_away_is_counted_cancelled(server: Server, stub) -> None:
    labels = {"grpc_type": "server_stream", "grpc_service": TABLE, "grpc_method": "Spectate"}
    labels["grpc_code"] = "CANCELLED"
    before = value(scrape(server.metrics_port), "grpc_server_handled_total", **labels)
    responses = stub.Spectate(table_pb2.SpectateRequest(match_id="slow", from_seq=10_000))
    next(responses)
    responses.cancel()
    assert eventually(
        lambda: (
            value(scrape(server.metrics_port), "grpc_server_handled_total", **labels) == before + 1
        )
    )


def test_health_and_reflection_answer(channel: grpc.Channel) -> None:
    health = health_pb2_grpc.HealthStub(channel)
    for service in ("", TABLE):
        answer = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
        assert answer.status == health_pb2.HealthCheckResponse.SERVING
    reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
    request = reflection_pb2.ServerReflectionRequest(list_services="")
    [answer] = list(reflection.ServerReflectionInfo(iter([request]), timeout=5))
    names = {s.name for s in answer.list_services_response.service}
    assert {TABLE, "grpc.health.v1.Health"} <= names


def test_drain_turns_health_not_serving_and_stop_ends_the_server() -> None:
    config = ServerConfig(service="aiodrain", host="127.0.0.1", port=0, operator_token="op")
    drained = []
    spec = ServiceSpec(
        TABLE,
        table_pb2_grpc.add_TableServiceServicer_to_server,
        AsyncCannedTable(),
        drain=lambda: drained.append(True),
        asyncio=True,
    )
    server = create_server(spec, config)
    server.start()
    with grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        health = health_pb2_grpc.HealthStub(channel)
        server.drain()
        answer = health.Check(health_pb2.HealthCheckRequest(service=TABLE), timeout=5)
        assert answer.status == health_pb2.HealthCheckResponse.NOT_SERVING and drained == [True]
        server.stop(grace=0)
        server.stop(grace=0)  # twice is harmless
        with pytest.raises(grpc.RpcError):
            health.Check(health_pb2.HealthCheckRequest(service=TABLE), timeout=2)


def test_asyncio_and_sync_services_cannot_share_a_server() -> None:
    config = ServerConfig(service="mixed", host="127.0.0.1", port=0, operator_token="op")
    add = table_pb2_grpc.add_TableServiceServicer_to_server
    specs = [
        ServiceSpec(TABLE, add, AsyncCannedTable(), asyncio=True),
        ServiceSpec("hebei.v1.Other", add, table_pb2_grpc.TableServiceServicer()),
    ]
    with pytest.raises(ValueError, match="cannot share"):
        create_server(specs, config)


def test_the_server_runs_on_uvloop(server: Server) -> None:
    """uvloop is a dependency: the asyncio server's loop is its (asyncio's is the fallback)."""
    import uvloop

    assert isinstance(server.loop, uvloop.Loop)
    assert server.loop.is_running()
