"""Every counter's known series is on each process's real /metrics right after it starts (the
table engine, the ledger, matchmaking, a bot worker process, the web gateway), at 0: panels
are not empty and rate() sees the first event. And the ledger's last audit time survives a
restart (it is read back from PostgreSQL)."""

from __future__ import annotations

import time

from hebei.common.client import create_channel
from hebei.stack.processes import Stack, start_stack
from hebei.stack.readiness import wait_until_ready
from hebei.v1 import ledger_pb2, ledger_pb2_grpc
from tests.integration.common.test_metrics import scrape as scrape_page

Series = tuple[str, frozenset[tuple[str, str]]]

# Written out here, not taken from the metrics modules: what the SRE's panels and alerts read.
EXPECTED: dict[str, list[str]] = {
    "table": [
        'hebei_table_matches_ended_total{status="finished"}',
        'hebei_table_matches_ended_total{status="dissolved"}',
        'hebei_table_matches_ended_total{status="failed"}',
        'hebei_table_hands_completed_total{outcome="win"}',
        'hebei_table_hands_completed_total{outcome="exhaustive_draw"}',
        'hebei_table_auto_plays_total{reason="timeout"}',
        'hebei_table_auto_plays_total{reason="disconnect"}',
        'hebei_table_auto_plays_total{reason="hand_over"}',
        'hebei_table_auto_plays_total{reason="absent"}',
        'hebei_table_actions_rejected_total{code="INVALID_ARGUMENT"}',
        'hebei_table_outbox_deliveries_total{kind="settlement",result="delivered"}',
        'hebei_table_outbox_deliveries_total{kind="match_result",result="retry"}',
        'hebei_table_streams_refused_total{rpc="play",reason="peer"}',
        'hebei_table_streams_refused_total{rpc="spectate",reason="draining"}',
        'hebei_table_event_log_write_failures_total{kind="outage"}',
        'hebei_table_event_log_write_failures_total{kind="refused"}',
        'hebei_table_matches_failed_total{cause="event_log"}',
        'hebei_table_matches_failed_total{cause="resume"}',
        'hebei_table_pauses_total{event="paused"}',
        'hebei_table_pauses_total{event="dissolved"}',
        'hebei_table_streams_open{rpc="play"}',
    ],
    "ledger": [
        "hebei_ledger_last_audit_timestamp_seconds",
        'hebei_ledger_settlements_total{result="posted"}',
        'hebei_ledger_audits_total{result="failed"}',
    ],
    "matchmaking": [
        'hebei_matchmaking_matches_dissolved_total{reason="stalled"}',
        'hebei_matchmaking_matches_dissolved_total{reason="operator"}',
        'hebei_matchmaking_matches_dissolved_total{reason="cancelled"}',
        'hebei_matchmaking_matches_dissolved_total{reason="quick_play_left"}',
        'hebei_matchmaking_matches_dissolved_total{reason="other"}',
        'hebei_matchmaking_operator_actions_total{action="start"}',
        'hebei_matchmaking_operator_actions_total{action="dissolve"}',
    ],
    "bots": [
        'hebei_bot_failures_total{reason="gave_up"}',
        'hebei_bot_failures_total{reason="lease_lost"}',
        'hebei_bot_failures_total{reason="policy_error"}',
        'hebei_bot_redeliveries_total{outcome="took_over"}',
        'hebei_bot_redeliveries_total{outcome="seat_held"}',
        'hebei_bot_actions_rejected_total{code="INVALID_ARGUMENT"}',
        'hebei_bot_decision_cpu_seconds_total{policy="expert"}',
        'hebei_bot_seat_sessions_active{policy="random"}',
    ],
    "web": [
        'hebei_web_requests_total{route="/api/tables/{match}",method="GET",code="200"}',
        'hebei_web_requests_total{route="/api/seats/{key}",method="DELETE",code="200"}',
        "hebei_web_streams",
        "hebei_web_seats",
    ],
}


def parse(series: str) -> Series:
    name, _sep, labels = series.partition("{")
    pairs = [p.split("=", 1) for p in labels.rstrip("}").split(",") if p]
    return name, frozenset((k, v.strip('"')) for k, v in pairs)


def scrape(address: str) -> dict[Series, float]:
    return scrape_page(address, timeout=30)


def last_audit(stack: Stack) -> float:
    return scrape(stack.metrics_address("ledger"))[
        ("hebei_ledger_last_audit_timestamp_seconds", frozenset())
    ]


def test_every_known_series_is_exported_from_the_start(running: list[Stack], options):
    stack = start_stack(options(services=("ledger", "table", "matchmaking", "bots"), web=True))
    running.append(stack)
    addresses = {
        "table": stack.metrics_address("table"),
        "ledger": stack.metrics_address("ledger"),
        "matchmaking": stack.metrics_address("matchmaking"),
        "bots": stack.bot_metrics_addresses[0],
        "web": stack.web_metrics_address,
    }
    for process, expected in EXPECTED.items():
        scraped = scrape(addresses[process])
        for series in expected:
            assert parse(series) in scraped, f"{process}: {series} is not exported"
            if series.endswith("_total") or "_total{" in series:
                assert scraped[parse(series)] == 0, f"{process}: {series} is not 0 at start"
    web = scrape(addresses["web"])
    health = parse('hebei_web_requests_total{route="/api/health",method="GET",code="200"}')
    assert web[health] >= 1  # the stack's readiness checks: counted under the route's template

    # The ledger's last audit: 0 until an audit of the whole ledger finds it sound, then kept
    # in PostgreSQL across a restart.
    assert last_audit(stack) == 0
    with create_channel(stack.address("ledger"), token=stack.operator_token) as channel:
        assert ledger_pb2_grpc.LedgerServiceStub(channel).Audit(ledger_pb2.AuditRequest()).ok
    audited = last_audit(stack)
    assert audited > time.time() - 3600
    ledger = stack.children["ledger"]
    ledger.stop()
    ledger.respawn()
    wait_until_ready([ledger], 120)
    assert last_audit(stack) == audited
