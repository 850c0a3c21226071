"""Who the client is behind ``HEBEI_WEB_TRUSTED_PROXIES`` (no server needed: the rules the
gateway's ``ClientAddress`` and connection guard apply)."""

from __future__ import annotations

import pytest

from hebei.common.config import ConfigError
from hebei.web.config import WebConfig
from hebei.web.limits import TrustedProxies
from hebei.web.server import ConnectionGuard

PROXIES = TrustedProxies(("10.0.0.0/8", "2001:db8:1::/48"))


@pytest.mark.parametrize(
    ("peer", "headers", "client"),
    [
        ("10.1.2.3", {"x-forwarded-for": "203.0.113.9"}, "203.0.113.9"),
        # the rightmost hop that is not a proxy: what a client wrote itself is to its left
        ("10.1.2.3", {"x-forwarded-for": "198.51.100.1, 203.0.113.9, 10.9.9.9"}, "203.0.113.9"),
        ("10.1.2.3", {"forwarded": 'for="[2001:db8:2::5]:4711";proto=https'}, "2001:db8:2::5"),
        ("10.1.2.3", {"forwarded": "for=192.0.2.60:80, for=10.0.0.2"}, "192.0.2.60"),
        ("10.1.2.3", {}, "10.1.2.3"),  # no header: the proxy itself
        ("10.1.2.3", {"x-forwarded-for": "unknown"}, "10.1.2.3"),  # unreadable: no guess
        ("10.1.2.3", {"x-forwarded-for": "10.4.4.4, 10.5.5.5"}, "10.4.4.4"),  # proxies only
        ("2001:db8:1::7", {"x-forwarded-for": "203.0.113.10"}, "203.0.113.10"),
        ("::ffff:10.1.2.3", {"x-forwarded-for": "203.0.113.11"}, "203.0.113.11"),
        # not a trusted proxy: its headers are not believed
        ("192.0.2.1", {"x-forwarded-for": "203.0.113.9"}, "192.0.2.1"),
        ("11.0.0.1", {"forwarded": "for=203.0.113.9"}, "11.0.0.1"),
    ],
)
def test_the_client_a_request_stands_for(peer: str, headers: dict[str, str], client: str) -> None:
    assert PROXIES.client(peer, headers) == client


def test_without_proxies_every_header_is_ignored() -> None:
    assert TrustedProxies().client("10.1.2.3", {"x-forwarded-for": "203.0.113.9"}) == "10.1.2.3"


def test_the_setting_is_read_and_checked() -> None:
    env = {
        "HEBEI_WEB_TABLE_ADDRESS": "t:1",
        "HEBEI_WEB_MATCHMAKING_ADDRESS": "m:2",
        "HEBEI_WEB_TRUSTED_PROXIES": " 10.0.0.0/8, 192.168.1.7 ,2001:db8::/32",
        "HEBEI_SERVICE_TOKEN": "shared-service-token",
    }
    config = WebConfig.from_env(env)
    assert config.trusted_proxies == ("10.0.0.0/8", "192.168.1.7/32", "2001:db8::/32")
    assert config.service_token == "shared-service-token"
    own = WebConfig.from_env({**env, "HEBEI_WEB_SERVICE_TOKEN": "the-gateways-own"})
    assert own.service_token == "the-gateways-own"
    with pytest.raises(ConfigError, match="HEBEI_WEB_TRUSTED_PROXIES"):
        WebConfig.from_env({**env, "HEBEI_WEB_TRUSTED_PROXIES": "10.0.0.0/33"})


def test_a_trusted_proxys_connections_are_bounded_by_the_total_only() -> None:
    guard = ConnectionGuard(2, 5, 10.0, TrustedProxies(("10.0.0.1",)))
    assert [guard.admit("10.0.0.1") for _ in range(5)] == [None] * 5
    assert guard.admit("10.0.0.1") is not None  # the total still holds
    assert [guard.admit("192.0.2.1") is None for _ in range(2)] == [False, False]
