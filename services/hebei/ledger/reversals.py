"""Reversals: an entry's exact negation, booked as a new entry. A settlement or a correction is
reversed with ReverseEntry (an operator's, optionally with the corrected settlement in the same
transaction), an adjustment is cancelled with CancelAdjustment; either at most once. The journal
is append-only: nothing booked is ever changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import psycopg

from hebei.common.errors import Conflict, FailedPrecondition, InvalidArgument, NotFound
from hebei.ledger.booking import (
    FIND_BY_KEY,
    EntryBooking,
    EntryHeader,
    Line,
    hash_request,
    ledger_key,
    settlement_header,
    settlement_lines,
)
from hebei.ledger.model import (
    MAX_KEY_LENGTH,
    MAX_REASON_LENGTH,
    Settlement,
    check_entry_id,
    check_text,
    show,
)

__all__ = ["CancelResult", "Reversals", "ReverseResult"]


@dataclass(frozen=True)
class CancelResult:
    """An adjustment cancelled: the reversal booked, and whether it had been booked before."""

    reversal_entry_id: int
    duplicate: bool


@dataclass(frozen=True)
class ReverseResult:
    """A reversal booked, with the correction booked beside it (if any)."""

    reversal_entry_id: int
    correction_entry_id: int | None
    duplicate: bool


@dataclass(frozen=True)
class _Original:
    """An entry about to be reversed, and its reversal if it has one."""

    entry_id: int
    kind: str
    tournament_id: str
    round_no: int
    table_id: str
    match_id: str
    hand_no: int
    outcome: str
    reversed_by: int | None


_ORIGINAL = """
SELECT e.kind, e.tournament_id, e.round_no, e.table_id, e.match_id, e.hand_no, e.outcome,
       r.entry_id
FROM journal_entries e LEFT JOIN journal_entries r ON r.reverses_entry_id = e.entry_id
WHERE e.entry_id = %s
"""


class Reversals(EntryBooking):
    """Reversing a settlement (with its correction, if any) and cancelling an adjustment."""

    @staticmethod
    def _original(conn: psycopg.Connection, entry_id: int) -> _Original:
        row = conn.execute(_ORIGINAL, (entry_id,)).fetchone()
        if row is None:
            raise NotFound(f"entry {entry_id} does not exist")
        return _Original(entry_id, *row)

    def _book_reversal(
        self,
        conn: psycopg.Connection,
        original: _Original,
        key: str,
        request_hash: bytes,
        reason: str,
    ) -> int | None:
        """Book the exact negation of ``original`` under ``key`` (None: the key is taken)."""
        postings = conn.execute(
            "SELECT a.player_id, p.seat, p.component, p.amount FROM postings p"
            " JOIN accounts a USING (account_id) WHERE p.entry_id = %s",
            (original.entry_id,),
        ).fetchall()
        header = EntryHeader(
            idempotency_key=key,
            request_hash=request_hash,
            kind="reversal",
            tournament_id=original.tournament_id,
            round_no=original.round_no,
            table_id=original.table_id,
            match_id=original.match_id,
            hand_no=original.hand_no,
            outcome=original.outcome,
            settlement=None,
            reverses_entry_id=original.entry_id,
            reason=reason,
        )
        lines = [
            Line(player, seat, component, -amount) for player, seat, component, amount in postings
        ]
        return self._book_entry(conn, header, lines)

    def reverse_entry(
        self,
        entry_id: int,
        reason: str,
        corrected: Settlement | Mapping[str, Any] | None = None,
    ) -> ReverseResult:
        """Book the exact reverse of ``entry_id`` and, if given, the corrected settlement.

        Both entries are booked in one transaction. An entry is reversed at most once: asking
        again with the same reason and correction returns the first result
        (``duplicate=True``); asking differently raises AlreadyExists. A reversal cannot itself
        be reversed (reverse the correction instead), nor an adjustment (FailedPrecondition:
        :meth:`cancel_adjustment` is how, so that whoever booked it knows).
        """
        entry_id = check_entry_id(entry_id)
        if not check_text(reason, "reason", MAX_REASON_LENGTH).strip():
            raise InvalidArgument("reason: say why the entry is reversed")
        if corrected is not None:
            corrected = Settlement.parse(corrected, "corrected")
        request_hash = hash_request(
            {
                "entry_id": entry_id,
                "reason": reason,
                "corrected": corrected.to_dict() if corrected is not None else None,
            }
        )
        reversal_key = ledger_key("reverse", entry_id)
        correction_key = ledger_key("correct", entry_id)

        def book(conn: psycopg.Connection) -> ReverseResult:
            original = self._original(conn, entry_id)
            if original.kind == "reversal":
                raise FailedPrecondition(f"entry {entry_id} is a reversal and cannot be reversed")
            if original.kind == "adjustment":
                raise FailedPrecondition(
                    f"entry {entry_id} is an adjustment: cancel it with CancelAdjustment"
                )
            same_hand = (original.tournament_id, original.match_id, original.hand_no)
            if (
                corrected is not None
                and (corrected.tournament_id, corrected.match_id, corrected.hand_no) != same_hand
            ):
                raise InvalidArgument(
                    f"corrected: must be the same hand as the entry (tournament "
                    f"{show(original.tournament_id)}, match {show(original.match_id)}, "
                    f"hand {original.hand_no})"
                )
            reversal_id = self._book_reversal(conn, original, reversal_key, request_hash, reason)
            if reversal_id is None:
                existing = self._existing(conn, reversal_key, request_hash)
                row = conn.execute(FIND_BY_KEY, (correction_key,)).fetchone()
                return ReverseResult(existing, int(row[0]) if row else None, duplicate=True)
            correction_id = None
            if corrected is not None:
                correction = settlement_header(
                    corrected, "correction", correction_key, request_hash, reason
                )
                correction_id = self._book_entry(conn, correction, settlement_lines(corrected))
                if correction_id is None:
                    raise AssertionError(f"correction key {correction_key!r} taken before reversal")
            return ReverseResult(reversal_id, correction_id, duplicate=False)

        return self._booking(book, transaction=True)

    def cancel_adjustment(self, entry_id: int, reason: str, idempotency_key: str) -> CancelResult:
        """Cancel the adjustment ``entry_id`` by booking its exact reversal, with ``reason``.

        Only adjustment entries can be cancelled (FailedPrecondition otherwise), each once.
        Idempotent by ``idempotency_key``: the same key with the same entry and reason returns
        the first reversal (``duplicate=True``); the same key for another entry or reason
        raises AlreadyExists; an entry already cancelled under another key raises
        FailedPrecondition.
        """
        entry_id = check_entry_id(entry_id)
        check_text(reason, "reason", MAX_REASON_LENGTH, required=True)
        check_text(idempotency_key, "idempotency_key", MAX_KEY_LENGTH, required=True)
        request_hash = hash_request(
            {"entry_id": entry_id, "reason": reason, "idempotency_key": idempotency_key}
        )
        key = ledger_key("cancel", idempotency_key)

        def book(conn: psycopg.Connection) -> CancelResult:
            booked = self._find(conn, key, request_hash)
            if booked is not None:
                return CancelResult(booked, duplicate=True)
            original = self._original(conn, entry_id)
            if original.kind != "adjustment":
                raise FailedPrecondition(
                    f"entry {entry_id} is a {original.kind}, not an adjustment: only "
                    "adjustments can be cancelled"
                )
            if original.reversed_by is not None:
                raise FailedPrecondition(
                    f"entry {entry_id} is already cancelled by entry {original.reversed_by}"
                )
            try:
                reversal_id = self._book_reversal(conn, original, key, request_hash, reason)
            except psycopg.errors.UniqueViolation as error:  # cancelled meanwhile, another key
                raise Conflict(f"entry {entry_id} was cancelled concurrently; retry") from error
            if reversal_id is None:  # the same key, booked meanwhile
                return CancelResult(self._existing(conn, key, request_hash), duplicate=True)
            return CancelResult(reversal_id, duplicate=False)

        return self._booking(book, transaction=True)
