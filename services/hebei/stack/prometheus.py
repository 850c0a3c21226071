"""The local stack's Prometheus (``hebei up --monitoring``): its configuration, scraping every
/metrics of the stack and loading the rules and alerts of the repository's monitoring bundle
(``deploy/monitoring``), and whether it has scraped every target once (its readiness).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["monitoring_dir", "prometheus_config", "prometheus_scraping"]


def prometheus_scraping(address: str, targets: int, timeout: float = 2.0) -> bool:
    """Whether the Prometheus at ``address`` is ready and has scraped each of its ``targets``
    at least once (its service discovery hands targets over a few seconds after start)."""
    try:
        with urllib.request.urlopen(f"http://{address}/-/ready", timeout=timeout) as response:
            if response.status != 200:
                return False
        url = f"http://{address}/api/v1/targets?state=active"
        with urllib.request.urlopen(url, timeout=timeout) as response:
            active = json.loads(response.read())["data"]["activeTargets"]
    except (urllib.error.URLError, OSError, ValueError, KeyError):
        return False
    return len(active) >= targets and all(t.get("health") != "unknown" for t in active)


def monitoring_dir() -> Path | None:
    """The monitoring bundle (``deploy/monitoring``: rules, alerts, dashboards) of the
    repository this package runs from, or None (an installed wheel has none)."""
    folder = Path(__file__).resolve().parents[3] / "deploy" / "monitoring"
    return folder if (folder / "rules").is_dir() else None


def prometheus_config(
    targets: Mapping[str, list[str]], rule_dir: Path | None, interval: float = 5.0
) -> str:
    """A Prometheus configuration (YAML; JSON is YAML) scraping ``targets`` (job -> list of
    host:port) and loading the bundle's rules and alerts from ``rule_dir``."""
    seconds = f"{max(1, round(interval))}s"
    config: dict[str, Any] = {
        "global": {"scrape_interval": seconds, "evaluation_interval": seconds},
        "rule_files": []
        if rule_dir is None
        else [str(rule_dir / "rules" / "*.yml"), str(rule_dir / "alerts" / "*.yml")],
        "scrape_configs": [
            {
                "job_name": job,
                "scrape_timeout": seconds,
                "static_configs": [{"targets": sorted(addresses)}],
            }
            for job, addresses in targets.items()
            if addresses
        ],
    }
    return json.dumps(config, indent=2) + "\n"
