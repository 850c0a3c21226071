"""The services matchmaking drives, through their contracts: the table engine, the ledger and
the bot fleet. Failures come back as domain errors (UNAVAILABLE when a service is down), so an
RPC handler can pass them on and the round director can simply try again on its next tick."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import grpc

from hebei.common.client import create_channel
from hebei.common.errors import (
    AlreadyExists,
    DomainError,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    ResourceExhausted,
    Unavailable,
)
from hebei.common.tls import ClientTls
from hebei.fleet.ticket import SeatTicket
from hebei.v1 import ledger_pb2, ledger_pb2_grpc, table_pb2, table_pb2_grpc
from hebei.v1 import types_pb2 as pb

__all__ = ["BotFleet", "LedgerGateway", "TableGateway", "remote_errors"]

log = logging.getLogger(__name__)

CALL_TIMEOUT = 10.0
_CODES: dict[grpc.StatusCode, type[DomainError]] = {
    grpc.StatusCode.INVALID_ARGUMENT: InvalidArgument,
    grpc.StatusCode.NOT_FOUND: NotFound,
    grpc.StatusCode.ALREADY_EXISTS: AlreadyExists,
    grpc.StatusCode.FAILED_PRECONDITION: FailedPrecondition,
    grpc.StatusCode.RESOURCE_EXHAUSTED: ResourceExhausted,
}


@contextlib.contextmanager
def remote_errors(service: str) -> Iterator[None]:
    """Map a failed call to ``service`` to a domain error naming it."""
    try:
        yield
    except grpc.RpcError as error:
        code = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
        details = (error.details() if hasattr(error, "details") else "") or code.name
        kind = _CODES.get(code, Unavailable)
        raise kind(f"{service}: {details}") from None


class TableGateway:
    """The table engine: open, read and dissolve matches."""

    def __init__(
        self,
        address: str,
        token: str,
        *,
        timeout: float = CALL_TIMEOUT,
        tls: ClientTls | None = None,
    ) -> None:
        self.address = address
        self.channel = create_channel(address, token=token, timeout=timeout, tls=tls)
        self.stub = table_pb2_grpc.TableServiceStub(self.channel)

    def open_match(self, request: table_pb2.OpenMatchRequest) -> table_pb2.MatchInfo:
        with remote_errors("table engine"):
            return self.stub.OpenMatch(request).match

    def get_match(self, match_id: str) -> table_pb2.MatchInfo:
        with remote_errors("table engine"):
            return self.stub.GetMatch(table_pb2.GetMatchRequest(match_id=match_id)).match

    def reveal_results(self, tournament_id: str, round_no: int = 0) -> int:
        """Show the hidden results of the tournament's matches (of ``round_no``; 0: all)."""
        with remote_errors("table engine"):
            request = table_pb2.RevealMatchResultsRequest(
                tournament_id=tournament_id, round_no=round_no
            )
            return self.stub.RevealMatchResults(request).revealed

    def tournament_matches(self, tournament_id: str) -> list[table_pb2.MatchInfo]:
        """Every match the engine has for ``tournament_id`` (all pages)."""
        out: list[table_pb2.MatchInfo] = []
        token = ""
        with remote_errors("table engine"):
            while True:
                page = self.stub.ListTables(
                    table_pb2.ListTablesRequest(
                        tournament_id=tournament_id, page_size=500, page_token=token
                    )
                )
                out.extend(page.matches)
                token = page.next_page_token
                if not token:
                    return out

    def dissolve(
        self, match_id: str, reason: str, *, only_if_no_person_joined: bool = False
    ) -> table_pb2.MatchInfo:
        """Dissolve a match; ``only_if_no_person_joined``: only while it waits for its seats
        and none of its people joined (else FailedPrecondition, the engine decides at once)."""
        with remote_errors("table engine"):
            request = table_pb2.DissolveRequest(
                match_id=match_id,
                reason=reason,
                only_if_no_person_joined=only_if_no_person_joined,
            )
            return self.stub.Dissolve(request).match

    def replace_seat(
        self, match_id: str, seat: int, token: str, *, played_by: str, reason: str
    ) -> table_pb2.MatchInfo:
        """A bot plays ``seat`` from now on, with the new ``token`` (the old one stops working
        at once; empty: kept) and shown as ``played_by``."""
        with remote_errors("table engine"):
            request = table_pb2.ReplaceSeatRequest(
                match_id=match_id, seat=seat, seat_token=token, played_by=played_by,
                reason=reason,
            )  # fmt: skip
            return self.stub.ReplaceSeat(request).match

    def conclude_match(self, match_id: str, reason: str) -> table_pb2.MatchInfo:
        """End a match after its hand in progress (idempotent)."""
        with remote_errors("table engine"):
            request = table_pb2.ConcludeMatchRequest(match_id=match_id, reason=reason)
            return self.stub.ConcludeMatch(request).match

    def close(self) -> None:
        self.channel.close()


@dataclass(frozen=True, slots=True)
class Line:
    """One line of a ledger adjustment."""

    player_id: str
    amount: int


class LedgerGateway:
    """The ledger: standings, and the adjustments matchmaking books (penalties, placement
    points, fixed points of replaced matches)."""

    def __init__(
        self,
        address: str,
        token: str,
        *,
        timeout: float = CALL_TIMEOUT,
        tls: ClientTls | None = None,
    ) -> None:
        self.channel = create_channel(address, token=token, timeout=timeout, tls=tls)
        self.stub = ledger_pb2_grpc.LedgerServiceStub(self.channel)

    def standings(self, tournament_id: str) -> list[pb.Standing]:
        with remote_errors("ledger"):
            request = ledger_pb2.LedgerServiceGetStandingsRequest(tournament_id=tournament_id)
            return list(self.stub.GetStandings(request).standings)

    def post_adjustment(
        self,
        *,
        key: str,
        tournament_id: str,
        kind: int,
        lines: Sequence[Line],
        reason: str,
        assigned_by: str = "matchmaking",
        round_no: int = 0,
        match_id: str = "",
    ) -> str:
        """Book one adjustment (idempotent by ``key``); return its entry id."""
        adjustment = ledger_pb2.Adjustment(
            idempotency_key=key,
            tournament_id=tournament_id,
            round_no=round_no,
            match_id=match_id,
            kind=kind,
            lines=[
                ledger_pb2.AdjustmentLine(player_id=x.player_id, amount=x.amount) for x in lines
            ],
            reason=reason,
            assigned_by=assigned_by,
        )
        with remote_errors("ledger"):
            request = ledger_pb2.PostAdjustmentRequest(adjustment=adjustment)
            return self.stub.PostAdjustment(request).entry_id

    def cancel_adjustment(self, entry_id: str, reason: str, key: str) -> str:
        """Reverse an adjustment entry (idempotent by ``key``); return the reversal's id."""
        with remote_errors("ledger"):
            request = ledger_pb2.CancelAdjustmentRequest(
                entry_id=entry_id, reason=reason, idempotency_key=key
            )
            return self.stub.CancelAdjustment(request).reversal_entry_id

    def set_results_hidden(self, tournament_id: str, hidden: bool) -> None:
        """Hide the tournament's results from the ledger's anonymous reads, or show them."""
        with remote_errors("ledger"):
            self.stub.SetResultsHidden(
                ledger_pb2.SetResultsHiddenRequest(tournament_id=tournament_id, hidden=hidden)
            )

    def close(self) -> None:
        self.channel.close()


class BotFleet:
    """Queues seat tasks on the Celery bot fleet (one task plays one seat of one match),
    through the fleet's client (:mod:`hebei.fleet.client`: the ``SeatTask`` contract, sent
    by task name).

    ``tls``: the engine speaks TLS (the tickets say so); each worker's own CA and client
    certificate (``HEBEI_BOTS_TLS_*``) decide the credentials, never the ticket."""

    def __init__(self, table_address: str, *, tls: bool = False) -> None:
        self.table_address = table_address  # where the workers reach the table engine
        self.tls = tls

    def send(
        self, match_id: str, seat: int, token: str, policy: str, level: int, seed: int
    ) -> None:
        try:
            ticket = SeatTicket(
                self.table_address, match_id, seat, token, policy, level or None, seed, tls=self.tls
            )
            self.queue(ticket)
        except ValueError as exc:
            raise InvalidArgument(str(exc)) from None
        except Exception as exc:  # the broker is down: kombu/redis errors of many kinds
            raise Unavailable(f"bot fleet: cannot queue a seat task: {exc}") from None

    def queue(self, ticket: SeatTicket) -> None:
        """Hand one seat to the fleet (ValueError for a ticket it refuses)."""
        from hebei.fleet.client import send_seat  # Celery, loaded on the first seat

        send_seat(ticket)
