"""Small test-only servicers of real contracts, with canned answers, for the bootstrap tests.

Behaviour is chosen by request fields so the same servicers serve in-process tests and the
subprocess server (server_main.py):

- ``PostSettlement``: sleeps ``settlement.round_no`` milliseconds (a call to keep in flight).
- ``ReverseEntry``: entry "missing" -> NotFound, "boom" -> a bare RuntimeError, "illegal" ->
  hebei.rules IllegalActionError, "flaky:<n>" -> UNAVAILABLE for the first n attempts
  ("cancelled:<n>": CANCELLED),
  "echo:<text>" -> NotFound quoting the whole id (a message that would echo a huge value).
- ``GetHistory``: player "flaky:<n>" -> UNAVAILABLE for the first n attempts, "cancelled:<n>"
  -> CANCELLED (what a stopping server answers a call it had not handled) likewise.
- ``GetStandings``: tournament "conflict" -> Conflict (ABORTED), counting attempts.
- ``Spectate``: ``from_seq`` events.  ``Play``: Join with token "seat-<seat>", then one
  observation per action.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator

import grpc

from hebei.common.auth import check_seat_token
from hebei.common.errors import Conflict, FailedPrecondition, NotFound
from hebei.common.server import ServiceSpec
from hebei.rules.errors import IllegalActionError
from hebei.v1 import ledger_pb2, ledger_pb2_grpc, table_pb2, table_pb2_grpc, types_pb2

SECRET_DETAIL = "secret-stack-detail"


def seat_token(seat: int) -> str:
    """The canned seat token of ``seat``."""
    return f"seat-{seat}"


class CannedLedger(ledger_pb2_grpc.LedgerServiceServicer):
    """LedgerService with canned answers; ``attempts`` counts calls per test key."""

    def __init__(self) -> None:
        self.attempts: Counter[str] = Counter()
        self._lock = threading.Lock()

    def _attempt(self, key: str) -> int:
        with self._lock:
            self.attempts[key] += 1
            return self.attempts[key]

    def _flaky(self, key: str, context: grpc.ServicerContext) -> None:
        kind, _sep, count = key.partition(":")
        codes = {"flaky": grpc.StatusCode.UNAVAILABLE, "cancelled": grpc.StatusCode.CANCELLED}
        if kind in codes and self._attempt(key) <= int(count):
            context.abort(codes[kind], "try again")

    def PostSettlement(
        self, request: ledger_pb2.PostSettlementRequest, context: grpc.ServicerContext
    ) -> ledger_pb2.PostSettlementResponse:
        time.sleep(request.settlement.round_no / 1000)
        return ledger_pb2.PostSettlementResponse(
            entry_id=f"entry-{request.settlement.idempotency_key}"
        )

    def ReverseEntry(
        self, request: ledger_pb2.ReverseEntryRequest, context: grpc.ServicerContext
    ) -> ledger_pb2.ReverseEntryResponse:
        if request.entry_id == "missing":
            raise NotFound("no entry 'missing'")
        if request.entry_id == "boom":
            raise RuntimeError(SECRET_DETAIL)
        if request.entry_id == "illegal":
            raise IllegalActionError("not your turn")
        if request.entry_id.startswith("echo:"):
            raise NotFound(f"no entry {request.entry_id}")
        self._flaky(request.entry_id, context)
        return ledger_pb2.ReverseEntryResponse(reversal_entry_id=f"rev-{request.entry_id}")

    def GetHistory(
        self, request: ledger_pb2.GetHistoryRequest, context: grpc.ServicerContext
    ) -> ledger_pb2.GetHistoryResponse:
        self._flaky(request.player_id, context)
        return ledger_pb2.GetHistoryResponse(
            entries=[ledger_pb2.LedgerEntry(entry_id="e1", kind=ledger_pb2.ENTRY_KIND_SETTLEMENT)]
        )

    def GetStandings(
        self, request: ledger_pb2.LedgerServiceGetStandingsRequest, context: grpc.ServicerContext
    ) -> ledger_pb2.LedgerServiceGetStandingsResponse:
        if request.tournament_id == "conflict":
            self._attempt("conflict")
            raise Conflict("standings are being rebuilt")
        return ledger_pb2.LedgerServiceGetStandingsResponse(
            standings=[types_pb2.Standing(rank=1, player_id="p1", points=12)]
        )


class CannedTable(table_pb2_grpc.TableServiceServicer):
    """TableService with canned streams."""

    def Spectate(
        self, request: table_pb2.SpectateRequest, context: grpc.ServicerContext
    ) -> Iterator[table_pb2.SpectateResponse]:
        for seq in range(1, request.from_seq + 1):
            event = types_pb2.Event(
                seq=seq, match_id=request.match_id, type=types_pb2.EVENT_TYPE_DISCARD
            )
            yield table_pb2.SpectateResponse(event=event)

    def Play(
        self, request_iterator: Iterator[table_pb2.PlayRequest], context: grpc.ServicerContext
    ) -> Iterator[table_pb2.PlayResponse]:
        first = next(request_iterator, None)
        if first is None or first.WhichOneof("request") != "join":
            raise FailedPrecondition("the first message of Play must be a Join")
        join = first.join
        check_seat_token(seat_token(join.seat), join.seat_token)
        yield table_pb2.PlayResponse(
            observation=types_pb2.Observation(match_id=join.match_id, seat=join.seat, decision_id=1)
        )
        for message in request_iterator:
            decision = message.action.decision_id + 1
            observation = types_pb2.Observation(
                match_id=join.match_id, seat=join.seat, decision_id=decision
            )
            yield table_pb2.PlayResponse(observation=observation)


def canned_specs() -> tuple[list[ServiceSpec], CannedLedger, CannedTable]:
    """Service specs hosting fresh canned servicers."""
    ledger, table = CannedLedger(), CannedTable()
    specs = [
        ServiceSpec(
            "hebei.v1.LedgerService", ledger_pb2_grpc.add_LedgerServiceServicer_to_server, ledger
        ),
        ServiceSpec(
            "hebei.v1.TableService", table_pb2_grpc.add_TableServiceServicer_to_server, table
        ),
    ]
    return specs, ledger, table
