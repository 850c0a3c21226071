"""What differs between installations (site.yml): the runbook and Grafana links and the
labels Prometheus and Grafana's sidecar select by.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from hebei_monitoring.paths import SITE


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
