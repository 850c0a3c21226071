"""The dashboard 'Hebei / Tables' (uid ``hebei-tables``)."""

from __future__ import annotations

from hebei_monitoring.panels import RI, Board, Panel, q
from hebei_monitoring.thresholds import SEAT_OBJECTIVE

BOARD = Board(
    "hebei-tables",
    "Hebei / Tables",
    "The table engine: tables, hands per second, seat decisions (by seat kind, and the"
    " bots' own decision time by policy), auto-play, streams and the event log.",
    [
        (
            "Play",
            [
                Panel("Tables active", [("sum by (job) (hebei_table_tables_active)", "{{job}}")]),
                Panel(
                    "Hands per second by outcome",
                    [
                        (
                            f"sum by (outcome) (rate(hebei_table_hands_completed_total[{RI}]))",
                            "{{outcome}}",
                        )
                    ],
                    "short",
                ),
                Panel(
                    "Seat decision p50 / p99 by seat kind",
                    [
                        ("hebei:table_decision_wait_seconds:p50_5m", "p50 {{seat_kind}}"),
                        ("hebei:table_decision_wait_seconds:p99_5m", "p99 {{seat_kind}}"),
                    ],
                    "s",
                    "From offering a decision to the seat's answer (a timeout counts its whole"
                    " clock), the event log's commit included. The 20 ms objective is on the"
                    " answer time: the seat objective panel below.",
                ),
                Panel(
                    "Bot decision time p50 / p99 by policy",
                    [
                        ("hebei:bot_decision_seconds:p50_5m", "p50 {{policy}}"),
                        ("hebei:bot_decision_seconds:p99_5m", "p99 {{policy}}"),
                    ],
                    "s",
                    "Time a policy takes to choose (in the worker). Target: expert p99 <= 5 ms;"
                    " the alert reads the 30-minute p99 against 10 ms.",
                ),
                Panel(
                    "Seat objective: bot answers later than 20 ms",
                    [
                        (
                            f'hebei:table_decision_answer_slow:ratio_rate{w}{{seat_kind="bot"}}',
                            f"late {w}",
                        )
                        for w in ("5m", "1h", "6h")
                    ]
                    + [(f"vector({1 - SEAT_OBJECTIVE:g})", "budget (1%)")],
                    "percentunit",
                    "Share of bot seats' decisions the engine saw answered after 20 ms"
                    " (hebei_table_decision_answer_seconds). HebeiSeatDecisionSlow fires at"
                    " 14.4x the budget over 1 h (and 5 m) or 6x over 6 h (and 30 m).",
                    width=24,
                ),
            ],
        ),
        (
            "Auto-play",
            [
                Panel(
                    "Auto-plays per second by reason",
                    [
                        (
                            f"sum by (reason) (rate(hebei_table_auto_plays_total[{RI}]))",
                            "{{reason}}",
                        )
                    ],
                ),
                Panel(
                    "Auto-play ratio (timeouts)",
                    [("hebei:table_auto_play_ratio:rate10m", "{{job}}")],
                    "percentunit",
                    "Actions played by the engine because a seat's clock ran out, over all"
                    " actions; the alert fires above 10%.",
                ),
                Panel(
                    "Actions rejected by code",
                    [
                        (
                            f"sum by (code) (rate(hebei_table_actions_rejected_total[{RI}]))",
                            "{{code}}",
                        )
                    ],
                ),
                Panel(
                    "Pauses and held clocks",
                    [
                        (
                            f"sum by (event) (rate(hebei_table_pauses_total[{RI}]))",
                            "pause {{event}}",
                        ),
                        (f"sum(rate(hebei_table_clocks_held_total[{RI}]))", "clocks held"),
                    ],
                ),
            ],
        ),
        (
            "Streams and event log",
            [
                Panel("Open streams", [("sum by (rpc) (hebei_table_streams_open)", "{{rpc}}")]),
                Panel(
                    "Streams refused",
                    [
                        (
                            f"sum by (rpc, reason) (rate(hebei_table_streams_refused_total[{RI}]))",
                            "{{rpc}} {{reason}}",
                        )
                    ],
                ),
                Panel(
                    "Event log write p99",
                    [
                        (
                            q(0.99, "hebei_table_event_log_write_seconds", "job"),
                            "write p99 {{job}}",
                        )
                    ],
                    "s",
                ),
                Panel(
                    "Event log batch size p50",
                    [(q(0.5, "hebei_table_event_log_batch_size", "job"), "{{job}}")],
                ),
                Panel(
                    "Event log failures and failed matches",
                    [
                        (
                            f"sum by (kind) (rate(hebei_table_event_log_write_failures_total[{RI}]))",
                            "write failure {{kind}}",
                        ),
                        (
                            f"sum by (cause) (rate(hebei_table_matches_failed_total[{RI}]))",
                            "match failed {{cause}}",
                        ),
                    ],
                    width=24,
                ),
            ],
        ),
    ],
)
