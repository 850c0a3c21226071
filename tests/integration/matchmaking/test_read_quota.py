"""Anonymous GetStandings and GetRatings are bounded: at most ``max_reads`` run at once,
``max_reads_per_peer`` from one client address, more are RESOURCE_EXHAUSTED at once; a
tournament's standings read for one anonymous caller answer the others until the tournament
changes (or for ``standings_cache_seconds``). Each
GetStandings reads the ledger's standings with matchmaking's service token, which the ledger
does not count: without the bound 32 anonymous GetStandings of a tournament of 10,000 entries
held the ledger's pool and the table engine's PostSettlement took 2.7 s (6 ms idle).

Reads are held busy deterministically: the test locks the ledger's journal (ACCESS
EXCLUSIVE), so the ledger's standings query waits for the lock, holding the matchmaking call
that asked for it; PostgreSQL's ``pg_locks`` tells how many wait."""

from __future__ import annotations

import time
from concurrent import futures

import grpc
import psycopg
import pytest
from psycopg import sql

from hebei.common.config import ConfigError
from hebei.matchmaking.service import MatchmakingConfig
from hebei.v1 import matchmaking_pb2 as mm
from tests.integration.matchmaking.conftest import Stack


def _waiting(probe: psycopg.Connection, table: str) -> int:
    query = "SELECT count(*) FROM pg_locks WHERE relation = %s::regclass AND NOT granted"
    return probe.execute(query, (table,)).fetchone()[0]


def _wait_for(probe: psycopg.Connection, table: str, count: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while _waiting(probe, table) != count:
        assert time.monotonic() < deadline, f"{_waiting(probe, table)} wait, not {count}"
        time.sleep(0.05)


@pytest.mark.parametrize(
    ("total", "per_peer", "words"),
    [
        (4, 2, "at most 2 GetStandings and GetRatings calls from one client address"),
        (2, 4, "at most 2 GetStandings and GetRatings calls in all"),
    ],
    ids=["per-peer", "total"],
)
def test_anonymous_reads_beyond_the_bound_are_refused_and_calls_with_a_token_go_on(
    stack: Stack, total: int, per_peer: int, words: str
) -> None:
    # nothing kept: every GetStandings reads (test_kept_standings_... for what is kept)
    stack.start_matchmaking(max_reads=total, max_reads_per_peer=per_peer, standings_cache_seconds=0)
    tournament_id = stack.create().tournament_id
    stack.register_bots(tournament_id, 4)
    anonymous, operator = stack.mm(token=None), stack.mm()
    standings = mm.GetStandingsRequest(tournament_id=tournament_id)
    reads = [
        lambda: anonymous.GetStandings(standings, timeout=60),
        lambda: anonymous.GetRatings(mm.GetRatingsRequest(), timeout=60),
    ]
    journal = f"{stack.schemas['ledger']}.journal_entries"
    lock = psycopg.connect(stack.database_url)
    probe = psycopg.connect(stack.database_url, autocommit=True)
    try:
        with futures.ThreadPoolExecutor(4) as pool:
            lock.execute(
                sql.SQL("LOCK TABLE {} IN ACCESS EXCLUSIVE MODE").format(
                    sql.Identifier(stack.schemas["ledger"], "journal_entries")
                )
            )
            try:
                held = [pool.submit(reads[0]) for _ in range(2)]
                _wait_for(probe, journal, 2)
                for read in reads:
                    with pytest.raises(grpc.RpcError) as refused:
                        read()
                    assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                    assert words in refused.value.details()
                # a read with a token is not counted
                with_token = pool.submit(operator.GetStandings, standings, timeout=60)
                _wait_for(probe, journal, 3)
                assert operator.GetRatings(mm.GetRatingsRequest(), timeout=60) is not None
                # GetTournament and GetSeating are not bounded
                anonymous.GetTournament(mm.GetTournamentRequest(tournament_id=tournament_id))
                anonymous.GetSeating(mm.GetSeatingRequest(tournament_id=tournament_id))
            finally:
                lock.rollback()
            for call in [*held, with_token]:
                assert len(call.result().standings) == 4
        # the slots are given back
        for _ in range(3):
            for read in reads:
                read()
    finally:
        lock.close()
        probe.close()


def test_kept_standings_answer_a_crowd_and_a_change_of_the_tournament_is_read_afresh(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    stack.start_matchmaking(max_reads=1, standings_cache_seconds=600)
    tournament_id = stack.create().tournament_id
    stack.register_bots(tournament_id, 4)
    anonymous, operator = stack.mm(token=None), stack.mm()
    standings = mm.GetStandingsRequest(tournament_id=tournament_id)
    ledger = stack.matchmaking.tournaments.ledger
    ledger_reads: list[str] = []
    read_standings = ledger.standings

    def counted(tid: str):  # the real read, counted
        ledger_reads.append(tid)
        return read_standings(tid)

    monkeypatch.setattr(ledger, "standings", counted)
    for _ in range(20):  # one read of the ledger answers them all
        assert len(anonymous.GetStandings(standings, timeout=60).standings) == 4
    assert len(ledger_reads) == 1
    stack.register_bots(tournament_id, 1)  # a change: what was kept no longer answers
    assert len(anonymous.GetStandings(standings, timeout=60).standings) == 5
    assert len(ledger_reads) == 2
    assert len(operator.GetStandings(standings, timeout=60).standings) == 5  # always fresh
    assert len(ledger_reads) == 3
    with stack.matchmaking.servicer.reads.slot("the test"):  # the one read slot is taken
        with pytest.raises(grpc.RpcError) as refused:  # a kept read is bounded all the same
            anonymous.GetStandings(standings, timeout=60)
        assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert len(anonymous.GetStandings(standings, timeout=60).standings) == 5
    assert len(ledger_reads) == 3


def test_the_read_bounds_are_checked_against_the_pool() -> None:
    base = {
        "HEBEI_OPERATOR_TOKEN": "op-token-0123456789",
        "HEBEI_MATCHMAKING_TABLE_ADDRESS": "127.0.0.1:1",
        "HEBEI_MATCHMAKING_LEDGER_ADDRESS": "127.0.0.1:2",
    }
    config = MatchmakingConfig.from_env(base)
    assert (config.max_reads, config.max_reads_per_peer) == (4, 4)
    small = MatchmakingConfig.from_env({**base, "HEBEI_MATCHMAKING_POOL_SIZE": "3"})
    assert small.max_reads == 2  # below the pool: the round director keeps a connection
    for name, value, words in (
        ("MAX_READS", "10", "HEBEI_MATCHMAKING_MAX_READS must be an integer 1-9, got '10'"),
        ("MAX_READS", "0", "HEBEI_MATCHMAKING_MAX_READS must be an integer 1-9"),
        ("MAX_READS_PER_PEER", "501", "HEBEI_MATCHMAKING_MAX_READS_PER_PEER must be an integer"),
        ("MAX_READS_PER_PEER", "few", "HEBEI_MATCHMAKING_MAX_READS_PER_PEER must be an integer"),
    ):
        with pytest.raises(ConfigError) as bad:
            MatchmakingConfig.from_env({**base, f"HEBEI_MATCHMAKING_{name}": value})
        assert words in str(bad.value)
