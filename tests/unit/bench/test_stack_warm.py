"""The stack benchmark measures play only once every bot worker process says it has warmed
up (``hebei_bot_warm``): the workers fill their tables in a thread, which must not be counted
as play. The pages are served by a real HTTP server, as a worker's /metrics is."""

from __future__ import annotations

import http.server
import threading
import time
from collections.abc import Iterator

import pytest
from prometheus_client import CollectorRegistry, Gauge, generate_latest

from hebei.bench.stack_metrics import wait_workers_warm, workers_warm


class Page:
    """A /metrics page on 127.0.0.1 whose ``hebei_bot_warm`` can be set (or left out)."""

    def __init__(self, warm: float | None) -> None:
        self.registry = CollectorRegistry()
        self.gauge = None
        if warm is not None:
            self.gauge = Gauge("hebei_bot_warm", "warm", registry=self.registry)
            self.gauge.set(warm)
        page = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = generate_latest(page.registry)
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.address = f"127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def pages() -> Iterator[list[Page]]:
    made: list[Page] = []
    yield made
    for page in made:
        page.close()


def test_play_waits_until_every_worker_process_is_warm(pages: list[Page]) -> None:
    warm, cold = Page(1.0), Page(0.0)
    pages += [warm, cold]
    addresses = [warm.address, cold.address]
    assert not workers_warm(addresses)
    with pytest.raises(TimeoutError):
        wait_workers_warm(addresses, timeout=0.3)
    threading.Timer(0.5, lambda: cold.gauge.set(1.0)).start()
    started = time.monotonic()
    wait_workers_warm(addresses, timeout=10.0)
    assert time.monotonic() - started >= 0.4
    assert workers_warm(addresses)


def test_a_worker_without_the_gauge_counts_as_warm(pages: list[Page]) -> None:
    older = Page(None)
    pages.append(older)
    assert workers_warm([older.address])
    wait_workers_warm([older.address], timeout=0.1)
