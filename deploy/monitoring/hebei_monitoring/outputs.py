"""Every generated file of the bundle and its content."""

from __future__ import annotations

import json
from pathlib import Path

from hebei_monitoring.alertmanager import ALERTMANAGER_HEADER, alertmanager_config, alertmanager_crd
from hebei_monitoring.boards import BOARDS
from hebei_monitoring.grafana import dashboard
from hebei_monitoring.installation import Site, load_site
from hebei_monitoring.kubernetes import dashboards_kustomization, selector_transformer
from hebei_monitoring.paths import (
    ALERTMANAGER_CONFIG,
    DASHBOARDS_COMPONENT,
    HERE,
    PROMETHEUS_RULE,
    SELECTOR_LABELS,
)
from hebei_monitoring.rule_files import rule_groups, unit_tests
from hebei_monitoring.yaml_text import HEADER, to_yaml


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
