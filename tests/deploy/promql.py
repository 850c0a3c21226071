"""What the monitoring bundle uses: every PromQL expression of its rules, alerts and
dashboards, and the metric names in them (for the tests: each must be exported)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import yaml

MONITORING = Path(__file__).resolve().parents[2] / "deploy" / "monitoring"
KEYWORDS = frozenset(
    {"and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring", "group_left",
     "group_right", "inf", "nan", "Inf", "NaN"}
)  # fmt: skip
# Grafana's variables, replaced by what a panel would send.
GRAFANA_VARIABLES = {
    "$__rate_interval": "5m",
    "$__interval": "1m",
    "$__range": "1h",
    "$job": ".*",
    "$cluster": ".*",
    "$namespace": ".*",
}


def grafana_expr(expr: str) -> str:
    """A panel's query as Prometheus receives it."""
    for name, value in sorted(GRAFANA_VARIABLES.items(), key=lambda kv: -len(kv[0])):
        expr = expr.replace(name, value)
    return expr


def rule_files() -> list[Path]:
    return sorted([*MONITORING.glob("rules/*.yml"), *MONITORING.glob("alerts/*.yml")])


def rules() -> Iterator[dict]:
    for path in rule_files():
        for group in yaml.safe_load(path.read_text())["groups"]:
            yield from group["rules"]


def dashboards() -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text()) for p in sorted(MONITORING.glob("dashboards/*.json"))}


def panel_exprs() -> Iterator[tuple[str, str, str]]:
    """(dashboard uid, panel title, expression as sent) of every panel target."""
    for board in dashboards().values():
        for panel in board["panels"]:
            for target in panel.get("targets", []):
                yield board["uid"], panel["title"], grafana_expr(target["expr"])


def metric_names(expr: str) -> set[str]:
    """The metric (and recorded series) names an expression selects."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)  # string literals
    text = re.sub(r"\{[^}]*\}", " ", text)  # label matchers
    text = re.sub(r"\[[^\]]*\]", " ", text)  # range and subquery windows
    text = re.sub(
        r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", text
    )  # grouping labels
    names = set()
    for match in re.finditer(r"(?<![\w.:])[a-zA-Z_:][\w:]*", text):
        name = match.group(0)
        rest = text[match.end() :].lstrip()
        if name in KEYWORDS or rest.startswith("("):  # a function call
            continue
        names.add(name)
    return names


def recorded() -> dict[str, set[str]]:
    """Recorded series name -> the names its expressions select."""
    out: dict[str, set[str]] = {}
    for rule in rules():
        if "record" in rule:
            out.setdefault(rule["record"], set()).update(metric_names(rule["expr"]))
    return out


def used_metrics() -> dict[str, set[str]]:
    """Every raw metric name the bundle uses -> where (alert, rule or panel), recorded series
    resolved to what they are computed from."""
    recordings = recorded()
    uses: dict[str, set[str]] = {}

    def add(expr: str, where: str) -> None:
        pending = list(metric_names(expr))
        seen: set[str] = set()
        while pending:
            name = pending.pop()
            if name in seen:
                continue
            seen.add(name)
            if name in recordings:
                pending.extend(recordings[name])
            else:
                uses.setdefault(name, set()).add(where)

    for rule in rules():
        add(rule["expr"], f"alert {rule['alert']}" if "alert" in rule else f"rule {rule['record']}")
    for uid, title, expr in panel_exprs():
        add(expr, f"panel {uid}: {title}")
    return uses
