"""The dashboard 'Hebei / Bot fleet' (uid ``hebei-bots``)."""

from __future__ import annotations

from hebei_monitoring.panels import RI, Board, Panel
from hebei_monitoring.thresholds import BOTS

BOARD = Board(
    "hebei-bots",
    "Hebei / Bot fleet",
    "The Celery bot fleet: queue depth and wait, active seats, takeovers, failures.",
    [
        (
            "Queues",
            [
                Panel(
                    "Queue depth by queue",
                    [("max by (queue) (hebei_bot_queue_length)", "{{queue}}")],
                    "short",
                    "Seat tasks no worker has reserved yet (prefetch 1: what KEDA scales on).",
                ),
                Panel(
                    "Queue wait p50 / p99 by policy",
                    [
                        ("hebei:bot_task_queue_wait_seconds:p50_5m", "p50 {{policy}}"),
                        ("hebei:bot_task_queue_wait_seconds:p99_5m", "p99 {{policy}}"),
                    ],
                    "s",
                ),
                Panel(
                    "Seats queued again by matchmaking",
                    [(f"sum(rate(hebei_matchmaking_bot_requeues_total[{RI}]))", "requeued")],
                    "short",
                    "Bot seats left empty (a dead worker, a lost task) and queued again.",
                ),
                Panel(
                    "Worker processes up",
                    [(f'count(up{{job="{BOTS}"}} == 1)', "up")],
                    "short",
                    kind="stat",
                ),
                Panel(
                    "Queue depth in the broker by queue",
                    [("max by (queue) (hebei:broker_queue_length)", "{{queue}}")],
                    "short",
                    "Seat tasks waiting, as the broker counts them (redis_exporter, RabbitMQ):"
                    " known while no worker runs; HebeiBotQueueBacklog fires above 20.",
                ),
                Panel(
                    "Broker up",
                    [
                        ("redis_up", "redis {{instance}}"),
                        ('up{job="rabbitmq"}', "rabbitmq {{instance}}"),
                    ],
                    "short",
                    kind="stat",
                ),
            ],
        ),
        (
            "Seats",
            [
                Panel(
                    "Active seat sessions by policy",
                    [("sum by (policy) (hebei_bot_seat_sessions_active)", "{{policy}}")],
                ),
                Panel(
                    "Takeovers and redeliveries",
                    [
                        (
                            f"sum by (outcome) (rate(hebei_bot_redeliveries_total[{RI}]))",
                            "{{outcome}}",
                        ),
                        (f"sum(rate(hebei_bot_reconnects_total[{RI}]))", "stream reconnects"),
                    ],
                    "short",
                    "took_over: a redelivered seat played on by another worker;"
                    " seat_held: a live session still had it.",
                ),
                Panel(
                    "Session failures by reason",
                    [(f"sum by (reason) (rate(hebei_bot_failures_total[{RI}]))", "{{reason}}")],
                ),
                Panel(
                    "Actions the engine refused",
                    [
                        (
                            f"sum by (code) (rate(hebei_bot_actions_rejected_total[{RI}]))",
                            "{{code}}",
                        )
                    ],
                ),
                Panel(
                    "Decision time p99 by policy",
                    [("hebei:bot_decision_seconds:p99_5m", "{{policy}}")],
                    "s",
                    width=24,
                ),
            ],
        ),
    ],
)
