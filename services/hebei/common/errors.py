"""Domain errors and their one mapping to gRPC status codes (ARCHITECTURE.md, Service boundaries).

Servicers raise these (or let ``hebei.rules`` errors through); :class:`ErrorInterceptor` turns
them into a status with the error's human message (cut to :data:`MAX_DETAILS` characters).
Any other exception becomes INTERNAL "internal error": its stack trace goes to the server log
only, never to the client.

The asyncio server (the table engine's) uses :class:`AsyncErrorInterceptor` and
:class:`AsyncDecodeInterceptor`: the same mapping (:func:`call_status`) and the same checks.

Request bytes are parsed by :class:`DecodeInterceptor`, not by grpcio: grpcio answers a
message it cannot parse with INTERNAL "Exception deserializing request!" and a logged stack
trace (and leaks memory on that path); here it is INVALID_ARGUMENT like any bad input.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any

import grpc

from hebei.common.interceptors import (
    HANDLER_FACTORIES,
    AsyncHandlerInterceptor,
    HandlerInterceptor,
    RpcInfo,
    copy_pool,
    each_message,
)

log = logging.getLogger("hebei.errors")

INTERNAL_MESSAGE = "internal error"
MAX_DETAILS = 500  # characters of an error message sent to a client (or logged with a call)


class DomainError(Exception):
    """Base of the errors a service reports to its client; the message is shown to the client."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidArgument(DomainError):
    """Bad input: a malformed or out-of-range request field."""


class NotFound(DomainError):
    """An unknown id."""


class FailedPrecondition(DomainError):
    """Not allowed in the current state: wrong turn or phase, tournament not open, ..."""


class Conflict(DomainError):
    """A concurrent change won; the caller may re-read and retry."""


class AlreadyExists(DomainError):
    """The id or key is taken by something different."""


class Unavailable(DomainError):
    """A dependency is down; the call may be retried."""


class ResourceExhausted(DomainError):
    """Overload or a quota reached."""


class PermissionDenied(DomainError):
    """Authenticated, but not allowed to do this."""


class Unauthenticated(DomainError):
    """A missing, malformed or unknown credential."""


# The one mapping. The first class of an exception's MRO found here decides its status code.
STATUS_CODES: dict[type[BaseException], grpc.StatusCode] = {
    InvalidArgument: grpc.StatusCode.INVALID_ARGUMENT,
    NotFound: grpc.StatusCode.NOT_FOUND,
    FailedPrecondition: grpc.StatusCode.FAILED_PRECONDITION,
    Conflict: grpc.StatusCode.ABORTED,
    AlreadyExists: grpc.StatusCode.ALREADY_EXISTS,
    Unavailable: grpc.StatusCode.UNAVAILABLE,
    ResourceExhausted: grpc.StatusCode.RESOURCE_EXHAUSTED,
    PermissionDenied: grpc.StatusCode.PERMISSION_DENIED,
    Unauthenticated: grpc.StatusCode.UNAUTHENTICATED,
}
# The rules' errors (hebei.rules.errors) name their status themselves, as a plain string, so
# that neither side imports the other: a class's ``status`` is read where the MRO reaches it.
RULES_PACKAGE = "hebei.rules."


def capped(text: str, limit: int = MAX_DETAILS) -> str:
    """``text`` cut to ``limit`` characters (with an ellipsis): a message never echoes a huge
    value whole."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def status_of(exc: BaseException) -> tuple[grpc.StatusCode, str]:
    """The status code and client-facing message for ``exc`` (INTERNAL for unknown errors)."""
    for cls in type(exc).__mro__:
        code = STATUS_CODES.get(cls) or _named_status(cls)
        if code is not None:
            return code, capped(str(exc) or cls.__name__)
    return grpc.StatusCode.INTERNAL, INTERNAL_MESSAGE


def _named_status(cls: type) -> grpc.StatusCode | None:
    """A rules error's own status (the ``status`` name its class declares), None for any
    other class and for the rules' base class (an unknown rules error stays INTERNAL, logged)."""
    name = vars(cls).get("status")
    if not cls.__module__.startswith(RULES_PACKAGE) or not isinstance(name, str):
        return None
    return None if name == "INTERNAL" else getattr(grpc.StatusCode, name, None)


def _already_aborted(context: grpc.ServicerContext) -> bool:
    """True when the handler already ended the call with ``context.abort``."""
    code = context.code()
    return code is not None and code != grpc.StatusCode.OK


def call_status(
    exc: Exception, context: grpc.ServicerContext, info: RpcInfo
) -> tuple[grpc.StatusCode, str] | None:
    """The status a handler's exception ends its call with (an unknown error is logged with
    its stack trace), or None when the handler already ended the call itself."""
    if _already_aborted(context):
        return None
    code, message = status_of(exc)
    if code == grpc.StatusCode.INTERNAL:
        log.error("unhandled error in %s", info.full_method, exc_info=exc)
    return code, message


class ErrorInterceptor(HandlerInterceptor):
    """Converts exceptions raised by handlers into statuses through :data:`STATUS_CODES`."""

    @contextlib.contextmanager
    def scope(self, request: Any, context: grpc.ServicerContext, info: RpcInfo) -> Iterator[Any]:
        try:
            yield request
        except Exception as exc:
            status = call_status(exc, context, info)
            if status is None:
                raise
            context.abort(*status)


class AsyncErrorInterceptor(AsyncHandlerInterceptor, ErrorInterceptor):
    """:class:`ErrorInterceptor` on the asyncio server (where aborting is awaited)."""

    @contextlib.asynccontextmanager
    async def async_scope(self, request: Any, context: Any, info: RpcInfo) -> AsyncIterator[Any]:
        try:
            yield request
        except Exception as exc:
            status = call_status(exc, context, info)
            if status is None:
                raise
            await context.abort(*status)


# ----------------------------------------------------------------------------- decoding


@dataclass(frozen=True, slots=True)
class Undecodable:
    """A request message that did not parse (what the safe deserializer hands on)."""

    size: int
    error: str

    def problem(self) -> InvalidArgument:
        return InvalidArgument(
            f"the request is not a valid message of this method ({self.size} bytes: {self.error})"
        )


def safe_deserializer(parse: Callable[[bytes], Any]) -> Callable[[bytes], Any]:
    """``parse`` that never raises (nor returns None): bad bytes give an :class:`Undecodable`."""

    def deserialize(data: bytes) -> Any:
        try:
            return parse(data)
        except Exception as exc:  # DecodeError, RecursionError in deep nesting, ...
            return Undecodable(len(data), capped(type(exc).__name__, 60))

    return deserialize


def check_decoded(request: Any) -> None:
    """Raise InvalidArgument for a request that did not parse."""
    if isinstance(request, Undecodable):
        raise request.problem()


class DecodeInterceptor(grpc.ServerInterceptor):
    """Parses requests without letting grpcio fail on them (see the module docstring).

    It must be the innermost of the standard interceptors: its deserializer (which turns bad
    bytes into :class:`Undecodable` instead of failing) is the one the outer wrappers copy,
    so every interceptor still sees the call; the servicer gets parsed messages only, and an
    undecodable one raises InvalidArgument inside :class:`ErrorInterceptor`.
    """

    def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], grpc.RpcMethodHandler | None],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler | None:
        handler = continuation(handler_call_details)
        if handler is None or handler.request_deserializer is None:
            return handler
        info = RpcInfo.of(handler_call_details.method, handler)
        if info.request_streaming:
            streaming = handler.stream_stream or handler.stream_unary

            def behavior(requests: Iterator[Any], context: grpc.ServicerContext) -> Any:
                return streaming(each_message(requests, check_decoded), context)

            inner = streaming
        else:
            single = handler.unary_stream or handler.unary_unary

            def behavior(request: Any, context: grpc.ServicerContext) -> Any:
                check_decoded(request)
                return single(request, context)

            inner = single
        copy_pool(inner, behavior)
        factory = HANDLER_FACTORIES[(info.request_streaming, info.response_streaming)]
        return factory(
            behavior,
            request_deserializer=safe_deserializer(handler.request_deserializer),
            response_serializer=handler.response_serializer,
        )


class AsyncDecodeInterceptor(AsyncHandlerInterceptor):
    """:class:`DecodeInterceptor` on the asyncio server: the innermost interceptor there too."""

    def applies(self, handler: grpc.RpcMethodHandler) -> bool:
        return handler.request_deserializer is not None

    def request_deserializer(self, deserializer: Any) -> Any:
        return safe_deserializer(deserializer)

    @contextlib.contextmanager
    def scope(self, request: Any, context: Any, info: RpcInfo) -> Iterator[Any]:
        if info.request_streaming:
            yield each_message(request, check_decoded)
        else:
            check_decoded(request)
            yield request

    def responder(self, info: RpcInfo) -> None:
        return None  # nothing to do per response
