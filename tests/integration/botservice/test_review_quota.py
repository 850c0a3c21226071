"""Reviews are bounded: at most ``max_reviews`` run at once, ``max_reviews_per_peer`` from one
client address, more are RESOURCE_EXHAUSTED at once. Without the bound 32 anonymous Reviews of
a 64-hand match from one address held every thread: another client's Suggest took 13-16 s.

Reviews are held BUSY deterministically: they review a match by id on an engine whose GetMatch
waits until the test lets it answer."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from concurrent import futures
from typing import Any

import grpc
import pytest

from hebei.botservice.servicer import SERVICE_NAME, BotServicer
from hebei.common import convert
from hebei.common.auth import bearer_metadata
from hebei.common.errors import NotFound
from hebei.common.routing import MatchRouter
from hebei.common.server import ServiceSpec
from hebei.seatclient.match_feed import TableFeed
from hebei.v1 import bot_pb2, bot_pb2_grpc, table_pb2_grpc
from tests.integration.botservice.conftest import OPERATOR_TOKEN, serve
from tests.unit.botservice.positions import random_positions


class HeldTables(table_pb2_grpc.TableServiceServicer):
    """An engine whose GetMatch waits for ``release``, then knows no match."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.waiting = 0
        self.arrived = threading.Condition()
        self.address = ""  # where it is served

    def GetMatch(self, request: Any, context: Any) -> Any:
        with self.arrived:
            self.waiting += 1
            self.arrived.notify_all()
        self.release.wait(60)
        raise NotFound(f"no match {request.match_id!r}")

    def wait_for(self, count: int) -> None:
        with self.arrived:
            assert self.arrived.wait_for(lambda: self.waiting >= count, timeout=60)


@pytest.fixture
def held() -> Iterator[HeldTables]:
    tables = HeldTables()
    server = serve(
        ServiceSpec(
            "hebei.v1.TableService", table_pb2_grpc.add_TableServiceServicer_to_server, tables
        ),
        "table",
    )
    tables.address = f"127.0.0.1:{server.port}"
    yield tables
    tables.release.set()
    server.stop(grace=0)


BUSY = bot_pb2.ReviewRequest(match_id="held", seat=0)


@contextlib.contextmanager
def bot_service(held: HeldTables, **limits: int) -> Iterator[bot_pb2_grpc.BotServiceStub]:
    """A bot service with these review bounds, reading matches from ``held``."""
    feed = TableFeed(MatchRouter(held.address, timeout=60.0), timeout=60.0)
    servicer = BotServicer(feed, **limits)
    bots = serve(
        ServiceSpec(SERVICE_NAME, bot_pb2_grpc.add_BotServiceServicer_to_server, servicer),
        "botservice",
    )
    channel = grpc.insecure_channel(f"127.0.0.1:{bots.port}")
    try:
        yield bot_pb2_grpc.BotServiceStub(channel)
    finally:
        channel.close()
        bots.stop(grace=0)


@pytest.mark.parametrize(
    ("total", "per_peer", "words"),
    [
        (8, 2, "at most 2 Review calls from one client address"),
        (2, 8, "at most 2 Review calls in all"),
    ],
    ids=["per-peer", "total"],
)
def test_reviews_beyond_the_bound_are_refused(
    held: HeldTables, total: int, per_peer: int, words: str
) -> None:
    limits = {"max_reviews": total, "max_reviews_per_peer": per_peer}
    with bot_service(held, **limits) as stub, futures.ThreadPoolExecutor(2) as pool:
        try:
            calls = [pool.submit(stub.Review, BUSY, timeout=60) for _ in range(2)]
            held.wait_for(2)
            with pytest.raises(grpc.RpcError) as refused:
                stub.Review(BUSY, timeout=30)
            assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert words in refused.value.details()
            assert held.waiting == 2  # refused before any work
            # hints go on while the reviews are busy
            obs = convert.observation_to_proto(random_positions(1, seed=5)[0], decision_id=1)
            assert stub.Suggest(bot_pb2.SuggestRequest(observation=obs), timeout=30).suggestions
        finally:
            held.release.set()
        for call in calls:
            with pytest.raises(grpc.RpcError) as done:
                call.result()
            assert done.value.code() == grpc.StatusCode.NOT_FOUND
        # the slots are given back
        with pytest.raises(grpc.RpcError) as again:
            stub.Review(BUSY, timeout=30)
        assert again.value.code() == grpc.StatusCode.NOT_FOUND


def test_one_address_takes_one_review_and_the_services_keep_their_pool(held) -> None:
    limits = {"max_reviews": 4, "max_service_reviews": 2}  # per address: the default
    with bot_service(held, **limits) as stub, futures.ThreadPoolExecutor(4) as pool:
        try:
            calls = [pool.submit(stub.Review, BUSY, timeout=60)]
            held.wait_for(1)
            with pytest.raises(grpc.RpcError) as refused:
                stub.Review(BUSY, timeout=30)
            assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "from one client address" in refused.value.details()
            # The gateway's reviews (a token) are not the anonymous address's.
            calls += [
                pool.submit(stub.Review, BUSY, timeout=60, metadata=bearer_metadata(OPERATOR_TOKEN))
                for _ in range(2)
            ]
            held.wait_for(3)
            with pytest.raises(grpc.RpcError) as full:
                stub.Review(BUSY, timeout=30, metadata=bearer_metadata(OPERATOR_TOKEN))
            assert full.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "Review (services) calls" in full.value.details()
        finally:
            held.release.set()
        for call in calls:
            with pytest.raises(grpc.RpcError) as done:
                call.result()
            assert done.value.code() == grpc.StatusCode.NOT_FOUND
