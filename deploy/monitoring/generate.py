"""The monitoring bundle of hebei, generated from this one file (monitoring-mixin style).

    .venv/bin/python deploy/monitoring/generate.py           # write every file below
    .venv/bin/python deploy/monitoring/generate.py --check   # exit 1 if one differs

Writes, next to this file:

- ``rules/hebei.yml``: recording rules (p50/p99 per service and method, error ratios, decision
  and queue-wait quantiles, the auto-play ratio, the expected match time) and the latency
  budget of each RPC as data (``hebei:grpc_server_latency_budget_seconds``);
- ``alerts/hebei.yml``: the alerts, each with ``severity`` (critical pages, warning tickets)
  and the annotations ``summary``, ``description``, ``runbook_url`` (a section of the README's
  Operating chapter) and ``dashboard_url``;
- ``tests/hebei_test.yml``: a firing and a quiet ``promtool test rules`` case per alert;
- ``dashboards/*.json``: the Grafana dashboards;

and ``k8s/components/monitoring/prometheusrule.yaml``: the same groups as a PrometheusRule.

``--runbook-base`` and ``--grafana-url`` point the links at your README and Grafana. Job names
are ``hebei.stack.processes.METRICS_JOBS`` (the local stack, compose and Kubernetes use them).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

# The test series have the buckets the services' histograms export.
from hebei.bots.metrics import DECISION_BUCKETS as BOT_LES
from hebei.bots.metrics import WAIT_BUCKETS as WAIT_LES
from hebei.common.metrics import HANDLING_BUCKETS as GRPC_LES
from hebei.stack.processes import METRICS_JOBS
from hebei.table.metrics import DECISION_BUCKETS as TABLE_LES

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PROMETHEUS_RULE = ROOT / "k8s" / "components" / "monitoring" / "prometheusrule.yaml"

RUNBOOK_BASE = "https://git.hebei.example/hebei/blob/main/README.md"
GRAFANA_URL = "http://localhost:3000"

LEDGER, TABLE, MATCHMAKING, BOTS = (
    METRICS_JOBS[k] for k in ("ledger", "table", "matchmaking", "bots")
)
# The bot service: deployed by compose and Kubernetes, not run by the local stack (hence not
# in HebeiServiceAbsent, which would fire there).
BOTSERVICE = METRICS_JOBS.get("botservice", "hebei-botservice")
SERVICE_JOBS = f'job=~"{LEDGER}|{TABLE}|{MATCHMAKING}|{BOTSERVICE}"'
# Server codes that mean "our fault or overload" (client mistakes are not counted).
ERROR_CODES = "UNKNOWN|RESOURCE_EXHAUSTED|INTERNAL|UNAVAILABLE|DATA_LOSS|DEADLINE_EXCEEDED"
OWN_SERVICES = 'grpc_service=~"hebei\\\\..*"'  # not grpc.health / reflection

# p99 budget of each unary RPC in seconds; any other unary RPC of ours: DEFAULT_BUDGET.
DEFAULT_BUDGET = 0.25
BUDGETS: dict[tuple[str, str], float] = {
    ("hebei.v1.LedgerService", "PostSettlement"): 0.1,
    ("hebei.v1.LedgerService", "PostAdjustment"): 0.1,
    ("hebei.v1.LedgerService", "GetHistory"): 0.5,
    ("hebei.v1.LedgerService", "Audit"): 30.0,
    ("hebei.v1.TableService", "OpenMatch"): 0.25,
    ("hebei.v1.TableService", "GetMatch"): 0.1,
    ("hebei.v1.TableService", "Dissolve"): 0.5,
    ("hebei.v1.MatchmakingService", "ReportMatchResult"): 0.25,
    ("hebei.v1.MatchmakingService", "CreateTournament"): 0.5,
    ("hebei.v1.MatchmakingService", "StartTournament"): 2.5,
    ("hebei.v1.MatchmakingService", "PreviewRound"): 2.5,
    ("hebei.v1.MatchmakingService", "GetStandings"): 0.5,
    ("hebei.v1.MatchmakingService", "GetSeating"): 0.5,
    ("hebei.v1.MatchmakingService", "RequestBots"): 0.5,
    ("hebei.v1.BotService", "ListPolicies"): 0.1,
    ("hebei.v1.BotService", "Suggest"): 0.1,  # the strongest level thinks up to 50 ms (p99)
    ("hebei.v1.BotService", "Review"): 10.0,  # replays a whole match, the expert at each turn
}
SEAT_DECISION_TARGET = 0.02  # ARCHITECTURE.md: p99 seat round trip <= 20 ms (bot seats)
BOT_DECISION_TARGET = 0.005  # expert bot decision p99 <= 5 ms
AUTO_PLAY_RATIO = 0.1
QUEUE_LENGTH = 20
QUEUE_WAIT = 30.0
OUTBOX_AGE = 300.0
DEFAULT_MATCH_SECONDS = 1800  # until a match has finished in the last 6 h
MIN_MATCH_SECONDS = 600  # bot matches take seconds: never expect a round faster than this


# ------------------------------------------------------------------------ recording rules


def _quantile(q: float, metric: str, by: str, window: str) -> str:
    return f"histogram_quantile({q}, sum by ({by}, le) (rate({metric}_bucket[{window}])))"


GRPC_BY = "job, grpc_type, grpc_service, grpc_method"
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
                int(q) / 100, "hebei_table_decision_wait_seconds", "job, seat_kind", "5m"
            ),
        }
        for q in ("50", "99")
    ),
    *(
        {
            "record": f"hebei:bot_decision_seconds:p{q}_5m",
            "expr": _quantile(int(q) / 100, "hebei_bot_decision_seconds", "job, policy", "5m"),
        }
        for q in ("50", "99")
    ),
    *(
        {
            "record": f"hebei:bot_task_queue_wait_seconds:p{q}_5m",
            "expr": _quantile(
                int(q) / 100, "hebei_bot_task_queue_wait_seconds", "job, policy", "5m"
            ),
        }
        for q in ("50", "99")
    ),
    {
        "record": "hebei:table_auto_play_ratio:rate10m",
        "expr": 'sum by (job) (rate(hebei_table_auto_plays_total{reason="timeout"}[10m]))\n'
        "/\n(\n"
        "  sum by (job) (rate(hebei_table_decision_wait_seconds_count[10m]))\n"
        "  + sum by (job) (rate(hebei_table_auto_plays_total[10m]))\n)",
    },
    {
        "record": "hebei:ledger_commit_seconds:p99_5m",
        "expr": _quantile(0.99, "hebei_ledger_commit_seconds", "job", "5m"),
    },
    {
        "record": "hebei:matchmaking_match_seconds:p90_6h",
        "expr": _quantile(0.9, "hebei_matchmaking_match_seconds", "job", "6h"),
    },
    {
        "record": "hebei:matchmaking_match_seconds:expected",
        "expr": f"clamp_min(hebei:matchmaking_match_seconds:p90_6h > 0, {MIN_MATCH_SECONDS})\n"
        "or on (job)\n"
        f"(0 * max by (job) (hebei_matchmaking_last_match_finished_timestamp_seconds)"
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


# --------------------------------------------------------------------------------- alerts


@dataclass
class Case:
    """One promtool case: input series (selector, values) at 1 m steps, evaluated at ``at``;
    ``alerts`` are the label sets expected (besides alertname and severity); [] for quiet."""

    series: list[tuple[str, str]]
    at: str
    alerts: list[dict[str, str]] = field(default_factory=list)


@dataclass
class Alert:
    name: str
    severity: str  # critical: pages; warning: a ticket
    expr: str
    for_: str
    summary: str
    description: str  # {{ $labels.x }} only, so the tests can render it
    dashboard: str  # a dashboard uid
    fire: Case
    quiet: Case


def hist(
    metric: str,
    labels: str,
    top: float,
    les: tuple[float, ...],
    per_minute: int = 60,
    minutes: int = 40,
) -> list[tuple[str, str]]:
    """Bucket series of a histogram whose every observation falls in the bucket ending at
    ``top`` (``per_minute`` observations a minute)."""
    out = []
    for le in (*les, float("inf")):
        grows = le >= top
        text = "+Inf" if le == float("inf") else f"{le:g}"
        values = f"0+{per_minute}x{minutes}" if grows else f"0x{minutes}"
        out.append((f'{metric}_bucket{{{labels},le="{text}"}}', values))
    out.append((f"{metric}_count{{{labels}}}", f"0+{per_minute}x{minutes}"))
    return out


def _grpc(job: str, service: str, method: str, kind: str = "unary") -> str:
    return f'job="{job}",grpc_type="{kind}",grpc_service="{service}",grpc_method="{method}"'


def _grpc_labels(job: str, service: str, method: str) -> dict[str, str]:
    return {"job": job, "grpc_type": "unary", "grpc_service": service, "grpc_method": method}


LEDGER_SVC, TABLE_SVC, MM_SVC = (
    "hebei.v1.LedgerService",
    "hebei.v1.TableService",
    "hebei.v1.MatchmakingService",
)
REFUSED = 'hebei_table_outbox_deliveries_total{result="refused"}'

ALERTS: list[Alert] = [
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
            ],
            "6m",
            [
                {"job": LEDGER, "instance": "ledger:9103"},
                {"job": BOTSERVICE, "instance": "botservice:9104"},
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
        expr='hebei:grpc_server_error_ratio:rate5m{grpc_type="unary"} > 0.05',
        for_="5m",
        summary="{{ $labels.grpc_method }} of {{ $labels.job }} fails",
        description="More than 5% of {{ $labels.grpc_service }}/{{ $labels.grpc_method }} calls"
        " on {{ $labels.job }} end UNKNOWN, RESOURCE_EXHAUSTED, INTERNAL, UNAVAILABLE,"
        " DATA_LOSS or DEADLINE_EXCEEDED, for 5 minutes.",
        dashboard="hebei-grpc",
        fire=Case(
            [
                (
                    f'grpc_server_handled_total{{{_grpc(LEDGER, LEDGER_SVC, "PostSettlement")},grpc_code="OK"}}',
                    "0+100x20",
                ),
                (
                    f'grpc_server_handled_total{{{_grpc(LEDGER, LEDGER_SVC, "PostSettlement")},grpc_code="UNAVAILABLE"}}',
                    "0+10x20",
                ),
            ],
            "15m",
            [_grpc_labels(LEDGER, LEDGER_SVC, "PostSettlement")],
        ),
        quiet=Case(
            [
                (
                    f'grpc_server_handled_total{{{_grpc(LEDGER, LEDGER_SVC, "PostSettlement")},grpc_code="OK"}}',
                    "0+100x20",
                ),
                (
                    f'grpc_server_handled_total{{{_grpc(LEDGER, LEDGER_SVC, "PostSettlement")},grpc_code="UNAVAILABLE"}}',
                    "0+2x20",
                ),
                (
                    f'grpc_server_handled_total{{{_grpc(LEDGER, LEDGER_SVC, "PostSettlement")},grpc_code="INVALID_ARGUMENT"}}',
                    "0+50x20",
                ),
                (
                    f'grpc_server_handled_total{{{_grpc(TABLE, TABLE_SVC, "Play", "bidi_stream")},grpc_code="UNAVAILABLE"}}',
                    "0+50x20",
                ),
            ],
            "15m",
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
                    _grpc(LEDGER, LEDGER_SVC, "PostSettlement"),
                    0.5,
                    GRPC_LES,
                ),
                *hist(
                    "grpc_server_handling_seconds",
                    _grpc(MATCHMAKING, MM_SVC, "GetRatings"),
                    0.5,
                    GRPC_LES,
                ),
            ],
            "30m",
            [
                _grpc_labels(LEDGER, LEDGER_SVC, "PostSettlement"),
                _grpc_labels(MATCHMAKING, MM_SVC, "GetRatings"),
            ],
        ),
        quiet=Case(
            [
                *hist(
                    "grpc_server_handling_seconds",
                    _grpc(LEDGER, LEDGER_SVC, "PostSettlement"),
                    0.1,
                    GRPC_LES,
                ),
                *hist(
                    "grpc_server_handling_seconds", _grpc(LEDGER, LEDGER_SVC, "Audit"), 10, GRPC_LES
                ),
                *hist(
                    "grpc_server_handling_seconds",
                    _grpc(TABLE, TABLE_SVC, "Play", "bidi_stream"),
                    30,
                    GRPC_LES,
                ),
            ],
            "30m",
        ),
    ),
    Alert(
        name="HebeiSeatDecisionSlow",
        severity="warning",
        expr=f'hebei:table_decision_wait_seconds:p99_5m{{seat_kind="bot"}} > {SEAT_DECISION_TARGET}',
        for_="10m",
        summary="bot seats answer slowly on {{ $labels.job }}",
        description="The p99 time from offering a decision to a bot seat's answer (the seat"
        " round trip: stream, worker, policy) has been above 20 ms for 10 minutes.",
        dashboard="hebei-tables",
        fire=Case(
            hist(
                "hebei_table_decision_wait_seconds",
                f'job="{TABLE}",seat_kind="bot"',
                0.05,
                TABLE_LES,
            ),
            "30m",
            [{"job": TABLE, "seat_kind": "bot"}],
        ),
        quiet=Case(
            [
                *hist(
                    "hebei_table_decision_wait_seconds",
                    f'job="{TABLE}",seat_kind="bot"',
                    0.01,
                    TABLE_LES,
                ),
                *hist(
                    "hebei_table_decision_wait_seconds",
                    f'job="{TABLE}",seat_kind="person"',
                    8,
                    TABLE_LES,
                ),
            ],
            "30m",
        ),
    ),
    Alert(
        name="HebeiBotDecisionSlow",
        severity="warning",
        expr=f"hebei:bot_decision_seconds:p99_5m > {BOT_DECISION_TARGET}",
        for_="15m",
        summary="the {{ $labels.policy }} policy decides slowly",
        description="The p99 time the {{ $labels.policy }} policy takes to choose an action has"
        " been above 5 ms for 15 minutes: the workers are CPU-starved or the policy got slower.",
        dashboard="hebei-bots",
        fire=Case(
            hist("hebei_bot_decision_seconds", f'job="{BOTS}",policy="expert"', 0.01, BOT_LES),
            "30m",
            [{"job": BOTS, "policy": "expert"}],
        ),
        quiet=Case(
            hist("hebei_bot_decision_seconds", f'job="{BOTS}",policy="expert"', 0.0025, BOT_LES),
            "30m",
        ),
    ),
    Alert(
        name="HebeiAutoPlayRatioHigh",
        severity="warning",
        expr=f"hebei:table_auto_play_ratio:rate10m > {AUTO_PLAY_RATIO}",
        for_="15m",
        summary="many seats time out on {{ $labels.job }}",
        description="More than 10% of the actions on {{ $labels.job }} are played by the engine"
        " because seats let their clock run out, for 15 minutes.",
        dashboard="hebei-tables",
        fire=Case(
            [
                (
                    f'hebei_table_decision_wait_seconds_count{{job="{TABLE}",seat_kind="bot"}}',
                    "0+100x40",
                ),
                (f'hebei_table_auto_plays_total{{job="{TABLE}",reason="timeout"}}', "0+30x40"),
            ],
            "30m",
            [{"job": TABLE}],
        ),
        quiet=Case(
            [
                (
                    f'hebei_table_decision_wait_seconds_count{{job="{TABLE}",seat_kind="bot"}}',
                    "0+100x40",
                ),
                (f'hebei_table_auto_plays_total{{job="{TABLE}",reason="timeout"}}', "0+2x40"),
                (f'hebei_table_auto_plays_total{{job="{TABLE}",reason="disconnect"}}', "0+30x40"),
            ],
            "30m",
        ),
    ),
    Alert(
        name="HebeiBotQueueBacklog",
        severity="warning",
        expr=f"max by (queue) (hebei_bot_queue_length) > {QUEUE_LENGTH}",
        for_="10m",
        summary="seat tasks pile up in {{ $labels.queue }}",
        description="More than 20 seat tasks have waited in {{ $labels.queue }} for 10 minutes:"
        " the fleet does not keep up (autoscaling at its maximum, workers crash-looping).",
        dashboard="hebei-bots",
        fire=Case(
            [(f'hebei_bot_queue_length{{job="{BOTS}",instance="a",queue="bots.expert"}}', "50x20")],
            "15m",
            [{"queue": "bots.expert"}],
        ),
        quiet=Case(
            [
                (
                    f'hebei_bot_queue_length{{job="{BOTS}",instance="a",queue="bots.expert"}}',
                    "50 50 50 0 0 0 0 0 0 0 0 0 0 0 0 0",
                )
            ],
            "15m",
        ),
    ),
    Alert(
        name="HebeiBotQueueWaitHigh",
        severity="warning",
        expr=f"hebei:bot_task_queue_wait_seconds:p99_5m > {QUEUE_WAIT:g}",
        for_="10m",
        summary="{{ $labels.policy }} seat tasks wait long in the queue",
        description="The p99 time from queueing a {{ $labels.policy }} seat task to a worker"
        " starting it has been above 30 s for 10 minutes.",
        dashboard="hebei-bots",
        fire=Case(
            hist(
                "hebei_bot_task_queue_wait_seconds", f'job="{BOTS}",policy="expert"', 300, WAIT_LES
            ),
            "30m",
            [{"job": BOTS, "policy": "expert"}],
        ),
        quiet=Case(
            hist(
                "hebei_bot_task_queue_wait_seconds", f'job="{BOTS}",policy="expert"', 2.5, WAIT_LES
            ),
            "30m",
        ),
    ),
    Alert(
        name="HebeiBotWorkerDown",
        severity="warning",
        expr=f'up{{job="{BOTS}"}} == 0',
        for_="5m",
        summary="bot worker {{ $labels.instance }} is down",
        description="Prometheus cannot scrape the bot worker process at {{ $labels.instance }}"
        " for 5 minutes; its seats are taken over by other workers.",
        dashboard="hebei-bots",
        fire=Case(
            [(f'up{{job="{BOTS}",instance="bots:9104"}}', "0x10")],
            "10m",
            [{"job": BOTS, "instance": "bots:9104"}],
        ),
        quiet=Case([(f'up{{job="{BOTS}",instance="bots:9104"}}', "1x10")], "10m"),
    ),
    Alert(
        name="HebeiBotFleetAbsent",
        severity="critical",
        expr=f'absent(up{{job="{BOTS}"}} == 1)',
        for_="5m",
        summary="no bot worker is running",
        description="No bot worker process has been scraped successfully for 5 minutes: tables"
        " with a bot seat pause when it must act, and tournaments stall.",
        dashboard="hebei-bots",
        fire=Case([(f'up{{job="{BOTS}",instance="a"}}', "0x10")], "10m", [{}]),
        quiet=Case(
            [
                (f'up{{job="{BOTS}",instance="a"}}', "0x10"),
                (f'up{{job="{BOTS}",instance="b"}}', "1x10"),
            ],
            "10m",
        ),
    ),
    Alert(
        name="HebeiOutboxBacklog",
        severity="warning",
        expr=f"max by (job, kind) (hebei_table_outbox_oldest_age_seconds) > {OUTBOX_AGE:g}",
        for_="10m",
        summary="{{ $labels.kind }} messages wait in the table engine's outbox",
        description="The oldest undelivered {{ $labels.kind }} of {{ $labels.job }} is more than"
        " 5 minutes old, for 10 minutes: settlements are not booked in the ledger (or results"
        " not reported to matchmaking) yet.",
        dashboard="hebei-ledger",
        fire=Case(
            [
                (
                    f'hebei_table_outbox_oldest_age_seconds{{job="{TABLE}",kind="settlement"}}',
                    "0+60x30",
                )
            ],
            "25m",
            [{"job": TABLE, "kind": "settlement"}],
        ),
        quiet=Case(
            [(f'hebei_table_outbox_oldest_age_seconds{{job="{TABLE}",kind="settlement"}}', "5x30")],
            "25m",
        ),
    ),
    Alert(
        name="HebeiOutboxDeliveryFailing",
        severity="warning",
        expr='sum by (job, kind) (rate(hebei_table_outbox_deliveries_total{result="retry"}[5m])) > 0\n'
        "unless on (job, kind)\n"
        'sum by (job, kind) (rate(hebei_table_outbox_deliveries_total{result="delivered"}[5m])) > 0',
        for_="15m",
        summary="the outbox of {{ $labels.job }} cannot deliver {{ $labels.kind }} messages",
        description="{{ $labels.job }} retries {{ $labels.kind }} deliveries and has delivered"
        " none for 15 minutes: the receiver (ledger or matchmaking) is down or refuses them.",
        dashboard="hebei-ledger",
        fire=Case(
            [
                (
                    f'hebei_table_outbox_deliveries_total{{job="{TABLE}",kind="settlement",result="retry"}}',
                    "0+5x30",
                ),
                (
                    f'hebei_table_outbox_deliveries_total{{job="{TABLE}",kind="settlement",result="delivered"}}',
                    "10x30",
                ),
            ],
            "25m",
            [{"job": TABLE, "kind": "settlement"}],
        ),
        quiet=Case(
            [
                (
                    f'hebei_table_outbox_deliveries_total{{job="{TABLE}",kind="settlement",result="retry"}}',
                    "0+5x30",
                ),
                (
                    f'hebei_table_outbox_deliveries_total{{job="{TABLE}",kind="settlement",result="delivered"}}',
                    "0+20x30",
                ),
            ],
            "25m",
        ),
    ),
    Alert(
        name="HebeiOutboxRefused",
        severity="critical",
        expr=f"sum by (job, kind) (increase({REFUSED}[30m])) > 0\nor\n"
        f"sum by (job, kind) ({REFUSED} unless {REFUSED} offset 30m) > 0",
        for_="0m",
        summary="a {{ $labels.kind }} was refused for good",
        description="The receiver refused a {{ $labels.kind }} of {{ $labels.job }} for good"
        " (INVALID_ARGUMENT, ALREADY_EXISTS, ...): it will never be booked without an operator.",
        dashboard="hebei-ledger",
        fire=Case(
            [
                (
                    f'hebei_table_outbox_deliveries_total{{job="{TABLE}",kind="settlement",result="refused"}}',
                    "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ 1 1 1 1 1 1 1",
                )
            ],
            "36m",
            [{"job": TABLE, "kind": "settlement"}],
        ),
        quiet=Case(
            [
                (
                    f'hebei_table_outbox_deliveries_total{{job="{TABLE}",kind="settlement",result="refused"}}',
                    "0x40",
                )
            ],
            "36m",
        ),
    ),
    Alert(
        name="HebeiEventLogWriteFailing",
        severity="critical",
        expr="sum by (job, kind) (rate(hebei_table_event_log_write_failures_total[5m])) > 0",
        for_="2m",
        summary="the table engine cannot write its event log",
        description="{{ $labels.job }} fails to write events ({{ $labels.kind }}) for 2"
        " minutes: tables wait (outage) or matches are failed (refused).",
        dashboard="hebei-tables",
        fire=Case(
            [
                (
                    f'hebei_table_event_log_write_failures_total{{job="{TABLE}",kind="outage"}}',
                    "0+3x20",
                )
            ],
            "10m",
            [{"job": TABLE, "kind": "outage"}],
        ),
        quiet=Case(
            [
                (
                    f'hebei_table_event_log_write_failures_total{{job="{TABLE}",kind="outage"}}',
                    "5x20",
                )
            ],
            "10m",
        ),
    ),
    Alert(
        name="HebeiAuthFailures",
        severity="warning",
        expr='sum by (job) (rate(hebei_auth_failures_total{result="unknown"}[5m])) * 60 > 5',
        for_="10m",
        summary="{{ $labels.job }} refuses wrong tokens",
        description="More than 5 calls a minute to {{ $labels.job }} bring a token that is not"
        " the operator's or a service's, for 10 minutes: someone guesses tokens, or a client"
        " runs with an old one.",
        dashboard="hebei-grpc",
        fire=Case(
            [(f'hebei_auth_failures_total{{job="{LEDGER}",result="unknown"}}', "0+10x30")],
            "20m",
            [{"job": LEDGER}],
        ),
        quiet=Case(
            [
                (f'hebei_auth_failures_total{{job="{LEDGER}",result="unknown"}}', "0+2x30"),
                (f'hebei_auth_failures_total{{job="{LEDGER}",result="throttled"}}', "0+50x30"),
            ],
            "20m",
        ),
    ),
    Alert(
        name="HebeiLedgerAuditFailed",
        severity="critical",
        expr="max by (job) (hebei_ledger_audit_problems) > 0",
        for_="0m",
        summary="the ledger audit found problems",
        description="The last Audit of {{ $labels.job }} found entries that do not balance,"
        " balances that differ from their postings or a tournament that does not sum to zero.",
        dashboard="hebei-ledger",
        fire=Case(
            [(f'hebei_ledger_audit_problems{{job="{LEDGER}",instance="a"}}', "0 0 3 3 3 3")],
            "5m",
            [{"job": LEDGER}],
        ),
        quiet=Case([(f'hebei_ledger_audit_problems{{job="{LEDGER}",instance="a"}}', "0x6")], "5m"),
    ),
    Alert(
        name="HebeiStandingsMismatch",
        severity="critical",
        expr="sum by (job) (increase(hebei_matchmaking_standings_mismatches_total[1h])) > 0",
        for_="0m",
        summary="ledger standings differ from the match results",
        description="{{ $labels.job }} closed a round whose ledger standings differ from the"
        " results the table engine reported (the tournament's problems say which players).",
        dashboard="hebei-tournaments",
        fire=Case(
            [
                (
                    f'hebei_matchmaking_standings_mismatches_total{{job="{MATCHMAKING}",instance="a"}}',
                    "0 0 1 1 1 1",
                )
            ],
            "5m",
            [{"job": MATCHMAKING}],
        ),
        quiet=Case(
            [
                (
                    f'hebei_matchmaking_standings_mismatches_total{{job="{MATCHMAKING}",instance="a"}}',
                    "0x6",
                )
            ],
            "5m",
        ),
    ),
    Alert(
        name="HebeiRoundStuck",
        severity="critical",
        expr="(time() - max by (job) (hebei_matchmaking_last_match_finished_timestamp_seconds))\n"
        "  > on (job) 2 * hebei:matchmaking_match_seconds:expected\n"
        'and on (job)\nsum by (job) (hebei_matchmaking_matches_live{state="opened"}) > 0',
        for_="5m",
        summary="no match has finished for twice the match time",
        description="{{ $labels.job }} follows open matches but none has finished for twice the"
        " usual match time (the 6 h p90, at least 10 minutes; else 30 minutes): a round is stuck.",
        dashboard="hebei-tournaments",
        fire=Case(
            [
                (
                    f'hebei_matchmaking_last_match_finished_timestamp_seconds{{job="{MATCHMAKING}",instance="a"}}',
                    "0x80",
                ),
                (
                    f'hebei_matchmaking_matches_live{{job="{MATCHMAKING}",instance="a",state="opened"}}',
                    "4x80",
                ),
            ],
            "70m",
            [{"job": MATCHMAKING}],
        ),
        quiet=Case(
            [
                (
                    f'hebei_matchmaking_last_match_finished_timestamp_seconds{{job="{MATCHMAKING}",instance="a"}}',
                    "0+60x80",
                ),
                (
                    f'hebei_matchmaking_matches_live{{job="{MATCHMAKING}",instance="a",state="opened"}}',
                    "4x80",
                ),
            ],
            "70m",
        ),
    ),
    Alert(
        name="HebeiMatchesStalled",
        severity="warning",
        expr='sum by (job) (increase(hebei_matchmaking_matches_ended_total{how="stalled"}[30m])) > 0',
        for_="0m",
        summary="matches were dissolved as stalled",
        description="{{ $labels.job }} dissolved matches that had no new event for the stall"
        " timeout (10 minutes) in the last 30 minutes.",
        dashboard="hebei-tournaments",
        fire=Case(
            [
                (
                    f'hebei_matchmaking_matches_ended_total{{job="{MATCHMAKING}",instance="a",how="stalled"}}',
                    "0 0 1 1 1",
                )
            ],
            "4m",
            [{"job": MATCHMAKING}],
        ),
        quiet=Case(
            [
                (
                    f'hebei_matchmaking_matches_ended_total{{job="{MATCHMAKING}",instance="a",how="stalled"}}',
                    "0x5",
                ),
                (
                    f'hebei_matchmaking_matches_ended_total{{job="{MATCHMAKING}",instance="a",how="finished"}}',
                    "0+4x5",
                ),
            ],
            "4m",
        ),
    ),
    Alert(
        name="HebeiPostgresDown",
        severity="critical",
        expr="pg_up == 0",
        for_="1m",
        summary="PostgreSQL is down",
        description="postgres_exporter {{ $labels.instance }} cannot reach PostgreSQL: every"
        " service stops booking, seating and logging events.",
        dashboard="hebei-ledger",
        fire=Case(
            [('pg_up{job="postgres",instance="pg:9187"}', "1 0 0 0 0")],
            "4m",
            [{"job": "postgres", "instance": "pg:9187"}],
        ),
        quiet=Case([('pg_up{job="postgres",instance="pg:9187"}', "1x5")], "4m"),
    ),
    Alert(
        name="HebeiPostgresConnectionsNearLimit",
        severity="warning",
        expr="sum by (job, instance) (pg_stat_activity_count)\n"
        "/ on (job, instance)\nmax by (job, instance) (pg_settings_max_connections) > 0.8",
        for_="10m",
        summary="PostgreSQL is near its connection limit",
        description="More than 80% of max_connections of {{ $labels.instance }} are in use for"
        " 10 minutes: the next pool to grow gets refused.",
        dashboard="hebei-ledger",
        fire=Case(
            [
                (
                    'pg_stat_activity_count{job="postgres",instance="pg:9187",datname="hebei",state="idle"}',
                    "50x20",
                ),
                (
                    'pg_stat_activity_count{job="postgres",instance="pg:9187",datname="hebei",state="active"}',
                    "40x20",
                ),
                ('pg_settings_max_connections{job="postgres",instance="pg:9187"}', "100x20"),
            ],
            "15m",
            [{"job": "postgres", "instance": "pg:9187"}],
        ),
        quiet=Case(
            [
                (
                    'pg_stat_activity_count{job="postgres",instance="pg:9187",datname="hebei",state="idle"}',
                    "20x20",
                ),
                (
                    'pg_stat_activity_count{job="postgres",instance="pg:9187",datname="hebei",state="active"}',
                    "10x20",
                ),
                ('pg_settings_max_connections{job="postgres",instance="pg:9187"}', "100x20"),
            ],
            "15m",
        ),
    ),
]


def runbook_url(base: str, alert: str) -> str:
    return f"{base}#{alert.lower()}"


def dashboard_url(base: str, uid: str) -> str:
    return f"{base}/d/{uid}"


def annotations(alert: Alert, runbook_base: str, grafana: str) -> dict[str, str]:
    return {
        "summary": alert.summary,
        "description": alert.description,
        "runbook_url": runbook_url(runbook_base, alert.name),
        "dashboard_url": dashboard_url(grafana, alert.dashboard),
    }


def render(template: str, labels: dict[str, str]) -> str:
    """A ``{{ $labels.x }}`` template as Prometheus renders it for ``labels``."""
    return re.sub(r"\{\{ \$labels\.(\w+) \}\}", lambda m: labels.get(m.group(1), ""), template)


def rule_groups(runbook_base: str, grafana: str) -> tuple[list[dict], list[dict]]:
    """(recording rule groups, alert groups)."""
    rules = [
        {"name": "hebei.rules", "rules": RECORDING_RULES},
        {"name": "hebei.budgets", "rules": BUDGET_RULES},
    ]
    alerts = [
        {
            "name": "hebei.alerts",
            "rules": [
                {
                    "alert": a.name,
                    "expr": a.expr,
                    "for": a.for_,
                    "labels": {"severity": a.severity},
                    "annotations": annotations(a, runbook_base, grafana),
                }
                for a in ALERTS
            ],
        }
    ]
    return rules, alerts


def unit_tests(runbook_base: str, grafana: str) -> dict[str, Any]:
    tests = []
    for alert in ALERTS:
        for case in (alert.fire, alert.quiet):
            expected = []
            for labels in case.alerts:
                full = {**labels, "severity": alert.severity}
                notes = annotations(alert, runbook_base, grafana)
                expected.append(
                    {
                        "exp_labels": full,
                        "exp_annotations": {k: render(v, full) for k, v in notes.items()},
                    }
                )
            tests.append(
                {
                    "name": f"{alert.name} {'fires' if case.alerts else 'stays quiet'}",
                    "interval": "1m",
                    "input_series": [{"series": s, "values": v} for s, v in case.series],
                    "alert_rule_test": [
                        {"eval_time": case.at, "alertname": alert.name, "exp_alerts": expected}
                    ],
                }
            )
    return {
        "rule_files": ["../rules/hebei.yml", "../alerts/hebei.yml"],
        "evaluation_interval": "1m",
        "tests": tests,
    }


# ----------------------------------------------------------------------------- dashboards


@dataclass
class Panel:
    title: str
    targets: list[tuple[str, str]]  # (expr, legend)
    unit: str = "short"
    description: str = ""
    kind: str = "timeseries"
    width: int = 12


@dataclass
class Board:
    uid: str
    title: str
    description: str
    rows: list[tuple[str, list[Panel]]]
    variables: list[dict[str, Any]] = field(default_factory=list)


DS = {"type": "prometheus", "uid": "${datasource}"}
RI = "$__rate_interval"


def q(quantile: float, metric: str, by: str, selector: str = "", window: str = RI) -> str:
    inner = f"{metric}_bucket{{{selector}}}" if selector else f"{metric}_bucket"
    return f"histogram_quantile({quantile}, sum by ({by}, le) (rate({inner}[{window}])))"


def job_variable(metric: str) -> dict[str, Any]:
    return {
        "name": "job",
        "label": "service",
        "type": "query",
        "datasource": DS,
        "query": {"query": f"label_values({metric}, job)", "refId": "job"},
        "definition": f"label_values({metric}, job)",
        "multi": True,
        "includeAll": True,
        "allValue": ".*",
        "current": {"selected": True, "text": ["All"], "value": ["$__all"]},
        "refresh": 2,
        "sort": 1,
    }


J = 'job=~"$job"'
BOARDS: list[Board] = [
    Board(
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
                        "UNKNOWN, RESOURCE_EXHAUSTED, INTERNAL, UNAVAILABLE,"
                        " DATA_LOSS, DEADLINE_EXCEEDED over all calls; the alert fires above 5%.",
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
    ),
    Board(
        "hebei-tables",
        "Hebei / Tables",
        "The table engine: tables, hands per second, seat decisions (by seat kind, and the"
        " bots' own decision time by policy), auto-play, streams and the event log.",
        [
            (
                "Play",
                [
                    Panel(
                        "Tables active", [("sum by (job) (hebei_table_tables_active)", "{{job}}")]
                    ),
                    Panel(
                        "Hands per second by outcome",
                        [
                            (
                                f"sum by (outcome) (rate(hebei_table_hands_completed_total[{RI}]))",
                                "{{outcome}}",
                            )
                        ],
                        "short",
                    ),
                    Panel(
                        "Seat decision p50 / p99 by seat kind",
                        [
                            ("hebei:table_decision_wait_seconds:p50_5m", "p50 {{seat_kind}}"),
                            ("hebei:table_decision_wait_seconds:p99_5m", "p99 {{seat_kind}}"),
                        ],
                        "s",
                        "From offering a decision to the seat's answer (a timeout counts its whole"
                        " clock). Target: bot seats p99 <= 20 ms.",
                    ),
                    Panel(
                        "Bot decision time p50 / p99 by policy",
                        [
                            ("hebei:bot_decision_seconds:p50_5m", "p50 {{policy}}"),
                            ("hebei:bot_decision_seconds:p99_5m", "p99 {{policy}}"),
                        ],
                        "s",
                        "Time a policy takes to choose (in the worker). Target: expert p99 <= 5 ms.",
                    ),
                ],
            ),
            (
                "Auto-play",
                [
                    Panel(
                        "Auto-plays per second by reason",
                        [
                            (
                                f"sum by (reason) (rate(hebei_table_auto_plays_total[{RI}]))",
                                "{{reason}}",
                            )
                        ],
                    ),
                    Panel(
                        "Auto-play ratio (timeouts)",
                        [("hebei:table_auto_play_ratio:rate10m", "{{job}}")],
                        "percentunit",
                        "Actions played by the engine because a seat's clock ran out, over all"
                        " actions; the alert fires above 10%.",
                    ),
                    Panel(
                        "Actions rejected by code",
                        [
                            (
                                f"sum by (code) (rate(hebei_table_actions_rejected_total[{RI}]))",
                                "{{code}}",
                            )
                        ],
                    ),
                    Panel(
                        "Pauses and held clocks",
                        [
                            (
                                f"sum by (event) (rate(hebei_table_pauses_total[{RI}]))",
                                "pause {{event}}",
                            ),
                            (f"sum(rate(hebei_table_clocks_held_total[{RI}]))", "clocks held"),
                        ],
                    ),
                ],
            ),
            (
                "Streams and event log",
                [
                    Panel("Open streams", [("sum by (rpc) (hebei_table_streams_open)", "{{rpc}}")]),
                    Panel(
                        "Streams refused",
                        [
                            (
                                f"sum by (rpc, reason) (rate(hebei_table_streams_refused_total[{RI}]))",
                                "{{rpc}} {{reason}}",
                            )
                        ],
                    ),
                    Panel(
                        "Event log write p99",
                        [
                            (
                                q(0.99, "hebei_table_event_log_write_seconds", "job"),
                                "write p99 {{job}}",
                            )
                        ],
                        "s",
                    ),
                    Panel(
                        "Event log batch size p50",
                        [(q(0.5, "hebei_table_event_log_batch_size", "job"), "{{job}}")],
                    ),
                    Panel(
                        "Event log failures and failed matches",
                        [
                            (
                                f"sum by (kind) (rate(hebei_table_event_log_write_failures_total[{RI}]))",
                                "write failure {{kind}}",
                            ),
                            (
                                f"sum by (cause) (rate(hebei_table_matches_failed_total[{RI}]))",
                                "match failed {{cause}}",
                            ),
                        ],
                        width=24,
                    ),
                ],
            ),
        ],
    ),
    Board(
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
    ),
    Board(
        "hebei-tournaments",
        "Hebei / Tournaments",
        "Matchmaking: tournaments, rounds, matches (stalled ones too), seating time and"
        " quality, replacements and quick play.",
        [
            (
                "Rounds and matches",
                [
                    Panel(
                        "Tournaments by status",
                        [("sum by (status) (hebei_matchmaking_tournaments)", "{{status}}")],
                    ),
                    Panel(
                        "Rounds seated and finished per hour",
                        [
                            (
                                "sum by (mode) (increase(hebei_matchmaking_rounds_seated_total[1h]))",
                                "seated {{mode}}",
                            ),
                            (
                                "sum(increase(hebei_matchmaking_rounds_finished_total[1h]))",
                                "finished",
                            ),
                        ],
                    ),
                    Panel(
                        "Matches followed by state",
                        [("sum by (state) (hebei_matchmaking_matches_live)", "{{state}}")],
                    ),
                    Panel(
                        "Matches ended per hour by how (stalled tables)",
                        [
                            (
                                "sum by (how) (increase(hebei_matchmaking_matches_ended_total[1h]))",
                                "{{how}}",
                            )
                        ],
                    ),
                    Panel(
                        "Match time p50 / p90",
                        [
                            (q(0.5, "hebei_matchmaking_match_seconds", "job", window="1h"), "p50"),
                            (q(0.9, "hebei_matchmaking_match_seconds", "job", window="1h"), "p90"),
                        ],
                        "s",
                    ),
                    Panel(
                        "Since the last finished match",
                        [
                            (
                                "time() - max(hebei_matchmaking_last_match_finished_timestamp_seconds)",
                                "seconds",
                            ),
                            (
                                "2 * max(hebei:matchmaking_match_seconds:expected)",
                                "alert threshold",
                            ),
                        ],
                        "s",
                        "The round-stuck alert fires past twice the usual match time while"
                        " matches are open.",
                    ),
                ],
            ),
            (
                "Seating",
                [
                    Panel(
                        "Seating time p99 by mode",
                        [
                            (
                                q(0.99, "hebei_matchmaking_seating_seconds", "mode", window="1h"),
                                "{{mode}}",
                            )
                        ],
                        "s",
                    ),
                    Panel(
                        "Seating quality of the last round by mode",
                        [
                            (
                                "max by (mode) (hebei_matchmaking_seating_repeat_pairs)",
                                "repeat pairs {{mode}}",
                            ),
                            (
                                "max by (mode) (hebei_matchmaking_seating_max_pair_meetings)",
                                "most meetings of a pair {{mode}}",
                            ),
                            (
                                "max by (mode) (hebei_matchmaking_seating_wind_spread)",
                                "wind spread {{mode}}",
                            ),
                        ],
                    ),
                    Panel(
                        "Replacements and standings mismatches",
                        [
                            (
                                "sum by (cause) (increase(hebei_matchmaking_replacements_total[1h]))",
                                "replaced {{cause}}",
                            ),
                            (
                                "sum(increase(hebei_matchmaking_standings_mismatches_total[1h]))",
                                "standings mismatches",
                            ),
                        ],
                    ),
                    Panel(
                        "Round director pass p99",
                        [(q(0.99, "hebei_matchmaking_director_tick_seconds", "job"), "{{job}}")],
                        "s",
                    ),
                ],
            ),
            (
                "Quick play and watchers",
                [
                    Panel(
                        "Quick-play queue and wait p90",
                        [
                            ("sum(hebei_matchmaking_quick_play_queue)", "waiting"),
                            (
                                q(0.9, "hebei_matchmaking_quick_play_wait_seconds", "job"),
                                "wait p90 (s)",
                            ),
                        ],
                    ),
                    Panel(
                        "Open watch and quick-play streams",
                        [("sum by (rpc) (hebei_matchmaking_watch_streams)", "{{rpc}}")],
                    ),
                ],
            ),
        ],
    ),
    Board(
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
                        "Rows of the table engine's outbox not yet acknowledged.",
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
                    Panel("PostgreSQL up", [("pg_up", "{{instance}}")], kind="stat"),
                ],
            ),
        ],
    ),
]


def dashboard(board: Board) -> dict[str, Any]:
    panels: list[dict[str, Any]] = []
    y = 0
    ident = 1
    for row_title, row in board.rows:
        panels.append(
            {
                "id": ident,
                "type": "row",
                "title": row_title,
                "collapsed": False,
                "gridPos": {"h": 1, "w": 24, "x": 0, "y": y},
                "panels": [],
            }
        )
        ident += 1
        y += 1
        x = 0
        for p in row:
            if x + p.width > 24:
                x, y = 0, y + 8
            panel: dict[str, Any] = {
                "id": ident,
                "type": p.kind,
                "title": p.title,
                "description": p.description,
                "datasource": DS,
                "gridPos": {"h": 8, "w": p.width, "x": x, "y": y},
                "fieldConfig": {"defaults": {"unit": p.unit}, "overrides": []},
                "options": {"legend": {"displayMode": "list", "placement": "bottom"}}
                if p.kind == "timeseries"
                else {"reduceOptions": {"calcs": ["lastNotNull"]}},
                "targets": [
                    {
                        "refId": chr(ord("A") + i),
                        "datasource": DS,
                        "expr": e,
                        "legendFormat": legend,
                    }
                    for i, (e, legend) in enumerate(p.targets)
                ],
            }
            panels.append(panel)
            ident += 1
            x += p.width
        y += 8
    return {
        "uid": board.uid,
        "title": board.title,
        "description": board.description,
        "tags": ["hebei"],
        "editable": True,
        "schemaVersion": 39,
        "version": 1,
        "time": {"from": "now-3h", "to": "now"},
        "refresh": "30s",
        "timezone": "",
        "graphTooltip": 1,
        "links": [{"title": "Hebei", "type": "dashboards", "tags": ["hebei"], "asDropdown": True}],
        "templating": {
            "list": [
                {
                    "name": "datasource",
                    "label": "data source",
                    "type": "datasource",
                    "query": "prometheus",
                    "current": {"text": "Prometheus", "value": "prometheus"},
                },
                *board.variables,
            ]
        },
        "annotations": {"list": []},
        "panels": panels,
    }


# -------------------------------------------------------------------------------- output


class _Dumper(yaml.SafeDumper):
    pass


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def to_yaml(data: Any) -> str:
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, width=10_000, allow_unicode=True)


HEADER = "# Generated by deploy/monitoring/generate.py: edit that file, then run it.\n"


def outputs(runbook_base: str = RUNBOOK_BASE, grafana: str = GRAFANA_URL) -> dict[Path, str]:
    """Every generated file and its content."""
    rules, alerts = rule_groups(runbook_base, grafana)
    files = {
        HERE / "rules" / "hebei.yml": HEADER + to_yaml({"groups": rules}),
        HERE / "alerts" / "hebei.yml": HEADER + to_yaml({"groups": alerts}),
        HERE / "tests" / "hebei_test.yml": HEADER + to_yaml(unit_tests(runbook_base, grafana)),
    }
    for board in BOARDS:
        files[HERE / "dashboards" / f"{board.uid}.json"] = (
            json.dumps(dashboard(board), indent=2, ensure_ascii=False) + "\n"
        )
    rule = {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PrometheusRule",
        "metadata": {
            "name": "hebei",
            "labels": {"app.kubernetes.io/part-of": "hebei", "role": "alert-rules"},
        },
        "spec": {"groups": rules + alerts},
    }
    files[PROMETHEUS_RULE] = HEADER + to_yaml(rule)
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a file differs")
    parser.add_argument("--runbook-base", default=RUNBOOK_BASE, help="the README's URL")
    parser.add_argument("--grafana-url", default=GRAFANA_URL, help="Grafana's URL")
    args = parser.parse_args(argv)
    stale = []
    for path, text in outputs(args.runbook_base, args.grafana_url).items():
        current = path.read_text() if path.exists() else None
        if current == text:
            continue
        stale.append(path)
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    for path in stale:
        print(f"{'stale' if args.check else 'wrote'} {path.relative_to(ROOT)}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
