"""A person's whole tournament through the gateway, by the registration's cookie (no browser):
register on the tournament's routes, then every round's seat is reached without retyping,
across a restart of the gateway; wrong cookies, other sites' requests and other bodies are
refused; no secret or seat token is ever in a URL or a state the page gets."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx

from hebei.web.people import COOKIE, Credentials
from tests.integration.web.harness import (
    SseReader,
    gateway,
    open_tournament,
    operator_stub,
    play_out,
    start_tournament,
)

ROUND_SECONDS = 240  # generous: a loaded machine (a round is 1 hand against bots)


def register(client: httpx.Client, tournament_id: str, name: str, **fields: Any) -> httpx.Response:
    return client.post(f"/api/tournaments/{tournament_id}/register", json={"name": name, **fields})


def cookie_header(reply: httpx.Response) -> dict[str, str]:
    """The cookie a browser would send back, as a header (SSE readers open their own
    connections)."""
    value = reply.cookies.get(COOKIE)
    assert value, reply.headers.get("set-cookie")
    return {"cookie": f"{COOKIE}={value}"}


def wait_me(reader: SseReader, predicate: Any, timeout: float = ROUND_SECONDS) -> dict[str, Any]:
    return reader.wait_for_state(lambda s: s.get("me") is not None and predicate(s), timeout)


def seat_events(base: str, seat: dict[str, Any]) -> str:
    """The seat's feed as the page opens it (``me.seat`` names the match and session)."""
    return f"{base}/me/seat/events?match={seat['match_id']}&session={seat['session']}"


def play_round(
    client: httpx.Client, base: str, cookie: dict[str, str], seat_named: dict[str, Any]
) -> dict[str, Any]:
    """The person plays their open table to its end, over the cookie's seat routes."""
    seat = SseReader(client, seat_events(base, seat_named), headers=cookie).start()
    try:
        seat.wait_for(lambda m: m.event == "snapshot", 60)
        final = play_out(client, seat, f"{base}/me/seat/commands", ROUND_SECONDS, **cookie)
        seat.wait_for(lambda m: m.event == "end", 60)
        return final
    finally:
        seat.close()


def test_a_person_plays_two_rounds_by_cookie_across_a_gateway_restart(web_stack) -> None:
    tournament_id = open_tournament(web_stack, bots=3, rounds=2, hands=1)
    base = f"/api/tournaments/{tournament_id}"
    with gateway(web_stack) as first, httpx.Client(base_url=first.url.rstrip("/")) as client:
        client.timeout = 30
        reply = register(client, tournament_id, "Lin")
        assert reply.status_code == 201, reply.text
        you = reply.json()
        assert you["name"] == "Lin" and you["player_secret"] and you["player_id"]
        # The cookie: HttpOnly (no script reads it), SameSite=Strict, for this tournament's
        # person routes only; not Secure over plain http.
        set_cookie = reply.headers["set-cookie"]
        parts = {p.strip().split("=")[0].lower(): p.strip() for p in set_cookie.split(";")}
        assert "httponly" in parts and parts["samesite"].lower() == "samesite=strict"
        assert parts["path"] == f"Path={base}/me" and "secure" not in parts
        cookie = cookie_header(reply)
        assert Credentials.decode(reply.cookies[COOKIE]) == Credentials(
            tournament_id, you["player_id"], you["player_secret"]
        )
        me = client.get(f"{base}/me", headers=cookie)
        assert me.status_code == 200 and me.json()["name"] == "Lin", me.text
        assert me.json()["seat"] is None

        start_tournament(web_stack, tournament_id)
        events = SseReader(client, f"{base}/me/events", headers=cookie).start()
        state = wait_me(events, lambda s: (s["me"]["seat"] or {}).get("match_id"))
        first_seat = state["me"]["seat"]
        assert state["me"]["player"]["status"] == "active"

        # The gateway restarts mid-round: the same cookie finds the same seat again.
        events.close()
    with gateway(web_stack) as second, httpx.Client(base_url=second.url.rstrip("/")) as client:
        client.timeout = 30
        assert client.get(f"{base}/me", headers=cookie).status_code == 200
        events = SseReader(client, f"{base}/me/events", headers=cookie).start()
        try:
            state = wait_me(events, lambda s: (s["me"]["seat"] or {}).get("match_id"))
            assert state["me"]["seat"]["match_id"] == first_seat["match_id"]
            # The seat's session is a new one: its old id is refused, not resumed.
            stale = client.get(seat_events(base, first_seat), headers=cookie)
            assert stale.status_code == 404, stale.text
            final = play_round(client, base, cookie, state["me"]["seat"])
            assert final["finished"] and final["viewer"] == first_seat["seat"]

            # Round 2: the gateway opens the next seat by itself.
            state = wait_me(
                events,
                lambda s: (
                    (s["me"]["seat"] or {}).get("match_id") not in (None, first_seat["match_id"])
                ),
            )
            second_seat = state["me"]["seat"]
            play_round(client, base, cookie, second_seat)

            state = wait_me(
                events,
                lambda s: s["tournament"]["status"] == "finished" and len(s["me"]["results"]) == 2,
            )
            results = state["me"]["results"]
            assert [r["round_no"] for r in results] == [1, 2]
            assert all(1 <= r["place"] <= 4 for r in results)
            assert state["me"]["rank"] in (1, 2, 3, 4)
            ranking = state["standings"]["ranking"]
            assert {r["status"] for r in ranking} == {"active"}
        finally:
            events.close()
        # Nothing the page got holds the secret or a seat token.
        text = json.dumps([m.data for m in events.messages])
        assert you["player_secret"] not in text and "seat_token" not in text


def test_wrong_cookies_and_other_sites_are_refused(client: httpx.Client, web_stack) -> None:
    tournament_id = open_tournament(web_stack, bots=3, rounds=1)
    base = f"/api/tournaments/{tournament_id}"
    reply = register(client, tournament_id, "Mei")
    assert reply.status_code == 201, reply.text
    you = reply.json()
    client.cookies.clear()

    # No cookie; a cookie of another tournament; garbage.
    assert client.get(f"{base}/me").status_code == 401
    other = Credentials("another-cup", you["player_id"], you["player_secret"]).encode()
    assert client.get(f"{base}/me", headers={"cookie": f"{COOKIE}={other}"}).status_code == 401
    assert client.get(f"{base}/me", headers={"cookie": f"{COOKIE}=%%%"}).status_code == 401
    # A wrong secret, an unknown player: refused, and the cookie cleared.
    for player_id, secret in ((you["player_id"], "wrong-secret-x"), ("p-nobody", "whatever")):
        forged = Credentials(tournament_id, player_id, secret).encode()
        refused = client.get(f"{base}/me", headers={"cookie": f"{COOKIE}={forged}"})
        assert refused.status_code in (403, 404), refused.text
        assert refused.json()["error"] and f"{COOKIE}=" in refused.headers["set-cookie"]
    # The right secret still works after the wrong ones (the follower was replaced).
    right = Credentials(tournament_id, you["player_id"], you["player_secret"]).encode()
    cookie = {"cookie": f"{COOKIE}={right}"}
    assert client.get(f"{base}/me", headers=cookie).status_code == 200
    # ... and a wrong one is refused now that matchmaking took the right one.
    forged = Credentials(tournament_id, you["player_id"], "wrong-secret-y").encode()
    assert client.get(f"{base}/me", headers={"cookie": f"{COOKIE}={forged}"}).status_code == 403

    # Sign in with the player id and secret (a second device): wrong ones say so in words.
    wrong = client.post(
        f"{base}/me/session", json={"player_id": you["player_id"], "player_secret": "nope-nope"}
    )
    assert wrong.status_code == 403 and "wrong" in wrong.json()["error"]
    good = client.post(
        f"{base}/me/session",
        json={"player_id": you["player_id"], "player_secret": you["player_secret"]},
    )
    assert good.status_code == 200 and good.json()["name"] == "Mei"
    assert client.cookies.get(COOKIE, path=f"{base}/me") == right

    # Other sites' pages, and bodies that are not JSON, are refused before anything is done.
    for headers in (
        {"origin": "https://evil.example"},
        {"sec-fetch-site": "cross-site"},
        {"origin": "null"},
    ):
        reply = client.post(f"{base}/me/seat/commands", json={"command": "x"}, headers=headers)
        assert reply.status_code == 403 and "own pages" in reply.json()["error"]
        reply = client.post(f"{base}/register", json={"name": "Eve"}, headers=headers)
        assert reply.status_code == 403
    reply = client.post(
        f"{base}/me/seat/auto", content=b'{"on": true}', headers={"content-type": "text/plain"}
    )
    assert reply.status_code == 415
    same = client.post(
        f"{base}/me/seat/commands",
        json={"command": "x"},
        headers={"origin": str(client.base_url).rstrip("/"), "sec-fetch-site": "same-origin"},
    )
    assert same.status_code == 404 and "no table" in same.json()["error"]  # not started yet

    # Registration errors in words: a duplicate name, a missing or wrong code, closed.
    assert "already registered" in register(client, tournament_id, "Mei").json()["error"]
    coded = open_tournament(web_stack, bots=0, rounds=1, registration_code="sesame-42")
    assert "missing" in register(client, coded, "Lin").json()["error"]
    assert "wrong" in register(client, coded, "Lin", registration_code="nope").json()["error"]
    assert register(client, coded, "Lin", registration_code="sesame-42").status_code == 201
    start_tournament(web_stack, tournament_id)
    closed = register(client, tournament_id, "Late")
    assert closed.status_code == 409 and "registration is closed" in closed.json()["error"]

    # Signing out clears the cookie.
    out = client.delete(f"{base}/me/session")
    assert out.status_code == 204 and client.cookies.get(COOKIE, path=f"{base}/me") is None


def test_a_person_checks_in_from_the_page(client: httpx.Client, web_stack) -> None:
    from google.protobuf.duration_pb2 import Duration

    tournament_id = open_tournament(
        web_stack, bots=3, rounds=1, check_in_window=Duration(seconds=600)
    )
    base = f"/api/tournaments/{tournament_id}"
    assert client.get(base).json()["check_in_opens_ms"]
    assert register(client, tournament_id, "Ana").status_code == 201
    assert client.get(f"{base}/me").json()["player"]["checked_in"] is False
    reply = client.post(f"{base}/me/check-in", json={})
    assert reply.status_code == 200 and reply.json() == {"checked_in": True}, reply.text
    deadline = time.monotonic() + 30
    while not client.get(f"{base}/me").json()["player"]["checked_in"]:
        assert time.monotonic() < deadline, "the check-in never showed"
        time.sleep(0.2)


def test_a_bot_in_a_persons_seat_is_shown_as_the_bot(client: httpx.Client, web_stack) -> None:
    from hebei.common.client import create_channel
    from hebei.v1 import table_pb2, table_pb2_grpc

    tournament_id = open_tournament(web_stack, bots=3, rounds=1, hands=16)
    assert register(client, tournament_id, "Absent").status_code == 201  # never comes
    start_tournament(web_stack, tournament_id)
    deadline = time.monotonic() + 60
    while not (tables := client.get(f"/api/tournaments/{tournament_id}").json()["tables"]):
        assert time.monotonic() < deadline, "round 1 was never seated"
        time.sleep(0.2)
    match_id = tables[0]["match_id"]
    seat = next(s["seat"] for s in tables[0]["seats"] if s["name"] == "Absent")
    while client.get(f"/api/tables/{match_id}").status_code == 404:  # opening on the engine
        assert time.monotonic() < deadline, "the match was never opened"
        time.sleep(0.2)
    channel = create_channel(web_stack.address("table"), token=web_stack.operator_token, timeout=30)
    table_pb2_grpc.TableServiceStub(channel).ReplaceSeat(
        table_pb2.ReplaceSeatRequest(
            match_id=match_id, seat=seat, played_by="filler for Absent", reason="a test"
        )
    )
    channel.close()
    shown = client.get(f"/api/tables/{match_id}").json()["seats"][seat]
    assert shown["name"] == "Absent" and shown["played_by"] == "filler for Absent"
    spectator = SseReader(client, f"/api/tables/{match_id}/events").start()
    try:
        state = spectator.wait_for_state(lambda s: True, 60)
        assert state["seats"][seat]["played_by"] == "filler for Absent"
    finally:
        spectator.close()
        cancel(web_stack, tournament_id)


def test_a_cookie_seat_counts_against_the_address_once_the_engine_took_it(web_stack) -> None:
    tournament_id = open_tournament(web_stack, bots=3, rounds=1, hands=16)
    base = f"/api/tournaments/{tournament_id}"
    with (
        gateway(web_stack, max_sessions_per_client=1) as small,
        httpx.Client(base_url=small.url.rstrip("/"), timeout=30) as client,
    ):
        cookie = cookie_header(register(client, tournament_id, "Kai"))
        start_tournament(web_stack, tournament_id)
        events = SseReader(client, f"{base}/me/events", headers=cookie).start()
        try:
            state = wait_me(events, lambda s: (s["me"]["seat"] or {}).get("match_id"))
            seat = SseReader(client, seat_events(base, state["me"]["seat"]), headers=cookie).start()
            seat.wait_for(lambda m: m.event == "snapshot", 60)  # the engine took the token
            refused = client.post(
                "/api/quickplay", json={"name": "Kai", "policy": "efficiency", "hands": 1}
            )
            assert refused.status_code == 429 and "seats already" in refused.json()["error"]
            seat.close()
        finally:
            events.close()
            cancel(web_stack, tournament_id)


def cancel(stack: Any, tournament_id: str) -> None:
    """End a long tournament a test is done with (the machine is shared)."""
    from hebei.v1 import matchmaking_pb2 as mm

    operator_stub(stack).CancelTournament(
        mm.CancelTournamentRequest(tournament_id=tournament_id, reason="test over")
    )
