"""Fuzzing the web gateway over HTTP, in front of the real stack: every API route with odd
path parameters (long, control characters, non-ASCII, slashes encoded), odd query strings
and, for the POST routes, bodies that are not JSON, not objects, or objects whose fields have
the wrong types or values. Never a 5xx but 503 (a service out of reach, said in one line),
always a JSON error naming the problem, never a stack trace. Seeded: a failure replays.

The POSTs are paced under the gateway's per-address POST rate (10 a second, burst 20), so
the requests reach their handlers rather than the rate limit."""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from urllib.parse import quote

import httpx

SEED = 20261205
REQUESTS = 500
POST_GAP = 0.11  # seconds between POSTs: under 10 a second
ODD_TEXT = (
    "", "x", "a" * 300, "no-such-match", "\x00", "a\nb", "名字", "../etc", "%00", " ", "-1",
    "0", "99999999999999999999", "🀄", "a/b", "?", "#",
)  # fmt: skip
ODD_JSON = (
    None,
    -1,
    0,
    1,
    3,
    4,
    17,
    2**63,
    1.5,
    float("inf"),
    True,
    "",
    "x",
    [],
    {},
    [1],
    {"a": 1},
)
FIELDS = (
    "name", "policy", "level", "hands", "match_id", "seat", "seat_token", "command", "on",
    "tournament_id", "player_id", "secret", "reason", "player_secret", "registration_code",
)  # fmt: skip
GET_ROUTES = (
    "/api/health", "/api/bots", "/api/tables", "/api/tables/{id}", "/api/tables/{id}/review",
    "/api/seats/{id}", "/api/seats/{id}/hint", "/api/tournaments", "/api/tournaments/{id}",
    "/api/tournaments/{id}/seating", "/api/tournaments/{id}/standings",
    "/api/operator/overview", "/api/nowhere/{id}", "/api/tournaments/{id}/me",
    "/api/tournaments/{id}/me/seat/hint",
)  # fmt: skip
POST_ROUTES = (
    "/api/seats", "/api/seats/{id}/commands", "/api/seats/{id}/auto",
    "/api/operator/tables/{id}/dissolve", "/api/operator/tournaments/{id}/pause",
    "/api/operator/tournaments/{id}/resume", "/api/tournaments/{id}/register",
    "/api/tournaments/{id}/me/session", "/api/tournaments/{id}/me/seat/commands",
    "/api/tournaments/{id}/me/check-in",
)  # fmt: skip
QUERY_KEYS = ("status", "seat", "last_event_id", "page", "from_round", "level", "x")


def odd_path(rng: random.Random, route: str) -> str:
    return route.replace("{id}", quote(rng.choice(ODD_TEXT), safe="") or "%20")


def odd_query(rng: random.Random) -> dict[str, str]:
    return {rng.choice(QUERY_KEYS): rng.choice(ODD_TEXT) for _ in range(rng.randint(0, 3))}


def odd_body(rng: random.Random) -> tuple[bytes, dict[str, str]]:
    roll = rng.random()
    if roll < 0.15:
        return rng.randbytes(rng.randrange(0, 40)), {"content-type": "application/json"}
    if roll < 0.25:
        return json.dumps(rng.choice(ODD_JSON)).encode(), {"content-type": "application/json"}
    body = {
        rng.choice(FIELDS): rng.choice([*ODD_JSON, *ODD_TEXT]) for _ in range(rng.randint(0, 5))
    }
    text = json.dumps(body, allow_nan=True).encode()
    headers = {"content-type": rng.choice(["application/json", "text/plain", "", "a/b"])}
    return text, headers


def check(reply: httpx.Response, what: str, seen: Counter) -> None:
    seen[reply.status_code] += 1
    assert reply.status_code < 500 or reply.status_code == 503, (
        what,
        reply.status_code,
        reply.text[:300],
    )
    assert "Traceback" not in reply.text and 'File "' not in reply.text, (what, reply.text[:300])
    if reply.status_code >= 400:
        data = reply.json()  # every error is JSON with its message and code
        assert isinstance(data.get("error"), str) and data["error"], (what, data)


def test_odd_requests_to_every_route_are_answered_clearly(client: httpx.Client) -> None:
    rng = random.Random(SEED)
    seen: Counter = Counter()
    last_post = 0.0
    for n in range(REQUESTS):
        operator = {"authorization": rng.choice(["Bearer x", "Basic y", "Bearer", ""])}
        if rng.random() < 0.6:
            path = odd_path(rng, rng.choice(GET_ROUTES))
            reply = client.get(path, params=odd_query(rng), headers=operator)
            check(reply, f"{n}: GET {path}", seen)
            continue
        path = odd_path(rng, rng.choice(POST_ROUTES))
        content, headers = odd_body(rng)
        time.sleep(max(0.0, last_post + POST_GAP - time.monotonic()))
        last_post = time.monotonic()
        reply = client.post(path, content=content, headers={**headers, **operator})
        check(reply, f"{n}: POST {path} {content[:200]!r}", seen)
    print(f"web fuzz: {REQUESTS} requests, statuses {dict(sorted(seen.items()))}")
    assert seen[200] > 20 and seen[400] > 50 and seen[404] > 50, seen  # the handlers were reached
    assert seen[429] < REQUESTS // 20, seen  # the pacing kept the requests under the rate
