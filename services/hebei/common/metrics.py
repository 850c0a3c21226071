"""Every Prometheus metric of the bootstrap, with the usual go-grpc-prometheus names.

Labels are the RPC type, service, method and status code only: never table, match or player
ids (unbounded label values would blow up the time series).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import grpc
from prometheus_client import REGISTRY, CollectorRegistry, Counter, Histogram, start_http_server

from hebei.common.interceptors import (
    AsyncHandlerInterceptor,
    HandlerInterceptor,
    RpcInfo,
    each_message,
    on_finish,
    split_method,
)

_LABELS = ("grpc_type", "grpc_service", "grpc_method")
_CODE_LABELS = (*_LABELS, "grpc_code")
# Seconds: from sub-millisecond unary calls to multi-minute streams.
HANDLING_BUCKETS = (
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300,
)  # fmt: skip

SERVER_STARTED = Counter("grpc_server_started_total", "RPCs started on the server.", _LABELS)
SERVER_HANDLED = Counter(
    "grpc_server_handled_total", "RPCs completed on the server, by status code.", _CODE_LABELS
)
SERVER_HANDLING_SECONDS = Histogram(
    "grpc_server_handling_seconds",
    "Time from the start of an RPC to its status, on the server.",
    _LABELS,
    buckets=HANDLING_BUCKETS,
)
SERVER_MSG_RECEIVED = Counter(
    "grpc_server_msg_received_total", "Messages received by the server.", _LABELS
)
SERVER_MSG_SENT = Counter("grpc_server_msg_sent_total", "Messages sent by the server.", _LABELS)

AUTH_FAILURES = Counter(
    "hebei_auth_failures_total",
    "Calls refused for their token: unknown (a wrong token) or throttled (refused unchecked,"
    " the address or the server having sent too many wrong tokens lately).",
    ["result"],
)
for _result in ("unknown", "throttled"):  # exported at 0 from the start
    AUTH_FAILURES.labels(_result)

CLIENT_STARTED = Counter("grpc_client_started_total", "RPCs started by clients.", _LABELS)
CLIENT_HANDLED = Counter(
    "grpc_client_handled_total", "RPCs completed by clients, by status code.", _CODE_LABELS
)
CLIENT_HANDLING_SECONDS = Histogram(
    "grpc_client_handling_seconds",
    "Time from the start of an RPC to its status, seen by the client.",
    _LABELS,
    buckets=HANDLING_BUCKETS,
)
CLIENT_MSG_RECEIVED = Counter(
    "grpc_client_msg_received_total", "Messages received by clients.", _LABELS
)
CLIENT_MSG_SENT = Counter("grpc_client_msg_sent_total", "Messages sent by clients.", _LABELS)


def counted(messages: Iterable[Any], counter: Counter) -> Iterator[Any]:
    """Yield ``messages``, adding one to ``counter`` (already labelled) for each."""
    for message in messages:
        counter.inc()
        yield message


def export_known_labels(known: Mapping[Any, Iterable[tuple[str, ...]]]) -> None:
    """Create each metric's series for every label tuple known in advance, so that counters
    are exported at 0 (histograms empty, gauges 0) from the process start: a dashboard or
    ``rate()`` then sees the first event, not a series appearing with it."""
    for metric, label_sets in known.items():
        for labels in label_sets:
            metric.labels(*labels)


def _labels(info: RpcInfo) -> tuple[str, str, str]:
    return (info.rpc_type, info.service, info.method)


class ServerMetricsInterceptor(HandlerInterceptor):
    """Records the grpc_server_* metrics of every call (streams included)."""

    @contextlib.contextmanager
    def scope(self, request: Any, context: grpc.ServicerContext, info: RpcInfo) -> Iterator[Any]:
        labels = _labels(info)
        SERVER_STARTED.labels(*labels).inc()
        started = time.perf_counter()

        def finished(code: grpc.StatusCode) -> None:
            SERVER_HANDLING_SECONDS.labels(*labels).observe(time.perf_counter() - started)
            SERVER_HANDLED.labels(*labels, code.name).inc()

        with on_finish(context, finished):
            if info.request_streaming:
                received = SERVER_MSG_RECEIVED.labels(*labels)
                yield each_message(request, lambda _message: received.inc())
            else:
                SERVER_MSG_RECEIVED.labels(*labels).inc()
                yield request

    def on_response(self, info: RpcInfo) -> None:
        SERVER_MSG_SENT.labels(*_labels(info)).inc()

    def responder(self, info: RpcInfo) -> Callable[[], None]:
        return SERVER_MSG_SENT.labels(*_labels(info)).inc  # the labels looked up once a call


class AsyncServerMetricsInterceptor(AsyncHandlerInterceptor, ServerMetricsInterceptor):
    """:class:`ServerMetricsInterceptor` on the asyncio server."""


class ClientStreamMetrics:
    """The grpc_client_* metrics of one streaming call a client drives by hand (an asyncio
    stream without interceptors): :meth:`sent` and :meth:`received` each message,
    :meth:`finished` once with the final status."""

    def __init__(self, full_method: str, rpc_type: str = "bidi_stream") -> None:
        labels = (rpc_type, *split_method(full_method))
        self._labels = labels
        self.sent = CLIENT_MSG_SENT.labels(*labels).inc
        self.received = CLIENT_MSG_RECEIVED.labels(*labels).inc
        self._started = time.perf_counter()
        self._done = False
        CLIENT_STARTED.labels(*labels).inc()

    def finished(self, code: grpc.StatusCode) -> None:
        if self._done:
            return
        self._done = True
        CLIENT_HANDLING_SECONDS.labels(*self._labels).observe(time.perf_counter() - self._started)
        CLIENT_HANDLED.labels(*self._labels, code.name).inc()


def start_metrics_server(
    port: int, host: str = "127.0.0.1", registry: CollectorRegistry = REGISTRY
) -> tuple[Any, int]:
    """Serve ``/metrics`` over HTTP; returns the server (``.shutdown()``) and the bound port."""
    server, _thread = start_http_server(port, addr=host, registry=registry)
    return server, server.server_port


class _CountedResponses:
    """A response stream that counts the messages it yields and proxies the call's methods."""

    def __init__(self, call: Any, counter: Any) -> None:
        self._call = call
        self._counter = counter

    def __iter__(self) -> _CountedResponses:
        return self

    def __next__(self) -> Any:
        message = next(self._call)
        self._counter.inc()
        return message

    def __getattr__(self, name: str) -> Any:
        return getattr(self._call, name)


class ClientMetricsInterceptor(
    grpc.UnaryUnaryClientInterceptor,
    grpc.UnaryStreamClientInterceptor,
    grpc.StreamUnaryClientInterceptor,
    grpc.StreamStreamClientInterceptor,
):
    """Records the grpc_client_* metrics of every call made through a channel."""

    def _call(
        self, rpc_type: str, continuation: Any, details: grpc.ClientCallDetails, request: Any
    ) -> Any:
        labels = (rpc_type, *split_method(details.method))
        CLIENT_STARTED.labels(*labels).inc()
        if rpc_type in ("client_stream", "bidi_stream"):
            request = counted(request, CLIENT_MSG_SENT.labels(*labels))
        else:
            CLIENT_MSG_SENT.labels(*labels).inc()
        started = time.perf_counter()
        outcome = continuation(details, request)
        unary_response = rpc_type in ("unary", "client_stream")

        def record(call: Any) -> None:
            CLIENT_HANDLING_SECONDS.labels(*labels).observe(time.perf_counter() - started)
            code = call.code() or grpc.StatusCode.UNKNOWN
            CLIENT_HANDLED.labels(*labels, code.name).inc()
            if unary_response and code == grpc.StatusCode.OK:
                CLIENT_MSG_RECEIVED.labels(*labels).inc()

        outcome.add_done_callback(record)
        if unary_response:
            return outcome
        return _CountedResponses(outcome, CLIENT_MSG_RECEIVED.labels(*labels))

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return self._call("unary", continuation, details, request)

    def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return self._call("server_stream", continuation, details, request)

    def intercept_stream_unary(self, continuation: Any, details: Any, request_iterator: Any) -> Any:
        return self._call("client_stream", continuation, details, request_iterator)

    def intercept_stream_stream(
        self, continuation: Any, details: Any, request_iterator: Any
    ) -> Any:
        return self._call("bidi_stream", continuation, details, request_iterator)
