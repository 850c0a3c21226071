"""Who a replica is, by default: its id and the address it is reached at.

An id must be unique among a service's live replicas and the same after a restart (a pod of a
StatefulSet keeps its name; a process of ``hebei up`` keeps its port), so the default is
``<service>-<host name>-<port>``; with port 0 (any free port) a random suffix instead, so two
such replicas never share one.
"""

from __future__ import annotations

import re
import socket
import uuid

WILDCARDS = ("", "0.0.0.0", "::", "[::]")  # listen hosts that name no one address
MAX_HOST_NAME = 120  # characters of the host name kept in an id


def default_replica_id(service: str, port: int, host_name: str | None = None) -> str:
    """``<service>-<host name>-<port>``, or a random suffix instead of port 0."""
    name = re.sub(r"[^A-Za-z0-9._-]", "-", host_name or socket.gethostname())[:MAX_HOST_NAME]
    suffix = str(port) if port else f"0-{uuid.uuid4().hex[:8]}"
    return f"{service}-{name or 'host'}-{suffix}"


def default_address(listen_host: str, port: int, host_name: str | None = None) -> str:
    """The listen host and port; the host name instead of a wildcard host; IPv6 bracketed."""
    host = listen_host
    if host in WILDCARDS:
        host = host_name or socket.gethostname()
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"{host}:{port}"
