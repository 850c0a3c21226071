"""The ledger service's main: configuration from the environment, migrations, serve.

``python -m hebei.ledger`` or ``hebei ledger serve``. Besides the bootstrap's settings
(``HEBEI_LEDGER_PORT``, ``HEBEI_LEDGER_METRICS_PORT``, ``HEBEI_OPERATOR_TOKEN``, ...):

- ``HEBEI_LEDGER_DATABASE_URL`` or ``HEBEI_DATABASE_URL``: PostgreSQL; when neither is set an
  embedded PostgreSQL is started with its data under ``.hebei/`` (see hebei.common.embedded);
- ``HEBEI_LEDGER_SCHEMA`` (default ``ledger``): the schema the ledger owns;
- ``HEBEI_LEDGER_POOL_SIZE`` (default 10) and ``HEBEI_LEDGER_POOL_TIMEOUT_SECONDS`` (default
  5): connections, and how long a call waits for one before failing UNAVAILABLE;
- ``HEBEI_LEDGER_MAX_READS`` (default 4, 1 to POOL_SIZE - 1) and
  ``HEBEI_LEDGER_MAX_READS_PER_PEER`` (default 2, 1-500): public reads (GetStandings,
  GetHistory, Audit) without a token running at once, in all and from one client address;
  more are RESOURCE_EXHAUSTED at once. Each holds a connection, so the rest of the pool is
  always left to the bookings: without the bound 16 anonymous Audits of a 200,000-entry
  journal took the whole pool and the table engine's PostSettlement waited 5-8 s or failed
  UNAVAILABLE. Calls with a token (matchmaking's standings) are not counted.
- ``HEBEI_LEDGER_READ_SECONDS`` (default 10, 0.1-600): how long such an anonymous read may run;
  its statements are then cancelled and the call is RESOURCE_EXHAUSTED (ask for less, or call
  with a token), so a whole-ledger Audit of a large journal cannot hold a connection for
  minutes. Calls with a token (the audit CronJob's) have no limit.
"""

from __future__ import annotations

from hebei.common import embedded
from hebei.common.config import ConfigError, EnvReader, ServerConfig
from hebei.common.db import opening, validate_schema_name
from hebei.common.server import ServiceSpec, run_service
from hebei.ledger.journal import Ledger
from hebei.ledger.servicer import (
    MAX_READS,
    MAX_READS_PER_PEER,
    READ_SECONDS,
    SERVICE_NAME,
    LedgerServicer,
)
from hebei.v1 import ledger_pb2_grpc

__all__ = ["build", "main"]


def build(config: ServerConfig) -> ServiceSpec:
    """Read the ledger's settings, migrate its schema, and return the service to host."""
    read = EnvReader(config.service)
    schema = read.text("SCHEMA", "ledger")
    try:
        validate_schema_name(schema)
    except ValueError as error:
        raise ConfigError(f"{read.prefix}SCHEMA: {error}") from None
    pool_size = read.integer("POOL_SIZE", 10, lo=1, hi=500)
    pool_timeout = read.number("POOL_TIMEOUT_SECONDS", 5.0, lo=0.1, hi=600)
    below_pool = max(1, pool_size - 1)
    max_reads = read.integer("MAX_READS", min(MAX_READS, below_pool), lo=1, hi=below_pool)
    reads_per_peer = read.integer("MAX_READS_PER_PEER", MAX_READS_PER_PEER, lo=1, hi=500)
    read_seconds = read.number("READ_SECONDS", READ_SECONDS, lo=0.1, hi=600)
    url = read.optional_text("DATABASE_URL", shared=True) or embedded.database_url()
    with opening("the ledger database"):
        ledger = Ledger.open(
            url, schema, min_size=min(2, pool_size), max_size=pool_size, timeout=pool_timeout
        )
    servicer = LedgerServicer(
        ledger,
        max_reads=max_reads,
        max_reads_per_peer=reads_per_peer,
        read_seconds=read_seconds,
    )
    return ServiceSpec(SERVICE_NAME, ledger_pb2_grpc.add_LedgerServiceServicer_to_server, servicer)


def main() -> None:
    """Run the ledger service until SIGTERM."""
    run_service("ledger", build)
