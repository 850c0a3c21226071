"""My matches' cookie and the replayer's steps, without a stack."""

from __future__ import annotations

from types import SimpleNamespace

from starlette.requests import Request
from starlette.responses import Response

from hebei.rules.match import Match, MatchLength
from hebei.rules.profile import get_profile
from hebei.web.history import (
    COOKIE,
    MAX_COOKIE,
    MAX_REMEMBERED,
    hand_steps,
    read_list,
    remember,
    remember_tables,
)


def request_with(cookie: str = "") -> Request:
    headers = [(b"cookie", f"{COOKIE}={cookie}".encode())] if cookie else []
    return Request(
        {"type": "http", "headers": headers, "scheme": "http", "server": ("h", 80), "path": "/"}
    )


def cookie_of(response: Response) -> str:
    header = next(v.decode() for k, v in response.raw_headers if k == b"set-cookie")
    assert "HttpOnly" in header and "SameSite=strict" in header and "Path=/api" in header
    return header.split(";", 1)[0].split("=", 1)[1]


def test_the_list_is_newest_first_bounded_and_without_repeats() -> None:
    value = ""
    for number in range(MAX_REMEMBERED + 5):
        response = Response()
        session = SimpleNamespace(match_id=f"q-{number:04d}", seat=number % 4)
        remember(response, request_with(value), session, "" if number % 2 else "cup")
        value = cookie_of(response)
    items = read_list(request_with(value))
    assert len(items) == MAX_REMEMBERED and len(value) <= MAX_COOKIE
    assert items[0] == {
        "match_id": f"q-{MAX_REMEMBERED + 4:04d}",
        "seat": 0,
        "tournament_id": "cup",
    }
    response = Response()  # the same seat again moves to the front, once
    remember(
        response,
        request_with(value),
        SimpleNamespace(match_id=items[3]["match_id"], seat=items[3]["seat"]),
    )
    again = read_list(request_with(cookie_of(response)))
    assert again[0]["match_id"] == items[3]["match_id"] and len(again) == MAX_REMEMBERED
    assert len({(i["match_id"], i["seat"]) for i in again}) == MAX_REMEMBERED


def test_a_cookie_not_ours_is_no_list() -> None:
    for junk in ("x", "e30", "W1sxLDIsM11d", "!!!", "W1siYSIsNywiIl1d"):
        assert read_list(request_with(junk)) == []


def test_a_hand_as_steps_shows_every_seat() -> None:
    match = Match(12345, MatchLength(hands=1), get_profile("main"))
    hand = match.next_hand()
    while not hand.ended:
        seat = hand.to_act()[0]
        hand.apply(seat, hand.auto_action(seat), auto=True)
    steps = hand_steps(list(hand.events))["steps"]
    assert sorted(len(s["concealed"]) for s in steps[0]["seats"]) == [13, 13, 13, 14]
    assert steps[-1]["events"][-1]["type"] == "hand_end"
    assert all(step["events"][-1]["type"] != "pass" for step in steps)  # folded in
    assert "seed" not in steps[0]["events"][0] and "hands" not in steps[0]["events"][1]
    assert steps[-1]["events"][-1]["totals"] is not None


def test_a_tournament_persons_tables_join_the_list_once() -> None:
    tables = [
        {"match_id": "m1", "seat": 2},
        {"match_id": "m2", "seat": 0},
        {"match_id": "m2", "seat": 0},
    ]
    response = Response()
    remember_tables(response, request_with(), tables, "cup")
    value = cookie_of(response)
    assert read_list(request_with(value)) == [
        {"match_id": "m2", "seat": 0, "tournament_id": "cup"},
        {"match_id": "m1", "seat": 2, "tournament_id": "cup"},
    ]
    again = Response()  # nothing new: no cookie set again
    remember_tables(again, request_with(value), tables[:1], "cup")
    assert not [k for k, _ in again.raw_headers if k == b"set-cookie"]
