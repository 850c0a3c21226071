"""The alerts on the services themselves: a service down or absent, and its RPCs' errors,
refusals and latency against their budgets.
"""

from __future__ import annotations

from hebei.common.metrics import HANDLING_BUCKETS as GRPC_LES
from hebei_monitoring.alert_cases import (
    GH,
    LEDGER_SVC,
    MM_SVC,
    PS,
    QUOTA_FLOOD,
    RV,
    TABLE_SVC,
    Alert,
    Case,
    grpc_label_set,
    grpc_matchers,
    handled,
    hist,
)
from hebei_monitoring.thresholds import (
    BOTS,
    BOTSERVICE,
    DEFAULT_BUDGET,
    LEDGER,
    MATCHMAKING,
    MIN_REQUEST_RATE,
    OWN_SERVICES,
    SERVICE_JOBS,
    TABLE,
    WEB,
)

SERVICE_ALERTS: list[Alert] = [
    Alert(
        name="HebeiServiceDown",
        severity="critical",
        expr=f"up{{{SERVICE_JOBS}}} == 0",
        for_="2m",
        summary="{{ $labels.job }} is down",
        description="Prometheus cannot scrape {{ $labels.job }} at {{ $labels.instance }} for"
        " 2 minutes: the process is gone or hangs.",
        dashboard="hebei-grpc",
        fire=Case(
            [
                (f'up{{job="{LEDGER}",instance="ledger:9103"}}', "1 1 0 0 0 0 0"),
                (f'up{{job="{BOTSERVICE}",instance="botservice:9104"}}', "1 1 1 0 0 0 0"),
                (f'up{{job="{BOTS}",instance="bots:9104"}}', "0 0 0 0 0 0 0"),
                (f'up{{job="{WEB}",namespace="hebei",instance="web:9105"}}', "1 0 0 0 0 0 0"),
            ],
            "6m",
            [
                {"job": LEDGER, "instance": "ledger:9103"},
                {"job": BOTSERVICE, "instance": "botservice:9104"},
                {"job": WEB, "namespace": "hebei", "instance": "web:9105"},
            ],
        ),
        quiet=Case(
            [
                (f'up{{job="{LEDGER}",instance="ledger:9103"}}', "1 0 1 0 1 1 1"),
                (f'up{{job="{BOTSERVICE}",instance="botservice:9104"}}', "1 1 1 1 1 0 0"),
            ],
            "6m",
        ),
    ),
    Alert(
        name="HebeiServiceAbsent",
        severity="critical",
        expr="\nor\n".join(f'absent(up{{job="{job}"}})' for job in (LEDGER, TABLE, MATCHMAKING)),
        for_="5m",
        summary="no {{ $labels.job }} target",
        description="Prometheus has no target of {{ $labels.job }} at all: it is not deployed,"
        " scaled to zero, or its service discovery (ServiceMonitor, scrape config) is broken.",
        dashboard="hebei-grpc",
        fire=Case(
            [
                (f'up{{job="{TABLE}",instance="a"}}', "1x10"),
                (f'up{{job="{MATCHMAKING}",instance="b"}}', "1x10"),
            ],
            "10m",
            [{"job": LEDGER}],
        ),
        quiet=Case(
            [(f'up{{job="{j}",instance="a"}}', "1x10") for j in (LEDGER, TABLE, MATCHMAKING)],
            "10m",
        ),
    ),
    Alert(
        name="HebeiGrpcErrorRatioHigh",
        severity="critical",
        expr='hebei:grpc_server_error_ratio:rate5m{grpc_type="unary"} > 0.05\n'
        "and on (cluster, namespace, job, grpc_type, grpc_service, grpc_method)\n"
        f"hebei:grpc_server_requests:rate5m >= {MIN_REQUEST_RATE:g}",
        for_="5m",
        summary="{{ $labels.grpc_method }} of {{ $labels.job }} fails",
        description="More than 5% of {{ $labels.grpc_service }}/{{ $labels.grpc_method }} calls"
        " on {{ $labels.job }} end UNKNOWN, INTERNAL, UNAVAILABLE, DATA_LOSS or"
        f" DEADLINE_EXCEEDED, for 5 minutes (at {MIN_REQUEST_RATE:g} calls a second or more).",
        dashboard="hebei-grpc",
        fire=Case(
            [
                handled(PS, "OK", "0+100x20"),
                handled(PS, "UNAVAILABLE", "0+10x20"),
            ],
            "15m",
            [grpc_label_set(LEDGER, LEDGER_SVC, "PostSettlement")],
        ),
        quiet=Case(
            [
                handled(PS, "OK", "0+100x20"),
                handled(PS, "UNAVAILABLE", "0+2x20"),
                handled(PS, "INVALID_ARGUMENT", "0+50x20"),
                handled(
                    grpc_matchers(TABLE, TABLE_SVC, "Play", "bidi_stream"), "UNAVAILABLE", "0+50x20"
                ),
                *QUOTA_FLOOD,  # refusals, not failures
                # 3 failures of 5 calls a minute: too few calls to mean anything
                handled(RV, "OK", "0+2x20"),
                handled(RV, "INTERNAL", "0+3x20"),
            ],
            "15m",
        ),
    ),
    Alert(
        name="HebeiGrpcRefusals",
        severity="warning",
        expr='hebei:grpc_server_refusal_ratio:rate5m{grpc_type="unary"} > 0.25\n'
        "and on (cluster, namespace, job, grpc_type, grpc_service, grpc_method)\n"
        "hebei:grpc_server_refusals:rate5m >= 1",
        for_="30m",
        summary="{{ $labels.grpc_method }} of {{ $labels.job }} refuses many calls",
        description="More than a quarter of {{ $labels.grpc_service }}/{{ $labels.grpc_method }}"
        " calls on {{ $labels.job }} (and at least one a second) are refused RESOURCE_EXHAUSTED"
        " by a quota, for 30 minutes: one client over its bound, or bounds too low for the load.",
        dashboard="hebei-grpc",
        fire=Case(QUOTA_FLOOD, "45m", [grpc_label_set(LEDGER, LEDGER_SVC, "GetHistory")]),
        quiet=Case(
            [
                handled(GH, "OK", "0+600x50"),
                handled(GH, "RESOURCE_EXHAUSTED", "0+30x50"),
            ],
            "45m",
        ),
    ),
    Alert(
        name="HebeiGrpcLatencyOverBudget",
        severity="warning",
        expr=f'(\n  hebei:grpc_server_handling_seconds:p99_5m{{grpc_type="unary",{OWN_SERVICES}}}\n'
        "    > on (grpc_service, grpc_method) group_left ()\n"
        "  hebei:grpc_server_latency_budget_seconds\n)\nor\n(\n"
        f'  hebei:grpc_server_handling_seconds:p99_5m{{grpc_type="unary",{OWN_SERVICES}}}\n'
        "    unless on (grpc_service, grpc_method)\n"
        f"  hebei:grpc_server_latency_budget_seconds\n) > {DEFAULT_BUDGET}",
        for_="10m",
        summary="{{ $labels.grpc_method }} of {{ $labels.job }} is slow",
        description="The p99 latency of {{ $labels.grpc_service }}/{{ $labels.grpc_method }} on"
        " {{ $labels.job }} has been above its budget for 10 minutes (budgets:"
        " hebei:grpc_server_latency_budget_seconds; others 250 ms).",
        dashboard="hebei-grpc",
        fire=Case(
            [
                *hist(
                    "grpc_server_handling_seconds",
                    grpc_matchers(LEDGER, LEDGER_SVC, "PostSettlement"),
                    0.5,
                    GRPC_LES,
                ),
                *hist(
                    "grpc_server_handling_seconds",
                    grpc_matchers(MATCHMAKING, MM_SVC, "GetRatings"),
                    0.5,
                    GRPC_LES,
                ),
            ],
            "30m",
            [
                grpc_label_set(LEDGER, LEDGER_SVC, "PostSettlement"),
                grpc_label_set(MATCHMAKING, MM_SVC, "GetRatings"),
            ],
        ),
        quiet=Case(
            [
                *hist(
                    "grpc_server_handling_seconds",
                    grpc_matchers(LEDGER, LEDGER_SVC, "PostSettlement"),
                    0.1,
                    GRPC_LES,
                ),
                *hist(
                    "grpc_server_handling_seconds",
                    grpc_matchers(LEDGER, LEDGER_SVC, "Audit"),
                    10,
                    GRPC_LES,
                ),
                *hist(
                    "grpc_server_handling_seconds",
                    grpc_matchers(TABLE, TABLE_SVC, "Play", "bidi_stream"),
                    30,
                    GRPC_LES,
                ),
            ],
            "30m",
        ),
    ),
]
