"""The recording rules (p50/p99 per service and method, error and refusal ratios, decision
and queue-wait quantiles, the seat objective's late ratios, the broker's queue lengths, the
web gateway's, the auto-play ratio, the expected match time) and each RPC's latency budget
as data.
"""

from __future__ import annotations

from typing import Any

from hebei_monitoring.thresholds import (
    BUDGETS,
    DEFAULT_MATCH_SECONDS,
    ERROR_CODES,
    MIN_MATCH_SECONDS,
    QUEUES,
    REFUSAL_CODES,
    SCOPE,
    SEAT_DECISION_TARGET,
    SLO_WINDOWS,
)


def _quantile(q: float, metric: str, by: str, window: str) -> str:
    return f"histogram_quantile({q}, sum by ({by}, le) (rate({metric}_bucket[{window}])))"


GRPC_BY = f"{SCOPE}, grpc_type, grpc_service, grpc_method"
RECORDING_RULES: list[dict[str, Any]] = [
    {
        "record": "hebei:grpc_server_requests:rate5m",
        "expr": f"sum by ({GRPC_BY}) (rate(grpc_server_handled_total[5m]))",
    },
    {
        "record": "hebei:grpc_server_errors:rate5m",
        "expr": f"sum by ({GRPC_BY}) "
        f'(rate(grpc_server_handled_total{{grpc_code=~"{ERROR_CODES}"}}[5m]))',
    },
    {
        "record": "hebei:grpc_server_error_ratio:rate5m",
        "expr": "hebei:grpc_server_errors:rate5m / hebei:grpc_server_requests:rate5m",
    },
    {
        "record": "hebei:grpc_server_refusals:rate5m",
        "expr": f"sum by ({GRPC_BY}) "
        f'(rate(grpc_server_handled_total{{grpc_code=~"{REFUSAL_CODES}"}}[5m]))',
    },
    {
        "record": "hebei:grpc_server_refusal_ratio:rate5m",
        "expr": "hebei:grpc_server_refusals:rate5m / hebei:grpc_server_requests:rate5m",
    },
    *(
        {
            "record": f"hebei:grpc_server_handling_seconds:p{q}_5m",
            "expr": _quantile(int(q) / 100, "grpc_server_handling_seconds", GRPC_BY, "5m"),
        }
        for q in ("50", "99")
    ),
    *(
        {
            "record": f"hebei:grpc_client_handling_seconds:p{q}_5m",
            "expr": _quantile(int(q) / 100, "grpc_client_handling_seconds", GRPC_BY, "5m"),
        }
        for q in ("50", "99")
    ),
    *(
        {
            "record": f"hebei:table_decision_wait_seconds:p{q}_5m",
            "expr": _quantile(
                int(q) / 100, "hebei_table_decision_wait_seconds", f"{SCOPE}, seat_kind", "5m"
            ),
        }
        for q in ("50", "99")
    ),
    *(
        {
            "record": f"hebei:bot_decision_seconds:p{q}_5m",
            "expr": _quantile(int(q) / 100, "hebei_bot_decision_seconds", f"{SCOPE}, policy", "5m"),
        }
        for q in ("50", "99")
    ),
    {
        "record": "hebei:bot_decision_seconds:p99_30m",
        "expr": _quantile(0.99, "hebei_bot_decision_seconds", f"{SCOPE}, policy", "30m"),
    },
    # The seat objective's error ratio: the share of decisions answered later than the target.
    *(
        {
            "record": f"hebei:table_decision_answer_slow:ratio_rate{window}",
            "expr": f"1 - (\n  sum by ({SCOPE}, seat_kind) (rate("
            f'hebei_table_decision_answer_seconds_bucket{{le="{SEAT_DECISION_TARGET:g}"}}[{window}]))\n'
            f"  /\n  sum by ({SCOPE}, seat_kind) "
            f"(rate(hebei_table_decision_answer_seconds_count[{window}]))\n)",
        }
        for window in SLO_WINDOWS
    ),
    # Seat tasks waiting in the broker, whichever it is (redis_exporter's key sizes, RabbitMQ's
    # ready messages): what the fleet has not taken yet, known even while no worker runs.
    {
        "record": "hebei:broker_queue_length",
        "expr": f"max by (cluster, namespace, queue) (\n"
        f'  label_replace(redis_key_size{{key=~"{QUEUES}"}}, "queue", "$1", "key", "(.+)")\n)\n'
        f"or\nmax by (cluster, namespace, queue) (\n"
        f'  rabbitmq_detailed_queue_messages_ready{{queue=~"{QUEUES}"}}\n)',
    },
    # The web gateway (HTTP): requests, server errors and latency by route.
    {
        "record": "hebei:web_requests:rate5m",
        "expr": f"sum by ({SCOPE}) (rate(hebei_web_requests_total[5m]))",
    },
    {
        "record": "hebei:web_errors:rate5m",
        "expr": f'sum by ({SCOPE}) (rate(hebei_web_requests_total{{code=~"5.."}}[5m]))',
    },
    *(
        {
            "record": f"hebei:web_request_duration_seconds:p{q}_5m",
            "expr": _quantile(
                int(q) / 100, "hebei_web_request_duration_seconds", f"{SCOPE}, route", "5m"
            ),
        }
        for q in ("50", "99")
    ),
    *(
        {
            "record": f"hebei:bot_task_queue_wait_seconds:p{q}_5m",
            "expr": _quantile(
                int(q) / 100, "hebei_bot_task_queue_wait_seconds", f"{SCOPE}, policy", "5m"
            ),
        }
        for q in ("50", "99")
    ),
    {
        "record": "hebei:table_auto_play_ratio:rate10m",
        "expr": f'sum by ({SCOPE}) (rate(hebei_table_auto_plays_total{{reason="timeout"}}[10m]))\n'
        "/\n(\n"
        f"  sum by ({SCOPE}) (rate(hebei_table_decision_wait_seconds_count[10m]))\n"
        f"  + sum by ({SCOPE}) (rate(hebei_table_auto_plays_total[10m]))\n)",
    },
    {
        "record": "hebei:ledger_commit_seconds:p99_5m",
        "expr": _quantile(0.99, "hebei_ledger_commit_seconds", SCOPE, "5m"),
    },
    {
        "record": "hebei:matchmaking_match_seconds:p90_6h",
        "expr": _quantile(0.9, "hebei_matchmaking_match_seconds", SCOPE, "6h"),
    },
    {
        "record": "hebei:matchmaking_match_seconds:expected",
        "expr": f"clamp_min(hebei:matchmaking_match_seconds:p90_6h > 0, {MIN_MATCH_SECONDS})\n"
        f"or on ({SCOPE})\n"
        f"(0 * max by ({SCOPE}) (hebei_matchmaking_last_match_finished_timestamp_seconds)"
        f" + {DEFAULT_MATCH_SECONDS})",
    },
]
BUDGET_RULES: list[dict[str, Any]] = [
    {
        "record": "hebei:grpc_server_latency_budget_seconds",
        "expr": f"vector({seconds})",
        "labels": {"grpc_service": service, "grpc_method": method},
    }
    for (service, method), seconds in sorted(BUDGETS.items())
]
