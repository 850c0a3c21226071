"""One seat's Play stream, as every person's client holds it (``hebei play``, ``hebei tournament
join`` and the web gateway's seat sessions).

:class:`PlayStream` owns the gRPC stream: it joins, sends actions and puts every server message
into an inbox as ``(MESSAGE, response)``. When the stream ends with UNAVAILABLE (a stopping
engine closes its streams so on purpose, and an engine out of reach looks the same) it joins
again with backoff, saying so in the inbox as ``(RECONNECTING, why)``, until the engine answers
or :data:`GIVE_UP_SECONDS` pass without it; the end is ``(CLOSED, RpcError | None)``.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator
from typing import Any, Protocol

import grpc

from hebei.v1 import table_pb2, table_pb2_grpc
from hebei.v1 import types_pb2 as pb

# Inbox items of the stream: (kind, value).
MESSAGE, CLOSED, RECONNECTING = "message", "closed", "reconnecting"
# A stream ending with these is joined again: "reconnect" (the engine restarts or is away).
RECONNECT_CODES = frozenset({grpc.StatusCode.UNAVAILABLE})
FIRST_DELAY, MAX_DELAY = 0.2, 5.0  # seconds between joins, doubling
GIVE_UP_SECONDS = 120.0  # without a message from the engine


class Inbox(Protocol):
    """Where the stream and the keyboard put their ``(kind, value)`` items."""

    def put(self, item: tuple[str, Any]) -> None: ...


class PlayStream:
    """A seat's Play stream: Join first, then :meth:`send` actions; every PlayResponse goes to
    ``inbox`` as ``("message", response)``, each reconnection as ``("reconnecting", why)`` and
    the end as ``("closed", RpcError | None)``."""

    def __init__(
        self,
        channel: grpc.Channel,
        join: table_pb2.Join,
        inbox: Inbox,
        *,
        give_up: float = GIVE_UP_SECONDS,
    ) -> None:
        self.channel = channel
        self.join = join
        self.inbox = inbox
        self.give_up = give_up
        self._outgoing: queue.SimpleQueue[table_pb2.PlayRequest | None] = queue.SimpleQueue()
        self._call: Any = None
        self._closing = False
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._read, name="play-stream", daemon=True)

    def start(self) -> PlayStream:
        """Open the stream and start reading it."""
        self._open()
        self._thread.start()
        return self

    def _open(self) -> None:
        stub = table_pb2_grpc.TableServiceStub(self.channel)
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
        delay, heard = FIRST_DELAY, time.monotonic()
        while True:
            error = None
            try:
                for message in self._call:
                    delay, heard = FIRST_DELAY, time.monotonic()
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
            self.inbox.put((RECONNECTING, describe_rpc_error(error)))
            if self._stopped.wait(delay):
                error = None
                break
            delay = min(delay * 2, MAX_DELAY)
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
