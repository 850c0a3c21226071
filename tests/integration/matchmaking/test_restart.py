"""``kill -9`` of the matchmaking service mid-round: a new process carries the tournament on
by itself — open tables found again, finished ones not replayed, no round seated twice, every
hand booked once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from hebei.v1 import matchmaking_pb2 as mm
from tests.integration.matchmaking.conftest import EVENT, OPERATOR_TOKEN, Stack
from tests.integration.matchmaking.test_tournament import _check_books, _events
from tests.integration.table.conftest import SERVICE_TOKEN


def _spawn(stack: Stack, bots_env: dict[str, str], log: Path) -> subprocess.Popen:
    env = {
        **os.environ,
        **bots_env,
        "HEBEI_OPERATOR_TOKEN": OPERATOR_TOKEN,
        "HEBEI_SERVICE_TOKEN": SERVICE_TOKEN,
        "HEBEI_HOST": "127.0.0.1",
        "HEBEI_MATCHMAKING_PORT": str(stack.matchmaking_port),
        "HEBEI_MATCHMAKING_METRICS_PORT": "-1",
        "HEBEI_MATCHMAKING_TABLE_ADDRESS": stack.table_address,
        "HEBEI_MATCHMAKING_LEDGER_ADDRESS": stack.ledger_address,
        "HEBEI_DATABASE_URL": stack.database_url,
        "HEBEI_MATCHMAKING_SCHEMA": stack.schemas["matchmaking"],
    }
    out = open(log, "ab")  # noqa: SIM115 (the child's log)
    return subprocess.Popen(
        [sys.executable, "-m", "hebei.matchmaking"], env=env, stdout=out, stderr=out,
        start_new_session=True,
    )  # fmt: skip


def test_kill_9_mid_round_and_the_tournament_completes(stack, bots_env, start_worker, tmp_path):
    start_worker(sessions=12)
    log = tmp_path / "matchmaking.log"
    process = _spawn(stack, bots_env, log)
    try:
        deadline = time.monotonic() + 60
        while True:  # wait for the service to answer
            try:
                # Enough hands that round 1 is seen mid-way: the bots play a hand in ~0.2 s.
                tournament = stack.create(rounds=2, hands=16, seating=mm.SEATING_MODE_SWISS)
                break
            except Exception:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise AssertionError(log.read_text()) from None
                time.sleep(0.3)
        tid = tournament.tournament_id
        stack.register_bots(tid, 8, "efficiency")
        stack.mm().StartTournament(mm.StartTournamentRequest(tournament_id=tid))
        stack.wait_status(
            tid, lambda t: t.current_round == 1 and any(x.hands_played >= 1 for x in t.tables)
        )
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(10)
        time.sleep(1.0)
        process = _spawn(stack, bots_env, log)
        finished = stack.wait_finished(tid)
        assert finished.status == mm.TOURNAMENT_STATUS_FINISHED, log.read_text()[-3000:]
        events = _events(stack, tid)
        seated = [e.round_no for e in events if e.type == EVENT.TOURNAMENT_EVENT_TYPE_ROUND_SEATED]
        assert seated == [1, 2]
        finished_matches = [
            e.tables[0].match_id for e in events if e.type == EVENT.TOURNAMENT_EVENT_TYPE_MATCH_FINISHED
        ]  # fmt: skip
        assert len(finished_matches) == len(set(finished_matches)) == 4
        _check_books(stack, finished)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
