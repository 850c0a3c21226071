"""Domain errors and their one mapping to gRPC status codes (ARCHITECTURE.md, Service boundaries).

Servicers raise these (or let ``hebei.rules`` errors through); :class:`ErrorInterceptor` turns
them into a status with the error's human message. Any other exception becomes INTERNAL
"internal error": its stack trace goes to the server log only, never to the client.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import Any

import grpc

from hebei.common.interceptors import HandlerInterceptor, RpcInfo
from hebei.rules.errors import IllegalActionError, NotationError, ReplayError

log = logging.getLogger("hebei.errors")

INTERNAL_MESSAGE = "internal error"


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
    NotationError: grpc.StatusCode.INVALID_ARGUMENT,
    IllegalActionError: grpc.StatusCode.FAILED_PRECONDITION,
    ReplayError: grpc.StatusCode.INVALID_ARGUMENT,
}


def status_of(exc: BaseException) -> tuple[grpc.StatusCode, str]:
    """The status code and client-facing message for ``exc`` (INTERNAL for unknown errors)."""
    for cls in type(exc).__mro__:
        code = STATUS_CODES.get(cls)
        if code is not None:
            return code, str(exc) or cls.__name__
    return grpc.StatusCode.INTERNAL, INTERNAL_MESSAGE


def _already_aborted(context: grpc.ServicerContext) -> bool:
    """True when the handler already ended the call with ``context.abort``."""
    code = context.code()
    return code is not None and code != grpc.StatusCode.OK


class ErrorInterceptor(HandlerInterceptor):
    """Converts exceptions raised by handlers into statuses through :data:`STATUS_CODES`."""

    @contextlib.contextmanager
    def scope(self, request: Any, context: grpc.ServicerContext, info: RpcInfo) -> Iterator[Any]:
        try:
            yield request
        except Exception as exc:
            if _already_aborted(context):
                raise
            code, message = status_of(exc)
            if code == grpc.StatusCode.INTERNAL:
                log.error("unhandled error in %s", info.full_method, exc_info=exc)
            context.abort(code, message)
