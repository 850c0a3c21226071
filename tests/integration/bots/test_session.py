"""The seat-session runner against a real table engine: refusals, a second stream on the seat,
taking the seat back after the engine auto-played it."""

from __future__ import annotations

import asyncio
import threading
import time

import grpc
import pytest

import hebei.bots.session
from hebei.bots.policies import make_policy
from hebei.bots.session import Backoff, Outcome, SeatSession
from hebei.fleet.ticket import SeatTicket
from hebei.v1 import table_pb2
from hebei.v1 import types_pb2 as pb
from tests.integration.bots.conftest import Engine, open_bot_match, token_of


def ticket(engine: Engine, match_id: str, seat: int, **kwargs) -> SeatTicket:
    token = kwargs.pop("token", token_of(match_id, seat))
    return SeatTicket(engine.address, match_id, seat, token, **kwargs)


def session(t: SeatTicket, policy: str = "efficiency") -> SeatSession:
    return SeatSession(t, make_policy(policy, seed=t.seat), backoff=Backoff(give_up=10))


def run_all(sessions: list[SeatSession]) -> list:
    results: list = [None] * len(sessions)
    threads = [
        threading.Thread(target=lambda i=i, s=s: results.__setitem__(i, s.run()))
        for i, s in enumerate(sessions)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    return results


def test_a_wrong_token_or_an_unknown_match_is_refused(engine: Engine) -> None:
    match_id = open_bot_match(engine, hands=1, seed=1, per_decision=2.0)
    wrong = session(ticket(engine, match_id, 0, token="not-the-token")).run()
    assert wrong.outcome is Outcome.REFUSED and "UNAUTHENTICATED" in wrong.detail
    unknown = session(ticket(engine, "no-such-match", 0, token="x")).run()
    assert unknown.outcome is Outcome.REFUSED and "NOT_FOUND" in unknown.detail


def test_four_sessions_play_a_match_and_take_back_seats_after_timeouts(engine: Engine) -> None:
    """Seat 3 is slower than its time allowance: the engine auto-plays it on each timeout,
    and the session sends TAKE_OVER and plays on."""
    match_id = open_bot_match(engine, hands=1, seed=3, per_decision=0.25)
    sessions = [session(ticket(engine, match_id, s)) for s in range(3)]
    slow = SeatSession(
        ticket(engine, match_id, 3, pace=0.35), make_policy("expert", seed=3), backoff=Backoff()
    )
    results = run_all([*sessions, slow])
    assert [r.outcome for r in results] == [Outcome.FINISHED] * 4
    events = engine.events(match_id)
    timeouts = [e for e in events if e.type == pb.EVENT_TYPE_SEAT_AUTO and e.seat == 3]
    take_overs = [e for e in events if e.type == pb.EVENT_TYPE_SEAT_RESUMED and e.seat == 3]
    assert timeouts and all(e.reason == "timeout" for e in timeouts)
    assert len(take_overs) >= len(timeouts) - 1  # every timeout but maybe the last taken back
    assert engine.match(match_id).status == pb.MATCH_STATUS_FINISHED


@pytest.mark.parametrize("engine", [{"max_streams_per_peer": 2}], indirect=True)
def test_many_seats_joining_at_once_stay_within_the_engine_s_bound_per_address(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A round of tables starting together: one process's sessions keep at most MAX_JOINING
    joins to an engine unanswered, so an engine allowing that many per address refuses none
    of them (with every session joining at once it refused some, and their seats reconnected)."""
    monkeypatch.setattr(hebei.bots.session, "MAX_JOINING", 2)  # the engine's bound above
    matches = [open_bot_match(engine, hands=1, seed=40 + n, per_decision=5.0) for n in range(8)]
    sessions = [session(ticket(engine, m, s), "random") for m in matches for s in range(4)]
    results = run_all(sessions)
    assert [r.outcome for r in results] == [Outcome.FINISHED] * len(sessions)
    assert sum(r.reconnects for r in results) == 0, [r.detail for r in results if r.reconnects]


def test_a_second_stream_on_the_seat_supersedes_the_first(engine: Engine) -> None:
    match_id = open_bot_match(engine, hands=1, seed=4, per_decision=2.0)
    first = session(ticket(engine, match_id, 0))
    done = threading.Event()
    outcome = {}

    def run_first() -> None:
        outcome["first"] = first.run()
        done.set()

    threading.Thread(target=run_first, daemon=True).start()
    channel = grpc.insecure_channel(engine.address)
    try:
        engine.wait_for(match_id, lambda info: info.seats[0].connected, timeout=10)
        second = session(ticket(engine, match_id, 0))
        others = [session(ticket(engine, match_id, s)) for s in (1, 2, 3)]
        results = run_all([second, *others])
    finally:
        channel.close()
    assert done.wait(10)
    assert outcome["first"].outcome is Outcome.SUPERSEDED
    assert [r.outcome for r in results] == [Outcome.FINISHED] * 4


class BrokenPolicy:
    """A policy with a bug: raises on every decision."""

    name = "broken"
    level = 1

    def choose(self, obs):
        raise RuntimeError("bug")


def test_a_failing_policy_does_not_cost_the_seat(engine: Engine) -> None:
    from hebei.bots import metrics

    before = metrics.FAILURES.labels("policy_error")._value.get()
    match_id = open_bot_match(engine, hands=1, seed=8, per_decision=2.0)
    broken = SeatSession(ticket(engine, match_id, 0), BrokenPolicy(), backoff=Backoff())
    others = [session(ticket(engine, match_id, s)) for s in (1, 2, 3)]
    results = run_all([broken, *others])
    assert [r.outcome for r in results] == [Outcome.FINISHED] * 4
    assert results[0].decisions > 0  # answered with a safe fallback, never left to time out
    assert metrics.FAILURES.labels("policy_error")._value.get() - before == results[0].decisions
    auto = [e for e in engine.events(match_id) if e.type == pb.EVENT_TYPE_SEAT_AUTO]
    assert not auto


class Dropped(grpc.RpcError):
    """The end of a stream the engine closed: UNAVAILABLE, "reconnect"."""

    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.UNAVAILABLE

    def details(self) -> str:
        return "the table engine is stopping: reconnect"


class FlakyChannel:
    """Each Play stream delivers ``messages`` observations (none when 0), then drops;
    ``ended``: the call has already ended when the session first writes to it."""

    def __init__(self, messages: int, ended: bool = False) -> None:
        self.messages = messages
        self.ended = ended

    def stream_stream(self, *args, **kwargs):
        def call():
            return FlakyCall(self.messages, self.ended)

        return call

    def unary_unary(self, *args, **kwargs):
        return None  # the stub makes every method; the session only opens Play

    unary_stream = unary_unary

    async def close(self) -> None:
        pass


class FlakyCall:
    def __init__(self, messages: int, ended: bool = False) -> None:
        self.left = messages
        self.ended = ended

    async def write(self, request) -> None:
        if self.ended:  # what grpc.aio says when the engine has already closed the call
            raise asyncio.InvalidStateError("RPC already finished.")

    async def read(self):
        if self.left:
            self.left -= 1
            return table_pb2.PlayResponse(observation=pb.Observation(seat=0))
        raise Dropped()

    def cancel(self) -> None:
        pass


class CountingSession(SeatSession):
    """Records each reconnect delay instead of waiting it; stops after ``rounds`` of them."""

    def __init__(self, *args, rounds: int, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.rounds = rounds
        self.delays: list[float] = []

    async def _backoff_wait(self, seconds: float) -> bool:
        self.delays.append(seconds)
        if len(self.delays) >= self.rounds:
            self.stop.set()
        return self.stop.is_set()


def flaky_session(messages: int, rounds: int, ended: bool = False) -> CountingSession:
    t = SeatTicket("engine:1", "m1", 0, "token-0-0123456789abcdef")
    return CountingSession(
        t,
        make_policy("random", seed=1),
        rounds=rounds,
        backoff=Backoff(first=0.1, cap=5.0),
        channel_factory=lambda target: FlakyChannel(messages, ended),
    )


class TimedPolicy:
    """Plays its last legal action after ``seconds`` of thread CPU (busy) or of sleep."""

    level = 1

    def __init__(self, name: str, seconds: float, busy: bool) -> None:
        self.name, self.seconds, self.busy = name, seconds, busy

    def choose(self, obs):
        if self.busy:
            until = time.thread_time() + self.seconds
            while time.thread_time() < until:
                pass
        else:
            time.sleep(self.seconds)
        return obs.legal_actions[-1]


def test_a_policy_s_cpu_is_counted_apart_from_the_wait(engine: Engine) -> None:
    """``hebei_bot_decision_cpu_seconds``: the seat loop thread's CPU in the policy (what the
    stack bench reports per hand as thinking); a policy that waits costs none of it."""
    from hebei.bots import metrics

    match_id = open_bot_match(engine, hands=1, seed=5, per_decision=2.0)
    busy = SeatSession(
        ticket(engine, match_id, 0), TimedPolicy("busy-test", 0.004, True), backoff=Backoff()
    )
    idle = SeatSession(
        ticket(engine, match_id, 1), TimedPolicy("idle-test", 0.004, False), backoff=Backoff()
    )
    others = [session(ticket(engine, match_id, s)) for s in (2, 3)]
    results = run_all([busy, idle, *others])
    assert [r.outcome for r in results] == [Outcome.FINISHED] * 4
    busy_cpu = metrics.DECISION_CPU_SECONDS.labels("busy-test")._value.get()
    idle_cpu = metrics.DECISION_CPU_SECONDS.labels("idle-test")._value.get()
    idle_wall = metrics.DECISION_SECONDS.labels("idle-test")._sum.get()
    assert results[0].decisions > 5 and results[1].decisions > 5
    assert busy_cpu >= 0.004 * results[0].decisions
    assert idle_wall >= 0.004 * results[1].decisions
    assert idle_cpu < 0.001 * results[1].decisions


def test_the_reconnect_delay_starts_over_after_a_stream_that_worked() -> None:
    """It used to keep doubling: after six reconnects every later one waited 5 s, longer
    than a bot's time to decide."""
    session = flaky_session(messages=1, rounds=10)
    result = session.run()
    assert result.outcome is Outcome.STOPPED and result.reconnects == 10
    assert session.delays == [0.1] * 10


def test_the_reconnect_delay_grows_while_the_engine_stays_away() -> None:
    session = flaky_session(messages=0, rounds=8)
    session.run()
    assert session.delays == [0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 5.0, 5.0]


def test_a_write_to_a_call_the_engine_ended_means_joining_again() -> None:
    """A SIGTERM-drained engine ends the stream while the bot answers: the write used to
    raise out of the session (InvalidStateError), losing the seat instead of rejoining."""
    session = flaky_session(messages=0, rounds=3, ended=True)
    result = session.run()
    assert result.outcome is Outcome.STOPPED and result.reconnects == 3
