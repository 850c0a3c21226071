"""How bounds per client address tell clients apart (an IPv6 client by its /64); FailureLimit:
how many wrong guesses one client address may make in a window; RecentResults: one read
answering many for a while."""

from __future__ import annotations

import pytest

from hebei.common.errors import ResourceExhausted
from hebei.common.quota import FailureLimit, RecentResults, client_key, peer_host


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


def test_a_result_is_kept_for_its_seconds_counted_from_when_its_read_began() -> None:
    clock = Clock()
    kept = RecentResults(2.0, clock=clock)
    reads: list[str] = []

    def read(value: str, takes: float = 0.0):
        def work_out() -> str:
            reads.append(value)
            clock.now += takes
            return value

        return work_out

    assert kept.get("a", read("a1", takes=0.5)) == "a1"
    assert kept.get("a", read("a2")) == "a1"  # 0.5 s after its read began
    clock.now += 1.49
    assert kept.get("a", read("a3")) == "a1"
    clock.now += 0.01  # 2 s after the read began
    assert kept.get("a", read("a4")) == "a4"
    assert kept.get("b", read("b1")) == "b1"  # another key: its own read
    assert reads == ["a1", "a4", "b1"]


def test_a_failed_read_is_not_kept_and_nothing_is_kept_at_zero_seconds() -> None:
    clock = Clock()
    kept = RecentResults(2.0, clock=clock)

    def fail() -> str:
        raise LookupError("no such tournament")

    with pytest.raises(LookupError):
        kept.get("a", fail)
    assert kept.get("a", lambda: "a1") == "a1"
    never = RecentResults(0.0, clock=clock)
    assert [never.get("a", lambda n=n: n) for n in range(3)] == [0, 1, 2]


def test_at_most_max_keys_are_kept_the_least_recently_used_forgotten() -> None:
    kept = RecentResults(60.0, max_keys=2, clock=Clock())
    kept.get("a", lambda: 1)
    kept.get("b", lambda: 2)
    assert kept.get("a", lambda: 99) == 1  # "a" used again: "b" is now the least recent
    kept.get("c", lambda: 3)
    assert kept.get("a", lambda: 99) == 1
    assert kept.get("b", lambda: 22) == 22
