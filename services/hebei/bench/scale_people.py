"""The scripted people of ``hebei bench scale``: person seats played from the bench process as
asyncio Play streams (``grpc.aio``, every seat on one event loop in a thread of its own), each
answering every decision after the pace ± a seeded jitter with a simple legal choice (a win
when offered, else a pass, else the first legal discard, else the first legal action), and
timing the seat round trip as the person feels it.

A seat joins as a person's client does (``hebei play``, the web gateway): with the seat token of
its ``SeatAssignment``, not ``decisions_only`` (it gets an observation after every change it may
see) and not as a bot. Its stream opens where the :class:`~hebei.common.routing.AsyncMatchRouter`
sends it (the match's owner among the engine's replicas); a refusal naming the owner is joined
there at once, any other UNAVAILABLE after a short backoff. At most :data:`MAX_JOINING` streams
of the loop wait for their Join's answer at once: the engine refuses more than 32 unanswered
streams from one client address (``HEBEI_TABLE_MAX_STREAMS_PER_PEER``), and every scripted
person comes from this one process.

The round trip (:class:`RoundTrips`): from the action leaving the client to the first message
that answers it, an observation no longer showing the decision (the engine applied the action,
wrote its events and told the seat) or a refusal. Three kinds, kept apart:

- ``claim``: an answer to a discard (or an added kong) on offer. The scripted pace (about 2 s)
  is longer than the engine's bot pace (0.8 s, the discard's hold), so the claims are open and
  the answer settles them: the next observation comes at once.
- ``discard``: a discard (or an added kong) on the seat's own turn. At a table with people the
  engine holds whatever follows it for the bot pace, and the discarder hears nothing
  meanwhile: its next observation comes a pace later by design. Where the other seats are
  bots (their claims are answered within that pace) the bench subtracts the pace
  (:func:`beyond_hold`): what is left is the engine's own delay, as for the others. Where
  other people may claim, what follows also waits for their answers (a pace of theirs): such
  samples time the people, not the engine, and are kept out of the round trip.
- ``turn``: another action on the seat's turn (a self-drawn win, a concealed kong): answered
  at once.

Samples count only while the recorder is measuring (:attr:`RoundTrips.measuring`); a sample
whose answer is then refused is dropped (the decision had closed meanwhile).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import random
import threading
import time
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
import grpc.aio

from hebei.common.routing import MAX_HOPS, AsyncMatchRouter, is_refusal, owner_of
from hebei.common.server import new_event_loop
from hebei.v1 import table_pb2, table_pb2_grpc
from hebei.v1 import types_pb2 as pb

__all__ = [
    "CLAIM",
    "DISCARD",
    "JITTER_FRACTION",
    "KINDS",
    "TURN",
    "PeopleLoop",
    "PersonSeat",
    "RoundTrips",
    "beyond_hold",
    "choose",
    "kind_of",
    "percentile",
    "think_seconds",
]

CLIENT_NAME = "hebei-bench-scale/0.1"
CLAIM, DISCARD, TURN = "claim", "discard", "turn"
KINDS = (CLAIM, DISCARD, TURN)
CLAIM_PHASES = frozenset({pb.PHASE_CLAIM, pb.PHASE_ROB_KONG})
HELD_ACTIONS = frozenset({pb.ACTION_KIND_DISCARD, pb.ACTION_KIND_ADDED_KONG})
JITTER_FRACTION = 0.25  # each answer after pace × (1 ± up to this): 1.5-2.5 s at a pace of 2 s
MAX_JOINING = 8  # streams of the loop waiting for their Join's answer at once
RETRY_DELAY = 0.2  # seconds before joining again after an UNAVAILABLE that names no owner
GIVE_UP_SECONDS = 60.0  # without a message from the engine: the seat is given up (an error)
MAX_SAMPLES = 2_000_000  # round trips kept (16 bytes each with their time: 32 MB at most)


def percentile(samples: Sequence[float], q: float) -> float | None:
    """The ``q`` quantile (0-1) of ``samples`` by the nearest-rank method (None without
    samples): the smallest sample with at least ``q`` of all at or below it."""
    if not samples:
        return None
    if not 0 <= q <= 1:
        raise ValueError(f"q must be 0-1, got {q}")
    ordered = sorted(samples)
    rank = max(1, -(-q * len(ordered) // 1))  # ceil(q * n), at least the first
    return ordered[int(rank) - 1]


def think_seconds(pace: float, rng: random.Random, jitter: float = JITTER_FRACTION) -> float:
    """How long a scripted person thinks over one decision: ``pace`` × (1 ± ``jitter``),
    uniform, drawn from ``rng`` (the seat's own, seeded)."""
    return pace * (1.0 + jitter * (2.0 * rng.random() - 1.0))


def kind_of(phase: int, action: pb.Action) -> str:
    """Which kind of round trip an answer in ``phase`` with ``action`` is (module docstring)."""
    if phase in CLAIM_PHASES:
        return CLAIM
    return DISCARD if action.kind in HELD_ACTIONS else TURN


def beyond_hold(
    samples: dict[str, list[float]], hold: float, *, discards: bool = True
) -> list[float]:
    """Every round trip, the discards' less the engine's ``hold`` after a discard (the bot
    pace): the engine's own delay as the person feels it. ``discards=False``: without the
    discards (other people at the table may claim them: module docstring)."""
    held = samples.get(DISCARD, []) if discards else []
    return [
        *samples.get(CLAIM, []),
        *samples.get(TURN, []),
        *(max(0.0, seconds - hold) for seconds in held),
    ]


def choose(legal: Sequence[pb.Action]) -> pb.Action:
    """The scripted person's answer: a win when offered, else a pass, else the first legal
    discard, else the first legal action (never empty: a decision has legal actions)."""
    for kind in (pb.ACTION_KIND_WIN, pb.ACTION_KIND_PASS, pb.ACTION_KIND_DISCARD):
        for action in legal:
            if action.kind == kind:
                return action
    return legal[0]


@dataclass
class RoundTrips:
    """The scripted people's round trips and troubles, shared by every seat of the loop (only
    the loop's thread writes; read once the seats are stopped, or as a snapshot)."""

    samples: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in KINDS})
    measuring: bool = False  # samples count only meanwhile
    decisions: int = 0  # answered while measuring
    rejected: int = 0  # answers the engine refused (any time)
    auto_played: int = 0  # observations showing a scripted seat auto-played (any time)
    reconnects: int = 0  # streams joined again after an UNAVAILABLE (redirects excepted)
    redirects: int = (
        0  # streams a replica refused: it does not serve the match (the router's course)
    )
    failed: list[str] = field(default_factory=list)  # seats whose stream ended with an error
    joined: set[tuple[str, int]] = field(default_factory=set)  # seats the engine answered
    finished: int = 0  # seats whose match ended

    def add(self, kind: str, seconds: float) -> None:
        if self.measuring and len(self.samples[kind]) < MAX_SAMPLES:
            self.samples[kind].append(seconds)

    def errors(self) -> dict[str, int]:
        """The scripted people's errors the engine does not count: streams joined again after
        an UNAVAILABLE that was not a redirect, streams that failed for good (their refused
        actions and auto-played seats are in the engine's counters)."""
        found = {"people_reconnects": self.reconnects, "people_streams_failed": len(self.failed)}
        return {name: count for name, count in found.items() if count}


@dataclass
class _Answer:
    """An answer that left: when, and once the engine's word came, how long that took."""

    decision_id: int
    kind: str
    sent_at: float
    seconds: float | None = None


class PersonSeat:
    """One scripted person's seat: join, answer every decision at the pace, time the answers,
    until the match ends or :meth:`stop`."""

    def __init__(
        self,
        router: AsyncMatchRouter,
        match_id: str,
        seat: int,
        token: str,
        pace: float,
        rng: random.Random,
        recorder: RoundTrips,
        gate: asyncio.Semaphore,
    ) -> None:
        self.router = router
        self.match_id = match_id
        self.seat = seat
        self.token = token
        self.pace = pace
        self.rng = rng
        self.recorder = recorder
        self.gate = gate
        self._outgoing: asyncio.Queue[table_pb2.PlayRequest | None] = asyncio.Queue()
        self._thinking: asyncio.Task[None] | None = None
        self._thinking_on = 0  # the decision being thought over (0: none)
        # The answer waiting for the engine's word, and the last one timed: its sample counts
        # once the seat answers again (or its stream ends) without a refusal of it in between
        # (a refusal means the decision had closed by itself: the time was not the answer's).
        self._pending: _Answer | None = None
        self._timed: _Answer | None = None
        self._took_over_at = -1
        self._heard = time.monotonic()

    async def play(self) -> None:
        """Join and play until the match ends; a stream that fails for good is recorded in
        :attr:`RoundTrips.failed`."""
        hops = 0
        while True:
            try:
                if await self._one_stream():
                    self.recorder.finished += 1
                    return
                error_text = "the engine closed the stream"
                redirected = False
            except grpc.RpcError as error:
                code = error.code()
                if code is grpc.StatusCode.CANCELLED:
                    return  # stopped
                error_text = f"{code.name}: {error.details()}"
                if code is not grpc.StatusCode.UNAVAILABLE:
                    self._fail(error_text)
                    return
                redirected = owner_of(error) is not None
                if is_refusal(error):
                    self.recorder.redirects += 1
            if time.monotonic() - self._heard > GIVE_UP_SECONDS:
                self._fail(f"no word from the engine for {GIVE_UP_SECONDS:g} s ({error_text})")
                return
            if redirected and hops < MAX_HOPS:
                hops += 1
                continue
            hops = 0
            self.recorder.reconnects += 1
            await asyncio.sleep(RETRY_DELAY)

    def _fail(self, text: str) -> None:
        self.recorder.failed.append(f"{self.match_id} seat {self.seat}: {text}")

    async def _one_stream(self) -> bool:
        """One Play stream from its Join to its end; True when the match finished."""
        route = self.router.stream_channel(self.match_id)
        stub = table_pb2_grpc.TableServiceStub(route.channel)
        self._outgoing = asyncio.Queue()
        join = table_pb2.Join(
            match_id=self.match_id, seat=self.seat, seat_token=self.token, client_name=CLIENT_NAME
        )
        await self._outgoing.put(table_pb2.PlayRequest(join=join))
        joining = True
        await self.gate.acquire()
        call = stub.Play(self._requests())
        try:
            async for response in call:
                if joining:
                    joining = False
                    self.gate.release()
                    self.router.note_served(self.match_id, route.address)
                    self.recorder.joined.add((self.match_id, self.seat))
                self._heard = time.monotonic()
                if response.HasField("rejected"):
                    self._rejected(response.rejected)
                elif self._observe(response.observation):
                    return True
            return False
        except grpc.RpcError as error:
            self.router.note_failure(self.match_id, error, route.address)
            raise
        finally:
            if joining:
                self.gate.release()
            self._stop_thinking()
            self._commit_timed()
            self._pending = None
            await self._outgoing.put(None)
            call.cancel()

    async def _requests(self) -> Any:
        while True:
            request = await self._outgoing.get()
            if request is None:
                return
            yield request

    def _observe(self, obs: pb.Observation) -> bool:
        """Read one observation: time the answer it settles, start thinking over a new
        decision; True once the match is over."""
        pending = self._pending
        if pending is not None and obs.decision_id != pending.decision_id:
            pending.seconds = time.monotonic() - pending.sent_at
            self._commit_timed()
            self._timed, self._pending = pending, None
        if obs.match_finished:
            return True
        if obs.seat < len(obs.seats) and obs.seats[obs.seat].auto_played:
            if self._took_over_at != obs.decision_id:  # once per decision
                self._took_over_at = obs.decision_id
                self.recorder.auto_played += 1
                take_over = pb.Action(kind=pb.ACTION_KIND_TAKE_OVER)
                self._outgoing.put_nowait(table_pb2.PlayRequest(action=take_over))
            return False
        if obs.decision_id != self._thinking_on:
            self._stop_thinking()
        decided = pending is not None and pending.decision_id == obs.decision_id
        if obs.decision_id and obs.legal_actions and not self._thinking_on and not decided:
            action = choose(obs.legal_actions)
            kind = kind_of(obs.phase, action)
            self._thinking_on = obs.decision_id
            self._thinking = asyncio.get_running_loop().create_task(
                self._answer(obs.decision_id, kind, action)
            )
        return False

    async def _answer(self, decision_id: int, kind: str, action: pb.Action) -> None:
        await asyncio.sleep(think_seconds(self.pace, self.rng))
        answer = pb.Action()
        answer.CopyFrom(action)
        answer.decision_id = decision_id
        self._commit_timed()
        self._pending = _Answer(decision_id, kind, time.monotonic())
        self._thinking_on = 0
        self._thinking = None
        if self.recorder.measuring:
            self.recorder.decisions += 1
        self._outgoing.put_nowait(table_pb2.PlayRequest(action=answer))

    def _stop_thinking(self) -> None:
        if self._thinking is not None:
            self._thinking.cancel()
        self._thinking, self._thinking_on = None, 0

    def _rejected(self, rejected: table_pb2.ActionRejected) -> None:
        self.recorder.rejected += 1
        if self._pending is not None and self._pending.decision_id == rejected.decision_id:
            self._pending = None
        if self._timed is not None and self._timed.decision_id == rejected.decision_id:
            self._timed = None  # timed by the decision closing by itself: not a round trip

    def _commit_timed(self) -> None:
        timed, self._timed = self._timed, None
        if timed is not None and timed.seconds is not None:
            self.recorder.add(timed.kind, timed.seconds)


class PeopleLoop:
    """The scripted people's event loop, in a daemon thread of its own, with one router over
    the engine's replicas shared by every seat. Use from one other thread: :meth:`add` seats,
    :meth:`call` to run a coroutine on the loop, :meth:`close` at the end."""

    def __init__(self, entries: Sequence[str] | str) -> None:
        self.loop = new_event_loop()
        self.recorder = RoundTrips()
        self._thread = threading.Thread(target=self.loop.run_forever, name="scale-people")
        self._thread.daemon = True
        self._thread.start()
        self._tasks: list[asyncio.Future[None]] = []
        self.router: AsyncMatchRouter = self.call(self._make_router(entries))
        self.gate: asyncio.Semaphore = self.call(self._make_gate())

    @staticmethod
    async def _make_router(entries: Sequence[str] | str) -> AsyncMatchRouter:
        return AsyncMatchRouter(entries)

    @staticmethod
    async def _make_gate() -> asyncio.Semaphore:
        return asyncio.Semaphore(MAX_JOINING)

    def call(self, coroutine: Coroutine[Any, Any, Any], timeout: float | None = 60.0) -> Any:
        """Run ``coroutine`` on the loop and return its result (from another thread)."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def add(self, match_id: str, seat: int, token: str, pace: float, seed: int) -> None:
        """Start playing a person's seat (its jitter drawn from ``seed``)."""

        async def start() -> None:
            person = PersonSeat(
                self.router, match_id, seat, token, pace, random.Random(seed), self.recorder,
                self.gate,
            )  # fmt: skip
            self._tasks.append(asyncio.get_running_loop().create_task(person.play()))

        self.call(start())

    def set_measuring(self, on: bool) -> None:
        """Count round trips from now on (``on``) or no longer."""

        async def flip() -> None:
            self.recorder.measuring = on

        self.call(flip())

    def snapshot(self) -> dict[str, int]:
        """Now: the seats the engine answered, the seats failed, the decisions measured."""

        async def read() -> dict[str, int]:
            recorder = self.recorder
            return {
                "joined": len(recorder.joined),
                "failed": len(recorder.failed),
                "decisions": recorder.decisions,
            }

        return self.call(read())

    def frozen(self) -> RoundTrips:
        """A copy of the recorder as it stands now (what the window measured: the seats play
        on, and their later troubles are not the window's)."""

        async def copy() -> RoundTrips:
            recorder = self.recorder
            return dataclasses.replace(
                recorder,
                samples={kind: list(found) for kind, found in recorder.samples.items()},
                failed=list(recorder.failed),
                joined=set(recorder.joined),
            )

        return self.call(copy())

    def failures(self) -> list[str]:
        """The seats whose stream failed for good so far, one line each."""

        async def read() -> list[str]:
            return list(self.recorder.failed)

        return self.call(read())

    def close(self) -> None:
        """Stop every seat (their streams are cancelled) and the loop."""

        async def stop() -> None:
            for task in self._tasks:
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            await self.router.close()

        with contextlib.suppress(Exception):
            self.call(stop(), timeout=30.0)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10.0)
