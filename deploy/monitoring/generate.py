"""The monitoring bundle of hebei (monitoring-mixin style), written from hebei_monitoring/.

The package ``hebei_monitoring`` next to this file holds the one list of rules, alerts and
panels, a module per part (thresholds, recording rules, alerts, each dashboard, Alertmanager).

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
import sys
from pathlib import Path

from hebei_monitoring.installation import SITE_HEADER, Site, load_site
from hebei_monitoring.outputs import outputs
from hebei_monitoring.paths import ROOT, SITE
from hebei_monitoring.yaml_text import to_yaml


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
