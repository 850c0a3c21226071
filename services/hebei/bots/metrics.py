"""Prometheus metrics of the bot fleet (one registry per worker process, served on /metrics).

Labels are the policy and a failure reason only, never match or seat ids.
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

from hebei.common.metrics import export_known_labels

DECISION_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5)
WAIT_BUCKETS = (0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800)

DECISION_SECONDS = Histogram(
    "hebei_bot_decision_seconds",
    "Time a policy takes to choose an action.",
    ("policy",),
    buckets=DECISION_BUCKETS,
)
DECISION_CPU_SECONDS = Counter(
    "hebei_bot_decision_cpu_seconds",
    "CPU time of the seat loop's thread spent in a policy choosing (the policy's own cost:"
    " without the time it waits for a core, which the decision's seconds include).",
    ("policy",),
)
SESSIONS_ACTIVE = Gauge(
    "hebei_bot_seat_sessions_active", "Seat sessions playing now in this process.", ("policy",)
)
QUEUE_WAIT_SECONDS = Histogram(
    "hebei_bot_task_queue_wait_seconds",
    "Time from sending a seat task to a worker starting it.",
    ("policy",),
    buckets=WAIT_BUCKETS,
)
FAILURES = Counter(
    "hebei_bot_failures_total",
    "Seat sessions that ended without finishing their match, by reason.",
    ("reason",),
)
REDELIVERIES = Counter(
    "hebei_bot_redeliveries_total",
    "Seat tasks delivered again (a worker was lost or the visibility timeout passed).",
    ("outcome",),  # took_over: played the seat on; seat_held: a live session has it, exited
)
QUEUE_LENGTH = Gauge(
    "hebei_bot_queue_length",
    "Seat tasks waiting in a queue, not yet reserved by a worker (sampled by every worker"
    " process every 10 s: aggregate with max by queue).",
    ("queue",),
)
WARM = Gauge(
    "hebei_bot_warm",
    "1 once this process has warmed up (the policies' tables filled, the collector frozen).",
)
RECONNECTS = Counter("hebei_bot_reconnects_total", "Play streams opened again after a drop.")
ACTIONS_REJECTED = Counter(
    "hebei_bot_actions_rejected_total", "Actions the table engine refused.", ("code",)
)

# Every label value known in advance, exported at 0 from the start (panels and rate() see
# the first event). The policies are those of hebei.bots.policies.POLICIES (a test checks).
POLICY_NAMES = ("random", "efficiency", "expert")
export_known_labels(
    {
        **{
            metric: tuple((policy,) for policy in POLICY_NAMES)
            for metric in (
                DECISION_SECONDS,
                DECISION_CPU_SECONDS,
                SESSIONS_ACTIVE,
                QUEUE_WAIT_SECONDS,
            )
        },
        FAILURES: tuple(
            (reason,)
            for reason in (
                "lease_lost",
                "superseded",
                "refused",
                "gave_up",
                "stopped",
                "invalid_ticket",
                "lease_store",
                "bad_observation",
                "policy_error",
            )
        ),
        REDELIVERIES: (("took_over",), ("seat_held",)),
        ACTIONS_REJECTED: (("INVALID_ARGUMENT",), ("FAILED_PRECONDITION",)),
    }
)
