"""How bounds per client address tell clients apart (an IPv6 client by its /64), and
FailureLimit: how many wrong guesses one client address may make in a window."""

from __future__ import annotations

import pytest

from hebei.common.errors import ResourceExhausted
from hebei.common.quota import FailureLimit, client_key, peer_host


@pytest.mark.parametrize(
    ("peer", "client"),
    [
        ("ipv4:10.0.0.7:5123", "10.0.0.7"),
        ("ipv4:127.0.0.1:1", "127.0.0.1"),
        ("ipv6:[2001:db8:1:2:aaaa::7]:5123", "2001:db8:1:2::/64"),
        ("ipv6:[2001:db8:1:2:ffff:ffff:ffff:ffff]:9", "2001:db8:1:2::/64"),
        ("ipv6:[2001:db8:1:3::7]:5123", "2001:db8:1:3::/64"),
        ("ipv6:[::1]:5123", "::/64"),
        ("ipv6:[::ffff:10.0.0.7]:5123", "10.0.0.7"),
        ("ipv6:[fe80::1%eth0]:5123", "fe80::/64"),
        ("unix:/tmp/socket", "unix:/tmp/socket"),
        ("ipv4:not-an-address:1", "not-an-address"),
    ],
)
def test_a_peer_is_counted_as_its_client(peer: str, client: str) -> None:
    assert peer_host(peer) == client


def test_the_web_gateway_s_hosts_are_counted_the_same_way() -> None:
    assert client_key("2001:db8::1") == client_key("2001:db8::ffff") == "2001:db8::/64"
    assert client_key("192.0.2.1") == "192.0.2.1"
    assert client_key("unknown") == "unknown"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _limit(clock: Clock, **options: int) -> FailureLimit:
    return FailureLimit("wrong codes", 3, 60.0, clock=clock, **options)


def test_the_limit_refuses_once_reached_and_frees_as_the_oldest_leaves_the_window() -> None:
    clock = Clock()
    limit = _limit(clock)
    for at in (0, 10, 20):  # failures at 0, 10 and 20 s; now it is 30 s
        clock.now = 1000.0 + at
        limit.check("ipv4:10.0.0.1")
        limit.failed("ipv4:10.0.0.1")
    clock.now = 1030.0
    with pytest.raises(
        ResourceExhausted,
        match=r"^3 wrong codes from this client address in 60 s; try again in 30 s$",
    ):
        limit.check("ipv4:10.0.0.1")
    limit.check("ipv4:10.0.0.2")  # another address is not touched
    clock.now += 29.5
    with pytest.raises(ResourceExhausted, match="try again in 1 s"):
        limit.check("ipv4:10.0.0.1")
    clock.now += 0.5  # the first failure (at 0 s) is now 60 s old: two remain
    limit.check("ipv4:10.0.0.1")
    limit.failed("ipv4:10.0.0.1")
    with pytest.raises(ResourceExhausted):
        limit.check("ipv4:10.0.0.1")


@pytest.mark.parametrize("peers", [1, 2, 50])
def test_memory_is_bounded_forgetting_the_least_recent_address_first(peers: int) -> None:
    clock = Clock()
    limit = _limit(clock, max_peers=peers)
    for _ in range(3):
        limit.failed("ipv4:10.0.0.1")
    for n in range(peers - 1):
        limit.failed(f"ipv4:10.0.1.{n}")
    with pytest.raises(ResourceExhausted):  # still remembered: exactly max_peers addresses
        limit.check("ipv4:10.0.0.1")
    limit.failed("ipv4:10.0.2.1")  # one more address: the least recent is forgotten
    limit.check("ipv4:10.0.0.1")
    assert len(limit._failures) == peers
