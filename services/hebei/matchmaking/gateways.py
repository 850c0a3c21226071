"""The services matchmaking drives, through their contracts: the table engine, the ledger and
the bot fleet. Failures come back as domain errors (UNAVAILABLE when a service is down), so an
RPC handler can pass them on and the round director can simply try again on its next tick."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import grpc

from hebei.common.client import IDEMPOTENT_METHODS, create_channel
from hebei.common.errors import (
    AlreadyExists,
    DomainError,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    ResourceExhausted,
    Unavailable,
)
from hebei.common.routing import DEFAULT_DEADLINE_SECONDS, MatchRouter
from hebei.common.routing.fanout import ask_every_entry, merge_matches
from hebei.common.tls import ClientTls
from hebei.fleet.ticket import SeatTicket
from hebei.v1 import ledger_pb2, ledger_pb2_grpc, table_pb2, table_pb2_grpc
from hebei.v1 import types_pb2 as pb

__all__ = ["BotFleet", "LedgerGateway", "TableGateway", "remote_errors"]

log = logging.getLogger(__name__)

CALL_TIMEOUT = 10.0
TABLE_SERVICE = "hebei.v1.TableService"
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
    """The table engine's replicas: open, read and dissolve matches.

    ``addresses``: the entries, one ``host:port`` or a comma-separated list naming every
    replica (:func:`~hebei.common.routing.parse_addresses`; ValueError for a bad one). Each
    call on one match goes to its owner through a
    :class:`~hebei.common.routing.MatchRouter` (redirects and takeovers followed within
    ``timeout``, and sent again only when :data:`~hebei.common.client.IDEMPOTENT_METHODS`
    allows); the calls that span matches (:meth:`tournament_matches`, :meth:`reveal_results`)
    ask every entry (:mod:`hebei.common.routing.fanout`)."""

    def __init__(
        self,
        addresses: str,
        token: str,
        *,
        timeout: float = CALL_TIMEOUT,
        tls: ClientTls | None = None,
    ) -> None:
        self.router = MatchRouter(addresses, token=token, tls=tls, timeout=timeout)
        self.entries = self.router.entries
        self.address = ",".join(self.entries)
        self.timeout = timeout
        self.deadline = max(timeout, DEFAULT_DEADLINE_SECONDS)

    def _match_call(self, match_id: str, method: str, request: Any) -> Any:
        """``method`` on ``match_id``'s owner."""

        def attempt(channel: grpc.Channel, timeout: float) -> Any:
            return getattr(table_pb2_grpc.TableServiceStub(channel), method)(
                request, timeout=timeout
            )

        with remote_errors("table engine"):
            return self.router.call(
                match_id,
                attempt,
                deadline=self.deadline,
                attempt_timeout=self.timeout,
                idempotent=method in IDEMPOTENT_METHODS[TABLE_SERVICE],
            )

    def open_match(self, request: table_pb2.OpenMatchRequest) -> table_pb2.MatchInfo:
        return self._match_call(request.match_id, "OpenMatch", request).match

    def get_match(self, match_id: str) -> table_pb2.MatchInfo:
        request = table_pb2.GetMatchRequest(match_id=match_id)
        return self._match_call(match_id, "GetMatch", request).match

    def reveal_results(self, tournament_id: str, round_no: int = 0) -> int:
        """Show the hidden results of the tournament's matches (of ``round_no``; 0: all), at
        every replica (each shows those it holds); the number revealed, all told."""
        request = table_pb2.RevealMatchResultsRequest(
            tournament_id=tournament_id, round_no=round_no
        )

        def reveal(channel: grpc.Channel, timeout: float) -> int:
            stub = table_pb2_grpc.TableServiceStub(channel)
            return stub.RevealMatchResults(request, timeout=timeout).revealed

        with remote_errors("table engine"):
            return sum(ask_every_entry(self.router, reveal, self.timeout))

    def tournament_matches(self, tournament_id: str) -> list[table_pb2.MatchInfo]:
        """Every match the engine has for ``tournament_id`` (all pages, every replica, each
        match once)."""

        def every_page(channel: grpc.Channel, timeout: float) -> list[table_pb2.MatchInfo]:
            stub = table_pb2_grpc.TableServiceStub(channel)
            out: list[table_pb2.MatchInfo] = []
            token = ""
            while True:
                request = table_pb2.ListTablesRequest(
                    tournament_id=tournament_id, page_size=500, page_token=token
                )
                page = stub.ListTables(request, timeout=timeout)
                out.extend(page.matches)
                token = page.next_page_token
                if not token:
                    return out

        with remote_errors("table engine"):
            return merge_matches(ask_every_entry(self.router, every_page, self.timeout))

    def dissolve(
        self, match_id: str, reason: str, *, only_if_no_person_joined: bool = False
    ) -> table_pb2.MatchInfo:
        """Dissolve a match; ``only_if_no_person_joined``: only while it waits for its seats
        and none of its people joined (else FailedPrecondition, the engine decides at once)."""
        request = table_pb2.DissolveRequest(
            match_id=match_id, reason=reason, only_if_no_person_joined=only_if_no_person_joined
        )
        return self._match_call(match_id, "Dissolve", request).match

    def replace_seat(
        self, match_id: str, seat: int, token: str, *, played_by: str, reason: str
    ) -> table_pb2.MatchInfo:
        """A bot plays ``seat`` from now on, with the new ``token`` (the old one stops working
        at once; empty: kept) and shown as ``played_by``."""
        request = table_pb2.ReplaceSeatRequest(
            match_id=match_id, seat=seat, seat_token=token, played_by=played_by, reason=reason
        )
        return self._match_call(match_id, "ReplaceSeat", request).match

    def conclude_match(self, match_id: str, reason: str) -> table_pb2.MatchInfo:
        """End a match after its hand in progress (idempotent)."""
        request = table_pb2.ConcludeMatchRequest(match_id=match_id, reason=reason)
        return self._match_call(match_id, "ConcludeMatch", request).match

    def close(self) -> None:
        self.router.close()


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
