"""Hints and reviews through the gateway: the bot service (a process of the shared stack) asked
over gRPC for the person's own seat only, bounded per seat; reviews of finished matches."""

from __future__ import annotations

import statistics
import time
from typing import Any

import httpx

from tests.integration.web.harness import SseReader, choose, gateway, replay


def quick_play(client: httpx.Client, hands: int = 1) -> dict[str, Any]:
    reply = client.post(
        "/api/quickplay", json={"name": "Mei", "policy": "efficiency", "hands": hands}
    )
    assert reply.status_code == 201, reply.text
    return reply.json()


def state_of(reader: SseReader) -> dict[str, Any]:
    state, _ = replay(reader.messages)
    return state or {}


def wait_decision(reader: SseReader, after: str | None = None, timeout: float = 120) -> dict:
    """The seat's state once it has an open decision other than ``after`` (or the end)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = state_of(reader)
        if state.get("finished") or reader.done.is_set():
            return state
        if state.get("decision_id") and state["decision_id"] != after and not state["auto"]:
            return state
        time.sleep(0.03)
    raise AssertionError("no decision came in time")


def finish(client: httpx.Client, key: str, reader: SseReader) -> None:
    """Hand the seat to auto-play (托管) and wait for the match to end."""
    deadline = time.monotonic() + 120
    while not reader.done.is_set() and not state_of(reader).get("finished"):
        assert time.monotonic() < deadline, "the match did not end in time"
        if not state_of(reader).get("auto") and state_of(reader).get("phase") not in (
            None,
            "waiting",
        ):
            client.post(f"/api/seats/{key}/auto", json={"on": True})
        time.sleep(0.1)
    reader.close()
    client.delete(f"/api/seats/{key}")


def command_for(state: dict[str, Any], suggestion: dict[str, Any]) -> str:
    """The page's command that plays ``suggestion``."""
    if suggestion["kind"] == "discard":
        return suggestion["tile"]
    for option in state["options"]:
        if option["kind"] == suggestion["kind"] and option.get("tile") in (
            None,
            suggestion["tile"],
        ):
            return option["command"]
    raise AssertionError(f"{suggestion} is none of the options {state['options']}")


def assert_legal(state: dict[str, Any], hint: dict[str, Any]) -> None:
    """Every suggestion is an action the seat may take now, with a reason and its figures."""
    assert hint["decision_id"] == state["decision_id"] and hint["seat"] == state["viewer"]
    assert hint["policy"] == "expert" and hint["suggestions"]
    discardable = {t["tile"] for t in state["hand"] if t["discard"]}
    for rank, suggestion in enumerate(hint["suggestions"], 1):
        assert suggestion["rank"] == rank
        assert suggestion["reason"], suggestion
        if suggestion["kind"] == "discard":
            assert suggestion["tile"] in discardable, (suggestion, discardable)
            assert suggestion["shanten_after"] is not None
            assert suggestion["useful_unseen"] == sum(u["count"] for u in suggestion["useful"])
        else:
            command_for(state, suggestion)


def test_hints_for_my_seat_then_a_review_of_the_match(web_stack) -> None:
    """The person asks a hint at every decision and plays the expert's third choice (its
    second when there are only two): each is a legal action with a reason; the review of the
    finished match then shows those decisions as rows, and an agreement rate below 1."""
    with (
        gateway(web_stack, hints_per_minute=6000, hint_burst=200) as site,
        httpx.Client(base_url=site.url.rstrip("/"), timeout=60) as client,
    ):
        seat = quick_play(client, hands=2)
        key, match_id = seat["key"], seat["match_id"]
        reader = SseReader(client, f"/api/seats/{key}/events").start()
        state = wait_decision(reader)
        # Refused clearly: another seat's hint, a session that does not exist.
        other = (seat["seat"] + 1) % 4
        refused = client.get(f"/api/seats/{key}/hint", params={"seat": other})
        assert refused.status_code == 403 and "your own seat" in refused.json()["error"]
        missing = client.get("/api/seats/no-such-session-key/hint")
        assert missing.status_code == 404 and "no such seat session" in missing.json()["error"]
        typed = client.post(f"/api/seats/{key}/commands", json={"command": "s"})
        assert typed.status_code == 409 and "/hint" in typed.json()["error"]

        hinted = played_otherwise = 0
        answered = None
        round_trips: list[float] = []  # for the README's figure (printed, never asserted)
        while not state.get("finished") and not reader.done.is_set():
            started = time.perf_counter()
            reply = client.get(f"/api/seats/{key}/hint", params={"seat": seat["seat"]})
            round_trips.append((time.perf_counter() - started) * 1000)
            if reply.status_code == 409:  # the decision closed meanwhile (a claim window)
                state = wait_decision(reader, answered)
                continue
            assert reply.status_code == 200, reply.text
            hint = reply.json()
            fresh = state_of(reader)
            if hint["decision_id"] != fresh.get("decision_id"):
                state = wait_decision(reader, answered)
                continue
            assert_legal(fresh, hint)
            hinted += 1
            again = client.get(f"/api/seats/{key}/hint")
            if again.status_code == 200:  # (409 if the decision closed meanwhile)
                assert again.json()["remembered"]
                assert again.json()["suggestions"] == hint["suggestions"]
            else:
                assert again.status_code == 409, again.text
            pick = hint["suggestions"][min(2, len(hint["suggestions"]) - 1)]
            if len(hint["suggestions"]) > 1:
                played_otherwise += 1
            else:  # one option only: nothing to get wrong
                pick = hint["suggestions"][0]
            sent = client.post(
                f"/api/seats/{key}/commands", json={"command": command_for(fresh, pick)}
            )
            assert sent.status_code in (202, 409), sent.text
            answered = fresh["decision_id"]
            state = wait_decision(reader, answered)
        reader.wait_for(lambda m: m.event == "end", 60)
        assert hinted >= 3 and played_otherwise >= 1, (hinted, played_otherwise)
        ended = client.get(f"/api/seats/{key}/hint")
        assert ended.status_code == 410 and ended.json()["error"]

        started = time.perf_counter()
        review = client.get(f"/api/tables/{match_id}/review", params={"seat": seat["seat"]})
        review_ms = (time.perf_counter() - started) * 1000
        print(
            f"hint round trip: {len(round_trips)} hints, median "
            f"{statistics.median(round_trips):.0f} ms, max {max(round_trips):.0f} ms; "
            f"review of the two-hand match {review_ms:.0f} ms"
        )
        assert review.status_code == 200, review.text
        body = review.json()
        assert body["match_id"] == match_id and body["seat"] == seat["seat"]
        assert body["hands"] == 2 and body["decisions"] >= played_otherwise
        assert body["differences"], body
        assert body["agreed"] + len(body["differences"]) == body["decisions"]
        assert 0 <= body["agreement"] < 1
        for row in body["differences"]:
            assert row["played"] != row["expert"] and row["reason"] and row["cost"] >= 0
            assert row["turn"] >= 1 and len(row["concealed"]) >= 1
        # Any seat of a finished match can be reviewed: a bot's, here.
        bot = client.get(f"/api/tables/{match_id}/review", params={"seat": other}).json()
        assert bot["seat"] == other and bot["decisions"] > 0
        assert bot["agreed"] + len(bot["differences"]) == bot["decisions"]


def test_hints_are_bounded_per_seat(web_stack) -> None:
    """One hint per seat at once and ``hint_burst`` computed ones before the rate refills;
    the same decision asked again is answered from memory."""
    with (
        gateway(web_stack, hints_per_minute=0.1, hint_burst=1) as site,
        httpx.Client(base_url=site.url.rstrip("/"), timeout=60) as client,
    ):
        seat = quick_play(client, hands=2)
        key = seat["key"]
        reader = SseReader(client, f"/api/seats/{key}/events").start()
        limited = None
        state = wait_decision(reader)
        first = None
        while limited is None and not state.get("finished"):
            reply = client.get(f"/api/seats/{key}/hint")
            if reply.status_code == 200 and first is None:
                first = reply.json()
                again = client.get(f"/api/seats/{key}/hint")
                assert again.status_code == 200 and again.json()["remembered"]
            elif reply.status_code == 429:
                limited = reply.json()
            else:
                assert reply.status_code == 409, reply.text  # the decision closed meanwhile
            command = choose(state_of(reader), pong=False)
            if command is not None:
                client.post(f"/api/seats/{key}/commands", json={"command": command})
            state = wait_decision(reader, state.get("decision_id"))
        assert first is not None and limited is not None
        assert "hints a minute" in limited["error"] and limited["code"] == "RESOURCE_EXHAUSTED"
        finish(client, key, reader)


def test_without_a_bot_service_hints_and_reviews_say_so(web_stack) -> None:
    with (
        gateway(web_stack, botservice_address=None) as site,
        httpx.Client(base_url=site.url.rstrip("/"), timeout=60) as client,
    ):
        seat = quick_play(client)
        reader = SseReader(client, f"/api/seats/{seat['key']}/events").start()
        wait_decision(reader)
        reply = client.get(f"/api/seats/{seat['key']}/hint")
        assert reply.status_code == 503 and "bot service" in reply.json()["error"]
        assert "Traceback" not in reply.text
        review = client.get(f"/api/tables/{seat['match_id']}/review", params={"seat": 0})
        assert (
            review.status_code == 503 and "HEBEI_WEB_BOTSERVICE_ADDRESS" in review.json()["error"]
        )
        finish(client, seat["key"], reader)


def test_review_refusals(client: httpx.Client) -> None:
    advice = client.get("/api/health").json()["advice"]
    assert advice["botservice"] and advice["limits"]["hints_per_minute"] == 20
    assert client.get("/api/tables/nope/review", params={"seat": 9}).status_code == 400
    unknown = client.get("/api/tables/no-such-match/review", params={"seat": 0})
    assert unknown.status_code == 404 and unknown.json()["error"]
    seat = quick_play(client)
    reader = SseReader(client, f"/api/seats/{seat['key']}/events").start()
    live = client.get(f"/api/tables/{seat['match_id']}/review", params={"seat": 0})
    assert live.status_code == 409 and "has not ended" in live.json()["error"]
    finish(client, seat["key"], reader)
