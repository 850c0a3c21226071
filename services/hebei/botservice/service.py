"""The bot service's main: configuration from the environment, warm tables, serve.

``python -m hebei.botservice`` or ``hebei botservice serve``. Besides the bootstrap's settings
(``HEBEI_BOTSERVICE_PORT`` default 50054, ``HEBEI_BOTSERVICE_METRICS_PORT`` default 9104,
``HEBEI_OPERATOR_TOKEN``, ...):

- ``HEBEI_BOTSERVICE_TABLE_ADDRESS`` (optional): the table engine's replicas, host:port or a
  comma-separated list, whose finished matches Review reads by match id (GetMatch and
  Spectate, both public: see the service token below), at each match's owner; unset, Review
  takes
  logs only. The channel uses the client TLS settings (``HEBEI_TLS_CA``, ...);
- ``HEBEI_BOTSERVICE_TABLE_TIMEOUT_SECONDS`` (default 10): how long a read of the engine may
  take;
- ``HEBEI_BOTSERVICE_MAX_REVIEWS`` (default 4, 1-1,000) and
  ``HEBEI_BOTSERVICE_MAX_REVIEWS_PER_PEER`` (default 1, 1-1,000): anonymous Review calls
  running at once, in all and from one client address; more are RESOURCE_EXHAUSTED at once.
  ``HEBEI_BOTSERVICE_MAX_SERVICE_REVIEWS`` (default 2, 1-1,000): Review calls carrying a
  service (or the operator's) token, a pool of their own — the web gateway's review page
  (``HEBEI_WEB_SERVICE_TOKEN`` or the shared ``HEBEI_SERVICE_TOKEN``; it makes at most half its
  ``HEBEI_WEB_MAX_ADVICE_CALLS`` of reviews at once) — so no anonymous crowd takes it. A
  review of a 64-hand match costs about half a second of CPU, and the GIL shares the
  process's one core among the calls running: without a bound 32 Reviews from one address
  made another client's Suggest wait 13-16 s; with 4 in all, about 320 ms.
- The service token (``HEBEI_BOTSERVICE_SERVICE_TOKEN``, else the shared
  ``HEBEI_SERVICE_TOKEN`` that ``hebei up`` and the deployments pass) goes with the Spectate
  reads of a review by match id, after an anonymous GetMatch showed the match's results are not
  hidden: the engine's service pool, which no crowd of spectators takes.

Every RPC is public and the service keeps no state: run as many replicas as the load needs.
"""

from __future__ import annotations

from hebei.bots.player import warm_policies
from hebei.botservice.servicer import (
    MAX_REVIEWS,
    MAX_REVIEWS_PER_PEER,
    MAX_SERVICE_REVIEWS,
    SERVICE_NAME,
    BotServicer,
)
from hebei.common.config import ConfigError, EnvReader, ServerConfig
from hebei.common.routing import MatchRouter
from hebei.common.server import ServiceSpec, run_service
from hebei.seatclient.match_feed import TableFeed
from hebei.v1 import bot_pb2_grpc

__all__ = ["build", "build_servicer", "main"]

WARM_HANDS = 8  # self-play at start: the shanten tables filled as a worker has them


def build_servicer(config: ServerConfig) -> BotServicer:
    """The servicer, with a table engine reader when one is configured."""
    read = EnvReader(config.service)
    address = read.optional_text("TABLE_ADDRESS")
    timeout = read.number("TABLE_TIMEOUT_SECONDS", 10.0, lo=0.1, hi=600)
    max_reviews = read.integer("MAX_REVIEWS", MAX_REVIEWS, lo=1, hi=1000)
    per_peer = read.integer("MAX_REVIEWS_PER_PEER", MAX_REVIEWS_PER_PEER, lo=1, hi=1000)
    services = read.integer("MAX_SERVICE_REVIEWS", MAX_SERVICE_REVIEWS, lo=1, hi=1000)
    feed = None
    if address:
        try:
            router = MatchRouter(address, tls=config.client_tls, timeout=timeout)
        except ValueError as error:
            raise ConfigError(f"{read.prefix}TABLE_ADDRESS: {error}") from None
        feed = TableFeed(router, timeout, service_token=config.service_token)
    return BotServicer(
        feed, max_reviews=max_reviews, max_reviews_per_peer=per_peer, max_service_reviews=services
    )


def build(config: ServerConfig) -> ServiceSpec:
    """Read the bot service's settings, warm the policies, and return the service to host."""
    servicer = build_servicer(config)
    warm_policies(0, WARM_HANDS)
    return ServiceSpec(SERVICE_NAME, bot_pb2_grpc.add_BotServiceServicer_to_server, servicer)


def main() -> None:
    """Run the bot service until SIGTERM."""
    run_service("botservice", build)
