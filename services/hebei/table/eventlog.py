"""The match's event log as its table holds it, and the one writer of its new events.

Every event the table logs is appended here, in order (:meth:`EventLog.append`): a rules event
is chained and signed (:mod:`hebei.rules.chain`) as it is logged, and an event spectators see
gets its public sequence number. The new events gather in the group being written (a
:class:`hebei.table.store.Group`, with the outbox rows and the match row's update of the same
step of the table) until the table submits it to the store (:meth:`EventLog.submit`): one write
per step, and nothing reaches the store any other way. A log read back from the store
(:mod:`hebei.table.recovery`) is appended the same way without being written again, each event
checked against the hash and signature stored with it. When the store refuses the events, the
log goes back to what is durable (:meth:`EventLog.drop_undurable`).
"""

from __future__ import annotations

import hmac
from typing import NamedTuple

from hebei.common import convert
from hebei.rules.chain import Chain, Link
from hebei.rules.errors import ReplayError
from hebei.rules.views import public_event
from hebei.table.rows import DictRows
from hebei.table.store import EventRow, EventStore, Group, MatchUpdate, OutboxRow

# Events of the table (not of the game): skipped when the rules replay the log.
TABLE_EVENTS = frozenset(
    {
        "seat_auto",
        "seat_resumed",
        "seat_connected",
        "seat_disconnected",
        "match_dissolved",
        "match_paused",
        "match_resumed",
        "seat_replaced",  # ReplaceSeat: who plays the seat, its new token's hash, why
        "match_concluding",  # ConcludeMatch: the match ends after the hand in progress
    }
)


class LogEntry(NamedTuple):
    """One event of the log, with its public sequence number if spectators see it and, for a
    rules event, its hash in the match's chain (built when read: see :mod:`hebei.table.rows`)."""

    event: dict
    hand_no: int
    time: float
    public_seq: int | None
    chain: str | None = None


def _log_entry(event: dict, values: tuple) -> LogEntry:
    return LogEntry(event, *values)


def _public_entry(seen: dict, values: tuple) -> tuple[int, dict, int, float]:
    seq, hand_no, at = values
    return seq, seen, hand_no, at


def view(event: dict, viewer: int | None) -> dict | None:
    """What ``viewer`` (a seat; None: a spectator) sees of ``event`` (None: nothing). The
    table's own events are seen as they are."""
    if event["type"] in TABLE_EVENTS:
        return event
    return public_event(event, viewer)


class EventLog:
    """The log of one match (see the module docstring)."""

    def __init__(self, match_id: str, store: EventStore) -> None:
        self.match_id = match_id
        self.store = store
        self.entries: DictRows[LogEntry] = DictRows(_log_entry)
        # Every rules event is chained and signed as it is logged (hebei.rules.chain).
        self.chain = Chain(match_id, getattr(store, "log_key", None))
        # What spectators see: (log seq, the public event, its hand number, its time), the
        # message built only when someone reads it (see Table._public_message).
        self.public: DictRows[tuple[int, dict, int, float]] = DictRows(_public_entry)
        # Events known durable without the store's watermark (which forgets an evicted
        # match): those read from the log, or every one once the table is evicted.
        self.durable_floor = 0
        self._group = Group(match_id)

    def __len__(self) -> int:
        return len(self.entries)

    def append(
        self,
        event: dict,
        hand_no: int,
        at: float,
        *,
        write: bool = True,
        stored: EventRow | None = None,
    ) -> int | None:
        """Append ``event`` (``write``: to the group being written too); return its public
        sequence number, None when spectators do not see it. A rules event is chained and
        signed (in memory: the hash and signature are written with it); ``stored``: the row it
        was read from, whose hash and signature must be the same."""
        seq = len(self.entries) + 1
        link = None if event["type"] in TABLE_EVENTS else self.chain.append(event)
        if stored is not None and link is not None:
            self._check_stored(stored, link)
        public = view(event, None)
        public_seq = None  # its number among the events spectators see (None: not one)
        if public is not None and public["type"] in convert.EVENT_TYPE_NAMES:
            public_seq = len(self.public) + 1
        chain = None if link is None else link.hash
        self.entries.append(event, hand_no, at, public_seq, chain)
        if write:
            mac = None if link is None else link.mac
            self._group.events.append(EventRow(seq, hand_no, event, at, chain, mac))
        if public_seq is not None:
            self.public.append(public, seq, hand_no, at)
        return public_seq

    def _check_stored(self, row: EventRow, link: Link) -> None:
        """A stored event must carry the hash and signature the engine gives it (rows logged
        before logs were signed carry none): anything else is an edited log."""
        where = f"match {self.match_id}: event {row.seq} ({row.event.get('type')})"
        if row.chain is not None and row.chain != link.hash:
            raise ReplayError(f"{where} does not match its stored hash: the log was edited")
        if (
            row.mac is not None
            and link.mac is not None
            and not hmac.compare_digest(row.mac, link.mac)
        ):
            raise ReplayError(
                f"{where}: its signature does not verify with this engine's log key (the log "
                "was edited, or HEBEI_TABLE_LOG_KEY changed)"
            )

    def rules_events(self) -> list[dict]:
        """The rules events (what :func:`hebei.rules.replay.replay_match` reads)."""
        return [e for e in self.entries.data() if e["type"] not in TABLE_EVENTS]

    def book(self, row: OutboxRow) -> None:
        """Write ``row`` to the outbox with the events of this step."""
        self._group.outbox.append(row)

    def update(self, update: MatchUpdate) -> None:
        """Write the match row so with the events of this step."""
        self._group.update = update

    def submit(self) -> None:
        """Hand the group being written to the store (nothing if it is empty). Refused once
        this replica no longer serves the match (the store's fence, ``admits``): the group is
        dropped, never written, from the moment the loss is declared."""
        group = self._group
        if group.events or group.outbox or group.update is not None:
            if self.store.admits(self.match_id):
                self.store.submit(group)
            self._group = Group(self.match_id)

    def durable_seq(self) -> int:
        """How many events of the log the store has made durable."""
        return self.store.durable_seq(self.match_id)

    def drop_undurable(self) -> int:
        """The store refused the match's events: drop those not durable (nobody heard of
        them: messages wait for durability), and the group being written; return the durable
        seq. The next group written tells the store to start again from there."""
        durable = self.durable_seq()
        self.entries.truncate(durable)
        self.chain.rewind(next((e.chain for e in reversed(self.entries) if e.chain), None))
        self.public.truncate(sum(1 for entry in self.public if entry[0] <= durable))
        self._group = Group(self.match_id, reset=True)
        return durable
