"""SIGTERM while a service is under a steady load loses no call: the ledger, matchmaking and
the table engine as real processes on the session's PostgreSQL, with their default drain.

Each service gets a steady load of idempotent calls from several threads (the ledger's keyed
posts and reads; matchmaking's reads; the engine's OpenMatch by match id and reads), each
client on the stack's usual channel (``hebei.common.client``). The load behaves as a load
balancer does: it sends no new call once the service's health says NOT_SERVING. SIGTERM goes
to the service while calls are in flight: every call sent before it, and every call sent
until the load saw NOT_SERVING, must succeed (gRPC used to answer those still queued at the
stop with CANCELLED, and clients retried only UNAVAILABLE). Then the stack starts the service
again (same port, same tokens) and the next one is tried.
"""

from __future__ import annotations

import random
import signal
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

import grpc
from google.protobuf import json_format
from grpc_health.v1 import health_pb2, health_pb2_grpc

from hebei.common.client import create_channel
from hebei.ledger.samples import sample_settlement
from hebei.stack.processes import Stack, start_stack
from hebei.stack.readiness import wait_until_ready
from hebei.v1 import (
    ledger_pb2,
    ledger_pb2_grpc,
    matchmaking_pb2_grpc,
    table_pb2,
    table_pb2_grpc,
    types_pb2,
)
from hebei.v1 import matchmaking_pb2 as mm
from tests.integration.stack.conftest import wait_for
from tests.integration.table.conftest import new_match_request

THREADS = 8
WARM_CALLS = 100  # calls answered before the signal: the load is steady
TOURNAMENT = "load-cup"

Call = Callable[[int], object]


@dataclass
class Load:
    """Threads calling ``calls`` in turn until the service says NOT_SERVING."""

    address: str
    calls: list[Call]
    ok: int = 0
    failures: list[str] = field(default_factory=list)
    spans: list[tuple[float, float]] = field(default_factory=list)  # each call's start, end
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    threads: list[threading.Thread] = field(default_factory=list)

    def start(self) -> None:
        self.threads = [
            threading.Thread(target=self._run, args=(n,), daemon=True) for n in range(THREADS)
        ]
        self.threads.append(threading.Thread(target=self._watch, daemon=True))
        for thread in self.threads:
            thread.start()

    def _run(self, worker: int) -> None:
        n = worker
        while not self.stop.is_set():
            started = time.monotonic()
            try:
                self.calls[n % len(self.calls)](n)
            except grpc.RpcError as error:
                with self.lock:
                    self.failures.append(f"{error.code().name}: {error.details()}")
            else:
                with self.lock:
                    self.ok += 1
                    self.spans.append((started, time.monotonic()))
            n += THREADS

    def _watch(self) -> None:
        """What a load balancer does: stop sending once the service is NOT_SERVING."""
        with grpc.insecure_channel(self.address) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            while not self.stop.is_set():
                try:
                    status = health.Check(health_pb2.HealthCheckRequest(), timeout=5).status
                except grpc.RpcError:
                    status = None
                if status != health_pb2.HealthCheckResponse.SERVING:
                    self.stop.set()
                time.sleep(0.01)

    def answered(self) -> int:
        with self.lock:
            return self.ok

    def finish(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(120)


def ledger_calls(channel: grpc.Channel) -> list[Call]:
    stub = ledger_pb2_grpc.LedgerServiceStub(channel)
    run = uuid.uuid4().hex[:8]

    def post(n: int) -> object:
        settlement = sample_settlement(
            random.Random(n),
            match_id=f"load-{run}-{n}",
            hand_no=1,
            players=["p0", "p1", "p2", "p3"],
            tournament_id=TOURNAMENT,
        )
        message = json_format.ParseDict(settlement, types_pb2.Settlement())
        return stub.PostSettlement(ledger_pb2.PostSettlementRequest(settlement=message))

    def standings(_n: int) -> object:
        return stub.GetStandings(
            ledger_pb2.LedgerServiceGetStandingsRequest(tournament_id=TOURNAMENT)
        )

    return [post, post, post, standings]


def matchmaking_calls(channel: grpc.Channel) -> list[Call]:
    stub = matchmaking_pb2_grpc.MatchmakingServiceStub(channel)
    config = mm.TournamentConfig(name="load", rounds=1, seed=1)
    config.length.hands = 1
    created = stub.CreateTournament(
        mm.CreateTournamentRequest(config=config, request_id=uuid.uuid4().hex)
    )
    tid = created.tournament.tournament_id

    def get(_n: int) -> object:
        return stub.GetTournament(mm.GetTournamentRequest(tournament_id=tid))

    def standings(_n: int) -> object:
        return stub.GetStandings(mm.GetStandingsRequest(tournament_id=tid))

    def seating(_n: int) -> object:
        return stub.GetSeating(mm.GetSeatingRequest(tournament_id=tid))

    return [get, standings, seating]


def table_calls(channel: grpc.Channel) -> list[Call]:
    stub = table_pb2_grpc.TableServiceStub(channel)
    opened = new_match_request(hands=1)
    stub.OpenMatch(opened)

    def open_again(_n: int) -> object:  # idempotent by match id: the same match each time
        return stub.OpenMatch(opened)

    def get(_n: int) -> object:
        return stub.GetMatch(table_pb2.GetMatchRequest(match_id=opened.match_id))

    def tables(_n: int) -> object:
        return stub.ListTables(table_pb2.ListTablesRequest())

    return [open_again, get, tables]


CALLS = {"ledger": ledger_calls, "matchmaking": matchmaking_calls, "table": table_calls}


def sigterm_under_load(stack: Stack, service: str) -> None:
    child = stack.children[service]
    channel = create_channel(child.address, token=stack.operator_token, timeout=30)
    load = Load(child.address, CALLS[service](channel))
    try:
        load.start()
        wait_for(lambda: load.answered() >= WARM_CALLS, 120, f"{service} to answer the load")
        signalled = time.monotonic()
        child.popen.send_signal(signal.SIGTERM)
        wait_for(load.stop.is_set, 120, f"{service} to turn NOT_SERVING")
        load.finish()
        assert child.popen.wait(120) == 0, child.exit_message()
    finally:
        load.finish()
        channel.close()
    assert load.failures == [], f"{service}: {len(load.failures)} calls failed"
    in_flight = [s for s in load.spans if s[0] < signalled < s[1]]
    assert in_flight, f"{service}: no call was in flight at the signal"
    child.respawn()  # the next service's load needs this one (matchmaking reads the ledger)
    wait_until_ready([child], 120)


def test_sigterm_under_steady_load_fails_no_call(running: list[Stack], options):
    # The drain ends once the load went elsewhere (no call for 1 s): its bound is raised from
    # the default 5 s only so that a test process starved of CPU still sees NOT_SERVING in time.
    env = {"HEBEI_DRAIN_SECONDS": "60"}
    stack = start_stack(options(services=("ledger", "table", "matchmaking"), env=env))
    running.append(stack)
    for service in ("ledger", "matchmaking", "table"):
        sigterm_under_load(stack, service)
