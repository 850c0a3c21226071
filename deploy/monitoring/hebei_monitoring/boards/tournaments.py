"""The dashboard 'Hebei / Tournaments' (uid ``hebei-tournaments``)."""

from __future__ import annotations

from hebei_monitoring.panels import Board, Panel, q

BOARD = Board(
    "hebei-tournaments",
    "Hebei / Tournaments",
    "Matchmaking: tournaments, rounds, matches (stalled ones too), seating time and"
    " quality, replacements and quick play.",
    [
        (
            "Rounds and matches",
            [
                Panel(
                    "Tournaments by status",
                    [("sum by (status) (hebei_matchmaking_tournaments)", "{{status}}")],
                ),
                Panel(
                    "Rounds seated and finished per hour",
                    [
                        (
                            "sum by (mode) (increase(hebei_matchmaking_rounds_seated_total[1h]))",
                            "seated {{mode}}",
                        ),
                        (
                            "sum(increase(hebei_matchmaking_rounds_finished_total[1h]))",
                            "finished",
                        ),
                    ],
                ),
                Panel(
                    "Matches followed by state",
                    [("sum by (state) (hebei_matchmaking_matches_live)", "{{state}}")],
                ),
                Panel(
                    "Matches ended per hour by how (stalled tables)",
                    [
                        (
                            "sum by (how) (increase(hebei_matchmaking_matches_ended_total[1h]))",
                            "{{how}}",
                        )
                    ],
                ),
                Panel(
                    "Matches ended per hour by status (table engine)",
                    [
                        (
                            "sum by (status) (increase(hebei_table_matches_ended_total[1h]))",
                            "{{status}}",
                        ),
                        (
                            "sum by (reason) (increase(hebei_matchmaking_matches_dissolved_total[1h]))",
                            "dissolved: {{reason}}",
                        ),
                    ],
                    "short",
                    "dissolved: technical draws; failed: the event log refused the match."
                    " HebeiMatchesDissolved fires above 5% of an hour's matches (2 at least).",
                ),
                Panel(
                    "Match time p50 / p90",
                    [
                        (q(0.5, "hebei_matchmaking_match_seconds", "job", window="1h"), "p50"),
                        (q(0.9, "hebei_matchmaking_match_seconds", "job", window="1h"), "p90"),
                    ],
                    "s",
                ),
                Panel(
                    "Since the last finished match",
                    [
                        (
                            "time() - max(hebei_matchmaking_last_match_finished_timestamp_seconds)",
                            "seconds",
                        ),
                        (
                            "2 * max(hebei:matchmaking_match_seconds:expected)",
                            "alert threshold",
                        ),
                    ],
                    "s",
                    "The round-stuck alert fires past twice the usual match time while"
                    " matches are open.",
                ),
            ],
        ),
        (
            "Seating",
            [
                Panel(
                    "Seating time p99 by mode",
                    [
                        (
                            q(0.99, "hebei_matchmaking_seating_seconds", "mode", window="1h"),
                            "{{mode}}",
                        )
                    ],
                    "s",
                ),
                Panel(
                    "Seating quality of the last round by mode",
                    [
                        (
                            "max by (mode) (hebei_matchmaking_seating_repeat_pairs)",
                            "repeat pairs {{mode}}",
                        ),
                        (
                            "max by (mode) (hebei_matchmaking_seating_max_pair_meetings)",
                            "most meetings of a pair {{mode}}",
                        ),
                        (
                            "max by (mode) (hebei_matchmaking_seating_wind_spread)",
                            "wind spread {{mode}}",
                        ),
                    ],
                ),
                Panel(
                    "Replacements and standings mismatches",
                    [
                        (
                            "sum by (cause) (increase(hebei_matchmaking_replacements_total[1h]))",
                            "replaced {{cause}}",
                        ),
                        (
                            "sum(increase(hebei_matchmaking_standings_mismatches_total[1h]))",
                            "standings mismatches",
                        ),
                    ],
                ),
                Panel(
                    "Round director pass p99",
                    [(q(0.99, "hebei_matchmaking_director_tick_seconds", "job"), "{{job}}")],
                    "s",
                ),
            ],
        ),
        (
            "Quick play and watchers",
            [
                Panel(
                    "Quick-play queue and wait p90",
                    [
                        ("sum(hebei_matchmaking_quick_play_queue)", "waiting"),
                        (
                            q(0.9, "hebei_matchmaking_quick_play_wait_seconds", "job"),
                            "wait p90 (s)",
                        ),
                    ],
                ),
                Panel(
                    "Open watch and quick-play streams",
                    [("sum by (rpc) (hebei_matchmaking_watch_streams)", "{{rpc}}")],
                ),
            ],
        ),
    ],
)
