"""``python -m hebei.common.healthcheck [TARGET]``: exit 0 when the server answers healthy.

Meant for container HEALTHCHECKs (``deploy/Dockerfile``, ``deploy/docker-compose.yml``) and
scripts; Kubernetes uses its native gRPC probes instead. TARGET is one of:

- ``host:port``: a grpc.health.v1 ``Check`` of the whole server (service ``""``, or
  ``--service NAME``) must answer SERVING;
- ``http://host:port/path``: an HTTP GET must answer 200 (the bot worker serves no gRPC: its
  ``/metrics`` is served once the worker is ready);
- nothing: ``$HEBEI_HEALTHCHECK`` when set, else each service's gRPC port on 127.0.0.1
  (``HEBEI_<SERVICE>_PORT`` or its default, see ``hebei.common.config.DEFAULT_PORTS``): the
  one that listens must answer SERVING. One image runs every service, so its HEALTHCHECK
  needs no argument.

Exit status 0 healthy, 1 not (one line on stderr says why), 2 bad usage. Plaintext only: a
server with TLS is checked by the orchestrator's own probe.
"""

from __future__ import annotations

import argparse
import os
import sys
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from hebei.common.config import DEFAULT_PORTS, ConfigError, EnvReader

ENV = "HEBEI_HEALTHCHECK"
SERVING = health_pb2.HealthCheckResponse.SERVING


class Unhealthy(Exception):
    """The target answered, but not healthy, or did not answer; the message says which."""


class NotListening(Unhealthy):
    """Nothing listens at the target."""


def check_grpc(address: str, service: str = "", timeout: float = 3.0) -> None:
    """Raise Unhealthy unless ``address`` answers SERVING for ``service``."""
    with grpc.insecure_channel(address) as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=service), timeout=timeout
            )
        except grpc.RpcError as exc:
            code = exc.code()
            if code is grpc.StatusCode.UNAVAILABLE:
                raise NotListening(f"{address}: unavailable ({exc.details()})") from None
            raise Unhealthy(f"{address}: {code.name}: {exc.details()}") from None
    if reply.status != SERVING:
        name = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
        raise Unhealthy(f"{address}: {name}")


def check_http(url: str, timeout: float = 3.0) -> None:
    """Raise Unhealthy unless a GET of ``url`` answers 200."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            status = response.status
    except urllib.error.HTTPError as exc:
        raise Unhealthy(f"{url}: HTTP {exc.code}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise NotListening(f"{url}: {reason}") from None
    if status != 200:
        raise Unhealthy(f"{url}: HTTP {status}")


def local_addresses(env: Mapping[str, str] | None = None) -> list[str]:
    """Each service's gRPC address on 127.0.0.1, from its port variable or default."""
    addresses = []
    for service, (default_port, _metrics) in DEFAULT_PORTS.items():
        port = EnvReader(service, env).port("PORT", default_port)
        addresses.append(f"127.0.0.1:{port}")
    return addresses


def check(
    target: str | None,
    service: str = "",
    timeout: float = 3.0,
    env: Mapping[str, str] | None = None,
) -> str:
    """Check ``target`` (see the module doc); return what answered healthy, or raise."""
    env = os.environ if env is None else env
    target = target or env.get(ENV, "").strip() or None
    if target is not None:
        if target.startswith(("http://", "https://")):
            check_http(target, timeout)
        elif ":" in target:
            check_grpc(target, service, timeout)
        else:
            raise ValueError(f"the target must be host:port or an http:// URL, got {target!r}")
        return target
    for address in local_addresses(env):
        try:
            check_grpc(address, service, timeout)
        except NotListening:
            continue
        return address
    raise Unhealthy(
        "no hebei service listens on 127.0.0.1 (" + ", ".join(local_addresses(env)) + ")"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m hebei.common.healthcheck",
        description="Exit 0 when a hebei server answers healthy (grpc.health.v1 or HTTP 200).",
    )
    parser.add_argument("target", nargs="?", help="host:port, http://host:port/path, or none")
    parser.add_argument("--service", default="", help="health service name (default: overall)")
    parser.add_argument("--timeout", type=float, default=3.0, help="seconds (default 3)")
    args = parser.parse_args(argv)
    if args.timeout <= 0:
        parser.error("--timeout must be positive")
    try:
        check(args.target, args.service, args.timeout)
    except (ValueError, ConfigError) as exc:
        print(f"healthcheck: {exc}", file=sys.stderr)
        return 2
    except Unhealthy as exc:
        print(f"healthcheck: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
