"""The one mapping from domain and rules errors to gRPC status codes."""

from __future__ import annotations

import grpc
import pytest

from hebei.common import errors
from hebei.rules.errors import IllegalActionError, NotationError, ReplayError


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (errors.InvalidArgument("bad seat 7"), grpc.StatusCode.INVALID_ARGUMENT),
        (errors.NotFound("no match m9"), grpc.StatusCode.NOT_FOUND),
        (errors.FailedPrecondition("not your turn"), grpc.StatusCode.FAILED_PRECONDITION),
        (errors.Conflict("changed meanwhile"), grpc.StatusCode.ABORTED),
        (errors.AlreadyExists("key booked"), grpc.StatusCode.ALREADY_EXISTS),
        (errors.Unavailable("db down"), grpc.StatusCode.UNAVAILABLE),
        (errors.ResourceExhausted("too many tables"), grpc.StatusCode.RESOURCE_EXHAUSTED),
        (errors.PermissionDenied("operator only"), grpc.StatusCode.PERMISSION_DENIED),
        (errors.Unauthenticated("no token"), grpc.StatusCode.UNAUTHENTICATED),
        (NotationError("bad tile '0m'"), grpc.StatusCode.INVALID_ARGUMENT),
        (IllegalActionError("cannot pong"), grpc.StatusCode.FAILED_PRECONDITION),
        (ReplayError("log truncated"), grpc.StatusCode.INVALID_ARGUMENT),
    ],
)
def test_status_of_known_errors(error: Exception, code: grpc.StatusCode) -> None:
    assert errors.status_of(error) == (code, str(error))


def test_subclass_inherits_code() -> None:
    class SeatTaken(errors.AlreadyExists):
        pass

    assert errors.status_of(SeatTaken("seat 2 taken")) == (
        grpc.StatusCode.ALREADY_EXISTS,
        "seat 2 taken",
    )


@pytest.mark.parametrize(
    "error", [RuntimeError("db password=hunter2"), KeyError("x"), ValueError()]
)
def test_other_errors_are_internal_without_details(error: Exception) -> None:
    assert errors.status_of(error) == (grpc.StatusCode.INTERNAL, "internal error")


def test_every_domain_error_is_mapped() -> None:
    domain = [
        c
        for c in vars(errors).values()
        if isinstance(c, type) and issubclass(c, errors.DomainError)
    ]
    assert set(domain) - {errors.DomainError} <= set(errors.STATUS_CODES)
