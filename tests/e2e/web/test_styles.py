"""The page's stylesheet in a real Chromium, without the stack: what a person sees of it."""

from __future__ import annotations

from importlib import resources
from typing import Any

CSS = resources.files("hebei.web").joinpath("static/app.css").read_text(encoding="utf-8")

# A hand as table.js renders it: a slot per tile, the tile (discardable: "can") above its key.
HAND = """
<div class="hand-area"><div id="hand" class="hand">
  <span class="slot"><span class="tile s-m can" data-tile="7m"><b>7</b><i>万</i></span><kbd>1</kbd></span>
  <span class="slot"><span class="tile s-p can" data-tile="3p"><b>3</b><i>筒</i></span><kbd>2</kbd></span>
  <span class="slot drawn"><span class="tile s-s can" data-tile="5s"><b>5</b><i>条</i></span><kbd>3</kbd></span>
</div></div>
"""

# The tile's top edge over 20 animation frames.
TOPS = """
(selector) => new Promise((done) => {
  const tops = [];
  const sample = () => {
    tops.push(document.querySelector(selector).getBoundingClientRect().top);
    if (tops.length < 20) requestAnimationFrame(sample); else done(tops);
  };
  requestAnimationFrame(sample);
})
"""


def test_a_hovered_tile_holds_still_with_the_pointer_at_its_lower_edge(page: Any) -> None:
    """A discardable tile lifts when hovered. With the pointer just above its lower edge, a
    tile that lifts out from under the pointer drops back under it and lifts again, frame
    after frame: a person sees it jitter, and a click (Playwright's, in the play test on a
    loaded machine) waited in vain for it to hold still."""
    page.set_content(f"<html><head><style>{CSS}</style></head><body>{HAND}</body></html>")
    selector = "#hand .tile.can[data-tile='3p']"
    box = page.locator(selector).bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] - 2)
    page.wait_for_timeout(100)
    tops = page.evaluate(TOPS, selector)
    assert len(set(tops)) == 1, f"the tile moved while hovered: tops {tops}"
    assert tops[0] < box["y"], "a hovered discardable tile lifts"


# The table's small print on the felt and in the header, as tableview.js and table.js render it.
SMALL_PRINT = """
<header class="top"><a class="brand" href="/">河北麻将 hebei</a><span id="title" class="muted">quick-1a2b</span>
  <span class="badge">connecting…</span><span class="badge">ended</span><span class="badge ok">live</span>
  <span class="badge warn">reconnecting</span></header>
<div class="board"><div class="seat pos-top"><div class="who"><span class="name">Lin 南</span>
  <span class="flags"><span class="badge">bot</span><span class="badge warn">托管 auto</span><span class="badge bad">offline</span></span></div>
  <div class="concealed"><span class="count"> 13 in hand</span></div>
  <div class="melds"><span class="meld"><span class="label">碰 </span></span><span class="meld"><span class="label">杠 </span></span></div>
  <p class="muted">muted on the felt</p></div></div>
<main><section class="card"><p class="muted">quick-1a2b ended</p><span class="badge">ended</span></section></main>
"""


def test_the_small_print_reads_at_wcag_aa(page: Any) -> None:
    """Badges, match ids, hidden-tile counts, meld labels, the header's badges: 4.5:1."""
    from tests.e2e.web.test_table_page import CONTRAST

    page.set_content(f"<html><head><style>{CSS}</style></head><body>{SMALL_PRINT}</body></html>")
    assert page.evaluate(CONTRAST) == []
