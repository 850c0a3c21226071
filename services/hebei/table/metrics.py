"""The table engine's Prometheus metrics (besides the grpc_* ones of the bootstrap).

No table, match or player ids as labels: only small fixed sets of values.
"""

from __future__ import annotations

from typing import Any

from prometheus_client import Counter, Gauge, Histogram

from hebei.common.metrics import export_known_labels

# Seconds. 20 ms, the bot seats' p99 round-trip target (ARCHITECTURE.md, `hebei bench stack`,
# the HebeiSeatDecisionSlow alert), is an edge: a quantile inside a bucket is interpolated, so
# with edges at 10 and 25 ms alone a p99 reading 24.8 ms could not say whether 20 ms was met.
# 35 and 75 ms split the buckets a loaded machine's p99 falls in (16 and 64 tables).
DECISION_BUCKETS = (
    0.001, 0.0025, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.025, 0.035, 0.05, 0.075, 0.1, 0.25, 0.5,
    1, 2, 4, 8, 16, 32,
)  # fmt: skip

TABLES_ACTIVE = Gauge("hebei_table_tables_active", "Matches waiting or being played.")
HANDS_COMPLETED = Counter(
    "hebei_table_hands_completed_total", "Hands completed, by outcome.", ("outcome",)
)
DECISION_WAIT_SECONDS = Histogram(
    "hebei_table_decision_wait_seconds",
    "Time from offering a decision to the seat's answer, by seat kind.",
    ("seat_kind",),
    buckets=DECISION_BUCKETS,
)
DECISION_ANSWER_SECONDS = Histogram(
    "hebei_table_decision_answer_seconds",
    "Time from a decisions-only stream handing a seat its decision to gRPC to the seat's"
    " answer (the seat round trip without the event log's commit and the engine's wake-up),"
    " by seat kind.",
    ("seat_kind",),
    buckets=DECISION_BUCKETS,
)
AUTO_PLAYS = Counter(
    "hebei_table_auto_plays_total",
    "Actions the engine played for a seat, by reason (timeout, disconnect, hand_over, absent).",
    ("reason",),
)
EVENT_LOG_WRITE_SECONDS = Histogram(
    "hebei_table_event_log_write_seconds",
    "Time to write one batch of events to the log (one transaction).",
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1),
)
EVENT_LOG_BATCH_SIZE = Histogram(
    "hebei_table_event_log_batch_size",
    "Events written per batch.",
    buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024),
)
ACTIONS_REJECTED = Counter(
    "hebei_table_actions_rejected_total", "Actions refused on Play streams, by code.", ("code",)
)
OUTBOX_DELIVERIES = Counter(
    "hebei_table_outbox_deliveries_total",
    "Outbox deliveries (settlements, match results), by kind and result.",
    ("kind", "result"),
)
OUTBOX_KINDS = ("settlement", "match_result")  # the outbox table's CHECK
OUTBOX_PENDING = Gauge(
    "hebei_table_outbox_pending",
    "Outbox rows of this replica's shards not delivered yet (and not refused for good), by"
    " kind; read by the outbox poster at most once per poll. Each row is one replica's: sum"
    " over the replicas for the whole backlog.",
    ("kind",),
)
OUTBOX_OLDEST_AGE_SECONDS = Gauge(
    "hebei_table_outbox_oldest_age_seconds",
    "Age of the oldest outbox row of this replica's shards not delivered yet (0 when none), by"
    " kind; max over the replicas for the whole outbox.",
    ("kind",),
)
for _kind in OUTBOX_KINDS:  # exported from the start, zero until a row waits
    OUTBOX_PENDING.labels(_kind).set(0)
    OUTBOX_OLDEST_AGE_SECONDS.labels(_kind).set(0)
PLAY_STREAMS = Gauge("hebei_table_streams_open", "Open Play and Spectate streams.", ("rpc",))
STREAMS_REFUSED = Counter(
    "hebei_table_streams_refused_total",
    "Streams refused for capacity or while draining, by rpc and reason.",
    ("rpc", "reason"),
)
COLD_LOADS_REFUSED = Counter(
    "hebei_table_cold_loads_refused_total",
    "Reads of an ended match back from its log refused: HEBEI_TABLE_MAX_COLD_LOADS were running.",
)
EVENT_LOG_WRITE_FAILURES = Counter(
    "hebei_table_event_log_write_failures_total",
    "Failed event log writes: outage (the database out of reach, retried until it is back) or"
    " refused (the data; retried a few times, then the match is failed).",
    ("kind",),
)
MATCHES_FAILED = Counter(
    "hebei_table_matches_failed_total",
    "Matches dissolved because the engine could not go on with them, by cause (event_log, resume).",
    ("cause",),
)
PAUSES = Counter(
    "hebei_table_pauses_total",
    "Matches paused because every seat was auto-played, and how each pause ended"
    " (paused, resumed, dissolved).",
    ("event",),
)
CLOCKS_HELD = Counter(
    "hebei_table_clocks_held_total",
    "Decision deadlines moved because the seat could not be told of its decision in time"
    " (the event log was slow or down).",
)
MATCHES_ENDED = Counter(
    "hebei_table_matches_ended_total",
    "Matches that ended on this engine, by status: finished, dissolved (an operator,"
    " matchmaking, a pause nobody came back to) or failed (the engine could not go on with"
    " them: the event log refused them, they could not be resumed).",
    ("status",),
)


# Ownership of the matches by replica (issue 46; see hebei.table.ownership).
SHARDS_OWNED = Gauge(
    "hebei_table_shards_owned",
    "Shards of the matches this replica serves now (of HEBEI_TABLE_SHARD_COUNT; 0 while it"
    " only redirects).",
)
TAKEOVERS = Counter(
    "hebei_table_takeovers_total",
    "Shards this replica began to serve that another holder left without releasing them (it"
    " died or lost its ownership session): served after the takeover grace.",
)
MATCHES_RESUMED = Counter(
    "hebei_table_matches_resumed_total",
    "Unfinished matches resumed from their logs when this replica began to serve their shard:"
    " after a takeover (their holder died) or a handover (released cleanly, or at start).",
    ("cause",),
)
OWNER_REFUSALS = Counter(
    "hebei_table_owner_refusals_total",
    "Match-scoped calls and streams refused (UNAVAILABLE naming the owner) because this replica"
    " does not serve the match, by RPC.",
    ("rpc",),
)
OWNER_RPCS = (
    "OpenMatch",
    "GetMatch",
    "Play",
    "Spectate",
    "Dissolve",
    "ReplaceSeat",
    "ConcludeMatch",
)


def ended_status(status: str, reason: str) -> str:
    """The ``status`` label of :data:`MATCHES_ENDED` for a match that ended with ``status``
    ("finished", "dissolved") and ``reason`` (a technical failure's starts "technical:")."""
    if status == "finished":
        return "finished"
    return "failed" if reason.startswith("technical:") else "dissolved"


# Every label value known in advance, exported at 0 from the start: a panel or rate() then
# sees the first event instead of a series that appears with it (the outbox gauges above too).
KNOWN_LABELS: dict[Any, tuple[tuple[str, ...], ...]] = {
    HANDS_COMPLETED: (("win",), ("exhaustive_draw",), ("false_win",)),
    AUTO_PLAYS: tuple((r,) for r in ("timeout", "disconnect", "hand_over", "absent")),
    ACTIONS_REJECTED: (("INVALID_ARGUMENT",), ("FAILED_PRECONDITION",)),
    OUTBOX_DELIVERIES: tuple(
        (kind, result) for kind in OUTBOX_KINDS for result in ("delivered", "retry", "refused")
    ),
    PLAY_STREAMS: (("play",), ("spectate",)),
    STREAMS_REFUSED: tuple(
        (rpc, reason) for rpc in ("play", "spectate") for reason in ("total", "peer", "draining")
    ),
    EVENT_LOG_WRITE_FAILURES: (("outage",), ("refused",)),
    MATCHES_FAILED: (("event_log",), ("resume",)),
    PAUSES: (("paused",), ("resumed",), ("dissolved",)),
    MATCHES_ENDED: (("finished",), ("dissolved",), ("failed",)),
    DECISION_WAIT_SECONDS: (("bot",), ("person",)),
    DECISION_ANSWER_SECONDS: (("bot",), ("person",)),
    MATCHES_RESUMED: (("takeover",), ("handover",)),
    OWNER_REFUSALS: tuple((rpc,) for rpc in OWNER_RPCS),
}
export_known_labels(KNOWN_LABELS)
