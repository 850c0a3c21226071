"""The entry addresses of a routed service, from one comma-separated setting
(``HEBEI_..._ADDRESS=table-0:50051,table-1:50051``): each ``host:port`` checked, with a clear
``ValueError`` naming the bad item."""

from __future__ import annotations

__all__ = ["parse_addresses"]

MAX_ADDRESSES = 64
MAX_HOST_LENGTH = 253  # a DNS name's limit


def _check_host(host: str, item: str) -> None:
    if host.startswith("["):  # an IPv6 literal: [::1]
        if not host.endswith("]") or len(host) < 3:
            raise ValueError(f"address {item!r}: an IPv6 host is written [addr]:port")
        return
    if not host:
        raise ValueError(f"address {item!r} has no host: write host:port")
    if len(host) > MAX_HOST_LENGTH:
        raise ValueError(f"address {item!r}: the host is longer than {MAX_HOST_LENGTH} characters")
    if ":" in host:
        raise ValueError(f"address {item!r}: an IPv6 host is written [addr]:port")
    if not host.isascii() or not all(c.isalnum() or c in "-._" for c in host):
        raise ValueError(f"address {item!r}: the host may hold letters, digits, '-', '.', '_'")


def _check_port(port: str, item: str) -> None:
    if not port.isascii() or not port.isdigit():
        raise ValueError(f"address {item!r} needs a numeric port: write host:port")
    if not 1 <= int(port) <= 65535:
        raise ValueError(f"address {item!r}: the port must be 1-65535")


def parse_addresses(setting: str) -> tuple[str, ...]:
    """The ``host:port`` addresses of ``setting`` ("a:1,b:2"; spaces around items are ignored),
    in order; ValueError for an empty setting, an empty item ("a:1,,b:2"), a bad host or port,
    an address given twice, or more than :data:`MAX_ADDRESSES`."""
    if not isinstance(setting, str):
        raise ValueError(f"addresses must be a string like 'host:port,host:port', got {setting!r}")
    if not setting.strip():
        raise ValueError("no address given: write host:port[,host:port...]")
    addresses: list[str] = []
    for position, raw in enumerate(setting.split(","), start=1):
        item = raw.strip()
        if not item:
            raise ValueError(f"address {position} of {setting!r} is empty")
        host, colon, port = item.rpartition(":")
        if not colon:
            raise ValueError(f"address {item!r} has no port: write host:port")
        _check_host(host, item)
        _check_port(port, item)
        if item in addresses:
            raise ValueError(f"address {item!r} is given twice")
        addresses.append(item)
    if len(addresses) > MAX_ADDRESSES:
        raise ValueError(f"at most {MAX_ADDRESSES} addresses, got {len(addresses)}")
    return tuple(addresses)
