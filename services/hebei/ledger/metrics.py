"""Every Prometheus metric of the ledger, in one place (no player or table ids as labels)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

__all__ = [
    "ADJUSTMENTS",
    "AUDITS",
    "AUDIT_PROBLEMS",
    "COMMIT_SECONDS",
    "LAST_AUDIT",
    "POOL_WAIT_SECONDS",
    "SETTLEMENTS",
]

_LATENCY_BUCKETS = (
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
)  # fmt: skip

SETTLEMENTS = Counter(
    "hebei_ledger_settlements",
    "Settlements received by the ledger, by result: posted (a new entry), deduplicated (the "
    "key was already booked with the same figures) or refused (invalid, or the key was booked "
    "with different figures).",
    ["result"],
)

ADJUSTMENTS = Counter(
    "hebei_ledger_adjustments",
    "Adjustments (penalties, placement points, replaced matches' fixed totals) received by the "
    "ledger, by result: posted, deduplicated or refused, as for settlements.",
    ["result"],
)
for _result in ("posted", "deduplicated", "refused"):
    SETTLEMENTS.labels(_result)
    ADJUSTMENTS.labels(_result)

COMMIT_SECONDS = Histogram(
    "hebei_ledger_commit_seconds",
    "Time to book one journal-entry transaction, from its first statement to its commit.",
    buckets=_LATENCY_BUCKETS,
)

POOL_WAIT_SECONDS = Histogram(
    "hebei_ledger_pool_wait_seconds",
    "Time waiting for a checked database connection from the pool.",
    buckets=_LATENCY_BUCKETS,
)

AUDITS = Counter(
    "hebei_ledger_audits",
    "Audit calls (every entry balances, every balance matches its postings, every tournament"
    " sums to zero), by result: ok or failed.",
    ["result"],
)
for _result in ("ok", "failed"):
    AUDITS.labels(_result)

AUDIT_PROBLEMS = Gauge(
    "hebei_ledger_audit_problems",
    "Problems the last audit of the whole ledger found (0: the ledger is sound); audits of one"
    " tournament leave it as it is.",
)

LAST_AUDIT = Gauge(
    "hebei_ledger_last_audit_timestamp_seconds",
    "When (Unix time) the last audit of the whole ledger completed and found it sound; stored"
    " in PostgreSQL and read back at start, so it survives a restart (0: never).",
)
