"""The table page's server side, through a gateway in front of the whole stack: commands bound
to the decision they answer, dead links answered in words, the operator's name in any script,
quick play's distinct default names, My matches and the hand replayer."""

from __future__ import annotations

import threading
import time
import urllib.parse
from typing import Any

import httpx

from hebei.common.client import create_channel
from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import table_pb2, table_pb2_grpc
from hebei.v1 import types_pb2 as pb
from tests.integration.web.harness import SseReader, bot_tournament, operator_stub

ENDED = ("finished", "dissolved")


def quick_play(client: httpx.Client, **fields: Any) -> dict[str, Any]:
    body = {"name": "Mei", "policy": "efficiency", "hands": 1, **fields}
    reply = client.post("/api/quickplay", json=body)
    assert reply.status_code == 201, reply.text
    return reply.json()


def own_turn(reader: SseReader, after: str = "") -> dict[str, Any]:
    """The seat's state once it has a discard to make (a decision other than ``after``)."""
    return reader.wait_for_state(
        lambda s: (
            s["decision_id"]
            and s["decision_id"] != after
            and sum(1 for t in s["hand"] if t["discard"]) >= 2
        ),
        120,
    )


def discards_of(stack: Any, match_id: str, seat: int) -> list[int]:
    """The seat's discards as the engine's public log has them (Spectate from the start)."""
    channel = create_channel(stack.address("table"), timeout=30)
    stub = table_pb2_grpc.TableServiceStub(channel)
    found = []
    info = stub.GetMatch(table_pb2.GetMatchRequest(match_id=match_id), timeout=10).match
    stream = stub.Spectate(table_pb2.SpectateRequest(match_id=match_id, from_seq=1), timeout=30)
    for response in stream:
        event = response.event
        if event.type == pb.EVENT_TYPE_DISCARD and event.seat == seat:
            found.append(event.tile)
        if event.seq >= info.event_count:
            break
    stream.cancel()
    channel.close()
    return found


def finish(client: httpx.Client, key: str, match_id: str, timeout: float = 180) -> None:
    """Hand the seat to auto-play (托管) and wait for the match to end."""
    reply = client.post(f"/api/seats/{key}/auto", json={"on": True})
    assert reply.status_code in (202, 409, 410), reply.text  # 410: over already
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if client.get(f"/api/tables/{match_id}").json()["status"] in ENDED:
            return
        time.sleep(0.3)
    raise AssertionError(f"match {match_id} did not end in time")


def test_two_commands_for_one_decision_apply_once(client, web_stack):
    seat = quick_play(client)
    key, match_id = seat["key"], seat["match_id"]
    reader = SseReader(client, f"/api/seats/{key}/events").start()
    try:
        state = own_turn(reader)
        decision = state["decision_id"]
        tiles = [t for t in state["hand"] if t["discard"]]
        first, second = tiles[0], next(t for t in tiles if t["tile"] != tiles[0]["tile"])
        before = len(discards_of(web_stack, match_id, state["viewer"]))
        # Two clicks for the same decision at once (a double click, two tabs): one is sent.
        replies: list[httpx.Response] = []

        def click(command: str) -> None:
            with httpx.Client(base_url=client.base_url, timeout=30) as other:
                body = {"command": command, "decision_id": decision}
                replies.append(other.post(f"/api/seats/{key}/commands", json=body))

        threads = [threading.Thread(target=click, args=(t["key"],)) for t in (first, second)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        codes = sorted(r.status_code for r in replies)
        assert codes == [202, 409], [r.text for r in replies]
        refused = next(r for r in replies if r.status_code == 409).json()
        assert refused == {"error": "that decision is over", "code": "DECISION_OVER"}
        # The engine's log shows one discard for that decision.
        reader.wait_for_state(lambda s: s["decision_id"] != decision, 60)
        deadline = time.monotonic() + 30
        while len(discards_of(web_stack, match_id, state["viewer"])) == before:
            assert time.monotonic() < deadline, "the discard never reached the log"
            time.sleep(0.2)
        time.sleep(0.5)  # a second discard, were one sent, would be logged by now
        after = discards_of(web_stack, match_id, state["viewer"])
        assert len(after) == before + 1
        # A stale click (a decision already over) is dropped the same way; without a decision
        # id a command still goes to the open decision (older clients).
        stale = client.post(
            f"/api/seats/{key}/commands", json={"command": first["key"], "decision_id": decision}
        )
        assert stale.status_code == 409 and stale.json()["code"] == "DECISION_OVER"
        bad = client.post(
            f"/api/seats/{key}/commands", json={"command": "x", "decision_id": "not a number"}
        )
        assert bad.status_code == 400 and "decision_id" in bad.json()["error"]
        nxt = own_turn(reader, after=decision)
        loose = client.post(f"/api/seats/{key}/commands", json={"command": nxt["keys"][-1]})
        assert loose.status_code == 202, loose.text
    finally:
        reader.close()
    finish(client, key, match_id)


def test_dead_links_answer_in_words(client):
    for method, path in (
        ("GET", "/api/seats/no-such-key"),
        ("GET", "/api/seats/no-such-key/hint"),
        ("POST", "/api/seats/no-such-key/commands"),
        ("POST", "/api/seats/no-such-key/auto"),
    ):
        reply = client.request(method, path, json={"command": "x"} if method == "POST" else None)
        assert reply.status_code == 404, (path, reply.text)
        assert reply.json() == {
            "error": "no such seat session: it ended or the gateway restarted",
            "code": "NOT_FOUND",
        }
    unknown = client.get("/api/tables/no-such-match")
    assert unknown.status_code == 404 and "no-such-match" in unknown.json()["error"]
    events = client.get("/api/tables/no-such-match/events")
    assert events.status_code == 404 and events.json()["error"]


def test_an_ended_seat_answers_gone_with_why(client):
    seat = quick_play(client)
    finish(client, seat["key"], seat["match_id"])
    deadline = time.monotonic() + 30
    while True:
        reply = client.post(f"/api/seats/{seat['key']}/commands", json={"command": "x"})
        if reply.status_code == 410 or time.monotonic() > deadline:
            break
        time.sleep(0.2)  # the seat's stream ends a moment after the match
    assert reply.status_code == 410, reply.text
    assert reply.json()["code"] == "GONE"
    assert reply.json()["error"].startswith("this seat's session has ended: ")
    auto = client.post(f"/api/seats/{seat['key']}/auto", json={"on": False})
    assert auto.status_code == 410 and auto.json()["error"]


def test_an_operator_named_in_any_script(client, web_stack):
    # 32 hands: a one-hand bot match could end before the dissolve reaches it (it did once).
    tournament_id = bot_tournament(web_stack, hands=32)
    deadline = time.monotonic() + 60
    live = []
    while not live:
        assert time.monotonic() < deadline, "the tournament's table never opened"
        live = client.get("/api/tables", params={"tournament_id": tournament_id}).json()["tables"]
        time.sleep(0.2)
    # As the operator page sends it: encodeURIComponent of the name.
    actor = urllib.parse.quote("评估员", safe="")
    headers = {"Authorization": f"Bearer {web_stack.operator_token}", "X-Hebei-Actor": actor}
    dissolved = client.post(
        f"/api/operator/tables/{live[0]['match_id']}/dissolve",
        json={"reason": "名字 test", "tournament_id": tournament_id},
        headers=headers,
    )
    assert dissolved.status_code == 200, dissolved.text
    actions = operator_stub(web_stack).ListOperatorActions(
        mm.ListOperatorActionsRequest(tournament_id=tournament_id)
    )
    assert [a.actor for a in actions.actions if a.action == "dissolve"] == ["评估员"]
    # A name that does not decode to printable text is the default, never garbage.
    headers["X-Hebei-Actor"] = "%FF%FE"
    overview = client.get("/api/operator/overview", headers=headers)
    assert overview.status_code == 200


def test_quick_play_gives_people_distinct_names(client, web_stack):
    """Two people without a name (the lobby's "You" is none) at one table: "Player 1" and
    "Player 2". Two requests seated apart get "Player 1" each: the names differ at a table."""
    seats: list[dict[str, Any]] = []

    def ask(name: str) -> None:
        with httpx.Client(base_url=client.base_url, timeout=60) as other:
            seats.append(quick_play(other, name=name))

    threads = [threading.Thread(target=ask, args=(name,)) for name in ("", "You")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(seats) == 2
    for seat in seats:
        match = client.get(f"/api/tables/{seat['match_id']}").json()
        people = [s["name"] for s in match["seats"] if s["kind"] == "person"]
        assert len(people) == len(set(people))
        assert all(name.startswith("Player ") for name in people), people
        assert "You" not in people
    if seats[0]["match_id"] == seats[1]["match_id"]:
        assert sorted(people) == ["Player 1", "Player 2"]
    for seat in seats:
        finish(client, seat["key"], seat["match_id"])


def test_my_matches_and_the_replayer(client, web):
    seat = quick_play(client, hands=1)
    key, match_id = seat["key"], seat["match_id"]
    # The quick play's answer put the match in this browser's list (a cookie: no secret).
    cookie = client.cookies.get("hebei_matches")
    assert cookie and key not in cookie
    listed = client.get("/api/my/matches").json()["matches"]
    assert listed[0]["match_id"] == match_id and listed[0]["seat"] == seat["seat"]
    # A live match's tiles are never shown.
    live = client.get(f"/api/tables/{match_id}/hands/1")
    assert live.status_code == 409 and "still being played" in live.json()["error"]
    finish(client, key, match_id)

    listed = client.get("/api/my/matches").json()["matches"]
    mine = next(m for m in listed if m["match_id"] == match_id)
    assert mine["status"] == "finished" and mine["place"] in (1, 2, 3, 4)
    assert mine["review"] == f"/review.html?match={match_id}&seat={seat['seat']}"
    hand = client.get(f"/api/tables/{match_id}/hands/1")
    assert hand.status_code == 200, hand.text
    data = hand.json()
    assert data["hands"] == 1 and data["hand_no"] == 1
    steps = data["steps"]
    dealt = steps[0]["seats"]
    assert sorted(len(s["concealed"]) for s in dealt) == [13, 13, 13, 14]  # every seat's tiles
    assert [e["type"] for e in steps[0]["events"]] == ["hand_start", "deal"]
    assert steps[-1]["events"][-1]["type"] == "hand_end"
    # a step per event group between the deal and the end (a hand can end after a few turns)
    kinds = {e["type"] for step in steps[1:-1] for e in step["events"]}
    assert len(steps) > 2 and "discard" in kinds, kinds
    for step in steps:  # 136 tiles: hands, melds, discards and the wall's live part (at most)
        held = sum(
            len(s["concealed"]) + sum(len(m["tiles"]) for m in s["melds"]) + len(s["discards"])
            for s in step["seats"]
        )
        assert held <= 136 and step["wall"] >= 0
    again = client.get(f"/api/tables/{match_id}/hands/1").json()  # kept: the same
    assert again["steps"] == steps
    missing = client.get(f"/api/tables/{match_id}/hands/2")
    assert missing.status_code == 404 and missing.json()["error"]
    # Another browser has no list; forgetting clears it.
    with httpx.Client(base_url=client.base_url, timeout=30) as other:
        assert other.get("/api/my/matches").json()["matches"] == []
    assert client.delete("/api/my/matches").status_code == 204
    assert client.get("/api/my/matches").json()["matches"] == []


def test_a_tournament_seat_joins_my_matches(client, web_stack):
    """A person's tournament seat, through their cookie, lands in the same list."""
    from tests.integration.web.harness import open_tournament, start_tournament

    tournament_id = open_tournament(web_stack, bots=3, rounds=1, hands=1)
    registered = client.post(f"/api/tournaments/{tournament_id}/register", json={"name": "Lin"})
    assert registered.status_code == 201, registered.text
    start_tournament(web_stack, tournament_id)
    deadline = time.monotonic() + 60
    while True:
        me = client.get(f"/api/tournaments/{tournament_id}/me").json()
        if me["seat"] and me["seat"]["match_id"]:
            break
        assert time.monotonic() < deadline, me
        time.sleep(0.2)
    with client.stream("GET", f"/api/tournaments/{tournament_id}/me/seat/events") as response:
        assert response.status_code == 200
        assert "hebei_matches" in response.headers.get("set-cookie", "")
        client.cookies.extract_cookies(response)
    listed = client.get("/api/my/matches").json()["matches"]
    mine = next(m for m in listed if m["match_id"] == me["seat"]["match_id"])
    assert mine["tournament_id"] == tournament_id and mine["seat"] == me["seat"]["seat"]
    # ... and the person's tournament feed lists every table of theirs (another browser).
    with httpx.Client(base_url=client.base_url, timeout=30) as other:
        other.cookies.set("hebei_player", client.cookies.get("hebei_player"))
        path = f"/api/tournaments/{tournament_id}/me/events"
        with other.stream("GET", path) as response:
            assert response.status_code == 200
            other.cookies.extract_cookies(response)
        listed = other.get("/api/my/matches").json()["matches"]
        assert [m["match_id"] for m in listed] == [me["seat"]["match_id"]]
