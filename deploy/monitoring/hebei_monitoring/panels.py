"""A dashboard as data (:class:`Board`: rows of :class:`Panel`) and what the boards build
them with: the data source, quantile queries, template variables.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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


J = 'job=~"$job"'
