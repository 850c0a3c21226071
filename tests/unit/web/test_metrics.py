"""The web gateway's request metrics: a request is labelled with its route's template, never
its raw path."""

from __future__ import annotations

import pytest

from hebei.web.app import create_app
from hebei.web.config import WebConfig
from hebei.web.metrics import STATIC, RequestMetrics


@pytest.fixture(scope="module")
def metrics() -> RequestMetrics:
    app = create_app(WebConfig(table_address="127.0.0.1:1", matchmaking_address="127.0.0.1:2"))
    return RequestMetrics(app, app.routes)


@pytest.mark.parametrize(
    ("method", "path", "route"),
    [
        ("GET", "/api/tables/m-123", "/api/tables/{match}"),
        ("GET", "/api/tables/m-456/events", "/api/tables/{match}/events"),
        ("DELETE", "/api/seats/k1", "/api/seats/{key}"),
        # Whatever no API route takes goes to the pages (their 404 or 405): never a raw path.
        ("PUT", "/api/seats/k1", STATIC),
        ("GET", "/api/nowhere/12345", STATIC),
        ("GET", "/api/tournaments/t-9/standings", "/api/tournaments/{tournament}/standings"),
        ("GET", "/", STATIC),
        ("GET", "/table.html", STATIC),
    ],
)
def test_route_is_the_template(metrics: RequestMetrics, method: str, path: str, route: str):
    scope = {"type": "http", "method": method, "path": path, "root_path": "", "headers": []}
    assert metrics.route_of(scope) == route
