"""Booking journal entries: what an entry holds before it is booked (its header and lines, made
from a settlement or an adjustment), the statement that books a batch of them, the group
commit, and the ledger's own idempotency keys.

Keys: a settlement is booked under its own key ("match_id:hand_no"); the ledger's other
entries under "<prefix>:..." keys (``adjustment:``, ``cancel:`` + the caller's key,
``reverse:``/``correct:`` + the entry id), prefixes no settlement key can take
(:data:`~hebei.ledger.model.KEY_PREFIXES`). A key is booked at most once; the same key again
returns its entry if the request hashes the same, else AlreadyExists.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import psycopg
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from hebei.common.errors import AlreadyExists, Conflict, DomainError, Unavailable
from hebei.ledger.connections import LedgerConnections
from hebei.ledger.model import KEY_PREFIXES, Adjustment, Settlement, canonical_json, show

__all__ = [
    "FIND_BY_KEY",
    "EntryBooking",
    "EntryHeader",
    "Line",
    "adjustment_header",
    "adjustment_lines",
    "hash_request",
    "ledger_key",
    "settlement_header",
    "settlement_lines",
]


def _copy_error(error: BaseException) -> BaseException:
    """A fresh instance per waiting caller (one exception object raised in many threads would
    share its traceback); other errors as they are."""
    if not isinstance(error, DomainError):
        return error
    copy = type(error)(error.message)
    copy.__cause__ = error.__cause__
    return copy


def ledger_key(prefix: str, rest: object) -> str:
    """One of the ledger's own idempotency keys, "<prefix>:<rest>"."""
    assert prefix in KEY_PREFIXES, prefix
    return f"{prefix}:{rest}"


def hash_request(request: Mapping[str, Any]) -> bytes:
    """SHA-256 of a request's canonical JSON (for requests that are not a model value)."""
    return hashlib.sha256(canonical_json(request).encode()).digest()


@dataclass(frozen=True)
class Line:
    """One posting of an entry to be booked (no seat on an adjustment's lines)."""

    player_id: str
    seat: int | None
    component: str
    amount: int


@dataclass(frozen=True)
class EntryHeader:
    """The journal row of an entry to be booked: its key, request hash, kind and where it
    belongs (tournament, round, table, match, hand), with the settlement or adjustment as sent."""

    idempotency_key: str
    request_hash: bytes
    kind: str
    tournament_id: str
    round_no: int
    table_id: str
    match_id: str
    hand_no: int
    outcome: str
    settlement: dict[str, Any] | None
    reverses_entry_id: int | None = None
    reason: str = ""
    adjustment: dict[str, Any] | None = None


@dataclass(eq=False)
class _Pending:
    """A settlement waiting in the group-commit queue, and then its outcome."""

    header: EntryHeader
    lines: Sequence[Line]
    done: bool = False
    entry_id: int | None = None
    error: BaseException | None = None
    leads: bool = False  # its caller is (to be) a flusher
    wakeup: threading.Event = field(default_factory=threading.Event)


def settlement_lines(settlement: Settlement) -> list[Line]:
    """A settlement's postings: a ``hand`` line per seat, a ``kong`` line per seat paid any."""
    lines = [Line(r.player_id, r.seat, "hand", r.hand_delta) for r in settlement.results]
    lines += [
        Line(r.player_id, r.seat, "kong", r.kong_delta)
        for r in settlement.results
        if r.kong_delta != 0
    ]
    return lines


def settlement_header(
    settlement: Settlement, kind: str, key: str, request_hash: bytes, reason: str = ""
) -> EntryHeader:
    """The header of a settlement booked as ``kind`` ("settlement" or "correction")."""
    return EntryHeader(
        idempotency_key=key,
        request_hash=request_hash,
        kind=kind,
        tournament_id=settlement.tournament_id,
        round_no=settlement.round_no,
        table_id=settlement.table_id,
        match_id=settlement.match_id,
        hand_no=settlement.hand_no,
        outcome=settlement.outcome,
        settlement=settlement.to_dict(),
        reason=reason,
    )


def adjustment_header(adjustment: Adjustment) -> EntryHeader:
    """The header of an adjustment, under its "adjustment:" key."""
    return EntryHeader(
        idempotency_key=ledger_key("adjustment", adjustment.idempotency_key),
        request_hash=adjustment.request_hash(),
        kind="adjustment",
        tournament_id=adjustment.tournament_id,
        round_no=adjustment.round_no,
        table_id="",
        match_id=adjustment.match_id,
        hand_no=0,
        outcome="",
        settlement=None,
        reason=adjustment.reason,
        adjustment=adjustment.to_dict(),
    )


def adjustment_lines(adjustment: Adjustment) -> list[Line]:
    """An adjustment's postings: one line per account, in its component, without a seat."""
    return [
        Line(line.player_id, None, adjustment.component, line.amount) for line in adjustment.lines
    ]


_INSERT_ACCOUNTS = """
INSERT INTO accounts (tournament_id, player_id)
SELECT %s, player_id FROM unnest(%s::text[]) AS p(player_id)
ORDER BY player_id
ON CONFLICT (tournament_id, player_id) DO NOTHING
"""

_SELECT_ACCOUNTS = """
SELECT player_id, account_id FROM accounts WHERE tournament_id = %s AND player_id = ANY(%s)
"""

# One statement books a batch of entries and their postings (in autocommit mode it is its own
# transaction and the deferred checks run at its end). Arrays go in binary (%(...)b): the text
# format would escape every quote of every settlement's JSON. An entry whose key is taken is skipped,
# with its postings; the rows returned are the entries booked. Postings go in account order.
_INSERT_ENTRIES = """
WITH entry AS (
    INSERT INTO journal_entries (idempotency_key, request_hash, kind, tournament_id, round_no,
        table_id, match_id, hand_no, outcome, settlement, reverses_entry_id, reason, adjustment)
    SELECT * FROM unnest(%(keys)b::text[], %(hashes)b::bytea[], %(kinds)b::text[],
        %(tournaments)b::text[], %(rounds)b::int[], %(tables)b::text[], %(matches)b::text[],
        %(hands)b::int[], %(outcomes)b::text[], %(settlements)b::jsonb[],
        %(reverses)b::bigint[], %(reasons)b::text[], %(adjustments)b::jsonb[])
    ON CONFLICT (idempotency_key) DO NOTHING
    RETURNING entry_id, idempotency_key
), posted AS (
    INSERT INTO postings (entry_id, account_id, component, seat, amount)
    SELECT entry.entry_id, l.account_id, l.component, l.seat, l.amount
    FROM unnest(%(line_keys)b::text[], %(accounts)b::bigint[], %(seats)b::smallint[],
                %(components)b::text[], %(amounts)b::bigint[])
         AS l(idempotency_key, account_id, seat, component, amount)
    JOIN entry USING (idempotency_key)
    ORDER BY l.account_id, l.component
)
SELECT idempotency_key, entry_id FROM entry
"""

FIND_BY_KEY = "SELECT entry_id, request_hash, kind FROM journal_entries WHERE idempotency_key = %s"


class EntryBooking(LedgerConnections):
    """Booking journal entries: accounts opened on first use, a batch of entries and their
    postings in one statement, and the group commit that batches concurrent posts.

    Group commit: settlements posted concurrently (the table engine posts from many tables at
    once) are booked together, up to ``batch_size`` per statement and at most ``flushers``
    statements in flight, so one WAL flush serves many; each caller still returns only once
    its own entry has committed, and a duplicate or refused settlement in a batch affects no
    other.
    """

    def __init__(self, pool: ConnectionPool, *, batch_size: int = 32, flushers: int = 2) -> None:
        super().__init__(pool)
        self._batch_size = max(1, batch_size)
        self._flushers = max(1, flushers)
        self._queue: list[_Pending] = []
        self._flushing = 0
        self._queue_lock = threading.Lock()

    def _account_ids(
        self, conn: psycopg.Connection, tournament_id: str, players: Iterable[str]
    ) -> dict[str, int]:
        """Account id of each player in ``tournament_id``, opening the missing accounts."""
        with self._accounts_lock:
            known = {
                player: self._accounts[tournament_id, player]
                for player in players
                if (tournament_id, player) in self._accounts
            }
        missing = sorted(set(players) - known.keys())
        if missing:
            conn.execute(_INSERT_ACCOUNTS, (tournament_id, missing))
            found = dict(conn.execute(_SELECT_ACCOUNTS, (tournament_id, missing)).fetchall())
            with self._accounts_lock:
                self._accounts.update(((tournament_id, p), int(i)) for p, i in found.items())
            known.update(found)
        return known

    def _book_entries(
        self, conn: psycopg.Connection, batch: Sequence[tuple[EntryHeader, Sequence[Line]]]
    ) -> dict[str, int]:
        """Book each (header, lines) of ``batch`` (distinct keys) in one statement; return the
        entry id of each key booked (a key already taken is left out, nothing booked for it)."""
        accounts: dict[tuple[str, str], int] = {}
        for tournament_id in {header.tournament_id for header, _ in batch}:
            players = {
                line.player_id
                for header, lines in batch
                if header.tournament_id == tournament_id
                for line in lines
            }
            for player, account_id in self._account_ids(conn, tournament_id, players).items():
                accounts[tournament_id, player] = account_id
        headers = [header for header, _ in batch]
        line_rows = [(header, line) for header, lines in batch for line in lines]
        params = {
            "keys": [h.idempotency_key for h in headers],
            "hashes": [h.request_hash for h in headers],
            "kinds": [h.kind for h in headers],
            "tournaments": [h.tournament_id for h in headers],
            "rounds": [h.round_no for h in headers],
            "tables": [h.table_id for h in headers],
            "matches": [h.match_id for h in headers],
            "hands": [h.hand_no for h in headers],
            "outcomes": [h.outcome for h in headers],
            "settlements": [None if h.settlement is None else Jsonb(h.settlement) for h in headers],
            "reverses": [h.reverses_entry_id for h in headers],
            "reasons": [h.reason for h in headers],
            "adjustments": [None if h.adjustment is None else Jsonb(h.adjustment) for h in headers],
            "line_keys": [h.idempotency_key for h, _ in line_rows],
            "accounts": [accounts[h.tournament_id, line.player_id] for h, line in line_rows],
            "seats": [line.seat for _, line in line_rows],
            "components": [line.component for _, line in line_rows],
            "amounts": [line.amount for _, line in line_rows],
        }
        return {key: int(entry_id) for key, entry_id in conn.execute(_INSERT_ENTRIES, params)}

    def _book_entry(
        self, conn: psycopg.Connection, header: EntryHeader, lines: Sequence[Line]
    ) -> int | None:
        """Book one entry; None (nothing booked) when its key is taken."""
        return self._book_entries(conn, [(header, lines)]).get(header.idempotency_key)

    def _submit(self, header: EntryHeader, lines: Sequence[Line]) -> int | None:
        """Book one entry through the group-commit queue; its entry id, or None when its
        key was already taken (nothing booked). Returns once the booking has committed.

        The caller queues its settlement. While fewer than ``flushers`` callers are flushing,
        the newcomer becomes a flusher: it books up to ``batch_size`` queued settlements per
        statement (one commit, one WAL flush) until its own is booked, then hands the role
        to the oldest caller still queued. Everyone else sleeps until woken: booked, or made
        a flusher. Alone, a settlement is booked at once; under load many share a commit.
        """
        item = _Pending(header, lines)
        with self._queue_lock:
            self._queue.append(item)
            if self._flushing < self._flushers:
                self._flushing += 1
                item.leads = True
        while True:
            if item.leads:
                item.leads = False
                self._lead(item)
            if item.done:
                break
            item.wakeup.wait()
            item.wakeup.clear()
        if item.error is not None:
            raise item.error
        return item.entry_id

    def _lead(self, item: _Pending) -> None:
        """Flush batches until ``item`` is booked; then pass the flusher role on (or drop it)."""
        while True:
            with self._queue_lock:
                if item.done or not self._queue:
                    if self._queue:
                        successor = self._queue[0]
                        successor.leads = True
                        successor.wakeup.set()
                    else:
                        self._flushing -= 1
                    return
                batch = self._queue[: self._batch_size]
                del self._queue[: self._batch_size]
            self._flush(batch)

    def _flush(self, batch: list[_Pending]) -> None:
        """Book ``batch`` and record each item's outcome; never raises."""
        first: dict[str, _Pending] = {}
        for item in batch:
            first.setdefault(item.header.idempotency_key, item)
        unique = list(first.values())
        try:
            booked = self._booking(
                lambda conn: self._book_entries(conn, [(i.header, i.lines) for i in unique]),
                transaction=False,
            )
            for item in unique:
                item.entry_id = booked.get(item.header.idempotency_key)
        except (Unavailable, Conflict) as error:  # the database is away, or conflicts persisted
            for item in batch:
                item.error = _copy_error(error)
        except (psycopg.Error, DomainError):  # one bad entry (an account overflowing, ...)
            # must not fail the others: book them one by one
            for item in unique:
                try:
                    item.entry_id = self._booking(
                        lambda conn, item=item: self._book_entry(conn, item.header, item.lines),
                        transaction=False,
                    )
                except Exception as error:
                    item.error = error
        except Exception as error:  # a bug: every caller reports it (INTERNAL)
            for item in batch:
                item.error = error
        finally:
            for item in batch:
                leader = first[item.header.idempotency_key]
                # a duplicate of a failed leader fails alike; else its entry_id stays None
                # and its caller reads the key's holder
                if item is not leader and leader.error is not None and item.error is None:
                    item.error = _copy_error(leader.error)
                item.done = True
                item.wakeup.set()

    @staticmethod
    def _find(conn: psycopg.Connection, key: str, request_hash: bytes) -> int | None:
        """The entry booked under ``key`` if it has ``request_hash``, None if there is none;
        AlreadyExists when it was booked for a different request."""
        row = conn.execute(FIND_BY_KEY, (key,)).fetchone()
        if row is None:
            return None
        entry_id, booked_hash, _kind = row
        if bytes(booked_hash) != request_hash:
            raise AlreadyExists(
                f"key {show(key)} is already booked as entry {entry_id} with different figures"
            )
        return int(entry_id)

    @classmethod
    def _existing(cls, conn: psycopg.Connection, key: str, request_hash: bytes) -> int:
        """The entry holding ``key`` (whose insert was just skipped) if it has the same
        request hash, else refuse."""
        entry_id = cls._find(conn, key, request_hash)
        if entry_id is None:  # the key holder rolled back between our insert and this read
            raise Conflict(f"key {show(key)} changed hands; retry")
        return entry_id
