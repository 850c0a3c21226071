"""A :class:`Board` as Grafana's dashboard JSON: rows and panels laid out on the grid,
every query scoped, the data source and scope variables first.
"""

from __future__ import annotations

from typing import Any

from hebei_monitoring.panels import DS, SCOPE_VARIABLES, Board
from hebei_monitoring.scoping import scoped


def dashboard(board: Board) -> dict[str, Any]:
    panels: list[dict[str, Any]] = []
    y = 0
    ident = 1
    for row_title, row in board.rows:
        panels.append(
            {
                "id": ident,
                "type": "row",
                "title": row_title,
                "collapsed": False,
                "gridPos": {"h": 1, "w": 24, "x": 0, "y": y},
                "panels": [],
            }
        )
        ident += 1
        y += 1
        x = 0
        for p in row:
            if x + p.width > 24:
                x, y = 0, y + 8
            panel: dict[str, Any] = {
                "id": ident,
                "type": p.kind,
                "title": p.title,
                "description": p.description,
                "datasource": DS,
                "gridPos": {"h": 8, "w": p.width, "x": x, "y": y},
                "fieldConfig": {"defaults": {"unit": p.unit}, "overrides": []},
                "options": {"legend": {"displayMode": "list", "placement": "bottom"}}
                if p.kind == "timeseries"
                else {"reduceOptions": {"calcs": ["lastNotNull"]}},
                "targets": [
                    {
                        "refId": chr(ord("A") + i),
                        "datasource": DS,
                        "expr": scoped(e),
                        "legendFormat": legend,
                    }
                    for i, (e, legend) in enumerate(p.targets)
                ],
            }
            panels.append(panel)
            ident += 1
            x += p.width
        y += 8
    return {
        "uid": board.uid,
        "title": board.title,
        "description": board.description,
        "tags": ["hebei"],
        "editable": True,
        "schemaVersion": 39,
        "version": 1,
        "time": {"from": "now-3h", "to": "now"},
        "refresh": "30s",
        "timezone": "",
        "graphTooltip": 1,
        "links": [{"title": "Hebei", "type": "dashboards", "tags": ["hebei"], "asDropdown": True}],
        "templating": {
            "list": [
                {
                    "name": "datasource",
                    "label": "data source",
                    "type": "datasource",
                    "query": "prometheus",
                    "current": {"text": "Prometheus", "value": "prometheus"},
                },
                *SCOPE_VARIABLES,
                *board.variables,
            ]
        },
        "annotations": {"list": []},
        "panels": panels,
    }
