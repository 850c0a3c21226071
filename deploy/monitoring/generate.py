"""The monitoring bundle of hebei, generated from this one file (monitoring-mixin style).

    .venv/bin/python deploy/monitoring/generate.py           # write every file below
    .venv/bin/python deploy/monitoring/generate.py --check   # exit 1 if one differs

Writes, next to this file:

- ``rules/hebei.yml``: recording rules (p50/p99 per service and method, error and refusal
  ratios, decision and queue-wait quantiles, the seat objective's late ratios, the broker's
  queue lengths, the web gateway's, the auto-play ratio, the expected match time) and the
  latency budget of each RPC as data (``hebei:grpc_server_latency_budget_seconds``), all by
  cluster, namespace and job;
- ``alerts/hebei.yml``: the alerts, each with ``severity`` (critical pages, warning tickets,
  none: the Watchdog) and the annotations ``summary``, ``description``, ``runbook_url`` (a
  section of the README's Operating chapter) and ``dashboard_url``;
- ``tests/hebei_test.yml``: a firing and a quiet ``promtool test rules`` case per alert;
- ``dashboards/*.json``: the Grafana dashboards (every query scoped by the cluster and
  namespace variables);
- ``alertmanager.yml``: compose's Alertmanager (routes, placeholder receivers, inhibitions);

and, in ``k8s/components``: ``monitoring/prometheusrule.yaml`` (the same groups as a
PrometheusRule), ``monitoring/alertmanagerconfig.yaml`` (the same routes),
``monitoring/selector-labels.yaml`` (the labels Prometheus selects monitors and rules by) and
``grafana-dashboards/`` (the dashboards as ConfigMaps for Grafana's sidecar).

What differs between installations is ``site.yml`` (runbook and Grafana URLs, selector and
dashboard labels): ``--runbook-base``, ``--grafana-url``, ``--selector-label`` and
``--dashboard-label`` change it and regenerate; ``--out DIR`` writes the tree under DIR
instead. Job names are ``hebei.stack.processes.METRICS_JOBS`` (the local stack, compose and
Kubernetes use them), ``hebei-web``, and the exporters' ``postgres``, ``redis``, ``rabbitmq``.
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
SITE = HERE / "site.yml"  # the links and labels of this installation (see load_site)
PROMETHEUS_RULE = ROOT / "k8s" / "components" / "monitoring" / "prometheusrule.yaml"
ALERTMANAGER_CONFIG = ROOT / "k8s" / "components" / "monitoring" / "alertmanagerconfig.yaml"
SELECTOR_LABELS = ROOT / "k8s" / "components" / "monitoring" / "selector-labels.yaml"
DASHBOARDS_COMPONENT = ROOT / "k8s" / "components" / "grafana-dashboards"

# Every rule and alert aggregates by these labels (as well as job): `namespace` is the target
# label Kubernetes' service discovery gives; `cluster` one a federating or multi-cluster
# setup adds (absent labels group as one).
SCOPE = "cluster, namespace, job"

LEDGER, TABLE, MATCHMAKING, BOTS = (
    METRICS_JOBS[k] for k in ("ledger", "table", "matchmaking", "bots")
)
# The bot service: deployed by compose and Kubernetes, not run by the local stack (hence not
# in HebeiServiceAbsent, which would fire there).
BOTSERVICE = METRICS_JOBS.get("botservice", "hebei-botservice")
WEB = "hebei-web"  # the web gateway's /metrics (compose and Kubernetes; not the local stack)
SERVICE_JOBS = f'job=~"{LEDGER}|{TABLE}|{MATCHMAKING}|{BOTSERVICE}|{WEB}"'
# Server codes that mean "our fault": client mistakes are not counted, nor RESOURCE_EXHAUSTED,
# a quota's refusal (per client address: one anonymous client over its bound is refused while
# everybody else is served); refusals have their ratio and alert apart (HebeiGrpcRefusals).
ERROR_CODES = "UNKNOWN|INTERNAL|UNAVAILABLE|DATA_LOSS|DEADLINE_EXCEEDED"
REFUSAL_CODES = "RESOURCE_EXHAUSTED"
# Below this many calls a second (per method) a ratio says nothing: 3 failures of 20 calls in
# 5 minutes are 15%, not an outage.
MIN_REQUEST_RATE = 0.2
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
# The seat objective (ARCHITECTURE.md): 99% of bot seats' decisions answered within 20 ms, as
# the engine measures the answer (hebei_table_decision_answer_seconds: the seat round trip
# without the event log's commit). Multi-window burn rates (the SRE workbook's): 14.4 times the
# budget over 1 h (and 5 m, so it stops soon after), or 6 times over 6 h (and 30 m).
SEAT_DECISION_TARGET = 0.02
SEAT_OBJECTIVE = 0.99
BURN_RATES = (("1h", "5m", 14.4), ("6h", "30m", 6.0))
SLO_WINDOWS = ("5m", "30m", "1h", "6h")
assert SEAT_DECISION_TARGET in TABLE_LES, "the objective counts a bucket: its edge must exist"
# The expert's p99 decision time is 5 ms on a bench machine; production workers measured
# 5.3-8.6 ms (shared CPU). Between the 5 and 10 ms bucket edges a p99 is interpolated: a 5 ms
# threshold flapped on that guess. The alert reads the p99 over 30 minutes against the next
# edge, 10 ms (twice the target: a real slowdown, a throttled pod, a slower policy).
BOT_DECISION_TARGET = 0.005
BOT_DECISION_ALERT = 0.01
AUTO_PLAY_RATIO = 0.1
QUEUE_LENGTH = 20
# The bot fleet's queues as the broker holds them: <HEBEI_BOTS_QUEUE_PREFIX>.<policy>.
QUEUES = "bots\\\\..+"
AUDIT_MAX_AGE = 7200  # the CronJob audits every 30 minutes: four missed runs
DISSOLVED_RATIO = 0.05  # of the matches ended in the last hour
DISSOLVED_MIN = 2
WEB_ERROR_RATIO = 0.05
QUEUE_WAIT = 30.0
OUTBOX_AGE = 300.0
DEFAULT_MATCH_SECONDS = 1800  # until a match has finished in the last 6 h
MIN_MATCH_SECONDS = 600  # bot matches take seconds: never expect a round faster than this


# ------------------------------------------------------------------------ recording rules


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
    severity: str  # critical: pages; warning: a ticket; none: Watchdog's heartbeat
    expr: str
    for_: str
    summary: str
    description: str  # {{ $labels.x }} only, so the tests can render it
    dashboard: str  # a dashboard uid
    fire: Case
    quiet: Case | None  # None: never quiet (Watchdog)


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


def counter(*segments: tuple[int, int]) -> str:
    """A counter's values a minute apart: (minutes, increase each minute) segments."""
    values, total = ["0"], 0
    for minutes, step in segments:
        for _ in range(minutes):
            total += step
            values.append(str(total))
    return " ".join(values)


def _grpc(job: str, service: str, method: str, kind: str = "unary") -> str:
    return f'job="{job}",grpc_type="{kind}",grpc_service="{service}",grpc_method="{method}"'


def handled(grpc: str, code: str, values: str) -> tuple[str, str]:
    """A grpc_server_handled_total series of the method ``grpc`` ending ``code``."""
    return f'grpc_server_handled_total{{{grpc},grpc_code="{code}"}}', values


def answers(seat_kind: str, within: str, total: str) -> list[tuple[str, str]]:
    """The seat objective's series: answers within the target, and all of them."""
    labels = f'job="{TABLE}",seat_kind="{seat_kind}"'
    metric = "hebei_table_decision_answer_seconds"
    return [
        (f'{metric}_bucket{{{labels},le="{SEAT_DECISION_TARGET:g}"}}', within),
        (f"{metric}_count{{{labels}}}", total),
    ]


def audited(labels: str, values: str) -> tuple[str, str]:
    """The ledger's last audit time, of the instance ``labels``."""
    return f'hebei_ledger_last_audit_timestamp_seconds{{job="{LEDGER}",{labels}}}', values


def started(labels: str, values: str) -> tuple[str, str]:
    """The ledger's process start time, of the instance ``labels``."""
    return f'process_start_time_seconds{{job="{LEDGER}",{labels}}}', values


def ended(status: str, values: str) -> tuple[str, str]:
    """The table engine's matches ended with ``status``."""
    return f'hebei_table_matches_ended_total{{job="{TABLE}",status="{status}"}}', values


def _grpc_labels(job: str, service: str, method: str) -> dict[str, str]:
    return {"job": job, "grpc_type": "unary", "grpc_service": service, "grpc_method": method}


LEDGER_SVC, TABLE_SVC, MM_SVC = (
    "hebei.v1.LedgerService",
    "hebei.v1.TableService",
    "hebei.v1.MatchmakingService",
)
REFUSED = 'hebei_table_outbox_deliveries_total{result="refused"}'
PS, GH = _grpc(LEDGER, LEDGER_SVC, "PostSettlement"), _grpc(LEDGER, LEDGER_SVC, "GetHistory")
# One anonymous client over its quota of a public read, for 50 minutes.
QUOTA_FLOOD = [handled(GH, "OK", "0+60x50"), handled(GH, "RESOURCE_EXHAUSTED", "0+600x50")]
RV = _grpc(BOTSERVICE, "hebei.v1.BotService", "Review")

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
            [_grpc_labels(LEDGER, LEDGER_SVC, "PostSettlement")],
        ),
        quiet=Case(
            [
                handled(PS, "OK", "0+100x20"),
                handled(PS, "UNAVAILABLE", "0+2x20"),
                handled(PS, "INVALID_ARGUMENT", "0+50x20"),
                handled(_grpc(TABLE, TABLE_SVC, "Play", "bidi_stream"), "UNAVAILABLE", "0+50x20"),
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
        fire=Case(QUOTA_FLOOD, "45m", [_grpc_labels(LEDGER, LEDGER_SVC, "GetHistory")]),
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
        expr="\nor\n".join(
            f'(\n  hebei:table_decision_answer_slow:ratio_rate{long}{{seat_kind="bot"}} > {rate:g} * {1 - SEAT_OBJECTIVE:g}\n'
            f"  and on (cluster, namespace, job, seat_kind)\n"
            f'  hebei:table_decision_answer_slow:ratio_rate{short}{{seat_kind="bot"}} > {rate:g} * {1 - SEAT_OBJECTIVE:g}\n)'
            for long, short, rate in BURN_RATES
        ),
        for_="2m",
        summary="bot seats spend the seat latency budget on {{ $labels.job }}",
        description="More than 1% of bot seats' decisions answered later than 20 ms (the engine's"
        " hebei_table_decision_answer_seconds): the budget burns 14.4 times too fast over an"
        " hour, or 6 times over six hours.",
        dashboard="hebei-tables",
        fire=Case(
            # a worker pod throttled for 90 minutes: a fifth of the answers late
            answers("bot", counter((90, 80)), counter((90, 100))),
            "90m",
            [{"job": TABLE, "seat_kind": "bot"}],
        ),
        quiet=Case(
            [
                # a 5-minute spike of late answers in a healthy day (0.5% late otherwise)
                *answers("bot", counter((300, 199), (5, 0), (95, 199)), counter((400, 200))),
                # people think for seconds: not the objective's
                *answers("person", counter((400, 0)), counter((400, 10))),
            ],
            "400m",
        ),
    ),
    Alert(
        name="HebeiBotDecisionSlow",
        severity="warning",
        expr=f"hebei:bot_decision_seconds:p99_30m > {BOT_DECISION_ALERT}",
        for_="30m",
        summary="the {{ $labels.policy }} policy decides slowly",
        description="The p99 time the {{ $labels.policy }} policy takes to choose an action,"
        " over 30 minutes, has been above 10 ms (twice the 5 ms target) for 30 minutes: the"
        " workers are CPU-starved or the policy got slower.",
        dashboard="hebei-bots",
        fire=Case(
            hist(
                "hebei_bot_decision_seconds",
                f'job="{BOTS}",policy="expert"',
                0.025,
                BOT_LES,
                minutes=80,
            ),
            "75m",
            [{"job": BOTS, "policy": "expert"}],
        ),
        quiet=Case(  # what production measured: 5.3-8.6 ms, between the 5 and 10 ms edges
            hist(
                "hebei_bot_decision_seconds",
                f'job="{BOTS}",policy="expert"',
                0.01,
                BOT_LES,
                minutes=80,
            ),
            "75m",
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
        expr=f"hebei:broker_queue_length > {QUEUE_LENGTH}",
        for_="10m",
        summary="seat tasks pile up in {{ $labels.queue }}",
        description="More than 20 seat tasks have waited in {{ $labels.queue }} for 10 minutes"
        " (the broker's count, known with no worker running): the fleet does not keep up"
        " (autoscaling at its maximum, workers crash-looping or absent).",
        dashboard="hebei-bots",
        fire=Case(
            [
                (
                    'redis_key_size{job="redis",namespace="hebei",db="db0",key="bots.expert"}',
                    "50x20",
                ),
                ('redis_key_size{job="redis",namespace="hebei",db="db0",key="leases"}', "900x20"),
                (
                    'rabbitmq_detailed_queue_messages_ready{job="rabbitmq",vhost="/",queue="bots.random"}',
                    "30x20",
                ),
            ],
            "15m",
            [{"namespace": "hebei", "queue": "bots.expert"}, {"queue": "bots.random"}],
        ),
        quiet=Case(
            [
                (
                    'redis_key_size{job="redis",db="db0",key="bots.expert"}',
                    "50 50 50 0 0 0 0 0 0 0 0 0 0 0 0 0",
                ),
                ('redis_key_size{job="redis",db="db0",key="bots.random"}', "3x20"),
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
        expr=f'count by (cluster, namespace) (up{{job="{BOTS}"}})\n'
        f'unless on (cluster, namespace) count by (cluster, namespace) (up{{job="{BOTS}"}} == 1)\n'
        f'or\nabsent(up{{job="{BOTS}"}})',
        for_="5m",
        summary="no bot worker is running",
        description="No bot worker process has been scraped successfully for 5 minutes: tables"
        " with a bot seat pause when it must act, and tournaments stall.",
        dashboard="hebei-bots",
        fire=Case(
            [
                (f'up{{job="{BOTS}",namespace="hebei",instance="a"}}', "0x10"),
                (f'up{{job="{BOTS}",namespace="hebei-dev",instance="b"}}', "1x10"),
            ],
            "10m",
            [{"namespace": "hebei"}],
        ),
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
        expr=f"max by (cluster, namespace, job, kind) (hebei_table_outbox_oldest_age_seconds) > {OUTBOX_AGE:g}",
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
        expr='sum by (cluster, namespace, job, kind) (rate(hebei_table_outbox_deliveries_total{result="retry"}[5m])) > 0\n'
        "unless on (cluster, namespace, job, kind)\n"
        'sum by (cluster, namespace, job, kind) (rate(hebei_table_outbox_deliveries_total{result="delivered"}[5m])) > 0',
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
        expr=f"sum by (cluster, namespace, job, kind) (increase({REFUSED}[30m])) > 0\nor\n"
        f"sum by (cluster, namespace, job, kind) ({REFUSED} unless {REFUSED} offset 30m) > 0",
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
        expr="sum by (cluster, namespace, job, kind) (rate(hebei_table_event_log_write_failures_total[5m])) > 0",
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
        expr='sum by (cluster, namespace, job) (rate(hebei_auth_failures_total{result="unknown"}[5m])) * 60 > 5',
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
        expr="max by (cluster, namespace, job) (hebei_ledger_audit_problems) > 0",
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
        expr="sum by (cluster, namespace, job) (increase(hebei_matchmaking_standings_mismatches_total[1h])) > 0",
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
        expr="(time() - max by (cluster, namespace, job) (hebei_matchmaking_last_match_finished_timestamp_seconds))\n"
        "  > on (cluster, namespace, job) 2 * hebei:matchmaking_match_seconds:expected\n"
        'and on (cluster, namespace, job)\nsum by (cluster, namespace, job) (hebei_matchmaking_matches_live{state="opened"}) > 0',
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
        expr='sum by (cluster, namespace, job) (increase(hebei_matchmaking_matches_ended_total{how="stalled"}[30m])) > 0',
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
        expr="sum by (cluster, namespace, job, instance) (pg_stat_activity_count)\n"
        "/ on (cluster, namespace, job, instance)\nmax by (cluster, namespace, job, instance) (pg_settings_max_connections) > 0.8",
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
    Alert(
        name="HebeiBrokerDown",
        severity="critical",
        expr='redis_up == 0\nor\nup{job="rabbitmq"} == 0',
        for_="2m",
        summary="the bot fleet's broker is down",
        description="{{ $labels.job }} at {{ $labels.instance }} is unreachable for 2 minutes:"
        " no seat task is queued or taken, the seat leases (Redis) are gone.",
        dashboard="hebei-bots",
        fire=Case(
            [
                ('redis_up{job="redis",instance="redis-exporter:9121"}', "1 0 0 0 0 0"),
                ('up{job="rabbitmq",instance="rabbitmq:15692"}', "0x5"),
            ],
            "5m",
            [
                {"job": "redis", "instance": "redis-exporter:9121"},
                {"job": "rabbitmq", "instance": "rabbitmq:15692"},
            ],
        ),
        quiet=Case(
            [
                ('redis_up{job="redis",instance="redis-exporter:9121"}', "1 0 1 1 1 1"),
                ('up{job="rabbitmq",instance="rabbitmq:15692"}', "1x5"),
            ],
            "5m",
        ),
    ),
    *(
        Alert(
            name=f"Hebei{kind}ExporterAbsent",
            severity="warning",
            expr=f'absent(up{{job="{job}"}} == 1)',
            for_="10m",
            summary=f"no {what} metrics",
            description=f"No {exporter} target of job {job} has been scraped for 10 minutes:"
            f" {consequence}",
            dashboard=board,
            fire=Case([(f'up{{job="{job}",instance="a"}}', "0x15")], "12m", [{}]),
            quiet=Case(
                [
                    (f'up{{job="{job}",instance="a"}}', "0x15"),
                    (f'up{{job="{job}",instance="b"}}', "1x15"),
                ],
                "12m",
            ),
        )
        for kind, job, what, exporter, consequence, board in (
            (
                "Broker",
                "redis",
                "broker",
                "redis_exporter",
                "queue depth (HebeiBotQueueBacklog) and HebeiBrokerDown are blind.",
                "hebei-bots",
            ),
            (
                "Postgres",
                "postgres",
                "PostgreSQL",
                "postgres_exporter",
                "HebeiPostgresDown and the connection alert are blind.",
                "hebei-ledger",
            ),
        )
    ),
    Alert(
        name="HebeiLedgerAuditStale",
        severity="warning",
        expr=f"time() - max by ({SCOPE}) (hebei_ledger_last_audit_timestamp_seconds > 0)"
        f" > {AUDIT_MAX_AGE}\nor\n(\n"
        f"  max by ({SCOPE}) (hebei_ledger_last_audit_timestamp_seconds) == 0\n"
        f"  and on ({SCOPE})\n"
        f'  time() - min by ({SCOPE}) (process_start_time_seconds{{job="{LEDGER}"}})'
        f" > {AUDIT_MAX_AGE}\n)",
        for_="10m",
        summary="the ledger has not been audited for 2 hours",
        description="No audit of {{ $labels.job }} has succeeded for 2 hours (the CronJob"
        " audits every 30 minutes): a failing or missing audit job leaves a broken ledger"
        " unnoticed.",
        dashboard="hebei-ledger",
        fire=Case(
            [  # audited at 00:00, then never again (the ledger restarted at 01:00)
                audited('instance="a"', "0x150"),
                audited('instance="b"', "1x150"),
                started('instance="b"', "3600x150"),
            ],
            "140m",
            [{"job": LEDGER}],
        ),
        quiet=Case(
            [  # audited every 30 minutes
                audited('instance="a"', " ".join(str(m // 30 * 1800 + 1) for m in range(151))),
                # a fresh installation, never audited yet, up for an hour
                audited('namespace="new",instance="c"', "0x150"),
                started('namespace="new",instance="c"', "5400x150"),
            ],
            "140m",
        ),
    ),
    Alert(
        name="HebeiMatchesDissolved",
        severity="warning",
        expr=f'sum by ({SCOPE}) (increase(hebei_table_matches_ended_total{{status=~"dissolved|failed"}}[1h]))'
        f" >= {DISSOLVED_MIN}\nand on ({SCOPE})\n(\n"
        f'  sum by ({SCOPE}) (increase(hebei_table_matches_ended_total{{status=~"dissolved|failed"}}[1h]))\n'
        f"  / sum by ({SCOPE}) (increase(hebei_table_matches_ended_total[1h]))\n) > {DISSOLVED_RATIO}",
        for_="0m",
        summary="matches end as technical draws on {{ $labels.job }}",
        description="More than 5% of the matches {{ $labels.job }} ended in the last hour (and"
        " at least 2) were dissolved as technical draws or failed: seats that never came back,"
        " stalled tables, an event log that refused them.",
        dashboard="hebei-tournaments",
        fire=Case(
            [
                ended("finished", counter((40, 2))),
                ended("dissolved", counter((30, 0), (10, 1))),
                ended("failed", counter((40, 0))),
            ],
            "40m",
            [{"job": TABLE}],
        ),
        quiet=Case(
            [  # 2 dissolved (an operator's Dissolve) among 400 finished
                ended("finished", counter((40, 10))),
                ended("dissolved", counter((20, 0), (2, 1), (18, 0))),
                ended("failed", counter((40, 0))),
            ],
            "40m",
        ),
    ),
    Alert(
        name="HebeiWebErrorRatioHigh",
        severity="critical",
        expr=f"hebei:web_errors:rate5m / hebei:web_requests:rate5m > {WEB_ERROR_RATIO}\n"
        f"and on ({SCOPE})\nhebei:web_requests:rate5m >= {MIN_REQUEST_RATE:g}",
        for_="5m",
        summary="the web pages fail on {{ $labels.job }}",
        description="More than 5% of the web gateway's requests end in a 5xx, for 5 minutes"
        f" (at {MIN_REQUEST_RATE:g} requests a second or more): people cannot play or watch.",
        dashboard="hebei-web",
        fire=Case(
            [
                (
                    f'hebei_web_requests_total{{job="{WEB}",route="/api/tables",method="GET",code="200"}}',
                    "0+100x20",
                ),
                (
                    f'hebei_web_requests_total{{job="{WEB}",route="/api/tables",method="GET",code="502"}}',
                    "0+20x20",
                ),
            ],
            "15m",
            [{"job": WEB}],
        ),
        quiet=Case(
            [
                (
                    f'hebei_web_requests_total{{job="{WEB}",route="/api/tables",method="GET",code="200"}}',
                    "0+100x20",
                ),
                (
                    f'hebei_web_requests_total{{job="{WEB}",route="/api/tables",method="GET",code="404"}}',
                    "0+50x20",
                ),
                (
                    f'hebei_web_requests_total{{job="{WEB}",route="/api/tables",method="GET",code="502"}}',
                    "0+2x20",
                ),
            ],
            "15m",
        ),
    ),
    # Always firing: Alertmanager routes it to a dead man's switch, whose silence says that
    # Prometheus, its rules or the path to Alertmanager broke.
    Alert(
        name="Watchdog",
        severity="none",
        expr="vector(1)",
        for_="0m",
        summary="the alerting pipeline works",
        description="Always firing: Alertmanager sends it to the heartbeat receiver; when it"
        " stops arriving, alerts do not reach anybody.",
        dashboard="hebei-grpc",
        fire=Case([], "1m", [{}]),
        quiet=None,
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
        for case in (alert.fire, alert.quiet) if alert.quiet else (alert.fire,):
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


def variable(name: str, label: str, metric: str) -> dict[str, Any]:
    """A multi-value query variable over one label of ``metric`` ("All": any value, the label
    absent too, as in compose where no series has a namespace)."""
    return {
        "name": name,
        "label": label,
        "type": "query",
        "datasource": DS,
        "query": {"query": f"label_values({metric}, {name})", "refId": name},
        "definition": f"label_values({metric}, {name})",
        "multi": True,
        "includeAll": True,
        "allValue": ".*",
        "current": {"selected": True, "text": ["All"], "value": ["$__all"]},
        "refresh": 2,
        "sort": 1,
    }


def job_variable(metric: str) -> dict[str, Any]:
    return variable("job", "service", metric)


# Every board has these, and every query of it is scoped by them (``scoped``).
SCOPE_VARIABLES = [
    variable("cluster", "cluster", 'up{job=~"hebei-.*"}'),
    variable("namespace", "namespace", 'up{job=~"hebei-.*"}'),
]
SCOPE_MATCHERS = 'cluster=~"$cluster",namespace=~"$namespace"'
_SKIPPED = re.compile(
    r'"(?:[^"\\]|\\.)*"'  # strings
    r"|\[[^\]]*\]"  # range windows
    r"|\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)"  # label lists
    r"|\d+(?:\.\d+)?(?:e[+-]?\d+)?[smhdwy]?\b"  # numbers and durations
)
_NAME = re.compile(r"(?<![\w.:$])[a-zA-Z_:][\w:]*")
_KEYWORDS = {"and", "or", "unless", "bool", "offset", "inf", "nan"} | {
    "sum",
    "min",
    "max",
    "avg",
    "group",
    "count",
    "stddev",
    "stdvar",
    "topk",
    "bottomk",
    "quantile",
    "count_values",
}  # fmt: skip  (aggregations: followed by "by (...)" rather than "(")


def scoped(expr: str, matchers: str = SCOPE_MATCHERS) -> str:
    """``expr`` with ``matchers`` added to every series selector (the names that are not
    functions, keywords or label names)."""
    out, pos = [], 0
    while pos < len(expr):
        skip = _SKIPPED.match(expr, pos)
        if skip:
            out.append(skip.group(0))
            pos = skip.end()
            continue
        name = _NAME.match(expr, pos)
        if not name or (pos and (expr[pos - 1].isalnum() or expr[pos - 1] in "_:$")):
            out.append(expr[pos])
            pos += 1
            continue
        out.append(name.group(0))
        pos = name.end()
        rest = expr[pos:].lstrip()
        if name.group(0) in _KEYWORDS or rest.startswith("("):
            continue
        if expr.startswith("{", pos):
            close = expr.index("}", pos)
            inner = expr[pos + 1 : close]
            out.append("{" + (f"{inner},{matchers}" if inner.strip() else matchers) + "}")
            pos = close + 1
        else:
            out.append("{" + matchers + "}")
    return "".join(out)


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
                        " clock), the event log's commit included. The 20 ms objective is on the"
                        " answer time: the seat objective panel below.",
                    ),
                    Panel(
                        "Bot decision time p50 / p99 by policy",
                        [
                            ("hebei:bot_decision_seconds:p50_5m", "p50 {{policy}}"),
                            ("hebei:bot_decision_seconds:p99_5m", "p99 {{policy}}"),
                        ],
                        "s",
                        "Time a policy takes to choose (in the worker). Target: expert p99 <= 5 ms;"
                        " the alert reads the 30-minute p99 against 10 ms.",
                    ),
                    Panel(
                        "Seat objective: bot answers later than 20 ms",
                        [
                            (
                                f'hebei:table_decision_answer_slow:ratio_rate{w}{{seat_kind="bot"}}',
                                f"late {w}",
                            )
                            for w in ("5m", "1h", "6h")
                        ]
                        + [(f"vector({1 - SEAT_OBJECTIVE:g})", "budget (1%)")],
                        "percentunit",
                        "Share of bot seats' decisions the engine saw answered after 20 ms"
                        " (hebei_table_decision_answer_seconds). HebeiSeatDecisionSlow fires at"
                        " 14.4x the budget over 1 h (and 5 m) or 6x over 6 h (and 30 m).",
                        width=24,
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
                        "Matches ended per hour by status (table engine)",
                        [
                            (
                                "sum by (status) (increase(hebei_table_matches_ended_total[1h]))",
                                "{{status}}",
                            ),
                            (
                                "sum by (reason) (increase(hebei_matchmaking_matches_dissolved_total[1h]))",
                                "dissolved: {{reason}}",
                            ),
                        ],
                        "short",
                        "dissolved: technical draws; failed: the event log refused the match."
                        " HebeiMatchesDissolved fires above 5% of an hour's matches (2 at least).",
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
    ),
    Board(
        "hebei-web",
        "Hebei / Web gateway",
        "The web gateway (HTTP): requests by route and code, server errors, latency by route,"
        " open event streams and seats played from browsers.",
        [
            (
                "Traffic and errors",
                [
                    Panel(
                        "Requests per second by route and code",
                        [
                            (
                                f"sum by (route, code) (rate(hebei_web_requests_total[{RI}]))",
                                "{{route}} {{code}}",
                            )
                        ],
                        "reqps",
                    ),
                    Panel(
                        "Server errors (5xx) over all requests",
                        [
                            ("hebei:web_errors:rate5m / hebei:web_requests:rate5m", "{{job}}"),
                        ],
                        "percentunit",
                        "HebeiWebErrorRatioHigh fires above 5% (at 0.2 requests a second or more).",
                    ),
                    Panel(
                        "p50 / p99 latency by route",
                        [
                            ("hebei:web_request_duration_seconds:p50_5m", "p50 {{route}}"),
                            ("hebei:web_request_duration_seconds:p99_5m", "p99 {{route}}"),
                        ],
                        "s",
                        "Event streams (Server-Sent Events) last up to HEBEI_WEB_STREAM_SECONDS.",
                    ),
                    Panel(
                        "Open event streams and seats",
                        [
                            ("sum(hebei_web_streams)", "streams"),
                            ("sum(hebei_web_seats)", "seats"),
                        ],
                    ),
                    Panel(
                        "Gateway up",
                        [(f'up{{job="{WEB}"}}', "{{instance}}")],
                        "short",
                        kind="stat",
                        width=24,
                    ),
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
                        "expr": scoped(e),
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
                *SCOPE_VARIABLES,
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


# ---------------------------------------------------------------------------- alertmanager

# (sources, targets, labels that must be equal): while a source fires, Alertmanager holds the
# targets back. A service that is down or absent has no latency or errors worth a page of their
# own; no bot worker at all says more than each worker down.
INHIBITIONS: list[tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = [
    (
        ("HebeiServiceDown", "HebeiServiceAbsent"),
        (
            "HebeiGrpcErrorRatioHigh",
            "HebeiGrpcLatencyOverBudget",
            "HebeiGrpcRefusals",
            "HebeiWebErrorRatioHigh",
        ),
        ("cluster", "namespace", "job"),
    ),
    (("HebeiBotFleetAbsent",), ("HebeiBotWorkerDown",), ("cluster", "namespace")),
    (("HebeiBrokerDown",), ("HebeiBotQueueBacklog", "HebeiBotQueueWaitHigh"), ("cluster",)),
    (("HebeiPostgresDown",), ("HebeiPostgresConnectionsNearLimit",), ("cluster", "instance")),
]
GROUP_BY = ["alertname", "cluster", "namespace", "job"]
ALERTMANAGER_HEADER = """\
# Receivers are placeholders that deliver nothing: give each its integration (email_configs,
# slack_configs, pagerduty_configs, webhook_configs, ...; see Alertmanager's docs) for your
# team. "pager" takes the critical alerts, "tickets" the warnings, "heartbeat" the Watchdog
# (point it at a dead man's switch, which alarms when the heartbeat stops).
"""


def _alternatives(names: tuple[str, ...]) -> str:
    return names[0] if len(names) == 1 else "|".join(names)


def _op(names: tuple[str, ...]) -> str:
    return "=" if len(names) == 1 else "=~"


def alertmanager_config() -> dict[str, Any]:
    """Alertmanager's configuration (compose's alertmanager.yml)."""
    return {
        "route": {
            "receiver": "tickets",
            "group_by": GROUP_BY,
            "group_wait": "30s",
            "group_interval": "5m",
            "repeat_interval": "4h",
            "routes": [
                {
                    "matchers": ['alertname="Watchdog"'],
                    "receiver": "heartbeat",
                    "group_wait": "0s",
                    "repeat_interval": "5m",
                },
                {"matchers": ['severity="critical"'], "receiver": "pager", "repeat_interval": "1h"},
            ],
        },
        "receivers": [{"name": name} for name in ("tickets", "pager", "heartbeat")],
        "inhibit_rules": [
            {
                "source_matchers": [f'alertname{_op(src)}"{_alternatives(src)}"'],
                "target_matchers": [f'alertname{_op(dst)}"{_alternatives(dst)}"'],
                "equal": list(equal),
            }
            for src, dst, equal in INHIBITIONS
        ],
    }


def alertmanager_crd() -> dict[str, Any]:
    """The same as an AlertmanagerConfig of prometheus-operator (kube-prometheus-stack's
    Alertmanager merges it)."""

    def matcher(name: str, names: tuple[str, ...]) -> dict[str, str]:
        # matchType "=" is the default: left out (a bare = is YAML 1.1's value tag)
        regex = {"matchType": "=~"} if len(names) > 1 else {}
        return {"name": name, "value": _alternatives(names), **regex}

    return {
        "apiVersion": "monitoring.coreos.com/v1alpha1",
        "kind": "AlertmanagerConfig",
        "metadata": {"name": "hebei", "labels": {"app.kubernetes.io/part-of": "hebei"}},
        "spec": {
            "route": {
                "receiver": "tickets",
                "groupBy": GROUP_BY,
                "groupWait": "30s",
                "groupInterval": "5m",
                "repeatInterval": "4h",
                "routes": [
                    {
                        "matchers": [matcher("alertname", ("Watchdog",))],
                        "receiver": "heartbeat",
                        "groupWait": "0s",
                        "repeatInterval": "5m",
                    },
                    {
                        "matchers": [matcher("severity", ("critical",))],
                        "receiver": "pager",
                        "repeatInterval": "1h",
                    },
                ],
            },
            "receivers": [{"name": name} for name in ("tickets", "pager", "heartbeat")],
            "inhibitRules": [
                {
                    "sourceMatch": [matcher("alertname", src)],
                    "targetMatch": [matcher("alertname", dst)],
                    "equal": list(equal),
                }
                for src, dst, equal in INHIBITIONS
            ],
        },
    }


# -------------------------------------------------------------------------------- output


@dataclass
class Site:
    """What differs between installations (site.yml): where the runbooks (the README) and
    Grafana are, the labels kube-prometheus-stack's Prometheus selects its monitors and rules
    by, and the label its Grafana's sidecar loads dashboard ConfigMaps by."""

    runbook_base: str
    grafana_url: str
    selector_labels: dict[str, str]
    dashboard_label: dict[str, str]


def load_site(path: Path = SITE) -> Site:
    data = yaml.safe_load(path.read_text())
    return Site(
        data["runbook_base"],
        data["grafana_url"],
        {str(k): str(v) for k, v in data["selector_labels"].items()},
        {str(k): str(v) for k, v in data["dashboard_label"].items()},
    )


SITE_HEADER = """\
# This installation's links and labels, read by deploy/monitoring/generate.py: edit them (or
# pass --runbook-base, --grafana-url, --selector-label, --dashboard-label, which write them
# here), then run it. See README, "Operating".
"""


def selector_transformer(site: Site) -> dict[str, Any]:
    """A kustomize LabelTransformer giving the monitors and the rule (only them) the labels
    kube-prometheus-stack's Prometheus selects by (release: <its Helm release> by default)."""
    return {
        "apiVersion": "builtin",
        "kind": "LabelTransformer",
        "metadata": {"name": "prometheus-selector"},
        "labels": site.selector_labels,
        "fieldSpecs": [
            {"kind": kind, "path": "metadata/labels", "create": True}
            for kind in ("ServiceMonitor", "PodMonitor", "PrometheusRule", "AlertmanagerConfig")
        ],
    }


def dashboards_kustomization(site: Site) -> dict[str, Any]:
    """A component of one ConfigMap per dashboard, labelled for Grafana's sidecar."""
    return {
        "apiVersion": "kustomize.config.k8s.io/v1alpha1",
        "kind": "Component",
        "generatorOptions": {
            "disableNameSuffixHash": True,
            "labels": {"app.kubernetes.io/part-of": "hebei", **site.dashboard_label},
            # the sidecar's folderAnnotation (kube-prometheus-stack: grafana_folder)
            "annotations": {"grafana_folder": "Hebei"},
        },
        "configMapGenerator": [
            {"name": f"{board.uid}-dashboard", "files": [f"dashboards/{board.uid}.json"]}
            for board in BOARDS
        ],
    }


def outputs(site: Site | None = None) -> dict[Path, str]:
    """Every generated file and its content."""
    site = site or load_site()
    runbook_base, grafana = site.runbook_base, site.grafana_url
    rules, alerts = rule_groups(runbook_base, grafana)
    files = {
        HERE / "rules" / "hebei.yml": HEADER + to_yaml({"groups": rules}),
        HERE / "alerts" / "hebei.yml": HEADER + to_yaml({"groups": alerts}),
        HERE / "tests" / "hebei_test.yml": HEADER + to_yaml(unit_tests(runbook_base, grafana)),
        HERE / "alertmanager.yml": HEADER + ALERTMANAGER_HEADER + to_yaml(alertmanager_config()),
        ALERTMANAGER_CONFIG: HEADER + ALERTMANAGER_HEADER + to_yaml(alertmanager_crd()),
        SELECTOR_LABELS: HEADER + to_yaml(selector_transformer(site)),
        DASHBOARDS_COMPONENT / "kustomization.yaml": HEADER
        + "# Grafana's dashboard sidecar (kube-prometheus-stack: grafana.sidecar.dashboards) loads\n"
        '# every ConfigMap with its label; see README, "Operating".\n'
        + to_yaml(dashboards_kustomization(site)),
    }
    for board in BOARDS:
        text = json.dumps(dashboard(board), indent=2, ensure_ascii=False) + "\n"
        files[HERE / "dashboards" / f"{board.uid}.json"] = text
        files[DASHBOARDS_COMPONENT / "dashboards" / f"{board.uid}.json"] = text
    rule = {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PrometheusRule",
        "metadata": {"name": "hebei", "labels": {"app.kubernetes.io/part-of": "hebei"}},
        "spec": {"groups": rules + alerts},
    }
    files[PROMETHEUS_RULE] = HEADER + to_yaml(rule)
    return files


def _pairs(values: list[str] | None, default: dict[str, str]) -> dict[str, str]:
    if not values:
        return default
    out = {}
    for value in values:
        key, sep, val = value.partition("=")
        if not sep or not key:
            raise SystemExit(f"not NAME=VALUE: {value}")
        out[key] = val
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a file differs")
    parser.add_argument("--runbook-base", help="the README's URL (runbooks are its sections)")
    parser.add_argument("--grafana-url", help="Grafana's URL")
    parser.add_argument(
        "--selector-label",
        action="append",
        metavar="NAME=VALUE",
        help="a label Prometheus selects monitors and rules by (repeat; replaces site.yml's)",
    )
    parser.add_argument(
        "--dashboard-label",
        action="append",
        metavar="NAME=VALUE",
        help="the label Grafana's sidecar loads dashboard ConfigMaps by",
    )
    parser.add_argument(
        "--out",
        type=Path,
        help="write the tree under this folder instead of the repository (site.yml untouched)",
    )
    args = parser.parse_args(argv)
    current = load_site()
    site = Site(
        args.runbook_base or current.runbook_base,
        (args.grafana_url or current.grafana_url).rstrip("/"),
        _pairs(args.selector_label, current.selector_labels),
        _pairs(args.dashboard_label, current.dashboard_label),
    )
    files = outputs(site)
    if site != current:
        files[SITE] = SITE_HEADER + to_yaml(
            {
                "runbook_base": site.runbook_base,
                "grafana_url": site.grafana_url,
                "selector_labels": site.selector_labels,
                "dashboard_label": site.dashboard_label,
            }
        )
    stale = []
    for path, text in files.items():
        target = args.out / path.relative_to(ROOT) if args.out else path
        existing = target.read_text() if target.exists() else None
        if existing == text:
            continue
        stale.append(target)
        if not args.check:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
    for path in stale:
        shown = path.relative_to(args.out) if args.out else path.relative_to(ROOT)
        print(f"{'stale' if args.check else 'wrote'} {shown}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
