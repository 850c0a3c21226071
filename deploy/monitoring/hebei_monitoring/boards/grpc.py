"""The dashboard 'Hebei / gRPC' (uid ``hebei-grpc``)."""

from __future__ import annotations

from hebei_monitoring.panels import RI, Board, J, Panel, job_variable

BOARD = Board(
    "hebei-grpc",
    "Hebei / gRPC",
    "Traffic, errors and latency of every RPC, by service and method (server and client"
    " side), from the bootstrap's grpc_* metrics.",
    [
        (
            "Traffic",
            [
                Panel(
                    "Requests per second by method",
                    [
                        (
                            f"sum by (job, grpc_method) (rate(grpc_server_handled_total{{{J}}}[{RI}]))",
                            "{{job}} {{grpc_method}}",
                        )
                    ],
                    "reqps",
                ),
                Panel(
                    "Stream messages per second (sent, received)",
                    [
                        (
                            f'sum by (job, grpc_method) (rate(grpc_server_msg_sent_total{{{J},grpc_type!="unary"}}[{RI}]))',
                            "sent {{job}} {{grpc_method}}",
                        ),
                        (
                            f'sum by (job, grpc_method) (rate(grpc_server_msg_received_total{{{J},grpc_type!="unary"}}[{RI}]))',
                            "received {{job}} {{grpc_method}}",
                        ),
                    ],
                    "short",
                ),
                Panel(
                    "Targets up",
                    [(f"up{{{J}}}", "{{job}} {{instance}}")],
                    "short",
                    "1: Prometheus scrapes the target; 0: it does not answer.",
                    "stat",
                    24,
                ),
            ],
        ),
        (
            "Errors",
            [
                Panel(
                    "Failed calls per second by method and code",
                    [
                        (
                            f'sum by (job, grpc_method, grpc_code) (rate(grpc_server_handled_total{{{J},grpc_code!="OK"}}[{RI}]))',
                            "{{job}} {{grpc_method}} {{grpc_code}}",
                        )
                    ],
                    "reqps",
                ),
                Panel(
                    "Error ratio (alerting codes) by method",
                    [
                        (
                            f"hebei:grpc_server_error_ratio:rate5m{{{J}}}",
                            "{{job}} {{grpc_method}}",
                        )
                    ],
                    "percentunit",
                    "UNKNOWN, INTERNAL, UNAVAILABLE, DATA_LOSS, DEADLINE_EXCEEDED over all"
                    " calls; the alert fires above 5% (at 0.2 calls a second or more).",
                ),
                Panel(
                    "Refused by a quota (RESOURCE_EXHAUSTED) by method",
                    [
                        (
                            f"hebei:grpc_server_refusal_ratio:rate5m{{{J}}}",
                            "{{job}} {{grpc_method}}",
                        )
                    ],
                    "percentunit",
                    "Quota refusals over all calls, apart from failures: one client over"
                    " its bound is refused while the others are served. HebeiGrpcRefusals"
                    " fires above 25% (and one a second) for 30 minutes.",
                ),
                Panel(
                    "Client-side failures by method and code",
                    [
                        (
                            f'sum by (job, grpc_service, grpc_method, grpc_code) (rate(grpc_client_handled_total{{{J},grpc_code!="OK"}}[{RI}]))',
                            "{{job}} → {{grpc_method}} {{grpc_code}}",
                        )
                    ],
                    "reqps",
                    width=24,
                ),
            ],
        ),
        (
            "Latency",
            [
                Panel(
                    "p50 latency by method (unary)",
                    [
                        (
                            f'hebei:grpc_server_handling_seconds:p50_5m{{{J},grpc_type="unary"}}',
                            "{{job}} {{grpc_method}}",
                        )
                    ],
                    "s",
                ),
                Panel(
                    "p99 latency by method (unary) and budgets",
                    [
                        (
                            f'hebei:grpc_server_handling_seconds:p99_5m{{{J},grpc_type="unary"}}',
                            "{{job}} {{grpc_method}}",
                        ),
                        ("hebei:grpc_server_latency_budget_seconds", "budget {{grpc_method}}"),
                    ],
                    "s",
                ),
                Panel(
                    "Client-side p99 latency by method",
                    [
                        (
                            f"hebei:grpc_client_handling_seconds:p99_5m{{{J}}}",
                            "{{job}} → {{grpc_method}}",
                        )
                    ],
                    "s",
                ),
                Panel(
                    "Stream lifetimes p50 by method",
                    [
                        (
                            f'hebei:grpc_server_handling_seconds:p50_5m{{{J},grpc_type!="unary"}}',
                            "{{job}} {{grpc_method}}",
                        )
                    ],
                    "s",
                ),
            ],
        ),
    ],
    [job_variable("grpc_server_handled_total")],
)
