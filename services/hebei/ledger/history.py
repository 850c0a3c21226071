"""Reading the journal: entries newest first with their postings, filtered by player, table,
tournament or match, one page at a time, and one entry by id. An anonymous caller gets no entry
of a tournament whose results are hidden."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from hebei.common.errors import InvalidArgument, NotFound
from hebei.ledger.connections import LedgerConnections
from hebei.ledger.model import MAX_ID_LENGTH, check_entry_id, check_text, parse_entry_id

__all__ = ["DEFAULT_PAGE_SIZE", "MAX_PAGE_SIZE", "Entry", "History", "HistoryPage", "Posting"]

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 500


@dataclass(frozen=True)
class Posting:
    """One line of an entry (no seat on an adjustment's lines)."""

    player_id: str
    seat: int | None
    component: str
    amount: int


@dataclass(frozen=True)
class Entry:
    """A journal entry with its postings."""

    entry_id: int
    kind: str
    idempotency_key: str
    tournament_id: str
    settlement: dict[str, Any] | None
    postings: tuple[Posting, ...]
    reverses_entry_id: int | None
    reversed_by_entry_id: int | None
    reason: str
    booked_at: datetime
    adjustment: dict[str, Any] | None = None


@dataclass(frozen=True)
class HistoryPage:
    """Entries newest first, and the token of the next page ("" on the last)."""

    entries: tuple[Entry, ...]
    next_page_token: str


class History(LedgerConnections):
    """Reading journal entries: pages of history, one entry by id."""

    def history(
        self,
        *,
        player_id: str = "",
        table_id: str = "",
        tournament_id: str | None = None,
        match_id: str = "",
        page_size: int = 0,
        page_token: str = "",
        time_limit: float | None = None,
        public: bool = False,
    ) -> HistoryPage:
        """Journal entries newest first, filtered by the non-empty arguments, one page at a time.

        ``page_size`` 0 means the default (50); at most 500. ``page_token`` comes from the
        previous page. ``time_limit``: see :meth:`LedgerConnections._reading`. ``public`` (an
        anonymous caller): no entry of a tournament whose results are hidden.
        """
        filters = {"player_id": player_id, "table_id": table_id, "match_id": match_id}
        for name, value in filters.items():
            check_text(value, name, MAX_ID_LENGTH)
        if tournament_id is not None:
            check_text(tournament_id, "tournament_id", MAX_ID_LENGTH)
        if page_size < 0:
            raise InvalidArgument(f"page_size: must be 0 or more, got {page_size}")
        size = min(page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        before = parse_entry_id(page_token, "page_token") if page_token else None
        params = {
            "player_id": player_id or None,
            "table_id": table_id or None,
            "tournament_id": tournament_id,
            "match_id": match_id or None,
            "entry_id": None,
            "before": before,
            "limit": size + 1,
            "public": public,
        }
        entries = self._entries(params, "GetHistory", time_limit)
        more = len(entries) > size
        entries = entries[:size]
        return HistoryPage(entries, str(entries[-1].entry_id) if more else "")

    def entry(self, entry_id: int) -> Entry:
        """One entry by id (NotFound if there is none)."""
        entry_id = check_entry_id(entry_id)
        params = dict.fromkeys(("player_id", "table_id", "tournament_id", "match_id", "before"))
        found = self._entries({**params, "entry_id": entry_id, "limit": 1, "public": False})
        if not found:
            raise NotFound(f"entry {entry_id} does not exist")
        return found[0]

    def _entries(
        self, params: Mapping[str, Any], call: str = "", time_limit: float | None = None
    ) -> tuple[Entry, ...]:
        """The entries _HISTORY selects with ``params``, with their postings."""
        with self._reading(call, time_limit) as conn:
            rows = conn.execute(_HISTORY, params).fetchall()
            ids = [row[0] for row in rows]
            postings: dict[int, list[Posting]] = {entry: [] for entry in ids}
            for entry, player, seat, component, amount in conn.execute(
                "SELECT p.entry_id, a.player_id, p.seat, p.component, p.amount FROM postings p"
                " JOIN accounts a USING (account_id) WHERE p.entry_id = ANY(%s)"
                " ORDER BY p.entry_id, p.seat, p.component DESC, a.player_id",
                (ids,),
            ):
                postings[entry].append(Posting(player, seat, component, amount))
        return tuple(
            Entry(
                entry_id=row[0],
                kind=row[1],
                idempotency_key=row[2],
                tournament_id=row[3],
                settlement=row[4],
                postings=tuple(postings[row[0]]),
                reverses_entry_id=row[5],
                reversed_by_entry_id=row[6],
                reason=row[7],
                booked_at=row[8],
                adjustment=row[9],
            )
            for row in rows
        )


_HISTORY = """
SELECT e.entry_id, e.kind, e.idempotency_key, e.tournament_id, e.settlement,
       e.reverses_entry_id, r.entry_id, e.reason, e.booked_at, e.adjustment
FROM journal_entries e
LEFT JOIN journal_entries r ON r.reverses_entry_id = e.entry_id
WHERE (%(entry_id)s::bigint IS NULL OR e.entry_id = %(entry_id)s)
  AND (%(tournament_id)s::text IS NULL OR e.tournament_id = %(tournament_id)s)
  AND (%(table_id)s::text IS NULL OR e.table_id = %(table_id)s)
  AND (%(match_id)s::text IS NULL OR e.match_id = %(match_id)s)
  AND (%(player_id)s::text IS NULL OR e.entry_id IN (
        SELECT p.entry_id FROM postings p JOIN accounts a USING (account_id)
        WHERE a.player_id = %(player_id)s))
  AND (%(before)s::bigint IS NULL OR e.entry_id < %(before)s)
  AND (NOT %(public)s OR NOT EXISTS (
        SELECT 1 FROM hidden_results h WHERE h.tournament_id = e.tournament_id))
ORDER BY e.entry_id DESC
LIMIT %(limit)s
"""
