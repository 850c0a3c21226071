"""Bad input found by the security review (issue 10): every malformed request gets a clear
INVALID_ARGUMENT (or FAILED_PRECONDITION for a balance that would overflow), never INTERNAL,
never a huge value echoed back, and nothing is booked."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from hebei.common.auth import bearer_metadata
from hebei.common.errors import FailedPrecondition
from hebei.ledger import TOURNAMENT_ACCOUNT
from hebei.ledger.journal import Ledger
from hebei.ledger.servicer import adjustment_to_dict, settlement_to_dict
from hebei.v1 import ledger_pb2, types_pb2
from tests.integration.ledger.conftest import (
    OPERATOR_TOKEN,
    SERVICE_TOKEN,
    LedgerServer,
    hand_settlement,
)

AS_SERVICE = bearer_metadata(SERVICE_TOKEN)
AS_OPERATOR = bearer_metadata(OPERATOR_TOKEN)
Make = Callable[..., dict[str, Any]]
Path = tuple[tuple[str, int | None], ...]


def _status(
    method: Callable[..., Any], request: Message, metadata: Any = ()
) -> tuple[grpc.StatusCode, str]:
    """The status of a call expected to fail."""
    with pytest.raises(grpc.RpcError) as raised:
        method(request, metadata=metadata)
    return raised.value.code(), raised.value.details()


def _settlement(
    make: Make, match: str = "m1", hand: int = 1, **fields: Any
) -> types_pb2.Settlement:
    message = types_pb2.Settlement()
    json_format.ParseDict(make(match, hand, seed=5, tournament_id="cup", **fields), message)
    message.ended_at.FromSeconds(1_700_000_000)
    message.wins[0].melds.add(kind=types_pb2.MELD_KIND_PONG, tile=types_pb2.TILE_RED)
    return message


def _penalty(key: str = "pen:1", points: int = 5) -> ledger_pb2.Adjustment:
    return ledger_pb2.Adjustment(
        idempotency_key=key, tournament_id="cup", round_no=1, match_id="m1",
        kind=ledger_pb2.ADJUSTMENT_KIND_PENALTY,
        lines=[ledger_pb2.AdjustmentLine(player_id="p1", amount=-points),
               ledger_pb2.AdjustmentLine(player_id=TOURNAMENT_ACCOUNT, amount=points)],
        reason="late", assigned_by="referee",
    )  # fmt: skip


def _requests(make: Make) -> dict[str, tuple[Message, tuple[tuple[str, str], ...]]]:
    """A valid request of every RPC (with every string field filled), and its credentials."""
    return {
        "PostSettlement": (
            ledger_pb2.PostSettlementRequest(settlement=_settlement(make)),
            AS_SERVICE,
        ),
        "ReverseEntry": (
            ledger_pb2.ReverseEntryRequest(
                entry_id="1", reason="typo", corrected=_settlement(make)
            ),
            AS_OPERATOR,
        ),
        "PostAdjustment": (ledger_pb2.PostAdjustmentRequest(adjustment=_penalty()), AS_SERVICE),
        "CancelAdjustment": (
            ledger_pb2.CancelAdjustmentRequest(entry_id="2", reason="appeal", idempotency_key="c1"),
            AS_SERVICE,
        ),
        "GetStandings": (ledger_pb2.LedgerServiceGetStandingsRequest(tournament_id="cup"), ()),
        "GetHistory": (
            ledger_pb2.GetHistoryRequest(
                page_token="9",
                player_id="p1",
                table_id="table-1",
                tournament_id="cup",
                match_id="m1",
            ),
            (),
        ),
        "Audit": (ledger_pb2.AuditRequest(tournament_id="cup"), ()),
    }


def _string_paths(message: Message, prefix: Path = ()) -> Iterator[Path]:
    """The path of every string set in ``message``, through nested and repeated messages."""
    for field, value in message.ListFields():
        items = list(enumerate(value)) if field.is_repeated else [(None, value)]
        for index, item in items:
            path = (*prefix, (field.name, index))
            if field.type == FieldDescriptor.TYPE_STRING:
                yield path
            elif field.type == FieldDescriptor.TYPE_MESSAGE:
                yield from _string_paths(item, path)


def _replaced(request: Message, path: Path, change: Callable[[str], str]) -> Message:
    copy = type(request)()
    copy.CopyFrom(request)
    target: Any = copy
    for name, index in path[:-1]:
        target = getattr(target, name) if index is None else getattr(target, name)[index]
    name, index = path[-1]
    if index is None:
        setattr(target, name, change(getattr(target, name)))
    else:
        getattr(target, name)[index] = change(getattr(target, name)[index])
    return copy


def _cases(make: Make) -> list[tuple[str, Path]]:
    return [
        (rpc, path) for rpc, (request, _) in _requests(make).items()
        for path in _string_paths(request)
    ]  # fmt: skip


def _label(path: Path) -> str:
    return ".".join(name if index is None else f"{name}[{index}]" for name, index in path)


@pytest.fixture
def booked_server(ledger_server: LedgerServer, make_settlement: Make) -> LedgerServer:
    """The ledger server holding the settlement (entry 1) and the penalty (entry 2) that the
    requests of _requests refer to."""
    ledger_server.ledger.post_settlement(settlement_to_dict(_settlement(make_settlement)))
    ledger_server.ledger.post_adjustment(adjustment_to_dict(_penalty()))
    return ledger_server


def test_every_rpc_has_string_fields_to_check(make_settlement: Make):
    cases = {(rpc, _label(path)) for rpc, path in _cases(make_settlement)}
    assert len(cases) >= 30
    assert ("PostSettlement", "settlement.wins[0].fans[0].name_zh") in cases
    assert ("PostAdjustment", "adjustment.lines[1].player_id") in cases
    assert ("GetHistory", "page_token") in cases and ("Audit", "tournament_id") in cases


def test_the_valid_requests_are_valid(booked_server: LedgerServer, make_settlement: Make):
    """The requests the cases below spoil are accepted as they are."""
    stub = booked_server.stub()
    for rpc, (request, metadata) in _requests(make_settlement).items():
        getattr(stub, rpc)(request, metadata=metadata)
    # the reversal and correction of entry 1, the cancellation of entry 2
    assert booked_server.ledger.audit().entries_checked == 2 + 3


def test_nul_in_any_string_field_of_any_rpc_is_invalid_argument(
    booked_server: LedgerServer, make_settlement: Make
):
    stub = booked_server.stub()
    requests = _requests(make_settlement)
    failures = []
    for rpc, path in _cases(make_settlement):
        request, metadata = requests[rpc]
        spoiled = _replaced(request, path, lambda text: text[:1] + "\x00" + text[1:])
        code, message = _status(getattr(stub, rpc), spoiled, metadata)
        if code != grpc.StatusCode.INVALID_ARGUMENT or path[-1][0] not in message:
            failures.append((rpc, _label(path), code, message))
    assert failures == []
    assert booked_server.ledger.audit().entries_checked == 2  # nothing booked


def test_huge_strings_are_refused_and_never_echoed_whole(
    booked_server: LedgerServer, make_settlement: Make
):
    stub = booked_server.stub()
    requests = _requests(make_settlement)
    huge = "é" * 100_000
    failures = []
    for rpc, path in _cases(make_settlement):
        request, metadata = requests[rpc]
        spoiled = _replaced(request, path, lambda text: text + huge)
        code, message = _status(getattr(stub, rpc), spoiled, metadata)
        if code != grpc.StatusCode.INVALID_ARGUMENT or len(message) > 200:
            failures.append((rpc, _label(path), code, message[:300]))
    assert failures == []
    assert booked_server.ledger.audit().entries_checked == 2


@pytest.mark.parametrize(
    ("seconds", "nanos"),
    [(2**62, 0), (-(2**62), 0), (253_402_300_800, 0), (1_700_000_000, -1),
     (1_700_000_000, 1_000_000_000)],
)  # fmt: skip
def test_timestamps_out_of_range_are_invalid_argument(
    ledger_server: LedgerServer, make_settlement: Make, seconds: int, nanos: int
):
    stub = ledger_server.stub()
    settlement = _settlement(make_settlement)
    settlement.ended_at.seconds, settlement.ended_at.nanos = seconds, nanos
    request = ledger_pb2.PostSettlementRequest(settlement=settlement)
    code, message = _status(stub.PostSettlement, request, AS_SERVICE)
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert message.startswith("settlement: ") and "ended_at" in message
    first = stub.PostSettlement(
        ledger_pb2.PostSettlementRequest(settlement=_settlement(make_settlement)),
        metadata=AS_SERVICE,
    )
    reverse = ledger_pb2.ReverseEntryRequest(
        entry_id=first.entry_id, reason="x", corrected=settlement
    )
    code, message = _status(stub.ReverseEntry, reverse, AS_OPERATOR)
    assert code == grpc.StatusCode.INVALID_ARGUMENT and message.startswith("corrected: ")
    assert ledger_server.ledger.audit().entries_checked == 1


def test_entry_ids_and_page_tokens_are_ascii_decimal(
    ledger_server: LedgerServer, make_settlement: Make
):
    stub = ledger_server.stub()
    ledger = ledger_server.ledger
    for hand in range(1, 13):
        ledger.post_settlement(make_settlement("m1", hand))
    ledger.post_adjustment(adjustment_to_dict(_penalty()))
    for text in ("²", "١٢", "١٣", "１２", "12²", " 12", "12\n", "99999999999999999999", "0", "-1"):
        reverse = ledger_pb2.ReverseEntryRequest(entry_id=text, reason="typo")
        assert _status(stub.ReverseEntry, reverse, AS_OPERATOR) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            f"entry_id: expected an entry id, got {text!r}",
        )
        cancel = ledger_pb2.CancelAdjustmentRequest(entry_id=text, reason="x", idempotency_key="k")
        code, message = _status(stub.CancelAdjustment, cancel, AS_SERVICE)
        assert code == grpc.StatusCode.INVALID_ARGUMENT and message.startswith("entry_id:")
        page = ledger_pb2.GetHistoryRequest(page_token=text)
        code, message = _status(stub.GetHistory, page)
        assert code == grpc.StatusCode.INVALID_ARGUMENT and message.startswith("page_token:")
    assert ledger.audit().entries_checked == 13  # "١٢" did not reverse entry 12
    assert stub.ReverseEntry(
        ledger_pb2.ReverseEntryRequest(entry_id="12", reason="typo"), metadata=AS_OPERATOR
    ).reversal_entry_id
    tokens = stub.GetHistory(ledger_pb2.GetHistoryRequest(page_size=5, page_token="13"))
    assert [e.entry_id for e in tokens.entries] == ["12", "11", "10", "9", "8"]


def test_amounts_beyond_the_bound_are_invalid_argument(
    ledger_server: LedgerServer, make_settlement: Make
):
    stub = ledger_server.stub()
    big = 2**62  # balanced, so only the bound refuses it (twice would overflow a balance)
    settlement = hand_settlement("m1", 1, ["a", "b", "c", "d"], [big, -big, 0, 0], winner=0,
                                 discarder=1)  # fmt: skip
    request = ledger_pb2.PostSettlementRequest()
    json_format.ParseDict(settlement, request.settlement)
    code, message = _status(stub.PostSettlement, request, AS_SERVICE)
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert "out of range: an amount is at most 10^12 in absolute value" in message
    penalty = ledger_pb2.PostAdjustmentRequest(adjustment=_penalty(points=10**12 + 1))
    code, message = _status(stub.PostAdjustment, penalty, AS_SERVICE)
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "at most 10^12" in message
    limit = ledger_pb2.PostAdjustmentRequest(adjustment=_penalty(points=10**12))
    assert not stub.PostAdjustment(limit, metadata=AS_SERVICE).duplicate


@pytest.mark.parametrize("component", ["kong", "hand"])
def test_an_exhaustive_draw_with_points_is_invalid_argument(
    ledger_server: LedgerServer, component: str
):
    deltas = [3, -1, -1, -1]
    settlement = hand_settlement(
        "m1", 1, ["a", "b", "c", "d"],
        deltas if component == "hand" else [0, 0, 0, 0],
        kong=deltas if component == "kong" else None,
    )  # fmt: skip
    assert settlement["outcome"] == "HAND_OUTCOME_EXHAUSTIVE_DRAW"
    request = ledger_pb2.PostSettlementRequest()
    json_format.ParseDict(settlement, request.settlement)
    stub = ledger_server.stub()
    code, message = _status(stub.PostSettlement, request, AS_SERVICE)
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert message.startswith("settlement.results[0]: an exhaustive draw pays nothing")
    assert ledger_server.ledger.audit().entries_checked == 0


def _set_balance(ledger: Ledger, player: str, balance: int) -> None:
    """Bring an account near the bigint bound (as ~9 million maximal postings would)."""
    with ledger.pool.connection() as conn:
        conn.execute("UPDATE accounts SET balance = %s WHERE player_id = %s", (balance, player))


def test_a_balance_overflowing_int64_is_a_clear_refusal(ledger_server: LedgerServer):
    ledger = ledger_server.ledger
    players = ["a", "b", "c", "d"]
    ledger.post_settlement(hand_settlement("m1", 1, players, [1, -1, 0, 0], winner=0, discarder=1))
    _set_balance(ledger, "a", 2**63 - 10)
    request = ledger_pb2.PostSettlementRequest()
    json_format.ParseDict(
        hand_settlement("m1", 2, players, [20, -20, 0, 0], winner=0, discarder=1),
        request.settlement,
    )
    stub = ledger_server.stub()
    code, message = _status(stub.PostSettlement, request, AS_SERVICE)
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    assert "would leave the 64-bit range" in message
    assert ledger.audit().entries_checked == 1  # nothing booked
    # the ledger goes on: other accounts, and this one in the other direction
    ledger.post_settlement(
        hand_settlement("m1", 3, players, [-20, 20, 0, 0], winner=1, discarder=0)
    )
    assert ledger.audit().entries_checked == 2


def test_an_overflowing_settlement_fails_alone_in_a_group_commit(ledger: Ledger):
    """Posted together with others (maybe in one batch): only the overflowing one fails."""
    ledger.post_settlement(hand_settlement("m0", 1, ["a", "b", "c", "d"], [1, -1, 0, 0],
                                           winner=0, discarder=1))  # fmt: skip
    _set_balance(ledger, "a", 2**63 - 10)
    posters = 8
    start = threading.Barrier(posters)
    outcomes: dict[int, Any] = {}

    def post(index: int) -> None:
        players = ["a", "b", "c", "d"] if index == 0 else [f"p{index}-{s}" for s in range(4)]
        settlement = hand_settlement(f"m{index + 1}", 1, players, [20, -20, 0, 0], winner=0,
                                     discarder=1)  # fmt: skip
        start.wait()
        try:
            outcomes[index] = ledger.post_settlement(settlement)
        except Exception as error:  # asserted below
            outcomes[index] = error

    threads = [threading.Thread(target=post, args=(i,)) for i in range(posters)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert isinstance(outcomes[0], FailedPrecondition), outcomes[0]
    assert all(not outcomes[i].duplicate for i in range(1, posters)), outcomes
    assert ledger.audit().entries_checked == posters
