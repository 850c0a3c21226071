"""The whole stack as separate processes for the fault suite, and what a tournament played
through it must satisfy.

:class:`FaultStack` runs the ledger, the table engine and matchmaking (``python -m
hebei.<service>``) and ``hebei bots worker`` processes, each in its own process group, on
ports chosen once, on fresh schemas of the given PostgreSQL and a private queue prefix on the
given Redis. A service can be killed (SIGKILL), stopped (SIGTERM: it drains) and started again
on the same ports, schema and environment; a worker can be killed or frozen (SIGSTOP) and
thawed. ``hebei.stack.processes`` has no restart of one child, so the processes are started
here, through its PR_SET_PDEATHSIG wrapper (nothing outlives the test run): start them from the
main thread only, since the death signal follows the thread that started the child.

The bot fleet keeps the production defaults (4 s leases, no broker redelivery within the
match): a dead worker's seats are found again by the round director's re-queue.

:func:`check_tournament` asserts what every fault test expects of a finished tournament: every
match finished on the engine (none dissolved); nothing played by the machine except what the
test excuses (seat, reasons, time window), and each excused seat given back to its player;
each match's scores equal to its replayed log and to the ledger's postings; every hand booked
once; standings equal to the results (no mismatch) and the ledger's audit ok.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import psycopg
import redis
from grpc_health.v1 import health_pb2, health_pb2_grpc

from hebei.bots.lease import PREFIX as LEASE_PREFIX
from hebei.common.client import create_channel
from hebei.fleet.registry import live_workers
from hebei.rules.replay import replay_match
from hebei.stack.children import with_death_signal
from hebei.table.eventlog import TABLE_EVENTS
from hebei.table.store import EventStore
from hebei.v1 import (
    ledger_pb2,
    ledger_pb2_grpc,
    matchmaking_pb2_grpc,
    table_pb2,
    table_pb2_grpc,
)
from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import types_pb2 as pb
from tests.conftest import drop_schemas

OPERATOR_TOKEN = "faults-operator-token"
SERVICE_TOKEN = "faults-service-token"
SERVICES = ("ledger", "table", "matchmaking")
PEERS = {"table": ("ledger", "matchmaking"), "matchmaking": ("table", "ledger")}
PER_DECISION = 3.0  # a bot decides in milliseconds: 3 s is never reached, even under load
ET = pb.EventType
# Action events: the machine played one when its auto_played flag is set.
ACTIONS = frozenset(
    {
        ET.EVENT_TYPE_DISCARD,
        ET.EVENT_TYPE_PONG,
        ET.EVENT_TYPE_KONG,
        ET.EVENT_TYPE_WIN,
        ET.EVENT_TYPE_PASS,
        ET.EVENT_TYPE_CHOW,
    }
)
SLACK = 1.0  # seconds of clock and detection slack around an excused window


def wait_for(predicate: Callable[[], bool], timeout: float, what: str, step: float = 0.1) -> None:
    """Poll ``predicate`` (an exception counts as false) until true; AssertionError after
    ``timeout`` seconds, naming ``what``."""
    deadline = time.monotonic() + timeout
    last: BaseException | None = None
    while True:
        try:
            if predicate():
                return
            last = None
        except (grpc.RpcError, psycopg.Error, redis.RedisError) as exc:
            last = exc
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what} ({last})")
        time.sleep(step)


def free_ports(count: int) -> list[int]:
    sockets = []
    try:
        for _ in range(count):
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))
            sockets.append(sock)
        return [int(s.getsockname()[1]) for s in sockets]
    finally:
        for sock in sockets:
            sock.close()


# ----------------------------------------------------------------------------- processes


class Process:
    """A command in its own process group, output appended to its log."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], log_path: Path) -> None:
        self.name = name
        self.argv = argv
        self.env = env
        self.log_path = log_path
        self.process: subprocess.Popen | None = None

    def spawn(self) -> None:
        assert not self.running(), f"{self.name} is running already"
        with open(self.log_path, "ab") as log:
            log.write(f"\n===== {self.name} started at {time.time():.3f}\n".encode())
            log.flush()
            self.process = subprocess.Popen(
                with_death_signal(self.argv),
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def signal_group(self, signum: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signum)

    def kill(self) -> None:
        """SIGKILL to the whole process group; reaped."""
        if self.process is None:
            return
        self.signal_group(signal.SIGKILL)
        self.process.wait(30)

    def terminate(self, timeout: float = 60.0) -> int:
        """SIGTERM to the process; its exit status once it has stopped by itself."""
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout)

    def stop(self) -> None:
        if self.process is None:
            return
        self.signal_group(signal.SIGCONT)  # a frozen process cannot stop
        if self.running():
            self.process.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(20)
        self.kill()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def tail(self, chars: int = 3000) -> str:
        return f"--- {self.name} log:\n{self.log()[-chars:]}"


class ServiceProcess(Process):
    """``python -m hebei.<service>`` on its fixed port."""

    def __init__(self, name: str, port: int, env: dict[str, str], log_path: Path) -> None:
        super().__init__(name, [sys.executable, "-m", f"hebei.{name}"], env, log_path)
        self.port = port

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def serving(self) -> bool:
        with grpc.insecure_channel(self.address) as channel:
            try:
                reply = health_pb2_grpc.HealthStub(channel).Check(
                    health_pb2.HealthCheckRequest(), timeout=2
                )
            except grpc.RpcError:
                return False
        return reply.status == health_pb2.HealthCheckResponse.SERVING

    def wait_serving(self, timeout: float = 120.0) -> None:
        def up() -> bool:
            assert self.running(), f"{self.name} exited: {self.process.returncode}\n{self.tail()}"
            return self.serving()

        wait_for(up, timeout, f"{self.name} to serve\n{self.tail()}", step=0.2)


class WorkerProcess(Process):
    """``hebei bots worker`` (one Celery process, ``sessions`` seat sessions)."""

    def __init__(self, name: str, sessions: int, env: dict[str, str], log_path: Path) -> None:
        argv = [sys.executable, "-c", "from hebei.cli import main; main()", "bots", "worker"]
        argv += ["--processes", "1", "--sessions", str(sessions), "--name", name]
        argv += ["--loglevel", "INFO"]
        super().__init__(name, argv, env, log_path)

    def registered(self, client: redis.Redis) -> bool:
        return any(w.startswith(f"{self.name}-") for w in live_workers(client))

    def owns(self, holder: str) -> bool:
        """Whether a lease holder (``"<fence> <celery hostname>/<pid>"``) is this worker."""
        owner = holder.split(" ", 1)[-1]
        return owner.startswith(f"{self.name}-")

    def freeze(self) -> None:
        self.signal_group(signal.SIGSTOP)

    def thaw(self) -> None:
        self.signal_group(signal.SIGCONT)


# --------------------------------------------------------------------------------- stack


@dataclass
class FaultStack:
    """The stack under test (see the module doc). ``start()`` it, ``close()`` it."""

    database_url: str
    broker_url: str
    lease_url: str
    folder: Path
    extra_env: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        suffix = uuid.uuid4().hex[:10]
        self.schemas = {name: f"f_{name[:4]}_{suffix}" for name in SERVICES}
        ports = free_ports(len(SERVICES))
        self.ports = dict(zip(SERVICES, ports, strict=True))
        self.queue_prefix = f"faults-{suffix}"
        base = {k: v for k, v in os.environ.items() if not k.startswith("HEBEI_")}
        base.update(
            PYTHONUNBUFFERED="1",
            HEBEI_HOST="127.0.0.1",
            HEBEI_OPERATOR_TOKEN=OPERATOR_TOKEN,
            HEBEI_SERVICE_TOKEN=SERVICE_TOKEN,
            HEBEI_DATABASE_URL=self.database_url,
            HEBEI_BROKER_URL=self.broker_url,
            HEBEI_BOTS_REDIS_URL=self.lease_url,
            HEBEI_BOTS_QUEUE_PREFIX=self.queue_prefix,
            HEBEI_BOTS_WARM_HANDS="0",
            HEBEI_GRACE_SECONDS="5",
        )
        base.update(self.extra_env)
        self.base_env = base
        self.services: dict[str, ServiceProcess] = {}
        for name in SERVICES:
            env = dict(base)
            prefix = f"HEBEI_{name.upper()}_"
            env[prefix + "PORT"] = str(self.ports[name])
            env[prefix + "METRICS_PORT"] = "-1"
            env[prefix + "SCHEMA"] = self.schemas[name]
            for peer in PEERS.get(name, ()):
                env[f"{prefix}{peer.upper()}_ADDRESS"] = f"127.0.0.1:{self.ports[peer]}"
            self.services[name] = ServiceProcess(
                name, self.ports[name], env, self.folder / f"{name}.log"
            )
        self.workers: list[WorkerProcess] = []
        self.redis = redis.Redis.from_url(self.lease_url, socket_timeout=10)
        self._channels: dict[str, grpc.Channel] = {}

    # -- processes ----------------------------------------------------------------------

    def start(self) -> None:
        for service in self.services.values():
            service.spawn()
        for service in self.services.values():
            service.wait_serving()

    def add_worker(self, sessions: int = 48, **env: str) -> WorkerProcess:
        """Start a bot worker; ``env`` adds to the stack's environment (e.g.
        ``HEBEI_BOTS_LEASE_SECONDS="10"``)."""
        name = f"fw{len(self.workers) + 1}x{uuid.uuid4().hex[:4]}"
        worker_env = {**self.base_env, **env}
        worker = WorkerProcess(name, sessions, worker_env, self.folder / f"{name}.log")
        self.workers.append(worker)
        self.start_worker(worker)
        return worker

    def start_worker(self, worker: WorkerProcess) -> None:
        worker.spawn()

        def up() -> bool:
            assert worker.running(), f"{worker.name} exited\n{worker.tail()}"
            return worker.registered(self.redis)

        wait_for(up, 120, f"{worker.name} to register\n{worker.tail()}", step=0.2)

    def restart(self, name: str) -> None:
        """Start a stopped service again on its port, schema and environment."""
        self.services[name].spawn()
        self.services[name].wait_serving()

    def ensure_running(self) -> None:
        """Whatever a failed test left stopped or frozen runs again."""
        for worker in self.workers:
            worker.thaw()
        for name, service in self.services.items():
            if not service.running():
                self.restart(name)

    def purge_queues(self, bindings: bool = False) -> None:
        """Drop the seat tasks still queued (re-queues of a test's last moments) and the
        fleet's unacknowledged ones (``<prefix>.unacked*``); with ``bindings``, the queues'
        routing keys too (at the end)."""
        patterns = [f"{self.queue_prefix}.*"]
        if bindings:
            patterns += [f"_kombu.binding*.{self.queue_prefix}.*"]
        keys = [k for p in patterns for k in self.redis.scan_iter(match=p, count=500)]
        if keys:
            self.redis.delete(*keys)

    def close(self) -> None:
        for worker in self.workers:
            worker.stop()
        for name in reversed(SERVICES):
            self.services[name].stop()
        for channel in self._channels.values():
            channel.close()
        self.purge_queues(bindings=True)
        self.redis.close()

    def drop_schemas(self) -> None:
        drop_schemas(self.database_url, self.schemas.values())

    def logs(self) -> str:
        return "\n".join(p.tail() for p in [*self.services.values(), *self.workers])

    # -- clients ------------------------------------------------------------------------

    def _channel(self, name: str) -> grpc.Channel:
        if name not in self._channels:
            self._channels[name] = create_channel(
                self.services[name].address, token=OPERATOR_TOKEN, timeout=30.0
            )
        return self._channels[name]

    def mm(self) -> matchmaking_pb2_grpc.MatchmakingServiceStub:
        return matchmaking_pb2_grpc.MatchmakingServiceStub(self._channel("matchmaking"))

    def ledger(self) -> ledger_pb2_grpc.LedgerServiceStub:
        return ledger_pb2_grpc.LedgerServiceStub(self._channel("ledger"))

    def table(self) -> table_pb2_grpc.TableServiceStub:
        return table_pb2_grpc.TableServiceStub(self._channel("table"))

    # -- tournaments --------------------------------------------------------------------

    def run_tournament(
        self, *, players: int = 8, rounds: int = 2, hands: int = 4, policy: str = "efficiency"
    ) -> str:
        """Create a tournament of bots, register them and start it; its id."""
        config = mm.TournamentConfig(
            name=f"faults {uuid.uuid4().hex[:6]}", rounds=rounds, seed=11,
            seating=mm.SEATING_MODE_SWISS, filler_bot_policy="efficiency",
        )  # fmt: skip
        config.length.hands = hands
        config.time_control.per_decision.FromMilliseconds(int(PER_DECISION * 1000))
        stub = self.mm()
        tid = stub.CreateTournament(mm.CreateTournamentRequest(config=config)).tournament
        tid = tid.tournament_id
        for number in range(players):
            entrant = mm.BotEntrant(policy=policy, name=f"bot {number + 1}")
            stub.Register(mm.RegisterRequest(tournament_id=tid, bot=entrant))
        stub.StartTournament(mm.StartTournamentRequest(tournament_id=tid))
        return tid

    def tournament(self, tid: str) -> mm.Tournament:
        request = mm.GetTournamentRequest(tournament_id=tid)
        return self.mm().GetTournament(request, timeout=10).tournament

    def round_matches(self, tid: str, round_no: int) -> list[table_pb2.MatchInfo]:
        """The round's matches as the engine has them (empty until opened)."""
        infos = (
            self.table()
            .ListTables(table_pb2.ListTablesRequest(tournament_id=tid, page_size=500), timeout=10)
            .matches
        )
        return [i for i in infos if i.round_no == round_no]

    def wait_mid_round(self, tid: str, round_no: int = 1, tables: int = 2) -> None:
        """Until every match of the round plays, one of them past its first hand."""

        def mid() -> bool:
            infos = self.round_matches(tid, round_no)
            return (
                len(infos) == tables
                and all(i.status == pb.MATCH_STATUS_PLAYING for i in infos)
                and any(i.hands_played >= 1 for i in infos)
            )

        wait_for(mid, 180, f"round {round_no} of {tid} under way", step=0.05)

    def wait_finished(self, tid: str, timeout: float = 300.0) -> mm.Tournament:
        done = (mm.TOURNAMENT_STATUS_FINISHED, mm.TOURNAMENT_STATUS_CANCELLED)
        found: list[mm.Tournament] = []

        def finished() -> bool:
            found[:] = [self.tournament(tid)]
            return found[0].status in done

        wait_for(finished, timeout, f"tournament {tid} to finish\n{self.logs()}", step=0.3)
        return found[0]

    def held_seats(self, worker: WorkerProcess) -> set[tuple[str, int]]:
        """The seats whose lease ``worker`` holds now."""
        held = set()
        for key in self.redis.scan_iter(match=f"{LEASE_PREFIX}:lease:*", count=500):
            value = self.redis.get(key)
            if value is None or not worker.owns(value.decode()):
                continue
            match_id, seat = key.decode()[len(f"{LEASE_PREFIX}:lease:") :].rsplit(":", 1)
            held.add((match_id, int(seat)))
        return held

    def ledger_entries(self, tid: str) -> list[ledger_pb2.LedgerEntry]:
        entries, token = [], ""
        while True:
            page = self.ledger().GetHistory(
                ledger_pb2.GetHistoryRequest(tournament_id=tid, page_size=500, page_token=token)
            )
            entries.extend(page.entries)
            token = page.next_page_token
            if not token:
                return entries


# -------------------------------------------------------------------------------- checks


@dataclass(frozen=True)
class Excuse:
    """Seat ``seat`` of ``match_id`` may be made auto-played for one of ``reasons`` between
    ``since`` and ``until`` (wall-clock seconds), and with ``played`` the machine may play
    its actions meanwhile (without: the table must wait for the seat, as a paused table
    does)."""

    match_id: str
    seat: int
    reasons: frozenset[str]
    since: float
    until: float
    played: bool = False


@dataclass
class Played:
    """One finished match: the engine's view, its public events, its stored log."""

    info: table_pb2.MatchInfo
    events: list[pb.Event]
    log: list[dict]


def seconds(stamp) -> float:
    return stamp.seconds + stamp.nanos / 1e9


def matches_played(stack: FaultStack, tid: str) -> dict[str, Played]:
    """Every match of the tournament: its info, its public events (Spectate from seq 1,
    after the end) and its stored log (the engine's schema)."""
    seating = stack.mm().GetSeating(mm.GetSeatingRequest(tournament_id=tid)).rounds
    ids = [t.match_id for r in seating for t in r.tables]
    store = EventStore.open(stack.database_url, stack.schemas["table"], max_size=2)
    out = {}
    try:
        for match_id in ids:
            info = stack.table().GetMatch(table_pb2.GetMatchRequest(match_id=match_id)).match
            stream = stack.table().Spectate(
                table_pb2.SpectateRequest(match_id=match_id, from_seq=1), timeout=30
            )
            events = [m.event for m in stream]
            stored = store.load_match(match_id)
            assert stored is not None, match_id
            out[match_id] = Played(info, events, [row.event for row in stored.events])
    finally:
        store.close()
    return out


def machine_play(played: dict[str, Played]) -> list[tuple[str, pb.Event]]:
    """Every event of the machine taking or playing a seat: auto-played actions, seats made
    auto-played, pauses, dissolutions."""
    out = []
    for match_id, match in played.items():
        for event in match.events:
            if (event.type in ACTIONS and event.auto_played) or event.type in (
                ET.EVENT_TYPE_SEAT_AUTO,
                ET.EVENT_TYPE_MATCH_DISSOLVED,
            ):
                out.append((match_id, event))
    return out


def describe(match_id: str, event: pb.Event) -> str:
    seat = event.seat if event.HasField("seat") else "-"
    return (
        f"{match_id} #{event.seq} {ET.Name(event.type)} seat {seat} reason {event.reason!r}"
        f" at {seconds(event.time):.2f}"
    )


def check_machine_play(played: dict[str, Played], excuses: Iterable[Excuse] = ()) -> None:
    """Nothing played by the machine but what ``excuses`` allow; every excused seat made
    auto-played is given back to its player (a later SEAT_RESUMED) before the match ends."""
    by_seat = {(e.match_id, e.seat): e for e in excuses}
    wrong = []
    for match_id, event in machine_play(played):
        excuse = by_seat.get((match_id, event.seat)) if event.HasField("seat") else None
        at = seconds(event.time)
        ok = (
            excuse is not None
            and excuse.since - SLACK <= at <= excuse.until + SLACK
            and (event.type != ET.EVENT_TYPE_SEAT_AUTO or event.reason in excuse.reasons)
            and (event.type not in ACTIONS or excuse.played)
        )
        if not ok:
            wrong.append((match_id, event))
    if wrong:
        counts = Counter(
            (m, e.seat, "auto-played action" if e.type in ACTIONS else ET.Name(e.type))
            for m, e in wrong
        )
        summary = ", ".join(f"{m} seat {s}: {n} x {what}" for (m, s, what), n in counts.items())
        first = [describe(m, e) for m, e in wrong[:5]]
        raise AssertionError(f"played by the machine, not excused: {summary}; first: {first}")
    for match_id, match in played.items():
        auto: set[int] = set()
        for event in match.events:
            if event.type == ET.EVENT_TYPE_SEAT_AUTO:
                auto.add(event.seat)
            elif event.type == ET.EVENT_TYPE_SEAT_RESUMED:
                auto.discard(event.seat)
        assert not auto, f"{match_id}: seats {sorted(auto)} still auto-played at the end"


def check_scores(stack: FaultStack, tid: str, played: dict[str, Played]) -> None:
    """Each match finished; its scores are its replayed log's and the ledger's postings;
    its hands were booked once each."""
    entries = stack.ledger_entries(tid)
    settlements = [e for e in entries if e.kind == ledger_pb2.ENTRY_KIND_SETTLEMENT]
    keys = Counter(e.idempotency_key for e in settlements)
    assert all(n == 1 for n in keys.values()), [k for k, n in keys.items() if n > 1]
    booked: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for entry in settlements:
        for posting in entry.postings:
            booked[entry.settlement.match_id][posting.player_id] += posting.amount
    for match_id, match in played.items():
        info = match.info
        assert info.status == pb.MATCH_STATUS_FINISHED, (match_id, info.status)
        assert [e.seq for e in match.events] == list(range(1, len(match.events) + 1))
        assert match.events[-1].type == ET.EVENT_TYPE_MATCH_END
        scores = [s.score for s in sorted(info.seats, key=lambda s: s.seat)]
        replayed = replay_match([e for e in match.log if e["type"] not in TABLE_EVENTS])
        assert list(replayed.scores) == scores, (match_id, replayed.scores, scores)
        assert list(match.events[-1].scores) == scores
        hands = {k for k in keys if k.startswith(f"{match_id}:")}
        assert hands == {f"{match_id}:{n}" for n in range(1, info.hands_played + 1)}
        assert info.hands_played == info.length.hands > 0
        by_player: dict[str, int] = defaultdict(int)
        for seat in info.seats:
            by_player[seat.player_id] += seat.score
        ledger = {p: v for p, v in booked[match_id].items() if v}
        results = {p: v for p, v in by_player.items() if v}
        assert ledger == results, (match_id, "ledger", ledger, "scores", results)


def check_tournament(
    stack: FaultStack, tid: str, excuses: Iterable[Excuse] = (), rounds: int = 2
) -> dict[str, Played]:
    """Everything a finished tournament must satisfy after the faults (see the module doc)."""
    from tests.integration.matchmaking.test_tournament import _check_books

    finished = stack.wait_finished(tid)
    assert finished.status == mm.TOURNAMENT_STATUS_FINISHED, (finished, stack.logs())
    assert finished.current_round == rounds and all(r.finished for r in finished.rounds)
    assert not finished.problems, finished.problems
    played = matches_played(stack, tid)
    check_machine_play(played, excuses)
    check_scores(stack, tid, played)
    _check_books(stack, finished)  # keys unique = hands played, standings = ledger, audit
    events = list(
        stack.mm().WatchTournament(
            mm.WatchTournamentRequest(tournament_id=tid, from_seq=1), timeout=60
        )
    )
    seated = [e.round_no for e in events if e.type == mm.TOURNAMENT_EVENT_TYPE_ROUND_SEATED]
    assert seated == list(range(1, rounds + 1))  # no round seated twice
    ended = [
        e.tables[0].match_id for e in events if e.type == mm.TOURNAMENT_EVENT_TYPE_MATCH_FINISHED
    ]
    assert sorted(ended) == sorted(played)  # each match reported once
    return played


def resumed_after(
    played: dict[str, Played], seats: Iterable[tuple[str, int]], since: float
) -> dict[tuple[str, int], float]:
    """Seconds from ``since`` until each seat was given back to a player (its first
    SEAT_RESUMED after ``since``); a seat never made auto-played counts 0, one never given
    back is missing."""
    out = {}
    for match_id, seat in seats:
        events = [
            e
            for e in played[match_id].events
            if e.HasField("seat") and e.seat == seat and seconds(e.time) >= since - SLACK
        ]
        if not any(e.type == ET.EVENT_TYPE_SEAT_AUTO for e in events):
            out[(match_id, seat)] = 0.0
            continue
        back = [seconds(e.time) for e in events if e.type == ET.EVENT_TYPE_SEAT_RESUMED]
        if back:
            out[(match_id, seat)] = back[0] - since
    return out
