"""Two matchmaking replicas on one schema (issue 46): each tournament is driven by one of them
at a time, both serve every read; the replica driving a tournament dies mid-round (its
ownership session terminated by the server, its gRPC server stopped) and the other takes the
tournament over where it stood: no round seated twice, every match opened once, every hand
booked once, the same standings from every replica."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

import psycopg
from prometheus_client import REGISTRY

from hebei.common.server import Server, create_server
from hebei.matchmaking.service import Matchmaking
from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import matchmaking_pb2_grpc
from tests.integration.matchmaking.conftest import EVENT, OPERATOR_TOKEN, Stack, free_port
from tests.integration.matchmaking.test_tournament import _check_books
from tests.integration.table.conftest import server_config


@dataclass
class MatchmakingReplica:
    """One matchmaking replica served on loopback, counting the OpenMatch calls it makes."""

    name: str
    service: Matchmaking
    server: Server
    opened: Counter = field(default_factory=Counter)
    stopped: bool = False

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.server.port}"

    def drives(self, tournament_id: str) -> bool:
        return self.service.director.driving.drives(tournament_id)

    def live(self) -> tuple[str, ...]:
        return tuple(r.replica_id for r in self.service.driving.directory.live_replicas())

    def stop(self) -> None:
        self.stopped = True
        self.server.stop(0)
        self.service.close()


def _start(stack: Stack, name: str, port: int) -> MatchmakingReplica:
    config = stack.matchmaking_config(
        server=server_config("matchmaking", max_workers=200, port=port), replica_id=name
    )
    service = Matchmaking(config)
    server = create_server(service.spec(), config.server)
    server.start()
    replica = MatchmakingReplica(name, service, server)
    open_match = service.table.open_match

    def counted(request, *args, **kwargs):
        replica.opened[request.match_id] += 1
        return open_match(request, *args, **kwargs)

    service.table.open_match = counted
    return replica


def _stub(stack: Stack, replica: MatchmakingReplica):
    return matchmaking_pb2_grpc.MatchmakingServiceStub(
        stack._channel(replica.address, OPERATOR_TOKEN)
    )


def _wait(what: str, done, timeout: float = 60.0, every: float = 0.05):
    deadline = time.monotonic() + timeout
    while not (found := done()):
        assert time.monotonic() < deadline, f"{what}: not after {timeout} s"
        time.sleep(every)
    return found


def _events(stub, tournament_id: str) -> list[mm.WatchTournamentResponse]:
    request = mm.WatchTournamentRequest(tournament_id=tournament_id, from_seq=1)
    return list(stub.WatchTournament(request, timeout=60))


def _kill_ownership_session(stack: Stack, replica_id: str) -> int:
    """Terminate the replica's lock session as the server would end a dead client's."""
    with psycopg.connect(stack.database_url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = %s",
            (f"hebei-own-matchmaking-{replica_id}",),
        ).fetchall()
    return len(rows)


def _takeovers() -> float:
    return REGISTRY.get_sample_value("hebei_matchmaking_takeovers_total") or 0.0


def test_two_replicas_split_the_tournaments_and_one_takes_over_when_the_other_dies(
    stack: Stack, start_worker
) -> None:
    start_worker(sessions=8)
    # "mm-a" listens where the engine reports results (the stack's matchmaking port).
    a = _start(stack, "mm-a", stack.matchmaking_port)
    b = _start(stack, "mm-b", free_port())
    replicas = {r.name: r for r in (a, b)}
    c: MatchmakingReplica | None = None
    try:
        _wait("both replicas registered", lambda: a.live() == ("mm-a", "mm-b"))
        takeovers_before = _takeovers()
        tournaments = []
        for replica in (a, b):  # each started through its own replica
            tournament = stack.create(rounds=3, hands=16, seating=mm.SEATING_MODE_SWISS)
            stack.register_bots(tournament.tournament_id, 4, "efficiency")
            _stub(stack, replica).StartTournament(
                mm.StartTournamentRequest(tournament_id=tournament.tournament_id)
            )
            tournaments.append(tournament.tournament_id)
        t1, t2 = tournaments

        def drivers() -> dict[str, list[str]] | None:
            found = {t: [r.name for r in (a, b) if r.drives(t)] for t in tournaments}
            one_each = all(len(names) == 1 for names in found.values())
            return found if one_each and found[t1] != found[t2] else None

        driven = _wait("each tournament driven by one replica, one each", drivers, 30)
        victim = replicas[driven[t1][0]]
        survivor = replicas[driven[t2][0]]
        for replica in (a, b):  # every replica serves the reads of every tournament
            for tid in tournaments:
                read = _stub(stack, replica).GetTournament(
                    mm.GetTournamentRequest(tournament_id=tid)
                )
                assert read.tournament.status == mm.TOURNAMENT_STATUS_RUNNING
        assert not survivor.drives(t1) and not victim.drives(t2)

        # Round 2 of t1 in play: the replica driving it dies.
        reader = _stub(stack, survivor)
        _wait(
            "round 2 of t1 in play",
            lambda: (
                (t := reader.GetTournament(mm.GetTournamentRequest(tournament_id=t1)).tournament)
                and t.current_round == 2
                and any(x.hands_played >= 1 for x in t.tables)
            ),
            120,
            0.1,
        )
        killed = time.monotonic()
        assert _kill_ownership_session(stack, victim.name) == 1
        victim.stop()
        _wait("t1 taken over", lambda: survivor.drives(t1), 30, 0.02)
        takeover = time.monotonic() - killed
        print(f"\ntournament takeover: {takeover:.2f} s from the driving replica's death")
        assert takeover < 15.0
        assert _takeovers() >= takeovers_before + 1

        for tid in tournaments:
            _wait(
                f"{tid} finished",
                lambda tid=tid: (
                    reader.GetTournament(
                        mm.GetTournamentRequest(tournament_id=tid)
                    ).tournament.status
                    == mm.TOURNAMENT_STATUS_FINISHED
                ),
                240,
                0.3,
            )
        # A fresh replica where the dead one listened: it reads what the survivor reads.
        c = _start(stack, "mm-c", victim.server.port)
        _stub(stack, c).GetTournament(  # the channels' reconnection backoff to this port
            mm.GetTournamentRequest(tournament_id=t1), wait_for_ready=True, timeout=30
        )
        opened = victim.opened + survivor.opened
        for tid in tournaments:
            events = _events(reader, tid)
            seated = [
                e.round_no for e in events if e.type == EVENT.TOURNAMENT_EVENT_TYPE_ROUND_SEATED
            ]
            assert seated == [1, 2, 3], tid  # no round seated twice
            tables = [
                e.tables[0].match_id for e in events
                if e.type == EVENT.TOURNAMENT_EVENT_TYPE_TABLE_OPENED
            ]  # fmt: skip
            assert len(tables) == len(set(tables)) == 3, tid
            seating = reader.GetSeating(mm.GetSeatingRequest(tournament_id=tid)).rounds
            stored = [t.match_id for r in seating for t in r.tables]
            assert sorted(stored) == sorted(tables)
            assert all(opened[match_id] == 1 for match_id in stored), opened  # once each
            standings = [
                _stub(stack, r).GetStandings(mm.GetStandingsRequest(tournament_id=tid))
                for r in (survivor, c)
            ]
            assert standings[0].ranking == standings[1].ranking
            assert list(standings[0].ranking)
            final = reader.GetTournament(mm.GetTournamentRequest(tournament_id=tid)).tournament
            _check_books(stack, final)
    finally:
        for replica in (a, b, c):
            if replica is not None and not replica.stopped:
                replica.stop()
