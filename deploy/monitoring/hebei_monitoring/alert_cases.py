"""An alert and its promtool cases, and the helpers that write their input series (a
histogram's buckets, a counter's steps, one gRPC method's labels, ...).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hebei_monitoring.thresholds import BOTSERVICE, LEDGER, SEAT_DECISION_TARGET, TABLE


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


def grpc_matchers(job: str, service: str, method: str, kind: str = "unary") -> str:
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


def grpc_label_set(job: str, service: str, method: str) -> dict[str, str]:
    return {"job": job, "grpc_type": "unary", "grpc_service": service, "grpc_method": method}


LEDGER_SVC, TABLE_SVC, MM_SVC = (
    "hebei.v1.LedgerService",
    "hebei.v1.TableService",
    "hebei.v1.MatchmakingService",
)
REFUSED = 'hebei_table_outbox_deliveries_total{result="refused"}'
PS, GH = (
    grpc_matchers(LEDGER, LEDGER_SVC, "PostSettlement"),
    grpc_matchers(LEDGER, LEDGER_SVC, "GetHistory"),
)
# One anonymous client over its quota of a public read, for 50 minutes.
QUOTA_FLOOD = [handled(GH, "OK", "0+60x50"), handled(GH, "RESOURCE_EXHAUSTED", "0+600x50")]
RV = grpc_matchers(BOTSERVICE, "hebei.v1.BotService", "Review")
