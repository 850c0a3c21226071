"""The table engine's Prometheus metrics (besides the grpc_* ones of the bootstrap).

No table, match or player ids as labels: only small fixed sets of values.
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

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
    "Outbox rows not delivered yet (and not refused for good), by kind; read by the outbox"
    " poster at most once per poll.",
    ("kind",),
)
OUTBOX_OLDEST_AGE_SECONDS = Gauge(
    "hebei_table_outbox_oldest_age_seconds",
    "Age of the oldest outbox row not delivered yet (0 when none), by kind.",
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
