"""The pages in a real Chromium against the whole stack: play against bots from the lobby,
watch a table, follow a tournament, the operators' view. Screenshots and the event-to-DOM
latency go to ``artifacts/`` (kept out of git)."""

from __future__ import annotations

import contextlib
import json
import statistics
import time
from typing import Any

import grpc
import httpx
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from hebei.v1 import matchmaking_pb2 as mm
from tests.e2e.web.conftest import sit_down
from tests.integration.web.harness import bot_tournament, choose, operator_stub

PLAY_SECONDS = 300  # bound on waiting for a pong to be offered (the match has 16 hands)
PONG_MATCHES = 3  # matches played, at most, until one offers a pong


def state_of(page: Any) -> dict[str, Any] | None:
    return page.evaluate("window.hebeiPage && window.hebeiPage.state")


def take_over(page: Any) -> None:
    """Take the seat back from auto-play (托管) with the key ``t``."""
    page.keyboard.press("t")
    page.wait_for_selector("#auto[data-on='0']", timeout=60_000)


def our_discards(page: Any) -> int:
    return page.locator(".seat.pos-bottom .discards .tile").count()


def play_one(page: Any, state: dict[str, Any] | None) -> bool:
    """Answer the open decision as the person would (keys, clicks); True after a discard."""
    if state is None or state["finished"] or not state["decision_id"]:
        page.wait_for_timeout(50)
        return False
    discarded = False
    if any(option["kind"] == "pass" for option in state["options"]):
        page.keyboard.press("x")  # the terminal client's key: pass
    elif any(t["discard"] for t in state["hand"]):
        tile = choose(state, pong=False)
        before = our_discards(page)
        page.click(f"#hand .tile.can[data-tile='{tile}'] >> nth=0")
        page.wait_for_function(
            f"document.querySelectorAll('.seat.pos-bottom .discards .tile').length > {before}"
            f" || !window.hebeiPage.state || window.hebeiPage.state.hand_no !== {state['hand_no']}"
            " || window.hebeiPage.state.phase === 'hand_end'",
            timeout=60_000,
        )
        discarded = True
    else:
        page.wait_for_timeout(50)
        return False
    page.wait_for_function(
        f"() => {{ const s = window.hebeiPage.state; return !s || s.decision_id !== "
        f"{json.dumps(state['decision_id'])} || s.finished; }}",
        timeout=60_000,
    )
    return discarded


def claim_a_pong(page: Any) -> bool:
    """Play this match (keep pairs, pass on claims, drop the connection after each of the
    first two discards) until a pong is offered, and claim it; False if the match ends first."""
    drops = 0
    deadline = time.monotonic() + PLAY_SECONDS
    while True:
        assert time.monotonic() < deadline, "no pong was offered within the bound"
        state = state_of(page)
        assert state is not None
        if state["finished"]:
            return False
        if state.get("auto"):  # a decision ran out of time on a loaded machine: take over
            take_over(page)
            continue
        if any(option["kind"] == "pong" for option in state["options"]):
            # The state can run ahead of the page's buttons on a loaded machine: wait for the
            # button (passing for want of it let every offer of a match go by, once).
            try:
                page.click("#option-buttons button[data-kind=pong]", timeout=10_000)
            except PlaywrightTimeout:
                continue  # the offer went by meanwhile (its time ran out): wait for another
            page.wait_for_function(
                "() => { const s = window.hebeiPage.state;"
                " return !s.options.some(o => o.kind === 'pong'); }"
            )
            if page.locator(".seat.pos-bottom .meld[data-kind=pong]").count() > 0:
                return True
        elif play_one(page, state) and drops < 2:
            page.evaluate("window.hebeiFeed.drop()")  # a dropped connection, resumed
            drops += 1


def test_play_against_bots_in_the_browser(page: Any, site: Any, artifacts: Any) -> None:
    sit_down(page, site, hands=16)

    # Four seats from the person's seat, and a bot's discard.
    page.wait_for_function("document.querySelectorAll('.seat[data-seat]').length === 4")
    assert page.locator(".seat.pos-bottom .name").inner_text().startswith("Mei")
    page.wait_for_selector(".seat:not(.pos-bottom) .discards .tile", timeout=60_000)

    # Auto-play (托管) on, then off again, in the match's first hands: the engine may play a
    # few hands meanwhile, and a match near its end would finish (and take-over with it).
    page.keyboard.press("t")
    page.wait_for_selector("#auto[data-on='1']")
    page.wait_for_selector(".seat.pos-bottom [data-flag=auto]")
    take_over(page)
    assert not state_of(page)["finished"], "auto-play finished the match: give it more hands"

    # Play: keep pairs, pass on claims, until a pong is offered; then claim it. Whether a
    # match offers one is the luck of its walls (and auto-play above may have taken most of
    # its hands: CI once saw a match end without one), so a match that ends without a pong
    # is followed by a new one, at most PONG_MATCHES in all.
    for match in range(PONG_MATCHES):
        if match:
            sit_down(page, site, hands=16)
            page.wait_for_function("document.querySelectorAll('.seat[data-seat]').length === 4")
        if claim_a_pong(page):
            break
    else:
        raise AssertionError(f"no pong was offered in {PONG_MATCHES} matches of 16 hands")
    page.screenshot(path=str(artifacts / "table-pong.png"))

    # The person plays the hand to its end; its settlement shows, with each win's fans. The
    # engine deals the next hand at once, so the hand's end is told by the state (a page that
    # showed the settlement only until then would fail below, where it flashed before).
    ended = state_of(page)["hand_no"]
    deadline = time.monotonic() + PLAY_SECONDS
    shot = False
    while True:
        assert time.monotonic() < deadline, "the hand did not end"
        state = state_of(page)
        if state["hand_no"] != ended or state["phase"] in ("hand_end", "match_end"):
            break
        if not shot and our_discards(page) >= 6 and state["hand"] and state["decision_id"]:
            page.screenshot(path=str(artifacts / "table.png"))
            shot = True
        play_one(page, state)
    page.wait_for_selector("#settlement:not(.hidden) h2")
    shown = page.locator("#settlement h2").inner_text()
    assert "settlement" in shown and shown == f"Hand {ended} settlement"
    # It stays on the page into the next hand.
    page.wait_for_function(
        f"Number(document.querySelector('#board').dataset.hand) > {ended}"
        " || window.hebeiPage.state.finished",
        timeout=60_000,
    )
    assert page.locator("#settlement").is_visible()
    assert page.locator("#settlement h2").inner_text() == shown
    page.screenshot(path=str(artifacts / "table-settlement.png"), full_page=True)

    # Nothing lost over the reconnections: one snapshot, then every delta in order.
    feed = page.evaluate(
        "({applied: window.hebeiFeed.applied, opens: window.hebeiFeed.opens,"
        " snapshots: window.hebeiFeed.snapshots})"
    )
    assert feed["snapshots"] == 1 and feed["opens"] >= 3, feed
    seqs = [seq for _kind, seq in feed["applied"]]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), seqs

    # Engine event -> DOM (deltas delivered live, not those caught up after a reconnection).
    records = page.evaluate("window.hebeiLatency")
    live = sorted(r["dom_ms"] for r in records if not r["catch_up"])
    frames = sorted(r["frame_ms"] for r in records if not r["catch_up"] and "frame_ms" in r)
    figures = {
        "events": len(live),
        "dom_p50_ms": statistics.median(live),
        "dom_p95_ms": live[int(0.95 * (len(live) - 1))],
        "dom_max_ms": live[-1],
        "frame_p50_ms": statistics.median(frames),
        "frame_p95_ms": frames[int(0.95 * (len(frames) - 1))],
    }
    (artifacts / "latency.json").write_text(json.dumps(figures, indent=2) + "\n")
    print(f"engine event -> DOM: {figures}")
    assert len(live) >= 20 and figures["dom_p50_ms"] < 2000, figures

    # A phone-sized window.
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(artifacts / "table-phone.png"), full_page=True)


def test_a_spectator_sees_no_concealed_tile(page: Any, site: Any, artifacts: Any) -> None:
    with httpx.Client(base_url=site.url.rstrip("/"), timeout=30) as client:
        seat = client.post(
            "/api/quickplay", json={"name": "Lin", "policy": "efficiency", "hands": 2}
        ).json()
        page.goto(f"{site.url}table.html?match={seat['match_id']}")
        page.wait_for_selector("#board[data-mode=spectator]")
        deadline = time.monotonic() + 60
        while client.post(f"/api/seats/{seat['key']}/auto", json={"on": True}).status_code != 202:
            assert time.monotonic() < deadline
            time.sleep(0.2)
        page.wait_for_selector(".seat .discards .tile", timeout=60_000)
        page.evaluate("window.hebeiFeed.drop()")
        page.wait_for_function("window.hebeiPage.state.finished", timeout=120_000)
    assert page.locator("#hand-area").is_hidden()
    concealed = page.locator(".seat .concealed .tile")
    assert concealed.count() > 0
    for index in range(concealed.count()):
        tile = concealed.nth(index)
        assert "back" in tile.get_attribute("class") and tile.get_attribute("data-tile") == ""
    state = state_of(page)
    assert state["hand"] == [] and state["options"] == [] and state["mode"] == "spectator"
    feed = page.evaluate(
        "({applied: window.hebeiFeed.applied, snapshots: window.hebeiFeed.snapshots})"
    )
    seqs = [seq for _kind, seq in feed["applied"]]
    assert feed["snapshots"] == 1 and seqs == sorted(set(seqs)), feed
    assert "Final scores" in page.locator("#settlement").inner_text()
    page.screenshot(path=str(artifacts / "spectator.png"), full_page=True)


def test_a_tournament_and_the_operators_view(
    page: Any, site: Any, web_stack: Any, artifacts: Any
) -> None:
    # Long enough that its tables are still playing when the operator acts (on an idle machine
    # the bots play a 64-hand match in about 5 s, so 16 rounds); cancelled at the end.
    tournament_id = bot_tournament(web_stack, players=8, rounds=16, hands=64)
    try:
        page.goto(f"{site.url}tournament.html?id={tournament_id}")
        page.wait_for_function("document.querySelectorAll('#standings tbody tr').length === 8")
        page.wait_for_selector(".round .quality")
        assert "repeat pairs" in page.locator(".round .quality").first.inner_text()
        page.wait_for_selector("tr[data-live='1']", timeout=60_000)
        page.screenshot(path=str(artifacts / "tournament.png"), full_page=True)

        # A live table, clicked into.
        page.click("tr[data-live='1'] >> nth=0")
        page.wait_for_url("**/table.html?match=*")
        page.wait_for_function("document.querySelectorAll('.seat[data-seat]').length === 4")
        page.wait_for_selector("#tournament-link:not(.hidden)")

        # The operators' view: health, tables, pause and resume, dissolve.
        page.goto(f"{site.url}operator.html")
        page.fill("input[name=token]", web_stack.operator_token)
        page.fill("input[name=actor]", "Ana")
        page.click("#token-form button[type=submit]")
        page.wait_for_function(
            "document.querySelectorAll('#services tbody .badge.ok').length === 4"
        )
        row = page.locator(f"#tournaments tr[data-tournament='{tournament_id}']")
        row.locator("button", has_text="Pause").click()
        page.wait_for_selector(f"#tournaments tr[data-tournament='{tournament_id}'] >> text=paused")
        row.locator("button", has_text="Resume").click()
        page.wait_for_selector(
            f"#tournaments tr[data-tournament='{tournament_id}'] >> text=running"
        )
        page.wait_for_selector("#tables tbody tr[data-match]")
        page.screenshot(path=str(artifacts / "operator.png"), full_page=True)
        # The list is refreshed every 3 s and a match can end in between (its round over): then
        # the engine refuses to dissolve it, the page says so, and the operator takes the next
        # live one. A refusal of every live table fails the test at the deadline.
        deadline = time.monotonic() + 60
        refusals = []
        while True:
            page.evaluate("document.querySelector('#status').textContent = ''")
            page.wait_for_selector("#tables tbody tr[data-match]")
            page.once("dialog", lambda dialog: dialog.accept("checked from the browser"))
            page.locator("#tables tbody tr[data-match] button").first.click()
            page.wait_for_function(
                "document.querySelector('#status').textContent.startsWith('Dissolved')"
                " || document.querySelector('#status .error') !== null"
            )
            if page.locator("#status .error").count() == 0:
                break
            refusals.append(page.locator("#status").inner_text())
            assert time.monotonic() < deadline, refusals
        # The confirmation stays through the list's refreshes (every 3 s) until the next
        # action: a refresh clears only its own failure. A refresh is over once it has
        # rebuilt the services' rows (after its status line), which drops this mark.
        page.evaluate("document.querySelector('#services tbody tr').dataset.seen = '1'")
        page.wait_for_function("!document.querySelector('#services tbody tr[data-seen]')")
        assert page.locator("#status").inner_text().startswith("Dissolved")
        assert page.evaluate("sessionStorage.getItem('hebei.operator')")
    finally:
        with contextlib.suppress(grpc.RpcError):  # a failure above is the one to report
            operator_stub(web_stack).CancelTournament(
                mm.CancelTournamentRequest(tournament_id=tournament_id, reason="test over")
            )
