"""The matchmaking service assembled: configuration, store, gateways, director, servicer.

``python -m hebei.matchmaking`` (or ``hebei matchmaking serve``) runs :func:`main`; tests build
a :class:`Matchmaking` and serve it with :func:`hebei.common.server.create_server` on port 0.
Besides the bootstrap's settings (``HEBEI_MATCHMAKING_PORT``, ``..._METRICS_PORT``,
``HEBEI_OPERATOR_TOKEN``, ``HEBEI_SERVICE_TOKEN``, ...):

- ``HEBEI_MATCHMAKING_TABLE_ADDRESS`` (required): the table engine's replicas, host:port or
  a comma-separated list (``table-0:50051,table-1:50051``) that names every replica: a call on
  one match follows its owner from any of them, while ListTables and RevealMatchResults ask
  each (:class:`~hebei.matchmaking.gateways.TableGateway`);
- ``HEBEI_MATCHMAKING_LEDGER_ADDRESS`` (required): the ledger, host:port;
- ``HEBEI_MATCHMAKING_TABLE_ENDPOINT``: the engine's replicas as people and bot workers reach
  them, one address or a comma-separated list (default: the table address); seatings and
  seat tickets carry it as it is;
- ``HEBEI_DATABASE_URL`` (or ``HEBEI_MATCHMAKING_DATABASE_URL``): PostgreSQL, else embedded;
- ``HEBEI_BROKER_URL``: the bot fleet's Celery broker (bot seats are queued there), else the
  embedded Redis; ``HEBEI_BOTS_REDIS_URL`` when the broker is not Redis;
- ``HEBEI_MATCHMAKING_SCHEMA`` (default ``matchmaking``), ``..._POOL_SIZE`` (default 10);
- ``HEBEI_MATCHMAKING_QUICK_PLAY_WAIT_SECONDS`` (default 3): how long quick play waits for
  other people before filling the table with bots;
- ``HEBEI_MATCHMAKING_MAX_QUICK_PLAY_TABLES`` (default 64, 1-10,000): quick-play matches
  opened and not yet ended, at most (counted in the store); a request beyond it, or a group
  seated beyond it, is RESOURCE_EXHAUSTED "quick play has N tables in play: try again
  shortly", so tournaments always keep the engine's other tables. A quick-play match whose
  people all ended their QuickPlay streams before it started and did not join within 10 s is
  dissolved (the engine checks, in one step, that it still waits and none of them joined);
- ``HEBEI_MATCHMAKING_MAX_STREAMS`` (default 256): watchers and quick-play streams at once;
  ``HEBEI_MATCHMAKING_MAX_STREAMS_PER_PEER`` (default 128): ... from one client address (the
  web gateway holds up to its ``HEBEI_WEB_MAX_TABLES`` + ``HEBEI_WEB_MAX_SESSIONS``, 76);
- ``HEBEI_MATCHMAKING_MAX_READS`` (default 4, 1 to POOL_SIZE - 1) and
  ``HEBEI_MATCHMAKING_MAX_READS_PER_PEER`` (default 4, 1-500): GetStandings and GetRatings
  without a token running at once, in all and from one client address; more are
  RESOURCE_EXHAUSTED at once. A GetStandings reads the tournament here and then the ledger's
  standings with matchmaking's token, which the ledger does not count (about 0.65 s for a
  tournament of 10,000 entries in a journal of 200,000): without the bound 32 anonymous
  GetStandings held the ledger's pool and the table engine's PostSettlement took 2.7 s (6 ms
  idle), and the rest of matchmaking's pool is always left to the round director. The web
  gateway, one address for all its users, reads standings once per change of a tournament it
  follows (not per viewer). GetTournament and GetSeating (a few rows by key) are not bounded;
  calls with a token are not counted.
- ``HEBEI_MATCHMAKING_STANDINGS_CACHE_SECONDS`` (default 2, 0-60; 0: none): everyone but the
  operator sees the same standings of a tournament, so one read serves them all for this long
  and until the tournament's next change (a call answered so holds its read slot for one
  small query, not the ledger's read): a crowd refreshing a big tournament's standings costs
  one ledger read every 2 s, not one each; a change (a round seated or finished) is never answered from a read made
  before it, and hands booked meanwhile show within 2 s. The operator's reads are always
  fresh.
- ``HEBEI_MATCHMAKING_MAX_CODE_FAILURES`` (default 10, 1-10,000) wrong registration codes from
  one client address in ``HEBEI_MATCHMAKING_CODE_FAILURE_SECONDS`` (default 60, 1-86,400):
  then its Register calls are RESOURCE_EXHAUSTED until the oldest leaves the window (trying
  every four-digit code takes 17 hours from one address, not seconds). The operator token is
  never refused.
- ``HEBEI_MATCHMAKING_MAX_TOURNAMENT_CODE_FAILURES`` (default 50, 1-100,000) wrong codes for
  one tournament, from every address together, in
  ``HEBEI_MATCHMAKING_TOURNAMENT_CODE_FAILURE_SECONDS`` (default 3600, 1-604,800): then
  registration with a code is locked for that tournament (RESOURCE_EXHAUSTED, every code
  refused unchecked) until the oldest leaves the window, and the organiser is told (operator
  record, ``Tournament.problems``): many addresses guess no faster than one.
- ``HEBEI_MATCHMAKING_MAX_REGISTRATIONS_PER_ADDRESS`` (default 60, 1-100,000) Register calls
  without the operator token from one client address in
  ``HEBEI_MATCHMAKING_REGISTRATION_SECONDS`` (default 600, 1-86,400), at most
  ``HEBEI_MATCHMAKING_MAX_REGISTRATIONS_PER_ADDRESS_AND_TOURNAMENT`` (default 20, 1-100,000)
  of them for one tournament; more are RESOURCE_EXHAUSTED with the wait. The web gateway is
  one address for all its users (its own per-address limit comes first): raise these for an
  event whose people register through it in a rush.

Replicas (issue 46, :mod:`hebei.matchmaking.driving`): every replica serves every RPC from the
shared store; each tournament is driven by the one replica holding its lease.
``HEBEI_MATCHMAKING_REPLICA_ID`` (default ``matchmaking-<host name>-<port>``) names the replica
(unique among the live ones), ``HEBEI_MATCHMAKING_ADVERTISE_ADDRESS`` (default the listen
host:port, the host name for a wildcard host) is the address it is known by in the replica
registry; the leases live in the schema ``<schema>_ownership``.

The channels to the table engine and the ledger use the client TLS settings
(``HEBEI_TLS_CA``, ``HEBEI_TLS_CLIENT_CERT``/``KEY``, see :mod:`hebei.common.tls`); with them,
the bot seats it queues say the engine speaks TLS.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from psycopg.rows import tuple_row

from hebei.common import embedded
from hebei.common.auth import TokenAuthority
from hebei.common.config import ConfigError, EnvReader, ServerConfig, StartupError, run_main
from hebei.common.db import opening
from hebei.common.ownership import OwnershipError, install, ownership_schema
from hebei.common.replica_identity import default_address, default_replica_id
from hebei.common.routing import parse_addresses
from hebei.common.server import ServiceSpec, serve
from hebei.matchmaking.director import Director
from hebei.matchmaking.driving import Driving
from hebei.matchmaking.gateways import BotFleet, LedgerGateway, TableGateway
from hebei.matchmaking.quickplay import QuickPlay
from hebei.matchmaking.registration import (
    MAX_REGISTRATIONS_PER_ADDRESS,
    MAX_REGISTRATIONS_PER_ADDRESS_AND_TOURNAMENT,
    MAX_TOURNAMENT_CODE_FAILURES,
    REGISTRATION_SECONDS,
    TOURNAMENT_CODE_FAILURE_SECONDS,
    CodeBudget,
    RegistrationGate,
)
from hebei.matchmaking.servicer import SERVICE_NAME, MatchmakingServicer
from hebei.matchmaking.store import Store
from hebei.matchmaking.tournaments import Tournaments
from hebei.v1 import matchmaking_pb2_grpc

__all__ = ["Matchmaking", "MatchmakingConfig", "main", "run"]

DEFAULT_PORT = 50052
DEFAULT_METRICS_PORT = 9102


@dataclass(frozen=True, slots=True)
class MatchmakingConfig:
    """The matchmaking service's settings (``HEBEI_MATCHMAKING_*``, shared ``HEBEI_*``)."""

    server: ServerConfig
    table_address: str  # the engine's replicas, "host:port[,host:port...]"
    ledger_address: str
    database_url: str | None = None  # None: an embedded PostgreSQL
    table_endpoint: str | None = None  # None: table_address
    schema: str = "matchmaking"
    pool_size: int = 10
    quick_play_wait: float = 3.0
    max_quick_play_tables: int = 64
    max_streams: int = 256
    max_streams_per_peer: int = 128
    max_reads: int = 4
    max_reads_per_peer: int = 4
    max_code_failures: int = 10
    code_failure_seconds: float = 60.0
    standings_cache_seconds: float = 2.0
    max_tournament_code_failures: int = MAX_TOURNAMENT_CODE_FAILURES
    tournament_code_failure_seconds: float = TOURNAMENT_CODE_FAILURE_SECONDS
    max_registrations_per_address: int = MAX_REGISTRATIONS_PER_ADDRESS
    max_registrations_per_address_and_tournament: int = MAX_REGISTRATIONS_PER_ADDRESS_AND_TOURNAMENT
    registration_seconds: float = REGISTRATION_SECONDS
    tick_seconds: float = 0.5
    ledger_grace: float = 30.0
    replica_id: str | None = None  # None: default_replica_id(port)
    advertise_address: str | None = None  # None: default_address(host, port)

    @property
    def ownership_schema(self) -> str:
        """The schema of the replica registry and the tournaments' leases."""
        return ownership_schema(self.schema)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> MatchmakingConfig:
        """Read and validate the environment (ConfigError names the bad variable)."""
        read = EnvReader("matchmaking", env)
        server = ServerConfig.from_env(
            "matchmaking",
            default_port=DEFAULT_PORT,
            default_metrics_port=DEFAULT_METRICS_PORT,
            env=env,
        )
        schema = read.text("SCHEMA", "matchmaking")
        try:
            ownership_schema(schema)  # both names valid
        except ValueError as error:
            raise ConfigError(f"{read.prefix}SCHEMA: {error}") from None
        max_streams = read.integer("MAX_STREAMS", 256, lo=1, hi=100_000)
        # Every open stream holds a worker thread: keep room for the unary calls.
        server = dataclasses.replace(server, max_workers=max(server.max_workers, max_streams + 32))
        pool_size = read.integer("POOL_SIZE", 10, lo=2, hi=500)
        below_pool = pool_size - 1  # the round director keeps a connection
        max_reads = read.integer("MAX_READS", min(4, below_pool), lo=1, hi=below_pool)
        return cls(
            server=server,
            table_address=_entries(read, "TABLE_ADDRESS", read.text("TABLE_ADDRESS")),
            ledger_address=read.text("LEDGER_ADDRESS"),
            database_url=read.optional_text("DATABASE_URL", shared=True),
            table_endpoint=_entries(read, "TABLE_ENDPOINT", read.optional_text("TABLE_ENDPOINT")),
            schema=schema,
            pool_size=pool_size,
            quick_play_wait=read.number("QUICK_PLAY_WAIT_SECONDS", 3.0, lo=0.0, hi=600),
            max_quick_play_tables=read.integer("MAX_QUICK_PLAY_TABLES", 64, lo=1, hi=10_000),
            max_streams=max_streams,
            max_streams_per_peer=read.integer("MAX_STREAMS_PER_PEER", 128, lo=1, hi=100_000),
            max_reads=max_reads,
            max_reads_per_peer=read.integer("MAX_READS_PER_PEER", 4, lo=1, hi=500),
            max_code_failures=read.integer("MAX_CODE_FAILURES", 10, lo=1, hi=10_000),
            code_failure_seconds=read.number("CODE_FAILURE_SECONDS", 60.0, lo=1, hi=86_400),
            standings_cache_seconds=read.number("STANDINGS_CACHE_SECONDS", 2.0, lo=0, hi=60),
            max_tournament_code_failures=read.integer(
                "MAX_TOURNAMENT_CODE_FAILURES", MAX_TOURNAMENT_CODE_FAILURES, lo=1, hi=100_000
            ),
            tournament_code_failure_seconds=read.number(
                "TOURNAMENT_CODE_FAILURE_SECONDS",
                TOURNAMENT_CODE_FAILURE_SECONDS,
                lo=1,
                hi=7 * 86_400,
            ),
            max_registrations_per_address=read.integer(
                "MAX_REGISTRATIONS_PER_ADDRESS", MAX_REGISTRATIONS_PER_ADDRESS, lo=1, hi=100_000
            ),
            max_registrations_per_address_and_tournament=read.integer(
                "MAX_REGISTRATIONS_PER_ADDRESS_AND_TOURNAMENT",
                MAX_REGISTRATIONS_PER_ADDRESS_AND_TOURNAMENT,
                lo=1,
                hi=100_000,
            ),
            registration_seconds=read.number(
                "REGISTRATION_SECONDS", REGISTRATION_SECONDS, lo=1, hi=86_400
            ),
            replica_id=read.optional_text("REPLICA_ID"),
            advertise_address=read.optional_text("ADVERTISE_ADDRESS"),
        )


def _entries(read: EnvReader, name: str, value: str | None) -> str | None:
    """A setting of table replicas' addresses, checked and written ``a:1,b:2`` (None stays)."""
    if value is None:
        return None
    try:
        return ",".join(parse_addresses(value))
    except ValueError as error:
        raise ConfigError(f"{read.prefix}{name}: {error}") from None


class Matchmaking:
    """Store + gateways + director + servicer, started together and closed together."""

    def __init__(self, config: MatchmakingConfig) -> None:
        self.config = config
        url = config.database_url or embedded.database_url()
        with opening("the matchmaking database"):
            self.store = Store.open(url, config.schema, max_size=config.pool_size)
        token = config.server.service_token or config.server.operator_token
        endpoint = config.table_endpoint or config.table_address
        tls = config.server.client_tls
        self.table = TableGateway(config.table_address, token, tls=tls)
        self.ledger = LedgerGateway(config.ledger_address, token, tls=tls)
        fleet = BotFleet(endpoint, tls=tls is not None)
        self.tournaments = Tournaments(
            self.store,
            self.table,
            self.ledger,
            fleet,
            table_endpoint=endpoint,
            code_budget=CodeBudget(
                config.max_tournament_code_failures, config.tournament_code_failure_seconds
            ),
        )
        self.quick_play = QuickPlay(
            self.tournaments,
            wait_seconds=config.quick_play_wait,
            max_tables=config.max_quick_play_tables,
        )
        service_tokens = [config.server.service_token] if config.server.service_token else []
        self.servicer = MatchmakingServicer(
            self.tournaments,
            self.quick_play,
            TokenAuthority(config.server.operator_token, service_tokens),
            max_streams=config.max_streams,
            max_streams_per_peer=config.max_streams_per_peer,
            max_reads=config.max_reads,
            max_reads_per_peer=config.max_reads_per_peer,
            max_code_failures=config.max_code_failures,
            code_failure_seconds=config.code_failure_seconds,
            standings_cache_seconds=config.standings_cache_seconds,
            registrations=RegistrationGate(
                config.max_registrations_per_address,
                config.max_registrations_per_address_and_tournament,
                config.registration_seconds,
            ),
        )
        with opening("the matchmaking database"):
            install(url, config.ownership_schema)
        server = config.server
        self.driving = Driving.create(
            url,
            schema=config.ownership_schema,
            replica_id=config.replica_id or default_replica_id("matchmaking", server.port),
            address=config.advertise_address or default_address(server.host, server.port),
            connect=self._tuple_connection,
            on_lost=lambda keys: self.director.leases_lost(keys),
        )
        self.director = Director(
            self.tournaments,
            self.driving,
            tick_seconds=config.tick_seconds,
            ledger_grace=config.ledger_grace,
            quick_play_taken=self.quick_play.resume_left,
        )
        try:
            self.director.start()
        except OwnershipError as error:  # the database down, or the replica id in use
            raise StartupError(f"cannot register the matchmaking replica: {error}") from None

    @contextlib.contextmanager
    def _tuple_connection(self) -> Iterator:
        """A connection of the pool answering tuples (the ownership's directory reads)."""
        with self.store.pool.connection() as conn:
            conn.row_factory = tuple_row
            yield conn

    def spec(self) -> ServiceSpec:
        """The service to host on a server."""
        return ServiceSpec(
            SERVICE_NAME,
            matchmaking_pb2_grpc.add_MatchmakingServiceServicer_to_server,
            self.servicer,
        )

    def close(self) -> None:
        """Stop the director and quick play's timers, close the channels and the pool."""
        self.director.stop()
        self.quick_play.close()
        self.table.close()
        self.ledger.close()
        self.store.close()


def main() -> None:
    """Run the matchmaking service until SIGTERM."""
    config = MatchmakingConfig.from_env()
    service = Matchmaking(config)
    try:
        serve(service.spec(), config.server)
    finally:
        service.close()


def run() -> None:
    """``python -m hebei.matchmaking``: main with one-line configuration errors."""
    run_main("hebei-matchmaking", main)
