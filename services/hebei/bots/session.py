"""The seat-session runner: plays one seat of one match over the table engine's Play stream.

It joins with the seat token (asking only for the observations it must act on), then answers
every Observation that carries legal actions with the policy's choice, echoing its
``decision_id``, until the match ends. Decisions travel on the stream (one message each way),
never as a Celery task each.

Every session of a process runs on one asyncio event loop in one thread (:class:`SeatLoop`),
and the sessions playing on one engine share one router (:class:`AsyncMatchRouter`, one per
ticket target and TLS settings), so one channel per engine replica: a decision is received,
decided and answered by that thread, with no hand-over between threads (a fleet process plays
dozens of seats; a thread each made them queue for the interpreter lock behind each other's
decisions). :meth:`SeatSession.run` may be called from any thread (a Celery task's): it
waits for the session to end on the loop.

The ticket's target names the engine's replicas (one address or a comma list, the router's
entries); each match has one owner replica at a time. A stream opens where the router sends it
(``stream_channel``: the match's known owner, else an entry); its first message tells the
router that replica serves the match (``note_served``); its failure is handed to
``note_failure``. The waits between joins are the router's
:class:`~hebei.common.routing.RejoinSchedule`, as a person's seat's: a replica that does not (or
no longer) own the match refuses the stream naming the owner: the session joins there at once
(at most :data:`~hebei.common.routing.MAX_HOPS` such hops in a row); a takeover still under way
("try again", or the named owner out of reach) is asked again every 0.25 s (jittered) for at
most the router's deadline, so the seat is back within ~0.3 s of the new owner serving it;
anything else (a replica out of reach, the engine away) waits the :class:`Backoff`, the router
moving the match to the next entry. A rejoin after a takeover is the same Join (same token,
same seat) as after an engine restart.

Joins are paced: a process has at most :data:`MAX_JOINING` Play streams to one engine replica
waiting for their Join to be answered (the engine's first message), so a round of 64 tables
starting at once does not open 128 unanswered streams from one address, which the engine
refuses beyond its per-address bound (``HEBEI_TABLE_MAX_STREAMS_PER_PEER``, 32: up to four
worker processes on one host stay within it).

Failures:

- the replica refuses the match naming its owner: join the owner at once;
- the match is being taken over: join again every 0.25 s until the new owner serves it;
- the stream drops or the engine restarts (UNAVAILABLE, a closed stream...): join again with
  backoff (starting over from the first delay after a stream that worked); a stopping engine
  ends the stream with UNAVAILABLE on purpose ("reconnect"): the seat is not auto-played for
  that, and the match resumes when the engine is back; after a drop of our own the engine
  auto-plays the seat meanwhile and hands it back on the new join, and the still-open
  decision is answered again (the engine refuses a stale one);
- the engine auto-played the seat after a timeout: send TAKE_OVER and play on;
- a wrong token, an unknown match or a dissolved one: stop, reported as ``refused``;
- another stream joined the seat (ABORTED) or the seat's lease was lost: stop at once,
  so a seat is never played by two sessions (see :mod:`hebei.bots.lease`).
"""

from __future__ import annotations

import asyncio
import enum
import logging
import threading
import time
import weakref
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

import grpc
import grpc.aio

from hebei.bots import metrics
from hebei.bots.lease import LeaseLost, SeatLease
from hebei.bots.policies import Policy
from hebei.common.convert import action_to_proto, observation_from_proto
from hebei.common.metrics import ClientStreamMetrics
from hebei.common.routing import AsyncMatchRouter, Route, RouteBackoff, WaitKind
from hebei.common.server import new_event_loop
from hebei.common.threads import name_os_threads
from hebei.common.tls import ClientTls
from hebei.fleet.ticket import SeatTicket
from hebei.rules.actions import PASS, Action
from hebei.rules.errors import NotationError
from hebei.rules.views import Observation
from hebei.v1 import table_pb2, table_pb2_grpc
from hebei.v1 import types_pb2 as pb

log = logging.getLogger(__name__)

CLIENT_NAME = "hebei-bot/0.1"
PLAY_METHOD = "/hebei.v1.TableService/Play"
STOP_POLL = 0.1  # seconds between looks at the stop event while a session waits
MAX_JOINING = 8  # Play streams of one event loop (a process) waiting for their Join's answer
# Not worth retrying: the seat or the match is not ours to play.
REFUSED_CODES = frozenset(
    {
        grpc.StatusCode.UNAUTHENTICATED,
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.NOT_FOUND,
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.FAILED_PRECONDITION,
    }
)


class Outcome(enum.Enum):
    FINISHED = "finished"  # the match ended
    LEASE_LOST = "lease_lost"  # another session owns the seat now
    SUPERSEDED = "superseded"  # another stream joined the seat
    REFUSED = "refused"  # wrong token, unknown or dissolved match
    GAVE_UP = "gave_up"  # the engine stayed unreachable
    STOPPED = "stopped"  # asked to stop (worker shutdown)


@dataclass
class SessionResult:
    outcome: Outcome
    decisions: int = 0
    reconnects: int = 0
    rejected: int = 0
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome.value,
            "decisions": self.decisions,
            "reconnects": self.reconnects,
            "rejected": self.rejected,
            "detail": self.detail,
        }


@dataclass(frozen=True, slots=True)
class Backoff:
    """Reconnect delays that are not a takeover's: ``first`` doubling up to ``cap`` while the
    engine stays away (the count starts over after a stream that delivered something); give up
    after ``give_up`` seconds without a single message from the engine."""

    first: float = 0.1
    cap: float = 5.0
    give_up: float = 120.0

    def growing(self) -> RouteBackoff:
        """The doubling part, as a :class:`~hebei.common.routing.RejoinSchedule` takes it."""
        return RouteBackoff(self.first, self.cap, jitter=0.0)


@dataclass
class _Stream:
    """State of one Play stream."""

    served: bool = False  # the replica answered: it serves the match
    answered: int = 0  # decision id answered on this stream
    took_over_at: int = -1  # decision id when TAKE_OVER was last sent
    current: pb.Observation | None = None


_join_gates: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Semaphore]]
_join_gates = weakref.WeakKeyDictionary()


def join_gate(target: str) -> asyncio.Semaphore:
    """The running event loop's gate of streams joining the engine at ``target``
    (:data:`MAX_JOINING` at once; an engine that never answers holds up only its own)."""
    gates = _join_gates.setdefault(asyncio.get_running_loop(), {})
    gate = gates.get(target)
    if gate is None:
        gate = gates[target] = asyncio.Semaphore(MAX_JOINING)
    return gate


class SeatLoop:
    """The event loop of this process's seat sessions (:func:`new_event_loop`), in a daemon
    thread, with one router per engine (its replica addresses and TLS settings) shared by
    every session playing there."""

    def __init__(self) -> None:
        self.loop = new_event_loop()
        self._routers: dict[tuple[tuple[str, ...], Any], AsyncMatchRouter] = {}
        self._thread = threading.Thread(target=self._run, name="bot-seats")
        self._thread.daemon = True
        self._thread.start()

    def _run(self) -> None:
        name_os_threads()
        self.loop.run_forever()

    def run(self, coroutine: Coroutine[Any, Any, Any]) -> Any:
        """Run ``coroutine`` on the loop and wait for its result (from another thread)."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()

    def router(self, entries: tuple[str, ...], tls: bool | ClientTls | None) -> AsyncMatchRouter:
        """The shared router over the engine replicas ``entries`` (on the loop's thread)."""
        key = (entries, tls)
        router = self._routers.get(key)
        if router is None:
            router = self._routers[key] = AsyncMatchRouter(entries, self._channel_factory(tls))
        return router

    @staticmethod
    def _channel_factory(tls: bool | ClientTls | None) -> Callable[[str], grpc.aio.Channel]:
        from hebei.common.client import create_aio_channel

        def channel(address: str) -> grpc.aio.Channel:
            made = create_aio_channel(address, tls=tls)
            name_os_threads()  # gRPC's asyncio poller, started with the first channel
            return made

        return channel


_loops: list[SeatLoop] = []
_loops_lock = threading.Lock()


def seat_loop() -> SeatLoop:
    """This process's :class:`SeatLoop` (started on first use)."""
    with _loops_lock:
        if not _loops:
            _loops.append(SeatLoop())
        return _loops[0]


class SeatSession:
    """Plays ``ticket``'s seat with ``policy`` until the match ends (see the module doc).

    ``tls``: the worker's TLS settings (:attr:`hebei.bots.config.BotsConfig.client_tls`); when
    given they are used whatever the ticket says, else the ticket's flag chooses TLS with the
    system's roots or plaintext. ``channel_factory`` (tests): the session's own router over
    channels it makes (one per replica address, closed at the session's end), instead of the
    shared one."""

    def __init__(
        self,
        ticket: SeatTicket,
        policy: Policy,
        *,
        lease: SeatLease | None = None,
        stop: threading.Event | None = None,
        backoff: Backoff = Backoff(),
        channel_factory: Callable[[str], Any] | None = None,
        tls: ClientTls | None = None,
    ) -> None:
        self.ticket = ticket
        self.policy = policy
        self.lease = lease
        self.stop = stop or threading.Event()
        self.backoff = backoff
        self._credentials = tls if tls is not None else ticket.tls
        self._channel_factory = channel_factory
        self._own_router: AsyncMatchRouter | None = None
        self._address = ""  # where the last stream went
        self.result = SessionResult(Outcome.STOPPED)
        self._decision_seconds = metrics.DECISION_SECONDS.labels(policy.name)
        self._decision_cpu = metrics.DECISION_CPU_SECONDS.labels(policy.name)
        self._progress = time.monotonic()

    def run(self) -> SessionResult:
        """Play until the match ends, the seat is lost or the engine stays away (on the
        process's :class:`SeatLoop`; this thread waits)."""
        return seat_loop().run(self.play())

    async def play(self) -> SessionResult:
        """:meth:`run` on the running event loop."""
        result = self.result
        schedule = self.router().rejoin_schedule(self.backoff.growing())
        active = metrics.SESSIONS_ACTIVE.labels(self.policy.name)
        active.inc()
        try:
            while not self.stop.is_set():
                if self.lease is not None and not self.lease.held:
                    result.outcome, result.detail = Outcome.LEASE_LOST, "lease expired"
                    break
                started = time.monotonic()
                error: grpc.RpcError | None = None
                try:
                    if await self._play_stream():
                        result.outcome = Outcome.FINISHED
                        break
                    detail = "the engine closed the stream"
                except LeaseLost as exc:
                    result.outcome, result.detail = Outcome.LEASE_LOST, str(exc)
                    break
                except grpc.RpcError as exc:
                    code, detail = exc.code(), exc.details() or ""
                    if code in REFUSED_CODES:
                        result.outcome, result.detail = Outcome.REFUSED, f"{code.name}: {detail}"
                        break
                    if code is grpc.StatusCode.ABORTED and self.lease is None:
                        result.outcome, result.detail = Outcome.SUPERSEDED, detail
                        break
                    error, detail = exc, f"{code.name}: {detail}"
                if time.monotonic() - self._progress > self.backoff.give_up:
                    result.outcome, result.detail = Outcome.GAVE_UP, detail
                    break
                if self._progress >= started:
                    schedule.served()  # that stream worked: the engine is back, start over
                result.reconnects += 1
                metrics.RECONNECTS.inc()
                wait = schedule.after(error, self._address)
                log.info(
                    "seat %s of %s: %s; joining %s",
                    self.ticket.seat,
                    self.ticket.match_id,
                    detail,
                    "its owner" if wait.kind is WaitKind.REDIRECT else f"again ({wait.kind})",
                )
                if wait.seconds and await self._backoff_wait(wait.seconds):
                    break
        finally:
            active.dec()
            if self._own_router is not None:
                await self._own_router.close()
                self._own_router = None
        if result.outcome is not Outcome.FINISHED:
            metrics.FAILURES.labels(result.outcome.value).inc()
        return result

    async def _backoff_wait(self, seconds: float) -> bool:
        """Wait before joining again (True: asked to stop meanwhile)."""
        return await self._wait_stop(seconds)

    async def _wait_stop(self, seconds: float) -> bool:
        """Wait ``seconds`` unless asked to stop; True if asked."""
        deadline = time.monotonic() + seconds
        while not self.stop.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            await asyncio.sleep(min(left, STOP_POLL))
        return True

    # ------------------------------------------------------------------ one stream

    def router(self) -> AsyncMatchRouter:
        """The router the session's streams go by (on the seat loop)."""
        if self._channel_factory is None:
            return seat_loop().router(self.ticket.entries, self._credentials)
        if self._own_router is None:
            self._own_router = AsyncMatchRouter(self.ticket.entries, self._channel_factory)
        return self._own_router

    async def _play_stream(self) -> bool:
        """One Play stream from join to its end; True when the match finished. Its first
        message tells the router the replica serves the match; its failure goes to the
        router's ``note_failure`` before it is raised."""
        stream = _Stream()
        router = self.router()
        route: Route[Any] = router.stream_channel(self.ticket.match_id)
        self._address = route.address
        calls = ClientStreamMetrics(PLAY_METHOD)
        code = grpc.StatusCode.CANCELLED
        gate = join_gate(route.address)
        joining = False  # holding the gate: from the call's start to the engine's first message
        call = None  # started once the gate lets it (the engine counts it from its start)
        try:
            await gate.acquire()
            joining = True
            call = table_pb2_grpc.TableServiceStub(route.channel).Play()
            await self._send(call, calls, self._join())
            while True:
                response = await call.read()
                if joining:
                    joining = False
                    gate.release()
                if response is grpc.aio.EOF:
                    code = grpc.StatusCode.OK
                    return False
                if not stream.served:
                    stream.served = True
                    router.note_served(self.ticket.match_id, route.address)
                calls.received()
                self._progress = time.monotonic()
                if self.stop.is_set():
                    return False
                if response.HasField("rejected"):
                    self._rejected(stream, response.rejected)
                    continue
                obs = response.observation
                if obs.match_finished:
                    code = grpc.StatusCode.OK
                    return True
                stream.current = obs
                if self._take_over_if_auto(stream, obs):
                    await self._send(call, calls, TAKE_OVER)
                    continue
                if obs.legal_actions and obs.decision_id and obs.decision_id != stream.answered:
                    answer = await self._answer(stream, obs)
                    if answer is not None:
                        await self._send(call, calls, answer)
        except grpc.RpcError as exc:
            code = exc.code()
            router.note_failure(self.ticket.match_id, exc, route.address)
            raise
        finally:
            if joining:
                gate.release()
            calls.finished(code)
            if call is not None:
                call.cancel()

    @staticmethod
    async def _send(call: Any, calls: ClientStreamMetrics, request: Any) -> None:
        """Write ``request``; a call the engine has already ended is left to the next read,
        which returns its end or raises its status (a write would only say "finished")."""
        try:
            await call.write(request)
        except asyncio.InvalidStateError:
            return
        calls.sent()

    def _join(self) -> table_pb2.PlayRequest:
        ticket = self.ticket
        return table_pb2.PlayRequest(
            join=table_pb2.Join(
                match_id=ticket.match_id,
                seat=ticket.seat,
                seat_token=ticket.seat_token,
                client_name=f"{CLIENT_NAME} {self.policy.name}",
                decisions_only=True,  # a bot reads nothing but its decisions
                bot=True,  # in a person's seat, shown as a filler, never as the person
            )
        )

    def _take_over_if_auto(self, stream: _Stream, obs: pb.Observation) -> bool:
        """The engine auto-plays this seat (it was late): True when the seat should ask for
        it back (once per decision)."""
        if obs.seat >= len(obs.seats) or not obs.seats[obs.seat].auto_played:
            return False
        if stream.took_over_at == obs.decision_id:
            return False
        stream.took_over_at = obs.decision_id
        return True

    async def _answer(self, stream: _Stream, obs: pb.Observation) -> table_pb2.PlayRequest | None:
        """The answer to ``obs``'s decision (None: none to send). The lease records it before
        it leaves; without a pace, the record's round trip to Redis overlaps with the
        policy's thinking."""
        stream.answered = obs.decision_id
        try:
            view = observation_from_proto(obs)
        except NotationError as exc:
            log.warning("seat %s: unreadable observation: %s", self.ticket.seat, exc)
            metrics.FAILURES.labels("bad_observation").inc()
            return None  # the engine auto-plays it at the deadline
        recording = None
        if self.lease is not None and not self.ticket.pace:
            # The record leaves now, the policy thinks meanwhile.
            recording = await self.lease.send_record(obs.decision_id)
        try:
            started, cpu = time.perf_counter(), time.thread_time()
            action = self._choose(view, obs.decision_id)
            took = time.perf_counter() - started
            self._decision_cpu.inc(time.thread_time() - cpu)
            self._decision_seconds.observe(took)
            if self.ticket.pace > took and await self._wait_stop(self.ticket.pace - took):
                return None
            if recording is not None:
                await recording
            elif self.lease is not None:
                await self.lease.arecord(obs.decision_id)
        finally:
            if recording is not None and not recording.done():
                recording.cancel()
        self.result.decisions += 1
        return table_pb2.PlayRequest(action=action_to_proto(action, obs.decision_id))

    def _choose(self, view: Observation, decision_id: int) -> Action:
        """The policy's choice, or a safe legal action when it fails or errs."""
        try:
            action = self.policy.choose(view)
        except Exception:  # a policy bug must not cost the seat: play on with a safe action
            log.exception("policy %s failed on decision %s", self.policy.name, decision_id)
            metrics.FAILURES.labels("policy_error").inc()
            action = None
        if action not in view.legal_actions:
            if action is not None:
                log.error("policy %s chose an illegal %s", self.policy.name, action)
            action = PASS if PASS in view.legal_actions else view.legal_actions[-1]
        return action

    def _rejected(self, stream: _Stream, rejected: table_pb2.ActionRejected) -> None:
        self.result.rejected += 1
        metrics.ACTIONS_REJECTED.labels(rejected.code or "UNKNOWN").inc()
        log.info(
            "seat %s: action for decision %s refused: %s %s",
            self.ticket.seat,
            rejected.decision_id,
            rejected.code,
            rejected.message,
        )
        current = stream.current
        if current is not None and rejected.decision_id == current.decision_id:
            # Still open (e.g. the seat was auto-played a moment): try again on the next
            # observation rather than leaving the decision to the deadline.
            stream.answered = 0


TAKE_OVER = table_pb2.PlayRequest(action=pb.Action(kind=pb.ACTION_KIND_TAKE_OVER))
