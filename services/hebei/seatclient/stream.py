"""One seat's Play stream, as every person's client holds it (``hebei play``, ``hebei tournament
join`` and the web gateway's seat sessions).

:class:`PlayStream` owns the gRPC stream: it joins, sends actions and puts every server message
into an inbox as ``(MESSAGE, response)``. It opens the stream where a
:class:`~hebei.common.routing.MatchRouter` sends it (the match's owner among the table engine's
replicas, found through the entries and followed through takeovers), or on one fixed channel
(a local table, a single engine).

When the stream ends with UNAVAILABLE (a stopping engine closes its streams so on purpose, an
engine out of reach looks the same, and so does a replica's refusal of a match it does not or
no longer serves) it is handed to the router's ``note_failure`` and joined again, until the
engine answers or :data:`GIVE_UP_SECONDS` pass without it; the end is ``(CLOSED, RpcError |
None)``. Each rejoin is the same Join: the engine sends the seat's current observation, so the
person resumes from the last event it shows, and an open decision comes anew.

- The match moved (a refusal naming its owner, a takeover under way, or a replica out of reach
  while the router has another to try) after the engine answered the seat:
  ``(MOVED, MOVED_TEXT)``, once until the engine answers again, and no error. Before the first
  answer a refusal is only the router finding the owner: nothing is said.
- The one engine is away (today's single address), or none answered yet:
  ``(RECONNECTING, why)``.

The waits between joins are the router's :class:`~hebei.common.routing.RejoinSchedule`: a
refusal naming the owner is joined there at once (at most :data:`~hebei.common.routing.MAX_HOPS`
hops in a row); while the match is being taken over (a refusal saying so, or the named owner out
of reach), every :data:`~hebei.common.routing.TAKEOVER_RETRY_SECONDS` (0.25 s, jittered), for at
most the router's deadline (7.2 s), so the seat is back within ~0.3 s of the new owner serving
it; the rest after the backoff (:data:`FIRST_DELAY` doubling up to :data:`MAX_DELAY`). At worst
a seat joins 20 times a second for 7.2 s once per outage, then at most 0.8 times a second (see
:mod:`hebei.common.routing.rejoin`).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator
from typing import Any, Protocol

import grpc

from hebei.common.routing import MatchRouter, RejoinSchedule, RouteBackoff, is_refusal
from hebei.v1 import table_pb2, table_pb2_grpc
from hebei.v1 import types_pb2 as pb

# Inbox items of the stream: (kind, value).
MESSAGE, CLOSED, RECONNECTING, MOVED = "message", "closed", "reconnecting", "moved"
# What a person is told when the match moves to another replica (the value of a MOVED item).
MOVED_TEXT = "the table moved to another server"
MOVED_LINE = f"{MOVED_TEXT}; rejoining…"
# A stream ending with these is joined again: "reconnect" (the engine restarts, is away, or a
# replica does not serve the match).
RECONNECT_CODES = frozenset({grpc.StatusCode.UNAVAILABLE})
FIRST_DELAY, MAX_DELAY = 0.2, 5.0  # seconds between joins that are not a takeover's, doubling
REJOIN_BACKOFF = RouteBackoff(FIRST_DELAY, MAX_DELAY, jitter=0.0)
GIVE_UP_SECONDS = 120.0  # without a message from the engine


class Inbox(Protocol):
    """Where the stream and the keyboard put their ``(kind, value)`` items."""

    def put(self, item: tuple[str, Any]) -> None: ...


class _FixedRoute:
    """One channel, always the same: a router of one replica that never moves a match."""

    def __init__(self, channel: grpc.Channel) -> None:
        self.channel = channel

    def stream_channel(self, match_id: str) -> tuple[str, grpc.Channel]:
        return "", self.channel

    def note_served(self, match_id: str, address: str) -> None:
        pass

    def note_failure(self, match_id: str, error: BaseException, address: str) -> str | None:
        return None

    def rejoin_schedule(self, backoff: RouteBackoff) -> RejoinSchedule:
        return RejoinSchedule(backoff)


class PlayStream:
    """A seat's Play stream: Join first, then :meth:`send` actions; every PlayResponse goes to
    ``inbox`` as ``("message", response)``, each rejoin as ``("reconnecting", why)`` or
    ``("moved", MOVED_TEXT)`` and the end as ``("closed", RpcError | None)``. A replica that
    cannot be reached while the router has another entry not tried yet is passed over without
    a word (one engine of several down: a seat's first join may land on it).

    ``route``: a :class:`~hebei.common.routing.MatchRouter` over the engine's replicas (the
    caller owns it and closes it), or one channel to a single engine."""

    def __init__(
        self,
        route: MatchRouter | grpc.Channel,
        join: table_pb2.Join,
        inbox: Inbox,
        *,
        give_up: float = GIVE_UP_SECONDS,
    ) -> None:
        self.router: MatchRouter | _FixedRoute = (
            route if isinstance(route, MatchRouter) else _FixedRoute(route)
        )
        self.join = join
        self.inbox = inbox
        self.give_up = give_up
        self._outgoing: queue.SimpleQueue[table_pb2.PlayRequest | None] = queue.SimpleQueue()
        self._call: Any = None
        self._address = ""  # where the current stream went
        self._closing = False
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._read, name="play-stream", daemon=True)

    @property
    def match_id(self) -> str:
        return self.join.match_id

    def start(self) -> PlayStream:
        """Open the stream and start reading it."""
        self._open()
        self._thread.start()
        return self

    def _open(self) -> None:
        self._address, channel = self.router.stream_channel(self.match_id)
        stub = table_pb2_grpc.TableServiceStub(channel)
        self._call = stub.Play(self._requests(self._outgoing))

    def send(self, action: pb.Action) -> None:
        """Queue an action for the server."""
        self._outgoing.put(table_pb2.PlayRequest(action=action))

    def close(self) -> None:
        """End the stream (the server then treats the seat as disconnected)."""
        self._closing = True
        self._stopped.set()
        self._outgoing.put(None)
        if self._call is not None:
            self._call.cancel()

    def wait(self, timeout: float | None = None) -> None:
        """Wait for the reader thread to end."""
        if self._thread.is_alive():
            self._thread.join(timeout)

    def _requests(
        self, outgoing: queue.SimpleQueue[table_pb2.PlayRequest | None]
    ) -> Iterator[table_pb2.PlayRequest]:
        yield table_pb2.PlayRequest(join=self.join)
        while True:
            item = outgoing.get()
            if item is None:
                return
            yield item

    def _read(self) -> None:
        schedule = self.router.rejoin_schedule(REJOIN_BACKOFF)
        heard = time.monotonic()
        answered = False  # the engine has answered the seat (on any stream)
        moving = False  # a MOVED item was put since the engine last answered
        unreached: set[str] = set()  # addresses not reached since the engine last answered
        while True:
            error = None
            served = False
            try:
                for message in self._call:
                    if not served:
                        served = True
                        self.router.note_served(self.match_id, self._address)
                        schedule.served()
                    heard, moving = time.monotonic(), False
                    unreached.clear()
                    answered = True
                    self.inbox.put((MESSAGE, message))
            except grpc.RpcError as exc:
                if not self._closing:
                    error = exc
            if (
                error is None
                or error.code() not in RECONNECT_CODES
                or time.monotonic() - heard > self.give_up
            ):
                break
            failed_at = self._address
            next_address = self.router.note_failure(self.match_id, error, failed_at)
            refused = is_refusal(error)  # the replica does not serve the match
            if not refused:
                unreached.add(failed_at)
            # Another entry not tried yet (one replica of several is down): tried silently.
            elsewhere = (next_address or failed_at) not in unreached
            if answered and (refused or (next_address or failed_at) != failed_at):
                if not moving:
                    moving = True
                    self.inbox.put((MOVED, MOVED_TEXT))
            elif not refused and not elsewhere:
                self.inbox.put((RECONNECTING, describe_rpc_error(error)))
            wait = schedule.after(error, failed_at)
            if wait.seconds and self._stopped.wait(wait.seconds):
                error = None
                break
            if self._stopped.is_set():  # closed meanwhile
                error = None
                break
            self._outgoing.put(None)  # releases the old stream's request reader
            self._outgoing = queue.SimpleQueue()
            self._open()
        self._outgoing.put(None)
        self.inbox.put((CLOSED, error))


def describe_rpc_error(error: grpc.RpcError) -> str:
    """One line for a failed stream, e.g. ``UNAUTHENTICATED: wrong seat token for seat 1``."""
    code = error.code() if hasattr(error, "code") else None
    details = error.details() if hasattr(error, "details") else str(error)
    name = code.name if code is not None else "ERROR"
    if code == grpc.StatusCode.UNAVAILABLE:
        details = f"cannot reach the table engine ({details})"
    return f"{name}: {details}"
