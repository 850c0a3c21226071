"""The dashboard 'Hebei / Ledger' (uid ``hebei-ledger``)."""

from __future__ import annotations

from hebei_monitoring.panels import RI, Board, Panel, q
from hebei_monitoring.thresholds import AUDIT_MAX_AGE

BOARD = Board(
    "hebei-ledger",
    "Hebei / Ledger",
    "The ledger: commit latency, settlements and adjustments, the table engine's outbox"
    " backlog, audits, and PostgreSQL (postgres_exporter).",
    [
        (
            "Booking",
            [
                Panel(
                    "Commit latency p50 / p99",
                    [
                        (q(0.5, "hebei_ledger_commit_seconds", "job"), "p50"),
                        ("hebei:ledger_commit_seconds:p99_5m", "p99"),
                    ],
                    "s",
                ),
                Panel(
                    "Pool wait p99",
                    [(q(0.99, "hebei_ledger_pool_wait_seconds", "job"), "p99")],
                    "s",
                ),
                Panel(
                    "Settlements per second by result",
                    [
                        (
                            f"sum by (result) (rate(hebei_ledger_settlements_total[{RI}]))",
                            "{{result}}",
                        )
                    ],
                ),
                Panel(
                    "Adjustments per second by result",
                    [
                        (
                            f"sum by (result) (rate(hebei_ledger_adjustments_total[{RI}]))",
                            "{{result}}",
                        )
                    ],
                ),
            ],
        ),
        (
            "Outbox and audit",
            [
                Panel(
                    "Outbox backlog (settlements not yet booked)",
                    [
                        ("sum by (kind) (hebei_table_outbox_pending)", "pending {{kind}}"),
                        (
                            "max by (kind) (hebei_table_outbox_oldest_age_seconds)",
                            "oldest {{kind}} (s)",
                        ),
                    ],
                    "short",
                    "Rows of the table engine's outbox not yet acknowledged. Each engine"
                    " replica reports the rows of its own shards: their sum is the whole"
                    " backlog, their max the oldest row.",
                ),
                Panel(
                    "Outbox deliveries by kind and result",
                    [
                        (
                            f"sum by (kind, result) (rate(hebei_table_outbox_deliveries_total[{RI}]))",
                            "{{kind}} {{result}}",
                        )
                    ],
                ),
                Panel(
                    "Audits and problems found",
                    [
                        (
                            "sum by (result) (increase(hebei_ledger_audits_total[1h]))",
                            "audits {{result}}",
                        ),
                        ("max(hebei_ledger_audit_problems)", "problems (last audit)"),
                    ],
                ),
                Panel(
                    "Since the last successful audit",
                    [
                        (
                            "time() - max(hebei_ledger_last_audit_timestamp_seconds > 0)",
                            "seconds",
                        ),
                        (f"vector({AUDIT_MAX_AGE})", "alert threshold"),
                    ],
                    "s",
                    "From PostgreSQL (a restart keeps it); the CronJob audits every 30"
                    " minutes, HebeiLedgerAuditStale fires past 2 hours.",
                ),
            ],
        ),
        (
            "PostgreSQL",
            [
                Panel(
                    "Connections and the limit",
                    [
                        (
                            "sum by (instance) (pg_stat_activity_count)",
                            "connections {{instance}}",
                        ),
                        ("max by (instance) (pg_settings_max_connections)", "max {{instance}}"),
                    ],
                ),
                Panel(
                    "PostgreSQL and its exporter up",
                    [
                        ("pg_up", "pg_up {{instance}}"),
                        ('up{job="postgres"}', "exporter {{instance}}"),
                    ],
                    kind="stat",
                ),
            ],
        ),
    ],
)
