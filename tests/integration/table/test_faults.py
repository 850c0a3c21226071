"""The machine's own failures do not decide matches. Matches are played through the real
engine by the bot fleet's seat sessions (and one person's ``hebei play`` stream) while

- the engine process is stopped with SIGTERM mid-match and started again: it drains (its
  streams end with UNAVAILABLE, "reconnect"; the calls in flight finish; it exits cleanly),
  the clients join the restarted engine, and every match resumes from its log;
- the engine's PostgreSQL is stopped for 10 s mid-match: nothing can be written nor told to
  the seats, so no clock runs; the engine cannot confirm it still owns the matches (its
  ownership session ended with the server), so it stops serving them at once (UNAVAILABLE,
  "being taken over") and resumes them from their logs when it is back, as after a crash.

Every match completes with nothing played by the machine (no ``auto`` action, no seat
auto-played in the log), its scores are those of the replayed log and each hand is booked
exactly once."""

from __future__ import annotations

import queue
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest

from hebei.bots.policies import make_policy
from hebei.bots.session import Backoff, Outcome, SeatSession, SeatTicket
from hebei.common import convert
from hebei.rules.replay import replay_match
from hebei.seatclient.stream import CLOSED, MESSAGE, RECONNECTING, PlayStream
from hebei.table import metrics
from hebei.table.store import EventStore
from hebei.v1 import table_pb2, table_pb2_grpc
from hebei.v1 import types_pb2 as pb
from tests.integration.table.conftest import (
    OPERATOR,
    ledger_audit,
    ledger_entries,
    new_match_request,
    token_of,
)
from tests.integration.table.helpers import (
    EngineProcess,
    engine_env,
    rules_events,
    stored_events,
    wait_for,
)
from tests.unit.table.greedy import greedy_choice

HANDS = 3
PER_DECISION = 5.0  # far longer than any bot takes, also on a loaded machine
PACE = 0.02  # seconds a bot decision takes: matches last seconds, long enough to hit mid-way
PLAYED = {"discard", "win", "pong", "exposed_kong", "concealed_kong", "added_kong", "pass"}


class Seats:
    """Every seat of some matches played by a bot seat session (reconnecting with backoff),
    on threads; optionally one seat played through ``hebei play``'s stream instead."""

    def __init__(self, address: str, match_ids: list[str], person: tuple[str, int] | None):
        self.sessions: list[SeatSession] = []
        self.results: list = []
        self.threads: list[threading.Thread] = []
        self.person = None
        for i, match_id in enumerate(match_ids):
            for seat in range(4):
                if person == (match_id, seat):
                    self.person = Person(address, match_id, seat)
                    continue
                ticket = SeatTicket(
                    address, match_id, seat, token_of(match_id, seat), "efficiency",
                    seed=10 * i + seat, pace=PACE,
                )  # fmt: skip
                policy = make_policy("efficiency", seed=10 * i + seat)
                self.sessions.append(SeatSession(ticket, policy, backoff=Backoff(give_up=90)))
        for session in self.sessions:
            thread = threading.Thread(target=lambda s=session: self.results.append(s.run()))
            thread.start()
            self.threads.append(thread)

    def join(self, timeout: float = 180) -> None:
        deadline = time.monotonic() + timeout
        for thread in self.threads:
            thread.join(max(0.1, deadline - time.monotonic()))
        if self.person is not None:
            self.person.done.wait(max(0.1, deadline - time.monotonic()))
        for session in self.sessions:
            session.stop.set()

    def check_finished(self) -> None:
        assert len(self.results) == len(self.sessions)
        assert [r.outcome for r in self.results] == [Outcome.FINISHED] * len(self.sessions), [
            r.to_json() for r in self.results if r.outcome is not Outcome.FINISHED
        ]
        if self.person is not None:
            assert self.person.finished, self.person.error


class Person:
    """A seat played through :class:`hebei.seatclient.stream.PlayStream` (what ``hebei play``
    runs), answering each decision greedily; it joins again by itself on UNAVAILABLE."""

    def __init__(self, address: str, match_id: str, seat: int) -> None:
        self.channel = grpc.insecure_channel(address)
        self.inbox: queue.Queue = queue.Queue()
        join = table_pb2.Join(
            match_id=match_id, seat=seat, seat_token=token_of(match_id, seat), client_name="t"
        )
        self.stream = PlayStream(self.channel, join, self.inbox)
        self.seat = seat
        self.reconnects = 0
        self.finished = False
        self.error = None
        self.done = threading.Event()
        self._answered = 0
        self._rng = random.Random(seat)
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        self.stream.start()
        while True:
            kind, value = self.inbox.get()
            if kind == RECONNECTING:
                self.reconnects += 1
            elif kind == CLOSED:
                self.error = value
                break
            elif kind == MESSAGE and value.HasField("observation"):
                self._on(value.observation)
        self.channel.close()
        self.done.set()

    def _on(self, obs: pb.Observation) -> None:
        if obs.match_finished:
            self.finished = True
            self.stream.close()
        elif obs.decision_id and obs.legal_actions and obs.decision_id != self._answered:
            view = convert.observation_from_proto(obs)
            time.sleep(PACE)
            action = greedy_choice(
                view.legal_actions, view.counts(), len(view.seats[self.seat].melds), self._rng
            )
            self._answered = obs.decision_id
            self.stream.send(convert.action_to_proto(action, obs.decision_id))


def get(stub, match_id: str) -> table_pb2.MatchInfo:
    return stub.GetMatch(table_pb2.GetMatchRequest(match_id=match_id), timeout=10).match


def mid_match(stub, match_ids: list[str]) -> bool:
    infos = [get(stub, m) for m in match_ids]
    return any(i.hands_played >= 1 for i in infos) and all(
        i.status == pb.MATCH_STATUS_PLAYING for i in infos
    )


def check_played_by_the_players(events: list[dict], info: table_pb2.MatchInfo, ledger) -> None:
    """Finished, nothing played by the machine, the scores of the replayed log, and every
    hand booked once."""
    assert info.status == pb.MATCH_STATUS_FINISHED, info
    machine = [e for e in events if e["type"] in PLAYED and e.get("auto")]
    auto_seats = [e for e in events if e["type"] == "seat_auto"]
    assert not machine and not auto_seats, (machine[:3], auto_seats[:3])
    replayed = replay_match(rules_events(events))
    assert [s.score for s in info.seats] == replayed.scores
    keys = lambda: sorted(e.idempotency_key for e in ledger_entries(ledger, info.match_id))  # noqa: E731
    assert wait_for(lambda: len(keys()) == HANDS, timeout=30)
    assert keys() == [f"{info.match_id}:{n}" for n in range(1, HANDS + 1)]


def open_matches(stub, count: int, first_seed: int) -> list[str]:
    requests = [
        new_match_request(hands=HANDS, seed=first_seed + i, per_decision=PER_DECISION)
        for i in range(count)
    ]
    for request in requests:
        stub.OpenMatch(request, metadata=OPERATOR, timeout=10)
    return [r.match_id for r in requests]


def calls_in_flight(address: str, match_ids: list[str], count: int) -> list:
    """``count`` unary calls started together; their futures."""
    channel = grpc.insecure_channel(address)
    stub = table_pb2_grpc.TableServiceStub(channel)
    pool = ThreadPoolExecutor(max_workers=count)
    barrier = threading.Barrier(count)

    def call(i: int) -> grpc.StatusCode:
        barrier.wait()
        try:
            if i % 2:
                stub.ListTables(table_pb2.ListTablesRequest(page_size=500), timeout=30)
            else:
                stub.GetMatch(table_pb2.GetMatchRequest(match_id=match_ids[i % 3]), timeout=30)
        except grpc.RpcError as exc:
            return exc.code()
        return grpc.StatusCode.OK

    futures = [pool.submit(call, i) for i in range(count)]
    pool.shutdown(wait=False)
    return futures


@pytest.mark.slow
def test_sigterm_mid_match_then_restart(
    database_url, fresh_schema, ledger, matchmaking, tmp_path
) -> None:
    env = engine_env(
        database_url,
        fresh_schema,
        ledger=ledger.address,
        matchmaking=matchmaking.address,
        HEBEI_DRAIN_SECONDS="0.5",
        HEBEI_GRACE_SECONDS="10",
        HEBEI_TABLE_READY_SECONDS="60",
        HEBEI_TABLE_REJOIN_SECONDS="60",
    )
    engine = EngineProcess(env, tmp_path / "engine.log")
    engine.start()
    seats = None
    try:
        channel = grpc.insecure_channel(engine.address)
        stub = table_pb2_grpc.TableServiceStub(channel)
        match_ids = open_matches(stub, 3, first_seed=70)
        seats = Seats(engine.address, match_ids, person=(match_ids[0], 0))
        assert wait_for(lambda: mid_match(stub, match_ids), timeout=90, step=0.05)
        channel.close()

        in_flight = calls_in_flight(engine.address, match_ids, 100)
        time.sleep(0.05)
        stopped_at = time.monotonic()
        assert engine.terminate(timeout=60) == 0
        assert time.monotonic() - stopped_at < 30  # drain 0.5 s + the calls' grace
        codes = [f.result(timeout=60) for f in in_flight]
        # In flight: answered; arriving after the stop: UNAVAILABLE. Never cut off.
        assert set(codes) <= {grpc.StatusCode.OK, grpc.StatusCode.UNAVAILABLE}, codes
        assert codes.count(grpc.StatusCode.OK) > 0
        assert "Traceback" not in engine.log()

        engine.start()
        seats.join()
        seats.check_finished()
        assert seats.person.reconnects >= 1  # hebei play joined again by itself
        assert sum(r.reconnects for r in seats.results) >= len(seats.results)
        channel = grpc.insecure_channel(engine.address)
        stub = table_pb2_grpc.TableServiceStub(channel)
        store = EventStore.open(database_url, fresh_schema)
        try:
            for match_id in match_ids:
                events = stored_events(store, match_id)
                assert "match_dissolved" not in {e["type"] for e in events}
                check_played_by_the_players(events, get(stub, match_id), ledger)
        finally:
            store.close()
        assert ledger_audit(ledger).ok
        channel.close()
    finally:
        if seats is not None:
            for session in seats.sessions:
                session.stop.set()
        engine.stop()
    assert "Traceback" not in engine.log()


@pytest.mark.slow
def test_postgres_down_for_ten_seconds_mid_match(private_postgres, start_engine, ledger) -> None:
    running = start_engine(database_url=private_postgres.url, ready_seconds=60)
    resumed_before = metrics.MATCHES_RESUMED.labels("takeover")._value.get()
    match_ids = open_matches(running.stub, 3, first_seed=90)
    address = f"127.0.0.1:{running.server.port}"
    seats = Seats(address, match_ids, person=None)
    try:
        assert wait_for(lambda: mid_match(running.stub, match_ids), timeout=90, step=0.05)
        private_postgres.stop("fast")
        down_at = time.monotonic()
        time.sleep(10)
        # Meanwhile the engine, which cannot confirm it owns the matches, serves none of them
        # (a replica that lost its shards writes nothing more) and told the seats nothing new.
        for match_id in match_ids:
            with pytest.raises(grpc.RpcError) as refused:
                get(running.stub, match_id)
            assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
            assert "being taken over" in refused.value.details()
        assert not running.engine.host.shards
        private_postgres.start()
        assert time.monotonic() - down_at >= 10
        seats.join()
        seats.check_finished()
    finally:
        for session in seats.sessions:
            session.stop.set()
    # Its shards taken back after the takeover grace, every match resumed from its log.
    assert metrics.MATCHES_RESUMED.labels("takeover")._value.get() >= resumed_before + 3
    store = running.engine.store
    for match_id in match_ids:
        assert wait_for(lambda m=match_id: stored_events(store, m)[-1]["type"] == "match_end")
        check_played_by_the_players(
            stored_events(store, match_id), get(running.stub, match_id), ledger
        )
