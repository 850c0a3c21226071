"""Routing over real replicas (:mod:`tests.integration.common.routed_replicas`, gRPC servers on
port 0): the refusal as any client sees it (one attempt, the owner named), a call that lands on
a non-owner and follows the redirect, an owner killed and its successor found through the
entries within the deadline, every entry dead (a clear error at the deadline, not a hang),
redirect loops bounded, the bounded channel pool, and streams (Spectate on synchronous channels,
Play and GetMatch through the asyncio router) re-routed by their reconnect loops."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator

import grpc
import pytest

from hebei.common.client import create_channel
from hebei.common.routing import (
    AsyncMatchRouter,
    MatchRouter,
    NoRoute,
    RouteSettings,
    is_refusal,
    owner_of,
)
from hebei.v1 import table_pb2, table_pb2_grpc
from tests.integration.common.conftest import SERVICE_TOKEN
from tests.integration.common.routed_replicas import (
    SPECTATE_EVENTS,
    Directory,
    Replica,
    start_replica,
)


def get_match(match_id: str):
    """One GetMatch attempt for :meth:`MatchRouter.call`."""
    request = table_pb2.GetMatchRequest(match_id=match_id)
    return lambda channel, timeout: table_pb2_grpc.TableServiceStub(channel).GetMatch(
        request, timeout=timeout
    )


@pytest.fixture
def directory() -> Directory:
    return Directory()


@pytest.fixture
def replicas(directory: Directory) -> Iterator[list[Replica]]:
    """Three synchronous replicas: a owns m-a, b owns m-b, c owns m-c."""
    started = [start_replica(name, directory.get, {f"m-{name}"}) for name in ("a", "b", "c")]
    for replica in started:
        directory.set(f"m-{replica.replica_id}", replica.owner())
    yield started
    for replica in started:
        replica.stop()


def test_any_client_sees_the_owner_named_after_one_attempt(replicas: list[Replica]) -> None:
    a, b, _ = replicas
    with create_channel(b.address) as channel:
        started = time.monotonic()
        with pytest.raises(grpc.RpcError) as caught:
            table_pb2_grpc.TableServiceStub(channel).GetMatch(
                table_pb2.GetMatchRequest(match_id="m-a")
            )
    error = caught.value
    assert error.code() == grpc.StatusCode.UNAVAILABLE
    assert error.details() == f"match m-a is served by table replica a at {a.address}"
    assert owner_of(error) == a.address
    assert is_refusal(error)
    # grpc-retry-pushback-ms: -1 kept the channel from asking b again (GetMatch is retried
    # on UNAVAILABLE otherwise, five attempts).
    assert b.calls == 1
    assert time.monotonic() - started < 0.5


def test_a_call_on_a_non_owner_follows_the_redirect(replicas: list[Replica]) -> None:
    a, b, _ = replicas
    with MatchRouter([b.address]) as router:
        assert router.call("m-a", get_match("m-a")).match.table_id == "a"
        assert (a.calls, b.calls) == (1, 1)
        assert router.owner("m-a") == a.address
        # Known now: the next call goes straight to the owner.
        assert router.call("m-a", get_match("m-a")).match.table_id == "a"
        assert (a.calls, b.calls) == (2, 1)
        assert router.channel_for("m-a") is router.channels.get(a.address)


def test_a_non_idempotent_call_follows_a_refusal(replicas: list[Replica]) -> None:
    a, b, _ = replicas
    request = table_pb2.DissolveRequest(match_id="m-a", reason="test")

    def dissolve(channel, timeout):
        return table_pb2_grpc.TableServiceStub(channel).Dissolve(request, timeout=timeout)

    with MatchRouter(b.address, token=SERVICE_TOKEN) as router:
        assert router.call("m-a", dissolve, idempotent=False).match.table_id == "a"
        a.stop()  # a dead owner: the call may not be sent again, its failure is the answer
        with pytest.raises(grpc.RpcError) as caught:
            router.call("m-a", dissolve, idempotent=False)
        assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
        assert not isinstance(caught.value, NoRoute)


def test_a_killed_owner_s_successor_is_found_through_the_entries(
    replicas: list[Replica], directory: Directory
) -> None:
    a, b, c = replicas
    with MatchRouter([a.address, b.address]) as router:
        assert router.call("m-a", get_match("m-a")).match.table_id == "a"
        a.stop()
        directory.set("m-a", None)  # being taken over: b says "try again"

        def take_over() -> None:
            c.owned.add("m-a")
            directory.set("m-a", c.owner())

        timer = threading.Timer(1.0, take_over)
        timer.start()
        started = time.monotonic()
        try:
            reply = router.call("m-a", get_match("m-a"), deadline=6.0)
        finally:
            timer.cancel()
        took = time.monotonic() - started
    assert reply.match.table_id == "c"
    assert 1.0 <= took < 5.0  # the takeover's second, then a dead attempt and a backoff step
    assert router.owner("m-a") == c.address
    assert b.calls >= 2  # b said "being taken over", then named c


def test_every_entry_dead_is_a_clear_error_at_the_deadline(replicas: list[Replica]) -> None:
    a, b, _ = replicas
    a.stop()
    b.stop()
    with MatchRouter([a.address, b.address]) as router:
        started = time.monotonic()
        with pytest.raises(NoRoute) as caught:
            router.call("m-a", get_match("m-a"), deadline=1.5)
        took = time.monotonic() - started
    assert 1.3 <= took < 2.5
    error = caught.value
    assert error.code() == grpc.StatusCode.UNAVAILABLE
    assert error.details().startswith("match m-a: no table replica served it within 1.5 s (")
    assert a.address in error.details() and b.address in error.details()
    # Each attempt at a dead address costs the channel's own retries (RETRY_POLICY, ~0.7 s):
    # the last one may be cut by the deadline.
    assert "last: UNAVAILABLE" in error.details() or "last: DEADLINE_EXCEEDED" in error.details()


def test_redirect_loops_are_bounded(replicas: list[Replica]) -> None:
    a, b, _ = replicas
    # a and b each believe the other owns m-x.
    a.directory = lambda match_id: b.owner()
    b.directory = lambda match_id: a.owner()
    with MatchRouter([a.address]) as router:
        started = time.monotonic()
        with pytest.raises(NoRoute) as caught:
            router.call("m-x", get_match("m-x"), deadline=1.0)
        took = time.monotonic() - started
    assert took < 2.0
    assert "redirects went round in a loop" in caught.value.details()
    # Two calls per round (a, b), one round per backoff step (50 ms doubling): a handful.
    assert a.calls + b.calls < 40


def test_the_channel_pool_is_bounded(replicas: list[Replica]) -> None:
    a, b, c = replicas
    made: dict[str, list[grpc.Channel]] = {}

    def factory(address: str) -> grpc.Channel:
        channel = create_channel(address, timeout=5.0)
        made.setdefault(address, []).append(channel)
        return channel

    with MatchRouter([a.address], factory, settings=RouteSettings(max_channels=2)) as router:
        for match_id, name in (("m-a", "a"), ("m-b", "b"), ("m-c", "c")):
            assert router.call(match_id, get_match(match_id)).match.table_id == name
        # m-c's call went through the entry a, then to c: b is the least recently used.
        assert router.channels.addresses() == [a.address, c.address]
        with pytest.raises(ValueError, match="closed"):
            get_match("m-b")(made[b.address][0], 5.0)  # closed when dropped
        assert router.call("m-b", get_match("m-b")).match.table_id == "b"  # a new one
        assert len(made[b.address]) == 2
        assert router.channels.addresses() == [c.address, b.address]


def test_bad_entry_addresses_are_refused() -> None:
    with pytest.raises(ValueError, match="has no port"):
        MatchRouter("table-0")
    with pytest.raises(ValueError, match="at least one entry"):
        MatchRouter([])
    with pytest.raises(ValueError, match="either"):
        MatchRouter("a:1", create_channel, token="t")


# ----------------------------------------------------------------------------- streams


@pytest.fixture
def aio_replicas(directory: Directory) -> Iterator[list[Replica]]:
    """Two asyncio replicas: p owns m-p, q owns nothing."""
    started = [
        start_replica("p", directory.get, {"m-p"}, asyncio=True),
        start_replica("q", directory.get, set(), asyncio=True),
    ]
    directory.set("m-p", started[0].owner())
    yield started
    for replica in started:
        replica.stop()


def spectate(channel: grpc.Channel, match_id: str) -> list[int]:
    request = table_pb2.SpectateRequest(match_id=match_id, from_seq=1)
    stream = table_pb2_grpc.TableServiceStub(channel).Spectate(request, timeout=5)
    return [response.event.seq for response in stream]


def test_a_spectator_s_reconnect_follows_the_redirect(aio_replicas: list[Replica]) -> None:
    p, q = aio_replicas
    with MatchRouter([q.address]) as router:
        address, channel = router.stream_channel("m-p")
        assert address == q.address
        with pytest.raises(grpc.RpcError) as caught:
            spectate(channel, "m-p")
        assert owner_of(caught.value) == p.address
        assert router.note_failure("m-p", caught.value, address) == p.address
        address, channel = router.stream_channel("m-p")
        assert address == p.address
        assert spectate(channel, "m-p") == list(range(1, SPECTATE_EVENTS + 1))
        router.note_served("m-p", address)
        assert router.owner("m-p") == p.address
        # The owner gone: the next stream goes back through the entries.
        p.stop()
        with pytest.raises(grpc.RpcError) as caught:
            spectate(channel, "m-p")
        assert router.note_failure("m-p", caught.value, address) == q.address
        assert router.owner("m-p") is None
        # A failure that says nothing of routing changes nothing.
        missing = NoRoute("x")
        assert router.note_failure("m-p", grpc.RpcError(), q.address) is None
        assert router.note_failure("m-p", missing, "elsewhere:1") == q.address


def test_the_asyncio_router_routes_calls_and_play_streams(aio_replicas: list[Replica]) -> None:
    p, q = aio_replicas

    async def scenario() -> None:
        async with AsyncMatchRouter(q.address, settings=RouteSettings(max_channels=1)) as router:
            reply = await router.call(
                "m-p",
                lambda channel, timeout: table_pb2_grpc.TableServiceStub(channel).GetMatch(
                    table_pb2.GetMatchRequest(match_id="m-p"), timeout=timeout
                ),
            )
            assert reply.match.table_id == "p"
            assert router.channels.addresses() == [p.address]  # q's evicted and closed
            router.book.forget("m-p", p.address)  # as if the owner were lost: back to q
            for attempt in range(2):
                address, channel = router.stream_channel("m-p")
                call = table_pb2_grpc.TableServiceStub(channel).Play()
                join = table_pb2.Join(match_id="m-p", seat=2, seat_token="t")
                await call.write(table_pb2.PlayRequest(join=join))
                try:
                    response = await call.read()
                except grpc.aio.AioRpcError as error:
                    assert attempt == 0 and address == q.address
                    assert router.note_failure("m-p", error, address) == p.address
                    continue
                assert address == p.address
                assert response.observation.seat == 2
                router.note_served("m-p", address)
                call.cancel()
                break
            else:
                pytest.fail("the Play stream never reached the owner")

    asyncio.run(scenario())
    assert q.calls == 2  # the GetMatch and the first Play, each refused once
