"""The thin gRPC layer of the ledger: messages in, :class:`~hebei.ledger.journal.Ledger` calls,
messages out. Errors are domain errors, mapped to status codes by the bootstrap's
ErrorInterceptor; the tokens of PostSettlement, PostAdjustment, CancelAdjustment (service) and
ReverseEntry (operator) are checked by its AuthInterceptor. Every field is checked by the
ledger (hebei.ledger.model) before any work.

The public reads (GetStandings, GetHistory, Audit) of anonymous callers are bounded: at most
``max_reads`` at once, ``max_reads_per_peer`` from one client address, more RESOURCE_EXHAUSTED
before any work. Each holds a pool connection while it reads (an Audit of a journal of 200,000
entries for 2.4 s), so the rest of the pool is left to the bookings. Calls with a token
(matchmaking's standings) are not counted. An anonymous read is cancelled after
``read_seconds`` (RESOURCE_EXHAUSTED)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import grpc
from google.protobuf import json_format
from google.protobuf.message import Message

from hebei.common.auth import has_token
from hebei.common.errors import InvalidArgument
from hebei.common.quota import CallQuota, peer_host
from hebei.ledger import metrics
from hebei.ledger.audit import AuditReport
from hebei.ledger.history import Entry
from hebei.ledger.journal import Ledger
from hebei.ledger.model import parse_entry_id
from hebei.ledger.standings import Standing
from hebei.v1 import ledger_pb2, ledger_pb2_grpc, types_pb2

__all__ = ["SERVICE_NAME", "LedgerServicer", "adjustment_to_dict", "settlement_to_dict"]

SERVICE_NAME = ledger_pb2.DESCRIPTOR.services_by_name["LedgerService"].full_name

_ENTRY_KINDS = {
    "settlement": ledger_pb2.ENTRY_KIND_SETTLEMENT,
    "reversal": ledger_pb2.ENTRY_KIND_REVERSAL,
    "correction": ledger_pb2.ENTRY_KIND_CORRECTION,
    "adjustment": ledger_pb2.ENTRY_KIND_ADJUSTMENT,
}
NO_SEAT = -1  # Posting.seat of an adjustment's lines
# Anonymous public reads at once, in all and from one client address (see service.py).
MAX_READS = 4
MAX_READS_PER_PEER = 2
# How long an anonymous read may run (its statements are cancelled after it).
READ_SECONDS = 10.0
_MAX_CONVERSION_MESSAGE = 200


def _to_dict(message: Message, path: str) -> dict[str, Any]:
    """The protobuf JSON mapping of ``message``; a value the mapping cannot express (a
    Timestamp out of its range, nanos beyond a second) is INVALID_ARGUMENT."""
    try:
        return json_format.MessageToDict(message, preserving_proto_field_name=True)
    except json_format.Error as error:
        text = str(error)
        if len(text) > _MAX_CONVERSION_MESSAGE:
            text = text[:_MAX_CONVERSION_MESSAGE] + "…"
        raise InvalidArgument(f"{path}: {text}") from None


def settlement_to_dict(message: types_pb2.Settlement, path: str = "settlement") -> dict[str, Any]:
    """The protobuf JSON mapping of a Settlement, as the ledger's model reads it."""
    return _to_dict(message, path)


def adjustment_to_dict(message: ledger_pb2.Adjustment) -> dict[str, Any]:
    """The protobuf JSON mapping of an Adjustment, as the ledger's model reads it."""
    return _to_dict(message, "adjustment")


def _entry_to_proto(entry: Entry) -> ledger_pb2.LedgerEntry:
    message = ledger_pb2.LedgerEntry(
        entry_id=str(entry.entry_id),
        kind=_ENTRY_KINDS[entry.kind],
        idempotency_key=entry.idempotency_key,
        postings=[
            ledger_pb2.Posting(
                player_id=p.player_id,
                seat=NO_SEAT if p.seat is None else p.seat,
                amount=p.amount,
                component=p.component,
            )
            for p in entry.postings
        ],
        reverses_entry_id=str(entry.reverses_entry_id or ""),
        reversed_by_entry_id=str(entry.reversed_by_entry_id or ""),
        reason=entry.reason,
    )
    if entry.settlement is not None:
        json_format.ParseDict(entry.settlement, message.settlement, ignore_unknown_fields=True)
    if entry.adjustment is not None:
        json_format.ParseDict(entry.adjustment, message.adjustment, ignore_unknown_fields=True)
    message.booked_at.FromDatetime(entry.booked_at)
    return message


def _standing_to_proto(standing: Standing) -> types_pb2.Standing:
    return types_pb2.Standing(
        rank=standing.rank,
        player_id=standing.player_id,
        points=standing.points,
        hands_won=standing.hands_won,
        self_draw_wins=standing.self_draw_wins,
        hands_dealt_in=standing.hands_dealt_in,
        best_match_points=standing.best_match_points,
        hands_played=standing.hands_played,
        matches_played=standing.matches_played,
        kong_points=standing.kong_points,
        penalty_points=standing.penalty_points,
        placement_points=standing.placement_points,
        replacement_points=standing.replacement_points,
        award_points=standing.award_points,
        correction_points=standing.correction_points,
    )


def _audit_to_proto(report: AuditReport) -> ledger_pb2.AuditResponse:
    return ledger_pb2.AuditResponse(
        entries_checked=report.entries_checked,
        postings_checked=report.postings_checked,
        unbalanced_entries=report.unbalanced_entries,
        balance_mismatches=report.balance_mismatches,
        tournaments=[
            ledger_pb2.TournamentSum(
                tournament_id=t.tournament_id, entries=t.entries, total=t.total
            )
            for t in report.tournaments
        ],
        ok=report.ok,
        problems=list(report.problems),
        tournaments_checked=report.tournaments_checked,
    )


class LedgerServicer(ledger_pb2_grpc.LedgerServiceServicer):
    """hebei.v1.LedgerService over a :class:`Ledger`."""

    def __init__(
        self,
        ledger: Ledger,
        *,
        max_reads: int = MAX_READS,
        max_reads_per_peer: int = MAX_READS_PER_PEER,
        read_seconds: float = READ_SECONDS,
    ) -> None:
        self.ledger = ledger
        metrics.LAST_AUDIT.set(ledger.last_audit() or 0)  # stored: a restart keeps it
        self.reads = CallQuota("GetStandings, GetHistory and Audit", max_reads, max_reads_per_peer)
        self.read_seconds = read_seconds

    @contextlib.contextmanager
    def _public_read(self, context: grpc.ServicerContext) -> Iterator[float | None]:
        """For the call's ``with`` block: a slot of the anonymous reads' quota, yielding the time
        its reading may take (a call with a token: no slot, no limit)."""
        if has_token(context):
            yield None
            return
        with self.reads.slot(peer_host(context.peer())):
            yield self.read_seconds

    def PostSettlement(
        self, request: ledger_pb2.PostSettlementRequest, context: grpc.ServicerContext
    ) -> ledger_pb2.PostSettlementResponse:
        """Book a hand's settlement (idempotent by key)."""
        if not request.HasField("settlement"):
            raise InvalidArgument("settlement: missing")
        result = self.ledger.post_settlement(settlement_to_dict(request.settlement))
        return ledger_pb2.PostSettlementResponse(
            entry_id=str(result.entry_id), duplicate=result.duplicate
        )

    def ReverseEntry(
        self, request: ledger_pb2.ReverseEntryRequest, context: grpc.ServicerContext
    ) -> ledger_pb2.ReverseEntryResponse:
        """Reverse an entry, optionally re-entering the corrected settlement (operator)."""
        entry_id = parse_entry_id(request.entry_id, "entry_id")
        corrected = (
            settlement_to_dict(request.corrected, "corrected")
            if request.HasField("corrected")
            else None
        )
        result = self.ledger.reverse_entry(entry_id, request.reason, corrected)
        return ledger_pb2.ReverseEntryResponse(
            reversal_entry_id=str(result.reversal_entry_id),
            correction_entry_id=str(result.correction_entry_id or ""),
        )

    def PostAdjustment(
        self, request: ledger_pb2.PostAdjustmentRequest, context: grpc.ServicerContext
    ) -> ledger_pb2.PostAdjustmentResponse:
        """Book a penalty, placement points or a replaced match's fixed total (idempotent)."""
        if not request.HasField("adjustment"):
            raise InvalidArgument("adjustment: missing")
        result = self.ledger.post_adjustment(adjustment_to_dict(request.adjustment))
        return ledger_pb2.PostAdjustmentResponse(
            entry_id=str(result.entry_id), duplicate=result.duplicate
        )

    def CancelAdjustment(
        self, request: ledger_pb2.CancelAdjustmentRequest, context: grpc.ServicerContext
    ) -> ledger_pb2.CancelAdjustmentResponse:
        """Reverse an adjustment entry, with a reason (idempotent by key)."""
        result = self.ledger.cancel_adjustment(
            parse_entry_id(request.entry_id, "entry_id"), request.reason, request.idempotency_key
        )
        return ledger_pb2.CancelAdjustmentResponse(
            reversal_entry_id=str(result.reversal_entry_id), duplicate=result.duplicate
        )

    def GetStandings(
        self,
        request: ledger_pb2.LedgerServiceGetStandingsRequest,
        context: grpc.ServicerContext,
    ) -> ledger_pb2.LedgerServiceGetStandingsResponse:
        """A tournament's standings ("" is quick play)."""
        with self._public_read(context) as time_limit:
            standings = self.ledger.standings(
                request.tournament_id, time_limit=time_limit, public=not has_token(context)
            )
        return ledger_pb2.LedgerServiceGetStandingsResponse(
            standings=[_standing_to_proto(s) for s in standings]
        )

    def GetHistory(
        self, request: ledger_pb2.GetHistoryRequest, context: grpc.ServicerContext
    ) -> ledger_pb2.GetHistoryResponse:
        """A page of journal entries, newest first."""
        with self._public_read(context) as time_limit:
            page = self.ledger.history(
                player_id=request.player_id,
                table_id=request.table_id,
                tournament_id=request.tournament_id or None,
                match_id=request.match_id,
                page_size=request.page_size,
                page_token=request.page_token,
                time_limit=time_limit,
                public=not has_token(context),
            )
        return ledger_pb2.GetHistoryResponse(
            entries=[_entry_to_proto(e) for e in page.entries],
            next_page_token=page.next_page_token,
        )

    def SetResultsHidden(
        self, request: ledger_pb2.SetResultsHiddenRequest, context: grpc.ServicerContext
    ) -> ledger_pb2.SetResultsHiddenResponse:
        """Hide a tournament's results from anonymous reads, or show them again (service)."""
        hidden = self.ledger.set_results_hidden(request.tournament_id, request.hidden)
        return ledger_pb2.SetResultsHiddenResponse(hidden=hidden)

    def Audit(
        self, request: ledger_pb2.AuditRequest, context: grpc.ServicerContext
    ) -> ledger_pb2.AuditResponse:
        """Check the invariants and return the figures. Only an audit of the whole ledger sets
        the problems gauge operators alert on: one tournament's audit, sound while another is
        not, must not clear it."""
        with self._public_read(context) as time_limit:
            report = self.ledger.audit(request.tournament_id or None, time_limit=time_limit)
        metrics.AUDITS.labels("ok" if report.ok else "failed").inc()
        if not request.tournament_id:
            metrics.AUDIT_PROBLEMS.set(len(report.problems))
            if report.ok:
                metrics.LAST_AUDIT.set(self.ledger.record_audit())
        return _audit_to_proto(report)
