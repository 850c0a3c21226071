"""The tournament page links the organiser's exports and each round's printable seating, and
the links work (the files and pages the gateway serves)."""

from __future__ import annotations

from typing import Any

import httpx

from tests.integration.web.harness import bot_tournament


def test_the_tournament_page_links_its_exports(page: Any, site: Any, web_stack: Any) -> None:
    tournament_id = bot_tournament(web_stack)
    page.goto(f"{site.url}tournament.html?id={tournament_id}")
    page.wait_for_selector("#exports a")
    page.wait_for_selector("#rounds .round h3 a")
    links = page.eval_on_selector_all(
        "#exports a, #rounds .round h3 a", "nodes => nodes.map(n => n.getAttribute('href'))"
    )
    assert any(link.endswith("/export/results.csv") for link in links), links
    assert any(link.endswith("/export/seating.json") for link in links), links
    assert any("/print/round/1" in link for link in links), links
    for link in links:
        reply = httpx.get(site.url.rstrip("/") + link, timeout=60)
        assert reply.status_code == 200, (link, reply.text[:200])
