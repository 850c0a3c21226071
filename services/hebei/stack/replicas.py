"""The replicas of the local stack (issue 46): which gRPC processes ``hebei up`` runs for each
service, their names and replica ids, and the address of its peers each one is given.

The table engine and matchmaking may run as several replicas (``table_replicas``,
``matchmaking_replicas``: 1-:data:`MAX_REPLICAS` each); the ledger and the bot service run
once. Replica ``i`` (from 0, as a Kubernetes StatefulSet counts) of a service has the replica
id ``<service>-<i>`` (``table-0``, ``table-1``, ...); its process is named ``<service>`` while
the service runs once (so a one-replica stack looks as it always did) and ``<service>-<i>``
otherwise.

What each client is given (:func:`peer_address`):

- the table engine: the comma-separated list of every engine replica (``a:1,b:2``): each
  client routes a match's calls to its owner with :mod:`hebei.common.routing`, and any entry
  answers with the owner's address;
- matchmaking: one replica's address (:data:`LISTED` says which services' clients take a
  list), spread over the replicas (client ``i`` of a kind gets
  replica ``i mod M``). Its clients here (the engine's result reports, the web gateway) read
  one ``host:port``, and any replica takes a report: a result is written to the shared
  database (``ReportMatchResult`` is idempotent by match), where the replica that drives the
  tournament finds it. A replica that dies is started again on its ports (the stack's
  supervision), and the engine's outbox keeps a report until it is taken.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

__all__ = [
    "MAX_REPLICAS",
    "REPLICATED",
    "ServiceProcess",
    "check_replicas",
    "client_addresses",
    "peer_address",
    "replica_settings",
    "service_processes",
]

MAX_REPLICAS = 8
REPLICATED = ("table", "matchmaking")  # the services that may run as several replicas
# The services whose clients take the comma-separated list of every replica (and route over
# it); a client of another service is given one replica's address.
LISTED = ("table",)


def check_replicas(table_replicas: int, matchmaking_replicas: int) -> None:
    """ValueError (one line) unless both counts are 1-:data:`MAX_REPLICAS`."""
    if not (1 <= table_replicas <= MAX_REPLICAS and 1 <= matchmaking_replicas <= MAX_REPLICAS):
        raise ValueError(
            f"--table-replicas and --matchmaking-replicas must be 1-{MAX_REPLICAS}, got"
            f" {table_replicas} and {matchmaking_replicas}"
        )


@dataclass(frozen=True, slots=True)
class ServiceProcess:
    """One gRPC process of the stack: a service, or one replica of a replicated one."""

    service: str  # "table"
    name: str  # "table" (the only replica) or "table-1"
    index: int  # the replica's number, from 0
    count: int  # the service's replicas

    @property
    def replica_id(self) -> str:
        """``<service>-<index>`` (``HEBEI_TABLE_REPLICA_ID``, ``HEBEI_MATCHMAKING_REPLICA_ID``)."""
        return f"{self.service}-{self.index}"

    def label(self, service_label: str) -> str:
        """``the table engine``, or ``the table engine table-1`` for one of several."""
        return service_label if self.count == 1 else f"{service_label} {self.replica_id}"


def service_processes(services: Iterable[str], replicas: Mapping[str, int]) -> list[ServiceProcess]:
    """The processes of ``services`` (in order), ``replicas[service]`` of each (default 1)."""
    out = []
    for service in services:
        count = replicas.get(service, 1) if service in REPLICATED else 1
        for index in range(count):
            name = service if count == 1 else f"{service}-{index}"
            out.append(ServiceProcess(service, name, index, count))
    return out


def client_addresses(
    processes: Iterable[ServiceProcess], addresses: Mapping[str, str]
) -> dict[str, str]:
    """Each service's address as a client of this stack (``hebei play``, ``hebei tournament``
    through the stack file) is given it (:func:`peer_address` of client 0); ``addresses``:
    process name -> ``host:port``."""
    processes = list(processes)
    services = dict.fromkeys(p.service for p in processes if p.name in addresses)
    return {service: peer_address(service, processes, addresses) or "" for service in services}


def peer_address(
    peer: str,
    processes: Iterable[ServiceProcess],
    addresses: Mapping[str, str],
    client_index: int = 0,
) -> str | None:
    """The address of ``peer`` given to the client numbered ``client_index`` of its kind (see
    the module doc): every engine replica for the table engine, one replica (``client_index``
    mod their count) otherwise; None when the stack runs no ``peer``."""
    found = [addresses[p.name] for p in processes if p.service == peer and p.name in addresses]
    if not found:
        return None
    if peer in LISTED:
        return ",".join(found)
    return found[client_index % len(found)]


def replica_settings(process: ServiceProcess, address: str) -> dict[str, str]:
    """A replicated service's own settings: its replica id and the address it advertises
    (the one other replicas and redirected clients reach it at)."""
    if process.service not in REPLICATED:
        return {}
    prefix = f"HEBEI_{process.service.upper()}_"
    return {prefix + "REPLICA_ID": process.replica_id, prefix + "ADVERTISE_ADDRESS": address}
