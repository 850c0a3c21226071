"""The alerts on play: the seat objective, the bots' decisions, auto-play, the bot queues,
workers and fleet, and the table engine's outbox and event log.
"""

from __future__ import annotations

from hebei.bots.metrics import DECISION_BUCKETS as BOT_LES
from hebei.bots.metrics import WAIT_BUCKETS as WAIT_LES
from hebei_monitoring.alert_cases import REFUSED, Alert, Case, answers, counter, hist
from hebei_monitoring.thresholds import (
    AUTO_PLAY_RATIO,
    BOT_DECISION_ALERT,
    BOTS,
    BURN_RATES,
    OUTBOX_AGE,
    QUEUE_LENGTH,
    QUEUE_WAIT,
    SEAT_OBJECTIVE,
    TABLE,
)

PLAY_ALERTS: list[Alert] = [
    Alert(
        name="HebeiSeatDecisionSlow",
        severity="warning",
        expr="\nor\n".join(
            f'(\n  hebei:table_decision_answer_slow:ratio_rate{long}{{seat_kind="bot"}} > {rate:g} * {1 - SEAT_OBJECTIVE:g}\n'
            f"  and on (cluster, namespace, job, seat_kind)\n"
            f'  hebei:table_decision_answer_slow:ratio_rate{short}{{seat_kind="bot"}} > {rate:g} * {1 - SEAT_OBJECTIVE:g}\n)'
            for long, short, rate in BURN_RATES
        ),
        for_="2m",
        summary="bot seats spend the seat latency budget on {{ $labels.job }}",
        description="More than 1% of bot seats' decisions answered later than 20 ms (the engine's"
        " hebei_table_decision_answer_seconds): the budget burns 14.4 times too fast over an"
        " hour, or 6 times over six hours.",
        dashboard="hebei-tables",
        fire=Case(
            # a worker pod throttled for 90 minutes: a fifth of the answers late
            answers("bot", counter((90, 80)), counter((90, 100))),
            "90m",
            [{"job": TABLE, "seat_kind": "bot"}],
        ),
        quiet=Case(
            [
                # a 5-minute spike of late answers in a healthy day (0.5% late otherwise)
                *answers("bot", counter((300, 199), (5, 0), (95, 199)), counter((400, 200))),
                # people think for seconds: not the objective's
                *answers("person", counter((400, 0)), counter((400, 10))),
            ],
            "400m",
        ),
    ),
    Alert(
        name="HebeiBotDecisionSlow",
        severity="warning",
        expr=f"hebei:bot_decision_seconds:p99_30m > {BOT_DECISION_ALERT}",
        for_="30m",
        summary="the {{ $labels.policy }} policy decides slowly",
        description="The p99 time the {{ $labels.policy }} policy takes to choose an action,"
        " over 30 minutes, has been above 10 ms (twice the 5 ms target) for 30 minutes: the"
        " workers are CPU-starved or the policy got slower.",
        dashboard="hebei-bots",
        fire=Case(
            hist(
                "hebei_bot_decision_seconds",
                f'job="{BOTS}",policy="expert"',
                0.025,
                BOT_LES,
                minutes=80,
            ),
            "75m",
            [{"job": BOTS, "policy": "expert"}],
        ),
        quiet=Case(  # what production measured: 5.3-8.6 ms, between the 5 and 10 ms edges
            hist(
                "hebei_bot_decision_seconds",
                f'job="{BOTS}",policy="expert"',
                0.01,
                BOT_LES,
                minutes=80,
            ),
            "75m",
        ),
    ),
    Alert(
        name="HebeiAutoPlayRatioHigh",
        severity="warning",
        expr=f"hebei:table_auto_play_ratio:rate10m > {AUTO_PLAY_RATIO}",
        for_="15m",
        summary="many seats time out on {{ $labels.job }}",
        description="More than 10% of the actions on {{ $labels.job }} are played by the engine"
        " because seats let their clock run out, for 15 minutes.",
        dashboard="hebei-tables",
        fire=Case(
            [
                (
                    f'hebei_table_decision_wait_seconds_count{{job="{TABLE}",seat_kind="bot"}}',
                    "0+100x40",
                ),
                (f'hebei_table_auto_plays_total{{job="{TABLE}",reason="timeout"}}', "0+30x40"),
            ],
            "30m",
            [{"job": TABLE}],
        ),
        quiet=Case(
            [
                (
                    f'hebei_table_decision_wait_seconds_count{{job="{TABLE}",seat_kind="bot"}}',
                    "0+100x40",
                ),
                (f'hebei_table_auto_plays_total{{job="{TABLE}",reason="timeout"}}', "0+2x40"),
                (f'hebei_table_auto_plays_total{{job="{TABLE}",reason="disconnect"}}', "0+30x40"),
            ],
            "30m",
        ),
    ),
    Alert(
        name="HebeiBotQueueBacklog",
        severity="warning",
        expr=f"hebei:broker_queue_length > {QUEUE_LENGTH}",
        for_="10m",
        summary="seat tasks pile up in {{ $labels.queue }}",
        description="More than 20 seat tasks have waited in {{ $labels.queue }} for 10 minutes"
        " (the broker's count, known with no worker running): the fleet does not keep up"
        " (autoscaling at its maximum, workers crash-looping or absent).",
        dashboard="hebei-bots",
        fire=Case(
            [
                (
                    'redis_key_size{job="redis",namespace="hebei",db="db0",key="bots.expert"}',
                    "50x20",
                ),
                ('redis_key_size{job="redis",namespace="hebei",db="db0",key="leases"}', "900x20"),
                (
                    'rabbitmq_detailed_queue_messages_ready{job="rabbitmq",vhost="/",queue="bots.random"}',
                    "30x20",
                ),
            ],
            "15m",
            [{"namespace": "hebei", "queue": "bots.expert"}, {"queue": "bots.random"}],
        ),
        quiet=Case(
            [
                (
                    'redis_key_size{job="redis",db="db0",key="bots.expert"}',
                    "50 50 50 0 0 0 0 0 0 0 0 0 0 0 0 0",
                ),
                ('redis_key_size{job="redis",db="db0",key="bots.random"}', "3x20"),
            ],
            "15m",
        ),
    ),
    Alert(
        name="HebeiBotQueueWaitHigh",
        severity="warning",
        expr=f"hebei:bot_task_queue_wait_seconds:p99_5m > {QUEUE_WAIT:g}",
        for_="10m",
        summary="{{ $labels.policy }} seat tasks wait long in the queue",
        description="The p99 time from queueing a {{ $labels.policy }} seat task to a worker"
        " starting it has been above 30 s for 10 minutes.",
        dashboard="hebei-bots",
        fire=Case(
            hist(
                "hebei_bot_task_queue_wait_seconds", f'job="{BOTS}",policy="expert"', 300, WAIT_LES
            ),
            "30m",
            [{"job": BOTS, "policy": "expert"}],
        ),
        quiet=Case(
            hist(
                "hebei_bot_task_queue_wait_seconds", f'job="{BOTS}",policy="expert"', 2.5, WAIT_LES
            ),
            "30m",
        ),
    ),
    Alert(
        name="HebeiBotWorkerDown",
        severity="warning",
        expr=f'up{{job="{BOTS}"}} == 0',
        for_="5m",
        summary="bot worker {{ $labels.instance }} is down",
        description="Prometheus cannot scrape the bot worker process at {{ $labels.instance }}"
        " for 5 minutes; its seats are taken over by other workers.",
        dashboard="hebei-bots",
        fire=Case(
            [(f'up{{job="{BOTS}",instance="bots:9104"}}', "0x10")],
            "10m",
            [{"job": BOTS, "instance": "bots:9104"}],
        ),
        quiet=Case([(f'up{{job="{BOTS}",instance="bots:9104"}}', "1x10")], "10m"),
    ),
    Alert(
        name="HebeiBotFleetAbsent",
        severity="critical",
        expr=f'count by (cluster, namespace) (up{{job="{BOTS}"}})\n'
        f'unless on (cluster, namespace) count by (cluster, namespace) (up{{job="{BOTS}"}} == 1)\n'
        f'or\nabsent(up{{job="{BOTS}"}})',
        for_="5m",
        summary="no bot worker is running",
        description="No bot worker process has been scraped successfully for 5 minutes: tables"
        " with a bot seat pause when it must act, and tournaments stall.",
        dashboard="hebei-bots",
        fire=Case(
            [
                (f'up{{job="{BOTS}",namespace="hebei",instance="a"}}', "0x10"),
                (f'up{{job="{BOTS}",namespace="hebei-dev",instance="b"}}', "1x10"),
            ],
            "10m",
            [{"namespace": "hebei"}],
        ),
        quiet=Case(
            [
                (f'up{{job="{BOTS}",instance="a"}}', "0x10"),
                (f'up{{job="{BOTS}",instance="b"}}', "1x10"),
            ],
            "10m",
        ),
    ),
    Alert(
        name="HebeiOutboxBacklog",
        severity="warning",
        expr=f"max by (cluster, namespace, job, kind) (hebei_table_outbox_oldest_age_seconds) > {OUTBOX_AGE:g}",
        for_="10m",
        summary="{{ $labels.kind }} messages wait in the table engine's outbox",
        description="The oldest undelivered {{ $labels.kind }} of {{ $labels.job }} is more than"
        " 5 minutes old, for 10 minutes: settlements are not booked in the ledger (or results"
        " not reported to matchmaking) yet.",
        dashboard="hebei-ledger",
        fire=Case(
            [
                (
                    f'hebei_table_outbox_oldest_age_seconds{{job="{TABLE}",kind="settlement"}}',
                    "0+60x30",
                )
            ],
            "25m",
            [{"job": TABLE, "kind": "settlement"}],
        ),
        quiet=Case(
            [(f'hebei_table_outbox_oldest_age_seconds{{job="{TABLE}",kind="settlement"}}', "5x30")],
            "25m",
        ),
    ),
    Alert(
        name="HebeiOutboxDeliveryFailing",
        severity="warning",
        expr='sum by (cluster, namespace, job, kind) (rate(hebei_table_outbox_deliveries_total{result="retry"}[5m])) > 0\n'
        "unless on (cluster, namespace, job, kind)\n"
        'sum by (cluster, namespace, job, kind) (rate(hebei_table_outbox_deliveries_total{result="delivered"}[5m])) > 0',
        for_="15m",
        summary="the outbox of {{ $labels.job }} cannot deliver {{ $labels.kind }} messages",
        description="{{ $labels.job }} retries {{ $labels.kind }} deliveries and has delivered"
        " none for 15 minutes: the receiver (ledger or matchmaking) is down or refuses them.",
        dashboard="hebei-ledger",
        fire=Case(
            [
                (
                    f'hebei_table_outbox_deliveries_total{{job="{TABLE}",kind="settlement",result="retry"}}',
                    "0+5x30",
                ),
                (
                    f'hebei_table_outbox_deliveries_total{{job="{TABLE}",kind="settlement",result="delivered"}}',
                    "10x30",
                ),
            ],
            "25m",
            [{"job": TABLE, "kind": "settlement"}],
        ),
        quiet=Case(
            [
                (
                    f'hebei_table_outbox_deliveries_total{{job="{TABLE}",kind="settlement",result="retry"}}',
                    "0+5x30",
                ),
                (
                    f'hebei_table_outbox_deliveries_total{{job="{TABLE}",kind="settlement",result="delivered"}}',
                    "0+20x30",
                ),
            ],
            "25m",
        ),
    ),
    Alert(
        name="HebeiOutboxRefused",
        severity="critical",
        expr=f"sum by (cluster, namespace, job, kind) (increase({REFUSED}[30m])) > 0\nor\n"
        f"sum by (cluster, namespace, job, kind) ({REFUSED} unless {REFUSED} offset 30m) > 0",
        for_="0m",
        summary="a {{ $labels.kind }} was refused for good",
        description="The receiver refused a {{ $labels.kind }} of {{ $labels.job }} for good"
        " (INVALID_ARGUMENT, ALREADY_EXISTS, ...): it will never be booked without an operator.",
        dashboard="hebei-ledger",
        fire=Case(
            [
                (
                    f'hebei_table_outbox_deliveries_total{{job="{TABLE}",kind="settlement",result="refused"}}',
                    "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ 1 1 1 1 1 1 1",
                )
            ],
            "36m",
            [{"job": TABLE, "kind": "settlement"}],
        ),
        quiet=Case(
            [
                (
                    f'hebei_table_outbox_deliveries_total{{job="{TABLE}",kind="settlement",result="refused"}}',
                    "0x40",
                )
            ],
            "36m",
        ),
    ),
    Alert(
        name="HebeiEventLogWriteFailing",
        severity="critical",
        expr="sum by (cluster, namespace, job, kind) (rate(hebei_table_event_log_write_failures_total[5m])) > 0",
        for_="2m",
        summary="the table engine cannot write its event log",
        description="{{ $labels.job }} fails to write events ({{ $labels.kind }}) for 2"
        " minutes: tables wait (outage) or matches are failed (refused).",
        dashboard="hebei-tables",
        fire=Case(
            [
                (
                    f'hebei_table_event_log_write_failures_total{{job="{TABLE}",kind="outage"}}',
                    "0+3x20",
                )
            ],
            "10m",
            [{"job": TABLE, "kind": "outage"}],
        ),
        quiet=Case(
            [
                (
                    f'hebei_table_event_log_write_failures_total{{job="{TABLE}",kind="outage"}}',
                    "5x20",
                )
            ],
            "10m",
        ),
    ),
]
