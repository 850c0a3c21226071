"""Posting a hand's settlement or an adjustment: each checked by :mod:`hebei.ledger.model`, then
booked through the group commit, idempotently by its key.

Postings: one ``hand`` posting per seat, always, even for zero points (it records that the
player played the hand), plus one ``kong`` posting per seat whose kong payments are not zero.
An adjustment posts one ``penalty``, ``placement``, ``replacement``, ``award`` or
``correction`` line per account, without a seat.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from prometheus_client import Counter

from hebei.common.errors import AlreadyExists, InvalidArgument
from hebei.ledger import metrics
from hebei.ledger.booking import (
    EntryBooking,
    EntryHeader,
    Line,
    adjustment_header,
    adjustment_lines,
    settlement_header,
    settlement_lines,
)
from hebei.ledger.model import Adjustment, Settlement

__all__ = ["PostResult", "Postings"]


@dataclass(frozen=True)
class PostResult:
    """A settlement booked: its entry, and whether it had been booked before."""

    entry_id: int
    duplicate: bool


class Postings(EntryBooking):
    """Posting settlements and adjustments, idempotently by their keys."""

    def _post(
        self, counter: Counter, prepare: Callable[[], tuple[EntryHeader, list[Line]]]
    ) -> PostResult:
        """Book the entry ``prepare()`` checks and builds, idempotently by its key, counting
        the outcome in ``counter``.

        Settlements and adjustments alike go through the group commit: one statement books
        each batch in its own transaction (the database checks every entry balances at its
        commit), a refused or duplicate entry affects no other, and concurrent posts share a
        commit (a round's placement points are posted together with the settlements still
        coming from other tables). Adjustments are few, but nothing would be gained by a path
        of their own: the idempotency (same key, same request hash) is the same code.
        """
        try:
            header, lines = prepare()
            entry_id = self._submit(header, lines)
            if entry_id is not None:
                result = PostResult(entry_id, duplicate=False)
            else:
                with self._connection() as conn:
                    entry_id = self._existing(conn, header.idempotency_key, header.request_hash)
                result = PostResult(entry_id, duplicate=True)
        except (InvalidArgument, AlreadyExists):
            counter.labels("refused").inc()
            raise
        counter.labels("deduplicated" if result.duplicate else "posted").inc()
        return result

    def post_settlement(self, settlement: Settlement | Mapping[str, Any]) -> PostResult:
        """Book one hand's settlement, idempotently by its key.

        The same key with the same figures returns the first entry (``duplicate=True``); the
        same key with other figures raises AlreadyExists and books nothing. Concurrent
        duplicates book exactly one entry. An invalid settlement raises InvalidArgument.
        """

        def prepare() -> tuple[EntryHeader, list[Line]]:
            parsed = Settlement.parse(settlement)
            header = settlement_header(
                parsed, "settlement", parsed.idempotency_key, parsed.request_hash()
            )
            return header, settlement_lines(parsed)

        return self._post(metrics.SETTLEMENTS, prepare)

    def post_adjustment(self, adjustment: Adjustment | Mapping[str, Any]) -> PostResult:
        """Book an adjustment (a penalty, placement points, a replaced match's fixed total),
        idempotently by its key, like :meth:`post_settlement`.

        ``adjustment`` is a :class:`~hebei.ledger.model.Adjustment` or its protobuf JSON
        mapping (``{"idempotency_key", "tournament_id", "round_no", "match_id", "kind":
        "ADJUSTMENT_KIND_PENALTY", "lines": [{"player_id", "amount"}], "reason",
        "assigned_by"}``); the tournament's own account is ``TOURNAMENT_ACCOUNT``. The same key
        and body return the first entry (``duplicate=True``), the same key with another body
        raises AlreadyExists; an invalid adjustment raises InvalidArgument.
        """

        def prepare() -> tuple[EntryHeader, list[Line]]:
            parsed = Adjustment.parse(adjustment)
            return adjustment_header(parsed), adjustment_lines(parsed)

        return self._post(metrics.ADJUSTMENTS, prepare)
