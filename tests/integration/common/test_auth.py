"""Tokens over a real server: operator, service and seat tokens; missing and wrong refused."""

from __future__ import annotations

import grpc
import pytest

from hebei.common.client import create_channel
from hebei.v1 import ledger_pb2, ledger_pb2_grpc, table_pb2, table_pb2_grpc, types_pb2
from tests.integration.common.conftest import (
    OPERATOR_TOKEN,
    SERVICE_TOKEN,
    CannedServer,
    start_canned_server,
)
from tests.integration.common.servicers import seat_token

SETTLEMENT = ledger_pb2.PostSettlementRequest(
    settlement=types_pb2.Settlement(idempotency_key="m1:1", match_id="m1", hand_no=1)
)
REVERSE = ledger_pb2.ReverseEntryRequest(entry_id="e1", reason="typo")


def _ledger(canned: CannedServer, token: str | None) -> ledger_pb2_grpc.LedgerServiceStub:
    return ledger_pb2_grpc.LedgerServiceStub(create_channel(canned.target, token=token))


@pytest.mark.parametrize(
    ("token", "call", "code"),
    [
        (None, "PostSettlement", grpc.StatusCode.UNAUTHENTICATED),
        ("not-a-token", "PostSettlement", grpc.StatusCode.UNAUTHENTICATED),
        (None, "ReverseEntry", grpc.StatusCode.UNAUTHENTICATED),
        ("not-a-token", "ReverseEntry", grpc.StatusCode.UNAUTHENTICATED),
        (SERVICE_TOKEN, "ReverseEntry", grpc.StatusCode.PERMISSION_DENIED),
    ],
)
def test_refused(canned: CannedServer, token: str | None, call: str, code: grpc.StatusCode) -> None:
    stub = _ledger(canned, token)
    request = SETTLEMENT if call == "PostSettlement" else REVERSE
    with pytest.raises(grpc.RpcError) as failure:
        getattr(stub, call)(request)
    assert failure.value.code() == code
    assert "Traceback" not in (failure.value.details() or "")


@pytest.mark.parametrize(
    ("token", "call"),
    [
        (SERVICE_TOKEN, "PostSettlement"),
        (OPERATOR_TOKEN, "PostSettlement"),
        (OPERATOR_TOKEN, "ReverseEntry"),
    ],
)
def test_allowed(canned: CannedServer, token: str, call: str) -> None:
    stub = _ledger(canned, token)
    request = SETTLEMENT if call == "PostSettlement" else REVERSE
    assert getattr(stub, call)(request).ByteSize() > 0


def test_public_method_needs_no_token(canned: CannedServer) -> None:
    reply = _ledger(canned, None).GetStandings(
        ledger_pb2.LedgerServiceGetStandingsRequest(tournament_id="t1")
    )
    assert [s.player_id for s in reply.standings] == ["p1"]


def _play(canned: CannedServer, seat: int, token: str) -> list[table_pb2.PlayResponse]:
    stub = table_pb2_grpc.TableServiceStub(create_channel(canned.target))
    join = table_pb2.Join(match_id="m1", seat=seat, seat_token=token)
    requests = [
        table_pb2.PlayRequest(join=join),
        table_pb2.PlayRequest(
            action=types_pb2.Action(kind=types_pb2.ACTION_KIND_PASS, decision_id=1)
        ),
    ]
    return list(stub.Play(iter(requests), timeout=5))


def test_seat_token_opens_the_seat(canned: CannedServer) -> None:
    replies = _play(canned, 2, seat_token(2))
    assert [r.observation.decision_id for r in replies] == [1, 2]
    assert {r.observation.seat for r in replies} == {2}


@pytest.mark.parametrize(
    ("token", "code"),
    [
        ("", grpc.StatusCode.UNAUTHENTICATED),
        (seat_token(1), grpc.StatusCode.PERMISSION_DENIED),  # another seat's token
        ("guess", grpc.StatusCode.PERMISSION_DENIED),
    ],
)
def test_seat_token_refused(canned: CannedServer, token: str, code: grpc.StatusCode) -> None:
    with pytest.raises(grpc.RpcError) as failure:
        _play(canned, 2, token)
    assert failure.value.code() == code


def test_wrong_tokens_are_slowed_per_address_then_refused_unchecked() -> None:
    """After 10 wrong tokens from one address in 60 s its calls with a token are refused
    RESOURCE_EXHAUSTED before the token is looked at (the right one too: no answer tells a
    guess from the right token), and each wrong token is counted in a metric."""
    from hebei.common import auth, metrics

    canned = start_canned_server()
    try:
        unknown = metrics.AUTH_FAILURES.labels("unknown")
        throttled = metrics.AUTH_FAILURES.labels("throttled")
        before_unknown, before_throttled = unknown._value.get(), throttled._value.get()
        for n in range(auth.AUTH_FAILURES_PER_PEER):
            with pytest.raises(grpc.RpcError) as failure:
                _ledger(canned, f"guess-{n}").PostSettlement(SETTLEMENT)
            assert failure.value.code() == grpc.StatusCode.UNAUTHENTICATED
        for token in ("guess-x", SERVICE_TOKEN):
            with pytest.raises(grpc.RpcError) as failure:
                _ledger(canned, token).PostSettlement(SETTLEMENT)
            assert failure.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "10 wrong tokens from this client address in 60 s" in failure.value.details()
        assert unknown._value.get() - before_unknown == auth.AUTH_FAILURES_PER_PEER
        assert throttled._value.get() - before_throttled == 2
        # Anonymous calls to public methods are not slowed.
        assert (
            _ledger(canned, None)
            .GetStandings(ledger_pb2.LedgerServiceGetStandingsRequest(tournament_id="t1"))
            .standings
        )
    finally:
        canned.server.stop(grace=0)
