"""The Kubernetes components' generated parts: the label transformer Prometheus selects
the monitors and rules by, and the dashboards as ConfigMaps for Grafana's sidecar.
"""

from __future__ import annotations

from typing import Any

from hebei_monitoring.boards import BOARDS
from hebei_monitoring.installation import Site


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
