"""Delivers the outbox: settlements to the ledger, match results to matchmaking.

Each row is retried with exponential backoff until the receiver acknowledges it, also after a
restart (the rows are in PostgreSQL). The receivers are idempotent by key (the ledger by
``match_id:hand_no``), so a row delivered but not yet marked when the process died is booked
only once. A permanent refusal (the receiver says the request itself is wrong) stops the
retries and is logged as an error; so does a row that cannot even be sent (its payload does
not parse): one bad row never holds up the rows behind it.

Replicas (issue 46): an engine replica's poster delivers only the rows of the shards it serves
now (``shards``: the host's; see :class:`hebei.table.store.EventStore` for the rows recorded
before their shard was, which are shard 0's), so a row is delivered by one replica, not raced
by all. When the replica is given shards (:meth:`OutboxPoster.shards_acquired`: a peer left or
died) it looks at once, including their rows put off for a retry. A row read just before its
shard moved may still be sent by both: the receivers are idempotent by key. The backlog gauges
count this replica's rows only, so a sum over the replicas counts each row once.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable, Collection, Mapping

import grpc
from google.protobuf.message import DecodeError

from hebei.table import metrics
from hebei.table.store import EventStore, PendingMessage

log = logging.getLogger(__name__)

# Codes that a retry cannot fix.
PERMANENT = frozenset(
    {
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.ALREADY_EXISTS,
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.UNIMPLEMENTED,
    }
)

Deliver = Callable[[bytes], None]  # sends one payload; raises grpc.RpcError on failure


def backoff(attempts: int, base: float = 0.2, cap: float = 30.0) -> float:
    """Seconds before the next attempt after ``attempts`` failed ones."""
    return min(cap, base * 2 ** min(attempts, 16))


class OutboxPoster:
    """One thread delivering due outbox rows through ``deliverers`` (kind -> function), those
    of the shards ``shards()`` names (None: every row, a store of its own).

    A kind without a deliverer (e.g. no matchmaking address configured) stays in the outbox.
    """

    def __init__(
        self,
        store: EventStore,
        deliverers: Mapping[str, Deliver],
        *,
        poll_seconds: float = 1.0,
        shards: Callable[[], Collection[int]] | None = None,
    ) -> None:
        self.store = store
        self.deliverers = dict(deliverers)
        self.poll_seconds = poll_seconds
        self._shards = shards
        self._retries_due = threading.Event()  # rows put off for a retry may have come
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="table-outbox", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def wake(self) -> None:
        """New rows were committed: look now."""
        self._wake.set()

    def shards_acquired(self) -> None:
        """This replica serves more shards: deliver their rows now, those waiting for a retry
        when they are due."""
        self._retries_due.set()
        self._wake.set()

    def _scope(self) -> frozenset[int] | None:
        """The shards whose rows this poster delivers now (None: every row)."""
        return None if self._shards is None else frozenset(self._shards())

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout=10)

    def _run(self) -> None:
        measured = -math.inf
        backing_off = True  # rows may wait for a retry (a previous process's, at start)
        while not self._stop.is_set():
            self._wake.clear()
            if self._retries_due.is_set():
                self._retries_due.clear()
                backing_off = True
            wait = self.poll_seconds
            try:
                backing_off |= self.deliver_due()
                if time.monotonic() - measured >= self.poll_seconds:
                    measured = time.monotonic()
                    self.measure_backlog()
                if backing_off:
                    due = self.store.next_due_in(self._scope())
                    backing_off = due is not None
                    if due is not None:
                        wait = min(wait, max(due, 0.01))
            except Exception as exc:  # the database is down: try again later
                log.warning("outbox: %s", exc)
                backing_off = True
            self._wake.wait(wait)

    def deliver_due(self) -> bool:
        """Deliver every due row, then mark the delivered ones in one statement (a process
        that dies in between sends them again: the receivers are idempotent by key). True when
        a row was put off for a retry, so the poster asks when the next one is due; else
        only rows committed later (which wake it) or the poll can bring work, and a pass
        costs two statements, not three plus one a row."""
        delivered: list[int] = []
        retrying = False
        try:
            for message in self.store.due_messages(self._scope()):
                if self._stop.is_set():
                    break
                outcome = self._deliver(message)
                if outcome == "delivered":
                    delivered.append(message.id)
                retrying |= outcome == "retry"
        finally:
            if delivered:
                self.store.mark_delivered(delivered)
        return retrying

    def measure_backlog(self) -> None:
        """Set the backlog gauges (``hebei_table_outbox_pending`` and ``..._oldest_age_seconds``)
        from the store, for this poster's shards; the poster does so at most once per poll."""
        backlog = self.store.outbox_backlog(self._scope())
        for kind in {*metrics.OUTBOX_KINDS, *backlog}:
            pending, age = backlog.get(kind, (0, 0.0))
            metrics.OUTBOX_PENDING.labels(kind).set(pending)
            metrics.OUTBOX_OLDEST_AGE_SECONDS.labels(kind).set(age)

    def _deliver(self, message: PendingMessage) -> str:
        """Send one row; its outcome: "delivered" (for the caller to mark), "retry" or
        "refused" (marked here), "kept" (no deliverer for its kind)."""
        deliver = self.deliverers.get(message.kind)
        if deliver is None:
            return "kept"
        try:
            deliver(message.payload)
        except grpc.RpcError as exc:
            return self._refused(message, exc)
        except DecodeError as exc:  # a corrupt payload: retrying cannot help
            log.error("outbox %s %s cannot be sent: %r", message.kind, message.key, exc)
            metrics.OUTBOX_DELIVERIES.labels(message.kind, "refused").inc()
            self.store.mark_failed(message.id, f"not sendable: {exc}")
            return "refused"
        except Exception as exc:  # a bug or a closing channel: later, after the other rows
            log.exception("outbox %s %s: delivery failed", message.kind, message.key)
            metrics.OUTBOX_DELIVERIES.labels(message.kind, "retry").inc()
            self.store.mark_retry(message.id, repr(exc), backoff(message.attempts))
            return "retry"
        metrics.OUTBOX_DELIVERIES.labels(message.kind, "delivered").inc()
        return "delivered"

    def _refused(self, message: PendingMessage, exc: grpc.RpcError) -> str:
        code = exc.code() if hasattr(exc, "code") else grpc.StatusCode.UNKNOWN
        text = f"{code.name}: {exc.details() if hasattr(exc, 'details') else exc}"
        if code in PERMANENT:
            log.error("outbox %s %s refused for good: %s", message.kind, message.key, text[:300])
            metrics.OUTBOX_DELIVERIES.labels(message.kind, "refused").inc()
            self.store.mark_failed(message.id, text)
            return "refused"
        metrics.OUTBOX_DELIVERIES.labels(message.kind, "retry").inc()
        self.store.mark_retry(message.id, text, backoff(message.attempts))
        return "retry"
