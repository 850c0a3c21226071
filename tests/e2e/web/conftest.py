"""Browser fixtures: Debian's Chromium driven by Playwright (``playwright install`` cannot
download a browser here), the shared stack, and a gateway whose SSE responses last 5 s, so the
pages resume with Last-Event-ID many times during a test."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hebei.stack.processes import Stack
from hebei.web.server import RunningGateway
from tests.integration.web.harness import acquire_stack, gateway, release_stack

CHROMIUM = os.environ.get("HEBEI_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
ARTIFACTS = Path(__file__).with_name("artifacts")


# Package scope, not session: while Playwright's sync API is open the main thread counts as
# running an asyncio loop, so every later test's asyncio.run() would fail.
@pytest.fixture(scope="package")
def browser() -> Iterator[object]:
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"no Chromium at {CHROMIUM}: install Debian's (apt-get install -y chromium) "
            "or set HEBEI_CHROMIUM"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def web_stack(database_url: str, broker_url: str) -> Iterator[Stack]:
    stack = acquire_stack(database_url, broker_url)
    yield stack
    release_stack()


@pytest.fixture(scope="module")
def site(web_stack: Stack) -> Iterator[RunningGateway]:
    with gateway(web_stack, stream_seconds=5.0) as running:
        yield running


@pytest.fixture
def page(browser) -> Iterator[object]:
    """A fresh browser context and page; page errors fail the test."""
    # bypass_csp: Playwright evaluates its wait predicates with eval, which the pages forbid.
    context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    context.set_default_timeout(30_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert not errors, errors


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


def sit_down(page: Any, site: RunningGateway, hands: int) -> None:
    """From the lobby: Mei sits down against efficiency bots for ``hands`` hands."""
    page.goto(site.url)
    page.wait_for_selector("#policy option", state="attached")
    page.select_option("#policy", "efficiency")
    page.fill("input[name=name]", "Mei")
    page.fill("input[name=hands]", str(hands))
    page.click("#play")
    page.wait_for_url("**/table.html?seat=*")
