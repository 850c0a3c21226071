"""The thin gRPC layer of the table engine: requests in, TableHost calls, messages out."""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Iterator
from typing import Any

import grpc

from hebei.common.errors import InvalidArgument, ResourceExhausted
from hebei.table import metrics
from hebei.table.host import TableHost
from hebei.table.sessions import Outbound
from hebei.table.table import Table, rejection
from hebei.v1 import table_pb2, table_pb2_grpc

log = logging.getLogger(__name__)


class TokenBucket:
    """At most ``rate`` messages a second on average, ``burst`` at once."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class TableServicer(table_pb2_grpc.TableServiceServicer):
    """TableService over a :class:`TableHost`. Streams beyond ``max_streams`` are refused
    with RESOURCE_EXHAUSTED; a seat sending more than ``rate`` messages a second has the
    excess dropped (and is told so)."""

    def __init__(
        self, host: TableHost, *, max_streams: int = 320, rate: float = 50.0, burst: int = 100
    ) -> None:
        self.host = host
        self.max_streams = max_streams
        self.rate = rate
        self.burst = burst
        self._streams = 0
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def _stream_slot(self, rpc: str) -> Iterator[None]:
        with self._lock:
            if self._streams >= self.max_streams:
                raise ResourceExhausted(
                    f"the engine serves {self.max_streams} streams at most; try again later"
                )
            self._streams += 1
        metrics.PLAY_STREAMS.labels(rpc).inc()
        try:
            yield
        finally:
            metrics.PLAY_STREAMS.labels(rpc).dec()
            with self._lock:
                self._streams -= 1

    # ------------------------------------------------------------------ unary

    def OpenMatch(self, request: table_pb2.OpenMatchRequest, context: Any) -> Any:
        return table_pb2.OpenMatchResponse(match=self.host.open_match(request).info())

    def GetMatch(self, request: table_pb2.GetMatchRequest, context: Any) -> Any:
        return table_pb2.GetMatchResponse(match=self.host.get(request.match_id).info())

    def ListTables(self, request: table_pb2.ListTablesRequest, context: Any) -> Any:
        matches, token = self.host.list(
            request.tournament_id, request.status, request.page_size, request.page_token
        )
        return table_pb2.ListTablesResponse(matches=matches, next_page_token=token)

    def Dissolve(self, request: table_pb2.DissolveRequest, context: Any) -> Any:
        return table_pb2.DissolveResponse(
            match=self.host.dissolve(request.match_id, request.reason).info()
        )

    # ------------------------------------------------------------------ streams

    def Play(self, request_iterator: Iterator[Any], context: Any) -> Iterator[Any]:
        with self._stream_slot("play"):
            first = next(request_iterator, None)
            if first is None or first.WhichOneof("request") != "join":
                raise InvalidArgument("the first message of a Play stream must be a Join")
            join = first.join
            if join.seat not in (0, 1, 2, 3):
                raise InvalidArgument(f"seat must be 0-3, got {join.seat}")
            table = self.host.get(join.match_id)
            session = table.join(join.seat, join.seat_token)
            context.add_callback(lambda: table.leave(session))
            log.info(
                "seat joined",
                extra={"match_id": join.match_id, "seat": join.seat, "client": join.client_name},
            )
            reader = threading.Thread(
                target=self._read,
                args=(request_iterator, table, session),
                name="table-play-reader",
                daemon=True,
            )
            reader.start()
            yield from session.messages(context.is_active)
            table.leave(session)

    def _read(self, requests: Iterator[Any], table: Table, session: Outbound) -> None:
        bucket = TokenBucket(self.rate, self.burst)
        dropped = 0
        try:
            for request in requests:
                if session.closed:
                    return
                if not bucket.take():
                    dropped += 1
                    if dropped % self.burst == 1:
                        session.push(
                            0,
                            rejection(
                                0,
                                "RESOURCE_EXHAUSTED",
                                f"more than {self.rate:g} messages a second: messages dropped",
                            ),
                            keep=True,
                        )
                    continue
                if request.WhichOneof("request") == "action":
                    table.act(session, request.action)
                else:
                    session.push(
                        0,
                        rejection(
                            0, "INVALID_ARGUMENT", "already joined: send actions, not a Join"
                        ),
                        keep=True,
                    )
        except grpc.RpcError:
            pass  # the stream ended under us
        except Exception:
            log.exception("Play reader failed")

    def Spectate(self, request: table_pb2.SpectateRequest, context: Any) -> Iterator[Any]:
        with self._stream_slot("spectate"):
            table = self.host.get(request.match_id)
            queue = table.subscribe(request.from_seq)
            try:
                yield from queue.messages(context.is_active)
            finally:
                table.unsubscribe(queue)
