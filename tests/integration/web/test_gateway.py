"""The web gateway without a browser: httpx against a gateway on port 0 in front of the real
services (ledger, table engine, matchmaking, a bot worker, as processes)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from hebei.web.feeds import apply_patch
from tests.integration.web.harness import (
    TILE_NAME,
    SseReader,
    bot_tournament,
    gateway,
    operator_stub,
    play_out,
    replay,
)

STATIC = Path(__file__).parents[3] / "services" / "hebei" / "web" / "static"


def quick_play(client: httpx.Client, hands: int = 1, **fields: Any) -> dict[str, Any]:
    reply = client.post(
        "/api/quickplay", json={"name": "Mei", "policy": "efficiency", "hands": hands, **fields}
    )
    assert reply.status_code == 201, reply.text
    return reply.json()


# ------------------------------------------------------------------ public information


ALLOWED_TILE_PARENTS = {"discards", "melds", "wind", "offer", "settlement", "wins",
                        "last_event", "event", "prevailing_wind"}  # fmt: skip


def tile_paths(value: Any, path: tuple = ()) -> list[tuple]:
    """Every path of ``value`` holding a tile name."""
    found = []
    if isinstance(value, dict):
        for key, item in value.items():
            found += tile_paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += tile_paths(item, (*path, index))
    elif isinstance(value, str) and TILE_NAME.match(value):
        found.append(path)
    return found


def check_public(state: dict[str, Any], event: dict[str, Any] | None) -> None:
    """What a spectator may see: no hand, no decision, no seed before the end, hidden draws,
    face-down concealed kongs, tiles only where the table shows them."""
    assert state["mode"] == "spectator"
    assert state["hand"] == [] and state["options"] == [] and not state["decision_id"]
    assert state["prompt"] == "" and state["deadline_ms"] is None
    if not state["finished"]:
        assert state["seed"] is None
    for seat in state["seats"]:
        assert isinstance(seat["concealed"], int)
        for meld in seat["melds"]:
            if meld["kind"] == "concealed_kong":
                assert meld["tile"] is None
    for path in tile_paths(state):
        assert path[0] in ALLOWED_TILE_PARENTS or path[:1] == ("seats",), path
        if path[0] == "seats":
            assert path[2] in ("discards", "melds", "wind"), path
    if event is not None:
        if event["type"] == "draw":
            assert "tile" not in event, event
        assert event["type"] != "pass", event
        if event["type"] != "match_end":
            assert "seed" not in event
        if event.get("meld", {}).get("kind") == "concealed_kong":
            assert event["meld"]["tile"] is None and "tile" not in event


PUBLIC_SEAT_FIELDS = ("melds", "discards", "concealed", "score")


def public_part(state: dict[str, Any]) -> dict[str, Any]:
    seats = [{k: s[k] for k in PUBLIC_SEAT_FIELDS} for s in state["seats"]]
    for seat in seats:  # another seat's concealed kong is face down to the other reader
        seat["melds"] = [{"kind": m["kind"], "from": m.get("from")} for m in seat["melds"]]
    return {"hand_no": state["hand_no"], "wall": state["wall"], "seats": seats}


# --------------------------------------------------------------------------------- tests


def test_health_bots_and_the_static_pages(client: httpx.Client) -> None:
    health = client.get("/api/health").json()
    assert health["status"] == "ok" and health["limits"]["max_streams_per_client"] == 8
    bots = client.get("/api/bots").json()
    assert {p["name"] for p in bots["policies"]} >= {"expert", "efficiency"}
    for page in ("/", "/table.html", "/tournament.html", "/operator.html"):
        reply = client.get(page)
        assert reply.status_code == 200 and "text/html" in reply.headers["content-type"]
        assert "script-src 'self'" in reply.headers["content-security-policy"]
        assert reply.headers["referrer-policy"] == "no-referrer"
    script = client.get("/js/table.js")
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    total = sum(f.stat().st_size for f in STATIC.rglob("*") if f.is_file())
    assert total < 200 * 1024, f"the pages weigh {total} bytes"


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "words"),
    [
        ("GET", "/api/nowhere", None, 404, "no such page"),
        ("GET", "/api/tables/no-such-match", None, 404, "no-such-match"),
        ("GET", "/api/tables/bad id", None, 400, "printable"),
        ("GET", "/api/tables/trailing%0A", None, 400, "printable"),
        ("GET", "/api/tables?status=soon", None, 400, "live, ended or all"),
        ("GET", "/api/tables/x/events?last_event_id=abc", None, 400, "Last-Event-ID"),
        ("POST", "/api/tables", {}, 405, "not allowed"),
        ("POST", "/api/quickplay", "not json", 400, "not valid JSON"),
        ("POST", "/api/quickplay", "[" * 8000, 400, "not valid JSON"),
        ("POST", "/api/quickplay", [1, 2], 400, "JSON object"),
        ("POST", "/api/quickplay", {"hands": 99}, 400, "hands must be an integer 1-16"),
        ("POST", "/api/quickplay", {"policy": "genius"}, 400, "policy must be one of"),
        ("POST", "/api/quickplay", {"name": "x" * 33}, 400, "at most 32"),
        ("POST", "/api/quickplay", {"name": "a\x00b"}, 400, "control characters"),
        ("POST", "/api/quickplay", {"name": "y" * 9000}, 413, "at most 8192 bytes"),
        ("POST", "/api/seats", {"match_id": "m", "seat": 7, "seat_token": "t"}, 400, "seat"),
        ("POST", "/api/seats", {"match_id": "m", "seat": 1, "seat_token": "short"}, 400, "16-256"),
        ("GET", "/api/seats/unknown-key/events", None, 404, "no such seat session"),
        ("POST", "/api/seats/unknown-key/commands", {"command": "x"}, 404, "no such seat"),
        ("GET", "/api/tournaments/no-such-cup", None, 404, "no-such-cup"),
        ("GET", "/api/operator/overview", None, 401, "operator token"),
        ("POST", "/api/operator/tournaments/t/pause", {}, 401, "operator token"),
    ],
)
def test_errors_are_json_with_the_right_status(
    client: httpx.Client, method: str, path: str, body: Any, status: int, words: str
) -> None:
    content = body if isinstance(body, str) else None
    payload = None if isinstance(body, str) or body is None else body
    reply = client.request(
        method,
        path,
        json=payload,
        content=content,
        headers={"content-type": "application/json"} if body is not None else {},
    )
    assert reply.status_code == status, reply.text
    data = reply.json()
    assert words in data["error"] and data["code"]
    assert "Traceback" not in reply.text and 'File "' not in reply.text


def test_a_body_must_be_declared_json(client: httpx.Client) -> None:
    """A plain form or text post (what another site can send without asking) is refused."""
    reply = client.post(
        "/api/quickplay", content=b'{"hands": 1}', headers={"content-type": "text/plain"}
    )
    assert reply.status_code == 415 and "application/json" in reply.json()["error"]


def test_a_wrong_operator_token_is_refused(client: httpx.Client) -> None:
    reply = client.get("/api/operator/overview", headers={"Authorization": "Bearer nope"})
    assert reply.status_code == 401 and "wrong" in reply.json()["error"]


def test_a_person_plays_while_spectators_see_only_public_information(
    client: httpx.Client,
) -> None:
    seat = quick_play(client, hands=2)
    key, match_id = seat["key"], seat["match_id"]
    assert client.get(f"/api/seats/{key}").json()["match_id"] == match_id
    reader = SseReader(client, f"/api/seats/{key}/events").start()
    spectator = SseReader(client, f"/api/tables/{match_id}/events").start()
    first = reader.wait_for(lambda m: m.event == "snapshot")
    assert first.data["state"]["mode"] == "seat" and first.data["state"]["viewer"] == seat["seat"]

    # A command that does not fit the decision says why, in one line.
    # (The state with a hand may be the snapshot itself: when the person deals, nothing moves
    # until they act; waiting for a delta ran their clock out and auto-played the match.)
    reader.wait_for_state(lambda s: s.get("hand"))
    nothing = client.post(f"/api/seats/{key}/commands", json={"command": "q"})
    assert nothing.status_code in (400, 409) and nothing.json()["error"]

    # A second spectator leaves early and comes back with Last-Event-ID.
    early = SseReader(client, f"/api/tables/{match_id}/events").start()
    early.wait_for(lambda m: m.event == "snapshot", 60)
    early.close()
    kept = list(early.messages)  # what the page had applied when its connection dropped
    last = max(m.id for m in kept if m.id is not None)

    final = play_out(client, reader, f"/api/seats/{key}/commands")
    reader.wait_for(lambda m: m.event == "end", 30)
    spectator.wait_for(lambda m: m.event == "end", 60)
    assert final["finished"] and final["settlement"] is not None

    # The seat's deltas come in order, without a gap, after one snapshot.
    seqs = [m.data["seq"] for m in reader.messages if m.event in ("snapshot", "delta")]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))

    # Every spectator payload holds public information only; the seed comes at the end.
    info = client.get(f"/api/tables/{match_id}").json()
    assert info["status"] == "finished" and info["seed"]
    state = None
    for message in spectator.messages:
        if message.event == "snapshot":
            state = json.loads(json.dumps(message.data["state"]))
            event = None
        elif message.event == "delta":
            state = apply_patch(state, message.data["patch"])
            event = message.data.get("event")
        else:
            continue
        check_public(state, event)
        if event is None or event["type"] != "match_end":
            assert info["seed"] not in message.raw
    assert state["finished"] and state["seed"] == info["seed"]
    # ... and it is the same table the person saw.
    assert public_part(state) == public_part(final)

    # The spectator that came back got the deltas after its last id, not a new snapshot.
    resumed = SseReader(
        client, f"/api/tables/{match_id}/events", headers={"Last-Event-ID": str(last)}
    ).start()
    resumed.wait_for(lambda m: m.event == "end", 30)
    kinds = [m.event for m in resumed.messages]
    assert kinds[0] == "delta" and "snapshot" not in kinds
    assert resumed.messages[0].data["seq"] > last
    rebuilt, _ = replay(kept + resumed.messages)
    assert rebuilt == state


def test_auto_play_on_and_off(client: httpx.Client) -> None:
    # Auto-played hands go fast: the longest quick match (16 hands), and each wait checks the
    # state as each message arrives, so auto play goes off while the match is still on.
    seat = quick_play(client, hands=16)
    key = seat["key"]
    reader = SseReader(client, f"/api/seats/{key}/events").start()
    reader.wait_for_state(lambda s: s.get("phase") not in (None, "waiting"), 60)
    assert client.post(f"/api/seats/{key}/auto", json={"on": "yes"}).status_code == 400
    assert client.post(f"/api/seats/{key}/auto", json={"on": True}).status_code == 202
    reader.wait_for_state(lambda s: s.get("auto") is True, 30)
    # Auto-played, the hand goes on without the person: a settlement comes.
    reader.wait_for_state(lambda s: s.get("settlement") is not None, 120)
    assert client.post(f"/api/seats/{key}/commands", json={"command": "t"}).status_code == 202
    final = reader.wait_for_state(lambda s: s.get("auto") is False, 30)
    assert not final.get("finished")  # the person has the seat back, mid-match
    assert client.delete(f"/api/seats/{key}").status_code == 204
    assert client.get(f"/api/seats/{key}").status_code == 404


def test_a_spectator_delay_holds_events_back(web_stack) -> None:
    with (
        gateway(web_stack, spectator_delay=1.5) as delayed,
        httpx.Client(base_url=delayed.url.rstrip("/"), timeout=30) as client,
    ):
        seat = quick_play(client, hands=1)
        mine = SseReader(client, f"/api/seats/{seat['key']}/events").start()
        spectator = SseReader(client, f"/api/tables/{seat['match_id']}/events").start()
        mine.wait_for_state(lambda s: s.get("phase") not in (None, "waiting"), 60)
        arrivals: list[float] = []
        seen = 0
        deadline = time.monotonic() + 90
        assert client.post(f"/api/seats/{seat['key']}/auto", json={"on": True}).status_code == 202
        while not spectator.done.is_set() and time.monotonic() < deadline:
            now = time.time() * 1000
            for message in spectator.messages[seen:]:
                event = message.data.get("event") if message.event == "delta" else None
                if event and event.get("time_ms"):
                    arrivals.append(now - event["time_ms"])
            seen = len(spectator.messages)
            time.sleep(0.02)
        assert arrivals, "no event arrived"
        assert min(arrivals) >= 1400, sorted(arrivals)[:5]


def test_streams_seats_and_tables_are_bounded_per_client(web_stack) -> None:
    limits = dict(max_streams_per_client=3, max_tables=1, max_sessions_per_client=1)
    with (
        gateway(web_stack, **limits) as small,
        httpx.Client(base_url=small.url.rstrip("/"), timeout=30) as client,
    ):
        seat = quick_play(client, hands=1)
        refused = client.post(
            "/api/quickplay", json={"name": "Again", "policy": "efficiency", "hands": 1}
        )
        assert refused.status_code == 429 and "seats already" in refused.json()["error"]
        table_events = f"/api/tables/{seat['match_id']}/events"
        readers = [
            SseReader(client, f"/api/seats/{seat['key']}/events").start(),
            SseReader(client, table_events).start(),
        ]
        for reader in readers:
            reader.wait_for(lambda m: m.event in ("snapshot", "delta"))
        # A second table while the first is followed: the gateway follows one at most.
        other = bot_tournament(web_stack, players=4, rounds=1, hands=1)
        table = client.get(f"/api/tournaments/{other}/seating").json()["rounds"][0]["tables"][0]
        deadline = time.monotonic() + 60  # the round director opens it on the engine
        while client.get(f"/api/tables/{table['match_id']}").status_code == 404:
            assert time.monotonic() < deadline, "the tournament's match was never opened"
            time.sleep(0.1)
        reply = client.get(f"/api/tables/{table['match_id']}/events")
        assert reply.status_code == 429 and "follows 1 tables" in reply.json()["error"]
        # Spectators' streams: a third from this address is fine, a fourth is not (the seat's
        # own stream is in a pool of its own).
        for _ in range(2):
            readers.append(SseReader(client, table_events).start())
            readers[-1].wait_for(lambda m: m.event in ("snapshot", "delta"))
        reply = client.get(table_events)
        assert reply.status_code == 429 and "too many streams" in reply.json()["error"]
        for reader in readers:
            reader.close()


def test_a_tournament_as_json_and_live(client: httpx.Client, web_stack) -> None:
    tournament_id = bot_tournament(web_stack, players=4, rounds=2, hands=1)
    feed = SseReader(client, f"/api/tournaments/{tournament_id}/events").start()
    feed.wait_for(lambda m: m.event == "snapshot", 30)
    feed.wait_for(lambda m: m.event == "end", 180)
    state, _ = replay(feed.messages)
    assert state["tournament"]["status"] == "finished"
    assert [r["round_no"] for r in state["rounds"]] == [1, 2]
    assert all(len(r["tables"]) == 1 and "repeat_pairs" in r["quality"] for r in state["rounds"])
    ranking = state["standings"]["ranking"]
    assert len(ranking) == 4 and ranking[0]["rank"] == 1 and ranking[0]["decided_by"] == ""
    assert all(row["decided_by"] for row in ranking[1:])
    summary = client.get(f"/api/tournaments/{tournament_id}").json()
    assert summary["status"] == "finished" and summary["players"] == 4
    seating = client.get(f"/api/tournaments/{tournament_id}/seating").json()
    assert len(seating["rounds"]) == 2
    standings = client.get(f"/api/tournaments/{tournament_id}/standings").json()
    assert [r["player_id"] for r in standings["ranking"]] == [r["player_id"] for r in ranking]
    listed = client.get("/api/tournaments").json()["tournaments"]
    assert tournament_id in {t["tournament_id"] for t in listed}


def test_the_operators_view(client: httpx.Client, web_stack) -> None:
    from hebei.v1 import matchmaking_pb2 as mm

    operator = {"Authorization": f"Bearer {web_stack.operator_token}", "X-Hebei-Actor": "Ana"}
    tournament_id = bot_tournament(web_stack, players=4, rounds=3, hands=16)
    try:
        overview = client.get("/api/operator/overview?stall_seconds=5", headers=operator)
        assert overview.status_code == 200, overview.text
        data = overview.json()
        assert {s["service"]: s["status"] for s in data["services"]} == {
            "table": "serving",
            "matchmaking": "serving",
            "ledger": "serving",
            "botservice": "serving",
        }
        assert data["engines"][0]["address"] == web_stack.address("table")
        bad = client.get("/api/operator/overview?stall_seconds=1", headers=operator)
        assert bad.status_code == 400
        paused = client.post(
            f"/api/operator/tournaments/{tournament_id}/pause",
            json={"reason": "lunch"},
            headers=operator,
        )
        assert paused.status_code == 200 and paused.json()["status"] == "paused"
        resumed = client.post(
            f"/api/operator/tournaments/{tournament_id}/resume", json={}, headers=operator
        )
        assert resumed.status_code == 200 and resumed.json()["status"] == "running"
        live = _wait_live_table(client, tournament_id)
        dissolved = client.post(
            f"/api/operator/tables/{live['match_id']}/dissolve",
            json={"reason": "a test", "tournament_id": tournament_id},
            headers=operator,
        )
        assert dissolved.status_code == 200, dissolved.text
        again = client.post(
            f"/api/operator/tables/{live['match_id']}/dissolve",
            json={"reason": "a test", "tournament_id": tournament_id},
            headers=operator,
        )
        assert again.status_code == 409 and again.json()["error"]
        actions = operator_stub(web_stack).ListOperatorActions(
            mm.ListOperatorActionsRequest(tournament_id=tournament_id)
        )
        assert {a.action for a in actions.actions} >= {"pause", "resume", "dissolve"}
        assert any(a.actor == "Ana" for a in actions.actions)
        # A quick-play table is dissolved on the engine.
        seat = quick_play(client, hands=4)
        reply = client.post(
            f"/api/operator/tables/{seat['match_id']}/dissolve",
            json={"reason": "closing time"},
            headers=operator,
        )
        assert reply.status_code == 200 and reply.json()["table"]["status"] == "dissolved"
    finally:
        operator_stub(web_stack).CancelTournament(
            mm.CancelTournamentRequest(tournament_id=tournament_id, reason="test over")
        )


def _wait_live_table(client: httpx.Client, tournament_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        tables = client.get(f"/api/tables?status=live&tournament_id={tournament_id}").json()
        if tables["tables"]:
            return tables["tables"][0]
        time.sleep(0.2)
    raise AssertionError("no live table")
