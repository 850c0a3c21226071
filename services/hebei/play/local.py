"""A local table for ``hebei play``: an in-process table engine on port 0 with one match, the
person in seat 0 and three bots played in threads by the fleet's seat-session runner
(:class:`hebei.bots.session.SeatSession`) over the same Play stream a remote bot uses.

The table engine keeps its event log in PostgreSQL: ``HEBEI_DATABASE_URL`` when set, else the
embedded server of :mod:`hebei.common.embedded`. Each local table uses a schema of its own,
dropped when the table closes, so an abandoned local game never resumes in the next one.
"""

from __future__ import annotations

import logging
import secrets
import threading
import uuid
from dataclasses import dataclass, field

import grpc

from hebei.bots.policies import Policy, make_policy
from hebei.bots.session import Backoff, SeatSession, SeatTicket
from hebei.common import embedded
from hebei.common.client import create_channel
from hebei.common.config import ServerConfig
from hebei.common.db import drop_schema
from hebei.common.ownership import ownership_schema
from hebei.common.server import Server, create_server
from hebei.table.service import TableConfig, TableEngine
from hebei.v1 import table_pb2, table_pb2_grpc
from hebei.v1 import types_pb2 as pb

log = logging.getLogger(__name__)

PERSON_SEAT = 0
READY_SECONDS = 10.0  # a seat that has not joined by then is auto-played


@dataclass(frozen=True, slots=True)
class LocalOptions:
    """What the person chose for a local table."""

    policy: str = "expert"
    level: int | None = 2
    hands: int = 4
    seed: int = 0
    think: float = 15.0  # seconds per decision
    bank: float = 60.0  # the time bank of the match
    name: str = "You"
    profile: str = "main"  # the rule profile (main, classic)


class BotSeat:
    """A bot seat played in a thread by the bot fleet's seat-session runner."""

    def __init__(self, ticket: SeatTicket, policy: Policy) -> None:
        self.stopped = threading.Event()
        backoff = Backoff(first=0.05, cap=0.5, give_up=10.0)
        self.session = SeatSession(ticket, policy, stop=self.stopped, backoff=backoff)
        self.thread = threading.Thread(
            target=self.session.run, name=f"bot-seat-{ticket.seat}", daemon=True
        )

    def start(self) -> BotSeat:
        self.thread.start()
        return self

    def stop(self) -> None:
        """Ask the session to stop (it does at its next message or when the server stops)."""
        self.stopped.set()


@dataclass
class LocalTable:
    """A running local table: the engine, its server, the match and the bots."""

    engine: TableEngine
    server: Server
    channel: grpc.Channel
    database_url: str
    schema: str
    match_id: str
    seat: int
    token: str
    bots: list[BotSeat] = field(default_factory=list)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.server.port}"

    def join_request(self) -> table_pb2.Join:
        """The person's Join."""
        return table_pb2.Join(
            match_id=self.match_id, seat=self.seat, seat_token=self.token, client_name="hebei-play"
        )

    def close(self) -> None:
        """Stop the bots, the server and the engine; drop the table's schemas."""
        for bot in self.bots:
            bot.stop()
        self.channel.close()
        self.server.stop(0.5)
        for bot in self.bots:
            bot.thread.join(5)
        self.engine.close()
        drop_engine_schemas(self.database_url, self.schema)


def open_match_request(
    options: LocalOptions, match_id: str, tokens: list[str]
) -> table_pb2.OpenMatchRequest:
    """The local match: the person in :data:`PERSON_SEAT`, bots in the other seats."""
    seats = []
    for seat in range(4):
        person = seat == PERSON_SEAT
        seats.append(
            table_pb2.SeatAssignment(
                seat=seat,
                player_id="you" if person else f"bot-{seat}",
                player_name=options.name if person else f"Bot {seat}",
                kind=pb.SEAT_KIND_PERSON if person else pb.SEAT_KIND_BOT,
                seat_token=tokens[seat],
                bot_policy="" if person else options.policy,
                bot_level=0 if person else options.level or 0,
            )
        )
    request = table_pb2.OpenMatchRequest(
        table_id="local",
        match_id=match_id,
        rule_profile=pb.RuleProfile(name=options.profile),
        length=pb.MatchLength(hands=options.hands),
        seats=seats,
        seed=options.seed,
        # A seed the person chose (to play the same deal again) is known: an evaluation match.
        evaluation=options.seed != 0,
    )
    request.time_control.per_decision.FromNanoseconds(int(options.think * 1e9))
    request.time_control.time_bank.FromNanoseconds(int(options.bank * 1e9))
    return request


def drop_engine_schemas(database_url: str, schema: str) -> None:
    """Drop a local engine's schemas: its own and its ownership tables' (best effort)."""
    for name in (schema, ownership_schema(schema)):
        drop_schema(database_url, name)


def serve_engine(
    database_url: str, schema: str, operator_token: str, *, ready_seconds: float = READY_SECONDS
) -> tuple[TableEngine, Server]:
    """A table engine on ``schema`` served on 127.0.0.1, port 0 (for a few tables only)."""
    config = TableConfig(
        server=ServerConfig(
            service="table",
            host="127.0.0.1",
            port=0,
            metrics_port=None,
            max_workers=32,
            grace_seconds=0.5,
            operator_token=operator_token,
        ),
        database_url=database_url,
        schema=schema,
        ready_seconds=ready_seconds,
        max_tables=4,
        max_streams=16,
    )
    engine = None
    try:
        engine = TableEngine(config)
        server = create_server(engine.spec(), config.server)
        server.start()
    except BaseException:
        if engine is not None:
            engine.close()
        drop_engine_schemas(database_url, schema)
        raise
    return engine, server


def start_local_table(options: LocalOptions) -> LocalTable:
    """Start the engine on 127.0.0.1 port 0, open the match and seat the three bots.

    Raises ValueError for an unknown policy or level (before anything is started).
    """
    policies = {
        seat: make_policy(options.policy, options.level, seed=options.seed * 4 + seat)
        for seat in range(4)
        if seat != PERSON_SEAT
    }
    url = embedded.database_url()
    schema = f"play_{uuid.uuid4().hex[:12]}"
    operator_token = secrets.token_urlsafe(24)
    engine, server = serve_engine(url, schema, operator_token)
    channel = create_channel(f"127.0.0.1:{server.port}", token=operator_token)
    match_id = f"local-{uuid.uuid4().hex[:12]}"
    tokens = [secrets.token_urlsafe(16) for _ in range(4)]
    table = LocalTable(
        engine, server, channel, url, schema, match_id, PERSON_SEAT, tokens[PERSON_SEAT]
    )
    try:
        stub = table_pb2_grpc.TableServiceStub(channel)
        stub.OpenMatch(open_match_request(options, match_id, tokens))
        for seat, policy in policies.items():
            ticket = SeatTicket(
                target=table.address,
                match_id=match_id,
                seat=seat,
                seat_token=tokens[seat],
                policy=options.policy,
                level=options.level,
                seed=options.seed * 4 + seat,
            )
            table.bots.append(BotSeat(ticket, policy).start())
    except BaseException:
        table.close()
        raise
    log.info("local table %s on %s", match_id, table.address)
    return table
