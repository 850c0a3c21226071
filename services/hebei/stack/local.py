"""Start the local stack and play a tournament on it (``hebei demo``, ``make run``).

Every part is the real one: the ledger and the table engine are the gRPC services (served here
on 127.0.0.1, port 0), bots are Celery tasks played by a ``hebei bots worker`` process, each
seat over the table engine's Play stream, and every hand is booked in the ledger. Only the
databases are embedded by default: ``HEBEI_DATABASE_URL`` / ``HEBEI_BROKER_URL`` replace them.

Seating is simple here: round 1 is drawn from the seed, each later round seats players by
their standings (the top four at table 1, ...). Swiss pairing, people and bot fillers belong
to the matchmaking service.
"""

from __future__ import annotations

import contextlib
import os
import random
import secrets
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc

from hebei.bots.session import SeatTicket
from hebei.common import embedded
from hebei.common.client import create_channel
from hebei.common.config import ServerConfig
from hebei.common.db import drop_schema
from hebei.common.server import Server, ServiceSpec, create_server
from hebei.ledger.journal import Ledger
from hebei.ledger.servicer import SERVICE_NAME as LEDGER_SERVICE
from hebei.ledger.servicer import LedgerServicer
from hebei.stack.processes import Child, StackError, bot_worker_argv, wait_until_ready
from hebei.table.service import TableConfig, TableEngine
from hebei.v1 import ledger_pb2, ledger_pb2_grpc, table_pb2, table_pb2_grpc
from hebei.v1 import types_pb2 as pb

# The line-up of bot players, cycled: (policy, level).
LINE_UP = (("expert", 3), ("efficiency", None), ("expert", 1), ("random", None))
FINISHED = (pb.MATCH_STATUS_FINISHED, pb.MATCH_STATUS_DISSOLVED)


@dataclass(frozen=True, slots=True)
class DemoOptions:
    tables: int = 2
    rounds: int = 2
    hands: int = 4
    seed: int = 1
    per_decision: float = 2.0
    worker_processes: int = 1
    timeout: float = 900.0  # a round that takes longer fails


@dataclass(frozen=True, slots=True)
class Player:
    player_id: str
    name: str
    policy: str
    level: int | None


@dataclass
class LocalStack:
    """The running parts; :func:`local_stack` starts and stops them."""

    database_url: str
    broker_url: str
    token: str
    ledger: Ledger
    engine: TableEngine
    servers: list[Server]
    worker: Child
    table_address: str
    ledger_address: str
    table_schema: str
    channels: list[grpc.Channel] = field(default_factory=list)

    def stub(self, kind: str):
        address = self.table_address if kind == "table" else self.ledger_address
        channel = create_channel(address, token=self.token, timeout=10.0)
        self.channels.append(channel)
        if kind == "table":
            return table_pb2_grpc.TableServiceStub(channel)
        return ledger_pb2_grpc.LedgerServiceStub(channel)


def _serve(spec: ServiceSpec, service: str, token: str, workers: int) -> Server:
    config = ServerConfig(
        service=service,
        host="127.0.0.1",
        port=0,
        metrics_port=None,
        max_workers=workers,
        grace_seconds=1.0,
        operator_token=token,
    )
    server = create_server(spec, config)
    server.start()
    return server


def _start_worker(broker_url: str, processes: int, sessions: int, log_path: Path) -> Child:
    env = dict(os.environ, HEBEI_BROKER_URL=broker_url, HEBEI_BOTS_WARM_HANDS="2")
    name = f"demo-{secrets.token_hex(3)}"
    argv = bot_worker_argv(processes, sessions, name, loglevel="WARNING")
    worker = Child.spawn("bots", "the bot worker", argv, env, log_path)
    worker.worker_name, worker.processes = name, processes
    return worker


@contextlib.contextmanager
def local_stack(
    options: DemoOptions, log_dir: Path, status: Callable[[str], None]
) -> Iterator[LocalStack]:
    """Start databases, ledger, table engine and a bot worker; stop them all on exit."""
    log_dir.mkdir(parents=True, exist_ok=True)
    status("starting PostgreSQL and Redis (embedded unless HEBEI_DATABASE_URL/HEBEI_BROKER_URL)")
    database_url = embedded.database_url()
    broker_url = os.environ.get("HEBEI_BROKER_URL") or embedded.broker_url()
    os.environ["HEBEI_BROKER_URL"] = broker_url  # for send_seat here and the worker's process
    if not broker_url.startswith(("redis://", "rediss://")) and not os.environ.get(
        "HEBEI_BOTS_REDIS_URL"
    ):  # RabbitMQ: the seat leases still need one Redis that every worker shares
        os.environ["HEBEI_BOTS_REDIS_URL"] = embedded.embedded_redis()
    token = secrets.token_urlsafe(24)
    table_schema = f"demo_{uuid.uuid4().hex[:10]}"
    stack_servers: list[Server] = []
    ledger = engine = worker = None
    try:
        status("starting the ledger")
        ledger = Ledger.open(database_url, "ledger", min_size=2, max_size=8)
        spec = ServiceSpec(
            LEDGER_SERVICE,
            ledger_pb2_grpc.add_LedgerServiceServicer_to_server,
            LedgerServicer(ledger),
        )
        stack_servers.append(_serve(spec, "ledger", token, 16))
        ledger_address = f"127.0.0.1:{stack_servers[-1].port}"
        status("starting the table engine")
        seats = 4 * options.tables
        engine = TableEngine(
            TableConfig(
                server=ServerConfig(service="table", operator_token=token),
                database_url=database_url,
                schema=table_schema,
                ledger_address=ledger_address,
                ready_seconds=60.0,
                max_tables=max(4, options.tables),
                max_streams=seats + 16,
            )
        )
        stack_servers.append(_serve(engine.spec(), "table", token, seats + 48))
        table_address = f"127.0.0.1:{stack_servers[-1].port}"
        status("starting a bot worker (Celery)")
        log_path = log_dir / "bots-worker.log"
        worker = _start_worker(broker_url, options.worker_processes, seats + 4, log_path)
        wait_until_ready([worker], 120.0, os.environ.get("HEBEI_BOTS_REDIS_URL") or broker_url)
        stack = LocalStack(
            database_url,
            broker_url,
            token,
            ledger,
            engine,
            stack_servers,
            worker,
            table_address,
            ledger_address,
            table_schema,
        )
        yield stack
        for channel in stack.channels:
            channel.close()
    finally:
        if worker is not None:
            worker.stop(20)
        for server in stack_servers:
            server.stop(1.0)
        if engine is not None:
            engine.close()
        drop_schema(database_url, table_schema)  # the demo's tables; the ledger keeps its books
        if ledger is not None:
            ledger.close()


def players_for(options: DemoOptions) -> list[Player]:
    players = []
    for i in range(4 * options.tables):
        policy, level = LINE_UP[i % len(LINE_UP)]
        label = f"{policy}{'' if level is None else f'-{level}'}"
        players.append(Player(f"bot-{i + 1:02d}", f"{label} #{i + 1}", policy, level))
    return players


def seat_round(
    players: list[Player], standings: list[str], round_no: int, seed: int
) -> list[list[Player]]:
    """Tables of four: round 1 drawn from the seed, later rounds by standings."""
    if round_no == 1 or not standings:
        order = list(players)
        random.Random(seed).shuffle(order)
    else:
        by_id = {p.player_id: p for p in players}
        order = [by_id[pid] for pid in standings if pid in by_id]
        order += [p for p in players if p.player_id not in standings]
    return [order[i : i + 4] for i in range(0, len(order), 4)]


def open_table(
    stack: LocalStack,
    table,
    tournament_id: str,
    round_no: int,
    table_no: int,
    seated: list[Player],
    options: DemoOptions,
) -> str:
    """Open one match and queue its four seat tasks for the bot fleet."""
    from hebei.bots.celery_app import send_seat

    match_id = f"{tournament_id}-r{round_no}-t{table_no}"
    tokens = [secrets.token_urlsafe(16) for _ in seated]
    request = table_pb2.OpenMatchRequest(
        table_id=f"table-{table_no}",
        match_id=match_id,
        tournament_id=tournament_id,
        round_no=round_no,
        rule_profile=pb.RuleProfile(name="main"),
        length=pb.MatchLength(hands=options.hands),
        seed=random.Random(f"{options.seed}:{round_no}:{table_no}").getrandbits(63),
        seats=[
            table_pb2.SeatAssignment(
                seat=seat,
                player_id=p.player_id,
                player_name=p.name,
                kind=pb.SEAT_KIND_BOT,
                seat_token=tokens[seat],
                bot_policy=p.policy,
                bot_level=p.level or 0,
            )
            for seat, p in enumerate(seated)
        ],
    )
    request.time_control.per_decision.FromNanoseconds(int(options.per_decision * 1e9))
    table.OpenMatch(request)
    for seat, p in enumerate(seated):
        send_seat(
            SeatTicket(
                stack.table_address,
                match_id,
                seat,
                tokens[seat],
                p.policy,
                p.level,
                seed=options.seed * 1000 + seat,
            )
        )
    return match_id


def play_round(
    stack: LocalStack,
    tournament_id: str,
    round_no: int,
    tables: list[list[Player]],
    options: DemoOptions,
    progress: Callable[[int], None],
) -> list[table_pb2.MatchInfo]:
    """Open every table of the round and wait until all of them finish."""
    table = stack.stub("table")
    match_ids = [
        open_table(stack, table, tournament_id, round_no, n + 1, seated, options)
        for n, seated in enumerate(tables)
    ]
    deadline = time.monotonic() + options.timeout
    while True:
        infos = [table.GetMatch(table_pb2.GetMatchRequest(match_id=m)).match for m in match_ids]
        progress(sum(i.hands_played for i in infos))
        if all(i.status in FINISHED for i in infos):
            return infos
        if time.monotonic() > deadline:
            raise StackError(f"round {round_no} did not finish within {options.timeout:.0f} s")
        time.sleep(0.25)


def wait_for_ledger(
    stack: LocalStack, tournament_id: str, hands: int, timeout: float = 60.0
) -> None:
    """Wait until the ledger has booked ``hands`` settlements of the tournament."""
    ledger = stack.stub("ledger")
    deadline = time.monotonic() + timeout
    while True:
        audit = ledger.Audit(ledger_pb2.AuditRequest(tournament_id=tournament_id))
        booked = sum(t.entries for t in audit.tournaments if t.tournament_id == tournament_id)
        if booked >= hands:
            return
        if time.monotonic() > deadline:
            raise StackError(f"the ledger booked {booked} of {hands} hands within {timeout:.0f} s")
        time.sleep(0.2)


def standings(stack: LocalStack, tournament_id: str) -> list[pb.Standing]:
    request = ledger_pb2.LedgerServiceGetStandingsRequest(tournament_id=tournament_id)
    return list(stack.stub("ledger").GetStandings(request).standings)


def audit(stack: LocalStack, tournament_id: str) -> ledger_pb2.AuditResponse:
    return stack.stub("ledger").Audit(ledger_pb2.AuditRequest(tournament_id=tournament_id))
