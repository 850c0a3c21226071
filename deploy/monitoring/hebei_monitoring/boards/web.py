"""The dashboard 'Hebei / Web gateway' (uid ``hebei-web``)."""

from __future__ import annotations

from hebei_monitoring.panels import RI, Board, Panel
from hebei_monitoring.thresholds import WEB

BOARD = Board(
    "hebei-web",
    "Hebei / Web gateway",
    "The web gateway (HTTP): requests by route and code, server errors, latency by route,"
    " open event streams and seats played from browsers.",
    [
        (
            "Traffic and errors",
            [
                Panel(
                    "Requests per second by route and code",
                    [
                        (
                            f"sum by (route, code) (rate(hebei_web_requests_total[{RI}]))",
                            "{{route}} {{code}}",
                        )
                    ],
                    "reqps",
                ),
                Panel(
                    "Server errors (5xx) over all requests",
                    [
                        ("hebei:web_errors:rate5m / hebei:web_requests:rate5m", "{{job}}"),
                    ],
                    "percentunit",
                    "HebeiWebErrorRatioHigh fires above 5% (at 0.2 requests a second or more).",
                ),
                Panel(
                    "p50 / p99 latency by route",
                    [
                        ("hebei:web_request_duration_seconds:p50_5m", "p50 {{route}}"),
                        ("hebei:web_request_duration_seconds:p99_5m", "p99 {{route}}"),
                    ],
                    "s",
                    "Event streams (Server-Sent Events) last up to HEBEI_WEB_STREAM_SECONDS.",
                ),
                Panel(
                    "Open event streams and seats",
                    [
                        ("sum(hebei_web_streams)", "streams"),
                        ("sum(hebei_web_seats)", "seats"),
                    ],
                ),
                Panel(
                    "Gateway up",
                    [(f'up{{job="{WEB}"}}', "{{instance}}")],
                    "short",
                    kind="stat",
                    width=24,
                ),
            ],
        ),
    ],
)
