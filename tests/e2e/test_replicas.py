"""Losing a replica loses nothing (issue 46), end to end: the local stack with 3 table engine
replicas and 2 matchmaking replicas (``hebei.stack.processes.start_stack``, unsupervised, so the
survivors must take over), a 32-player 4-round Swiss tournament of 30 bots and 2 people, each
person a ``hebei tournament join`` child answering every prompt. In round 2 the engine replica
owning a person's match is killed with SIGKILL, in round 3 the matchmaking replica driving the
tournament. The tournament finishes; every match is booked once (the ledger's standings are the
engine's scores; the killed engine's matches replay from their exported logs with the same
scores); no stored log has a gap or a duplicate; the people's seats were never auto-played
because of the machine, and their programs kept playing. The takeover times are printed."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import psycopg
import pytest
from psycopg import sql

import hebei
from hebei.common.client import create_channel
from hebei.common.ownership import Directory, ownership_schema
from hebei.common.routing import MatchRouter
from hebei.seatclient.stream import MOVED_TEXT
from hebei.stack.processes import Stack, start_stack
from hebei.table.table import FLEET_GONE
from hebei.v1 import ledger_pb2, ledger_pb2_grpc, matchmaking_pb2_grpc, table_pb2, table_pb2_grpc
from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import types_pb2 as pb
from tests.e2e.conftest import hebei_program
from tests.e2e.test_monitoring import wait_for
from tests.e2e.test_tournament_join import OWN_ACTIONS, Person, engine_events
from tests.integration.stack.conftest import options, stack_env  # noqa: F401 (fixtures)

PLAYERS, PEOPLE, ROUNDS, HANDS = 32, 2, 4, 2
TABLES = PLAYERS // 4


@dataclass
class Replicas:
    """The running stack and how to reach what the test watches."""

    stack: Stack
    database_url: str
    table_schema: str
    matchmaking_schema: str
    router: MatchRouter = field(init=False)

    def __post_init__(self) -> None:
        self.router = MatchRouter(self.stack.address("table"), token=self.stack.operator_token)

    def matchmaking_names(self) -> list[str]:
        return [n for n in self.stack.replica_addresses if n.startswith("matchmaking")]

    def matchmaking_call(self, method: str, request):
        """``method(request)`` on the first matchmaking replica that answers."""
        last: grpc.RpcError | None = None
        for name in self.matchmaking_names():
            if not self.stack.children[name].running():
                continue
            channel = create_channel(
                self.stack.replica_addresses[name], token=self.stack.operator_token, timeout=10
            )
            try:
                return getattr(matchmaking_pb2_grpc.MatchmakingServiceStub(channel), method)(
                    request
                )
            except grpc.RpcError as error:
                last = error
            finally:
                channel.close()
        raise AssertionError(f"no matchmaking replica answered {method}: {last}")

    def tournament(self, tid: str) -> mm.Tournament:
        got = self.matchmaking_call("GetTournament", mm.GetTournamentRequest(tournament_id=tid))
        assert got.tournament.status != mm.TOURNAMENT_STATUS_CANCELLED, got.tournament
        return got.tournament

    def seating(self, tid: str) -> list[mm.RoundSeating]:
        request = mm.GetSeatingRequest(tournament_id=tid)
        return list(self.matchmaking_call("GetSeating", request).rounds)

    def _directory(self, schema: str, service: str) -> Directory:
        def connect():
            return psycopg.connect(self.database_url, autocommit=True)

        return Directory(connect, schema=schema, service=service)

    def match_owner(self, match_id: str):
        return self._directory(ownership_schema(self.table_schema), "table").key_owner(match_id)

    def lease_owner(self, tid: str):
        schema = ownership_schema(self.matchmaking_schema)
        return self._directory(schema, "matchmaking").lease_owner(tid)

    def get_match(self, match_id: str, deadline: float = 30.0) -> table_pb2.MatchInfo:
        request = table_pb2.GetMatchRequest(match_id=match_id)
        return self.router.call(
            match_id,
            lambda ch, t: table_pb2_grpc.TableServiceStub(ch).GetMatch(request, timeout=t),
            deadline=deadline,
        ).match


@pytest.fixture
def replicas(
    database_url: str,
    stack_env: dict[str, str],  # noqa: F811
    options,  # noqa: F811
) -> Iterator[Replicas]:
    three_and_two = options(
        services=("ledger", "table", "matchmaking", "bots"),
        worker_processes=2,
        worker_sessions=24,
        ready_timeout=300,
        table_replicas=3,
        matchmaking_replicas=2,
    )
    with start_stack(three_and_two) as stack:
        found = Replicas(
            stack, database_url, stack_env["HEBEI_TABLE_SCHEMA"],
            stack_env["HEBEI_MATCHMAKING_SCHEMA"],
        )  # fmt: skip
        try:
            yield found
        finally:
            found.router.close()


def create_tournament(replicas: Replicas) -> tuple[str, list[tuple[str, str]]]:
    """The tournament, its 30 bots registered; returns its id and the people's (id, secret)."""
    config = mm.TournamentConfig(
        name="Replicas cup", rounds=ROUNDS, seed=46, seating=mm.SEATING_MODE_SWISS,
        filler_bot_policy="efficiency", filler_bot_level=1,
    )  # fmt: skip
    config.length.hands = HANDS
    config.time_control.per_decision.FromSeconds(20)  # never hurried here, even under load
    config.time_control.time_bank.FromSeconds(60)
    created = replicas.matchmaking_call(
        "CreateTournament", mm.CreateTournamentRequest(config=config)
    )
    tid = created.tournament.tournament_id
    for number in range(PLAYERS - PEOPLE):
        policy = ("efficiency", "random")[number % 2]
        bot = mm.BotEntrant(policy=policy, level=1, name=f"{policy} #{number}")
        replicas.matchmaking_call("Register", mm.RegisterRequest(tournament_id=tid, bot=bot))
    people = []
    for name in ("Mei", "Lin"):
        request = mm.RegisterRequest(tournament_id=tid, person=mm.PersonEntrant(name=name))
        registered = replicas.matchmaking_call("Register", request)
        people.append((registered.player.player_id, registered.player_secret))
    return tid, people


def seats_of(rounds: list[mm.RoundSeating], player_id: str) -> dict[int, tuple[str, int]]:
    """round -> (match id, seat) of the player."""
    return {
        r.round_no: (table.match_id, seat.seat)
        for r in rounds
        for table in r.tables
        for seat in table.seats
        if seat.player_id == player_id
    }


def round_seated(replicas: Replicas, tid: str, round_no: int) -> list[mm.RoundSeating] | None:
    rounds = replicas.seating(tid)
    return rounds if len(rounds) >= round_no and rounds[round_no - 1].tables else None


def check_log(replicas: Replicas, match_id: str) -> list[dict]:
    """The match's stored events (table events too), after checking their seq runs 1..n with no
    gap and no duplicate."""
    with psycopg.connect(replicas.database_url, autocommit=True) as conn:
        seqs = [
            row[0]
            for row in conn.execute(
                sql.SQL("SELECT seq FROM {}.events WHERE match_id = %s ORDER BY seq").format(
                    sql.Identifier(replicas.table_schema)
                ),
                (match_id,),
            )
        ]
    assert seqs == list(range(1, len(seqs) + 1)), (match_id, seqs)
    return engine_events(replicas.database_url, replicas.table_schema, match_id)


def replay(replicas: Replicas, match_id: str, folder: Path) -> str:
    """``hebei table export`` then ``hebei replay --key-file``: its output (exit status 0)."""
    log = folder / f"{match_id}.json"
    env = dict(os.environ, HEBEI_DATA_DIR=str(replicas.stack.data_dir))
    exported = subprocess.run(
        [hebei_program(), "table", "export", match_id, "-o", str(log), "--database-url",
         replicas.database_url, "--schema", replicas.table_schema],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert exported.returncode == 0, exported.stderr
    keys = sorted(Path(replicas.stack.data_dir).rglob("table-log.key"))
    assert keys, "the engines' log key"
    done = subprocess.run(
        [hebei_program(), "replay", str(log), "--key-file", str(keys[0])],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "signed by the engine" in done.stdout, done.stdout[-2000:]
    return done.stdout


def test_a_tournament_survives_an_engine_and_a_matchmaking_replica_killed(
    replicas: Replicas, data_dir: Path, tmp_path: Path
):
    stack = replicas.stack
    tid, people = create_tournament(replicas)
    names = replicas.matchmaking_names()
    assert names == ["matchmaking-0", "matchmaking-1"]
    env = dict(os.environ, **stack.client_env, HEBEI_DATA_DIR=str(data_dir), COLUMNS="160")
    # The people run in the data dir: the code under test is found by its absolute path.
    env["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(Path(hebei.__file__).parents[1]), os.environ.get("PYTHONPATH")])
    )
    persons: list[Person] = []
    endings: dict[int, int | None] = {}
    try:
        # One person follows each matchmaking replica: whichever is killed, one is cut off.
        for index, (player_id, secret) in enumerate(people):
            argv = [hebei_program(), "tournament", "join", tid, "--player", player_id,
                    "--secret", secret, "--address", stack.replica_addresses[names[index]]]  # fmt: skip
            persons.append(Person(argv, env, data_dir))
        for person in persons:
            assert person.play(timeout=180, until="It starts when") is None, person.text
        replicas.matchmaking_call("StartTournament", mm.StartTournamentRequest(tournament_id=tid))

        def play(index: int) -> None:
            endings[index] = persons[index].play(timeout=900)

        players = [threading.Thread(target=play, args=(i,), daemon=True) for i in range(PEOPLE)]
        for thread in players:
            thread.start()

        # Round 2: the engine replica owning Mei's match is killed once the match is under way.
        rounds = wait_for(lambda: round_seated(replicas, tid, 2), 600, "round 2 seated", 0.5)
        match_id, seat = seats_of(rounds, people[0][0])[2]
        wait_for(
            lambda: len(engine_events(replicas.database_url, replicas.table_schema, match_id)) > 20,
            120,
            "Mei's round-2 match under way",
        )
        owner = replicas.match_owner(match_id)
        assert owner is not None and owner.replica_id in stack.children, owner
        killed_engine = owner.replica_id
        owned = [
            t.match_id
            for t in rounds[1].tables
            if (o := replicas.match_owner(t.match_id)) and o.replica_id == killed_engine
        ]
        killed_at = time.monotonic()
        os.kill(stack.children[killed_engine].pid, signal.SIGKILL)
        seq_at_kill = len(check_log(replicas, match_id))  # the dead replica writes no more

        def taken_over() -> bool:
            holder = replicas.match_owner(match_id)
            return bool(holder and holder.serving and holder.replica_id != killed_engine)

        def mei_back() -> bool:
            try:
                info = replicas.get_match(match_id, deadline=5)
            except grpc.RpcError:
                return False
            return info.seats[seat].connected or info.status != pb.MATCH_STATUS_PLAYING

        wait_for(taken_over, 60, "Mei's match's shard served by another engine", 0.05)
        shard_takeover = time.monotonic() - killed_at
        wait_for(mei_back, 60, "Mei's seat joined on the new owner", 0.05)
        engine_takeover = time.monotonic() - killed_at
        new_owner = replicas.match_owner(match_id).replica_id
        assert not stack.children[killed_engine].running()

        # Round 3: the matchmaking replica driving the tournament is killed.
        wait_for(lambda: round_seated(replicas, tid, 3), 600, "round 3 seated", 0.5)
        lease = replicas.lease_owner(tid)
        assert lease is not None and lease.replica_id in names, lease
        driver = lease.replica_id
        survivor = next(n for n in names if n != driver)
        killed_mm_at = time.monotonic()
        os.kill(stack.children[driver].pid, signal.SIGKILL)

        def leased_to_survivor() -> bool:
            held = replicas.lease_owner(tid)
            return bool(held and held.serving and held.replica_id == survivor)

        wait_for(leased_to_survivor, 60, "the survivor to take the tournament's lease", 0.05)
        lease_takeover = time.monotonic() - killed_mm_at
        # As `hebei up` would, the dead replica is started again (on its ports) once the
        # survivor drives: the person following it reconnects to it.
        stack.children[driver].respawn()
        wait_for(lambda: round_seated(replicas, tid, 4), 600, "round 4 seated", 0.05)
        round_takeover = time.monotonic() - killed_mm_at
        assert replicas.lease_owner(tid).replica_id == survivor

        wait_for(
            lambda: replicas.tournament(tid).status == mm.TOURNAMENT_STATUS_FINISHED,
            600,
            "the tournament to finish",
            1.0,
        )
        for thread in players:
            thread.join(300)
        for index, person in enumerate(persons):
            stderr = person.process.stderr.read().decode()
            assert endings.get(index) == 0, f"{stderr}\n{person.text[-4000:]}"
            assert "Traceback" not in person.text + stderr
            assert "The tournament is over" in person.text
            assert "Round 4: your seat is" in person.text
        print(
            f"\nengine takeover ({killed_engine} killed, {new_owner} took Mei's match {match_id}):"
            f" shard served after {shard_takeover:.2f} s, Mei's seat back after"
            f" {engine_takeover:.2f} s"
            f"\nmatchmaking takeover ({driver} killed, {survivor} drives): lease after"
            f" {lease_takeover:.2f} s, round 4 seated after {round_takeover:.2f} s"
        )

        # Every round of the tournament, every match in it ended, every log whole.
        rounds = replicas.seating(tid)
        assert [r.round_no for r in rounds] == [1, 2, 3, 4]
        assert all(len(r.tables) == TABLES for r in rounds)
        match_ids = [t.match_id for r in rounds for t in r.tables]
        assert len(set(match_ids)) == ROUNDS * TABLES
        engine_points: dict[str, int] = defaultdict(int)
        scores: dict[str, list[int]] = {}
        for mid in match_ids:
            check_log(replicas, mid)
            info = replicas.get_match(mid)
            assert info.status == pb.MATCH_STATUS_FINISHED, (mid, info.status)
            assert info.hands_played == HANDS, (mid, info.hands_played)
            scores[mid] = [s.score for s in sorted(info.seats, key=lambda s: s.seat)]
            for s in info.seats:
                engine_points[s.player_id] += s.score

        # Mei went on playing her match on its new owner with nothing to do on her part.
        after = check_log(replicas, match_id)[seq_at_kill:]
        hers = [e for e in after if e.get("seat") == seat and e["type"] in OWN_ACTIONS]
        assert hers and not [e for e in hers if e.get("auto")], after
        # One calm line told her, and no person was ever told the engine was unreachable.
        rejoined = [line.strip() for line in persons[0].text.splitlines() if MOVED_TEXT in line]
        assert rejoined, persons[0].text[-4000:]
        for person in persons:
            assert "cannot reach the table engine" not in person.text, person.text[-4000:]
        # The person following the killed matchmaking replica reconnected to it.
        cut_off = persons[names.index(driver)].text
        assert "dropped the stream" in cut_off and "reconnected to matchmaking" in cut_off
        print(f"Mei's terminal at the engine's kill: {rejoined}")

        # The people's seats: never auto-played because of the machine.
        autos: list[dict] = []
        for player_id, _ in people:
            for mid, person_seat in seats_of(rounds, player_id).values():
                events = engine_events(replicas.database_url, replicas.table_schema, mid)
                machine = [
                    e
                    for e in events
                    if e["type"] == "seat_auto"
                    and e.get("seat") == person_seat
                    and e.get("reason") in FLEET_GONE
                ]
                assert not machine, (mid, machine)
                autos += [
                    e for e in events if e["type"] == "seat_auto" and e.get("seat") == person_seat
                ]
        print(f"the people's seats auto-played (any reason): {autos}")

        # The ledger booked each hand once: its standings are the engine's scores.
        channel = create_channel(stack.address("ledger"), token=stack.operator_token)
        try:
            ledger = ledger_pb2_grpc.LedgerServiceStub(channel)
            standings = ledger.GetStandings(
                ledger_pb2.LedgerServiceGetStandingsRequest(tournament_id=tid)
            ).standings
            audit = ledger.Audit(ledger_pb2.AuditRequest(tournament_id=tid))
        finally:
            channel.close()
        assert audit.ok, audit.problems
        assert len(standings) == PLAYERS
        for row in standings:
            assert row.hands_played == ROUNDS * HANDS, row
            assert row.matches_played == ROUNDS, row
            own = row.points - row.placement_points - row.penalty_points
            assert own == engine_points[row.player_id], row
        mm_standings = replicas.matchmaking_call(
            "GetStandings", mm.GetStandingsRequest(tournament_id=tid)
        )
        assert not mm_standings.mismatch, mm_standings.problems

        # The killed engine's matches replay from their logs to the engine's scores.
        assert match_id in owned
        for mid in owned:
            shown = replay(replicas, mid, tmp_path)
            assert f"final scores {scores[mid]}" in shown, shown[-2000:]
    finally:
        for person in persons:
            person.kill()
