"""The table engine assembled: configuration, store, host, outbox poster, servicer.

``python -m hebei.table`` (or ``hebei table serve``) runs :func:`main`; tests build a
:class:`TableEngine` and serve it with :func:`hebei.common.server.create_server` on port 0.

Settings (``HEBEI_TABLE_*``): ``MAX_TABLES`` (256), ``READY_SECONDS`` (15, the ready check),
``PAUSE_SECONDS`` (120: how long a match whose every seat is auto-played waits for a seat
before it is dissolved as a technical draw), ``REJOIN_SECONDS`` (30: after a restart, how long
the seats of a resumed match have to come back before they are auto-played),
``MAX_SPECTATORS`` (256) and ``MAX_SPECTATORS_PER_PEER`` (16): Spectate streams in total and
from one client address, ``MAX_STREAMS`` (256) and ``MAX_STREAMS_PER_PEER`` (32): Play streams
not yet joined to a seat (joined seats are never refused), ``JOIN_SECONDS`` (10): the time a
Play stream has to send its Join. The streams are coroutines on the server's one event loop
(``grpc.aio``); ``HEBEI_MAX_WORKERS`` threads run the unary calls' database work.
``KEEP_FINISHED`` (64): ended tables kept in memory for reads (about 1 MiB each after 8
hands); older ones are read back from the log, ``MAX_COLD_LOADS`` (2) at once (more is
RESOURCE_EXHAUSTED; GetMatch answers them from their stored row without reading the log).
``BOT_PACE_SECONDS`` (0.8; 0-5): at a table with a person's seat, the engine applies a
bot's action (and any other the machine makes) no sooner than this long after the seat was
asked, and holds every discard that long (see :class:`hebei.table.table.Table`); tables of
bots only are never paced. ``LOG_KEY``: the secret that signs the event logs (:mod:`hebei.table.logkey`). The channels to
the ledger and matchmaking use the client TLS settings (``HEBEI_TLS_CA``,
``HEBEI_TLS_CLIENT_CERT``/``KEY``, see :mod:`hebei.common.tls`).

Replicas (issue 46, :mod:`hebei.table.ownership`): ``REPLICA_ID`` (default
``table-<host name>-<port>``), ``ADVERTISE_ADDRESS`` (default the listen host:port),
``SHARD_COUNT`` (64; 1-1024, the same on every replica). Ownership is always on: the engine
serves the matches of the shards it holds (a lone replica holds all of them) and refuses the
others with UNAVAILABLE naming their owner; its ownership tables are in the schema
``<SCHEMA>_ownership`` (so ``SCHEMA`` has at most 53 characters). It starts once it serves its
fair share (a restart after a crash waits the ~2.6 s takeover grace). Its outbox poster
delivers the rows of its own shards. The drain (SIGTERM) hands its matches over at its start:
:meth:`TableEngine.drain`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass

import grpc

from hebei.common.client import create_channel
from hebei.common.config import ConfigError, EnvReader, ServerConfig, run_main
from hebei.common.db import opening
from hebei.common.heap import settle_heap
from hebei.common.replica_identity import default_address, default_replica_id
from hebei.common.server import ServiceSpec, serve
from hebei.table.host import HostSettings, TableHost
from hebei.table.logkey import local_log_key, log_key_from_env
from hebei.table.outbox import OutboxPoster
from hebei.table.ownership import (
    MatchOwnership,
    OwnershipSettings,
    install,
    ownership_schema,
)
from hebei.table.peers import Peers
from hebei.table.servicer import TableServicer
from hebei.table.store import DEFAULT_SCHEMA, EventStore
from hebei.v1 import (
    ledger_pb2,
    ledger_pb2_grpc,
    matchmaking_pb2,
    matchmaking_pb2_grpc,
    table_pb2_grpc,
)

log = logging.getLogger(__name__)

SERVICE_NAME = "hebei.v1.TableService"
DEFAULT_PORT = 50051
DEFAULT_METRICS_PORT = 9101
CALL_TIMEOUT = 5.0
DEFAULT_BOT_PACE = 0.8  # seconds: a bot's action at a table with people, at the earliest


@dataclass(frozen=True, slots=True)
class TableConfig:
    """The table engine's settings (``HEBEI_TABLE_*``, shared ``HEBEI_*``)."""

    server: ServerConfig
    database_url: str | None  # None: an embedded PostgreSQL
    schema: str = DEFAULT_SCHEMA
    ledger_address: str | None = None  # None: settlements wait in the outbox
    matchmaking_address: str | None = None  # None: match results wait in the outbox
    ready_seconds: float = 15.0
    max_tables: int = 256
    keep_finished: int = 64
    max_cold_loads: int = 2
    max_streams: int = 256  # Play streams that have not joined a seat yet
    flush_seconds: float = 0.0
    pause_seconds: float = 120.0
    rejoin_seconds: float = 30.0
    max_streams_per_peer: int = 32
    max_spectators: int = 256
    max_spectators_per_peer: int = 16
    join_seconds: float = 10.0
    bot_pace: float = 0.0  # HEBEI_TABLE_BOT_PACE_SECONDS (0.8 when read from the environment)
    # The secret signing the event logs; None: the data directory's (loopback only, see
    # hebei.table.logkey).
    log_key: bytes | None = None
    replica_id: str | None = None  # None: default_replica_id (host name and port)
    advertise_address: str | None = None  # None: the listen host and port
    shard_count: int = 64

    @property
    def ownership_schema(self) -> str:
        """The schema of the replica registry and the shards' owners."""
        return ownership_schema(self.schema)

    def ownership(self) -> OwnershipSettings:
        """This replica's identity and the matches' shards."""
        server = self.server
        return OwnershipSettings(
            replica_id=self.replica_id or default_replica_id("table", server.port),
            address=self.advertise_address or default_address(server.host, server.port),
            shard_count=self.shard_count,
        )

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> TableConfig:
        """Read and validate the environment (ConfigError names the bad variable)."""
        read = EnvReader("table", env)
        server = ServerConfig.from_env(
            "table",
            default_port=DEFAULT_PORT,
            default_metrics_port=DEFAULT_METRICS_PORT,
            env=env,
        )
        max_tables = read.integer("MAX_TABLES", 256, lo=1, hi=10_000)
        max_streams = read.integer("MAX_STREAMS", 256, lo=1, hi=100_000)
        max_spectators = read.integer("MAX_SPECTATORS", 256, lo=0, hi=100_000)
        replica_id = read.optional_text("REPLICA_ID")
        if replica_id is not None and (len(replica_id) > 200 or not replica_id.isprintable()):
            raise ConfigError("HEBEI_TABLE_REPLICA_ID must be 1 to 200 printable characters")
        schema = read.text("SCHEMA", DEFAULT_SCHEMA)
        try:
            ownership_schema(schema)  # both names valid
        except ValueError as error:
            raise ConfigError(f"{read.prefix}SCHEMA: {error}") from None
        return cls(
            server=server,
            database_url=read.optional_text("DATABASE_URL", shared=True),
            schema=schema,
            ledger_address=read.optional_text("LEDGER_ADDRESS", shared=True),
            matchmaking_address=read.optional_text("MATCHMAKING_ADDRESS", shared=True),
            ready_seconds=read.number("READY_SECONDS", 15.0, lo=0.01, hi=3600),
            max_tables=max_tables,
            keep_finished=read.integer("KEEP_FINISHED", 64, lo=0, hi=100_000),
            max_cold_loads=read.integer("MAX_COLD_LOADS", 2, lo=1, hi=64),
            max_streams=max_streams,
            flush_seconds=read.number("FLUSH_SECONDS", 0.0, lo=0.0, hi=1.0),
            pause_seconds=read.number("PAUSE_SECONDS", 120.0, lo=0.01, hi=86_400),
            rejoin_seconds=read.number("REJOIN_SECONDS", 30.0, lo=0.01, hi=3600),
            max_streams_per_peer=read.integer("MAX_STREAMS_PER_PEER", 32, lo=1, hi=100_000),
            max_spectators=max_spectators,
            max_spectators_per_peer=read.integer("MAX_SPECTATORS_PER_PEER", 16, lo=0, hi=100_000),
            join_seconds=read.number("JOIN_SECONDS", 10.0, lo=0.1, hi=600),
            bot_pace=read.number("BOT_PACE_SECONDS", DEFAULT_BOT_PACE, lo=0.0, hi=5.0),
            log_key=log_key_from_env(read, server.host),
            replica_id=replica_id,
            advertise_address=read.optional_text("ADVERTISE_ADDRESS"),
            shard_count=read.integer("SHARD_COUNT", 64, lo=1, hi=1024),
        )


class TableEngine:
    """Store + host + outbox poster + servicer, started together and closed together."""

    def __init__(self, config: TableConfig) -> None:
        self.config = config
        url = config.database_url
        if url is None:
            from hebei.common import embedded

            url = embedded.database_url()
        log_key = config.log_key or local_log_key(config.server.host)
        with opening("the table engine's database"):
            self.store = EventStore.open(
                url,
                config.schema,
                flush_seconds=config.flush_seconds,
                log_key=log_key,
                shard_count=config.shard_count,
            )
        try:
            with opening("the table engine's ownership tables"):
                install(url, config.ownership_schema)
        except BaseException:
            self.store.close()
            raise
        deliverers = {}
        self._channels = []
        if config.ledger_address:
            ledger = ledger_pb2_grpc.LedgerServiceStub(self._channel(config.ledger_address))
            deliverers["settlement"] = lambda payload: ledger.PostSettlement(
                ledger_pb2.PostSettlementRequest.FromString(payload), timeout=CALL_TIMEOUT
            )
        if config.matchmaking_address:
            channel = self._channel(config.matchmaking_address)
            matchmaking = matchmaking_pb2_grpc.MatchmakingServiceStub(channel)
            deliverers["match_result"] = lambda payload: matchmaking.ReportMatchResult(
                matchmaking_pb2.ReportMatchResultRequest.FromString(payload),
                timeout=CALL_TIMEOUT,
            )
        # the rows of the shards this replica serves (the host below, given them by ownership)
        self.poster = OutboxPoster(self.store, deliverers, shards=lambda: self.host.shards)
        self.store.on_outbox = self.poster.wake
        self.host = TableHost(
            self.store,
            HostSettings(
                ready_seconds=config.ready_seconds,
                max_tables=config.max_tables,
                keep_finished=config.keep_finished,
                cold_loads=config.max_cold_loads,
                pause_seconds=config.pause_seconds,
                rejoin_seconds=config.rejoin_seconds,
                bot_pace=config.bot_pace,
                shard_count=config.shard_count,
            ),
            shards=frozenset(),  # given by the ownership below
        )
        self.ownership = MatchOwnership(
            url,
            schema=config.schema,
            settings=config.ownership(),
            connect=self.store.pool.connection,
            serve=self._serve_shards,
            resume=lambda shards, cause: self.host.resume_shards(shards, cause=cause),
            release=self.host.release_shards,
            lose=self.host.lose_shards,
        )
        try:
            self.ownership.start()
        except Exception:
            self.host.close()
            self.store.close()
            raise
        self.poster.start()
        self.servicer = TableServicer(
            self.host,
            max_joining=config.max_streams,
            max_joining_per_peer=config.max_streams_per_peer,
            max_spectators=config.max_spectators,
            max_spectators_per_peer=config.max_spectators_per_peer,
            join_seconds=config.join_seconds,
            ownership=self.ownership,
            peers=Peers(self.ownership, self._peer_channel),
        )

    def _serve_shards(self, shards: frozenset[int]) -> None:
        """Serve ``shards`` from now on: their matches, and their outbox rows (a peer left
        them, or died with rows undelivered)."""
        self.host.serve_shards(shards)
        self.poster.shards_acquired()

    def drain(self) -> None:
        """SIGTERM (the server's drain hook): hand the matches over at the start of the drain,
        not after it, when another replica is live to take them. The shards are released (each
        shard's tables suspended, clocks stopped, streams ended with the refusal, logs flushed;
        then its owner row deleted and its lock released, so a peer serves it at its next beat,
        without the takeover grace), then every table left is suspended; the calls of the rest
        of the drain are refused naming the new owner (or "being taken over"). A replica alone
        (or unable to tell) keeps its shards through the drain, its tables suspended: it still
        answers the calls in flight and the reads, and releases the shards on :meth:`close`."""
        self.servicer.drain()
        if self.ownership.has_peers():
            self.ownership.stop()
        self.host.suspend_all()

    def _channel(self, address: str) -> grpc.Channel:
        """A channel to another service: the service token, the client TLS settings."""
        server = self.config.server
        channel = create_channel(
            address,
            token=server.service_token or server.operator_token,
            timeout=CALL_TIMEOUT,
            tls=server.client_tls,
        )
        self._channels.append(channel)
        return channel

    def _peer_channel(self, address: str) -> grpc.Channel:
        """A channel to another replica of the engine (closed by its user)."""
        server = self.config.server
        return create_channel(
            address,
            token=server.service_token or server.operator_token,
            timeout=CALL_TIMEOUT,
            tls=server.client_tls,
        )

    def spec(self) -> ServiceSpec:
        """The service to host on a server (draining it hands the matches over: :meth:`drain`)."""
        return ServiceSpec(
            SERVICE_NAME,
            table_pb2_grpc.add_TableServiceServicer_to_server,
            self.servicer,
            drain=self.drain,
            asyncio=True,
        )

    def close(self) -> None:
        """Release the shards (their tables suspended and flushed; done already after a
        drain), suspend the rest, stop timers, deliver nothing more, flush the log, close
        connections."""
        self.ownership.stop()
        self.host.suspend_all()
        self.host.close()
        self.poster.stop()
        self.store.close()
        for channel in self._channels:
            channel.close()


def main() -> None:
    """Run the table engine until SIGTERM."""
    config = TableConfig.from_env()
    engine = TableEngine(config)
    # What is alive now (modules, the resumed tables) moves to the collector's permanent
    # generation: a full collection walks only what the tables create from here on, and
    # stalls every stream for that much less (measured: 40 ms for 100,000 objects). The
    # cycles of a resumed table are then freed only by reference counting: bounded by the
    # tables resumed at start. Young collections every GC_YOUNG allocations, as the bots.
    settle_heap()
    try:
        serve(engine.spec(), config.server)
    finally:
        engine.close()


def run() -> None:
    """``python -m hebei.table``: main with one-line configuration errors."""
    run_main("hebei-table", main)
