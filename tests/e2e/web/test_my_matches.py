"""My matches in Chromium: a quick-play match played from this browser is listed, its replay
refused while it is live, then stepped through hand by hand once it has ended, every seat's
tiles shown, with a link to its review."""

from __future__ import annotations

import time
from typing import Any

import httpx

from hebei.web.server import RunningGateway

ENDED = ("finished", "dissolved")


def post(page: Any, path: str, body: dict[str, Any]) -> dict[str, Any]:
    """A same-origin POST from the page, as its own scripts send them."""
    return page.evaluate(
        """async ([path, body]) => {
            const r = await fetch(path, {method: "POST", body: JSON.stringify(body),
                headers: {"Content-Type": "application/json", Accept: "application/json"}});
            return {status: r.status, data: await r.json()};
        }""",
        [path, body],
    )


def wait_ended(site: RunningGateway, match_id: str, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    with httpx.Client(base_url=site.url.rstrip("/"), timeout=30) as client:
        while time.monotonic() < deadline:
            if client.get(f"/api/tables/{match_id}").json()["status"] in ENDED:
                return
            time.sleep(0.3)
    raise AssertionError(f"match {match_id} did not end in time")


def test_my_matches_lists_and_replays_a_finished_match(page, site, artifacts):
    page.goto(site.url)
    seated = post(page, "/api/quickplay", {"name": "Mei", "policy": "efficiency", "hands": 1})
    assert seated["status"] == 201, seated
    key, match_id, seat = (seated["data"][k] for k in ("key", "match_id", "seat"))

    # While the match is live its tiles are never shown: the replayer says why.
    page.goto(f"{site.url}my-matches.html?match={match_id}&seat={seat}")
    page.wait_for_selector("#replay-status .error")
    assert "still being played" in page.inner_text("#replay-status")
    assert page.locator("#board .tile").count() == 0
    row = page.locator(f"#matches tbody tr[data-match='{match_id}']")
    row.wait_for()
    assert "Replay" not in row.inner_text()

    handed = post(page, f"/api/seats/{key}/auto", {"on": True})
    assert handed["status"] in (202, 409), handed
    wait_ended(site, match_id)

    page.goto(f"{site.url}my-matches.html")
    row = page.locator(f"#matches tbody tr[data-match='{match_id}']")
    row.wait_for()
    assert "finished" in row.inner_text() and "Mei" in row.inner_text()
    assert row.locator("a", has_text="Review").get_attribute("href") == (
        f"/review.html?match={match_id}&seat={seat}"
    )
    row.locator("a.replay").click()
    page.wait_for_url(f"**/my-matches.html?match={match_id}&seat={seat}")
    page.wait_for_selector("#board[data-step='0'] .replay-seat")
    seats = page.locator("#board .replay-seat")
    assert seats.count() == 4
    # The deal: every seat's tiles face up (13 each, the dealer's 14), yours first.
    concealed = [
        seats.nth(i).locator(".replay-row").first.locator(".tile").count() for i in range(4)
    ]
    assert sorted(concealed) == [13, 13, 13, 14], concealed
    assert seats.first.get_attribute("data-seat") == str(seat)
    assert page.locator("#board .tile.back").count() == 0
    assert "deal" in page.inner_text("#step-log").lower()

    for step in (1, 2, 3):
        page.keyboard.press("ArrowRight")
        page.wait_for_selector(f"#board[data-step='{step}']")
    page.click("#prev")
    page.wait_for_selector("#board[data-step='2']")
    page.keyboard.press("End")
    page.wait_for_selector("#step-log li[data-type='hand_end']")
    assert page.locator("#next").is_disabled()
    discards = page.locator("#board .replay-seat .replay-row:nth-child(4) .tile").count()
    assert discards > 8
    assert page.get_attribute("#review-link", "href") == (
        f"/review.html?match={match_id}&seat={seat}"
    )
    page.screenshot(path=str(artifacts / "my-matches-replay.png"), full_page=True)


def dissolved_reason(stack: Any, match_id: str) -> str:
    """The reason of the match's match_dissolved event, as the engine logged it."""
    from hebei.common.client import create_channel
    from hebei.v1 import table_pb2, table_pb2_grpc
    from hebei.v1 import types_pb2 as pb

    channel = create_channel(stack.address("table"), timeout=30)
    try:
        stub = table_pb2_grpc.TableServiceStub(channel)
        request = table_pb2.SpectateRequest(match_id=match_id, from_seq=1)
        for response in stub.Spectate(request, timeout=30):
            if response.event.type == pb.EVENT_TYPE_MATCH_DISSOLVED:
                return response.event.reason
    finally:
        channel.close()
    raise AssertionError(f"match {match_id} was not dissolved")


def test_an_operator_named_in_any_script(page, site, web_stack):
    """The operator page sends its name percent-encoded; the gateway decodes it: 评估员 is who
    the engine's log says dissolved the table."""
    with httpx.Client(base_url=site.url.rstrip("/"), timeout=60) as client:
        seated = client.post("/api/quickplay", json={"policy": "efficiency", "hands": 4})
        assert seated.status_code == 201, seated.text
    match_id = seated.json()["match_id"]
    page.goto(f"{site.url}operator.html")
    page.fill("input[name=token]", web_stack.operator_token)
    page.fill("input[name=actor]", "评估员")
    page.click("#token-form button[type=submit]")
    row = page.locator(f"#tables tbody tr[data-match='{match_id}']")
    row.wait_for()
    page.once("dialog", lambda dialog: dialog.accept("名字 test"))
    row.locator("button", has_text="Dissolve").click()
    page.wait_for_function(
        "document.querySelector('#status').textContent.startsWith('Dissolved')"
        " || document.querySelector('#status .error') !== null"
    )
    assert page.inner_text("#status").startswith("Dissolved"), page.inner_text("#status")
    assert dissolved_reason(web_stack, match_id) == "名字 test (评估员)"
