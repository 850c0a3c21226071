"""A person plays a whole tournament in Chromium from its page: registers (the cookie is
HttpOnly), plays every decision of two Swiss rounds against bots without retyping anything,
reloads mid-round, sees the between-rounds screen and the final standings; a second device
joins the same registration with the player id and secret. At desktop and phone sizes;
screenshots in ``artifacts/``. Every wait is for a state, with generous bounds (a loaded
machine), never a timing."""

from __future__ import annotations

import time
from typing import Any

import pytest
from google.protobuf.duration_pb2 import Duration

from hebei.v1 import types_pb2 as pb
from tests.e2e.web.test_pages import play_one, state_of
from tests.integration.web.harness import open_tournament, start_tournament

SIZES = {"desktop": (1366, 768), "phone": (390, 844)}
ROUND_SECONDS = 300  # bound on one round (1 hand) on a loaded machine
BREAK_SECONDS = 20  # the break between the rounds, so its screen is seen


def playing(page: Any) -> bool:
    return page.locator("#you[data-phase=playing]").count() > 0


def wait_for_table(page: Any) -> None:
    page.wait_for_selector("#you[data-phase=playing]", timeout=ROUND_SECONDS * 1000)
    page.wait_for_function(
        "document.querySelectorAll('#board .seat[data-seat]').length === 4"
        " && window.hebeiPage.state !== null",
        timeout=120_000,
    )


def play_until_the_table_closes(page: Any, reload_after: int | None = None) -> int:
    """Answer every decision (taking the seat back if a loaded machine let the clock run
    out) until the page leaves the table; reload the page after ``reload_after`` decisions.
    The number of decisions answered."""
    answered = 0
    deadline = time.monotonic() + ROUND_SECONDS
    while playing(page):
        assert time.monotonic() < deadline, "the round did not end in time"
        state = state_of(page)
        if state is not None and state.get("auto") and not state["finished"]:
            # A decision ran out of time on a loaded machine: take the seat back (t), unless
            # the match ends meanwhile.
            page.keyboard.press("t")
            page.wait_for_function(
                "() => { const s = window.hebeiPage.state; return !s || !s.auto || s.finished"
                " || !document.querySelector('#you[data-phase=playing]'); }",
                timeout=60_000,
            )
            continue
        decision = state["decision_id"] if state else ""
        play_one(page, state)
        if decision and (state_of(page) or {}).get("decision_id") != decision:
            answered += 1
        if reload_after is not None and answered == reload_after:
            page.reload()
            wait_for_table(page)
            reload_after = None
    return answered


@pytest.mark.parametrize("size", list(SIZES))
def test_a_person_plays_a_whole_tournament_in_the_browser(
    page: Any, browser: Any, site: Any, web_stack: Any, artifacts: Any, size: str
) -> None:
    try:
        play_the_event(page, browser, site, web_stack, artifacts, size)
    except Exception:
        page.screenshot(path=str(artifacts / f"tournament-failed-{size}.png"), full_page=True)
        print("the page's state:", page.evaluate("JSON.stringify(window.hebeiTournament.me)"))
        print("the table:", page.evaluate("JSON.stringify(window.hebeiPage.state)"))
        raise


def play_the_event(
    page: Any, browser: Any, site: Any, web_stack: Any, artifacts: Any, size: str
) -> None:
    width, height = SIZES[size]
    page.set_viewport_size({"width": width, "height": height})
    urls: list[str] = []
    page.on("request", lambda request: urls.append(request.url))
    control = pb.TimeControl(per_decision=Duration(seconds=20), time_bank=Duration(seconds=30))
    tournament_id = open_tournament(
        web_stack,
        bots=3,
        rounds=2,
        hands=1,
        time_control=control,
        round_break=Duration(seconds=BREAK_SECONDS),
    )

    # Register on the tournament page: the player id and secret are shown once.
    page.goto(f"{site.url}tournament.html?id={tournament_id}")
    page.wait_for_selector("#register:not(.hidden)")
    page.screenshot(path=str(artifacts / f"tournament-join-{size}.png"), full_page=True)
    page.fill("#register input[name=name]", "Lin")
    page.click("#register button[type=submit]")
    page.wait_for_selector("#credentials:not(.hidden) #my-secret")
    player_id = page.locator("#my-player-id").inner_text()
    secret = page.locator("#my-secret").inner_text()
    assert player_id and secret
    assert "hebei_player" not in page.evaluate("document.cookie")  # HttpOnly
    page.wait_for_selector("#you[data-phase=registration]")
    page.screenshot(path=str(artifacts / f"tournament-registered-{size}.png"), full_page=True)

    start_tournament(web_stack, tournament_id)

    # Round 1: the table comes by itself; reload mid-round and play on.
    wait_for_table(page)
    assert page.locator(".seat.pos-bottom .name").inner_text().startswith("Lin")
    if size == "desktop":
        second_device(browser, site, tournament_id, player_id, secret, artifacts)
    page.screenshot(path=str(artifacts / f"tournament-table-{size}.png"))
    first = play_until_the_table_closes(page, reload_after=2)

    # Between the rounds: the result of round 1, the standings, the next round.
    page.wait_for_selector("#you .result[data-round='1']", timeout=ROUND_SECONDS * 1000)
    if not playing(page):
        text = page.locator("#you-status").inner_text()
        assert "Round 1: you finished" in text, text
        page.screenshot(path=str(artifacts / f"tournament-between-{size}.png"), full_page=True)

    # Round 2, then the final standings.
    wait_for_table(page)
    second = play_until_the_table_closes(page)
    page.wait_for_selector("#you [data-phase=final]", timeout=ROUND_SECONDS * 1000)
    page.wait_for_selector("#you .result[data-round='2']")
    assert page.locator("#standings tbody tr.me").count() == 1
    assert "The tournament is over" in page.locator("#you-status").inner_text()
    page.screenshot(path=str(artifacts / f"tournament-final-{size}.png"), full_page=True)
    assert first + second >= 2, (first, second)

    # No secret and no seat key in any address the page used.
    assert not [u for u in urls if secret in u or "seat=" in u or "seat_token" in u], urls


def second_device(
    browser: Any, site: Any, tournament_id: str, player_id: str, secret: str, artifacts: Any
) -> None:
    """Another device joins the registration with the player id and secret, and lands on the
    same table."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, bypass_csp=True)
    context.set_default_timeout(60_000)
    try:
        other = context.new_page()
        other.goto(f"{site.url}tournament.html?id={tournament_id}")
        other.wait_for_selector("#join:not(.hidden)")
        other.click("#sign-in-box summary")
        other.fill("#sign-in input[name=player_id]", player_id)
        other.fill("#sign-in input[name=player_secret]", secret)
        other.click("#sign-in button[type=submit]")
        wait_for_table(other)
        assert other.locator(".seat.pos-bottom .name").inner_text().startswith("Lin")
        other.screenshot(path=str(artifacts / "tournament-second-device.png"))
    finally:
        context.close()
