"""A person's seat follows a takeover as soon as the shard is served (issue 46): two real table
engine replicas on one schema, the person's Play stream (:class:`PlayStream` over a
:class:`MatchRouter`, as ``hebei play`` / ``hebei tournament join`` / the web gateway hold it) on
the owner; the owner is killed (SIGKILL, a process of its own), the survivor serves the match's
shard after the takeover grace, and the seat's next observation must come within a few hundred
ms of that, not after a doubling backoff (0.2, 0.4, 0.8, 1.6, 3.2 s: up to 2.7 s late).

Measured: the gap between the survivor serving the shard (polled every 5 ms) and the stream's
next observation, and the gaps between the stream's joins while the match was being taken over
(the schedule the client used: the doubling backoff had a 1.6 s gap in every takeover), and
that the dead replica, still an entry, did not take every other join."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from hebei.common.ownership import shard_of
from hebei.common.routing import MatchRouter, Route
from hebei.common.server import create_server
from hebei.seatclient.stream import MESSAGE, MOVED, MOVED_TEXT, PlayStream
from hebei.table.service import TableConfig, TableEngine
from hebei.v1 import table_pb2, table_pb2_grpc
from hebei.v1 import types_pb2 as pb
from tests.integration.common.routed_replicas import joins_until_served
from tests.integration.table.conftest import (
    LOG_KEY,
    OPERATOR,
    EngineUnderTest,
    new_match_request,
    server_config,
    token_of,
)
from tests.integration.table.helpers import (
    EngineProcess,
    free_port,
    replica_env,
    shards_served_by,
    wait_for,
)

SHARDS = 64
SERVED_TO_OBSERVATION_LIMIT = 1.5  # seconds: ~0.3 s expected; the doubling backoff gave 2.7 s
JOIN_GAP_LIMIT = 1.0  # seconds between joins during the takeover: ~0.3 s expected, 1.6 before
TAKEOVER_LIMIT = 15.0  # seconds from the kill to the survivor serving (~3.6 s measured)


class RecordingRouter(MatchRouter):
    """A router that notes when and where each stream was opened (the joins)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.joins: list[tuple[float, str]] = []

    def stream_channel(self, match_id: str) -> Route[grpc.Channel]:
        route = super().stream_channel(match_id)
        self.joins.append((time.monotonic(), route.address))
        return route


class TimedInbox:
    """The stream's inbox, each item with the time it came."""

    def __init__(self) -> None:
        self.items: list[tuple[float, tuple[str, Any]]] = []
        self.arrived = threading.Condition()

    def put(self, item: tuple[str, Any]) -> None:
        with self.arrived:
            self.items.append((time.monotonic(), item))
            self.arrived.notify_all()

    def first_message_after(self, since: float, timeout: float) -> float:
        """The time of the first MESSAGE that came after ``since``."""

        def found() -> float | None:
            return next((t for t, (kind, _) in self.items if kind == MESSAGE and t > since), None)

        with self.arrived:
            assert self.arrived.wait_for(lambda: found() is not None, timeout), self.items
            return found()  # type: ignore[return-value]


@pytest.fixture
def survivor(database_url: str, fresh_schema: str) -> Iterator[EngineUnderTest]:
    """An engine replica in this process, on a port of its own (the address it advertises)."""
    port = free_port()
    config = TableConfig(
        server=server_config("table", port=port, max_workers=64),
        database_url=database_url,
        schema=fresh_schema,
        ready_seconds=5.0,
        rejoin_seconds=20.0,
        log_key=LOG_KEY,
        replica_id="survivor",
    )
    engine = TableEngine(config)
    server = create_server(engine.spec(), config.server)
    server.start()
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    running = EngineUnderTest(engine, server, channel, table_pb2_grpc.TableServiceStub(channel))
    yield running
    running.close()


@pytest.mark.slow
def test_a_person_s_seat_is_back_within_a_moment_of_the_survivor_serving_the_match(
    database_url: str, fresh_schema: str, survivor: EngineUnderTest, tmp_path: Path
) -> None:
    env = replica_env(database_url, fresh_schema, "victim", LOG_KEY.decode())
    victim = EngineProcess(env, tmp_path / "victim.log")
    victim.start()
    router = RecordingRouter(f"{victim.address},{survivor.engine.ownership.settings.address}")
    stream: PlayStream | None = None
    try:
        directory = survivor.engine.ownership.directory

        def victim_shards() -> frozenset[int]:
            return shards_served_by(directory, "victim")

        assert wait_for(lambda: len(victim_shards()) == SHARDS // 2, timeout=30)
        shards = victim_shards()
        while True:
            request = new_match_request(hands=2, per_decision=5.0, kind=pb.SEAT_KIND_PERSON)
            if shard_of(request.match_id, SHARDS) in shards:
                break
        match_id = request.match_id
        with grpc.insecure_channel(victim.address) as channel:
            table_pb2_grpc.TableServiceStub(channel).OpenMatch(
                request, metadata=OPERATOR, timeout=10
            )

        inbox = TimedInbox()
        join = table_pb2.Join(
            match_id=match_id, seat=0, seat_token=token_of(match_id, 0), client_name="test"
        )
        stream = PlayStream(router, join, inbox).start()
        inbox.first_message_after(0.0, timeout=30)
        assert router.owner(match_id) == victim.address

        killed_at = time.monotonic()
        victim.kill()

        def survivor_serves() -> bool:
            ownership, host = survivor.engine.ownership, survivor.engine.host
            return ownership.owns(match_id) and host.serves(match_id)

        assert wait_for(survivor_serves, timeout=TAKEOVER_LIMIT, step=0.005)
        served_at = time.monotonic()
        observed_at = inbox.first_message_after(killed_at, timeout=TAKEOVER_LIMIT)
        gap = observed_at - served_at
        during, gaps = joins_until_served((t for t, _ in router.joins), killed_at, served_at)
        at_dead = [t for t, address in router.joins if t in during and address == victim.address]
        print(
            f"\nshard served {served_at - killed_at:.2f} s after SIGKILL, the seat's next "
            f"observation {observed_at - killed_at:.2f} s after it ({gap:+.2f} s); "
            f"{len(during)} joins meanwhile ({len(at_dead)} at the dead replica), the longest"
            f" gap {max(gaps):.2f} s"
        )
        assert gap < SERVED_TO_OBSERVATION_LIMIT, (gap, gaps)
        assert len(during) >= 3 and max(gaps) < JOIN_GAP_LIMIT, gaps
        # The dead replica is passed over (one join, when a survivor still named it, at most).
        assert len(at_dead) <= 1, router.joins
        assert router.owner(match_id) == survivor.engine.ownership.settings.address
        after_kill = [item for t, item in inbox.items if killed_at < t < observed_at]
        assert after_kill == [(MOVED, MOVED_TEXT)]  # one calm line, no reconnecting one
    finally:
        if stream is not None:
            stream.close()
            stream.wait(5)
        router.close()
        victim.stop()
