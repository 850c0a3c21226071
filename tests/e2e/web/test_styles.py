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
