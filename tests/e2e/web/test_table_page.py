"""The table page as a person plays it, in Debian's Chromium at a desktop's size and a phone's
(portrait and on its side) against the whole stack: one answer per decision (a double click
discards one tile), each discard marked as it arrives, the clock's two parts, the title on
the person's turn, the hand and buttons always in view with 44 px targets, Enter on a focused
Pong button, the hand's settlement (and after a reload), dead links in words, and the
contrast of every text on the pages. Everything waits for states; nothing asserts a time."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest

from tests.e2e.web.conftest import sit_down
from tests.integration.web.harness import bot_tournament, choose

SIZES = {"desktop": (1366, 768), "phone": (390, 844)}
PLAY_SECONDS = 420  # bound on the whole play (matches of 16 hands until a pong is offered)
MATCHES = 3
NOTATION = re.compile(r"\b[1-9][mpsz]\b")

# WCAG 2 contrast of every visible text against what is behind it (background colors
# composited up the tree; a disabled control, which WCAG exempts, is skipped).
CONTRAST = """
() => {
  const parse = (c) => {
    const m = c.match(/rgba?\\(([^)]+)\\)/);
    if (!m) return null;
    const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const over = (top, bottom) => [0, 1, 2].map((i) => top[i] * top[3] + bottom[i] * (1 - top[3])).concat(1);
  const lum = (c) => {
    const [r, g, b] = c.slice(0, 3).map((v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const behind = (node) => {
    const layers = [];
    for (let n = node; n && n.nodeType === 1; n = n.parentElement) {
      const c = parse(getComputedStyle(n).backgroundColor);
      if (c && c[3] > 0) {
        layers.push(c);
        if (c[3] >= 1) break;
      }
    }
    let color = [255, 255, 255, 1];
    for (const layer of layers.reverse()) color = over(layer, color);
    return color;
  };
  const failures = [];
  for (const node of document.querySelectorAll("body *")) {
    if (!Array.from(node.childNodes).some((c) => c.nodeType === 3 && c.textContent.trim())) continue;
    if (node.closest(":disabled, [aria-disabled=true], .hidden, script, style, title")) continue;
    const rect = node.getBoundingClientRect();
    const style = getComputedStyle(node);
    if (!rect.width || !rect.height || style.visibility !== "visible") continue;
    const bg = behind(node);
    const fg = over(parse(style.color), bg);
    const [hi, lo] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    const ratio = (hi + 0.05) / (lo + 0.05);
    const size = parseFloat(style.fontSize);
    const need = size >= 24 || (Number(style.fontWeight) >= 700 && size >= 18.66) ? 3 : 4.5;
    const text = node.textContent.trim().slice(0, 30);
    if (ratio < need) failures.push(`${node.tagName}.${node.className} "${text}" ${ratio.toFixed(2)}`);
  }
  return failures;
}
"""

# Where the board, the bar (hand and buttons) and every button of the bar are, at the top.
LAYOUT = """
() => {
  window.scrollTo(0, 0);
  const box = (node) => {
    const r = node.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width, height: r.height };
  };
  const out = (r) => r.right > innerWidth + 1;
  const wide = Array.from(document.querySelectorAll("body *")).filter((n) => out(n.getBoundingClientRect()))
    .map((n) => `${n.tagName}#${n.id}.${n.className}`);
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let t = walk.nextNode(); t; t = walk.nextNode()) {
    const range = document.createRange();
    range.selectNodeContents(t);
    if (out(range.getBoundingClientRect())) wide.push(`text "${t.textContent.slice(0, 40)}"`);
  }
  return {
    width: innerWidth, height: innerHeight, scrollWidth: document.documentElement.scrollWidth,
    board: box(document.querySelector("#board")), bar: box(document.querySelector("#hand-area")),
    hand: box(document.querySelector("#hand")), wide: wide.slice(0, 8),
    buttons: Array.from(document.querySelectorAll("#hand-area button"))
      .filter((b) => b.offsetParent !== null)
      .map((b) => ({ name: b.id || b.dataset.focus || b.textContent, ...box(b) })),
  };
}
"""

DECIDING = (
    "() => { const s = window.hebeiPage.state; return s && !s.finished && !s.auto && s.decision_id"
    " && (s.options.length > 0 || s.hand.some((t) => t.discard)); }"
)


def state_of(page: Any) -> dict[str, Any]:
    return page.evaluate("window.hebeiPage.state")


def assert_contrast(page: Any, where: str) -> None:
    failures = page.evaluate(CONTRAST)
    assert not failures, f"{where}: {failures}"


def assert_in_view(page: Any, phone: bool, where: str) -> None:
    """The hand and the buttons in the window; on a phone the board above them, nothing to
    scroll sideways, and every button at least 44 px each way."""
    layout = page.evaluate(LAYOUT)
    hand, bar = layout["hand"], layout["bar"]
    assert hand["top"] >= 0 and hand["bottom"] <= layout["height"] + 1, (where, layout)
    for button in layout["buttons"]:
        assert (
            button["bottom"] <= layout["height"] + 1 and button["right"] <= layout["width"] + 1
        ), (
            where,
            button,
        )
        assert button["width"] >= 44 and button["height"] >= 44, (where, button)
    if phone:
        assert layout["scrollWidth"] <= layout["width"], (where, layout["wide"])
        board = layout["board"]
        assert board["top"] >= 0 and board["bottom"] <= bar["top"] + 1, (where, board, bar)


def wait_deciding(page: Any) -> dict[str, Any]:
    page.wait_for_function(DECIDING, timeout=120_000)
    return state_of(page)


def our_discards(page: Any) -> int:
    return page.locator(".seat.pos-bottom .discards .tile").count()


def next_decision(page: Any, decision_id: str) -> None:
    page.wait_for_function(
        "() => { const s = window.hebeiPage.state;"
        f" return s.decision_id !== {json.dumps(decision_id)} || s.finished; }}",
        timeout=60_000,
    )


def answer(page: Any, state: dict[str, Any]) -> None:
    """Answer the open decision with a click or a tap: pass on a claim, else discard."""
    command = choose(state, pong=False)
    if command is None:
        return
    if any(t["discard"] for t in state["hand"]):
        page.click(f"#hand .tile.can[data-tile='{command}'] >> nth=0")
    else:
        page.click(f"#option-buttons button[data-command='{command}']")
    next_decision(page, state["decision_id"])


def double_click_discards_one(page: Any, posts: list[dict[str, Any]]) -> None:
    """A double click on a tile answers the turn once: one command, with its decision id."""
    while True:
        state = wait_deciding(page)
        if any(t["discard"] for t in state["hand"]):
            break
        answer(page, state)
    before = our_discards(page)
    tile = choose(state, pong=False)
    page.dblclick(f"#hand .tile.can[data-tile='{tile}'] >> nth=0")
    next_decision(page, state["decision_id"])
    page.wait_for_function(
        f"document.querySelectorAll('.seat.pos-bottom .discards .tile').length > {before}"
        f" || window.hebeiPage.state.hand_no !== {state['hand_no']}",
        timeout=60_000,
    )
    answered = [p for p in posts if str(p.get("decision_id")) == state["decision_id"]]
    assert len(answered) == 1 and answered[0]["command"] == tile, posts
    if state_of(page)["hand_no"] == state["hand_no"]:
        assert our_discards(page) == before + 1


def check_settlement(page: Any, artifacts: Any, size: str) -> None:
    """The hand's end in words, over the board until closed, and still there after a reload."""
    box = page.locator("#settlement")
    page.wait_for_selector("#settlement:not(.hidden) h2")
    heading = page.locator("#settlement h2").inner_text()
    text = box.inner_text()
    assert re.search(r"Base payment \d+ .*\+ bonus \d+|points: the pattern|exhaustive draw", text)
    assert "Total" in text
    assert_contrast(page, "settlement")
    page.screenshot(path=str(artifacts / f"table-page-settlement-{size}.png"))
    page.reload()
    page.wait_for_function("document.querySelectorAll('.seat[data-seat]').length === 4")
    page.wait_for_selector("#settlement:not(.hidden) h2")
    assert page.locator("#settlement h2").inner_text() == heading
    assert page.locator("#log li").count() > 0, "What happened survives a reload"
    if page.locator("#settlement .close").count():
        page.click("#settlement .close")
        page.wait_for_selector("#settlement", state="hidden")


@pytest.mark.parametrize("size", list(SIZES))
def test_a_person_plays_at_the_table(page: Any, site: Any, artifacts: Any, size: str) -> None:
    width, height = SIZES[size]
    phone = size == "phone"
    page.set_viewport_size({"width": width, "height": height})
    posts: list[dict[str, Any]] = []

    def on_request(request: Any) -> None:
        if request.method == "POST" and request.url.endswith("/commands"):
            posts.append(json.loads(request.post_data or "{}"))

    page.on("request", on_request)
    sit_down(page, site, hands=16)
    page.wait_for_function("document.querySelectorAll('.seat[data-seat]').length === 4")

    # The person's turn: the title says so (a background tab), the clock's two parts.
    state = wait_deciding(page)
    page.wait_for_function("document.title.startsWith('● Your turn')")
    page.wait_for_function(r"/\d+ \+ \d+ s/.test(document.querySelector('#timer').textContent)")
    assert "You's" not in page.locator("body").inner_text()
    if state["phase"] == "turn":
        assert page.locator("#offer").inner_text() == "Your turn"
    assert "Enter" in page.locator("#help").inner_text(), "the keys are listed on the page"
    assert_in_view(page, phone, "first decision")
    assert_contrast(page, "the table")
    page.screenshot(path=str(artifacts / f"table-page-{size}.png"))
    if phone:
        page.set_viewport_size({"width": height, "height": width})
        assert_in_view(page, True, "landscape")
        page.screenshot(path=str(artifacts / "table-page-landscape.png"))
        page.set_viewport_size({"width": width, "height": height})

    # One answer per decision, whatever the clicks.
    double_click_discards_one(page, posts)
    assert all("decision_id" in post for post in posts), posts

    # The bots' discards arrive one by one, each marked as it comes; the newest outlined.
    page.wait_for_selector(
        ".seat:not(.pos-bottom) .discards .tile.fresh", state="attached", timeout=60_000
    )
    page.wait_for_selector(".discards .tile.last", state="attached", timeout=60_000)

    # Auto-play on by its key; one obvious button takes the seat back.
    page.keyboard.press("t")
    page.wait_for_selector("#back:not(.hidden)", timeout=60_000)
    assert "托管" in page.locator("#prompt").inner_text()
    page.click("#back")
    page.wait_for_selector("#auto[data-on='0']", timeout=60_000)
    page.wait_for_selector("#back", state="hidden")

    ponged = settled = late_checked = shot = False
    matches = 1
    deadline = time.monotonic() + PLAY_SECONDS
    while not (ponged and settled):
        assert time.monotonic() < deadline, f"pong {ponged}, settlement {settled}"
        state = state_of(page)
        if state["finished"]:
            assert settled, "a match of 16 hands ended without a settlement shown"
            assert matches < MATCHES, "no pong was offered"
            matches += 1
            sit_down(page, site, hands=16)
            page.wait_for_function("document.querySelectorAll('.seat[data-seat]').length === 4")
            continue
        if not settled and page.locator("#settlement:not(.hidden)").count():
            check_settlement(page, artifacts, size)
            settled = True
            continue
        if state["auto"]:  # the clock ran out on a loaded machine: one button takes it back
            page.click("#back")
            page.wait_for_selector("#auto[data-on='0']", timeout=60_000)
            continue
        if not page.evaluate(DECIDING):
            page.wait_for_timeout(50)
            continue
        if not shot and our_discards(page) >= 6:
            page.screenshot(path=str(artifacts / f"table-page-play-{size}.png"))
            shot = True
        if phone and not late_checked and state["wall"] <= 30:
            assert_in_view(page, True, "late in a hand")
            late_checked = True
        pong = page.locator("#option-buttons button[data-kind=pong]")
        if not ponged and any(o["kind"] == "pong" for o in state["options"]) and pong.count():
            melds = page.locator(".seat.pos-bottom .meld[data-kind=pong]").count()
            pong.focus()
            page.keyboard.press("Enter")  # the focused button's own action, not the page's pass
            next_decision(page, state["decision_id"])
            if page.locator(".seat.pos-bottom .meld[data-kind=pong]").count() > melds:
                ponged = True
                assert [p["command"] for p in posts][-1] == "p", posts[-3:]
            continue
        answer(page, state)

    text = " ".join([page.locator("#log").inner_text(), page.locator("#prompt").inner_text()])
    assert not NOTATION.search(text), text
    assert "or a tile name" not in page.locator("body").inner_text()


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("link", ["seat=expired-or-unknown", "match=nope"])
def test_a_dead_link_says_why(page: Any, site: Any, artifacts: Any, size: str, link: str) -> None:
    width, height = SIZES[size]
    page.set_viewport_size({"width": width, "height": height})
    page.goto(f"{site.url}table.html?{link}")
    page.wait_for_selector("#problem:not(.hidden) a[href='/']")
    words = page.locator("#problem").inner_text()
    assert "cannot be shown" in words and len(words) > len(
        "This table cannot be shown: Back to the lobby"
    )
    assert "Waiting" not in page.locator("body").inner_text()
    assert_contrast(page, "a dead link")
    page.screenshot(path=str(artifacts / f"table-page-dead-{link.split('=')[0]}-{size}.png"))


def test_the_lobby_reads_well(page: Any, site: Any) -> None:
    page.goto(site.url)
    page.wait_for_selector("#policy option", state="attached")
    page.select_option("#policy", "expert")
    assert page.locator("#level").input_value() == "3", "the expert's default level"
    assert_contrast(page, "the lobby")


def test_a_tournament_page_reads_well(page: Any, site: Any, web_stack: Any) -> None:
    """Standings, rounds and their badges at WCAG AA, and no seating internals for players."""
    tournament_id = bot_tournament(web_stack, players=4, rounds=1, hands=1)
    page.goto(f"{site.url}tournament.html?id={tournament_id}")
    page.wait_for_function("document.querySelectorAll('#standings tbody tr').length === 4")
    page.wait_for_selector(".round .quality")
    assert not re.search(r"\d s\b", page.locator(".round .quality").first.inner_text())
    assert "seed_draw" not in page.locator("body").inner_text()
    assert_contrast(page, "the tournament page")
