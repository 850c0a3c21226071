"""The gateway's shared pools, second round (an attacker's findings against ``hebei up``):

- seats count once the engine accepted their token: junk tokens are refused at once and hold
  nothing; a seat left frees its place at once;
- behind a trusted proxy every bound counts the client the proxy names (and only then);
- a seat's own stream never competes with spectators; a closed stream frees its slot at once;
- a table feed nobody reads gives its place to the next table; one address alone holds only
  its share of the feeds;
- every state-changing request comes from the gateway's own pages, as JSON.

Clients come from many loopback addresses (127.0.0.x: the gateway listens on 127.0.0.1)."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import grpc
import httpx
import pytest

from hebei.stack.processes import Stack
from hebei.v1 import table_pb2, table_pb2_grpc
from hebei.web import sse as web_sse
from tests.integration.table.helpers import wait_for
from tests.integration.web.harness import SseReader, gateway


@contextlib.contextmanager
def client_at(url: str, host: str, **headers: str) -> Iterator[httpx.Client]:
    """An HTTP client whose connections come from the loopback address ``host``."""
    transport = httpx.HTTPTransport(local_address=host)
    with httpx.Client(
        base_url=url.rstrip("/"), transport=transport, timeout=60, headers=headers
    ) as http:
        yield http


def quick_play(http: httpx.Client) -> dict[str, Any]:
    reply = http.post("/api/quickplay", json={"name": "Mei", "policy": "efficiency", "hands": 4})
    assert reply.status_code == 201, reply.text
    return reply.json()


def stream(url: str, host: str, path: str, **headers: str) -> SseReader:
    """An SSE stream of ``path`` from ``host`` (its own connection), once answered."""
    transport = httpx.HTTPTransport(local_address=host)
    http = httpx.Client(base_url=url.rstrip("/"), transport=transport, timeout=None)
    reader = SseReader(http, path, headers=headers)
    threading.Thread(target=reader._run, daemon=True).start()
    assert wait_for(lambda: reader.status is not None or reader.done.is_set(), timeout=60)
    return reader


def health(url: str) -> dict[str, Any]:
    return httpx.get(url.rstrip("/") + "/api/health", timeout=30).json()


def test_junk_seat_tokens_are_refused_at_once_and_hold_no_seat(web_stack: Stack) -> None:
    with gateway(web_stack, max_sessions=2, max_joining=4, max_joining_per_client=1) as running:
        with client_at(running.url, "127.0.0.2") as first:
            seated = quick_play(first)
        junk = {
            "match_id": seated["match_id"],
            "seat": (seated["seat"] + 1) % 4,
            "seat_token": "junk-token-0123456789",
        }
        for n in range(16):
            with client_at(running.url, f"127.0.0.{10 + n}") as attacker:
                reply = attacker.post("/api/seats", json=junk)
                assert reply.status_code == 403, reply.text
        assert health(running.url)["seats_played"] == 1
        # A real person still gets the gateway's last seat.
        with client_at(running.url, "127.0.0.3") as person:
            quick_play(person)
        assert health(running.url)["seats_played"] == 2


def test_a_seat_left_frees_its_place_at_once(web_stack: Stack) -> None:
    with (
        gateway(web_stack, max_sessions_per_client=1) as running,
        client_at(running.url, "127.0.0.4") as person,
    ):
        seated = quick_play(person)
        again = person.post("/api/quickplay", json={"policy": "efficiency"})
        assert again.status_code == 429, again.text
        assert person.delete(f"/api/seats/{seated['key']}").status_code == 204
        quick_play(person)


def test_a_trusted_proxy_is_counted_by_its_clients_and_nobody_else_is(web_stack: Stack) -> None:
    with gateway(
        web_stack,
        trusted_proxies=("127.0.0.1/32",),
        max_streams_per_client=1,
        max_connections_per_client=2,
    ) as running:
        with client_at(running.url, "127.0.0.5") as someone:
            match = quick_play(someone)["match_id"]
        path = f"/api/tables/{match}/events"
        # Through the proxy: one stream for each client it names.
        first = stream(running.url, "127.0.0.1", path, **{"X-Forwarded-For": "203.0.113.1"})
        second = stream(running.url, "127.0.0.1", path, **{"X-Forwarded-For": "203.0.113.2"})
        # A client writing its own header gains nothing: the proxy appends what it saw.
        spoofed = stream(
            running.url, "127.0.0.1", path, **{"X-Forwarded-For": "198.51.100.7, 203.0.113.1"}
        )
        forwarded = stream(running.url, "127.0.0.1", path, Forwarded='for="203.0.113.2:4711"')
        assert (first.status, second.status) == (200, 200)
        assert (spoofed.status, forwarded.status) == (429, 429)
        # From a peer that is no trusted proxy the header is not believed.
        direct = stream(running.url, "127.0.0.6", path, **{"X-Forwarded-For": "203.0.113.3"})
        other = stream(running.url, "127.0.0.6", path, **{"X-Forwarded-For": "203.0.113.4"})
        assert (direct.status, other.status) == (200, 429)
        for reader in (first, second, spoofed, forwarded, direct, other):
            reader.close()
        # Connections: the proxy's many clients are bounded by the total only.
        where = urlsplit(running.url)
        address = (where.hostname or "127.0.0.1", where.port or 80)
        socks = [socket.create_connection(address, timeout=30) for _ in range(4)]
        try:
            for sock in socks:
                sock.sendall(b"GET /api/health HTTP/1.1\r\nhost: x\r\n\r\n")
            assert all(sock.recv(64).startswith(b"HTTP/1.1 200") for sock in socks)
        finally:
            for sock in socks:
                sock.close()


def test_a_seats_own_stream_never_competes_with_spectators(web_stack: Stack) -> None:
    with gateway(web_stack, max_streams=2, max_streams_per_client=1) as running:
        with client_at(running.url, "127.0.0.7") as person:
            seated = quick_play(person)
        path = f"/api/tables/{seated['match_id']}/events"
        crowd = [stream(running.url, f"127.0.0.{20 + n}", path) for n in range(3)]
        assert [r.status for r in crowd] == [200, 200, 429]
        own = stream(running.url, "127.0.0.7", f"/api/seats/{seated['key']}/events")
        assert own.status == 200
        own.wait_for(lambda m: m.event == "snapshot")
        for reader in (*crowd, own):
            reader.close()


def test_a_closed_stream_frees_its_slot_at_once(
    web_stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(web_sse, "KEEPALIVE_SECONDS", 3600.0)  # no keepalive finds it gone
    with gateway(web_stack, max_streams_per_client=1) as running:
        with client_at(running.url, "127.0.0.8") as person:
            match = quick_play(person)["match_id"]
        path = f"/api/tables/{match}/events"
        for _ in range(3):
            reader = stream(running.url, "127.0.0.9", path)
            assert reader.status == 200, reader.error
            reader.wait_for(lambda m: m.event == "snapshot")
            reader.close()
            assert wait_for(lambda: health(running.url)["streams_open"] == 0, timeout=120)


def test_an_unread_feed_gives_its_place_and_one_address_holds_its_share(
    web_stack: Stack,
) -> None:
    with gateway(web_stack, max_tables=2, max_tables_per_client=1) as running:
        matches = []
        for n in range(3):
            with client_at(running.url, f"127.0.1.{n + 1}") as person:
                matches.append(quick_play(person)["match_id"])
        paths = [f"/api/tables/{m}/events" for m in matches]
        mine = stream(running.url, "127.0.0.30", paths[0])
        assert mine.status == 200
        second = stream(running.url, "127.0.0.30", paths[1])
        assert second.status == 429 and "alone" in (second.error or "")
        shared = stream(running.url, "127.0.0.30", paths[0])  # a table it already reads
        theirs = stream(running.url, "127.0.0.31", paths[1])
        assert (shared.status, theirs.status) == (200, 200)
        for reader in (mine, shared, theirs, second):
            reader.close()
        assert wait_for(lambda: health(running.url)["streams_open"] == 0, timeout=120)
        # Both feeds are unread now: the next table takes the place of one at once.
        third = stream(running.url, "127.0.0.32", paths[2])
        assert third.status == 200, third.error
        third.wait_for(lambda m: m.event == "snapshot")
        third.close()


@pytest.mark.parametrize(
    ("headers", "content", "status"),
    [
        ({"content-type": "text/plain"}, b"", 415),
        ({}, b"", 415),
        ({"content-type": "application/json", "origin": "https://evil.example"}, b"{}", 403),
        ({"content-type": "application/json", "sec-fetch-site": "cross-site"}, b"{}", 403),
    ],
    ids=["text-plain-empty", "no-type-empty", "other-origin", "cross-site"],
)
def test_a_cross_site_post_changes_nothing(
    web: Any, headers: dict[str, str], content: bytes, status: int
) -> None:
    before = health(web.url)["seats_played"]
    with client_at(web.url, "127.0.0.40") as http:
        reply = http.post("/api/quickplay", content=content, headers=headers)
        assert reply.status_code == status, reply.text
        left = http.request(
            "DELETE", "/api/seats/whatever", headers={"origin": "https://evil.example"}
        )
        assert left.status_code == 403
    assert health(web.url)["seats_played"] == before


def test_a_seat_whose_match_ended_frees_its_place_at_once(web_stack: Stack) -> None:
    """A finished seat used to count for ``ended_keep_seconds`` (600 s): four matches in ten
    minutes locked a person out."""
    with (
        gateway(web_stack, max_sessions_per_client=1) as running,
        client_at(running.url, "127.0.0.41") as person,
    ):
        seated = quick_play(person)
        operator = {"authorization": f"Bearer {web_stack.operator_token}"}
        ended = person.post(
            f"/api/operator/tables/{seated['match_id']}/dissolve",
            json={"reason": "a test ends it"},
            headers=operator,
        )
        assert ended.status_code == 200, ended.text
        assert wait_for(lambda: health(running.url)["seats_played"] == 0, timeout=120)
        quick_play(person)  # the page still reads the old seat; it holds no place
        assert person.get(f"/api/seats/{seated['key']}").json()["ended"]


def test_the_gateways_feeds_take_the_engines_service_pool(web_stack: Stack) -> None:
    """With the service token the gateway's Spectate streams never compete with anonymous
    spectators: here those fill this address's whole share (the gateway's address too)."""
    channel = grpc.insecure_channel(web_stack.address("table"))
    stub = table_pb2_grpc.TableServiceStub(channel)
    crowd: list[Any] = []
    try:
        with (
            gateway(web_stack, service_token=web_stack.service_token) as running,
            client_at(running.url, "127.0.0.50") as person,
        ):
            match = quick_play(person)["match_id"]
            spectate = table_pb2.SpectateRequest(match_id=match, from_seq=1)

            def full() -> bool:
                call = stub.Spectate(spectate, timeout=30)
                try:
                    next(call)
                except grpc.RpcError as error:
                    return error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                crowd.append(call)  # it holds a slot: keep it
                return False

            assert wait_for(full, timeout=120, step=0)
            page = stream(running.url, "127.0.0.51", f"/api/tables/{match}/events")
            assert page.status == 200
            page.wait_for(lambda m: m.event == "snapshot")
            page.close()
    finally:
        for call in crowd:
            call.cancel()
        channel.close()
