"""Token buckets, the one rate mechanism of the gateway: per client address for its POSTs
(:class:`hebei.web.app.RateLimiter`), per seat session for hints (:mod:`hebei.web.advice`);
and who the client is behind a trusted reverse proxy (:class:`TrustedProxies`), the address
every per-address bound of the gateway counts."""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Mapping


class Bucket:
    """A token bucket: ``rate`` a second sustained, ``burst`` at once."""

    def __init__(self, rate: float, burst: float, clock: Callable[[], float]) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self.tokens, self.at = burst, clock()

    def take(self) -> float:
        """Take one token: 0.0, or the seconds until one is there (nothing taken)."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1:
            return (1 - self.tokens) / self.rate
        self.tokens -= 1
        return 0.0


class TrustedProxies:
    """The reverse proxies (``HEBEI_WEB_TRUSTED_PROXIES``: CIDRs) whose forwarding headers the
    gateway believes. A request from one of them is counted by the client its
    ``X-Forwarded-For`` (or, without it, ``Forwarded: for=``) names: the rightmost address that
    is not itself a trusted proxy, so a client that writes its own header gains nothing (the
    proxy appends the address it saw). A request from any other peer is counted by the peer's
    own address, whatever headers it sends."""

    def __init__(self, networks: tuple[str, ...] = ()) -> None:
        self.networks = tuple(ipaddress.ip_network(n, strict=False) for n in networks)

    def trusts(self, host: str) -> bool:
        """Whether ``host`` (an address) is one of the trusted proxies."""
        address = _address(host)
        return address is not None and any(
            address.version == n.version and address in n for n in self.networks
        )

    def client(self, peer: str, headers: Mapping[str, str]) -> str:
        """The client address of a request that came from ``peer`` with ``headers`` (lower-case
        names), before :func:`~hebei.common.quota.client_key`."""
        if not self.networks or not self.trusts(peer):
            return peer
        hops = _forwarded_for(headers)
        for hop in reversed(hops):
            if _address(hop) is None:
                return peer  # a hop we cannot read: count the proxy rather than guess
            if not self.trusts(hop):
                return hop
        return hops[0] if hops else peer


def parse_networks(raw: str) -> tuple[str, ...]:
    """``10.0.0.0/8, 2001:db8::/32, 127.0.0.1`` as networks (ValueError names a bad one)."""
    found = []
    for item in raw.split(","):
        item = item.strip()
        if item:
            found.append(str(ipaddress.ip_network(item, strict=False)))
    return tuple(found)


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        address = ipaddress.ip_address(host.strip().strip("[]").split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _forwarded_for(headers: Mapping[str, str]) -> list[str]:
    """The hops of ``X-Forwarded-For``, else of ``Forwarded``'s ``for=`` (nearest last)."""
    xff = headers.get("x-forwarded-for")
    if xff:
        return [hop.strip() for hop in xff.split(",") if hop.strip()]
    hops = []
    for element in (headers.get("forwarded") or "").split(","):
        for pair in element.split(";"):
            key, _, value = pair.strip().partition("=")
            if key.strip().lower() == "for":
                value = value.strip().strip('"')
                if value.startswith("["):  # [2001:db8::1]:port
                    value = value[1 : value.find("]")] if "]" in value else value[1:]
                elif value.count(":") == 1:  # 192.0.2.1:port
                    value = value.split(":", 1)[0]
                hops.append(value)
    return hops
