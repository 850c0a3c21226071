"""Tokens and roles: who may call what, and the codes for missing and wrong tokens."""

from __future__ import annotations

import pytest

from hebei.common.auth import (
    METHOD_ROLES,
    OPERATOR_METHODS,
    Role,
    TokenAuthority,
    actor_from_metadata,
    actor_metadata,
    bearer_metadata,
    check_seat_token,
    token_from_metadata,
)
from hebei.common.errors import PermissionDenied, Unauthenticated
from hebei.v1 import ledger_pb2, matchmaking_pb2, table_pb2

AUTHORITY = TokenAuthority("op-token", ["svc-token"])
REVERSE = "/hebei.v1.LedgerService/ReverseEntry"
POST = "/hebei.v1.LedgerService/PostSettlement"
PUBLIC = "/hebei.v1.LedgerService/GetStandings"


@pytest.mark.parametrize(
    ("method", "token", "role"),
    [
        (REVERSE, "op-token", Role.OPERATOR),
        (POST, "svc-token", Role.SERVICE),
        (POST, "op-token", Role.OPERATOR),
        (PUBLIC, None, Role.PUBLIC),
        (PUBLIC, "svc-token", Role.SERVICE),
    ],
)
def test_allowed(method: str, token: str | None, role: Role) -> None:
    metadata = bearer_metadata(token) if token else ()
    assert AUTHORITY.check(method, metadata) is role


@pytest.mark.parametrize(
    ("method", "metadata", "error"),
    [
        (REVERSE, (), Unauthenticated),
        (POST, (("authorization", "Basic abc"),), Unauthenticated),
        (POST, bearer_metadata("op-token-but-longer"), Unauthenticated),
        (PUBLIC, bearer_metadata("stale"), Unauthenticated),
        (REVERSE, bearer_metadata("svc-token"), PermissionDenied),
    ],
)
def test_refused(method: str, metadata: tuple, error: type[Exception]) -> None:
    with pytest.raises(error):
        AUTHORITY.check(method, metadata)


def test_without_service_token_services_use_the_operator_token() -> None:
    authority = TokenAuthority("op-token")
    assert authority.check(POST, bearer_metadata("op-token")) is Role.OPERATOR
    with pytest.raises(Unauthenticated):
        authority.check(POST, bearer_metadata("svc-token"))


def test_empty_operator_token_rejected() -> None:
    with pytest.raises(ValueError, match="operator token"):
        TokenAuthority("")


@pytest.mark.parametrize(
    ("metadata", "token"),
    [
        ((("authorization", "Bearer abc"),), "abc"),
        ((("x-other", "1"), ("authorization", b"Bearer xyz")), "xyz"),
        ((("authorization", "Bearer "),), None),
        ((), None),
        (None, None),
    ],
)
def test_token_from_metadata(metadata: tuple | None, token: str | None) -> None:
    assert token_from_metadata(metadata) == token


@pytest.mark.parametrize(
    ("given", "error"),
    [("", Unauthenticated), (None, Unauthenticated), ("seat-9", PermissionDenied)],
)
def test_seat_token_refused(given: str | None, error: type[Exception]) -> None:
    with pytest.raises(error):
        check_seat_token("seat-1", given)


def test_seat_token_accepted() -> None:
    check_seat_token("seat-1", "seat-1")


def _all_methods() -> set[str]:
    return {
        f"/{service.full_name}/{method.name}"
        for module in (ledger_pb2, matchmaking_pb2, table_pb2)
        for service in module.DESCRIPTOR.services_by_name.values()
        for method in service.methods
    }


def test_method_roles_name_real_methods() -> None:
    assert set(METHOD_ROLES) <= _all_methods()
    assert set(METHOD_ROLES) >= OPERATOR_METHODS


@pytest.mark.parametrize("name", ["chief referee", "李裁判", "Zoë", "50% off", "a%20b", "x" * 64])
def test_an_actor_name_travels_as_printable_ascii_and_comes_back(name: str) -> None:
    ((key, value),) = actor_metadata(name)
    assert key == "hebei-actor"
    assert value.isascii() and value.isprintable()  # what gRPC metadata accepts
    assert actor_from_metadata([("x", "y"), (key, value.encode())]) == name
    assert actor_from_metadata([(key, value)]) == name


def test_a_plain_name_is_sent_as_it_is_and_no_actor_is_none() -> None:
    assert actor_metadata("chief referee") == (("hebei-actor", "chief referee"),)
    assert actor_from_metadata([("authorization", "Bearer t")]) is None
    assert actor_from_metadata(None) is None


def test_failed_authentications_are_bounded_per_address_and_in_total() -> None:
    from hebei.common.auth import FailedAuthentications
    from hebei.common.errors import ResourceExhausted

    now = [0.0]
    limits = FailedAuthentications(per_peer=3, total=5, window=60.0, clock=lambda: now[0])
    for _ in range(3):
        limits.check("10.0.0.1")
        limits.failed("10.0.0.1")
    with pytest.raises(ResourceExhausted, match="3 wrong tokens from this client address"):
        limits.check("10.0.0.1")
    limits.check("10.0.0.2")  # another address is still checked
    limits.failed("10.0.0.2")
    limits.failed("10.0.0.3")  # five in all now
    # Past the total, an address that failed lately is refused unchecked...
    with pytest.raises(ResourceExhausted):
        limits.check("10.0.0.2")
    # ...and one that never failed (the operator's) is still checked.
    limits.check("10.0.0.9")
    now[0] = 61.0  # the window passes: everyone is checked again
    limits.check("10.0.0.1")
    limits.check("10.0.0.2")
