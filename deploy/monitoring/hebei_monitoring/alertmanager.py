"""Alertmanager's routes, placeholder receivers and inhibitions: compose's
alertmanager.yml and the same as prometheus-operator's AlertmanagerConfig.
"""

from __future__ import annotations

from typing import Any

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
