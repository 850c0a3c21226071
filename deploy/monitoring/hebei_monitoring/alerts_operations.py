"""The alerts on operations: failed authentications, the ledger's audit and standings, stuck
rounds, stalled and dissolved matches, PostgreSQL, the broker, absent exporters, the web
gateway's errors, and the Watchdog.
"""

from __future__ import annotations

from hebei_monitoring.alert_cases import Alert, Case, audited, counter, ended, started
from hebei_monitoring.thresholds import (
    AUDIT_MAX_AGE,
    DISSOLVED_MIN,
    DISSOLVED_RATIO,
    LEDGER,
    MATCHMAKING,
    MIN_REQUEST_RATE,
    SCOPE,
    TABLE,
    WEB,
    WEB_ERROR_RATIO,
)

OPERATIONS_ALERTS: list[Alert] = [
    Alert(
        name="HebeiAuthFailures",
        severity="warning",
        expr='sum by (cluster, namespace, job) (rate(hebei_auth_failures_total{result="unknown"}[5m])) * 60 > 5',
        for_="10m",
        summary="{{ $labels.job }} refuses wrong tokens",
        description="More than 5 calls a minute to {{ $labels.job }} bring a token that is not"
        " the operator's or a service's, for 10 minutes: someone guesses tokens, or a client"
        " runs with an old one.",
        dashboard="hebei-grpc",
        fire=Case(
            [(f'hebei_auth_failures_total{{job="{LEDGER}",result="unknown"}}', "0+10x30")],
            "20m",
            [{"job": LEDGER}],
        ),
        quiet=Case(
            [
                (f'hebei_auth_failures_total{{job="{LEDGER}",result="unknown"}}', "0+2x30"),
                (f'hebei_auth_failures_total{{job="{LEDGER}",result="throttled"}}', "0+50x30"),
            ],
            "20m",
        ),
    ),
    Alert(
        name="HebeiLedgerAuditFailed",
        severity="critical",
        expr="max by (cluster, namespace, job) (hebei_ledger_audit_problems) > 0",
        for_="0m",
        summary="the ledger audit found problems",
        description="The last Audit of {{ $labels.job }} found entries that do not balance,"
        " balances that differ from their postings or a tournament that does not sum to zero.",
        dashboard="hebei-ledger",
        fire=Case(
            [(f'hebei_ledger_audit_problems{{job="{LEDGER}",instance="a"}}', "0 0 3 3 3 3")],
            "5m",
            [{"job": LEDGER}],
        ),
        quiet=Case([(f'hebei_ledger_audit_problems{{job="{LEDGER}",instance="a"}}', "0x6")], "5m"),
    ),
    Alert(
        name="HebeiStandingsMismatch",
        severity="critical",
        expr="sum by (cluster, namespace, job) (increase(hebei_matchmaking_standings_mismatches_total[1h])) > 0",
        for_="0m",
        summary="ledger standings differ from the match results",
        description="{{ $labels.job }} closed a round whose ledger standings differ from the"
        " results the table engine reported (the tournament's problems say which players).",
        dashboard="hebei-tournaments",
        fire=Case(
            [
                (
                    f'hebei_matchmaking_standings_mismatches_total{{job="{MATCHMAKING}",instance="a"}}',
                    "0 0 1 1 1 1",
                )
            ],
            "5m",
            [{"job": MATCHMAKING}],
        ),
        quiet=Case(
            [
                (
                    f'hebei_matchmaking_standings_mismatches_total{{job="{MATCHMAKING}",instance="a"}}',
                    "0x6",
                )
            ],
            "5m",
        ),
    ),
    Alert(
        name="HebeiRoundStuck",
        severity="critical",
        expr="(time() - max by (cluster, namespace, job) (hebei_matchmaking_last_match_finished_timestamp_seconds))\n"
        "  > on (cluster, namespace, job) 2 * hebei:matchmaking_match_seconds:expected\n"
        'and on (cluster, namespace, job)\nsum by (cluster, namespace, job) (hebei_matchmaking_matches_live{state="opened"}) > 0',
        for_="5m",
        summary="no match has finished for twice the match time",
        description="{{ $labels.job }} follows open matches but none has finished for twice the"
        " usual match time (the 6 h p90, at least 10 minutes; else 30 minutes): a round is stuck.",
        dashboard="hebei-tournaments",
        fire=Case(
            [
                (
                    f'hebei_matchmaking_last_match_finished_timestamp_seconds{{job="{MATCHMAKING}",instance="a"}}',
                    "0x80",
                ),
                (
                    f'hebei_matchmaking_matches_live{{job="{MATCHMAKING}",instance="a",state="opened"}}',
                    "4x80",
                ),
            ],
            "70m",
            [{"job": MATCHMAKING}],
        ),
        quiet=Case(
            [
                (
                    f'hebei_matchmaking_last_match_finished_timestamp_seconds{{job="{MATCHMAKING}",instance="a"}}',
                    "0+60x80",
                ),
                (
                    f'hebei_matchmaking_matches_live{{job="{MATCHMAKING}",instance="a",state="opened"}}',
                    "4x80",
                ),
            ],
            "70m",
        ),
    ),
    Alert(
        name="HebeiMatchesStalled",
        severity="warning",
        expr='sum by (cluster, namespace, job) (increase(hebei_matchmaking_matches_ended_total{how="stalled"}[30m])) > 0',
        for_="0m",
        summary="matches were dissolved as stalled",
        description="{{ $labels.job }} dissolved matches that had no new event for the stall"
        " timeout (10 minutes) in the last 30 minutes.",
        dashboard="hebei-tournaments",
        fire=Case(
            [
                (
                    f'hebei_matchmaking_matches_ended_total{{job="{MATCHMAKING}",instance="a",how="stalled"}}',
                    "0 0 1 1 1",
                )
            ],
            "4m",
            [{"job": MATCHMAKING}],
        ),
        quiet=Case(
            [
                (
                    f'hebei_matchmaking_matches_ended_total{{job="{MATCHMAKING}",instance="a",how="stalled"}}',
                    "0x5",
                ),
                (
                    f'hebei_matchmaking_matches_ended_total{{job="{MATCHMAKING}",instance="a",how="finished"}}',
                    "0+4x5",
                ),
            ],
            "4m",
        ),
    ),
    Alert(
        name="HebeiPostgresDown",
        severity="critical",
        expr="pg_up == 0",
        for_="1m",
        summary="PostgreSQL is down",
        description="postgres_exporter {{ $labels.instance }} cannot reach PostgreSQL: every"
        " service stops booking, seating and logging events.",
        dashboard="hebei-ledger",
        fire=Case(
            [('pg_up{job="postgres",instance="pg:9187"}', "1 0 0 0 0")],
            "4m",
            [{"job": "postgres", "instance": "pg:9187"}],
        ),
        quiet=Case([('pg_up{job="postgres",instance="pg:9187"}', "1x5")], "4m"),
    ),
    Alert(
        name="HebeiPostgresConnectionsNearLimit",
        severity="warning",
        expr="sum by (cluster, namespace, job, instance) (pg_stat_activity_count)\n"
        "/ on (cluster, namespace, job, instance)\nmax by (cluster, namespace, job, instance) (pg_settings_max_connections) > 0.8",
        for_="10m",
        summary="PostgreSQL is near its connection limit",
        description="More than 80% of max_connections of {{ $labels.instance }} are in use for"
        " 10 minutes: the next pool to grow gets refused.",
        dashboard="hebei-ledger",
        fire=Case(
            [
                (
                    'pg_stat_activity_count{job="postgres",instance="pg:9187",datname="hebei",state="idle"}',
                    "50x20",
                ),
                (
                    'pg_stat_activity_count{job="postgres",instance="pg:9187",datname="hebei",state="active"}',
                    "40x20",
                ),
                ('pg_settings_max_connections{job="postgres",instance="pg:9187"}', "100x20"),
            ],
            "15m",
            [{"job": "postgres", "instance": "pg:9187"}],
        ),
        quiet=Case(
            [
                (
                    'pg_stat_activity_count{job="postgres",instance="pg:9187",datname="hebei",state="idle"}',
                    "20x20",
                ),
                (
                    'pg_stat_activity_count{job="postgres",instance="pg:9187",datname="hebei",state="active"}',
                    "10x20",
                ),
                ('pg_settings_max_connections{job="postgres",instance="pg:9187"}', "100x20"),
            ],
            "15m",
        ),
    ),
    Alert(
        name="HebeiBrokerDown",
        severity="critical",
        expr='redis_up == 0\nor\nup{job="rabbitmq"} == 0',
        for_="2m",
        summary="the bot fleet's broker is down",
        description="{{ $labels.job }} at {{ $labels.instance }} is unreachable for 2 minutes:"
        " no seat task is queued or taken, the seat leases (Redis) are gone.",
        dashboard="hebei-bots",
        fire=Case(
            [
                ('redis_up{job="redis",instance="redis-exporter:9121"}', "1 0 0 0 0 0"),
                ('up{job="rabbitmq",instance="rabbitmq:15692"}', "0x5"),
            ],
            "5m",
            [
                {"job": "redis", "instance": "redis-exporter:9121"},
                {"job": "rabbitmq", "instance": "rabbitmq:15692"},
            ],
        ),
        quiet=Case(
            [
                ('redis_up{job="redis",instance="redis-exporter:9121"}', "1 0 1 1 1 1"),
                ('up{job="rabbitmq",instance="rabbitmq:15692"}', "1x5"),
            ],
            "5m",
        ),
    ),
    *(
        Alert(
            name=f"Hebei{kind}ExporterAbsent",
            severity="warning",
            expr=f'absent(up{{job="{job}"}} == 1)',
            for_="10m",
            summary=f"no {what} metrics",
            description=f"No {exporter} target of job {job} has been scraped for 10 minutes:"
            f" {consequence}",
            dashboard=board,
            fire=Case([(f'up{{job="{job}",instance="a"}}', "0x15")], "12m", [{}]),
            quiet=Case(
                [
                    (f'up{{job="{job}",instance="a"}}', "0x15"),
                    (f'up{{job="{job}",instance="b"}}', "1x15"),
                ],
                "12m",
            ),
        )
        for kind, job, what, exporter, consequence, board in (
            (
                "Broker",
                "redis",
                "broker",
                "redis_exporter",
                "queue depth (HebeiBotQueueBacklog) and HebeiBrokerDown are blind.",
                "hebei-bots",
            ),
            (
                "Postgres",
                "postgres",
                "PostgreSQL",
                "postgres_exporter",
                "HebeiPostgresDown and the connection alert are blind.",
                "hebei-ledger",
            ),
        )
    ),
    Alert(
        name="HebeiLedgerAuditStale",
        severity="warning",
        expr=f"time() - max by ({SCOPE}) (hebei_ledger_last_audit_timestamp_seconds > 0)"
        f" > {AUDIT_MAX_AGE}\nor\n(\n"
        f"  max by ({SCOPE}) (hebei_ledger_last_audit_timestamp_seconds) == 0\n"
        f"  and on ({SCOPE})\n"
        f'  time() - min by ({SCOPE}) (process_start_time_seconds{{job="{LEDGER}"}})'
        f" > {AUDIT_MAX_AGE}\n)",
        for_="10m",
        summary="the ledger has not been audited for 2 hours",
        description="No audit of {{ $labels.job }} has succeeded for 2 hours (the CronJob"
        " audits every 30 minutes): a failing or missing audit job leaves a broken ledger"
        " unnoticed.",
        dashboard="hebei-ledger",
        fire=Case(
            [  # audited at 00:00, then never again (the ledger restarted at 01:00)
                audited('instance="a"', "0x150"),
                audited('instance="b"', "1x150"),
                started('instance="b"', "3600x150"),
            ],
            "140m",
            [{"job": LEDGER}],
        ),
        quiet=Case(
            [  # audited every 30 minutes
                audited('instance="a"', " ".join(str(m // 30 * 1800 + 1) for m in range(151))),
                # a fresh installation, never audited yet, up for an hour
                audited('namespace="new",instance="c"', "0x150"),
                started('namespace="new",instance="c"', "5400x150"),
            ],
            "140m",
        ),
    ),
    Alert(
        name="HebeiMatchesDissolved",
        severity="warning",
        expr=f'sum by ({SCOPE}) (increase(hebei_table_matches_ended_total{{status=~"dissolved|failed"}}[1h]))'
        f" >= {DISSOLVED_MIN}\nand on ({SCOPE})\n(\n"
        f'  sum by ({SCOPE}) (increase(hebei_table_matches_ended_total{{status=~"dissolved|failed"}}[1h]))\n'
        f"  / sum by ({SCOPE}) (increase(hebei_table_matches_ended_total[1h]))\n) > {DISSOLVED_RATIO}",
        for_="0m",
        summary="matches end as technical draws on {{ $labels.job }}",
        description="More than 5% of the matches {{ $labels.job }} ended in the last hour (and"
        " at least 2) were dissolved as technical draws or failed: seats that never came back,"
        " stalled tables, an event log that refused them.",
        dashboard="hebei-tournaments",
        fire=Case(
            [
                ended("finished", counter((40, 2))),
                ended("dissolved", counter((30, 0), (10, 1))),
                ended("failed", counter((40, 0))),
            ],
            "40m",
            [{"job": TABLE}],
        ),
        quiet=Case(
            [  # 2 dissolved (an operator's Dissolve) among 400 finished
                ended("finished", counter((40, 10))),
                ended("dissolved", counter((20, 0), (2, 1), (18, 0))),
                ended("failed", counter((40, 0))),
            ],
            "40m",
        ),
    ),
    Alert(
        name="HebeiWebErrorRatioHigh",
        severity="critical",
        expr=f"hebei:web_errors:rate5m / hebei:web_requests:rate5m > {WEB_ERROR_RATIO}\n"
        f"and on ({SCOPE})\nhebei:web_requests:rate5m >= {MIN_REQUEST_RATE:g}",
        for_="5m",
        summary="the web pages fail on {{ $labels.job }}",
        description="More than 5% of the web gateway's requests end in a 5xx, for 5 minutes"
        f" (at {MIN_REQUEST_RATE:g} requests a second or more): people cannot play or watch.",
        dashboard="hebei-web",
        fire=Case(
            [
                (
                    f'hebei_web_requests_total{{job="{WEB}",route="/api/tables",method="GET",code="200"}}',
                    "0+100x20",
                ),
                (
                    f'hebei_web_requests_total{{job="{WEB}",route="/api/tables",method="GET",code="502"}}',
                    "0+20x20",
                ),
            ],
            "15m",
            [{"job": WEB}],
        ),
        quiet=Case(
            [
                (
                    f'hebei_web_requests_total{{job="{WEB}",route="/api/tables",method="GET",code="200"}}',
                    "0+100x20",
                ),
                (
                    f'hebei_web_requests_total{{job="{WEB}",route="/api/tables",method="GET",code="404"}}',
                    "0+50x20",
                ),
                (
                    f'hebei_web_requests_total{{job="{WEB}",route="/api/tables",method="GET",code="502"}}',
                    "0+2x20",
                ),
            ],
            "15m",
        ),
    ),
    # Always firing: Alertmanager routes it to a dead man's switch, whose silence says that
    # Prometheus, its rules or the path to Alertmanager broke.
    Alert(
        name="Watchdog",
        severity="none",
        expr="vector(1)",
        for_="0m",
        summary="the alerting pipeline works",
        description="Always firing: Alertmanager sends it to the heartbeat receiver; when it"
        " stops arriving, alerts do not reach anybody.",
        dashboard="hebei-grpc",
        fire=Case([], "1m", [{}]),
        quiet=None,
    ),
]
