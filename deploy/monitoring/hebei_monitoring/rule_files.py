"""The rule files' content: the recording rule and alert groups (each alert with its
annotations: summary, description, runbook and dashboard links) and the promtool unit
tests, a firing and a quiet case per alert.
"""

from __future__ import annotations

import re
from typing import Any

from hebei_monitoring.alert_cases import Alert
from hebei_monitoring.alerts_operations import OPERATIONS_ALERTS
from hebei_monitoring.alerts_play import PLAY_ALERTS
from hebei_monitoring.alerts_services import SERVICE_ALERTS
from hebei_monitoring.recording_rules import BUDGET_RULES, RECORDING_RULES

# In this order in the alert groups and the unit tests.
ALERTS: list[Alert] = [*SERVICE_ALERTS, *PLAY_ALERTS, *OPERATIONS_ALERTS]


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
