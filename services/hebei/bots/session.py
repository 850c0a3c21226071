"""The seat-session runner: plays one seat of one match over the table engine's Play stream.

It joins with the seat token, then answers every Observation that carries legal actions with
the policy's choice, echoing its ``decision_id``, until the match ends. Decisions travel on
the stream (one message each way), never as a Celery task each.

Failures:

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

import enum
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

import grpc

from hebei.bots import metrics
from hebei.bots.lease import LeaseLost, SeatLease
from hebei.bots.policies import Policy
from hebei.common.client import create_channel
from hebei.common.convert import action_to_proto, observation_from_proto
from hebei.common.tls import ClientTls
from hebei.rules.actions import PASS
from hebei.rules.errors import NotationError
from hebei.v1 import table_pb2, table_pb2_grpc
from hebei.v1 import types_pb2 as pb

log = logging.getLogger(__name__)

CLIENT_NAME = "hebei-bot/0.1"
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


@dataclass(frozen=True, slots=True)
class SeatTicket:
    """Everything a session needs to play a seat (the payload of a seat task)."""

    target: str  # the table engine, host:port
    match_id: str
    seat: int
    seat_token: str
    policy: str = "expert"
    level: int | None = None
    seed: int = 0  # the policy's randomness
    pace: float = 0.0  # seconds a decision takes at least (a human-like pace); 0: at once
    # The engine speaks TLS. Only a flag: the worker's own settings (its CA, its client
    # certificate) decide the credentials; without any, the system's roots are trusted.
    tls: bool = False

    def __post_init__(self) -> None:
        if not self.target or ":" not in self.target:
            raise ValueError(f"target must be host:port of the table engine, got {self.target!r}")
        if not self.match_id:
            raise ValueError("match_id is required")
        if self.seat not in (0, 1, 2, 3):
            raise ValueError(f"seat must be 0-3, got {self.seat!r}")
        if not self.seat_token:
            raise ValueError("seat_token is required")
        if not 0 <= self.pace <= 60:
            raise ValueError(f"pace must be 0-60 seconds, got {self.pace!r}")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, obj: object) -> SeatTicket:
        """A ticket from its JSON form; ValueError with a clear message if malformed."""
        if not isinstance(obj, dict):
            raise ValueError(f"a seat ticket is an object, got {type(obj).__name__}")
        known = set(cls.__dataclass_fields__)
        unknown = set(obj) - known
        if unknown:
            raise ValueError(f"unknown seat ticket fields: {', '.join(sorted(unknown))}")
        try:
            return cls(**obj)
        except TypeError as exc:
            raise ValueError(f"bad seat ticket: {exc}") from None


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
    """Reconnect delays: ``first`` doubling up to ``cap`` while the engine stays away (the
    count starts over after a stream that delivered something); give up after ``give_up``
    seconds without a single message from the engine."""

    first: float = 0.1
    cap: float = 5.0
    give_up: float = 120.0

    def delay(self, attempt: int) -> float:
        return min(self.cap, self.first * 2 ** max(0, attempt - 1))


@dataclass
class _Stream:
    """State of one Play stream."""

    outbox: queue.SimpleQueue = field(default_factory=queue.SimpleQueue)
    answered: int = 0  # decision id answered on this stream
    took_over_at: int = -1  # decision id when TAKE_OVER was last sent
    current: pb.Observation | None = None


class SeatSession:
    """Plays ``ticket``'s seat with ``policy`` until the match ends (see the module doc).

    ``tls``: the worker's TLS settings (:attr:`hebei.bots.config.BotsConfig.client_tls`); when
    given they are used whatever the ticket says, else the ticket's flag chooses TLS with the
    system's roots or plaintext."""

    def __init__(
        self,
        ticket: SeatTicket,
        policy: Policy,
        *,
        lease: SeatLease | None = None,
        stop: threading.Event | None = None,
        backoff: Backoff = Backoff(),
        channel_factory: Callable[[str], grpc.Channel] | None = None,
        tls: ClientTls | None = None,
    ) -> None:
        self.ticket = ticket
        self.policy = policy
        self.lease = lease
        self.stop = stop or threading.Event()
        self.backoff = backoff
        credentials = tls if tls is not None else ticket.tls
        self._channel_factory = channel_factory or (
            lambda target: create_channel(target, tls=credentials)
        )
        self.result = SessionResult(Outcome.STOPPED)
        self._decision_seconds = metrics.DECISION_SECONDS.labels(policy.name)
        self._progress = time.monotonic()

    def run(self) -> SessionResult:
        """Play until the match ends, the seat is lost or the engine stays away."""
        result = self.result
        attempt = 0
        active = metrics.SESSIONS_ACTIVE.labels(self.policy.name)
        active.inc()
        try:
            while not self.stop.is_set():
                if self.lease is not None and not self.lease.held:
                    result.outcome, result.detail = Outcome.LEASE_LOST, "lease expired"
                    break
                started = time.monotonic()
                try:
                    if self._play_stream():
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
                    detail = f"{code.name}: {detail}"
                if time.monotonic() - self._progress > self.backoff.give_up:
                    result.outcome, result.detail = Outcome.GAVE_UP, detail
                    break
                if self._progress >= started:
                    attempt = 0  # that stream worked: the engine is back, start over
                attempt += 1
                result.reconnects += 1
                metrics.RECONNECTS.inc()
                log.info(
                    "seat %s of %s: %s; joining again (attempt %d)",
                    self.ticket.seat,
                    self.ticket.match_id,
                    detail,
                    attempt,
                )
                self.stop.wait(self.backoff.delay(attempt))
        finally:
            active.dec()
        if result.outcome is not Outcome.FINISHED:
            metrics.FAILURES.labels(result.outcome.value).inc()
        return result

    # ------------------------------------------------------------------ one stream

    def _play_stream(self) -> bool:
        """One Play stream from join to its end; True when the match finished."""
        ticket = self.ticket
        stream = _Stream()
        channel = self._channel_factory(ticket.target)
        call = None
        try:
            stub = table_pb2_grpc.TableServiceStub(channel)
            call = stub.Play(self._requests(stream))
            for response in call:
                self._progress = time.monotonic()
                if self.stop.is_set():
                    return False
                if response.HasField("rejected"):
                    self._rejected(stream, response.rejected)
                    continue
                obs = response.observation
                if obs.match_finished:
                    return True
                stream.current = obs
                if self._take_over_if_auto(stream, obs):
                    continue
                if obs.legal_actions and obs.decision_id and obs.decision_id != stream.answered:
                    self._answer(stream, obs)
            return False
        finally:
            stream.outbox.put(None)
            if call is not None:
                call.cancel()
            channel.close()

    def _requests(self, stream: _Stream) -> Iterator[table_pb2.PlayRequest]:
        ticket = self.ticket
        yield table_pb2.PlayRequest(
            join=table_pb2.Join(
                match_id=ticket.match_id,
                seat=ticket.seat,
                seat_token=ticket.seat_token,
                client_name=f"{CLIENT_NAME} {self.policy.name}",
            )
        )
        while True:
            item = stream.outbox.get()
            if item is None:
                return
            yield item

    def _take_over_if_auto(self, stream: _Stream, obs: pb.Observation) -> bool:
        """The engine auto-plays this seat (it was late): ask for it back. True if sent."""
        if obs.seat >= len(obs.seats) or not obs.seats[obs.seat].auto_played:
            return False
        if stream.took_over_at == obs.decision_id:
            return True
        stream.took_over_at = obs.decision_id
        stream.outbox.put(table_pb2.PlayRequest(action=pb.Action(kind=pb.ACTION_KIND_TAKE_OVER)))
        return True

    def _answer(self, stream: _Stream, obs: pb.Observation) -> None:
        started = time.perf_counter()
        try:
            view = observation_from_proto(obs)
        except NotationError as exc:
            log.warning("seat %s: unreadable observation: %s", self.ticket.seat, exc)
            metrics.FAILURES.labels("bad_observation").inc()
            stream.answered = obs.decision_id  # the engine auto-plays it at the deadline
            return
        try:
            action = self.policy.choose(view)
        except Exception:  # a policy bug must not cost the seat: play on with a safe action
            log.exception("policy %s failed on decision %s", self.policy.name, obs.decision_id)
            metrics.FAILURES.labels("policy_error").inc()
            action = None
        took = time.perf_counter() - started
        self._decision_seconds.observe(took)
        if action not in view.legal_actions:
            if action is not None:
                log.error("policy %s chose an illegal %s", self.policy.name, action)
            action = PASS if PASS in view.legal_actions else view.legal_actions[-1]
        if self.ticket.pace > took and self.stop.wait(self.ticket.pace - took):
            return
        if self.lease is not None:
            self.lease.record(obs.decision_id)
        stream.outbox.put(table_pb2.PlayRequest(action=action_to_proto(action, obs.decision_id)))
        stream.answered = obs.decision_id
        self.result.decisions += 1

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
