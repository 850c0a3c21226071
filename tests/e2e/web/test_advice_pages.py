"""Hints and reviews in a real Chromium: the person presses Hint (``s``) at an open decision
and sees the expert's legal suggestion with its reason, plays it, lets auto-play finish the
hand, and opens the review of the match. Screenshots go to ``artifacts/``."""

from __future__ import annotations

import time
from typing import Any

from tests.e2e.web.conftest import sit_down

DECISION_SECONDS = 120


def state_of(page: Any) -> dict[str, Any]:
    return page.evaluate("window.hebeiPage && window.hebeiPage.state") or {}


def wait_for_my_decision(page: Any) -> dict[str, Any]:
    deadline = time.monotonic() + DECISION_SECONDS
    while True:
        assert time.monotonic() < deadline, "no decision of the person's came"
        state = state_of(page)
        assert not state.get("finished"), "the match ended before the person decided anything"
        if state.get("auto"):  # a decision ran out of time on a loaded machine: take over
            page.keyboard.press("t")
            page.wait_for_selector("#auto[data-on='0']", timeout=60_000)
            continue
        if state.get("decision_id") and page.locator("#hint:not([disabled])").count():
            return state
        page.wait_for_timeout(50)


def test_a_hint_then_the_review_in_the_browser(page: Any, site: Any, artifacts: Any) -> None:
    sit_down(page, site, hands=1)

    # Hint by its key, as in hebei play --hints: the expert's choice for this decision.
    shown = None
    for _attempt in range(5):  # a claim window may close before the hint comes back
        state = wait_for_my_decision(page)
        page.keyboard.press("s")
        page.wait_for_selector("#hint-box:not(.hidden)")
        if page.locator("#hint-box .best").count() and page.evaluate(
            "document.querySelector('#hint-box').dataset.decision"
            " === window.hebeiPage.state.decision_id"
        ):
            shown = state
            break
        page.wait_for_function(
            f"window.hebeiPage.state.decision_id !== {state['decision_id']!r}"
            " || window.hebeiPage.state.finished"
        )
    assert shown is not None, "no hint was shown for an open decision"
    best = page.locator("#hint-box .best")
    kind, tile = best.get_attribute("data-kind"), best.get_attribute("data-tile")
    text = best.inner_text()
    assert text.startswith("Expert (level") and " — " in text and text.split(" — ", 1)[1].strip()
    if kind == "discard":
        assert tile in [t["tile"] for t in shown["hand"] if t["discard"]], (tile, shown["hand"])
        suggested = page.locator("#hand .tile.suggested")
    else:
        assert kind in [o["kind"] for o in shown["options"]], (kind, shown["options"])
        suggested = page.locator("#option-buttons button.suggested")
    assert suggested.count() == 1
    page.screenshot(path=str(artifacts / "table-hint.png"))

    # The person plays the suggestion (a click on the highlighted tile or button) ...
    decision = shown["decision_id"]
    suggested.click()
    page.wait_for_function(
        f"window.hebeiPage.state.decision_id !== {decision!r} || window.hebeiPage.state.finished"
    )
    # ... then hands the seat to auto-play (托管) until the one-hand match ends.
    deadline = time.monotonic() + DECISION_SECONDS
    while page.locator("#auto[data-on='1']").count() == 0 and not state_of(page).get("finished"):
        assert time.monotonic() < deadline, "auto-play did not start"
        if state_of(page).get("phase") not in (None, "waiting"):
            page.keyboard.press("t")
        page.wait_for_timeout(300)
    page.wait_for_function("window.hebeiPage.state.finished", timeout=120_000)

    # The review of the match, from the table page's link.
    page.click("#review-link")
    page.wait_for_url("**/review.html?match=*")
    page.wait_for_selector("#summary:not(.hidden)", timeout=120_000)
    review = page.evaluate("window.hebeiReview.review")
    assert review["seat"] == shown["viewer"] and review["decisions"] >= 1
    rate = page.locator("#summary .rate").inner_text()
    assert rate == f"{round(review['agreement'] * 100)}%"
    assert page.locator("#rows tbody tr").count() == len(review["differences"])
    page.screenshot(path=str(artifacts / "review.png"), full_page=True)

    # Another seat of the same match: a bot's, with its rows.
    other = (shown["viewer"] + 1) % 4
    page.select_option("#seat", str(other))
    page.click("#review")
    page.wait_for_function(
        f"window.hebeiReview.review && window.hebeiReview.review.seat === {other}"
    )
    bot = page.evaluate("window.hebeiReview.review")
    assert bot["decisions"] > 0
    assert page.locator("#rows tbody tr").count() == len(bot["differences"])
