"""Where the bundle's files go: deploy/monitoring (this package's folder) and the Kubernetes
components it writes into.
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parents[1]  # deploy/monitoring
ROOT = HERE.parents[1]
SITE = HERE / "site.yml"  # the links and labels of this installation (see load_site)
PROMETHEUS_RULE = ROOT / "k8s" / "components" / "monitoring" / "prometheusrule.yaml"
ALERTMANAGER_CONFIG = ROOT / "k8s" / "components" / "monitoring" / "alertmanagerconfig.yaml"
SELECTOR_LABELS = ROOT / "k8s" / "components" / "monitoring" / "selector-labels.yaml"
DASHBOARDS_COMPONENT = ROOT / "k8s" / "components" / "grafana-dashboards"
