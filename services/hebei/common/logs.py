"""JSON logs: one object per line with service, method, ids, status and duration.

:func:`configure_logging` sets the root logger once per process; :class:`CallLogInterceptor`
writes one line per finished call. Ids (match, table, tournament, player, seat, entry,
idempotency key) are read from the request, or the first message of a client stream; a
logged value is cut to :data:`MAX_LOGGED` characters (a request may carry a huge one).
"""

from __future__ import annotations

import contextlib
import json
import logging
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any, TextIO

import grpc

from hebei.common.errors import capped
from hebei.common.interceptors import (
    AsyncHandlerInterceptor,
    HandlerInterceptor,
    RpcInfo,
    each_message,
    on_finish,
)

call_log = logging.getLogger("hebei.calls")
MAX_LOGGED = 160  # characters of one id or of the details in a call's log line

# Request fields copied into the log line; nested messages of these names are searched too.
ID_FIELDS = (
    "tournament_id", "table_id", "match_id", "hand_no", "player_id", "seat", "entry_id",
    "idempotency_key",
)  # fmt: skip
NESTED_FIELDS = ("settlement", "join", "corrected")
# Attributes every LogRecord has; anything else passed via ``extra=`` goes into the JSON.
_RECORD_ATTRS = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message", "asctime", "taskName",
}  # fmt: skip


class JsonFormatter(logging.Formatter):
    """Formats a record as one JSON object; ``extra`` fields are included."""

    def __init__(self, service: str) -> None:
        super().__init__()
        self.service = service

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "service": self.service,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _RECORD_ATTRS and not key.startswith("_"):
                out[key] = value
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False, default=str)


def configure_logging(service: str, level: str = "INFO", stream: TextIO | None = None) -> None:
    """Send every log record of the process to ``stream`` (stderr) as JSON lines."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter(service))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)


def request_ids(message: Any) -> dict[str, Any]:
    """The id fields set in a request message (and its settlement/join/corrected parts)."""
    ids: dict[str, Any] = {}
    if message is None or not hasattr(message, "DESCRIPTOR"):
        return ids
    names = message.DESCRIPTOR.fields_by_name
    for name in NESTED_FIELDS:
        if name in names and message.HasField(name):
            ids.update(request_ids(getattr(message, name)))
    for name in ID_FIELDS:
        if name in names:
            value = getattr(message, name)
            if value or name == "seat":  # seat 0 is a seat
                ids[name] = capped(value, MAX_LOGGED) if isinstance(value, str) else value
    return ids


class CallLogInterceptor(HandlerInterceptor):
    """Logs one JSON line per finished call: method, ids, status code, duration, peer."""

    @contextlib.contextmanager
    def scope(self, request: Any, context: grpc.ServicerContext, info: RpcInfo) -> Iterator[Any]:
        started, ids = time.perf_counter(), {}
        # Read now: once an asyncio call has ended, its peer must not be asked for (grpcio
        # reads it from the call, which may be gone: the engine crashed on that).
        peer = context.peer()

        def finished(code: grpc.StatusCode) -> None:
            _log_call(info, context, peer, code, time.perf_counter() - started, ids)

        with on_finish(context, finished):
            if info.request_streaming:
                yield _remember_first_ids(request, ids)
            else:
                ids.update(request_ids(request))
                yield request


class AsyncCallLogInterceptor(AsyncHandlerInterceptor, CallLogInterceptor):
    """:class:`CallLogInterceptor` on the asyncio server."""


def _remember_first_ids(requests: Any, ids: dict[str, Any]) -> Any:
    first = [True]

    def remember(message: Any) -> None:
        if first[0]:
            ids.update(request_ids(message))
            first[0] = False

    return each_message(requests, remember)


def _log_call(
    info: RpcInfo,
    context: grpc.ServicerContext,
    peer: str,
    code: grpc.StatusCode,
    seconds: float,
    ids: dict[str, Any],
) -> None:
    level = logging.INFO if code in _QUIET_CODES else logging.WARNING
    if not call_log.isEnabledFor(level):
        return
    details = context.details() if code != grpc.StatusCode.OK else None
    call_log.log(
        level,
        "%s %s",
        info.full_method,
        code.name,
        extra={
            "method": info.full_method,
            "code": code.name,
            "duration_ms": round(seconds * 1000, 3),
            "peer": peer,
            **({"details": _text(details)} if details else {}),
            **ids,
        },
    )


_QUIET_CODES = frozenset(
    {
        grpc.StatusCode.OK,
        grpc.StatusCode.CANCELLED,
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.NOT_FOUND,
        grpc.StatusCode.ALREADY_EXISTS,
        grpc.StatusCode.FAILED_PRECONDITION,
        grpc.StatusCode.ABORTED,
    }
)


def _text(details: Any) -> str:
    text = details.decode(errors="replace") if isinstance(details, bytes) else str(details)
    return capped(text, MAX_LOGGED)
